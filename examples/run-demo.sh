#!/bin/sh
# run-demo.sh: `make demo`. Copies the example project into demo/ beside
# the binary (build/demo, or $(BUILD)/demo: a second build dir's demo leaves
# the first's alone), runs the demo agent through airlock, shows each result
# and then the audit log.
set -eu
airlock=$1
top=$(cd "$(dirname "$0")/.." && pwd)
demo=$(cd "$(dirname "$airlock")" && pwd)/demo
rm -rf "$demo"
mkdir -p "$demo"
cp -r "$top/examples/project" "$demo/project"
sqlite3 "$demo/project/demo.db" < "$top/examples/demo.sql"
db=$demo/audit.db

echo "== the demo agent's calls through airlock (results, one per call)"
cd "$demo/project"
"$top/examples/demo-agent.sh" | "$airlock" gate --db "$db" > "$demo/results.jsonl" || true
jq -r '"\(.id // "-")\t\(.tier // "-")\t\(.decision)\t\(.rules // [] | join(","))\t\(.reason // .error // ((.stdout // "") | split("\n")[0]))"' \
	"$demo/results.jsonl" | awk -F'\t' '{printf "%-10s %-8s %-8s %-32s %s\n", $1, $2, $3, $4, substr($5, 1, 70)}'
echo
echo "== on the host afterwards"
echo "users left in demo.db: $(sqlite3 demo.db 'SELECT count(*) FROM users') (the DELETE was held)"
[ -x build/hello ] && echo "build/hello exists (the build ran in the sandbox)"
[ -f hello.c ] && echo "hello.c is still there (rm -f hello.c was held)"
echo
echo "== airlock audit list --db $db"
"$airlock" audit list --db "$db"
echo
echo "== airlock audit verify --db $db (the hash chain, event by event)"
"$airlock" audit verify --db "$db"
echo
echo "review it on a terminal: $airlock audit --db $db"
