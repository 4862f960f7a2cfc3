#!/bin/sh
# 87-sandbox-review.sh: what a hostile review of the sandbox's newest
# openings found, each failing before its fix: the host's git identity read
# with libgit2 through a project file its config includes, which an
# auto-run call replaced with a FIFO (the gate blocked in open() for good);
# the hint on exit 127 naming what a venv's python link leads to anywhere
# in the hidden home (an oracle for the home's files); and a hard link a
# call made to its own .env, which showed what the user put in it later.
. tests/e2e/lib.sh
need git jq
tmpdir_make
d=$T_DIR
export HOME="$d/home"
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM
export GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$d/wd"

# A repository whose config includes a file of the project (a shared
# .gitconfig, as some projects set up). Written by hand: once the include
# is a FIFO, every git command on the host blocks on it.
git -C "$d/wd" init -q
printf '[user]\n\tname = U\n\temail = u@example.org\n[include]\n\tpath = ../.gitconfig\n' \
	>>"$d/wd/.git/config"
printf '[core]\n\tautocrlf = false\n' >"$d/wd/.gitconfig"

# gate_run CALL...: a gate given the calls one by one (each after the
# last is answered, or 5 s), stopped after 30 s at most; its answers in out
gate_run() {
	rm -f "$d/in" && mkfifo "$d/in" && : >"$d/out"
	(cd "$d/wd" && timeout -s KILL 30 "$AIRLOCK" gate --no-tty --db "$d/g.db" \
		<"$d/in" >"$d/out" 2>"$d/err") &
	exec 3>"$d/in"
	n=0
	for c in "$@"; do
		printf '%s\n' "$c" >&3
		n=$((n + 1))
		i=0
		while [ "$(wc -l <"$d/out")" -lt $n ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
	exec 3>&-
	wait
}
shell() { printf '{"id":"%s","tool":"shell","input":{"command":"%s"}}' "$1" "$2"; }

# an auto-run call (a script the agent wrote) makes the included file a
# FIFO; the next git write must not wedge the gate
printf 'rm -f .gitconfig; mkfifo .gitconfig; echo made\n' >"$d/wd/build.sh"
gate_run "$(shell a 'sh build.sh')" "$(shell b 'git commit --allow-empty -qm x')" \
	"$(shell c 'echo alive')"
expect_eq "included file made a FIFO: the call made it" "$(jq -r 'select(.id=="a") | .stdout' "$d/out")" made
expect_eq "included file made a FIFO: the gate answers the next call" \
	"$(jq -r 'select(.id=="c") | .stdout' "$d/out")" alive
r=$(cd "$d/wd" && timeout -s KILL 20 "$AIRLOCK" exec --git-identity -- echo ran 2>&1)
expect_eq "included file made a FIFO: airlock exec --git-identity runs" "$r" ran

rm -f "$d/wd/.gitconfig" "$d/wd/build.sh"
expect_eq "the identity still comes through the child" \
	"$(cd "$d/wd" && "$AIRLOCK" exec --git-identity -- sh -c 'echo $GIT_AUTHOR_EMAIL' 2>&1)" u@example.org

# The hint on exit 127 names the installation a venv's python leads to in
# the hidden home; the link is the workdir's, so a call could point it at
# any path there and learn from the hint whether it exists
mkdir -p "$HOME/.ssh/keys" "$d/wd/.venv/bin" "$HOME/py/3.0/bin"
printf 'k\n' >"$HOME/.ssh/keys/id_work"
ln -s "$HOME/.ssh/keys/id_work" "$d/wd/.venv/bin/python"
r=$(cd "$d/wd" && "$AIRLOCK" exec --profile readonly -- sh -c 'exit 127' 2>&1)
case $r in *"~/.ssh"*) r=named ;; *) r=silent ;; esac
expect_eq "venv link to a key in the home: not named" "$r" silent
printf '#!/bin/sh\n' >"$HOME/py/3.0/bin/python3.0" && chmod +x "$HOME/py/3.0/bin/python3.0"
ln -sfn "$HOME/py/3.0/bin/python3.0" "$d/wd/.venv/bin/python"
check "venv link to a Python in the home: still named" \
	sh -c "cd '$d/wd' && '$AIRLOCK' exec --profile readonly -- sh -c 'exit 127' 2>&1 | grep -q 'leads into ~/py/3.0'"
rm -rf "$d/wd/.venv"

# A call makes a .env (none was there to mask) and a hard link to it under
# another name; the user fills .env in later, in place (an editor keeps a
# linked file's inode): the next call must not read it through the link
mkdir -p "$d/hl"
(cd "$d/hl" && "$AIRLOCK" exec --profile workspace -- sh -c 'printf "K=\n" >.env && ln .env keep.txt')
printf 'K=LINKED-1\n' >"$d/k" && cat "$d/k" >"$d/hl/.env"
r=$(cd "$d/hl" && "$AIRLOCK" exec --profile readonly -- cat keep.txt 2>&1)
case $r in *LINKED-1*) r=read ;; *"another hard link"*) r=refused ;; esac
expect_eq "hard link to a .env made ahead: not read, and the refusal says why" "$r" refused
rm "$d/hl/keep.txt"
expect_eq "hard link removed: the call runs, the .env masked" \
	"$(cd "$d/hl" && "$AIRLOCK" exec --profile readonly -- sh -c 'cat .env 2>/dev/null; echo ran')" ran

finish
