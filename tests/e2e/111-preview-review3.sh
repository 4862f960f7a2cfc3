#!/bin/sh
# 111-preview-review3.sh: a third hostile review of previews and their
# apply ("what is approved is what happens"), each check failing on
# 044efe1 before its fix.
# Approvals are scripted with --approve-with (exit 0 approves, 1 denies).
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3
tmpdir_make
d=$T_DIR HOME="$T_DIR/home"
export HOME
mkdir -p "$HOME" "$d/wd"
# every tier asks and runs with a writable workdir
printf '[profile "p"]\n\tworkdir = rw\n' >"$d/p.policy"
printf '[tier "%s"]\n\taction = ask\n\tprofile = p\n' low low medium medium high high >>"$d/p.policy"
chmod 600 "$d/p.policy"
# gate APPROVER: the calls on stdin, one result line each
gate() {
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$d/wd" --policy "$d/p.policy" \
		--approve-with "$1"
}
# sql ID QUERY: a sql call on t.db in the workdir
sql() { jq -cn --arg id "$1" --arg q "$2" '{id:$id,tool:"sql",input:{database:"t.db",query:$q}}'; }
field() { printf '%s\n' "$1" | jq -r ".$2"; }
preview() { "$AIRLOCK" preview --workdir "$1" --policy "$d/p.policy"; }

# the two-argument fts3_tokenizer() (on in Debian's SQLite) takes a blob as
# the address of a tokenizer's functions: the preview, run in airlock's own
# process before anyone approved, called the address the statement named
sqlite3 "$d/wd/t.db" 'CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1);'
q="SELECT fts3_tokenizer('simple', x'4141414141414141'); CREATE VIRTUAL TABLE v USING fts3(tokenize=simple); INSERT INTO v VALUES('x')"
sql f "$q" | preview "$d/wd" >"$d/fts.txt" 2>&1
expect_eq "fts3_tokenizer pointer: the preview fails, it does not crash" "$?" 1
check "fts3_tokenizer pointer: the preview says why" grep -q 'fts3tokenize disabled' "$d/fts.txt"
out=$(sql f2 "$q" | gate 'cat >/dev/null')
expect_eq "fts3_tokenizer pointer: the gate answers, refused" "$(field "$out" decision)" error
# and the gate's own executor, which runs an auto-run call's SQL in its
# process: under the default policy the same string (INSERT, medium) ran
# there, and the gate died of SIGSEGV at the address it named
mkdir -p "$d/wd3"
sqlite3 "$d/wd3/t.db" 'CREATE TABLE t(id INTEGER PRIMARY KEY);'
out=$(sql f3 "$q" | "$AIRLOCK" gate --no-tty --db "$d/g3.db" --workdir "$d/wd3")
expect_eq "fts3_tokenizer pointer: the gate's executor survives it" "$?" 0
expect_eq "fts3_tokenizer pointer: the auto-run call fails, said why" \
	"$(field "$out" decision) $(field "$out" exit_code)" "auto 1"
expect_eq "fts3_tokenizer pointer: the error names it" \
	"$(field "$out" stderr | grep -c 'fts3tokenize disabled')" 1

# a table without a PRIMARY KEY is counted, not listed: rows a second
# connection changed between preview and approval, same counts, were
# deleted as if they were the ones previewed
sqlite3 "$d/wd/t.db" "CREATE TABLE log(lvl TEXT, msg TEXT);
	INSERT INTO log VALUES('debug','junk1'),('debug','junk2'),('info','keep-me');"
out=$(sql l "DELETE FROM log WHERE lvl = 'debug'" |
	gate "cat >/dev/null; sqlite3 '$d/wd/t.db' \"UPDATE log SET lvl = 'debug' WHERE msg = 'keep-me'; UPDATE log SET lvl = 'info' WHERE msg = 'junk2'\"")
expect_eq "no primary key, rows changed since the preview: refused" "$(field "$out" decision)" error
expect_eq "no primary key, rows changed since the preview: nothing deleted" \
	"$(sqlite3 "$d/wd/t.db" 'SELECT group_concat(msg) FROM (SELECT msg FROM log ORDER BY msg)')" \
	junk1,junk2,keep-me
out=$(sql l2 "DELETE FROM log WHERE lvl = 'debug'" | gate 'cat >/dev/null')
expect_eq "no primary key, unchanged: applied" "$(field "$out" applied)" preview
expect_eq "no primary key, unchanged: the rows left" \
	"$(sqlite3 "$d/wd/t.db" 'SELECT group_concat(msg) FROM (SELECT msg FROM log ORDER BY msg)')" \
	junk2

# a trigger that rewrites rows of a table without a primary key: no
# statement counts them, and the row count stays, so the preview read
# "grants would hold 2 rows (2 before)" while the admin grant changed hands
sqlite3 "$d/wd/t.db" "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
	INSERT INTO users VALUES(1,'a'); CREATE TABLE grants(who TEXT, what TEXT);
	INSERT INTO grants VALUES('alice','admin'),('bob','read');
	CREATE TRIGGER tr AFTER UPDATE ON users BEGIN
	UPDATE grants SET who = 'mallory' WHERE what = 'admin'; END;"
sql g "UPDATE users SET name = 'b' WHERE id = 1" | preview "$d/wd" >"$d/trig.txt"
check "trigger rewriting rows without a key: the preview says they change" \
	grep -q '^ grants: rows it holds would change' "$d/trig.txt"

# a statement writing sqlite_sequence (no primary key, skipped as a
# system table) resets AUTOINCREMENT, so a new row takes a deleted one's
# id; the preview said "no rows would change"
sqlite3 "$d/wd/t.db" "CREATE TABLE ids(id INTEGER PRIMARY KEY AUTOINCREMENT, n TEXT);
	INSERT INTO ids(n) VALUES('root');"
sql s "UPDATE sqlite_sequence SET seq = 0" | preview "$d/wd" >"$d/seq.txt"
check "sqlite_sequence reset: not 'no rows would change'" \
	sh -c '! grep -q "no rows would change" "$1"' x "$d/seq.txt"
check "sqlite_sequence reset: the rows are counted" \
	grep -q '^ UPDATE would change 1 of 1 row in sqlite_sequence$' "$d/seq.txt"

# 20 harmless rows fill the rows listed; the change that matters, a
# trigger's UPDATE in another table, was only a count past them
sqlite3 "$d/wd/t.db" "CREATE TABLE staff(id INTEGER PRIMARY KEY, role TEXT);
	INSERT INTO staff VALUES(7, 'user'); CREATE TABLE aaa(id INTEGER PRIMARY KEY, v);
	CREATE TRIGGER tr2 AFTER INSERT ON aaa WHEN new.id = 20 BEGIN
	UPDATE staff SET role = 'admin' WHERE id = 7; END;"
sql r "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<25) INSERT INTO aaa SELECT x, x FROM c" |
	preview "$d/wd" >"$d/rows.txt"
check "a change past the rows listed: each table's first is listed" \
	grep -q "^~ staff id=7: role 'user' -> 'admin'$" "$d/rows.txt"

# a row line is cut at 4 KiB: 80 changed columns of long text hid the
# last one (role 'user' -> 'admin') without a word
cols=$(i=1; while [ $i -le 80 ]; do printf 'c%d TEXT, ' $i; i=$((i+1)); done)
sets=$(i=1; while [ $i -le 80 ]; do printf "c%d = printf('%%.55c', 'x'), " $i; i=$((i+1)); done)
sqlite3 "$d/wd/t.db" "CREATE TABLE wide(id INTEGER PRIMARY KEY, ${cols}role TEXT);
	INSERT INTO wide(id, role) VALUES(7, 'user');"
sql w "UPDATE wide SET ${sets}role = 'admin' WHERE id = 7" | preview "$d/wd" >"$d/wide.txt"
check "a wide row: the cut is stated and the columns past it named" \
	grep -q '\[\.\.\. 23 more columns not shown, the row cut at 4 KiB: c59, .*, c80, role\]$' "$d/wide.txt"

# the database named through a link swapped between preview and approval
# (t2.db -> a.db, then -> b.db, same rows): the previewed change was
# committed to a file no one previewed
sqlite3 "$d/wd/a.db" "CREATE TABLE u(id INTEGER PRIMARY KEY, n TEXT); INSERT INTO u VALUES(1,'x'),(2,'y');"
cp "$d/wd/a.db" "$d/wd/b.db"
ln -s a.db "$d/wd/t2.db"
out=$(jq -cn '{id:"k",tool:"sql",input:{database:"t2.db",query:"DELETE FROM u WHERE id = 1"}}' |
	gate "cat >/dev/null; ln -sfn b.db '$d/wd/t2.db'")
expect_eq "database link swapped: refused" "$(field "$out" decision)" error
expect_eq "database link swapped: the other file untouched" \
	"$(sqlite3 "$d/wd/b.db" 'SELECT count(*) FROM u')" 2

# a string cut at a statement the preview refuses (PRAGMA): the rest never
# ran in the preview, which showed one row deleted or "no rows would
# change"; the approved run emptied the table
sqlite3 "$d/wd/t.db" 'CREATE TABLE u(id INTEGER PRIMARY KEY); INSERT INTO u VALUES(1),(2),(3);'
sql p "DELETE FROM u WHERE id = 1; PRAGMA user_version; DELETE FROM u" | preview "$d/wd" >"$d/cut.txt"
check "cut at PRAGMA: the preview says the rest is not shown" \
	grep -q '^ statements from 2 on are not previewed: the rows they would change are not shown$' \
	"$d/cut.txt"
sql p2 "PRAGMA user_version; DELETE FROM u" | preview "$d/wd" >"$d/cut1.txt"
check "PRAGMA first: no 'no rows would change'" sh -c '! grep -q "no rows would change" "$1"' x \
	"$d/cut1.txt"
check "PRAGMA first: the preview says nothing is shown" \
	grep -q '^ statements from 1 on are not previewed' "$d/cut1.txt"
out=$(sql p3 "DELETE FROM u WHERE id = 1; PRAGMA user_version; DELETE FROM u" |
	gate "jq -r .preview > '$d/seen'")
check "cut at PRAGMA: the approver was told" grep -q 'statements from 2 on are not previewed' \
	"$d/seen"
expect_eq "cut at PRAGMA: run, not applied" "$(field "$out" applied)" run
check "cut at PRAGMA: the approver was told the call itself runs" \
	grep -q '^on approval the call itself runs' "$d/seen"

# a directory the preview writes into, removed between preview and
# approval: the new path in it still read as absent, so the apply began,
# changed a.txt, then stopped at d/new with the preview half applied
mkdir -p "$d/wd/dd"
echo old >"$d/wd/a.txt"
out=$(printf '%s\n' '{"id":"h","tool":"shell","input":{"command":"echo new > a.txt; echo n > dd/new"}}' |
	gate "cat >/dev/null; rm -rf '$d/wd/dd'")
expect_eq "parent removed since the preview: refused" "$(field "$out" decision)" error
expect_eq "parent removed since the preview: nothing applied" "$(cat "$d/wd/a.txt")" old

# a command that tells its dry run (the overlay in /proc/self/mountinfo)
# writes something harmless there and sleeps past the limit: the preview
# said "what it changed until then is shown", and the approved run, the
# command itself, deleted src/
mkdir -p "$d/wd/src"
echo code >"$d/wd/src/main.c"
out=$(printf '%s\n' '{"id":"t","tool":"shell","input":{"command":"if grep -q overlay /proc/self/mountinfo; then echo benign > notes.txt; sleep 5; else rm -rf src; fi","timeout_ms":1500}}' |
	gate "jq -r .preview > '$d/seen-t'")
expect_eq "a dry run told apart: run, not applied" "$(field "$out" applied)" run
check "a dry run told apart: the approver was told the call itself runs" \
	grep -q '^on approval the call itself runs, not this preview' "$d/seen-t"

# edit_file through a symlink runs (not applied); the preview said the
# edit "runs through it", yet the executor renames the result over the
# link: the link becomes a file, and what it pointed to is left as it was
printf 'one\ntwo\n' >"$d/wd/real.txt"
ln -s real.txt "$d/wd/link.txt"
out=$(printf '%s\n' '{"id":"e","tool":"edit_file","input":{"path":"link.txt","old_string":"two","new_string":"2"}}' |
	gate "jq -r .preview > '$d/seen-e'")
check "edit through a link: the preview says the link is replaced, not its target edited" \
	grep -q 'link.txt is a symlink to real.txt: the edit reads that file, and the link is replaced by a regular file holding the result; real.txt itself is not changed' "$d/seen-e"
expect_eq "edit through a link: its target unchanged, as the preview says" "$(cat "$d/wd/real.txt")" "one
two"

# a preview cut at 8 MiB names every change in its stat block first; a new
# file's mode (executable) was only in its "new file mode" header, past
# the cut
mkdir -p "$d/cut"
printf '%s\n' '{"tool":"shell","input":{"command":"for i in 1 2 3 4 5 6 7 8 9; do seq 1 200000 > big$i.txt; done; printf x > zrun; chmod 755 zrun"}}' |
	preview "$d/cut" >"$d/cut8.txt"
check "cut preview: it is cut" grep -q '^\[preview cut at 8 MiB\]' "$d/cut8.txt"
check "cut preview: a new executable's mode is named" \
	grep -q '^ zrun  *| 1 +1 -0, mode 100755$' "$d/cut8.txt"

# a dry run writing thousands of files into a nested .git made a note for
# each (each compared with all before it: 45,000 held the gate 23 s), a
# wall of lines before the stat block and the deletion named after it
mkdir -p "$d/many/src"
echo code >"$d/many/src/main.c"
printf '%s\n' '{"tool":"shell","input":{"command":"rm -rf src; mkdir -p sub/.git; cd sub/.git; i=0; while [ $i -lt 2000 ]; do : > f$i; i=$((i+1)); done"}}' |
	preview "$d/many" >"$d/many.txt"
check "many guarded paths: at most 20 notes listed" \
	test "$(grep -c '^note: the dry run changed' "$d/many.txt")" -le 20
check "many guarded paths: the rest are counted" \
	grep -q '^note: \.\.\. and [0-9]* more notes (not listed)$' "$d/many.txt"
check "many guarded paths: the deletion is near the top" \
	sh -c 'grep -n "^ src  *| deleted directory" "$1" | cut -d: -f1 | awk "\$1 < 40 {ok=1} END {exit !ok}"' x "$d/many.txt"

# a dry run that cannot start (the sandbox refuses a secret file with a
# second hard link) changed nothing because it never ran: " no changes"
# read as a harmless call, which approval then runs unpreviewed
mkdir -p "$d/hl"
echo S=1 >"$d/hl/.env"
ln "$d/hl/.env" "$d/hl/other"
printf '%s\n' '{"tool":"shell","input":{"command":"echo hi > f"}}' | preview "$d/hl" >"$d/hl.txt"
if grep -q 'dry run unavailable' "$d/hl.txt"; then
	check "dry run unavailable: not shown as no changes" sh -c '! grep -q "^ no changes$" "$1"' x \
		"$d/hl.txt"
	check "dry run unavailable: says the changes are unknown" \
		grep -q '^ the dry run did not run: what the command changes is not known$' "$d/hl.txt"
fi

finish
