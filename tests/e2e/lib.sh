# lib.sh: tiny assertion helpers for end-to-end tests (sourced).
#   check "name" CMD...      passes when CMD exits 0
#   expect_eq "name" A B     passes when A = B
#   need CMD...              exits 1 unless each CMD is installed
#   finish                   prints "N passed, N failed" and sets the exit code
T_PASS=0
T_FAIL=0
check() {
	name=$1; shift
	if "$@" >/dev/null 2>&1; then T_PASS=$((T_PASS + 1)); else
		T_FAIL=$((T_FAIL + 1)); echo "not ok: $name"; fi
}
expect_eq() {
	if [ "$2" = "$3" ]; then T_PASS=$((T_PASS + 1)); else
		T_FAIL=$((T_FAIL + 1)); echo "not ok: $1: got [$2], want [$3]"; fi
}
finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
# need CMD...: exits with a hint when a tool a test drives is missing
need() {
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "$t is missing (make deps)"; exit 1; }
	done
}
# The classifier scripts' probes: airlock classify from $d/wd with it as
# the workdir (a script that wants other options defines its own).
classify() { (cd "$d/wd" && "$AIRLOCK" classify --workdir "$d/wd" "$@"); }
shell_field() { classify --shell "$1" | jq -r "$2"; }
call_field() { printf '%s\n' "$1" | classify | jq -r "$2"; }
# Sets T_DIR to a new directory removed when the script exits. Not a
# function to call as $(...): a trap set in that subshell fires at once.
tmpdir_make() {
	T_DIR=$(mktemp -d /tmp/airlock-test.XXXXXX)
	trap 'rm -rf "$T_DIR"' EXIT
}
# A command that plants a pre-commit hook in .githooks, which records
# that it ran in ../hook-ran (for a repository right under T_DIR).
plant='mkdir -p .githooks; printf "#!/bin/sh\necho ran >>../hook-ran\n" >.githooks/pre-commit;
chmod +x .githooks/pre-commit'
# commit_ran DIR: 1 when a commit in DIR (right under T_DIR) on the host
# ran a hook, else 0
commit_ran() {
	rm -f "$T_DIR/hook-ran"
	(cd "$1" && echo b >>a && git commit -qam b >/dev/null 2>&1)
	[ -e "$T_DIR/hook-ran" ] && echo 1 || echo 0
}
