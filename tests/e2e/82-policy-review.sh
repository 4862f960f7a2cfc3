#!/bin/sh
# 82-policy-review.sh: spellings a hostile agent tried against deny rules
# that see through options and into SQL, each found by a review and each
# failing before its fix.
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
	deny = Sql(DROP *)
P
chmod 600 "$d/p"

# however long the run of options before the subcommand
expect_eq "options: five -c pairs before push" \
	"$(action shell command 'git -c a=1 -c b=2 -c c=3 -c d=4 -c e=5 push origin')" deny
expect_eq "options: nine flags before push" \
	"$(action shell command 'git -p -p -p -p -p -p -p -p -p push')" deny
finish
