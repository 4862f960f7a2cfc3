#!/bin/sh
# 121-classifier-review10.sh: what a tenth hostile review of the
# classifier found, through the real binary in a real workdir: psql's
# -o '|CMD' (low), a psql command after another on one line (`\echo x \!
# CMD`: low), duckdb -c SQL (medium), awk's print ... |& "CMD" (high, the
# printed text read as the command), write_file of mise's config (medium:
# mise trusts it by path and runs its hooks in the user's shell), wrappers
# that were unknown programs (prlimit, gosu, envdir, systemd-cat, dotenvx
# run: medium), machinectl shell and capsh -- (the command unread),
# git --work-tree=/ clean -fdx (high), fd -X rm -rf and rimraf (medium),
# secret managers' run (the command unread), rake -e and cargo's runner
# variable (medium); and the friction: psql -c '\dt', sqlite3 DB -header
# SQL, docker volume ls (high) and fd (medium).
# Nothing is executed: a canary file must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
wd=$T_DIR/wd
HOME=$T_DIR/home
export HOME
mkdir -p "$HOME" "$wd"
: >"$wd/canary"
# field JQ [--shell CMD]: one field of the verdict (a call JSON on stdin without --shell)
field() {
	f=$1
	shift
	(cd "$wd" && "$AIRLOCK" classify --workdir "$wd" "$@") | jq -r "$f"
}
shell_field() { field "$2" --shell "$1"; }
call_field() { printf '%s\n' "$1" | field "$2"; }

# SQL clients' own commands
expect_eq "psql -o '|rm -rf ~': denied" \
	"$(shell_field "psql -o '|rm -rf ~' -c 'select 1'" .action)" deny
expect_eq "psql -L ~/.bashrc: persistence" \
	"$(shell_field "psql -L ~/.bashrc -c 'select 1'" '.rules | index("fs.write.persistence") != null')" true
expect_eq "echo (backslash)echo x (backslash)! rm -rf ~ | psql: denied" \
	"$(shell_field 'echo '\''\echo x \! rm -rf ~'\'' | psql' .action)" deny
expect_eq "echo (backslash)echo x (two backslashes) DROP TABLE t | psql: high" \
	"$(shell_field 'echo '\''\echo x \\ DROP TABLE t'\'' | psql' .tier)" high
expect_eq "duckdb -c '.shell rm -rf ~': denied" \
	"$(shell_field "duckdb -c '.shell rm -rf ~'" .action)" deny

# awk's coprocess
expect_eq "awk print |& \"rm -rf ~\": denied" \
	"$(shell_field "awk 'BEGIN{print \"x\" |& \"rm -rf ~\"}'" .action)" deny

# mise's config, trusted by its path
for p in mise.toml .mise.toml mise.local.toml .config/mise/conf.d/x.toml; do
	expect_eq "write_file $p: high" \
		"$(call_field "{\"tool\":\"write_file\",\"input\":{\"path\":\"$p\",\"content\":\"[hooks]\"}}" .tier)" high
done

# wrappers that were unknown programs (medium: rm -rf . ran with the workdir writable)
for c in "prlimit -n10 rm -rf ." "gosu root rm -rf ." "envdir ./env rm -rf ." \
	"systemd-cat -t x rm -rf ." "dotenvx run -- rm -rf ."; do
	expect_eq "$c: high" "$(shell_field "$c" .tier)" high
done
for c in "fd . -X rm -rf" "rimraf src" "aws-vault exec prod -- rm -rf ." \
	"CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm -rf .' cargo run"; do
	expect_eq "$c: high" "$(shell_field "$c" .tier)" high
done
expect_eq "op run -- rm -rf ~: denied" "$(shell_field 'op run -- rm -rf ~' .action)" deny
expect_eq "rake -e system(rm -rf ~): denied" \
	"$(shell_field "rake -e 'system(\"rm -rf ~\")'" .action)" deny
expect_eq "machinectl shell .host rm -rf /: denied" \
	"$(shell_field 'machinectl shell .host /usr/bin/rm -rf /' .action)" deny
expect_eq "capsh -- -c 'rm -rf ~': denied" "$(shell_field "capsh -- -c 'rm -rf ~'" .action)" deny
expect_eq "git --work-tree=/ clean -fdx: denied" \
	"$(shell_field 'git --work-tree=/ clean -fdx' .action)" deny

# routine neighbours
expect_eq "git clean -fdx in the workdir: high" "$(shell_field 'git clean -fdx' .tier)" high
expect_eq "systemd-cat -t build make: medium" "$(shell_field 'systemd-cat -t build make' .tier)" medium
expect_eq "fd -e py src: low" "$(shell_field 'fd -e py src' .tier)" low
expect_eq "rimraf dist: medium" "$(shell_field 'rimraf dist' .tier)" medium
expect_eq "docker volume ls: low" "$(shell_field 'docker volume ls' .tier)" low
expect_eq "docker volume rm data: high" "$(shell_field 'docker volume rm data' .tier)" high
expect_eq "psql -c (backslash)dt: low" "$(shell_field "psql -c '\\dt'" .tier)" low
expect_eq "psql -c (backslash)d+ users: low" "$(shell_field "psql -c '\\d+ users'" .tier)" low
expect_eq "sqlite3 app.db -header -column SQL: low" \
	"$(shell_field "sqlite3 app.db -header -column 'SELECT 1'" .tier)" low
expect_eq "duckdb -c SELECT: low" "$(shell_field "duckdb -c 'SELECT 42'" .tier)" low
expect_eq "psql -o out.txt: medium" "$(shell_field "psql -o out.txt -c 'select 1'" .tier)" medium
expect_eq "write_file pyproject.toml: medium" \
	"$(call_field '{"tool":"write_file","input":{"path":"pyproject.toml","content":"x"}}' .tier)" medium

check "classify runs nothing" test -f "$wd/canary"
finish
