#!/bin/sh
# 84-sandbox-review.sh: what a hostile review of the sandbox's newest code
# found, through a long-running `airlock gate` (whose search for secret
# files remembers directories between calls), each failing before its fix:
# a masked .env carried, with its directory, into a tree the search skips;
# a remembered directory moved away answering for the one moved in at its
# path; and a workdir flooded past the search's limit ahead of a .env.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
export HOME="$d/home"
mkdir -p "$HOME" "$d/wd"

# gate_start: a gate reading calls from a FIFO; send JSON waits for its
# result, so that the host can change the workdir between two calls.
gate_start() {
	rm -f "$d/in" "$d/out" && mkfifo "$d/in" && : >"$d/out"
	(cd "$d/wd" && "$AIRLOCK" gate --no-tty --db "$d/g.db" <"$d/in" >"$d/out" 2>"$d/err") &
	GATE=$!
	exec 3>"$d/in"
	SENT=0
}
send() {
	printf '%s\n' "$1" >&3
	SENT=$((SENT + 1))
	i=0
	while [ "$(wc -l <"$d/out")" -lt "$SENT" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
gate_stop() {
	exec 3>&-
	wait "$GATE"
}
shell() { send '{"id":"'"$1"'","tool":"shell","input":{"command":"'"$2"'"}}'; }
get() { jq -r "select(.id==\"$1\") | $2" "$d/out"; }
leaked() { grep -q LEAK- "$d/out"; }

mkdir -p "$d/wd/conf"
printf 'API_KEY=LEAK-1\n' >"$d/wd/conf/.env"
gate_start
shell a 'echo one'
shell b 'mkdir -p x/config'
shell c 'ls' # from here on the gate's search watches what it read
# an auto-run call carries conf (and its masked .env) into node_modules
shell d 'mkdir -p node_modules && mv conf node_modules/'
shell e 'grep -r API_KEY .'
expect_eq "moved into a skipped tree: the .env stays" "$(cat "$d/wd/conf/.env" 2>&1)" API_KEY=LEAK-1
check "moved into a skipped tree: not read" sh -c "! grep -q LEAK- '$d/out'"
[ -d "$d/wd/conf" ] || mv "$d/wd/node_modules/conf" "$d/wd/conf" # (before the fix)
# the host (the user, another tool) moves a remembered directory away and
# conf in at its place: the gate must not answer from what it remembered
mv "$d/wd/x" "$d/wd/y" && mkdir "$d/wd/x" && mv "$d/wd/conf" "$d/wd/x/config"
shell f 'grep -r API_KEY .'
expect_eq "moved in where a directory was remembered: masked" "$(get f .stdout)" ""
check "moved in where a directory was remembered: not read" sh -c "! grep -q LEAK- '$d/out'"
# 100,001 files ahead of the .env: the search cannot reach it, so the
# call fails instead of showing it (split, which auto-runs: `xargs touch`
# writes the files its input names, anywhere, and asks a person)
shell g 'mkdir flood && cd flood && seq 100001 | split -l 1 -a 5'
shell h 'grep -r API_KEY x'
check "flooded past the search's limit: not read" sh -c "! grep -q LEAK- '$d/out'"
check "flooded past the search's limit: the result says why" \
	sh -c "jq -r 'select(.id==\"h\") | .error // .stderr' '$d/out' | grep -q 'was not searched'"
gate_stop
expect_eq "every call answered" "$(wc -l <"$d/out" | tr -d ' ')" 8
check "the refusal names the knob" \
	sh -c "jq -r 'select(.id==\"h\") | .error // .stderr' '$d/out' | grep -q 'secrets-skip'"
# A tree the user names in secrets-skip is not searched: the flooded
# workdir works again, its .env elsewhere still masked; what the skipped
# tree holds shows (the user's choice, and a project file cannot make it).
mkdir -p "$d/h/.config/airlock"
printf '[profile "workspace"]\n\tsecrets-skip = flood\n' >"$d/h/.config/airlock/policy"
chmod 600 "$d/h/.config/airlock/policy"
printf 'K=SKIPPED-1\n' >"$d/wd/flood/.env"
r=$(cd "$d/wd" && HOME="$d/h" "$AIRLOCK" exec --profile workspace -- sh -c 'grep -rh "API_KEY\|K=" x flood/.env; echo rc=$?' 2>&1)
case $r in *LEAK-*) r=leaked ;; *"was not searched"*) r=refused ;; *"SKIPPED-1"*) r=ran ;; esac
expect_eq "secrets-skip: the flooded workdir runs, its .env still masked" "$r" ran
r=$(cd "$d/wd" && mkdir -p .airlock && printf '[profile "workspace"]\n\tsecrets-skip = x\n' >.airlock/policy &&
	chmod 600 .airlock/policy && HOME="$d/h" "$AIRLOCK" exec --profile workspace -- grep -r API_KEY x 2>&1)
rm -rf "$d/wd/.airlock"
case $r in *LEAK-*) r=leaked ;; *) r=masked ;; esac
expect_eq "secrets-skip: a project file cannot add one" "$r" masked
finish
