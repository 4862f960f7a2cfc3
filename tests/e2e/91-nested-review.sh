#!/bin/sh
# 91-nested-review.sh: what a hostile review of the guard of repositories
# nested in a writable workdir found, through `airlock exec` and the gate.
# Each attack plants what a later host git command runs (core.fsmonitor on
# every outer `git status` once the nested repository is a gitlink, which
# the sandbox can make itself with `git add`); each checks the host after.
. tests/e2e/lib.sh
need git jq
d=$(mktemp -d /tmp/airlock-nested-review.XXXXXX)
trap "[ -n \"${KEEP:-}\" ] || rm -rf $d" EXIT
G="git -c user.email=a@b -c user.name=a -c safe.directory=*"
C='git -c user.email=a@b -c user.name=a'
FSM='git config -f "$1/config" core.bare false && git config -f "$1/config" core.fsmonitor "touch $2"'
# a fresh outer repository, as $d/$1
repo() {
	mkdir -p "$d/$1" && (cd "$d/$1" && git init -q && $G commit -q --allow-empty -m init)
}
# ax DIR SCRIPT ARGS...: airlock exec in $d/DIR
ax() {
	w=$1; shift
	(cd "$d/$w" && "$AIRLOCK" exec -- sh -c "$@") > "$d/out" 2>&1
}
# the host's own git, as a user would run it afterwards
host_status() { $G -C "$d/$1" add -A 2>/dev/null; $G -C "$d/$1" status >/dev/null 2>&1; }

# a sub/.git file naming a directory the run made inside the outer .git:
# nothing checked it (only .git's own table entries and its links are)
repo a
ax a "git init -q --bare .git/evil && sh -c '$FSM' x .git/evil \"\$1\" &&
	mkdir sub && echo 'gitdir: ../.git/evil' > sub/.git && $C -C sub commit -q --allow-empty -m s &&
	git add sub" x "$d/a.m"
host_status a
check "exec: a .git file into .git/evil: no fsmonitor ran" test ! -e "$d/a.m"
check "exec: the config it set went" grep -q 'removed .git/evil/config (it set core.fsmonitor)' "$d/out"

# the same through the gate: the script is medium, run in the sandbox
repo g
printf '%s\n' "git init -q --bare .git/evil && $(printf '%s' "$FSM" | sed 's/\$1/.git\/evil/g; s#\$2#'"$d"'/g.m#')
mkdir sub && echo 'gitdir: ../.git/evil' > sub/.git && $C -C sub commit -q --allow-empty -m s
git add sub" > "$d/g/x.sh"
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"sh x.sh"}}' |
	(cd "$d/g" && "$AIRLOCK" gate --no-tty --db "$d/g.db") > "$d/g.out"
expect_eq "gate: the script ran" "$(jq -r .exit_code "$d/g.out")" 0
host_status g
check "gate: a .git file into .git/evil: no fsmonitor ran" test ! -e "$d/g.m"

# a repository in node_modules, which the search skips, made a gitlink of
# the outer index by the script itself (`git add -f`): the host's git
# enters a gitlink, ignored or not
repo n && echo node_modules/ > "$d/n/.gitignore"
printf '%s\n' "git init -q node_modules/x && $C -C node_modules/x commit -q --allow-empty -m s &&
git -C node_modules/x config core.fsmonitor 'touch $d/n.m' && git add -f node_modules/x" > "$d/n/x.sh"
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"sh x.sh"}}' |
	(cd "$d/n" && "$AIRLOCK" gate --no-tty --db "$d/n.db") > "$d/n.out"
expect_eq "gate: the node_modules script ran" "$(jq -r .exit_code "$d/n.out")" 0
$G -C "$d/n" status >/dev/null 2>&1
check "gate: a gitlink in node_modules: no fsmonitor ran" test ! -e "$d/n.m"

# the same one level down: the gitlink in a nested repository's index
# (the outer `git status` runs `git status` in sub, which enters its own)
repo n2
ax n2 "git init -q sub && git init -q sub/node_modules/x &&
	$C -C sub/node_modules/x commit -q --allow-empty -m s &&
	git -C sub/node_modules/x config core.fsmonitor \"touch \$1\" &&
	git -C sub add -f node_modules/x 2>/dev/null && $C -C sub commit -qm n && git add sub" x "$d/n2.m"
$G -C "$d/n2" status >/dev/null 2>&1
check "exec: a gitlink in a nested repository's node_modules: no fsmonitor ran" test ! -e "$d/n2.m"

# in a linked worktree, its common dir (outside the workdir) is writable:
# a repository made there, named by a sub/.git file
repo l && $G -C "$d/l" worktree add -q "$d/lw" 2>/dev/null
ax lw "c=\$(git rev-parse --git-common-dir) && git init -q --bare \$c/evil &&
	sh -c '$FSM' x \$c/evil \"\$1\" && mkdir sub && echo \"gitdir: \$c/evil\" > sub/.git &&
	$C -C sub commit -q --allow-empty -m s && git add sub" x "$d/l.m"
host_status lw
check "exec: a .git file into the common dir: no fsmonitor ran" test ! -e "$d/l.m"

# an include the sweep's text check missed: a carriage return before its
# "[" (git and libgit2 skip it as a blank), so libgit2 read the config and
# opened the FIFO it names: airlock hung in open(), past SIGTERM
repo i
(cd "$d/i" && timeout -s KILL 20 "$AIRLOCK" exec -- sh -c \
	'git init -q sub && mkfifo f && printf "\r[include]\n\tpath = $PWD/f\n" >> sub/.git/config') \
	> "$d/out" 2>&1
check "exec: a hidden include into a FIFO: airlock did not hang" test "$?" -ne 137
check "exec: the config that held it went" grep -q 'removed sub/.git/config (it set include.path)' "$d/out"

# a directory an earlier call made outside any .git (nothing to check
# then), named by the .git file of a later one: its config is older than
# the later call's note, so it passed as unchanged. Each two-call case
# makes its first call here, and its second after one pause below.
repo b
ax b "git init -q --bare stash && sh -c '$FSM' x stash \"\$1\"" x "$d/b.m"
repo w # for the last case, made now: it must predate its run's note too
git init -q --separate-git-dir="$d/w/.sep" "$d/w/sep" && $G -C "$d/w/sep" config alias.st status
ln -s ../../shared "$d/w/sep/../.sep/shared" # a link of the user's own, as repo(1) makes
git init -q "$d/w/pkgs/sub" && $G -C "$d/w/pkgs/sub" config alias.st status &&
	printf '#!/bin/sh\ntrue\n' > "$d/w/pkgs/sub/.git/hooks/pre-push"

# a link stashed in a nested .git's objects/ab (a loose-object fan-out the
# walk passes over) by one call, and moved to logs/ by the next: it kept
# its change time, so the reflog of the host's next commit there went
# through it; and with more than 64 nested repositories (the plan keeps
# 64 read-only), a hooks directory moved in the same way kept its hook
repo c && git init -q "$d/c/sub" && $G -C "$d/c/sub" commit -q --allow-empty -m s &&
	$G -C "$d/c" add sub 2>/dev/null && $G -C "$d/c" commit -q -m sub
echo "# rc" > "$d/c.rc"
ax c 'mkdir -p sub/.git/objects/ab/logs && ln -s "$1" sub/.git/objects/ab/logs/HEAD' x "$d/c.rc"
repo h && for i in $(seq 10 75); do git init -q "$d/h/r$i"; done
ax h 'for r in r*; do h=$r/.git/objects/ab/hooks; mkdir -p $h &&
	printf "#!/bin/sh\ntouch %s\n" "$1" > $h/post-commit && chmod +x $h/post-commit; done' x "$d/h.m"
sleep 3 # past the note's two seconds back
ax c 'rm -rf sub/.git/logs && mv sub/.git/objects/ab/logs sub/.git/logs'
$G -C "$d/c/sub" commit -q --allow-empty -m '$(touch x)' 2>/dev/null
expect_eq "exec: a link moved into a nested .git took no reflog" "$(cat "$d/c.rc")" "# rc"
ax h 'for r in r*; do rm -rf $r/.git/hooks 2>/dev/null && mv $r/.git/objects/ab/hooks $r/.git/hooks; done; true'
for r in "$d"/h/r*; do $G -C "$r" commit -q --allow-empty -m x 2>/dev/null; done
check "exec: a hooks directory moved into a nested .git ran no hook" test ! -e "$d/h.m"
ax b "mkdir sub && echo 'gitdir: ../stash' > sub/.git && $C -C sub commit -q --allow-empty -m s &&
	git add sub" x "$d/b.m"
host_status b
check "exec: a .git file naming an earlier call's directory: no fsmonitor ran" test ! -e "$d/b.m"

# what stays: git worktree add in the workdir keeps its commondir and
# link back (its config and hooks are the outer repository's); a
# separate git dir made before the run keeps its config; a nested
# repository whose parent the run renames keeps the user's config and
# hooks (on ab7d6d6 it counted as made there, and both went)
ax w "git worktree add -q wt && git -C wt status >/dev/null && echo y > sep/y && git -C sep add y &&
	git -C sep -c user.email=a@b -c user.name=a commit -qm y && mv pkgs libs"
expect_eq "exec: git worktree add and a commit in a separate git dir succeed" "$?" 0
check "exec: the worktree's commondir is kept" test -f "$d/w/.git/worktrees/wt/commondir"
check "exec: the worktree works on the host" $G -C "$d/w/wt" status
expect_eq "exec: the separate git dir's config is kept" "$(git -C "$d/w/sep" config alias.st)" status
check "exec: the user's link in it is kept" test -L "$d/w/.sep/shared"
expect_eq "exec: a moved nested repository keeps its config" "$(git -C "$d/w/libs/sub" config alias.st)" status
check "exec: and its hook" test -f "$d/w/libs/sub/.git/hooks/pre-push"
check "exec: nothing was removed" sh -c '! grep -q removed "$1"' x "$d/out"

finish
