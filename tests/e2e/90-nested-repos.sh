#!/bin/sh
# 90-nested-repos.sh: a repository nested in the workdir is checked as the
# workdir's own .git is, through the gate and through `airlock exec`. Its
# config runs on the host once the outer repository holds it as a gitlink
# (`git add -A` makes one): every outer `git status` runs `git status` in
# it, and core.fsmonitor with that. What the run plants there goes; what
# git init and a commit make stays, and a nested repository that was there
# keeps working.
. tests/e2e/lib.sh
need git jq
d=$(mktemp -d /tmp/airlock-nested.XXXXXX)
trap 'rm -rf "$d"' EXIT
G="git -c user.email=a@b -c user.name=a -c safe.directory=*"
mkdir -p "$d/wd" && (cd "$d/wd" && git init -q && $G commit -q --allow-empty -m init) || exit 1
M="$d/pwned"

# through the gate: a script (medium, run in the sandbox) makes a nested
# repository with core.fsmonitor set; the result says it went
cat > "$d/wd/setup.sh" <<SH
git init -q sub && git -C sub -c user.email=a@b -c user.name=a commit -q --allow-empty -m s
printf '[core]\n\tfsmonitor = touch $M\n' >> sub/.git/config
SH
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"sh setup.sh"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/g.db") > "$d/g.out"
expect_eq "gate: the script ran" "$(jq -r .exit_code "$d/g.out")" 0
check "gate: the result names the config that went" \
	grep -q 'removed sub/.git/config (it set core.fsmonitor)' "$d/g.out"
$G -C "$d/wd" add -A 2>/dev/null
$G -C "$d/wd" status >/dev/null 2>&1
check "gate: the outer git status ran no fsmonitor" test ! -e "$M"
check "gate: the nested repository is still one" test -d "$d/wd/sub/.git/objects"

# airlock exec: git init and a commit in a subdirectory keep their config
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c \
	'git init -q lib && git -C lib -c user.email=a@b -c user.name=a commit -q --allow-empty -m l &&
	 git -C lib remote add origin https://example.org/lib.git') > "$d/e.out" 2>&1
expect_eq "exec: git init in a subdirectory succeeds" "$?" 0
expect_eq "exec: its config is kept" "$(git -C "$d/wd/lib" config remote.origin.url)" \
	https://example.org/lib.git
check "exec: nothing was removed" sh -c '! grep -q removed "$1"' x "$d/e.out"

# a nested repository that was there: a commit in it succeeds, its config
# and hooks stay as they were, and a hook planted is refused
$G -C "$d/wd" add lib 2>/dev/null && $G -C "$d/wd" commit -q -m lib
conf=$(md5sum < "$d/wd/lib/.git/config")
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c \
	'echo x > lib/f && git -C lib add f && git -C lib -c user.email=a@b -c user.name=a commit -qm f &&
	 { printf "#!/bin/sh\ntouch $1\n" > lib/.git/hooks/post-commit; git -C lib config alias.x "!touch $1"; true; }' \
	x "$M") > "$d/e2.out" 2>&1
expect_eq "exec: a commit in the nested repository succeeds" "$(git -C "$d/wd/lib" log -1 --format=%s)" f
expect_eq "exec: its config is unchanged" "$(md5sum < "$d/wd/lib/.git/config")" "$conf"
check "exec: no hook was planted" test ! -e "$d/wd/lib/.git/hooks/post-commit"
$G -C "$d/wd" status >/dev/null 2>&1
$G -C "$d/wd/lib" commit -q --allow-empty -m y 2>/dev/null
check "exec: nothing ran on the host" test ! -e "$M"

finish
