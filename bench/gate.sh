#!/bin/sh
# gate.sh: the whole pipeline per call (decode, classify, policy, audit log
# with hash chain, result) for calls that run nothing, against `jq -c .`
# reading and printing the same lines, in the same run.
set -eu
n=${GATE_BENCH_CALLS:-2000}
d=$(mktemp -d /tmp/airlock-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT
i=0
while [ $i -lt "$n" ]; do
	echo "{\"id\":\"b$i\",\"tool\":\"frobnicate\",\"input\":{\"n\":$i}}"
	i=$((i + 1))
done > "$d/calls.jsonl"
t0=$(date +%s%N)
"$AIRLOCK" gate --no-tty --db "$d/a.db" < "$d/calls.jsonl" > /dev/null
t1=$(date +%s%N)
jq -c . < "$d/calls.jsonl" > /dev/null
t2=$(date +%s%N)
gate_us=$(( (t1 - t0) / 1000 / n ))
jq_us=$(( (t2 - t1) / 1000 / n ))
echo "gate, $n denied calls (4 audit events each, hash-chained, committed): ${gate_us} us/call"
echo "jq -c . over the same lines:                                        ${jq_us} us/line"
awk -v a="$gate_us" -v b="$jq_us" 'BEGIN { if (b > 0) printf "ratio airlock/jq: %.1fx\n", a / b }'
