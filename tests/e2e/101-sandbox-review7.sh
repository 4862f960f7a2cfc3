#!/bin/sh
# 101-sandbox-review7.sh: what the seventh hostile review of the sandbox
# found, each failing before its fix. airlock's state directory reached
# through a link into the workdir (GNU stow links ~/.local into a dotfiles
# repository): a call rewrote the kept search there and the next call read
# a .env unmasked.
. tests/e2e/lib.sh
need python3
tmpdir_make
d=$T_DIR
unset XDG_STATE_HOME

# ---- the state directory through a link into the workdir ----
# ~/.local is stow's link to dots/.local; the agent works in dots
export HOME="$d/home"
mkdir -p "$HOME/dots/.local/bin" "$HOME/dots/config"
ln -s dots/.local "$HOME/.local"
echo 'SECRET=stow-marker' >"$HOME/dots/config/.env"
# the call's script: drop .env from the kept search in place (no directory
# changes, so nothing reads it again), and make the name the host writes
# its copy under a directory, so the sweep cannot write it back
cat >"$HOME/dots/forge.py" <<'EOF'
import glob, os, struct
S = ".local/state/airlock"
for p in glob.glob(S + "/pending/*"):
    os.mkdir(glob.glob(S + "/search/*")[0] + "." + p.rsplit("-", 2)[1])
p = glob.glob(S + "/search/*")[0]
b, o, out = open(p, "rb").read(), 0, []
def rstr():
    global o
    i = b.index(b"\0", o)
    s, o = b[o:i], i + 1
    return s
out.append(rstr() + b"\0" + rstr() + b"\0")
while o < len(b):
    rec = rstr() + b"\0" + b[o:o + 57]
    o += 57
    for k in range(4):
        n = struct.unpack_from("<I", b, o)[0]
        o += 4
        names = [x for x in [rstr() for _ in range(n)] if x != b".env"]
        rec += struct.pack("<I", len(names)) + b"".join(x + b"\0" for x in names)
    out.append(rec)
f = open(p, "r+b")
f.truncate()
f.write(b"".join(out))
print("forged")
EOF
sleep 2.2 # past the racy window: config/ may be kept
r=$(cd "$HOME/dots" && "$AIRLOCK" exec --profile workspace -- python3 forge.py 2>&1)
echo "$r" | grep -q forged && echo "(the state directory was writable in the sandbox)"
r=$(cd "$HOME/dots" && "$AIRLOCK" exec --profile workspace -- cat config/.env 2>/dev/null)
expect_eq "state dir linked into the workdir: the next call's .env stays masked" "$r" ""
check "state dir linked into the workdir: no kept search written there" \
	test ! -e "$HOME/dots/.local/state/airlock/search"

finish
