#!/bin/sh
# 132-preview-review6.sh: a sixth hostile review of previews of file edits
# and shell dry runs: approval must do exactly what was shown, or say that
# it runs the call instead (and then refuse when the file it showed has
# changed). Each check failed on 71c4ce7 before its fix.
# Approvals are scripted with --approve-with (exit 0 approves, 1 denies).
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq python3
d=$(mktemp -d /tmp/airlock-e2e-prevrev6.XXXXXX)
trap 'rm -rf "$d"' EXIT
HOME="$d/home" XDG_STATE_HOME="$d/home/.state"
export HOME XDG_STATE_HOME
mkdir -p "$HOME"
# every tier asks and runs with a writable workdir
printf '[profile "p"]\n\tworkdir = rw\n' >"$d/p.policy"
printf '[tier "%s"]\n\taction = ask\n\tprofile = p\n' low low medium medium high high >>"$d/p.policy"
chmod 600 "$d/p.policy"
# gate WD APPROVER: the calls on stdin through a gate in WD, one result line each
gate() {
	rm -f "$d/g.db"
	"$AIRLOCK" gate --no-tty --db "$d/g.db" --workdir "$1" --policy "$d/p.policy" \
		--approve-with "$2"
}
# preview WD: airlock preview of the calls on stdin in WD
preview() { "$AIRLOCK" preview --workdir "$1" --policy "$d/p.policy"; }
# shell CMD: a shell call
shell() { jq -cn --arg c "$1" '{id:1,tool:"shell",input:{command:$c}}'; }
field() { printf '%s\n' "$1" | jq -r ".$2"; }
has() { grep -qF -- "$1"; }
lacks() { ! grep -qF -- "$1"; }

# --- edit_file through a link swapped between preview and approval --------------
# The preview (not applied: the executor reads through the link) showed
# real.txt's edit; the approver's wait let link.txt be pointed at
# other.txt, and the approved run wrote other.txt's edited text, which no
# one was shown, over the link. Now it is refused, saying why.
mkdir -p "$d/swap"
echo hello >"$d/swap/real.txt"
echo other >"$d/swap/other.txt"
ln -s real.txt "$d/swap/link.txt"
jq -cn '{id:1,tool:"edit_file",input:{path:"link.txt",old_string:"h",new_string:"H"}}' >"$d/swap.call"
out=$(gate "$d/swap" "cat >/dev/null; ln -sfn other.txt '$d/swap/link.txt'" <"$d/swap.call")
expect_eq "swap: refused" "$(field "$out" decision)" error
check "swap: says why" sh -c 'printf "%s" "$1" | grep -q "changed since the preview: link.txt"' - "$out"
expect_eq "swap: nothing written" "$(cat "$d/swap/link.txt")" other
# unswapped, the same call runs
rm -f "$d/swap/link.txt"
ln -s real.txt "$d/swap/link.txt"
out=$(gate "$d/swap" "cat >/dev/null" <"$d/swap.call")
expect_eq "swap: unchanged, it runs" "$(field "$out" decision) $(cat "$d/swap/link.txt")" \
	"approved Hello"

# --- edit_file outside the workdir changed between preview and approval --------
# Not applied (outside), the approved run edited the file as it was then:
# "outside" -> "OUTside" shown, "xOUT" plus a line no one saw written.
mkdir -p "$d/out/w"
echo outside >"$d/out/f.txt"
jq -cn '{id:1,tool:"edit_file",input:{path:"../f.txt",old_string:"out",new_string:"OUT"}}' |
	gate "$d/out/w" "cat >/dev/null; printf 'xout\nadded\n' >'$d/out/f.txt'" >"$d/out/res"
expect_eq "outside changed: refused" "$(jq -r .decision "$d/out/res")" error
expect_eq "outside changed: not edited" "$(head -1 "$d/out/f.txt")" xout

# --- write_file over a file past the preview's read cap -------------------------
# write_file never reads the old file, but its preview failed ("larger
# than 67108864 bytes") and the call was refused. Now it is shown (what is
# written, the size replaced) and runs.
mkdir -p "$d/huge"
head -c 70000000 /dev/zero >"$d/huge/big.bin"
jq -cn '{id:1,tool:"write_file",input:{path:"big.bin",content:"small\n"}}' >"$d/huge.call"
preview "$d/huge" <"$d/huge.call" >"$d/huge/out"
expect_eq "huge write: the preview does not fail" "$?" 0
check "huge write: the size replaced is said" has "big.bin | 1 +1 -0, replacing 70000000 bytes not shown" <"$d/huge/out"
check "huge write: runs, not applied" has "not applied from the preview: big.bin is past the 64 MiB a preview reads" <"$d/huge/out"
out=$(gate "$d/huge" "cat >/dev/null" <"$d/huge.call")
expect_eq "huge write: approved, written" "$(field "$out" decision) $(cat "$d/huge/big.bin")" \
	"approved small"

# --- a hard link made in a dry run is not applied as a copy -----------------------
# `ln a.txt b.txt` was previewed as a new file b.txt and applied as a copy:
# a later write to a.txt no longer changed b.txt. Now the preview says so
# and the approved call runs.
mkdir -p "$d/hl"
echo a >"$d/hl/a.txt"
shell 'ln a.txt b.txt' >"$d/hl.call"
preview "$d/hl" <"$d/hl.call" >"$d/hl.out"
check "hard link: said" has "b.txt has 2 names after the dry run (a hard link it made)" <"$d/hl.out"
out=$(gate "$d/hl" "cat >/dev/null" <"$d/hl.call")
expect_eq "hard link: the call runs" "$(field "$out" applied)" run
expect_eq "hard link: one file, two names" "$(stat -c %h "$d/hl/b.txt")" 2
# a file with a second name modified: the apply breaks the link, said
mkdir -p "$d/hl2"
echo a >"$d/hl2/a"
ln "$d/hl2/a" "$d/hl2/b"
shell 'echo x >> a' | preview "$d/hl2" >"$d/hl2.out"
check "hard links of a modified file: said" has "a has 2 hard links: the apply writes a new file" <"$d/hl2.out"

# --- a file re-made with what it held is no change --------------------------------
# `rm -rf d && mkdir d && echo same > d/f` listed d/f deleted and d/f
# added with the same line.
mkdir -p "$d/remade/d"
echo same >"$d/remade/d/f"
echo old >"$d/remade/d/g"
shell 'rm -rf d && mkdir d && echo same > d/f && echo new > d/g' | preview "$d/remade" >"$d/remade.out"
check "remade: d/f is no change" lacks "a/d/f b/d/f" <"$d/remade.out"
check "remade: d/g is one modification" has "1 file changed (0 added, 1 modified, 0 deleted), +1 -1" <"$d/remade.out"

# --- a rename in a dry run reads as one ------------------------------------------
# `mv big.txt renamed.txt` read as 2,000 lines deleted and 2,000 added.
mkdir -p "$d/mv"
seq 1 2000 >"$d/mv/big.txt"
shell 'mv big.txt renamed.txt' >"$d/mv.call"
preview "$d/mv" <"$d/mv.call" >"$d/mv.out"
check "rename: the total" has "1 file changed (0 added, 0 modified, 0 deleted, 1 renamed), +0 -0" <"$d/mv.out"
check "rename: git's header" has "rename from big.txt" <"$d/mv.out"
check "rename: no lines" lacks "-1999" <"$d/mv.out"
"$AIRLOCK" preview --format json --workdir "$d/mv" --policy "$d/p.policy" <"$d/mv.call" >"$d/mv.json"
expect_eq "rename: json" "$(jq -r '.preview.files[] | select(.change == "added") | .renamed_from' "$d/mv.json")" big.txt
out=$(gate "$d/mv" "cat >/dev/null" <"$d/mv.call")
expect_eq "rename: applied" "$(field "$out" applied) $(wc -l <"$d/mv/renamed.txt")" "preview 2000"
check "rename: the old name is gone" test ! -e "$d/mv/big.txt"
# a rename that makes a file run is shown line by line, not as a rename
mkdir -p "$d/mvx"
echo 'echo from-notes' >"$d/mvx/notes.txt"
shell 'mv notes.txt run.sh && chmod +x run.sh' | preview "$d/mvx" >"$d/mvx.out"
check "rename to a script: its lines shown" has "+echo from-notes" <"$d/mvx.out"

# --- a change the walk could not read is not "no changes" ----------------------
# `truncate -s 100M sp` (past the 64 MiB read cap) read " no changes" under "cannot read what the dry
# run wrote to sp".
mkdir -p "$d/sparse"
shell 'truncate -s 100M sp' | preview "$d/sparse" >"$d/sparse.out"
check "sparse: not 'no changes'" sh -c '! grep -qx " no changes" "$1"' - "$d/sparse.out"
check "sparse: counted" has " no changes listed; 1 change the dry run made is not listed" <"$d/sparse.out"
check "sparse: not applied" has "not applied from the preview: cannot read what the dry run wrote to sp" <"$d/sparse.out"

# --- a write to /tmp is said to be the sandbox's own ------------------------------
mkdir -p "$d/tmpw"
shell "echo t > /tmp/prev6-e2e-marker" | preview "$d/tmpw" >"$d/tmpw.out"
check "tmp: noted" has "note: writes /tmp/prev6-e2e-marker: /tmp is the sandbox's own" <"$d/tmpw.out"
check "tmp: nothing on the host" test ! -e /tmp/prev6-e2e-marker

# --- a path ending in a slash is not called a directory ---------------------------
mkdir -p "$d/slash"
echo a >"$d/slash/f.txt"
jq -cn '{id:1,tool:"write_file",input:{path:"f.txt/",content:"b"}}' | preview "$d/slash" >"$d/slash.out"
check "slash: said" has "error: f.txt/ ends in a slash, which names a directory" <"$d/slash.out"

# --- a directory link in the path pointed elsewhere before approval ---------------
# write_file sublink/f.txt, sublink -> ../A: previewed (not applied:
# outside the workdir) as a new file in A; sublink was pointed at ../B
# meanwhile and the approved run wrote B/f.txt.
mkdir -p "$d/dl/w" "$d/dl/A" "$d/dl/B"
ln -s ../A "$d/dl/w/sublink"
jq -cn '{id:1,tool:"write_file",input:{path:"sublink/f.txt",content:"x\n"}}' |
	gate "$d/dl/w" "cat >/dev/null; ln -sfn ../B '$d/dl/w/sublink'" >"$d/dl/res"
expect_eq "dir link swapped: refused" "$(jq -r .decision "$d/dl/res")" error
check "dir link swapped: says why" grep -q "its path leads elsewhere" "$d/dl/res"
check "dir link swapped: B untouched" test ! -e "$d/dl/B/f.txt"

# --- a diff cut at its cap says the rest lands too -----------------------------
# A 1,100,000-line write_file ended its diff on "[diff of big.txt cut at
# 1024 KiB]", read as the end of what approval writes; it writes all.
mkdir -p "$d/cut"
python3 -c 'import json; print(json.dumps({"id": 1, "tool": "write_file", "input": {"path": "big.txt", "content": "".join("line %d\n" % i for i in range(1100000))}}))' |
	preview "$d/cut" >"$d/cut.out"
check "cut: the cut is said" has "[diff of big.txt cut at 1024 KiB]" <"$d/cut.out"
check "cut: and that the rest lands" has "[88305 of 1100000 changed lines shown above; the change holds all of them]" <"$d/cut.out"

# --- write_file over a symlink says the link is replaced ------------------------
mkdir -p "$d/wl"
echo keep >"$d/wl/real.txt"
ln -s real.txt "$d/wl/link.txt"
jq -cn '{id:1,tool:"write_file",input:{path:"link.txt",content:"new\n"}}' >"$d/wl.call"
preview "$d/wl" <"$d/wl.call" >"$d/wl.out"
check "write over link: said" has "note: link.txt is a symlink to real.txt: write_file replaces the link" <"$d/wl.out"
out=$(gate "$d/wl" "cat >/dev/null" <"$d/wl.call")
expect_eq "write over link: as said" "$(field "$out" applied) $(cat "$d/wl/real.txt") $(cat "$d/wl/link.txt")" \
	"preview keep new"

# --- write_file over a FIFO is shown and runs, as its executor does -------------
# The preview failed ("fifo is not a regular file, directory or symlink")
# and the call was refused; write_file renames a new file over it.
mkdir -p "$d/fifo"
mkfifo "$d/fifo/p"
jq -cn '{id:1,tool:"write_file",input:{path:"p",content:"x\n"}}' >"$d/fifo.call"
preview "$d/fifo" <"$d/fifo.call" >"$d/fifo.out"
check "fifo: said" has "p | 1 +1 -0, mode 010644 -> 100644, replacing a special file" <"$d/fifo.out"
out=$(gate "$d/fifo" "cat >/dev/null" <"$d/fifo.call")
expect_eq "fifo: runs" "$(field "$out" applied) $(test -f "$d/fifo/p" && cat "$d/fifo/p")" "run x"

finish
