#!/bin/sh
# 95-audit-review2.sh: what a second hostile review of the audit log found,
# each failing before its fix: a column whose type was changed kept its hash
# (a call hidden from list and `verify --index`, a cut session hidden from
# the open-session count); a NULL column crashed verify; an anchors row
# anyone can insert answered `verify --pin` for a rewritten log; an index
# built on another expression and renamed moved events between calls
# unseen; a URL password was redacted only up to its first '@'; a private
# key in base64 was stored whole; a rejected line's head and a call's
# 200-byte summary kept the start of a token they cut; two object keys
# redacted alike kept one value; a NUL byte after a format 1 event's text
# was not hashed; passwords in variables and options were stored; a prune
# anchor at INT64_MAX overflowed verify's next id; a second head anchor
# row passed verify.
. tests/e2e/lib.sh
need sqlite3
d=$(mktemp -d /tmp/airlock-audit-review2.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd"
gate() { (cd "$d/wd" && "$A" gate --no-tty --db "$1") >/dev/null 2>&1; }
untrigger() { sqlite3 "$1" "DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete; $2"; }
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"rm -rf build"}}' \
	'{"id":"2","tool":"shell","input":{"command":"ls"}}' >"$d/two.in"
gate "$d/base.db" <"$d/two.in"
check "the log verifies" "$A" audit verify --index --db "$d/base.db"

# a received event's kind stored as a BLOB (same bytes, same hash) and its
# index row removed: the call vanished from list and verify --index passed
cp "$d/base.db" "$d/h.db"
untrigger "$d/h.db" "UPDATE events SET kind = CAST(kind AS BLOB) WHERE id =
	(SELECT min(id) FROM events WHERE kind = 'received');
	DELETE FROM call_index WHERE id = (SELECT min(id) FROM call_index);
	DELETE FROM call_rules WHERE call NOT IN (SELECT id FROM call_index)"
"$A" audit verify --index --db "$d/h.db" >"$d/h.out" 2>&1
expect_eq "kind as a blob: verify fails" "$?" 1
check "kind as a blob: named as an edit" grep -q "another type" "$d/h.out"

# a call id stored as 3.5 reads back as 3: its decision left `audit show`
cp "$d/base.db" "$d/r.db"
untrigger "$d/r.db" "UPDATE events SET call = call + 0.5 WHERE kind = 'decided'"
"$A" audit verify --db "$d/r.db" >/dev/null 2>&1
expect_eq "call as a real: verify fails" "$?" 1

# the tail cut with the head anchor moved leaves an open session; a
# session_start stored as a BLOB hid it from the count
cp "$d/base.db" "$d/s.db"
untrigger "$d/s.db" "DELETE FROM events WHERE kind = 'session_end';
	UPDATE chain_head SET (id, hash) = (SELECT id, hash FROM events ORDER BY id DESC LIMIT 1);
	UPDATE events SET kind = CAST(kind AS BLOB) WHERE kind = 'session_start'"
"$A" audit verify --db "$d/s.db" >/dev/null 2>&1
expect_eq "cut session hidden by a blob kind: verify fails" "$?" 1

# a NULL kind beside a large body: verify hashed the body's length from ""
cp "$d/base.db" "$d/n.db"
sqlite3 "$d/n.db" "PRAGMA writable_schema = 1;
	UPDATE sqlite_schema SET sql = replace(sql, 'kind TEXT NOT NULL', 'kind TEXT')
	WHERE name = 'events'"
untrigger "$d/n.db" "UPDATE events SET kind = NULL, body = body || hex(randomblob(4000000))
	WHERE id = 3"
"$A" audit verify --db "$d/n.db" >"$d/n.out" 2>&1
expect_eq "NULL kind: verify reports an edit, no crash" "$?" 1
check "NULL kind: names event 3" grep -q "event 3 was edited" "$d/n.out"

# a pin from one log "held" on another: an anchors row, which anyone can
# insert, answered it although the chain starts from a newer anchor
printf '%s\n' '{"id":"p","tool":"shell","input":{"command":"ls"}}' >"$d/one.in"
gate "$d/p1.db" <"$d/one.in"
pin=$("$A" audit verify --db "$d/p1.db" | sed -n 's/^head \([0-9]*:[0-9a-f]*\).*/\1/p')
gate "$d/p2.db" <"$d/two.in"
gate "$d/p2.db" <"$d/two.in"
"$A" audit prune --before 2099-01-01 --db "$d/p2.db" >/dev/null
sqlite3 "$d/p2.db" "INSERT INTO anchors VALUES (${pin%%:*}, X'${pin#*:}', '2020-01-01', 1)"
"$A" audit verify --db "$d/p2.db" --pin "$pin" >"$d/p.out" 2>&1
expect_eq "an old anchors row does not answer a pin" "$?" 1
# a pin on the newest prune anchor, which the chain confirms, still holds
gate "$d/p3.db" <"$d/two.in"
pin=$("$A" audit verify --db "$d/p3.db" | sed -n 's/^head \([0-9]*:[0-9a-f]*\).*/\1/p')
"$A" audit prune --before 2099-01-01 --db "$d/p3.db" >/dev/null
gate "$d/p3.db" <"$d/one.in"
check "a pin on the newest prune anchor holds" "$A" audit verify --db "$d/p3.db" --pin "$pin"

# a password with an unencoded @ (pip and requests read "u:p@ss@host" as
# password "p@ss"): the part after the first @ was stored in clear
printf '%s\n' '{"id":"u","tool":"shell","input":{"command":"pip download --index-url https://bob:hunter2@Secr3tPart@127.0.0.1:9/simple x"}}' |
	gate "$d/u.db"
check "url password after an @: not on disk" sh -c "! sqlite3 '$d/u.db' 'SELECT body FROM events' | grep -q Secr3tPart"
check "url password after an @: the host stays" sh -c "sqlite3 '$d/u.db' 'SELECT body FROM events' | grep -q 'bob:\[REDACTED:password\]@127.0.0.1'"

# an index built on another expression, then given the real one's text:
# `audit show` listed another call's decision under a call and hid its own
# while verify passed; a forged call_index_tier hid a call from
# `list --tier` while verify --index passed
forge_index() { # db name table expression
	sqlite3 "$1" "DROP INDEX $2; CREATE INDEX $2 ON $3($4); PRAGMA writable_schema = 1;
		UPDATE sqlite_schema SET sql = replace(sql, '$4', '$5') WHERE name = '$2'"
}
cp "$d/base.db" "$d/x.db"
call1=$(sqlite3 "$d/x.db" "SELECT min(id) FROM call_index")
dec1=$(sqlite3 "$d/x.db" "SELECT id FROM events WHERE call = $call1 AND kind = 'decided'")
dec2=$(sqlite3 "$d/x.db" "SELECT max(id) FROM events WHERE kind = 'decided'")
forge_index "$d/x.db" events_call events "CASE WHEN id = $dec1 THEN -1 WHEN id = $dec2 THEN $call1 ELSE call END" call
"$A" audit verify --db "$d/x.db" >"$d/x.out" 2>&1
expect_eq "forged events index: verify fails" "$?" 1
check "forged events index: says so" grep -q "indexes disagree" "$d/x.out"
cp "$d/base.db" "$d/y.db"
expect_eq "list --tier medium shows the call" \
	"$("$A" audit list --tier medium --db "$d/y.db" | grep -c 'rm -rf')" 1
forge_index "$d/y.db" call_index_tier call_index "CASE WHEN id = $call1 THEN 3 ELSE tier END" tier
expect_eq "forged tier index: the call is hidden from list --tier" \
	"$("$A" audit list --tier medium --db "$d/y.db" | grep -c 'rm -rf')" 0
"$A" audit verify --index --db "$d/y.db" >"$d/y.out" 2>&1
expect_eq "forged tier index: verify --index fails" "$?" 1
check "the untouched log still verifies" "$A" audit verify --index --db "$d/base.db"

# a private key in base64 (a Kubernetes secret's tls.key, `base64 id_rsa`)
# was stored whole, in the command and in the wrapped output
k=LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0KYjNCbGJuTnphQzFyWlhrdGRqRUFBQUFBQkc1dmJtVUFBQUFFYm05dVpRQUFBQUFBQUFBQkFBQUFNd0FBQUF0emMyZ3RaV1F5TlRVeE9RCi0tLS0tRU5EIE9QRU5TU0ggUFJJVkFURSBLRVktLS0tLQo=
printf '%s\n' "{\"id\":\"k\",\"tool\":\"shell\",\"input\":{\"command\":\"echo $k | base64 -d | base64\"}}" |
	gate "$d/k.db"
check "base64 key: its output was recorded" sh -c "sqlite3 '$d/k.db' \"SELECT body FROM events WHERE kind = 'finished'\" | grep -q 'REDACTED:private-key'"
check "base64 key: no part on disk" sh -c "! sqlite3 '$d/k.db' 'SELECT body FROM events' | grep -q 'LS0tLS1CRUdJTi\\|YjNCbGJuTnphQzFy\\|LS0tLS1FTkQ'"

# a rejected line's first 256 bytes ended inside a token: its first 20
# characters were stored, too short for any shape
python3 -c "print('{\"id\":\"1\",\"tool\":\"shell\",\"input\":{\"command\":\"' + 'x' * 190 + ' ghp_abcdefghijklmnopqrstuvwxyz0123456789\"')" |
	gate "$d/j.db"
check "rejected head: recorded" sh -c "sqlite3 '$d/j.db' \"SELECT body FROM events WHERE kind = 'rejected'\" | grep -q 'xxx \[REDACTED:cut-word\]'"
check "rejected head: no part of the token on disk" sh -c "! sqlite3 '$d/j.db' 'SELECT body FROM events' | grep -q ghp_abc"

# the 200-byte summary was cut before it was redacted: a token the cut
# split stayed in the summary and the call index by its first characters
python3 -c "print('{\"id\":\"1\",\"tool\":\"shell\",\"input\":{\"command\":\"echo ' + 'x' * 170 + ' ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}')" |
	gate "$d/m.db"
check "cut summary: no part of the token in the events" sh -c "! sqlite3 '$d/m.db' 'SELECT body FROM events' | grep -q ghp_abc"
check "cut summary: none in the call index" sh -c "! sqlite3 '$d/m.db' 'SELECT summary FROM call_index' | grep -q ghp_abc"
check "cut summary: the index matches the chain" "$A" audit verify --index --db "$d/m.db"

# two keys redacted to one: the first key's value never reached the log
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"ls","ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":"first value","ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb":"second value"}}' |
	gate "$d/q.db"
expect_eq "keys redacted alike: both values kept" \
	"$(sqlite3 "$d/q.db" "SELECT count(*) FROM events, json_each(events.body, '\$.input') j WHERE kind = 'received' AND j.value LIKE '% value'")" 2

# a format 1 (schema v1) event hashes each text only up to a NUL byte:
# "received" plus a NUL hid a denied call from list, verify --index passing
sqlite3 "$d/v1.db" <tests/data/db/v1.sql
"$A" audit verify --db "$d/v1.db" >/dev/null 2>&1
untrigger "$d/v1.db" "UPDATE events SET kind = kind || char(0) WHERE id = 6;
	DELETE FROM call_index WHERE id = 6; DELETE FROM call_rules WHERE call = 6"
"$A" audit verify --index --db "$d/v1.db" >"$d/v1.out" 2>&1
expect_eq "v1 kind with a NUL: verify fails" "$?" 1
check "v1 kind with a NUL: names event 6" grep -q "event 6 was edited" "$d/v1.out"

# passwords in variables and options were stored in clear (a documented
# limit then): PGPASSWORD=, MYSQL_PWD=, --password=, "password": "..."
python3 -c 'import json
for i, c in enumerate(["PGPASSWORD=Sup3rS3cretPw psql -h 127.0.0.1 -p 9 -c \"select 1\"",
		"echo \x27{\"password\": \"Sup3rS3cretPw2\"}\x27; echo PWD=$PWD"]):
	print(json.dumps({"id": str(i), "tool": "shell", "input": {"command": c}}))' | gate "$d/w.db"
check "password variable: not on disk" sh -c "! sqlite3 '$d/w.db' 'SELECT body FROM events' | grep -q Sup3rS3cretPw"
check "password variable: the name stays" sh -c "sqlite3 '$d/w.db' 'SELECT body FROM events' | grep -q 'PGPASSWORD=\[REDACTED:password\]'"
check "the working directory is not taken for a password" sh -c "sqlite3 '$d/w.db' 'SELECT body FROM events' | grep -q 'PWD=/'"

# passwords given as their own word or attached to an option (a documented
# limit until this change): --password X, mysql -pX, curl -u u:X,
# sshpass -p X, all stored in clear on 4784450
python3 -c 'import json
for i, c in enumerate(["mysql -h 127.0.0.1 -P 9 -uroot -pSepW0rdPw1 -e \"select 1\"",
		"curl -s -u bob:SepW0rdPw2 http://127.0.0.1:9/", "sshpass -p SepW0rdPw3 true",
		"docker login --password SepW0rdPw4 -u bob", "mkdir -p out && ls -p out"]):
	print(json.dumps({"id": str(i), "tool": "shell", "input": {"command": c}}))' | gate "$d/sw.db"
check "password words: none on disk" sh -c "! sqlite3 '$d/sw.db' 'SELECT body FROM events' | grep -q SepW0rdPw"
check "password words: mysql's option stays" sh -c "sqlite3 '$d/sw.db' 'SELECT body FROM events' | grep -qF -- '-p[REDACTED:password]'"
check "password words: curl's user stays" sh -c "sqlite3 '$d/sw.db' 'SELECT body FROM events' | grep -qF -- '-u bob:[REDACTED:password]'"
check "password words: mkdir -p is no password" sh -c "sqlite3 '$d/sw.db' 'SELECT body FROM events' | grep -qF -- 'mkdir -p out && ls -p out'"

# a prune anchor through INT64_MAX: verify computed through + 1 (signed
# overflow) and named "event -9223372036854775808" as missing
cp "$d/base.db" "$d/o.db"
sqlite3 "$d/o.db" "INSERT INTO anchors VALUES (9223372036854775807, zeroblob(32), 'x', 1)"
"$A" audit verify --db "$d/o.db" >"$d/o.out" 2>&1
expect_eq "anchor at INT64_MAX: verify fails" "$?" 1
check "anchor at INT64_MAX: named as a forged anchor" grep -q "prune anchor names event 9223372036854775807" "$d/o.out"

# a second head anchor row: verify read the first and said ok, while every
# gate failed to move the head ("not an error")
cp "$d/base.db" "$d/hh.db"
sqlite3 "$d/hh.db" "INSERT INTO chain_head VALUES (1, zeroblob(32))"
"$A" audit verify --db "$d/hh.db" >"$d/hh.out" 2>&1
expect_eq "two head rows: verify fails" "$?" 1
check "two head rows: named" grep -q "not one row" "$d/hh.out"
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"touch ran"}}' >"$d/hh.in"
(cd "$d/wd" && "$A" gate --no-tty --db "$d/hh.db" <"$d/hh.in" >/dev/null 2>"$d/hh.err")
check "two head rows: the gate refuses, pointing to verify" grep -q "audit verify" "$d/hh.err"
check "two head rows: nothing ran" test ! -e "$d/wd/ran"
finish
