#!/bin/sh
# 129-preview-review5.sh: a fifth hostile review of previews and the
# approval screen: a preview that does not say what approval does, or a
# screen that hides part of it. Each case failed on 5a0a230 before its fix.
# The screen runs in tmux (tests/e2e/tmux.sh); no timing-tight checks: each
# waits for the screen, with a generous deadline.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 python3
d=$(mktemp -d /tmp/airlock-e2e-prevrev5.XXXXXX)
. tests/e2e/tmux.sh

ask_policy

# sql_preview NAME DB QUERY: the text preview of a sql call on $d/NAME/DB.
sql_preview() {
	jq -cn --arg db "$2" --arg q "$3" '{id:1,tool:"sql",input:{database:$db,query:$q}}' |
		"$AIRLOCK" preview --workdir "$d/$1"
}
# has TEXT: stdin holds TEXT.
has() { grep -qF -- "$1"; }

# --- a keyless INSERT whose trigger rewrites other rows says so -----------------
# The trigger made bob's 'read' grant 'all'; the preview read only "INSERT
# would add 1 row to grants": the note on rows a trigger rewrote came only
# when no statement counted a change.
mkdir -p "$d/trig"
sqlite3 "$d/trig/t.db" "CREATE TABLE grants(who TEXT, what TEXT);
	INSERT INTO grants VALUES('admin', 'all'), ('bob', 'read');
	CREATE TRIGGER tr AFTER INSERT ON grants BEGIN UPDATE grants SET what = 'all' WHERE who = 'bob'; END;"
sql_preview trig t.db "INSERT INTO grants VALUES('carol', 'read')" >"$d/trig/out"
check "trig: the rewritten row is stated" \
	has "grants: rows it holds would change: 1 row it held before" <"$d/trig/out"
check "trig: and listed as it is now" has "- grants rowid=2 who='bob' what='read'" <"$d/trig/out"
check "trig: and as it would be" has "+ grants rowid=2 who='bob' what='all'" <"$d/trig/out"

# --- a statement's count goes to the table it writes -----------------------------
# An INSERT into an R-tree (which writes its shadow tables) and a DELETE
# after a WITH lost their counts: "1 row added (removed) that no statement
# counts (a trigger ...)", and no INSERT or DELETE line for the table.
mkdir -p "$d/rt"
sqlite3 "$d/rt/t.db" "CREATE VIRTUAL TABLE geo USING rtree(id, minx, maxx); INSERT INTO geo VALUES(1, 0, 10);
	CREATE TABLE log(msg TEXT); INSERT INTO log VALUES('a'), ('b'), ('c');"
sql_preview rt t.db "INSERT INTO geo VALUES(2, 5, 7)" >"$d/rt/ins"
check "rtree: the INSERT is counted" has "INSERT would add 1 row to geo (1 before)" <"$d/rt/ins"
check "rtree: no row said uncounted" sh -c '! grep -q "no statement counts" "$1"' - "$d/rt/ins"
sql_preview rt t.db "WITH c(x) AS (SELECT 'b') DELETE FROM log WHERE msg IN (SELECT x FROM c)" >"$d/rt/del"
check "with: the DELETE is counted" has "DELETE would remove 1 of 3 rows in log" <"$d/rt/del"

# --- a 9 MiB command keeps the line that says approval runs the call -------------
# The title (the command) filled the 8 MiB of text alone; "not applied from
# the preview" after it was cut away, and the screen and --approve-with's
# "applies" read the preview as what approval does.
mkdir -p "$d/big"
python3 -c 'import json; print(json.dumps({"id": 1, "tool": "shell", "input": {"command": "echo " + "a" * (9 << 20)}}))' |
	"$AIRLOCK" preview --workdir "$d/big" >"$d/big/out"
check "big: not applied is said" grep -q '^not applied from the preview: ' "$d/big/out"

# --- airlock preview does not print a tool's name raw ----------------------------
# "preview: NAME: nothing to preview" wrote the agent's tool name as it
# was: an escape sequence drove the terminal, a newline forged a line.
mkdir -p "$d/name"
printf '%s\n' '{"id":1,"tool":"x\u001b]0;title\u0007\nforged","input":{}}' |
	"$AIRLOCK" preview --workdir "$d/name" >"$d/name/out"
check "name: no escape byte" sh -c '! grep -q "$(printf "\033")" "$1"' - "$d/name/out"
check "name: one line" has 'preview: x\x1b]0;title\x07\x0aforged: nothing to preview' <"$d/name/out"

# --- a one-cell character with U+FE0F is wrapped as two cells --------------------
# terminals such as kitty draw U+263A U+FE0F in two cells; wrapped as one,
# 40 of them pushed the command's tail past the right edge.
python3 -c 'import json; print(json.dumps({"id": 1, "tool": "shell", "input": {"command": "echo " + "\u263a\ufe0f" * 40 + " ; echo tail-marker"}}))' \
	>"$d/fe0f.calls"
mkdir -p "$d/fe0f"
mv "$d/fe0f.calls" "$d/fe0f/calls"
ask_gate fe0f
check "fe0f: the row is wrapped early" wait_for fe0f "The command (2 rows" 20
tm send-keys -t fe0f q
check "fe0f: gate exits" wait_for fe0f "EXIT" 20

# --- an id cut in the header is cut between characters ---------------------------
# Cut at 32 bytes inside a character, an id of CJK showed \xe4\xb8 marks.
python3 -c 'import json; print(json.dumps({"id": "\u4e2d" * 20, "tool": "shell", "input": {"command": "echo hi"}}))' \
	>"$d/cjk.calls"
mkdir -p "$d/cjk"
mv "$d/cjk.calls" "$d/cjk/calls"
ask_gate cjk
check "cjk: the id is cut" wait_for cjk "...(+30 bytes" 20
check "cjk: no half character" lacks cjk '\xe4'
tm send-keys -t cjk q
check "cjk: gate exits" wait_for cjk "EXIT" 20

# --- a preview that failed says approval runs nothing ----------------------------
# --approve-with's JSON said "refused"; the screen said nothing.
mkdir -p "$d/refused/w"
echo hello >"$d/refused/w/f.txt"
jq -cn '{id:1,tool:"edit_file",input:{path:"f.txt",old_string:"absent",new_string:"x"}}' >"$d/refused/calls"
ask_gate refused
check "refused: the header says so" wait_for refused "NOTE: the preview failed: approval runs nothing" 20
tm send-keys -t refused q
check "refused: gate exits" wait_for refused "EXIT" 20

# --- the NOTE cut to one row does not read as its opposite -----------------------
# On a 40x9 terminal the header keeps 3 rows, and the NOTE's first read
# "NOTE: approval runs the call itself, not".
mkdir -p "$d/small/w"
jq -cn '{id:1,tool:"shell",input:{command:"echo hi > x; sleep 3",timeout_ms:300}}' >"$d/small/calls"
ask_gate small
tm resize-window -t small -x 40 -y 9
# at 40x9 the header does not fit: since 9aa0043 the screen says its rows
# were cut and approves nothing until it shows whole
check "small: the header's cut is said" wait_for small "header rows cut: enlarge" 20
tm resize-window -t small -x 40 -y 12
check "small: the NOTE is shown" wait_for small "NOTE: approval runs the call itself" 20
check "small: its cut does not end in 'not'" lacks small "itself, not"
tm send-keys -t small q
check "small: gate exits" wait_for small "EXIT" 20

# --- the preview's summary must be seen before a ---------------------------------
# A script's deletion of src/ in the dry run lay below the first screen,
# under a dozen rows of the command and its findings; a applied it unseen.
mkdir -p "$d/fold/w/src"
echo keep >"$d/fold/w/src/main.c"
printf '%s\n' 'rm -r src' >"$d/fold/w/tidy.sh"
jq -cn --arg c "sh tidy.sh $(printf -- '--keep-going %.0s' $(seq 70))" \
	'{id:1,tool:"shell",input:{command:$c}}' >"$d/fold/calls"
ask_gate fold
wait_for fold "Why it asks" 20 >/dev/null
sleep 1.5 # past the second before a counts
tm send-keys -t fold a
check "fold: a says the summary is not seen" wait_for fold "not seen yet: rows" 20
tm send-keys -t fold q
check "fold: gate exits" wait_for fold "EXIT" 20
check "fold: nothing was applied" test -f "$d/fold/w/src/main.c"

finish
