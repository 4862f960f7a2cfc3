#!/bin/sh
# 100-policy-review3.sh: what a third hostile review of the policy layer
# found, through the real binary: an include hidden from the check that
# runs before libgit2 reads (a BOM, a \v or \f, a second header on the
# line), which hung every call on a FIFO or read a file anyone may write;
# a policy file, its .airlock or an include that is a link to nothing or
# gone, which dropped its rules silently; a project clearing the user's
# read-only grant or choosing a profile without it, which made a path
# inside the writable workdir writable; a profile name that made `policy
# show` print another policy; an included policy file (a linked layer's
# target, the gate's --policy file) that an auto-run write rewrote, up to
# allow-critical = Shell; --policy FILE's tier profile dropped after a
# project's; [profile "Approved"] changing nothing; a deny pattern with one
# `)` too many that denied nothing. Each failed before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
tmpdir_make
d=$T_DIR
export HOME="$d/home"
mkdir -p "$d/wd/.airlock" "$HOME/.config/airlock"
cd "$d/wd" || exit 1
# act CMD: the action classify decides for a shell command here; empty
# when the policy does not load (classify refuses every call then)
act() {
	printf '%s' "$1" | jq -Rsc '{tool:"shell",input:{command:.}}' |
		timeout 10 "$AIRLOCK" classify 2>"$d/err" | jq -r .action 2>/dev/null
}
# chk: `airlock policy check` here; prints its exit code, its output in $d/out
chk() {
	timeout 10 "$AIRLOCK" policy check >"$d/out" 2>&1
	echo "$?"
}
# proj TEXT: the project file (printf format)
proj() {
	rm -f .airlock/policy
	# shellcheck disable=SC2059
	printf "$1" >.airlock/policy
	chmod 600 .airlock/policy
}

# 1. Includes are checked before libgit2 reads anything (a FIFO would hang
# it), by a scan that must find every include libgit2 reads: libgit2 skips
# a UTF-8 BOM, counts \v \f \r as blanks, ends a line at \n only and reads
# on after a header. Each of these hid the include and hung the load.
mkfifo "$d/fifo"
# hidden NAME FORMAT: a project file including the FIFO, hidden as NAME says
hidden() {
	# shellcheck disable=SC2059
	proj "$(printf "$2" "$d/fifo")"
	expect_eq "include behind $1: refused, not a hang" "$(chk)" 2
	check "include behind $1: the FIFO named" grep -q "fifo: not a regular file" "$d/out"
}
hidden "a BOM" '\357\273\277[include]\n\tpath = %s\n'
hidden "a vertical tab before the key" '[include]\n\v path = %s\n'
hidden "a vertical tab before =" '[include]\n\tpath\v= %s\n'
hidden "a carriage return before =" '[include]\n\tpath\r= %s\n'
hidden "a form feed after the path" '[include]\n\tpath = %s\f\n'
hidden "a header before it on the line" '[rules] [include] path = %s\n'
# ... and an include so hidden escaped the permission check: a file anyone
# may write fed the project's rules
printf '[rules]\n\tdeny = Shell(ls *)\n' >"$d/shared"
chmod 666 "$d/shared"
proj "$(printf '\357\273\277[include]\n\tpath = %s\n' "$d/shared")"
expect_eq "hidden include of a world-writable file: refused" "$(chk)" 2
check "hidden include of a world-writable file: named" grep -q "shared: unsafe permissions" "$d/out"
rm -f .airlock/policy

# 2. A policy file that is there but cannot be read fails closed. A link to
# nothing was taken for no file at all: a user file kept in a dotfiles
# checkout, a project file linked to a file of the workdir (moved away by
# a checkout, or by an auto-run mv before section 6), a .airlock linked
# elsewhere.
echo s >secret
mkdir -p "$d/dotfiles"
printf '[rules]\n\tdeny = Read(./secret)\n' >"$d/dotfiles/airlock"
chmod 600 "$d/dotfiles/airlock"
ln -s "$d/dotfiles/airlock" "$HOME/.config/airlock/policy"
expect_eq "user file a link: its deny holds" "$(act 'cat secret')" deny
mv "$d/dotfiles/airlock" "$d/dotfiles/airlock.moved"
expect_eq "user file a link to nothing: the call refused, not run by default" \
	"$(act 'cat secret')" ""
expect_eq "user file a link to nothing: policy check fails" "$(chk)" 2
check "user file a link to nothing: named" grep -q "symbolic link to nothing" "$d/out"
rm -f "$HOME/.config/airlock/policy"

printf '[rules]\n\tdeny = Shell(curl *)\n' >airlock.conf
chmod 600 airlock.conf
rm -f .airlock/policy
ln -s ../airlock.conf .airlock/policy
expect_eq "project file a link: its deny holds" "$(act 'curl http://example.com')" deny
mv airlock.conf old.conf # (an auto-run mv did, before section 6's fix)
expect_eq "project file a link to nothing: the call refused" \
	"$(act 'curl http://example.com')" ""
check "project file a link to nothing: named" grep -q "symbolic link to nothing" "$d/err"
rm -f .airlock/policy
rmdir .airlock
ln -s "$d/elsewhere" .airlock
expect_eq ".airlock a link to nothing: policy check fails" "$(chk)" 2
rm .airlock
mkdir .airlock

# 3. An include that is gone was skipped, as git does: the project's (or
# the user's) rules kept in a file of the workdir went with an auto-run mv.
mkdir -p rules
printf '[rules]\n\tdeny = Shell(curl *)\n' >rules/deny.policy
chmod 600 rules/deny.policy
proj '[include]\n\tpath = ../rules/deny.policy\n'
expect_eq "included deny: holds" "$(act 'curl http://example.com')" deny
mv rules/deny.policy rules/old
expect_eq "included file gone: the call refused" "$(act 'curl http://example.com')" ""
check "included file gone: named" grep -q "deny.policy: cannot read policy file" "$d/err"
rm -f .airlock/policy

# 4. A read-only grant also keeps a path inside the writable workdir (or a
# read-write grant) read-only. A project cleared it (an empty value "only
# removes") or moved the tier to a profile without it, and the sandbox
# wrote there.
mkdir -p vendor
printf '[profile "workspace"]\n\tread-only = %s/vendor\n' "$d/wd" >"$HOME/.config/airlock/policy"
chmod 600 "$HOME/.config/airlock/policy"
timeout 60 "$AIRLOCK" exec --profile workspace -- sh -c 'echo x > vendor/f' >/dev/null 2>&1
check "read-only grant: vendor/ not written" test ! -e vendor/f
proj '[profile "workspace"]\n\tread-only =\n'
timeout 60 "$AIRLOCK" exec --profile workspace -- sh -c 'echo x > vendor/f' >/dev/null 2>&1
check "project clears the read-only grant: vendor/ still not written" test ! -e vendor/f
timeout 10 "$AIRLOCK" policy show >"$d/out" 2>&1
check "project clears the read-only grant: ignored, with a warning" \
	grep -q 'read-only =  ignored' "$d/out"
printf '[tier "medium"]\n\tprofile = guarded\n[profile "guarded"]\n\tworkdir = rw\n\tread-only = %s/vendor\n[profile "open"]\n\tworkdir = rw\n' \
	"$d/wd" >"$HOME/.config/airlock/policy"
proj '[tier "medium"]\n\tprofile = open\n'
timeout 10 "$AIRLOCK" policy show >"$d/out" 2>&1
expect_eq "project moves the tier to a profile without the grant: ignored" \
	"$(sed -n '/^\[tier "medium"\]/,/^\[/s/^	profile = \([a-z]*\).*/\1/p' "$d/out")" guarded
rm -f .airlock/policy "$HOME/.config/airlock/policy"

# 5. `policy show` prints the effective policy, and the audit log keeps a
# digest of that text: a quote in a profile's name (a project may define
# profiles) ended the header early, and the text stood for another policy.
proj '[profile "w\\"]x"]\n\tmemory = 1g\n'
timeout 10 "$AIRLOCK" policy show >"$d/shown" 2>/dev/null
chmod 600 "$d/shown"
check "a quote in a profile's name: show's output reads back" \
	timeout 10 "$AIRLOCK" policy check "$d/shown"
rm -f .airlock/policy

# 6. The classifier knows .airlock/policy and the user file by name; a file
# the policy is read from under another name (an include, the target of a
# linked layer) was an ordinary workdir file: an auto-run write (medium)
# rewrote it, and under trust-project the project then allowed itself
# allow-critical = Shell. A write to such a file, or to a directory on the
# way to it in the workdir, is now at least high and only allow-critical
# lowers it.
printf '[policy]\n\ttrust-project = true\n[rules]\n\tallow = Edit(**)\n' >"$HOME/.config/airlock/policy"
chmod 600 "$HOME/.config/airlock/policy"
mkdir -p rules
printf '[rules]\n\tdeny = Shell(curl *)\n' >rules/deny.policy
chmod 600 rules/deny.policy
proj '[include]\n\tpath = ../rules/deny.policy\n'
expect_eq "trusted include: its deny holds" "$(act 'curl http://example.com')" deny
# incl NAME CMD: CMD writes the include as NAME says, and asks
incl() {
	expect_eq "a write to the include: $1" "$(act "$2")" ask
}
incl "allow-critical by redirection" "printf '[rules]\\n\\tallow-critical = Shell\\n' > rules/deny.policy"
incl "sed -i" 'sed -i s/deny/allow/ rules/deny.policy'
incl "cp over it" 'cp /tmp/x rules/deny.policy'
incl "its directory moved" 'mv rules rules.old'
incl "a link in its place" 'ln -sf /tmp/x rules/deny.policy'
printf '%s' "{\"tool\":\"write_file\",\"input\":{\"path\":\"rules/deny.policy\",\"content\":\"x\"}}" |
	timeout 10 "$AIRLOCK" classify >"$d/out" 2>&1
expect_eq "the include written by a file tool, under allow = Edit(**)" \
	"$(jq -r .action "$d/out")" ask
expect_eq "a write beside it: still auto" "$(act 'echo x > rules.txt')" auto
rm -f .airlock/policy
ln -s ../airlock.conf .airlock/policy
printf '[rules]\n\tdeny = Shell(curl *)\n' >airlock.conf
chmod 600 airlock.conf
expect_eq "a linked project file's target: a write asks" \
	"$(act 'echo "[rules]" > airlock.conf')" ask
expect_eq "a linked project file's target: moving it away asks" \
	"$(act 'mv airlock.conf old.conf')" ask
rm -f .airlock/policy "$HOME/.config/airlock/policy"
# ... and the gate's own --policy FILE kept in the workdir, whose name the
# classifier does not know either
printf '[rules]\n\tdeny = Shell(curl *)\n' >gate.policy
chmod 600 gate.policy
printf '%s' '{"tool":"shell","input":{"command":"echo x > gate.policy"}}' |
	timeout 10 "$AIRLOCK" classify --policy gate.policy >"$d/out" 2>&1
expect_eq "--policy FILE in the workdir: a write to it asks" "$(jq -r .action "$d/out")" ask
rm -f gate.policy

# 7. --policy FILE is the top layer. A project file that chose any tier
# profile before it (even a stricter one) made its choice be checked as a
# project's: dropped as "looser" than the default, so medium ran under
# workspace (a writable workdir) although both files chose a read-only one.
proj '[tier "medium"]\n\tprofile = readonly\n'
printf '[tier "medium"]\n\tprofile = mine\n[profile "mine"]\n\tenv = PATH AWS_REGION\n' >"$d/top.policy"
chmod 600 "$d/top.policy"
timeout 10 "$AIRLOCK" policy show --policy "$d/top.policy" >"$d/out" 2>&1
expect_eq "--policy FILE's tier profile stands over a project's" \
	"$(sed -n '/^\[tier "medium"\]/,/^\[/s/^	profile = \([a-z]*\).*/\1/p' "$d/out")" mine
rm -f .airlock/policy

# 8. Names in quotes are case-sensitive: [profile "Approved"] is a new
# profile no tier uses, and the user's secrets = hide for approved calls
# changed nothing, without a word. policy check says so now.
printf '[profile "Approved"]\n\tsecrets = hide\n' >"$d/case.policy"
chmod 600 "$d/case.policy"
timeout 10 "$AIRLOCK" policy check "$d/case.policy" >"$d/out" 2>&1
check "a profile differing only in case: policy check warns" \
	grep -q 'did you mean \[profile "approved"\]' "$d/out"

# 9. A pattern whose parentheses do not pair loaded as another rule: the
# typo `deny = Bash(rm -rf:*))` was a rule for the word "-rf:*)", and
# `rm -rf x` was only asked about (its tier), while policy check said ok.
printf '[rules]\n\tdeny = Bash(rm -rf:*))\n' >"$d/paren.policy"
chmod 600 "$d/paren.policy"
timeout 10 "$AIRLOCK" policy check "$d/paren.policy" >"$d/out" 2>&1
expect_eq "deny = Bash(rm -rf:*)): policy check fails" "$?" 2
check "deny = Bash(rm -rf:*)): the pattern named" grep -q "parentheses do not pair" "$d/out"

# 10. `airlock exec` took a user policy file that is a link to nothing (or
# whose directory is one) for no file, and ran its built-in profile, where
# the gate and the hook refuse (section 2).
mkdir -p "$d/xh1/.config/airlock" "$d/xh2/.config" "$d/xwd"
ln -s "$d/nowhere" "$d/xh1/.config/airlock/policy"
ln -s "$d/nowhere" "$d/xh2/.config/airlock"
for h in xh1 xh2; do
	(cd "$d/xwd" && HOME="$d/$h" timeout 10 "$AIRLOCK" exec -- true) >"$d/out" 2>&1
	expect_eq "exec with a dangling user policy ($h): refused" "$?" 2
	check "exec with a dangling user policy ($h): says why" grep -q "symbolic link to nothing" "$d/out"
done

# 11. A deny = Read(...) rule was not met by a command that reads the path
# as part of a tree (the review's "left alone" item): `grep -r TOKEN .`
# auto-ran and printed what secret/ and notes.txt hold. The sandbox now
# masks what such a rule names whole; what it does not name still shows.
mkdir -p "$d/hh/.config/airlock" "$d/hw/secret/deep"
echo TOKEN_IN_SECRET >"$d/hw/secret/deep/k.txt"
echo TOKEN_NOTE >"$d/hw/notes.txt"
echo TOKEN_VISIBLE >"$d/hw/ok.txt"
printf '[rules]\n\tdeny = Read(./secret/**)\n\tdeny = Read(./notes.txt)\n' >"$d/hh/.config/airlock/policy"
chmod 600 "$d/hh/.config/airlock/policy"
hcall() {
	printf '%s' "$1" | jq -Rsc '{tool:"shell",input:{command:.}}' |
		(cd "$d/hw" && HOME="$d/hh" timeout 30 "$AIRLOCK" gate --no-tty --db "$d/hide.db") 2>/dev/null
}
out=$(hcall "grep -r TOKEN .")
expect_eq "deny = Read(./secret/**): grep -r . auto-runs" "$(printf '%s\n' "$out" | jq -r .decision)" auto
expect_eq "deny = Read(./secret/**): grep -r . reads only what no rule denies" \
	"$(printf '%s\n' "$out" | jq -r .stdout)" "./ok.txt:TOKEN_VISIBLE"
expect_eq "deny = Read(./secret/**): moving it away auto-runs" \
	"$(hcall "mv secret s2" | jq -r .decision)" auto
check "deny = Read(./secret/**): ... and fails: the masked directory stays" \
	sh -c "test -d '$d/hw/secret/deep' && test ! -e '$d/hw/s2'"
expect_eq "deny = Read(./secret/**): cat of it is still denied by the rule" \
	"$(hcall "cat secret/deep/k.txt" | jq -r .decision)" denied

# 12. The same for deny = Edit(...): a command that writes a whole tree
# (`cp -r x/. .`, `tar xf`) was reported with the tree's root and wrote
# under a denied path. What such a rule names whole is kept read-only.
mkdir -p "$d/kh/.config/airlock" "$d/kw/keep"
echo OLD >"$d/kw/keep/f"
printf '[rules]\n\tdeny = Edit(./keep/**)\n' >"$d/kh/.config/airlock/policy"
chmod 600 "$d/kh/.config/airlock/policy"
out=$(printf '%s' 'mkdir -p /tmp/x/keep && echo NEW > /tmp/x/keep/f && echo hi > /tmp/x/other.txt && cp -r /tmp/x/. .' |
	jq -Rsc '{tool:"shell",input:{command:.}}' |
	(cd "$d/kw" && HOME="$d/kh" timeout 30 "$AIRLOCK" gate --no-tty --db "$d/keep.db") 2>/dev/null)
expect_eq "deny = Edit(./keep/**): cp -r x/. . auto-runs" "$(printf '%s\n' "$out" | jq -r .decision)" auto
expect_eq "deny = Edit(./keep/**): ... writes what no rule denies" "$(cat "$d/kw/other.txt" 2>/dev/null)" hi
expect_eq "deny = Edit(./keep/**): ... but not under keep/" "$(cat "$d/kw/keep/f")" OLD

finish
