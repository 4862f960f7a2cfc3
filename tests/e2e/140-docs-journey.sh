#!/bin/sh
# 140-docs-journey.sh: a new user's walk through README.md, airlock(1),
# docs/gate.md, tui.md, preview.md and classifier.md, held mechanically
# against the binary where the two can drift apart again: every option a
# usage text names is in airlock(1) and the reverse; every rule id the
# classifier can emit is in docs/classifier.md's table (same tier) and the
# reverse, and each example there fires its rule; every key of a preview's
# JSON is in docs/preview.md; the README's commands exit as documented;
# a usage error says what was wrong, as "airlock CMD: ..."; `make install`
# puts the man pages and the docs the man page names in place. On c93eb52:
# `classify --explain --format json` printed text; `classify --format yaml`,
# `--shell X --sql Y`, `preview --color x` and `airlock run` with no agent
# printed only the usage; getopt's errors read "gate: ...", "audit: ...";
# `--version` was in no usage text, exec's --profile and --workdir and
# audit's --db in no man entry; git.config_override's example fired
# exec.unknown_program; preview.md missed title, tool and seven more keys;
# `make install` installed no docs.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 python3 make
tmpdir_make
d=$T_DIR
top=$PWD
export HOME="$d/home" XDG_STATE_HOME="$d/state" TMPDIR="$d/tmp"
unset AIRLOCK_DB CLAUDE_PROJECT_DIR XDG_CONFIG_HOME NO_COLOR
mkdir -p "$HOME" "$TMPDIR" "$d/wd"
cd "$d/wd" && git init -q . && echo readme >README.md
A=$AIRLOCK
cmds='gate classify exec preview policy audit run hook mcp watch'
# opts: the options (-x, --xy-z) a text names, one a line
opts() { grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-zA-Z][a-zA-Z-]*' | sed -E 's/^[^-]//' | sort -u; }
man_text() { sed 's/\\-/-/g' "$top/docs/airlock.1"; }
# man_entry CMD: the man page's COMMANDS entry for CMD (.TP, .B CMD ...)
man_entry() {
	man_text | sed -n '/^\.SH COMMANDS/,/^\.SH FILES/p' |
		awk -v c="$1" '/^\.TP/ {getline; on = ($0 ~ "^\\.B " c "( |$)")} /^\.PP/ {on = 0} on'
}
# The paragraph after the entries: the options run, hook, mcp and watch share
man_shared() { man_text | sed -n '/^\.SH COMMANDS/,/^\.SH FILES/p' | sed -n '/^\.PP/,$p'; }
# Options of other programs the texts quote: claude -p --output-format
# stream-json --verbose (watch), git add -A, /bin/sh -c.
foreign=' -p --output-format --verbose -A -c '

# --- usage texts against airlock(1), both ways --------------------------------
{ "$A" --help; for c in $cmds; do "$A" "$c" --help; done; } >"$d/usage.txt" 2>&1
opts <"$d/usage.txt" >"$d/usage.opts"
man_text | opts >"$d/man.opts"
for o in $(cat "$d/usage.opts"); do
	case "$foreign" in *" $o "*) continue ;; esac
	check "usage names $o, so does airlock(1)" grep -qxF -- "$o" "$d/man.opts"
done
for o in $(cat "$d/man.opts"); do
	case "$foreign" in *" $o "*) continue ;; esac
	check "airlock(1) names $o, so does a usage text" grep -qxF -- "$o" "$d/usage.opts"
done
known_gaps=''
# Per command: what its --help lists is in its own entry (the shared
# options may be in the paragraph after them instead), and what its entry
# names its --help lists.
shared=$(man_shared | opts | tr '\n' ' ')
for c in $cmds; do
	entry=$(man_entry "$c")
	check "airlock(1) has an entry for $c" test -n "$entry"
	for o in $("$A" "$c" --help 2>&1 | opts); do
		case "$foreign --help " in *" $o "*) continue ;; esac
		case "$c" in run | hook | mcp | watch) case " $shared " in *" $o "*) continue ;; esac ;; esac
		check "$c --help's $o is in its airlock(1) entry" sh -c 'printf "%s\n" "$1" | grep -q -- "$2"' _ "$entry" "$o"
	done
	for o in $(printf '%s\n' "$entry" | opts); do
		case "$foreign$known_gaps" in *" $o "* | *" $c:$o "*) continue ;; esac
		check "airlock(1)'s $c entry names $o, $c --help lists it" sh -c '"$1" "$2" --help 2>&1 | grep -q -- "$3"' _ "$A" "$c" "$o"
	done
done
# watch takes the shared options but asks nobody: the man page says the
# two that ask change nothing there, and watch accepts them.
check "airlock(1): watch's --approve-with and --no-tty change nothing" sh -c 'printf "%s" "$1" | tr "\n" " " | grep -q "watch asks nobody, so there the last two are accepted and change nothing"' _ "$(man_shared)"
expect_eq "watch accepts --approve-with and --no-tty" "$("$A" watch --no-tty --approve-with true </dev/null >/dev/null 2>&1; echo $?)" 0
check "airlock --help names --version" sh -c '"$1" --help | grep -q -- "--version"' _ "$A"
check "airlock(1) says every command takes --help" grep -q 'Every command takes' "$top/docs/airlock.1"

# --- every command's --help and the README's commands: exit statuses --------
for c in $cmds; do
	"$A" "$c" --help >"$d/h.out" 2>&1
	expect_eq "$c --help: exit 0" $? 0
	check "$c --help starts with its usage" grep -q "^usage: airlock $c" "$d/h.out"
done
for v in --version -V; do
	expect_eq "airlock $v: exit 0, the version" "$("$A" $v; echo $?)" "airlock $(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
0"
done
# A usage error: exit 2, its first line names the command and what was wrong
# (not only the usage; not getopt's bare "gate: ...").
bad_msg() { # CMD ARGS...: as bad, the message the option's own
	c=$1; shift
	"$A" "$c" "$@" </dev/null >/dev/null 2>"$d/bad.err"
	rc=$?
	first=$(head -1 "$d/bad.err")
	expect_eq "airlock $c $*: exit 2" "$rc" 2
	check "airlock $c $*: says what was wrong first ($first)" sh -c \
		'case "$1" in "airlock $2: "*) ;; *) exit 1 ;; esac; case "$1" in *usage:*) exit 1 ;; esac' _ "$first" "$c"
}
bad_msg gate --no-such-option
bad_msg gate extra-argument
bad_msg classify --format yaml --shell ls
bad_msg classify --shell ls --sql 'SELECT 1'
bad_msg classify extra-argument
bad_msg preview --color sometimes
# policy's usage errors printed only the usage (0895477), and getopt's
# named the verb: "show: unrecognized option"
bad_msg policy check --defaults
bad_msg policy check a b
bad_msg policy show extra-argument
bad_msg policy show --no-such-option
bad_msg policy frobnicate
bad_msg preview --format yaml
bad_msg preview extra-argument
bad_msg run
bad_msg run --no-such-option -- true
bad_msg watch --no-such-option
bad_msg mcp --no-such-option -- true
bad_msg audit --no-such-option
bad_msg audit no-such-subcommand
bad_msg exec --timeout 0 -- true
out=$("$A" classify --workdir "$d/no-such-dir" --shell ls 2>&1)
check "classify: a workdir it cannot resolve is named" sh -c 'printf "%s" "$1" | grep -q "no-such-dir"' _ "$out"

# --- README: classify's fields, --explain, --format -------------------------
out=$("$A" classify --shell 'rm -f x')
doc=$(grep -o '^`{"id","tool"[^`]*}`' "$top/README.md" | tr -d '`{}"' | tr ',' ' ')
expect_eq "README: classify's fields in the order printed" \
	"$(printf '%s' "$out" | jq -r 'keys_unsorted | join(" ")')" "$doc"
expect_eq "airlock(1): classify's fields in the order printed" \
	"$(printf '%s' "$out" | jq -r 'keys_unsorted | join(", ")')" \
	"$(man_entry classify | grep '^\.BR id ' | sed 's/^\.BR //; s/ \.$//; s/ ", " /, /g')"
out=$("$A" classify --explain --format json --shell 'rm -f x' 2>&1)
expect_eq "classify --explain --format json: JSON with the policy's reason" \
	"$(printf '%s' "$out" | jq -r '[.tier, .action, .policy] | join(" ")' 2>/dev/null)" "high ask tier high: ask (default)"
out=$(echo '{"id":1,"tool":"shell","input":{"command":"rm -f x"}}' | "$A" classify --explain --format json 2>&1)
check "classify --explain --format json, a stream: JSON" sh -c 'printf "%s" "$1" | jq -e .policy' _ "$out"
out=$("$A" classify --explain --shell 'rm -f x' 2>&1)
check "classify --explain --shell, no --format: text, as README shows" sh -c 'printf "%s\n" "$1" | head -1 | grep -q "^null shell high -> ask: rm -f x$"' _ "$out"
out=$("$A" classify --explain --format text --shell 'rm -f x' 2>&1)
check "classify --explain --format text: text" sh -c 'printf "%s\n" "$1" | grep -q "^  policy: tier high: ask"' _ "$out"

# --- docs/gate.md: every file of gate/ in its Files table -------------------
files=$(sed -n '/^## Files/,$p' "$top/docs/gate.md" | grep '^| ' | awk -F'|' '{gsub(/ /, "", $2); print $2}')
for f in "$top"/gate/*.c; do
	f=$(basename "$f")
	case "$f" in cmd_*.c) f='cmd_*.c' ;; esac
	check "gate.md's Files table has gate/$f" sh -c 'printf "%s\n" "$1" | grep -qxF -- "$2"' _ "$files" "$f"
done

# --- docs/tui.md: every key of the approval screen is in its Keys table -----
# The screen's own keys (tui/tui_approve.c) and the browser's it shares
# (tui/browser.c; Enter opens an item, which the approval screen has not).
ktable=$(sed -n '/^### Keys/,/^### /p' "$top/docs/tui.md" | grep '^| ')
sed -n '/^static const struct keybind approve_keys/,/^};/p; /^static const struct keybind nav_keys/,/^};/p' \
	"$top/tui/tui_approve.c" "$top/tui/browser.c" |
	sed -n "s/^[[:space:]]*{'\(.\)',.*/\1/p; s/^[[:space:]]*{TK_CTRL('\(.\)').*/Ctrl-\1/p; s/^[[:space:]]*{0, TK_\([A-Z]*\),.*/\1/p" |
	sed 's/^ $/space/; s/^Ctrl-\(.\)$/Ctrl-\U\1/; s/^DOWN$/arrows/; s/^UP$/arrows/; s/^PGDN$/PgDn/; s/^PGUP$/PgUp/;
		s/^HOME$/Home/; s/^END$/End/; s/^ESC$/Esc/' | grep -vxE "ENTER|NONE" | sort -u >"$d/keys"
check "the approval screen has keys" test "$(wc -l <"$d/keys")" -gt 15
while read -r k; do
	check "tui.md's Keys table has the approval screen's $k" sh -c 'printf "%s\n" "$1" | grep -qE -- "(\`$2\`|[ |]$2[ |,])"' _ "$ktable" "$k"
done <"$d/keys"

# --- docs/classifier.md's rules table against the catalogue -----------------
# The catalogue (classifier/rules.c) lists every id a finding may carry; the
# unit test holds the findings to it. Ids and tiers, both ways.
sed -n 's/^	{"\([a-z_.]*\)", \([LMHC]\),.*/\1 \2/p' "$top/classifier/rules.c" |
	sed 's/ L$/ low/; s/ M$/ medium/; s/ H$/ high/; s/ C$/ critical/' | sort >"$d/src.ids"
sed -n '/^## Rules/,/^## /p' "$top/docs/classifier.md" | grep -E '^\| `[a-z]' |
	awk -F'|' '{gsub(/[ `]/, "", $2); gsub(/ /, "", $3); print $2, $3}' | sort >"$d/doc.ids"
check "the catalogue has rules" test "$(wc -l <"$d/src.ids")" -gt 50
expect_eq "classifier.md's rule table = the catalogue (id, tier)" "$(diff "$d/src.ids" "$d/doc.ids" | grep '^[<>]' | tr '\n' ' ')" ""
# Every rule-shaped string literal in classifier/ is in the catalogue, but
# for the names of what scripts call (node's fs.rm and net.connect, Deno's
# sys.process) and files (secrets.json ...): a new id emitted without a
# row fails here before anyone reads the doc.
not_rules=' fs.rm net.connect sys.process secrets.json secrets.yaml secrets.yml '
for id in $(cat "$top"/classifier/*.c | grep -oE '"(parse|exec|fs|secrets|net|db|pkg|sys|git|sql|tool)\.[a-z_]+(\.[a-z_]+)*"' | tr -d '"' | sort -u); do
	case "$not_rules" in *" $id "*) continue ;; esac
	check "the classifier's $id is in the catalogue and classifier.md" grep -q "^$id " "$d/doc.ids"
done
# Each row's example fires its rule (the placeholders that cannot be
# written in a cell aside: 65,537 bytes, 12 levels, a missing library).
sed -n '/^## Rules/,/^## /p' "$top/docs/classifier.md" | grep -E '^\| `[a-z]' | python3 -c '
import re, sys
for l in sys.stdin:
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", l)[1:-1]]
    ex = cells[-1].strip().strip("`").replace("\\|", "|")
    if cells[0] == "`parse.binary`":
        ex = ex.encode().decode("unicode_escape")  # ls \x01: the byte itself
    print(cells[0].strip("`") + "\t" + ex)' >"$d/examples.tsv"
tab=$(printf '\t')
while IFS="$tab" read -r id ex; do
	case "$id" in parse.too_long | parse.too_deep | sql.parser_unavailable) continue ;; esac
	case "$id" in
	tool.unknown) got=$(printf '%s\n' "$ex" | "$A" classify) ;;
	sql.*) got=$("$A" classify --sql "$ex") ;;
	*) got=$("$A" classify --shell "$ex") ;;
	esac
	check "classifier.md's example for $id fires it: $ex" sh -c 'printf "%s" "$1" | jq -e --arg r "$2" ".rules | index(\$r)"' _ "$got" "$id"
done <"$d/examples.tsv"
# The rule ids my docs name are all real (net.connect is not)
for f in README.md docs/airlock.1 docs/gate.md docs/tui.md docs/preview.md; do
	for id in $(grep -oE '(^|[^a-zA-Z0-9_./-])(parse|exec|fs|secrets|net|db|pkg|sys|git|sql|tool)\.[a-z_]+(\.[a-z_]+)*' "$top/$f" | sed -E 's/^[^a-z]//' | sort -u); do
		check "$f names rule $id, which exists" grep -q "^$id " "$d/src.ids"
	done
done

# --- docs/preview.md: every key of the JSON form -----------------------------
printf 'v1\n' >VERSION
sqlite3 t.db "CREATE TABLE u(id INTEGER PRIMARY KEY, p TEXT); INSERT INTO u(p) VALUES ('a'),('b');
	CREATE TABLE n(p TEXT); INSERT INTO n VALUES ('x'),('y');"
printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"sed -i s/v1/v2/ VERSION; echo hi"}}' \
	'{"id":2,"tool":"sql","input":{"query":"DELETE FROM u WHERE p = '"'a'"'","database":"t.db"}}' \
	'{"id":3,"tool":"sql","input":{"query":"DELETE FROM n WHERE p = '"'x'"'","database":"t.db"}}' \
	'{"id":4,"tool":"sql","input":{"query":"DELETE FROM u"}}' \
	'{"id":5,"tool":"write_file","input":{"path":"w.txt","content":"x\n"}}' \
	'{"id":6,"tool":"edit_file","input":{"path":"VERSION","old_string":"nope","new_string":"x"}}' |
	"$A" preview --format json >"$d/pv.json" 2>/dev/null
iface=$(sed -n '/^## Interface/,/^## /p' "$top/docs/preview.md")
keys=$(jq -r '.preview | paths | map(select(type == "string")) | .[]' "$d/pv.json" | sort -u)
check "preview --format json gave keys" test -n "$keys"
for k in $keys; do
	check "preview.md names the preview key $k" sh -c 'printf "%s" "$1" | grep -qE "(^|[^a-z_])$2([^a-z_]|\$)"' _ "$iface" "$k"
done
expect_eq "preview: read_file has nothing to preview (null), as preview.md says" \
	"$(echo '{"id":7,"tool":"read_file","input":{"path":"README.md"}}' | "$A" preview --format json | jq -c .preview)" null

# --- README and airlock(1): the audit commands and --approve-with -----------
echo '{"id":"h1","tool":"shell","input":{"command":"rm -f nothing-here"}}' | "$A" gate --approve-with true >/dev/null 2>&1
for s in 'list' 'list --json' 'list --last 1' 'stats' 'stats --json' 'verify' 'export --format jsonl' 'export --format csv'; do
	"$A" audit $s >/dev/null 2>&1
	expect_eq "audit $s: exit 0" $? 0
done
expect_eq "audit with no subcommand off a terminal: the list, as airlock(1) says" "$("$A" audit 2>&1)" "$("$A" audit list 2>&1)"
id=$("$A" audit list --json | jq -r .id | tail -1)
expect_eq "audit show ID --json: exit 0, the call" "$("$A" audit show "$id" --json | jq -r .call.id)" "$id"
check "airlock(1) names show --json and stats --json" sh -c 'printf "%s" "$1" | tr "\n" " " | grep -q "show .I ID .RB \[ --json \].*stats .RB \[ --json \]"' _ "$(man_entry audit)"
# A subject past 64 KiB reaches --approve-with cut, AIRLOCK_CUT naming it
printf '#!/bin/sh\nenv >"%s/appr.env"; exit 1\n' "$d" >"$d/appr.sh" && chmod +x "$d/appr.sh"
big=$(python3 -c 'print("SELECT 1 WHERE " + " OR ".join(["1 = 1"] * 14000))')
jq -cn --arg q "$big" '{id:"b",tool:"sql",input:{query:$q}}' | "$A" gate --approve-with "$d/appr.sh" >/dev/null 2>&1
check "--approve-with: AIRLOCK_CUT names the cut subject" grep -q '^AIRLOCK_CUT=SUBJECT' "$d/appr.env"
check "airlock(1) names AIRLOCK_CUT" grep -q 'AIRLOCK_CUT' "$top/docs/airlock.1"
# `airlock` with only gate options, stdin not a terminal: the gate
out=$(echo '{"id":"g","tool":"shell","input":{"command":"true"}}' | "$A" --no-tty 2>/dev/null)
expect_eq "airlock --no-tty < calls: the gate, as airlock(1) says" "$(printf '%s' "$out" | jq -r .decision)" auto
check "airlock(1) says gate options alone run the gate" grep -q "with only the gate's options" "$top/docs/airlock.1"

# --- make: help and install --------------------------------------------------
help=$(make -s -C "$top" help 2>&1)
for t in demo test check deps bench fuzz soak lint install clean help; do
	check "make help lists make $t" sh -c 'printf "%s\n" "$1" | grep -q "^  make $t "' _ "$help"
	check "README names make $t" grep -q "make $t" "$top/README.md"
done
# Install the binary under test: a copy in a build dir of our own, -o so
# make never rebuilds it (nor anything in the frozen base build).
mkdir -p "$d/b" && cp "$A" "$d/b/airlock"
make -s -C "$top" BUILD="$d/b" -o "$d/b/airlock" install DESTDIR="$d/dest" PREFIX=/usr/local >"$d/install.log" 2>&1
expect_eq "make install DESTDIR: exit 0" $? 0
p=$d/dest/usr/local
for f in bin/airlock share/man/man1/airlock.1 share/man/man5/airlock-policy.5 share/doc/airlock/README.md \
	share/doc/airlock/docs/classifier.md share/doc/airlock/docs/preview.md share/doc/airlock/docs/tui.md; do
	check "make install puts $f in place" test -s "$p/$f"
done
check "the installed man page is the one in docs/" cmp -s "$p/share/man/man1/airlock.1" "$top/docs/airlock.1"
check "airlock(1) says where the docs are installed" grep -q 'share/doc/airlock' "$top/docs/airlock.1"
check "the installed binary runs" "$p/bin/airlock" --version

# -h is --help for every command (audit said "invalid option", hook exited 2)
for c in audit hook exec classify gate; do
	check "$c -h: help, exit 0" sh -c "'$AIRLOCK' $c -h >/dev/null 2>&1"
done
# usage errors say what was wrong before the usage (docs review 2)
check "watch --format yaml names the problem" sh -c "'$AIRLOCK' watch --format yaml </dev/null 2>&1 | head -1 | grep -q 'wants auto, claude or codex'"
check "mcp -- names the problem" sh -c "'$AIRLOCK' mcp -- </dev/null 2>&1 | head -1 | grep -q 'no server given'"
finish
