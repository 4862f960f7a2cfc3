#!/bin/sh
# 96-tui-review2.sh: a second hostile review of the approval screen: ways a
# person could approve a call they did not see, or did not mean to, each
# failing on df13671 before its fix. The real binary runs in tmux
# (tests/e2e/tmux.sh); capture-pane reads the screen.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
d=$(mktemp -d /tmp/airlock-e2e-tuirev2.XXXXXX)
. tests/e2e/tmux.sh

ask_policy
# keys NAME KEY COUNT GAP: sends KEY COUNT times, GAP seconds apart.
keys() {
	i=0
	while [ "$i" -lt "$3" ]; do
		tm send-keys -t "$1" "$2"
		sleep "$4"
		i=$((i + 1))
	done
}
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }

# --- a key held past a second does not approve the next queued call --------
# The second an approving key waits for counted from when the call appeared,
# not from the last press: key repeat that went on for over a second after
# the first call was approved approved the second, unseen.
mkdir -p "$d/held/w/victim"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"echo first"}}' \
	'{"id":2,"tool":"shell","input":{"command":"rm -rf victim"}}' >"$d/held/calls"
ask_gate held
wait_for held "echo first" >/dev/null
sleep 1.1
keys held a 40 0.05 # a held key repeats for 2 s
check "held: the second call is on screen" wait_for held "rm -rf victim"
check "held: the second call still waits" lines "$d/held/out" 1
tm send-keys -t held q
check "held: gate exits" wait_for held "EXIT"
expect_eq "held: decisions" "$(jq -r .decision "$d/held/out" | tr '\n' ' ')" "approved denied "
check "held: nothing ran" test -d "$d/held/w/victim"

# --- typing meant for the agent does not approve ------------------------------
# Someone typing a message when the screen came up: the keys before it were
# flushed, but the sentence went on, and its first `a` a second later
# approved a call the typist had not looked at.
mkdir -p "$d/typing/w/victim"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"rm -rf victim"}}' >"$d/typing/calls"
ask_gate typing
wait_for typing "rm -rf victim" >/dev/null
for c in t h i s z w o r k s z f i n z t h x n k s z t h x t z w o r k s z; do
	tm send-keys -t typing "$c"
	sleep 0.08
done
tm send-keys -t typing a # "... that"
sleep 0.3
check "typing: the call still waits" lines "$d/typing/out" 0
tm send-keys -t typing q
check "typing: gate exits" wait_for typing "EXIT"
expect_eq "typing: decision" "$(jq -r .decision "$d/typing/out")" "denied"
check "typing: nothing ran" test -d "$d/typing/w/victim"

# --- blanks that are not ASCII spaces are squeezed too --------------------------
# Runs of U+00A0 or U+3000, or lines holding only a space, were not
# squeezed: 'echo safe' filled the screen and 'rm -rf victim' was below the
# fold behind what looked like nothing.
mkdir -p "$d/blank/w"
nb=$(printf '\302\240')
id=$(printf '\343\200\200')
{
	jq -cn --arg c "echo safe$(printf "%3000s" '' | sed "s/ /$nb/g");rm -rf victim" \
		'{id:1,tool:"shell",input:{command:$c}}'
	jq -cn --arg c "echo safe$(printf "%1000s" '' | sed "s/ /$id/g");rm -rf other" \
		'{id:2,tool:"shell",input:{command:$c}}'
	jq -cn --arg c "echo safe$(printf '%0300d' 0 | sed 's/0/ \n/g')rm -rf third" \
		'{id:3,tool:"shell",input:{command:$c}}'
} >"$d/blank/calls"
ask_gate blank
check "blank: U+00A0 run squeezed, the end on the first screen" wait_for blank "rm -rf victim"
check "blank: U+00A0 run named" wait_for blank "<3000 blanks>"
check "blank: warned" wait_for blank "WARNING: the command holds 1 hidden part"
tm send-keys -t blank q
check "blank: U+3000 run squeezed, the end on the first screen" wait_for blank "rm -rf other"
tm send-keys -t blank q
check "blank: blank lines squeezed, the end on the first screen" wait_for blank "rm -rf third"
check "blank: blank lines named" wait_for blank "<298 blank lines>"
tm send-keys -t blank q
check "blank: gate exits" wait_for blank "EXIT"

# --- ctrl-\ on the screen denies and restores the terminal ------------------------
# SIGQUIT, the terminal's other interrupt key, was not caught: airlock died
# on the screen with its terminal left in the alternate screen with echo
# off, and the call was never recorded as decided.
mkdir -p "$d/quit/w/victim"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"rm -rf victim"}}' >"$d/quit/calls"
mkdir -p "$d/quit/home"
tm new-session -d -s quit -x 80 -y 24 \
	"sleep 0.3; cd '$d/quit/w' || exit 1; env HOME='$d/quit/home' LANG=C.UTF-8 TERM=screen \
	'$AIRLOCK' gate --db '$d/quit/a.db' --policy '$d/ask.policy' <../calls >../out 2>../err; \
	echo EXIT \$?; stty -a | tr ' ' '\n' | grep -x -- '-\\{0,1\\}echo' | sed 's/^/STTY /'; sleep 100"
wait_for quit "rm -rf victim" >/dev/null
tm send-keys -t quit 'C-\'
check "quit: gate exits" wait_for quit "EXIT"
check "quit: echo is back on" wait_for quit "STTY echo"
expect_eq "quit: screen restored" "$(tm display -p -t quit '#{alternate_on}')" 0
expect_eq "quit: denied" "$(jq -r .decision "$d/quit/out" 2>/dev/null)" denied
expect_eq "quit: audit who" "$(sqlite3 "$d/quit/a.db" "select json_extract(body,'$.who')||' '||json_extract(body,'$.decision') from events where kind='decided'" 2>/dev/null)" "signal denied"
check "quit: nothing ran" test -d "$d/quit/w/victim"

# --- a long question shows where it starts, and that it is cut ------------------
# A remember question longer than its third of the screen showed only its
# last rows: "...aaaa) for this session? (y/n)", with the start of the
# pattern it remembers (Shell(rm -rf ~/.ssh ...) cut off, and nothing
# saying so.
mkdir -p "$d/ask/w"
jq -cn --arg c "rm -rf ~/.ssh /tmp/$(printf '%1500s' '' | tr ' ' a)" \
	'{id:1,tool:"shell",input:{command:$c}}' >"$d/ask/calls"
ask_gate ask
wait_for ask "rm -rf ~/.ssh" >/dev/null
sleep 1.1
tm send-keys -t ask A
check "ask: the question's end" wait_for ask "(y/n)"
check "ask: the question's start" wait_for ask "approve and remember Shell(rm -rf $d/ask/home/.ssh"
check "ask: the cut is shown" wait_for ask "rows of the question cut"
tm send-keys -t ask n q
check "ask: gate exits" wait_for ask "EXIT"
expect_eq "ask: decision" "$(jq -r .decision "$d/ask/out")" denied

finish
