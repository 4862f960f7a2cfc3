#!/bin/sh
# 117-policy-review4.sh: what a fourth hostile review of the policy layer
# found, through the real binary: each case a way an agent made the policy
# weaker than the user wrote, each failing on 2a775fb before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq python3
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME/.config/airlock" "$d/wd/.airlock" "$d/dots"
# user TEXT: the user's policy file (printf format)
user() {
	printf "$1" >"$HOME/.config/airlock/policy"
	chmod 600 "$HOME/.config/airlock/policy"
}
# gate CALL: one call through the gate in the workdir; its answer in $d/out
gate() {
	printf '%s\n' "$1" | (cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/a.db") \
		>"$d/out" 2>"$d/err"
}

# --- 1. a read-write grant holding a policy file ------------------------------
# The user gives a profile `read-write = ~/.config` (for a tool that keeps its
# settings there). The sandbox could then rewrite ~/.config/airlock/policy,
# and an auto-run script appended `allow-critical = Shell` to it: the next
# call allowed anything. The grant is refused now, as one holding the audit
# log is, and so is one holding a file the policy includes.
w='open(__import__("os").path.expanduser("~/.config/airlock/policy"),"a").write("[rules]\\n\\tallow-critical = Shell\\n")'
printf '%s\n' "$w" >"$d/wd/w.py"
user '[profile "workspace"]\n\tread-write = ~/.config\n'
gate '{"id":"1","tool":"shell","input":{"command":"python3 w.py"}}'
check "grant of ~/.config: the user file not rewritten" sh -c "! grep -q allow-critical '$HOME/.config/airlock/policy'"
check "grant of ~/.config: the call refused, naming the file" grep -q 'airlock/policy' "$d/out"
rm -f "$HOME/.config/airlock/policy"
printf '[profile "workspace"]\n\tread-write = %s/.config\n' "$HOME" >"$d/g.policy"
chmod 600 "$d/g.policy"
out=$(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/g.policy" --profile workspace -- \
	sh -c 'mkdir -p ~/.config/airlock && echo x >~/.config/airlock/policy' 2>&1)
check "no user file yet: the sandbox does not make one" test ! -e "$HOME/.config/airlock/policy"
printf '[rules]\n\tdeny = Shell(curl *)\n' >"$d/dots/shared.policy"
chmod 600 "$d/dots/shared.policy"
user "[include]\n\tpath = $d/dots/shared.policy\n[profile \"workspace\"]\n\tread-write = $d/dots\n"
out=$(cd "$d/wd" && "$AIRLOCK" exec --profile workspace -- sh -c ': >"$0"' "$d/dots/shared.policy" 2>&1)
check "grant of an included file's directory: the include not emptied" grep -q curl "$d/dots/shared.policy"
mkdir -p "$d/tools"
user "[profile \"workspace\"]\n\tread-write = $d/tools\n"
out=$(cd "$d/wd" && "$AIRLOCK" exec --profile workspace -- sh -c 'echo ok >"$0"/f' "$d/tools" 2>&1)
check "a grant beside the policy files: still written" grep -q ok "$d/tools/f"

# --- 2. a deny path with one leading slash ------------------------------------
# `deny = Read(/etc/x)` is anchored at the workdir (as Claude Code reads
# /path), so one written for the absolute path denied nothing while
# `policy check` said ok. It still loads as written, with a warning.
mkdir -p "$d/notes"
echo private >"$d/notes/a"
user "[rules]\n\tdeny = Read($d/notes/**)\n"
out=$(cd "$d/wd" && "$AIRLOCK" policy check 2>&1)
check "one leading slash: policy check says how to write it" \
	sh -c "printf '%s' \"\$1\" | grep -q 'write Read(//'" - "$out"
user "[rules]\n\tdeny = Read(/$d/notes/**)\n"
out=$(cd "$d/wd" && "$AIRLOCK" policy check 2>&1)
expect_eq "two leading slashes: no warning" "$out" "policy: ok"
gate "{\"id\":\"2\",\"tool\":\"read_file\",\"input\":{\"path\":\"$d/notes/a\"}}"
check "two leading slashes: the absolute path denied" grep -q '"decision":"denied"' "$d/out"

# --- 3. a project file including a file of the user's -------------------------
# A cloned repository chooses its .airlock/policy. `[include] path =
# ~/.gitconfig` made each of that file's entries an error naming its
# section, and the hook hands the agent the errors as its deny reason: a
# token in `[url "https://u:TOKEN@github.com/"]` reached the model. The
# call is still denied; what the other file holds is not shown.
user ''
printf '[url "https://u:ghp_R4vIewSecret0123456789abcdefABCDEF@github.com/"]\n\tinsteadOf = https://github.com/\n' \
	>"$HOME/.gitconfig"
mkdir -p "$d/repo/.airlock"
printf '[include]\n\tpath = ~/.gitconfig\n' >"$d/repo/.airlock/policy"
out=$(jq -cn --arg w "$d/repo" '{session_id: "s", cwd: $w, hook_event_name: "PreToolUse",
	tool_name: "Bash", tool_input: {command: "ls"}, tool_use_id: "t"}' |
	(cd "$d/repo" && CLAUDE_PROJECT_DIR="$d/repo" "$AIRLOCK" hook claude --no-tty \
		--db "$d/h.db" 2>/dev/null))
expect_eq "project includes ~/.gitconfig: still denied" \
	"$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" deny
check "project includes ~/.gitconfig: the token is not in the reason" \
	sh -c "! printf '%s' \"\$1\" | grep -q R4vIewSecret" - "$out"
check "project includes ~/.gitconfig: the reason names the file read" \
	sh -c "printf '%s' \"\$1\" | grep -q 'reads $HOME/.gitconfig, outside the project'" - "$out"
printf '[profile "x"]\n\tmemory = lots\n' >"$d/repo/.airlock/policy"
out=$(cd "$d/repo" && "$AIRLOCK" policy check 2>&1)
check "a project's own bad entry: still named in full" \
	sh -c "printf '%s' \"\$1\" | grep -q '\"lots\" is not a number'" - "$out"

# --- 4. a read-write grant above the project ---------------------------------
# A grant of the project's parent (sibling checkouts a build writes) let a
# sandboxed call make ../.airlock/policy. Every .airlock/policy up to / is a
# layer and the outermost anchors the user's relative patterns, so the
# user's `deny = Read(./secret)` then named ../secret, and an auto-run
# `cat secret/k` read the project's secret. Such a grant is refused now.
mkdir -p "$d/par/proj/.airlock" "$d/par/proj/secret"
echo hidden >"$d/par/proj/secret/k"
: >"$d/par/proj/.airlock/policy"
user "[rules]\n\tdeny = Read(./secret)\n[profile \"workspace\"]\n\tread-write = $d/par\n"
out=$(cd "$d/par/proj" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'mkdir -p ../.airlock && : >../.airlock/policy' 2>&1)
check "grant of the project's parent: no ../.airlock made" test ! -e "$d/par/.airlock"
out=$(cd "$d/par/proj" && "$AIRLOCK" classify --shell 'cat secret/k' | jq -r .action)
expect_eq "grant of the project's parent: the user's deny still holds" "$out" deny

# --- 5. policy files in the workdir, written by a script ---------------------
# The sandbox guards the workdir's .airlock/, not a file the policy reads
# elsewhere in it: the user file linked into a dotfiles workdir (GNU
# stow), or an include such as rules/shared.policy. An auto-run script
# (invisible to the classifier) rewrote them to `allow-critical = Shell`,
# and `rm -rf ~` was auto. They are kept read-only in the sandbox now.
mkdir -p "$d/dotfiles/airlock"
printf '[rules]\n\tdeny = Shell(curl *)\n' >"$d/dotfiles/airlock/policy"
chmod 600 "$d/dotfiles/airlock/policy"
rm -f "$HOME/.config/airlock/policy"
ln -s "$d/dotfiles/airlock/policy" "$HOME/.config/airlock/policy"
(cd "$d/dotfiles" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'printf "[rules]\n\tallow-critical = Shell\n" >>airlock/policy') >/dev/null 2>&1
check "user file linked into the workdir: not rewritten" \
	sh -c "! grep -q allow-critical '$d/dotfiles/airlock/policy'"
expect_eq "user file linked into the workdir: rm -rf ~ still denied" \
	"$(cd "$d/dotfiles" && "$AIRLOCK" classify --shell 'rm -rf ~' | jq -r .action)" deny
rm -f "$HOME/.config/airlock/policy"
user '[policy]\n\ttrust-project = true\n'
mkdir -p "$d/inc/.airlock" "$d/inc/rules"
printf '[include]\n\tpath = ../rules/shared.policy\n' >"$d/inc/.airlock/policy"
printf '[rules]\n\tdeny = Shell(curl *)\n' >"$d/inc/rules/shared.policy"
(cd "$d/inc" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'printf "[rules]\n\tallow-critical = Shell\n" >rules/shared.policy') >/dev/null 2>&1
expect_eq "a project's include in the workdir: rm -rf ~ still denied" \
	"$(cd "$d/inc" && "$AIRLOCK" classify --shell 'rm -rf ~' | jq -r .action)" deny
out=$(cd "$d/inc" && "$AIRLOCK" exec --profile workspace -- sh -c 'echo ok >rules/other' 2>&1)
check "a project's include in the workdir: its directory still takes new files" \
	grep -q ok "$d/inc/rules/other"

# --- 6. an include that fans out ---------------------------------------------
# Each file including the next 50 times, 10 deep: 50^10 reads before
# libgit2 (which would read as many), so every load hung: each hook call
# until Claude Code killed it, the gate at its start. Refused at 256 files.
mkdir -p "$d/fan/.airlock"
for l in 1 2 3 4 5 6 7 8 9; do
	{ echo '[include]'; i=0; while [ $i -lt 50 ]; do echo "	path = f$((l + 1))"; i=$((i + 1)); done; } \
		>"$d/fan/.airlock/f$l"
done
echo '[rules]' >"$d/fan/.airlock/f10"
printf '[include]\n\tpath = f1\n' >"$d/fan/.airlock/policy"
out=$(cd "$d/fan" && timeout 60 "$AIRLOCK" policy check 2>&1); rc=$?
expect_eq "an include fanning out: refused, not a hang" "$rc" 2
check "an include fanning out: said" sh -c "printf '%s' \"\$1\" | grep -q 'more than 256 policy files'" - "$out"

finish
