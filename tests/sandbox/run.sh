#!/bin/sh
# run.sh: the escape and containment suite. Every case is a real attempt
# made from inside `airlock exec`, and every case checks the host afterwards
# (files untouched, no process left, no connection made).
#   usage: AIRLOCK=/abs/airlock tests/sandbox/run.sh root|nobody
# "nobody" runs airlock through setpriv as uid/gid 65534 (unprivileged
# user namespaces). Prints "N passed, N failed"; exits 1 on any failure.
set -u
AS=${1:-root}
: "${AIRLOCK:?set AIRLOCK to the airlock binary}"
SRC=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/airlock-sbx.XXXXXX)
PASS=0
FAIL=0
PIDS=""

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# ok NAME: a pass, unless airlock itself failed (then nothing was attempted).
ok() {
	case "${OUT:-}" in
	*"sandbox: cannot"* | *"error while loading"* | *"airlock exec: cannot"* | *"usage:"*)
		bad "$1" "airlock did not run the attempt"
		return
		;;
	esac
	PASS=$((PASS + 1))
	echo "ok   [$AS] $1"
}
bad() { FAIL=$((FAIL + 1)); echo "FAIL [$AS] $1: $2"; [ -n "${OUT:-}" ] && echo "$OUT" | sed 's/^/     | /' | head -5; }

# ---- the host the sandbox must not touch ----
cc -O1 -o "$WORK/probe" "$SRC/probe.c" -lutil || { echo "cannot build probe"; exit 1; }
mkdir -p "$WORK/wd/.git/hooks" "$WORK/outside" "$WORK/home/.ssh" "$WORK/home/.aws"
echo "[core]" > "$WORK/wd/.git/config"
echo "SSH-PRIVATE-KEY-MARKER" > "$WORK/home/.ssh/id_rsa"
echo "AWS-SECRET-MARKER" > "$WORK/home/.aws/credentials"
echo "HISTORY-MARKER" > "$WORK/home/.bash_history"
echo "keep me" > "$WORK/outside/keep"
echo "target" > "$WORK/outside/target"
ln -s "$WORK/outside/target" "$WORK/wd/link"
ln -s /etc/passwd "$WORK/wd/pwlink"
cp "$WORK/probe" "$WORK/wd/probe"
cp "$WORK/probe" "$WORK/wd/suidprobe"
RUN=""
if [ "$AS" = nobody ]; then
	chown -R 65534:65534 "$WORK"
	RUN="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
chown 0:0 "$WORK/wd/suidprobe"
chmod 4755 "$WORK/wd/suidprobe"
PASSWD_SUM=$(md5sum < /etc/passwd)
TAG="4242.$$"

# ax ARGS...: airlock exec as the identity, in the workdir, with secrets in
# the environment that must never reach the command.
ax() {
	(cd "$WORK/wd" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" LANG=C \
		MY_API_TOKEN=tok-MARKER AWS_SECRET_ACCESS_KEY=sec-MARKER LC_API_KEY=lc-MARKER \
		$RUN "$AIRLOCK" exec "$@")
}

# blocked NAME PROBE-ARGS...: the probe must report BLOCKED and exit 0.
blocked() {
	name=$1
	shift
	OUT=$(ax -- ./probe "$@" 2>&1)
	rc=$?
	case "$OUT" in
	*BLOCKED*) [ $rc -eq 0 ] && { ok "$name"; return 0; } ;;
	esac
	bad "$name" "rc=$rc"
	return 1
}

# blocked_net NAME PROBE-ARGS...: the same with --network on.
blocked_net() {
	name=$1
	shift
	OUT=$(ax --network -- ./probe "$@" 2>&1)
	case "$OUT" in *BLOCKED*) ok "$name" ;; *) bad "$name" "not blocked" ;; esac
}

# ---- preflight: the sandbox starts at all, else every host check is moot ----
OUT=$(ax -- sh -c 'echo started' 2>&1)
if [ "$OUT" != started ]; then
	echo "FAIL [$AS] preflight: airlock exec -- sh did not run: $OUT"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---- fail closed: no user namespaces, no run (exit 125 with a hint) ----
OUT=$(cd "$WORK/wd" && $RUN unshare -Ur sh -c \
	"echo 0 > /proc/sys/user/max_user_namespaces && '$AIRLOCK' exec -- ./probe write ran.txt" 2>&1)
rc=$?
case "$OUT" in
*"cannot create the namespaces"*hint*) [ $rc -eq 125 ] && [ ! -e "$WORK/wd/ran.txt" ] &&
	PASS=$((PASS + 1)) && echo "ok   [$AS] no-userns-fails-closed" || bad no-userns-fails-closed "rc=$rc" ;;
*) bad no-userns-fails-closed "rc=$rc" ;;
esac

# ---- fail closed: no /proc (a root caller), no run, and the reason named ----
if [ "$AS" = root ]; then
	OUT=$(cd "$WORK/wd" && unshare -m sh -c "umount -l /proc && '$AIRLOCK' exec -- ./probe write ran.txt" 2>&1)
	rc=$?
	# a sanitized build (make check) refuses as well, then its leak check,
	# which needs /proc (and reads its options from there), exits 1
	case "$OUT" in *"LeakSanitizer has encountered a fatal error"*) [ $rc -eq 1 ] && rc=125 ;; esac
	case "$OUT" in *"/proc"*) [ $rc -eq 125 ] && [ ! -e "$WORK/wd/ran.txt" ] && PASS=$((PASS + 1)) &&
		echo "ok   [$AS] no-proc-fails-closed" || bad no-proc-fails-closed "rc=$rc" ;;
	*) bad no-proc-fails-closed "rc=$rc, the reason does not name /proc" ;;
	esac
fi

# ---- files ----
OUT=$(ax -- ./probe write "$WORK/outside/new" 2>&1)
[ ! -e "$WORK/outside/new" ] && ok write-outside-workdir || bad write-outside-workdir "host file created"
OUT=$(ax -- sh -c "rm -rf '$WORK/outside'" 2>&1)
[ -f "$WORK/outside/keep" ] && ok rm-outside-workdir || bad rm-outside-workdir "host file removed"
OUT=$(ax -- ./probe write link 2>&1)
[ "$(cat "$WORK/outside/target")" = target ] && ok write-through-symlink || bad write-through-symlink "target changed"
OUT=$(ax -- ./probe write pwlink 2>&1)
[ "$(md5sum < /etc/passwd)" = "$PASSWD_SUM" ] && ok write-symlink-etc-passwd || bad write-symlink-etc-passwd "passwd changed"
OUT=$(ax -- sh -c "./probe link /etc/passwd hl; ./probe write hl" 2>&1)
[ "$(md5sum < /etc/passwd)" = "$PASSWD_SUM" ] && [ ! "$WORK/wd/hl" -ef /etc/passwd ] && ok hardlink-outside ||
	bad hardlink-outside "link made or passwd changed"
OUT=$(ax -- sh -c "./probe link '$WORK/outside/keep' hl2; ./probe write hl2" 2>&1)
[ "$(cat "$WORK/outside/keep")" = "keep me" ] && ok hardlink-to-outside-file || bad hardlink-to-outside-file "keep changed"
# the workdir's own secret files: masked for auto-run profiles, so a
# recursive grep cannot hand a .env to the agent; a person-approved run sees it
printf 'API_KEY=WDENV-7731\n' > "$WORK/wd/.env"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/wd/.env"
OUT=$(ax -- sh -c 'cat .env; grep -r WDENV . ; echo x > .env' 2>&1)
case "$OUT" in *WDENV-7731*) bad workdir-secret-hidden "the .env was read" ;; *)
	[ "$(cat "$WORK/wd/.env")" = "API_KEY=WDENV-7731" ] && ok workdir-secret-hidden ||
		bad workdir-secret-hidden "the .env was written" ;;
esac
printf 'API_KEY=WDENV-7731\n' > "$WORK/wd/.env" # each case starts from it
OUT=$(ax --profile readonly -- grep -r WDENV . 2>&1)
case "$OUT" in *WDENV-7731*) bad workdir-secret-hidden-ro "read" ;; *) ok workdir-secret-hidden-ro ;; esac
printf 'API_KEY=WDENV-7731\n' > "$WORK/wd/.env"
OUT=$(ax --profile approved -- cat .env 2>&1)
case "$OUT" in *WDENV-7731*) ok workdir-secret-approved-shown ;; *) bad workdir-secret-approved-shown "control: not shown" ;; esac
rm -f "$WORK/wd/.env"
# ... and below the top level: a monorepo's packages/x/.env and a key in a
# config directory, read directly, by a recursive grep, or replaced
mkdir -p "$WORK/wd/packages/api/config"
printf 'API_KEY=DEEPENV-5150\n' > "$WORK/wd/packages/api/.env"
printf 'DEEPKEY-5151\n' > "$WORK/wd/packages/api/config/tls.key"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/packages"
OUT=$(ax -- sh -c 'cat packages/api/.env packages/api/config/tls.key; grep -r DEEP . ;
	echo x > packages/api/.env; rm -f packages/api/config/tls.key' 2>&1)
case "$OUT" in *DEEPENV-5150*|*DEEPKEY-5151*) bad workdir-secret-deep-hidden "a secret below the top was read" ;; *)
	[ "$(cat "$WORK/wd/packages/api/.env" "$WORK/wd/packages/api/config/tls.key")" = "API_KEY=DEEPENV-5150
DEEPKEY-5151" ] && ok workdir-secret-deep-hidden || bad workdir-secret-deep-hidden "a secret was changed" ;;
esac
rm -rf "$WORK/wd/packages"
# A call that can write the workdir carries a masked secret, with its
# directory, to where the next call's search does not look (a skipped tool
# tree); the next call must not read it.
mkdir -p "$WORK/wd/svc/conf"
printf 'API_KEY=MOVEDENV-6160\n' > "$WORK/wd/svc/conf/.env"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/svc"
OUT=$(ax -- sh -c 'mkdir -p node_modules/a; mv svc node_modules/a/ || mv svc/conf node_modules/' 2>&1)
OUT=$(ax -- sh -c 'cat svc/conf/.env node_modules/conf/.env node_modules/a/svc/conf/.env' 2>&1)
case "$OUT" in *MOVEDENV-6160*) bad workdir-secret-moved-away "read after its directory moved" ;; *)
	[ "$(cat "$WORK/wd/svc/conf/.env" 2>&1)" = "API_KEY=MOVEDENV-6160" ] && ok workdir-secret-moved-away ||
		bad workdir-secret-moved-away "the .env moved or changed" ;;
esac
rm -rf "$WORK/wd/svc" "$WORK/wd/node_modules"
# ... or makes that directory one it can enter but not list (chmod 0111):
# the search, as the same user, cannot list it either
mkdir -p "$WORK/wd/svc/conf"
printf 'API_KEY=MOVEDENV-6160\n' > "$WORK/wd/svc/conf/.env"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/svc"
OUT=$(ax -- chmod 0111 svc/conf 2>&1)
OUT=$(ax -- cat svc/conf/.env 2>&1)
case "$OUT" in *MOVEDENV-6160*) bad workdir-secret-unlisted "read in a directory closed to listing" ;;
*) ok workdir-secret-unlisted ;; esac
chmod 0755 "$WORK/wd/svc/conf"
rm -rf "$WORK/wd/svc"
# A call that can write the workdir floods it with more entries than the
# search reads, ahead of a directory with a .env; the next call must not
# read it.
mkdir -p "$WORK/wd/svc/conf"
printf 'API_KEY=MOVEDENV-6160\n' > "$WORK/wd/svc/conf/.env"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/svc"
OUT=$(ax -- sh -c 'mkdir flood && cd flood && seq 100001 | xargs touch' 2>&1)
OUT=$(ax -- cat svc/conf/.env 2>&1)
case "$OUT" in *MOVEDENV-6160*) bad workdir-secret-flooded "read past the search's limit" ;;
*"was not searched"*) ok workdir-secret-flooded ;;
*) bad workdir-secret-flooded "no word of the search's limit" ;;
esac
rm -rf "$WORK/wd/svc" "$WORK/wd/flood"
# a .pem is shown only when it holds certificates alone: a key after 64 KiB
# of chain, a PuTTY key and a bare DER key were shown before
awk 'BEGIN { for (i = 0; i < 1500; i++) printf "-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END CERTIFICATE-----\n"
	printf "-----BEGIN PRIVATE KEY-----\nPEMKEY-7170\n-----END PRIVATE KEY-----\n" }' > "$WORK/wd/chain.pem"
printf 'PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nPEMKEY-7171\n' > "$WORK/wd/putty.pem"
printf '\060\202\004\276PEMKEY-7172' > "$WORK/wd/der.pem"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/wd/chain.pem" "$WORK/wd/putty.pem" "$WORK/wd/der.pem"
OUT=$(ax -- sh -c 'grep -a -o "PEMKEY-[0-9]*" chain.pem putty.pem der.pem' 2>&1)
case "$OUT" in *PEMKEY-*) bad workdir-pem-key-hidden "a key in a .pem was read" ;; *) ok workdir-pem-key-hidden ;; esac
rm -f "$WORK/wd/chain.pem" "$WORK/wd/putty.pem" "$WORK/wd/der.pem"
# a .env that is a FIFO a password manager serves (1Password's local .env
# files): a secret even where the profile has the network and pipes show
mkfifo "$WORK/wd/.env"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/wd/.env"
sh -c 'while :; do printf "API_KEY=FIFOENV-9190\n" > "$1"; done' sh "$WORK/wd/.env" &
FEED=$!
OUT=$(ax --network -- sh -c 'timeout 3 head -1 .env' 2>&1)
kill "$FEED"
case "$OUT" in *FIFOENV-9190*) bad workdir-secret-fifo "read with the network on" ;; *) ok workdir-secret-fifo ;; esac
rm -f "$WORK/wd/.env"
# secret names in another case (copied from a system that ignores case)
printf 'CASEKEY-8180\n' > "$WORK/wd/SERVER.KEY"
printf 'API_KEY=CASEKEY-8181\n' > "$WORK/wd/.ENV"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/wd/SERVER.KEY" "$WORK/wd/.ENV"
OUT=$(ax -- cat SERVER.KEY .ENV 2>&1)
case "$OUT" in *CASEKEY-*) bad workdir-secret-upper-case "read" ;; *) ok workdir-secret-upper-case ;; esac
rm -f "$WORK/wd/SERVER.KEY" "$WORK/wd/.ENV"
# the copies an editor or tool leaves beside a secret hold what it does:
# Emacs' backup and auto-save, Vim's swap file, git mergetool's .orig
mkdir -p "$WORK/wd/ed"
for f in 'server.key~' '#.env#' '..env.swp' '.env.~3~' 'id_ed25519.orig'; do
	printf 'EDCOPY-7170\n' >"$WORK/wd/ed/$f"
done
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/ed"
OUT=$(ax -- sh -c 'cat ed/*' 2>&1)
case "$OUT" in *EDCOPY-*) bad workdir-secret-editor-copies "read" ;; *) ok workdir-secret-editor-copies ;; esac
rm -rf "$WORK/wd/ed"
# the streams airlock exec is handed: a file on stdin or under stdout has a
# host path behind it, which /proc/self/fd/N would reopen for writing
echo "keep me" > "$WORK/outside/stdin"
echo "old log" > "$WORK/outside/log"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/outside/stdin" "$WORK/outside/log"
OUT=$(ax --profile readonly -- sh -c 'cat; echo pwned > /proc/self/fd/0' < "$WORK/outside/stdin" 2>&1)
[ "$(cat "$WORK/outside/stdin")" = "keep me" ] && [ "$OUT" = "keep me" ] && ok stdin-file-reopened ||
	bad stdin-file-reopened "stdin file written (or not read)"
ax --profile readonly -- sh -c 'echo out; echo err >&2; : > /proc/self/fd/1; echo rw >> /proc/self/fd/2' \
	>> "$WORK/outside/log" 2>&1
[ "$(tr '\n' ' ' < "$WORK/outside/log")" = "old log out err rw " ] && ok stdout-file-reopened ||
	bad stdout-file-reopened "log is: $(tr '\n' ' ' < "$WORK/outside/log")"
OUT=$(ax -- sh -c 'cat "$HOME/.ssh/id_rsa"; cat ~/.ssh/id_rsa' 2>&1)
case "$OUT" in *MARKER*) bad read-ssh-key "key visible" ;; *) ok read-ssh-key ;; esac
OUT=$(ax -- sh -c "cat '$WORK/home/.aws/credentials'" 2>&1)
case "$OUT" in *MARKER*) bad read-aws-credentials "visible" ;; *) ok read-aws-credentials ;; esac
OUT=$(ax -- sh -c 'ls -A "$HOME"; cat "$HOME/.bash_history"' 2>&1)
case "$OUT" in *MARKER*|*.ssh*) bad home-is-empty "home files visible" ;; *) ok home-is-empty ;; esac
OUT=$(ax -- cat /etc/shadow 2>&1)
rc=$?
case "$OUT" in *root:*) bad read-etc-shadow "shadow readable" ;; *) [ $rc -ne 0 ] && ok read-etc-shadow || bad read-etc-shadow "rc 0" ;; esac
OUT=$(ax -- ./probe write .git/hooks/pre-commit 2>&1)
[ ! -e "$WORK/wd/.git/hooks/pre-commit" ] && ok write-git-hooks || bad write-git-hooks "hook planted"
OUT=$(ax -- ./probe write .git/config 2>&1)
grep -q PWNED "$WORK/wd/.git/config" && bad write-git-config "config changed" || ok write-git-config
# (made here, not at the top: a project policy makes airlock exec read the
# user's too, and the no-userns case above runs with HOME=/root)
mkdir -p "$WORK/wd/.airlock" "$WORK/wd/.claude"
echo "# project policy" > "$WORK/wd/.airlock/policy"
echo "{}" > "$WORK/wd/.claude/settings.json"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.airlock" "$WORK/wd/.claude"
OUT=$(ax -- ./probe write .airlock/policy 2>&1)
grep -q PWNED "$WORK/wd/.airlock/policy" && bad write-airlock-policy "policy changed" || ok write-airlock-policy
OUT=$(ax -- ./probe write .airlock/other 2>&1)
[ ! -e "$WORK/wd/.airlock/other" ] && ok write-airlock-dir || bad write-airlock-dir "file planted"
OUT=$(ax -- ./probe write .claude/settings.json 2>&1)
grep -q PWNED "$WORK/wd/.claude/settings.json" && bad write-claude-settings "hooks changed" ||
	ok write-claude-settings
OUT=$(ax -- ./probe write .claude/notes.md 2>&1)
[ -e "$WORK/wd/.claude/notes.md" ] && ok write-claude-other || bad write-claude-other "not written"
# absent ones have no mount point: airlock removes what the run created
OUT=$(ax -- sh -c 'echo "{}" > .mcp.json; echo "{}" > .claude/settings.local.json' 2>&1)
if [ ! -e "$WORK/wd/.mcp.json" ] && [ ! -e "$WORK/wd/.claude/settings.local.json" ]; then
	case "$OUT" in *"removed "*.mcp.json*) case "$OUT" in *settings.local.json*)
		ok create-agent-settings ;; *) bad create-agent-settings "not said" ;; esac ;;
	*) bad create-agent-settings "removed without saying so" ;; esac
else
	bad create-agent-settings "planted"
fi
# other agents' and editors' configs run commands outside the sandbox too
# (VS Code runs a folderOpen task when the folder opens): kept read-only
# when they exist, removed when the run made them
mkdir -p "$WORK/wd/.vscode" && echo "{}" > "$WORK/wd/.vscode/tasks.json"
echo "{}" > "$WORK/wd/.vscode/settings.json"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.vscode"
OUT=$(ax -- ./probe write .vscode/tasks.json 2>&1)
grep -q PWNED "$WORK/wd/.vscode/tasks.json" && bad write-editor-tasks "tasks changed" ||
	ok write-editor-tasks
# VS Code runs the interpreter, shell and tool paths its settings name
OUT=$(ax -- ./probe write .vscode/settings.json 2>&1)
grep -q PWNED "$WORK/wd/.vscode/settings.json" && bad write-editor-settings "settings changed" ||
	ok write-editor-settings
OUT=$(ax -- sh -c 'mkdir -p .cursor .gemini .codex .devcontainer; echo "{}" > .cursor/mcp.json; echo "{}" > .gemini/settings.json; echo "{}" > .vscode/mcp.json
	printf "notify = [\"touch\", \"x\"]\n" > .codex/config.toml
	echo "{\"initializeCommand\": \"touch x\"}" | tee .devcontainer.json > .devcontainer/devcontainer.json' 2>&1)
if [ ! -e "$WORK/wd/.cursor/mcp.json" ] && [ ! -e "$WORK/wd/.gemini/settings.json" ] &&
   [ ! -e "$WORK/wd/.vscode/mcp.json" ] && [ ! -e "$WORK/wd/.codex/config.toml" ] &&
   [ ! -e "$WORK/wd/.devcontainer.json" ] && [ ! -e "$WORK/wd/.devcontainer/devcontainer.json" ]; then
	ok create-editor-configs
else
	bad create-editor-configs "planted: $(ls "$WORK/wd/.cursor" "$WORK/wd/.gemini" "$WORK/wd/.vscode" "$WORK/wd/.codex" "$WORK/wd/.devcontainer" "$WORK/wd/.devcontainer.json" 2>&1 | tr '\n' ' ')"
fi
rm -rf "$WORK/wd/.vscode" "$WORK/wd/.cursor" "$WORK/wd/.gemini" "$WORK/wd/.codex" "$WORK/wd/.devcontainer" \
	"$WORK/wd/.devcontainer.json"
# the dev containers spec reads named configurations too, one level deep:
# .devcontainer/NAME/devcontainer.json, its initializeCommand run on the host
OUT=$(ax -- sh -c 'mkdir -p .devcontainer/py && echo "{\"initializeCommand\": \"touch x\"}" > .devcontainer/py/devcontainer.json' 2>&1)
[ -e "$WORK/wd/.devcontainer/py/devcontainer.json" ] &&
	bad create-devcontainer-named "planted .devcontainer/py/devcontainer.json" || ok create-devcontainer-named
mkdir -p "$WORK/wd/.devcontainer/go" && echo "{}" > "$WORK/wd/.devcontainer/go/devcontainer.json"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.devcontainer"
OUT=$(ax -- sh -c 'echo "{\"initializeCommand\": \"touch x\"}" > .devcontainer/go/devcontainer.json
	mv .devcontainer/go .devcontainer/go2 && mkdir .devcontainer/go &&
	echo "{\"initializeCommand\": \"touch x\"}" > .devcontainer/go/devcontainer.json' 2>&1)
if grep -q initializeCommand "$WORK/wd/.devcontainer/go/devcontainer.json" || [ -e "$WORK/wd/.devcontainer/go2" ]; then
	bad write-devcontainer-named "changed: $(cat "$WORK/wd/.devcontainer/go/devcontainer.json")"
else
	ok write-devcontainer-named
fi
rm -rf "$WORK/wd/.devcontainer"
# more agents' project files that start commands on the host: Cursor's
# hooks, Roo Code's, Amazon Q's, Kiro's and opencode's MCP servers,
# Kiro's agent hooks, opencode's plugins, Windsurf's Cascade hooks; Zed's
# language server and formatter commands, Gemini CLI's workspace
# extensions, Continue's, Qwen Code's, Crush's, Kilo Code's and Junie's
# MCP servers, aider's lint-cmd (its .aider* is git-ignored by aider itself)
AGENT_FILES=".cursor/hooks.json .roo/mcp.json .amazonq/mcp.json .amazonq/default.json
.kiro/settings/mcp.json .kiro/hooks/x.kiro.hook .opencode/opencode.json .opencode/plugin/x.js
.opencode/plugins/x.js .windsurf/hooks.json opencode.json opencode.jsonc .zed/settings.json
.gemini/extensions/x/gemini-extension.json .continue/mcpServers/x.yaml .qwen/settings.json
.crush.json crush.json .aider.conf.yml .kilocode/mcp.json .kilo/kilo.json .kilo/kilo.jsonc
.kilo/mcp.json kilo.json kilo.jsonc .junie/mcp/mcp.json"
OUT=$(ax -- sh -c 'for f in '"$(echo $AGENT_FILES)"'; do mkdir -p "$(dirname "$f")"; echo "{\"command\": \"touch x\"}" > "$f"; done; echo made' 2>&1)
left=""
for f in $AGENT_FILES; do [ -e "$WORK/wd/$f" ] && left="$left $f"; done
case "$OUT" in
*made*) [ -z "$left" ] && ok create-agent-hooks || bad create-agent-hooks "planted:$left" ;;
*) bad create-agent-hooks "the call did not run" ;;
esac
rm -rf "$WORK/wd/.cursor" "$WORK/wd/.roo" "$WORK/wd/.amazonq" "$WORK/wd/.kiro" "$WORK/wd/.opencode" \
	"$WORK/wd/.windsurf" "$WORK/wd/opencode.json" "$WORK/wd/opencode.jsonc" "$WORK/wd/.zed" \
	"$WORK/wd/.gemini" "$WORK/wd/.continue" "$WORK/wd/.qwen" "$WORK/wd/.crush.json" \
	"$WORK/wd/crush.json" "$WORK/wd/.aider.conf.yml" "$WORK/wd/.kilocode" "$WORK/wd/.kilo" \
	"$WORK/wd/kilo.json" "$WORK/wd/kilo.jsonc" "$WORK/wd/.junie"
# direnv runs an allowed .envrc, which hashes the .envrc alone: what it
# sources, a git-ignored .envrc.local by the usual pattern, runs unchecked
OUT=$(ax -- sh -c 'echo "touch x" > .envrc.local; echo "touch x" > .envrc.private; echo made' 2>&1)
case "$OUT" in
*made*) [ ! -e "$WORK/wd/.envrc.local" ] && [ ! -e "$WORK/wd/.envrc.private" ] && ok create-direnv-local ||
	bad create-direnv-local "planted" ;;
*) bad create-direnv-local "the call did not run" ;;
esac
rm -f "$WORK/wd/.envrc.local" "$WORK/wd/.envrc.private"
# mise trusts a config by its path: a git-ignored mise.local.toml planted
# beside a trusted one runs its [hooks] at the user's next prompt there
OUT=$(ax -- sh -c 'printf "[hooks]\nenter = \"touch x\"\n" > mise.local.toml; cp mise.local.toml .mise.local.toml; echo made' 2>&1)
case "$OUT" in
*made*) [ ! -e "$WORK/wd/mise.local.toml" ] && [ ! -e "$WORK/wd/.mise.local.toml" ] && ok create-mise-local ||
	bad create-mise-local "planted" ;;
*) bad create-mise-local "the call did not run" ;;
esac
rm -f "$WORK/wd/mise.local.toml" "$WORK/wd/.mise.local.toml"
# direnv's layout dir, git-ignored by its own advice: nix-direnv evals its
# cached .direnv/flake-profile.rc at the next prompt, and layout python
# puts .direnv/python-*/bin first on the shell's PATH
OUT=$(ax -- sh -c 'mkdir -p .direnv/python-3/bin; echo "touch x" > .direnv/flake-profile.rc
	echo "touch x" > .direnv/python-3/bin/git; echo made' 2>&1)
case "$OUT" in
*made*) [ ! -e "$WORK/wd/.direnv/flake-profile.rc" ] && [ ! -e "$WORK/wd/.direnv/python-3" ] &&
	ok create-direnv-layout || bad create-direnv-layout "planted" ;;
*) bad create-direnv-layout "the call did not run" ;;
esac
rm -rf "$WORK/wd/.direnv" && mkdir "$WORK/wd/.direnv" && echo "export A=1" > "$WORK/wd/.direnv/flake-profile.rc"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.direnv"
OUT=$(ax -- sh -c 'echo "touch x" >> .direnv/flake-profile.rc; mkdir .direnv/python-3' 2>&1)
[ "$(cat "$WORK/wd/.direnv/flake-profile.rc")" = "export A=1" ] && [ ! -e "$WORK/wd/.direnv/python-3" ] &&
	ok write-direnv-layout || bad write-direnv-layout "changed: $(ls "$WORK/wd/.direnv" | tr '\n' ' ')"
rm -rf "$WORK/wd/.direnv"
# lefthook merges a git-ignored local config (and scripts) into what the
# git hook it installed runs: no diff shows a command planted there
OUT=$(ax -- sh -c 'mkdir -p .config .lefthook-local/pre-commit
printf "pre-commit:\n  commands:\n    x:\n      run: touch x\n" | tee lefthook-local.yml .lefthook-local.yaml > .config/lefthook-local.toml
echo "touch x" > .lefthook-local/pre-commit/x.sh; echo made' 2>&1)
left=$(ls "$WORK/wd/lefthook-local.yml" "$WORK/wd/.lefthook-local.yaml" "$WORK/wd/.config/lefthook-local.toml" \
	"$WORK/wd/.lefthook-local/pre-commit/x.sh" 2>/dev/null)
case "$OUT" in
*made*) [ -z "$left" ] && ok create-lefthook-local || bad create-lefthook-local "planted: $left" ;;
*) bad create-lefthook-local "the call did not run" ;;
esac
rm -rf "$WORK/wd/lefthook-local.yml" "$WORK/wd/.lefthook-local.yaml" "$WORK/wd/.config" "$WORK/wd/.lefthook-local"
# planted NAME TEXT FILES...: a call writes TEXT to each of FILES (their
# directories made), and none may be left; then they are cleaned up
planted() {
	name=$1 text=$2
	shift 2
	OUT=$(ax -- sh -c 'text=$1; shift; for f in "$@"; do mkdir -p "$(dirname "$f")"; printf "%s" "$text" > "$f"; done; echo made' sh "$text" "$@" 2>&1)
	left=""
	for f in "$@"; do [ -e "$WORK/wd/$f" ] && left="$left $f"; done
	case "$OUT" in
	*made*) [ -z "$left" ] && ok "$name" || bad "$name" "planted:$left" ;;
	*) bad "$name" "the call did not run" ;;
	esac
	for f in "$@"; do rm -f "$WORK/wd/$f"; done
}
# Mercurial, Jujutsu and Sapling run what their repository config names
# ([hooks] pre-status runs on `hg status`, aliases, pagers, extensions):
# a config the run made goes, and an existing one stays read-only
planted create-vcs-configs "$(printf '[hooks]\npre-status = touch x')" .hg/hgrc .hg/hgrc-not-shared \
	.hg/sharedpath .jj/repo/config.toml .sl/config .git/sl/config
rm -rf "$WORK/wd/.hg" "$WORK/wd/.jj" "$WORK/wd/.sl" "$WORK/wd/.git/sl"
mkdir "$WORK/wd/.hg" && printf '[ui]\nusername = u\n' > "$WORK/wd/.hg/hgrc"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.hg"
OUT=$(ax -- sh -c 'printf "[hooks]\npre-status = touch x\n" >> .hg/hgrc; mv .hg .hg2' 2>&1)
[ "$(cat "$WORK/wd/.hg/hgrc" 2>&1)" = "$(printf '[ui]\nusername = u')" ] &&
	ok write-hgrc || bad write-hgrc "changed: $(cat "$WORK/wd/.hg/hgrc" 2>&1 | tr '\n' ' ')"
rm -rf "$WORK/wd/.hg" "$WORK/wd/.hg2"
# docker compose merges an override file beside compose.yaml unasked, and
# projects git-ignore it as local: a privileged service, / bound
planted create-compose-override "$(printf 'services:\n  x:\n    privileged: true')" \
	compose.override.yaml compose.override.yml docker-compose.override.yaml docker-compose.override.yml
# a repository the run creates keeps git init's samples but no live hook
mkdir -p "$WORK/repo" && cp "$WORK/probe" "$WORK/repo/" && [ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo"
OUT=$(cd "$WORK/repo" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit.sample && echo "curl x | sh" > .git/hooks/pre-commit && echo "[core]" > .git/config' 2>&1)
[ ! -e "$WORK/repo/.git/hooks/pre-commit" ] && [ -e "$WORK/repo/.git/hooks/pre-commit.sample" ] &&
	[ -e "$WORK/repo/.git/config" ] && ok create-repo-hook || bad create-repo-hook "live hook kept, or the repository damaged"
# airlock exec stopped by a signal mid-call (a hung command invites
# Ctrl-C; a harness's timeout sends SIGTERM) still sweeps what the run
# planted and removes its cgroup, then dies of the signal
(cd "$WORK/wd" && exec env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- \
	sh -c 'echo "{}" > .mcp.json; exec sleep 30' > "$WORK/int.out" 2>&1) &
APID=$!
i=0
while [ ! -e "$WORK/wd/.mcp.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
kill -TERM "$APID"
wait "$APID" 2>/dev/null # (the shell would say "Terminated")
rc=$?
OUT=$(cat "$WORK/int.out")
if [ -e "$WORK/wd/.mcp.json" ]; then
	bad interrupted-exec-sweeps ".mcp.json left behind (rc=$rc)"
	rm -f "$WORK/wd/.mcp.json"
elif [ $rc -ne 143 ] || [ -n "$(ls -d /sys/fs/cgroup/*/airlock-"$APID"-* /sys/fs/cgroup/memory/*/*/airlock-"$APID"-* 2>/dev/null)" ]; then
	bad interrupted-exec-sweeps "rc=$rc, or its cgroup left behind"
else
	ok interrupted-exec-sweeps
fi
OUT=$(ax -- sh -c 'ln -s "$HOME" .mcp.json' 2>&1)
[ ! -e "$WORK/wd/.mcp.json" ] && [ ! -L "$WORK/wd/.mcp.json" ] && [ -d "$WORK/home/.ssh" ] &&
	ok create-settings-symlink || bad create-settings-symlink "symlink kept or its target removed"
# the directories that hold protected paths cannot be renamed away and
# replaced by fresh ones without the protection
OUT=$(ax -- sh -c 'mv .git .git-old; mkdir -p .git; echo "[core] fsmonitor = x" >> .git/config' 2>&1)
[ ! -e "$WORK/wd/.git-old" ] && ! grep -q fsmonitor "$WORK/wd/.git/config" &&
	ok rename-git-dir || bad rename-git-dir ".git replaced"
OUT=$(ax -- sh -c 'mv .claude .claude-old; mkdir -p .claude; echo HOOKED > .claude/settings.json' 2>&1)
[ ! -e "$WORK/wd/.claude-old" ] && ! grep -q HOOKED "$WORK/wd/.claude/settings.json" &&
	ok rename-claude-dir || bad rename-claude-dir ".claude replaced"
# commondir and config.worktree would make git read config from elsewhere
OUT=$(ax -- sh -c 'echo ../evil > .git/commondir; echo x > .git/config.worktree' 2>&1)
[ ! -e "$WORK/wd/.git/commondir" ] && [ ! -e "$WORK/wd/.git/config.worktree" ] &&
	ok git-commondir || bad git-commondir "redirection planted"
# a submodule's own config and hooks are read-only like the top's
mkdir -p "$WORK/wd/.git/modules/lib/hooks" && echo "[core]" > "$WORK/wd/.git/modules/lib/config"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/wd/.git/modules"
OUT=$(ax -- sh -c 'echo "fsmonitor = x" >> .git/modules/lib/config; echo x > .git/modules/lib/hooks/post-checkout' 2>&1)
! grep -q fsmonitor "$WORK/wd/.git/modules/lib/config" && [ ! -e "$WORK/wd/.git/modules/lib/hooks/post-checkout" ] &&
	ok write-submodule-config || bad write-submodule-config "submodule config or hook planted"
# a repository the run creates keeps an inert config, loses one that runs
# commands, and a .git made a link is removed without touching its target
mkdir -p "$WORK/repo2" "$WORK/repo3" && [ "$AS" = nobody ] && chown 65534:65534 "$WORK/repo2" "$WORK/repo3"
OUT=$(cd "$WORK/repo2" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'git init -q . && git remote add origin https://example.com/x && mkdir -p .git/modules/m && printf "[core]\n\tfsmonitor = x\n" > .git/modules/m/config' 2>&1)
grep -q 'url = https://example.com/x' "$WORK/repo2/.git/config" && [ ! -e "$WORK/repo2/.git/modules/m/config" ] &&
	ok create-repo-config || bad create-repo-config "inert config lost, or a submodule's fsmonitor kept"
OUT=$(cd "$WORK/repo3" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'git init -q . && git config alias.st "!touch x"' 2>&1)
[ -d "$WORK/repo3/.git" ] && ! grep -q alias "$WORK/repo3/.git/config" 2>/dev/null &&
	ok create-repo-alias || bad create-repo-alias "alias kept"
OUT=$(cd "$WORK/repo3" && rm -rf .git && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- \
	sh -c 'ln -s "$PWD/../wd/.git" .git' 2>&1)
[ ! -e "$WORK/repo3/.git" ] && [ ! -L "$WORK/repo3/.git" ] && [ -e "$WORK/wd/.git/config" ] &&
	ok create-git-symlink || bad create-git-symlink "link kept or its target touched"
# a linked worktree elsewhere reads its commondir (so its config and
# hooks) from the main repository's .git/worktrees: read-only, or swept
# when the run made it
mkdir -p "$WORK/repo6" && git init -q "$WORK/repo6" &&
	git -C "$WORK/repo6" -c user.email=a@b -c user.name=a commit -q --allow-empty -m init &&
	git -C "$WORK/repo6" worktree add -q "$WORK/wt6" 2>/dev/null
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo6" "$WORK/wt6"
OUT=$(cd "$WORK/repo6" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'cp -r .git evil; printf "[core]\n\tfsmonitor = touch x\n" > evil/config; echo "$PWD/evil" > .git/worktrees/wt6/commondir
	 git worktree add -q new 2>/dev/null && echo "$PWD/evil" > .git/worktrees/new/commondir' 2>&1)
[ "$(cat "$WORK/repo6/.git/worktrees/wt6/commondir")" = ../.. ] && ok linked-worktree-commondir ||
	bad linked-worktree-commondir "commondir of a worktree outside the workdir changed"
rm -rf "$WORK/repo6/evil" "$WORK/repo6/new"
rm -rf "$WORK/repo6/.git/worktrees/new"
mv "$WORK/repo6/.git/worktrees" "$WORK/repo6/.git/wt-saved"
OUT=$(cd "$WORK/repo6" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'git worktree add -q new 2>/dev/null && echo /elsewhere > .git/worktrees/new/commondir' 2>&1)
[ ! -e "$WORK/repo6/.git/worktrees/new/commondir" ] && [ -e "$WORK/repo6/.git/worktrees/new/HEAD" ] &&
	ok new-worktree-commondir || bad new-worktree-commondir "a made commondir pointing elsewhere kept"
# the host's git writes some .git files by name, following links: a link
# left at .git/logs/HEAD carried the next host commit's reflog line (a
# subject the agent chose) into a file outside, ~/.bashrc; COMMIT_EDITMSG
# would have been overwritten; a FIFO at FETCH_HEAD hangs the host's fetch
mkdir -p "$WORK/repo8" && git init -q "$WORK/repo8" &&
	git -C "$WORK/repo8" -c user.email=a@b -c user.name=a commit -q --allow-empty -m init
echo "# rc" > "$WORK/outside/rc"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo8" "$WORK/outside/rc"
OUT=$(cd "$WORK/repo8" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'rm -f .git/logs/HEAD; ln -s "$1" .git/logs/HEAD; ln -s "$1" .git/COMMIT_EDITMSG
	 mkfifo .git/FETCH_HEAD; mkdir -p .git/logs/refs/x; ln -s "$1" .git/logs/refs/x/y
	 p=.git/logs/refs/heads; for i in $(seq 70); do p=$p/d; done; mkdir -p $p && ln -s "$1" $p/l' \
	x "$WORK/outside/rc" 2>&1)
git -C "$WORK/repo8" -c safe.directory='*' -c user.email=a@b -c user.name=a commit -q --allow-empty \
	-m '$(touch x)' 2>/dev/null
[ "$(cat "$WORK/outside/rc")" = "# rc" ] && [ ! -L "$WORK/repo8/.git/logs/HEAD" ] &&
	[ ! -e "$WORK/repo8/.git/FETCH_HEAD" ] && [ -z "$(find "$WORK/repo8/.git" -type l)" ] &&
	ok gitdir-links || bad gitdir-links "a link or FIFO made in .git kept, or the file outside written"
# the walk skipped every objects/XX and objects/pack, at any depth: the
# reflog of a branch objects/ab (logs/refs/heads/objects/ab) led outside,
# and a link objects/cd took the next host commit's objects there
mkdir -p "$WORK/repo9" && git init -q "$WORK/repo9" &&
	git -C "$WORK/repo9" -c user.email=a@b -c user.name=a commit -q --allow-empty -m init
echo "# rc" > "$WORK/outside/rc"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo9" "$WORK/outside/rc"
OUT=$(cd "$WORK/repo9" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'git checkout -q -b objects/ab && l=.git/logs/refs/heads/objects; rm -f $l/ab
	 ln -s "$1" $l/ab; mkdir $l/pack; ln -s "$1" $l/pack/x
	 for x in cd ce cf d0 d1 d2 d3 d4; do  # a fan-out name no object has taken yet
		[ -e .git/objects/$x ] || { ln -s "${1%/*}" .git/objects/$x; break; }; done' \
	x "$WORK/outside/rc" 2>&1)
git -C "$WORK/repo9" -c safe.directory='*' -c user.email=a@b -c user.name=a commit -q --allow-empty \
	-m '$(touch x)' 2>/dev/null
[ "$(cat "$WORK/outside/rc")" = "# rc" ] && [ -z "$(find "$WORK/repo9/.git" -type l)" ] &&
	ok gitdir-links-objects || bad gitdir-links-objects "a link named like objects/XX kept, or the file outside written"
# husky points core.hooksPath at .husky/_, which it git-ignores: a hook
# planted there ran on the host's next commit, and no diff showed it
mkdir -p "$WORK/repo10/.husky/_" && git init -q "$WORK/repo10" && git -C "$WORK/repo10" config core.hooksPath .husky/_
mkdir -p "$WORK/repo11" && git init -q "$WORK/repo11" && git -C "$WORK/repo11" config core.hooksPath .husky/_
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo10" "$WORK/repo11"
for r in repo10 repo11; do
	OUT=$(cd "$WORK/$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
		'mkdir -p .husky/_; printf "#!/bin/sh\ntouch x\n" > .husky/_/pre-commit; chmod +x .husky/_/pre-commit
		 mv .husky .h2 2>/dev/null && mv .h2 .husky; echo ok > .husky/pre-commit' 2>&1)
	[ ! -e "$WORK/$r/.husky/_/pre-commit" ] && [ -e "$WORK/$r/.husky/pre-commit" ] &&
		ok "husky-hooks-$r" || bad "husky-hooks-$r" "a hook planted in .husky/_"
done
# any core.hooksPath in the workdir (.githooks, tools/hooks) is kept as
# .git/hooks is: a hook written, swapped in by a link or under a renamed
# parent ran on the host's next commit; and one spelled with a ".."
# (tools/../.githooks), set in config.worktree, or in a .git/config that
# is a link, was not kept at all
i=0
for setup in 'mkdir .githooks; git config core.hooksPath .githooks' \
	'git config core.hooksPath "$PWD/.githooks"' \
	'mkdir -p tools/hooks; ln -s tools/hooks .githooks; git config core.hooksPath .githooks' \
	'mkdir -p tools/hooks; git config core.hooksPath tools/hooks' \
	'mkdir .githooks; git config core.hooksPath .githooks' \
	'mkdir -p tools .githooks; git config core.hooksPath tools/../.githooks' \
	'mkdir .githooks; git config extensions.worktreeConfig true; git config --worktree core.hooksPath .githooks' \
	'mkdir .githooks; git config core.hooksPath .githooks; mv .git/config .git/c; ln -s c .git/config'; do
	i=$((i + 1))
	r="$WORK/repo12-$i"
	sep= # the last one's git directory is inside the workdir, named by its .git file
	[ $i -eq 5 ] && sep=--separate-git-dir="$r/.repo"
	mkdir -p "$r" && (cd "$r" && git init -q $sep . && sh -c "$setup")
	[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
	OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
		'mkdir evil && printf "#!/bin/sh\ntouch x\n" > evil/pre-commit && chmod +x evil/pre-commit
		 mkdir -p .githooks; cp evil/pre-commit .githooks/; ln -sfn evil .githooks 2>/dev/null
		 mv tools t2 2>/dev/null; mkdir -p tools; cp -r evil tools/hooks' 2>&1)
	git -C "$r" -c safe.directory='*' -c user.email=a@b -c user.name=a commit -q --allow-empty -m x 2>/dev/null
	[ ! -e "$r/x" ] && ok "hooks-path-$i" || bad "hooks-path-$i" "a hook planted where core.hooksPath points ran"
done
# a .git file naming a git directory inside the workdir (git init
# --separate-git-dir=.repo): its hooks and config were ordinary files
i=0
for atk in 'h=.repo/hooks' 'mv .repo .r2 && cp -r .r2 .repo; h=.repo/hooks' \
	'h=.repo/hooks; printf "[core]\n\tfsmonitor = touch x\n" >> .repo/config'; do
	i=$((i + 1))
	r="$WORK/repo13-$i"
	mkdir -p "$r" && (cd "$r" && git init -q --separate-git-dir="$r/.repo" .)
	[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
	OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
		"$atk"'; mkdir -p $h; printf "#!/bin/sh\ntouch x\n" > $h/pre-commit; chmod +x $h/pre-commit' 2>&1)
	git -C "$r" -c safe.directory='*' -c user.email=a@b -c user.name=a commit -q --allow-empty -m x 2>/dev/null
	git -C "$r" -c safe.directory='*' status >/dev/null 2>&1
	[ ! -e "$r/x" ] && ok "gitdir-inside-$i" || bad "gitdir-inside-$i" "a hook or config planted in a git directory inside the workdir ran"
done
# a repository nested in the workdir: the host's `git add -A` makes it a
# gitlink, and every outer `git status` after runs `git status` in it, its
# core.fsmonitor with it; a commit there runs its hooks, and appends its
# reflog through a link. Made by the run, made through a .git file, one
# that was there changed in place, or swapped for a copy under its name;
# and one made beside a path too long to open, which stopped the search;
# and one whose .git file leads into the outer .git (a new directory
# there, or .git/worktrees made by the run), which nothing checked; or
# the workdir itself (`gitdir: ..`: its top's config, hooks and logs,
# plain project files, were the nested repository's).
i=0
C='git -c user.email=a@b -c user.name=a'
for atk in "git init -q sub && $C -C sub commit -q --allow-empty -m s" \
	"git init -q --separate-git-dir=.evil sub && $C -C sub commit -q --allow-empty -m s" \
	'true' \
	'mv sub s0 && mkdir sub && cp -a s0/.git sub/' \
	'mv sub/.git/config sub/.git/c0; cp sub/.git/c0 sub/.git/config' \
	"git init -q sub && $C -C sub commit -q --allow-empty -m s && python3 -c '
import os
for i in range(30): os.mkdir(\"x\" * 200); os.chdir(\"x\" * 200)'" \
	"git init -q --bare .git/evil && git config -f .git/evil/config core.bare false &&
	 mkdir sub && echo 'gitdir: ../.git/evil' > sub/.git && $C -C sub commit -q --allow-empty -m s" \
	"mkdir .git/worktrees && git init -q --bare .git/worktrees/evil &&
	 git config -f .git/worktrees/evil/config core.bare false && mkdir sub &&
	 echo 'gitdir: ../.git/worktrees/evil' > sub/.git && $C -C sub commit -q --allow-empty -m s" \
	"git init -q --bare /tmp/b && cp -r /tmp/b/HEAD /tmp/b/objects /tmp/b/refs . && mkdir sub &&
	 echo 'gitdir: ..' > sub/.git && $C -C sub commit -q --allow-empty -m s"; do
	i=$((i + 1))
	r="$WORK/repo14-$i" M="$WORK/outside/nested-$i"
	mkdir -p "$r" && git init -q "$r" && $C -C "$r" commit -q --allow-empty -m init
	if [ $i -ge 3 ] && [ $i -le 5 ]; then # a nested repository there before, a gitlink
		git init -q "$r/sub" && $C -C "$r/sub" commit -q --allow-empty -m s &&
			git -C "$r" add sub 2>/dev/null && $C -C "$r" commit -q -m sub
	fi
	echo "# rc" > "$M.rc"
	[ "$AS" = nobody ] && chown -R 65534:65534 "$r" "$M.rc"
	OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
		"$atk"'; g=$(git -C sub rev-parse --git-dir)
		 git -C sub config core.fsmonitor "touch $1"; printf "[core]\n\tfsmonitor = touch $1\n" >> $g/config
		 printf "#!/bin/sh\ntouch $1\n" > $g/hooks/pre-commit; chmod +x $g/hooks/pre-commit
		 rm -f $g/logs/HEAD; ln -s "$1.rc" $g/logs/HEAD' x "$M" 2>&1)
	G="$C -c safe.directory=*"
	$G -C "$r" add -A 2>/dev/null; $G -C "$r" status >/dev/null 2>&1
	$G -C "$r/sub" commit -q --allow-empty -m '$(touch x)' 2>/dev/null
	[ ! -e "$M" ] && [ "$(cat "$M.rc")" = "# rc" ] && ok "nested-repo-$i" ||
		bad "nested-repo-$i" "a nested repository's config, hook or reflog link ran or wrote on the host"
done
# a file the repository config includes from the workdir (include.path =
# ../.gitconfig, a shared-config habit): the host's next `git status` reads
# it, and ran the core.fsmonitor a run wrote there, or made there when it
# did not exist yet (through a link too), and the hooks of a core.hooksPath
# set there (libgit2 was not even asked: the config had an include)
i=0
for atk in 'printf "[core]\n\tfsmonitor = touch $1\n" >> .gitconfig-project; mv .gitconfig-project x' \
	'mkdir -p cfg; printf "[core]\n\tfsmonitor = touch $1\n" > cfg/branch.inc' \
	'mkdir .evil; ln -s .evil cfg; printf "[core]\n\tfsmonitor = touch $1\n" > .evil/branch.inc' \
	'printf "[core]\n\tfsmonitor = touch $1\n" > .git/config.local' \
	'mkdir -p .githooks; printf "#!/bin/sh\ntouch $1\n" > .githooks/pre-commit; chmod +x .githooks/pre-commit'; do
	i=$((i + 1))
	r="$WORK/repo16-$i" M="$WORK/outside/include-$i"
	mkdir -p "$r" && git init -q "$r" && git -C "$r" config include.path ../.gitconfig-project &&
		git -C "$r" config --add include.path config.local &&
		git -C "$r" config includeIf.onbranch:master.path ../cfg/branch.inc &&
		git -C "$r" config --add includeIf.onbranch:main.path ../cfg/branch.inc &&
		printf '[alias]\n\tst = status\n[core]\n\thooksPath = .githooks\n' > "$r/.gitconfig-project"
	[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
	OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c "$atk" x "$M" 2>&1)
	$C -c safe.directory='*' -C "$r" status >/dev/null 2>&1
	$C -c safe.directory='*' -C "$r" commit -q --allow-empty -m x >/dev/null 2>&1
	[ ! -e "$M" ] && grep -q 'st = status' "$r/.gitconfig-project" && ok "config-include-$i" ||
		bad "config-include-$i" "a file the repository config includes ran a command, or the user's was lost"
done
# an interactive rebase the run stopped (break) with exec lines in its
# todo: they ran on the host at the user's `git rebase --continue`. They
# go; the picks stay, and a todo of the user's own, unchanged, is kept
r="$WORK/repo17" M="$WORK/outside/rebase"
mkdir -p "$r" && git init -q "$r" && for f in 1 2 3; do
	echo $f > "$r/f$f" && git -C "$r" add f$f && $C -C "$r" commit -qm c$f; done
[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'GIT_SEQUENCE_EDITOR="sed -i \"1i break\nx touch $1\n  exec\ttouch $1\"" \
	 git -c user.email=a@b -c user.name=a rebase -q -i HEAD~2' x "$M" 2>&1)
$C -c safe.directory='*' -C "$r" rebase --continue >/dev/null 2>&1
[ ! -e "$M" ] && [ "$(git -c safe.directory='*' -C "$r" log --format=%s | head -2 | tr '\n' ' ')" = "c3 c2 " ] &&
	ok rebase-exec-lines || bad rebase-exec-lines "an exec line the run left in a rebase todo ran on the host"
GIT_SEQUENCE_EDITOR="sed -i '1i break\nx true'" $C -c safe.directory='*' -C "$r" rebase -q -i HEAD~2 2>/dev/null
OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- true 2>&1)
grep -Eq '^(x|exec) true' "$r/.git/rebase-merge/git-rebase-todo" && ok rebase-user-todo ||
	bad rebase-user-todo "the exec line of the user's own rebase went"
# an airlock killed during the run (SIGKILL, the OOM killer) never swept:
# what the run planted stayed, and the next run's note took it for the
# user's. The next guarded run now sweeps from the killed one's start on.
r="$WORK/repo15" M="$WORK/outside/killed"
mkdir -p "$r" && git init -q "$r" && $C -C "$r" commit -q --allow-empty -m init
[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" setsid $RUN "$AIRLOCK" exec -- sh -c \
	'mkdir .airlock; echo "[tiers]" > .airlock/policy; ln -s "$1" .git/logs/HEAD2
	 git init -q sub; git -C sub config core.fsmonitor "touch $1"; touch planted; sleep 60' \
	x "$M" > /dev/null 2>&1 &)
for _ in $(seq 100); do [ -e "$r/planted" ] && break; sleep 0.1; done
# by this suite's own outside path: the root and nobody suites run side by
# side (tests/e2e/20-sandbox.sh), and a pattern both match killed the
# other's airlock before it planted anything
pkill -9 -f "exec -- sh -c mkdir \\.airlock.* x $M\$" 2>/dev/null
sleep 0.3
OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- true 2>&1)
[ -e "$r/planted" ] && [ ! -e "$r/.airlock" ] && [ ! -L "$r/.git/logs/HEAD2" ] &&
	! grep -q fsmonitor "$r/sub/.git/config" 2>/dev/null &&
	printf '%s' "$OUT" | grep -q 'left in the workdir by an earlier sandboxed run whose airlock was killed' &&
	ok killed-run-swept || bad killed-run-swept "what a run whose airlock was killed planted stayed"
# a nested repository the search does not pass, that the run adds to the
# outer index as a gitlink itself (`git add -f`): in a skipped tree
# (node_modules), or below a directory the caller can enter but not list
# (chmod 0111: only the identity nobody cannot). The host's git enters a
# gitlink wherever it lies, and its core.fsmonitor ran.
i=0
for p in node_modules/x hide/x; do
	i=$((i + 1))
	r="$WORK/repo15-$i" M="$WORK/outside/gitlink-$i"
	mkdir -p "$r" && git init -q "$r" && $C -C "$r" commit -q --allow-empty -m init
	[ "$AS" = nobody ] && chown -R 65534:65534 "$r"
	OUT=$(cd "$r" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
		"git init -q $p && $C -C $p commit -q --allow-empty -m s && git add -f $p 2>/dev/null &&
		 git -C $p config core.fsmonitor \"touch \$1\"; [ $i = 1 ] || chmod 0111 hide" x "$M" 2>&1)
	$G -C "$r" status >/dev/null 2>&1
	[ ! -e "$M" ] && ok "gitlink-unsearched-$i" ||
		bad "gitlink-unsearched-$i" "a gitlink the search did not pass ran its config on the host"
done
# in a linked worktree the main repository's .git is writable (a commit
# writes objects and refs there), with its hooks and config kept as the
# workdir's own are, the worktree's commondir and link back read-only, and
# what the run makes there swept
mkdir -p "$WORK/repo7" && git init -q "$WORK/repo7" &&
	git -C "$WORK/repo7" -c user.email=a@b -c user.name=a commit -q --allow-empty -m init &&
	git -C "$WORK/repo7" worktree add -q "$WORK/wt7" 2>/dev/null
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo7" "$WORK/wt7"
C7="$WORK/repo7/.git" G7="$WORK/repo7/.git/worktrees/wt7"
CONF7=$(md5sum < "$C7/config") BACK7=$(cat "$G7/gitdir")
OUT=$(cd "$WORK/wt7" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- sh -c \
	'C=$1 G=$2
	 printf "#!/bin/sh\ntouch x\n" > $C/hooks/pre-commit; chmod +x $C/hooks/pre-commit
	 printf "[core]\n\tfsmonitor = touch x\n" >> $C/config; mv $C/hooks $C/h2
	 printf "[core]\n\tfsmonitor = touch x\n" | tee $C/config.worktree $G/config.worktree
	 echo /elsewhere > $C/commondir; echo /elsewhere > $G/commondir; echo /x/.git > $G/gitdir
	 mkdir -p $C/worktrees/new; mv $G $C/worktrees/moved; ln -sf /x $G/logs/HEAD' x "$C7" "$G7" 2>&1)
[ ! -e "$C7/hooks/pre-commit" ] && [ "$(md5sum < "$C7/config")" = "$CONF7" ] && [ ! -e "$C7/h2" ] &&
	[ ! -e "$C7/config.worktree" ] && [ ! -e "$G7/config.worktree" ] && [ ! -e "$C7/commondir" ] &&
	[ "$(cat "$G7/commondir")" = ../.. ] && [ "$(cat "$G7/gitdir")" = "$BACK7" ] &&
	[ ! -e "$C7/worktrees/new" ] && [ ! -L "$G7/logs/HEAD" ] &&
	ok linked-worktree-guard || bad linked-worktree-guard "a hook, config, commondir or link planted in the main repository"
# the sweep reads a config the run made: an include there must not be
# followed (to a FIFO the run left, the sweep hung, and the gate with it)
mkdir -p "$WORK/repo5" && [ "$AS" = nobody ] && chown 65534:65534 "$WORK/repo5"
OUT=$(cd "$WORK/repo5" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" timeout 20 $RUN "$AIRLOCK" exec -- sh -c \
	'git init -q . && mkfifo fifo && printf "[include]\n\tpath = ../fifo\n" > .git/config' 2>&1)
rc=$?
[ $rc -eq 0 ] && [ ! -e "$WORK/repo5/.git/config" ] && ok config-include-not-followed ||
	bad config-include-not-followed "rc=$rc (124: the sweep hung), or the config with an include kept"
# a protected path that is a link is protected where it leads; one that
# leads nowhere cannot be, and nothing runs
mkdir -p "$WORK/repo4/.git" "$WORK/repo4/tools/hooks" && ln -s "$WORK/repo4/tools/hooks" "$WORK/repo4/.git/hooks"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/repo4"
OUT=$(cd "$WORK/repo4" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- \
	sh -c 'echo x > .git/hooks/pre-commit' 2>&1)
[ ! -e "$WORK/repo4/tools/hooks/pre-commit" ] && ok linked-hooks || bad linked-hooks "hook planted through the link"
rmdir "$WORK/repo4/tools/hooks"
OUT=$(cd "$WORK/repo4" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec -- \
	sh -c 'mkdir -p tools/hooks && echo x > .git/hooks/pre-commit' 2>&1)
[ $? -eq 125 ] && [ ! -e "$WORK/repo4/tools/hooks/pre-commit" ] && ok dangling-hooks-link ||
	bad dangling-hooks-link "ran, or the hook was planted"
# workdirs that would expose the system or a home: refused before anything runs
OUT=$(cd "$WORK/wd" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec --workdir /etc -- cat shadow 2>&1)
case "$OUT" in *"system directory"*) ok workdir-etc ;; *) bad workdir-etc "not refused" ;; esac
# shared scratch directories hold other programs' live sockets (a tmux
# server there runs whatever a readonly call sends it) and shared memory
for d in /tmp /var/tmp /dev/shm; do
	[ -d "$d" ] || continue
	OUT=$(cd "$WORK/wd" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" exec --profile readonly \
		--workdir "$d" -- sh -c 'echo RAN-IN-SHARED' 2>&1)
	case "$OUT" in *RAN-IN-SHARED*) bad "workdir-shared-$d" "ran" ;; *"shared scratch"*) ok "workdir-shared-$d" ;;
	*) bad "workdir-shared-$d" "not refused as shared" ;; esac
done
ln -s "$WORK/home" "$WORK/homelink"
OUT=$(cd "$WORK/wd" && env -i PATH=/usr/bin:/bin HOME="$WORK/homelink" $RUN "$AIRLOCK" exec --workdir "$WORK/home" -- cat .ssh/id_rsa 2>&1)
case "$OUT" in *MARKER*) bad workdir-home-link "home secrets visible" ;; *"contains the home"*) ok workdir-home-link ;;
*) bad workdir-home-link "not refused" ;; esac
if [ -d /etc/ssl/private ]; then
	OUT=$(ax -- sh -c "grep -q ' /etc/ssl/private ' /proc/self/mountinfo && ls -A /etc/ssl/private | wc -l" 2>&1)
	[ "$OUT" = 0 ] && ok ssl-private-hidden || bad ssl-private-hidden "not covered"
fi
OUT=$(ax --profile readonly -- ./probe write ro.txt 2>&1)
[ ! -e "$WORK/wd/ro.txt" ] && ok readonly-workdir || bad readonly-workdir "file written"
OUT=$(ax -- ./probe write made.txt 2>&1)
[ -f "$WORK/wd/made.txt" ] && ok workspace-writes-land || bad workspace-writes-land "control: write lost"
# a call makes a .env where none was (nothing to mask) and a hard link to
# it; the user fills .env in later, in place: no later call reads the link
mkdir -p "$WORK/hl"
[ "$AS" = nobody ] && chown 65534:65534 "$WORK/hl"
OUT=$(ax --workdir "$WORK/hl" -- sh -c "cd '$WORK/hl' && printf 'K=\n' >.env && ln .env keep.txt" 2>&1)
printf 'K=HARDLINK-MARKER\n' >"$WORK/hl.new" && cat "$WORK/hl.new" >"$WORK/hl/.env"
OUT=$(ax --workdir "$WORK/hl" --profile readonly -- cat "$WORK/hl/keep.txt" 2>&1)
case "$OUT" in *MARKER*) bad secret-hard-link "read through the link" ;;
*"another hard link"*) ok secret-hard-link ;; *) bad secret-hard-link "not refused" ;; esac
OUT=$(ax -- sh -c 'touch /usr/airlock-x /etc/airlock-x; echo x > /proc/sysrq-trigger' 2>&1)
[ ! -e /usr/airlock-x ] && [ ! -e /etc/airlock-x ] && ok system-dirs-readonly || bad system-dirs-readonly "written"
V=$(cat /proc/sys/vm/overcommit_memory)
OUT=$(ax -- sh -c "echo $V > /proc/sys/vm/overcommit_memory && echo WROTE" 2>&1)
case "$OUT" in *WROTE*) bad proc-sys-readonly "sysctl written" ;; *) ok proc-sys-readonly ;; esac
# the device nodes are the host's own inodes: a root caller owns them, so
# a writable bind would let the command chmod (or touch) /dev/full for the
# whole machine; writing to a device must still work
DEVWAS=$(stat -c '%a %Y' /dev/full)
OUT=$(ax --profile readonly -- sh -c 'chmod 600 /dev/full; touch -d 2001-01-01 /dev/full; echo x > /dev/null && echo WROTE' 2>&1)
DEVNOW=$(stat -c '%a %Y' /dev/full)
[ "$DEVNOW" = "$DEVWAS" ] && case "$OUT" in *WROTE*) true ;; *) false ;; esac &&
	ok host-dev-nodes-unchanged || bad host-dev-nodes-unchanged "host /dev/full was $DEVWAS, now $DEVNOW"
if [ "$AS" = root ] && [ "$DEVNOW" != "$DEVWAS" ]; then # undo what an old airlock let through
	chmod "${DEVWAS% *}" /dev/full && touch -d "@${DEVWAS#* }" /dev/full
fi
OUT=$(ax -- ./probe mknod dev0 2>&1)
[ ! -e "$WORK/wd/dev0" ] && ok mknod-device || bad mknod-device "node made"
OUT=$(ax -- sh -c 'ls /sys/fs/cgroup /run /var/run /root/.ssh 2>/dev/null | head -3' 2>&1)
[ -z "$OUT" ] && ok sys-run-invisible || bad sys-run-invisible "visible"

# ---- environment and processes ----
OUT=$(ax -- env 2>&1)
case "$OUT" in *MARKER*) bad secret-env-invisible "secret in env" ;; *) ok secret-env-invisible ;; esac
sleep 300 &
HPID=$!
PIDS="$PIDS $HPID"
OUT=$(ax -- sh -c "ls /proc | grep -c '^[0-9]'; test -d /proc/$HPID && echo SEEN" 2>&1)
case "$OUT" in *SEEN*) bad host-pids-invisible "host pid seen" ;; *) [ "$(echo "$OUT" | head -1)" -le 4 ] && ok host-pids-invisible || bad host-pids-invisible "many pids" ;; esac
OUT=$(ax -- ./probe kill "$HPID" 2>&1)
kill -0 "$HPID" 2>/dev/null && ok kill-host-process || bad kill-host-process "host process died"
blocked ptrace ptrace
blocked process-vm-readv vmread
OUT=$(ax -- ./suidprobe status 2>&1)
case "$OUT" in *"CapEff:	0000000000000000"*"NoNewPrivs:	1"*) ok setuid-gains-nothing ;; *) bad setuid-gains-nothing "caps or no NNP" ;; esac
case "$OUT" in *"euid 0"*) [ "$AS" = root ] || bad setuid-euid "euid became 0" ;; esac

# ---- network ----
PORT=$((20000 + $$ % 20000))
python3 -c "
import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$PORT)); s.listen(5); s.settimeout(60)
c,_=s.accept(); open('$WORK/tcp-hit','w').write('hit')" 2>/dev/null &
PIDS="$PIDS $!"
python3 -c "
import socket
s=socket.socket(socket.AF_UNIX); s.bind('\0airlock-test-$$'); s.listen(5); s.settimeout(60)
c,_=s.accept(); open('$WORK/unix-hit','w').write('hit')" 2>/dev/null &
PIDS="$PIDS $!"
sleep 0.3
blocked connect-host-tcp connect "$PORT" && [ ! -e "$WORK/tcp-hit" ] || bad connect-host-tcp-hostcheck "server saw a connection"
blocked abstract-unix-host abstract "airlock-test-$$" && [ ! -e "$WORK/unix-hit" ] || bad abstract-unix-hostcheck "listener saw a connection"
# with the network the sandbox shares the host's network namespace, and so
# its abstract sockets (an X server's @/tmp/.X11-unix/X0: keystrokes into
# the desktop); Landlock's scope (Linux 6.12, ABI 6) refuses those made
# outside the sandbox, and its own still work
if [ "$("$WORK/probe" llabi)" -ge 6 ]; then
	python3 -c "
import socket
s=socket.socket(socket.AF_UNIX); s.bind('\0airlock-test-net-$$'); s.listen(5); s.settimeout(60)
c,_=s.accept(); open('$WORK/unix-net-hit','w').write('hit')" 2>/dev/null &
	PIDS="$PIDS $!"
	sleep 0.3
	blocked_net abstract-unix-host-with-network abstract "airlock-test-net-$$"
	[ ! -e "$WORK/unix-net-hit" ] || bad abstract-unix-host-with-networkcheck "listener saw a connection"
	OUT=$(ax --network -- python3 -c "
import socket
a=socket.socket(socket.AF_UNIX); a.bind('\0own-$$'); a.listen(1)
c=socket.socket(socket.AF_UNIX); c.connect('\0own-$$'); print('own-ok')" 2>&1)
	case "$OUT" in own-ok) ok abstract-unix-own-with-network ;; *) bad abstract-unix-own-with-network "control: its own socket refused" ;; esac
fi
# a kernel file system mounted in the workdir (a chroot being built, with
# its proc): the recursive bind would show the host's processes and their
# command lines; it is covered by an empty tmpfs
if [ "$(id -u)" = 0 ] && mkdir -p "$WORK/wd/chroot/proc" &&
	mount -t proc proc "$WORK/wd/chroot/proc" 2>/dev/null; then
	OUT=$(ax -- sh -c 'ls chroot/proc | wc -l; cat chroot/proc/1/cmdline' 2>&1)
	umount "$WORK/wd/chroot/proc"
	case "$OUT" in 0*) ok workdir-host-proc-hidden ;; *) bad workdir-host-proc-hidden "host /proc listed" ;; esac
fi
rm -rf "$WORK/wd/chroot"
# a host service listening on a socket file, or reading a FIFO, in the
# workdir: the same inode inside, so the sandbox would reach it without any
# network; masked unless the profile has the network
mkdir -p "$WORK/wd/run"
python3 -c "
import socket, os
s=socket.socket(socket.AF_UNIX); s.bind('$WORK/wd/run/db.sock'); os.chmod('$WORK/wd/run/db.sock', 0o777)
s.listen(5); s.settimeout(60)
c,_=s.accept(); open('$WORK/path-hit','w').write('hit')" 2>/dev/null &
PIDS="$PIDS $!"
mkfifo -m 666 "$WORK/wd/run/cmd.fifo"
python3 -c "
import os
fd=os.open('$WORK/wd/run/cmd.fifo', os.O_RDONLY)
if os.read(fd, 100): open('$WORK/fifo-hit','w').write('hit')" 2>/dev/null &
PIDS="$PIDS $!"
i=0; while [ ! -S "$WORK/wd/run/db.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
blocked workdir-unix-socket-host unixpath run/db.sock && [ ! -e "$WORK/path-hit" ] ||
	bad workdir-unix-socket-hostcheck "listener saw a connection"
OUT=$(ax -- sh -c 'echo run > run/cmd.fifo' 2>&1)
sleep 0.2
[ ! -e "$WORK/fifo-hit" ] && ok workdir-fifo-host || bad workdir-fifo-host "the host reader got a line"
OUT=$(ax --network -- ./probe unixpath run/db.sock 2>&1)
case "$OUT" in *ESCAPED*) ok workdir-unix-socket-with-network ;; *) bad workdir-unix-socket-with-network "control: --network should reach it" ;; esac
rm -rf "$WORK/wd/run"
# the same in a directory a profile grants read-only (home = ~/.ssh): a
# read-only bind refuses no connect(), and ssh keeps its ControlMaster
# sockets there (a shell on each host it has open), gpg-agent in ~/.gnupg
python3 -c "
import socket, os
s=socket.socket(socket.AF_UNIX); s.bind('$WORK/home/.ssh/cm-git@host:22'); os.chmod('$WORK/home/.ssh/cm-git@host:22', 0o777)
s.listen(5); s.settimeout(60)
c,_=s.accept(); open('$WORK/grant-hit','w').write('hit')" 2>/dev/null &
PIDS="$PIDS $!"
printf '[profile "ssh"]\n\thome = ~/.ssh\n' >"$WORK/ssh.policy"
i=0; while [ ! -S "$WORK/home/.ssh/cm-git@host:22" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
OUT=$(ax --policy "$WORK/ssh.policy" --profile ssh -- ./probe unixpath "$WORK/home/.ssh/cm-git@host:22" 2>&1)
case "$OUT" in
*BLOCKED*) [ ! -e "$WORK/grant-hit" ] && ok granted-home-socket || bad granted-home-socket "listener saw a connection" ;;
*) bad granted-home-socket "connected" ;;
esac
rm -f "$WORK/home/.ssh/cm-git@host:22" "$WORK/ssh.policy"
blocked socket-inet socket 2
blocked socket-inet6 socket 10
blocked socket-netlink socket 16 3
blocked socket-packet socket 17 3
OUT=$(ax -- ./probe socket 1 2>&1)
case "$OUT" in *ESCAPED*) ok socket-unix-allowed ;; *) bad socket-unix-allowed "control: AF_UNIX refused" ;; esac
blocked_net socket-vsock-even-with-network socket 40
blocked_net socket-alg-even-with-network socket 38 5

# ---- kernel interfaces ----
blocked mount mount
blocked umount umount
blocked remount-rw remount /usr
blocked nested-userns userns
blocked clone-newuser clonens
blocked chroot chroot
blocked pivot-root pivot
blocked clone3-enosys clone3
case "$OUT" in *ENOSYS*) ;; *) bad clone3-is-enosys "not ENOSYS" ;; esac
blocked keyctl keyctl
blocked add-key addkey
blocked bpf bpf
blocked perf-event-open perf
blocked userfaultfd uffd
blocked io-uring-setup iouring
blocked tiocsti tiocsti
blocked personality personality
blocked open-by-handle handle
blocked finit-module module
blocked kexec-load kexec
blocked reboot reboot
blocked clock-settime clock
blocked swapon swapon
blocked iopl iopl
blocked setns-init-mnt setns
blocked init-proc-takeover initproc
# pid 1 shares airlock's memory until it execs init, and the command is
# already running: a race from its first instruction, ten times over
OUT=$(for i in 1 2 3 4 5 6 7 8 9 10; do ax -- ./probe initrace; done 2>&1)
case "$OUT" in *ESCAPED*) bad init-race "pid 1's memory opened before init's exec" ;;
*BLOCKED*) ok init-race ;; *) bad init-race "did not run" ;; esac
# a set-user-ID file made in a writable workdir would stay one on the host
if blocked suid-file suid made-suid && [ -n "$(find "$WORK/wd" -maxdepth 1 -name 'made-suid*' -perm /6000)" ]; then
	bad suid-file-on-host "a set-user-ID or set-group-ID file is on the host"
fi
# SIGSYS (128+31) from the filter; a kernel that cannot run int 0x80 at all
# (SIGSEGV outside the sandbox too) refuses it before the filter sees it.
"$WORK/probe" i386 >/dev/null 2>&1
host_i386=$?
for a in x32 i386; do
	OUT=$(ax -- ./probe $a 2>&1)
	rc=$?
	case "$OUT" in
	*ESCAPED*) bad "$a-syscall" "ran" ;;
	*) { [ $rc -eq 159 ] || { [ $a = i386 ] && [ $rc -eq $host_i386 ] && [ $rc -eq 139 ]; }; } &&
		ok "$a-syscall-killed" || bad "$a-syscall" "rc=$rc" ;;
	esac
done

# ---- limits ----
OUT=$(ax -- ./probe forkbomb 2>&1)
n=$(echo "$OUT" | sed -n 's/^forked //p')
[ -n "$n" ] && [ "$n" -le 300 ] && ok fork-bomb-capped || bad fork-bomb-capped "forked ${n:-?}"
OUT=$(ax -- ./probe membomb 2>&1)
rc=$?
[ $rc -ne 1 ] && ok memory-bomb-capped || bad memory-bomb-capped "allocated it all"
# the whole tree's memory: four processes of 96 MiB under a 256 MiB profile
# (each under its own address-space cap); needs a writable memory cgroup,
# which only a root caller has on cgroup v1 hosts (see docs/sandbox.md)
mkdir -p "$WORK/home/.config/airlock"
printf '[profile "tiny"]\n\tmemory = 256m\n\ttmp-size = 1g\n' > "$WORK/home/.config/airlock/policy"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/home/.config"
if [ -w /sys/fs/cgroup/memory/cgroup.procs ] && [ "$AS" = root ]; then
	OUT=$(ax --profile tiny -- ./probe treebomb 96 2>&1)
	case "$OUT" in "killed "[1-4]) ok memory-tree-capped ;; *) bad memory-tree-capped "not capped" ;; esac
	# tmpfs pages count too: 600 MiB into a 1 GiB /tmp under the same cap
	OUT=$(ax --profile tiny -- sh -c 'dd if=/dev/zero of=/tmp/x bs=1M count=600 2>/dev/null; stat -c %s /tmp/x' 2>&1)
	[ -n "$OUT" ] && [ "$OUT" -lt 300000000 ] 2>/dev/null && ok memory-tmpfs-capped ||
		bad memory-tmpfs-capped "wrote ${OUT:-?} bytes"
fi
# a core_pattern that pipes to a helper (apport, systemd-coredump) runs it
# as root on the host for each crash, whatever RLIMIT_CORE says, unless it
# is exactly 1; a call that lowers it to 0 must find it still 1
blocked core-limit-pinned core
# System V IPC outlives its process until the call's ipc namespace dies,
# and no rlimit counts it: with no memory cgroup (nobody here) a call held
# 1 GiB in segments it had unmapped, and more in semaphore sets and message
# queues, all growing until the host ran out. Small ones still work.
if [ -w /sys/fs/cgroup/memory/cgroup.procs ] && [ "$AS" = root ]; then :; else
	blocked sysv-ipc-uncapped sysvipc big
	OUT=$(ax -- ./probe sysvipc small 2>&1)
	[ "$OUT" = "segment made set made" ] && ok sysv-ipc-small-works || bad sysv-ipc-small-works "refused"
fi
# what the kernel counts per user across namespaces: inotify instances and
# pending signals held by a call were the host's to lack while it ran
ax -- ./probe ucounts 4 >"$WORK/ucounts.out" 2>&1 &
i=0 && while ! grep -q held "$WORK/ucounts.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
OUT=$($RUN "$WORK/probe" ucounts-host 2>&1)
wait $!
case "$OUT" in "inotify made signal queued") ok ucounts-host-keeps-its-share ;;
*) bad ucounts-host-keeps-its-share "$OUT ($(cat "$WORK/ucounts.out"))" ;; esac
OUT=$(ax -- sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=400 2>&1; echo rc=$?' 2>&1)
case "$OUT" in *"No space"*) ok fill-tmp-capped ;; *) bad fill-tmp-capped "tmp took 400M" ;; esac
# the workdir's own file system: RLIMIT_FSIZE caps each file, not how many,
# and a call wrote (or fallocated, now refused) until no byte was left
# there (in a 256 MiB tmpfs mounted in a mount namespace of the suite's own)
if command -v unshare >/dev/null; then
	mkdir -p "$WORK/small"
	OUT=$(unshare -m sh -c 'mount -t tmpfs -o size=256m,uid=$1 tmpfs "$2" && cd "$2" &&
		env -i PATH=/usr/bin:/bin HOME="$3" $4 "$5" exec -- sh -c "head -c 300000000 /dev/zero >big" \
		>/dev/null 2>&1; echo "$? $(df -k --output=avail . | tail -1)"' sh \
		"$([ "$AS" = nobody ] && echo 65534 || echo 0)" "$WORK/small" "$WORK/home" "$RUN" "$AIRLOCK" 2>&1)
	case "$OUT" in "137 "*) [ "${OUT#137 }" -gt 0 ] && ok fill-workdir-disk-floor ||
		bad fill-workdir-disk-floor "no room left" ;;
	*) bad fill-workdir-disk-floor "not stopped: $OUT" ;; esac
fi
t0=$(date +%s)
OUT=$(ax --timeout 1 -- sh -c 'while :; do :; done' 2>&1)
rc=$?
t1=$(date +%s)
[ $rc -eq 137 ] && [ $((t1 - t0)) -le 5 ] && ok cpu-spin-timeout || bad cpu-spin-timeout "rc=$rc in $((t1 - t0))s"
OUT=$(ax -- ./probe grandchild "$TAG" 2>&1)
sleep 0.2
pgrep -f "sleep $TAG" >/dev/null && bad grandchild-gone "still running" || ok grandchild-gone
# the gate's pool: a sandbox built ahead mounted its masks and read-only
# paths a while before its call; a host rename of one since (git config
# rewrites .git/config so, editors save .env so) detaches that mount in
# every namespace, and the call must not find the new file unprotected
# waitlines FILE N: until FILE has N lines (10 s at most)
waitlines() {
	i=0
	while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# every call of a long-running gate gets its sandbox, whoever runs it (one
# sandbox's setup made airlock's memory non-dumpable, and every later one
# then failed to map a user's uid)
OUT=$(cd "$WORK/wd" && printf '{"id":"%s","tool":"shell","input":{"command":"ls"}}\n' 1 2 3 4 |
	env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" gate --no-tty --db "$WORK/gate1.db" 2>&1)
[ "$(echo "$OUT" | grep -c '"decision":"auto","exit_code":0')" = 4 ] && ok gate-every-call-runs ||
	bad gate-every-call-runs "$(echo "$OUT" | grep -o '"error":"[^"]*"' | head -1)"
mkdir -p "$WORK/pool" && git init -q "$WORK/pool" && printf 'API_KEY=POOL-1\n' > "$WORK/pool/.env"
printf 'printf "[core]\\n\\tfsmonitor = touch x\\n" >> .git/config; cat .env\n' > "$WORK/pool/build.sh"
mkfifo "$WORK/gate.in"
[ "$AS" = nobody ] && chown -R 65534:65534 "$WORK/pool" "$WORK/gate.in"
(cd "$WORK/pool" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN "$AIRLOCK" gate --no-tty \
	--db "$WORK/gate.db" < "$WORK/gate.in" > "$WORK/gate.out" 2>&1) &
exec 7> "$WORK/gate.in"
printf '{"id":"1","tool":"shell","input":{"command":"sh build.sh"}}\n' >&7
waitlines "$WORK/gate.out" 1
sleep 1 # the pool builds the next sandbox meanwhile
(cd "$WORK/pool" && env -i PATH=/usr/bin:/bin HOME="$WORK/home" $RUN sh -c \
	'git config user.name someone && printf "API_KEY=POOL-2\n" > .env.new && mv .env.new .env')
printf '{"id":"2","tool":"shell","input":{"command":"sh build.sh"}}\n' >&7
waitlines "$WORK/gate.out" 2
exec 7>&-
wait $!
OUT=$(cat "$WORK/gate.out")
if grep -q fsmonitor "$WORK/pool/.git/config"; then
	bad pool-detached-guard "fsmonitor planted in .git/config"
elif ! grep -q 'user.name\|name = someone' "$WORK/pool/.git/config"; then
	bad pool-detached-guard "control: the host's git config did not land"
else
	ok pool-detached-guard
fi
case "$OUT" in *POOL-2*) bad pool-detached-mask "the replaced .env was read" ;;
*'"id":"2"'*) ok pool-detached-mask ;; *) bad pool-detached-mask "no second result" ;; esac

# the gate's capture mode: needs libairlock.a ($BUILD), run as the identity
if [ -n "${BUILD:-}" ] && [ -f "$BUILD/libairlock.a" ]; then
	# a sanitized build's library (make check) links only with the sanitizers
	for san in "" "-fsanitize=address,undefined"; do
		# shellcheck disable=SC2046,SC2086
		cc -std=c11 -O1 $san -I"$SRC/../.." -D_GNU_SOURCE $(pkg-config --cflags jansson) \
			-o "$WORK/flood" "$SRC/flood.c" "$BUILD/libairlock.a" \
			$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm -lpthread \
			2>/dev/null && break
	done
	chmod 755 "$WORK/flood"
	for stream in "exec yes" "exec yes >&2"; do
		OUT=$(cd "$WORK/wd" && $RUN "$WORK/flood" "$stream" 2>&1)
		case "$OUT" in CAPPED*) ok "output-flood-capped ($stream)" ;; *) bad "output-flood-capped" "$stream" ;; esac
	done
fi
OUT=$(ax -- sh -c 'yes | head -c 100000000 | wc -c' 2>&1)
[ "$OUT" = 100000000 ] && ok output-streams || bad output-streams "control: pipe inside lost data"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
