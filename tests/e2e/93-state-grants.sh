#!/bin/sh
# 93-state-grants.sh: a profile's read-write grant may not reach airlock's
# own state: the records a killed run's recovery trusts
# (~/.local/state/airlock/pending, or under $XDG_STATE_HOME) and the audit
# log, wherever --db puts it. A sandboxed command with such a grant could
# forge a record (the next run then moves aside whatever changed in a span
# it chose), remove its own (a kill leaves what it planted), or cut the
# log's tail. Such a grant refuses the call; a grant beside them does not.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
tmpdir_make
d=$T_DIR HOME="$T_DIR/home"
export HOME
unset XDG_STATE_HOME
mkdir -p "$HOME/.local/state/airlock/pending" "$HOME/.local/state/tool" "$d/wd" "$d/logs" \
	"$d/other" "$d/xdg/airlock"
# policy FILE GRANT: the workspace profile, with GRANT read-write
policy() {
	printf '[profile "workspace"]\n\tread-write = %s\n' "$2" >"$1"
	chmod 600 "$1"
}
# ax GRANT CMD: airlock exec in $d/wd under a policy granting GRANT
ax() {
	policy "$d/ax.policy" "$1"
	shift
	(cd "$d/wd" && "$AIRLOCK" exec --policy "$d/ax.policy" --profile workspace -- "$@") \
		>"$d/out" 2>&1
}

ax "$HOME/.local/state" sh -c 'touch "$HOME/.local/state/airlock/pending/forged"'
expect_eq "exec: a grant holding the state directory: refused (125)" "$?" 125
check "exec: the refusal names airlock's state" grep -q "which airlock protects (its state" "$d/out"
check "exec: nothing written there" test ! -e "$HOME/.local/state/airlock/pending/forged"

ax "$HOME/.local/state/airlock/pending" true
expect_eq "exec: a grant inside the state directory: refused" "$?" 125

ax "$HOME/.local/state/tool" sh -c 'echo ok > "$0/x"' "$HOME/.local/state/tool"
expect_eq "exec: a grant beside the state directory runs" "$?" 0
check "exec: and writes there" grep -q ok "$HOME/.local/state/tool/x"

XDG_STATE_HOME=$d/xdg ax "$d/xdg" true
expect_eq "exec: \$XDG_STATE_HOME's airlock directory counts too" "$?" 125

# the gate: an audit log in a granted directory
shell() { printf '{"id":"%s","tool":"shell","input":{"command":"%s"}}\n' "$1" "$2"; }
policy "$d/g.policy" "$d/logs"
out=$(shell g1 "echo cut > $d/logs/audit.db" |
	"$AIRLOCK" gate --no-tty --db "$d/logs/audit.db" --workdir "$d/wd" --policy "$d/g.policy")
expect_eq "gate: the call did not run" "$(printf '%s\n' "$out" | jq -r .exit_code)" null
printf '%s\n' "$out" | jq -r .error >"$d/err"
check "gate: the error names the audit log" grep -q "lies in $d/logs/audit.db, which airlock protects" "$d/err"
check "gate: the log was not written over" sh -c "head -c 15 '$d/logs/audit.db' | grep -q 'SQLite format 3'"
check "gate: the log is intact" "$AIRLOCK" audit verify --db "$d/logs/audit.db"

policy "$d/g2.policy" "$d/other"
out=$(shell g2 "echo fine > $d/other/x" |
	"$AIRLOCK" gate --no-tty --db "$d/logs/audit.db" --workdir "$d/wd" --policy "$d/g2.policy")
expect_eq "gate: a grant elsewhere runs" "$(printf '%s\n' "$out" | jq -r .exit_code)" 0
check "gate: and writes there" grep -q fine "$d/other/x"

finish
