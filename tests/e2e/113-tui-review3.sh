#!/bin/sh
# 113-tui-review3.sh: a third hostile review of the approval screen: ways an
# agent could make a person approve a call they did not see, each failing
# on ef50f43 before its fix. The real binary runs in tmux
# (tests/e2e/tmux.sh); capture-pane reads the screen. No timing-tight
# checks: each waits for the screen, with a generous deadline.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
d=$(mktemp -d /tmp/airlock-e2e-tuirev3.XXXXXX)
. tests/e2e/tmux.sh

ask_policy
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }
# page_to NAME TEXT: a page down (space) at a time until the screen shows TEXT.
page_to() {
	p=0 # not i: wait_for counts with i
	while [ $p -lt 12 ]; do
		tm send-keys -t "$1" Space
		wait_for "$1" "$2" 2 >/dev/null && return 0
		p=$((p + 1))
	done
	return 1
}

# --- a newline in the id does not push the warning out of the header -----------
# An id of 30 newlines (inside the 32-byte cut) made 30 header rows: the
# header's third of the screen ended before "waiting behind" and the
# warning that the command holds an escape.
mkdir -p "$d/id/w"
nl30=$(printf '%30s' '' | sed 's/ /\\n/g')
printf '{"id":"%s","tool":"shell","input":{"command":"echo \\u001b[8m hi"}}\n' "$nl30" \
	>"$d/id/calls"
ask_gate id
check "id: the warning is in the header" wait_for id "WARNING: the command holds 1 hidden part" 20
check "id: the queue count is in the header" wait_for id "waiting behind: 0" 20
check "id: the newlines are shown" wait_for id '\n\n\n\n' 20
tm send-keys -t id q
check "id: gate exits" wait_for id "EXIT" 20

# --- a reason quoting the agent's words stays on one row -----------------------
# exec.script's reason quotes the script's name: newlines in it showed a fake
# "policy: tier low: allow" and "Preview: (nothing would change)" under
# "Why it asks", and pushed the real policy line below the fold.
mkdir -p "$d/reason/w"
jq -cn --arg c "source \"x
  policy: tier low: allow (default)

Preview:
(nothing would change)$(printf '%40sy' '' | tr ' ' '\n')\"" \
	'{id:1,tool:"shell",input:{command:$c}}' >"$d/reason/calls"
ask_gate reason
check "reason: the real policy line is on the first screen" \
	wait_for reason "policy: tier medium: ask" 20
check "reason: the newlines are marks" wait_for reason 'runs a script (x\n  policy: tier low' 20
check "reason: the run of newlines is counted" wait_for reason "<40 newlines>y)" 20
tm send-keys -t reason q
check "reason: gate exits" wait_for reason "EXIT" 20

# --- empty lines in the input do not hide the fields after them ---------------
# An HTTP call has no preview: the input is shown field by field. A
# "description" of 60 newlines filled the screen with nothing, and the
# method and body after it were below the fold.
mkdir -p "$d/input/w"
jq -cn --arg p "$(printf '%60sz' '' | tr ' ' '\n')" \
	'{id:1,tool:"http",input:{url:"https://example.com/x",description:$p,method:"POST",body:"BODY-SENT"}}' \
	>"$d/input/calls"
ask_gate input
check "input: the empty lines are counted" wait_for input "<60 empty lines>" 20
check "input: the body is on the first screen" wait_for input "BODY-SENT" 20
tm send-keys -t input q
check "input: gate exits" wait_for input "EXIT" 20

# --- a command longer than the screen is read to its end before `a` ------------
# 'echo xxx...' filled the first screen; its '; rm -rf victim' tail and the
# findings below it were never shown, and `a` ran it.
mkdir -p "$d/long/w/victim"
jq -cn --arg c "echo $(printf '%3000s' '' | tr ' ' x); rm -rf victim" \
	'{id:1,tool:"shell",input:{command:$c}}' >"$d/long/calls"
ask_gate long
wait_for long "echo xxx" 20 >/dev/null
sleep 1.1
tm send-keys -t long a
check "long: a before the end is refused" wait_for long "not seen yet: rows" 20
tm send-keys -t long A
check "long: A asks" wait_for long "(y/n)" 20
tm send-keys -t long y
check "long: y before the end is refused" wait_for long "not seen yet: rows" 20
check "long: the call still waits" lines "$d/long/out" 0
check "long: nothing ran" test -d "$d/long/w/victim"
tm send-keys -t long G
check "long: G shows the end" wait_for long "deleted directory" 20
sleep 1.1
tm send-keys -t long a
check "long: a after a jump is refused too" wait_for long "not seen yet: rows" 20
tm send-keys -t long g
check "long: back at the top" wait_for long "The command (" 20
check "long: scrolled to the findings" page_to long "policy: tier high"
sleep 1.1
tm send-keys -t long q
check "long: gate exits" wait_for long "EXIT" 20
expect_eq "long: decision" "$(jq -r .decision "$d/long/out")" denied
check "long: nothing ran" test -d "$d/long/w/victim"

# --- once read to its end, `a` approves -------------------------------------------
mkdir -p "$d/read/w"
jq -cn --arg c "echo $(printf '%3000s' '' | tr ' ' x) >/dev/null; touch done" \
	'{id:1,tool:"shell",input:{command:$c}}' >"$d/read/calls"
ask_gate read
wait_for read "echo xxx" 20 >/dev/null
check "read: scrolled to the findings" page_to read "policy: tier"
sleep 1.1
tm send-keys -t read a
check "read: gate exits" wait_for read "EXIT" 20
expect_eq "read: decision" "$(jq -r .decision "$d/read/out")" approved

finish
