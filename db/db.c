/*
 * db.c: the SQLite audit log.
 * Rules it keeps:
 *  - every append is its own BEGIN IMMEDIATE transaction, committed before
 *    the caller acts, so a crash never loses a call that ran;
 *  - each event's hash is SHA-256(previous hash || canonical bytes), so
 *    editing, deleting or reordering rows breaks the chain even when the
 *    append-only triggers are dropped;
 *  - any failure is returned, never swallowed: the caller refuses the call.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/lazy.h"
#include "core/util.h"
#include "db/db.h"

#define DB_APP_ID 0x41524c4b /* "ARLK" */
#define DB_SCHEMA 1
#define HASH_LEN 32

struct db {
	sqlite3 *sql;
	char *path;
	int64_t session;
};

static const char schema_v1[] =
	"CREATE TABLE events("
	" id INTEGER PRIMARY KEY,"
	" session INTEGER NOT NULL,"
	" call INTEGER,"
	" kind TEXT NOT NULL,"
	" time TEXT NOT NULL,"
	" body TEXT NOT NULL,"
	" hash BLOB NOT NULL);"
	"CREATE INDEX events_call ON events(call);"
	"CREATE TRIGGER events_no_update BEFORE UPDATE ON events"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE TRIGGER events_no_delete BEFORE DELETE ON events"
	" BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;"
	"CREATE VIEW calls AS SELECT r.id AS id, r.session AS session, r.time AS time,"
	" json_extract(r.body, '$.tool') AS tool,"
	" json_extract(r.body, '$.summary') AS summary,"
	" (SELECT json_extract(body, '$.tier') FROM events WHERE call = r.id"
	"   AND kind = 'classified') AS tier,"
	" (SELECT json_extract(body, '$.decision') FROM events WHERE call = r.id"
	"   AND kind IN ('decided', 'finished') ORDER BY id DESC LIMIT 1) AS decision,"
	" (SELECT json_extract(body, '$.exit_code') FROM events WHERE call = r.id"
	"   AND kind = 'finished') AS exit_code,"
	" (SELECT json_extract(body, '$.duration_ms') FROM events WHERE call = r.id"
	"   AND kind = 'finished') AS duration_ms"
	" FROM events r WHERE r.kind = 'received';";

static int db_fail(struct db *db, char **errstr, const char *step)
{
	*errstr = xasprintf("audit log %s: %s: %s", db->path, step, sqlite3_errmsg(db->sql));
	return -1;
}

/* Creates the parent directories of path (mode 0700). */
static int make_parents(const char *path, char **errstr)
{
	char *dir = xstrdup(path);
	int rc = 0;

	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			*errstr = xasprintf("cannot create %s: %s", dir, strerror(errno));
			rc = -1;
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

char *db_default_path(void)
{
	const char *env = getenv("AIRLOCK_DB"), *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (env && *env)
		return xstrdup(env);
	if (state && *state == '/')
		return xasprintf("%s/airlock/audit.db", state);
	if ((home == NULL || *home == '\0') && (pw = getpwuid(getuid())) != NULL)
		home = pw->pw_dir;
	return xasprintf("%s/.local/state/airlock/audit.db", home ? home : "/tmp");
}

/* Checks the file is an airlock log of a schema we know, creating it if new. */
static int db_prepare_schema(struct db *db, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int app = 0, version = 0, objects = 0, rc = -1;

	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT (SELECT application_id FROM pragma_application_id),"
	                       " (SELECT user_version FROM pragma_user_version),"
	                       " (SELECT count(*) FROM sqlite_schema)",
	                       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(db, errstr, "cannot read header (not a SQLite database?)");
		goto out;
	}
	app = sqlite3_column_int(st, 0);
	version = sqlite3_column_int(st, 1);
	objects = sqlite3_column_int(st, 2);
	if (app == 0 && objects == 0) {
		char *err = NULL;
		char *sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA application_id = %d;"
		                      " PRAGMA user_version = %d; COMMIT;",
		                      schema_v1, DB_APP_ID, DB_SCHEMA);
		if (sqlite3_exec(db->sql, sql, NULL, NULL, &err) != SQLITE_OK) {
			*errstr = xasprintf("audit log %s: cannot create schema: %s", db->path, err);
			sqlite3_free(err);
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
			free(sql);
			goto out;
		}
		free(sql);
	} else if (app != DB_APP_ID) {
		*errstr = xasprintf("%s is not an airlock audit log", db->path);
		goto out;
	} else if (version > DB_SCHEMA) {
		*errstr = xasprintf("audit log %s has schema %d, newer than this airlock's %d"
		                    " (upgrade airlock)", db->path, version, DB_SCHEMA);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int db_open(const char *path, struct db **out, char **errstr)
{
	struct db *db = xcalloc(1, sizeof(*db));
	int rc = -1;

	db->path = xstrdup(path);
	if (make_parents(path, errstr) < 0)
		goto out;
	if (sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		db_fail(db, errstr, "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db->sql, 5000);
	if (sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
	                 NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot enable WAL");
		goto out;
	}
	if (db_prepare_schema(db, errstr) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0) {
		db_close(db);
		db = NULL;
	}
	*out = db;
	return rc;
}

void db_close(struct db *db)
{
	if (db == NULL)
		return;
	sqlite3_close(db->sql);
	free(db->path);
	free(db);
}

/* The bytes an event's hash covers: every column but the hash, as JSON. */
static char *event_canonical(int64_t id, int64_t session, int64_t call, const char *kind,
                             const char *time, const char *body)
{
	json_t *a = json_pack("[I,I,o,s,s,s]", (json_int_t)id, (json_int_t)session,
	                      call ? json_integer(call) : json_null(), kind, time, body);
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* hash = SHA-256(prev || canonical). */
static int event_hash(const unsigned char *prev, const char *canon, unsigned char *hash,
                      char **errstr)
{
	const struct lazy_crypto *c = lazy_crypto(errstr);
	EVP_MD_CTX *ctx;
	unsigned int n = 0;
	int ok;

	if (c == NULL)
		return -1;
	ctx = c->EVP_MD_CTX_new();
	ok = ctx && c->EVP_DigestInit_ex(ctx, c->EVP_sha256(), NULL) == 1 &&
	     c->EVP_DigestUpdate(ctx, prev, HASH_LEN) == 1 &&
	     c->EVP_DigestUpdate(ctx, canon, strlen(canon)) == 1 &&
	     c->EVP_DigestFinal_ex(ctx, hash, &n) == 1 && n == HASH_LEN;
	c->EVP_MD_CTX_free(ctx);
	if (!ok)
		*errstr = xstrdup("SHA-256 failed");
	return ok ? 0 : -1;
}

static void now_iso(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

/* Reads the last event's id and hash inside the open transaction. */
static int last_event(struct db *db, int64_t *id, unsigned char *hash, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	*id = 0;
	memset(hash, 0, HASH_LEN);
	if (sqlite3_prepare_v2(db->sql, "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1",
	                       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 1) == HASH_LEN)
			memcpy(hash, sqlite3_column_blob(st, 1), HASH_LEN);
	} else if (step != SQLITE_DONE)
		goto fail;
	rc = 0;
	goto out;
fail:
	db_fail(db, errstr, "cannot read the chain's tail");
out:
	sqlite3_finalize(st);
	return rc;
}

/* Inserts one event after `prev`; updates prev and *id. Inside a transaction. */
static int insert_event(struct db *db, int64_t *id, unsigned char *prev, int64_t session,
                        int64_t call, const char *kind, json_t *body, char **errstr)
{
	sqlite3_stmt *st = NULL;
	char when[48], *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS), *canon;
	unsigned char hash[HASH_LEN];
	int rc = -1;

	now_iso(when, sizeof(when));
	*id += 1;
	if (session == 0)
		session = *id;
	if (call < 0)
		call = *id;
	canon = event_canonical(*id, session, call, kind, when, text);
	if (event_hash(prev, canon, hash, errstr) < 0)
		goto out;
	if (sqlite3_prepare_v2(db->sql,
	                       "INSERT INTO events(id, session, call, kind, time, body, hash)"
	                       " VALUES (?, ?, ?, ?, ?, ?, ?)",
	                       -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot prepare insert");
		goto out;
	}
	sqlite3_bind_int64(st, 1, *id);
	sqlite3_bind_int64(st, 2, session);
	if (call)
		sqlite3_bind_int64(st, 3, call);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, when, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 7, hash, HASH_LEN, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_fail(db, errstr, "cannot append event");
		goto out;
	}
	memcpy(prev, hash, HASH_LEN);
	rc = 0;
out:
	sqlite3_finalize(st);
	free(text);
	free(canon);
	return rc;
}

/*
 * Appends n events in one BEGIN IMMEDIATE transaction. call 0 = a session
 * event, -1 = this event starts a call (its id becomes the call id).
 * Takes ownership of bodies. Sets *first_id to the first event's id.
 */
static int append(struct db *db, size_t n, const char *const *kinds, json_t **bodies,
                  int64_t call, int64_t *first_id, char **errstr)
{
	unsigned char prev[HASH_LEN];
	int64_t id = 0;
	int rc = -1;

	if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot begin transaction");
		goto out;
	}
	if (last_event(db, &id, prev, errstr) < 0)
		goto rollback;
	for (size_t i = 0; i < n; i++) {
		int64_t session = db->session;
		if (insert_event(db, &id, prev, session, call, kinds[i], bodies[i], errstr) < 0)
			goto rollback;
		if (i == 0 && first_id)
			*first_id = id;
		if (i == 0 && call < 0)
			call = id;
	}
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot commit");
		goto rollback;
	}
	rc = 0;
	goto out;
rollback:
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
out:
	for (size_t i = 0; i < n; i++)
		json_decref(bodies[i]);
	return rc;
}

int db_session_begin(struct db *db, const struct db_session_info *info, char **errstr)
{
	char host[256] = "";
	struct passwd *pw = getpwuid(getuid());
	const char *kinds[] = {"session_start"};
	json_t *body[1];
	int64_t id = 0;

	gethostname(host, sizeof(host) - 1);
	body[0] = json_pack("{s:s?, s:s?, s:s, s:s, s:s?, s:s, s:s?, s:I}", "cwd", info->cwd,
	                    "agent", info->agent, "user", pw ? pw->pw_name : "?", "host", host,
	                    "mode", info->mode, "version", AIRLOCK_VERSION, "policy_sha256",
	                    info->policy_digest, "pid", (json_int_t)getpid());
	db->session = 0;
	if (append(db, 1, kinds, body, 0, &id, errstr) < 0)
		return -1;
	db->session = id;
	return 0;
}

int db_session_end(struct db *db, char **errstr)
{
	const char *kinds[] = {"session_end"};
	json_t *body[] = {json_object()};

	if (db->session == 0) {
		json_decref(body[0]);
		return 0;
	}
	return append(db, 1, kinds, body, 0, NULL, errstr);
}

int db_call_received(struct db *db, const struct call *c, const struct verdict *v,
                     int64_t *call_id, char **errstr)
{
	const char *kinds[] = {"received", "classified"};
	char *summary = encode_summary(c, 200);
	json_t *bodies[2];

	bodies[0] = json_pack("{s:O, s:s, s:s, s:s, s:O, s:I, s:s}", "id", c->id ? c->id : json_null(),
	                      "tool", tool_name(c->tool), "name", c->name ? c->name : "",
	                      "shape", shape_name(c->shape), "input",
	                      c->input ? c->input : json_null(), "line", (json_int_t)c->line,
	                      "summary", summary);
	bodies[1] = encode_verdict_full(v);
	free(summary);
	if (bodies[0] == NULL) {
		json_decref(bodies[1]);
		*errstr = xstrdup("cannot encode the call for the audit log");
		return -1;
	}
	return append(db, 2, kinds, bodies, -1, call_id, errstr);
}

int db_call_decided(struct db *db, int64_t call_id, enum action action,
                    enum decision decision, const char *who, const char *reason,
                    long long wait_ms, char **errstr)
{
	const char *kinds[] = {"decided"};
	json_t *body[] = {json_pack("{s:s, s:s, s:s, s:s?, s:I}", "action", action_name(action),
	                            "decision", decision_name(decision), "who", who, "reason",
	                            reason, "wait_ms", (json_int_t)wait_ms)};
	return append(db, 1, kinds, body, call_id, NULL, errstr);
}

int db_call_previewed(struct db *db, int64_t call_id, const char *preview, char **errstr)
{
	const char *kinds[] = {"previewed"};
	json_t *body[] = {json_pack("{s:o}", "preview", encode_bytes(preview, strlen(preview)))};
	return append(db, 1, kinds, body, call_id, NULL, errstr);
}

int db_call_finished(struct db *db, int64_t call_id, const struct outcome *o, char **errstr)
{
	const char *kinds[] = {"finished"};
	json_t *body[] = {json_pack(
		"{s:s, s:b, s:i, s:i, s:o, s:o, s:b, s:b, s:I, s:I, s:I, s:s?, s:s?}", "decision",
		decision_name(o->decision), "ran", o->ran, "exit_code", o->exit_code, "signal",
		o->signal, "stdout", encode_bytes(o->out, o->outlen), "stderr",
		encode_bytes(o->err, o->errlen), "truncated", o->truncated, "timed_out",
		o->timed_out, "duration_ms", (json_int_t)o->duration_ms, "cpu_ms",
		(json_int_t)o->cpu_ms, "peak_kb", (json_int_t)o->peak_kb, "applied", o->applied,
		"reason", o->reason)};
	return append(db, 1, kinds, body, call_id, NULL, errstr);
}

int db_list(struct db *db, FILE *f, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT id, time, tool, ifnull(tier, '-'), ifnull(decision, '-'),"
	                       " ifnull(summary, '') FROM calls ORDER BY id",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot list calls");
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(f, "%6lld  %s  %-10s %-8s %-8s %s\n",
		        (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1),
		        sqlite3_column_text(st, 2), sqlite3_column_text(st, 3),
		        sqlite3_column_text(st, 4), sqlite3_column_text(st, 5));
	if (step != SQLITE_DONE)
		db_fail(db, errstr, "cannot list calls");
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int db_verify(struct db *db, long long *nevents, char **errstr)
{
	sqlite3_stmt *st = NULL;
	unsigned char prev[HASH_LEN] = {0}, hash[HASH_LEN];
	int64_t expect = 1;
	int rc = -1, step;

	*nevents = 0;
	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT id, session, call, kind, time, body, hash FROM events"
	                       " ORDER BY id",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot read events");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		char *canon = event_canonical(id, sqlite3_column_int64(st, 1),
		                              sqlite3_column_int64(st, 2),
		                              (const char *)sqlite3_column_text(st, 3),
		                              (const char *)sqlite3_column_text(st, 4),
		                              (const char *)sqlite3_column_text(st, 5));
		int bad = event_hash(prev, canon, hash, errstr);
		free(canon);
		if (bad < 0)
			goto out;
		if (id != expect) {
			*errstr = xasprintf("event %lld is missing (next is %lld): chain broken",
			                    (long long)expect, (long long)id);
			rc = 1;
			goto out;
		}
		if (sqlite3_column_bytes(st, 6) != HASH_LEN ||
		    memcmp(hash, sqlite3_column_blob(st, 6), HASH_LEN) != 0) {
			*errstr = xasprintf("event %lld was edited or reordered: hash mismatch",
			                    (long long)id);
			rc = 1;
			goto out;
		}
		memcpy(prev, hash, HASH_LEN);
		expect = id + 1;
		(*nevents)++;
	}
	if (step != SQLITE_DONE) {
		db_fail(db, errstr, "cannot read events");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
