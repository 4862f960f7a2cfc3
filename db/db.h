/*
 * db.h: the SQLite audit log. Append-only, hash-chained events grouped by
 * call and session. Every write is committed before the caller acts on it;
 * a failed write is returned as an error so the call does not run.
 */
#ifndef AIRLOCK_DB_H
#define AIRLOCK_DB_H

#include <stdint.h>
#include <stdio.h>

#include "core/airlock.h"
#include "policy/policy.h"

struct db;

/* Opens (creating it and its directories) the log at path. Returns 0 and a
 * new handle, or -1 with *errstr (caller frees). */
int db_open(const char *path, struct db **out, char **errstr) AIRLOCK_MUST_CHECK;
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
};
/* Starts a session; later calls belong to it. */
int db_session_begin(struct db *db, const struct db_session_info *info, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Ends the session with an anchor event. */
int db_session_end(struct db *db, char **errstr) AIRLOCK_MUST_CHECK;

/* Records the received and classified events of a call in one transaction;
 * sets *call_id. */
int db_call_received(struct db *db, const struct call *c, const struct verdict *v,
                     int64_t *call_id, char **errstr) AIRLOCK_MUST_CHECK;
/* Records the decision (who: "policy", "user", "timeout", "breaker", ...). */
int db_call_decided(struct db *db, int64_t call_id, enum action action,
                    enum decision decision, const char *who, const char *reason,
                    long long wait_ms, char **errstr) AIRLOCK_MUST_CHECK;
/* Records the preview text shown to the person. */
int db_call_previewed(struct db *db, int64_t call_id, const char *preview, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Records what happened. */
int db_call_finished(struct db *db, int64_t call_id, const struct outcome *o,
                     char **errstr) AIRLOCK_MUST_CHECK;

/* Writes one line per call to f (`audit list`). */
int db_list(struct db *db, FILE *f, char **errstr) AIRLOCK_MUST_CHECK;

/* Recomputes the chain. Returns 0 when intact, 1 when broken (with *errstr
 * naming the first bad event), -1 on error. */
int db_verify(struct db *db, long long *nevents, char **errstr) AIRLOCK_MUST_CHECK;

#endif
