#!/bin/sh
# run.sh: runs every libFuzzer harness in $BUILD/fuzz for $FUZZ_TIME seconds
# each. Corpora live in $BUILD/corpus/NAME, seeded from tests/data and
# tests/fuzz/seeds; the inputs in tests/fuzz/regress/NAME (past crashes,
# fixed) are replayed first. A crash or a broken invariant leaves
# $BUILD/crash-NAME-* and fails the run. Prints "N passed, N failed".
#   FUZZ_TIME=600 BUILD=build-fuzz sh tests/fuzz/run.sh [NAME...]
set -u
cd "$(dirname "$0")/../.." || exit 2
: "${BUILD:=build-fuzz}" "${FUZZ_TIME:=10}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# seed NAME SOURCES...: one corpus file per TSV first field or JSONL line;
# any other file is copied whole.
seed() {
	name=$1; shift
	mkdir -p "$BUILD/corpus/$name"
	# escape_decode warns about escapes Python does not know (\(, \$); kept as is
	python3 -W ignore::DeprecationWarning - "$BUILD/corpus/$name" "$@" <<'PY'
import hashlib, os, sys, codecs
out = sys.argv[1]
def put(b):
    if b:
        with open(os.path.join(out, "seed-" + hashlib.sha1(b).hexdigest()), "wb") as f:
            f.write(b)
for path in sys.argv[2:]:
    if not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    if path.endswith(".tsv"):
        for line in data.split(b"\n"):
            if line and not line.startswith(b"#"):
                field = line.split(b"\t")[0]
                try:
                    put(codecs.escape_decode(field)[0])
                except Exception:
                    put(field)
    elif path.endswith(".jsonl"):
        put(data)
        for line in data.split(b"\n"):
            put(line)
    else:
        put(data)
PY
}

seeds_for() {
	case $1 in
	protocol | reader) echo tests/data/protocol/*.tsv tests/data/gate/*.jsonl ;;
	shell) echo tests/data/classify/shell.tsv tests/data/classify/evasion.tsv \
		tests/data/classify/programs.tsv ;;
	sql) echo tests/data/classify/sql.tsv ;;
	redact) echo tests/data/db/redact.tsv ;;
	gitcreds) echo tests/data/exec/gitcreds.tsv ;;
	audit) echo tests/data/db/redact.tsv tests/data/gate/*.jsonl ;;
	policy) find tests/data/policy examples -type f -name '*policy*' 2>/dev/null ;;
	diff) echo tests/data/diff/*.tsv tests/data/diff/*.txt ;;
	esac
}

pass=0 fail=0
names=${*:-$(ls "$BUILD"/fuzz/ 2>/dev/null | grep -v '[.]' | sed -n 's/^fuzz_//p')}
[ -n "$names" ] || { echo "run.sh: no harnesses in $BUILD/fuzz (make fuzz-bins)"; exit 2; }
for name in $names; do
	bin=$BUILD/fuzz/fuzz_$name
	# shellcheck disable=SC2046
	seed "$name" $(seeds_for "$name") tests/fuzz/seeds/"$name"/*
	dict=""
	[ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
	# make test: a fixed seed and run count, so CI replays the same inputs
	[ -n "${FUZZ_SEED:-}" ] && dict="$dict -seed=$FUZZ_SEED"
	[ -n "${FUZZ_RUNS:-}" ] && dict="$dict -runs=$FUZZ_RUNS"
	ok=1
	: >"$BUILD/fuzz-$name.log"
	if [ -d "tests/fuzz/regress/$name" ] &&
	   ! "$bin" tests/fuzz/regress/"$name"/* >>"$BUILD/fuzz-$name.log" 2>&1; then
		ok=0
	fi
	# shellcheck disable=SC2086
	if [ $ok = 1 ] && ! "$bin" $dict -max_total_time="$FUZZ_TIME" -max_len=4096 \
		-timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$BUILD/crash-$name-" \
		"$BUILD/corpus/$name" >>"$BUILD/fuzz-$name.log" 2>&1; then
		ok=0
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz-$name.log" | tail -1)
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		echo "fuzz $name: ok, ${runs:-?} runs (limit ${FUZZ_TIME}s)"
	else
		fail=$((fail + 1))
		echo "fuzz $name: FAILED (see $BUILD/fuzz-$name.log)"
		grep -aE '^=== |ERROR: |SUMMARY: |Test unit written' "$BUILD/fuzz-$name.log" | cut -c1-300 | head -8
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
