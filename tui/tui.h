/*
 * tui.h: the curses screens: the approval screen that holds a high-risk call
 * until a person decides, and the audit log browser. Both draw on /dev/tty
 * (stdin and stdout belong to the agent), restore the terminal on every way
 * out, and show hostile text (escapes, \r, bidi overrides) escaped and marked.
 */
#ifndef AIRLOCK_TUI_H
#define AIRLOCK_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include "core/airlock.h"

struct db;
struct db_filter;

/* Everything the approval screen shows about one call. Borrowed strings. */
/* What approving a call does with its preview (gate/approve.c reads it
 * from the preview's head lines; the screen and --approve-with's JSON say
 * the same). */
enum tui_applies {
	TUI_APPLIES_PREVIEW, /* the preview's changes are applied */
	TUI_APPLIES_RUN,     /* the call itself runs (no preview, or an incomplete one) */
	TUI_APPLIES_REFUSED, /* the preview failed as the call would: nothing runs */
};

struct tui_ask {
	const char *tool;          /* the tool name as the agent wrote it */
	enum tier tier;
	const char *call_id;       /* the call's id as text ("" when none) */
	const char *subject;       /* command, query, path or URL: spans index it */
	const char *subject_label; /* "command", "query", ... (NULL: "input") */
	const struct verdict *verdict;
	const char *policy_reason; /* why policy asks, or NULL */
	const char *input_text;    /* the input, field by field (the raw view) */
	const char *preview;       /* unified diff with stat summary, or NULL */
	enum tui_applies applies;  /* what approving does with it */
	const char *edit_text;     /* what $EDITOR gets for `e`; NULL: no editing */
	const char *edit_suffix;   /* file name suffix for the editor (".sh") */
	const char *pattern;       /* the rule `A` and `s` would add; NULL: off */
	const char *no_pattern;    /* why there is no pattern (shown on `A`/`s`) */
	bool can_save;             /* `s` can write the rule to a policy file */
	int timeout_s;             /* seconds until a timeout denies; 0: never */
	size_t (*pending)(void *arg); /* calls waiting behind this one, or NULL */
	void *pending_arg;
	bool (*gone)(void *arg);      /* the caller left (run's agent exited), or NULL */
	void *gone_arg;
	const char *tty;           /* NULL: /dev/tty */
};

enum tui_choice {
	TUI_APPROVE,
	TUI_DENY,
	TUI_REMEMBER,     /* approve, and approve ask->pattern for the session */
	TUI_SAVE_PROJECT, /* approve, and save ask->pattern to the project policy */
	TUI_SAVE_USER,    /* ... to the user policy */
	TUI_EDIT,         /* the person edited the call: run answer->edited instead */
	TUI_TIMEOUT,
	TUI_SIGNAL,       /* SIGINT, SIGTERM or SIGHUP while waiting */
	TUI_HANGUP,       /* the terminal went away */
	TUI_GONE,         /* ask->gone: nobody waits for the answer any more */
};
/* Returns a static name: "approve" ... */
const char *tui_choice_name(enum tui_choice c);

struct tui_answer {
	enum tui_choice choice;
	char *reason;     /* TUI_DENY: the person's one-line reason or NULL; owned */
	char *edited;     /* TUI_EDIT: the edited text; owned */
	int signal;       /* TUI_SIGNAL: which */
	long long first_frame_ns; /* clock_ns() when the first frame was on screen */
};
/* Frees what an answer owns. */
void tui_answer_clear(struct tui_answer *a);

/*
 * Shows the call and waits for a decision, the timeout or a signal.
 * Returns 0 with *ans filled, or -1 with *errstr (caller frees) when there
 * is no usable terminal: the caller must then deny (fail closed).
 */
int tui_approve(const struct tui_ask *ask, struct tui_answer *ans, char **errstr)
	AIRLOCK_MUST_CHECK;

/* The signal that ended an approval (SIGINT, SIGTERM, SIGHUP), or 0: the
 * gate should stop reading new calls once this is set. */
int tui_stop_signal(void);

/*
 * The audit browser: a list of the calls matching f (NULL: all), newest
 * first, read a page at a time (keyset paging), with filters and a detail
 * view. Returns 0 when the person leaves, -1 with *errstr (no terminal, a
 * database error).
 */
int tui_audit_browse(struct db *db, const struct db_filter *f, char **errstr)
	AIRLOCK_MUST_CHECK;

#endif
