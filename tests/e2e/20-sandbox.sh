#!/bin/sh
# 20-sandbox.sh: the escape and containment suite (tests/sandbox/run.sh),
# once as root and once unprivileged (uid 65534 through setpriv), since a
# root caller and a user caller reach the kernel by different paths.
set -u
: "${AIRLOCK:?AIRLOCK must name the airlock binary}"
cd "$(dirname "$0")/../.." || exit 2
passed=0
failed=0
# uid 65534 must be able to run the binary wherever the tree lives
BIN=$(mktemp -d /tmp/airlock-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT INT TERM
cp "$AIRLOCK" "$BIN/airlock"
chmod 755 "$BIN" "$BIN/airlock"
# both identities at once: the machine has two cores and most of a case is
# waiting on process start
for who in root nobody; do
	AIRLOCK="$BIN/airlock" sh tests/sandbox/run.sh "$who" > "$BIN/$who.log" 2>&1 &
done
wait
for who in root nobody; do
	out=$(cat "$BIN/$who.log")
	echo "$out" | grep -v '^ok ' | grep -v ' passed, '
	line=$(echo "$out" | tail -n 1)
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	[ -n "$p" ] || { p=0; f=1; echo "sandbox suite ($who) did not finish"; }
	echo "sandbox suite as $who: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
