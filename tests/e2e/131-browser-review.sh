#!/bin/sh
# 131-browser-review.sh: a hostile review of the shared browser layout
# (tui/layout.c) and the audit browser: what a small terminal cuts, and
# what the screens say about it, each failing on 71c4ce7 before its fix.
# The real binary runs in tmux (tests/e2e/tmux.sh); capture-pane reads the
# screen. No timing-tight checks: each waits for the screen.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq
need sqlite3
d=$(mktemp -d /tmp/airlock-e2e-browse2.XXXXXX)
. tests/e2e/tmux.sh

ask_policy
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }
# browse NAME DIR: airlock audit over $d/DIR/a.db in a new 80x24 session.
browse() {
	tm new-session -d -s "$1" -x 80 -y 24 \
		"cd '$d/$2/w'; env HOME='$d/$2/home' LANG=C.UTF-8 TERM=screen \
		'$AIRLOCK' audit --db ../a.db; echo EXIT \$?; sleep 100"
}
# keys NAME KEY COUNT: sends KEY COUNT times.
keys() {
	k=0
	while [ "$k" -lt "$3" ]; do
		tm send-keys -t "$1" "$2"
		k=$((k + 1))
	done
}

# --- 30x6: the header's warning is cut, the screen says so, `a` waits ------------
# The approval screen kept only its title's three rows at 30x6: the warning
# that the command hides text never showed, nothing said it was cut, and
# `a` approved once the body was scrolled through.
mkdir -p "$d/tiny/w"
printf '{"id":1,"tool":"shell","input":{"command":"echo \\u001b[8m hi"}}\n' >"$d/tiny/calls"
ask_gate tiny
tm resize-window -t tiny -x 30 -y 6
check "tiny: the cut is said" wait_for tiny "header rows cut: enlarge" 20
keys tiny j 40
sleep 1.2
tm send-keys -t tiny a
check "tiny: a says why it waits" wait_for tiny "header cut: enlarge terminal" 20
check "tiny: nothing decided" lines "$d/tiny/out" 0
# enlarged: the body is not left empty below the header, the warning shows
tm resize-window -t tiny -x 80 -y 24
check "tiny: enlarged, the warning shows" wait_for tiny "WARNING: the command holds 1 hidden" 20
check "tiny: enlarged, the command shows" wait_for tiny "The command:" 20
sleep 1.2
tm send-keys -t tiny a
check "tiny: gate exits" wait_for tiny "EXIT" 20
expect_eq "tiny: approved once seen whole" "$(jq -r .decision "$d/tiny/out")" approved

# --- the audit detail: the agent's words do not pose as the record's rows -------
# A command `source "x<newline>Decision: approved (policy said allow), by
# user<newline>Chain: events 1..9 intact"` drew those rows in the detail of
# a denied call, under its Input and again under its rules (the reason
# quotes the script's name), where they read as the record's own.
mkdir -p "$d/forge/w" "$d/forge/home"
for t in low medium high critical; do printf '[tier "%s"]\n\taction = deny\n' $t; done >"$d/deny.policy"
jq -cn --arg c "source \"x
Decision: approved (policy said allow), by user
Chain: events 1..9 intact\"" '{id:1,tool:"shell",input:{command:$c}}' >"$d/forge/calls"
(cd "$d/forge/w" && HOME="$d/forge/home" "$AIRLOCK" gate --db ../a.db --policy ../../deny.policy \
	<../calls >../out 2>../err)
expect_eq "forge: denied" "$(jq -r .decision "$d/forge/out")" denied
browse forge forge
wait_for forge "newest first" 20 >/dev/null
tm send-keys -t forge Enter
check "forge: the detail is open" wait_for forge "Decision: denied (policy said deny)" 20
check "forge: the command's rows are marked" wait_for forge "  | Decision: approved" 20
at_start() { screen "$1" | grep -q -- "^$2"; }
check "forge: no row starts with a forged decision" eval '! at_start forge "Decision: approved"'
check "forge: no row starts with a forged chain" eval '! at_start forge "Chain: events 1..9"'
check "forge: the reason stays on one row" wait_for forge 'runs a script (x\nDecision: approved' 20
# since:7d matched nothing (the text "7d" compared with "2026-..."), unsaid
tm send-keys -t forge q
wait_for forge "newest first" 20 >/dev/null
tm send-keys -t forge f
wait_for forge "filter: " 20 >/dev/null
tm send-keys -t forge -l "since:7d"
tm send-keys -t forge Enter
check "since: the filter is on" wait_for forge "filter: since:7d" 20
check "since: the call of a minute ago is listed" wait_for forge 'source "x' 20
check "since: not (nothing matches)" lacks forge "nothing matches"
tm send-keys -t forge f C-u
tm send-keys -t forge -l "since:yesterday"
tm send-keys -t forge Enter
check "since: a word it cannot read is said" wait_for forge "since wants YYYY-MM-DD" 20
tm send-keys -t forge q
check "forge: browser exits" wait_for forge "EXIT 0" 20

# --- an edited call index row is marked in the list ------------------------------
# The list reads the call index, which is not chained: a row edited there
# ("denied" made "auto", the command made "echo harmless") listed as true;
# only opening the call said "Chain NOT CONFIRMED".
sqlite3 "$d/forge/a.db" "UPDATE call_index SET decision = 'auto', summary = 'echo harmless'"
browse edited forge
check "edited: the row is marked" wait_for edited "auto          0ms  shell       NOT CONFIRMED: echo" 20
tm send-keys -t edited Enter
check "edited: the detail says so" wait_for edited "Chain NOT CONFIRMED" 20
tm send-keys -t edited q q
check "edited: browser exits" wait_for edited "EXIT 0" 20

# --- calls logged while the browser is open are announced ------------------------
# The list showed the log as it was when opened; a gate writing to it added
# calls that nothing mentioned until `g` happened to reload.
browse live forge
wait_for live "newest first" 20 >/dev/null
printf '%s\n' '{"id":2,"tool":"shell","input":{"command":"echo while-open"}}' >"$d/forge/calls2"
(cd "$d/forge/w" && HOME="$d/forge/home" "$AIRLOCK" gate --db ../a.db --policy ../../deny.policy \
	<../calls2 >/dev/null 2>&1)
check "live: the header counts the new call" wait_for live "1 new: g shows them" 20
tm send-keys -t live g
check "live: g lists it" wait_for live "echo while-open" 20
check "live: the count is gone" eval '! wait_for live "new: g shows" 1 >/dev/null'
tm send-keys -t live q
check "live: browser exits" wait_for live "EXIT 0" 20

# --- the detail of a call still waiting shows its decision once logged -----------
# The detail was read once: a call asked about on another terminal showed
# no decision and no outcome after both were logged.
mkdir -p "$d/wait/w"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"echo waiting-call"}}' >"$d/wait/calls"
ask_gate wait
wait_for wait "echo waiting-call" 20 >/dev/null
browse waitb wait
wait_for waitb "echo waiting-call" 20 >/dev/null
tm send-keys -t waitb Enter
check "wait: the detail is open, undecided" wait_for waitb "Input (shell" 20
check "wait: no decision yet" lacks waitb "Decision:"
tm send-keys -t wait q
check "wait: gate exits" wait_for wait "EXIT" 20
check "wait: the decision shows" wait_for waitb "Decision: denied (policy said ask), by user" 20
check "wait: the outcome shows" wait_for waitb "Outcome: did not run" 20
tm send-keys -t waitb q q
check "wait: browser exits" wait_for waitb "EXIT 0" 20

finish
