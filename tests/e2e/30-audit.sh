#!/bin/sh
# 30-audit.sh: the audit log through the real binary: the audit subcommands,
# redaction on disk, tampering with the triggers dropped (edited, deleted,
# swapped, tail removed), kill -9 of the gate at random moments (20 times),
# 8 gates writing one log at once, a full filesystem, foreign files.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-audit.XXXXXX)
mnt="$d/full"
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$d"
}
trap cleanup EXIT
A=$AIRLOCK
mkdir -p "$d/wd"
call() { # id tool key value
	printf '{"id":"%s","tool":"%s","input":{"%s":"%s"}}\n' "$1" "$2" "$3" "$4"
}

# ---- the subcommands over a small log ----
db=$d/a.db
{
	call c1 shell command 'ls /'
	call c2 shell command 'rm -rf /tmp/airlock-audit-nothing'
	call c3 shell command 'curl https://bob:hunter2@example.com/ -H ghp_abcdefghijklmnopqrstuvwxyz0123456789'
	call c4 read_file path /etc/hostname
} | (cd "$d/wd" && "$A" gate --no-tty --db "$db" > "$d/r1.jsonl" 2>&1)
expect_eq "four calls listed" "$("$A" audit list --db "$db" | wc -l)" 4
expect_eq "list --json is one object per line" "$("$A" audit list --json --db "$db" | jq -s length)" 4
expect_eq "filter by tier" "$("$A" audit list --db "$db" --tier high+ | wc -l)" 2
expect_eq "filter by decision" "$("$A" audit list --db "$db" --decision auto --tool read_file | wc -l)" 1
expect_eq "grep" "$("$A" audit list --db "$db" --grep 'RM -RF' | wc -l)" 1
expect_eq "since a future date" "$("$A" audit list --db "$db" --since 2999-01-01 | wc -l)" 0
expect_eq "since an age" "$("$A" audit list --db "$db" --since 1h | wc -l)" 4
expect_eq "--last 1" "$("$A" audit list --db "$db" --last 1 | awk '{print $1}')" \
	"$("$A" audit list --json --db "$db" | tail -1 | jq .id)"
first=$("$A" audit list --json --db "$db" | head -1 | jq .id)
check "show prints every event" sh -c "'$A' audit show $first --db '$db' | grep -q finished"
expect_eq "show --json has the events" "$("$A" audit show "$first" --json --db "$db" | jq '.events | length')" 4
expect_eq "show of a missing id exits 1" "$("$A" audit show 999999 --db "$db" >/dev/null 2>&1; echo $?)" 1
expect_eq "export jsonl: one object per call" "$("$A" audit export --format jsonl --db "$db" | jq -s 'map(.events.received.input) | length')" 4
expect_eq "export csv: header + 4 rows" "$("$A" audit export --format csv --db "$db" | head -1 | cut -d, -f1-3)" "id,session,time"
check "export csv parses" sh -c "'$A' audit export --format csv --db '$db' | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); assert len(r)==5 and all(len(x)==22 for x in r)'"
expect_eq "stats --json counts calls" "$("$A" audit stats --json --db "$db" | jq .total.calls)" 4
check "stats text" sh -c "'$A' audit stats --db '$db' | grep -q 'by tier'"
expect_eq "bad flag is a usage error" "$("$A" audit list --tier extreme --db "$db" >/dev/null 2>&1; echo $?)" 2
expect_eq "bad date is a usage error" "$("$A" audit list --since yesterday --db "$db" >/dev/null 2>&1; echo $?)" 2
check "verify ok" "$A" audit verify --db "$db"

# ---- hostile text is shown escaped, never raw ----
printf '{"id":"h1","tool":"shell","input":{"command":"echo \\u202e txt.exe \\u001b[2J"}}\n{"id":"h2","tool":"x\\u001b[31m","input":{}}\n' |
	(cd "$d/wd" && "$A" gate --no-tty --db "$d/h.db" > /dev/null 2>&1)
"$A" audit list --db "$d/h.db" > "$d/h.list" 2>&1
"$A" audit show --db "$d/h.db" "$("$A" audit list --json --db "$d/h.db" | head -1 | jq .id)" > "$d/h.show" 2>&1
check "list escapes bidi overrides" sh -c "! grep -q '$(printf '\342\200\256')' '$d/h.list'"
check "show escapes bidi overrides" sh -c "! grep -q '$(printf '\342\200\256')' '$d/h.show'"
expect_eq "list and show have no raw ESC" "$(LC_ALL=C tr -cd '\033\007' < "$d/h.list" | wc -c)$(LC_ALL=C tr -cd '\033\007' < "$d/h.show" | wc -c)" 00
check "list shows the escape" grep -q 'u202e' "$d/h.list"

# ---- redaction: the secret never reaches the file ----
check "password not on disk" sh -c "! grep -qa hunter2 '$db' '$db-wal' 2>/dev/null"
check "token not on disk" sh -c "! sqlite3 '$db' 'SELECT body FROM events' | grep -q ghp_abc"
check "redaction marker stored" sh -c "sqlite3 '$db' 'SELECT body FROM events' | grep -q 'REDACTED:password'"

# ---- tampering, triggers dropped first ----
tamper() { # name sql expected-event
	cp "$db" "$d/t.db"
	rm -f "$d/t.db-wal" "$d/t.db-shm"
	sqlite3 "$d/t.db" "DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete; $2"
	out=$("$A" audit verify --db "$d/t.db" 2>&1)
	rc=$?
	expect_eq "$1: verify exits 1" "$rc" 1
	case "$out" in
	*"first bad event $3:"*) T_PASS=$((T_PASS + 1)) ;;
	*) T_FAIL=$((T_FAIL + 1)); echo "not ok: $1: want event $3 named: $out" ;;
	esac
}
last=$(sqlite3 "$db" 'SELECT max(id) FROM events')
rmid=$(sqlite3 "$db" "SELECT id FROM events WHERE kind = 'received' AND body LIKE '%rm -rf%'")
check "show: an intact call says so" sh -c "'$A' audit show $rmid --db '$db' | head -1 | grep -q '^integrity: ok: events $rmid\.\.'"
tamper "edited" "UPDATE events SET body = replace(body, 'rm -rf', 'ls') WHERE kind = 'received' AND body LIKE '%rm -rf%'" \
	"$rmid"
# show checks the chain around the call's own events: an edited call does
# not read as a true record (the shown text is the forged one)
out=$("$A" audit show "$rmid" --db "$d/t.db")
expect_eq "show of an edited call exits 1" "$?" 1
expect_eq "show of an edited call says so first" "$(echo "$out" | head -1)" \
	"integrity: NOT CONFIRMED: event $rmid was edited, replaced or reordered: hash mismatch; what follows may be forged: run \`airlock audit verify\`"
expect_eq "show --json: integrity" "$("$A" audit show "$rmid" --json --db "$d/t.db" | jq -c '.integrity | [.ok, .broken]')" "[false,true]"
tamper "deleted" "DELETE FROM events WHERE id = 4" 4
tamper "swapped" "UPDATE events SET id = -1 WHERE id = 3; UPDATE events SET id = 3 WHERE id = 4; UPDATE events SET id = 4 WHERE id = -1" 3
tamper "tail removed" "DELETE FROM events WHERE id > $((last - 2))" $((last - 1))
tamper "session end removed" "DELETE FROM events WHERE id = $last" "$last"
# A log whose tail was removed takes no more calls: nothing runs unrecorded.
echo "$(call x1 shell command "touch $d/wd/ran-after-tamper")" |
	(cd "$d/wd" && "$A" gate --no-tty --db "$d/t.db" > "$d/r2.jsonl" 2>&1)
check "tampered tail: the call did not run" test ! -e "$d/wd/ran-after-tamper"
check "tampered tail: the reason is given" grep -q "head anchor" "$d/r2.jsonl"

# ---- a pinned head catches a rewrite the chain alone cannot ----
pin=$("$A" audit verify --db "$db" | sed -n 's/^head \([0-9]*:[0-9a-f]*\).*/\1/p')
pin_id=${pin%%:*}
call c5 read_file path /etc/hostname | (cd "$d/wd" && "$A" gate --no-tty --db "$db" > /dev/null 2>&1)
check "pin holds after more calls" "$A" audit verify --db "$db" --pin "$pin"
cp "$db" "$d/rw.db"
rm -f "$d/rw.db-wal" "$d/rw.db-shm"
sqlite3 "$d/rw.db" "DROP TRIGGER events_no_delete; DELETE FROM events WHERE id >= $((pin_id - 1));
	UPDATE chain_head SET (id, hash) = (SELECT id, hash FROM events ORDER BY id DESC LIMIT 1)"
expect_eq "tail cut and anchor moved: verify alone passes (documented)" \
	"$("$A" audit verify --db "$d/rw.db" >/dev/null 2>&1; echo $?)" 0
expect_eq "tail cut and anchor moved: verify --pin exits 1" \
	"$("$A" audit verify --db "$d/rw.db" --pin "$pin" >/dev/null 2>&1; echo $?)" 1
expect_eq "a malformed pin is a usage error" \
	"$("$A" audit verify --db "$db" --pin 12:zz >/dev/null 2>&1; echo $?)" 2

# ---- the call index the lists read is checked against the chain ----
check "verify --index on an intact log" "$A" audit verify --index --db "$db"
cp "$db" "$d/i.db"
rm -f "$d/i.db-wal" "$d/i.db-shm"
sqlite3 "$d/i.db" "UPDATE call_index SET decision = 'auto', tier = 0 WHERE tier = 2"
expect_eq "edited index: plain verify still ok (the chain is intact)" \
	"$("$A" audit verify --db "$d/i.db" >/dev/null 2>&1; echo $?)" 0
expect_eq "edited index: verify --index exits 1" \
	"$("$A" audit verify --index --db "$d/i.db" >/dev/null 2>&1; echo $?)" 1
check "reindex" "$A" audit reindex --db "$d/i.db"
expect_eq "reindex restores the lists" "$("$A" audit list --db "$d/i.db" --tier high | wc -l)" 2

# ---- prune keeps what remains verifiable ----
cp "$db" "$d/p.db"
check "prune" "$A" audit prune --db "$d/p.db" --before 2999-01-01
check "verify after prune" "$A" audit verify --db "$d/p.db"
expect_eq "prune needs --before" "$("$A" audit prune --db "$d/p.db" >/dev/null 2>&1; echo $?)" 2

# ---- reading never creates a log; a log one cannot write can be read ----
expect_eq "list of a missing log fails" "$("$A" audit list --db "$d/none/x.db" >/dev/null 2>&1; echo $?)" 125
check "and creates nothing" test ! -e "$d/none"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 755 "$d/ro"
	cp "$db" "$d/ro/a.db"
	rm -f "$d/ro/a.db-wal" "$d/ro/a.db-shm"
	chmod 644 "$d/ro/a.db"
	cp "$A" "$d/ro/airlock"
	chmod 755 "$d" "$d/ro/airlock"
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	expect_eq "another user lists a read-only log" \
		"$(nobody "$d/ro/airlock" audit list --db "$d/ro/a.db" 2>&1 | wc -l)" "$("$A" audit list --db "$db" | wc -l)"
	check "another user verifies a read-only log" nobody "$d/ro/airlock" audit verify --index --db "$d/ro/a.db"
	check "but cannot prune it" sh -c "! setpriv --reuid=65534 --regid=65534 --clear-groups '$d/ro/airlock' audit prune --before 2999-01-01 --db '$d/ro/a.db'"
else
	echo "skip: read-only log as another user (needs root and setpriv)"
fi

# ---- foreign and newer files ----
sqlite3 "$d/other.db" 'CREATE TABLE t(x)'
check "foreign db refused" sh -c "'$A' audit list --db '$d/other.db' 2>&1 | grep -q 'not an airlock audit log'"
printf 'plain text, not a database at all..............................................\n' > "$d/text.db"
check "text file refused" sh -c "! '$A' audit list --db '$d/text.db' >/dev/null 2>&1"
cp "$db" "$d/new.db"
sqlite3 "$d/new.db" 'PRAGMA user_version = 99'
check "newer schema refused" sh -c "'$A' audit list --db '$d/new.db' 2>&1 | grep -q 'newer'"

# ---- kill -9 at random moments during a 5,000-call run, 20 times ----
i=0
while [ $i -lt 5000 ]; do
	i=$((i + 1))
	call "k$i" read_file path /etc/hostname
done > "$d/5000.jsonl"
kdb=$d/kill.db
missing=0
for round in $(seq 1 20); do
	(cd "$d/wd" && exec "$A" gate --no-tty --db "$kdb" < "$d/5000.jsonl" > "$d/k$round.out" 2>/dev/null) &
	pid=$!
	# Anywhere in the first ~1.5 s: mid-append, mid-call, between calls.
	sleep "$(shuf -i 5-150 -n 1 | awk '{ printf "%.2f", $1 / 100 }')"
	pkill -9 -P "$pid" 2>/dev/null
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# Complete result lines only (the last one may be cut mid-write).
	ids=$(grep '}$' "$d/k$round.out" | grep -o '"audit_id":[0-9]*' | cut -d: -f2 | paste -sd, -)
	[ -n "$ids" ] || continue
	n=$(echo "$ids" | tr , '\n' | wc -l)
	found=$(sqlite3 "$kdb" "SELECT count(*) FROM call_index WHERE finished = 1 AND id IN ($ids)")
	[ "$found" = "$n" ] || missing=$((missing + n - found))
done
expect_eq "kill -9: integrity_check" "$(sqlite3 "$kdb" 'PRAGMA integrity_check')" ok
check "kill -9: chain verifies" "$A" audit verify --db "$kdb"
expect_eq "kill -9: every result line is in the log" "$missing" 0
check "kill -9: calls were recorded" test "$(sqlite3 "$kdb" 'SELECT count(*) FROM call_index')" -gt 20

# ---- 8 processes x 1,000 calls into one database ----
head -1000 "$d/5000.jsonl" > "$d/1000.jsonl"
cdb=$d/conc.db
for p in 1 2 3 4 5 6 7 8; do
	(cd "$d/wd" && "$A" gate --no-tty --db "$cdb" < "$d/1000.jsonl" > "$d/c$p.out" 2>&1; echo $? > "$d/c$p.rc") &
done
wait
expect_eq "8 gates exited 0" "$(cat "$d"/c?.rc | sort -u)" 0
for p in 1 2 3 4 5 6 7 8; do # a gate that failed says why (once seen in CI under load: 125)
	[ "$(cat "$d/c$p.rc")" = 0 ] || { echo "gate $p exited $(cat "$d/c$p.rc"):"; grep -v '^{' "$d/c$p.out" | head -n 3; }
done
expect_eq "8,000 calls recorded" "$(sqlite3 "$cdb" 'SELECT count(*) FROM call_index WHERE finished = 1')" 8000
expect_eq "8 sessions ended" "$(sqlite3 "$cdb" 'SELECT count(*) FROM sessions WHERE ended IS NOT NULL')" 8
check "8 writers: chain verifies" "$A" audit verify --db "$cdb"

# ---- a full filesystem refuses calls ----
mkdir -p "$mnt"
# A line that is not a call is recorded too (what the agent sent that
# airlock could not read is evidence): redacted, with the session's count.
printf '%s\n' 'not json AKIAIOSFODNN7EXAMPLE' '[1,2]' |
	(cd "$d/wd" && "$A" gate --no-tty --db "$d/rej.db") > "$d/rej.out"
expect_eq "rejected lines: one error result each" "$(grep -c '"decision":"error"' "$d/rej.out")" 2
expect_eq "rejected lines: recorded" \
	"$(sqlite3 "$d/rej.db" "SELECT count(*) FROM events WHERE kind = 'rejected'")" 2
expect_eq "rejected lines: the line number and why" \
	"$(sqlite3 "$d/rej.db" "SELECT json_extract(body, '$.line') || ' ' || json_extract(body, '$.error') FROM events WHERE kind = 'rejected' ORDER BY id DESC LIMIT 1")" \
	"2 a call must be a JSON object (got array)"
check "rejected lines: secrets redacted" \
	sh -c "! sqlite3 '$d/rej.db' 'SELECT body FROM events' | grep -q AKIAIOSFODNN7EXAMPLE"
expect_eq "rejected lines: counted at the session's end" \
	"$(sqlite3 "$d/rej.db" "SELECT json_extract(body, '$.rejected') FROM events WHERE kind = 'session_end'")" 2
check "rejected lines: the log verifies" "$A" audit verify --db "$d/rej.db"

if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
	call f1 read_file path /etc/hostname | "$A" gate --no-tty --db "$mnt/a.db" > /dev/null 2>&1
	dd if=/dev/zero of="$mnt/fill" bs=4096 2>/dev/null
	call f2 shell command "touch $d/wd/ran-on-full-disk" |
		(cd "$d/wd" && "$A" gate --no-tty --db "$mnt/a.db" > "$d/full.out" 2>&1)
	check "full disk: the call did not run" test ! -e "$d/wd/ran-on-full-disk"
	check "full disk: a clear error" grep -qi "full" "$d/full.out"
	rm -f "$mnt/fill"
	check "full disk: the log still verifies" "$A" audit verify --db "$mnt/a.db"
	# The disk fills up while a gate is running.
	mkfifo "$d/fifo"
	(cd "$d/wd" && "$A" gate --no-tty --db "$mnt/b.db" < "$d/fifo" > "$d/full2.out" 2>&1) &
	gpid=$!
	exec 3> "$d/fifo"
	call g1 read_file path /etc/hostname >&3
	sleep 0.5
	dd if=/dev/zero of="$mnt/fill" bs=4096 2>/dev/null
	call g2 shell command "touch $d/wd/ran-mid-session" >&3
	exec 3>&-
	wait "$gpid"
	check "disk fills mid-session: the call did not run" test ! -e "$d/wd/ran-mid-session"
	check "disk fills mid-session: a clear error" grep -qi "full" "$d/full2.out"
	rm -f "$mnt/fill"
	check "disk fills mid-session: the log verifies" "$A" audit verify --db "$mnt/b.db"
else
	echo "skip: full filesystem (needs root and tmpfs)"
fi

finish
