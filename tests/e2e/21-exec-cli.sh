#!/bin/sh
# 21-exec-cli.sh: `airlock exec` as a command: exit status passed through,
# 126/127/125/2 for the ways a run can fail to start, stdin and stdout
# streamed, --timeout, --network, --workdir, --chdir, and profiles from
# policy files.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
tmpdir_make
d=$T_DIR
mkdir -p "$d/wd/.airlock" "$d/other"
cd "$d/wd" || exit 2
ax() { "$AIRLOCK" exec "$@"; }

ax -- sh -c 'exit 42' 2>/dev/null
expect_eq "exit status passes through" "$?" 42
ax -- sh -c 'kill -TERM $$' 2>/dev/null
expect_eq "signal becomes 128+N" "$?" 143
ax -- no-such-program-x 2>/dev/null
expect_eq "not found is 127" "$?" 127
touch noexec.sh
ax -- ./noexec.sh 2>/dev/null
expect_eq "not executable is 126" "$?" 126
ax --profile no-such-profile -- true 2>/dev/null
expect_eq "unknown profile is 2" "$?" 2
ax --bogus -- true 2>/dev/null
expect_eq "unknown option is 2" "$?" 2
ax 2>/dev/null
expect_eq "no command is 2" "$?" 2
out=$(ax --workdir / -- true 2>&1)
expect_eq "workdir containing HOME refused with 125" "$?" 125
expect_eq "stdout streamed" "$(ax -- echo streamed)" streamed
expect_eq "stdin streamed" "$(echo piped | ax -- cat)" piped
expect_eq "stderr streamed" "$(ax -- sh -c 'echo e >&2' 2>&1 >/dev/null)" e
expect_eq "--workdir" "$(ax --workdir "$d/other" -- pwd)" "$(cd "$d/other" && pwd -P)"
t0=$(date +%s)
out=$(ax --timeout 1 -- sleep 30 2>&1)
rc=$?
expect_eq "--timeout kills with 137" "$rc" 137
case "$out" in *"timed out"*) check "timeout says so" true ;; *) check "timeout says so" false ;; esac
# well before the 30 s sleep ends; not a speed bound (a busy machine took 6 s)
check "--timeout cuts the call short" test $(($(date +%s) - t0)) -le 20
expect_eq "network off by default" \
	"$(ax -- python3 -c 'import socket; socket.socket()' >/dev/null 2>&1; echo $?)" 1
expect_eq "--network allows inet sockets" \
	"$(ax --network -- python3 -c 'import socket; socket.socket()' >/dev/null 2>&1; echo $?)" 0
expect_eq "none profile runs bare" "$(ax --profile none -- hostname)" "$(hostname)"
expect_eq "sandbox hostname" "$(ax -- hostname)" airlock
printf '[profile "tight"]\n\tworkdir = ro\n' > .airlock/policy
chmod 600 .airlock/policy
ax --profile tight -- touch made 2>/dev/null
check "policy profile applies (read-only workdir)" test ! -e made
ax --profile workspace -- touch made2 2>/dev/null
check "built-in profile still works beside a policy" test -e made2

# init (exec/init/) acts only as a fresh pid namespace's first process
# with a valid pid: its kill(-1) anywhere else would reach every process of
# the uid. Each case runs in a pid namespace of its own, so even a broken
# guard could only reach that namespace.
init=$BUILD/exec/init/init.elf
expect_eq "init: not pid 1, refused" "$(unshare -rfp sh -c "'$init' 5; echo \$?")" 125
expect_eq "init: pid 1 without a pid, refused" "$(unshare -rfp "$init" >/dev/null 2>&1; echo $?)" 125
expect_eq "init: pid 1 with a pid, waits and exits" \
	"$(unshare -rfp "$init" 2 >/dev/null 2>&1; echo $?)" 0
# init names itself once it runs, a moment after the command has started
expect_eq "init: pid 1 names itself airlock-init; the command is pid 2" "$(ax -- sh -c \
	'for i in $(seq 100); do c=$(cat /proc/1/comm); [ "$c" = airlock-init ] && break; sleep 0.01; done; echo "$c $$"')" \
	"airlock-init 2"
# --chdir: the command starts below the workdir, which stays the sandbox's
# (the hook runs a call from a subdirectory so); a cwd outside it, or a link
# leading out, is refused before anything runs.
mkdir -p "$d/wd/sub/deep"
ln -sfn "$d/other" "$d/wd/out-link"
expect_eq "--chdir: the command starts there" "$(ax --chdir sub/deep -- pwd 2>&1)" "$(readlink -f "$d/wd/sub/deep")"
expect_eq "--chdir: the whole workdir is there" "$(ax --chdir sub -- ls -d ../.airlock 2>&1)" "../.airlock"
expect_eq "--chdir: none profile too" "$(ax --profile none --chdir sub -- pwd 2>&1)" "$(readlink -f "$d/wd/sub")"
for bad in "$d/other" out-link /; do
	out=$(ax --chdir "$bad" -- echo ran 2>&1)
	expect_eq "--chdir $bad: refused, exit 125" "$?" 125
	case "$out" in
	*ran*) check "--chdir $bad: nothing ran" false ;;
	*"outside the workdir"*) check "--chdir $bad: the reason says so" true ;;
	*) check "--chdir $bad: the reason says so ($out)" false ;;
	esac
done
ax --chdir no-such-dir -- true 2>/dev/null
expect_eq "--chdir to nothing: refused, exit 125" "$?" 125

# A run that fails where the sandbox hides something says what it hid
# (a test suite reading a masked fixture key fails with EACCES, and the
# agent should learn why); a run that succeeds says nothing.
mkdir -p "$d/wd/sub/fixtures" && printf 'K=1\n' > "$d/wd/sub/fixtures/.env.test"
out=$(ax -- cat sub/fixtures/.env.test 2>&1)
case "$out" in
*"sandbox hides sub/fixtures/.env.test"*) check "masked: a failed run names what was hidden" true ;;
*) check "masked: a failed run names what was hidden ($out)" false ;;
esac
expect_eq "masked: a run that succeeds says nothing" "$(ax -- true 2>&1)" ""
rm -rf "$d/wd/sub/fixtures"

# vm.memfd_noexec=2 forbids executing a memfd, so init cannot start: the
# call fails closed with the reason. The setting is per pid namespace and
# only rises below the host's, so a namespace of its own keeps it local.
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/memfd_noexec ]; then
	out=$(unshare -pf --mount-proc sh -c \
		"echo 2 > /proc/sys/vm/memfd_noexec && '$AIRLOCK' exec -- echo ran" 2>&1)
	expect_eq "memfd_noexec=2: refused, exit 125" "$?" 125
	case "$out" in
	*ran*) check "memfd_noexec=2: nothing ran" false ;;
	*memfd_noexec*) check "memfd_noexec=2: the reason names the setting" true ;;
	*) check "memfd_noexec=2: the reason names the setting" false ;;
	esac
fi
# getopt_long, as every other command: --opt=value, and --help on stdout
# (it was refused, and the help went to stderr; docs review 2)
expect_eq "--profile=NAME" "$(ax --profile=readonly -- echo eq)" eq
expect_eq "--timeout=S" "$(ax --timeout=5 -- echo eq5)" eq5
check "--help on stdout, exit 0" sh -c "'$AIRLOCK' exec --help 2>/dev/null | grep -q -- '--chdir DIR'"
finish
