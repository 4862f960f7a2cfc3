#!/bin/sh
# 106-policy-kept.sh: what libgit2 read of the policy files, kept in the
# state directory for the next process: with a user or project policy
# file, each Claude Code hook call and each `airlock exec` it rewrites a
# call into loaded libgit2 (21 ms a hook call against 9). The kept reading
# must be the reading of the files as they are: an edit to the user's
# policy, or to a file it includes, decides the next call; the sandbox
# cannot write the kept file; nothing is kept where the state directory
# lies in the workdir.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME/.config/airlock" "$XDG_STATE_HOME" "$d/wd/.airlock"
user=$HOME/.config/airlock/policy
printf '[rules]\n\tdeny = Shell(make deploy)\n[include]\n\tpath = more.policy\n' >"$user"
printf '[rules]\n\tdeny = Shell(make publish)\n' >"$HOME/.config/airlock/more.policy"
printf '[tier "low"]\n\taction = ask\n' >"$d/wd/.airlock/policy"
chmod 600 "$user" "$HOME/.config/airlock/more.policy" "$d/wd/.airlock/policy"
export AIRLOCK_DB="$d/audit.db"
payload() { # payload COMMAND: a PreToolUse for Bash in the workdir
	jq -cn --arg c "$1" --arg w "$d/wd" '{session_id: "s", cwd: $w, hook_event_name: "PreToolUse",
		tool_name: "Bash", tool_input: {command: $c}, tool_use_id: "t"}'
}
decision() { # decision COMMAND: the hook's answer
	payload "$1" | "$AIRLOCK" hook claude 2>/dev/null | jq -r .hookSpecificOutput.permissionDecision
}
# hook_git COMMAND: how many lines of ld.so's trace name libgit2
hook_git() {
	payload "$1" | LD_DEBUG=libs "$AIRLOCK" hook claude 2>&1 >/dev/null | grep -c libgit2
}
kept() { find "$XDG_STATE_HOME/airlock/policy" -type f 2>/dev/null | wc -l; }

# ---- the hook ----
check "first call: the files are read with libgit2" test "$(hook_git 'git status')" -gt 0
expect_eq "their reading is kept" "$(kept)" 1
expect_eq "next call: from the kept reading, no libgit2" "$(hook_git 'git status')" 0
expect_eq "the user's deny rule holds" "$(decision 'make deploy')" deny
expect_eq "and its included file's" "$(decision 'make publish')" deny
expect_eq "the project's stricter tier holds" "$(decision 'ls')" ask
expect_eq "a call no rule names" "$(decision 'make test')" allow

# ---- edits decide the next call ----
printf '[rules]\n\tdeny = Shell(make test)\n[include]\n\tpath = more.policy\n' >"$user"
expect_eq "user file edited: its new rule holds at once" "$(decision 'make test')" deny
expect_eq "user file edited: the rule it dropped is gone" "$(decision 'make deploy')" allow
printf '[rules]\n\tdeny = Shell(make lint)\n' >"$HOME/.config/airlock/more.policy"
expect_eq "included file edited: its new rule holds" "$(decision 'make lint')" deny
expect_eq "included file edited: the old one is gone" "$(decision 'make publish')" allow
: >"$d/wd/.airlock/policy"
expect_eq "project file emptied: its tier is gone" "$(decision 'ls')" allow
rm "$HOME/.config/airlock/more.policy"
expect_eq "included file removed: the load fails, the call is denied" \
	"$(decision 'make deploy')" deny
printf '[rules]\n\tdeny = Shell(make lint)\n' >"$HOME/.config/airlock/more.policy"
chmod 600 "$HOME/.config/airlock/more.policy"

# ---- airlock exec with the files ----
(cd "$d/wd" && LD_DEBUG=libs "$AIRLOCK" exec -- true 2>"$d/ld.txt")
expect_eq "exec: the same files, no libgit2" "$(grep -c libgit2 "$d/ld.txt")" 0
out=$(cd "$d/wd" && "$AIRLOCK" exec --profile workspace -- sh -c \
	"for f in '$XDG_STATE_HOME'/airlock/policy/*; do : >\"\$f\" && echo wrote; done" 2>/dev/null)
check "the sandbox cannot write the kept reading" sh -c "! echo '$out' | grep -q wrote"
expect_eq "the kept reading is intact after" "$(hook_git 'git status')" 0

# ---- a state directory in the workdir keeps nothing ----
rm -rf "$XDG_STATE_HOME/airlock/policy"
export XDG_STATE_HOME="$d/wd/.state"
expect_eq "state directory in the workdir: the call is decided" "$(decision 'make lint')" deny
check "state directory in the workdir: nothing kept there" test ! -e "$d/wd/.state/airlock/policy"
check "state directory in the workdir: libgit2 each time" test "$(hook_git 'git status')" -gt 0
finish
