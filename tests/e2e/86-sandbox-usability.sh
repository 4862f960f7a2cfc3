#!/bin/sh
# 86-sandbox-usability.sh: routine agent work that must succeed in the
# sandbox, each failing before its fix for a sandbox reason, not the
# command's own: `git commit` with the home empty (no identity; the host's
# is passed, never ~/.gitconfig, with `airlock exec --git-identity`, which
# the hook asks for on a git write and the gate gives by itself), and `git
# add -A` taking what the global ignore file leaves out; a runtime
# that reserves more address space than it uses (a JVM, ASan, wasm) under
# the per-process address-space cap where a memory cgroup already caps the
# tree; a Debian JDK without its /etc/java-N-openjdk; git in a linked
# worktree, or in a checkout another user owns that the host trusts; a
# hostname that did not resolve; a "command not
# found" for a toolchain, or a venv's Python, in the hidden home that did
# not say why. A
# toolchain that is missing is skipped with a message.
. tests/e2e/lib.sh
need git python3 jq
d=$(mktemp -d /tmp/airlock-usab.XXXXXX)
trap 'rm -rf "$d"' EXIT
export HOME="$d/home"
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM
export GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$d/wd"
# the identity comes through an includeIf, which a hand-written parser
# would miss; the tokens beside it must never reach the sandbox
cat > "$HOME/.gitconfig" <<CFG
[user]
	name = Host Person
	email = host@example.org
[includeIf "gitdir:$d/wd/"]
	path = $HOME/work.inc
[http]
	extraHeader = Authorization: Bearer TOPSECRET-TOKEN
[credential]
	helper = store
CFG
printf '[user]\n\temail = work@example.org\n' > "$HOME/work.inc"
(cd "$d/wd" && git init -q && echo a > a && git add a &&
	git -c user.name=seed -c user.email=seed@x commit -qm init) || exit 1
ex() { (cd "$d/wd" && "$AIRLOCK" exec "$@"); }

# airlock exec --git-identity: the commit succeeds as the host's identity
echo b >> "$d/wd/a"
check "exec --git-identity: git commit succeeds" ex --profile workspace --git-identity -- git commit -qam one
expect_eq "exec --git-identity: author as on the host (includeIf read)" \
	"$(git -C "$d/wd" log -1 --format='%an <%ae>|%cn <%ce>')" \
	"Host Person <work@example.org>|Host Person <work@example.org>"
out=$(ex --profile workspace --git-identity -- sh -c 'cat "$HOME/.gitconfig"; git config --get http.extraheader; git config --get credential.helper; env' 2>&1)
check "exec --git-identity: no token, no helper, no config file" \
	sh -c '! printf "%s" "$1" | grep -q "TOPSECRET\|store\|extraHeader"' x "$out"
# the host's global ignore file holds for git add -A, as on the host
mkdir -p "$HOME/.config/git"
printf '*.swp\n' > "$HOME/.config/git/ignore"
touch "$d/wd/junk.swp" "$d/wd/new.txt"
ex --profile workspace --git-identity -- git add -A 2>/dev/null
expect_eq "git add -A: the global ignore file holds" "$(git -C "$d/wd" diff --cached --name-only | tr '\n' ' ')" "new.txt "
git -C "$d/wd" reset -q
out=$(printf '%s\n' '{"id":"i","tool":"shell","input":{"command":"git add -A && git diff --cached --name-only"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/i.db"))
expect_eq "gate: git add -A: the global ignore file holds" "$(printf '%s' "$out" | jq -r .stdout)" "new.txt"
git -C "$d/wd" reset -q
rm -f "$d/wd/junk.swp" "$d/wd/new.txt"
# ...only the user's: a repository's own core.excludesFile could name a
# secret for airlock to bind into the sandbox
mkdir -p "$HOME/.ssh"
echo TOPSECRET-KEY > "$HOME/.ssh/id_rsa"
git -C "$d/wd" config core.excludesFile "$HOME/.ssh/id_rsa"
check "a repository's core.excludesFile is not bound" \
	sh -c '! (cd "$1" && "$2" exec --profile workspace --git-identity -- cat "$3") 2>/dev/null | grep -q TOPSECRET' x "$d/wd" "$AIRLOCK" "$HOME/.ssh/id_rsa"
git -C "$d/wd" config --unset core.excludesFile
# without the flag, nothing changes (and libgit2 is not loaded)
echo c >> "$d/wd/a"
check "exec without the flag: no identity" sh -c "! (cd '$d/wd' && '$AIRLOCK' exec --profile workspace -- git commit -qam two) 2>/dev/null"
(cd "$d/wd" && LD_DEBUG=libs "$AIRLOCK" exec --profile readonly -- true 2> "$d/ld.txt")
check "ld.so trace captured" grep -q 'libc.so' "$d/ld.txt"
expect_eq "exec without the flag: libgit2 not loaded" "$(grep -c 'libgit2' "$d/ld.txt")" 0
# outside a work tree the flag is harmless and loads nothing
mkdir -p "$d/plain"
(cd "$d/plain" && LD_DEBUG=libs "$AIRLOCK" exec --profile readonly --git-identity -- true 2> "$d/ld2.txt")
expect_eq "--git-identity outside a work tree: libgit2 not loaded" "$(grep -c 'libgit2' "$d/ld2.txt")" 0

# the hook asks for the identity on a git write only, and never loads libgit2
hook() {
	printf '{"cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$d/wd" "$1" |
		(cd / && CLAUDE_PROJECT_DIR="$d/wd" LD_DEBUG=libs "$AIRLOCK" hook claude --db "$d/h.db" 2> "$d/hld.txt") |
		jq -r .hookSpecificOutput.updatedInput.command
}
cmd=$(hook 'git commit -qam three')
check "hook: a git commit is rewritten with --git-identity" sh -c "printf '%s' \"\$1\" | grep -q -- '--git-identity --git-trust -- bash -c --'" x "$cmd"
expect_eq "hook: libgit2 not loaded for a git write" "$(grep -c 'libgit2' "$d/hld.txt")" 0
check "hook: ls is not" sh -c "! printf '%s' \"\$1\" | grep -q -- '--git-identity'" x "$(hook ls)"
expect_eq "hook: git status gets --git-trust only" "$(hook 'git status' | grep -o -- '--git-[a-z]*')" "--git-trust"
check "hook: ls gets neither" sh -c "! printf '%s' \"\$1\" | grep -q -- '--git-'" x "$(hook ls)"
echo d >> "$d/wd/a"
check "hook: the rewritten git commit runs" sh -c "cd '$d/wd' && $cmd"

# the gate gives the identity to a call with a git finding, as it is
# when the call comes: a change made on the host meanwhile counts
echo e >> "$d/wd/a"
out=$( { printf '%s\n' '{"id":"g","tool":"shell","input":{"command":"git commit -qam four && git log -1 --format=%ae"}}'
	sleep 2; git -C "$d/wd" config user.email later@example.org; echo e2 >> "$d/wd/a"
	printf '%s\n' '{"id":"h","tool":"shell","input":{"command":"git commit -qam five && git log -1 --format=%ae"}}'; } |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/g.db"))
expect_eq "gate: git commit runs as the host's identity" "$(printf '%s\n' "$out" | jq -r 'select(.id=="g") | .stdout')" "work@example.org"
expect_eq "gate: the identity as it is at each call" "$(printf '%s\n' "$out" | jq -r 'select(.id=="h") | .stdout')" "later@example.org"
git -C "$d/wd" config --unset user.email

# A checkout owned by another user (a root agent in a container on a
# bind-mounted repository): git refuses it ("dubious ownership") unless
# safe.directory trusts it, and the sandbox saw no ~/.gitconfig. Now the
# host's safe.directory values reach it (--git-trust, which the hook adds
# for any git call; the gate by itself); no more than the host trusts.
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p "$d/foreign"
	(cd "$d/foreign" && git init -q && echo a > a && git add a &&
		git -c user.name=seed -c user.email=seed@x commit -qm init) || exit 1
	chown -R 65534:65534 "$d/foreign"
	fx() { (cd "$d/foreign" && "$AIRLOCK" exec --profile readonly "$@" 2>&1); }
	check "foreign checkout, not trusted on the host: refused" sh -c 'printf "%s" "$1" | grep -q "dubious ownership"' x "$(fx --git-trust -- git status --short)"
	printf '[safe]\n\tdirectory = %s\n' "$d/foreign" >> "$HOME/.gitconfig"
	expect_eq "foreign checkout, trusted on the host: git status" "$(fx --git-trust -- git status --short)" ""
	check "foreign checkout: not without the flag" sh -c 'printf "%s" "$1" | grep -q "dubious ownership"' x "$(fx -- git status --short)"
	out=$(printf '%s\n' '{"id":"s","tool":"shell","input":{"command":"git log --format=%s"}}' |
		(cd "$d/foreign" && "$AIRLOCK" gate --no-tty --db "$d/s.db"))
	expect_eq "foreign checkout: the gate runs git log" "$(printf '%s' "$out" | jq -r .stdout)" "init"
else
	echo "skip: a checkout owned by another user (needs root)"
fi
(cd "$d/wd" && LD_DEBUG=libs "$AIRLOCK" exec --profile readonly --git-trust -- true 2> "$d/ld3.txt")
expect_eq "--git-trust in an own checkout: libgit2 not loaded" "$(grep -c 'libgit2' "$d/ld3.txt")" 0

# A linked worktree (git worktree add): its .git file names a directory in
# the main repository's .git, outside the workdir. Every git command failed
# ("not a git repository"); then commits did ("Read-only file system").
# That .git is now read-only with the workdir, writable with it, its hooks
# and config kept as the workdir's own are.
(cd "$d/wd" && git worktree add -q "$d/wt" 2>/dev/null) || exit 1
echo wt >> "$d/wt/a"
expect_eq "linked worktree: git status" "$(cd "$d/wt" && "$AIRLOCK" exec --profile readonly -- git status --short 2>&1)" " M a"
expect_eq "linked worktree: git log" "$(cd "$d/wt" && "$AIRLOCK" exec --profile workspace -- git log -1 --format=%s 2>&1)" \
	"$(git -C "$d/wt" log -1 --format=%s)"
(cd "$d/wt" && "$AIRLOCK" exec --profile workspace -- sh -c 'touch "$1/hooks/x"' x "$d/wd/.git") 2>/dev/null
check "linked worktree: the main repository's hooks stay read-only" test ! -e "$d/wd/.git/hooks/x"
check "linked worktree: a readonly call cannot commit" \
	sh -c "! (cd '$d/wt' && '$AIRLOCK' exec --profile readonly --git-identity -- git commit -qam ro) 2>/dev/null"
(cd "$d/wt" && "$AIRLOCK" exec --profile workspace --git-identity -- git commit -qam 'in the worktree') > "$d/wtc.out" 2>&1
expect_eq "linked worktree: a workspace call commits" "$(git -C "$d/wd" log -1 --format=%s wt 2>&1)" "in the worktree"
echo more >> "$d/wt/a"
out=$(printf '%s\n' '{"id":"c","tool":"shell","input":{"command":"git commit -qam through-the-gate"}}' |
	(cd "$d/wt" && "$AIRLOCK" gate --no-tty --db "$d/wt.db"))
expect_eq "linked worktree: the gate's auto-run commit exits 0" "$(printf '%s' "$out" | jq -r .exit_code)" 0
expect_eq "linked worktree: and lands on the worktree's branch" "$(git -C "$d/wd" log -1 --format=%s wt 2>&1)" "through-the-gate"
# a preview's dry run of a git write there ran against a read-only .git
echo pending >> "$d/wt/a"
out=$(printf '%s\n' '{"tool":"shell","input":{"command":"git stash"}}' | "$AIRLOCK" preview --workdir "$d/wt" 2>&1)
check "linked worktree: a preview shows what git stash would change" sh -c 'printf "%s" "$1" | grep -q "^-pending"' x "$out"
expect_eq "linked worktree: and leaves the repository alone" "$(git -C "$d/wt" stash list | wc -l)/$(tail -1 "$d/wt/a")" "0/pending"
# a .git file that names another directory without git's link back to
# this workdir shows nothing (an archive's .git cannot name ~/.ssh)
mkdir -p "$d/fake/repo/worktrees/w" "$d/fakewd"
printf '../..\n' > "$d/fake/repo/worktrees/w/commondir"
printf '%s\n' "$d/elsewhere/.git" > "$d/fake/repo/worktrees/w/gitdir"
echo TOPSECRET > "$d/fake/repo/secret"
printf 'gitdir: %s\n' "$d/fake/repo/worktrees/w" > "$d/fakewd/.git"
check "a .git file without the link back shows nothing" \
	sh -c "! (cd '$d/fakewd' && '$AIRLOCK' exec --profile readonly -- cat '$d/fake/repo/secret') 2>/dev/null"

# A toolchain installed in the home (rustup's ~/.cargo/bin, pyenv's shims,
# nvm) is on PATH but the sandbox's home is empty: "not found" now says
# which PATH directories are hidden and the profile key that shows one.
mkdir -p "$HOME/tools/bin"
printf '#!/bin/sh\necho mytool ran\n' > "$HOME/tools/bin/mytool"
chmod +x "$HOME/tools/bin/mytool"
(cd "$d/wd" && PATH="$HOME/tools/bin:$PATH" "$AIRLOCK" exec --profile readonly -- mytool) > "$d/t.out" 2>&1
check "toolchain in the home: exec names the hidden PATH directory" grep -q '~/tools/bin.*home = DIR' "$d/t.out"
(cd "$d/wd" && PATH="$HOME/tools/bin:$PATH" "$AIRLOCK" exec --profile readonly -- bash -c mytool) > "$d/t.out" 2>&1
check "toolchain in the home: so does bash's command not found" grep -q '~/tools/bin.*home = DIR' "$d/t.out"
out=$(printf '%s\n' '{"id":"t","tool":"shell","input":{"command":"mytool"}}' |
	(cd "$d/wd" && PATH="$HOME/tools/bin:$PATH" "$AIRLOCK" gate --no-tty --db "$d/t.db"))
check "toolchain in the home: the gate tells the agent" sh -c 'printf "%s" "$1" | jq -r .stderr | grep -q "~/tools/bin.*home = DIR"' x "$out"
printf '[profile "readonly"]\n\thome = ~/tools/bin\n' > "$d/t.policy"
expect_eq "toolchain in the home: home = ~/tools/bin runs it" \
	"$(cd "$d/wd" && PATH="$HOME/tools/bin:$PATH" "$AIRLOCK" exec --policy "$d/t.policy" --profile readonly -- mytool 2>&1)" "mytool ran"

# A venv made by a Python installed in the home (pyenv, uv, conda): its
# .venv/bin/python leads there, and "No such file or directory" said no
# more; now the installation to show is named.
mkdir -p "$HOME/pyinst/3.0/bin" "$d/wd/.venv/bin"
printf '#!/bin/sh\necho venv python ran\n' > "$HOME/pyinst/3.0/bin/python3.0"
chmod +x "$HOME/pyinst/3.0/bin/python3.0"
ln -s "$HOME/pyinst/3.0/bin/python3.0" "$d/wd/.venv/bin/python"
ex --profile readonly -- bash -c '.venv/bin/python -V' > "$d/v.out" 2>&1
check "venv from a Python in the home: its installation is named" grep -q '.venv/bin/python leads into ~/pyinst/3.0' "$d/v.out"
printf '[profile "readonly"]\n\thome = ~/pyinst/3.0\n' > "$d/v.policy"
expect_eq "venv from a Python in the home: home = ~/pyinst/3.0 runs it" \
	"$(ex --policy "$d/v.policy" --profile readonly -- .venv/bin/python 2>&1)" "venv python ran"
rm -rf "$d/wd/.venv"

# An asked git commit: its preview's dry run needs the identity too
printf '[tier "medium"]\n\taction = ask\n' > "$d/ask.policy"
echo f >> "$d/wd/a"
out=$(printf '%s\n' '{"id":"p","tool":"shell","input":{"command":"git commit -qam asked"}}' |
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/p.db" --policy "$d/ask.policy" \
		--approve-with "cat > '$d/p.json'; echo approve"))
expect_eq "asked commit: its preview's dry run succeeds" "$(jq -r .preview "$d/p.json" | sed -n 2p | cut -d' ' -f1-4)" "dry run: exit 0"
expect_eq "asked commit: made as the host's identity" "$(git -C "$d/wd" log -1 --format='%s %ae')" "asked work@example.org"

# The sandbox's hostname resolves (Java's InetAddress.getLocalHost() threw
# UnknownHostException, failing the JVM test suites that call it)
expect_eq "the hostname resolves" \
	"$(ex --profile readonly -- python3 -c 'import socket; print(socket.gethostbyname(socket.gethostname()))' 2>&1)" 127.0.1.1

# A memory cgroup caps the tree (root, or a delegated v2 controller): no
# address-space cap besides it, which a JVM (class space, heap
# reservation), ASan's shadow or wasm's guard regions failed under.
capped=no
if [ "$(id -u)" -eq 0 ] && { [ -w /sys/fs/cgroup/memory/cgroup.procs ] ||
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; }; then capped=yes; fi
# (read-only: reserved address space, no commit charge)
reserve='import mmap; mmap.mmap(-1, 8 << 30, prot=mmap.PROT_READ); print("reserved")'
if [ "$capped" = yes ]; then
	expect_eq "memory cgroup: 8 GiB reserved, untouched" "$(ex --profile readonly -- python3 -c "$reserve" 2>&1)" reserved
	printf '[profile "readonly"]\n\tmemory = 512m\n' > "$d/m.policy"
	ex --policy "$d/m.policy" --profile readonly -- python3 -c 'b = bytearray(1 << 30); print("touched")' > "$d/m.out" 2>&1
	check "memory cgroup: 1 GiB touched under 512m is stopped" sh -c "! grep -q touched '$d/m.out'"
	if command -v node > /dev/null; then
		expect_eq "node: a wasm memory" "$(ex --profile readonly -- node -e 'new WebAssembly.Memory({initial: 1}); console.log("ok")' 2>&1)" ok
	fi
else
	echo "skip: address space with a memory cgroup (needs root or a delegated memory controller)"
fi
# A Debian JDK reads java.security and logging.properties from
# /etc/java-N-openjdk: javac died without them. (memory = 4g: a JVM's
# reservations fit under an address-space cap too, cgroup or not.)
if command -v javac > /dev/null && command -v java > /dev/null; then
	mkdir -p "$d/wd/src"
	printf 'public class Hi { public static void main(String[] a) { java.util.logging.Logger.getLogger("x").info("logged"); System.out.println("hi"); } }\n' > "$d/wd/src/Hi.java"
	printf '[profile "workspace"]\n\tmemory = 4g\n' > "$d/j.policy"
	ex --policy "$d/j.policy" --profile workspace -- sh -c 'javac -d out src/Hi.java && java -cp out Hi' > "$d/j.out" 2> "$d/j.err"
	expect_eq "java: javac and java run" "$(cat "$d/j.out")" hi
	check "java: its logging configured" grep -q 'INFO: logged' "$d/j.err"
	for m in /etc/java-*-openjdk/management; do
		[ -d "$m" ] || continue
		expect_eq "java: $m is hidden" "$(ex --profile readonly -- ls -A "$m" 2>&1)" ""
	done
	# Debian's Maven reads its launcher config from /etc/maven
	if command -v mvn > /dev/null && [ -e /etc/maven/m2.conf ]; then
		check "maven: mvn starts" sh -c 'printf "%s" "$1" | grep -q "Apache Maven"' x \
			"$(ex --policy "$d/j.policy" --profile workspace -- mvn -v 2>&1)"
		check "maven: not its global settings.xml" sh -c "! (cd '$d/wd' && '$AIRLOCK' exec --profile readonly -- test -e /etc/maven/settings.xml)"
	else
		echo "skip: maven (mvn or /etc/maven/m2.conf missing)"
	fi
else
	echo "skip: java (javac or java missing)"
fi
finish
