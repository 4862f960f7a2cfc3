#!/bin/sh
# 62-mcp.sh: `airlock mcp -- SERVER` between a scripted client and (1) a
# small fake server that logs what reaches it, (2) the real
# @modelcontextprotocol/server-filesystem from npm (installed by make deps
# into build-npm/; SKIP, said clearly, when it is not there). Checks that
# lines pass unchanged, that denied calls never reach the server, that the
# server's destructiveHint raises the tier, and the audit log.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-mcp.XXXXXX)
trap 'rm -rf "$d"' EXIT
data=$PWD/tests/data/integrations
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # skip slow shims
mkdir -p "$d/wd"
echo hello > "$d/wd/hello.txt"
db=$d/audit.db
mcp() { (cd "$d/wd" && "$AIRLOCK" mcp --no-tty --db "$db" "$@"); }
client() { script=$1; shift; $PY "$data/mcp-client.py" "$script" "$AIRLOCK" mcp --no-tty --db "$db" "$@"; }
q() { sqlite3 "$db" "$1"; }
res() { jq -c "select(.id == $1)" "$2"; }
is_true() { [ "$(jq -c "$1" "$2")" = true ]; } # jq -e misreads trailing empty output

# --- 1. the fake server --------------------------------------------------
(cd "$d/wd" && client "$data/fake-mcp-script.jsonl" -- $PY "$data/fake-mcp-server.py" "$d/fake.log") \
	> "$d/fake.out" 2> "$d/fake.err"
expect_eq "fake: client got every answer" "$?" 0
expect_eq "fake: server name from serverInfo" "$(res 1 "$d/fake.out" | jq -r .result.serverInfo.name)" fake
check "fake: read-only lookup forwarded" is_true 'select(.id == 3) | .result.content[0].text == "ran lookup"' "$d/fake.out"
for id in 4 5 6; do
	check "fake: call $id answered by airlock as a tool error" is_true \
		"select(.id == $id) | .result.isError == true and (.result.content[0].text | startswith(\"denied by airlock: \"))" "$d/fake.out"
done
# the server runs a command it is sent itself, outside airlock's sandbox:
# even a low one is a person's to allow (none here: denied)
check "fake: low shell call asks, not forwarded" is_true \
	'select(.id == 7) | .result.isError and (.result.content[0].text | contains("outside airlock'"'"'s sandbox"))' "$d/fake.out"
expect_eq "fake: other methods pass through" "$(res 8 "$d/fake.out" | jq -r .result.echo)" resources/list
expect_eq "fake: bad params refused" "$(res 9 "$d/fake.out" | jq -r .error.code)" -32602
# What reached the server: exactly the client's lines for what passed.
expect_eq "fake: denied calls never reached the server" \
	"$(jq -r 'select(.method == "tools/call") | .id' "$d/fake.log" | tr '\n' ' ')" "3 "
grep -v '^#' "$data/fake-mcp-script.jsonl" | $PY -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l); m.pop("wait", None)
    if m.get("id") in (None, 1, 2, 3, 8): print(json.dumps(m))' > "$d/fake.want"
expect_eq "fake: forwarded lines unchanged" "$(cat "$d/fake.log")" "$(cat "$d/fake.want")"
expect_eq "fake: destructiveHint raises to high" \
	"$(q "SELECT tier || ' ' || (rules LIKE '%mcp.annotation.destructive%') FROM call_index WHERE name = 'mcp:fake.wipe'")" "2 1"
expect_eq "fake: readOnlyHint does not lower" \
	"$(q "SELECT tier FROM call_index WHERE name = 'mcp:fake.exec' AND summary LIKE 'rm -rf /%'")" 3
expect_eq "fake: sql argument to the SQL classifier" \
	"$(q "SELECT tool FROM call_index WHERE name = 'mcp:fake.run_query'")" sql
expect_eq "fake: forwarded calls finished with the server's answer" \
	"$(q "SELECT count(*) FROM call_index WHERE name LIKE 'mcp:fake.%' AND ran = 1")" 1
# a person (here a program) may let it run
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"ls"}}}' |
	(cd "$d/wd" && "$AIRLOCK" mcp --no-tty --db "$db" --approve-with true --name ok -- \
		$PY "$data/fake-mcp-server.py" "$d/ok.log") > "$d/ok.out" 2> "$d/ok.err"
expect_eq "fake: an approved shell call reaches the server" "$(jq -r .params.arguments.command "$d/ok.log")" ls

# Lines airlock cannot parse strictly are refused, not forwarded; batches split.
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"exec","arguments":{"command":"rm -rf /"}}}' \
	'[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"rm -rf /"}}},{"jsonrpc":"2.0","id":3,"method":"ping"}]' \
	'not json' |
	mcp --name raw -- $PY "$data/fake-mcp-server.py" "$d/raw.log" > "$d/raw.out" 2> "$d/raw.err"
expect_eq "raw: exit with the server's status" "$?" 0
expect_eq "raw: duplicate keys refused" "$(sed -n 1p "$d/raw.out" | jq -r '.error.code')" -32700
grep -F '[{"jsonrpc":"2.0","id":2,' "$d/raw.out" > "$d/raw.batch"
check "raw: batch's denied call answered" is_true '.[0].id == 2 and .[0].result.isError' "$d/raw.batch"
expect_eq "raw: only the ping reached the server" "$(cat "$d/raw.log")" '[{"jsonrpc": "2.0", "id": 3, "method": "ping"}]'
expect_eq "raw: --name names the server" "$(q "SELECT count(*) FROM call_index WHERE name = 'mcp:raw.exec'")" 1
expect_eq "raw: garbage answered with a parse error" "$(grep -c '"code":-32700' "$d/raw.out")" 2

# Without --name, a call's name waits for the server's serverInfo.name: a
# tools/call before initialize, or in initialize's batch, was named after
# the server's command (mcp:fake-mcp-server.py.exec), and a policy rule on
# mcp:fake.exec missed it. Refused now, never forwarded.
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"x"}}}' \
	'[{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"x"}}}]' \
	'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"x"}}}' |
	mcp -- $PY "$data/fake-mcp-server.py" "$d/early.log" > "$d/early.out" 2> "$d/early.err"
check "early: a call before initialize refused" is_true \
	'select(.id == 1) | .error.code == -32600 and (.error.message | contains("before initialize"))' "$d/early.out"
check "early: a call in initialize's batch refused" is_true \
	'if type == "array" then .[] else . end | select(.id == 3) | .error.message | contains("same batch as initialize")' "$d/early.out"
expect_eq "early: the refused calls never reached the server" \
	"$(jq -r 'if type == "array" then .[] else . end | select(.method == "tools/call") | .id' "$d/early.log" | tr '\n' ' ')" ""
expect_eq "early: the call after initialize is named after serverInfo" "$(q "SELECT name FROM call_index WHERE name LIKE 'mcp:%lookup' ORDER BY id DESC LIMIT 1")" mcp:fake.lookup

# A server line longer than --line-cap reaches the client whole, unread
# (dropped, the client waited for ever); the call it answered is recorded
# as unread, and the lines after it pass as before.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"x","pad":300000}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":200000}}' \
	'{"jsonrpc":"2.0","id":4,"method":"ping"}' |
	mcp --line-cap 100000 --name big -- $PY "$data/fake-mcp-server.py" "$d/big.log" > "$d/big.out" 2> "$d/big.err"
expect_eq "long line: every answer, one per line" "$(jq -c .id "$d/big.out" | tr '\n' ' ')" "1 2 3 4 "
expect_eq "long line: a call's answer whole" "$(res 2 "$d/big.out" | jq -r '.result.content[0].text | length')" 300010
expect_eq "long line: another answer whole" "$(res 3 "$d/big.out" | jq -r '.result.pad | length')" 200000
check "long line: said on stderr" grep -q 'longer than the line cap (100000 bytes); passed to the client unread' "$d/big.err"
check "long line: the call recorded as unread" sh -c "sqlite3 '$db' \"SELECT e.body FROM events e JOIN call_index c ON e.call = c.id WHERE c.name = 'mcp:big.lookup' AND e.kind = 'finished'\" | grep -q 'passed to the client unread'"

# Policy rules name MCP tools as Mcp(server.tool).
printf '[rules]\n\tdeny = Mcp(pol.lookup)\n' > "$d/policy"
chmod 600 "$d/policy"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"x"}}}' |
	mcp --policy "$d/policy" --name pol -- $PY "$data/fake-mcp-server.py" "$d/pol.log" > "$d/pol.out" 2>&1
check "policy: deny = Mcp(server.tool) applies" grep -q 'denied by airlock: .*; rule deny = Mcp(pol.lookup)' "$d/pol.out"
check "policy: the denied call never reached the server" test ! -s "$d/pol.log"

# Held for approval: --approve-with decides; approved calls are forwarded.
for who in 'exit 0' 'echo not now; exit 1'; do
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wipe","arguments":{"path":"x"}}}' |
		mcp --approve-with "$who" --name held -- $PY "$data/fake-mcp-server.py" "$d/held.log"
done > "$d/held.out" 2>&1
check "held: approved call forwarded" grep -q '"text": "ran wipe"' "$d/held.out"
check "held: refused call answered with the reason" grep -q 'denied by airlock: .*; not now' "$d/held.out"
expect_eq "held: both decisions recorded" \
	"$(q "SELECT group_concat(decision || '/' || who, ' ') FROM (SELECT decision, who FROM call_index WHERE name = 'mcp:held.wipe' ORDER BY id)")" \
	"approved/approve-with denied/approve-with"

# --- 2. the real filesystem server from npm --------------------------------
fs=$PWD/build-npm/node_modules/.bin/mcp-server-filesystem
if [ ! -x "$fs" ]; then
	sh tools/npm-deps.sh > /dev/null 2>&1 || true
fi
if [ ! -x "$fs" ] || ! command -v node > /dev/null 2>&1; then
	echo "SKIP: @modelcontextprotocol/server-filesystem is not installed in build-npm/"
	echo "SKIP: (make deps installs it from the npm registry, which was not reachable)"
else
	sed "s#WORKDIR#$d/wd#g" "$data/mcp-script.jsonl" > "$d/fs.jsonl"
	(cd "$d/wd" && client "$d/fs.jsonl" -- node "$fs" "$d/wd") > "$d/fs.out" 2> "$d/fs.err"
	expect_eq "fs: client got every answer" "$?" 0
	expect_eq "fs: server name" "$(res 1 "$d/fs.out" | jq -r .result.serverInfo.name)" secure-filesystem-server
	check "fs: tools listed with annotations" is_true 'select(.id == 2) | [.result.tools[] | select(.name == "write_file") | .annotations.destructiveHint] == [true]' "$d/fs.out"
	expect_eq "fs: a read passes" "$(res 3 "$d/fs.out" | jq -r '.result.content[0].text')" hello
	check "fs: the write is denied headless" is_true 'select(.id == 4) | .result.isError and (.result.content[0].text | startswith("denied by airlock: "))' "$d/fs.out"
	check "fs: nothing written" test ! -e "$d/wd/pwned.txt"
	check "fs: string ids kept" is_true 'select(.id == "s5") | .result.content[0].text | contains("hello.txt")' "$d/fs.out"
	expect_eq "fs: ping passes" "$(res 6 "$d/fs.out" | jq -c .result)" '{}'
	n=secure-filesystem-server
	expect_eq "fs: read recorded and finished" \
		"$(q "SELECT decision || ' ' || ran || ' ' || exit_code FROM call_index WHERE name = 'mcp:$n.read_text_file'")" "auto 1 0"
	expect_eq "fs: write recorded as denied, high, not run" \
		"$(q "SELECT tier || ' ' || decision || ' ' || ran FROM call_index WHERE name = 'mcp:$n.write_file'")" "2 denied 0"
	check "fs: write's rule from the server's annotation" sh -c "sqlite3 '$db' \"SELECT rules FROM call_index WHERE name = 'mcp:$n.write_file'\" | grep -q mcp.annotation.destructive"
	check "fs: the read's result is in the log" sh -c "sqlite3 '$db' \"SELECT body FROM events WHERE kind = 'finished'\" | grep -q '\"stdout\":\"hello'"
fi
expect_eq "mcp sessions in the log" "$(q "SELECT count(*) > 0 FROM sessions WHERE mode = 'mcp'")" 1
check "audit verify" "$AIRLOCK" audit verify --db "$db"
finish
