#!/bin/sh
# 103-git-credentials.sh: the credentials a repository's config holds are
# cut from what the sandbox shows (exec/gitcreds.c). A remote's URL with a
# token (`git clone https://x-access-token:TOKEN@...`, an Azure DevOps PAT
# as the user name), the Authorization header actions/checkout leaves in
# http.extraheader, a password by name: `cat .git/config` in an auto-run
# sandbox printed them to the agent. Checked in the workdir's own repository,
# a nested one, a submodule's git directory, a linked worktree's common
# config and through the gate; a profile that shows secrets (approved) shows
# the file as it is, and git still works on the copy.
. tests/e2e/lib.sh
need git jq
tmpdir_make
d=$T_DIR
export HOME="$d/home"
mkdir -p "$HOME"
unset XDG_STATE_HOME
TOK=ghs_abcdefghijklmnopqrstuvwxyz0123456789
PAT=azurepatazurepatazurepat0123

git init -q "$d/w"
cd "$d/w" || exit 1
git remote add origin "https://x-access-token:$TOK@github.com/o/r"
git remote add azure "https://$PAT@dev.azure.com/org/_git/r"
git config http.https://github.com/.extraheader "AUTHORIZATION: basic SEADERSECRETSEADERSECRET"
git config sendemail.smtpPass hunter2smtp
git config user.name Tester
git config user.email t@example.com
echo one >f
git add f
git commit -q -m one

leaks() { # exits 0 when a secret of the config shows in "$1"
	printf '%s' "$1" | grep -q -e "$TOK" -e "$PAT" -e SEADERSECRET -e hunter2smtp
}
shown=$("$AIRLOCK" exec -- cat .git/config)
check "the host's config holds them (the test's premise)" leaks "$(cat .git/config)"
check "readonly: cat .git/config shows no credential" sh -c "! printf '%s' '$shown' | grep -q -e '$TOK' -e '$PAT' -e SEADERSECRET -e hunter2smtp"
expect_eq "readonly: the remote's URL is there, its user information cut" \
	"$("$AIRLOCK" exec -- git remote get-url origin)" "https://REDACTED@github.com/o/r"
expect_eq "readonly: a token as the user name is cut" \
	"$("$AIRLOCK" exec -- git remote get-url azure)" "https://REDACTED@dev.azure.com/org/_git/r"
expect_eq "readonly: the extraheader's value is cut" \
	"$("$AIRLOCK" exec -- git config http.https://github.com/.extraheader)" "[REDACTED:extraheader]"
expect_eq "readonly: git reads the rest: user.name" "$("$AIRLOCK" exec -- git config user.name)" Tester
expect_eq "readonly: git log works on the copy" "$("$AIRLOCK" exec -- git log --format=%s)" one
check "readonly: grep -r finds no token in .git" sh -c "! '$AIRLOCK' exec -- grep -r -e '$TOK' -e SEADERSECRET .git"

# a writable workdir: the copy is read-only and cannot be moved away
out=$("$AIRLOCK" exec --profile workspace -- sh -c 'cat .git/config; echo x >>.git/config; mv .git/config /tmp/c; cp /proc/self/mountinfo /tmp/m; git commit -q --allow-empty -m two && echo committed' 2>&1)
check "workspace: no credential shows" sh -c "! printf '%s' '$out' | grep -q -e '$TOK' -e SEADERSECRET"
check "workspace: the copy cannot be written" sh -c "printf '%s' '$out' | grep -q 'Read-only file system'"
check "workspace: nor moved" sh -c "printf '%s' '$out' | grep -q 'busy'"
check "workspace: a commit still works" sh -c "printf '%s' '$out' | grep -q committed"
check "workspace: the host's config is whole after it" leaks "$(cat .git/config)"
check "workspace: ... and unchanged but for nothing" sh -c "! grep -q REDACTED .git/config"

# a profile that shows secrets shows the file as it is (an approved push needs it)
check "approved: the config is shown whole" leaks "$("$AIRLOCK" exec --profile approved -- cat .git/config)"

# a nested repository and a submodule's git directory (a name with a slash)
git init -q nested
git -C nested remote add origin "https://u:$TOK@example.com/n"
mkdir -p .git/modules/libs/sub
printf 'ref: refs/heads/main\n' >.git/modules/libs/sub/HEAD
printf '[remote "origin"]\n\turl = https://u:%s@example.com/s\n' "$PAT" >.git/modules/libs/sub/config
check "nested: no credential shows" sh -c "! '$AIRLOCK' exec -- cat nested/.git/config | grep -q '$TOK'"
check "submodule git dir: no credential shows" sh -c "! '$AIRLOCK' exec -- cat .git/modules/libs/sub/config | grep -q '$PAT'"
check "submodule git dir: the rest shows" sh -c "'$AIRLOCK' exec -- cat .git/modules/libs/sub/config | grep -q 'REDACTED@example.com/s'"

# a linked worktree: the common config lies outside the workdir, bound whole
git worktree add -q "$d/wt" 2>/dev/null
expect_eq "linked worktree: the common config's URL is cut" \
	"$(cd "$d/wt" && "$AIRLOCK" exec -- git remote get-url origin)" "https://REDACTED@github.com/o/r"

# through the gate: an auto-run call
out=$(printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"cat .git/config"}}' |
	timeout 30 "$AIRLOCK" gate --no-tty --db "$d/g.db" 2>/dev/null)
expect_eq "gate: cat .git/config auto-runs" "$(printf '%s' "$out" | jq -r .decision)" auto
check "gate: ... and shows no credential" sh -c "! printf '%s' '$(printf '%s' "$out" | jq -r .stdout)' | grep -q -e '$TOK' -e SEADERSECRET"
check "gate: ... but the remote" sh -c "printf '%s' '$(printf '%s' "$out" | jq -r .stdout)' | grep -q REDACTED@github.com"

# a clean config is not covered: the sandbox shows the host's file (a
# copy is a file on the stage's tmpfs)
git init -q "$d/clean"
check "clean: the host's own .git/config" sh -c "! (cd '$d/clean' && '$AIRLOCK' exec -- cat /proc/self/mountinfo) | grep -q '/.git/config .* - tmpfs '"
check "with credentials: a copy over .git/config" sh -c "'$AIRLOCK' exec -- cat /proc/self/mountinfo | grep -q '/.git/config .* - tmpfs '"

# a config holding a NUL byte: git stops there; nothing of it is shown
printf '[remote "z"]\n\turl = https://%s@h/r\n\0junk\n' "$PAT" >"$d/clean/.git/config"
out=$(cd "$d/clean" && "$AIRLOCK" exec -- cat .git/config)
check "a NUL byte: nothing of the file shows" sh -c "! printf '%s' '$out' | grep -q '$PAT'"
check "a NUL byte: a note says why" sh -c "printf '%s' '$out' | grep -q 'NUL byte'"

# too large to show cut: the call fails, saying why
git init -q "$d/big"
{ printf '[remote "o"]\n\turl = https://u:%s@h/r\n' "$PAT"; i=0
  while [ $i -lt 3000 ]; do printf '[x "k%d"]\n\tv = %060d\n' $i $i; i=$((i + 1)); done; } >>"$d/big/.git/config"
out=$(cd "$d/big" && "$AIRLOCK" exec -- cat .git/config 2>&1)
check "over 64 KiB with credentials: the call fails" sh -c "! printf '%s' '$out' | grep -q '$PAT'"
check "over 64 KiB with credentials: it says why" sh -c "printf '%s' '$out' | grep -q 'too large to show'"
# clones tools leave in trees the search skips: pip's editable VCS installs
# (.venv/src/NAME) and Terraform's git module sources (.terraform/modules/NAME)
mkdir -p "$d/w/.venv/src" "$d/w/.terraform/modules"
git init -q "$d/w/.venv/src/pkg"
git -C "$d/w/.venv/src/pkg" remote add origin "https://u:$TOK@example.com/p"
git init -q "$d/w/.terraform/modules/net"
git -C "$d/w/.terraform/modules/net" remote add origin "https://$PAT@example.com/n"
out=$(cd "$d/w" && "$AIRLOCK" exec -- cat .venv/src/pkg/.git/config .terraform/modules/net/.git/config)
check "pip's .venv/src clone: no credential shows" sh -c "! printf '%s' '$out' | grep -q -e '$TOK' -e '$PAT'"
check "... the URLs do, cut" sh -c "test \$(printf '%s' '$out' | grep -c 'REDACTED@example.com') = 2"
# the workdir's own .git a file naming a directory inside it
# (git init --separate-git-dir=.gitstore), readonly and writable
git init -q --separate-git-dir="$d/gi/.gitstore" "$d/gi"
git -C "$d/gi" remote add origin "https://u:$TOK@example.com/gi"
for p in readonly workspace; do
	expect_eq "a .git file naming .gitstore ($p): the URL is cut" \
		"$(cd "$d/gi" && "$AIRLOCK" exec --profile $p -- git remote get-url origin)" \
		"https://REDACTED@example.com/gi"
done
# bounded: a call that fills .venv/src with names cannot make every plan slow
(cd "$d/w/.venv/src" && i=0 && while [ $i -lt 520 ]; do mkdir "e$i"; i=$((i + 1)); done)
out=$(cd "$d/w" && "$AIRLOCK" exec -- true 2>&1)
check "520 entries in .venv/src: the call fails, saying why" \
	sh -c "printf '%s' \"\$1\" | grep -q 'more than 512 submodules, worktrees and clones'" _ "$out"
finish
