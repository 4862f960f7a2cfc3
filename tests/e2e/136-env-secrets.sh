#!/bin/sh
# 136-env-secrets.sh: what a profile's env allowlist copies into the
# sandbox. On d5c9284 `env = G*` passed GH_PAT=ghp_... and GITHUB_PAT (no
# listed word in their names), and any allowlisted name carried a token
# in its value; now a name with a whole word PAT, PW or DSN, and a value
# holding a secret's shape (a token, a private key), stay out, while
# routine names (GOPATH, GOFLAGS, PATH) and values still pass.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-envsec.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd" "$d/h"
printf '[profile "workspace"]\n\tenv = PATH G* X_* DB_*\n' > "$d/policy"
chmod 600 "$d/policy"
tok=ghp_abcdefghijklmnopqrstuvwxyz0123456789
(cd "$d/wd" && env HOME="$d/h" XDG_STATE_HOME="$d/h/.state" \
	GH_PAT="$tok" GITHUB_PAT="github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz" \
	DB_PW=hunter2 DB_DSN='postgres://u:pw@h/db' X_URL="https://x.io/?t=$tok" \
	GOPATH=/go GOFLAGS=-mod=mod X_PLAIN=ok X_PATTERN='*.c' \
	"$AIRLOCK" exec --policy "$d/policy" -- env > "$d/env" 2> "$d/err")
expect_eq "the call ran" "$?" 0
for v in GH_PAT GITHUB_PAT DB_PW DB_DSN X_URL; do
	check "$v is not copied" sh -c "! grep -q '^$v=' '$d/env'"
done
check "no token anywhere in the sandbox's environment" sh -c "! grep -q ghp_ '$d/env'"
for v in GOPATH GOFLAGS X_PLAIN X_PATTERN PATH; do
	check "$v is copied" grep -q "^$v=" "$d/env"
done
finish
