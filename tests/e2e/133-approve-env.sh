#!/bin/sh
# 133-approve-env.sh: the --approve-with program's AIRLOCK_* variables. On
# 04ab195 a call whose subject passed 128 KiB (the kernel's limit for one
# execve() string; a SQL statement, run in process, can) left the program
# unstarted (E2BIG): the call was denied as "exit status 127", the
# person's program never asked. Each value is
# now cut at 64 KiB on a character's start, AIRLOCK_CUT names the cut
# ones, and stdin still holds the whole call.
. tests/e2e/lib.sh
need jq
d=$(mktemp -d /tmp/airlock-apenv.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd"
: > "$d/wd/f"
# ap.sh: records what it was given, then approves
printf '%s\n' '#!/bin/sh' \
	"printf '%s' \"\$AIRLOCK_CUT\" > $d/cut" \
	"printf '%s' \"\$AIRLOCK_SUBJECT\" | wc -c > $d/len" \
	"printf '%s' \"\$AIRLOCK_SUBJECT\" | tail -c 4 > $d/tail" \
	"jq -r '.input.query // .input.command | length' > $d/stdin-len" \
	'exit 0' > "$d/ap.sh"
chmod +x "$d/ap.sh"

# a SQL statement of about 200 KB: a DELETE whose literal is 99,995 'é'
# (two bytes each), so 64 KiB falls inside a character
sqlite3 "$d/wd/t.db" "CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x'), ('y')"
jq -nc '{id: "long", tool: "sql", input: {database: "t.db",
	query: ("DELETE FROM t  WHERE a = '"'"'x'"'"' OR a = '"'"'" + ("é" * 99995) + "'"'"'")}}' > "$d/in"
(cd "$d/wd" && "$AIRLOCK" gate --db "$d/a.db" --approve-with "$d/ap.sh" < "$d/in" > "$d/out" 2> "$d/err")
expect_eq "a 200 KB statement: the program approved it" "$(jq -r .decision "$d/out")" approved
expect_eq "a 200 KB statement: and it ran (x is gone)" \
	"$(sqlite3 "$d/wd/t.db" 'SELECT group_concat(a) FROM t')" y
expect_eq "AIRLOCK_CUT names the cut variable" "$(cat "$d/cut")" SUBJECT
expect_eq "AIRLOCK_SUBJECT is cut on a character's start, within 64 KiB" \
	"$(tr -d ' ' < "$d/len")" 65535
expect_eq "its last character whole" "$(cat "$d/tail")" "éé"
expect_eq "stdin holds the whole statement" "$(cat "$d/stdin-len")" 100033

# a short call: nothing cut, AIRLOCK_CUT unset
: > "$d/wd/g"
jq -nc '{id: "short", tool: "shell", input: {command: "rm -f g"}}' > "$d/in2"
(cd "$d/wd" && "$AIRLOCK" gate --db "$d/a.db" --approve-with "$d/ap.sh" < "$d/in2" > "$d/out2" 2>> "$d/err")
expect_eq "a short command: approved" "$(jq -r .decision "$d/out2")" approved
expect_eq "a short command: AIRLOCK_CUT empty" "$(cat "$d/cut")" ""
expect_eq "a short command: AIRLOCK_SUBJECT whole" "$(tr -d ' ' < "$d/len")" 7
finish
