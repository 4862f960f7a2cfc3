#!/bin/sh
# hook.sh: wall time of one `airlock hook claude` call (Claude Code starts a
# process per tool call), beside the yardsticks in the same run: the
# smallest hook people write (`jq` reading the payload) and a bare process
# start (`true`). Also with a project policy file (which may load libgit2).
set -eu
: "${AIRLOCK:?}"
command -v hyperfine > /dev/null || { echo "hook.sh: hyperfine not installed (make deps)"; exit 1; }
d=$(mktemp -d /tmp/airlock-bench-hook.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd" "$d/pol/.airlock"
printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"list"},"tool_use_id":"t"}\n' "$d/wd" > "$d/allow.json"
printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"t"}\n' "$d/wd" > "$d/deny.json"
sed "s#$d/wd#$d/pol#" "$d/allow.json" > "$d/pol.json"
printf '[policy]\n' > "$d/pol/.airlock/policy"
chmod 600 "$d/pol/.airlock/policy"
export AIRLOCK_DB="$d/audit.db"
"$AIRLOCK" hook claude < "$d/allow.json" > /dev/null # create the log first

# hyperfine runs each through sh and subtracts the shell's own start-up,
# so the rows are the commands' wall time with stdin redirected.
hyperfine --warmup 5 --runs "${HOOK_BENCH_RUNS:-100}" --export-json "$d/h.json" --style none \
	-n "true (a bare process start)" "true" \
	-n "jq -c .tool_input < payload (a minimal jq hook)" "jq -c .tool_input < $d/allow.json" \
	-n "airlock hook claude: allow, Bash rewritten" "$AIRLOCK hook claude < $d/allow.json" \
	-n "airlock hook claude: deny (critical)" "$AIRLOCK hook claude < $d/deny.json" \
	-n "airlock hook claude: project policy file" "$AIRLOCK hook claude < $d/pol.json" \
	> /dev/null 2>&1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (a busy machine inflates every row)"
jq -r '(.results[1].mean) as $jq | .results[] |
	"\(.command | .[0:52] | . + " " * (52 - length)) \(.mean * 1000 | . * 100 | round / 100 | tostring | . + " ms") ± \(.stddev * 1000 | . * 10 | round / 10) ms   cpu \((.user + .system) * 1000 | . * 100 | round / 100) ms   x\(.mean / $jq | . * 100 | round / 100) jq"' "$d/h.json"
