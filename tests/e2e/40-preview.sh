#!/bin/sh
# 40-preview.sh: previews with real files, a real SQLite database and the
# real sandbox: `airlock preview` (text, colour, JSON) never changes the
# workdir; through `airlock gate --approve-with`, an approved call lands as
# previewed ("applied": "preview"), a denied one not at all, an incomplete
# one runs ("applied": "run"), and a workdir changed while the person looked
# is refused. A policy file makes every tier ask.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3

d=$(mktemp -d /tmp/airlock-e2e-preview.XXXXXX)
trap 'rm -rf "$d"' EXIT INT TERM
export HOME="$d/home"
mkdir -p "$HOME"
printf '[tier "low"]\n\taction = ask\n[tier "medium"]\n\taction = ask\n[tier "high"]\n\taction = ask\n' \
	>"$d/ask.policy"

# fresh: a new workdir $w with a file, a tree and a database.
fresh() {
	w="$d/w$1"
	mkdir -p "$w/tree/sub"
	printf 'one\ntwo\n' >"$w/a.txt"
	echo x >"$w/tree/sub/x"
	echo y >"$w/tree/y"
	sqlite3 "$w/t.db" "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
		INSERT INTO users VALUES (1,'ann'),(2,'bob'),(3,'cy');"
}
# gate APPROVER < calls: one result line per call.
gate() {
	"$AIRLOCK" gate --db "$d/audit.db" --workdir "$w" --policy "$d/ask.policy" \
		--approve-with "$1" --no-tty
}
field() { printf "%s\n" "$1" | jq -r "$2"; }
WRITE='{"id":1,"tool":"write_file","input":{"path":"a.txt","content":"one\n2\n"}}'
RMTREE='{"id":2,"tool":"shell","input":{"command":"rm -rf tree && echo gone"}}'
DELETE='{"id":3,"tool":"sql","input":{"query":"DELETE FROM users WHERE id > 1","database":"t.db"}}'

# --- airlock preview: shows, changes nothing ---------------------------------
fresh 1
out=$(printf '%s\n%s\n%s\n' "$WRITE" "$RMTREE" "$DELETE" | "$AIRLOCK" preview --workdir "$w")
check "preview exits 0" test $? -eq 0
check "write_file diff: removed line" sh -c 'printf "%s\n" "$1" | grep -qx -- "-two"' _ "$out"
check "write_file diff: added line" sh -c 'printf "%s\n" "$1" | grep -qx -- "+2"' _ "$out"
check "shell dry run: tree deleted" sh -c 'printf "%s\n" "$1" | grep -q "deleted file mode 100644"' _ "$out"
check "shell dry run output shown" sh -c 'printf "%s\n" "$1" | grep -qx "> gone"' _ "$out"
check "sql: row totals" sh -c 'printf "%s\n" "$1" | grep -q "DELETE would remove 2 of 3 rows in users"' _ "$out"
check "sql: deleted rows listed" sh -c 'printf "%s\n" "$1" | grep -q "^- users id=2 name='"'"'bob'"'"'"' _ "$out"
expect_eq "preview left the file" "$(cat "$w/a.txt")" "$(printf 'one\ntwo')"
check "preview left the tree" test -f "$w/tree/sub/x"
expect_eq "preview left the rows" "$(sqlite3 "$w/t.db" 'SELECT count(*) FROM users')" 3
check "no color when piped" sh -c '! printf "%s\n" "$1" | grep -q "$(printf "\033")"' _ "$out"
col=$(printf "%s\n" "$WRITE" | "$AIRLOCK" preview --workdir "$w" --color always)
check "color on request" sh -c 'printf "%s\n" "$1" | grep -q "$(printf "\033\\[31m")-two"' _ "$col"
j=$(printf "%s\n" "$WRITE" | "$AIRLOCK" preview --workdir "$w" --format json)
expect_eq "json: complete" "$(field "$j" .preview.complete)" true
expect_eq "json: one modified" "$(field "$j" .preview.summary.modified)" 1
expect_eq "json: patch" "$(field "$j" '.preview.files[0].patch')" "$(printf '@@ -1,2 +1,2 @@\n one\n-two\n+2')"
bad=$(echo '{"id":9,"tool":"edit_file","input":{"path":"a.txt","old_string":"zzz","new_string":"y"}}' |
	"$AIRLOCK" preview --workdir "$w")
check "edit with absent text: exit 1" test $? -eq 1
check "edit with absent text: error shown" sh -c 'printf "%s\n" "$1" | grep -q "old text not found"' _ "$bad"
shapes=$(printf '%s\n' \
	'{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a.txt","content":"anthropic\n"}}' \
	'{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\"command\":\"echo hi > h.txt\"}"}' |
	"$AIRLOCK" preview --workdir "$w" --format json)
expect_eq "anthropic shape previewed" "$(printf '%s\n' "$shapes" | sed -n 1p | jq -r '.preview.files[0].patch' | grep -x -- +anthropic)" "+anthropic"
expect_eq "responses shape previewed" "$(printf '%s\n' "$shapes" | sed -n 2p | jq -r '.preview.files[0].path')" h.txt
echo '{"tool":"shell","input":{"command":"x"}' | "$AIRLOCK" preview >/dev/null 2>&1
check "undecodable line: exit 1" test $? -eq 1

# --- approved: the preview is applied ---------------------------------------
fresh 2
res=$(printf '%s\n%s\n%s\n' "$WRITE" "$RMTREE" "$DELETE" | gate "cat > '$d/seen.json'")
r1=$(printf "%s\n" "$res" | sed -n 1p) r2=$(printf "%s\n" "$res" | sed -n 2p) r3=$(printf "%s\n" "$res" | sed -n 3p)
expect_eq "write_file applied from the preview" "$(field "$r1" .applied)" preview
expect_eq "write_file landed" "$(cat "$w/a.txt")" "$(printf 'one\n2')"
expect_eq "shell applied from the preview" "$(field "$r2" .applied)" preview
expect_eq "shell: dry run's output returned" "$(field "$r2" .stdout)" gone
check "shell: tree gone" test ! -e "$w/tree"
expect_eq "sql applied from the preview" "$(field "$r3" .applied)" preview
expect_eq "sql: rows gone" "$(sqlite3 "$w/t.db" 'SELECT group_concat(name) FROM users')" ann
check "the approver saw the preview" grep -q 'DELETE would remove 2 of 3 rows' "$d/seen.json"
pv=$("$AIRLOCK" audit show "$(field "$r1" .audit_id)" --db "$d/audit.db" --json |
	jq -r '.events[] | select(.kind == "previewed") | .body.preview')
check "the audit log holds the preview" sh -c 'printf "%s\n" "$1" | grep -qx -- "+2"' _ "$pv"

# --- denied: nothing lands --------------------------------------------------
fresh 3
res=$(printf '%s\n%s\n' "$WRITE" "$RMTREE" | gate false)
expect_eq "denied write" "$(printf "%s\n" "$res" | sed -n 1p | jq -r .decision)" denied
expect_eq "denied: file kept" "$(cat "$w/a.txt")" "$(printf 'one\ntwo')"
check "denied: tree kept" test -f "$w/tree/y"

# --- changed while the person looked: refused --------------------------------
fresh 4
r=$(printf "%s\n" "$WRITE" | gate "echo theirs > '$w/a.txt'")
expect_eq "changed workdir: error" "$(field "$r" .decision)" error
check "changed workdir: says why" sh -c 'printf "%s\n" "$1" | jq -r .error | grep -q "changed since the preview"' _ "$r"
expect_eq "changed workdir: their edit kept" "$(cat "$w/a.txt")" theirs
r=$(printf "%s\n" "$DELETE" | gate "sqlite3 '$w/t.db' 'INSERT INTO users VALUES (4, \"dee\")'")
expect_eq "changed database: error" "$(field "$r" .decision)" error
expect_eq "changed database: nothing deleted" "$(sqlite3 "$w/t.db" 'SELECT count(*) FROM users')" 4

# --- incomplete previews run the command instead ----------------------------
fresh 5
r=$(echo '{"id":5,"tool":"shell","input":{"command":"curl -s -m 1 -o page.html https://example.invalid/; echo tried > log"}}' | gate true)
expect_eq "network: runs instead" "$(field "$r" .applied)" run
r=$(echo '{"id":6,"tool":"shell","input":{"command":"echo early > e.txt; sleep 3; echo late > l.txt","timeout_ms":300}}' | "$AIRLOCK" preview --workdir "$w")
check "timeout: said" sh -c 'printf "%s\n" "$1" | grep -q "did not finish within 300 ms"' _ "$r"
check "timeout: partial changes shown" sh -c 'printf "%s\n" "$1" | grep -qx "+early"' _ "$r"
check "timeout: workdir untouched" test ! -e "$w/e.txt"
# a database that cannot be opened is an error, not "no rows would change"
# under it, which read as a harmless statement (docs review 2)
r=$(echo '{"id":7,"tool":"sql","input":{"query":"DELETE FROM t","database":"missing.db"}}' | "$AIRLOCK" preview --workdir "$w")
check "sql, missing database: the error" sh -c 'printf "%s\n" "$1" | grep -q "^error: cannot open database"' _ "$r"
check "sql, missing database: no 'no rows would change'" sh -c '! printf "%s\n" "$1" | grep -q "no rows would change"' _ "$r"
finish
