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

# What a user's files add to each one-shot call, and what the kept files
# spare: a ~/.gitconfig with an include (the guard reads it for a
# writable workdir) and a project policy file (read with libgit2), each
# in a fresh home and state directory: the first call reads with libgit2,
# the rest from what it kept.
mkdir -p "$d/h/.local/state" "$d/pw/.airlock" "$d/gw"
printf '[user]\n\tname = b\n[include]\n\tpath = ~/.gitconfig.local\n' >"$d/h/.gitconfig"
printf '[core]\n\teditor = vi\n' >"$d/h/.gitconfig.local"
printf '[tier "low"]\n\taction = auto\n' >"$d/pw/.airlock/policy"
chmod 600 "$d/pw/.airlock/policy"
touch -d '2020-01-01' "$d/h/.gitconfig" "$d/h/.gitconfig.local"
sleep 3 # their ctimes are racy for 2 s (whole seconds): nothing would be kept
(cd "$d/gw" && HOME="$d/h" XDG_STATE_HOME="$d/h/.local/state" hyperfine -N -w 5 -r "$((runs / 4))" \
	--export-json "$d/k.json" "$AIRLOCK exec -- true" "$AIRLOCK exec --profile readonly -- true" \
	> /dev/null 2>&1)
(cd "$d/pw" && HOME="$d/h" XDG_STATE_HOME="$d/h/.local/state" hyperfine -N -w 5 -r "$((runs / 4))" \
	--export-json "$d/k2.json" "$AIRLOCK exec --profile readonly -- true" > /dev/null 2>&1)
kmed() { jq -r ".results[$2].median * 1000" "$d/$1"; }
echo "a user's files, read once and kept (medians, ms; the first call reads them with libgit2):"
printf "  %-50s %8.3f\n" "exec -- true, ~/.gitconfig with an include" "$(kmed k.json 0)" \
	"exec --profile readonly -- true, the same home" "$(kmed k.json 1)" \
	"exec --profile readonly -- true, a project policy" "$(kmed k2.json 0)" \
	"exec -- true, neither (from above)" "$air"

# The search for a workdir's secret files, which every plan makes: a
# project of 1,110 directories and 22,200 files (10 x 10 x 10 below the top,
# 20 files each, a .env in each leaf's parent), once cold and then as the
# gate pays it per call, remembered; and `airlock exec -- true` there.
mkdir -p "$d/proj"
(cd "$d/proj" && for a in 0 1 2 3 4 5 6 7 8 9; do for b in 0 1 2 3 4 5 6 7 8 9; do
	mkdir -p "m$a/p$b" && : > "m$a/p$b/.env"
	for c in 0 1 2 3 4 5 6 7 8 9; do mkdir -p "m$a/p$b/d$c"; done
done; done)
find "$d/proj" -type d -exec sh -c 'for x; do for i in $(seq 20); do : > "$x/f$i.c"; done; done' sh {} +
touch -d '2020-01-01' "$d/proj" && find "$d/proj" -type d -exec touch -d '2020-01-01' {} +
sleep 2.1 # the ctimes the touch set are racy for 2 s: nothing would be kept
so=$("$b" secrets "$d/proj")
sget() { echo "$so" | awk -F'\t' -v k="$1" '$1 == k {print $2}'; }
(cd "$d/proj" && hyperfine -N -w 5 -r 40 --export-json "$d/p.json" "$AIRLOCK exec -- true" > /dev/null 2>&1)
echo "the workdir's secret files ($(sget found) found in 1,110 directories, 22,200 files;"
echo "the search reads every entry outside the tool trees, and fails past 100,000), ms:"
printf "  %-40s %8.3f\n" "search, first (one airlock exec)" "$(sget cold)" \
	"search, first from what the last kept" "$(sget kept)" \
	"search, remembered (the gate, per call)" "$(sget warm)" \
	"airlock exec -- true there (median)" "$(jq -r '.results[0].median * 1000' "$d/p.json")" \
	"airlock exec -- true, empty workdir" "$air"

# the guard of a gate call with a writable workdir, in a clone of this
# repository: its .git walked and the guarded paths noted before the run,
# and again after it for what the run made
git clone -q . "$d/repo" 2>/dev/null
go=$("$b" guard "$d/repo")
gget() { echo "$go" | awk -F'\t' -v k="$1" '$1 == k {print $2}'; }
echo "the guard of a gate call in a clone of this repository (in process, medians of 200), ms:"
printf "  %-40s %8.3f\n" "note, before the run" "$(gget note)" "sweep, after it" "$(gget sweep)"

out=$("$b" "$d/wd" "$n")
get() { echo "$out" | awk -F'\t' -v k="$1" '$1 == k {print $2}'; }
gb=$(get bare)
gs=$(get sandbox)
gp=$(get pooled)
echo "gate mode, $n calls in one process ($(get rounds), each against as many bare calls), ms per call:"
printf "  %-40s %8.3f\n" "bare fork+exec true" "$gb" \
	"exec_run, a sandbox built per call" "$gs" \
	"exec_run with the gate's pool" "$gp" \
	"exec_run none backend" "$(get none)"
echo "  (the gate keeps the next sandbox built on the other core while a call runs;"
echo "   $(get pool_hits) pooled calls took one)"
echo "cost above bare: the median of the rounds' differences (the rounds' range after it):"
row "gate: sandbox (pooled, as the gate runs) - bare" "$(get pooled_over_bare)" ms "<=" 3
echo "  rounds: $(get pooled_spread) ms"
row "gate: sandbox built per call - bare" "$(get sandbox_over_bare)" ms "<=" 3
echo "  rounds: $(get sandbox_spread) ms"
cb=$(get cpu_bare)
printf "  cpu per call (user+sys, this process and children): bare %.3f  per call %.3f  pooled %.3f\n" \
	"$cb" "$(get cpu_sandbox)" "$(get cpu_pooled)"
echo "  spaced calls (20 ms apart, as an agent thinks between them), ms per call:"
printf "    pooled %.3f  built per call %.3f\n" "$(get spaced_pooled)" "$(get spaced_fresh)"
echo "  sandbox phases when built per call (mean): $(get phases)"
