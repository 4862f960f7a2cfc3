#!/bin/sh
# 116-sandbox-review9.sh: what the ninth hostile review of the sandbox
# found, each failing before its fix: direnv's layout directory (.direnv,
# git-ignored by direnv's own advice) writable and never swept, so a call
# rewrote nix-direnv's cached flake-profile.rc, which the host's direnv
# evals at the next prompt in the project, and planted a `git` in the
# venv's bin that `layout python` puts first on the user's PATH.
. tests/e2e/lib.sh
need git
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME"

# ---- direnv's layout directory ----
w="$d/proj"
git init -q "$w" && mkdir "$w/.direnv"
printf 'use flake\n' >"$w/.envrc"
printf '.direnv\n' >"$w/.gitignore"
echo 'export A=1' >"$w/.direnv/flake-profile.rc"
(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c \
	'echo "touch ran" >>.direnv/flake-profile.rc; mkdir -p .direnv/python-3/bin' >/dev/null 2>&1)
expect_eq "a cached flake-profile.rc direnv evals stays as it was" \
	"$(cat "$w/.direnv/flake-profile.rc")" "export A=1"
check "nothing is added to an existing .direnv" test ! -e "$w/.direnv/python-3"
rm -rf "$w/.direnv"
r=$(cd "$w" && "$AIRLOCK" exec --profile workspace -- sh -c 'mkdir -p .direnv/python-3/bin
echo "touch ran" >.direnv/flake-profile.rc; echo "touch ran" >.direnv/python-3/bin/git' 2>&1)
check "a .direnv the call made loses the rc direnv would eval" test ! -e "$w/.direnv/flake-profile.rc"
check "a .direnv the call made loses the venv layout python puts on PATH" \
	test ! -e "$w/.direnv/python-3"
expect_eq "the call is told what went" "$(echo "$r" | grep -c 'removed .*\.direnv/')" 1
expect_eq "git status shows none of it" "$(git -C "$w" status --short --untracked-files=all | grep -c direnv)" 0

# ---- airlock's state directory in the workdir, not made yet ----
HOME="$d/home2" dots="$d/home2/dots" p="$d/proj2"
mkdir -p "$dots/state" "$HOME/.local" "$p/.claude" && ln -s ../dots/state "$HOME/.local/state"
git init -q "$dots" && git init -q "$p" && git -C "$p" config alias.st status
echo '{"permissions": {"deny": ["Bash(curl:*)"]}}' >"$p/.claude/settings.json"
printf '#!/bin/sh\nexit 0\n' >"$p/.git/hooks/pre-commit"
key=$(python3 -c 'import sys
h = 1469598103934665603
for c in sys.argv[1].encode(): h = ((h ^ c) * 1099511628211) % 2**64
print("%016x" % h)' "$p")
(cd "$dots" && "$AIRLOCK" exec --profile workspace -- sh -c 'mkdir -p state/airlock/pending &&
printf "0 0 0 -\n%s\n" "$1" >"state/airlock/pending/$2-999999-0"' sh "$p" "$key" >/dev/null 2>&1)
check "a call cannot make the state directory its workdir holds" \
	test ! -e "$dots/state/airlock/pending/$key-999999-0"
(cd "$p" && "$AIRLOCK" exec --profile workspace -- true >/dev/null 2>&1)
check "another project's .claude/settings.json stays" test -f "$p/.claude/settings.json"
check "another project's .git/config stays" test -f "$p/.git/config"
check "another project's pre-commit hook stays" test -f "$p/.git/hooks/pre-commit"

# ---- a read-only grant that holds the workdir: its sockets ----
g="$d/ws" && mkdir -p "$g/proj" "$g/svc/run"
printf '[profile "wk"]\nworkdir = rw\nread-only = %s\n' "$g" >"$d/ws.policy"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5); s.settimeout(120)
c, _ = s.accept(); open(sys.argv[2], "w").write("hit")' "$g/svc/run/db.sock" "$d/sock-hit" 2>/dev/null &
srv=$!
i=0 && while [ ! -S "$g/svc/run/db.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
wk() { (cd "$g/proj" && "$AIRLOCK" exec --policy "$d/ws.policy" --profile wk "$@"); }
wk -- sh -c 'i=0; while [ $i -lt 1100 ]; do : >f$i; i=$((i + 1)); done' >/dev/null 2>&1
r=$(wk -- python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("reached")
except OSError:
    print("refused")' "$g/svc/run/db.sock" 2>/dev/null)
expect_eq "a call that filled the workdir does not reach a socket in the grant holding it" "$r" refused
check "the host's service saw no connection" test ! -e "$d/sock-hit"
kill "$srv" 2>/dev/null

finish
