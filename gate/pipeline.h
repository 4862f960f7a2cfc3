/*
 * pipeline.h: the gate. One call goes decode -> classify -> policy ->
 * (preview, approval) -> record -> execute -> record -> result. Read
 * gate_call() in pipeline.c top to bottom to see the whole of it.
 */
#ifndef AIRLOCK_PIPELINE_H
#define AIRLOCK_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/airlock.h"
#include "policy/policy.h"

struct gate_opts {
	const char *workdir;      /* NULL: the current directory */
	const char *db_path;      /* NULL: db_default_path() */
	const char *policy_file;  /* --policy FILE, or NULL */
	const char *mode;         /* "gate", "run", "hook", "mcp", "watch" */
	const char *agent;        /* the agent command, when known */
	const char *approve_with; /* --approve-with CMD, or NULL */
	bool no_redact;
	bool no_tty;              /* never open /dev/tty (tests, services) */
	bool single_call;         /* one call per process (hook): build no sandbox ahead */
	bool workdir_guessed;     /* workdir inferred from the agent's cwd: see
	                           * policy_source.guessed */
	size_t line_cap;          /* 0: PROTOCOL_LINE_CAP */
};

struct gate;

/* Opens the policy and the audit log and starts a session. Returns 0 and a
 * new gate, or -1 with *errstr; *exit_code says which exit code fits. */
int gate_open(const struct gate_opts *o, struct gate **out, int *exit_code, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Writes the outcomes kept for later, ends the session and frees. Returns
 * 0, or -1 when the log is not whole (an outcome or the session's end
 * could not be written; said on stderr). gate_close(NULL) returns 0. */
int gate_close(struct gate *g);

/* Runs one call through the whole pipeline. Returns a new outcome (caller
 * frees) and a new verdict in *vout (caller frees). Never runs a call that
 * was not recorded first. */
/* An unknown tool's call is judged by its arguments and marked unsandboxed
 * when they hold a command its tool runs. */
struct outcome *gate_call(struct gate *g, struct call *c, struct verdict **vout);

/* Reads calls from in_fd and writes one result line per input line to out,
 * in input order. Returns an exit code. */
int gate_stream(struct gate *g, int in_fd, FILE *out);

/*
 * For a process that decides a single call (airlock hook): replays the
 * agent's recent calls from the audit log into the policy's circuit
 * breakers, so per-minute and repeat limits hold across processes.
 * Returns 0 (also when the breakers are off or the agent is unnamed), or
 * -1 with *errstr (caller frees): then the call must not run.
 */
int gate_breakers_restore(struct gate *g, char **errstr) AIRLOCK_MUST_CHECK;

/* Calls read but not yet answered (the approval screen shows it). */
size_t gate_pending(struct gate *g);

/*
 * Names the process the calls come from and their results go back to (run's
 * agent). Once it has exited nobody reads a result: a call waiting for a
 * person is denied instead of shown, and a screen already up closes. Without
 * a pidfd (an old kernel) it is never seen gone. Call once, before calls.
 */
void gate_set_requester(struct gate *g, pid_t pid);
/* Turns pl into a deny, with the reason, when c names a cwd that is not
 * workdir (a real path; NULL: none): the gate and airlock classify, which
 * shows what the gate does, decide it alike. */
void gate_deny_elsewhere(const char *workdir, const struct call *c, struct plan *pl);
/* The same for results written to fd (mcp's and the gate's stdout): gone
 * once a pipe or socket there has no reader left. Other kinds of file
 * (a terminal, a regular file) are not watched. Borrows fd. */
void gate_watch_results(struct gate *g, int fd);
/* Once either of the above is gone, what went (static text); else NULL. */
const char *gate_requester_gone(struct gate *g);

/* The environment a sandboxed run of the call gets beyond the profile's:
 * the plan's granted credentials and, when plan->git_identity, the host's
 * git identity, when plan->git_trust its safe.directory (gate/identity.h;
 * read for each such call, so a session that never runs git never loads
 * libgit2 for them). Returns a new vector; caller frees with strv_free.
 * *binds (NULL on entry) is set to the files to bind read-only: the
 * plan's credential files and, with the identity, the host's global git
 * ignore file (a new vector, NULL when none; caller frees). */
char **gate_call_env(struct gate *g, const struct plan *pl, char ***binds);

/* Accessors for the parts of the gate other gate/ files need. */
const char *gate_workdir(const struct gate *g);
struct policy *gate_policy(struct gate *g);
const struct gate_opts *gate_options(const struct gate *g);

/* --- gate/approve.c: asks a person. ---------------------------------- */
struct approval {
	enum decision decision; /* DECISION_APPROVED or DECISION_DENIED */
	char *reason;           /* why (the person's text, "timeout", ...); owned */
	const char *who;        /* "user", "timeout", "no-terminal", "approve-with" */
	long long wait_ms;
	struct call *edited;    /* the person edited the call: this new call goes
	                         * through the whole pipeline instead; owned */
};
/* Holds the call until a person decides; fills *a (free a->reason). */
void gate_approve(struct gate *g, const struct call *c, const struct verdict *v,
                  const struct plan *pl, const char *preview, struct approval *a);
/* Held while the approval screen is up: a thread that writes what a child
 * printed to the terminal takes it first, so nothing draws over the screen. */
void gate_terminal_lock(void);
void gate_terminal_unlock(void);

/* --- gate/preview.c: what a call would change (diff/). ---------------- */
struct preview;
/* Builds the preview of an ask call: sets o->preview to the rendered text
 * (or leaves it NULL) and returns the preview (caller frees with
 * gate_preview_free), or NULL when there is nothing to preview. */
struct preview *gate_preview(struct gate *g, const struct call *c, const struct verdict *v,
                             const struct plan *pl, struct outcome *o);
/* After approval: applies exactly what was previewed when the preview is
 * complete, or runs a file tool on what its preview checked
 * (diff_run_file). Returns 1 when done (o filled, o->applied = "preview",
 * or "run" for such a file tool), 0 when the call must run instead, -1
 * when refused (o->reason says why). */
int gate_apply_preview(struct gate *g, struct preview *p, const struct call *c,
                       struct outcome *o);
void gate_preview_free(struct preview *p);

/* --- gate/tools.c: executes an allowed call. ------------------------- */
/* Runs the call under plan->profile and fills o (ran, exit code, output).
 * Returns 0, or -1 with o->reason set when it could not run at all. */
int tools_run(struct gate *g, const struct call *c, const struct plan *pl, struct outcome *o);

/* --- Deciding without running (hook, mcp, watch: gate/cmd_*.c). ------- */
/* Returns a new verdict for c under the gate's classifier settings. */
struct verdict *gate_classify(struct gate *g, const struct call *c);

enum gate_ask {
	GATE_ASK_PERSON,  /* ask: the approval screen decides (as gate_call) */
	GATE_ASK_RETURN,  /* ask: recorded undecided; the caller hands it on */
	GATE_ASK_OBSERVE, /* the call already ran (watch): record what policy
	                     would have done, decide nothing, block nothing */
};
/*
 * Applies policy to c with verdict v and records the call (received,
 * classified, decided) but runs nothing. Fills *pl (caller clears with
 * plan_clear). Returns a new outcome (caller frees) with audit_id set and
 * decision AUTO, APPROVED, DENIED or ERROR (log failure: deny). With
 * GATE_ASK_RETURN and an ask, nothing is decided: decision is DENIED with
 * the policy's reason and pl->action is ACTION_ASK; the caller hands it on.
 * An approval that edits the call is refused (not supported on this path).
 */
struct outcome *gate_decide(struct gate *g, const struct call *c, const struct verdict *v,
                            enum gate_ask ask, struct plan *pl);
/* Records what happened to a decided call (o->audit_id). Returns 0, or -1
 * with *errstr (caller frees); then the outcome is kept, without its
 * output, and written at the next call or at gate_close(), marked
 * "recorded late". */
int gate_finish(struct gate *g, const struct outcome *o, char **errstr) AIRLOCK_MUST_CHECK;
/* Keeps o (not its output; borrowed) to be written later, its reason
 * saying it came late and why (err); replaces one kept for the same call. */
void gate_keep_late(struct gate *g, const struct outcome *o, const char *err);
/* Records a line that could not be read as a call (line/len may be NULL/0,
 * for one over the cap) as a rejected event, and returns its error result
 * (protocol_error: caller frees), which says so when even that failed.
 * Takes ownership of id. */
json_t *gate_reject(struct gate *g, json_t *id, size_t lineno, const char *why,
                    const char *line, size_t len);
/* Records the line as gate_reject() does; returns why, or why and the
 * log's error when it could not be recorded (a new string). */
char *gate_reject_note(struct gate *g, size_t lineno, const char *why, const char *line,
                       size_t len);

/* --- gate/signals.c: SIGTERM, SIGINT, SIGHUP end the session. ------- */
/*
 * Installs the handlers and starts the watcher thread; call it before
 * gate_open so a signal during startup is not lost. Returns 0, or -1 with
 * *errstr (caller frees).
 */
int gate_signals_start(char **errstr) AIRLOCK_MUST_CHECK;
/* A signal caught by someone else's handler (the approval screen's): acts
 * as if ours had caught it: the gate stops, airlock exits 128 + sig. */
void gate_signals_forward(int sig);
/* Names the gate a signal stops (NULL: none, before gate_close). A signal
 * caught before this stops g at once. */
void gate_signals_attach(struct gate *g);
/* Restores the default handlers and stops the watcher. Returns the signal
 * caught (0 when none): exit with 128 + it. */
int gate_signals_stop(void);
/* Makes gate_stream stop taking calls: the call in flight finishes and is
 * recorded; lines read but not started get an error result. Any thread. */
void gate_stop(struct gate *g, int sig);
/* After a stop and its grace period: a result write blocked on a reader
 * that stopped reading (a full pipe or socket) is made to fail, with
 * signal sig sent to gate_stream's thread, so airlock ends its session and
 * exits instead of hanging past SIGTERM. A terminal or a file is left
 * alone. Called by the signal watcher. */
void gate_unstick_output(struct gate *g, int sig);

#endif
