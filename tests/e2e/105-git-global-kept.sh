#!/bin/sh
# 105-git-global-kept.sh: what the user's global git config has git run
# or read (core.hooksPath, the files it includes), read once and kept in
# the state directory for the next one-shot call: a ~/.gitconfig with an
# include cost each writable `airlock exec` libgit2 and a child (24 ms
# against 10). The kept copy must never outlive what it was read from: a
# change to any file read, a file the include names appearing, another
# environment ($HOME behind "~/", GIT_CONFIG_GLOBAL), or a kept file that
# is not the user's own and private, each reads afresh, and a hooksPath
# the change brings is guarded: the host's next commit runs no hook the
# call planted.
. tests/e2e/lib.sh
need git
tmpdir_make
d=$T_DIR
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT
export GIT_CONFIG_NOSYSTEM=1
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$HOME" "$XDG_STATE_HOME"
printf '[user]\n\tname = U\n\temail = u@example.org\n[include]\n\tpath = ~/local.inc\n' \
	>"$HOME/.gitconfig"
printf '[core]\n\teditor = vi\n' >"$HOME/local.inc"
kept() { find "$XDG_STATE_HOME/airlock/gitglobal" -type f 2>/dev/null | head -n 1; }
# libgit2 DIR: 1 when a writable call in DIR loads libgit2
libgit2() {
	(cd "$1" && LD_DEBUG=libs "$AIRLOCK" exec --profile workspace -- true 2>"$d/ld.txt" >/dev/null)
	grep -q 'libc.so' "$d/ld.txt" || echo "(no ld.so trace)"
	grep -q 'libgit2' "$d/ld.txt" && echo 1 || echo 0
}
r=$d/r
mkdir -p "$r"
(cd "$r" && git init -q && echo a >a && git add a && git commit -qm a)
sleep 3 # past the racy window (a ctime within 2 s is not trusted), so the first call's read is kept

# ---- kept, and what spares the next call ----
expect_eq "first call: the include is read with libgit2" "$(libgit2 "$r")" 1
check "first call: the global config's reading is kept" test -n "$(kept)"
expect_eq "kept file is private" "$(stat -c %a "$(kept)")" 600
expect_eq "next call: read from the kept file, no libgit2" "$(libgit2 "$r")" 0

# ---- the included file changes: a hooksPath the kept copy lacks ----
printf '[core]\n\thooksPath = .githooks\n' >"$HOME/local.inc"
sleep 3 # the change is old enough to be trusted: only its stamp tells
(cd "$r" && "$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
expect_eq "included file changed: the planted hook does not run on the host" \
	"$(commit_ran "$r")" 0
expect_eq "included file changed: the kept copy serves again after" "$(libgit2 "$r")" 0

# ---- a file the include names appears (it was absent when kept) ----
printf '[user]\n\tname = U\n\temail = u@example.org\n[include]\n\tpath = ~/later.inc\n' \
	>"$HOME/.gitconfig"
sleep 3
expect_eq "include of an absent file: read afresh" "$(libgit2 "$r")" 1
expect_eq "include of an absent file: then kept" "$(libgit2 "$r")" 0
printf '[core]\n\thooksPath = .githooks\n' >"$HOME/later.inc"
sleep 3
(cd "$r" && "$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
expect_eq "included file appeared: the planted hook does not run on the host" \
	"$(commit_ran "$r")" 0

# ---- another environment: "~/" names another file ----
export GIT_CONFIG_GLOBAL="$d/global.gc"
printf '[user]\n\tname = U\n\temail = u@example.org\n[include]\n\tpath = ~/home.inc\n' \
	>"$GIT_CONFIG_GLOBAL"
mkdir -p "$d/home2"
: >"$HOME/home.inc"
printf '[core]\n\thooksPath = .githooks\n' >"$d/home2/home.inc"
sleep 3
(cd "$r" && "$AIRLOCK" exec --profile workspace -- true >/dev/null 2>&1)
expect_eq "GIT_CONFIG_GLOBAL: kept for this environment" "$(libgit2 "$r")" 0
(cd "$r" && HOME="$d/home2" "$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
expect_eq "another HOME behind ~/: the planted hook does not run on the host" \
	"$(HOME="$d/home2" commit_ran "$r")" 0
unset GIT_CONFIG_GLOBAL

# ---- a kept file that is not private, or damaged, is not taken ----
(cd "$r" && "$AIRLOCK" exec --profile workspace -- true >/dev/null 2>&1)
expect_eq "kept again" "$(libgit2 "$r")" 0
chmod 644 "$(kept)"
expect_eq "kept file readable by others: not taken" "$(libgit2 "$r")" 1
f=$(kept)
head -c 40 "$f" >"$d/half" && cat "$d/half" >"$f" && chmod 600 "$f"
expect_eq "kept file cut short: not taken" "$(libgit2 "$r")" 1
expect_eq "rewritten whole after" "$(libgit2 "$r")" 0

# ---- the sandbox cannot reach the kept file ----
out=$(cd "$r" && "$AIRLOCK" exec --profile workspace -- sh -c \
	"ls '$XDG_STATE_HOME/airlock/gitglobal' 2>&1; : >'$f' && echo wrote" 2>/dev/null)
check "the sandbox cannot write the kept file" sh -c "! echo '$out' | grep -q wrote"
expect_eq "the kept file is intact after the call" "$(libgit2 "$r")" 0

# ---- a readonly call reads no global config at all (unchanged) ----
(cd "$r" && LD_DEBUG=libs "$AIRLOCK" exec --profile readonly -- true 2>"$d/ld.txt" >/dev/null)
expect_eq "readonly call: libgit2 not loaded" "$(grep -c 'libgit2' "$d/ld.txt")" 0
finish
