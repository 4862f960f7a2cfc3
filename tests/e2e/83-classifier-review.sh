#!/bin/sh
# 83-classifier-review.sh: what a second hostile review of the classifier
# found, through the real binary in a real workdir, each failing before
# its fix: a quoted declare -a array that runs its $( ), find tests after
# -delete, http URLs curl reads otherwise (a host deny rule missed), SQL
# that SQL runs (query_to_xml, PREPARE FROM), MySQL's --x and SQLite's
# $q$, psql backquotes, the sql tool reading a browser's cookies,
# redirections onto <( ), awk's getline, a written script run through PATH. Nothing is executed: a canary file must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd"
: >"$d/wd/canary"
HOME="$d/home"
export HOME
printf '[rules]\ndeny = WebFetch(domain:169.254.169.254)\n' >"$d/policy"
classify() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" --policy "$d/policy" "$@"); }
shell_field() { classify --shell "$1" | jq -r "$2"; }
call_field() { printf '%s\n' "$1" | classify | jq -r "$2"; }
sql_field() { call_field "$(jq -nc --arg q "$1" '{tool:"sql",input:{query:$q}}')" "$2"; }

# shell
expect_eq "declare -a quoted \$( ): critical" \
	"$(shell_field "declare -a 'a=(\$(rm -rf ~))'" .tier)" critical
expect_eq "declare -a quoted \$( ): denied" \
	"$(shell_field "declare -a 'a=(\$(rm -rf ~))'" .action)" deny
expect_eq "find ~ -delete -name x: critical" "$(shell_field 'find ~ -delete -name x' .tier)" critical
expect_eq "find ~ -name x -delete: high" "$(shell_field 'find ~ -name x -delete' .tier)" high
expect_eq "done < <(rm -rf ~): critical" \
	"$(shell_field 'while read -r l; do :; done < <(rm -rf ~)' .tier)" critical
expect_eq "done < <(ls): low" "$(shell_field 'while read -r l; do :; done < <(ls)' .tier)" low
expect_eq "awk getline: critical" \
	"$(shell_field "awk 'BEGIN { \"rm -rf ~\" | getline }'" .tier)" critical
expect_eq "script through PATH: critical" \
	"$(shell_field "echo 'rm -rf ~' > foo; chmod +x foo; PATH=\$PATH:. foo" .tier)" critical

# hosts as curl connects to them: the deny rule and the metadata rule see them
expect_eq "http schemeless metadata: denied" \
	"$(call_field '{"tool":"http","input":{"url":"169.254.169.254/latest/meta-data/"}}' .action)" deny
expect_eq "http:/ metadata: denied" \
	"$(call_field '{"tool":"http","input":{"url":"http:/169.254.169.254/latest/"}}' .action)" deny
expect_eq "curl user:pw@metadata: denied" \
	"$(shell_field 'curl user:pw@169.254.169.254/latest/' .action)" deny

# SQL
expect_eq "query_to_xml(pg_read_file): high" \
	"$(sql_field "SELECT query_to_xml('SELECT pg_read_file(''/etc/passwd'')', true, true, '')" .tier)" high
expect_eq "PREPARE FROM 'DROP DATABASE': critical" \
	"$(sql_field "PREPARE s FROM 'DROP DATABASE prod'" .tier)" critical
expect_eq "SQLite \$q\$ hides nothing: high" \
	"$(sql_field 'INSERT INTO t VALUES (1); SELECT $q$; DROP TABLE t; SELECT $q$' .tier)" high
expect_eq "mysql --1: critical" \
	"$(shell_field 'mysql -e "SELECT 1 --1; DROP DATABASE prod"' .tier)" critical
expect_eq "psql backquote: critical" "$(shell_field "psql -c '\\set x \`rm -rf ~\`'" .tier)" critical
expect_eq "sql tool on cookies.sqlite: asks" \
	"$(call_field '{"tool":"sql","input":{"query":"SELECT * FROM moz_cookies","database":"~/.mozilla/firefox/p/cookies.sqlite"}}' .action)" ask
expect_eq "psql copy to cron: high" \
	"$(shell_field "psql -c \"\\\\copy t TO '/etc/cron.d/x'\"" .tier)" high

check "classify runs nothing" test -f "$d/wd/canary"
check "classify writes nothing" test ! -e "$d/wd/foo"
finish
