#!/bin/sh
# 94-preview-review2.sh: a second hostile review of previews and their
# apply ("what the person saw is exactly what lands, and nothing else"),
# each check failing on d9b0e66 before its fix.
# Approvals are scripted with --approve-with (exit 0 approves, 1 denies).
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 git
tmpdir_make
d=$T_DIR HOME="$T_DIR/home"
export HOME
mkdir -p "$HOME" "$d/wd"
# every tier asks and runs with a writable workdir
printf '[profile "p"]\n\tworkdir = rw\n' >"$d/p.policy"
printf '[tier "%s"]\n\taction = ask\n\tprofile = p\n' low low medium medium high high >>"$d/p.policy"
chmod 600 "$d/p.policy"
# gate APPROVER: the calls on stdin, one result line each
gate() {
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$d/wd" --policy "$d/p.policy" \
		--approve-with "$1"
}
shell() { printf '{"id":"%s","tool":"shell","input":{"command":"%s"}}\n' "$1" "$2"; }
field() { printf '%s\n' "$1" | jq -r ".$2"; }

# a hook where core.hooksPath points, and a nested repository's config: a
# real run's guard removes both, so an approved preview must not plant them
git -C "$d/wd" init -q .
git -C "$d/wd" config core.hooksPath .githooks
out=$(shell h "mkdir .githooks; echo evil > .githooks/pre-commit" | gate 'cat >/dev/null')
expect_eq "core.hooksPath hook: run, not applied" "$(field "$out" applied)" run
check "core.hooksPath hook: not planted" test ! -e "$d/wd/.githooks/pre-commit"
out=$(shell n "mkdir -p sub && git -C sub init -q && git -C sub config core.fsmonitor 'touch $d/pwned'" |
	gate 'cat >/dev/null')
expect_eq "nested repository config: run, not applied" "$(field "$out" applied)" run
check "nested repository config: no fsmonitor planted" \
	sh -c "! grep -qs fsmonitor '$d/wd/sub/.git/config'"
rm -rf "$d/wd/sub" "$d/wd/.githooks"
git -C "$d/wd" config --unset core.hooksPath

# a dry run whose output passes its cap has that stream closed and may die
# there (SIGPIPE); the real run, with its profile's larger cap, goes on:
# what the dry run left is not what the call does
out=$(shell o "head -c 400000 /dev/zero | tr '\\\\0' x; echo; echo finished > done.txt" |
	gate 'cat >/dev/null')
expect_eq "output past the cap: run, not applied" "$(field "$out" applied)" run
expect_eq "output past the cap: the command finished" "$(cat "$d/wd/done.txt" 2>&1)" finished
# a dry run killed by a signal (a limit, or its own hand) is not whole either
out=$(shell k 'echo a > before.txt; kill -9 $$; echo b > after.txt' | gate 'cat >/dev/null')
expect_eq "killed dry run: run, not applied" "$(field "$out" applied)" run
rm -f "$d/wd/done.txt" "$d/wd/before.txt" "$d/wd/after.txt"

# a linked worktree: the main repository's .git is an overlay in the dry
# run, neither shown nor applied; an approved commit must land, not be
# reported from the dry run and lost
git init -q "$d/main"
git -C "$d/main" -c user.name=a -c user.email=a@b commit -q --allow-empty -m init
git -C "$d/main" worktree add -q "$d/lwt" 2>/dev/null
lgate() {
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$d/lwt" --policy "$d/p.policy" \
		--approve-with 'cat >/dev/null'
}
out=$(shell c "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m second" | lgate)
expect_eq "linked worktree commit: run, not applied" "$(field "$out" applied)" run
expect_eq "linked worktree commit: it landed" "$(git -C "$d/lwt" log --oneline | wc -l | tr -d ' ')" 2
out=$(shell w "echo x > plain.txt" | lgate)
expect_eq "linked worktree, a plain write: still applied" "$(field "$out" applied)" preview
expect_eq "linked worktree, a plain write: landed" "$(cat "$d/lwt/plain.txt")" x

# a preview cut at 8 MiB of text still applies whole: every change must be
# named before the cut (the stat block), a directory's mode change and a
# link's target too, not only files' line counts
mkdir -p "$d/cut/zdir"
chmod 755 "$d/cut/zdir"
printf '%s\n' '{"tool":"shell","input":{"command":"for i in 1 2 3 4 5 6 7 8 9; do seq 1 200000 > big$i.txt; done; chmod 777 zdir; ln -s /etc/passwd zlink"}}' |
	"$AIRLOCK" preview --workdir "$d/cut" >"$d/cut.txt"
check "cut preview: it says it is cut" grep -q '^\[preview cut at 8 MiB\]' "$d/cut.txt"
check "cut preview: the directory's mode change is named" \
	grep -q '^ zdir  *| mode 040755 -> 040777$' "$d/cut.txt"
check "cut preview: the link's target is named" grep -q '^ zlink  *| .*link -> /etc/passwd$' "$d/cut.txt"

# a file's diff cut at 1 MiB ended inside a word: a token there kept its
# first characters, too few for any secret's shape, in the preview and the
# audit log's previewed event. The cut word goes now.
mkdir -p "$d/cutw"
python3 -c 'import json, sys
w = " ".join("ghp_" + "%036d" % i for i in range(30000))
print(json.dumps({"tool": "write_file", "input": {"path": "tok.txt", "content": w}}))' |
	"$AIRLOCK" preview --workdir "$d/cutw" >"$d/cutw.txt"
check "cut word: the diff says it is cut" grep -q '^\[diff of tok.txt cut at 1024 KiB\]' "$d/cutw.txt"
check "cut word: the line before the notice ends with a whole word" \
	sh -c "grep -B1 '^\[diff of tok.txt cut' '$d/cutw.txt' | head -n 1 | grep -Eq '(^| )ghp_[0-9]{36} \$'"

# a directory deleted and made again (rm -rf d; mkdir d; ...): overlayfs
# makes it opaque, and a path made in it again had a lower twin the
# preview deletes first; the apply took the new path for one that must be
# absent, saw the old file and refused a preview that was right
mkdir -p "$d/wd/od/s"
echo old >"$d/wd/od/a"
echo x >"$d/wd/od/s/x"
out=$(shell r "rm -rf od; mkdir -p od/s; echo new > od/a" | gate 'cat >/dev/null')
expect_eq "remade directory: applied" "$(field "$out" applied)" preview
expect_eq "remade directory: the new file" "$(cat "$d/wd/od/a")" new
check "remade directory: the old tree is gone" test ! -e "$d/wd/od/s/x"
rm -rf "$d/wd/od"

# SQL: a row whose (non-integer) PRIMARY KEY is NULL is skipped by SQLite's
# session extension: the preview listed no row and named no table, yet
# approval committed the change from the preview
sqlite3 "$d/wd/n.db" "CREATE TABLE t(k TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES(NULL,'safe'),('a','x')"
out=$(printf '%s\n' '{"id":"q","tool":"sql","input":{"query":"UPDATE t SET v = 1 WHERE k IS NULL","database":"n.db"}}' |
	gate "jq -r .preview > '$d/seen'")
expect_eq "NULL key: run, not applied from the preview" "$(field "$out" applied)" run
check "NULL key: the preview says the rows are not previewed" \
	grep -q "t holds a row whose PRIMARY KEY is NULL" "$d/seen"

# write_file through a link to a setuid program outside the workdir: the
# new file took the target's mode, setuid bit and all. A write keeps a
# file's permissions, never its setuid or setgid bit, in the preview and
# in what is written, applied from the preview or run.
ln -s /usr/bin/su "$d/wd/su-link"
printf '#!/bin/sh\necho mine\n' >"$d/wd/own"
chmod 4755 "$d/wd/own"
out=$(printf '%s\n' '{"id":"w","tool":"write_file","input":{"path":"su-link","content":"x"}}' |
	gate "jq -r .preview > '$d/seen'")
check "setuid link: the preview shows no setuid mode" sh -c '! grep -q "mode 104755" "$1"' x "$d/seen"
expect_eq "setuid link: the written file's mode" "$(stat -c %a "$d/wd/su-link")" 755
out=$(printf '%s\n' '{"id":"w2","tool":"write_file","input":{"path":"own","content":"echo new"}}' |
	gate 'cat >/dev/null')
expect_eq "own setuid file: rewritten without its setuid bit" "$(stat -c %a "$d/wd/own")" 755

finish
