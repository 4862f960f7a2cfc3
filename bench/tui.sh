#!/bin/sh
# bench/tui.sh: the screens against their yardsticks, in one run.
#  - Issue 7: the approval screen is drawn < 50 ms after a call with a
#    10,000-line diff arrives. End to end: the gate runs in tmux reading a
#    fifo, the bench writes the call, the gate notes (AIRLOCK_TUI_TIMING)
#    when its first frame was on screen: arrival -> frame on the wall clock
#    (decode, classify, preview, log, draw). Beside it, the screen's own
#    cost (bench/tui-bench.c: layout of every row, no terminal).
#  - Issue 8: `airlock audit` over 1,000,000 calls (TUI_BENCH_CALLS
#    overrides; built with bench/audit-bench.c's fill) shows its first page
#    < 200 ms: in tmux from the process start, and the browser's own cost.
# Medians of 5 (tmux) and 7 (in-process) runs.
set -eu
: "${AIRLOCK:?AIRLOCK must name the airlock binary}" "${BUILD:?BUILD must name the build dir}"
command -v tmux >/dev/null || { echo "tui: tmux missing (make deps)"; exit 1; }

d=$(mktemp -d /tmp/airlock-bench-tui.XXXXXX)
SOCK="airlock-bench-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'exec 3>&- 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$d"' EXIT INT TERM
tm new-session -d -s keep -x 80 -y 24 "sleep 100000"
# shellcheck disable=SC2046
for b in tui-bench audit-bench; do
	cc -std=c11 -O2 -I. -D_GNU_SOURCE $(pkg-config --cflags jansson sqlite3 libgit2) \
		-o "$d/$b" "bench/$b.c" "$BUILD/libairlock.a" \
		$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm
done

now_ms() { date +%s%3N; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
row() { # label value yardstick
	awk -v l="$1" -v v="$2" -v t="$3" 'BEGIN {
		printf "  %-44s %8.1f ms  yardstick %4d ms  ratio %5.2f\n", l, v, t, v / t }'
}

# --- the approval screen -------------------------------------------------------
seq 1 10000 | sed 's/^/line /' >"$d/content"
jq -cn --rawfile c "$d/content" '{id:1,tool:"write_file",input:{path:"big.txt",content:$c}}' \
	>"$d/call"
printf '[tier "low"]\n\taction = ask\n[tier "medium"]\n\taction = ask\n[tier "high"]\n\taction = ask\n' \
	>"$d/ask.policy"
"$AIRLOCK" preview <"$d/call" >"$d/diff" 2>/dev/null || true

approve_once() {
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
	awk -v w="$wall" -v t="$t0" 'BEGIN { printf "%.1f\n", w - t }'
	echo "$inner" >>"$d/inner"
}

: >"$d/arrive"
: >"$d/inner"
for i in 1 2 3 4 5; do approve_once "$i" >>"$d/arrive"; done
echo "tui: approval screen, a call whose preview is $(wc -l <"$d/diff") lines, 80x24"
row "call written -> first frame (tmux, e2e)" "$(med <"$d/arrive")" 50
row "  of which: approval asked -> first frame" "$(med <"$d/inner")" 50
row "the screen alone (layout + frame, no tty)" "$("$d/tui-bench" approve "$d/diff")" 50

# --- the audit browser over a large log ----------------------------------------
calls=${TUI_BENCH_CALLS:-1000000}
"$d/audit-bench" fill "$d/big.db" "$calls" >/dev/null
browse_once() {
	t0=$(now_ms)
	tm new-session -d -s "a$1" -x 80 -y 24 \
		"env LANG=C.UTF-8 TERM=screen '$AIRLOCK' audit --db '$d/big.db'"
	until tm capture-pane -p -t "a$1" | grep -q 'newest first'; do sleep 0.005; done
	t1=$(now_ms)
	tm send-keys -t "a$1" q
	echo $((t1 - t0))
}
: >"$d/browse"
for i in 1 2 3 4 5; do browse_once "$i" >>"$d/browse"; done
echo "tui: audit browser over $calls calls, 80x24"
row "process start -> first page (tmux, e2e)" "$(med <"$d/browse")" 200
row "db_open + first page + frame" "$("$d/tui-bench" audit "$d/big.db")" 200
echo "  load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) (2 shared cores)"
