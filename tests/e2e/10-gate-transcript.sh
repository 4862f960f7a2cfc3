#!/bin/sh
# 10-gate-transcript.sh: a transcript of calls in every input shape, with
# malformed lines, through the real `airlock gate`; checks every result
# line, the files on the host afterwards and the rows in the audit log.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-gate.XXXXXX)
trap 'rm -rf "$d"' EXIT
data=$PWD/tests/data/gate
mkdir -p "$d/wd/out"
printf 'a draft note\n' > "$d/wd/notes.txt"
sqlite3 "$d/wd/app.db" "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO users(name) VALUES ('ada'), ('grace'), ('linus');"

(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/audit.db" < "$data/transcript.jsonl" \
	> "$d/results.jsonl" 2> "$d/stderr.txt")
expect_eq "gate exit status" "$?" 0
expect_eq "one result per input line" "$(wc -l < "$d/results.jsonl")" \
	"$(wc -l < "$data/transcript.jsonl")"

# Every result line: id echoed as given, the expected decision.
grep -v '^#' "$data/transcript.expect" | nl -ba | while read -r n id decision; do
	got=$(sed -n "${n}p" "$d/results.jsonl" | jq -c '[.id, .decision]')
	[ "$got" = "[$id,\"$decision\"]" ] || echo "line $n: got $got, want [$id,\"$decision\"]"
done > "$d/mismatch.txt"
expect_eq "decisions and ids" "$(cat "$d/mismatch.txt")" ""

# Errors say what was wrong and where.
check "error names the line" sh -c "jq -e 'select(.decision==\"error\") | .line > 0 and (.error|length) > 10' '$d/results.jsonl' >/dev/null"
check "wrong type is named" grep -q 'input.command must be a string' "$d/results.jsonl"
check "non-tool MCP method named" grep -q 'MCP method tools/list' "$d/results.jsonl"

# The host afterwards: auto calls ran, denied ones did not.
expect_eq "write_file landed" "$(cat "$d/wd/out/hello.txt")" "hello from the agent"
expect_eq "edits applied in order" "$(cat "$d/wd/notes.txt")" "a done note"
expect_eq "DELETE was not run" "$(sqlite3 "$d/wd/app.db" 'SELECT count(*) FROM users')" 3
expect_eq "ls output returned" "$(sed -n 1p "$d/results.jsonl" | jq -r '.stdout' | grep -c notes.txt)" 1
expect_eq "SELECT output returned" "$(sed -n 5p "$d/results.jsonl" | jq -r '.stdout' | sed -n 2p)" 3

# The log holds every decodable call, each with its outcome, chain intact.
calls=$(grep -c '"decision":"[adr]' "$d/results.jsonl")
expect_eq "calls decided" "$calls" 20
expect_eq "received events" \
	"$(sqlite3 "$d/audit.db" "SELECT count(*) FROM events WHERE kind='received'")" "$calls"
expect_eq "finished events" \
	"$(sqlite3 "$d/audit.db" "SELECT count(*) FROM events WHERE kind='finished'")" "$calls"
ids=$(jq -r 'select(.audit_id != null) | .audit_id' "$d/results.jsonl" | sort -n | tr '\n' ' ')
logged=$(sqlite3 "$d/audit.db" "SELECT id FROM events WHERE kind='received' ORDER BY id" | tr '\n' ' ')
expect_eq "audit ids match the log" "$ids" "$logged"
check "audit verify" "$AIRLOCK" audit verify --db "$d/audit.db"

# SQL runs in-process, so an auto-run write to a database outside the
# workdir (here in /tmp, which shell calls only see privately) is refused.
sqlite3 "$d/outside.db" "CREATE TABLE t(x)"
echo "{\"id\":\"o1\",\"tool\":\"sql\",\"input\":{\"query\":\"INSERT INTO t VALUES (1)\",\"database\":\"$d/outside.db\"}}" |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/audit.db") > "$d/outside.jsonl" 2>/dev/null
expect_eq "outside-db write refused" "$(jq -r .decision "$d/outside.jsonl")" error
expect_eq "outside db untouched" "$(sqlite3 "$d/outside.db" 'SELECT count(*) FROM t')" 0

# An auto-run call that fails where the sandbox hid a secret file (a test
# reading a masked fixture key) tells the agent what was hidden.
mkdir -p "$d/wd/conf" && printf 'K=1\n' > "$d/wd/conf/.env.local"
echo '{"id":"m1","tool":"shell","input":{"command":"grep -r K= conf"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/audit.db") > "$d/masked.jsonl" 2>/dev/null
check "masked: the call failed" jq -e '.exit_code != 0' "$d/masked.jsonl"
check "masked: its stderr names what was hidden" jq -e '.stderr | contains("sandbox hides conf/.env.local")' "$d/masked.jsonl"
rm -rf "$d/wd/conf"
finish
