/*
 * airlock.h: the shared vocabulary every module speaks: a decoded call, the
 * classifier's verdict, a sandbox profile and the outcome of a call.
 * Plain data with owned fields; each type with a _new() has a _free() that
 * accepts NULL.
 */
#ifndef AIRLOCK_H
#define AIRLOCK_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AIRLOCK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define AIRLOCK_MUST_CHECK __attribute__((warn_unused_result))

/* Exit codes of the airlock binary (documented in airlock.1). */
enum airlock_exit {
	EXIT_OK = 0,
	EXIT_FAILURE_ = 1,    /* a check failed: audit verify broken, call denied */
	EXIT_USAGE = 2,       /* bad arguments, bad or unsafe configuration */
	EXIT_INTERNAL = 125,  /* airlock itself failed before the command ran */
	EXIT_CANNOT_EXEC = 126,
	EXIT_NOT_FOUND = 127,
};

enum tier { TIER_LOW, TIER_MEDIUM, TIER_HIGH, TIER_CRITICAL };
#define TIER_COUNT 4
/* Returns a static name: "low" ... "critical". */
const char *tier_name(enum tier t);
/* Parses a tier name; returns 0 or -1 when unknown. */
int tier_from_name(const char *s, enum tier *out);

enum tool {
	TOOL_SHELL,
	TOOL_SQL,
	TOOL_READ_FILE,
	TOOL_WRITE_FILE,
	TOOL_EDIT_FILE,
	TOOL_HTTP,
	TOOL_OTHER, /* any other name: policy decides (unknown tools default high) */
};
const char *tool_name(enum tool t);

enum action { ACTION_AUTO, ACTION_ASK, ACTION_DENY };
const char *action_name(enum action a);
int action_from_name(const char *s, enum action *out);

enum decision { DECISION_AUTO, DECISION_APPROVED, DECISION_DENIED, DECISION_ERROR };
const char *decision_name(enum decision d);

/* The input shape a call arrived in (docs/protocol.md). */
enum shape {
	SHAPE_CANONICAL,
	SHAPE_ANTHROPIC,  /* tool_use block */
	SHAPE_RESPONSES,  /* OpenAI Responses function_call */
	SHAPE_CHAT,       /* OpenAI Chat Completions tool call */
	SHAPE_HOOK,       /* Claude Code hook payload */
	SHAPE_MCP,        /* MCP tools/call request */
};
const char *shape_name(enum shape s);

/*
 * One decoded tool call. The string views point into `input` and live as
 * long as the call; NULL when the field is absent.
 */
struct call {
	json_t *id;       /* as given (string, number or null); owned reference */
	char *name;       /* the tool name as the agent wrote it; owned */
	enum tool tool;   /* after the alias table */
	enum shape shape;
	json_t *input;    /* the input object, field aliases applied; owned */
	char *cwd;        /* hook payload cwd or input.cwd, else NULL; owned */
	size_t line;      /* input line number, from 1 */

	const char *command;   /* shell */
	const char *query;     /* sql */
	const char *database;  /* sql: SQLite file relative to the workdir */
	const char *path;      /* read_file, write_file, edit_file */
	const char *content;   /* write_file */
	const char *old_text;  /* edit_file */
	const char *new_text;  /* edit_file */
	const char *method;    /* http */
	const char *url;       /* http */
	const char *body;      /* http */
	bool replace_all;      /* edit_file */
	long long timeout_ms;  /* shell; 0 when not given */
	bool unsandboxed;      /* holds a shell command its own tool runs (an MCP
	                        * server, Claude Code), never airlock's sandbox */
};

/* Returns a new empty call; caller frees with call_free(). */
struct call *call_new(void);
void call_free(struct call *c);
/* Returns the text the classifier's spans index: command, query, path or url. */
const char *call_subject(const struct call *c);
/* The input key holding that text for a tool named as tool_name() names it
 * ("command" for "shell"), or NULL (an unknown tool: its name). Static. */
const char *tool_subject_key(const char *tool);

/* A byte range in call_subject(). len 0 means "the whole call". */
struct span {
	size_t off, len;
};

/* One rule that fired. */
struct finding {
	const char *rule; /* stable dotted id, static storage: "fs.delete.recursive" */
	char *reason;     /* one short human sentence; owned */
	enum tier tier;
	struct span span;
};

/* One simple command the classifier found, after unwrapping sudo, env, ... */
struct command {
	char **argv;      /* NULL-terminated, owned */
	struct span span;
};

struct verdict {
	enum tier tier; /* max over findings; TIER_LOW when none fired */
	struct finding *findings;
	size_t nfindings;
	struct command *commands; /* shell: every command that would run */
	size_t ncommands;
	char **statements; /* sql: each statement's text; NULL-terminated, owned */
	char **reads;      /* absolute paths read; NULL-terminated, owned */
	char **writes;     /* absolute paths written; NULL-terminated, owned */
	char **hosts;      /* network destinations; NULL-terminated, owned */
};

/* Returns a new verdict at TIER_LOW with nothing found; caller frees. */
struct verdict *verdict_new(void);
void verdict_free(struct verdict *v);
/* Records a finding and raises the tier; `rule` must be static. */
void verdict_add(struct verdict *v, enum tier t, const char *rule, struct span sp,
                 const char *fmt, ...) AIRLOCK_PRINTF(5, 6);
/* verdict_add() with a va_list. */
void verdict_addv(struct verdict *v, enum tier t, const char *rule, struct span sp,
                  const char *fmt, va_list ap) AIRLOCK_PRINTF(5, 0);
/* Records a command; takes ownership of argv. */
void verdict_add_command(struct verdict *v, char **argv, struct span sp);
/* Appends a copy of s to a NULL-terminated vector unless already there. */
void verdict_add_path(char ***vec, const char *s);
/* Returns true when a rule with this id fired. */
bool verdict_has(const struct verdict *v, const char *rule);

/* A sandbox profile: what an auto-run call may see and use. */
struct profile {
	char *name;        /* owned */
	bool none;         /* the explicit "none" profile: no sandbox at all */
	bool network;
	bool workdir_rw;
	bool show_secrets; /* the workdir's secret files (.env, keys) are shown;
	                    * else each is masked by an empty read-only file */
	char **read_only;  /* extra paths bound read-only; NULL-terminated */
	char **read_write; /* extra paths bound read-write */
	char **home;       /* $HOME paths made visible read-only */
	char **env;        /* environment allowlist (names; "LC_*" allowed) */
	char **secrets_skip; /* workdir-relative directories the search for secret
	                      * files, sockets and FIFOs does not enter (a huge
	                      * build or data tree): what they hold shows */
	char **hide;       /* absolute paths the policy denies reading (deny =
	                    * Read(...)): masked where they lie in the workdir */
	char **keep;       /* ... and writing (deny = Edit(...)): bound read-only
	                    * where they lie in the workdir */
	char **hide_globs; /* the absolute patterns deny = Read(...) rules name
	                    * paths by otherwise (policy_globs_new()): what
	                    * they match in the workdir is masked */
	char **keep_globs; /* ... deny = Edit(...) rules: kept read-only */
	long long memory;     /* bytes; 0 = unlimited */
	long long cpu;        /* seconds */
	long long timeout;    /* wall seconds */
	long long processes;
	long long file_size;  /* bytes */
	long long output;     /* capture cap per stream, bytes */
	long long tmp_size;   /* /tmp tmpfs size, bytes */
};
/* Returns a deep copy; caller frees. */
struct profile *profile_dup(const struct profile *p);
void profile_free(struct profile *p);

/* What happened to a call. */
struct outcome {
	enum decision decision;
	char *reason;     /* why denied or what failed; owned, NULL when ran */
	bool ran;         /* the command or action actually executed */
	int exit_code;    /* -1 when it did not run or died by signal */
	int signal;       /* 0 unless killed by a signal */
	char *out, *err;  /* captured output; owned, may hold NULs */
	size_t outlen, errlen;
	bool truncated;   /* a stream hit its cap */
	bool timed_out;
	long long duration_ms, cpu_ms, peak_kb;
	int64_t audit_id; /* the call's id in the audit log; 0 when unrecorded */
	const char *applied; /* "run", "preview" or NULL; static */
	char *preview;    /* rendered preview text; owned, NULL when none */
};
/* Returns a new outcome (decision error, exit_code -1); caller frees. */
struct outcome *outcome_new(void);
void outcome_free(struct outcome *o);
/* Replaces the reason with a formatted one. */
void outcome_set_reason(struct outcome *o, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);

#endif
