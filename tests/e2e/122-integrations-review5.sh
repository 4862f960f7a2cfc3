#!/bin/sh
# 122-integrations-review5.sh: a fifth hostile review of the agent
# integrations (hook, mcp, run, watch): each case a way a call was allowed
# other than its policy says, or an option refused, each failing on
# 0c35f07 before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME" "$d/proj/secret" "$d/proj/src" "$d/proj/.airlock" "$d/proj/.git"
echo TOP >"$d/proj/secret/k"
printf '[rules]\n\tdeny = Read(./secret/**)\n' >"$d/proj/.airlock/policy"
chmod 600 "$d/proj/.airlock/policy"
# hook CWD TOOL INPUT: the decision for one PreToolUse payload
hook() {
	printf '{"session_id":"c","cwd":"%s","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"%s","tool_input":%s}' "$1" "$2" "$3" |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --db "$d/h.db" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision
}

# --- the integrations' --line-cap takes k, m, g as policy sizes do ----------
# "--line-cap 16M" and "1k" were refused (exit 2) while a policy's sizes
# take the suffixes.
lc() { echo '{}' | "$AIRLOCK" watch --db "$d/w.db" --line-cap "$1" >/dev/null 2>&1; echo $?; }
expect_eq "watch --line-cap 16M, 1k, 64K, 2048: taken; 1000, 17g, k: refused" \
	"$(lc 16M) $(lc 1k) $(lc 64K) $(lc 2048) $(lc 1000) $(lc 17g) $(lc k)" "0 0 0 0 2 2 2"

finish
