#!/bin/sh
# 98-classifier-review7.sh: what a seventh hostile review of the classifier
# found, through the real binary in a real workdir: commands handed to a
# vim, emacs or daemon already running outside the sandbox (vim
# --remote-send, watchman trigger, pueue add, tsp, emacsclient -e), dc's
# `!`, ack's pager, an exported MAKEFLAGS --eval, archivers that delete
# what they pack, trees read whole by 7z, bsdtar and diff -r, git hooks
# and .envrc made to run in later shells (pre-commit install, direnv
# allow), git maintenance's schedule, output files of shuf and info,
# credential files under the home, wrappers (eatmydata, hyperfine),
# ruby -run, xdg-open, the session bus and make's CC; each low or medium
# before its fix.
# Nothing is executed: a canary file must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd/src"
: >"$d/wd/canary"
HOME="$d/home"
export HOME

# a server already running runs what it is handed, outside the sandbox
expect_eq "vim --remote-send ':!rm -rf ~<CR>': denied" \
	"$(shell_field "vim --servername X --remote-send ':!rm -rf ~<CR>'" .action)" deny
expect_eq "watchman trigger -- rm -rf ~: denied" \
	"$(shell_field "watchman -- trigger ~ t '*' -- rm -rf ~" .action)" deny
expect_eq "pueue add make test: asks" "$(shell_field 'pueue add make test' .action)" ask
expect_eq "tsp rm -rf ~: denied" "$(shell_field 'tsp rm -rf ~' .action)" deny
expect_eq "emacsclient -e shell-command: denied" \
	"$(shell_field "emacsclient -e '(shell-command \"rm -rf ~\")'" .action)" deny
expect_eq "xdg-open evil.desktop: asks" "$(shell_field 'xdg-open evil.desktop' .action)" ask
expect_eq "busctl --user call StartUnit: asks" \
	"$(shell_field 'busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StartUnit ss x.service replace' .action)" ask
expect_eq "make CC='rm -rf ~': denied" "$(shell_field "make CC='rm -rf ~'" .action)" deny

# wrappers and runners whose command was never read
expect_eq "eatmydata rm -rf ~: denied" "$(shell_field 'eatmydata rm -rf ~' .action)" deny
expect_eq "hyperfine --prepare 'rm -rf ~': denied" \
	"$(shell_field "hyperfine --prepare 'rm -rf ~' ls" .action)" deny
expect_eq "ruby -run -e rm_rf -- ~: denied" "$(shell_field 'ruby -run -e rm_rf -- ~' .action)" deny

# programs whose text runs shell commands
expect_eq "dc -e '!rm -rf ~': denied" "$(shell_field "dc -e '!rm -rf ~'" .action)" deny
expect_eq "ack --pager=CMD: denied" "$(shell_field "ack --pager='rm -rf ~' TODO" .action)" deny
expect_eq "exported MAKEFLAGS --eval: denied" \
	"$(shell_field "export MAKEFLAGS='--eval=\$(shell rm -rf ~)'; make" .action)" deny

# deletes, reads and writes the command line hid
expect_eq "tar --remove-files -cf /dev/null src: high" \
	"$(shell_field 'tar --remove-files -cf /dev/null src' .tier)" high
expect_eq "zip -rm x.zip ~: denied" "$(shell_field 'zip -rm x.zip ~' .action)" deny
expect_eq "7z a x.7z ~: high" "$(shell_field '7z a x.7z ~' .tier)" high
expect_eq "diff -rN ~ /tmp/empty: high" "$(shell_field 'diff -rN ~ /tmp/empty' .tier)" high
expect_eq "shuf -o ~/.bashrc: high" "$(shell_field 'shuf -o ~/.bashrc lines' .tier)" high
expect_eq "cat podman auth.json: high" \
	"$(shell_field 'cat ~/.config/containers/auth.json' .tier)" high

# code that runs later, outside any sandbox
expect_eq "pre-commit install: high" "$(shell_field 'pre-commit install' .tier)" high
expect_eq "direnv allow: high" "$(shell_field 'direnv allow' .tier)" high
expect_eq "git maintenance start: high" "$(shell_field 'git maintenance start' .tier)" high
expect_eq "pyenv global 3.12: high" "$(shell_field 'pyenv global 3.12' .tier)" high

# routine neighbours keep their tier
expect_eq "pre-commit run: medium" "$(shell_field 'pre-commit run --all-files' .tier)" medium
expect_eq "tar czf src.tgz src: medium" "$(shell_field 'tar czf src.tgz src' .tier)" medium
expect_eq "diff -r src other: low" "$(shell_field 'diff -r src other' .tier)" low
expect_eq "echo '2 3 + p' | dc: low" "$(shell_field "echo '2 3 + p' | dc" .tier)" low
expect_eq "ss -tlnp: low" "$(shell_field 'ss -tlnp' .tier)" low

check "classify runs nothing" test -f "$d/wd/canary"
finish
