#!/bin/sh
# 131-browser-review.sh: a hostile review of the shared browser layout
# (tui/layout.c) and the audit browser: what a small terminal cuts, and
# what the screens say about it, each failing on 71c4ce7 before its fix.
# The real binary runs in tmux (tests/e2e/tmux.sh); capture-pane reads the
# screen. No timing-tight checks: each waits for the screen.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
d=$(mktemp -d /tmp/airlock-e2e-browse2.XXXXXX)
. tests/e2e/tmux.sh

ask_policy
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }
# keys NAME KEY COUNT: sends KEY COUNT times.
keys() {
	k=0
	while [ "$k" -lt "$3" ]; do
		tm send-keys -t "$1" "$2"
		k=$((k + 1))
	done
}

# --- 30x6: the header's warning is cut, the screen says so, `a` waits ------------
# The approval screen kept only its title's three rows at 30x6: the warning
# that the command hides text never showed, nothing said it was cut, and
# `a` approved once the body was scrolled through.
mkdir -p "$d/tiny/w"
printf '{"id":1,"tool":"shell","input":{"command":"echo \\u001b[8m hi"}}\n' >"$d/tiny/calls"
ask_gate tiny
tm resize-window -t tiny -x 30 -y 6
check "tiny: the cut is said" wait_for tiny "header rows cut: enlarge" 20
keys tiny j 40
sleep 1.2
tm send-keys -t tiny a
check "tiny: a says why it waits" wait_for tiny "header cut: enlarge terminal" 20
check "tiny: nothing decided" lines "$d/tiny/out" 0
# enlarged: the body is not left empty below the header, the warning shows
tm resize-window -t tiny -x 80 -y 24
check "tiny: enlarged, the warning shows" wait_for tiny "WARNING: the command holds 1 hidden" 20
check "tiny: enlarged, the command shows" wait_for tiny "The command:" 20
sleep 1.2
tm send-keys -t tiny a
check "tiny: gate exits" wait_for tiny "EXIT" 20
expect_eq "tiny: approved once seen whole" "$(jq -r .decision "$d/tiny/out")" approved

finish
