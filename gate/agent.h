/*
 * agent.h: what the integration commands (run, hook, mcp, watch) share: a
 * child process on pipes that dies with airlock, shell quoting, the common
 * gate options, and the mapping of MCP tool arguments to calls the
 * classifier understands. Nothing here prints or exits.
 */
#ifndef AIRLOCK_AGENT_H
#define AIRLOCK_AGENT_H

#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/airlock.h"
#include "gate/pipeline.h"

/* A child with its stdin and stdout on pipes; stderr is airlock's, or a
 * pipe that a relay thread copies to airlock's (agent_relay_start). */
struct agent_child {
	pid_t pid;
	int in_fd;  /* write end: the child's stdin */
	int out_fd; /* read end: the child's stdout */
	int err_fd; /* read end: the child's stderr; -1 when it is airlock's */
	struct agent_relay *relay;
};

/*
 * Starts argv (PATH lookup) with pipes on its stdin and stdout. The child is
 * killed (SIGKILL) when airlock dies (PR_SET_PDEATHSIG), so call this from
 * the main thread. Returns 0, or -1 with *errstr (caller frees) and *exit_code
 * 127 (not found) or 126 (cannot run) when the program could not start.
 */
int agent_spawn(char *const *argv, struct agent_child *ch, int *exit_code, char **errstr)
	AIRLOCK_MUST_CHECK;
/* As agent_spawn, and the child's stderr is a pipe (ch->err_fd) that
 * agent_relay_start copies: an agent that prints text a model wrote cannot
 * send escape sequences to the terminal or draw over an approval screen. */
int agent_spawn_piped(char *const *argv, struct agent_child *ch, int *exit_code,
                      char **errstr) AIRLOCK_MUST_CHECK;
/* Starts a thread copying ch->err_fd to airlock's stderr: held while an
 * approval screen is up (gate_terminal_lock), control characters escaped
 * when stderr is a terminal. Returns 0, or -1 with *errstr. */
int agent_relay_start(struct agent_child *ch, char **errstr) AIRLOCK_MUST_CHECK;
/* After the child exited: copies what is left (waiting at most a second for
 * a grandchild that still holds the pipe), stops the thread, closes err_fd. */
void agent_relay_stop(struct agent_child *ch);
/* Writes text the child printed to f: as is, or with control characters
 * escaped when f is a terminal. Returns 0 or -1 (errno set). */
int agent_write_text(FILE *f, const char *p, size_t n);
/* Passes SIGTERM, SIGHUP, SIGINT and SIGQUIT that airlock gets, by kill(2)
 * or from the terminal, on to pid (in a session of its own, it cannot get
 * the terminal's). */
void agent_forward_signals(pid_t pid);
/* Passes sig on to the child agent_forward_signals() named, if any: a
 * signal the approval screen caught with its own handlers (run, mcp). */
void agent_forward_signal(int sig);
/* Waits for pid; returns its exit status as a shell would (128+signal). */
int agent_wait(pid_t pid);

/* Returns a new single-quoted shell word for s; caller frees. */
char *agent_shell_quote(const char *s);
/* Returns a new string: argv quoted and joined by spaces; caller frees. */
char *agent_command_line(char *const *argv);
/* Returns a new "PREFIXtier: reason (rule); reason (rule); why" (why may be
 * NULL): what an agent is told when a call is not run; caller frees. */
char *agent_reason_text(const char *prefix, const struct verdict *v, const char *why);
/* Returns the absolute path of the running airlock (/proc/self/exe), or
 * NULL with *errstr; caller frees. */
char *agent_self_path(char **errstr);

/* The gate options every integration command takes (long options only). */
#define AGENT_GATE_LONGOPTS                                                         \
	{"db", required_argument, NULL, 'd'}, {"workdir", required_argument, NULL, 'w'}, \
	{"policy", required_argument, NULL, 'p'}, {"no-redact", no_argument, NULL, 'R'}, \
	{"approve-with", required_argument, NULL, 'A'},                                  \
	{"line-cap", required_argument, NULL, 'L'}, {"no-tty", no_argument, NULL, 'T'}
/* watch asks nobody: its usage leaves out --approve-with and --no-tty */
#define AGENT_GATE_USAGE_RECORD                                                   \
	"  --db FILE          audit log (default $AIRLOCK_DB or ~/.local/state/...)\n" \
	"  --workdir DIR      the project directory (default: the current one)\n"      \
	"  --policy FILE      an extra policy file, the top layer\n"                   \
	"  --no-redact        store secrets unredacted in the audit log\n"             \
	"  --line-cap BYTES   longest line read (default 16 MiB; k, m, g suffixes)\n"
#define AGENT_GATE_USAGE                                                            \
	AGENT_GATE_USAGE_RECORD                                                         \
	"  --approve-with CMD ask CMD instead of a person on /dev/tty\n"                 \
	"  --no-tty           never open /dev/tty: calls that need approval are denied\n"
/* Handles one of AGENT_GATE_LONGOPTS. Returns 1 when ch was one of them, 0
 * when not, -1 with *errstr on a bad value. */
int agent_gate_option(int ch, const char *arg, struct gate_opts *o, char **errstr);

/*
 * MCP and other named tools: maps a tool's arguments to calls the classifier
 * reads (command -> shell, sql/query -> SQL, url -> http, path-like ->
 * file read or write). Returns a new NULL-terminated vector of new calls
 * (caller frees with agent_calls_free); the first is the call to record,
 * named `name`, holding the original arguments under input.arguments.
 * With no mapping it is one TOOL_OTHER call. Never NULL.
 */
struct call **agent_tool_calls(const char *name, const char *tool, json_t *args, json_t *id);
void agent_calls_free(struct call **calls);
/* Places calls where their tool works: a call with no cwd gets base, a
 * relative one (a tool's "cwd" argument) is read from base. base may be
 * NULL (not known: the classifier judges from the workdir). */
void agent_calls_place(struct call **calls, const char *base);
/* True when a reader that folds case takes the JSON key key for want: Go's
 * encoding/json (and .NET's web defaults) match "Path" and "METHOD" to
 * path and method, and U+017F and U+212A to s and k. */
bool agent_key_folds(const char *key, const char *want);
/* For a decoded agent call: the calls to classify instead of c when c is an
 * MCP tool (mcp:server.tool) or an unknown tool (mapped by its arguments;
 * Claude Code's Glob, Grep and LS read cwd when they name no path). Returns
 * NULL when c is a tool airlock knows: classify c itself. args is the
 * agent's original input. */
struct call **agent_named_calls(const struct call *c, json_t *args, const char *cwd);
/* For a call decoded from the gate's protocol (gate, run, classify): NULL
 * unless it is an unknown or MCP tool, else its input's calls
 * (agent_named_calls()), placed where its tool works (its cwd, else
 * workdir). Caller frees with agent_calls_free(). */
struct call **agent_unknown_calls(const struct call *c, const char *workdir);
/* Decodes {"tool": kind, "input": fields}, names the call name and gives it
 * id, whatever its type. Takes fields. Returns a new call, or NULL when it
 * does not decode. */
struct call *agent_canonical_call(const char *name, const char *kind, json_t *fields,
                                  json_t *id, enum shape shape);
/* Returns a new TOOL_OTHER call named name with a copy of args as input. */
struct call *agent_other_call(const char *name, json_t *args, json_t *id);
/*
 * For Claude Code's Grep, Glob and LS, and an MCP tool whose name says it
 * searches (search_files), which read the whole tree below their path
 * outside airlock's sandbox: true, with a finding at high
 * added to v, when a deny = Read(...) rule names a path inside a tree v
 * reads (the sandbox would hide it; Grep of the project root read
 * secret/k past a deny rule on ./secret). The caller then asks.
 */
bool agent_tree_denied(struct gate *g, const struct call *c, struct verdict *v);
/* True when one of calls is a shell command its own tool runs (derived
 * from another tool's arguments): never sandboxed by airlock. */
bool agent_calls_unsandboxed(struct call *const *calls);
/* Returns a new verdict: every call classified, findings and paths merged. */
struct verdict *agent_classify_calls(struct gate *g, struct call **calls);
/* The same with classify_call() and o, for `airlock classify`, which has no
 * gate (the git configs' guarded paths are what o says). */
struct verdict *agent_classify_calls_opts(const struct classify_opts *o, struct call **calls);
/* Adds v's findings (spans dropped), commands and paths to into. */
void agent_verdict_merge(struct verdict *into, const struct verdict *v);

#endif
