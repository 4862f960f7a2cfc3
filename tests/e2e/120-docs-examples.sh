#!/bin/sh
# 120-docs-examples.sh: the documented examples, run as a new user pastes
# them (README.md, docs/airlock.1, docs/protocol.md, docs/integrations.md),
# and each command's --help held against its synopsis, so docs that drift
# from the binary fail here. Shapes and key fields only, never whole
# outputs byte for byte. Each doc fix in it failed on 2a775fb's docs.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq sqlite3 python3
# The rendered man page's checks need man, groff and col (man-db, groff-base,
# bsdextrautils), which make deps does not install: skipped without them.
render=1
for t in man groff col; do command -v "$t" >/dev/null || render=0; done
[ "$render" = 1 ] || echo "skip: man, groff or col missing: the rendered man page is not checked"
tmpdir_make
d=$T_DIR
top=$PWD
export HOME="$d/home" XDG_STATE_HOME="$d/state" TMPDIR="$d/tmp"
unset AIRLOCK_DB CLAUDE_PROJECT_DIR XDG_CONFIG_HOME
mkdir -p "$HOME" "$TMPDIR" "$d/wd"
cd "$d/wd" && git init -q . && printf 'all:\n\ttrue\n' >Makefile && echo readme >README.md
A=$AIRLOCK
has() { printf '%s' "$out" | grep -q -- "$1"; }
# keys JSON: the object's keys, sorted, one line
keys() { printf '%s' "$1" | jq -cr 'keys_unsorted | sort | join(",")'; }
# doc_block FILE START: the lines of FILE after the first line that starts
# with START, up to the closing fence
doc_block() { awk -v s="$2" 'f && /^```/ {exit} f {print} index($0, s) == 1 {f = 1}' "$top/$1"; }

# --- every option in a command's --help is in its man synopsis and README ---
# The man page's SYNOPSIS, one entry per `.B airlock CMD`, its options as
# written (\-\-opt); README's usage block, one line per `airlock CMD`.
# Options run, hook, mcp and watch share with the gate are named once, as
# [OPTIONS]. On 2a775fb: preview's --color, --workdir, --policy, classify's
# --workdir, policy's -w and show --policy, audit browse and reindex were in
# --help and nowhere in the synopsis.
shared='--db --workdir --policy --no-redact --approve-with --line-cap --no-tty'
man_syn() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$top/docs/airlock.1" |
		awk -v c="$1" '/^\.B airlock / {on = ($3 == c)} on' | sed 's/\\-/-/g'
}
readme_syn() {
	sed -n '/^## Usage/,/^```$/p' "$top/README.md" | sed -n '/^```sh/,/^```$/p' |
		awk -v c="$1" '$1 == "airlock" && $2 == c'
}
for c in gate classify exec preview policy run hook mcp watch; do
	opts=$("$A" "$c" --help 2>&1 | grep -E '^(usage:|[[:space:]])' | grep -oE -- '(^|[[ ])(--[a-z][a-z-]*|-w)\b' | tr -d '[ ' | sort -u)
	ms=$(man_syn "$c") rs=$(readme_syn "$c")
	for o in $opts; do
		[ "$o" = --help ] && continue
		case " $shared " in *" $o "*) [ "$c" = run ] || [ "$c" = hook ] || [ "$c" = mcp ] ||
			[ "$c" = watch ] && continue ;; esac
		check "man synopsis of $c names $o" sh -c 'printf "%s\n" "$1" | grep -qE -- "(^|[[ ])$2([] ]|$)"' _ "$ms" "$o"
		check "README usage of $c names $o" sh -c 'printf "%s\n" "$1" | grep -qE -- "(^|[[ ])$2([] ]|$)"' _ "$rs" "$o"
	done
done
for s in browse list show export stats verify reindex prune; do
	check "audit --help's $s is in the man synopsis" sh -c 'printf "%s" "$1" | grep -q "$2"' _ "$(man_syn audit)" "$s"
	check "audit --help's $s is in README's usage" sh -c 'printf "%s" "$1" | grep -q "$2"' _ "$(readme_syn audit)" "$s"
	check "airlock audit --help lists $s" sh -c '"$1" audit --help 2>&1 | grep -q "airlock audit.*$2"' _ "$A" "$s"
done
check "--version works and is in the man synopsis" sh -c \
	'"$1" --version | grep -q "^airlock [0-9]" && grep -q "^\.B airlock \\\\-\\\\-version" "$2/docs/airlock.1"' _ "$A" "$top"
check "-V prints the version, as the synopsis says" sh -c '"$1" -V </dev/null | grep -q "^airlock [0-9]"' _ "$A"
[ "$render" = 1 ] && check "the man page renders without warnings" sh -c \
	'[ -z "$(groff -man -ww -z "$1/docs/airlock.1" 2>&1)" ]' _ "$top"
# A quote inside a word in a .B line is roff's argument quote: the man
# page printed [profile NAME ] for [profile "NAME"].
[ "$render" = 1 ] && check "the man page prints [profile \"NAME\"]" sh -c \
	'man -l "$1/docs/airlock.1" 2>/dev/null | col -b | grep -q "\[profile \"NAME\"\]"' _ "$top"

# --line-cap: bytes, 1024 up, an optional k/m/g suffix (airlock(1))
lc() { "$A" gate --line-cap "$1" </dev/null >/dev/null 2>&1; echo $?; }
expect_eq "--line-cap takes 1024, 16777216 and 16m, not 1000 or 17g" "$(lc 1024) $(lc 16777216) $(lc 16m) $(lc 1000) $(lc 17g)" "0 0 0 2 2"
check "airlock(1) says --line-cap takes a k, m or g suffix" grep -q 'binary k, m or g suffix' "$top/docs/airlock.1"

# --- README: airlock gate ---------------------------------------------------
out=$(echo '{"id":"c1","tool":"shell","input":{"command":"ls"}}' | "$A" gate 2>/dev/null)
doc=$(doc_block README.md '$ echo '"'"'{"id":"c1"' | head -1 | sed 's/"stdout":"[^"]*"/"stdout":""/')
expect_eq "README gate example: the result's fields" "$(keys "$out")" "$(keys "$doc")"
expect_eq "README gate example: decision, exit code, applied" \
	"$(printf '%s' "$out" | jq -cr '[.id, .decision, .exit_code, .applied, (.audit_id | type)] | join(" ")')" \
	"c1 auto 0 run number"

# --- README: classify --explain, the same rules in the same order -----------
cmd=$(grep '^\$ airlock classify --explain' "$top/README.md" | head -1 | sed 's/^\$ airlock //')
doc=$(doc_block README.md '$ airlock classify --explain' | grep -E '^  [a-z]+\.[a-z_.]+ ' | awk '{print $1, $2}')
out=$(eval "\"\$A\" $cmd" 2>&1)
expect_eq "README classify --explain: rules and tiers" \
	"$(printf '%s\n' "$out" | grep -E '^  [a-z]+\.[a-z_.]+ ' | awk '{print $1, $2}')" "$doc"
expect_eq "README classify --explain: header and policy line" \
	"$(printf '%s\n' "$out" | sed -n '1s/:.*//p'; printf '%s\n' "$out" | grep -c '^  policy: tier critical: deny')" \
	"$(doc_block README.md '$ airlock classify --explain' | sed -n '1s/:.*//p')
1"

# --- README: the policy example and the defaults ----------------------------
doc_block README.md '```ini' >"$d/readme.policy"
check "README's policy example passes policy check" "$A" policy check "$d/readme.policy"
"$A" policy show --defaults >"$d/defaults.policy" 2>/dev/null
check "policy show --defaults is a valid policy file" "$A" policy check "$d/defaults.policy"
check "policy show marks each value's origin" sh -c '"$1" policy show | grep -q "action = deny	# default"' _ "$A"
if [ "$render" = 1 ]; then
	man -l "$top/docs/airlock-policy.5" 2>/dev/null | col -b | sed -n '/^EXAMPLES/,/^SEE/p' | sed '1d;$d' |
		sed 's/^       //; s/^	    /	/' | grep . >"$d/p5.policy"
	check "airlock-policy(5)'s example passes policy check" "$A" policy check "$d/p5.policy"
fi
# README: Claude Code rules paste, those for tools airlock has no subject
# for are errors
for r in 'Bash(git diff:*)' 'Read(./.env)' 'Edit(src/**)' 'Write(docs/**)' 'WebFetch(domain:example.com)' mcp__github__create_issue 'Glob(src/**)' 'NotebookEdit(x.ipynb)'; do
	printf '[rules]\n\tallow = %s\n' "$r" >"$d/cc.policy" && chmod 600 "$d/cc.policy"
	check "a pasted Claude Code rule: $r" "$A" policy check "$d/cc.policy"
done
for r in WebSearch Task 'Glob'; do
	printf '[rules]\n\tallow = %s\n' "$r" >"$d/cc.policy" && chmod 600 "$d/cc.policy"
	"$A" policy check "$d/cc.policy" >/dev/null 2>&1
	expect_eq "a Claude Code rule airlock has no subject for is an error: $r" $? 2
done
check "README says which pasted rules are errors" grep -q 'airlock has no subject for' "$top/README.md"
printf '[nope]\n\tx = 1\n' >"$d/bad.policy"
"$A" policy check "$d/bad.policy" >/dev/null 2>&1
expect_eq "policy check: exit 2 on an error" $? 2
# Every .airlock/policy from DIR up is read (the man page said the nearest).
mkdir -p "$d/wd/sub/.airlock" "$d/wd/.airlock"
printf '[tier "low"]\n\taction = ask\n' >"$d/wd/sub/.airlock/policy"
printf '[tier "medium"]\n\taction = ask\n' >"$d/wd/.airlock/policy"
chmod 644 "$d/wd/sub/.airlock/policy" "$d/wd/.airlock/policy"
out=$("$A" policy show -w "$d/wd/sub" 2>&1)
check "policy show -w: the layer in DIR" has "$d/wd/sub/.airlock/policy"
check "policy show -w: the layer above it too" has "# $d/wd/.airlock/policy"
check "the man page says every project layer is read" grep -q 'every one from there up to /' "$top/docs/airlock.1"
rm -rf "$d/wd/sub/.airlock" "$d/wd/.airlock"

# --- airlock exec: the documented exit statuses -----------------------------
ex() { "$A" exec "$@" >/dev/null 2>&1; echo $?; }
expect_eq "exec: the command's status passes through" "$(ex -- sh -c 'exit 7')" 7
expect_eq "exec: 127 when not found" "$(ex -- no-such-program-xyz)" 127
expect_eq "exec: 137 after --timeout" "$(ex --timeout 1 -- sleep 30)" 137
printf '[profile "workspace"]\n\ttimeout = 1\n' >"$d/to.policy" && chmod 600 "$d/to.policy"
expect_eq "exec --timeout: whole seconds, replacing the profile's" \
	"$(ex --timeout 1.5 -- true) $(ex --policy "$d/to.policy" --timeout 4 -- sleep 2)" "2 0"
expect_eq "exec: 2 on an unknown profile" "$(ex --profile no-such-profile -- true)" 2
expect_eq "exec: 125 for a --chdir outside the workdir" "$(ex --chdir / -- true)" 125
expect_eq "exec --profile readonly: the workdir cannot be written" "$(ex --profile readonly -- touch x)" 1
expect_eq "exec: default profile workspace writes the workdir" "$(ex -- touch made-by-exec)$([ -e made-by-exec ] && echo y)" 0y

# --- preview: the README's DELETE sentence, the JSON shape, exit 1 ----------
sqlite3 "$d/wd/demo.db" "CREATE TABLE users(id INTEGER PRIMARY KEY, plan TEXT);
	INSERT INTO users(plan) VALUES ('free'),('pro'),('free'),('free'),('pro');"
call='{"id":"p1","tool":"sql","input":{"query":"DELETE FROM users WHERE plan = '"'free'"'","database":"demo.db"}}'
out=$(echo "$call" | "$A" preview 2>&1)
check "preview: 'DELETE would remove N of M rows in T', as README says" has 'DELETE would remove 3 of 5 rows in users'
out=$(printf '%s\n' "$call" '{"id":"p2","tool":"write_file","input":{"path":"n.txt","content":"x\n"}}' |
	"$A" preview --format json 2>/dev/null)
expect_eq "preview --format json: one object per call with its preview" \
	"$(printf '%s\n' "$out" | jq -cr '[.id, .tool, (.preview.complete | type), (.preview.summary | has("insertions"))] | join(" ")')" \
	"p1 sql boolean true
p2 write_file boolean true"
c='{"id":"c","tool":"write_file","input":{"path":"n.txt","content":"x\n"}}'
esc=$(printf '\033')
ncol() { grep -c "$esc"; }
expect_eq "preview colour: auto off with NO_COLOR and off a terminal, always on anyway" \
	"$(printf "%s\n" "$c" | NO_COLOR=1 "$A" preview 2>/dev/null | ncol) $(printf "%s\n" "$c" | "$A" preview 2>/dev/null | ncol) $(
		printf "%s\n" "$c" | NO_COLOR=1 TERM=dumb "$A" preview --color always 2>/dev/null | ncol | sed 's/^[1-9][0-9]*$/on/')" "0 0 on"
echo oops | "$A" preview >/dev/null 2>&1
expect_eq "preview: exit 1 when a line could not be decoded" $? 1
expect_eq "preview changed nothing" "$(sqlite3 "$d/wd/demo.db" 'SELECT count(*) FROM users')$([ -e n.txt ] || echo ' no-file')" "5 no-file"

# docs/preview.md's opening example, on the files it implies
mkdir -p "$d/pv/build" && echo v1 >"$d/pv/VERSION" && head -c 1208 /dev/zero >"$d/pv/build/a.o" && echo line >"$d/pv/build/log"
cmd=$(sed -n '/^\$ echo .*rm -rf build/s/^\$ echo \(.*\) \\$/\1/p' "$top/docs/preview.md")
out=$(cd "$d/pv" && eval "echo $cmd" | "$A" preview 2>&1)
out=$(printf '%s\n' "$out" | tr -s ' ')
for l in ' VERSION | 2 +1 -1' ' build | deleted directory' ' build/a.o | Bin 1208 -> 0 bytes' \
	' 3 files changed (0 added, 1 modified, 2 deleted), +1 -2; 1 directory (0 added, 0 mode changed, 1 deleted)'; do
	check "preview.md's example:$l" sh -c 'printf "%s\n" "$1" | grep -qxF -- "$2"' _ "$out" "$l"
done
check "preview.md's example: the shell dry run left the files" test -f "$d/pv/VERSION" -a -d "$d/pv/build"

# README: an approved call whose preview is complete is applied from it
echo x >"$d/wd/victim"
out=$(cd "$d/wd" && echo '{"id":"ap2","tool":"shell","input":{"command":"rm -f victim"}}' | "$A" gate --approve-with true 2>/dev/null)
expect_eq "README: approved with a complete preview, applied: preview" \
	"$(printf '%s' "$out" | jq -cr '[.decision, .applied] | join(" ")')$([ -e "$d/wd/victim" ] || echo ' gone')" "approved preview gone"

# --- docs/protocol.md: the examples and the result fields -------------------
out=$(printf '%s\n' '{"id":1,"tool":"shell","input":{"command":"echo hi"}}' 'oops' | "$A" gate 2>/dev/null)
expect_eq "protocol example: a call, then a line that is no JSON" \
	"$(printf '%s\n' "$out" | jq -cr '[.id, .decision, (.stdout | values | rtrimstr("\n")) // .error[0:12], (.line // empty)] | join(" ")')" \
	"1 auto hi
 error invalid JSON 2"
doc=$(doc_block docs/protocol.md "\$ airlock classify --shell 'curl")
cmd=$(grep "^\\\$ airlock classify --shell 'curl" "$top/docs/protocol.md" | sed 's/^\$ airlock //')
out=$(eval "\"\$A\" $cmd" 2>/dev/null)
expect_eq "protocol classify example: tier, rules, action" \
	"$(printf '%s' "$out" | jq -cr '[.tier, (.rules | join(",")), .action] | join(" ")')" \
	"$(printf '%s' "$doc" | sed -E 's/.*"tier":"([a-z]+)".*"rules":\[([^]]*)\].*"action":"([a-z]+)".*/\1 \2 \3/; s/"//g')"
# Each shape in the "Other shapes" table decodes.
sed -n '/^### Other shapes/,/^The shape is chosen/p' "$top/docs/protocol.md" | grep -o '`{.*}`' | tr -d '`' >"$d/shapes.jsonl"
expect_eq "protocol: the shapes table has its five examples" "$(wc -l <"$d/shapes.jsonl")" 5
expect_eq "protocol: every shape in the table decodes" \
	"$("$A" classify <"$d/shapes.jsonl" 2>/dev/null | jq -r 'select(.decision == "error")' | wc -l)" 0
# Every field of a result is in the Results table or its example.
res=$(sed -n '/^## Results/,/^A line that cannot be decoded/p' "$top/docs/protocol.md")
for call in '{"id":"r1","tool":"shell","input":{"command":"sleep 5","timeout_ms":500}}' \
	'{"id":"r2","tool":"frobnicate","input":{}}'; do
	out=$(echo "$call" | "$A" gate --no-tty 2>/dev/null)
	for k in $(printf '%s' "$out" | jq -r 'keys[]'); do
		check "protocol documents result field $k" sh -c 'printf "%s" "$1" | grep -qE "[\"\`]$2[\"\`]"' _ "$res" "$k"
	done
done
expect_eq "an unknown tool's result: tool other, its name given" \
	"$(printf '%s' "$out" | jq -cr '[.tool, .name] | join(" ")')" "other frobnicate"
check "protocol says an unknown tool's result is tool other" grep -q '"tool":"other"' "$top/docs/protocol.md"

# ids: kept as given; an object or an integer past 2^63 is an error result
out=$(printf '%s\n' '{"id":1.5,"tool":"shell","input":{"command":"true"}}' \
	'{"id":12345678901234567890,"tool":"shell","input":{"command":"true"}}' '{"id":{},"tool":"shell","input":{"command":"true"}}' |
	"$A" classify 2>/dev/null)
expect_eq "protocol: ids as documented" "$(printf '%s\n' "$out" | jq -cr '[.id, .decision // .tier] | join(" ")')" "1.5 low
 error
 error"
check "protocol.md names the id limit" grep -q 'too big integer' "$top/docs/protocol.md"

# A cwd other than the workdir is denied, not changed into (protocol.md's
# shell row said only `cwd?`, and its hook payload example, cwd /w, was
# denied when pasted into the gate).
out=$(printf '%s\n' '{"id":"d1","tool":"shell","input":{"command":"pwd","cwd":"sub"}}' \
	"$(sed -n '/^### Other shapes/,/^The shape is chosen/p' "$top/docs/protocol.md" | grep -o '`{"session_id.*}`' | tr -d '`')" |
	"$A" gate --no-tty 2>/dev/null)
expect_eq "a call's cwd that is not the workdir: denied, saying so" \
	"$(printf '%s\n' "$out" | jq -cr '[.decision, (.reason | contains("is not the workdir"))] | join(" ")')" "denied true
denied true"
check "protocol.md says a cwd that is not the workdir is denied" grep -q 'a `cwd` that is not it .* is denied' "$top/docs/protocol.md"

# --approve-with: the variables airlock(1) names are set, the call's JSON is
# on stdin, and the first line printed is the denial's reason
printf '#!/bin/sh\nenv >"%s/appr.env"; cat >"%s/appr.in"; echo "no: $AIRLOCK_TIER"; echo more; exit 1\n' "$d" "$d" >"$d/appr.sh"
chmod +x "$d/appr.sh"
out=$(echo '{"id":"ap","tool":"shell","input":{"command":"rm -f nothing"}}' | "$A" gate --approve-with "$d/appr.sh" 2>/dev/null)
expect_eq "--approve-with: a denial's reason is the first line it printed" \
	"$(printf '%s' "$out" | jq -cr '[.decision, .reason] | join(" ")')" "denied no: high"
for v in $(sed -n '/^\.B gate/,/^\.TP/p' "$top/docs/airlock.1" | grep -oE 'AIRLOCK_[A-Z_]+' | sort -u); do
	check "--approve-with gets $v, as airlock(1) says" grep -q "^$v=" "$d/appr.env"
done
expect_eq "--approve-with: the call's JSON on stdin" "$(jq -cr '[.id, .tier] | join(" ")' "$d/appr.in")" "ap high"

# --- audit: the team lead's week --------------------------------------------
echo '{"id":"h1","tool":"shell","input":{"command":"rm -f nothing-here"}}' | "$A" gate --approve-with true >/dev/null 2>&1
out=$("$A" audit list --since 7d 2>&1)
check "audit list --since 7d: the approved call" has 'approved'
out=$("$A" audit list --tier high+ --decision approved --grep nothing-here --json 2>&1)
expect_eq "audit list --tier high+ --json: one object per call, key fields" \
	"$(printf '%s\n' "$out" | jq -cr '[.tier, .decision, .who, .tool, (.id | type)] | join(" ")')" "high approved approve-with shell number"
id=$(printf '%s\n' "$out" | jq -r .id)
# list: oldest first, one line per call: id, time, tier, decision, tool,
# duration, summary (docs/audit.md)
out=$("$A" audit list 2>&1)
check "audit list: the documented columns" sh -c 'printf "%s\n" "$1" | grep -Eq "^ *[0-9]+  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}  high +approved +shell +[0-9]+ms  rm -f nothing-here\$"' _ "$out"
expect_eq "audit list: oldest first" "$(printf '%s\n' "$out" | awk '{print $1}' | sort -n | tr '\n' ' ')" "$(printf '%s\n' "$out" | awk '{print $1}' | tr '\n' ' ')"
expect_eq "audit list --last 1: the newest" "$("$A" audit list --last 1 | awk '{print $1}')" "$(printf '%s\n' "$out" | tail -1 | awk '{print $1}')"
out=$("$A" audit show "$id" 2>&1)
check "audit show: the integrity line first" sh -c 'printf "%s\n" "$1" | head -1 | grep -q "^integrity: ok"' _ "$out"
expect_eq "audit show --json: call, events" "$("$A" audit show "$id" --json | jq -cr '[(.call.id == '"$id"'), (.events | length > 3)] | join(" ")')" "true true"
expect_eq "audit stats --json: the documented keys" \
	"$("$A" audit stats --json | jq -cr 'keys | sort | join(",")')" "by_decision,by_rule,by_tier,by_tool,top_denied,total,waits"
out=$("$A" audit verify 2>&1)
expect_eq "audit verify: ok" $? 0
pin=$(printf '%s\n' "$out" | sed -n 's/^head \([0-9]*:[0-9a-f]*\) .*/\1/p')
check "audit verify --pin the head it printed" "$A" audit verify --pin "$pin"
expect_eq "audit export jsonl: one object per call" \
	"$("$A" audit export --format jsonl | jq -r .id | wc -l)" "$("$A" audit list --json | wc -l)"
check "audit export csv: a header row" sh -c '"$1" audit export --format csv | head -1 | grep -q "^id,session,time,mode,tool"' _ "$A"
"$A" audit show 999999 >/dev/null 2>&1
expect_eq "audit show of no such call: exit 1" $? 1
"$A" audit list --db "$d/nothing.db" >/dev/null 2>&1
expect_eq "audit on a missing log: exit 125" $? 125
check "audit prune --before a date: the rest verifies" sh -c '"$1" audit prune --before 2000-01-01 && "$1" audit verify' _ "$A"

# Every ```json block pastes as JSON (Claude Desktop's config had a //
# comment in it, which a JSON reader refuses).
for f in README.md docs/integrations.md docs/protocol.md; do
	awk -v o="$d/jb.$(basename "$f")." '/^```json/ {on = 1; n++; next} /^```/ {on = 0; next} on {print > (o n)}' "$top/$f"
done
for j in "$d"/jb.*; do
	[ -e "$j" ] || continue
	check "the json block ${j#"$d"/jb.} parses" jq -e . "$j"
done

# --- docs/integrations.md: the hook's answer -------------------------------
hook() { "$A" hook claude "$@" 2>/dev/null; }
payload() { printf '{"session_id":"s","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"t"}' "$1" "$2" "$3"; }
# The rewritten command, held against the template the table gives
tpl=$(grep -o "replaced by \`[^\`]*\`" "$top/docs/integrations.md" | head -1 | sed "s/^replaced by \`//; s/\`\$//")
re=$(python3 -c '
import re, sys
out = []
for tok in re.findall(r"\[[^]]*\]|\S+", sys.argv[1]):
    r = re.sub(r"<[^>]*>", "[^\x27]*", re.escape(tok.strip("[]")))
    out.append("(" + r + " )?" if tok.startswith("[") else r + " ")
print("^" + "".join(out).rstrip() + "$")' "$tpl")
check "the hook template reads as a pattern" test -n "$re"
ex=$(grep -o '^{"hookSpecificOutput".*}$' "$top/docs/integrations.md" | head -1 | jq -r .hookSpecificOutput.updatedInput.command)
check "integrations.md's Output example fits its own template" \
	python3 -c 'import re, sys; sys.exit(0 if re.match(sys.argv[1], sys.argv[2]) else 1)' "$re" "$ex"
mkdir -p "$HOME/proj/sub" && git -C "$HOME/proj" init -q
for c in "$HOME/proj" "$HOME/proj/sub"; do
	for cmd in ls 'git commit -m x' 'rm -f x'; do
		for env in "" "CLAUDE_PROJECT_DIR=$HOME/proj"; do
			out=$(payload "$c" Bash "{\"command\":\"$cmd\"}" |
				env $env "$A" hook claude 2>/dev/null)
			got=$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput.command')
			check "hook: '$cmd' from $c ${env:+(project given)}: the command has the documented form" \
				python3 -c 'import re, sys; sys.exit(0 if re.match(sys.argv[1], sys.argv[2]) else 1)' "$re" "$got"
		done
	done
done
# The try-it line before wiring the hook, pasted in the project
line=$(grep -o "^\`echo '{\"session_id\".*| airlock hook claude\`" "$top/docs/integrations.md" | tr -d '\`')
out=$(cd "$HOME/proj" && eval "$(printf '%s' "$line" | sed 's/| airlock /| "$A" /')" 2>/dev/null)
expect_eq "integrations.md's try-it line: allow, Bash rewritten" \
	"$(printf '%s' "$out" | jq -cr '.hookSpecificOutput | [.permissionDecision, (.updatedInput.command | test(" exec --profile .readonly. .* -- bash -c -- .ls.$"))] | join(" ")')" "allow true"
out=$(payload "$HOME/proj" Bash '{"command":"ls -la","description":"List files"}' | CLAUDE_PROJECT_DIR=$HOME/proj hook)
expect_eq "hook: the documented allow answer's fields" \
	"$(printf '%s' "$out" | jq -cr '.hookSpecificOutput | [.hookEventName, .permissionDecision, (.permissionDecisionReason | startswith("airlock: low")), .updatedInput.description] | join(" ")')" \
	"PreToolUse allow true List files"
out=$(payload "$HOME/proj" Bash '{"command":"rm -rf /"}' | hook)
expect_eq "hook: deny, exit 0" "$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision) $?" "deny 0"
out=$(echo garbage | hook)
check "hook: malformed input is denied, saying so" has '"permissionDecision":"deny","permissionDecisionReason":"airlock: malformed hook payload'
echo garbage >"$d/not-a-log.db"
out=$(payload "$HOME/proj" Bash '{"command":"ls"}' | hook --db "$d/not-a-log.db")
check "hook: a log error is denied, naming the log" has '"permissionDecision":"deny","permissionDecisionReason":"airlock: audit log '
out=$(payload "$HOME/proj" Bash '{"command":"rm -f x"}' | hook --no-tty)
expect_eq "hook --no-tty without --tui: the ask still goes to Claude Code" \
	"$(printf '%s' "$out" | jq -r .hookSpecificOutput.permissionDecision)" ask
"$A" hook </dev/null >/dev/null 2>&1
expect_eq "hook without 'claude': exit 2, as the man page says" $? 2
# The settings.json examples: one matcher, the same in README and integrations.md
m1=$(grep -o '"matcher": *"[^"]*"' "$top/docs/integrations.md" | head -1 | sed 's/.*: *//')
m2=$(grep -o '"matcher": *"[^"]*"' "$top/README.md" | head -1 | sed 's/.*: *//')
expect_eq "README's and integrations.md's hook matcher agree" "$m1" "$m2"
out=$(payload "$HOME/proj" TodoWrite '{"todos":[]}' | hook)
check "TodoWrite, which the matcher leaves out, would ask" has '"permissionDecision":"ask"'
check "the matcher leaves TodoWrite to Claude Code" sh -c 'printf "TodoWrite" | grep -qvE "^($1)\$"' _ "$(printf '%s' "$m1" | tr -d '"')"

# --- run: the README's example leaves nothing in the clone -------------------
mkdir -p "$d/clone/examples" && cp -r "$top/examples/agents" "$d/clone/examples/"
line=$(grep -E '^airlock run .*tiny-agent\.py$' "$top/README.md" | head -1)
out=$(cd "$d/clone" && eval "\"\$A\" run --no-tty ${line#airlock run }" 2>&1)
check "README run example: the agent's calls go through" has 's1 -> auto'
expect_eq "README run example: nothing written into the clone" "$(ls "$d/clone")" examples

# run's documented statuses: the agent's own, 127 not found, 126 cannot run,
# 2 bad options
rs() { "$A" run --no-tty --workdir "$d/clone" "$@" </dev/null >/dev/null 2>&1; echo $?; }
expect_eq "run: the agent's status" "$(TINY_AGENT_EXIT=5 rs -- python3 "$top/examples/agents/tiny-agent.py")" 5
expect_eq "run: 127 when the agent is not found" "$(rs -- no-such-agent-xyz)" 127
: >"$d/noexec" && chmod 644 "$d/noexec"
expect_eq "run: 126 when it cannot be run" "$(rs -- "$d/noexec")" 126
expect_eq "run: 2 without an agent" "$(rs)" 2

# --- watch and mcp: the documented lines ------------------------------------
cd "$d/wd" || exit 1
doc=$(grep '^airlock watch: FLAGGED' "$top/docs/integrations.md" | head -1)
cmd=$(printf '%s' "$doc" | sed 's/^airlock watch: FLAGGED high: //; s/ \[.*//')
out=$(jq -cn --arg c "$cmd" '{type:"assistant",message:{content:[{type:"tool_use",id:"t1",name:"Bash",input:{command:$c}}]}}' |
	"$A" watch 2>&1 >/dev/null)
check "watch: the FLAGGED line as documented" has "$(printf '%s' "$doc" | sed 's/ \[.*//')"
for r in $(printf '%s' "$doc" | grep -oE '\[[a-z_.]+:' | tr -d '[:'); do
	check "watch: the FLAGGED line names $r" has "\\[$r:"
done
check "watch: the summary line" has 'airlock watch: 1 tool calls recorded, 1 flagged high or critical'
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"exec","arguments":{"command":"rm -rf /"}}}' |
	timeout 30 "$A" mcp --no-tty -- python3 "$top/tests/data/integrations/fake-mcp-server.py" "$d/fake.log" 2>/dev/null)
expect_eq "mcp: a denied call's documented answer" \
	"$(printf '%s\n' "$out" | jq -cr 'select(.id == 3) | [.result.isError, (.result.content[0].text | startswith("denied by airlock: critical: "))] | join(" ")')" \
	"true true"

finish
