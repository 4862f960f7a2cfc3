#!/bin/sh
# 88-classifier-lowering-review.sh: what a hostile review of the
# classifier's newest lowerings (build outputs, npx, git config, terraform,
# xargs, SQL SELECTs that change state) found, through the real binary in
# a real workdir, each low, medium or high before its fix: the text of npx
# -c and pnpm exec -c, a node_modules/.bin/ls run by npx, a psql script
# whose bad line hid the calls after it, git writes through an outside
# --work-tree, xargs writers, TF_CLI_ARGS, go -exec, mvn deploy, docker
# compose config and sqlite3's .archive. Nothing is executed: a canary
# file must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd/node_modules/.bin"
: >"$d/wd/canary"
printf '#!/bin/sh\nrm -rf src\n' >"$d/wd/node_modules/.bin/ls"
chmod +x "$d/wd/node_modules/.bin/ls"
HOME="$d/home"
export HOME
sql_field() {
	jq -nc --arg q "$1" '{tool:"sql",input:{query:$q}}' | classify | jq -r "$2"
}

# npm, pnpm and yarn run their -c text in a shell; a local bin is the project's
expect_eq "npx -c 'rm -rf ~': denied" "$(shell_field "npx -c 'rm -rf ~'" .action)" deny
expect_eq "pnpm exec -c 'rm -rf ~': denied" "$(shell_field "pnpm exec -c 'rm -rf ~'" .action)" deny
expect_eq "yarn exec 'rm -rf ~': denied" "$(shell_field "yarn exec 'rm -rf ~'" .action)" deny
expect_eq "npx ls with node_modules/.bin/ls: medium" "$(shell_field 'npx ls' .tier)" medium
expect_eq "pdm run ls: medium" "$(shell_field 'pdm run ls' .tier)" medium
expect_eq "dotenv env: asks" "$(shell_field 'dotenv env' .action)" ask

# SQL: a psql script goes on past a syntax error; long statements keep every word
expect_eq "psql bad line then pg_read_file: high" \
	"$(shell_field "$(printf "psql <<'EOF'\nSELECT ^;\nSELECT pg_read_file('/etc/passwd');\nEOF")" .tier)" high
cols=$(seq 1 70 | sed 's/^/c/' | paste -sd, -)
expect_eq "70 columns then LOAD_FILE: high" \
	"$(sql_field "SELECT \`a\`, $cols, LOAD_FILE('/etc/passwd') FROM t" .tier)" high
expect_eq "pg_ls_waldir: high" "$(sql_field 'SELECT * FROM pg_ls_waldir()' .tier)" high

# git: the work tree and exported repository variables
expect_eq "git --work-tree=/ checkout main: high" \
	"$(shell_field 'git --work-tree=/ checkout main' .tier)" high
expect_eq "export GIT_DIR then commit: high" \
	"$(shell_field 'export GIT_DIR=/srv/other/.git; git commit -m x' .tier)" high
expect_eq "git -c safe.directory=*: high" \
	"$(shell_field "git -c safe.directory='*' -C /srv/repo status" .tier)" high
expect_eq "submodule foreach git reset --hard: high" \
	"$(shell_field 'git submodule foreach --recursive git reset --hard' .tier)" high

# writes the command line does not show, or names at run time
expect_eq "cat list | xargs tee: high" "$(shell_field 'cat list | xargs tee' .tier)" high
expect_eq "xargs -I{} cp payload {}: high" \
	"$(shell_field 'cat list | xargs -I{} cp payload {}' .tier)" high
expect_eq "TF_CLI_ARGS_fmt=/etc terraform fmt: high" \
	"$(shell_field 'TF_CLI_ARGS_fmt=/etc terraform fmt' .tier)" high
expect_eq "gofmt -w /etc/x.go: high" "$(shell_field 'gofmt -w /etc/x.go' .tier)" high
expect_eq "go test -exec 'rm -rf ~': denied" \
	"$(shell_field "go test -exec 'rm -rf ~' ./..." .action)" deny
expect_eq "mvn deploy: high" "$(shell_field 'mvn -B deploy' .tier)" high
expect_eq "docker compose config: high" "$(shell_field 'docker compose config' .tier)" high
expect_eq "sqlite3 .ar -xC /etc: high" "$(shell_field "sqlite3 x.db '.ar -xC /etc'" .tier)" high
expect_eq "git remote show origin: high" "$(shell_field 'git remote show origin' .tier)" high

# routine work stays where it was
expect_eq "rm -rf build: medium" "$(shell_field 'rm -rf build' .tier)" medium
expect_eq "npx tsc without it: high" "$(shell_field 'npx tsc' .tier)" high
expect_eq "gofmt -w main.go: medium" "$(shell_field 'gofmt -w main.go' .tier)" medium
expect_eq "pip list: low" "$(shell_field 'pip list' .tier)" low

check "classify runs nothing" test -f "$d/wd/canary"
finish
