#!/bin/sh
# 145-sandbox-review13.sh: what the thirteenth hostile review of the
# sandbox found, each failing before its fix: System V IPC in a call no
# memory cgroup holds (an unprivileged caller on a cgroup v1 host), which
# outlives its process and every mapping until the call ends, so no rlimit
# counted it (1 GiB held in segments the call had unmapped, hundreds of MiB
# in semaphore sets and message queues, all able to grow until the host ran
# out); and RLIMIT_CORE 0, under which a core_pattern that pipes to a
# helper (apport, systemd-coredump) still runs it as root on the host for
# every sandboxed crash: only 1 stops it, and the call could change it;
# a gate capture with output = 0 that held all a call printed in the
# gate's memory; output relayed to a host file past the profile's file
# size, which only
# the sandbox's own writes were held to; a call that planted a
# core.fsmonitor in the user's global git config
# through a read-write grant of ~/.config/git; and a workspace call that
# filled its workdir's file system (fallocated files, written ones, empty
# ones), which RLIMIT_FSIZE, per file, never bounded.
. tests/e2e/lib.sh
need python3 jq
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME" "$d/wd"

# ---- System V IPC with no memory cgroup ----
# python3 -c "$ipc" SEGMENTS MIB SEMS QUEUE: makes SEGMENTS segments of MIB
# MiB, each mapped, filled and unmapped, one set of SEMS semaphores and, when
# QUEUE is 1, a message queue; prints what it made
ipc='import ctypes, ctypes.util, sys
c = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
c.shmat.restype = ctypes.c_void_p
c.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
c.shmdt.argtypes = [ctypes.c_void_p]
n, size, sems, q = int(sys.argv[1]), int(sys.argv[2]) << 20, int(sys.argv[3]), sys.argv[4] == "1"
made = 0
for i in range(n):
    s = c.shmget(0, ctypes.c_size_t(size or 64), 0o1600)
    if s < 0:
        break
    p = c.shmat(s, None, 0)
    ctypes.memset(p, 1, size or 64)
    c.shmdt(ctypes.c_void_p(p))
    made += 1
print("segments", made, "set", c.semget(0, sems, 0o1600) >= 0, "queue", q and c.msgget(0, 0o1600) >= 0)'
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$d/nb/wd" "$d/nb/home" "$d/nb-bin" && chown -R 65534:65534 "$d/nb" && chmod 755 "$d"
	cp "$AIRLOCK" "$d/nb-bin/airlock" && chmod 755 "$d/nb-bin" "$d/nb-bin/airlock"
	nb() { (cd "$d/nb/wd" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$d/nb/home" "$d/nb-bin/airlock" exec --profile readonly -- "$@" 2>&1); }
	expect_eq "nobody: no 64 MiB segment, 64-semaphore set or queue outlives its use" \
		"$(nb python3 -c "$ipc" 3 64 64 1)" "segments 0 set False queue False"
	expect_eq "nobody: PostgreSQL's tiny segment and 17-semaphore sets still work" \
		"$(nb python3 -c "$ipc" 2 0 17 0)" "segments 2 set True queue False"
	expect_eq "nobody: RLIMIT_CORE stays 1 when the call sets 0" \
		"$(nb python3 -c 'import resource as r; r.setrlimit(r.RLIMIT_CORE, (0, 0)); print(r.getrlimit(r.RLIMIT_CORE))')" \
		"(1, 1)"
fi

# ---- RLIMIT_CORE: 1, the one value that stops a piped core_pattern ----
core=$(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- sh -c 'ulimit -c 0 && ulimit -c unlimited &&
grep "core file" /proc/self/limits' 2>&1)
expect_eq "ulimit -c succeeds and changes nothing" "$(echo "$core" | awk '{print $5, $6}')" "1 1"
out=$(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- python3 -c \
	'import resource as r; r.setrlimit(r.RLIMIT_CORE, (0, 0)); print(r.getrlimit(r.RLIMIT_CORE))' 2>&1)
expect_eq "RLIMIT_CORE stays 1 when the call sets 0" "$out" "(1, 1)"
out=$(cd "$d/wd" && prlimit --core=0:0 "$AIRLOCK" exec --profile readonly -- \
	sh -c 'grep "core file" /proc/self/limits' 2>&1)
expect_eq "a caller whose hard limit is 0 still runs, at 0" "$(echo "$out" | awk '{print $5, $6}')" "0 0"

# ---- a stream relayed to a host file: the file size cap holds ----
# airlock exec relays a stdout that leads to a file (so that the command
# cannot reopen it through /proc/self/fd): airlock writes it, and the
# profile's file size, an rlimit of the sandbox's, never held there
printf '[profile "fs"]\nworkdir = rw\nfile-size = 10m\n' >"$d/fs.policy"
(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/fs.policy" --profile fs -- head -c 20000000 /dev/zero \
	>"$d/out.bin" 2>/dev/null)
expect_eq "a relayed stdout stops at the file size cap" "$(stat -c %s "$d/out.bin")" 10485760
(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/fs.policy" --profile fs -- sh -c \
	'head -c 5000000 /dev/zero; echo done >&2' >"$d/out.bin" 2>&1)
expect_eq "one within it is whole" "$? $(stat -c %s "$d/out.bin")" "0 5000005"
rm -f "$d/out.bin"

# ---- the gate's capture with output = 0 ("no limit") ----
# the capture buffer is the gate's, a host process no sandbox cap holds:
# 200 MB printed made it take 1.97 GB; airlock's ceiling now stands in
printf '[profile "readonly"]\noutput = 0\n[profile "workspace"]\noutput = 0\n' >"$d/out.policy"
out=$(printf '%s\n' '{"id":"o","tool":"shell","input":{"command":"head -c 20000000 /dev/zero"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --policy "$d/out.policy" --db "$d/audit.db") |
	jq -c '[(.stdout | length), .truncated]')
expect_eq "output = 0 captures at most airlock's 16 MiB, and says it cut" "$out" "[16777216,true]"

# ---- git's global config in a read-write grant ----
# every git command on the host reads ~/.config/git/config and runs its
# core.fsmonitor: a grant of ~/.config/git let a call plant one there
g="$HOME/.config/git" && mkdir -p "$g" && printf '[user]\n\tname = u\n' >"$g/config"
printf '[profile "g"]\nworkdir = rw\nread-write = %s\n' "$g" >"$d/g.policy"
plant='printf "[core]\n\tfsmonitor = touch %s/ran\n" "$1" >>"$HOME/.config/git/config"
echo kept >"$HOME/.config/git/ignore"'
(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/g.policy" --profile g -- sh -c "$plant" sh "$d" \
	>/dev/null 2>&1)
expect_eq "git's global config in a read-write grant stays as it was" "$(cat "$g/config")" \
	"$(printf '[user]\n\tname = u')"
check "the rest of the grant stays writable" test -f "$g/ignore"
rm -f "$g/config"
(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/g.policy" --profile g -- sh -c "$plant" sh "$d" \
	>/dev/null 2>&1)
check "one not there yet cannot be made by the call" test ! -s "$g/config"
rm -f "$g/config" && mkdir -p "$HOME/dots" && printf '[user]\n\tname = d\n' >"$HOME/dots/gitconfig" &&
	ln -s ../../dots/gitconfig "$g/config"
(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/g.policy" --profile g -- sh -c \
	'rm "$HOME/.config/git/config" && printf "[core]\n\tfsmonitor = x\n" >"$HOME/.config/git/config"' \
	>/dev/null 2>&1)
expect_eq "one reached through a link in the grant fails the call" "$?" 125
check "and the link stays" test -L "$g/config"
rm -rf "$HOME/.config" "$HOME/dots"

# ---- a writable workdir's file system, filled ----
# RLIMIT_FSIZE caps each file, not how many: in a 256 MiB file system (a
# tmpfs in a mount namespace of this script's own), a workspace call that
# fallocates 8 MiB files, writes 1 MiB ones or makes empty files used to
# take every byte or inode; it is now killed while the host still has room
# (fallocate, which allocates faster than the check can look, is refused)
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v fallocate >/dev/null; then
	mkdir -p "$d/small"
	fill='i=0; while fallocate -l 8M f$i 2>/dev/null; do i=$((i + 1)); done
while dd if=/dev/zero of=f$i bs=1M count=1 2>/dev/null; do i=$((i + 1)); done; echo made $i'
	files='i=0; while [ $i -lt 30000 ] && : >e$i 2>/dev/null; do i=$((i + 1)); done; echo made $i'
	call='{"id":"f","tool":"shell","input":{"command":"head -c 300000000 /dev/zero >big"}}'
	# small CMD: the call in the small file system, then what is free there
	small() {
		unshare -m sh -c 'mount -t tmpfs -o size=256m,nr_inodes=20000 tmpfs "$1" && cd "$1" &&
			"$2" exec -- sh -c "$3" >/dev/null 2>&1; echo "rc=$? $(df -k --output=avail,iavail . | tail -1)"' \
			sh "$d/small" "$AIRLOCK" "$1"
	}
	set -- $(small "$fill")
	expect_eq "a call that fills the workdir's disk is killed" "$1" rc=137
	# airlock exec streams: its own line says why (it exited 137 silently)
	msg=$(unshare -m sh -c 'mount -t tmpfs -o size=256m tmpfs "$1" && cd "$1" &&
		"$2" exec -- sh -c "head -c 300000000 /dev/zero >big" 2>&1 >/dev/null' sh "$d/small" "$AIRLOCK")
	case "$msg" in *"airlock exec: killed: the file system it writes (its workdir's) fell below the free space"*) ok=yes ;; *) ok="no: $msg" ;; esac
	expect_eq "airlock exec says why it killed the call" "$ok" yes
	check "and leaves free space on it ($2 KiB)" test "${2:-0}" -gt 0
	set -- $(small "$files")
	check "a call that takes every inode leaves some ($3)" test "${3:-0}" -gt 0
	set -- $(small 'head -c 20000000 /dev/zero >big && echo ok')
	expect_eq "a call that writes well within the room runs" "$1" rc=0
	out=$(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'fallocate -l 1M x 2>/dev/null; echo $?
python3 -c "import os; os.posix_fallocate(os.open(\"y\", os.O_CREAT | os.O_WRONLY), 0, 1 << 20)" &&
stat -c %s y; rm -f x y' 2>&1)
	expect_eq "fallocate is refused; posix_fallocate writes instead" "$(echo $out)" "1 1048576"
	out=$(printf '%s\n' "$call" | unshare -m sh -c 'mount -t tmpfs -o size=256m tmpfs "$1" && cd "$1" &&
		"$2" gate --no-tty --db "$3"' sh "$d/small" "$AIRLOCK" "$d/audit.db" | jq -r .stderr)
	case "$out" in *"fell below the free space airlock keeps"*) ok=yes ;; *) ok="no: $out" ;; esac
	expect_eq "the gate's result tells the agent why the call died" "$ok" yes
fi

finish
