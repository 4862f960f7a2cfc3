#!/bin/sh
# 115-classifier-review9.sh: what a ninth hostile review of the
# classifier found, through the real binary in a real workdir: write_file
# of the agents' and editors' configs exec/guard.c keeps read-only
# (.zed/settings.json, .aider.conf.yml, crush.json, opencode.json,
# lefthook-local.yml: medium, and write_file is not sandboxed), awk -f -
# and sed -f - fed a here-document (medium), names whose subscript bash
# evaluates ([[ -v ]], declare, export, getopts, wait -p, read -a,
# mapfile: low), $[ ] and ${x:OFFSET} arithmetic (low), tar -F and an
# old-style cluster's I value (medium); and tar -I zstd, which was high.
# Routine neighbours keep their tier. Nothing is executed: a canary file
# must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd/src"
: >"$d/wd/canary"
HOME="$d/home"
export HOME
wf_rule() { # path, rule: 1 when a write_file of path fires rule
	call_field "{\"tool\":\"write_file\",\"input\":{\"path\":\"$1\",\"content\":\"{}\"}}" \
		"[.rules[] | select(. == \"$2\")] | length"
}

# configs that start commands on the host, written by the unsandboxed file tools
for p in .zed/settings.json .aider.conf.yml .qwen/settings.json crush.json opencode.json \
	.continue/mcpServers/x.yaml .gemini/extensions/x/gemini-extension.json; do
	expect_eq "write_file $p: gate_config" "$(wf_rule "$p" fs.write.gate_config)" 1
done
expect_eq "write_file lefthook-local.yml: git_config" \
	"$(wf_rule lefthook-local.yml fs.write.git_config)" 1

# awk and sed programs read from stdin
expect_eq "awk -f - <<E system(rm -rf ~): denied" \
	"$(shell_field "$(printf "awk -f - <<'E'\nBEGIN{system(\"rm -rf ~\")}\nE")" .action)" deny
expect_eq "echo PROG | mawk -f -: denied" \
	"$(shell_field "echo 'BEGIN{system(\"rm -rf ~\")}' | mawk -f -" .action)" deny
expect_eq "sed -f - x <<< '1e rm -rf ~': denied" \
	"$(shell_field "sed -f - x <<< '1e rm -rf ~'" .action)" deny
expect_eq "sed -f /dev/stdin x <<< 'w ~/.bashrc': high" \
	"$(shell_field "sed -f /dev/stdin x <<< 'w ~/.bashrc'" .tier)" high

# names and arithmetic bash evaluates, quotes or not
for c in "[[ -v 'a[\$(rm -rf ~)]' ]]" "declare 'v[\$(rm -rf ~)]=1'" "export 'v[\$(rm -rf ~)]=1'" \
	"getopts a 'v[\$(rm -rf ~)]'" "wait -p 'v[\$(rm -rf ~)]'" "read -a 'v[\$(rm -rf ~)]' <<< x" \
	"mapfile 'v[\$(rm -rf ~)]' < /dev/null" "echo \$[ 'a[\$(rm -rf ~)]' ]" \
	"echo \${x:'\$(rm -rf ~)'}" "echo \${@:1:'\$(rm -rf ~)'}"; do
	expect_eq "$c: denied" "$(shell_field "$c" .action)" deny
done

# tar options that run a command
expect_eq "tar -M -L 20 -F 'rm -rf ~': denied" \
	"$(shell_field "tar -M -L 20 -F 'rm -rf ~' -cf x.tar src" .action)" deny
expect_eq "tar cIf 'rm -rf ~' x.tar src: denied" \
	"$(shell_field "tar cIf 'rm -rf ~' x.tar src" .action)" deny

# routine neighbours keep their tier
expect_eq "tar -I 'zstd -19 -T0': medium" \
	"$(shell_field "tar -I 'zstd -19 -T0' -cf x.tar.zst src" .tier)" medium
expect_eq "tar -I ./zstd: high" "$(shell_field 'tar -I ./zstd -cf x.tar src' .tier)" high
expect_eq "write_file lefthook.yml: medium" \
	"$(call_field '{"tool":"write_file","input":{"path":"lefthook.yml","content":"x"}}' .tier)" medium
expect_eq "write_file src/crush.json: medium" \
	"$(call_field '{"tool":"write_file","input":{"path":"src/crush.json","content":"x"}}' .tier)" medium
expect_eq "[[ -v HOME ]]: low" "$(shell_field '[[ -v HOME ]] && echo set' .tier)" low
expect_eq "declare 'x=\$(cmd)' stays data: low" "$(shell_field "declare 'x=\$(rm -rf ~)'" .tier)" low
expect_eq "while getopts: low" \
	"$(shell_field 'while getopts "ab:" o; do echo "$o"; done' .tier)" low
expect_eq "\${x:1:2} \${x:-w} \$[1+2]: low" "$(shell_field 'echo ${x:1:2} ${x:-w} $[1+2]' .tier)" low
expect_eq "awk -f - <<E print: medium" \
	"$(shell_field "$(printf "awk -f - <<'E'\n{ print \$1 }\nE")" .tier)" medium

check "classify runs nothing" test -f "$d/wd/canary"
finish
