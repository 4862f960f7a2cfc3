#!/bin/sh
# deps.sh: install the Debian packages airlock builds, tests and benchmarks
# with. As root: apt-get installs what is missing. Otherwise: print the one
# line to run. Quiet when everything is already there.
set -eu

PKGS="make gcc pkg-config binutils libjansson-dev libsqlite3-dev libseccomp-dev
libncurses-dev libgit2-dev libssl-dev libpg-query-dev libcmocka-dev
tmux bubblewrap jq sqlite3 clang libclang-rt-14-dev hyperfine valgrind
python3 util-linux procps iproute2 git nodejs curl"

missing=""
for p in $PKGS; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
# The MCP server the integration test drives, from npm (tools/npm-deps.sh).
npm_deps() { sh "$(dirname "$0")/npm-deps.sh"; }

[ -z "$missing" ] && { npm_deps; exit 0; }

if [ "$(id -u)" -ne 0 ]; then
	echo "airlock: missing packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
npm_deps
