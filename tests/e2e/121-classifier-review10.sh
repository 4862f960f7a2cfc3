#!/bin/sh
# 121-classifier-review10.sh: what a tenth hostile review of the
# classifier found, through the real binary in a real workdir: psql's
# -o '|CMD' (low), a psql command after another on one line (`\echo x \!
# CMD`: low), duckdb -c SQL (medium), awk's print ... |& "CMD" (high, the
# printed text read as the command), write_file of mise's config (medium:
# mise trusts it by path and runs its hooks in the user's shell); and the
# friction: psql -c '\dt' (high) and sqlite3 DB -header SQL (high).
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

# routine neighbours
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
