#!/bin/sh
# run.sh: `make bench`. Runs every bench/*.sh (each prints its figures next
# to the yardstick its issue names, as ratios, measured in the same run).
set -u
: "${AIRLOCK:?}"
export AIRLOCK BUILD
cd "$(dirname "$0")/.." || exit 2
echo "airlock bench on $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
for b in bench/*.sh; do
	[ "$b" = bench/run.sh ] && continue
	echo
	echo "== $b"
	sh "$b" || echo "($b failed)"
done
