#!/bin/sh
# 116-sandbox-review9.sh: what the ninth hostile review of the sandbox
# found, each failing before its fix: direnv's layout directory (.direnv,
# git-ignored by direnv's own advice) writable and never swept, so a call
# rewrote nix-direnv's cached flake-profile.rc, which the host's direnv
# evals at the next prompt in the project, and planted a `git` in the
# venv's bin that `layout python` puts first on the user's PATH.
. tests/e2e/lib.sh
need git
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME"

# ---- direnv's layout directory ----
w="$d/proj"
git init -q "$w" && mkdir "$w/.direnv"
printf 'use flake\n' >"$w/.envrc"
printf '.direnv\n' >"$w/.gitignore"
echo 'export A=1' >"$w/.direnv/flake-profile.rc"
(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'echo "touch ran" >>.direnv/flake-profile.rc; mkdir -p .direnv/python-3/bin' >/dev/null 2>&1)
expect_eq "a cached flake-profile.rc direnv evals stays as it was" \
	"$(cat "$w/.direnv/flake-profile.rc")" "export A=1"
check "nothing is added to an existing .direnv" test ! -e "$w/.direnv/python-3"
rm -rf "$w/.direnv"
r=$(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'mkdir -p .direnv/python-3/bin
echo "touch ran" >.direnv/flake-profile.rc; echo "touch ran" >.direnv/python-3/bin/git' 2>&1)
check "a .direnv the call made loses the rc direnv would eval" test ! -e "$w/.direnv/flake-profile.rc"
check "a .direnv the call made loses the venv layout python puts on PATH" \
	test ! -e "$w/.direnv/python-3"
expect_eq "the call is told what went" "$(echo "$r" | grep -c 'removed .*\.direnv/')" 1
expect_eq "git status shows none of it" "$(git -C "$w" status --short --untracked-files=all | grep -c direnv)" 0

finish
