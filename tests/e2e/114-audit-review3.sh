#!/bin/sh
# 114-audit-review3.sh: what a third hostile review of the audit log found,
# each failing before its fix: a shared log whose schema names hold escape
# sequences drove the reviewer's terminal through SQLite's error message;
# `show --json`, `list --json` and `export --format jsonl` wrote the
# agent's C1 controls (U+009B is CSI) and bidi overrides raw, and the CSV
# export an edited index's escape sequences; credentials
# named as such (API_TOKEN=, X-Api-Key:, --token, a .env's SECRET_KEY=)
# were stored; a password given to an option was stored in the paths the
# classifier listed as read; a Java property's dotted password key; `show` said "integrity: ok" over a call
# index row edited to show a call that ran as denied, and over an edited
# session start (user, cwd) shown beside the call; `prune --before DATE`
# removed every event up to the last one older than DATE, so a session
# written while the clock was wrong (2001) took today's calls with it; a
# secret spelled with escapes (a JSON file's \u0041KIA..., printf '\x67hp_')
# was stored, and one in base64 or hex (a command's output, a Kubernetes
# secret) too.
. tests/e2e/lib.sh
need sqlite3
need python3
need cc
d=$(mktemp -d /tmp/airlock-audit-review3.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd"
gate() { (cd "$d/wd" && "$A" gate --no-tty --db "$1") >/dev/null 2>&1; }
esc=$(printf '\033')
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"ls"}}' >"$d/one.in"
gate "$d/base.db" <"$d/one.in"
check "the log verifies" "$A" audit verify --index --db "$d/base.db"

# a schema entry named with an OSC sequence: SQLite's "malformed database
# schema (NAME)" carried it to the terminal raw
cp "$d/base.db" "$d/m.db"
sqlite3 "$d/m.db" "PRAGMA writable_schema = 1; INSERT INTO sqlite_schema VALUES ('table',
	char(27) || ']0;PWNED' || char(7), 'x', 0, 'CREATE TABLE ' || char(27) || '[31m x(')"
for sub in list verify stats; do
	"$A" audit $sub --db "$d/m.db" >"$d/m.out" 2>&1
	check "schema names: $sub prints no ESC" sh -c "! grep -q '$esc' '$d/m.out'"
done
check "schema names: shown escaped" grep -q 'x1b]0;PWNED' "$d/m.out"

# C1 CSI and a bidi override in a command: the JSON outputs wrote them raw
python3 -c 'import json; print(json.dumps({"id": "1", "tool": "shell",
	"input": {"command": "echo safe \u202e\u009b31m\u200b hi"}}))' >"$d/c1.in"
gate "$d/c1.db" <"$d/c1.in"
id=$("$A" audit list --db "$d/c1.db" | awk 'NR == 1 { print $1 }')
c1=$(printf '\302\233')
bidi=$(printf '\342\200\256')
for sub in "list --json" "show $id --json" "export --format jsonl"; do
	"$A" audit $sub --db "$d/c1.db" >"$d/c1.out" 2>&1
	check "C1/bidi: $sub prints no raw C1" sh -c "! grep -q '$c1' '$d/c1.out'"
	check "C1/bidi: $sub prints no raw bidi" sh -c "! grep -q '$bidi' '$d/c1.out'"
done
# the index's tool and name (no hash covers them) edited the same way
sqlite3 "$d/c1.db" "UPDATE call_index SET tool = 'sh' || char(155) || '31m',
	name = 'x' || char(8238)"
for sub in "list --json" "stats --json" "export --format csv"; do
	"$A" audit $sub --db "$d/c1.db" >"$d/c1.out" 2>&1
	check "edited index: $sub prints no raw C1" sh -c "! grep -q '$c1' '$d/c1.out'"
done
sqlite3 "$d/c1.db" "UPDATE call_index SET who = char(27) || ']0;PWNED' || char(7)"
"$A" audit export --format csv --db "$d/c1.db" >"$d/c1.out" 2>&1
check "edited index: csv prints no ESC" sh -c "! grep -q '$esc' '$d/c1.out'"
check "edited index: csv shows it escaped" grep -q 'x1b]0;PWNED' "$d/c1.out"
"$A" audit export --format jsonl --db "$d/c1.db" >"$d/c1.jsonl"
check "C1/bidi: jsonl still exact" python3 -c 'import json, sys
c = json.loads(open(sys.argv[1]).readline())
assert "\u202e\u009b31m\u200b" in json.dumps(c, ensure_ascii=False)' "$d/c1.jsonl"

# credentials by name, and an option's password among the paths read
python3 -c 'import json
calls = [("shell", {"command": "curl -H \"X-Api-Key: Zq7f3a9c1e5b2d8f4a6c0\" https://x.example/"}),
	("shell", {"command": "export API_TOKEN=Zq7f3a9c1e5b2d8f4a6c1; ./deploy"}),
	("write_file", {"path": ".env", "content": "SECRET_KEY=Zq7f3a9c1e5b2d8f4a6c2\n"}),
	("shell", {"command": "mytool --token Zq7f3a9c1e5b2d8f4a6c3 --api-key Zq7f3a9c1e5b2d8f4a6c4"}),
	("shell", {"command": "sometool --password Zq7f3a9c1e5b2d8f4a6c5 out.txt"}),
	("write_file", {"path": "application.properties", "content": "spring.datasource.password=Zq7f3a9c1e5b2d8f4a6c6\n"}),
	("write_file", {"path": "k.json", "content": "{\"k\": \"\\u0041KIAZQ7F3A9C1E5B2D6X\"}"}),
	("shell", {"command": "printf \"\\x67hp_Zq7f3a9c1e5b2d8f4a6c7Zq7f3a9c1e5b2d\" | gh auth login --with-token"}),
	("shell", {"command": "printf ghp_Zq7f3a9c1e5b2d8f4a6c8Zq7f3a9c1e5b2d | base64; printf ghp_Zq7f3a9c1e5b2d8f4a6c9Zq7f3a9c1e5b2d | xxd -p | tr -d \"\\n\""})]
for i, (t, inp) in enumerate(calls):
	print(json.dumps({"id": str(i), "tool": t, "input": inp}))' >"$d/red.in"
gate "$d/red.db" <"$d/red.in"
check "escapes: the JSON file is recorded, redacted" grep -aq "k.json" "$d/red.db"
for k in KIAZQ7F3A9C1E5B2D6X hp_Zq7f3a9c1e5b2d8f4a6c7; do
	check "escaped $k: not stored" sh -c "! grep -aq '$k' '$d/red.db'*"
done
for k in $(printf ghp_Zq7f3a9c1e5b2d8f4a6c8Zq7f3a9c1e5b2d | base64 | cut -c1-30) \
	$(printf ghp_Zq7f3a9c1e5b2d8f4a6c9Zq7f3a9c1e5b2d | od -An -tx1 | tr -d ' \n' | cut -c1-40); do
	check "encoded $k: not stored" sh -c "! grep -aq '$k' '$d/red.db'*"
done
for k in 0 1 2 3 4 5 6; do
	check "credential $k: not stored" sh -c "! grep -aq 'Zq7f3a9c1e5b2d8f4a6c$k' '$d/red.db'*"
done
check "credentials: the log verifies" "$A" audit verify --db "$d/red.db"

# the index row show prints (no hash covers it) edited: ran, shown denied
id=$("$A" audit list --db "$d/base.db" | awk 'NR == 1 { print $1 }')
cp "$d/base.db" "$d/x.db"
sqlite3 "$d/x.db" "UPDATE call_index SET decision = 'denied', ran = 0, summary = 'echo hi'"
"$A" audit show "$id" --db "$d/x.db" >"$d/x.out" 2>&1
expect_eq "edited index: show exits 1" "$?" 1
check "edited index: NOT CONFIRMED" grep -q "NOT CONFIRMED: the call index" "$d/x.out"
"$A" audit show "$id" --db "$d/base.db" >"$d/x.out" 2>&1
expect_eq "intact log: show exits 0" "$?" 0
check "intact log: integrity ok" grep -q "^integrity: ok" "$d/x.out"
# the session start shown beside the call, edited (the hash not rewritten)
cp "$d/base.db" "$d/y.db"
sqlite3 "$d/y.db" "DROP TRIGGER events_no_update; UPDATE events SET
	body = replace(body, '\"cwd\":', '\"cwd\":\"/elsewhere\",\"was\":') WHERE kind = 'session_start'"
check "edited session start: shown" grep -q elsewhere "$("$A" audit show "$id" --db "$d/y.db" >"$d/y.out" 2>&1; echo "$d/y.out")"
"$A" audit show "$id" --db "$d/y.db" >/dev/null 2>&1
expect_eq "edited session start: show exits 1" "$?" 1

# a session recorded while the clock said 2001, between two of today's
cat >"$d/shift.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
int clock_gettime(clockid_t c, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int rc = real(c, ts);
	if (rc == 0 && c == CLOCK_REALTIME && getenv("SHIFT_SECS"))
		ts->tv_sec += atol(getenv("SHIFT_SECS"));
	return rc;
}
C
cc -shared -fPIC -o "$d/shift.so" "$d/shift.c" -ldl
gate "$d/pr.db" <"$d/one.in"
# (an ASan build wants its runtime first: the shim goes before it)
(cd "$d/wd" && LD_PRELOAD="$d/shift.so" SHIFT_SECS=-800000000 \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	"$A" gate --no-tty --db "$d/pr.db" <"$d/one.in" >/dev/null 2>&1)
gate "$d/pr.db" <"$d/one.in"
check "clock went back: 2001 events recorded" sh -c "sqlite3 '$d/pr.db' \"SELECT time FROM events\" | grep -q ^2001"
"$A" audit prune --before 2020-01-01 --db "$d/pr.db" >/dev/null 2>&1
expect_eq "prune before 2020: today's first call kept" \
	"$(sqlite3 "$d/pr.db" "SELECT count(*) FROM events WHERE kind = 'received' AND time NOT LIKE '2001%'")" 2
check "prune before 2020: verifies" "$A" audit verify --db "$d/pr.db"
finish
