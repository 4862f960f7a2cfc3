#!/bin/sh
# 89-guard-review.sh: what a hostile review of the guard code of 488610a
# found, each failing before its fix: a command an MCP server or a
# Claude Code tool runs itself, under an argument name other than
# "command", allowed by a rule about the tool.
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

finish
