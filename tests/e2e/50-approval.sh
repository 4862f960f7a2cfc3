#!/bin/sh
# 50-approval.sh: the approval screen in a real terminal. Each case starts
# `airlock gate` inside a detached tmux session (its own server), types keys
# with send-keys, reads the screen with capture-pane, then checks the result
# lines, the files on the host and the audit log. A policy file makes every
# tier ask, so the cases do not depend on how the classifier grades a command.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
d=$(mktemp -d /tmp/airlock-e2e-tui.XXXXXX)
. tests/e2e/tmux.sh

printf '[tier "low"]\n\taction = ask\n[tier "medium"]\n\taction = ask\n[tier "high"]\n\taction = ask\n' \
	>"$d/ask.policy"
printf '[tier "low"]\n\taction = ask\n\tapproval-timeout = 2\n[tier "medium"]\n\taction = ask\n\tapproval-timeout = 2\n[tier "high"]\n\taction = ask\n\tapproval-timeout = 2\n' \
	>"$d/timeout.policy"
cat >"$d/editor.sh" <<'EOF'
#!/bin/sh
sed -i 's/victim/other/' "$1"
EOF
chmod +x "$d/editor.sh"

# start NAME POLICY [ENV=VALUE...]: runs the gate on $d/NAME/calls in a new
# session; the pane stays open after the gate ends (remain-on-exit).
start() {
	n=$1 pol=$2
	shift 2
	mkdir -p "$d/$n/w" "$d/$n/home"
	tm new-session -d -s "$n" -x 80 -y 24 \
		"cd '$d/$n/w' || exit 1; env HOME='$d/$n/home' LANG=C.UTF-8 TERM=screen $* '$AIRLOCK' gate --db '$d/$n/a.db' --policy '$pol' < ../calls > ../out 2> ../err & echo \$! > '$d/$n/pid'; wait"
}
field() { jq -r "$2" "$d/$1/out" | sed -n "${3:-1}p"; }
audit() { sqlite3 "$d/$1/a.db" "$2"; }
decided() {
	audit "$1" "select json_extract(body,'\$.who')||' '||json_extract(body,'\$.decision') from events where kind='decided' order by id" | sed -n "${2:-1}p"
}
# armed: approving keys count once the call has been on screen for 1 s
armed() { sleep 1.1; }
call() { jq -cn --arg c "$1" '{id:1,tool:"shell",input:{command:$c}}'; }

# --- approve ---------------------------------------------------------------
mkdir -p "$d/approve/w/victim"
call "rm -rf victim" >"$d/approve/calls"
start approve "$d/ask.policy"
check "approve: screen shows the call" wait_for approve "rm -rf victim"
check "approve: header" wait_for approve "approve?"
check "approve: footer keys and countdown" wait_for approve "a approve"
armed
tm send-keys -t approve a
check "approve: gate exits" pane_dead approve 20
expect_eq "approve: decision" "$(field approve .decision)" approved
check "approve: the command ran" test ! -e "$d/approve/w/victim"
expect_eq "approve: audit who" "$(decided approve)" "user approved"
check "approve: screen restored" sh -c "! tmux -L $SOCK capture-pane -p -t approve | grep -q 'approve?'"

# --- deny with a reason --------------------------------------------------------
mkdir -p "$d/deny/w/victim"
call "rm -rf victim" >"$d/deny/calls"
start deny "$d/ask.policy"
wait_for deny "a approve" >/dev/null
tm send-keys -t deny d
check "deny: reason prompt" wait_for deny "reason for the agent"
tm send-keys -t deny -l "use make clean instead"
tm send-keys -t deny Enter
check "deny: gate exits" pane_dead deny 20
expect_eq "deny: decision" "$(field deny .decision)" denied
expect_eq "deny: reason reaches the agent" "$(field deny .reason)" "use make clean instead"
check "deny: nothing ran" test -d "$d/deny/w/victim"
expect_eq "deny: audit who" "$(decided deny)" "user denied"
expect_eq "deny: audit reason" \
	"$(audit deny "select json_extract(body,'\$.reason') from events where kind='decided'")" \
	"use make clean instead"

# --- timeout -----------------------------------------------------------------
mkdir -p "$d/timeout/w/victim"
call "rm -rf victim" >"$d/timeout/calls"
start timeout "$d/timeout.policy"
check "timeout: countdown shown" wait_for timeout "timeout 0:0"
check "timeout: gate exits by itself" pane_dead timeout 20
expect_eq "timeout: decision" "$(field timeout .decision)" denied
expect_eq "timeout: audit who" "$(decided timeout)" "timeout denied"
check "timeout: nothing ran" test -d "$d/timeout/w/victim"

# --- resize ------------------------------------------------------------------
mkdir -p "$d/resize/w/victim"
call "rm -rf victim" >"$d/resize/calls"
start resize "$d/ask.policy"
wait_for resize "a approve" >/dev/null
tm resize-window -t resize -x 120 -y 40
sleep 0.6
expect_eq "resize: footer on the last of 40 rows" \
	"$(screen resize | sed -n 40p | grep -c 'a approve')" 1
expect_eq "resize: header still on top" "$(screen resize | sed -n 1p | grep -c 'approve?')" 1
tm resize-window -t resize -x 24 -y 4
check "resize: too small shows a notice" wait_for resize "enlarge"
tm send-keys -t resize a
sleep 0.4
check "resize: too small decides nothing" test ! -s "$d/resize/out"
tm resize-window -t resize -x 80 -y 24
sleep 0.6
expect_eq "resize: back to 24 rows" "$(screen resize | sed -n 24p | grep -c 'a approve')" 1
armed
tm send-keys -t resize a
check "resize: gate exits" pane_dead resize 20
expect_eq "resize: decision" "$(field resize .decision)" approved

# --- remember for the session, then a matching call passes -------------------
mkdir -p "$d/remember/w/build"
{ call "rm -rf build"; call "rm -rf build"; } >"$d/remember/calls"
start remember "$d/ask.policy"
wait_for remember "a approve" >/dev/null
armed
tm send-keys -t remember A
check "remember: shows the pattern first" wait_for remember "Shell(rm -rf build)"
tm send-keys -t remember y
check "remember: gate exits without asking again" pane_dead remember 20
expect_eq "remember: first approved" "$(field remember .decision 1)" approved
expect_eq "remember: second passes" "$(field remember .decision 2)" auto
expect_eq "remember: asked once" "$(decided remember 1) / $(decided remember 2)" \
	"user approved / policy auto"

# --- edit in $EDITOR ------------------------------------------------------------
mkdir -p "$d/edit/w/victim" "$d/edit/w/other"
call "rm -rf victim" >"$d/edit/calls"
start edit "$d/ask.policy" "EDITOR='$d/editor.sh'"
wait_for edit "a approve" >/dev/null
tm send-keys -t edit e
check "edit: the edited call is asked about again" wait_for edit "rm -rf other"
armed
tm send-keys -t edit a
check "edit: gate exits" pane_dead edit 20
expect_eq "edit: decision" "$(field edit .decision)" approved
check "edit: the edited command ran" test ! -e "$d/edit/w/other"
check "edit: the original did not" test -d "$d/edit/w/victim"
expect_eq "edit: two calls in the log" \
	"$(audit edit "select count(*) from events where kind='received'")" 2

# --- scroll through a 5,000-line file -------------------------------------------
mkdir -p "$d/scroll"
seq 1 5000 | sed 's/^/line /' >"$d/scroll/content"
jq -cn --rawfile c "$d/scroll/content" '{id:1,tool:"write_file",input:{path:"big.txt",content:$c}}' \
	>"$d/scroll/calls"
start scroll "$d/ask.policy"
wait_for scroll "a approve" 10 >/dev/null
tm send-keys -t scroll G
check "scroll: G reaches line 5000" wait_for scroll "line 5000"
tm send-keys -t scroll g
check "scroll: g back to the top" wait_for scroll "rows 1-"
tm send-keys -t scroll /
tm send-keys -t scroll -l "line 2500"
tm send-keys -t scroll Enter
check "scroll: search finds line 2500" wait_for scroll "line 2500"
tm send-keys -t scroll PageDown
check "scroll: PgDn moves on" wait_for scroll "line 252"
tm send-keys -t scroll q
check "scroll: q denies and exits" pane_dead scroll 20
expect_eq "scroll: decision" "$(field scroll .decision)" denied
check "scroll: nothing written" test ! -e "$d/scroll/w/big.txt"

# --- hostile text is shown escaped ------------------------------------------------
mkdir -p "$d/hostile"
printf '{"id":1,"tool":"shell","input":{"command":"echo safe\\r rm -rf ~ \\u001b[8m hidden \\u001b[0m \\u202e tfel"}}\n' \
	>"$d/hostile/calls"
start hostile "$d/ask.policy"
check "hostile: carriage return shown" wait_for hostile 'echo safe\r rm -rf ~'
check "hostile: ANSI escape shown" wait_for hostile '\e[8m hidden \e[0m'
check "hostile: bidi override shown" wait_for hostile '<U+202E> tfel'
check "hostile: warning" wait_for hostile 'WARNING: the command holds 4'
tm send-keys -t hostile q
check "hostile: gate exits" pane_dead hostile 20
expect_eq "hostile: denied" "$(field hostile .decision)" denied

# --- NO_COLOR ---------------------------------------------------------------------
mkdir -p "$d/nocolor"
call "rm -rf victim" >"$d/nocolor/calls"
start nocolor "$d/ask.policy" NO_COLOR=1
wait_for nocolor "a approve" >/dev/null
expect_eq "NO_COLOR: no colour sequences" \
	"$(tm capture-pane -e -p -t nocolor | grep -cE "$(printf '\033')\\[([0-9;]*;)?[34][0-7](;[0-9;]*)?m")" 0
tm send-keys -t nocolor q
pane_dead nocolor 20 >/dev/null

# --- a signal while waiting: the terminal is restored, the call denied -------------
mkdir -p "$d/signal/w/victim"
{ call "rm -rf victim"; call "rm -rf victim"; } >"$d/signal/calls"
start signal "$d/ask.policy"
wait_for signal "a approve" >/dev/null
check "queue: the header counts the call behind" wait_for signal "waiting behind: 1"
kill -TERM "$(cat "$d/signal/pid")"
check "signal: gate exits" pane_dead signal 20
expect_eq "signal: denied" "$(field signal .decision)" denied
expect_eq "signal: audit who" "$(decided signal)" "signal denied"
check "signal: the reason names it" grep -q "interrupted by Terminated" "$d/signal/out"
sleep 0.3 # let tmux read the last bytes the gate wrote
expect_eq "signal: screen restored" "$(tm display -p -t signal '#{alternate_on}')" 0
check "signal: nothing ran" test -d "$d/signal/w/victim"

# --- no terminal at all ---------------------------------------------------------------
mkdir -p "$d/notty/w/victim"
call "rm -rf victim" >"$d/notty/calls"
(cd "$d/notty/w" && HOME="$d/notty" setsid "$AIRLOCK" gate --db "$d/notty/a.db" \
	--policy "$d/ask.policy" <../calls >../out 2>../err)
expect_eq "no tty: denied" "$(field notty .decision)" denied
expect_eq "no tty: reason" "$(field notty .reason)" "no terminal for approval"
expect_eq "no tty: audit who" "$(decided notty)" "no-terminal denied"
check "no tty: nothing ran" test -d "$d/notty/w/victim"
check "no tty: says why on stderr" grep -q "no terminal for approval" "$d/notty/err"

# --- calls typed at the terminal: the screen cannot share it, so asks are denied ---
mkdir -p "$d/typed/w/victim" "$d/typed/home"
tm new-session -d -s typed -x 80 -y 24 \
	"cd '$d/typed/w' || exit 1; env HOME='$d/typed/home' LANG=C.UTF-8 TERM=screen '$AIRLOCK' gate --db '$d/typed/a.db' --policy '$d/ask.policy' > ../out 2> ../err"
sleep 0.5
tm send-keys -t typed -l "$(call "rm -rf victim")"
tm send-keys -t typed Enter C-d
check "typed calls: gate exits" pane_dead typed 20
expect_eq "typed calls: denied" "$(field typed .decision)" denied
expect_eq "typed calls: reason" "$(field typed .reason)" "no terminal for approval"
check "typed calls: nothing ran" test -d "$d/typed/w/victim"

# --- --approve-with CMD, no terminal needed ------------------------------------------------
mkdir -p "$d/with/w/victim"
{ call "rm -rf victim"; call "rm -rf victim"; } >"$d/with/calls"
(cd "$d/with/w" && HOME="$d/with" setsid "$AIRLOCK" gate --db "$d/with/a.db" \
	--policy "$d/ask.policy" \
	--approve-with 'jq -e ".tool == \"shell\"" >/dev/null && [ "$AIRLOCK_SUBJECT" = "rm -rf victim" ] && [ ! -e /tmp/never ] && { [ -e ../first ] && { echo "second time: no"; exit 3; }; touch ../first; exit 0; }' \
	<../calls >../out 2>../err)
expect_eq "approve-with: exit 0 approves" "$(field with .decision 1)" approved
expect_eq "approve-with: else denies" "$(field with .decision 2)" denied
expect_eq "approve-with: stdout is the reason" "$(field with .reason 2)" "second time: no"
expect_eq "approve-with: audit who" "$(decided with 1)" "approve-with approved"
# a program that reads nothing of a large call still decides; one that hangs is timed out
mkdir -p "$d/with2/w"
seq 1 20000 | sed 's/^/line /' >"$d/with2/content"
{ jq -cn --rawfile c "$d/with2/content" '{id:1,tool:"write_file",input:{path:"big.txt",content:$c}}'
  call "rm -rf nothing"; } >"$d/with2/calls"
(cd "$d/with2/w" && HOME="$d/with2" setsid "$AIRLOCK" gate --db "$d/with2/a.db" \
	--policy "$d/timeout.policy" \
	--approve-with '[ "$AIRLOCK_TOOL" = write_file ] && exit 0; sleep 30' \
	<../calls >../out 2>../err)
expect_eq "approve-with: large call, stdin unread" "$(field with2 .decision 1)" approved
expect_eq "approve-with: a hung program times out" "$(decided with2 2)" "timeout denied"

# --- run: the agent exits while its call waits -------------------------------------------
# Nobody reads the result any more: the screen closes and the call is not
# run; a second call the agent left queued is denied without a screen.
mkdir -p "$d/gone/w/victim" "$d/gone/home"
cat >"$d/gone/agent.sh" <<'EOF'
#!/bin/sh
echo '{"id":"g1","tool":"shell","input":{"command":"rm -rf victim"}}'
echo '{"id":"g2","tool":"shell","input":{"command":"rm -rf victim"}}'
while [ ! -e ../go ]; do sleep 0.1; done # exits once the test saw the screen
EOF
chmod +x "$d/gone/agent.sh"
tm new-session -d -s gone -x 80 -y 24 \
	"cd '$d/gone/w' && env HOME='$d/gone/home' LANG=C.UTF-8 TERM=screen '$AIRLOCK' run --db '$d/gone/a.db' --policy '$d/ask.policy' -- ../agent.sh 2> ../err"
check "agent gone: the screen shows the call" wait_for gone "rm -rf victim"
touch "$d/gone/go"
check "agent gone: run exits without a key" pane_dead gone 20
expect_eq "agent gone: the shown call" "$(decided gone 1)" "agent-gone denied"
expect_eq "agent gone: the queued call, never shown" "$(decided gone 2)" "agent-gone denied"
check "agent gone: nothing ran" test -d "$d/gone/w/victim"
expect_eq "agent gone: the reason" \
	"$(audit gone "select json_extract(body,'\$.reason') from events where kind='decided' limit 1")" \
	"the agent exited before a person decided; the call was not run"
# `airlock gate` and `airlock mcp`: the reader of the results (the process
# at the other end of stdout) goes away while a call is on the screen.
mkdir -p "$d/gone2/w/victim" "$d/gone2/home"
call "rm -rf victim" >"$d/gone2/calls"
mkfifo "$d/gone2/fifo"
(exec 3<"$d/gone2/fifo"; while [ ! -e "$d/gone2/go" ]; do sleep 0.1; done) &
tm new-session -d -s gone2 -x 80 -y 24 \
	"cd '$d/gone2/w' && env HOME='$d/gone2/home' LANG=C.UTF-8 TERM=screen '$AIRLOCK' gate --db '$d/gone2/a.db' --policy '$d/ask.policy' < ../calls > ../fifo 2> ../err"
check "reader gone: the screen shows the call" wait_for gone2 "rm -rf victim"
touch "$d/gone2/go"
check "reader gone: gate exits without a key" pane_dead gone2 20
expect_eq "reader gone: denied" "$(decided gone2 1)" "agent-gone denied"
check "reader gone: nothing ran" test -d "$d/gone2/w/victim"
wait
mkdir -p "$d/gone3/w" "$d/gone3/home"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"rm -rf victim"}}}' >"$d/gone3/calls"
mkfifo "$d/gone3/fifo"
(exec 3<"$d/gone3/fifo"; while [ ! -e "$d/gone3/go" ]; do sleep 0.1; done) &
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
tm new-session -d -s gone3 -x 80 -y 24 \
	"cd '$d/gone3/w' && env HOME='$d/gone3/home' LANG=C.UTF-8 TERM=screen '$AIRLOCK' mcp --name fake --db '$d/gone3/a.db' --policy '$d/ask.policy' -- $PY '$PWD/tests/data/integrations/fake-mcp-server.py' ../server.log < ../calls > ../fifo 2> ../err"
check "mcp client gone: the screen shows the call" wait_for gone3 "rm -rf victim"
touch "$d/gone3/go"
check "mcp client gone: mcp exits without a key" pane_dead gone3 20
expect_eq "mcp client gone: denied" "$(decided gone3 1)" "agent-gone denied"
check "mcp client gone: never reached the server" sh -c "! grep -q tools/call '$d/gone3/server.log' 2>/dev/null"
wait

# --- help: only keys that do what it says -------------------------------------
# The help listed the list browser's "Enter: open the selected item" and
# "q/Esc: back, or leave" under "q: deny", and j/k's lines named no key
# (docs review 2).
mkdir -p "$d/help/w/victim"
call "rm -rf victim" >"$d/help/calls"
start help "$d/ask.policy"
wait_for help "a approve" >/dev/null
tm send-keys -t help '?'
check "help: shown" wait_for help "Keys on this screen"
check "help: q and Esc deny" wait_for help "q/Esc: deny"
check "help: j names its key" wait_for help "j/Down: down one line"
check "help: no Enter to open an item" sh -c "! tmux -L $SOCK capture-pane -p -t help | grep -q 'open the selected item'"
check "help: no q that goes back" sh -c "! tmux -L $SOCK capture-pane -p -t help | grep -q 'back, or leave'"
tm send-keys -t help x
check "help: any key closes it" wait_for help "a approve"
tm send-keys -t help q
check "help: q denies" pane_dead help 20
expect_eq "help: denied" "$(field help .decision)" denied
check "help: nothing ran" test -d "$d/help/w/victim"

finish
