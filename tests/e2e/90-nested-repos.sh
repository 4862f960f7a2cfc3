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

# a nested repository made in a directory whose mtime the run put back:
# the search before the run had read that directory, and the one after
# trusted it while its mtime was as read, so the sweep never saw the new
# .git and its core.fsmonitor stayed (on 4784450; `git -C sub2 status`,
# as a shell prompt runs it, ran it). The ctime, which no call can set,
# is checked too now.
mkdir -p "$d/wd/sub2" && touch -d 2020-01-01 "$d/wd/sub2" && sleep 2.2 # old, not racy
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c \
	't=$(stat -c %.9Y sub2); git init -q sub2; git -C sub2 config core.fsmonitor "touch $1";
	 touch -m -d @$t sub2' x "$M") > "$d/e3.out" 2>&1
check "mtime put back: the config that went is named" \
	grep -q 'removed sub2/.git/config (it set core.fsmonitor)' "$d/e3.out"
git -C "$d/wd/sub2" status >/dev/null 2>&1
check "mtime put back: git status in it ran nothing" test ! -e "$M"

finish
