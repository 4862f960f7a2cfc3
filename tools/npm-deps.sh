#!/bin/sh
# npm-deps.sh: installs the MCP server tests/e2e/62-mcp.sh drives,
# @modelcontextprotocol/server-filesystem, from the npm registry into
# build-npm/ (ignored by git). Does nothing when it is there already; a
# failure (no npm, registry unreachable) is reported, and the test then SKIPs.
set -u
MCP_FS="@modelcontextprotocol/server-filesystem@2026.8.31"
dir="$(cd "$(dirname "$0")/.." && pwd)/build-npm"
[ -x "$dir/node_modules/.bin/mcp-server-filesystem" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get install -y -qq --no-install-recommends npm >/dev/null 2>&1 || true
	fi
	command -v npm >/dev/null 2>&1 ||
		{ echo "deps: npm not found; tests/e2e/62-mcp.sh will SKIP" >&2; exit 0; }
fi
echo "deps: npm install $MCP_FS into build-npm/"
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --silent "$MCP_FS" >/dev/null 2>&1 ||
	echo "deps: npm install failed (registry unreachable?); tests/e2e/62-mcp.sh will SKIP" >&2
exit 0
