#!/bin/sh
# 118-faults-review.sh: a hostile review of the gate and the audit log under
# faults (storage, streams, signals): each case a way a call ran without its
# record, a call got no result, or the gate hung, each failing on 2a775fb
# before its fix.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 cc
tmpdir_make
[ -n "${KEEP:-}" ] && trap - EXIT
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$d/wd" "$HOME"
shell() { jq -cn --arg id "$1" --arg c "$2" '{id:$id,tool:"shell",input:{command:$c}}'; }
events() { sqlite3 "$d/$1.db" "SELECT count(*) FROM events WHERE kind='$2'"; }
# start NAME: airlock gate reading the fifo $d/NAME.in (held open on fd 3);
# its pid in $GPID. Its output goes where the caller redirects fd 5.
start() {
	mkfifo "$d/$1.in"
	"$AIRLOCK" gate --no-tty --db "$d/$1.db" --workdir "$d/wd" \
		<"$d/$1.in" >&5 2>"$d/$1.err" &
	GPID=$!
	exec 3>"$d/$1.in"
}
# wait_for CMD...: runs CMD until it succeeds, at most 60 s; its status
wait_for() {
	i=0
	until "$@" || [ $i -ge 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$@"
}
lines_in() { [ "$(wc -l <"$1")" -ge "$2" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
finished_in() { [ "$(events "$1" finished 2>/dev/null || echo 0)" -ge 1 ]; }
received_in() { [ "$(events "$1" received 2>/dev/null || echo 0)" -ge 1 ]; }

# --- the log's -wal removed while the gate runs ---------------------------
# The WAL holds every commit since the last checkpoint. Removed, the gate
# went on committing into the unlinked file: a kill -9 then lost every
# record (the calls had run; `audit verify` said "ok: 0 events"). Now the
# next call is refused, naming the file, and does not run.
exec 5>"$d/wal.out"
start wal
shell one "touch $d/wd/wal-one" >&3
wait_for lines_in "$d/wal.out" 1
rm -f "$d/wal.db-wal"
shell two "touch $d/wd/wal-two" >&3
wait_for lines_in "$d/wal.out" 2
exec 3>&- 5>&-
wait "$GPID"
expect_eq "wal removed: the first call ran" "$(sed -n 1p "$d/wal.out" | jq -r .decision)" auto
expect_eq "wal removed: the next call is refused" \
	"$(sed -n 2p "$d/wal.out" | jq -r .decision)" error
check "wal removed: the error names the file" grep -q 'wal.db-wal' "$d/wal.out"
check "wal removed: the next call did not run" test ! -e "$d/wd/wal-two"
expect_eq "wal removed: the log holds the first call only" "$(events wal finished)" 1
check "wal removed: the chain verifies" "$AIRLOCK" audit verify --db "$d/wal.db"

# --- a reader that stops reading, then SIGTERM ----------------------------
# A result larger than the pipe, nobody reading: the gate rightly waits,
# but SIGTERM (restarted write, SA_RESTART) never ended it, and the session
# stayed open. Now after the grace period the write fails and airlock
# exits 128+15 with the session ended.
mkfifo "$d/stuck.fifo"
exec 5<>"$d/stuck.fifo" # a reader (this shell) that never reads
start stuck
shell big "head -c 200000 /dev/zero | od -v" >&3
shell after "touch $d/wd/stuck-after" >&3
wait_for finished_in stuck
kill -TERM "$GPID"
check "stuck reader, SIGTERM: airlock exits" wait_for gone "$GPID"
kill -KILL "$GPID" 2>/dev/null
wait "$GPID"
expect_eq "stuck reader, SIGTERM: exit 143" "$?" 143
exec 3>&- 5>&-
expect_eq "stuck reader, SIGTERM: session ended" "$(events stuck session_end)" 1
check "stuck reader, SIGTERM: the call behind it did not run" test ! -e "$d/wd/stuck-after"
check "stuck reader, SIGTERM: says why" grep -q 'nobody read them after signal 15' "$d/stuck.err"
check "stuck reader, SIGTERM: the chain verifies" "$AIRLOCK" audit verify --db "$d/stuck.db"

# --- big lines queued behind a call that waits ----------------------------
# The read-ahead queue was capped at 4096 lines, not bytes: 40 lines of
# 15 MiB behind one call in flight were 640 MB of RSS (4096 of them 64 GiB,
# the OOM killer). Now the reader waits past 64 MiB: the agent's writes
# block until the call ends. The call waits for the file go.
cat >"$d/gen.py" <<'PY'
import sys
out = sys.stdout.buffer
out.write(sys.argv[1].encode() + b"\n")
out.flush()
line = b"x" * (15 << 20) + b"\n"
for i in range(20):
    out.write(line)
    out.flush()
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % (i + 1))
PY
echo 0 >"$d/progress"
python3 "$d/gen.py" "$(shell slow "while [ ! -e $d/wd/go ]; do sleep 0.1; done")" "$d/progress" |
	"$AIRLOCK" gate --no-tty --db "$d/queue.db" --workdir "$d/wd" >"$d/queue.out" 2>/dev/null &
QPID=$!
# the writer's count settles (it blocks) or reaches 20
last=-1
i=0
while [ "$(cat "$d/progress")" != "$last" ] && [ $i -lt 60 ]; do
	last=$(cat "$d/progress")
	sleep 2
	i=$((i + 1))
done
check "big lines queued: the agent is held near 64 MiB, not 300" test "$last" -le 8
touch "$d/wd/go"
wait "$QPID"
expect_eq "big lines queued: every line answered" "$(wc -l <"$d/queue.out")" 21
expect_eq "big lines queued: the call ran" "$(sed -n 1p "$d/queue.out" | jq -r .decision)" auto

# --- SIGTERM with the read-ahead queue full --------------------------------
# Lines read but not started are answered at a stop. The line the reader
# held while the queue was full, and the whole lines in its buffer, were
# dropped: read from the pipe, never answered (~750 of 6000). Now every
# line up to the last answered one is answered, in order, and the next
# whole line is still in the pipe.
jq -cn '{id:0,tool:"shell",input:{command:"sleep 60"}}' >"$d/full.lines"
seq 1 6000 | jq -c '{id:.,tool:"no_such",input:{}}' >>"$d/full.lines"
mkfifo "$d/fullq.in"
"$AIRLOCK" gate --no-tty --db "$d/fullq.db" --workdir "$d/wd" <"$d/fullq.in" \
	>"$d/fullq.out" 2>/dev/null &
GPID=$!
exec 3<>"$d/fullq.in" # held both ways: what the gate leaves stays readable
cat "$d/full.lines" >&3 &
CPID=$!
wait_for received_in fullq
sleep 3
kill -TERM "$GPID"
wait "$GPID"
expect_eq "queue full, SIGTERM: exit 143" "$?" 143
kill "$CPID" 2>/dev/null
last=$(tail -n 1 "$d/fullq.out" | jq .id)
expect_eq "queue full, SIGTERM: every line answered once, in order" \
	"$(jq .id "$d/fullq.out" | tr '\n' ' ')" "$(seq 0 "$last" | tr '\n' ' ')"
next=$(timeout 5 dd if="$d/fullq.in" bs=1M iflag=nonblock 2>/dev/null | head -c 400 |
	sed -n 2p | jq .id)
# the next whole line in the pipe follows the last answered (or one cut
# between the two), or all 6000 were read and answered
next_follows() { [ "${next:-6001}" -le $((last + 2)) ]; }
check "queue full, SIGTERM: no whole line read and dropped ($next after $last)" next_follows
exec 3<&-
expect_eq "queue full, SIGTERM: session ended" "$(events fullq session_end)" 1

# --- the log locked while a call runs --------------------------------------
# Locked past the busy timeout (10 s; held 20 s) between the call's
# decision and its outcome: the call ran, its finished event failed and was
# never written, so the log never said it ran. Now it is written at the
# next call, without its output, saying it came late.
exec 5>"$d/late.out"
start late
shell slow "sleep 2; touch $d/wd/late-ran" >&3
decided_in() { [ "$(events "$1" decided 2>/dev/null || echo 0)" -ge 1 ]; }
wait_for decided_in late
(echo "BEGIN EXCLUSIVE;"; sleep 20; echo "COMMIT;") | sqlite3 "$d/late.db" &
holder=$!
wait_for lines_in "$d/late.out" 1
wait "$holder"
jq -cn '{id:"after",tool:"no_such_tool",input:{}}' >&3
wait_for lines_in "$d/late.out" 2
exec 3>&- 5>&-
wait "$GPID"
check "locked at the outcome: the call ran" test -e "$d/wd/late-ran"
check "locked at the outcome: the result says it ran and comes later" \
	grep -q 'the call ran; airlock records it again' "$d/late.out"
expect_eq "locked at the outcome: recorded late, as run" \
	"$(sqlite3 "$d/late.db" "SELECT json_extract(body, '$.ran') || ' ' ||
		(json_extract(body, '$.reason') LIKE '%recorded late%') FROM events
		WHERE kind = 'finished' ORDER BY id LIMIT 1")" "1 1"
expect_eq "locked at the outcome: every received call finished" \
	"$(events late finished)" "$(events late received)"
check "locked at the outcome: the chain verifies" "$AIRLOCK" audit verify --db "$d/late.db"

# --- a thread that cannot be started --------------------------------------
# The Nth pthread_create fails (as under a small `ulimit -v`): the gate
# either answers the line or says what failed; the reader thread failing
# was an exit 125 with no result and no word (a 40 MB `ulimit -v`).
cc -shared -fPIC -o "$d/shim.so" tests/e2e/118-faults-shim.c -ldl
for n in 1 2 3 4 5 6 7 8; do
	rm -f "$d/wd/thread-ran"
	shell t "touch $d/wd/thread-ran" |
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		AIRLOCK_FAULT_N=$n LD_PRELOAD="$d/shim.so" "$AIRLOCK" gate --no-tty \
		--db "$d/thread.db" --workdir "$d/wd" >"$d/thread.out" 2>"$d/thread.err"
	rc=$?
	if [ -s "$d/thread.out" ]; then
		expect_eq "thread $n fails: one result" "$(wc -l <"$d/thread.out")" 1
	else
		expect_eq "thread $n fails, no result: exit 125" "$rc" 125
		check "thread $n fails, no result: says what failed" grep -q cannot "$d/thread.err"
		check "thread $n fails, no result: nothing ran" test ! -e "$d/wd/thread-ran"
	fi
done
check "threads failing: the chain verifies" "$AIRLOCK" audit verify --db "$d/thread.db"

finish
