#!/bin/sh
# 76-preview-review.sh: what an agent could do through a preview, each found
# by a hostile review of diff/ and each failing before its fix: a dry run
# that changes the host before anyone approved (a tier profile without a
# sandbox, a read-write grant), an apply writing a read-only profile's
# workdir or planting a guarded path, a SQL preview that never ends, an
# edit that truncates a binary file or hangs on a FIFO, an apply left half
# done by directory modes.
# Approvals are scripted with --approve-with (exit 0 approves, 1 denies).
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3
tmpdir_make
d=$T_DIR HOME="$T_DIR/home"
export HOME
mkdir -p "$HOME" "$d/wd" "$d/granted"
# policy PROFILE-LINES: every tier asks and runs under profile "p"
policy() {
	printf '[profile "p"]\n%s' "$1" >"$d/p.policy"
	printf '[tier "%s"]\n\taction = ask\n\tprofile = %s\n' low "$2" medium "$2" high "$2" \
		>>"$d/p.policy"
	chmod 600 "$d/p.policy"
}
# gate APPROVER: the calls on stdin, one result line each
gate() {
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$d/wd" --policy "$d/p.policy" \
		--approve-with "$1"
}
shell() { printf '{"id":"%s","tool":"shell","input":{"command":"%s"}}\n' "$1" "$2"; }

# a tier whose profile is none: the dry run still runs in the sandbox, and a
# denied call changes nothing on the host
policy '' none
echo keep >"$d/wd/important"
out=$(shell n "rm -f important; echo ran > $d/ran-on-host" | gate 'cat >/dev/null; exit 1')
expect_eq "profile none, denied: decision" "$(printf '%s\n' "$out" | jq -r .decision)" denied
check "profile none, denied: the workdir kept its file" test -f "$d/wd/important"
check "profile none, denied: nothing written outside" test ! -e "$d/ran-on-host"

# a read-write grant: the dry run has it read-only
policy "	workdir = rw
	read-write = $d/granted
" p
echo orig >"$d/granted/cache"
out=$(shell g "echo poisoned > $d/granted/cache; echo done > out.txt" |
	gate "jq -r .preview > '$d/seen'; exit 1")
expect_eq "grant, denied: the granted file is untouched" "$(cat "$d/granted/cache")" orig
check "grant: the preview says it is not applied" grep -q "grants writes to $d/granted" "$d/seen"
check "grant, denied: nothing in the workdir" test ! -e "$d/wd/out.txt"

# a tier whose profile keeps the workdir read-only: the dry run's writes are
# shown, and the approved call runs read-only instead of landing them
policy '	workdir = ro
' p
out=$(shell r "echo x > written.txt" | gate 'cat >/dev/null')
expect_eq "read-only profile: run, not applied" "$(printf '%s\n' "$out" | jq -r .applied)" run
check "read-only profile: nothing written" test ! -e "$d/wd/written.txt"
sqlite3 "$d/wd/ro.db" "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1)"
out=$(printf '%s\n' '{"id":"q","tool":"sql","input":{"query":"DELETE FROM t","database":"ro.db"}}' |
	gate 'cat >/dev/null')
expect_eq "read-only profile, SQL: run, not applied" "$(printf '%s\n' "$out" | jq -r .applied)" run
expect_eq "read-only profile, SQL: the row is kept" "$(sqlite3 "$d/wd/ro.db" 'SELECT count(*) FROM t')" 1

# an approved dry run that writes .mcp.json is run (and swept), not applied
policy '	workdir = rw
' p
out=$(shell m "echo {} > .mcp.json; echo ok > fine.txt" | gate 'cat >/dev/null')
expect_eq "guarded path: run, not applied" "$(printf '%s\n' "$out" | jq -r .applied)" run
check "guarded path: no .mcp.json planted" test ! -e "$d/wd/.mcp.json"
check "guarded path: the rest of the command ran" test -f "$d/wd/fine.txt"

# a SQL statement without end: the preview stops, the database is as it was
sqlite3 "$d/wd/t.db" "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)"
q='WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) INSERT INTO t SELECT x, hex(randomblob(500)) FROM c'
j=$(printf '{"tool":"sql","input":{"query":"%s","database":"t.db","timeout_ms":500}}\n' "$q" |
	timeout 60 "$AIRLOCK" preview --workdir "$d/wd" --format json)
check "runaway SQL: the preview returns" test $? -eq 0
expect_eq "runaway SQL: incomplete" "$(printf '%s\n' "$j" | jq -r .preview.complete)" false
expect_eq "runaway SQL: no rows left" "$(sqlite3 "$d/wd/t.db" 'SELECT count(*) FROM t')" 0
check "runaway SQL: the file did not grow" test "$(wc -c <"$d/wd/t.db")" -lt 1000000

# edit_file on a file holding a NUL: refused, nothing lost
printf 'head\000tail\n' >"$d/wd/b.bin"
out=$(printf '%s\n' '{"id":"e","tool":"edit_file","input":{"path":"b.bin","old_string":"head","new_string":"HEAD"}}' |
	gate 'cat >/dev/null')
expect_eq "binary edit: refused" "$(printf '%s\n' "$out" | jq -r .decision)" error
expect_eq "binary edit: file intact" "$(wc -c <"$d/wd/b.bin" | tr -d ' ')" 10
# edit_file through a link to a FIFO: an error, not a gate that hangs
mkfifo "$d/wd/fifo"
ln -s fifo "$d/wd/to-fifo"
j=$(printf '%s\n' '{"tool":"edit_file","input":{"path":"to-fifo","old_string":"a","new_string":"b"}}' |
	timeout 20 "$AIRLOCK" preview --workdir "$d/wd" --format json)
expect_eq "edit through a link to a FIFO: an error" "$(printf '%s\n' "$j" | jq -r .preview.error)" \
	"$d/wd/to-fifo is not a regular file"

# directory modes around the changes: as a user DAC binds (not root), a dry
# run that writes into a directory and then makes it read-only, or deletes
# a read-only tree, is applied whole, not half
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	u="$d/user"
	mkdir -p "$u/home" "$d/bin"
	cp "$d/p.policy" "$u/p.policy"
	# uid 65534 must be able to run the binary wherever the tree lives (a
	# clone under a 0700 directory, as CI makes)
	cp "$AIRLOCK" "$d/bin/airlock"
	chmod 755 "$d/bin" "$d/bin/airlock"
	# as_user CALL: one approved call (a JSON line) in $u/wd as uid 65534
	as_user() {
		rm -rf "$u/wd" "$u/g.db"
		mkdir -p "$u/wd/ro"
		echo a >"$u/wd/ro/f"
		chmod 555 "$u/wd/ro"
		chown -R 65534:65534 "$u"
		chmod 755 "$d"
		printf '%s\n' "$1" | setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$u/home" \
			"$d/bin/airlock" gate --no-tty --db "$u/g.db" --workdir "$u/wd" --policy "$u/p.policy" \
			--approve-with 'cat >/dev/null' | jq -r .applied
	}
	expect_eq "write then chmod 555: applied" "$(as_user "$(shell u 'chmod 755 ro; echo b > ro/f; chmod 555 ro')")" preview
	expect_eq "write then chmod 555: the content" "$(cat "$u/wd/ro/f")" b
	check "write then chmod 555: the mode" test "$(stat -c %a "$u/wd/ro")" = 555
	expect_eq "read-only tree deleted: applied" "$(as_user "$(shell u 'chmod -R u+w ro && rm -rf ro')")" preview
	check "read-only tree deleted: gone" test ! -e "$u/wd/ro"
	as_user '{"tool":"write_file","input":{"path":"ro/f","content":"w\n"}}' >/dev/null
	expect_eq "write_file in a read-only dir: not written" "$(cat "$u/wd/ro/f")" a
fi
finish
