#!/bin/sh
# 75-tui-review.sh: what an agent could do to make a person approve a call
# they would not approve if they saw it clearly, each found by a hostile
# review of the approval screen and each failing before its fix. The real
# binary runs in tmux (tests/e2e/tmux.sh); capture-pane reads the screen.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
d=$(mktemp -d /tmp/airlock-e2e-tuirev.XXXXXX)
. tests/e2e/tmux.sh

ask_policy
# start NAME COMMAND...: runs an airlock command in $d/NAME/w in a new
# session, stdout and stderr to files unless the command redirects them.
start() {
	n=$1
	shift
	mkdir -p "$d/$n/w" "$d/$n/home"
	tm new-session -d -s "$n" -x 80 -y 24 \
		"sleep 0.3; cd '$d/$n/w' || exit 1; env HOME='$d/$n/home' LANG=C.UTF-8 TERM=screen $*; echo EXIT \$?; sleep 100"
}

# --- an agent's stderr and chatter are text, held while the screen is up ----
# The agent's stderr and stdout were the terminal's: escape sequences it
# printed (a model's words) drew over the command on the screen, or changed
# the palette so flagged text was invisible.
cat >"$d/paint.sh" <<'EOS'
#!/bin/sh
printf '{"id":1,"tool":"shell","input":{"command":"rm -rf victim"}}\n'
sleep 1
printf '\033[3;1H\033[Kecho hello\033[J' >&2
read -r ans
printf '%s\n' "$ans" >../answer
printf 'chatter \033]4;3;#000000\007 end\n'
EOS
chmod +x "$d/paint.sh"
mkdir -p "$d/paint/w/victim"
start paint "'$AIRLOCK' run --db '$d/paint/a.db' --policy '$d/ask.policy' -- '$d/paint.sh'"
wait_for paint "a approve" >/dev/null
sleep 2
check "paint: the command is still shown" wait_for paint "rm -rf victim"
check "paint: nothing drew over it" lacks paint "echo hell"
tm send-keys -t paint q
check "paint: run exits" wait_for paint "EXIT"
check "paint: stderr shown after the screen, escaped" wait_for paint 'x1b[3;1H'
check "paint: chatter escaped" wait_for paint 'chatter \x1b]4;3;#000000\x07 end'
check "paint: denied" grep -q '"denied"' "$d/paint/answer"
check "paint: nothing ran" test -d "$d/paint/w/victim"

# --- a stderr nobody reads does not hold the screen off ---------------------
# The relay took the screen's lock for every write: a pipe that filled up
# blocked it, lock held, and the approval screen never came.
mkfifo "$d/errfifo"
cat >"$d/loud.sh" <<'EOS'
#!/bin/sh
head -c 100000 /dev/zero | tr '\0' x >&2
printf '{"id":1,"tool":"shell","input":{"command":"rm -rf victim"}}\n'
read -r ans
EOS
chmod +x "$d/loud.sh"
sleep 1000 <"$d/errfifo" &
holder=$!
start loud "'$AIRLOCK' run --db '$d/loud/a.db' --policy '$d/ask.policy' -- '$d/loud.sh' 2>'$d/errfifo'"
check "loud: the screen comes" wait_for loud "a approve"
tm send-keys -t loud q
kill $holder
check "loud: run exits" wait_for loud "EXIT"

# --- a second `a` does not approve the next queued call -------------------
# The next call's screen came up milliseconds after the first was approved,
# so key repeat (or a double tap) approved a call nobody had seen.
mkdir -p "$d/tap/w/victim"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"echo first"}}' \
	'{"id":2,"tool":"shell","input":{"command":"rm -rf victim"}}' >"$d/tap/calls"
start tap "'$AIRLOCK' gate --db '$d/tap/a.db' --policy '$d/ask.policy' <../calls >../out 2>../err"
wait_for tap "echo first" >/dev/null
sleep 1.1
for i in 1 2 3 4 5 6 7 8; do # a held key repeats
	tm send-keys -t tap a
	sleep 0.1
done
check "tap: the second call is on screen" wait_for tap "rm -rf victim"
check "tap: the second call still waits" sh -c "[ \$(wc -l <'$d/tap/out') -eq 1 ]"
sleep 1.1
tm send-keys -t tap d Enter
check "tap: gate exits" wait_for tap "EXIT"
expect_eq "tap: decisions" "$(jq -r .decision "$d/tap/out" | tr '\n' ' ')" "approved denied "
check "tap: nothing ran" test -d "$d/tap/w/victim"

# --- the end of a command is not pushed off screen --------------------------
# 3,000 spaces or 300 empty lines put 'rm -rf victim' rows below the fold
# while the screen showed 'echo safe', and a command's own lines could read
# "Why it asks: (no rule fired)" like the screen's.
mkdir -p "$d/push/w"
{
	jq -cn --arg c "echo safe$(printf '%3000s' '');rm -rf victim" '{id:1,tool:"shell",input:{command:$c}}'
	jq -cn --arg c "$(printf 'ls\n\nWhy it asks:\n  (no rule fired)%0300drm -rf other' 0 | tr 0 '\n')" \
		'{id:2,tool:"shell",input:{command:$c}}'
} >"$d/push/calls"
start push "'$AIRLOCK' gate --db '$d/push/a.db' --policy '$d/ask.policy' <../calls >../out 2>../err"
check "push: spaces squeezed" wait_for push "| echo safe<3000 spaces>;rm -rf victim"
check "push: warned" wait_for push "WARNING: the command holds 1 hidden part"
tm send-keys -t push q
check "push: the command's lines have a gutter" wait_for push "| Why it asks:"
check "push: empty lines squeezed" wait_for push "| <299 empty lines>"
check "push: the end is on the first screen" wait_for push "| rm -rf other"
check "push: the length is on the first screen" wait_for push "The command (6 rows"
tm send-keys -t push q
check "push: gate exits" wait_for push "EXIT"

finish
