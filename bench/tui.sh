#!/bin/sh
# bench/tui.sh: how soon the approval screen is drawn after a call with a
# 10,000-line diff arrives (issue 7's yardstick: < 50 ms). The gate runs in
# a real terminal (tmux) reading a fifo; the bench writes the call and the
# gate notes when its first frame was on screen ($AIRLOCK_TUI_TIMING): the
# figure is arrival -> first frame on the wall clock, so it covers decoding,
# classifying, building the preview, logging and drawing. Median of 5 runs.
set -eu
: "${AIRLOCK:?AIRLOCK must name the airlock binary}"
command -v tmux >/dev/null || { echo "tui: tmux missing (make deps)"; exit 1; }

d=$(mktemp -d /tmp/airlock-bench-tui.XXXXXX)
SOCK="airlock-bench-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'exec 3>&- 2>/dev/null; tm kill-server 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT INT TERM
tm new-session -d -s keep -x 80 -y 24 "sleep 100000"

seq 1 10000 | sed 's/^/line /' >"$d/content"
jq -cn --rawfile c "$d/content" '{id:1,tool:"write_file",input:{path:"big.txt",content:$c}}' \
	>"$d/call"
printf '[tier "low"]\n\taction = ask\n[tier "medium"]\n\taction = ask\n[tier "high"]\n\taction = ask\n' \
	>"$d/ask.policy"

now_ms() { date +%s%3N; }

run_once() {
	i=$1
	mkdir -p "$d/$i/w"
	mkfifo "$d/$i/in"
	tm new-session -d -s "r$i" -x 80 -y 24 \
		"cd '$d/$i/w' || exit 1; env HOME='$d/$i' LANG=C.UTF-8 TERM=screen AIRLOCK_TUI_TIMING='$d/$i/timing' '$AIRLOCK' gate --db '$d/$i/a.db' --policy '$d/ask.policy' < ../in > ../out 2> ../err"
	exec 3>"$d/$i/in"
	sleep 0.3 # the gate is up and waiting for input
	t0=$(now_ms)
	cat "$d/call" >&3
	n=0 # the timing is written once the screen is answered: answer it when it shows
	until tm capture-pane -p -t "r$i" | grep -q "a approve" || [ $n -ge 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	tm send-keys -t "r$i" q
	exec 3>&-
	n=0
	while [ ! -s "$d/$i/timing" ] && [ $n -lt 250 ]; do sleep 0.02; n=$((n + 1)); done
	read -r _ inner _ wall <"$d/$i/timing"
	awk -v w="$wall" -v t="$t0" -v i="$inner" 'BEGIN { printf "%.1f %.1f\n", w - t, i }'
}

: >"$d/results"
for i in 1 2 3 4 5; do run_once "$i" >>"$d/results"; done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
arrive=$(cut -d' ' -f1 "$d/results" | med)
inner=$(cut -d' ' -f2 "$d/results" | med)
lines=$("$AIRLOCK" preview <"$d/call" 2>/dev/null | wc -l)
printf 'tui: approval screen, call with a %s-line preview diff, 80x24 in tmux (median of 5)\n' "$lines"
printf '  call written -> first frame on screen  %7.1f ms   yardstick 50 ms   ratio %.2f\n' \
	"$arrive" "$(echo "$arrive / 50" | bc -l)"
printf '  approval asked -> first frame           %7.1f ms   (screen alone: layout + draw)\n' "$inner"
printf '  load average while measuring: %s (2 cores shared with other builds inflate both)\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
