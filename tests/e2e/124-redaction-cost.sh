#!/bin/sh
# 124-redaction-cost.sh: the audit log redacts every call's output (up to
# the 1 MiB capture cap per stream) before it is stored, so redaction's cost
# is the gate's. Texts an agent can make its command print were quadratic
# on 0c35f07: 1 MiB of "password=$" (each key's value scanned to the end of
# the text, then refused for its '$') took about 700 s, 1 MiB of "mysql -p"
# (each option searched 1 KiB back for its program, word by word) 21 s, and
# the gate sat in the redactor meanwhile. Each call here must be recorded
# within the backstop (120 s, for slow sanitizer builds; about a second
# now); the texts are not secrets and are stored whole, and a real password
# among them is still cut.
. tests/e2e/lib.sh
need jq
d=$(mktemp -d /tmp/airlock-redcost.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd"
db=$d/audit.db

# call ID TEXT: a command that prints TEXT repeated up to 1 MiB
call() {
	jq -nc --arg id "$1" --arg t "$2" \
		'{id: $id, tool: "shell", input: {command: ("yes " + ($t | @sh) + " | tr -d \"\\n\" | head -c 1048576")}}'
}
{
	call pw 'password=$'
	call marker 'password=[REDACTED:x]'
	call mysql 'mysql -p'
	call curl 'curl -u a:'
	call real 'x password=hunter2 '
} > "$d/in"
(cd "$d/wd" && timeout -k 10 120 "$AIRLOCK" gate --no-tty --db "$db" < "$d/in" > "$d/out" 2> "$d/err")
expect_eq "every call recorded within the backstop" "$?" 0
expect_eq "five results" "$(wc -l < "$d/out")" 5
for id in pw marker mysql curl real; do
	expect_eq "$id: ran" "$(jq -r "select(.id == \"$id\") | .decision" "$d/out")" auto
done
stored() { # ID: the stored stdout of that call, into $d/ID.stored
	"$AIRLOCK" audit show --db "$db" --json "$(jq -r "select(.id == \"$1\") | .audit_id" "$d/out")" |
		jq -j '[.events[] | select(.kind == "finished") | .body.stdout][0]' > "$d/$1.stored"
}
stored pw
expect_eq "password=\$: not a secret, stored whole" "$(wc -c < "$d/pw.stored")" 1048576
stored real
check "a real password among the text is cut" sh -c '! grep -q hunter2 "$1"' _ "$d/real.stored"
check "... as a password" grep -q "REDACTED:password" "$d/real.stored"
check "the log verifies" "$AIRLOCK" audit verify --db "$db"
finish
