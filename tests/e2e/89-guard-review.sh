#!/bin/sh
# 89-guard-review.sh: what a hostile review of the guard code of 488610a
# found, each failing before its fix: a command an MCP server or a
# Claude Code tool runs itself, under an argument name other than
# "command" or as a list it could not read, allowed by a rule about the
# tool, through the hook and through `airlock mcp`.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-guard.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd"
printf '[rules]\n\tallow = Mcp(desktop.execute_command)\n' > "$d/allow.policy"

# hook ARGS-JSON: the hook's decision for mcp__desktop__execute_command,
# allowed by name: a command it runs itself asks whatever the rule says
hook() {
	rm -f "$d/h.db"*
	printf '{"cwd":"%s","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"mcp__desktop__execute_command","tool_input":%s}\n' \
		"$d/wd" "$1" | CLAUDE_PROJECT_DIR="$d/wd" "$AIRLOCK" hook claude --policy "$d/allow.policy" \
		--db "$d/h.db" 2>/dev/null | jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "hook: command asks" "$(hook '{"command":"make"}')" ask
expect_eq "hook: cmd asks" "$(hook '{"cmd":"make"}')" ask
expect_eq "hook: script asks" "$(hook '{"script":"make"}')" ask
expect_eq "hook: commandLine asks" "$(hook '{"commandLine":"make"}')" ask
expect_eq "hook: code asks" "$(hook '{"code":"import os"}')" ask
expect_eq "hook: a command in an object asks" "$(hook '{"command":{"cmd":"make"}}')" ask
expect_eq "hook: cmd beside a path asks" "$(hook "{\"cmd\":\"make\",\"path\":\"$d/wd/x\"}")" ask
expect_eq "hook: the rule still allows the rest" "$(hook '{"query":"x"}')" allow

# the same through `airlock mcp`: a cmd the server runs is not forwarded
data=$PWD/tests/data/integrations
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
printf '[rules]\n\tallow = Mcp(fake.exec)\n' > "$d/fake.policy"
{
	sed -n 1,3p "$data/fake-mcp-script.jsonl" | grep -v '^#'
	printf '%s\n' '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exec","arguments":{"cmd":"make"}}}' \
		'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"exec","arguments":{"command":["make",1]}}}'
} > "$d/script.jsonl"
(cd "$d/wd" && $PY "$data/mcp-client.py" "$d/script.jsonl" "$AIRLOCK" mcp --no-tty --db "$d/m.db" \
	--policy "$d/fake.policy" -- $PY "$data/fake-mcp-server.py" "$d/fake.log") > "$d/fake.out" 2>/dev/null
for id in 5 6; do
	expect_eq "mcp: call $id asks (no terminal: a tool error)" \
		"$(jq -c "select(.id == $id) | .result.isError" "$d/fake.out")" true
done
expect_eq "mcp: the server started and got initialize" "$(jq -r 'select(.id == 1) | .method' "$d/fake.log")" initialize
expect_eq "mcp: neither reached the server" "$(jq -r 'select(.method == "tools/call") | .id' "$d/fake.log" | tr -d '\n')" ""

# a core.hooksPath airlock cannot read (libgit2 rejects the config) leaves
# the hooks directory unknown: the call is refused, nothing runs
mkdir -p "$d/hp/.githooks" && git init -q "$d/hp" &&
	printf '[core]\n\thooksPath = .githooks\n[broken\n' >> "$d/hp/.git/config"
(cd "$d/hp" && "$AIRLOCK" exec -- sh -c 'echo x > .githooks/pre-commit') > "$d/hp.out" 2>&1
expect_eq "unreadable hooksPath: refused (125)" "$?" 125
check "unreadable hooksPath: no hook written" test ! -e "$d/hp/.githooks/pre-commit"
check "unreadable hooksPath: the message says why" grep -q "core.hooksPath" "$d/hp.out"

finish
