#!/bin/sh
# 127-audit-review4.sh: what another hostile review of the audit log found,
# each failing before its fix: a log whose tables were dropped and version
# reset was read as a new empty log (`audit verify` said "ok: 0 events" and
# wrote a fresh schema into the evidence; the gate started a new chain in
# it); a dropped events table, a dropped call_rules (`verify --index`) or a
# lowered user_version made verify exit 125 as for a disk error; an emptied
# log with its head anchor reset verified; a FIFO at the path hung verify;
# a dangling symlink into the workdir put the log inside it; tokens the
# shell splices from pieces (and a password's rest past a quote), spelled
# in octal or %HH, of more shapes (Vault, age, ...) and passwords of more
# options (zip -P) were stored.
. tests/e2e/lib.sh
need sqlite3
d=$(mktemp -d /tmp/airlock-audit-review4.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd"
gate() { (cd "$d/wd" && "$A" gate --no-tty --db "$1") >/dev/null 2>&1; }
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"rm -rf build"}}' \
	'{"id":"2","tool":"shell","input":{"command":"ls"}}' >"$d/two.in"
gate "$d/base.db" <"$d/two.in"
check "the log verifies" "$A" audit verify --index --db "$d/base.db"

# ---- a log whose tables were removed is broken, never a new log ----
wipe="DROP VIEW calls; DROP TABLE events; DROP TABLE chain_head; DROP TABLE anchors;
	DROP TABLE sessions; DROP TABLE call_index; DROP TABLE call_rules"
cp "$d/base.db" "$d/w.db"
sqlite3 "$d/w.db" "$wipe; PRAGMA user_version = 0"
"$A" audit verify --db "$d/w.db" >"$d/w.out" 2>&1
expect_eq "tables dropped, version reset: verify fails" "$?" 1
check "tables dropped: says so" grep -q "holds no tables" "$d/w.out"
expect_eq "tables dropped: verify wrote no schema" \
	"$(sqlite3 "$d/w.db" "SELECT count(*) FROM sqlite_schema")" 0
gate "$d/w.db" <"$d/two.in"
expect_eq "tables dropped: the gate starts no new chain in it" \
	"$(sqlite3 "$d/w.db" "SELECT count(*) FROM sqlite_schema")" 0
"$A" audit list --db "$d/w.db" >/dev/null 2>&1
expect_eq "tables dropped: list fails" "$?" 125

cp "$d/base.db" "$d/e.db"
sqlite3 "$d/e.db" "DROP TABLE events"
"$A" audit verify --db "$d/e.db" >"$d/e.out" 2>&1
expect_eq "events table dropped: verify says broken (1), not unreadable" "$?" 1
check "events table dropped: names it" grep -q "table events is missing" "$d/e.out"

cp "$d/base.db" "$d/z.db"
sqlite3 "$d/z.db" "DROP TRIGGER events_no_delete; DELETE FROM events;
	UPDATE chain_head SET id = 0, hash = zeroblob(32)"
"$A" audit verify --db "$d/z.db" >"$d/z.out" 2>&1
expect_eq "every event removed, head reset: verify fails" "$?" 1
check "every event removed: says so" grep -q "holds no events" "$d/z.out"

# a derived table dropped: the call index is broken, not the file unreadable
cp "$d/base.db" "$d/r.db"
sqlite3 "$d/r.db" "DROP TABLE call_rules"
"$A" audit verify --index --db "$d/r.db" >"$d/r.out" 2>&1
expect_eq "call_rules dropped: verify --index says broken" "$?" 1
check "call_rules dropped: names it" grep -q "table call_rules is missing" "$d/r.out"

# the tail cut inside a session with the anchor moved: ok, but not silently
cp "$d/base.db" "$d/c.db"
sqlite3 "$d/c.db" "DROP TRIGGER events_no_delete;
	DELETE FROM events WHERE id >= (SELECT max(id) - 1 FROM events);
	UPDATE chain_head SET (id, hash) = (SELECT id, hash FROM events ORDER BY id DESC LIMIT 1)"
"$A" audit verify --db "$d/c.db" >"$d/c.out" 2>&1
expect_eq "tail cut, anchor moved: verify cannot tell (ok)" "$?" 0
check "tail cut, anchor moved: the open session is explained" grep -q "only a head kept" "$d/c.out"

# a lowered schema version: a migration failed on a column already there
cp "$d/base.db" "$d/v.db"
sqlite3 "$d/v.db" "PRAGMA user_version = 1"
"$A" audit verify --db "$d/v.db" >"$d/v.out" 2>&1
expect_eq "version lowered: verify says broken" "$?" 1
check "version lowered: says so" grep -q "version was edited" "$d/v.out"

# an empty file is no log to a reader, and a reader does not make it one
: >"$d/empty.db"
"$A" audit verify --db "$d/empty.db" >/dev/null 2>&1
expect_eq "empty file: verify does not say ok" "$?" 125
expect_eq "empty file: left empty" "$(wc -c <"$d/empty.db")" 0
"$A" audit prune --before 2000-01-01 --db "$d/none.db" >/dev/null 2>&1
check "prune makes no log at a mistyped path" test ! -e "$d/none.db"

# ---- the log's path: a regular file, never a FIFO or a dangling link ----
mkfifo "$d/fifo.db"
timeout 10 "$A" audit verify --db "$d/fifo.db" >/dev/null 2>"$d/f.err"
expect_eq "a FIFO log: verify refuses it, does not hang" "$?" 125
check "a FIFO log: says so" grep -q "not a regular file (a FIFO)" "$d/f.err"
# a symlink from outside the workdir to a log not made yet inside it: the
# workdir check resolved the link's directory, and SQLite followed the link
mkdir "$d/state"
ln -s "$d/wd/in.db" "$d/state/audit.db"
(cd "$d/wd" && "$A" gate --no-tty --db "$d/state/audit.db") <"$d/two.in" >"$d/l.out" 2>&1
check "a dangling link into the workdir: no log made there" test ! -e "$d/wd/in.db"
expect_eq "a dangling link into the workdir: nothing ran" \
	"$(grep -c '"decision":"auto"' "$d/l.out")" 0

# ---- redaction: spliced, escaped and other shapes never reach the file ----
# (fake tokens; each command only echoes)
tail=aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789
printf '%s\n' \
	"{\"id\":\"s1\",\"tool\":\"shell\",\"input\":{\"command\":\"echo gh''p_$tail\"}}" \
	"{\"id\":\"s2\",\"tool\":\"shell\",\"input\":{\"command\":\"echo \\\"gh\\\"p_$tail\"}}" \
	"{\"id\":\"s3\",\"tool\":\"shell\",\"input\":{\"command\":\"echo \$'\\\\147hp_$tail'\"}}" \
	"{\"id\":\"s4\",\"tool\":\"shell\",\"input\":{\"command\":\"echo hvs.CAESIJ$tail\"}}" \
	"{\"id\":\"s5\",\"tool\":\"shell\",\"input\":{\"command\":\"zip -P Hunter2Hunter$tail out.zip f\"}}" \
	"{\"id\":\"s6\",\"tool\":\"shell\",\"input\":{\"command\":\"PGPASSWORD=Hun''ter2$tail true\"}}" \
	>"$d/split.in"
gate "$d/split.db" <"$d/split.in"
expect_eq "split tokens: six calls recorded" \
	"$(sqlite3 "$d/split.db" "SELECT count(*) FROM events WHERE kind = 'received'")" 6
expect_eq "split, escaped and new shapes: no token tail in any event" \
	"$(sqlite3 "$d/split.db" "SELECT count(*) FROM events WHERE body LIKE '%$tail%'")" 0
expect_eq "... nor in the call index" \
	"$(sqlite3 "$d/split.db" "SELECT count(*) FROM call_index WHERE summary LIKE '%$tail%'")" 0
check "... and the log verifies" "$A" audit verify --index --db "$d/split.db"

finish
