#!/usr/bin/env python3
"""tiny-agent.py: a stand-in coding agent written against `airlock run`.

It talks like a real agent: chatter on stdout (passed through by airlock),
one tool call per line on stdout, then it waits for the result, one JSON
line on stdin. No network, no model: the plan is a fixed list of steps, or
the JSON lines of a file given as the first argument.

    airlock run --workdir "$(mktemp -d)" -- python3 examples/agents/tiny-agent.py
    airlock run -- python3 examples/agents/tiny-agent.py plan.jsonl

It writes NOTES.md into the workdir (the current directory unless
--workdir names another): run it from a clone without one and the file
lands in the clone.

Exits 0 when every call got a result, 3 when airlock closed the pipe early.
Set TINY_AGENT_EXIT=N to make it exit with N at the end (tests use it).
"""
import json
import os
import sys

PLAN = [
    {"say": "Let me look around first."},
    {"id": "s1", "tool": "shell", "input": {"command": "ls"}},
    {"say": "I'll leave a note for the next person."},
    {"id": "s2", "tool": "write_file",
     "input": {"path": "NOTES.md", "content": "# notes\nbuilt by tiny-agent\n"}},
    {"type": "tool_use", "id": "toolu_03", "name": "Read",
     "input": {"file_path": "NOTES.md"}},
    {"say": "Now something no one should allow."},
    {"id": "s4", "tool": "shell", "input": {"command": "rm -rf /"}},
    {"say": "Done."},
]


def load_plan(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip() and not line.startswith("#")]


def call(step):
    """Writes one call, reads its one-line result."""
    sys.stdout.write(json.dumps(step) + "\n")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        print("tiny-agent: airlock closed the pipe before answering", file=sys.stderr)
        sys.exit(3)
    return json.loads(line)


def main():
    plan = load_plan(sys.argv[1]) if len(sys.argv) > 1 else PLAN
    for step in plan:
        if "say" in step:
            print("tiny-agent: " + step["say"], flush=True)
            continue
        res = call(step)
        out = (res.get("stdout") or "").strip().replace("\n", " | ")
        why = res.get("reason") or res.get("error") or ""
        print("tiny-agent: %s -> %s (tier %s)%s%s" % (
            res.get("id"), res.get("decision"), res.get("tier"),
            ": " + out[:60] if out else "", " [" + why[:80] + "]" if why else ""), flush=True)
    sys.exit(int(os.environ.get("TINY_AGENT_EXIT", "0")))


if __name__ == "__main__":
    main()
