#!/usr/bin/env python3
"""mcp-client.py: a scripted MCP client for tests/e2e/62-mcp.sh.

Runs COMMAND... as an MCP stdio server (normally `airlock mcp -- server`),
sends each request of the script file (JSON lines; "wait": false sends
without waiting for the answer) and prints every message it receives as one
JSON line. Exits 0 when every request got its response within 20 s.

    mcp-client.py SCRIPT.jsonl COMMAND [ARGS...]
"""
import json
import subprocess
import sys
import threading
import queue


def main():
    script, cmd = sys.argv[1], sys.argv[2:]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    got = queue.Queue()

    def pump():
        for line in proc.stdout:
            got.put(json.loads(line))
        got.put(None)

    threading.Thread(target=pump, daemon=True).start()
    rc = 0
    with open(script, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            msg = json.loads(line)
            wait = msg.pop("wait", True) and "id" in msg
            proc.stdin.write(json.dumps(msg) + "\n")
            proc.stdin.flush()
            while wait:
                try:
                    ans = got.get(timeout=20)
                except queue.Empty:
                    print("mcp-client: no answer to id %r" % msg["id"], file=sys.stderr)
                    rc = 1
                    break
                if ans is None:
                    print("mcp-client: the server closed its output", file=sys.stderr)
                    sys.exit(1)
                print(json.dumps(ans), flush=True)
                if ans.get("id") == msg["id"] and "method" not in ans:
                    break
    proc.stdin.close()
    proc.wait(timeout=20)
    while not got.empty():
        ans = got.get()
        if ans is not None:
            print(json.dumps(ans), flush=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()
