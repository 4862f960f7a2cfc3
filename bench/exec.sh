#!/bin/sh
# exec.sh: the sandbox's start-up cost against issue 4's yardsticks, in one
# run: `airlock exec -- true` with full isolation vs bubblewrap
# (--unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev)
# and bare `true` (target: airlock <= 0.5x bubblewrap, medians); and gate
# mode, N auto-run `true` calls through exec_run() vs N bare fork+execs in
# one process (target: <= 3 ms per call above bare). EXEC_BENCH_CALLS
# overrides N (default 1000); EXEC_BENCH_RUNS the hyperfine runs (200).
set -eu
: "${AIRLOCK:?}" "${BUILD:?}"
n=${EXEC_BENCH_CALLS:-1000}
runs=${EXEC_BENCH_RUNS:-200}
d=$(mktemp -d /tmp/airlock-bench-exec.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir "$d/wd"
b=$d/exec-bench
# shellcheck disable=SC2046
cc -std=c11 -O2 -I. -D_GNU_SOURCE $(pkg-config --cflags jansson sqlite3 libgit2) \
	-o "$b" bench/exec-bench.c "$BUILD/libairlock.a" -Wl,--as-needed \
	-Wl,-Bstatic $(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -Wl,-Bdynamic -ldl -lm

row() { # label value unit target-op target
	awk -v l="$1" -v v="$2" -v u="$3" -v op="$4" -v t="$5" 'BEGIN {
		ok = (op == "<=") ? v <= t : v >= t
		printf "%-52s %8.3f %-8s target %s %-6s %s\n", l, v, u, op, t, ok ? "ok" : "MISSED" }'
}

cc -O2 -o "$d/ns-floor" bench/ns-floor.c

BWRAP="bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true"
(cd "$d/wd" && hyperfine -N -w 20 -r "$runs" --export-json "$d/h.json" \
	true "$AIRLOCK exec -- true" "$BWRAP" "$b once true" "$AIRLOCK --version" \
	"$d/ns-floor /usr/bin/true" > /dev/null 2>&1)
med() { jq -r ".results[$1].median * 1000" "$d/h.json"; }
bare=$(med 0)
air=$(med 1)
bw=$(med 2)
echo "process start, medians of $runs runs (hyperfine -N), ms:"
printf "  %-28s %8.3f\n" "true" "$bare" "airlock exec -- true" "$air" "bubblewrap true" "$bw"
row "airlock exec / bubblewrap (ratio)" "$(awk -v a="$air" -v b="$bw" 'BEGIN{print a/b}')" x "<=" 0.5
# CPU (user+system) is steadier than wall time on a busy machine
cpu() { jq -r ".results[$1] | (.user + .system) * 1000" "$d/h.json"; }
printf "  cpu (user+sys, mean), ms:    true %.3f  airlock %.3f  bubblewrap %.3f\n" \
	"$(cpu 0)" "$(cpu 1)" "$(cpu 2)"
row "airlock exec / bubblewrap, CPU (ratio)" "$(awk -v a="$(cpu 1)" -v b="$(cpu 2)" 'BEGIN{print a/b}')" x "<=" 0.5
echo "breakdown: the same sandbox from a binary linking only what exec/ needs, and"
echo "airlock's own start (jansson, sqlite3, libseccomp, ncursesw linked statically), ms:"
printf "  %-28s %8.3f  cpu %.3f\n" "exec-bench once true" "$(med 3)" "$(cpu 3)" \
	"airlock --version" "$(med 4)" "$(cpu 4)"
row "sandbox alone / bubblewrap (ratio)" "$(awk -v a="$(med 3)" -v b="$bw" 'BEGIN{print a/b}')" x "<=" 0.5
echo "the floor: clone into the same seven namespaces, then exec true, and nothing else"
echo "(no uid map, mounts, seccomp, init or limits; bench/ns-floor.c), ms:"
printf "  %-28s %8.3f  cpu %.3f\n" "ns-floor true" "$(med 5)" "$(cpu 5)"
printf "  %-50s %8.3f x  (a real sandbox can only be slower)\n" "floor / bubblewrap (ratio)" \
	"$(awk -v a="$(med 5)" -v b="$bw" 'BEGIN{print a/b}')"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

out=$("$b" "$d/wd" "$n")
gb=$(echo "$out" | awk -F'\t' '$1 == "bare" {print $2}')
gs=$(echo "$out" | awk -F'\t' '$1 == "sandbox" {print $2}')
gn=$(echo "$out" | awk -F'\t' '$1 == "none" {print $2}')
echo "gate mode, $n calls in one process, ms per call:"
printf "  %-28s %8.3f\n" "bare fork+exec true" "$gb" "exec_run workspace (ns)" "$gs" \
	"exec_run none backend" "$gn"
row "gate: sandbox - bare fork+exec, per call" "$(awk -v a="$gs" -v b="$gb" 'BEGIN{print a-b}')" ms "<=" 3
cb=$(echo "$out" | awk -F'\t' '$1 == "cpu_bare" {print $2}')
cs=$(echo "$out" | awk -F'\t' '$1 == "cpu_sandbox" {print $2}')
printf "  cpu per call (user+sys, this process and children): bare %.3f  sandbox %.3f\n" "$cb" "$cs"
row "gate: sandbox - bare, CPU per call" "$(awk -v a="$cs" -v b="$cb" 'BEGIN{print a-b}')" ms "<=" 3
echo "  sandbox phases (mean): $(echo "$out" | awk -F'\t' '$1 == "phases" {print $2}')"
