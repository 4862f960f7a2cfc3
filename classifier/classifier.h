/*
 * classifier.h: a decoded call -> a verdict (tier, rules with reasons and
 * spans, the commands that would run, the paths read and written).
 * Pure: no I/O beyond resolving symlinks, so every case is a unit test.
 * What cannot be read with certainty is at least high, never low.
 */
#ifndef AIRLOCK_CLASSIFIER_H
#define AIRLOCK_CLASSIFIER_H

#include <stdbool.h>
#include "core/airlock.h"

/* Shell or SQL text longer than this is not read: parse.too_long (high). */
#define CLASSIFY_MAX_INPUT (64 * 1024)

struct classify_opts {
	const char *workdir;       /* absolute; relative paths resolve against it */
	const char *home;          /* $HOME, for ~ and secret paths */
	const char *state;         /* airlock's state directory, resolved (its kept
	                            * files and records decide later calls): a
	                            * write there is gate tampering, wherever
	                            * $XDG_STATE_HOME puts it; NULL: only
	                            * ~/.local/state/airlock */
	/* What the repository's and the user's git configs make git run or
	 * read as config from the workdir, relative to it: each
	 * core.hooksPath directory and each file an include names
	 * (exec_config_guarded(), which the caller reads: the classifier does
	 * no I/O). A file tool's write there is fs.write.git_config: the host's
	 * next commit runs it. NULL: none known. */
	char *const *config_guarded;
	bool config_unread;        /* the caller could not read them: every file
	                            * tool's write into the workdir asks */
	enum tier unknown_program; /* policy [policy] unknown-program, default medium */
	enum tier unknown_tool;    /* policy [policy] unknown-tool, default high */
};

/* Fills opts with the defaults for this workdir and home (borrowed strings). */
void classify_opts_init(struct classify_opts *opts, const char *workdir, const char *home);

/* Returns a new verdict for the call; never NULL; caller frees. */
struct verdict *classify_call(const struct call *c, const struct classify_opts *opts);

/* Returns a new verdict for one shell command string; caller frees. */
struct verdict *classify_shell(const char *cmd, const struct classify_opts *opts);

/* Returns a new verdict for one SQL string (one or more statements). */
struct verdict *classify_sql(const char *sql, const struct classify_opts *opts);

/* One entry of the rule catalogue (docs/classifier.md lists the same). */
struct classify_rule {
	const char *id;      /* stable dotted id, as in finding.rule */
	enum tier tier;      /* its usual tier (some vary with the argument) */
	const char *what;    /* one line: what fires it */
	const char *example; /* an input that fires it */
};

/* Returns the static catalogue of every rule id; *n gets its length. */
const struct classify_rule *classify_rules(size_t *n);

/*
 * Finds the first secret-shaped token in text[0..len): private key blocks,
 * AWS, GitHub, OpenAI, Anthropic, Slack, Google and Stripe token shapes.
 * Returns a static name of the kind ("aws-access-key", ...) and sets *where
 * (when not NULL) to its byte range, or returns NULL when none is found.
 * Shared by the audit log's redactor and the http rules.
 */
const char *classify_find_secret(const char *text, size_t len, struct span *where);
/* The private-key part of classify_find_secret(): the first block whose
 * BEGIN line or END line says PRIVATE KEY, span from its BEGIN to its END
 * line (or the end of text). Returns "private-key" or NULL; text may hold
 * NUL bytes. The audit redactor uses it so both always agree. */
const char *classify_find_private_key(const char *text, size_t len, struct span *where);
/* Returns why a file of this base name holds secrets (".env", "id_rsa",
 * "server.key", ...), static, or NULL. exec/ masks such files in a
 * sandbox's workdir. */
const char *classify_secret_name(const char *base);
/* The token part of classify_find_secret(): the first token shape, private
 * key blocks aside. Costs only the bytes up to the token it returns, so a
 * caller that walks forward through many tokens stays linear. */
const char *classify_find_token(const char *text, size_t len, struct span *where);

#endif
