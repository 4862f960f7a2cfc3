# tmux.sh: a private tmux server for the tests that drive a real terminal
# (50-approval, 51-audit-browser). Source it after lib.sh, once $d holds
# the test's temp directory: it sets the trap that stops the server and
# removes $d.
command -v tmux >/dev/null || { echo "tmux is missing (make deps)"; exit 1; }
SOCK="airlock-e2e-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT INT TERM
# a first session keeps the server up; panes stay after their program ends
tm new-session -d -s keep -x 80 -y 24 "sleep 100000"
tm set-option -g remain-on-exit on >/dev/null

screen() { tm capture-pane -p -t "$1"; }
# wait_for NAME TEXT [SECONDS]: until the screen shows TEXT.
wait_for() {
	i=0
	while [ $i -lt $((${3:-10} * 20)) ]; do
		screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	echo "screen of $1 never showed [$2]:"
	screen "$1"
	return 1
}
# lacks NAME TEXT: the screen does not show TEXT now.
lacks() { ! screen "$1" | grep -qF -- "$2"; }
# pane_dead NAME [SECONDS]: until the program in NAME has exited.
pane_dead() {
	i=0
	while [ $i -lt $((${2:-10} * 20)) ]; do
		[ "$(tm display -p -t "$1" '#{pane_dead}')" = 1 ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	echo "the program in $1 did not exit"
	return 1
}

# ask_policy: $d/ask.policy, a policy under which every tier asks.
ask_policy() {
	for t in low medium high; do printf '[tier "%s"]\n\taction = ask\n' $t; done >"$d/ask.policy"
}
# ask_gate NAME: runs airlock gate under $d/ask.policy over $d/NAME/calls
# in $d/NAME/w, in a new 80x24 session; results to $d/NAME/out, errors to
# $d/NAME/err, then EXIT and its status on the screen.
ask_gate() {
	n=$1
	mkdir -p "$d/$n/w" "$d/$n/home"
	tm new-session -d -s "$n" -x 80 -y 24 \
		"sleep 0.3; cd '$d/$n/w' || exit 1; env HOME='$d/$n/home' LANG=C.UTF-8 TERM=screen \
		'$AIRLOCK' gate --db '$d/$n/a.db' --policy '$d/ask.policy' <../calls >../out 2>../err; \
		echo EXIT \$?; sleep 100"
}
