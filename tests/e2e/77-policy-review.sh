#!/bin/sh
# 77-policy-review.sh: what a hostile agent or a cloned repository tried
# against the policy, each found by a review and each failing before its
# fix: a FIFO or a writable nested include; a program run by its path, a
# host spelled as curl reads it or a path glob past a deny rule; a write of
# the gate's own policy or a git hook lowered by a broad allow; a nested
# .airlock/policy for the hook; a credential echoed back to the agent;
# profile none auto-running; and a rule of many * words stalling every call.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-polreview.XXXXXX)
trap 'rm -rf "$d"' EXIT
export HOME="$d/home"
mkdir -p "$d/wd/.airlock" "$HOME/.config/airlock"
gate() { (cd "$d/wd" && timeout 30 "$AIRLOCK" gate --no-tty --db "$d/g.db" "$@"); }
get() { printf '%s\n' "$out" | jq -r "select(.id==\"$1\") | $2"; }
lacks() { ! printf '%s' "$out" | grep -q "$1"; }
check_policy() { timeout 10 "$AIRLOCK" policy check -w "$d/wd" 2>&1; }

# a project file including a FIFO is an error, not a hang
mkfifo "$d/wd/.airlock/fifo"
printf '[include]\n\tpath = fifo\n' >"$d/wd/.airlock/policy"
out=$(check_policy); rc=$?
expect_eq "fifo include: exit 2, not a hang" "$rc" 2
check "fifo include: named" sh -c 'printf "%s" "$0" | grep -q "fifo: not a regular file"' "$out"
# a nested include is checked where libgit2 reads it: next to its includer
mkdir -p "$d/inc"
printf '[include]\n\tpath = %s/inc/a\n' "$d" >"$d/wd/.airlock/policy"
printf '[include]\n\tpath = b\n' >"$d/inc/a"
printf '[policy]\n\ttrust-project = true\n' >"$d/inc/b"
chmod 666 "$d/inc/b"
out=$(check_policy); rc=$?
expect_eq "writable nested include: exit 2" "$rc" 2
check "writable nested include: named" sh -c 'printf "%s" "$0" | grep -q "inc/b: unsafe permissions"' "$out"
rm -f "$d/wd/.airlock/policy" "$d/wd/.airlock/fifo"

# deny and ask rules see a program run by its path, and hosts as curl does
cat >"$d/rules.policy" <<'P'
[rules]
	allow = WebFetch
	deny = WebFetch(domain:evil.example)
	deny = WebFetch(domain:169.254.169.254)
	deny = Read(.env)
	deny = Shell(rm *)
	ask = Shell(git push *)
P
out=$(printf '%s\n' \
	'{"id":"rm","tool":"shell","input":{"command":"/bin/rm -rf x"}}' \
	'{"id":"git","tool":"shell","input":{"command":"./../../usr/bin/git push origin main"}}' \
	'{"id":"dot","tool":"http","input":{"method":"GET","url":"http://evil.example./x"}}' \
	'{"id":"pct","tool":"http","input":{"method":"GET","url":"http://evil%2eexample/x"}}' \
	'{"id":"idn","tool":"http","input":{"method":"GET","url":"http://ｅｖｉｌ.example/x"}}' \
	'{"id":"ip","tool":"http","input":{"method":"GET","url":"http://2852039166/latest/meta-data/"}}' |
	(cd "$d/wd" && "$AIRLOCK" classify --policy "$d/rules.policy"))
expect_eq "deny rule: /bin/rm" "$(get rm .action)" deny
expect_eq "ask rule: ./../../usr/bin/git" "$(get git .action)" ask
expect_eq "deny host: trailing dot" "$(get dot .action)" deny
expect_eq "deny host: percent-escape" "$(get pct .action)" deny
expect_eq "deny host: fullwidth letters" "$(get idn .action)" deny
expect_eq "deny host: an address as one number" "$(get ip .action)" deny
out=$(printf '%s\n' '{"id":"g","tool":"shell","input":{"command":"cat .e*"}}' |
	(cd "$d/wd" && "$AIRLOCK" classify --policy "$d/rules.policy"))
expect_eq "deny path: a glob the shell expands" "$(get g .action)" deny

# a broad allow does not let the agent rewrite a trusted project's policy
printf '[policy]\n\ttrust-project = true\n[rules]\n\tallow = Edit(**)\n' >"$HOME/.config/airlock/policy"
out=$(printf '%s\n' \
	'{"id":"w","tool":"write_file","input":{"path":".airlock/policy","content":"[rules]\n\tallow-critical = Shell\n"}}' \
	'{"id":"ok","tool":"write_file","input":{"path":"notes.txt","content":"x"}}' | gate 2>/dev/null)
expect_eq "own policy: not auto" "$(get w .decision)" denied
check "own policy: not written" test ! -e "$d/wd/.airlock/policy"
expect_eq "an ordinary write: auto" "$(get ok .decision)" auto

# ... nor plant a git hook that runs outside the sandbox at the next commit
printf '[rules]\n\tallow = Edit(**)\n' >"$HOME/.config/airlock/policy"
mkdir -p "$d/wd/.git/hooks"
out=$(printf '%s\n' \
	'{"id":"h","tool":"write_file","input":{"path":".git/hooks/pre-commit","content":"#!/bin/sh\nid\n"}}' | gate 2>/dev/null)
expect_eq "git hook: not auto" "$(get h .decision)" denied
check "git hook: not written" test ! -e "$d/wd/.git/hooks/pre-commit"
# the hook takes its workdir from each call's cwd: a .airlock/policy in a
# subdirectory becomes the project policy once the agent's cwd is there
printf '[policy]\n\ttrust-project = true\n' >"$HOME/.config/airlock/policy"
mkdir -p "$d/wd/sub"
hookw() {
	printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"[rules]\\n\\tallow-critical = Bash\\n"},"tool_use_id":"t"}' \
		"$d/wd" "$1" | "$AIRLOCK" hook claude --db "$d/h.db" 2>/dev/null | jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "hook: a nested .airlock/policy is not auto" "$(hookw "$d/wd/sub/.airlock/policy")" ask

# a granted credential reaches the command, not the agent through its output
printf '[credential "POLREVIEW_TOKEN"]\n\tfor = Shell(printf *)\n[rules]\n\tallow = Shell(printf *)\n' >"$HOME/.config/airlock/policy"
out=$(printf '%s\n' '{"id":"t","tool":"shell","input":{"command":"printf %s \"$POLREVIEW_TOKEN\""}}' |
	POLREVIEW_TOKEN=tok_e2e_s3cr3t_value gate 2>/dev/null)
expect_eq "credential: granted, ran" "$(get t .decision)" auto
check "credential: not in the agent's output" lacks tok_e2e_s3cr3t_value
rm -f "$HOME/.config/airlock/policy"

# profile none (no sandbox) never runs a call automatically
printf '[tier "low"]\n\tprofile = none\n' >"$HOME/.config/airlock/policy"
out=$(printf '%s\n' '{"id":"n","tool":"shell","input":{"command":"echo ran"}}' | gate 2>/dev/null)
expect_eq "profile none: not auto" "$(get n .decision)" denied
check "profile none: did not run" sh -c '[ "$0" != ran ]' "$(get n .stdout)"
rm -f "$HOME/.config/airlock/policy"

# a rule of many * words does not stall a call
printf '[rules]\n\tdeny = Shell(* * * * * * * * * * * * * * * * * * * * * * * * zzz)\n' >"$d/wd/.airlock/policy"
words=$(printf 'a %.0s' $(seq 1 40))
out=$(printf '{"id":"s","tool":"shell","input":{"command":"echo %s"}}\n' "$words" |
	(cd "$d/wd" && timeout 10 "$AIRLOCK" classify))
expect_eq "many * words: decided" "$(get s .action)" auto
finish
