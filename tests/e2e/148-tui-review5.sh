#!/bin/sh
# 148-tui-review5.sh: the fifth hostile review of the screens (the sixth
# screen review): a critical call on the approval screen (ask-critical
# brings one there since bb9e11c), and the audit browser's "flagged in the
# command:" marks over a tampered log. Each check failed on bb9e11c. The
# real binary runs in tmux (tests/e2e/tmux.sh); capture-pane reads the
# screen. No timing-tight checks: each waits with a generous deadline.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
need sqlite3
d=$(mktemp -d /tmp/airlock-e2e-tuirev5.XXXXXX)
. tests/e2e/tmux.sh

# crit_gate NAME W H [ENV...]: airlock gate over one critical call
# (`kubectl delete ns prod`) under a policy whose ask-critical rule covers
# it, in a W x H session.
printf '[rules]\n\task-critical = Shell(kubectl delete *)\n' >"$d/crit.policy"
crit_gate() {
	n=$1 w=$2 h=$3
	shift 3
	mkdir -p "$d/$n/w" "$d/$n/home"
	jq -cn '{id:1,tool:"shell",input:{command:"kubectl delete ns prod"}}' >"$d/$n/calls"
	tm new-session -d -s "$n" -x "$w" -y "$h" \
		"sleep 0.3; cd '$d/$n/w' || exit 1; env HOME='$d/$n/home' LANG=C.UTF-8 TERM=screen $* \
		'$AIRLOCK' gate --db '$d/$n/a.db' --policy '$d/crit.policy' <../calls >../out 2>../err; \
		echo EXIT \$?; sleep 100"
}
# key_says NAME KEY TEXT: KEY, past the screen's second, answers TEXT.
key_says() {
	sleep 1.2
	tm send-keys -t "$1" "$2"
	check "$1: $2 says $3" wait_for "$1" "$3" 20
}
# deny_exit NAME: q denies, and the gate ends.
deny_exit() {
	tm send-keys -t "$1" q
	check "$1: gate exits" wait_for "$1" "EXIT" 20
	expect_eq "$1: denied" "$(jq -r .decision "$d/$1/out")" denied
}

# --- a critical call says so below the title ----------------------------------
# Before ask-critical no critical call reached the screen, and the screen
# marked one only by the tier's name among the header's words: nothing said
# that its tier alone would deny it.
crit_gate big 80 24
check "critical: the header says so" wait_for big "CRITICAL: its tier alone would deny it" 20
key_says big A "cannot remember a critical call" # policy_suggest_pattern refuses it
deny_exit big

# --- the tier's name is never split across the header's rows ------------------
# At 40 columns the header wrapped inside the name: " cr" ended its first
# row and "itical " began the second; with NO_COLOR, two words, no tier.
crit_gate narrow 40 10 NO_COLOR=1
check "40x10: the tier whole on one row" wait_for narrow "tier  critical" 20
check "40x10: the CRITICAL line in the header" wait_for narrow "CRITICAL: its tier alone" 20
key_says narrow a "not seen yet" # the header fits: reading the rest approves
deny_exit narrow

# --- at 30x6 the CRITICAL line does not fit: nothing approves -----------------
crit_gate tiny 30 6
check "30x6: the header is cut" wait_for tiny "header rows cut" 20
key_says tiny a "header cut: enlarge"
deny_exit tiny

# --- a resize to 30x6 and back: the call read anew -----------------------------
crit_gate resize 80 24
check "resize: on screen" wait_for resize "CRITICAL: its tier alone" 20
tm resize-window -t resize -x 30 -y 6
check "resize: at 30x6 the header is cut" wait_for resize "header rows cut" 20
tm resize-window -t resize -x 80 -y 24
check "resize: back at 80x24, the line again" wait_for resize "CRITICAL: its tier alone" 20
deny_exit resize

# --- the audit browser's flagged marks over a log that lies ------------------
# A real log of four critical calls (denied by the default policy, none
# runs), then spans forged in the events (the chain check then says NOT
# CONFIRMED; the drawing must neither hang nor mislead).
mkdir -p "$d/log/w" "$d/log/home"
printf '%s' 'dd if=/dev/zero of=/dev/sda; echo 中文' >"$d/log/c1"
{
	printf '%s' 'dd if=/dev/zero of=/dev/sda'
	printf '%40s' '' | tr ' ' '\n'
	printf '%s' '; echo TAILMARK'
} >"$d/log/c2"
printf '%s' 'dd if=/dev/zero of=/dev/sda # [REDACTED:x]' >"$d/log/c3"
printf '%s' 'dd if=/dev/zero of=/dev/sda # many' >"$d/log/c4"
for i in 1 2 3 4; do
	jq -cRs --argjson i $i '{id:$i,tool:"shell",input:{command:.}}' "$d/log/c$i"
done >"$d/log/calls"
(cd "$d/log/w" && HOME="$d/log/home" "$AIRLOCK" gate --db "$d/log/a.db" <"$d/log/calls" \
	>"$d/log/out" 2>"$d/log/err")
expect_eq "log: four calls denied" "$(jq -r .decision "$d/log/out" | sort -u)" denied
# call 1: a span on the second byte of 中 (bytes 34-36)
printf '[[0,27],[35,1]]' >"$d/log/s1.json"
# call 2: spans cutting the 40 newlines into pairs
jq -cn '[[0,27]] + [range(28; 66; 3) | [., 2]]' >"$d/log/s2.json"
# call 4: 200,000 spans, last first: an insertion sort took minutes
jq -cn '[range(199999; -1; -1) | [., 1]]' >"$d/log/s4.json"
forge() {
	sqlite3 "$d/log/a.db" "DROP TRIGGER IF EXISTS events_no_update;
		UPDATE events SET body = json_set(body, '\$.spans', json(readfile('$2')))
		WHERE kind = 'classified' AND call = (SELECT id FROM events WHERE kind = 'received'
		AND json_extract(body, '\$.id') = $1);"
}
forge 1 "$d/log/s1.json"
forge 2 "$d/log/s2.json"
forge 4 "$d/log/s4.json"

tm new-session -d -s b -x 80 -y 24 \
	"cd '$d/log' || exit 1; env HOME='$d/log/home' LANG=C.UTF-8 TERM=screen '$AIRLOCK' audit --db '$d/log/a.db'"
check "browser: opens over the tampered log" wait_for b "airlock audit" 20
# the list is newest first: call 4, 3, 2, 1; call 4 last (on bb9e11c it hung)
back() {
	tm send-keys -t b q
	wait_for b "time            tier" 20 >/dev/null
}
tm send-keys -t b j Enter
check "literal [REDACTED: the detail opens" wait_for b "command: dd if=/dev/zero of=/dev/sda # [REDACTED:x]" 20
check "literal [REDACTED: the flagged text" wait_for b "flagged in the command:" 20
# the agent's own "[REDACTED:x]" after the dd hid its mark behind "the text
# was redacted"; the bytes before the first mark are as classified
check "literal [REDACTED: the dd part is marked" sh -c "tmux -L $SOCK capture-pane -e -p -t b |
	grep -q \"| .*$(printf '\033')\\[[0-9;]*4[0-9;]*m.*of=/dev/sda\""
check "literal [REDACTED: not said to be redacted" lacks b "the text was redacted"
back
tm send-keys -t b j Enter
check "split newlines: the detail opens" wait_for b "; echo TAILMARK" 20
# both the input and the flagged text show the tail on the first screen:
# split into pairs by spans, the 40 newlines were 40 rows
check "split newlines: squeezed in the flagged text" sh -c \
	"[ \$(tmux -L $SOCK capture-pane -p -t b | grep -c TAILMARK) -eq 2 ]"
back
tm send-keys -t b j Enter
check "split character: the detail opens" wait_for b "sda; echo 中文" 20
# a span on the second byte of 中 showed its bytes as \xe4 \xb8 \xad marks
check "split character: shown whole" lacks b '\xb8'
check "split character: the text is there" sh -c \
	"[ \$(tmux -L $SOCK capture-pane -p -t b | grep -c 'echo 中文') -eq 2 ]"
back
tm send-keys -t b k k k Enter
check "many spans: the detail opens" wait_for b "command: dd if=/dev/zero of=/dev/sda # many" 20
check "many spans: the flagged text" wait_for b "flagged in the command:" 20
check "many spans: chain not confirmed" wait_for b "Chain NOT CONFIRMED" 20
tm send-keys -t b q q
check "browser: exits" pane_dead b 20

finish
