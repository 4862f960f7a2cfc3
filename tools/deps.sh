#!/bin/sh
# deps.sh: install the Debian packages airlock builds, tests and benchmarks
# with. As root: apt-get installs what is missing. Otherwise: print the one
# line to run. Quiet when everything is already there.
set -eu

PKGS="make gcc pkg-config binutils libjansson-dev libsqlite3-dev libseccomp-dev
libncurses-dev libgit2-dev libssl-dev libpg-query-dev libcmocka-dev
tmux bubblewrap jq sqlite3 clang libclang-rt-14-dev hyperfine valgrind
python3 util-linux procps iproute2 git nodejs"

missing=""
for p in $PKGS; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
# The MCP server tests/e2e/62-mcp.sh drives, from the npm registry into
# build-npm/ (ignored by git). Runs only when it is missing; a failure (no
# registry) is reported and the MCP test then says SKIP.
MCP_FS="@modelcontextprotocol/server-filesystem@2026.8.31"
npm_deps() {
	dir="$(cd "$(dirname "$0")/.." && pwd)/build-npm"
	[ -x "$dir/node_modules/.bin/mcp-server-filesystem" ] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
			apt-get install -y -qq --no-install-recommends npm >/dev/null || true
		fi
		command -v npm >/dev/null 2>&1 ||
			{ echo "deps: npm not found; tests/e2e/62-mcp.sh will SKIP" >&2; return 0; }
	fi
	echo "deps: npm install $MCP_FS into build-npm/"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --silent "$MCP_FS" >/dev/null 2>&1 ||
		echo "deps: npm install failed (registry unreachable?); tests/e2e/62-mcp.sh will SKIP" >&2
}

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
