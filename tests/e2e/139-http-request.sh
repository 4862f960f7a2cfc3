#!/bin/sh
# 139-http-request.sh: an http call the gate runs sends the request that was
# judged: its method, its headers and its body (found by the protocol
# review: curl was given the method and URL only, so an approved POST of a
# body was recorded as an upload of that body and sent none). A header curl
# would read another way (a leading @ names a file of headers, a line break
# starts another header) is refused, not sent. A local server records what
# arrives; a policy runs every tier with the network.
set -u
. tests/e2e/lib.sh
: "${AIRLOCK:?}"
need jq python3 curl
tmpdir_make
d=$T_DIR
export HOME="$d/home" XDG_STATE_HOME="$d/state"
mkdir -p "$d/wd" "$HOME" "$XDG_STATE_HOME"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
$PY tests/data/gate/record-http.py "$d/port" "$d/req.log" &
srv=$!
trap 'kill $srv 2>/dev/null; [ -n "${KEEPD:-}" ] || rm -rf "$d"' EXIT
i=0
while [ ! -s "$d/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
u="http://127.0.0.1:$(cat "$d/port")"
printf '[tier "low"]\n\tprofile = net\n[tier "medium"]\n\tprofile = net\n[tier "high"]\n\taction = auto\n\tprofile = net\n[profile "net"]\n\tnetwork = true\n' >"$d/p"
gate() { (cd "$d/wd" && "$AIRLOCK" gate --db "$d/a.db" --policy "$d/p" --no-tty) 2>"$d/err"; }
U=$u $PY - "$d/calls" <<'PY'
import json, os, sys
u = os.environ["U"]
calls = [
    {"method": "POST", "url": u + "/one", "body": "name=x&v=1",
     "headers": {"X-Test": "yes", "Content-Type": "text/plain"}},
    {"method": "PUT", "url": u + "/two", "body": "@/etc/passwd", "headers": ["X-List: 2"]},
    {"method": "POST", "url": u + "/big", "body": "b" * 200000},
    {"method": "GET", "url": u + "/four"},
    {"method": "GET", "url": u + "/five", "headers": ["@/etc/passwd"]},
    {"method": "GET", "url": u + "/six", "headers": {"X-A": "1\r\nX-Injected: 1"}},
    {"method": "GET", "url": u + "/seven", "headers": {"X-N": 5}},
]
with open(sys.argv[1], "w") as f:
    for i, c in enumerate(calls, 1):
        f.write(json.dumps({"id": i, "tool": "http", "input": c}) + "\n")
PY
gate <"$d/calls" >"$d/out"
r() { jq -r "select(.path==\"$1\") | $2" "$d/req.log"; }
o() { jq -r "select(.id==$1) | $2" "$d/out"; }
expect_eq "POST: the body sent" "$(r /one .body)" "name=x&v=1"
expect_eq "POST: the method" "$(r /one .method)" POST
expect_eq "POST: a header of the object form" "$(r /one '.headers["x-test"]')" yes
expect_eq "POST: the content type given" "$(r /one '.headers["content-type"]')" text/plain
expect_eq "PUT: a body starting with @ sent as text, not a file" "$(r /two .body)" "@/etc/passwd"
expect_eq "PUT: a header of the array form" "$(r /two '.headers["x-list"]')" 2
expect_eq "a 200 KB body sent whole" "$(r /big '.body | length')" 200000
expect_eq "GET: no body" "$(r /four .body)" ""
expect_eq "the server's answer is the output" "$(o 4 .stdout)" ok
expect_eq "a header naming a file: not sent" "$(r /five .method)" ""
expect_eq "... an error saying why" "$(o 5 .decision)" error
check "... the reason" sh -c "jq -r 'select(.id==5) | .error' '$d/out' | grep -q 'no leading @'"
expect_eq "a header with a line break: not sent" "$(r /six .method)" ""
expect_eq "... an error" "$(o 6 .decision)" error
expect_eq "a header that is not a string: not sent" "$(r /seven .method)" ""
finish
