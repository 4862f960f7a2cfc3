#!/bin/sh
# 102-deny-glob.sh: deny = Read(<glob>) and deny = Edit(<glob>) held by the
# sandbox, through the real binary. A rule that names paths only by a glob
# (Read(**/*.sql), Read(./config/*.yaml), Edit(**/*.lock)) stopped a call
# that named a matching path, but `grep -r x .`, a loop over config/*,
# python's open() or a link read the matching files inside an auto-run
# sandbox, and `cp -r x/. .` or `sed -i` wrote them. The sandbox's search
# of the workdir now masks what a deny = Read glob matches and keeps what
# a deny = Edit glob matches read-only, and what it remembers (in the gate,
# and in the kept file a one-shot `airlock exec` reads) follows a policy
# change. The checks marked (base) failed on aaf9c4b; the others are
# controls that the calls ran and what no rule names still shows.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq python3
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME
export HOME="$d/home"
w="$d/w"
mkdir -p "$HOME/.config/airlock" "$w/.airlock" "$w/db/sub" "$w/config" "$w/sub"
cd "$w" || exit 1
echo TOKEN_SQL >db/sub/dump.sql
echo TOKEN_TOP >top.sql
echo TOKEN_YAML >config/prod.yaml
echo TOKEN_CONF >config/app.conf
echo TOKEN_OK >ok.txt
echo OLD >Cargo.lock
echo OLD >sub/yarn.lock
echo OLD >sub/notes.md
ln -s db/sub/dump.sql notes.txt # a link to a matching file, named otherwise
ln -s db dl                     # a link to a directory holding one
# pol TEXT: the project file's rules (printf format, one per \n)
pol() {
	rm -f .airlock/policy
	# shellcheck disable=SC2059
	printf "[rules]\n$1" >.airlock/policy
	chmod 600 .airlock/policy
}
# gate CMD...: each command a shell call of one gate session; prints one
# {decision,stdout} line per call
gate() {
	for c in "$@"; do printf '%s' "$c" | jq -Rsc '{tool:"shell",input:{command:.}}'; done |
		timeout 120 "$AIRLOCK" gate --no-tty --db "$d/g.db" 2>"$d/gate.err" |
		jq -c '{decision, stdout}'
}
# nth N: the Nth line of $out; dec/so: its decision, its stdout
nth() { printf '%s\n' "$out" | sed -n "${1}p"; }
dec() { nth "$1" | jq -r .decision; }
so() { nth "$1" | jq -r .stdout; }
# ex CMD: `airlock exec` (a one-shot process: what the last one kept is
# what its search starts from); prints its stdout
ex() { timeout 60 "$AIRLOCK" exec -- sh -c "$1" 2>>"$d/exec.err"; }

pol '\tdeny = Read(**/*.sql)\n\tdeny = Read(./config/*.yaml)\n\tdeny = Edit(**/*.lock)\n'
sleep 2.1 # the tree's times are not racy now: the kept search serves it

# 1. Reads of a tree in an auto-run sandbox see nothing a glob denies.
out=$(gate 'grep -r TOKEN . | sort' \
	'for f in config/*; do cat "$f"; done' \
	'python3 -c "print(open(\"db/sub/dump.sql\").read())"' \
	'python3 -c "print(open(\"notes.txt\").read())"' \
	'grep -r TOKEN dl/' \
	'cat ok.txt config/app.conf')
expect_eq "grep -r . auto-runs" "$(dec 1)" auto
expect_eq "grep -r . reads no .sql and no config/*.yaml (base)" "$(so 1)" \
	"$(printf './config/app.conf:TOKEN_CONF\n./ok.txt:TOKEN_OK')"
expect_eq "a loop over config/* auto-runs" "$(dec 2)" auto
expect_eq "a loop over config/* reads app.conf, not prod.yaml (base)" "$(so 2)" TOKEN_CONF
expect_eq "python's open() of a .sql auto-runs (the classifier cannot see it)" "$(dec 3)" auto
check "... and reads nothing (base)" sh -c "! printf '%s' '$(so 3)' | grep -q TOKEN"
expect_eq "python's open() of a link to a .sql auto-runs" "$(dec 4)" auto
check "... and reads nothing (base)" sh -c "! printf '%s' '$(so 4)' | grep -q TOKEN"
expect_eq "grep -r through a link to a directory auto-runs" "$(dec 5)" auto
expect_eq "... and reads no .sql (base)" "$(so 5)" ""
expect_eq "what no rule names is read" "$(so 6)" "$(printf 'TOKEN_OK\nTOKEN_CONF')"
expect_eq "the host's files are as they were" "$(cat db/sub/dump.sql config/prod.yaml)" \
	"$(printf 'TOKEN_SQL\nTOKEN_YAML')"

# 2. A matching file one call makes is masked in the next call of the same
# gate, whose search serves the rest from what it remembers.
out=$(gate 'echo TOKEN_NEW >sub/fresh.sql' 'grep -r TOKEN_NEW . ; true')
expect_eq "a call writes sub/fresh.sql" "$(dec 1) $(cat sub/fresh.sql)" "auto TOKEN_NEW"
expect_eq "the next call's grep -r does not read it (base)" "$(so 2)" ""

# 3. A tree write changes no file a deny = Edit glob matches, and the others.
out=$(gate 'mkdir -p /tmp/x/sub && echo NEW >/tmp/x/Cargo.lock && echo NEW >/tmp/x/sub/yarn.lock && echo NEW >/tmp/x/sub/notes.md && echo hi >/tmp/x/other.txt && cp -r /tmp/x/. . ; true')
expect_eq "cp -r x/. . auto-runs" "$(dec 1)" auto
expect_eq "... writes what no rule denies" "$(cat other.txt sub/notes.md 2>/dev/null)" \
	"$(printf 'hi\nNEW')"
expect_eq "... but no .lock (base)" "$(cat Cargo.lock sub/yarn.lock)" "$(printf 'OLD\nOLD')"
out=$(gate 'python3 -c "import glob; [open(f, \"w\").write(\"NEW\") for f in glob.glob(\"**/*.lock\", recursive=True)]"; true')
expect_eq "python writing each .lock auto-runs" "$(dec 1)" auto
expect_eq "... and changes none (base)" "$(cat Cargo.lock sub/yarn.lock)" "$(printf 'OLD\nOLD')"

# 4. A policy change between one-shot processes, each starting from what
# the last one kept: a pattern added is held, one removed shows again.
rm -f sub/fresh.sql other.txt
sleep 2.1
expect_eq "airlock exec: the .sql masked (base)" "$(ex 'cat top.sql; true')" ""
check "... its search was kept for the next process" \
	sh -c "ls '$HOME'/.local/state/airlock/search/* >/dev/null"
expect_eq "airlock exec: ok.txt shown, as no rule names it" "$(ex 'cat ok.txt')" TOKEN_OK
pol '\tdeny = Read(**/*.sql)\n\tdeny = Read(*.txt)\n'
expect_eq "a pattern added (*.txt): the next process masks ok.txt (base)" \
	"$(ex 'cat ok.txt; true')" ""
pol '\tdeny = Read(*.txt)\n'
expect_eq "a pattern removed (*.sql): the next process shows top.sql" \
	"$(ex 'cat top.sql')" TOKEN_TOP
expect_eq "... and still masks ok.txt (base)" "$(ex 'cat ok.txt; true')" ""
pol '\tdeny = Read(**/*.sql)\n'
out=$(gate 'python3 -c "print(open(\"ok.txt\").read().strip()); print(open(\"top.sql\").read())"; true')
expect_eq "a gate after the kept file's policy: ok.txt shown, top.sql masked (base)" \
	"$(so 1)" TOKEN_OK
pol ''
expect_eq "no glob rule: the next process shows everything" "$(ex 'cat ok.txt top.sql')" \
	"$(printf 'TOKEN_OK\nTOKEN_TOP')"

# a run that fails where a glob's match is masked says that approval does
# not show it (it used to say that --profile approved shows secret files)
pol '\tdeny = Read(**/*.sql)\n'
msg=$(timeout 60 "$AIRLOCK" exec -- cat top.sql 2>&1 >/dev/null)
check "a failed run: the hint names top.sql" sh -c "printf '%s' \"\$1\" | grep -q 'hides .*top.sql'" _ "$msg"
check "a failed run: approval does not show what a deny rule names" \
	sh -c "printf '%s' \"\$1\" | grep -q 'never what a deny rule names'" _ "$msg"

finish
