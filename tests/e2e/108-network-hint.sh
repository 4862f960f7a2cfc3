#!/bin/sh
# 108-network-hint.sh: a call that reaches the network (a host, a fetch, a
# package install, a push), approved and run in a profile without the
# network, fails there; the person approving it in Claude Code's prompt is
# told, and a failed run says why and which policy line gives the network.
# A call that needs no network, or a profile with it, gets no such note.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/w" "$d/home"
export HOME="$d/home" AIRLOCK_DB="$d/a.db"
call() { jq -cn --arg c "$1" --argjson i "$2" '{id: $i, tool: "shell", input: {command: $c}}'; }
gate() { # gate [--policy FILE]: the calls on stdin, approved
	(cd "$d/w" && "$AIRLOCK" gate --approve-with 'exit 0' --no-tty "$@" 2>/dev/null)
}
{ call "curl -sS https://example.invalid/x" 1; call "rm -rf nothing-here && false" 2; } \
	| gate >"$d/out"
stderr() { jq -r "select(.id == $1) | .stderr" "$d/out"; }
expect_eq "an approved fetch ran" "$(jq -r 'select(.id == 1) | .decision' "$d/out")" approved
check "failed without the network: the note says why" \
	sh -c "echo '$(stderr 1)' | grep -q 'reaches the network, and its sandbox (profile approved) has none'"
check "and the policy line" sh -c "echo '$(stderr 1)' | grep -q 'network = true'"
check "a call that needs no network: no note" sh -c "! echo '$(stderr 2)' | grep -q network"
printf '[profile "approved"]\n\tnetwork = true\n' >"$d/net.policy"
chmod 600 "$d/net.policy"
call "curl -sS https://example.invalid/x" 3 | gate --policy "$d/net.policy" >"$d/out"
check "a profile with the network: no note" sh -c "! echo '$(stderr 3)' | grep -q 'has none'"

# the hook's ask: Claude Code's prompt shows the reason
reason() {
	jq -cn --arg c "$1" --arg w "$d/w" '{session_id: "s", cwd: $w, hook_event_name: "PreToolUse",
		tool_name: "Bash", tool_input: {command: $c}, tool_use_id: "t"}' |
		"$AIRLOCK" hook claude 2>/dev/null | jq -r .hookSpecificOutput.permissionDecisionReason
}
check "hook ask, npm install: the prompt says it runs without the network" \
	sh -c "echo \"\$1\" | grep -q 'without the network this call needs'" x "$(reason 'npm install left-pad')"
check "hook ask, git push: likewise" \
	sh -c "echo \"\$1\" | grep -q 'without the network this call needs'" x "$(reason 'git push origin main')"
check "hook ask, rm -rf: no note" \
	sh -c "! echo \"\$1\" | grep -q network" x "$(reason 'rm -rf build')"
finish
