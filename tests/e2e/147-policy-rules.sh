#!/bin/sh
# 147-policy-rules.sh: two gaps in the policy's rules on 0895477.
# `ask-critical = PATTERN` makes a critical call its
# rules cover ask a person instead of being denied. On 0895477 there was
# nothing between critical's deny and allow-critical's auto-run: once
# `kubectl delete ns prod` became critical, `allow = Shell(kubectl *)` could
# neither run it nor ask about it, and the key was unknown (exit 2).
# A `*` inside a word of a deny or ask rule stayed in its word, where
# Claude Code's spans words: `deny = Bash(curl*evil*)` and `Bash(*--force*)`
# denied nothing, and `policy check` said ok.
. tests/e2e/lib.sh
need jq sqlite3
d=$(mktemp -d /tmp/airlock-askcrit.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd/.airlock" "$d/state" "$d/home/.config/airlock"
export HOME="$d/home" XDG_STATE_HOME="$d/state"
printf '%s\n' '[rules]' '	allow = Shell(kubectl *)' '	ask-critical = Shell(kubectl delete *)' \
	'	deny = Shell(kubectl delete ns kube-system)' >"$HOME/.config/airlock/policy"
chmod 600 "$HOME/.config/airlock/policy"

act() { classify --shell "$1" 2>/dev/null | jq -r .action; }
expect_eq "kubectl delete ns prod (critical) asks" "$(act 'kubectl delete ns prod')" ask
check "the reason names the ask-critical rule" sh -c \
	"cd '$d/wd' && '$A' classify --explain --format json --shell 'kubectl delete ns prod' | jq -r .policy | grep -q 'rule ask-critical = Shell(kubectl delete \*)'"
expect_eq "a critical command it does not cover: still denied" \
	"$(act 'kubectl delete ns prod; rm -rf /')" deny
expect_eq "deny beats ask-critical" "$(act 'kubectl delete ns kube-system')" deny
expect_eq "a high kubectl call: allow still runs it" "$(act 'kubectl delete pod web-1')" auto
check "policy show lists the rule" sh -c "'$A' policy show --workdir '$d/wd' | grep -q '^	ask-critical = Shell(kubectl delete \*)'"

# the gate asks: the approver is run (with no person and no approver the
# call would be denied); nothing critical runs unasked
printf '%s\n' '{"id":"k","tool":"shell","input":{"command":"kubectl delete ns prod"}}' >"$d/k.in"
out=$(cd "$d/wd" && "$A" gate --no-tty --db "$d/a.db" \
	--approve-with "cat >/dev/null; echo asked >'$d/asked'; echo not today; exit 1" <"$d/k.in" 2>/dev/null)
check "gate: the approver was asked" test -s "$d/asked"
expect_eq "gate: the approver's no denies it" "$(printf '%s\n' "$out" | jq -r .decision)" denied
check "gate: the approver's reason is the result's" sh -c "printf '%s' '$out' | grep -q 'not today'"
# approved, the log names the rule that brought it to a person (on bb9e11c
# an approved or auto call's decided event recorded no policy reason)
(cd "$d/wd" && "$A" gate --no-tty --db "$d/b.db" --approve-with "cat >/dev/null; exit 0" \
	<"$d/k.in" >/dev/null 2>&1)
expect_eq "log: the approved call's decision names the ask-critical rule" \
	"$(sqlite3 "$d/b.db" "SELECT json_extract(body, '\$.decision') || ' ' || json_extract(body, '\$.policy') FROM events WHERE kind = 'decided'" | sed 's/ (.*//')" \
	"approved rule ask-critical = Shell(kubectl delete *)"

# a project file may not loosen: its ask-critical is ignored, and said so
printf '%s\n' '[rules]' '	ask-critical = Shell(rm -rf *)' >"$d/wd/.airlock/policy"
expect_eq "a project file's ask-critical: ignored, rm -rf / denied" "$(act 'rm -rf /')" deny
check "policy check warns that it is ignored" sh -c \
	"cd '$d/wd' && '$A' policy check 2>&1 | grep -q 'ask-critical = Shell(rm -rf \*) ignored'"

# --- a `*` inside a word spans words in deny and ask rules -------------------
printf '%s\n' '[rules]' '	deny = Bash(curl*evil*)' '	deny = Bash(*--force*)' \
	'	ask = Bash(git*push *)' '	allow = Bash(git*push *)' >"$HOME/.config/airlock/policy"
rm -f "$d/wd/.airlock/policy"
expect_eq "deny = Bash(curl*evil*): curl https://evil.test/x denied" "$(act 'curl https://evil.test/x')" deny
expect_eq "curl https://good.test/x: asks, as any fetch" "$(act 'curl https://good.test/x')" ask
expect_eq "deny = Bash(*--force*): git push --force denied" "$(act 'git push --force')" deny
expect_eq "ask beats allow for the same span: git push origin asks" "$(act 'git push origin main')" ask
# the gate: a denied call never runs
printf '%s\n' '{"id":"f","tool":"shell","input":{"command":"echo x > forced.txt --force"}}' >"$d/f.in"
out=$(cd "$d/wd" && "$A" gate --no-tty --db "$d/f.db" <"$d/f.in" 2>/dev/null)
expect_eq "gate: echo ... --force denied by the span" "$(printf '%s\n' "$out" | jq -r .decision)" denied
check "gate: nothing ran" test ! -e "$d/wd/forced.txt"
finish
