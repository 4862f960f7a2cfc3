#!/bin/sh
# 85-classifier-friction.sh: the classifier's friction on routine work,
# through the real binary in a real workdir, both directions. Deleting
# build outputs (rm -rf build, node_modules, *.o, find -name __pycache__
# -exec rm -rf) asked a person on 886c377; it auto-runs now, while a link
# named like a build output that leads home, an operand beside it, and
# files named at run time still ask or are denied. xargs sed -i, whose
# files its input names, auto-ran read-only at low; it asks now. Setting
# the commit author and terraform fmt asked; they auto-run now. git
# commits in a repository outside the workdir, npm link and yarn global
# add auto-ran; they ask now. Nothing
# is executed: the directories must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd/build" "$d/wd/node_modules" "$d/wd/src/build" "$d/wd/web/dist"
: >"$d/wd/src/main.c"
ln -s "$d/home" "$d/wd/out"
HOME="$d/home"
export HOME
classify() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" "$@"); }
action() { classify --shell "$1" | jq -r .action; }
tier() { classify --shell "$1" | jq -r .tier; }

# routine work runs without a person
for c in 'rm -rf build' 'rm -rf node_modules' 'rm -f build/main.o *.pyc' \
	'rm -rf build && mkdir build && cd build && cmake ..' 'cd web && rm -rf dist' \
	"find . -name __pycache__ -type d -exec rm -rf {} +" "find . -name '*.pyc' -delete" \
	"find src -name '*.c' -exec sed -i 's/a/b/' {} +" 'rustup target list --installed' \
	'git log --format="%h %s" -5' 'cargo test 2>&1 | tail -50' \
	'timeout 60 pytest -x -q || true' 'git config user.email agent@example.com' \
	'terraform fmt' 'rm -rf dist build *.egg-info' 'git config color.ui auto'; do
	expect_eq "auto: $c" "$(action "$c")" auto
done
expect_eq "rm -rf build: fs.delete.build_output" \
	"$(classify --shell 'rm -rf build' | jq -r '.rules | join(",")')" fs.delete.build_output

# its dangerous neighbours still ask, or are denied
expect_eq "rm -rf out/ (a link home): critical" "$(tier 'rm -rf out/')" critical
expect_eq "rm -rf build ~: critical" "$(tier 'rm -rf build ~')" critical
for c in 'rm -rf src/build' 'rm -rf build src' 'rm -f src/main.c' 'rm -rf ../build' \
	'rm -rf build/.*' 'rm -f .env' 'ls | xargs rm -rf' "find . -name build -exec rm -rf {} +" \
	"find -L . -name '*.o' -delete" 'rustup target add wasm32-unknown-unknown' \
	'go mod download' "grep -rl Old src | xargs sed -i 's/Old/New/'" \
	"cat files.txt | xargs perl -pi -e 's/a/b/'" 'git config --global user.name x' \
	'git config core.hooksPath .h' 'terraform plan' 'terraform fmt /etc' \
	'git -C /srv/other commit -am x' 'cd /srv && git stash' 'npm link' 'yarn global add x'; do
	expect_eq "asks: $c" "$(action "$c")" ask
done

check "classify ran nothing: build" test -d "$d/wd/build"
check "classify ran nothing: home" test -d "$d/home"
check "classify ran nothing: src" test -f "$d/wd/src/main.c"
finish
