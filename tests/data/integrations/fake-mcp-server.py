#!/usr/bin/env python3
"""fake-mcp-server.py: a tiny MCP stdio server for tests/e2e/62-mcp.sh.

Answers initialize (serverInfo.name "fake"), tools/list (tools with and
without annotations), tools/call (result "ran NAME") and echoes any other
request's method back as its result. A "pad": N in a call's arguments or
another request's params adds N bytes to the answer (one long line). Every message it receives is appended
as one JSON line to the file named by the first argument, so the test can
check what reached the server and what airlock held back.
With FAKE_MCP_LOCK=DB, the first tools/call locks that SQLite file (a
writer's lock) before it is answered and holds it FAKE_MCP_HOLD seconds
(default 13) after: airlock's write of the call's outcome fails.
"""
import json
import os
import sqlite3
import sys
import time

LOCKED = []


def lock_first_call(msg):
    """Takes the log's write lock on the first tools/call, if asked to."""
    path = os.environ.get("FAKE_MCP_LOCK")
    if not path or LOCKED or msg.get("method") != "tools/call":
        return
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("BEGIN EXCLUSIVE")
    LOCKED.append(conn)

TOOLS = [
    {"name": "lookup", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True}},
    {"name": "wipe", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": False, "destructiveHint": True}},
    {"name": "run_query", "inputSchema": {"type": "object"}},
    {"name": "exec", "inputSchema": {"type": "object"}},
    {"name": "fetch", "inputSchema": {"type": "object"}},
    {"name": "write_file", "inputSchema": {"type": "object"}},
    {"name": "search_files", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True}},
]


def answer(msg):
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        return None
    if method == "initialize":
        res = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
               "serverInfo": {"name": "fake", "version": "1"}}
    elif method == "tools/list":
        res = {"tools": TOOLS}
    elif method == "tools/call":
        pad = msg["params"].get("arguments", {}).get("pad", 0)
        res = {"content": [{"type": "text", "text": "ran " + msg["params"]["name"] + "x" * pad}]}
    else:
        res = {"echo": method, "pad": "x" * msg.get("params", {}).get("pad", 0)}
    return {"jsonrpc": "2.0", "id": mid, "result": res}


def main():
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        for line in sys.stdin:
            msg = json.loads(line)
            log.write(json.dumps(msg) + "\n")
            log.flush()
            batch = msg if isinstance(msg, list) else [msg]
            for m in batch:
                lock_first_call(m)
            out = [a for a in (answer(m) for m in batch) if a]
            if out:
                print(json.dumps(out if isinstance(msg, list) else out[0]), flush=True)
            if LOCKED and LOCKED[0] is not None:
                time.sleep(float(os.environ.get("FAKE_MCP_HOLD", "13")))
                LOCKED[0].execute("COMMIT")
                LOCKED[0].close()
                LOCKED[0] = None


if __name__ == "__main__":
    main()
