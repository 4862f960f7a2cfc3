#!/bin/sh
# 146-sql-review3.sh: a third hostile review of how SQL is classified and
# previewed, through the real binary. On 0895477: `SELECT purge_all()` was
# low (auto-run) and `CALL p()` medium, though a function's body may
# delete anything; LOCK TABLE and VACUUM FULL were medium as statements
# with no rating, MySQL's LOCK TABLES, SET ROLE, SELECT ... FOR UPDATE and
# PREPARE TRANSACTION low; DROP OWNED BY (every object a role owns) high
# as one DROP; `UPDATE t SET a = 1 WHERE id = 1 OR 1` and MySQL's `WHERE
# 1=1 LIMIT 5` scoped (medium); SQLite's PRAGMA writable_schema = 1 and
# foreign_keys = OFF medium, an UPDATE of sqlite_master a scoped medium.
# The preview of an upsert into a table keyed by UNIQUE alone said "INSERT
# would add 2 rows" and "1 row removed" where one row was added and one
# changed, and a write to a table with generated columns was blamed on
# "a table the statements changed, then dropped?". Classify runs nothing;
# previews run on a copy of a scratch database.
. tests/e2e/lib.sh
need jq sqlite3
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME" "$d/wd"

# tier, a rule that must fire, how (sql: the sql tool's query; shell: a
# command), the text (TAB-separated)
printf '%s\n' \
	'high	sql.call	sql	SELECT purge_all()' \
	'high	sql.call	sql	SELECT * FROM purge_all()' \
	'high	sql.call	sql	SELECT public.purge_all()' \
	'high	sql.call	sql	VALUES (purge_all())' \
	'high	sql.call	sql	CALL archive_old()' \
	'high	sql.call	sql	SELECT purge_all() FROM dual LIMIT 1, 2' \
	'high	sql.call	sql	SELECT `purge_all`() LIMIT 1, 2' \
	'high	sql.call	shell	psql -c "SELECT purge_all()"' \
	'high	sql.call	shell	mysql -e "CALL archive_old()"' \
	'high	sql.lock	sql	LOCK TABLE t' \
	'high	sql.lock	sql	VACUUM FULL' \
	'high	sql.lock	sql	CLUSTER t' \
	'high	sql.lock	sql	LOCK TABLES t WRITE' \
	'high	sql.lock	shell	mysql -e "LOCK TABLES t READ"' \
	'high	sql.lock	sql	PREPARE TRANSACTION '"'x'" \
	'medium	sql.lock	sql	SELECT * FROM t WHERE id = 1 FOR UPDATE' \
	'high	sql.admin	sql	SET ROLE postgres' \
	'high	sql.admin	sql	SET SESSION AUTHORIZATION postgres' \
	'high	sql.admin	shell	mysql -e "SET ROLE admin"' \
	'high	sql.admin	sql	COMMIT PREPARED '"'x'" \
	'critical	sql.drop.cascade	sql	DROP OWNED BY app' \
	'critical	sql.drop.cascade	sql	DROP EXTENSION postgis CASCADE' \
	'critical	sql.drop.cascade	sql	DROP TYPE mood CASCADE' \
	'critical	db.wipe	shell	sqlite3 app.db '"'.dbconfig reset_database on'"' VACUUM' \
	'high	sql.admin	shell	sqlite3 app.db '"'.dbconfig enable_fkey off'"' '"'DELETE FROM p WHERE id = 1'"'' \
	'high	sql.grant	sql	ALTER TABLE accounts DISABLE ROW LEVEL SECURITY' \
	'high	sql.grant	sql	ALTER TABLE accounts OWNER TO app' \
	'high	sql.grant	sql	ALTER FUNCTION f() SECURITY DEFINER' \
	'high	sql.exec	sql	LOAD '"'/tmp/x.so'"'; SELECT 1 LIMIT 1, 2' \
	'high	sql.server_file	shell	echo "SELECT ^; COPY t FROM '"'/etc/passwd'"';" | psql' \
	'high	sql.admin	sql	ALTER ROLE app SUPERUSER; SELECT 1 LIMIT 1, 2' \
	'high	sql.drop	sql	SELECT a['"'] FROM t; DROP TABLE t; --'"'] FROM t' \
	'high	sql.drop	shell	sqlite3 app.db "SELECT a['"'] FROM t; DROP TABLE t; --'"'] FROM t"' \
	'high	sql.update.no_where	sql	UPDATE t SET a = 1 WHERE id = 1 OR 1' \
	'high	sql.update.no_where	sql	UPDATE t SET a = 1 WHERE id = 1 OR 2 > 1' \
	'high	sql.update.no_where	sql	UPDATE t SET a = 1 WHERE 1=1 LIMIT 5' \
	'high	sql.update.no_where	shell	sqlite3 app.db "UPDATE t SET a = 1 WHERE id = 1 OR 1"' \
	'high	sql.delete.no_where	sql	DELETE FROM t WHERE id = 1 OR 1' \
	'high	sql.delete.no_where	shell	mysql -e "DELETE FROM t WHERE true LIMIT 5"' \
	'high	sql.admin	sql	PRAGMA writable_schema = 1' \
	'high	sql.admin	sql	PRAGMA foreign_keys = OFF' \
	'high	sql.admin	sql	PRAGMA schema_version = 5' \
	'high	sql.drop	sql	UPDATE sqlite_master SET sql = '"'x'"' WHERE name = '"'t'" \
	'high	sql.admin	sql	RESET PERSIST' \
	'high	sql.admin	sql	SET DEFAULT ROLE ALL TO u' \
	'high	sql.call	sql	SELECT pg_catalog.purge_all()' \
	'high	sql.exec	shell	ID=$(cat id.txt); psql -c "SELECT * FROM t WHERE id = $ID"' \
	'high	sql.exec	shell	psql -c "SELECT * FROM t WHERE id = $(cat id.txt)"' \
	'high	sql.exec	shell	psql -c "UPDATE t SET a = 1 WHERE ${COND:-id = 1}"' \
	'high	sql.exec	shell	mysql -e "DELETE FROM t WHERE id = $ID LIMIT 1"' >"$d/table"

while IFS='	' read -r tier rule how text; do
	if [ "$how" = sql ]; then
		v=$(jq -cn --arg q "$text" '{id:"c",tool:"sql",input:{query:$q,database:"app.db"}}' |
			(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd"))
	else
		v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "$text")
	fi
	expect_eq "$text: tier" "$(printf '%s' "$v" | jq -r .tier)" "$tier"
	expect_eq "$text: $rule" "$(printf '%s' "$v" | jq -r --arg r "$rule" '.rules | index($r) != null')" true
done <"$d/table"

# what stays as it was: built-ins that only compute, scoped writes,
# settings that go back to the login's own role, the safe pragma values
for q in 'SELECT count(*), max(id), lower(name), coalesce(a, 0) FROM t' \
	"SELECT now(), date_trunc('day', now()), to_char(now(), 'YYYY'), gen_random_uuid()" \
	"SELECT json_extract(d, '\$.a'), strftime('%s', 'now'), iif(1, 2, 3) FROM t" \
	"SELECT * FROM pragma_table_info('t')" 'SET ROLE NONE' 'RESET ROLE' \
	'SELECT count(*), lower(`name`) FROM `t` LIMIT 1, 2'; do
	v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --sql "$q")
	expect_eq "$q: low" "$(printf '%s' "$v" | jq -r .tier)" low
done
for q in 'UPDATE t SET a = 1 WHERE id = 1 OR 0' 'UPDATE `t` SET a = 1 WHERE `id` = 1 LIMIT 2' \
	'PRAGMA foreign_keys = ON'; do
	v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --sql "$q")
	expect_eq "$q: medium" "$(printf '%s' "$v" | jq -r .tier)" medium
done

# a value the script gives is judged as that value, and PostgreSQL's own
# $1 and $$ quotes are no shell text
for c in 'ID=5; psql -c "SELECT * FROM t WHERE id = $ID"' \
	'for id in 1 2; do psql -c "SELECT * FROM t WHERE id = ${id}"; done' \
	"psql -c 'SELECT \$\$ a \$\$, \$1'"; do
	v=$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "$c")
	expect_eq "$c: low" "$(printf '%s' "$v" | jq -r .tier)" low
done
expect_eq "ID='1; DROP TABLE t'; psql ... \$ID: the DROP read" \
	"$(cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "ID='1; DROP TABLE t'; psql -c \"SELECT * FROM t WHERE id = \$ID\"" | jq -r '.rules | join(",")')" \
	sql.drop

# under the default policy a call of a function no table knows asks; it
# ran on its own
act() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" "$@") | jq -r .action; }
expect_eq "SELECT purge_all(): ask" "$(act --sql 'SELECT purge_all()')" ask
expect_eq "SELECT lower(name) FROM t: auto" "$(act --sql 'SELECT lower(name) FROM t')" auto

# previews: every tier asks, with a writable workdir
printf '[profile "p"]\n\tworkdir = rw\n' >"$d/p.policy"
printf '[tier "%s"]\n\taction = ask\n\tprofile = p\n' low low medium medium high high >>"$d/p.policy"
chmod 600 "$d/p.policy"
sqlcall() { jq -cn --arg q "$1" '{id:"p",tool:"sql",input:{database:"t.db",query:$q}}'; }
preview() { "$AIRLOCK" preview --workdir "$d/wd" --policy "$d/p.policy"; }

# an upsert into a table whose only key is UNIQUE: one row changed, one
# added, none removed
sqlite3 "$d/wd/t.db" "CREATE TABLE kv(k TEXT UNIQUE, v INT); INSERT INTO kv VALUES('a',1),('b',2);"
sqlcall "INSERT INTO kv VALUES('a',10),('z',1) ON CONFLICT(k) DO UPDATE SET v = excluded.v" |
	preview >"$d/upsert.txt" 2>&1
check "upsert, UNIQUE key only: one row changed" grep -q 'UPDATE would change 1 of 2 rows in kv' "$d/upsert.txt"
check "upsert, UNIQUE key only: one row added" grep -q 'INSERT would add 1 row to kv' "$d/upsert.txt"
check "upsert, UNIQUE key only: nothing said removed" sh -c "! grep -q 'removed that no statement counts' '$d/upsert.txt'"
check "upsert, UNIQUE key only: the changed row listed" grep -q "^+ kv rowid=1 k='a' v=10" "$d/upsert.txt"
out=$(sqlcall "INSERT INTO kv VALUES('a',10),('z',1) ON CONFLICT(k) DO UPDATE SET v = excluded.v" |
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$d/wd" --policy "$d/p.policy" --approve-with 'cat >/dev/null')
expect_eq "upsert, UNIQUE key only: applied as previewed" "$(printf '%s' "$out" | jq -r .applied)" preview
expect_eq "upsert, UNIQUE key only: the rows after" "$(sqlite3 "$d/wd/t.db" "SELECT group_concat(k || v) FROM kv")" a10,b2,z1

# a table with generated columns: SQLite's session refuses the changeset,
# and the screen says which table and why
sqlite3 "$d/wd/t.db" "CREATE TABLE g(id INTEGER PRIMARY KEY, a INT, b INT GENERATED ALWAYS AS (a * 2) STORED); INSERT INTO g(id, a) VALUES(1, 1);"
sqlcall "UPDATE g SET a = 3" | preview >"$d/gen.txt" 2>&1
check "generated columns: the screen names the cause" grep -q 'g has generated columns' "$d/gen.txt"
check "generated columns: it says the rows are not previewed" grep -q 'the rows are not previewed' "$d/gen.txt"
check "generated columns: no guess of a dropped table" sh -c "! grep -q 'then dropped' '$d/gen.txt'"
expect_eq "generated columns: the preview changed nothing" "$(sqlite3 "$d/wd/t.db" "SELECT b FROM g")" 2

# an E'' string: PostgreSQL's grammar reads \' as a quote inside it,
# SQLite ends the string there and runs the DROP after it. It was low: the
# sql tool ran it unasked, and under a policy whose low tier may write
# the workdir (the default's read-only profile made the DROP fail) t was
# gone.
mkdir -p "$d/wd2"
sqlite3 "$d/wd2/e.db" "CREATE TABLE t(a); INSERT INTO t VALUES (1);"
printf '[tier "low"]\n\tprofile = workspace\n' >"$d/low-rw.policy"
chmod 600 "$d/low-rw.policy"
q="SELECT E'a\\' FROM (SELECT 1 AS E); DROP TABLE t; --'"
out=$(jq -cn --arg q "$q" '{id:"e",tool:"sql",input:{database:"e.db",query:$q}}' |
	"$AIRLOCK" gate --no-tty --db "$d/g2.db" --workdir "$d/wd2" --policy "$d/low-rw.policy" 2>/dev/null)
expect_eq "E'a\\' ...; DROP TABLE t: asked, not run" "$(printf '%s' "$out" | jq -r .decision)" denied
expect_eq "E'a\\' ...; DROP TABLE t: t is still there" \
	"$(sqlite3 "$d/wd2/e.db" "SELECT count(*) FROM sqlite_master WHERE name = 't'")" 1

# DROP VIEW: a view holds no rows of its own; it read "DROP would remove
# table v with its 2 rows" while b kept them
sqlite3 "$d/wd/t.db" "CREATE TABLE b(id INTEGER PRIMARY KEY); INSERT INTO b VALUES (1), (2); CREATE VIEW v AS SELECT * FROM b;"
sqlcall "DROP VIEW v" | preview >"$d/view.txt" 2>&1
check "DROP VIEW: the schema line" grep -q 'schema: DROP VIEW v' "$d/view.txt"
check "DROP VIEW: no rows said removed" sh -c "! grep -q 'DROP would remove table v' '$d/view.txt'"

# ALTER TABLE ... DROP COLUMN: the values it takes out of every row are
# in no changeset; the schema line says which column and how many rows
sqlite3 "$d/wd/t.db" "CREATE TABLE c(id INTEGER PRIMARY KEY, pid INT); INSERT INTO c VALUES(1, 1), (2, 1), (3, 2);"
sqlcall "ALTER TABLE c DROP COLUMN pid" | preview >"$d/alter.txt" 2>&1
check "DROP COLUMN: the preview names the column and the rows" \
	grep -q 'schema: ALTER TABLE c drops column pid: its values in 3 rows are lost' "$d/alter.txt"
expect_eq "DROP COLUMN: the preview changed nothing" \
	"$(sqlite3 "$d/wd/t.db" "SELECT count(*) FROM pragma_table_info('c')")" 2

# a statement the grammar rejects beside one it reads: the one it reads is
# walked too, and each finding is listed once (the split kept the blank
# after the ';', so its span differed from the keyword reading's)
expect_eq "SELECT ^; DELETE FROM t: each rule once" \
	"$(cd "$d/wd" && "$AIRLOCK" classify --sql 'SELECT ^; DELETE FROM t' | jq -c .rules)" \
	'["sql.delete","sql.delete.no_where"]'

finish
