#!/bin/sh
# 107-kept-review.sh: what a hostile review of the files kept for the next
# process (the policy reading, the global git config reading, the sandbox
# search) found. Each case failed on 9139e5a: a later call must never be
# weaker than the files say now.
. tests/e2e/lib.sh
need jq python3
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME
export HOME="$d/home" AIRLOCK_DB="$d/audit.db"
# decide DIR COMMAND: the hook's answer for a Bash call in DIR
decide() {
	jq -cn --arg c "$2" --arg w "$1" '{session_id: "s", cwd: $w, hook_event_name: "PreToolUse",
		tool_name: "Bash", tool_input: {command: $c}, tool_use_id: "t"}' |
		"$AIRLOCK" hook claude 2>/dev/null | jq -r .hookSpecificOutput.permissionDecision
}

# ---- a state directory in a repository: GNU stow's ~/.local ----
# The dotfiles repository holds ~/.local, so a sandboxed call with it as
# its workdir can write what is kept there for every other workdir: it
# rewrote project P's kept policy reading, and P's next call allowed what
# P's deny rule names.
mkdir -p "$HOME" "$d/dots/.git" "$d/dots/.local/state" "$d/P/.airlock"
ln -s "$d/dots/.local" "$HOME/.local"
printf '[rules]\n\tdeny = Shell(make publish)\n' >"$d/P/.airlock/policy"
chmod 600 "$d/P/.airlock/policy"
expect_eq "stow: the project's deny rule holds" "$(decide "$d/P" 'make publish')" deny
(cd "$d/P" && "$AIRLOCK" exec -- true)
cat >"$d/dots/forge.py" <<'PY'
import glob
for f in glob.glob('.local/state/airlock/policy/*'):
    b = open(f, 'rb').read()
    i = b.rfind(b'Shell(make publish)')
    open(f, 'wb').write(b[:i] + b'Shell(make publisX)' + b[i + 19:])
PY
(cd "$d/dots" && "$AIRLOCK" exec -- python3 forge.py 2>/dev/null)
expect_eq "stow: a call in the dotfiles repository cannot undo another project's deny rule" \
	"$(decide "$d/P" 'make publish')" deny
check "stow: nothing is kept in a state directory inside a repository" \
	test -z "$(find "$d/dots/.local/state" -type f -path '*/policy/*')"
rm "$HOME/.local"
finish
