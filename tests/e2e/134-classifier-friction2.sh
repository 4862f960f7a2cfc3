#!/bin/sh
# 134-classifier-friction2.sh: a second friction review of the classifier,
# through the real binary in a real workdir, both directions. The same
# operation spelled two ways got two tiers on 2da832f: `[ -f .env ]` and
# `[ -n "$GITHUB_TOKEN" ]` asked (secrets.read) while `[[ ]]` auto-ran;
# `git -c sequence.editor=: rebase -i` asked (git.config_override) while
# GIT_SEQUENCE_EDITOR=: auto-ran; `rm -rf web/dist` asked while `cd web &&
# rm -rf dist` auto-ran; `find . -name .DS_Store -delete`, `PYTHONPATH=src
# pytest`, `NODE_OPTIONS=--max-old-space-size=4096 npm run build`, `make
# install DESTDIR=$PWD/stage`, `kubectl config current-context` and `helm
# version` asked. They auto-run now; an alias or a function named test, a
# run-time editor, other git keys, a dist without a manifest beside it or
# one that links home, a PYTHONPATH that leaves the workdir (by a link
# too), NODE_OPTIONS that load code and an install elsewhere still ask or
# are denied; `make V=1 install` and `make DESTDIR=/ install` auto-ran
# (exec.build) and ask now. `LESS='+!rm -rf ~'` before a git whose pager
# is less was low; it is critical now. Nothing is executed: the
# directories must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
export HOME="$d/home"
# web/ and lib/ are subprojects (a manifest each); lib/target leads home
mkdir -p "$HOME" "$d/wd/web/dist" "$d/wd/web/src" "$d/wd/src/build" "$d/wd/lib"
for f in web/package.json lib/Cargo.toml .env; do : >"$d/wd/$f"; done
ln -s "$HOME" "$d/wd/lib/target"
ln -s "$HOME" "$d/wd/vendored"
# field JQ CMD: a field of CMD's verdict, classified in the workdir
field() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --shell "$2") | jq -r "$1"; }
action() { field .action "$1"; }

# routine work runs without a person
for c in '[ -f .env ]' 'test -f .env && echo yes || echo no' \
	'if [ -e .env ]; then echo set; fi' '[ -n "$GITHUB_TOKEN" ] || echo unset' \
	'test -z "$OPENAI_API_KEY" && echo missing' \
	'git -c sequence.editor=: rebase -i --autosquash HEAD~3' \
	'git -c core.editor=true commit --amend' 'git -c core.pager=cat log -5' \
	'rm -rf web/dist' 'rm -r ./web/dist/' 'cd web && rm -rf dist' \
	'find . -name .DS_Store -delete' 'PYTHONPATH=src pytest -q' \
	'export PYTHONPATH="$PWD/src:$PYTHONPATH" && pytest' \
	'NODE_OPTIONS=--max-old-space-size=4096 npm run build' \
	'make install DESTDIR=$PWD/stage' 'meson install -C builddir --destdir $PWD/stage' \
	'kubectl config current-context' 'kubectl version --client' 'helm version'; do
	expect_eq "auto: $c" "$(action "$c")" auto
done
expect_eq "rm -rf web/dist: fs.delete.build_output" \
	"$(field '.rules | join(",")' 'rm -rf web/dist')" fs.delete.build_output
expect_eq "[ -f .env ]: low" "$(field .tier '[ -f .env ]')" low
expect_eq "git -c sequence.editor=: has no git.config_override" \
	"$(field '.rules | index("git.config_override")' 'git -c sequence.editor=: rebase -i HEAD~3')" \
	null

# its dangerous neighbours still ask, or are denied
expect_eq "git -c core.editor='rm -rf ~': critical" \
	"$(field .tier "git -c core.editor='rm -rf ~' commit")" critical
expect_eq "rm -rf lib/target/ (a link home): critical" "$(field .tier 'rm -rf lib/target/')" critical
expect_eq "LESS=+!rm -rf ~ before git log (its pager is less): critical" \
	"$(field .tier "LESS='+!rm -rf ~' git -c core.pager=less log")" critical
for c in '[ -f .env ] && cat .env' 'shopt -s expand_aliases; alias test=cat; test .env' \
	'test() { cat "$1"; }; test .env' 't=test; $t .env' '/usr/bin/test -f .env' \
	'alias test=echo; test "$GITHUB_TOKEN"' '[ -n "$GITHUB_TOKEN" ] && echo "$GITHUB_TOKEN"' \
	'git -c sequence.editor="$ED" rebase -i HEAD~2' 'git -c core.hooksPath=.h commit -m x' \
	"git -c alias.st='reset --hard' st" 'git -c core.fsmonitor=true status' \
	"git -c core.pager='less; rm -rf .' log" 'rm -rf src/build' 'rm -rf web/src' \
	'rm -rf web' 'rm -f web/package.json' 'rm -rf web/dist web/src' 'rm -rf web/dist/../src' \
	"find . -name '.DS_Store*' -delete" 'rm -f .DS_Store .env' \
	'PYTHONPATH=vendored pytest' 'PYTHONPATH=src:/tmp pytest' 'cd /tmp && PYTHONPATH=. pytest' \
	"NODE_OPTIONS='--require ./x.js' npm test" 'NODE_OPTIONS=--inspect=0.0.0.0:9229 npm start' \
	'make install DESTDIR=/tmp/x' 'make install DESTDIR=stage' 'make V=1 install' \
	'make DESTDIR=/ install' 'make install-strip' 'kubectl version' 'kubectl config view' \
	'kubectl --context prod config current-context' 'kubectl get pods'; do
	expect_eq "asks: $c" "$(action "$c")" ask
done

check "classify ran nothing: web/dist" test -d "$d/wd/web/dist"
check "classify ran nothing: home" test -d "$d/home"
check "classify ran nothing: .env" test -f "$d/wd/.env"
finish
