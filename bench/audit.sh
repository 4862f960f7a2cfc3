#!/bin/sh
# audit.sh: the audit log's speed against issue 8's yardsticks, in one run:
# appends with the hash chain (>= 20,000 events/s), `airlock audit verify`
# over 1,000,000 events (< 5 s), the browser's first page over 1,000,000
# calls (< 200 ms). Builds bench/audit-bench.c against $BUILD/libairlock.a.
# AUDIT_BENCH_CALLS overrides the 1,000,000 (the figures scale linearly).
set -eu
: "${AIRLOCK:?}" "${BUILD:?}"
n=${AUDIT_BENCH_CALLS:-1000000}
d=$(mktemp -d /tmp/airlock-bench-audit.XXXXXX)
trap 'rm -rf "$d"' EXIT
b=$d/audit-bench
# shellcheck disable=SC2046
cc -std=c11 -O2 -I. -D_GNU_SOURCE $(pkg-config --cflags jansson sqlite3 libgit2) \
	-o "$b" bench/audit-bench.c "$BUILD/libairlock.a" \
	$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm

row() { # label value unit target-op target
	awk -v l="$1" -v v="$2" -v u="$3" -v op="$4" -v t="$5" 'BEGIN {
		ok = (op == ">=") ? v >= t : v < t
		printf "%-58s %10.1f %-9s target %s %-9s ratio %5.2f  %s\n", l, v, u, op, t, v / t,
		       ok ? "ok" : "MISSED" }'
}

base=$("$b" baseline "$d/base.db" 5000)
gate=$("$b" append "$d/append.db" 3000)
asked=$("$b" append-ask "$d/asked.db" 3000)
bulk=$("$b" fill "$d/big.db" "$n")
t0=$(date +%s%N)
"$AIRLOCK" audit verify --db "$d/big.db" > "$d/verify.out"
t1=$(date +%s%N)
verify_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
"$b" page "$d/big.db" > "$d/page.out"
first=$(awk -F'\t' '$1 == "first page" { print $2 }' "$d/page.out")
t0=$(date +%s%N)
"$AIRLOCK" audit list --db "$d/big.db" --last 50 > /dev/null
t1=$(date +%s%N)
cli_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')

# Redaction runs over every stored text, a call's output included (up to
# the 1 MiB capture cap per stream): prose, base64 and build-log lines.
cat docs/*.md > "$d/prose.txt"
head -c 300000 "$AIRLOCK" | base64 > "$d/b64.txt"
yes 'cc -O2 -Wall -c src/module.c -o build/module.o  [ 42%] Built target x' | head -c 300000 > "$d/log.txt"
for k in prose b64 log; do eval "red_$k=\$(\"\$b\" redact \"\$d/\$k.txt\" 5)"; done

echo "log: $n calls, $(head -1 "$d/verify.out")"
row "append, bulk (10,000 chained events per transaction)" "$bulk" events/s ">=" 20000
row "append, gate's auto calls (2 commits per call, 4 events)" "$gate" events/s ">=" 20000
row "append, asked calls (3 commits per call, 4 events)" "$asked" events/s ">=" 20000
row "  same machine: plain SQLite, 1 row per transaction" "$base" rows/s ">=" 20000
row "airlock audit verify over $n events" "$verify_s" s "<" 5
row "browser first page over $n calls (open + 50 rows)" "$first" ms "<" 200
row "airlock audit list --last 50 (whole process)" "$cli_ms" ms "<" 200
for k in prose b64 log; do
	eval "v=\$red_$k"
	awk -v k="$k" -v v="$v" 'BEGIN { printf "redaction of a stored output, %-6s %10.1f MB/s    (1 MiB, the capture cap: %.1f ms)\n", k ":", v, 1.048576 / v * 1000 }'
done
awk -F'\t' '$1 != "first page" { printf "  filtered first page, %-18s %6.1f ms (%d rows)\n", $1 ":", $2, $3 }' "$d/page.out"
