#!/bin/sh
# 107-kept-review.sh: what a hostile review of the files kept for the next
# process (the policy reading, the global git config reading, the sandbox
# search) found. Each case failed on 9139e5a: a later call must never be
# weaker than the files say now.
. tests/e2e/lib.sh
need jq python3 git
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM GIT_CONFIG_COUNT
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
# and the sandbox does not show it at all: the pending records a recovery
# trusts were writable there, and so from a workdir of ~/.local itself,
# which is no repository
mkdir -p "$d/dots/.local/state/airlock/pending"
out=$(cd "$d/dots" && "$AIRLOCK" exec -- sh -c \
	': >.local/state/airlock/pending/forged && echo wrote; ls -A .local/state/airlock' 2>/dev/null)
expect_eq "stow: the state directory is empty and read-only in the sandbox" "$out" ""
out=$(cd "$HOME/.local" && "$AIRLOCK" exec -- sh -c \
	': >state/airlock/pending/forged && echo wrote; mv state s2 && echo moved' 2>/dev/null)
expect_eq "workdir ~/.local: the state directory cannot be written or moved" "$out" ""
check "workdir ~/.local: nothing forged" test ! -e "$d/dots/.local/state/airlock/pending/forged"
rm "$HOME/.local"

# ---- "~/" in a policy include: libgit2's $HOME, not the policy's home ----
# With $HOME not absolute the hook's home is the passwd entry's: the
# include check read /tmp/X/inc through it, libgit2 read $HOME/tmp/X/inc
# from the current directory, and its reading was kept beside the first
# file's bytes: an edit to the file libgit2 read went unseen.
export XDG_STATE_HOME="$d/state"
x=${d#/}
mkdir -p "$d/wd2/.airlock" "$d/c1/c2/rel" "$d/$x" "$XDG_STATE_HOME"
printf '[include]\n\tpath = ~/../../../%s/inc\n' "$x" >"$d/wd2/.airlock/policy"
printf '[rules]\n\tdeny = Shell(make a)\n' >"$d/inc"
printf '[rules]\n\tdeny = Shell(make b)\n' >"$d/$x/inc"
chmod 600 "$d/wd2/.airlock/policy" "$d/inc" "$d/$x/inc"
# decide_rel COMMAND: the hook's answer in wd2, run from c1/c2 with HOME=rel
decide_rel() {
	jq -cn --arg c "$1" --arg w "$d/wd2" '{session_id: "s", cwd: $w,
		hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command: $c},
		tool_use_id: "t"}' | (cd "$d/c1/c2" && HOME=rel "$AIRLOCK" hook claude 2>/dev/null) |
		jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "relative HOME: the rule libgit2 read holds" "$(decide_rel 'make b')" deny
printf '[rules]\n\tdeny = Shell(make c)\n' >"$d/$x/inc"
expect_eq "relative HOME: an edit to the file libgit2 reads decides the next call" \
	"$(decide_rel 'make c')" deny
expect_eq "relative HOME: the rule it dropped is gone" "$(decide_rel 'make b')" allow
jq -cn '{session_id: "s", cwd: "'"$d/wd2"'", hook_event_name: "PreToolUse", tool_name: "Bash",
	tool_input: {command: "make c"}, tool_use_id: "t"}' >"$d/payload.json"
expect_eq "HOME unset: a \"~/\" include fails the load, the call is denied" \
	"$(cd "$d/c1/c2" && env -u HOME "$AIRLOCK" hook claude <"$d/payload.json" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision)" deny
unset XDG_STATE_HOME XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM GIT_CONFIG_COUNT
# ---- GIT_CONFIG_NOSYSTEM as git reads a boolean ----
# "no", "off" and "00" are false to git, which reads the system config
# then; the guard skipped it, and its core.hooksPath went unguarded: a
# planted pre-commit hook ran at the host's next commit.
printf '[core]\n\thooksPath = .githooks\n' >"$d/sysconfig"
for v in no off 00; do
	r=$d/nosys-$v
	mkdir -p "$r"
	(cd "$r" && git init -q && git config user.name U && git config user.email u@example.org &&
		echo a >a && git add a && git commit -qm a)
	(cd "$r" && GIT_CONFIG_SYSTEM="$d/sysconfig" GIT_CONFIG_NOSYSTEM=$v \
		"$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
	expect_eq "GIT_CONFIG_NOSYSTEM=$v: the system config's hooksPath is guarded" \
		"$(GIT_CONFIG_SYSTEM="$d/sysconfig" GIT_CONFIG_NOSYSTEM=$v commit_ran "$r")" 0
done
# ---- a kept search whose times are far off ----
# A record for a directory the search does not reach again, its mtime
# 2^40 s before 1970: the racy-time test multiplied it into an overflow,
# and a sanitized build stopped the call (found by mutating kept files).
# Not seen on a plain build; now such a time is not racy, and nanoseconds
# out of range make the file amiss.
export XDG_STATE_HOME="$d/state3"
mkdir -p "$XDG_STATE_HOME" "$d/w3/sub"
(cd "$d/w3" && "$AIRLOCK" exec -- true >/dev/null 2>&1)
f=$(find "$XDG_STATE_HOME/airlock/search" -type f | head -n 1)
python3 - "$f" "$d/w3" <<'PY'
import struct, sys
f, wd = sys.argv[1], sys.argv[2].encode()
rec = wd + b'/ghost\0' + struct.pack('<3Q', 1, 1, 0) + struct.pack('<4q', -2**40, 0, 0, 0)
rec += b'\0' + struct.pack('<4I', 0, 0, 0, 0) + b'\0' + struct.pack('<2I', 0, 0)
open(f, 'ab').write(rec)
PY
sleep 3 # past the racy window: the search is kept again after this call
touch "$d/w3/new"
(cd "$d/w3" && "$AIRLOCK" exec -- true >/dev/null 2>&1)
expect_eq "a kept search with a time far off: the call runs" "$?" 0

# ---- the state directory wherever $XDG_STATE_HOME puts it ----
# Under ~/.local/state a Write there was gate tampering; under /tmp it was
# an auto-run write outside the workdir, and the gate's own write_file tool
# (not sandboxed) forged a kept policy reading.
export XDG_STATE_HOME="$d/xs"
mkdir -p "$XDG_STATE_HOME/airlock/policy" "$d/w4"
wcall() { jq -cn --arg p "$1" '{id: 1, tool: "write_file", input: {path: $p, content: "x"}}'; }
verdict() { (cd "$d/w4" && "$AIRLOCK" classify | jq -r '"\(.tier) \(.rules | index("fs.write.gate_config") != null) \(.action)"'); }
expect_eq "write_file into \$XDG_STATE_HOME/airlock: gate tampering, asked" \
	"$(wcall "$XDG_STATE_HOME/airlock/policy/0123456789abcdef" | verdict)" "high true ask"
expect_eq "write_file onto \$XDG_STATE_HOME itself: likewise" \
	"$(wcall "$XDG_STATE_HOME" | verdict)" "high true ask"
expect_eq "write_file beside it: not gate tampering" \
	"$(wcall "$d/other.txt" | verdict | cut -d' ' -f2)" false
unset XDG_STATE_HOME
finish
