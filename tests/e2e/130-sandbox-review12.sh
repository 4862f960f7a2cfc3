#!/bin/sh
# 130-sandbox-review12.sh: what the twelfth hostile review of the sandbox
# found, each failing before its fix: a workspace call that wrote the
# repository config of another version control system in the workdir
# (Mercurial's .hg/hgrc, whose [hooks] pre-status the user's next `hg
# status` ran on the host; Jujutsu's .jj/repo/config.toml and Sapling's
# .sl/config, whose aliases and pagers run the same way), made or
# changed in place, and a secondary Jujutsu workspace's .jj/repo file,
# rewritten through the writable bind that pinned it; docker compose's override files, merged into the
# project's compose file unasked and often git-ignored; and a FIFO left in place of the HEAD commit's loose
# object, or as a pack's index, in the workdir's repository or a nested
# one, which hung the host's next `git status` for good.
. tests/e2e/lib.sh
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME" "$d/wd"

# ---- other version control systems' repository configs ----
hook='[hooks]
pre-status = touch ../hg-ran
'
vcs='.hg/hgrc .hg/hgrc-not-shared .hg/sharedpath .jj/repo/config.toml .sl/config .git/sl/config'
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'for f in $1; do mkdir -p "${f%/*}"; printf "%s" "$2" >"$f"
done' sh "$vcs" "$hook" >/dev/null 2>&1)
for f in $vcs; do
	check "a $f the call made is removed" test ! -e "$d/wd/$f"
done
if command -v hg >/dev/null; then
	(cd "$d/wd" && hg status >/dev/null 2>&1)
	check "the host's hg status runs no hook the call planted" test ! -e "$d/hg-ran"
fi
rm -rf "$d/wd/.hg" "$d/wd/.jj" "$d/wd/.sl" "$d/wd/.git" && mkdir "$d/wd/.hg" "$d/wd/.jj"
printf '[ui]\nusername = u\n' >"$d/wd/.hg/hgrc"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'printf "%s" "$1" >>.hg/hgrc; mv .hg .hg2
mkdir .hg && printf "%s" "$1" >.hg/hgrc' sh "$hook" >/dev/null 2>&1)
expect_eq "an existing .hg/hgrc stays as it was" "$(cat "$d/wd/.hg/hgrc")" "$(printf '[ui]\nusername = u')"
check "and .hg cannot be swapped for one of the call's" test ! -e "$d/wd/.hg2"
rm -rf "$d/wd/.hg" "$d/wd/.jj"
# a secondary Jujutsu workspace's .jj/repo is a file naming the repository
# whose config the host's jj reads: a holder that is a file stays whole
mkdir "$d/wd/.jj" && printf '%s' "$d/main/.jj/repo" >"$d/wd/.jj/repo"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'mkdir -p evil && printf "%s" "$PWD/evil" >.jj/repo' \
	>/dev/null 2>&1)
expect_eq "an existing .jj/repo file stays as it was" "$(cat "$d/wd/.jj/repo")" "$d/main/.jj/repo"
rm -rf "$d/wd/.jj" "$d/wd/evil"

# ---- docker compose's override files, merged in unasked ----
printf 'services:\n  app:\n    image: alpine\n' >"$d/wd/compose.yaml"
cp "$d/wd/compose.yaml" "$d/wd/docker-compose.yml"
over='services:
  app:
    privileged: true
    volumes: ["/:/host"]
'
dc='compose.override.yaml compose.override.yml docker-compose.override.yaml docker-compose.override.yml'
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'for f in $1; do printf "%s" "$2" >"$f"; done' sh "$dc" "$over" \
	>/dev/null 2>&1)
for f in $dc; do
	check "a $f the call made is removed" test ! -e "$d/wd/$f"
done
printf 'services: {}\n' >"$d/wd/compose.override.yaml"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'printf "%s" "$1" >>compose.override.yaml' sh "$over" \
	>/dev/null 2>&1)
expect_eq "an existing compose.override.yaml stays as it was" "$(cat "$d/wd/compose.override.yaml")" \
	"services: {}"
rm -f "$d/wd/compose.yaml" "$d/wd/docker-compose.yml" "$d/wd/compose.override.yaml"

# ---- FIFOs in the loose-object fan-out and the packs ----
# git opens a loose object and a pack index by name: a FIFO there hangs the
# host's next git command for good
fifos='h=$(git rev-parse HEAD) && f=$(echo "$h" | cut -c1-2)/$(echo "$h" | cut -c3-)
rm -f ".git/objects/$f" && mkfifo ".git/objects/$f" && : >.git/objects/pack/p.pack &&
mkfifo .git/objects/pack/p.idx && ln -s /dev/zero .git/objects/pack/q.idx && echo made'
for r in "$d/wd" "$d/wd/sub"; do
	mkdir -p "$r" && (cd "$r" && git init -q && echo a >a && git add a &&
		git -c user.name=u -c user.email=u@x commit -qm a)
done
for r in wd wd/sub; do
	out=$(cd "$d/$r" && "$AIRLOCK" exec -- sh -c "$fifos" 2>/dev/null)
	expect_eq "the call in $r ran" "$out" made
	expect_eq "no FIFO or link is left in $r's objects" \
		"$(find "$d/$r/.git/objects" -type p -o -type l | wc -l | tr -d ' ')" 0
	(cd "$d/$r" && timeout 10 git status >/dev/null 2>&1)
	check "the host's git status in $r does not hang" test $? -ne 124
done

finish
