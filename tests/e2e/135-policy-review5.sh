#!/bin/sh
# 135-policy-review5.sh: what a fifth hostile review of the policy layer
# found, through the real binary: each case a way a policy file (a cloned
# repository's, or an agent's write) made the policy weaker than the user
# wrote, or a load hang, each failing on 2da832f before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq mkfifo timeout
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME/.config/airlock" "$d/wd/.airlock"
: >"$HOME/.config/airlock/policy"
chmod 600 "$HOME/.config/airlock/policy"
# project TEXT: the workdir's .airlock/policy (printf format)
project() {
	printf "$1" >"$d/wd/.airlock/policy"
}
# check_policy: `airlock policy check` in the workdir, 20 s at most; $out, $rc
check_policy() {
	out=$(cd "$d/wd" && timeout 20 "$AIRLOCK" policy check 2>&1)
	rc=$?
}
said() { printf '%s' "$out" | grep -q "$1"; }
# action NAME CMD WANT: the action classify decides for the shell command CMD
action() { expect_eq "$1" "$(shell_field "$2" .action)" "$3"; }

# --- 1. includes the scan did not see ------------------------------------------
# Includes are checked before libgit2 opens them (a FIFO blocks its open for
# ever; a file others may write is refused). The check followed `path` only
# in a section it took for [include], and libgit2 reads two it did not:
# after a header whose quoted name holds ']' ("[rules \"a]b\"] [include]
# path = x": the scan ended the header at the first ']'), and after a
# value continued with a backslash, which makes the next "[rules]" line
# value text. Each hung every load on a FIFO, and read an included file
# unchecked and unguarded.
mkfifo "$d/fifo"
project "[rules \"a]b\"] [include] path = $d/fifo\n"
check_policy
expect_eq "include after a header holding ']': a FIFO refused, not a hang" "$rc" 2
check "include after a header holding ']': said" said 'fifo: not a regular file'
project "[include]\n\tx = a\\\\\n[rules]\n\tpath = $d/fifo\n"
check_policy
expect_eq "include after a continued value: a FIFO refused, not a hang" "$rc" 2
check "include after a continued value: said" said 'fifo: not a regular file'
printf '[rules]\n\tdeny = Shell(curl *)\n' >"$d/open.policy"
chmod 666 "$d/open.policy"
project "[rules \"a]b\"] [include] path = $d/open.policy\n"
check_policy
check "hidden include anyone may write: refused" said 'unsafe permissions 0666'
# The project's deny rules kept in rules.inc: a write to it is a write to
# the policy (at least high); unseen, an auto-run write_file removed them.
printf '[rules]\n\tdeny = Shell(curl *)\n' >"$d/wd/rules.inc"
project "[rules \"a]b\"] [include] path = ../rules.inc\n"
act=$(call_field '{"tool":"write_file","input":{"path":"rules.inc","content":"[rules]\n"}}' .action)
expect_eq "a write to a hidden include: not auto-run" "$act" ask

# --- 2. a * glued to a rule's last word ----------------------------------------
# Claude Code's `*` spans words (Bash(git push*) is git push and anything
# after), and its deny list is what people paste. Here such a word was a
# glob for one word: `deny = Bash(cat*)` loaded, `policy check` said ok,
# and `cat notes.txt` (two words) ran. Deny and ask rules now take the
# words after it too; an allow stays as literal as before.
project ''
printf '[rules]\n\tdeny = Bash(cat*)\n\task = Shell(npm run test*)\n\tallow = Shell(make*)\n' \
	>"$HOME/.config/airlock/policy"
action "deny = Bash(cat*): cat notes.txt denied" \
	'cat notes.txt' deny
action "ask = Shell(npm run test*): npm run test --watch asks" \
	'npm run test --watch' ask
action "deny = Bash(cat*): tac not denied" \
	'tac notes.txt' auto
action "allow = Shell(make*): make install not allowed" \
	'make install' ask
# The man page's guard for a credential's variable named in the words
# (git push origin HEAD:refs/heads/$GITHUB_TOKEN -f): its last word spans.
printf '[rules]\n\tallow = Shell(git push origin *)\n\tdeny = Shell(* *GITHUB_TOKEN*)\n' \
	>"$HOME/.config/airlock/policy"
action "deny = Shell(* *GITHUB_TOKEN*): a later word does not hide it" \
	'git push origin "HEAD:refs/heads/${GITHUB_TOKEN}" -f' deny
action "deny = Shell(* *GITHUB_TOKEN*): a plain push still allowed" \
	'git push origin main' auto
: >"$HOME/.config/airlock/policy"

# --- 3. show naming a project as a grant's origin -----------------------------
# A project file restating the user's grant (which it could not have made:
# it may not add one) took the grant's origin, and `policy show` said the
# write grant outside the workdir came from the cloned repository.
mkdir -p "$d/cache"
printf '[profile "workspace"]\n\tread-write = %s/cache\n\tnetwork = true\n' "$d" \
	>"$HOME/.config/airlock/policy"
project "[profile \"workspace\"]\n\tread-write = $d/cache\n\tnetwork = true\n\tmemory = 1g\n"
out=$(cd "$d/wd" && "$AIRLOCK" policy show 2>&1)
check "show: a restated grant's origin is the user file" \
	said "read-write = $d/cache	# $HOME/.config/airlock/policy"
check "show: restated network = true: the user file" \
	said "network = true	# $HOME/.config/airlock/policy"
check "show: the project's own memory = 1g: the project" \
	said "memory = 1g	# $d/wd/.airlock/policy"
: >"$HOME/.config/airlock/policy"
project ''

# --- 4. double quotes git-config takes out of a pattern -----------------------
# `deny = Shell(cat "my file")` was read as Shell(cat my file), three
# words: `cat "my file"` ran and `policy check` said ok. A quoted part
# holding a blank or a glob character is an error now; quotes around the
# whole value with escaped inner ones mean what they say.
printf 'x' >"$d/wd/my file"
printf '[rules]\n\tdeny = Shell(cat "my file")\n' >"$HOME/.config/airlock/policy"
check_policy
expect_eq "deny = Shell(cat \"my file\"): policy check fails" "$rc" 2
check "deny = Shell(cat \"my file\"): says why" said 'git-config takes out the double quotes'
printf '[rules]\n\tdeny = "Shell(cat \\"my file\\")"\n' >"$HOME/.config/airlock/policy"
action "deny written with escaped quotes: cat \"my file\" denied" \
	'cat "my file"' deny
: >"$HOME/.config/airlock/policy"

# --- 5. policy check of a project file names what the gate ignores -------
# `airlock policy check DIR/.airlock/policy` checked it as a trusted
# --policy file: "ok" with no word that its allow rules and a profile's
# network = true are ignored in a workdir (reproduced on d5c9284). It is
# checked as the gate reads it now, with DIR as the workdir.
mkdir -p "$d/pj/.airlock"
printf '[rules]\n\tallow = Shell(rm:*)\n[profile "workspace"]\n\tnetwork = true\n' \
	>"$d/pj/.airlock/policy"
chmod 600 "$d/pj/.airlock/policy"
"$AIRLOCK" policy check "$d/pj/.airlock/policy" >"$d/pj.out" 2>&1
expect_eq "policy check DIR/.airlock/policy: still ok" "$?" 0
check "policy check DIR/.airlock/policy: its allow rule is ignored, and says so" \
	grep -q 'allow = Shell(rm:\*) ignored: a project file' "$d/pj.out"
check "policy check DIR/.airlock/policy: and its network = true" \
	grep -q 'network = true ignored' "$d/pj.out"
"$AIRLOCK" policy check "$HOME/.config/airlock/policy" >"$d/user.out" 2>&1
check "policy check of another file: as before" grep -q ': ok$' "$d/user.out"

finish
