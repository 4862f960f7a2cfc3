#!/bin/sh
# preview.sh: issue 6's yardsticks, measured in one run (medians):
#  - an overlay dry run of `true` (diff_preview_call: temp dir, overlay
#    mount, walk, cleanup) vs the same sandboxed run (exec_run): <= 5 ms more;
#  - a preview of a command changing 1,000 files (dry run + walk + libgit2
#    diffs + render) in < 500 ms, and the render alone;
#  - a 10,000-line file diff (every 7th line changed) in < 50 ms.
# PREVIEW_BENCH_RUNS overrides the run count (default 50).
set -eu
: "${AIRLOCK:?}" "${BUILD:?}"
runs=${PREVIEW_BENCH_RUNS:-50}
d=$(mktemp -d /tmp/airlock-bench-preview.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir "$d/wd"
b=$d/preview-bench
# shellcheck disable=SC2046
cc -std=c11 -O2 -I. -D_GNU_SOURCE $(pkg-config --cflags jansson sqlite3 libgit2) \
	-o "$b" bench/preview-bench.c "$BUILD/libairlock.a" \
	$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm

row() { # label value unit target-op target
	awk -v l="$1" -v v="$2" -v u="$3" -v op="$4" -v t="$5" 'BEGIN {
		ok = (op == "<=") ? v <= t : (op == "<") ? v < t : v >= t
		printf "%-52s %8.3f %-8s target %s %-6s %s\n", l, v, u, op, t, ok ? "ok" : "MISSED" }'
}

out=$("$b" "$d/wd" "$runs")
get() { echo "$out" | awk -F'\t' -v k="$1" '$1 == k {print $2}'; }
sb=$(get sandboxed)
dr=$(get dryrun)
ov=$(get overlayrun)
echo "medians of $runs runs, ms:"
printf "  %-44s %8.3f\n" "exec_run workspace: sh -c true" "$sb" \
	"exec_run workspace + overlay_dir: sh -c true" "$ov" \
	"overlay dry run preview: sh -c true" "$dr"
echo "extra cost of the dry run, median of paired differences (each run beside its twin):"
row "dry run preview - sandboxed run" "$(get pair_dry)" ms "<=" 5
row "  of which exec's overlay mount (exec/)" "$(get pair_overlay)" ms "<=" 5
row "  of which diff/ (temp dir, walk, cleanup)" "$(get pair_diff)" ms "<=" 5
echo "a command rewriting $(get files) files, medians of 5 previews, ms:"
printf "  %-44s %8.3f\n" "whole preview (dry run + walk + diff + render)" "$(get preview1000)"
row "preview of $(get files) changed files minus the dry run" "$(get own1000)" ms "<" 500
row "  render of those $(get files) files alone" "$(get render1000)" ms "<" 500
row "10,000-line file diff (libgit2 + render), wall" "$(get diff10000)" ms "<" 50
row "10,000-line file diff, CPU time" "$(get diff10000cpu)" ms "<" 50
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall figures include waiting for a CPU)"
