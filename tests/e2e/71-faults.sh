#!/bin/sh
# 71-faults.sh: faults around the real `airlock gate` (issue 10): the audit
# database locked past busy_timeout, a full disk, the database removed while
# running, SIGTERM/SIGINT/SIGHUP at random moments, a child that ignores
# SIGTERM, a child over its memory limit, airlock itself killed -9. Each:
# the call that cannot be recorded does not run, the session is closed in
# the log (except after -9), no call's processes outlive airlock, the chain
# verifies.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-faults.XXXXXX)
cleanup() {
	exec 3>&- 2>/dev/null
	grep -qs " $d/full " /proc/mounts && umount "$d/full"
	rm -rf "$d"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
export HOME="$d/home"
mkdir -p "$d/wd" "$HOME"
SKIP=0

# start NAME [opts]: airlock gate reading the fifo $d/NAME.in (held open on
# fd 3) and writing $d/NAME.out; its pid in $GPID.
start() {
	name=$1
	shift
	mkfifo "$d/$name.in"
	: >"$d/$name.out"
	"$AIRLOCK" gate --no-tty --db "${DB:-$d/$name.db}" --workdir "$d/wd" "$@" \
		<"$d/$name.in" >"$d/$name.out" 2>"$d/$name.err" &
	GPID=$!
	exec 3>"$d/$name.in"
}
send() { printf '%s\n' "$1" >&3; }
# stop: closes the input and waits; the exit status in $GRC.
stop() {
	exec 3>&-
	wait "$GPID" 2>/dev/null # dash reports a job killed by a signal ("Killed")
	GRC=$?
}
# wait_lines NAME N: waits (at most 60 s) for N result lines.
wait_lines() {
	i=0
	while [ "$(wc -l <"$d/$1.out")" -lt "$2" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
field() { sed -n "$2p" "$d/$1.out" | jq -r "$3"; }
events() { sqlite3 "$d/$1.db" "SELECT count(*) FROM events WHERE kind='$2'"; }
deny() { printf '{"id":"%s","tool":"no_such_tool","input":{}}\n' "$1"; }
shell() { jq -cn --arg id "$1" --arg c "$2" '{id:$id,tool:"shell",input:{command:$c}}'; }
# gone PATTERN: no process's command line holds PATTERN.
gone() { ! pgrep -f "$1" >/dev/null; }
# balanced NAME: each received call finished, sessions closed, chain intact.
balanced() {
	expect_eq "$1: every received call finished" "$(events "$1" received)" \
		"$(events "$1" finished)"
	expect_eq "$1: session closed" "$(events "$1" session_end)" "$(events "$1" session_start)"
	check "$1: chain verifies" "$AIRLOCK" audit verify --db "$d/$1.db"
}

# 1. The database locked by another process past busy_timeout (10 s): the
# call is refused and does not run; once the lock is gone the gate goes on.
start locked --approve-with true
send "$(deny first)"
wait_lines locked 1
(echo "BEGIN EXCLUSIVE;"; sleep 13; echo "COMMIT;") | sqlite3 "$d/locked.db" &
holder=$!
sleep 0.5
send "$(shell locked "touch $d/wd/ran-while-locked")"
wait_lines locked 2
wait "$holder"
send "$(deny after)"
stop
expect_eq "locked: refused" "$(field locked 2 .decision)" error
check "locked: error names the log" grep -q 'audit log' "$d/locked.out"
check "locked: did not run" test ! -e "$d/wd/ran-while-locked"
expect_eq "locked: goes on after" "$(field locked 3 .id)" after
expect_eq "locked: exit" "$GRC" 0
balanced locked

# 2. A full disk (a 2 MiB tmpfs) in the middle of a session: calls that
# cannot be recorded do not run; the log stays intact once space is back.
# (A disk already full at start is refused by gate_open: exit 125.)
mkdir -p "$d/full"
if mount -t tmpfs -o size=2m tmpfs "$d/full" 2>/dev/null; then
	DB=$d/full/a.db start full --approve-with true
	send "$(deny f1)"
	wait_lines full 1
	dd if=/dev/zero of="$d/full/fill" bs=4k 2>/dev/null
	for i in 2 3 4; do send "$(deny "f$i")"; done
	send "$(shell full "touch $d/wd/ran-on-full-disk")"
	python3 -c 'import json; print(json.dumps({"id":"big","tool":"no_such_tool","input":{"x":"y"*300000}}))' >&3
	stop
	check "full: did not run" test ! -e "$d/wd/ran-on-full-disk"
	expect_eq "full: every line answered" "$(wc -l <"$d/full.out")" 6
	check "full: refusals name the log" grep -q 'audit log' "$d/full.out"
	check "full: exit status is clean" test "$GRC" -eq 0 -o "$GRC" -eq 125
	rm -f "$d/full/fill"
	check "full: chain verifies with space back" "$AIRLOCK" audit verify --db "$d/full/a.db"
	expect_eq "full: calls not half-recorded" \
		"$(sqlite3 "$d/full/a.db" "SELECT count(*) FROM events WHERE kind='received'")" \
		"$(sqlite3 "$d/full/a.db" "SELECT count(*) FROM events WHERE kind='finished'")"
	umount "$d/full"
else
	echo "skip: full disk (cannot mount a tmpfs: not root?)"
	SKIP=$((SKIP + 1))
fi

# 3. The database removed while running: the next call is refused (it
# would be recorded only in the unlinked file) and does not run.
start removed --approve-with true
send "$(deny before)"
wait_lines removed 1
rm -f "$d/removed.db" "$d/removed.db-wal" "$d/removed.db-shm"
send "$(shell gone "touch $d/wd/ran-after-rm")"
wait_lines removed 2
stop
expect_eq "removed: refused" "$(field removed 2 .decision)" error
expect_eq "removed: did not run" "$([ -e "$d/wd/ran-after-rm" ] && echo ran || echo no)" no
case "$(field removed 2 .error)" in
*"was removed or replaced while airlock ran"*) T_PASS=$((T_PASS + 1)) ;;
*) echo "not ok: removed: error: $(field removed 2 .error)"; T_FAIL=$((T_FAIL + 1)) ;;
esac

# 4. SIGTERM, SIGINT, SIGHUP at random moments, with calls running: airlock
# exits 128+sig (or 0 when it finished first), the session is closed, every
# recorded call finished, and no call's process survives.
i=0
for sig in TERM INT HUP TERM INT HUP TERM HUP; do
	i=$((i + 1))
	tag="airlock-fault-$$-$i"
	{
		for k in 1 2 3; do
			deny "d$k"
			shell "s$k" "sleep 0.3 && echo $tag"
		done
		shell long "sleep 30 && echo $tag"
	} >"$d/sig$i.calls"
	start "sig$i" --approve-with true
	cat "$d/sig$i.calls" >&3
	# random moment: 0 .. 1.5 s in
	sleep "$(awk -v s="$$$i" 'BEGIN{srand(s); printf "%.2f", rand()*1.5}')"
	kill -s "$sig" "$GPID"
	stop
	case $sig in TERM) num=15 ;; INT) num=2 ;; HUP) num=1 ;; esac
	check "sig$i ($sig): exit 128+sig or 0" test "$GRC" -eq $((128 + num)) -o "$GRC" -eq 0
	check "sig$i ($sig): no call process left" gone "sleep 30 && echo $tag"
	balanced "sig$i"
done

# 5. A child that ignores SIGTERM: SIGKILL follows the grace period.
start stubborn --approve-with true
send "$(shell stubborn "trap '' TERM; sleep 300; echo airlock-stubborn-$$")"
sleep 1
kill -TERM "$GPID"
stop
expect_eq "stubborn: exit 143" "$GRC" 143
check "stubborn: child gone" gone "echo airlock-stubborn-$$"
check "stubborn: its outcome recorded" test "$(field stubborn 1 .signal)" = 9
balanced stubborn

# 6. A child over its memory limit (64 MiB here): it fails or is killed;
# the outcome is recorded and the stream goes on.
printf '[profile "%s"]\n\tmemory = 64m\n' readonly workspace approved >"$d/small.policy"
{
	shell hog "awk 'BEGIN { s = \"x\"; while (1) s = s s }'"
	deny after-hog
} | "$AIRLOCK" gate --no-tty --approve-with true --policy "$d/small.policy" \
	--db "$d/hog.db" --workdir "$d/wd" \
	>"$d/hog.out" 2>"$d/hog.err"
expect_eq "hog: exit" "$?" 0
check "hog: failed or killed" sh -c "jq -e '.exit_code != 0 or .signal != null' '$d/hog.out' | head -1 | grep -q true"
expect_eq "hog: goes on" "$(field hog 2 .id)" after-hog
balanced hog

# 7. airlock killed -9 mid-stream: the session stays open (audit verify
# says so), nothing is half-written, and the next gate on the same log works.
start killed --approve-with true
send "$(deny k1)"
send "$(shell k2 "sleep 30 && echo airlock-killed-$$")"
sleep 1
kill -KILL "$GPID"
stop
check "killed: chain verifies" "$AIRLOCK" audit verify --db "$d/killed.db"
check "killed: open session reported" sh -c \
	"'$AIRLOCK' audit verify --db '$d/killed.db' | grep -q '1 open session'"
deny k3 | "$AIRLOCK" gate --no-tty --db "$d/killed.db" --workdir "$d/wd" >"$d/killed2.out" 2>/dev/null
expect_eq "killed: the next gate works" "$(jq -r .id "$d/killed2.out")" k3
check "killed: the call's process died with airlock" gone "echo airlock-killed-$$"
for p in $(pgrep -f "echo airlock-killed-$$"); do kill -KILL "$p"; done

[ "$SKIP" -gt 0 ] && echo "$SKIP skipped"
finish
