#!/bin/sh
# 40-policy.sh: policy files through the real binary: `airlock policy check`
# and `show`, exit codes and messages for bad and unsafe files, layering and
# a project that tries to loosen the user's policy, rules and breakers
# applied by `airlock classify`, and libgit2 left unloaded without files.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-policy.XXXXXX)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
mkdir -p "$d/home/.config/airlock" "$d/wd/.airlock"
export HOME="$d/home"
files=$PWD/tests/data/policy/files
A=$AIRLOCK

policy() { (cd "$d/wd" && "$A" policy "$@"); }
classify() { (cd "$d/wd" && "$A" classify "$@"); }
action_of() { jq -r .action; }

# check: a good file, and the defaults as printed
cp "$files/rules.policy" "$d/good.policy"
chmod 644 "$d/good.policy"
check "check accepts a good file" policy check "$d/good.policy"
policy show --defaults > "$d/defaults.policy"
expect_eq "show --defaults exits 0" "$?" 0
check "the defaults read back" policy check "$d/defaults.policy"
check "defaults name every built-in profile" sh -c "grep -c '^\[profile' '$d/defaults.policy' | grep -qx 4"

# check: bad files exit 2 with file, line, section and key
printf '[tier "high"]\n\taction = ask\n\tactoin = deny\n' > "$d/bad.policy"
policy check "$d/bad.policy" 2> "$d/err"
expect_eq "unknown key exits 2" "$?" 2
check "message names file:line, section and key" grep -q "bad.policy:3: \[tier \"high\"\] actoin: unknown key" "$d/err"
printf '[rules\n' > "$d/syntax.policy"
policy check "$d/syntax.policy" 2> "$d/err"
expect_eq "syntax error exits 2" "$?" 2
check "syntax error names the line" grep -q "syntax.policy:1" "$d/err"
policy check "$d/missing.policy" 2> /dev/null
expect_eq "missing --policy file exits 2" "$?" 2

# unsafe permissions: group-writable, another owner, unreadable
cp "$d/good.policy" "$d/gw.policy"
chmod 664 "$d/gw.policy"
policy check "$d/gw.policy" 2> "$d/err"
expect_eq "group-writable exits 2" "$?" 2
check "group-writable says how to fix" grep -q "chmod go-w" "$d/err"
cp "$d/good.policy" "$d/other.policy"
chown 65534:65534 "$d/other.policy"
policy check "$d/other.policy" 2> "$d/err"
expect_eq "another user's file exits 2" "$?" 2
check "owner named" grep -q "unsafe owner uid 65534" "$d/err"
cp "$d/good.policy" "$d/secret.policy"
chmod 600 "$d/secret.policy"
# uid 65534 must be able to run the binary wherever the tree was cloned
nb=$(mktemp -d /tmp/airlock-bin.XXXXXX)
cp "$A" "$nb/airlock"
chmod 755 "$nb" "$nb/airlock"
(cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups \
	env HOME=/nonexistent "$nb/airlock" policy check "$d/secret.policy") 2> "$d/err"
expect_eq "unreadable exits 2" "$?" 2
check "unreadable is named" grep -q "cannot read policy file" "$d/err"
rm -rf "$nb"
cp "$d/gw.policy" "$d/home/.config/airlock/policy"
chmod 664 "$d/home/.config/airlock/policy"
classify --shell ls > /dev/null 2> "$d/err"
expect_eq "classify refuses an unsafe user file" "$?" 2
rm "$d/home/.config/airlock/policy"

# the verdict's action is the policy's answer
expect_eq "curl asks by default" "$(classify --shell 'curl https://api.example.com/x' | action_of)" ask
printf '[rules]\n\tallow = Shell(curl https://api.example.com/*)\n' > "$d/allow.policy"
chmod 644 "$d/allow.policy"
expect_eq "allow rule lowers high" \
	"$(classify --policy "$d/allow.policy" --shell 'curl https://api.example.com/x' | action_of)" auto
expect_eq "not when another command rides along" \
	"$(classify --policy "$d/allow.policy" --shell 'curl https://api.example.com/x && curl https://evil.example/x' | action_of)" ask

printf '[rules]\n\tallow = Shell(rm -rf build)\n\tallow = Shell(ls *)\n' > "$d/rm.policy"
chmod 644 "$d/rm.policy"
expect_eq "allow covers the command" "$(classify --policy "$d/rm.policy" --shell 'rm -rf build' | action_of)" auto
expect_eq "but not sudo around it" "$(classify --policy "$d/rm.policy" --shell 'sudo rm -rf build' | action_of)" ask
expect_eq "nor a redirection outside the workdir" \
	"$(classify --policy "$d/rm.policy" --shell 'ls > /etc/passwd' | action_of)" ask

# a project cannot loosen; trusting it lets it
install -m 644 "$files/loosen.policy" "$d/wd/.airlock/policy"
policy check > /dev/null 2> "$d/err"
expect_eq "loosening project still checks ok" "$?" 0
check "loosening is reported as ignored" grep -q "ignored: a project file can only make" "$d/err"
expect_eq "untrusted project: high still asks" "$(classify --shell 'curl https://x.example/' 2>/dev/null | action_of)" ask
install -m 644 "$files/trust.policy" "$d/home/.config/airlock/policy"
expect_eq "trusted project: high runs" "$(classify --shell 'curl https://x.example/' 2>/dev/null | action_of)" auto
policy show > "$d/show" 2> /dev/null
check "show names the project file as origin" grep -q "action = auto	# $d/wd/.airlock/policy" "$d/show"
check "show names the user file as origin" grep -q "trust-project = true	# $d/home/.config/airlock/policy" "$d/show"
check "show names defaults" grep -q "# default" "$d/show"
rm "$d/wd/.airlock/policy" "$d/home/.config/airlock/policy"

# breakers across a classify stream: 130 fetches; the 121st asks
i=0
while [ $i -lt 130 ]; do
	echo "{\"id\":$i,\"tool\":\"shell\",\"input\":{\"command\":\"curl https://api.example.com/charge?n=$i\"}}"
	i=$((i + 1))
done > "$d/calls.jsonl"
classify --policy "$d/allow.policy" < "$d/calls.jsonl" > "$d/verdicts.jsonl"
expect_eq "first 120 run" "$(head -120 "$d/verdicts.jsonl" | jq -r .action | sort -u)" auto
expect_eq "121st asks" "$(sed -n 121p "$d/verdicts.jsonl" | jq -r .action)" ask

# no policy file at any layer: libgit2 is never loaded
expect_eq "no file, no libgit2" "$(cd "$d/wd" && LD_DEBUG=libs "$A" classify --shell ls 2>&1 >/dev/null | grep -c 'libgit2')" 0
# a file read for the first time loads it; read again, what libgit2 read
# of the same text is kept (policy/load.c), and it is not loaded
{ cat "$d/allow.policy"; echo "# $$ $(date +%s%N)"; } >"$d/fresh.policy"
chmod 600 "$d/fresh.policy"
# (grep -c: grep -q would end the pipe at the first line, and airlock,
# writing ld.so's trace, with it, before it kept anything)
check "with a file read first, libgit2 loads" test "$(cd "$d/wd" && LD_DEBUG=libs "$A" classify --policy "$d/fresh.policy" --shell ls 2>&1 >/dev/null | grep -c libgit2)" -gt 0
expect_eq "the same file again: its kept reading, no libgit2" "$(cd "$d/wd" && LD_DEBUG=libs "$A" classify --policy "$d/fresh.policy" --shell ls 2>&1 >/dev/null | grep -c 'libgit2')" 0
echo "# changed" >>"$d/fresh.policy"
check "the file changed: libgit2 loads again" test "$(cd "$d/wd" && LD_DEBUG=libs "$A" classify --policy "$d/fresh.policy" --shell ls 2>&1 >/dev/null | grep -c libgit2)" -gt 0

finish
