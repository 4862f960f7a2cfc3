/*
 * db.h: the SQLite audit log. Append-only, hash-chained events grouped by
 * call and session. Every write is committed before the caller acts on it;
 * a failed write is returned as an error so the call does not run.
 */
#ifndef AIRLOCK_DB_H
#define AIRLOCK_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/airlock.h"
#include "policy/policy.h"

struct db;

/* What db_open*() return for a log whose header was edited: marked as an
 * airlock log with no tables (they were removed), or a lowered schema
 * version (a broken log, not an unreadable one). */
#define DB_OPEN_BROKEN (-2)
/* Opens (creating it and its directories) the log at path. Returns 0 and a
 * new handle, or -1 or DB_OPEN_BROKEN with *errstr (caller frees). */
int db_open(const char *path, struct db **out, char **errstr) AIRLOCK_MUST_CHECK;
/* As db_open, for a log that must exist: never creates the file or a schema
 * in an empty one (reading never makes a log); migrates an older one. */
int db_open_existing(const char *path, struct db **out, char **errstr) AIRLOCK_MUST_CHECK;
/* Opens an existing log only to read it (no creating, no migrating): for a
 * log this user cannot write. When WAL's -shm cannot be created here, the
 * file is read as it is (immutable), without events still in the -wal. */
int db_open_readonly(const char *path, struct db **out, char **errstr) AIRLOCK_MUST_CHECK;
/* Closes; db_close(NULL) is a no-op. Does not end the session. */
void db_close(struct db *db);

/* Returns the default path: $AIRLOCK_DB, else $XDG_STATE_HOME/airlock/audit.db,
 * else ~/.local/state/airlock/audit.db. Caller frees. */
char *db_default_path(void);

struct db_session_info {
	const char *cwd;
	const char *agent;          /* the agent command if known, else NULL */
	const char *mode;           /* "gate", "hook", "mcp", "watch", ... */
	const char *policy_digest;  /* SHA-256 hex of the effective policy */
	bool watched;               /* appended: calls were observed, not gated
	                               (mode "watch" implies it) */
};
/* Starts a session; later calls belong to it. */
int db_session_begin(struct db *db, const struct db_session_info *info, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Ends the session with an anchor event. */
int db_session_end(struct db *db, char **errstr) AIRLOCK_MUST_CHECK;

/* Records an input line that could not be decoded (not a call, so nothing
 * ran): its number, why, its length and its first 256 bytes, redacted, as
 * a "rejected" event; past the first 100 of a session each is only
 * counted, in the session's end event. line may be NULL (a line over the
 * cap, not kept). */
int db_input_rejected(struct db *db, size_t lineno, const char *why, const char *line,
                      size_t len, char **errstr) AIRLOCK_MUST_CHECK;

/* Records the received and classified events of a call in one transaction;
 * sets *call_id. */
int db_call_received(struct db *db, const struct call *c, const struct verdict *v,
                     int64_t *call_id, char **errstr) AIRLOCK_MUST_CHECK;
/* A decision as recorded: what policy said, what happened, who decided. */
struct db_decision {
	enum action action;
	enum decision decision;
	const char *who;      /* "policy", "user", "timeout", "breaker", ... */
	const char *reason;   /* why it was denied; may be NULL */
	long long wait_ms;
	const char *policy;   /* the policy's reason for action (the rule or tier
	                       * that decided); may be NULL */
};
/* Records the decision of a call db_call_received() recorded. */
int db_call_decided(struct db *db, int64_t call_id, const struct db_decision *d,
                    char **errstr) AIRLOCK_MUST_CHECK;
/*
 * Records received, classified and decided in one transaction, and finished
 * too when o is given (a call that will not run), so a call decided without
 * asking costs one commit before it runs; sets *call_id.
 */
int db_call_begin(struct db *db, const struct call *c, const struct verdict *v,
                  const struct db_decision *d, const struct outcome *o, int64_t *call_id,
                  char **errstr) AIRLOCK_MUST_CHECK;
/* Records the preview text shown to the person. */
int db_call_previewed(struct db *db, int64_t call_id, const char *preview, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Records what happened. */
int db_call_finished(struct db *db, int64_t call_id, const struct outcome *o,
                     char **errstr) AIRLOCK_MUST_CHECK;

/* Writes one line per call to f (`audit list`). */
int db_list(struct db *db, FILE *f, char **errstr) AIRLOCK_MUST_CHECK;

/*
 * The last `max` calls received in any session of this agent, oldest
 * first: a new JSON array of {"time": seconds since the epoch, "call": the
 * received event's body}. A per-call process (airlock hook) replays them
 * into the policy's circuit breakers. Returns 0, or -1 with *errstr.
 */
int db_agent_recent(struct db *db, const char *agent, size_t max, json_t **out,
                    char **errstr) AIRLOCK_MUST_CHECK;

/* Recomputes the chain. Returns 0 when intact, 1 when broken (with *errstr
 * naming the first bad event), -1 on error. */
int db_verify(struct db *db, long long *nevents, char **errstr) AIRLOCK_MUST_CHECK;

/* Redaction of secrets before anything is stored (on by default). */
void db_set_redact(struct db *db, bool on);
/* Also redacts this exact value (a granted credential variable's value);
 * values shorter than DB_SECRET_MIN bytes are ignored. Copies value. */
void db_add_secret_value(struct db *db, const char *value);
#define DB_SECRET_MIN 6
/* Returns a new redacted copy of s (for callers that print what they store);
 * caller frees. */
char *db_redact(struct db *db, const char *s);
/* A new copy of s[0..len) with every shape the log redacts cut (no exact
 * values: no log is needed), *outlen its length; NULL when nothing was.
 * exec/ cuts a repository config's credentials with it. */
char *db_redact_text(const char *s, size_t len, size_t *outlen);

/* The schema version this build writes (PRAGMA user_version). */
#define DB_SCHEMA_VERSION 2

/* ---- Queries for `airlock audit` and the review browser (db/query.c) ---- */

/* Every field is optional: 0 / NULL / -1 means "any". */
struct db_filter {
	int tier;              /* enum tier, or -1 */
	bool tier_at_least;    /* tier means "this tier or higher" */
	const char *decision;  /* "auto", "approved", "denied", "error", or "none" */
	const char *tool;      /* tool name as in tool_name() or the agent's name */
	const char *rule;      /* a rule id that fired */
	const char *mode;      /* session mode: "gate", "watch", ... */
	int64_t session;       /* session id, or 0 */
	const char *since;     /* ISO-8601 UTC time prefix, inclusive */
	const char *until;     /* ISO-8601 UTC time prefix, exclusive */
	const char *text;      /* case-insensitive substring of the summary */
};
/* Sets every field to "any". */
void db_filter_init(struct db_filter *f);

/* One call in a list. Strings live until the callback returns; NULL when
 * the call has not reached that step (no decision yet, not finished). */
struct db_call_row {
	int64_t id, session;
	const char *time;      /* received, ISO-8601 UTC with milliseconds */
	const char *mode;      /* the session's mode */
	const char *tool, *name, *summary;
	int tier;              /* enum tier, or -1 when unknown */
	const char *rules;     /* space-separated rule ids ("" when none) */
	const char *action, *decision, *who;
	long long wait_ms;     /* -1 when not decided */
	bool finished, ran, previewed;
	int exit_code, signal;
	long long duration_ms; /* -1 when not finished */
};

#define DB_PAGE_OLDER (-1) /* ids below after_id, newest first */
#define DB_PAGE_NEWER 1    /* ids above after_id, oldest first */
/*
 * Keyset paging: calls matching f, starting after after_id (0 = from the
 * newest for OLDER, from the oldest for NEWER), at most limit of them.
 * row_cb returns non-zero to stop early. Returns the number of rows given
 * to row_cb, or -1 with *errstr.
 */
int db_calls_page(struct db *db, const struct db_filter *f, int64_t after_id, int direction,
                  size_t limit, int (*row_cb)(void *arg, const struct db_call_row *row),
                  void *arg, char **errstr) AIRLOCK_MUST_CHECK;
/* Counts the calls matching f. Returns the count or -1 with *errstr. */
long long db_calls_count(struct db *db, const struct db_filter *f, char **errstr)
	AIRLOCK_MUST_CHECK;
/*
 * Sets *detail to a new object: {"call": {summary fields}, "session": {the
 * session_start body + id}, "events": [{"id","kind","time","body"}...],
 * "integrity": {"ok", "broken", "events": [first, last], "error"}} where
 * integrity is db_verify_range() over the call's events ("ok" false and
 * "broken" false: not checked; an index row with no event is broken).
 * Returns 0, 1 when no call has that id (with *errstr), -1 on error.
 */
int db_call_detail(struct db *db, int64_t call_id, json_t **detail, char **errstr)
	AIRLOCK_MUST_CHECK;
/*
 * Calls cb once per matching call, oldest first, with a new object holding
 * every field: the summary fields plus "events": each event's body under
 * its kind ("received", "classified", "decided", "previewed", "finished"). cb takes
 * no ownership; non-zero from cb stops. Returns 0 or -1 with *errstr.
 */
int db_export_calls(struct db *db, const struct db_filter *f,
                    int (*cb)(void *arg, json_t *call), void *arg, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Sets *stats to a new object: total, by_tier, by_decision, by_rule, waits
 * (count, mean_ms, p50_ms, p90_ms, max_ms of user decisions), top_denied. */
int db_stats(struct db *db, const struct db_filter *f, json_t **stats, char **errstr)
	AIRLOCK_MUST_CHECK;

/* ---- Integrity (db/chain.c) ---- */

struct db_verify_report {
	long long events;        /* events checked */
	int64_t first_id, last_id;
	int64_t pruned_through;  /* events up to this id were pruned (0: none) */
	int64_t bad_event;       /* first bad event id, 0 when intact */
	long long open_sessions; /* sessions with no end event (crashed or running) */
	char head[65];           /* the head hash in hex: keep last_id:head
	                            elsewhere to detect a rewrite (db_verify_pin) */
};
/* Like db_verify with the full report. Same return values. */
int db_verify_report(struct db *db, struct db_verify_report *r, char **errstr)
	AIRLOCK_MUST_CHECK;
/*
 * Checks the chain around events first..last alone (a call's, for `audit
 * show`): each of them and the event after last must hash from the stored
 * hash of the one before (from the prune anchor after a prune), and when
 * last is the newest event the head anchor must name it. Catches an edit of
 * these rows that did not rewrite every later hash; a rewrite needs the
 * whole walk and a pin. Returns 0 intact, 1 broken (*errstr names the
 * event), 2 not checked (more than 100,000 events apart; *errstr says so),
 * -1 on error.
 */
int db_verify_range(struct db *db, int64_t first, int64_t last, char **errstr)
	AIRLOCK_MUST_CHECK;
/*
 * Checks a pin: a head printed by an earlier verify ("ID:HASH", kept away
 * from this machine) must still be in the chain with that hash, which a
 * rewrite of the log from that event on cannot keep. Call after
 * db_verify_report() returned 0. Returns 0 when it holds, 1 when it does
 * not (the event is gone or has another hash), -1 on error; *errstr says.
 */
int db_verify_pin(struct db *db, int64_t id, const char *hex, char **errstr)
	AIRLOCK_MUST_CHECK;
/*
 * Rebuilds the call index (what lists, filters and the browser read) from
 * the chain in temporary tables and compares. Returns 0 when it matches, 1
 * when it differs (*bad_call = the first call that differs, *errstr says
 * so), -1 on error. Reads the whole log: seconds per million calls.
 */
int db_verify_index(struct db *db, int64_t *bad_call, char **errstr) AIRLOCK_MUST_CHECK;
/* Rebuilds the call index from the chain (after db_verify_index found it
 * edited). Returns 0 or -1 with *errstr. */
int db_reindex(struct db *db, char **errstr) AIRLOCK_MUST_CHECK;
/*
 * Removes every event older than before (ISO-8601 UTC prefix) after
 * verifying the chain, records an anchor (the last removed event's id and
 * hash) in the anchors table and as a "pruned" event, so what remains still
 * verifies. Sets *removed. Returns 0, 1 when the chain is broken (nothing
 * removed), -1 on error.
 */
int db_prune(struct db *db, const char *before, long long *removed, char **errstr)
	AIRLOCK_MUST_CHECK;

#endif
