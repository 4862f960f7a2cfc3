#!/bin/sh
# policy.sh: policy evaluation (policy_decide: rules, breakers, credentials)
# per call with 200 rules loaded, against the budget of 5 us per
# call, as ratios, in the same run.
set -eu
: "${BUILD:?}"
n=${POLICY_BENCH_CALLS:-200000}
d=$(mktemp -d /tmp/airlock-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT
cc -I. -D_GNU_SOURCE -std=c11 -O2 $(pkg-config --cflags jansson libgit2) \
	-o "$d/policy-bench" bench/policy-bench.c "$BUILD/libairlock.a" \
	$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm -lpthread
"$d/policy-bench" "$d/policy" "$n" > "$d/out"
echo "policy_decide with 200 rules, $n calls per shape (CPU us/call; budget 5 us):"
awk -F': *' '{ printf "  %s %6.2f us   ratio to budget %.2fx\n", $1, $2, $2 / 5 }' "$d/out"
