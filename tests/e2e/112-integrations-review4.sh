#!/bin/sh
# 112-integrations-review4.sh: a fourth hostile review of the agent
# integrations (hook, mcp, run, watch): each case a way a call ran, was
# allowed or went unrecorded other than the gate decided, each failing on
# 5267361 before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$d/wd" "$HOME/.ssh"
echo not-a-key >"$HOME/.ssh/id_rsa"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
F=$PWD/tests/data/integrations/fake-mcp-server.py
has() { printf '%s' "$out" | grep -q -- "$1"; }
lacks() { ! has "$1"; }
# mcp DB LOG SERVER...: the client's lines (stdin) through airlock mcp
mcp() {
	db=$1 log=$2; shift 2
	(cat; sleep 1) | (cd "$d/wd" && timeout 30 "$AIRLOCK" mcp --no-tty --db "$d/$db" "$@" "$d/$log") 2>/dev/null
}

# --- mcp: a method that is not a string is not forwarded --------------------
# {"method":["tools/call"]} is no JSON-RPC request, but a server that looks
# its handler up by the method (handlers[msg.method] in JavaScript) reads
# "tools/call": airlock forwarded it unjudged and unrecorded, as any
# request that is not tools/call.
: >"$d/m.log"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":["tools/call"],"params":{"name":"wipe","arguments":{"path":"/etc"}}}' \
	'[{"jsonrpc":"2.0","id":3,"method":{"0":"tools/call"},"params":{"name":"wipe"}},{"jsonrpc":"2.0","id":4,"method":"ping"}]' |
	mcp m.db m.log -- $PY "$F")
expect_eq "mcp, a method as an array or object: never reached the server" \
	"$(grep -c '"tools/call"' "$d/m.log")" 0
check "mcp, a method as an array: answered as an invalid request" has '"id":2,"error":{"code":-32600'
check "mcp, a method as an object in a batch: answered" has '"id":3,"error":{"code":-32600'
check "mcp, the ping beside it: forwarded" has '"echo": "ping"'

# --- mcp: keys a case-folding server reads as JSON-RPC's are not forwarded ---
# Go's encoding/json (servers on mcp-go, go-sdk before its fix) matches
# "Method", "METHOD" and "paramſ" (U+017F) to method and params, the last
# key winning: {"method":"ping","Method":"tools/call"} was forwarded as a
# ping and ran as a call there; "Name" and "Arguments" beside the name and
# arguments airlock judged ran another tool on other arguments.
printf '[rules]\n\tallow = Mcp(fake.lookup)\n' >"$d/lookup.policy"
chmod 600 "$d/lookup.policy"
: >"$d/k.log"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":3,"method":"ping","Method":"tools/call","params":{"name":"wipe","arguments":{"path":"/etc"}}}' \
	'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"notes.md"},"Name":"wipe","Arguments":{"path":"/etc"}}}' \
	'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"notes.md"},"argument\u017f":{"path":"/etc"}}}' \
	'[{"jsonrpc":"2.0","id":6,"method":"ping","METHOD":"tools/call","params":{"name":"wipe"}}]' \
	'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"notes.md"},"_meta":{"progressToken":7}}}' |
	mcp k.db k.log --policy "$d/lookup.policy" -- $PY "$F")
expect_eq "mcp, case-variant keys: none reached the server" \
	"$(grep -c -i -e '"method": *"ping"' -e 'wipe' "$d/k.log")" 0
for i in 3 4 5 6; do
	check "mcp, case-variant keys: request $i answered as invalid" has '"id":'$i',"error":{"code":-32600'
done
check "mcp, case-variant keys: the one with exact keys still forwarded" has '"id": 7, "result"'

# --- mcp: an argument a case-folding server reads as path is judged as one ---
# A Go server binding typed arguments (encoding/json) reads "Path" as path.
# Unread, it left only the unknown tool, which a rule allowing the tool
# allowed: a write into .git/hooks, which only allow-critical lowers, was
# forwarded.
mkdir -p "$d/wd/.git/hooks"
printf '[rules]\n\tallow = Mcp(fake.write_file)\n' >"$d/wf.policy"
chmod 600 "$d/wf.policy"
: >"$d/w.log"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"Path":".git/hooks/pre-commit","content":"x"}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"notes.md","PATH":".git/hooks/post-checkout","content":"x"}}}' \
	'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"notes.md","content":"x"}}}' |
	mcp w.db w.log --policy "$d/wf.policy" -- $PY "$F")
expect_eq "mcp, a folded path key: the hook writes never reached the server" \
	"$(grep -c 'hooks' "$d/w.log")" 0
check "mcp, a folded path key: judged as the git-hook write" has '"id":2,.*fs.write.git_config'
check "mcp, beside an exact path: judged too" has '"id":3,.*fs.write.git_config'
check "mcp, exact keys only: still allowed" has '"text": "ran write_file"'

# --- hook: Grep's and Glob's relative paths are read from the call's cwd -----
# Claude Code resolves them from the cwd it sends, as it does Read's; they
# were judged from the project. After a `cd ~` (kept across calls), a Grep
# of ".ssh" searched the home's keys and was allowed at low as a search of
# the project's own .ssh.
mkdir -p "$d/proj" && (cd "$d/proj" && git init -q .)
hook() {
	printf '{"session_id":"c","cwd":"%s","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"%s","tool_input":%s}' "$1" "$2" "$3" |
		CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --db "$d/c.db" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "hook, Grep of .ssh from the home: asked" \
	"$(hook "$HOME" Grep '{"pattern":"BEGIN","path":".ssh"}')" ask
expect_eq "hook, Glob of .ssh/* from the home: asked" \
	"$(hook "$HOME" Glob '{"pattern":".ssh/*"}')" ask
expect_eq "hook, Grep of a project directory from the project: still allowed" \
	"$(hook "$d/proj" Grep '{"pattern":"x","path":"src"}')" allow

# --- hook: the same folded key in a Claude Code MCP call ----------------------
printf '[rules]\n\tallow = Mcp(fs.write_file)\n' >"$d/fs.policy"
chmod 600 "$d/fs.policy"
mkdir -p "$d/proj/.git/hooks"
out=$(printf '{"session_id":"f","cwd":"%s/proj","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"mcp__fs__write_file","tool_input":{"Path":".git/hooks/pre-commit","content":"x"}}' "$d" |
	CLAUDE_PROJECT_DIR="$d/proj" "$AIRLOCK" hook claude --policy "$d/fs.policy" --db "$d/f.db" 2>/dev/null)
expect_eq "hook, an MCP call's folded path key: not allowed" \
	"$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" ask
check "hook, an MCP call's folded path key: judged as the git-hook write" has fs.write.git_config

# --- policy: an Mcp(...) rule vouches for the tool, not for a secret ---------
# Left by the review for the policy's owner: with allow = Mcp(fake.lookup),
# lookup of ~/.ssh/id_rsa was refused (mapped to read_file, the path the
# subject) but lookup of it with one more argument (the whole tool then
# the subject) was allowed, and forwarded.
: >"$d/l.log"
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"'"$HOME"'/.ssh/id_rsa","x":"y"}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"path":"notes.md","x":"y"}}}' |
	mcp l.db l.log --policy "$d/lookup.policy" -- $PY "$F")
expect_eq "mcp, a secret read by an allowed tool with two arguments: not forwarded" \
	"$(grep -c 'id_rsa' "$d/l.log")" 0
check "mcp, a project file read by it: still forwarded" grep -q 'notes.md' "$d/l.log"

finish
