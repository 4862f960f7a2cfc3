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

# --- hook: Grep and Glob of a tree that holds a denied path are asked -------
# Claude Code runs Grep and Glob itself, outside airlock's sandbox, and
# they read every file below their path: with deny = Read(./secret/**), a
# Grep of the project root (or with only a glob) was allowed at low and
# read secret/k, which the sandbox would have hidden.
expect_eq "hook, Grep of the project root under a deny rule below it: asked" \
	"$(hook "$d/proj" Grep '{"pattern":"TOP","path":"'"$d/proj"'"}')" ask
expect_eq "hook, Grep with only a glob: asked" \
	"$(hook "$d/proj" Grep '{"pattern":"TOP","glob":"k"}')" ask
expect_eq "hook, Glob of **/k from the root: asked" \
	"$(hook "$d/proj" Glob '{"pattern":"**/k"}')" ask
expect_eq "hook, LS of the project root: asked" \
	"$(hook "$d/proj" LS '{"path":"'"$d/proj"'"}')" ask
expect_eq "hook, Grep of the denied directory: still denied" \
	"$(hook "$d/proj" Grep '{"pattern":"TOP","path":"secret"}')" deny
expect_eq "hook, Grep of a directory beside it: still allowed" \
	"$(hook "$d/proj" Grep '{"pattern":"TOP","path":"src"}')" allow
printf '[rules]\n\tallow = Read(./**)\n' >"$d/all.policy"
chmod 600 "$d/all.policy"
expect_eq "hook, Grep of the root with an allow rule over it: still asked" \
	"$(printf '{"session_id":"c","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"TOP"}}' "$d/proj" |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --policy "$d/all.policy" --db "$d/h.db" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision)" ask

# watch judges it as the hook does: the Grep read past the rule, flagged
out=$(printf '%s\n' '{"type":"system","subtype":"init","cwd":"'"$d/proj"'","session_id":"w1"}' \
	'{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"TOP"}}]}}' |
	"$AIRLOCK" watch --db "$d/w.db" 2>&1)
check "watch, Grep of the project root under a deny rule below it: flagged" \
	sh -c 'printf "%s" "$1" | grep -q "FLAGGED high: .*policy.deny_below"' _ "$out"

# --- mcp: a search tool of a tree holding a denied path is asked about ------
# mcp:fake.search_files of the project root (listed read-only: low) was
# forwarded, and the server searched secret/ past the deny rule.
F=$PWD/tests/data/integrations/fake-mcp-server.py
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
: >"$d/m.log"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_files","arguments":{"path":"'"$d/proj"'","pattern":"k"}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_files","arguments":{"path":"'"$d/proj/src"'","pattern":"k"}}}' |
	(cat; sleep 1) | (cd "$d/proj" && timeout 30 "$AIRLOCK" mcp --no-tty --db "$d/m.db" -- $PY "$F" "$d/m.log") 2>/dev/null)
expect_eq "mcp, search_files of the root: never reached the server" \
	"$(grep -c '"id": 2' "$d/m.log")" 0
check "mcp, search_files of the root: denied, saying why" \
	sh -c 'printf "%s" "$1" | grep -q "\"id\":2,.*policy.deny_below"' _ "$out"
check "mcp, search_files of a directory beside it: forwarded" \
	sh -c 'printf "%s" "$1" | grep -q "\"id\": 3, \"result\""' _ "$out"

# --- hook: Claude Code's Grep(...) and NotebookEdit(...) rules load ----------
# Pasted from Claude Code's settings, deny = Grep(./secret/**) was a bad
# pattern that stopped the gate: every call was denied "cannot load the
# policy". Now it is Read(./secret/**), NotebookEdit(...) is Edit(...).
printf '[rules]\n\tdeny = Grep(./secret/**)\n\tdeny = NotebookEdit(./n.ipynb)\n' >"$d/cc.policy"
chmod 600 "$d/cc.policy"
cc() {
	printf '{"session_id":"c","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s}' "$d/proj" "$1" "$2" |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --policy "$d/cc.policy" --db "$d/h.db" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "policy, deny = Grep(...): a Read of a file beside it allowed" \
	"$(cc Read '{"file_path":"'"$d/proj/src/a"'"}')" allow
expect_eq "policy, deny = Grep(./secret/**): a Read under it denied" \
	"$(cc Read '{"file_path":"'"$d/proj/secret/k"'"}')" deny
expect_eq "policy, deny = NotebookEdit(./n.ipynb): the notebook edit denied" \
	"$(cc NotebookEdit '{"notebook_path":"'"$d/proj/n.ipynb"'","new_source":"x"}')" deny
printf '[rules]\n\tdeny = WebSearch\n' >"$d/ws.policy"
chmod 600 "$d/ws.policy"
out=$("$AIRLOCK" policy check "$d/ws.policy" 2>&1)
check "policy, deny = WebSearch: an error that says why" \
	sh -c 'printf "%s" "$1" | grep -q "no rule form for Claude Code.s WebSearch"' _ "$out"

# --- --approve-with: the JSON says whether approval applies the preview ----
# The program got the preview's text and no field saying whether approving
# applies it or runs the call itself (the approval screen reads a text line
# of the preview for that): a diff read as what would happen.
mkdir -p "$d/g/src"
printf '#!/bin/sh\ncat >>"%s/seen.json"; echo >>"%s/seen.json"; exit 1\n' "$d" "$d" >"$d/ap.sh"
chmod +x "$d/ap.sh"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"rm -rf src"}}' \
	'{"id":2,"tool":"write_file","input":{"path":"/etc/airlock-review5-probe","content":"x"}}' |
	(cd "$d/g" && "$AIRLOCK" gate --db "$d/g.db" --approve-with "$d/ap.sh") >/dev/null 2>&1
expect_eq "approve-with, applies: the rm's preview, the outside write's call" \
	"$(jq -r '"\(.id)=\(.applies)"' "$d/seen.json" | tr '\n' ' ')" "1=preview 2=run "
check "approve-with, both denied: src is still there" test -d "$d/g/src"

# --- the integrations' --line-cap takes k, m, g as policy sizes do ----------
# "--line-cap 16M" and "1k" were refused (exit 2) while a policy's sizes
# take the suffixes.
lc() { echo '{}' | "$AIRLOCK" watch --db "$d/w.db" --line-cap "$1" >/dev/null 2>&1; echo $?; }
expect_eq "watch --line-cap 16M, 1k, 64K, 2048: taken; 1000, 17g, k: refused" \
	"$(lc 16M) $(lc 1k) $(lc 64K) $(lc 2048) $(lc 1000) $(lc 17g) $(lc k)" "0 0 0 0 2 2 2"

finish
