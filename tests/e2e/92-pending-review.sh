#!/bin/sh
# 92-pending-review.sh: what a hostile review of the guard's newest parts
# found (the record of a run whose airlock was killed, the config's
# includes and hooksPath, the sequencer's state files), through `airlock
# exec`. Each attack plants what a later host git command runs; each
# checks the host after.
. tests/e2e/lib.sh
need git
d=$(mktemp -d /tmp/airlock-pending-review.XXXXXX)
trap "[ -n \"${KEEP:-}\" ] || rm -rf $d" EXIT
export XDG_STATE_HOME="$d/state" # this script's own pending records
G="git -c user.email=a@b -c user.name=a -c safe.directory=*"
C='git -c user.email=a@b -c user.name=a'
# a repository with two commits on main and one on side, as $d/$1
repo() {
	mkdir -p "$d/$1" && (cd "$d/$1" && git init -q -b main && echo a > f && git add f &&
		$G commit -qm a && echo b >> f && $G commit -qam b &&
		git checkout -q -b side HEAD~1 && echo c > g && git add g && $G commit -qm c &&
		git checkout -q main)
}
# ax DIR SCRIPT ARGS...: airlock exec in $d/DIR
ax() {
	w=$1; shift
	(cd "$d/$w" && "$AIRLOCK" exec -- sh -c "$@") > "$d/out" 2>&1
}
# a program in the workdir that git runs as `git merge-STRATEGY` when the
# strategy is x/../evil: git execs a name with a slash as a path
EVIL='mkdir -p git-merge-x && printf "#!/bin/sh\ntouch %s\nexit 1\n" "$1" > evil && chmod +x evil'

# the merge strategy of a rebase stopped by the run (rebase-merge/strategy):
# git's sequencer runs `git merge-STRATEGY` for each pick on the host's
# `git rebase --continue`, and a strategy with a slash is a path
repo s
ax s "$EVIL && GIT_SEQUENCE_EDITOR='sed -i 1ibreak' $C rebase -q -i side &&
	echo x/../evil > .git/rebase-merge/strategy" x "$d/s.m"
$G -C "$d/s" rebase --continue >/dev/null 2>&1
check "exec: a rebase's strategy file ran nothing on --continue" test ! -e "$d/s.m"
check "exec: the strategy file went" grep -q 'rebase-merge/strategy' "$d/out"

# the same for a cherry-pick stopped on a conflict: sequencer/opts is a
# config file, its options.strategy read on `git cherry-pick --continue`
repo c
(cd "$d/c" && git checkout -q -b s2 side~1 && echo z > f && $G commit -qam z &&
	echo y > h && git add h && $G commit -qm y && git checkout -q main)
ax c "$EVIL && { $C cherry-pick s2~1 s2 >/dev/null 2>&1; true; } &&
	printf '[options]\n\tstrategy = x/../evil\n' > .git/sequencer/opts" x "$d/c.m"
(cd "$d/c" && git checkout -q --theirs f && git add f && $G -c core.editor=true cherry-pick --continue) >/dev/null 2>&1
check "exec: a cherry-pick's options.strategy ran nothing on --continue" test ! -e "$d/c.m"
check "exec: the sequencer's opts went" grep -q 'sequencer/opts' "$d/out"

# a file that a file the repository config includes includes in turn:
# git resolves it from the including file's directory (cfg/b here), and
# reads what an includeIf names, which libgit2 without a repository
# skipped, so neither nested include was kept or swept
# (git runs the last core.fsmonitor only: one repository each)
repo i
mkdir -p "$d/i/cfg" && printf '[include]\n\tpath = b\n' > "$d/i/cfg/a"
git -C "$d/i" config include.path ../cfg/a
ax i 'git config -f cfg/b core.fsmonitor "touch $1"' x "$d/i.m"
$G -C "$d/i" status >/dev/null 2>&1
check "exec: a nested include (cfg/b): no fsmonitor ran" test ! -e "$d/i.m"
repo j
printf '[include]\n\tpath = local.cfg\n' > "$d/j/shared.cfg"
git -C "$d/j" config includeIf.gitdir:/.path ../shared.cfg
ax j 'git config -f local.cfg core.fsmonitor "touch $1"' x "$d/j.m"
$G -C "$d/j" status >/dev/null 2>&1
check "exec: an includeIf's include: no fsmonitor ran" test ! -e "$d/j.m"

# core.hooksPath set in a file an includeIf names: git runs hooks from
# there, and the plan, not knowing it, left the directory writable
repo h
mkdir -p "$d/h/.githooks" && printf '[core]\n\thooksPath = .githooks\n' > "$d/h/shared.cfg"
git -C "$d/h" config includeIf.gitdir:/.path ../shared.cfg
ax h 'printf "#!/bin/sh\ntouch %s\n" "$1" > .githooks/pre-commit; chmod +x .githooks/pre-commit' x "$d/h.m"
$G -C "$d/h" commit -q --allow-empty -m x >/dev/null 2>&1
check "exec: a hook in an includeIf's hooksPath: none ran" test ! -e "$d/h.m"

# the same for a repository nested in the workdir: its core.hooksPath
# (a nested project's husky, .husky/_, git-ignored) and what its config
# includes were neither kept read-only nor swept: only its config and
# .git/hooks were
repo n
(cd "$d/n" && git init -q sub && $G -C sub commit -q --allow-empty -m s &&
	git -C sub config core.hooksPath .husky/_ && mkdir -p sub/.husky/_ sub/tools &&
	git -C sub config include.path ../tools/local.cfg)
ax n 'printf "#!/bin/sh\ntouch %s\n" "$1" > sub/.husky/_/pre-commit; chmod +x sub/.husky/_/pre-commit
	git config -f sub/tools/local.cfg core.fsmonitor "touch $1.f"; true' x "$d/n.m"
$G -C "$d/n/sub" commit -q --allow-empty -m x >/dev/null 2>&1
$G -C "$d/n/sub" status >/dev/null 2>&1
check "exec: a hook in a nested repository's hooksPath: none ran" test ! -e "$d/n.m"
check "exec: a nested repository's include: no fsmonitor ran" test ! -e "$d/n.m.f"

# a .git file the run wrote with a carriage return before its newline:
# git drops both, airlock read the first line and kept the "\r", so where
# it leads resolved to nothing and the sweep passed it by; the host's
# `git status` entered the gitlink and ran its fsmonitor
repo cr
ax cr 'git init -q --bare .evil && git config -f .evil/config core.bare false &&
	git config -f .evil/config core.fsmonitor "touch $1" && mkdir sub &&
	printf "gitdir: ../.evil\r\n" > sub/.git && git -C sub -c user.email=a@b -c user.name=a \
	commit -q --allow-empty -m s && git add sub' x "$d/cr.m"
$G -C "$d/cr" status >/dev/null 2>&1
check "exec: a .git file ending in CRLF: no fsmonitor ran" test ! -e "$d/cr.m"

# a run whose airlock was killed, and its pid taken by another process
# before the next guarded run: the record's writer looked alive (kill(2)
# found the pid), so the record was never taken and what the run planted
# stayed. In a pid namespace of our own, where ns_last_pid hands out the
# pid, as the kernel does anyway once pids wrap (pid_max is 32768 on many
# hosts).
# (sh -c, in the workdir $1: airlock $2 plants .airlock, and is killed;
# its pid in $a)
KILLED='cd "$1" || exit
"$2" exec -- sh -c "mkdir .airlock; echo x > .airlock/policy; touch planted; sleep 60" \
	>/dev/null 2>&1 &
a=$!
for _ in $(seq 100); do [ -e planted ] && break; sleep 0.1; done
kill -9 $a; wait $a 2>/dev/null
'
if unshare -Urpf --mount-proc true 2>/dev/null; then
	mkdir -p "$d/p" && git init -q "$d/p"
	unshare -Urpf --mount-proc sh -c "$KILLED"'
		echo $((a - 1)) > /proc/sys/kernel/ns_last_pid
		sleep 60 & s=$!
		[ "$s" = "$a" ] || echo "pid not reused: $s for $a"
		"$2" exec -- true > "$3" 2>&1
		kill $s' x "$d/p" "$AIRLOCK" "$d/p.out" 2>/dev/null
	check "exec: a killed run's plant is swept though its pid was reused" test ! -e "$d/p/.airlock"
	check "exec: and said so" grep -q 'whose airlock was killed' "$d/p.out"

	# the killed run's record was taken (unlinked) before the recovering
	# run wrote its own; one that could not be written (a full disk; here
	# a directory in its place) left nothing to say a recovery was due,
	# and a kill during it (here in its first rename, held by strace)
	# lost the killed run's span for good
	if command -v strace >/dev/null; then
		mkdir -p "$d/r" && git init -q "$d/r"
		XDG_STATE_HOME="$d/state-r" unshare -Urpf --mount-proc sh -c "$KILLED"'
			key=$(ls "$4" | grep -vx spare | cut -d- -f1)
			for i in $(seq 100 130); do mkdir "$4/$key-$i-0"; done
			echo 99 > /proc/sys/kernel/ns_last_pid
			strace -f -o /dev/null -e inject=renameat,renameat2:delay_enter=4000000 \
				"$2" exec -- true >/dev/null 2>&1 &
			s=$!
			sleep 2
			kill -9 $(ps -o pid= --ppid $s); wait $s
			rmdir "$4"/*-0 2>/dev/null
			"$2" exec -- true > "$3" 2>&1' x "$d/r" "$AIRLOCK" "$d/r.out" "$d/state-r/airlock/pending" 2>/dev/null
		check "exec: a recovery killed before its record was written is done again" test ! -e "$d/r/.airlock"
	fi
else
	echo "skip: no unshare -Urpf here (the pid-reuse case)"
fi

# what stays: a rebase the run stops with one of git's strategies, and a
# cherry-pick's opts without one, continue on the host as before
repo k
ax k "GIT_SEQUENCE_EDITOR='sed -i 1ibreak' $C rebase -q -s resolve -i side"
check "exec: a rebase's own strategy file is kept" grep -qx resolve "$d/k/.git/rebase-merge/strategy"
check "exec: and it continues on the host" $G -C "$d/k" rebase --continue
repo o
(cd "$d/o" && git checkout -q -b s2 side~1 && echo z > f && $G commit -qam z &&
	echo y > h && git add h && $G commit -qm y && git checkout -q main)
ax o "{ $C cherry-pick -x s2~1 s2 >/dev/null 2>&1; true; }"
check "exec: a cherry-pick's opts are kept" grep -q record-origin "$d/o/.git/sequencer/opts"
(cd "$d/o" && git checkout -q --theirs f && git add f && $G -c core.editor=true cherry-pick --continue) >/dev/null 2>&1
expect_eq "exec: and it continues on the host" "$(git -C "$d/o" log --format=%s -1)" y
check "exec: nothing was removed" sh -c '! grep -q removed "$1"' x "$d/out"
# a nested repository's own hooksPath hook and include stay, and a commit
# in it from the sandbox runs that hook as before
repo u
(cd "$d/u" && git init -q sub && git -C sub config core.hooksPath .githooks &&
	mkdir sub/.githooks && printf '#!/bin/sh\ntouch hook-ran\n' > sub/.githooks/pre-commit &&
	chmod +x sub/.githooks/pre-commit && printf '[user]\n\tname = a\n' > sub/local.cfg &&
	git -C sub config include.path ../local.cfg)
sleep 0.2 # past the clock tick of the note: a change in it counts as the run's
ax u "git -C sub -c user.email=a@b commit -q --allow-empty -m s && test -e sub/hook-ran"
expect_eq "exec: a commit in a nested repository with its own hooksPath works" "$?" 0
check "exec: its hook is kept" test -x "$d/u/sub/.githooks/pre-commit"
check "exec: its include is kept" test -f "$d/u/sub/local.cfg"
check "exec: nothing was removed there" sh -c '! grep -q removed "$1"' x "$d/out"

# a link the run made at a path the config includes, leading out of the
# workdir: git follows it on every command (into /dev/zero: every git
# command there failed). It goes; a link of the user's own stays.
repo l
git -C "$d/l" config include.path ../cfg-local
git -C "$d/l" config --add include.path ../cfg-mine
ln -s /dev/null "$d/l/cfg-mine"
sleep 0.2
ax l "ln -s /dev/zero cfg-local"
check "exec: a link out of the workdir at an include path went" test ! -L "$d/l/cfg-local"
check "exec: the host's git works there" $G -C "$d/l" status
check "exec: the user's own include link is kept" test -L "$d/l/cfg-mine"

finish
