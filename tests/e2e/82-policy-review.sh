#!/bin/sh
# 82-policy-review.sh: spellings a hostile agent tried against deny rules
# that see through options (a long run, a cluster in another order) and
# into SQL, a cd into a subdirectory that left the project's policy behind
# for the hook, a nested .airlock/policy that replaced the project's, and a
# host rule that could never match; each found by a review and each failing
# before its fix.
. tests/e2e/lib.sh
need jq
d=$(mktemp -d /tmp/airlock-polreview2.XXXXXX)
trap 'rm -rf "$d"' EXIT
export HOME="$d/home"
mkdir -p "$d/wd" "$HOME/.config/airlock"
# action TOOL FIELD TEXT: the action classify decides for one call
action() {
	printf '%s' "$3" | jq -Rsc --arg t "$1" --arg f "$2" '{tool:$t,input:{($f):.}}' |
		(cd "$d/wd" && timeout 10 "$AIRLOCK" classify --policy "$d/p") | jq -r .action
}

cat >"$d/p" <<'P'
[rules]
	allow = Shell
	allow = Sql
	deny = Shell(git push *)
	deny = Bash(rm -rf:*)
	deny = Sql(DROP *)
P
chmod 600 "$d/p"

# however long the run of options before the subcommand
expect_eq "options: five -c pairs before push" \
	"$(action shell command 'git -c a=1 -c b=2 -c c=3 -c d=4 -c e=5 push origin')" deny
expect_eq "options: nine flags before push" \
	"$(action shell command 'git -p -p -p -p -p -p -p -p -p push')" deny
# a rule's options are a set, however the command clusters or orders them
expect_eq "options: rm -fr" "$(action shell command 'rm -fr build')" deny
expect_eq "options: rm -r -f" "$(action shell command 'rm -r -f build')" deny
expect_eq "options: rm build -rf" "$(action shell command 'rm build -rf')" deny
expect_eq "options: rm -r alone is not rm -rf" "$(action shell command 'rm -r build')" auto

# the SQL a statement holds, however it is quoted or built
for q in "DO 'BEGIN DROP TABLE t; END'" \
	"CREATE FUNCTION f() RETURNS void AS 'DROP TABLE t' LANGUAGE sql" \
	"DO \$\$ BEGIN EXECUTE E'DROP TABLE t'; END \$\$" \
	"DO \$\$ BEGIN EXECUTE ('DROP TABLE t'); END \$\$" \
	"DO \$\$ BEGIN RAISE NOTICE E'\\''; DROP/**/TABLE t; END \$\$" \
	"DO \$\$BEGIN DROP TABLE t; END\$\$" \
	"CREATE FUNCTION f() RETURNS void LANGUAGE sql BEGIN ATOMIC DROP TABLE t; END" \
	"DO \$a1\$ BEGIN EXECUTE \$b2\$DROP TABLE t\$b2\$; END \$a1\$" \
	"DO \$\$ BEGIN EXECUTE 'DR' || 'OP TABLE t'; END \$\$" \
	"DO \$\$ DECLARE q text := 'DROP TABLE t'; BEGIN EXECUTE q; END \$\$"; do
	expect_eq "sql: $q" "$(action sql query "$q")" deny
done
# ... and a comment marker is read where PostgreSQL reads one: not in a
# dollar-quoted string, ended by a carriage return, ended in a code string
for q in 'WITH a AS (SELECT $$--$$) DROP TABLE t' \
	"$(printf 'DROP --c\rTABLE t')" \
	"$(printf "DO 'BEGIN -- c\nDROP TABLE t; END'")" \
	"$(printf 'DO $$ BEGIN -- c\nDROP TABLE t; END $$')" \
	"DO E'BEGIN -- c\\nDROP TABLE t; END'"; do
	expect_eq "sql: $q" "$(action sql query "$q")" deny
done
expect_eq "sql: a string in a body is data" \
	"$(action sql query "DO \$\$ BEGIN RAISE NOTICE 'drop it'; END \$\$")" auto

# the hook's workdir is the agent's cwd: after cd sub, the project's rules
# (and the user's rules anchored at the project) still hold
mkdir -p "$d/proj/.airlock" "$d/proj/sub"
printf '[rules]\n\tdeny = Read(notes.txt)\n\tdeny = Shell(curl *)\n' >"$d/proj/.airlock/policy"
printf '[rules]\n\tallow = Read\n\tdeny = Read(.env)\n' >"$HOME/.config/airlock/policy"
chmod 600 "$d/proj/.airlock/policy" "$HOME/.config/airlock/policy"
# hook CWD TOOL INPUT: the hook's decision
hook() {
	printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"t"}' \
		"$1" "$2" "$3" | timeout 10 "$AIRLOCK" hook claude --db "$d/h.db" 2>/dev/null |
		jq -r .hookSpecificOutput.permissionDecision
}
expect_eq "hook in the project: its deny holds" \
	"$(hook "$d/proj" Read "{\"file_path\":\"$d/proj/notes.txt\"}")" deny
expect_eq "hook in a subdirectory: the project's deny holds" \
	"$(hook "$d/proj/sub" Read "{\"file_path\":\"$d/proj/notes.txt\"}")" deny
expect_eq "hook in a subdirectory: the project's deny on a command holds" \
	"$(hook "$d/proj/sub" Bash '{"command":"curl http://example.com"}')" deny
expect_eq "hook in a subdirectory: the user's deny anchored at the project holds" \
	"$(hook "$d/proj/sub" Read "{\"file_path\":\"$d/proj/.env\"}")" deny
expect_eq "hook in a subdirectory: other reads still allowed" \
	"$(hook "$d/proj/sub" Read "{\"file_path\":\"$d/proj/sub/x.c\"}")" allow

# above the workdir, another user's .airlock/policy is not the project's
# (anyone can plant one in /tmp, and it failed every load below it); in the
# workdir itself it is still refused
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$d/shared/.airlock" "$d/shared/mine"
	printf '[rules]\n\tdeny = Shell(ls *)\n' >"$d/shared/.airlock/policy"
	chown -R 65534:65534 "$d/shared/.airlock"
	chmod 644 "$d/shared/.airlock/policy"
	printf '%s' '{"tool":"shell","input":{"command":"ls x"}}' |
		timeout 10 "$AIRLOCK" classify --workdir "$d/shared/mine" >"$d/foreign.out" 2>&1
	expect_eq "a foreign policy above the workdir: ignored" "$?" 0
	expect_eq "a foreign policy above the workdir: not applied" "$(jq -r .action "$d/foreign.out" 2>/dev/null)" auto
	printf '%s' '{"tool":"shell","input":{"command":"ls x"}}' |
		timeout 10 "$AIRLOCK" classify --workdir "$d/shared" >/dev/null 2>&1
	expect_eq "a foreign policy in the workdir: refused" "$?" 2
fi

# a nested .airlock/policy (which a tar xf or git checkout can write with
# no approval) is one more project layer, never the only one: the outer
# project's rules still hold under it, and it is stricter-only even when
# the user trusts projects. The hook's workdir is sub once sub has a .git.
n="$d/nest"
mkdir -p "$n/.airlock" "$n/sub/.airlock" "$n/sub/.git" "$d/h2/.config/airlock"
printf '[rules]\n\tdeny = Shell(make *)\n\tdeny = Read(./a.txt)\n[tier "medium"]\n\tprofile = readonly\n' >"$n/.airlock/policy"
printf '[rules]\n\tdeny = Shell(ls *)\n\tdeny = Read(./b.txt)\n\tallow = Shell(rm *)\n[tier "medium"]\n\tprofile = workspace\n' >"$n/sub/.airlock/policy"
printf '[policy]\n\ttrust-project = true\n[rules]\n\tdeny = Read(./c.txt)\n' >"$d/h2/.config/airlock/policy"
chmod 600 "$n/.airlock/policy" "$n/sub/.airlock/policy" "$d/h2/.config/airlock/policy"
# nested WORKDIR TOOL FIELD TEXT: the action, the user trusting projects
nested() {
	printf '%s' "$4" | jq -Rsc --arg t "$2" --arg f "$3" '{tool:$t,input:{($f):.}}' |
		HOME="$d/h2" timeout 10 "$AIRLOCK" classify --workdir "$1" | jq -r .action
}
expect_eq "nested: the outer file's deny holds in sub" \
	"$(nested "$n/sub" shell command 'make x')" deny
expect_eq "nested: the nested file's own deny is added" \
	"$(nested "$n/sub" shell command 'ls x')" deny
expect_eq "nested: a trusted project's nested file cannot allow" \
	"$(nested "$n/sub" shell command 'rm -rf /tmp/zz')" ask
expect_eq "nested: the outer file's pattern starts at its own directory" \
	"$(nested "$n/sub" read_file path "$n/a.txt")" deny
expect_eq "nested: the nested file's pattern starts at its own directory" \
	"$(nested "$n/sub" read_file path "$n/sub/b.txt")" deny
expect_eq "nested: ... and only there" \
	"$(nested "$n/sub" read_file path "$n/b.txt")" auto
expect_eq "nested: the user's pattern starts at the outermost project" \
	"$(nested "$n/sub" read_file path "$n/c.txt")" deny
# (here the user does not trust projects: the outer file is untrusted too)
expect_eq "nested: the outer file's stricter tier profile holds" \
	"$(timeout 10 "$AIRLOCK" policy show -w "$n/sub" 2>/dev/null |
		sed -n '/^\[tier "medium"\]/,/^\[/s/^	profile = \([a-z]*\).*/\1/p')" readonly
expect_eq "nested: hook in a sub with a .git, the outer deny holds" \
	"$(HOME="$d/h2" CLAUDE_PROJECT_DIR= hook "$n/sub" Bash '{"command":"make x"}')" deny
printf '[rules]\n\tallow = Shell(rm *)\n' >"$n/.airlock/policy"
expect_eq "nested: the outermost trusted file can still loosen" \
	"$(nested "$n/sub" shell command 'rm -rf /tmp/zz')" auto
# a nest deeper than POLICY_MAX_PROJECT_FILES is refused, naming files
w="$n/sub"
for i in 1 2 3 4 5 6 7; do
	w="$w/$i"
	mkdir -p "$w/.airlock"
	printf '[rules]\n\tdeny = Shell(ls *)\n' >"$w/.airlock/policy"
	chmod 600 "$w/.airlock/policy"
done
printf '%s' '{"tool":"shell","input":{"command":"ls"}}' |
	HOME="$d/h2" timeout 10 "$AIRLOCK" classify --workdir "$w" >"$d/deep.out" 2>&1
expect_eq "nested: nine project files: refused" "$?" 2
check "nested: nine project files: the error names them" \
	grep -q "more than 8.*$w/.airlock/policy" "$d/deep.out"

# a host rule that could never match is an error, not a dead deny
printf '[rules]\n\tdeny = WebFetch(domain:evil.example:8080)\n' >"$d/port.policy"
chmod 600 "$d/port.policy"
timeout 10 "$AIRLOCK" policy check "$d/port.policy" >/dev/null 2>&1
expect_eq "a host rule with a port: an error" "$?" 2
finish
