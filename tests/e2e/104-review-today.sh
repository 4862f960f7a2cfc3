#!/bin/sh
# 104-review-today.sh: a hostile review of three features of 3677942 (the
# credential cut of repository configs, deny = Read/Edit globs held by the
# sandbox, a hook's ask rewritten into the sandbox). Each check here failed
# on 3677942 and passes with the fix its commit describes.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need git jq
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME
export HOME="$d/home"
mkdir -p "$HOME"
TOK=ghs_abcdefghijklmnopqrstuvwxyz0123456789
no_tok() { ! printf '%s' "$1" | grep -q "$TOK"; }
has() { printf '%s' "$1" | grep -q -e "$2"; }    # has TEXT PATTERN
hasnt() { ! printf '%s' "$1" | grep -q -e "$2"; } # hasnt TEXT PATTERN

# 1. a .git that is not a directory: a link to the git directory (the
# `repo` tool's layout), a nested repository's link, and a nested
# repository whose .git file names a git directory elsewhere in the
# workdir (git init --separate-git-dir): their configs were shown uncut
git init -q "$d/ln"
cd "$d/ln" || exit 1
mv .git .realgit
ln -s .realgit .git
git remote add origin "https://u:$TOK@example.com/top"
git init -q "$d/g2"
mv "$d/g2/.git" .g2
mkdir sub2
ln -s ../.g2 sub2/.git
git -C sub2 remote add origin "https://u:$TOK@example.com/sub2"
mkdir store
git init -q --separate-git-dir="$d/ln/store/x" sub
git -C sub remote add origin "https://u:$TOK@example.com/sub"
out=$("$AIRLOCK" exec -- sh -c 'cat .git/config sub2/.git/config store/x/config' 2>&1)
check "a .git link, a nested .git link, a nested .git file: no credential shows" no_tok "$out"
expect_eq "... the files are there, cut" "$(printf '%s\n' "$out" | grep -c 'REDACTED@example.com')" 3
expect_eq "... git reads the cut copy" "$("$AIRLOCK" exec -- git -C sub remote get-url origin)" \
	"https://REDACTED@example.com/sub"

# 2. shapes git reads through and the cut did not: quotes inside a URL's
# user information, a backslash continuing the line inside it, and in a
# CRLF file an extraheader continued onto its next line
git init -q "$d/q"
cd "$d/q" || exit 1
PW=plainpassw0rdvalue # no token shape: only the URL's form says it is one
printf '[remote "a"]\n\turl = https://u:"%s"@example.com/a\n' "$PW" >>.git/config
printf '[remote "b"]\n\turl = https://u\\\n:%s@example.com/b\n' "$PW" >>.git/config
check "the host's git reads the password (the test's premise)" sh -c "git remote get-url a | grep -q '$PW' && git remote get-url b | grep -q '$PW'"
out=$("$AIRLOCK" exec -- sh -c 'cat .git/config; git remote get-url a; git remote get-url b' 2>&1)
check "quotes or a continuation in a URL: no credential shows" hasnt "$out" "$PW"
check "... the copy says why it shows nothing" has "$out" 'could not be cut for sure'
expect_eq "... git still works on it" "$("$AIRLOCK" exec -- git rev-parse --is-inside-work-tree)" true
git init -q "$d/crlf"
printf '[http]\r\n\textraheader = AUTHORIZATION: basic \\\r\nCRLFHEADERSECRET\r\n' >>"$d/crlf/.git/config"
check "CRLF: the host's git reads the header whole (premise)" sh -c "git -C '$d/crlf' config http.extraheader | grep -q CRLFHEADERSECRET"
out=$(cd "$d/crlf" && "$AIRLOCK" exec -- cat .git/config 2>&1)
check "CRLF: a continued extraheader is cut whole" hasnt "$out" CRLFHEADERSECRET

# 3. a hook's ask under a tier whose profile is none: the prompt Claude
# Code shows a person said the command "runs in airlock's sandbox
# (profile none)"; none is no sandbox at all
mkdir -p "$d/hk"
printf '[tier "medium"]\n\taction = ask\n\tprofile = none\n' >"$d/hk.policy"
chmod 600 "$d/hk.policy"
out=$(jq -nc --arg w "$d/hk" '{cwd:$w, hook_event_name:"PreToolUse", tool_name:"Bash", tool_input:{command:"rm -rf build"}}' |
	CLAUDE_PROJECT_DIR="$d/hk" "$AIRLOCK" hook claude --db "$d/hk.db" --policy "$d/hk.policy" 2>/dev/null)
expect_eq "hook ask, profile none: handed to Claude Code" \
	"$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" ask
why=$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecisionReason)
check "hook ask, profile none: the prompt does not promise a sandbox" hasnt "$why" "in airlock's sandbox"
check "hook ask, profile none: it says there is none" has "$why" 'NO sandbox (profile none)'

# 4. deny = Edit(<glob>): the kept file is read-only, but the directory
# holding it could be renamed and a new one made with a new file in its
# place; the same for a path an Edit rule names whole
mkdir -p "$d/e/.airlock" "$d/e/sub" "$d/e/whole"
cd "$d/e" || exit 1
echo OLD >sub/yarn.lock
echo OLD >whole/keep.txt
printf '[rules]\ndeny = Edit(**/*.lock)\ndeny = Edit(whole/keep.txt)\n' >.airlock/policy
chmod 600 .airlock/policy
"$AIRLOCK" exec --profile workspace -- sh -c 'mv sub sub.old; mkdir -p sub; echo EVIL >sub/yarn.lock
mv whole whole.old; mkdir -p whole; echo EVIL >whole/keep.txt; echo ok >sub/other' >/dev/null 2>&1
expect_eq "Edit glob: the kept file was not replaced through its directory" "$(cat sub/yarn.lock)" OLD
expect_eq "Edit path: nor one a rule names whole" "$(cat whole/keep.txt)" OLD
expect_eq "... the directory is still writable" "$(cat sub/other 2>&1)" ok
# a kept file with another hard link was written through that name
echo OLD >h.lock
ln h.lock h.txt
out=$("$AIRLOCK" exec --profile workspace -- sh -c 'echo EVIL >h.txt' 2>&1)
expect_eq "Edit glob: a kept file is not written through another hard link" "$(cat h.lock)" OLD
check "... the call fails, saying why" has "$out" 'another hard link'
rm h.txt h.lock

# 5. a linked worktree's own config (git config --worktree) lies in the
# main repository's .git/worktrees/NAME/config.worktree, in its workdir
git init -q "$d/m"
cd "$d/m" || exit 1
git -c user.name=T -c user.email=t@e commit -q --allow-empty -m one
git worktree add -q "$d/mwt" 2>/dev/null
git config extensions.worktreeConfig true
git -C "$d/mwt" config --worktree http.extraheader "AUTHORIZATION: basic WTSECRETWTSECRET"
out=$("$AIRLOCK" exec -- cat .git/worktrees/mwt/config.worktree 2>&1)
check "a worktree's config.worktree in the workdir: cut" has "$out" 'extraheader = \[REDACTED:extraheader\]'
check "... its secret not shown" hasnt "$out" WTSECRET

# 6. a file the repository config includes from the workdir (include.path
# = ../.gitconfig.local): git reads the remote's token from it
git init -q "$d/inc"
cd "$d/inc" || exit 1
printf '[remote "origin"]\n\turl = https://u:%s@example.com/inc\n' "$TOK" >.gitconfig.local
git config include.path ../.gitconfig.local
out=$("$AIRLOCK" exec -- sh -c 'git remote get-url origin; cat .gitconfig.local' 2>&1)
check "an included file in the workdir: no credential shows" no_tok "$out"
expect_eq "... git reads the cut remote" "$("$AIRLOCK" exec -- git remote get-url origin)" \
	"https://REDACTED@example.com/inc"

# 7. an inline credential helper printing its password in a spelling no
# shape knows (printf "password=%s" VALUE, a base64 of it)
git init -q "$d/ch"
cd "$d/ch" || exit 1
git config credential.helper '!f() { printf "password=%s\n" s3cr3tinline; }; f'
git config credential.https://example.com.helper '!f() { echo "password=$(echo czNjcjN0aW5saW5lMg== | base64 -d)"; }; f'
out=$("$AIRLOCK" exec -- cat .git/config 2>&1)
check "an inline credential helper: its password not shown" hasnt "$out" s3cr3tinline
check "... nor its base64" hasnt "$out" czNjcjN0aW5saW5lMg
check "... the helper cut whole" has "$out" 'helper = \[REDACTED:credential-helper\]'

finish
