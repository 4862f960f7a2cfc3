/*
 * db_internal.h: what the db/ files share and nobody else sees: the handle,
 * its cached statements, the chain's transaction API and redaction.
 * Only the db/ files include this; the module's interface is db/db.h.
 */
#ifndef AIRLOCK_DB_INTERNAL_H
#define AIRLOCK_DB_INTERNAL_H

#include <jansson.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "db/db.h"

#define DB_HASH_LEN 32
#define DB_FMT_JSON 1   /* v1 canonical bytes: a JSON array */
#define DB_FMT_BINARY 2 /* v2 canonical bytes: length-prefixed fields */

/* Statements prepared once per handle (sqlite3_prepare_v3 PERSISTENT). */
enum db_stmt {
	ST_TAIL,
	ST_HEAD_GET,
	ST_HEAD_SET,
	ST_INSERT,
	ST_SUM_INSERT,
	ST_SUM_DECIDED,
	ST_SUM_PREVIEWED,
	ST_SUM_FINISHED,
	ST_RULE_INSERT,
	ST_SES_INSERT,
	ST_SES_END,
	ST_COUNT
};

struct db {
	sqlite3 *sql;
	char *path;
	int64_t session;
	char *mode;          /* the session's mode ("gate", "watch", ...); owned */
	long long session_calls, session_events;
	long long session_rejected; /* undecodable input lines this session */
	bool redact;
	char **secrets;      /* exact values to redact; NULL-terminated, owned */
	EVP_MD_CTX *md;      /* reused for every hash */
	bool md_ready;       /* md holds SHA-256 from an earlier init */
	sqlite3_stmt *st[ST_COUNT];
	int fail_code;       /* the last db_fail()'s SQLite primary result code */
	char *real;          /* the file's absolute path at open; owned, NULL = unchecked */
	struct db_file_id {  /* the log, its -wal and -shm at open: a write refuses */
		dev_t dev;   /* when a path no longer names its file (removed or */
		ino_t ino;   /* replaced); ino 0 = not there at open, unchecked */
	} files[3];
	bool one_name;       /* a log calls are recorded in: a file with another
	                      * name (a hard link) is refused, db_check_file */
};

/* The append-only triggers (a speed bump, not the protection: the chain is). */
#define DB_TRIGGERS_SQL                                                              \
	"CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events"         \
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"               \
	"CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events"         \
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"

/* The SQL that rebuilds the call index from the chain into the named
 * tables, and the SQL that creates those tables (names prefixed). New
 * strings; caller frees. */
char *db_derive_sql(const char *calls, const char *rules);
char *db_derived_tables_sql(const char *prefix);

/* Sets *errstr to "audit log PATH: STEP: sqlite's message"; returns -1. */
int db_fail(struct db *db, char **errstr, const char *step);
/* Returns 0 when the path still names the file opened (one stat), else -1
 * with *errstr: a log removed while airlock runs must refuse every call,
 * not record it in the unlinked file. */
int db_check_file(struct db *db, char **errstr) AIRLOCK_MUST_CHECK;
/* Returns the cached statement, reset and unbound, or NULL with *errstr. */
sqlite3_stmt *db_stmt(struct db *db, enum db_stmt which, char **errstr);

/* One open append transaction: the chain's tail as it grows. */
struct chain_tx {
	int64_t id;                        /* last event id */
	unsigned char hash[DB_HASH_LEN];   /* last event hash */
	char time[48];                     /* time of the last event added */
	char first_time[48];               /* time of the first event added */
	int added;                         /* events added in this transaction */
};
/* BEGIN IMMEDIATE, read the tail and check it against the head anchor. */
int chain_begin(struct db *db, struct chain_tx *tx, char **errstr) AIRLOCK_MUST_CHECK;
/* Appends one event; call -1 means "this event starts a call" (call = its
 * own id), 0 means a session event. Sets *id when id is not NULL. */
int chain_add(struct db *db, struct chain_tx *tx, int64_t session, int64_t call,
              const char *kind, const char *body, int64_t *id, char **errstr)
	AIRLOCK_MUST_CHECK;
/* Moves the head anchor to the tail and commits. */
int chain_commit(struct db *db, struct chain_tx *tx, char **errstr) AIRLOCK_MUST_CHECK;
/* Rolls back (safe to call when no transaction is open). */
void chain_rollback(struct db *db);
/* Writes the hex form of a hash into out (65 bytes). */
void chain_hex(const unsigned char *hash, char *out);

/*
 * Redaction (db/redact.c). redact_text returns a new string with every
 * secret shape and every exact value in `values` (NULL-terminated, may be
 * NULL) replaced by "[REDACTED:kind]", or NULL when nothing matched.
 */
char *redact_text(const char *s, size_t len, char *const *values, size_t *outlen);
/* Returns a new reference: v with every string (and object key) redacted.
 * v itself is never modified (it may be the caller's call input). */
json_t *redact_json(json_t *v, char *const *values);

#endif
