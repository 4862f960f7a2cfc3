#!/bin/sh
# 137-devcontainer-named.sh: the dev containers spec reads named
# configurations, .devcontainer/NAME/devcontainer.json, as it reads
# .devcontainer/devcontainer.json, and runs their initializeCommand on the
# host when the user opens the container. A workspace call could make one,
# or rewrite one in place, or swap its NAME directory, and it was kept
# (fa69fe6); a killed call's recovery left them too.
. tests/e2e/lib.sh
tmpdir_make
unset XDG_STATE_HOME
d=$T_DIR HOME="$T_DIR/home" && export HOME && mkdir -p "$HOME" "$d/wd"
cfg='{"initializeCommand": "touch ../dc-ran"}'

# ---- one the call makes ----
mkdir "$d/wd/.devcontainer"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'mkdir -p .devcontainer/py && printf "%s" "$1" \
	>.devcontainer/py/devcontainer.json && printf "FROM x" >.devcontainer/py/Dockerfile' sh "$cfg" \
	>/dev/null 2>&1)
check "a named devcontainer.json the call made is removed" test ! -e "$d/wd/.devcontainer/py/devcontainer.json"
check "what else it made beside it is kept" test -f "$d/wd/.devcontainer/py/Dockerfile"
rm -rf "$d/wd/.devcontainer"
# with .devcontainer made by the call too
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'mkdir -p .devcontainer/go && printf "%s" "$1" \
	>.devcontainer/go/devcontainer.json' sh "$cfg" >/dev/null 2>&1)
check "and under a .devcontainer the call made" test ! -e "$d/wd/.devcontainer/go/devcontainer.json"
rm -rf "$d/wd/.devcontainer"

# ---- one that was there ----
mkdir -p "$d/wd/.devcontainer/py" && printf '{}' >"$d/wd/.devcontainer/py/devcontainer.json"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'printf "%s" "$1" >.devcontainer/py/devcontainer.json' sh "$cfg" \
	>/dev/null 2>&1)
expect_eq "an existing named devcontainer.json stays as it was" \
	"$(cat "$d/wd/.devcontainer/py/devcontainer.json")" "{}"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'mv .devcontainer/py .devcontainer/py2; mkdir -p .devcontainer/py
printf "%s" "$1" >.devcontainer/py/devcontainer.json' sh "$cfg" >/dev/null 2>&1)
check "and its directory cannot be swapped for one of the call's" test ! -e "$d/wd/.devcontainer/py2"
expect_eq "so it still holds the user's" "$(cat "$d/wd/.devcontainer/py/devcontainer.json")" "{}"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'rm -f .devcontainer/py/devcontainer.json
printf "%s" "$1" >.devcontainer/py/devcontainer.json' sh "$cfg" >/dev/null 2>&1)
expect_eq "nor the file replaced" "$(cat "$d/wd/.devcontainer/py/devcontainer.json")" "{}"
# the sweep says what it removed
out=$(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'mkdir -p .devcontainer/rs && printf "%s" "$1" \
	>.devcontainer/rs/devcontainer.json' sh "$cfg" 2>&1)
check "the sweep names it" sh -c 'case $1 in *.devcontainer/rs/devcontainer.json*) exit 0;; esac; exit 1' sh "$out"
check "and it is gone" test ! -e "$d/wd/.devcontainer/rs/devcontainer.json"
expect_eq "an existing one's neighbours are untouched" "$(cat "$d/wd/.devcontainer/py/devcontainer.json")" "{}"
# one made through the user's link NAME, which the spec follows
mkdir "$d/wd/cfg" && ln -s ../cfg "$d/wd/.devcontainer/ln"
(cd "$d/wd" && "$AIRLOCK" exec -- sh -c 'printf "%s" "$1" >cfg/devcontainer.json' sh "$cfg" \
	>/dev/null 2>&1)
check "none is read through the user's link NAME" test ! -e "$d/wd/.devcontainer/ln/devcontainer.json"
check "nothing ran" test ! -e "$d/dc-ran"
rm -rf "$d/wd/.devcontainer" "$d/wd/cfg"

# ---- a call whose airlock was killed: the next run's recovery ----
mkdir -p "$d/wd/.devcontainer/py" && printf '{}' >"$d/wd/.devcontainer/py/devcontainer.json"
sleep 3 # the recovery moves aside what changed in the killed run's span, a coarse one
(cd "$d/wd" && exec "$AIRLOCK" exec -- sh -c 'mkdir -p .devcontainer/go && printf "%s" "$1" \
	>.devcontainer/go/devcontainer.json && touch planted && sleep 60' sh "$cfg") >/dev/null 2>&1 &
a=$!
for _ in $(seq 100); do [ -e "$d/wd/planted" ] && break; sleep 0.1; done
kill -KILL "$a" 2>/dev/null
wait "$a" 2>/dev/null
out=$(cd "$d/wd" && "$AIRLOCK" exec -- true 2>&1)
check "a killed call's named devcontainer.json is moved aside" \
	test ! -e "$d/wd/.devcontainer/go/devcontainer.json"
check "and the recovery says so" sh -c 'case $1 in *.devcontainer/go/devcontainer.json*) exit 0;; esac
exit 1' sh "$out"
expect_eq "the user's one is left" "$(cat "$d/wd/.devcontainer/py/devcontainer.json")" "{}"
rm -rf "$d/wd/.devcontainer" "$d/wd/planted"
finish
