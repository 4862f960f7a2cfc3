#!/bin/sh
# 70-hostile.sh: hostile input through the real `airlock gate` (issue 10):
# lines over the cap, NUL bytes, invalid UTF-8, deep nesting, duplicate keys,
# wrong types, huge ids and commands, control characters, a million lines,
# stdin closed mid-line, stdout closed by the reader. Each must give a clear
# error result or a clean exit; nothing that should not run runs (marker
# files stay absent); the audit log holds each decodable call exactly once,
# finished, with its chain intact.
. tests/e2e/lib.sh
d=$(mktemp -d /tmp/airlock-hostile.XXXXXX)
trap 'rm -rf "$d"' EXIT
export HOME="$d/home" # no user policy from the machine
mkdir -p "$d/wd" "$HOME"
n=0

# run NAME [gate options]: stdin -> $d/NAME.out, status in $d/NAME.rc, own db.
run() {
	name=$1
	shift
	"$AIRLOCK" gate --no-tty --db "$d/$name.db" --workdir "$d/wd" "$@" \
		>"$d/$name.out" 2>"$d/$name.err"
	echo $? >"$d/$name.rc"
}
rc() { cat "$d/$1.rc"; }
line() { sed -n "$2p" "$d/$1.out"; }
field() { sed -n "$2p" "$d/$1.out" | jq -r "$3"; }
events() { sqlite3 "$d/$1.db" "SELECT count(*) FROM events WHERE kind='$2'"; }
# logged NAME N: N calls received, each decided and finished exactly once.
logged() {
	expect_eq "$1: received" "$(events "$1" received)" "$2"
	expect_eq "$1: finished" "$(events "$1" finished)" "$2"
	expect_eq "$1: no call twice" "$(sqlite3 "$d/$1.db" "SELECT count(*) FROM (SELECT call
		FROM events WHERE kind IN ('received','decided','finished') GROUP BY call, kind
		HAVING count(*) > 1)")" 0
	expect_eq "$1: session ended" "$(events "$1" session_end)" 1
	check "$1: chain verifies" "$AIRLOCK" audit verify --db "$d/$1.db"
}
is_json_lines() { jq -e . "$d/$1.out" >/dev/null 2>&1; }
deny() { printf '{"id":"ok%s","tool":"no_such_tool","input":{}}\n' "$1"; }
touch_call() { printf '{"id":"t","tool":"shell","input":{"command":"touch %s"}}' "$1"; }

# 1. A line over the cap: an error naming the cap; the stream goes on. The
# last line is over the cap and has no newline either.
long=$(python3 -c 'print("{\"tool\":\"shell\",\"input\":{\"command\":\"touch pwned1 " +
	"x" * 5000 + "\"}}", end="")')
{ deny 1; echo "$long"; deny 2; printf '%s' "$long"; } | run cap --line-cap 1024
expect_eq "cap: exit" "$(rc cap)" 0
expect_eq "cap: one result per line" "$(wc -l <"$d/cap.out")" 4
expect_eq "cap: line 2 is an error" "$(field cap 2 .decision)" error
check "cap: error names the cap" grep -q 'longer than the line cap (1024 bytes)' "$d/cap.out"
expect_eq "cap: error names the line" "$(field cap 2 .line)" 2
expect_eq "cap: the stream goes on" "$(field cap 3 .id)" ok2
expect_eq "cap: last line over the cap, no newline" "$(field cap 4 .decision)" error
check "cap: nothing ran" test ! -e "$d/wd/pwned1"
logged cap 2

# 2. NUL bytes, raw and escaped; 3. invalid UTF-8 (raw byte, overlong, surrogate).
{
	printf '{"tool":"shell","input":{"command":"touch pwned2\0;x"}}\n'
	printf '{"tool":"shell","input":{"command":"touch pwned2\\u0000x"}}\n'
	printf '{"tool":"shell","input":{"command":"touch pwned3\377"}}\n'
	printf '{"tool":"shell","input":{"command":"touch pwned3\300\257"}}\n'
	printf '{"tool":"shell","input":{"command":"touch pwned3\355\240\200"}}\n'
	printf '{"tool":"shell\377","input":{"command":"touch pwned3"}}\n'
	deny 3
} | run enc
expect_eq "enc: exit" "$(rc enc)" 0
check "enc: results are JSON" is_json_lines enc
expect_eq "enc: six errors" "$(jq -r .decision "$d/enc.out" | grep -c error)" 6
check "enc: NUL named" grep -q 'NUL byte' "$d/enc.out"
check "enc: nothing ran" sh -c "! ls '$d/wd' | grep -q pwned"
expect_eq "enc: the stream goes on" "$(field enc 7 .id)" ok3
logged enc 1

# 4. JSON nested 100,000 deep, as the whole line and inside the input.
python3 - >"$d/deep.in" <<'EOF'
k = 100000
print("[" * k + "]" * k)
print('{"a":' * k + "1" + "}" * k)
print('{"tool":"shell","input":{"command":"touch pwned4","x":' + "[" * k + "]" * k + "}}")
print('{"id":"deep","tool":"no_such_tool","input":{"x":' + "[" * k + "]" * k + "}}")
EOF
deny 4 >>"$d/deep.in"
run deep <"$d/deep.in"
expect_eq "deep: exit" "$(rc deep)" 0
expect_eq "deep: five results" "$(wc -l <"$d/deep.out")" 5
expect_eq "deep: nesting refused" "$(jq -r .decision "$d/deep.out" | head -4 | sort -u)" error
check "deep: nothing ran" test ! -e "$d/wd/pwned4"
expect_eq "deep: the stream goes on" "$(field deep 5 .id)" ok4
logged deep 1

# 5. Duplicate keys (top level, in the input, in OpenAI arguments text);
# 6. wrong types.
{
	printf '{"tool":"read_file","tool":"shell","input":{"command":"touch pwned5"}}\n'
	printf '{"tool":"shell","input":{"command":"ls","command":"touch pwned5"}}\n'
	printf '{"type":"function_call","call_id":"r","name":"shell","arguments":"{\\"command\\":\\"ls\\",\\"command\\":\\"touch pwned5\\"}"}\n'
	printf '{"tool":"shell","input":{"command":42}}\n'
	printf '{"tool":42,"input":{"command":"touch pwned6"}}\n'
	printf '{"id":{"a":1},"tool":"shell","input":{"command":"touch pwned6"}}\n'
	printf '{"tool":"shell","input":["touch","pwned6"]}\n'
	printf '{"tool":"shell","input":{"command":["touch",7]}}\n'
	printf '{"tool":"shell","input":{"command":"touch pwned6","timeout_ms":"soon"}}\n'
	printf '{"tool":"edit_file","input":{"path":"a","old":"x","new":"y","replace_all":"yes"}}\n'
	printf '"just a string"\n[1,2]\nnull\n'
	deny 5
} | run types
expect_eq "types: exit" "$(rc types)" 0
expect_eq "types: thirteen errors" "$(jq -r .decision "$d/types.out" | grep -c error)" 13
check "types: duplicate named" grep -q 'duplicate' "$d/types.out"
check "types: type named" grep -q 'input.command must be a string (got integer)' "$d/types.out"
check "types: nothing ran" sh -c "! ls '$d/wd' | grep -q pwned"
expect_eq "types: the stream goes on" "$(field types 14 .id)" ok5
logged types 1

# 7. An id of 1 MiB; 8. a command of 1 MiB and one of 100,000 arguments.
python3 - >"$d/big.in" <<'EOF'
import json
mib = 1 << 20
print(json.dumps({"id": "i" * mib, "tool": "no_such_tool", "input": {}}))
print(json.dumps({"id": "c1", "tool": "shell", "input": {"command": "echo " + "a" * mib}}))
print(json.dumps({"id": "c2", "tool": "shell", "input": {"command": "true" + " a" * 100000}}))
print(json.dumps({"id": "c3", "tool": "shell", "input": {"command": ["true"] + ["a"] * 100000}}))
EOF
deny 8 >>"$d/big.in"
run big <"$d/big.in"
expect_eq "big: exit" "$(rc big)" 0
expect_eq "big: five results" "$(wc -l <"$d/big.out")" 5
expect_eq "big: 1 MiB id echoed whole" "$(field big 1 '.id | length')" 1048576
# Too long to exec (E2BIG) is a fine answer: an error result, recorded.
expect_eq "big: every call answered" "$(jq -r '.decision // empty' "$d/big.out" | wc -l)" 5
expect_eq "big: ids in order" "$(jq -r '.id | .[0:2]' "$d/big.out" | tr '\n' ' ')" \
	"ii c1 c2 c3 ok "
logged big 5

# 9. Control characters and bidi overrides: results stay one JSON line each;
# the audit list never prints a raw escape or control byte.
{
	printf '{"id":"esc","tool":"shell","input":{"command":"echo \\u001b[2J\\u001b]0;pwn\\u0007 \\r\\b ok"}}\n'
	printf '{"id":"bidi","tool":"shell","input":{"command":"echo \\u202e\\u2066 txt.exe \\u202c"}}\n'
	printf '{"id":"nl","tool":"no_such_tool\\u001b[31m","input":{"x":"a\\nb"}}\n'
	deny 9
} | run ctl
expect_eq "ctl: exit" "$(rc ctl)" 0
check "ctl: results are JSON" is_json_lines ctl
expect_eq "ctl: one line per result" "$(wc -l <"$d/ctl.out")" 4
check "ctl: no raw control bytes in results" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$d/ctl.out'"
"$AIRLOCK" audit list --db "$d/ctl.db" >"$d/ctl.list" 2>&1
expect_eq "ctl: audit list has no raw ESC/BEL/CR/BS" \
	"$(LC_ALL=C tr -cd '\033\007\r\b' <"$d/ctl.list" | wc -c)" 0
expect_eq "ctl: audit list lists the calls" "$(grep -c . "$d/ctl.list")" 4
expect_eq "ctl: audit list shows no raw bidi override (U+202E)" \
	"$(grep -c "$(printf '\342\200\256')" "$d/ctl.list")" 0
logged ctl 4

# 10. Many lines in one stream: 1% well-formed calls (recorded), the rest
# malformed (answered, not recorded). make test runs 100,000; make soak
# runs this script with HOSTILE_LINES=1000000.
lines=${HOSTILE_LINES:-100000}
python3 - "$lines" >"$d/million.in" <<'EOF'
import sys
w = sys.stdout.write
for i in range(int(sys.argv[1])):
    w('{"id":%d,"tool":"no_such_tool","input":{}}\n' % i if i % 100 == 0
      else '{"id":%d,"tool":""}\n' % i)
EOF
run million <"$d/million.in"
rm -f "$d/million.in"
expect_eq "million: exit" "$(rc million)" 0
expect_eq "million: one result per line" "$(wc -l <"$d/million.out")" "$lines"
expect_eq "million: in order" "$(jq -r .id "$d/million.out" | awk '$1 != NR-1' | wc -l)" 0
expect_eq "million: recorded calls" "$(jq -r 'select(.audit_id != null) | .id' \
	"$d/million.out" | wc -l)" $((lines / 100))
logged million $((lines / 100))
rm -f "$d/million.out"

# 11. stdin closed mid-line: the fragment is an error result, a clean exit.
{ deny 11; printf '{"id":"frag","tool":"shell","input":{"command":"touch pwn'; } | run midline
expect_eq "midline: exit" "$(rc midline)" 0
expect_eq "midline: two results" "$(wc -l <"$d/midline.out")" 2
expect_eq "midline: fragment is an error" "$(field midline 2 .decision)" error
logged midline 1

# 12. stdout closed by the reader (EPIPE): airlock stops, exits non-zero
# with a message, and every call it recorded is finished.
python3 -c '
import sys
for i in range(5000): sys.stdout.write("{\"id\":%d,\"tool\":\"no_such_tool\",\"input\":{}}\n" % i)' \
	>"$d/epipe.in"
("$AIRLOCK" gate --no-tty --db "$d/epipe.db" --workdir "$d/wd" <"$d/epipe.in" \
	2>"$d/epipe.err"; echo $? >"$d/epipe.rc") | head -c 1 >/dev/null
expect_eq "epipe: exit status" "$(rc epipe)" 125
check "epipe: says why" grep -q 'cannot write results' "$d/epipe.err"
got=$(events epipe received)
check "epipe: stopped early" test "$got" -lt 5000
logged epipe "$got"

finish
