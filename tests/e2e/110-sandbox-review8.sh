#!/bin/sh
# 110-sandbox-review8.sh: what the eighth hostile review of the sandbox
# found, each failing before its fix: a read-write grant that opens a
# read-only workdir, whole (`read-write = WORKDIR` in a `workdir = ro`
# profile) or in part (`read-write = WORKDIR/sub`), was bound with no guard
# at all: a call planted .git/hooks and .mcp.json, or a nested repository
# whose core.fsmonitor the host's next `git status` there ran, and carried
# a masked .env's directory into node_modules, where the next call read it;
# the user's global git config lying in the workdir (stow links
# ~/.gitconfig, or ~/.config, into a dotfiles repository), which a call in
# that repository wrote a core.fsmonitor into: the user's next `git status`
# anywhere ran it; a read-write grant's sockets checked only to 1,024
# entries shared with every other grant, so a call that made 1,100 files
# there had the next call reach a host service's socket past them; /tmp,
# /dev/shm and the home with no bound on inodes, a million empty files in a
# 256 MiB /tmp pinning 0.9 GB of the host's memory; a .git/config a call
# made (git init) with a hard link beside it, kept as inert, through which
# the next call wrote the fsmonitor of the host's next git status; a token
# with no shape of its own kept under a name that says so in the
# repository's config (Git Town's git-town.gitea-token), shown uncut; a
# replace ref a call left, so that the host's git show of the commit it made
# showed no change while the working tree and a push held the real one;
# .git/info/exclude and attributes written, so that git status did not show
# a conftest.py the call planted and git diff showed its Makefile change as
# binary.
. tests/e2e/lib.sh
need git python3
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME
export HOME="$d/home"
mkdir -p "$HOME"

# ---- a read-write grant that opens a read-only workdir ----
w="$d/proj"
mkdir -p "$w/sub/conf"
git init -q "$w"
echo 'SECRET=top-marker' >"$w/.env"
echo 'SECRET=deep-marker' >"$w/sub/conf/.env"
cat >"$d/grant.policy" <<EOF2
[profile "whole"]
workdir = ro
read-write = $w
[profile "part"]
workdir = ro
read-write = $w/sub
EOF2
ax() { (cd "$w" && "$AIRLOCK" exec --policy "$d/grant.policy" "$@"); }
plant_repo='cd sub && git init -q . && git config core.fsmonitor "touch ../../fsmonitor-ran; false" &&
printf "#!/bin/sh\ntouch ../../hook-ran\n" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'

ax --profile whole -- sh -c 'echo x >.git/hooks/post-checkout; echo "{}" >.mcp.json' >/dev/null 2>&1
check "read-write = WORKDIR in a readonly profile: .git/hooks stays read-only" \
	test ! -e "$w/.git/hooks/post-checkout"
check "read-write = WORKDIR in a readonly profile: a planted .mcp.json is swept" \
	test ! -e "$w/.mcp.json"
r=$(ax --profile whole -- cat .env 2>/dev/null)
expect_eq "read-write = WORKDIR in a readonly profile: .env stays masked" "$r" ""
rm -rf "$w/.git/hooks/post-checkout" "$w/.mcp.json"

for p in whole part; do
	ax --profile $p -- sh -c "$plant_repo" >/dev/null 2>&1
	rm -f "$d/fsmonitor-ran"
	(cd "$w/sub" && git status >/dev/null 2>&1)
	check "read-write grant ($p) in a readonly profile: a nested repository's fsmonitor is swept" \
		test ! -e "$d/fsmonitor-ran"
	check "read-write grant ($p) in a readonly profile: a nested repository's hook is swept" \
		test ! -e "$w/sub/.git/hooks/pre-commit"
	rm -rf "$w/sub/.git" "$d/fsmonitor-ran"

	ax --profile $p -- sh -c 'mkdir -p sub/node_modules && mv sub/conf sub/node_modules/' \
		>/dev/null 2>&1
	r=$(ax --profile $p -- sh -c 'cat sub/node_modules/conf/.env sub/conf/.env' 2>/dev/null)
	expect_eq "read-write grant ($p) in a readonly profile: a masked .env's directory stays pinned" \
		"$r" ""
	[ -d "$w/sub/node_modules/conf" ] && mv "$w/sub/node_modules/conf" "$w/sub/"
	rm -rf "$w/sub/node_modules"
done
r=$(ax --profile part -- sh -c 'echo built >sub/out && cat sub/out' 2>/dev/null)
expect_eq "read-write grant (part) in a readonly profile: the grant is still writable" "$r" built

# ---- the user's global git config in the workdir (a dotfiles repository) ----
export HOME="$d/home2"
mkdir -p "$HOME/dots/git" "$HOME/dots/.config" "$HOME/other"
printf '[user]\n\tname = me\n\temail = me@example.com\n' >"$HOME/dots/git/gitconfig"
ln -s dots/git/gitconfig "$HOME/.gitconfig"
ln -s dots/.config "$HOME/.config"
git init -q "$HOME/dots"
git init -q "$HOME/other"
(cd "$HOME/other" && echo a >a && git add a && git commit -qm a)
fsm='[core]
	fsmonitor = "touch '"$d"'/global-ran; false"'
# wx DIR SCRIPT: a workspace call in DIR running SCRIPT, output dropped
wx() { (cd "$1" && "$AIRLOCK" exec --profile workspace -- sh -c "$2") >/dev/null 2>&1; }
# fsm_ran DIR: "ran" when the host's git status in DIR ran $fsm
fsm_ran() {
	rm -f "$d/global-ran"
	(cd "$1" && git status >/dev/null 2>&1)
	[ -e "$d/global-ran" ] && echo ran
}
wx "$HOME/dots" "printf '%s\n' '$fsm' >>git/gitconfig"
expect_eq "~/.gitconfig linked into the workdir: a call cannot set the next git status's fsmonitor" \
	"$(fsm_ran "$HOME/other")" ""
check "~/.gitconfig linked into the workdir: still the user's" \
	test "$(git config -f "$HOME/dots/git/gitconfig" user.name)" = me
wx "$HOME/dots" "mkdir -p .config/git && printf '%s\n' '$fsm' >.config/git/config"
expect_eq "~/.config/git/config made through a link into the workdir: swept" \
	"$(fsm_ran "$HOME/other")" ""
wx "$HOME/dots" "echo note >>README && mkdir -p .config/git && printf '[user]\n\tname = x\n' >.config/git/config"
check "~/.config/git/config made through a link into the workdir: an inert one is kept" \
	test -e "$HOME/dots/.config/git/config"

# ---- a read-write grant filled to hide a host's socket ----
export HOME="$d/home3"
mkdir -p "$HOME" "$d/shared/zz" "$d/wd3"
python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[1] + ".up", "w").close()
s.settimeout(120)
while True:
    c, _ = s.accept()
    c.sendall(b"HOST-SERVICE-REACHED")
    c.close()
' "$d/shared/zz/sock" >/dev/null 2>&1 &
srv=$!
i=0
while [ ! -e "$d/shared/zz/sock.up" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
printf '[profile "g"]\nworkdir = rw\nread-write = %s\n' "$d/shared" >"$d/g.policy"
reach='import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("'"$d"'/shared/zz/sock")
    print(s.recv(100).decode())
except OSError:
    print("blocked")'
gx() { (cd "$d/wd3" && "$AIRLOCK" exec --policy "$d/g.policy" --profile g "$@"); }
r=$(gx -- python3 -c "$reach" 2>/dev/null)
expect_eq "read-write grant: a host's socket in it is masked" "$r" blocked
gx -- sh -c "cd '$d/shared' && for i in \$(seq 1100); do : >f\$i; done" >/dev/null 2>&1
r=$(gx -- python3 -c "$reach" 2>/dev/null)
expect_eq "read-write grant filled with 1,100 files: the host's socket stays masked" "$r" blocked
python3 -c 'import sys
for i in range(17000): open("%s/g%d" % (sys.argv[1], i), "w").close()' "$d/shared"
r=$(gx -- python3 -c "$reach" 2>&1)
case "$r" in
*"holds more than"*) r=refused ;;
esac
expect_eq "read-write grant past what can be checked: the call is refused" "$r" refused
kill $srv 2>/dev/null
wait $srv 2>/dev/null

# ---- inodes of the sandbox's tmpfs ----
printf '[profile "small"]\ntmp-size = 4m\n' >"$d/small.policy"
r=$(cd "$d/wd3" && "$AIRLOCK" exec --policy "$d/small.policy" --profile small -- python3 -c '
import os
n = 0
try:
    for i in range(20000):
        os.close(os.open("/tmp/f%d" % i, os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError:
    pass
print("capped" if n < 20000 else "uncapped")' 2>/dev/null)
expect_eq "a 4 MiB /tmp holds no 20,000 empty files (inodes bounded with its size)" "$r" capped

# ---- a hard link to a config the sweep keeps ----
w4="$d/wd4"
mkdir -p "$w4"
export HOME="$d/home4"
mkdir -p "$HOME"
wx "$w4" 'git init -q . && ln .git/config notes.txt'
wx "$w4" "printf '%s\n' '$fsm' >>notes.txt"
expect_eq "a .git/config made with a hard link beside it: the next call cannot write it" \
	"$(fsm_ran "$w4")" ""
rm -rf "$w4/.git" "$w4/notes.txt"
git init -q "$w4"
ln "$w4/.git/config" "$d/outside-link"
r=$(cd "$w4" && "$AIRLOCK" exec --profile workspace -- true 2>&1)
case "$r" in
*"another hard link"*) r=refused ;;
esac
expect_eq "a .git/config with another hard link: a writable call is refused" "$r" refused
rm -f "$d/outside-link"
wx "$w4" 'mkdir -p .gemini/extensions/x.sample && echo "{}" >.gemini/extensions/x.sample/gemini-extension.json'
check "a directory named *.sample in .gemini/extensions made by a call: removed" \
	test ! -e "$w4/.gemini/extensions/x.sample"

# ---- a token under a key that names it, with no shape of its own ----
w5="$d/wd5"
git init -q "$w5"
git -C "$w5" config git-town.gitea-token 0123456789abcdef0123456789abcdef01234567
git -C "$w5" config github.token plainvalue1234
git -C "$w5" config hub.oauthtoken hubtokenvalue999
git -C "$w5" config deploy.client-secret s3cr3tvalue
r=$(cd "$w5" && "$AIRLOCK" exec --profile readonly -- cat .git/config 2>/dev/null)
case "$r" in
*0123456789abcdef* | *plainvalue1234* | *hubtokenvalue999* | *s3cr3tvalue*) r=shown ;;
*"[REDACTED:token]"*) r=cut ;;
esac
expect_eq "a key named token or secret in .git/config: its value is cut" "$r" cut
r=$(cd "$w5" && "$AIRLOCK" exec --profile readonly -- git config core.bare 2>/dev/null)
expect_eq "the cut config still reads" "$r" false

# ---- replace refs: what the host's git shows of a commit ----
w6="$d/wd6"
git init -q "$w6"
git -C "$w6" config user.email me@example.com
git -C "$w6" config user.name me
printf 'all:\n\techo build\n' >"$w6/Makefile"
git -C "$w6" add Makefile
git -C "$w6" commit -qm init
swap='printf "all:\n\techo build; touch x\n" >Makefile && git commit -qam "tidy build" &&
git replace $(git rev-parse HEAD:Makefile) $(printf "all:\n\techo build\n" | git hash-object -w --stdin)'
wx "$w6" "$swap"
r=$(git -C "$w6" show HEAD | grep -c 'touch x')
expect_eq "a replace ref a call made: the host's git show sees the real change" "$r" 1
wx "$w6" "git reset -q --hard HEAD~1 && $swap && git pack-refs --all"
r=$(git -C "$w6" show HEAD | grep -c 'touch x')
expect_eq "a replace ref a call packed: the host's git show sees the real change" "$r" 1
git -C "$w6" replace HEAD~1 HEAD
sleep 3 # past the racy window: a change in the note's clock tick counts as the run's
wx "$w6" 'git branch feature && echo y >y && git stash -u -q'
expect_eq "the user's own replace ref stays through a call that branches and stashes" \
	"$(git -C "$w6" replace -l | wc -l | tr -d ' ')" 1

# ---- .git/info: what git status and git diff show ----
wx "$w6" 'echo "open(\"x\", \"w\")" >conftest.py; echo conftest.py >>.git/info/exclude
echo "Makefile -diff" >.git/info/attributes; echo "# changed" >>Makefile'
expect_eq "a file the call made shows in the host's git status" \
	"$(git -C "$w6" status --short | grep -c conftest.py)" 1
expect_eq "the call's change shows in the host's git diff" \
	"$(git -C "$w6" diff | grep -c '^+# changed')" 1
r=$(cd "$w6" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'git init -q lib && git init -q lib2 && echo conftest.py >>lib2/.git/info/exclude' 2>&1)
check "git init in a call: its info/exclude, comments alone, is kept" test -f "$w6/lib/.git/info/exclude"
expect_eq "git init in a call: nothing said of lib" "$(echo "$r" | grep -c 'lib/')" 0
check "an info/exclude a call made that excludes something: removed" \
	test ! -e "$w6/lib2/.git/info/exclude"

finish
