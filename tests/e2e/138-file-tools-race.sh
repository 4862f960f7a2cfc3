#!/bin/sh
# 138-file-tools-race.sh: an approved write_file/edit_file whose preview is
# not applied (outside the workdir, through a link) was checked against
# the preview, then run by name, following links: a directory link swapped
# between the check and the write (an agent can loop on it) carried the
# write to another directory, and a swap between the temp file and the
# rename left the temp file behind. Now it runs on what was checked: the
# directory opened without following links, the file compared, the
# content renamed over the name. The race checks failed on fa69fe6 (a
# race: most runs, not every run); the rest say what still works.
# Approvals are scripted with --approve-with (exit 0 approves, 1 denies).
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
d=$(mktemp -d /tmp/airlock-e2e-tools7.XXXXXX)
trap 'rm -rf "$d"' EXIT
need jq python3
export HOME="$d/home" XDG_STATE_HOME="$d/home/.state"
mkdir -p "$HOME"
# every tier asks; calls run with a writable workdir
pol="$d/p.policy"
{
	printf '[profile "p"]\n\tworkdir = rw\n'
	for t in low medium high; do printf '[tier "%s"]\n\taction = ask\n\tprofile = p\n' "$t"; done
} >"$pol"
chmod 600 "$pol"
# gate WD APPROVER <calls: one result line per call, a fresh log each time
gate() {
	rm -f "$d/g.db"
	"$AIRLOCK" gate --no-tty --policy "$pol" --db "$d/g.db" --approve-with "$2" --workdir "$1"
}
field() { printf '%s\n' "$1" | jq -r ".$2"; }

# --- a directory link swapped after the check -----------------------------------
# o/sub -> a when previewed and approved; the approver leaves a loop behind
# pointing it at b and back. A write shown (and checked) in a/ landed in
# b/, or left its temp file where the rename did not find it.
mkdir -p "$d/race/w" "$d/race/o/a" "$d/race/o/b"
printf '%s\n' 'import os, sys, time' \
	'o = sys.argv[1]' \
	'end = time.time() + 0.3' \
	'first = True' \
	'while time.time() < end:' \
	'    for t in ("b", "a"):' \
	'        if os.path.lexists(o + "/sub.new"): os.unlink(o + "/sub.new")' \
	'        os.symlink(t, o + "/sub.new")' \
	'        os.rename(o + "/sub.new", o + "/sub")' \
	'        time.sleep(0.0003)' \
	'    if first:' \
	'        open(o + "/ready", "w").close()' \
	'        first = False' >"$d/swap.py"
printf '%s\n' 'cat >/dev/null' 'rm -f "$1/ready"' \
	'python3 "$2" "$1" >/dev/null 2>&1 </dev/null &' \
	'while [ ! -e "$1/ready" ]; do sleep 0.001; done' >"$d/approve.sh"
jq -cn '{id:1,tool:"write_file",input:{path:"../o/sub/f.txt",content:"x\n"}}' >"$d/race.call"
escaped=0 left=0 i=0
while [ $i -lt 40 ]; do
	rm -f "$d/race/o/a/"* "$d/race/o/b/"*
	ln -sfn a "$d/race/o/sub"
	gate "$d/race/w" "sh '$d/approve.sh' '$d/race/o' '$d/swap.py'" <"$d/race.call" >/dev/null
	sleep 0.35 # the loop ends
	[ -e "$d/race/o/b/f.txt" ] && escaped=$((escaped + 1))
	[ -n "$(find "$d/race/o/a" "$d/race/o/b" -name '*airlock*')" ] && left=$((left + 1))
	i=$((i + 1))
done
expect_eq "race: no write landed in b/ (of 40)" "$escaped" 0
expect_eq "race: no temp file left (of 40)" "$left" 0

# --- unswapped, the approved write outside runs where it was shown --------------
ln -sfn a "$d/race/o/sub"
rm -f "$d/race/o/a/"* "$d/race/o/b/"*
out=$(gate "$d/race/w" "cat >/dev/null" <"$d/race.call")
expect_eq "outside: approved, written in a/" \
	"$(field "$out" decision) $(field "$out" applied) $(cat "$d/race/o/a/f.txt")" "approved run x"

# --- swapped before approval: refused, nothing written ---------------------------
rm -f "$d/race/o/a/"* "$d/race/o/b/"*
out=$(gate "$d/race/w" "cat >/dev/null; ln -sfn b '$d/race/o/sub'" <"$d/race.call")
expect_eq "swapped: refused" "$(field "$out" decision)" error
expect_eq "swapped: nothing in a/ or b/" "$(find "$d/race/o/a" "$d/race/o/b" -type f | wc -l)" 0

# --- edit_file through a link: the link is replaced, its target not written -------
mkdir -p "$d/link"
echo hello >"$d/link/real.txt"
ln -s real.txt "$d/link/link.txt"
jq -cn '{id:1,tool:"edit_file",input:{path:"link.txt",old_string:"h",new_string:"H"}}' |
	gate "$d/link" "cat >/dev/null" >"$d/link.out"
expect_eq "link edit: approved" "$(jq -r .decision "$d/link.out")" approved
expect_eq "link edit: link replaced" "$(test -L "$d/link/link.txt" || cat "$d/link/link.txt")" Hello
expect_eq "link edit: target kept" "$(cat "$d/link/real.txt")" hello

finish
