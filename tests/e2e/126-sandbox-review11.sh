#!/bin/sh
# 126-sandbox-review11.sh: what the eleventh hostile review of the sandbox
# found, each failing before its fix: a readonly call that took every
# inotify instance and watch of the caller's uid (the kernel counts them
# per user across namespaces, and the sandbox's namespace set no cap of
# its own), so the host could make none while it ran, and likewise every
# signal the uid may have pending (sigqueue, timer_create) and all the
# SysV shared memory it may lock (SHM_LOCK, as nobody); a read-write
# grant holding a directory on the caller's PATH (~/.cargo/bin), where a
# call planted a `git` the user's shell ran; and the hints of a
# sandbox that could not be built for want of descriptors or processes,
# which blamed user namespaces, memfd_noexec or a vanished grant.
. tests/e2e/lib.sh
need python3 prlimit
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME" "$d/wd"

# ---- inotify: the host keeps most of the caller's instances ----
host_max=$(cat /proc/sys/fs/inotify/max_user_instances)
(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- python3 -c 'import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < 100000 and libc.inotify_init1(0) >= 0:
    n += 1
print(n, flush=True)
time.sleep(4)' >"$d/ino.out" 2>&1) &
call=$!
i=0 && while [ ! -s "$d/ino.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
host=$(python3 -c 'import ctypes
print("made" if ctypes.CDLL(None).inotify_init1(0) >= 0 else "refused")')
wait $call
taken=$(head -1 "$d/ino.out")
check "the call took some instances" test "${taken:-0}" -gt 0
check "the call took at most a quarter of the caller's $host_max" test "${taken:-0}" -le $((host_max / 4))
expect_eq "the host could make an inotify instance while the call ran" "$host" made
r=$(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- sh -c \
	'{ echo 9 >/proc/sys/user/max_inotify_instances; } 2>/dev/null || echo refused
cat /proc/sys/user/max_user_namespaces')
expect_eq "the command cannot raise or lower the caps, and nests no user namespace" \
	"$(echo "$r" | tr '\n' ' ')" "refused 0 "

# ---- pending signals: the host keeps most of the caller's quota ----
sq='import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
rt = list(range(signal.SIGRTMIN, signal.SIGRTMAX + 1))
signal.pthread_sigmask(signal.SIG_BLOCK, rt)
n, want = 0, int(sys.argv[1])
while n < want and libc.sigqueue(os.getpid(), rt[n % len(rt)], 0) == 0:
    n += 1
print(n, flush=True)
time.sleep(float(sys.argv[2]))'
quota=$(python3 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_SIGPENDING)[0])')
(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- python3 -c "$sq" 10000000 4 >"$d/sig.out" 2>&1) &
call=$!
i=0 && while [ ! -s "$d/sig.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
host=$(python3 -c "$sq" 1 0)
wait $call
taken=$(head -1 "$d/sig.out")
check "the call queued some signals" test "${taken:-0}" -gt 0
check "the call queued at most a quarter of the caller's $quota" test "${taken:-0}" -le $((quota / 4))
expect_eq "the host could queue a signal while the call ran" "$host" 1

# ---- locked shared memory (SHM_LOCK): the host keeps most of the uid's ----
# as nobody: root may lock without limit (CAP_IPC_LOCK) on the host
shm='import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < int(sys.argv[1]):
    i = libc.shmget(0, 1 << 20, 0o1600)
    if i < 0:
        break
    ok = libc.shmctl(i, 11, None) == 0
    if not ok or sys.argv[2] == "0":
        libc.shmctl(i, 0, None)
    if not ok:
        break
    n += 1
print(n, flush=True)
time.sleep(float(sys.argv[2]))'
# nb_bin: a copy of the binary uid 65534 can run wherever the tree lives (a
# clone under a 0700 directory, as mktemp -d makes, cannot be entered)
nb_bin() {
	mkdir -p "$d/nb-bin" && cp "$AIRLOCK" "$d/nb-bin/airlock" && chmod 755 "$d/nb-bin" "$d/nb-bin/airlock"
}
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	nb() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$d/nb/home" "$@"; }
	mkdir -p "$d/nb/wd" "$d/nb/home" && chown -R 65534:65534 "$d/nb" && chmod 755 "$d"
	nb_bin
	(cd "$d/nb/wd" && nb "$d/nb-bin/airlock" exec --profile readonly -- python3 -c "$shm" 100000 4 \
		>"$d/shm.out" 2>&1) &
	call=$!
	i=0 && while [ ! -s "$d/shm.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	host=$(cd "$d/nb/wd" && nb python3 -c "$shm" 1 0)
	wait $call
	check "the call locked some shared memory" test "$(head -1 "$d/shm.out")" -gt 0
	expect_eq "the host could lock shared memory while the call ran" "$host" 1
fi

# ---- a read-write grant that holds directories on the caller's PATH ----
g="$d/home/.cargo" && mkdir -p "$g/bin" "$g/share" "$d/wk"
printf '[profile "wk"]\nworkdir = rw\nread-write = %s\n' "$g" >"$d/wk.policy"
plant='for p in "$@"; do mkdir -p "$p" 2>/dev/null; echo "touch ran" >"$p/git" 2>/dev/null; done
mv "$1" "$1.old" 2>/dev/null && mkdir "$1" && echo "touch ran" >"$1/git"
mv "$2/../.." "$2/../../../moved" 2>/dev/null && mkdir -p "$2" && echo "touch ran" >"$2/git"
echo "kept" >"$3/kept"'
(cd "$d/wk" && PATH="$g/bin:$g/share/x/bin:$PATH" "$AIRLOCK" exec --policy "$d/wk.policy" \
	--profile wk -- sh -c "$plant" sh "$g/bin" "$g/share/x/bin" "$g" >/dev/null 2>&1)
check "nothing planted in a PATH directory the grant holds" test ! -e "$g/bin/git"
check "nor in one the call could have made" test ! -e "$g/share/x/bin/git"
check "nor by moving one away" test ! -e "$g/bin.old/git" -a ! -e "$g/moved/x/bin/git"
check "the rest of the grant stays writable" test -f "$g/kept"
printf '[profile "wk"]\nworkdir = rw\nread-write = %s\n' "$g/bin" >"$d/wk2.policy"
(cd "$d/wk" && PATH="$g/bin:$PATH" "$AIRLOCK" exec --policy "$d/wk2.policy" --profile wk -- \
	sh -c "$plant" sh "$g/bin" >/dev/null 2>&1)
check "nor in a grant that is a PATH directory itself" test ! -e "$g/bin/git"
mkdir "$g/real" && ln -s real "$g/lnk"
(cd "$d/wk" && PATH="$g/lnk:$PATH" "$AIRLOCK" exec --policy "$d/wk.policy" --profile wk -- \
	sh -c 'rm "$1" && mkdir "$1" && echo "touch ran" >"$1/git"' sh "$g/lnk" >/dev/null 2>&1)
expect_eq "a PATH entry through a link in the grant fails the call" "$?" 125
check "and nothing is planted through it" test -L "$g/lnk" -a ! -e "$g/real/git"

# ---- hints when descriptors or processes run out ----
for n in 8 20; do
	r=$(cd "$d/wd" && prlimit --nofile=$n "$AIRLOCK" exec --profile readonly -- true 2>&1)
	expect_eq "with $n descriptors: exit 125" "$?" 125
	case "$r" in
	*"ran out of file descriptors"*) ok=yes ;;
	*) ok="no: $r" ;;
	esac
	expect_eq "with $n descriptors: the hint names descriptors" "$ok" yes
done
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$d/nb/wd" "$d/nb/home" && chown -R 65534:65534 "$d/nb" && chmod 755 "$d"
	nb_bin
	r=$(cd "$d/nb/wd" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$d/nb/home" \
		prlimit --nproc=1 "$d/nb-bin/airlock" exec --profile readonly -- true 2>&1)
	case "$r" in
	*"process limit"*) ok=yes ;;
	*) ok="no: $r" ;;
	esac
	expect_eq "out of processes: the hint names the process limit, not user namespaces" "$ok" yes
fi

finish
