#!/bin/sh
# 128-integrations-review6.sh: a sixth hostile review of the gate and the
# agent integrations (hook, mcp, run, watch): each case a way the log or
# the exit status said less than what happened, each failing on 5a0a230
# before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 python3
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME" "$d/wd"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
F=$PWD/tests/data/integrations/fake-mcp-server.py
events() { sqlite3 "$1" "SELECT count(*) FROM events WHERE kind = '$2'"; }

# --- gate: the log refused every call, and the gate exited 0 --------------
# The audit log removed while the gate ran: every later call is refused
# (an error result each), the session's end cannot be written, and the
# gate said 0, as after a clean session. Now 125: the log is not whole.
mkfifo "$d/rm.fifo"
(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/rm.db" <"$d/rm.fifo" >"$d/rm.out" 2>"$d/rm.err"
	echo $? >"$d/rm.rc") &
exec 3>"$d/rm.fifo"
echo '{"id":1,"tool":"read_file","input":{"path":"nothing-here"}}' >&3
i=0
until [ -s "$d/rm.out" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
rm -f "$d/rm.db" "$d/rm.db-wal" "$d/rm.db-shm"
echo '{"id":2,"tool":"read_file","input":{"path":"nothing-here"}}' >&3
exec 3>&-
wait
expect_eq "gate, log removed: the next call refused" "$(sed -n 2p "$d/rm.out" | jq -r .decision)" error
expect_eq "gate, log removed: exit 125, not 0" "$(cat "$d/rm.rc")" 125
# a log that was locked for one call and then took the rest stays 0
echo '{"id":1,"tool":"read_file","input":{"path":"nothing-here"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/ok.db" >/dev/null 2>&1)
expect_eq "gate, a whole log: exit 0" "$?" 0

# --- mcp: an outcome the log could not take was never written -------------
# The server locks the log (as another airlock's long write would) past
# the busy timeout while it answers a forwarded call: the call ran, its
# finished event failed, was printed on stderr and never written, so the
# log said the call was decided and not that it ran. Now it is written at
# the next call, marked "recorded late", as the gate does.
(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_files","arguments":{"path":".","pattern":"x"}}}'
	sleep 16
	echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_files","arguments":{"path":".","pattern":"y"}}}'
	sleep 1) |
	(cd "$d/wd" && FAKE_MCP_LOCK="$d/late.db" timeout 60 "$AIRLOCK" mcp --no-tty --db "$d/late.db" \
		-- $PY "$F" "$d/late.log") >"$d/late.out" 2>/dev/null
check "mcp, log locked at the outcome: the call was answered" grep -q '"id": 2, "result"' "$d/late.out"
expect_eq "mcp, log locked at the outcome: every forwarded call finished" \
	"$(events "$d/late.db" finished)" 2
expect_eq "mcp, log locked at the outcome: recorded late, as run" \
	"$(sqlite3 "$d/late.db" "SELECT json_extract(body, '$.ran') || ' ' ||
		(json_extract(body, '$.reason') LIKE '%recorded late%') FROM events
		WHERE kind = 'finished' ORDER BY id LIMIT 1")" "1 1"
check "mcp, log locked at the outcome: the chain verifies" "$AIRLOCK" audit verify --db "$d/late.db"

# --- mcp: an empty batch was neither answered nor recorded -----------------
# JSON-RPC answers `[]` with one -32600 error; airlock forwarded nothing and
# said nothing (a client waiting for that answer waited for ever), and the
# log had no trace of it. Now it is answered and recorded as rejected.
(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}' '[]'; sleep 1) |
	(cd "$d/wd" && timeout 30 "$AIRLOCK" mcp --no-tty --db "$d/eb.db" -- $PY "$F" "$d/eb.log") \
		>"$d/eb.out" 2>/dev/null
check "mcp, []: answered -32600" grep -q '"code":-32600,"message":"airlock: an empty batch' "$d/eb.out"
expect_eq "mcp, []: recorded as rejected" "$(events "$d/eb.db" rejected)" 1
expect_eq "mcp, []: not forwarded" "$(grep -c '^\[' "$d/eb.log")" 0

# --- hook: the repeat breaker missed a call holding a token ---------------
# Each hook call is its own process and replays the agent's last calls
# from the log, where a token is stored redacted: the live call (token in
# clear) never equalled them, so an agent retrying a call that carries an
# API key (the paid-API loop the breaker is for) was never stopped. Now
# the live call is compared as the log stores it: the 11th is asked.
mkdir -p "$d/proj/.git"
tok=$(printf 'ghp_%036d' 7)
rep() {
	jq -cn --arg cwd "$d/proj" --arg c "$1" --arg s "$2" \
		'{session_id:$s,cwd:$cwd,hook_event_name:"PreToolUse",permission_mode:"default",
		  tool_name:"Bash",tool_input:{command:$c}}' >"$d/rep.json"
	i=0
	while [ $i -lt 11 ]; do
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --db "$d/rep.db" <"$d/rep.json" 2>/dev/null
		i=$((i + 1))
	done | jq -r '.hookSpecificOutput | .permissionDecision + " " +
		(.permissionDecisionReason | test("breaker repeat") | tostring)' | tail -n 2 | tr '\n' ' '
}
expect_eq "hook, a call holding a token, 11 times: the 11th trips repeat" \
	"$(rep "echo $tok" tok)" "allow false ask true "
expect_eq "hook, one with a password flag: the same" \
	"$(rep "echo --password hunter2secret" pw)" "allow false ask true "
expect_eq "hook, a plain call: as before" "$(rep "echo plain" plain)" "allow false ask true "

# An MCP tool's calls that differ only in their arguments were "the same
# call" to repeat (it hashed the named fields, which such a tool has
# none of): with the tool allowed, the 11th get_issue of 11 issues asked,
# "the same call 11 times in a row". Now its input counts.
printf '[rules]\n\tallow = Mcp(github.get_issue)\n' >"$d/gh.policy"
chmod 600 "$d/gh.policy"
gh() {
	jq -cn --arg cwd "$d/proj" --argjson n "$1" \
		'{session_id:"gh",cwd:$cwd,hook_event_name:"PreToolUse",permission_mode:"default",
		  tool_name:"mcp__github__get_issue",tool_input:{owner:"o",repo:"r",issue_number:$n}}' |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --policy "$d/gh.policy" \
			--db "$d/gh.db" 2>/dev/null | jq -r .hookSpecificOutput.permissionDecision
}
out=""
for n in 1 2 3 4 5 6 7 8 9 10 11; do out="$out$(gh $n) "; done
expect_eq "hook, 11 get_issue calls of 11 issues: all allowed" "$out" \
	"allow allow allow allow allow allow allow allow allow allow allow "
out=""
for n in 1 2 3 4 5 6 7 8 9 10 11; do out="$(gh 7)"; done
expect_eq "hook, the same get_issue 11 times: the 11th asks" "$out" ask

# per-minute = 5 and a Bash call after every three Reads: the hook
# replayed the last max(per-minute, repeat) = 10 calls of every tool, two
# or three of them Bash, and the sixth Bash call in the minute ran (the
# gate asks). Now the replay grows while its oldest call is in the window.
printf '[breaker]\n\tper-minute = 5\n' >"$d/pm.policy"
chmod 600 "$d/pm.policy"
pm() {
	jq -cn --arg cwd "$d/proj" --arg t "$1" --argjson in "$2" \
		'{session_id:"pm",cwd:$cwd,hook_event_name:"PreToolUse",permission_mode:"default",
		  tool_name:$t,tool_input:$in}' |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --policy "$d/pm.policy" \
			--db "$d/pm.db" 2>/dev/null | jq -r .hookSpecificOutput.permissionDecisionReason
}
i=0
while [ $i -lt 6 ]; do
	for j in 1 2 3; do pm Read '{"file_path":"'"$d/proj/f$i$j"'"}' >/dev/null; done
	last=$(pm Bash '{"command":"echo '$i'"}')
	i=$((i + 1))
done
check "hook, the sixth Bash call among Reads in a minute: per-minute trips" \
	sh -c 'printf "%s" "$1" | grep -q "breaker per-minute: more than 5 shell calls"' _ "$last"

# --- a closed stdin or stdout ----------------------------------------------
# With stdin closed, the signal pipe the gate made took fd 0 and the gate
# read its own pipe for good (timeout: 124), and SIGTERM's wake-up byte
# could be read there as input: SIGTERM did not always stop it (-k's
# SIGKILL does, here: 137; 15 minutes once without it). With stdout closed,
# the first call ran before the gate found it could not answer. Now the
# slots are held (reads and writes there still fail), the gate says it
# cannot read (125), and with no stdout it runs nothing.
(cd "$d/wd" && timeout -k 2 10 "$AIRLOCK" gate --no-tty --db "$d/cl.db" <&- >/dev/null 2>&1)
expect_eq "gate <&-: an error (125), not a hang" "$?" 125
(cd "$d/wd" && timeout -k 2 10 "$AIRLOCK" --db "$d/cl.db" <&- >/dev/null 2>&1)
expect_eq "airlock <&- (the gate by default): 125, not a hang" "$?" 125
echo '{"id":1,"tool":"shell","input":{"command":"touch ran-closed"}}' |
	(cd "$d/wd" && timeout -k 2 10 "$AIRLOCK" gate --no-tty --db "$d/cl.db" >&- 2>"$d/cl.err")
expect_eq "gate >&-: 125" "$?" 125
check "gate >&-: the call did not run" test ! -e "$d/wd/ran-closed"
check "gate >&-: it says why" grep -q 'stdout is closed' "$d/cl.err"
# classify --shell wrote its verdict into a full disk and exited 0
"$AIRLOCK" classify --shell ls >/dev/full 2>/dev/null
expect_eq "classify --shell >/dev/full: 125, not 0" "$?" 125

# --- gate: lines answered "not run" at a stop left no trace ---------------
# SIGTERM while a call runs: the lines read behind it are answered
# "airlock is stopping ... not run", and the log held nothing of them: it
# did not show that the agent had sent them. Now each is a rejected event.
mkfifo "$d/st.fifo"
(cd "$d/wd" && exec "$AIRLOCK" gate --no-tty --db "$d/st.db" <"$d/st.fifo" >"$d/st.out" 2>/dev/null) &
gp=$!
exec 3>"$d/st.fifo"
printf '%s\n' '{"id":"slow","tool":"shell","input":{"command":"sleep 3"}}' \
	'{"id":"q1","tool":"read_file","input":{"path":"a"}}' \
	'{"id":"q2","tool":"shell","input":{"command":"true"}}' >&3
i=0
until [ "$(sqlite3 "$d/st.db" "SELECT count(*) FROM events WHERE kind = 'decided'" 2>/dev/null)" = 1 ] ||
	[ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -TERM "$gp"
wait "$gp"
exec 3>&-
expect_eq "gate, SIGTERM: the lines behind the call answered not run" \
	"$(jq -r 'select(.error) | .id' "$d/st.out" | tr '\n' ' ')" "q1 q2 "
expect_eq "gate, SIGTERM: and recorded as rejected" \
	"$(sqlite3 "$d/st.db" "SELECT json_extract(body, '$.head') FROM events
		WHERE kind = 'rejected' ORDER BY id" | jq -r .id | tr '\n' ' ')" "q1 q2 "

finish
