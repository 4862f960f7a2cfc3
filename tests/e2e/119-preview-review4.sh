#!/bin/sh
# 119-preview-review4.sh: a fourth hostile review of previews and the
# approval screen: what is applied or run differs from what the person saw,
# or the screen hides a change. Each case failed on 2a775fb before its fix.
# The screen runs in tmux (tests/e2e/tmux.sh); no timing-tight checks: each
# waits for the screen, with a generous deadline.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3
d=$(mktemp -d /tmp/airlock-e2e-prevrev4.XXXXXX)
. tests/e2e/tmux.sh

ask_policy

# --- the dry run's own output does not push the changes below the fold ---------
# 20 lines of "ok: nothing to change" on stdout came before the stat block,
# so the first screen showed the command's words and not "src | deleted
# directory"; the preview need not be scrolled before `a`.
mkdir -p "$d/out/w/src"
echo keep >"$d/out/w/src/main.c"
jq -cn '{id:1,tool:"shell",input:{command:"for i in $(seq 20); do echo ok: nothing to change; done; rm -rf src"}}' \
	>"$d/out/calls"
ask_gate out
check "out: the deletion is on the first screen" wait_for out "src        | deleted directory" 20
tm send-keys -t out q
check "out: gate exits" wait_for out "EXIT" 20
check "out: nothing ran" test -f "$d/out/w/src/main.c"

# --- the totals come first, and count directories ------------------------------
# 40 new files filled the first screen with stat lines; the total saying one
# file would be deleted came after them, below the fold. And a directory
# deleted or re-moded read "0 files changed".
mkdir -p "$d/total/w/emptydir"
echo secret >"$d/total/w/zz"
jq -cn '{id:1,tool:"shell",input:{command:"for i in $(seq 40); do echo > a$i; done; rm zz; rm -rf emptydir"}}' \
	>"$d/total/calls"
ask_gate total
check "total: the deletions are counted on the first screen" \
	wait_for total "41 files changed (40 added, 0 modified, 1 deleted)" 20
tm send-keys -t total q
check "total: gate exits" wait_for total "EXIT" 20
check "total: nothing ran" test -f "$d/total/w/zz"

# --- a statement that reads the clock is applied as previewed -------------------
# "SET updated_at = CURRENT_TIMESTAMP" made another changeset at approval,
# a second or more later, and was refused every time: "the database
# changed since the preview". Now the apply runs at the preview's time.
mkdir -p "$d/now/home"
sqlite3 "$d/now/t.db" "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, at TEXT); INSERT INTO users VALUES(3, 'a', NULL);"
jq -cn '{id:1,tool:"sql",input:{database:"t.db",query:"UPDATE users SET name = '"'"'b'"'"', at = CURRENT_TIMESTAMP WHERE id = 3"}}' |
	(cd "$d/now" && HOME="$d/now/home" "$AIRLOCK" gate --db "$d/now/a.db" --policy "$d/ask.policy" \
		--approve-with "cat >'$d/now/seen'; sleep 1.5") >"$d/now/out" 2>"$d/now/err"
expect_eq "now: decision" "$(jq -r .decision "$d/now/out")" approved
expect_eq "now: applied" "$(jq -r .applied "$d/now/out")" preview
shown=$(jq -r .preview "$d/now/seen" | sed -n "s/.*at NULL -> '\(.*\)'.*/\1/p")
expect_eq "now: the time written is the time shown" "$(sqlite3 "$d/now/t.db" 'SELECT at FROM users')" "$shown"

# --- a REPLACE into a table without a key says it removes a row -----------------
sqlite3 "$d/rep.db" "CREATE TABLE grants(who TEXT UNIQUE, what TEXT); INSERT INTO grants VALUES('admin', 'all'), ('bob', 'read');"
out=$(jq -cn '{id:1,tool:"sql",input:{database:"rep.db",query:"INSERT OR REPLACE INTO grants VALUES('"'"'admin'"'"', '"'"'none'"'"')"}}' |
	"$AIRLOCK" preview --workdir "$d")
case $out in *"grants: 1 row removed that no statement counts"*) r=yes ;; *) r=no ;; esac
expect_eq "replace: the removed row is stated" "$r" yes

# --- the header says when approval runs the call, not the preview ---------------
# A dry run that did not finish is shown, not applied. Its "not applied"
# line comes after the preview's title, which repeats the command: past a
# 3,000-byte command it lay two pages below the findings, where `a` already
# counts, and the person approved what read as the preview.
mkdir -p "$d/notap/w"
jq -cn --arg c "echo $(printf '%3000s' '' | tr ' ' x) >/dev/null; sleep 2" \
	'{id:1,tool:"shell",input:{command:$c,timeout_ms:300}}' >"$d/notap/calls"
ask_gate notap
wait_for notap "echo xxx" 20 >/dev/null
n=0 # a page down (space) at a time, to the end of the findings
until screen notap | grep -qF "policy: tier" || [ $n -ge 12 ]; do
	tm send-keys -t notap Space
	sleep 0.3
	n=$((n + 1))
done
check "notap: scrolled to the findings" wait_for notap "policy: tier" 20
check "notap: the header says the call runs" wait_for notap "NOTE: approval runs the call itself" 20
tm send-keys -t notap q
check "notap: gate exits" wait_for notap "EXIT" 20

# --- bytes hidden in variation selectors after an emoji are shown ---------------
# Two selectors (U+FE00-FE0F) a byte after an emoji carried "rm -rf ~" in
# run("<emoji>"), invisible in the preview and on the screen.
mkdir -p "$d/vs"
out=$(printf '%s\n' '{"id":1,"tool":"write_file","input":{"path":"x.py","content":"run(\"\ud83d\ude00\ufe07\ufe02\ufe06\ufe0d\")\n"}}' |
	"$AIRLOCK" preview --workdir "$d/vs")
case $out in *'\ufe07\ufe02\ufe06\ufe0d'*) r=yes ;; *) r=no ;; esac
expect_eq "vs: the selectors are shown" "$r" yes

finish
