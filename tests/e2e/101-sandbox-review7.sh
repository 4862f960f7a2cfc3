#!/bin/sh
# 101-sandbox-review7.sh: what the seventh hostile review of the sandbox
# found, each failing before its fix: airlock's state directory reached
# through a link into the workdir (GNU stow links ~/.local into a dotfiles
# repository), where a call rewrote the kept search and the next call read
# a .env unmasked; a core.hooksPath set in the user's global git config
# (`git config --global core.hooksPath .githooks`), or in a file it
# includes, or leading into the workdir through a link to a directory not
# made yet, unread: a call planted a pre-commit hook and the host's next
# commit ran it; two airlocks in two pid namespaces with one pid (CI jobs
# under `unshare -p`, containers on one cgroup tree) sharing one pids
# cgroup, the later one's process cap holding for both.
. tests/e2e/lib.sh
need python3 git
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME

# ---- the state directory through a link into the workdir ----
# ~/.local is stow's link to dots/.local; the agent works in dots
export HOME="$d/home"
mkdir -p "$HOME/dots/.local/bin" "$HOME/dots/config"
ln -s dots/.local "$HOME/.local"
echo 'SECRET=stow-marker' >"$HOME/dots/config/.env"
# the call's script: drop .env from the kept search in place (no directory
# changes, so nothing reads it again), and make the name the host writes
# its copy under a directory, so the sweep cannot write it back
cat >"$HOME/dots/forge.py" <<'EOF'
import glob, os, struct
S = ".local/state/airlock"
p = [f for f in glob.glob(S + "/search/*") if "." not in os.path.basename(f)][0]
for r in glob.glob(S + "/pending/*"):
    os.mkdir(p + "." + r.rsplit("-", 2)[1])
b, o, out = open(p, "rb").read(), 0, []
def rstr():
    global o
    i = b.index(b"\0", o)
    s, o = b[o:i], i + 1
    return s
out.append(rstr() + b"\0" + rstr() + b"\0")
while o < len(b):
    rec = rstr() + b"\0" + b[o:o + 57]
    o += 57
    for k in range(4):
        n = struct.unpack_from("<I", b, o)[0]
        o += 4
        names = [x for x in [rstr() for _ in range(n)] if x != b".env"]
        rec += struct.pack("<I", len(names)) + b"".join(x + b"\0" for x in names)
    out.append(rec)
f = open(p, "r+b")
f.truncate()
f.write(b"".join(out))
print("forged")
EOF
sleep 2.2 # past the racy window: config/ may be kept
r=$(cd "$HOME/dots" && "$AIRLOCK" exec --profile workspace -- python3 forge.py 2>&1)
echo "$r" | grep -q forged && echo "(the state directory was writable in the sandbox)"
r=$(cd "$HOME/dots" && "$AIRLOCK" exec --profile workspace -- cat config/.env 2>/dev/null)
expect_eq "state dir linked into the workdir: the next call's .env stays masked" "$r" ""
check "state dir linked into the workdir: no kept search written there" \
	test ! -e "$HOME/dots/.local/state/airlock/search"

# ---- core.hooksPath in the user's global git config ----
export HOME="$d/h2"
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT
export GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$d/r1/.githooks" "$d/r2" "$d/r3"
printf '[core]\n\thooksPath = .githooks\n[user]\n\tname = U\n\temail = u@example.org\n' \
	>"$HOME/.gitconfig"
plant='mkdir -p .githooks; printf "#!/bin/sh\necho ran >>../hook-ran\n" >.githooks/pre-commit;
chmod +x .githooks/pre-commit'
# commit_ran DIR: 1 when a commit in DIR on the host ran a hook
commit_ran() {
	rm -f "$d/hook-ran"
	(cd "$1" && echo b >a && git commit -qam b >/dev/null 2>&1)
	[ -e "$d/hook-ran" ] && echo 1 || echo 0
}
for r in r1 r2; do
	(cd "$d/$r" && git init -q && echo a >a && git add a && git commit -qm a)
	(cd "$d/$r" && "$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
done
expect_eq "global hooksPath, directory there: the host's commit runs no hook" \
	"$(commit_ran "$d/r1")" 0
expect_eq "global hooksPath, directory made by the call: the host's commit runs no hook" \
	"$(commit_ran "$d/r2")" 0
# set in a file the global config includes, under a condition
printf '[user]\n\tname = U\n\temail = u@example.org\n[includeIf "gitdir:/"]\n\tpath = hooks.inc\n' \
	>"$HOME/.gitconfig"
printf '[core]\n\thooksPath = .githooks\n' >"$HOME/hooks.inc"
(cd "$d/r3" && git init -q && echo a >a && git add a && git commit -qm a)
(cd "$d/r3" && "$AIRLOCK" exec --profile workspace -- sh -c "$plant" >/dev/null 2>&1)
expect_eq "global hooksPath in an included file: the host's commit runs no hook" \
	"$(commit_ran "$d/r3")" 0
# control: the user's own hook there still runs
rm -f "$d/r3/.githooks/pre-commit"
(cd "$d/r3" && sh -c "$plant")
expect_eq "global hooksPath: the user's own hook runs (control)" "$(commit_ran "$d/r3")" 1

# an absolute one that leads into the workdir through a link to a
# directory not made yet (stow's ~/.githooks -> dots/githooks), the
# workdir no repository: the call made it, and every repository's commit
# on the host ran the hook
export HOME="$d/h3"
mkdir -p "$HOME/dots" "$d/other"
ln -s dots/githooks "$HOME/.githooks"
printf '[core]\n\thooksPath = ~/.githooks\n[user]\n\tname = U\n\temail = u@example.org\n' \
	>"$HOME/.gitconfig"
(cd "$d/other" && git init -q && echo a >a && git add a && git commit -qm a)
(cd "$HOME/dots" && "$AIRLOCK" exec --profile workspace -- sh -c 'mkdir -p githooks
printf "#!/bin/sh\necho ran >>../hook-ran\n" >githooks/pre-commit; chmod +x githooks/pre-commit' \
	>/dev/null 2>&1)
expect_eq "global hooksPath through a link to a directory not made yet: no hook runs" \
	"$(commit_ran "$d/other")" 0

# ---- one pid in two pid namespaces: one cgroup each ----
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/pids/cgroup.procs ] && command -v unshare >/dev/null; then
	mkdir -p "$d/ns"
	printf '[profile "p64"]\n\tprocesses = 64\n\tworkdir = rw\n[profile "p4k"]\n\tprocesses = 4096\n\tworkdir = rw\n' >"$d/ns.policy"
	# wait_for FILE: up to 30 s
	wait_for() {
		i=0
		while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	}
	(cd "$d/ns" && unshare -pf --mount-proc sh -c "'$AIRLOCK' exec --policy '$d/ns.policy' \
		--profile p64 -- sh -c 'touch a-up; while [ ! -e go ]; do sleep 0.1; done; n=0
		for i in \$(seq 150); do (sleep 20 &) 2>/dev/null && n=\$((n + 1)); done; echo \$n >count.t && mv count.t count'" \
		>/dev/null 2>&1) &
	wait_for "$d/ns/a-up"
	(cd "$d/ns" && unshare -pf --mount-proc sh -c "'$AIRLOCK' exec --policy '$d/ns.policy' \
		--profile p4k -- sh -c 'touch b-up; while [ ! -e done ]; do sleep 0.1; done'" \
		>/dev/null 2>&1) &
	wait_for "$d/ns/b-up"
	touch "$d/ns/go"
	wait_for "$d/ns/count"
	n=$(cat "$d/ns/count" 2>/dev/null)
	touch "$d/ns/done"
	wait
	expect_eq "one pid in two pid namespaces: a call capped at 64 processes stays capped" \
		"$([ -n "$n" ] && [ "$n" -lt 150 ] && echo capped || echo "not capped ($n)")" capped
else
	echo "(not root, or no writable pids cgroup: the shared-cgroup case is skipped)"
fi

finish
