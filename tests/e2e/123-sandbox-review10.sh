#!/bin/sh
# 123-sandbox-review10.sh: what the tenth hostile review of the sandbox
# found, each failing before its fix: an assume-unchanged or skip-worktree
# mark a call set in the index, which left the host's git status and git
# diff silent about its edit of the Makefile while make ran it, as did an
# index written with the edited file's stat data beside the old blob; a nested
# sub-project's .airlock/policy (a monorepo whose root is the workdir),
# which a call in the outer project emptied, or a new one a call planted;
# a profile's read-write grant
# of ~/.claude, through which a call removed the hook that runs airlock,
# or of the directory holding airlock's binary, which a call replaced.
. tests/e2e/lib.sh
need git
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME"
G() { git -c user.email=a@b -c user.name=a "$@"; }

# ---- index marks that hide an edit from review ----
# split: the marks written into a split index's shared part
for fmt in sha1 sha256 split; do
	w="$d/marks-$fmt" split= of=$fmt
	[ $fmt = split ] && of=sha1 split='git -c splitIndex.maxPercentChange=0 update-index --split-index'
	git init -q --object-format=$of "$w"
	printf 'all:\n\techo ok\n' >"$w/Makefile" && echo a >"$w/mine" && echo b >"$w/c.txt"
	G -C "$w" add -A && G -C "$w" commit -qm i && git -C "$w" update-index --assume-unchanged mine
	r=$(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'git update-index --assume-unchanged Makefile
git update-index --skip-worktree c.txt; ${1:-true}; printf "all:\n\techo pwned\n" >Makefile
echo x >c.txt' sh "$split" 2>&1)
	expect_eq "$fmt: the host's git status shows the edits the marks hid" \
		"$(git -C "$w" status --short | tr '\n' ' ')" " M Makefile  M c.txt "
	[ $fmt = split ] || # a split index's unnamed entries lose theirs (docs/sandbox.md)
		expect_eq "$fmt: the user's own mark stays" "$(git -C "$w" ls-files -v mine)" "h mine"
	expect_eq "$fmt: the call is told" "$(echo "$r" | grep -c 'mark of .* in the index')" 1
	check "$fmt: the index still verifies" git -C "$w" fsck --no-dangling
done

# an index written with the edited file's stat data beside the old blob:
# git reads no content for an entry whose stat data matches the file
w="$d/stat"
git init -q "$w" && printf 'all:\n\techo ok\n' >"$w/Makefile" && G -C "$w" add -A && G -C "$w" commit -qm i
printf '%s\n' 'import os, struct, hashlib, time' \
	'd = bytearray(open(".git/index", "rb").read()); st = os.stat("Makefile"); time.sleep(1.1)' \
	'd[12:52] = struct.pack(">10I", int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime),' \
	'    st.st_mtime_ns % 10**9, st.st_dev & 0xffffffff, st.st_ino & 0xffffffff,' \
	'    struct.unpack(">I", d[36:40])[0], st.st_uid, st.st_gid, st.st_size)' \
	'b = bytes(d[:-20]); open(".git/i.tmp", "wb").write(b + hashlib.sha1(b).digest())' \
	'os.rename(".git/i.tmp", ".git/index")' >"$w/.git/craft.py"
(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'printf "all:\n\techo pwned\n" >Makefile
python3 .git/craft.py' >/dev/null 2>&1)
expect_eq "an index that vouches for the edited Makefile still shows the edit" \
	"$(git -C "$w" status --short)" " M Makefile"
(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'git checkout -q Makefile && echo n >n &&
git add n && git -c user.email=a@b -c user.name=a commit -qm n' >/dev/null 2>&1)
expect_eq "a commit the call made leaves a clean status" "$(git -C "$w" status --short)" ""

# ---- a nested project's policy ----
w="$d/mono"
mkdir -p "$w/sub/.airlock" && git init -q "$w"
printf '[rules]\ndeny = Shell(rm *)\n' >"$w/sub/.airlock/policy"
r=$(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'echo >sub/.airlock/policy
touch sub/.airlock/extra; rm -rf sub/.airlock; echo ok >sub/a; echo done' 2>&1)
expect_eq "a nested project's policy keeps its rules" "$(cat "$w/sub/.airlock/policy")" \
	"$(printf '[rules]\ndeny = Shell(rm *)')"
check "nothing is added beside it" test ! -e "$w/sub/.airlock/extra"
expect_eq "the rest of the sub-project stays writable" "$(cat "$w/sub/a")" ok
expect_eq "the call runs to its end" "$(echo "$r" | tail -n 1)" done
mkdir -p "$w/pol/lib" "$w/lib" && echo strict >"$w/pol/lib/policy" && ln -s ../pol/lib "$w/lib/.airlock"
(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'echo weak >lib/.airlock/policy' >/dev/null 2>&1)
expect_eq "one reached through a link in the workdir keeps its rules" "$(cat "$w/pol/lib/policy")" strict
r=$(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'mkdir -p new/.airlock && mv sub pkg
printf "[policy]\ntrust-project = true\n" >new/.airlock/policy && echo new/ >.gitignore' 2>&1)
check "a nested policy the call made is removed" test ! -e "$w/new/.airlock"
check "one the user had, moved by the call, stays" test -f "$w/pkg/.airlock/policy"
expect_eq "the call is told" "$(echo "$r" | grep -c 'removed new/.airlock')" 1

# ---- a read-write grant of ~/.claude ----
hook='{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "airlock hook"}]}]}}'
mkdir -p "$HOME/.claude" "$d/cl" && printf '%s\n' "$hook" >"$HOME/.claude/settings.json"
printf '[profile "cl"]\nworkdir = rw\nread-write = %s/.claude\n' "$HOME" >"$d/cl.policy"
(cd "$d/cl" && "$AIRLOCK" exec --policy "$d/cl.policy" --profile cl -- sh -c 'echo "{}" >"$1/settings.json"
mv "$1/settings.json" "$1/old.json"; rm -f "$1/settings.json"; echo kept >"$1/notes"' sh "$HOME/.claude" \
	>/dev/null 2>&1)
expect_eq "the hook in ~/.claude/settings.json stays" "$(cat "$HOME/.claude/settings.json")" "$hook"
expect_eq "the rest of the grant stays writable" "$(cat "$HOME/.claude/notes" 2>/dev/null)" kept

# ---- a read-write grant of the directory holding airlock ----
mkdir -p "$d/bin" && cp "$AIRLOCK" "$d/bin/airlock"
printf '[profile "bn"]\nworkdir = rw\nread-write = %s/bin\n' "$d" >"$d/bn.policy"
(cd "$d/cl" && "$d/bin/airlock" exec --policy "$d/bn.policy" --profile bn -- sh -c 'rm -f "$1/airlock"
printf "#!/bin/sh\necho ran\n" >"$1/airlock"; chmod +x "$1/airlock"; echo kept >"$1/notes"' sh "$d/bin" \
	>/dev/null 2>&1)
check "airlock's binary is not replaced" cmp -s "$AIRLOCK" "$d/bin/airlock"
expect_eq "the rest of that grant stays writable" "$(cat "$d/bin/notes" 2>/dev/null)" kept

finish
