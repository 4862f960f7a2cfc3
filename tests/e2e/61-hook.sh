#!/bin/sh
# 61-hook.sh: `airlock hook claude` with Claude Code PreToolUse payloads for
# Bash, Write, Edit, MultiEdit, Read, WebFetch and an MCP tool, plus broken
# ones: always exit 0 and one answer; auto Bash rewritten into `airlock
# exec`, quoted so the shell gives back the exact command; malformed input
# denied; every decodable call in the audit log (mode "hook"); libgit2 never
# loaded on this path.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-hook.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wd"
printf 'a\nc\n' > "$d/wd/notes.md"
db=$d/audit.db
cases=tests/data/integrations/hook-cases.tsv
tab=$(printf '\t')

grep -v '^#' "$cases" | while IFS="$tab" read -r name want payload; do
	printf '%s\n' "$payload" | sed "s#WORKDIR#$d/wd#g" > "$d/$name.json"
	# Claude Code names the project; without it the hook guesses (below)
	(cd / && CLAUDE_PROJECT_DIR="$d/wd" "$AIRLOCK" hook claude --db "$db" < "$d/$name.json" \
		> "$d/$name.out" 2> "$d/$name.err")
	echo "$name $? $want"
done > "$d/ran"

while read -r name rc want; do
	expect_eq "$name: exit status" "$rc" 0
	expect_eq "$name: one line of output" "$(wc -l < "$d/$name.out")" 1
	got=$(jq -r '.hookSpecificOutput | select(.hookEventName == "PreToolUse") | .permissionDecision' "$d/$name.out")
	case "|$want|" in
	*"|$got|"*) expect_eq "$name: decision" ok ok ;;
	*) expect_eq "$name: decision" "$got" "$want" ;;
	esac
	check "$name: a reason" jq -e '.hookSpecificOutput.permissionDecisionReason | length > 8' "$d/$name.out"
done < "$d/ran"

# Auto Bash runs inside airlock exec; the shell gets back the exact command.
cmd=$(jq -r '.hookSpecificOutput.updatedInput.command' "$d/bash-ls.out")
eval "set -- $cmd"
expect_eq "rewrite: airlock by absolute path" "$1" "$(readlink -f "$AIRLOCK")"
expect_eq "rewrite: exec with a profile" "$2 $3" "exec --profile"
expect_eq "rewrite: the project is the workdir" "$5 $6" "--workdir $(readlink -f "$d/wd")"
expect_eq "rewrite: bash -c -- COMMAND" "$7 $8 $9 ${10} ${11}" "-- bash -c -- ls"
expect_eq "rewrite: other fields kept" "$(jq -r '.hookSpecificOutput.updatedInput.description' "$d/bash-ls.out")" "List files"
check "rewrite: the sandboxed command runs" sh -c "cd '$d/wd' && $cmd | grep -qx notes.md"
for f in write edit read; do
	expect_eq "$f: no updatedInput" "$(jq -c '.hookSpecificOutput.updatedInput' "$d/$f.out")" null
done
check "deny reason names the rule" grep -q 'fs.delete' "$d/bash-rm-root.out"
check "malformed reason says why" grep -q 'malformed hook payload: invalid JSON' "$d/malformed-json.out"
check "duplicate keys are refused" grep -q 'duplicate' "$d/duplicate-keys.out"
check "mcp tool named mcp:server.tool" grep -q 'mcp:github.create_issue' "$d/mcp.out"

# An ask goes to Claude Code's prompt with the command rewritten (Claude
# Code shows the new input there): what the person approves runs in
# airlock's sandbox under the profile an approval gets. It used to run as
# the agent wrote it, outside any sandbox.
echo K=1 > "$d/wd/.env"
jq -nc --arg w "$d/wd" '{cwd:$w, hook_event_name:"PreToolUse", tool_name:"Bash", tool_input:{command:"cat .env && ls -A \"$HOME\" | wc -l", description:"clean"}}' |
	CLAUDE_PROJECT_DIR="$d/wd" "$AIRLOCK" hook claude --db "$db" > "$d/ask.out" 2>/dev/null
expect_eq "ask: handed to Claude Code" "$(jq -r .hookSpecificOutput.permissionDecision "$d/ask.out")" ask
eval "set -- $(jq -r '.hookSpecificOutput.updatedInput.command' "$d/ask.out")"
expect_eq "ask: rewritten into airlock exec, the approved profile" "$2 $3 $4" "exec --profile approved"
expect_eq "ask: ... of the exact command" "$7 $8 $9 ${10} ${11}" "-- bash -c -- cat .env && ls -A \"\$HOME\" | wc -l"
expect_eq "ask: other fields kept" "$(jq -r .hookSpecificOutput.updatedInput.description "$d/ask.out")" clean
check "ask: the reason says where an approval runs it" grep -q "approved, it runs in airlock's sandbox (profile approved)" "$d/ask.out"
expect_eq "ask: approved, it runs in the sandbox (the secret shown, an empty home)" \
	"$(cd "$d/wd" && "$@" 2>/dev/null | tr '\n' ' ')" "K=1 0 "
rm "$d/wd/.env"

# A quote-heavy command, when auto, comes back exactly (the unit test covers
# the quoting itself; this is the whole path through the real binary).
tricky="echo \"it's \$HOME\" 'a;b'"
jq -nc --arg c "$tricky" --arg w "$d/wd" '{cwd:$w, hook_event_name:"PreToolUse", tool_name:"Bash", tool_input:{command:$c}}' |
	CLAUDE_PROJECT_DIR="$d/wd" "$AIRLOCK" hook claude --db "$db" > "$d/tricky.out" 2>/dev/null
if [ "$(jq -r .hookSpecificOutput.permissionDecision "$d/tricky.out")" = allow ]; then
	eval "set -- $(jq -r .hookSpecificOutput.updatedInput.command "$d/tricky.out")"
	expect_eq "tricky command round-trips" "${11}" "$tricky"
fi

# A command that starts with '-' reaches bash as the command, not as bash's
# options (bash -c '-n; ...' failed with "invalid option").
jq -nc --arg w "$d/wd" '{cwd:$w, hook_event_name:"PreToolUse", tool_name:"Bash", tool_input:{command:"-n; echo ran"}}' |
	CLAUDE_PROJECT_DIR="$d/wd" "$AIRLOCK" hook claude --db "$db" > "$d/dash.out" 2>/dev/null
expect_eq "dash command: allowed" "$(jq -r .hookSpecificOutput.permissionDecision "$d/dash.out")" allow
cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$d/dash.out")
check "dash command: bash runs it" sh -c "cd '$d/wd' && $cmd 2>/dev/null | grep -qx ran"

# --tui with no terminal: airlock asks nobody and denies.
"$AIRLOCK" hook claude --tui --no-tty --db "$db" < "$d/bash-rm.json" > "$d/tui.out" 2>/dev/null
expect_eq "--tui without a terminal denies" "$(jq -r .hookSpecificOutput.permissionDecision "$d/tui.out")" deny

# --approve-with: a program decides the ask here; approved Bash is sandboxed.
"$AIRLOCK" hook claude --approve-with 'exit 0' --db "$db" < "$d/bash-rm.json" > "$d/yes.out" 2>/dev/null
yes=$(jq -r .hookSpecificOutput.permissionDecision "$d/yes.out")
if [ "$yes" = allow ]; then
	check "approved Bash runs inside airlock exec" grep -q "exec --profile" "$d/yes.out"
	check "approved: the reason says who approved" grep -q "approved by the --approve-with program" "$d/yes.out"
else
	expect_eq "approved high call allowed (or denied by a policy rule)" "$yes" deny
fi
"$AIRLOCK" hook claude --approve-with 'echo not today; exit 1' --db "$db" < "$d/bash-rm.json" > "$d/no.out" 2>/dev/null
expect_eq "--approve-with refusing denies" "$(jq -r .hookSpecificOutput.permissionDecision "$d/no.out")" deny
check "the refusal's reason reaches Claude" grep -q 'not today' "$d/no.out"

# The log: decodable calls recorded in hook sessions; asks left to Claude Code.
q() { sqlite3 "$db" "$1"; }
expect_eq "hook calls recorded" "$(q "SELECT count(*) FROM call_index c JOIN sessions s ON s.id = c.session WHERE s.mode = 'hook'")" 22
expect_eq "critical denied by policy" "$(q "SELECT decision || ' ' || who FROM call_index WHERE summary = 'rm -rf /'")" "denied policy"
expect_eq "ask left undecided" "$(q "SELECT coalesce(decision, 'none') FROM call_index WHERE name = 'mcp:github.create_issue'")" none
# a shell command an MCP server or another tool runs itself never runs in
# airlock's sandbox: allowed before at low and medium, it now asks
check "mcp shell: the ask says the tool runs it outside the sandbox" \
	jq -e '.hookSpecificOutput.permissionDecisionReason | contains("runs the command itself, outside airlock'"'"'s sandbox")' "$d/mcp-shell-build.out"
expect_eq "session names Claude's session" "$(q "SELECT count(*) FROM sessions WHERE agent = 'claude-code session s-1'")" 19
check "audit verify" "$AIRLOCK" audit verify --db "$db"

# Circuit breakers hold across hook calls: each is its own process, so the
# audit log is their memory, per agent (one Claude session).
decision() { jq -r .hookSpecificOutput.permissionDecision "$1"; }
printf '[breaker]\n\tper-minute = 2\n\taction = deny\n' > "$d/minute.policy"
for i in 1 2 3; do
	sed "s/\"s-1\"/\"s-brk\"/; s/\"command\":\"ls\"/\"command\":\"ls $i\"/" "$d/bash-ls.json" |
		"$AIRLOCK" hook claude --policy "$d/minute.policy" --db "$d/brk.db" > "$d/minute$i.out" 2>/dev/null
done
expect_eq "per-minute breaker: 2nd call within the limit" "$(decision "$d/minute2.out")" allow
expect_eq "per-minute breaker: 3rd call in the minute denied" "$(decision "$d/minute3.out")" deny
check "per-minute breaker: the reason names it" grep -q 'breaker per-minute' "$d/minute3.out"
sed 's/"s-1"/"s-other"/' "$d/bash-ls.json" |
	"$AIRLOCK" hook claude --policy "$d/minute.policy" --db "$d/brk.db" > "$d/other.out" 2>/dev/null
expect_eq "per-minute breaker: another session has its own window" "$(decision "$d/other.out")" allow
printf '[breaker]\n\trepeat = 2\n\taction = deny\n' > "$d/repeat.policy"
for i in 1 2 3; do
	"$AIRLOCK" hook claude --policy "$d/repeat.policy" --db "$d/rep.db" < "$d/bash-ls.json" \
		> "$d/repeat$i.out" 2>/dev/null
done
expect_eq "repeat breaker: 2nd identical call allowed" "$(decision "$d/repeat2.out")" allow
expect_eq "repeat breaker: 3rd identical call denied" "$(decision "$d/repeat3.out")" deny
check "repeat breaker: the reason names it" grep -q 'breaker repeat' "$d/repeat3.out"

# A call from a subdirectory belongs to the project: its policy applies
# (judged from the cwd alone, `cd sub` left the project's deny rules unread)
# and the sandbox holds the whole project, with the command started in sub.
p=$d/proj
mkdir -p "$p/.airlock" "$p/sub/deep" "$p/mod" "$d/elsewhere"
printf '[rules]\n\tdeny = Bash(make:*)\n' > "$p/.airlock/policy"
chmod 600 "$p/.airlock/policy"
: > "$p/mod/.git" # a submodule's .git file: not the project under CLAUDE_PROJECT_DIR
hook_bash() { # CWD COMMAND [ENV...]: the answer
	c=$1 b=$2
	shift 2
	jq -nc --arg c "$b" --arg w "$c" '{cwd:$w, hook_event_name:"PreToolUse", session_id:"s-sub", tool_name:"Bash", tool_input:{command:$c}}' |
		env "$@" "$AIRLOCK" hook claude --db "$d/sub.db" 2>/dev/null
}
a=$(hook_bash "$p/sub/deep" 'make all')
expect_eq "subdir: the project's deny applies" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" deny
check "subdir: the reason names the project's rule" sh -c "printf '%s' '$a' | grep -q 'Bash(make:'"
a=$(hook_bash "$p/mod" 'make all' CLAUDE_PROJECT_DIR="$p")
expect_eq "subdir: CLAUDE_PROJECT_DIR over a nested .git" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" deny
a=$(hook_bash "$p/sub" 'pwd > ../from-sub')
expect_eq "subdir: a write in the project auto-runs" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" allow
cmd=$(printf '%s' "$a" | jq -r .hookSpecificOutput.updatedInput.command)
check "subdir: the rewrite starts in sub" sh -c "printf '%s' \"\$1\" | grep -q -- \"--chdir '$p/sub'\"" - "$cmd"
(cd "$p/sub" && eval "$cmd") 2>/dev/null
expect_eq "subdir: ran in sub, wrote in the project" "$(cat "$p/from-sub" 2>/dev/null)" "$p/sub"
a=$(hook_bash "$d/elsewhere" 'ls' CLAUDE_PROJECT_DIR="$p")
expect_eq "outside the project: not auto-run" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" deny
case $a in *"outside the project"*) r=yes ;; *) r=$a ;; esac
expect_eq "outside the project: the reason says so" "$r" yes

a=$(hook_bash '~' 'ls')
expect_eq "a relative cwd: denied" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" deny
case $a in *"not an absolute path"*) r=yes ;; *) r=$a ;; esac
expect_eq "a relative cwd: the reason says so" "$r" yes

# A project guessed from the cwd (no CLAUDE_PROJECT_DIR) is never trusted:
# a `tar xf` can plant sub/.airlock/policy, the nearest .airlock up from the
# cwd made sub the project and its file the outermost, and trust-project let
# it allow itself anything, in the hook's decision and in the profile the
# rewritten `airlock exec` built from the same file.
t=$d/trust
mkdir -p "$t/home/.config/airlock" "$t/proj/.git" "$t/proj/sub/.airlock"
printf '[policy]\n\ttrust-project = true\n' > "$t/home/.config/airlock/policy"
printf '[rules]\n\tallow = Bash(rm -rf *)\n[profile "readonly"]\n\tsecrets = show\n' \
	> "$t/proj/sub/.airlock/policy"
chmod 600 "$t/home/.config/airlock/policy" "$t/proj/sub/.airlock/policy"
printf 'KEY=planted-secret\n' > "$t/proj/sub/.env"
a=$(hook_bash "$t/proj/sub" 'rm -rf src' HOME="$t/home" CLAUDE_PROJECT_DIR=)
expect_eq "guessed project: its allow is not trusted" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" ask
a=$(hook_bash "$t/proj/sub" 'grep -r KEY .' HOME="$t/home" CLAUDE_PROJECT_DIR=)
expect_eq "guessed project: a read auto-runs" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" allow
cmd=$(printf '%s' "$a" | jq -r .hookSpecificOutput.updatedInput.command)
case $cmd in *" --untrusted-project "*) r=yes ;; *) r=$cmd ;; esac
expect_eq "guessed project: the rewrite tells exec" "$r" yes
r=$(cd "$t/proj/sub" && export HOME="$t/home" && eval "$cmd" 2>&1)
case $r in *planted-secret*) r=shown ;; *"hides .env"*) r=hidden ;; esac
expect_eq "guessed project: its profile cannot show .env" "$r" hidden
a=$(hook_bash "$t/proj/sub" 'rm -rf src' HOME="$t/home" CLAUDE_PROJECT_DIR="$t/proj/sub")
expect_eq "a project Claude Code names is trusted" "$(printf '%s' "$a" | jq -r .hookSpecificOutput.permissionDecision)" allow

# The per-call path never loads libgit2 (it costs ~15 ms per start).
LD_DEBUG=libs "$AIRLOCK" hook claude --db "$db" < "$d/bash-ls.json" > /dev/null 2> "$d/ld.txt"
check "ld.so trace captured" grep -q 'libc.so' "$d/ld.txt"
expect_eq "libgit2 not loaded by the hook" "$(grep -c 'libgit2' "$d/ld.txt")" 0
finish
