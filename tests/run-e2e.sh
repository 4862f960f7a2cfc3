#!/bin/sh
# run-e2e.sh: runs every tests/e2e/*.sh in order with $AIRLOCK and $BUILD
# set; each prints its own "N passed, N failed" line. Fails if any fails.
set -u
: "${AIRLOCK:?AIRLOCK must name the airlock binary}"
export AIRLOCK BUILD
cd "$(dirname "$0")/.." || exit 2
failed=0 passed=0
for t in tests/e2e/[0-9]*.sh; do
	[ -e "$t" ] || continue
	echo "== $t"
	if sh "$t"; then
		passed=$((passed + 1))
	else
		echo "FAILED: $t"
		failed=$((failed + 1))
	fi
done
echo "e2e scripts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
