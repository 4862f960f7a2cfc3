/*
 * db.c: the SQLite audit log: opening, the schema and its migrations, and
 * the events the gate records (session start/end, received, classified,
 * decided, previewed, finished).
 * Rules it keeps:
 *  - every record is one chained transaction (db/chain.c) committed before
 *    the caller acts, and any failure is returned: the caller refuses the call;
 *  - secrets are redacted (db/redact.c) before anything is hashed or stored;
 *  - a file that is not an airlock log, or is newer, is never modified.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/encode.h"
#include "core/lazy.h"
#include "core/util.h"
#include "db/db_internal.h"

#define DB_APP_ID 0x41524c4b /* "ARLK" */
#define DB_BUSY_MS 10000

/*
 * The derived call index, rebuilt from the chain: %1$s is the call index
 * table, %2$s the rules table. Migration 1 -> 2 fills the real tables with
 * it; `audit verify --index` fills temporary ones and compares. Must agree
 * with what record.c writes as it goes. The mode comes from the chained
 * session_start event (the sessions table is derived too: trusting it let
 * an edit mark gated calls "(watched)" and still pass); only a session
 * whose start was pruned falls back to the table.
 */
static const char derive_sql[] =
	"INSERT INTO %1$s(id, session, time, mode, tool, name, summary)"
	" SELECT r.id, r.session, r.time, ifnull((SELECT json_extract(s.body, '$.mode')"
	" FROM events s WHERE s.id = r.session AND s.kind = 'session_start'),"
	" (SELECT mode FROM sessions WHERE id = r.session)),"
	" ifnull(json_extract(r.body, '$.tool'), 'other'), json_extract(r.body, '$.name'),"
	" json_extract(r.body, '$.summary') FROM events r WHERE r.kind = 'received';"
	"UPDATE %1$s SET (tier, rules) = (SELECT CASE json_extract(e.body, '$.tier')"
	" WHEN 'low' THEN 0 WHEN 'medium' THEN 1 WHEN 'high' THEN 2 WHEN 'critical' THEN 3 END,"
	" ifnull((SELECT group_concat(j.value, ' ') FROM json_each(e.body, '$.rules') j), '')"
	" FROM events e WHERE e.call = %1$s.id AND e.kind = 'classified')"
	" WHERE EXISTS (SELECT 1 FROM events e WHERE e.call = %1$s.id"
	" AND e.kind = 'classified');"
	"UPDATE %1$s SET (action, decision, who, wait_ms) = (SELECT"
	" json_extract(body, '$.action'), json_extract(body, '$.decision'),"
	" json_extract(body, '$.who'), json_extract(body, '$.wait_ms') FROM events"
	" WHERE call = %1$s.id AND kind = 'decided' ORDER BY id DESC LIMIT 1)"
	" WHERE EXISTS (SELECT 1 FROM events WHERE call = %1$s.id AND kind = 'decided');"
	"UPDATE %1$s SET previewed = 1 WHERE EXISTS (SELECT 1 FROM events"
	" WHERE call = %1$s.id AND kind = 'previewed');"
	"UPDATE %1$s SET (finished, decision, ran, exit_code, signal, duration_ms) ="
	" (SELECT 1, json_extract(body, '$.decision'), json_extract(body, '$.ran'),"
	" json_extract(body, '$.exit_code'), json_extract(body, '$.signal'),"
	" json_extract(body, '$.duration_ms') FROM events WHERE call = %1$s.id"
	" AND kind = 'finished' ORDER BY id DESC LIMIT 1)"
	" WHERE EXISTS (SELECT 1 FROM events WHERE call = %1$s.id AND kind = 'finished');"
	"INSERT OR IGNORE INTO %2$s SELECT j.value, e.call FROM events e,"
	" json_each(e.body, '$.rules') j WHERE e.kind = 'classified'"
	" AND e.call IN (SELECT id FROM %1$s);";

char *db_derive_sql(const char *calls, const char *rules)
{
	return xasprintf(derive_sql, calls, rules);
}

/* The derived tables' shapes (%1$s: a prefix such as "" or "temp.chk_"). */
static const char derived_tables_sql[] =
	"CREATE TABLE %1$scall_index(id INTEGER PRIMARY KEY, session INTEGER NOT NULL,"
	" time TEXT NOT NULL, mode TEXT, tool TEXT NOT NULL, name TEXT, summary TEXT,"
	" tier INTEGER, rules TEXT NOT NULL DEFAULT '', action TEXT, decision TEXT, who TEXT,"
	" wait_ms INTEGER, previewed INTEGER NOT NULL DEFAULT 0,"
	" finished INTEGER NOT NULL DEFAULT 0, ran INTEGER, exit_code INTEGER, signal INTEGER,"
	" duration_ms INTEGER);"
	"CREATE TABLE %1$scall_rules(rule TEXT NOT NULL, call INTEGER NOT NULL,"
	" PRIMARY KEY (rule, call)) WITHOUT ROWID;";

char *db_derived_tables_sql(const char *prefix)
{
	return xasprintf(derived_tables_sql, prefix);
}

/* Migration N takes schema N to N+1 (v0 is an empty file): `before`, then
 * the derived tables and their rows when `derive`, then `after`. */
static const struct {
	const char *before;
	bool derive;
	const char *after;
} migrations[DB_SCHEMA_VERSION] = {
	/* 0 -> 1: the foundation's schema. */
	{"CREATE TABLE events(id INTEGER PRIMARY KEY, session INTEGER NOT NULL, call INTEGER,"
	 " kind TEXT NOT NULL, time TEXT NOT NULL, body TEXT NOT NULL, hash BLOB NOT NULL);"
	 "CREATE INDEX events_call ON events(call);" DB_TRIGGERS_SQL
	 "CREATE VIEW calls AS SELECT r.id AS id, r.session AS session, r.time AS time,"
	 " json_extract(r.body, '$.tool') AS tool, json_extract(r.body, '$.summary') AS summary"
	 " FROM events r WHERE r.kind = 'received';",
	 false, ""},
	/* 1 -> 2: binary canonical bytes for new events, the head anchor, prune
	 * anchors, and the derived session and call indexes, rebuilt from the
	 * chain. */
	{"ALTER TABLE events ADD COLUMN fmt INTEGER NOT NULL DEFAULT 1;"
	 "CREATE TABLE chain_head(id INTEGER NOT NULL, hash BLOB NOT NULL);"
	 "INSERT INTO chain_head SELECT id, hash FROM events ORDER BY id DESC LIMIT 1;"
	 "INSERT INTO chain_head SELECT 0, zeroblob(32)"
	 " WHERE NOT EXISTS (SELECT 1 FROM chain_head);"
	 "CREATE TABLE anchors(through INTEGER PRIMARY KEY, hash BLOB NOT NULL,"
	 " time TEXT NOT NULL, events INTEGER NOT NULL);"
	 "CREATE TABLE sessions(id INTEGER PRIMARY KEY, time TEXT NOT NULL, mode TEXT,"
	 " watched INTEGER NOT NULL DEFAULT 0, user TEXT, host TEXT, cwd TEXT, agent TEXT,"
	 " ended INTEGER);"
	 "INSERT INTO sessions SELECT s.id, s.time, json_extract(s.body, '$.mode'),"
	 " ifnull(json_extract(s.body, '$.mode') = 'watch', 0), json_extract(s.body, '$.user'),"
	 " json_extract(s.body, '$.host'), json_extract(s.body, '$.cwd'),"
	 " json_extract(s.body, '$.agent'), (SELECT max(e.id) FROM events e"
	 " WHERE e.session = s.id AND e.kind = 'session_end')"
	 " FROM events s WHERE s.kind = 'session_start';",
	 true,
	 "CREATE INDEX call_index_tier ON call_index(tier);"
	 "CREATE INDEX call_index_decision ON call_index(decision);"
	 "CREATE INDEX call_index_tool ON call_index(tool);"
	 "CREATE INDEX call_index_session ON call_index(session);"
	 "CREATE INDEX call_index_time ON call_index(time);"
	 "DROP VIEW calls;"
	 "CREATE VIEW calls AS SELECT id, session, time, mode, tool, name, summary,"
	 " CASE tier WHEN 0 THEN 'low' WHEN 1 THEN 'medium' WHEN 2 THEN 'high'"
	 " WHEN 3 THEN 'critical' END AS tier, rules, action, decision, who, wait_ms,"
	 " exit_code, signal, duration_ms FROM call_index;"},
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_TAIL] = "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1",
	/* Exactly one row or none: a second one made every append's head move
	 * fail ("not an error") while verify, reading the first, said ok. */
	[ST_HEAD_GET] = "SELECT id, hash FROM chain_head"
	                " WHERE (SELECT count(*) FROM chain_head) = 1",
	[ST_HEAD_SET] = "UPDATE chain_head SET id = ?, hash = ?",
	[ST_INSERT] = "INSERT INTO events(id, session, call, kind, time, body, hash, fmt)"
	              " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SUM_INSERT] = "INSERT INTO call_index(id, session, time, mode, tool, name, summary,"
	                  " tier, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SUM_DECIDED] = "UPDATE call_index SET action = ?, decision = ?, who = ?,"
	                   " wait_ms = ? WHERE id = ?",
	[ST_SUM_PREVIEWED] = "UPDATE call_index SET previewed = 1 WHERE id = ?",
	[ST_SUM_FINISHED] = "UPDATE call_index SET finished = 1, decision = ?, ran = ?,"
	                    " exit_code = ?, signal = ?, duration_ms = ? WHERE id = ?",
	[ST_RULE_INSERT] = "INSERT OR IGNORE INTO call_rules(rule, call) VALUES (?, ?)",
	[ST_SES_INSERT] = "INSERT INTO sessions(id, time, mode, watched, user, host, cwd, agent)"
	                  " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SES_END] = "UPDATE sessions SET ended = ? WHERE id = ?",
};

/* What to do about each SQLite failure, by primary result code and, for
 * some, the errno of SQLite's failed system call (0: any). The first row
 * that fits wins: out of file descriptors, SQLite says "unable to open
 * database file", and the code's own hint blamed the directory. */
static const struct {
	int code, err;
	const char *hint;
} fail_hints[] = {
	{SQLITE_CANTOPEN, EMFILE, "too many open files: raise the limit (ulimit -n)"},
	{SQLITE_CANTOPEN, ENFILE, "too many open files on the system"},
	{SQLITE_CANTOPEN, ENOSPC, "the disk is full: free space or use --db"},
	{SQLITE_CANTOPEN, EROFS, "the file system is read-only: put the log elsewhere with --db"},
	{SQLITE_IOERR, EMFILE, "too many open files: raise the limit (ulimit -n)"},
	{SQLITE_IOERR, ENOSPC, "the disk is full: free space or put the log elsewhere with --db"},
	{SQLITE_IOERR, EDQUOT, "the disk quota is used up: free space or use --db"},
	{SQLITE_FULL, 0, "the disk is full: free space or put the log elsewhere with --db"},
	{SQLITE_IOERR, 0, "I/O error: is the disk full or the file system read-only?"},
	{SQLITE_READONLY, 0, "the log is read-only: check its permissions or use --db"},
	{SQLITE_CANTOPEN, 0, "cannot open the file: check the directory's permissions or use --db"},
	{SQLITE_PERM, 0, "permission denied: check the file's permissions or use --db"},
	{SQLITE_NOTADB, 0, "not a SQLite database: choose another file with --db"},
	{SQLITE_BUSY, 0, "locked by another process for more than 10 s"},
	{SQLITE_LOCKED, 0, "locked by another process for more than 10 s"},
	{SQLITE_CORRUPT, 0,
	 "the file is damaged: keep it as evidence and start a new log with --db"},
};

int db_fail(struct db *db, char **errstr, const char *step)
{
	int code = db->sql ? sqlite3_errcode(db->sql) & 0xff : SQLITE_CANTOPEN;
	int err = db->sql ? sqlite3_system_errno(db->sql) : 0;
	const char *hint = NULL;
	char *why;

	db->fail_code = code;
	for (size_t i = 0; i < nitems(fail_hints) && hint == NULL; i++)
		if (fail_hints[i].code == code &&
		    (fail_hints[i].err == 0 || fail_hints[i].err == err))
			hint = fail_hints[i].hint;
	/* SQLite's message quotes names and text the file chose ("malformed
	 * database schema (NAME)"): a shared log's escape sequences must not
	 * reach the reviewer's terminal through it */
	why = encode_escape(db->sql ? sqlite3_errmsg(db->sql) : "out of memory", 400);
	*errstr = xasprintf("audit log %s: %s: %s%s%s%s", db->path, step, why, hint ? " (" : "",
	                    hint ? hint : "", hint ? ")" : "");
	free(why);
	return -1;
}

sqlite3_stmt *db_stmt(struct db *db, enum db_stmt which, char **errstr)
{
	sqlite3_stmt *st = db->st[which];

	if (st == NULL) {
		if (sqlite3_prepare_v3(db->sql, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
		                       &db->st[which], NULL) != SQLITE_OK) {
			db_fail(db, errstr, "cannot prepare a statement (schema damaged?)");
			return NULL;
		}
		return db->st[which];
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
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

struct header {
	int app, version, objects;
	bool head; /* the chain_head table, which schema 2 added */
};

static int read_header(struct db *db, struct header *h, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db->sql,
	                       "SELECT (SELECT application_id FROM pragma_application_id),"
	                       " (SELECT user_version FROM pragma_user_version),"
	                       " (SELECT count(*) FROM sqlite_schema),"
	                       " (SELECT count(*) FROM sqlite_schema WHERE name = 'chain_head')",
	                       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		db_fail(db, errstr, "cannot read the header");
		goto out;
	}
	h->app = sqlite3_column_int(st, 0);
	h->version = sqlite3_column_int(st, 1);
	h->objects = sqlite3_column_int(st, 2);
	h->head = sqlite3_column_int(st, 3) > 0;
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * Returns 0 when h is ours and current, 1 when it needs creating (only when
 * create) or migrating, -1 when foreign, newer or (without create) empty,
 * DB_OPEN_BROKEN when its header was edited: marked as ours with no tables
 * (the mark and the schema are written in one transaction, so the tables
 * were removed), or an older version with schema 2's chain_head (the
 * version was lowered). Reading an empty file as a new log made `audit
 * verify` say "ok: 0 events" for a log whose tables were dropped, and wrote
 * a fresh schema into the evidence; a lowered version failed a migration
 * with "duplicate column name: fmt".
 */
static int header_check(struct db *db, const struct header *h, bool create, char **errstr)
{
	if (h->objects == 0 && h->app == DB_APP_ID) {
		*errstr = xasprintf("audit log %s is marked as an airlock log but holds no tables:"
		                    " they were removed, and every event with them (keep the file"
		                    " as evidence, start a new log with --db; a head kept elsewhere says"
		                    " what was there)",
		                    db->path);
		return DB_OPEN_BROKEN;
	}
	if (h->app == 0 && h->objects == 0) {
		if (create)
			return 1;
		*errstr = xasprintf("no audit log in %s: the file holds no airlock schema (nothing"
		                    " recorded yet, or another --db)", db->path);
		return -1;
	}
	if (h->app != DB_APP_ID) {
		*errstr = xasprintf("%s is not an airlock audit log (another SQLite database;"
		                    " choose another file with --db)", db->path);
		return -1;
	}
	if (h->version < DB_SCHEMA_VERSION && h->head) {
		*errstr = xasprintf("audit log %s says schema %d but holds schema %d's tables: its"
		                    " version was edited (PRAGMA user_version); keep the file as"
		                    " evidence", db->path, h->version, DB_SCHEMA_VERSION);
		return DB_OPEN_BROKEN;
	}
	if (h->version > DB_SCHEMA_VERSION) {
		*errstr = xasprintf("audit log %s has schema %d, newer than this airlock's %d"
		                    " (upgrade airlock)", db->path, h->version, DB_SCHEMA_VERSION);
		return -1;
	}
	return h->version < DB_SCHEMA_VERSION;
}

/* Runs the migrations from h->version up in one write transaction. */
static int db_migrate(struct db *db, bool create, char **errstr)
{
	struct header h;
	char *err = NULL, *sql = NULL;
	int rc = -1, need;

	if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot lock to create or upgrade the schema");
	/* Re-read under the lock: another process may have just done it. */
	if (read_header(db, &h, errstr) < 0)
		goto out;
	if ((need = header_check(db, &h, create, errstr)) < 0) {
		rc = need;
		goto out;
	}
	for (int v = h.version; need && v < DB_SCHEMA_VERSION; v++) {
		char *tables = migrations[v].derive ? db_derived_tables_sql("") : xstrdup("");
		char *rows = migrations[v].derive ? db_derive_sql("call_index", "call_rules")
		                                  : xstrdup("");
		sql = xasprintf("%s%s%s%s PRAGMA user_version = %d;", migrations[v].before, tables,
		                rows, migrations[v].after, v + 1);
		free(tables);
		free(rows);
		if (sqlite3_exec(db->sql, sql, NULL, NULL, &err) != SQLITE_OK) {
			*errstr = xasprintf("audit log %s: cannot upgrade schema %d to %d: %s",
			                    db->path, v, v + 1, err ? err : "?");
			goto out;
		}
		free(sql);
		sql = NULL;
	}
	if (h.app == 0 && sqlite3_exec(db->sql, "PRAGMA application_id = 1095912523", NULL, NULL,
	                               NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot mark the file as an airlock log");
		goto out;
	}
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot commit the schema");
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		chain_rollback(db);
	sqlite3_free(err);
	free(sql);
	return rc;
}

/*
 * What the file may make airlock's own connection do: nothing. A trigger
 * planted in the log fired on airlock's writes (RAISE(IGNORE) dropped a
 * call's events while the call ran), and a view in place of a table would
 * answer reads. Triggers and views are off for this connection (ours are
 * append-only speed bumps for other tools, which still see them), and the
 * schema is untrusted (no functions with side effects from it).
 */
static int db_harden(struct db *db, char **errstr)
{
	static const int off[] = {SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
	                          SQLITE_DBCONFIG_TRUSTED_SCHEMA};
	int now = 1;

	for (size_t i = 0; i < nitems(off); i++)
		if (sqlite3_db_config(db->sql, off[i], 0, &now) != SQLITE_OK || now != 0)
			return db_fail(db, errstr, "cannot turn off the file's triggers and views");
	return 0;
}

/* The files SQLite keeps a log in: the WAL holds every commit since the
 * last checkpoint, so a WAL removed while the gate ran took the records
 * of calls that ran into an unlinked file (all lost at a kill -9 or a
 * crash; readers and a second gate saw an older log), and a new -shm
 * lets a second writer in beside this one. */
static const char *const file_sides[] = {"", "-wal", "-shm"};

/* Remembers which files the path names now, for db_check_file. */
static void file_remember(struct db *db)
{
	struct stat st;

	db->real = realpath(db->path, NULL);
	for (size_t i = 0; db->real && i < nitems(file_sides); i++) {
		char *p = xasprintf("%s%s", db->real, file_sides[i]);
		if (stat(p, &st) == 0) {
			db->files[i].dev = st.st_dev;
			db->files[i].ino = st.st_ino;
		} else if (i == 0) {
			free(db->real);
			db->real = NULL;
		}
		free(p);
	}
}

/* A log with a second name (a hard link) may have it in the workdir, where
 * the agent's commands write: the gate's check that the log lies outside
 * it reads the one path it was given, and on c93eb52 an auto-run `cp
 * empty h.db` through such a link emptied the log the gate was writing.
 * The other name cannot be found cheaply, so a log calls are recorded in
 * has one name. */
static int file_linked(const struct db *db, const char *p, const struct stat *st, char **errstr)
{
	if (!db->one_name || st->st_nlink <= 1)
		return 0;
	*errstr = xasprintf("the audit log %s has %ju names (hard links): another may lie where"
	                    " the agent's commands can change it, such as the workdir, so calls"
	                    " are refused; remove the other links (find / -xdev -samefile %s)"
	                    " or choose another file with --db",
	                    p, (uintmax_t)st->st_nlink, p);
	return -1;
}

/* Costs one stat() per file SQLite keeps (three per transaction, a few
 * microseconds against a commit's milliseconds). */
int db_check_file(struct db *db, char **errstr)
{
	struct stat st;
	char *p = NULL;
	bool gone = false;
	size_t i;
	int rc;

	if (db->real == NULL)
		return 0;
	for (i = 0; i < nitems(file_sides); i++) {
		if (db->files[i].ino == 0)
			continue;
		p = xasprintf("%s%s", db->real, file_sides[i]);
		gone = stat(p, &st) < 0;
		if (gone || st.st_dev != db->files[i].dev || st.st_ino != db->files[i].ino)
			break;
		rc = file_linked(db, p, &st, errstr);
		free(p);
		p = NULL;
		if (rc < 0)
			return -1;
	}
	if (p == NULL)
		return 0;
	*errstr = xasprintf("the audit log %s was removed or replaced while airlock ran (%s %s);"
	                    " calls are refused so none runs unrecorded: restart airlock to"
	                    " start a new log there, and keep any copy as evidence",
	                    db->real, gone ? "no file at" : "another file is at", p);
	free(p);
	return -1;
}

/*
 * Puts the file in WAL mode (readers beside one writer). The switch takes
 * the file's exclusive lock and SQLite does not call the busy handler for
 * it, so gates starting together on a fresh log failed at once with
 * "database is locked" (seen as 4 of 8 concurrent gates exiting 125). The
 * switch is retried here, backing off, within the same busy timeout; once
 * one process has made the file WAL the others' switch is a no-op.
 */
static int db_wal(struct db *db, char **errstr)
{
	long long deadline = clock_ns() + DB_BUSY_MS * 1000000LL;
	long pause_us = 500;
	int rc;

	while ((rc = sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) ==
	               SQLITE_BUSY &&
	       clock_ns() < deadline) {
		usleep(pause_us);
		pause_us = pause_us < 50000 ? pause_us * 2 : pause_us;
	}
	if (rc != SQLITE_OK ||
	    sqlite3_exec(db->sql, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, errstr, "cannot enable WAL");
	return 0;
}

/*
 * The log must be a regular file (or not there yet). A FIFO at the path
 * hung `audit verify` for ever (SQLite's read waits for a writer), and a
 * symlink to a file not there yet was followed to create it: the gate's
 * workdir check resolved the link's directory, not its target, so a link
 * to the workdir put the log where the agent's commands may edit it.
 */
static const struct {
	mode_t type;
	const char *name;
} file_kinds[] = {{S_IFIFO, "a FIFO"}, {S_IFDIR, "a directory"}, {S_IFSOCK, "a socket"}};

static int path_check(const char *path, char **errstr)
{
	struct stat l, st;

	if (lstat(path, &l) < 0)
		return 0; /* SQLite says why (not there: made only when create) */
	if (stat(path, &st) < 0) {
		*errstr = xasprintf("audit log %s is a symlink to a file that is not there:"
		                    " airlock does not create a log through it (name the real"
		                    " file with --db)", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		const char *kind = "a device";
		for (size_t i = 0; i < nitems(file_kinds); i++)
			if ((st.st_mode & S_IFMT) == file_kinds[i].type)
				kind = file_kinds[i].name;
		*errstr = xasprintf("audit log %s is not a regular file (%s): choose another file"
		                    " with --db", path, kind);
		return -1;
	}
	return 0;
}

/*
 * The name SQLite is given for path: the file path names. This SQLite
 * reads a name starting with "file:" as a URI (built with SQLITE_USE_URI),
 * so on c93eb52 `--db 'file:/x/a.db?mode=memory'` kept the log in memory
 * (calls ran, recorded nowhere) and `--workdir wd --db file:wd/a.db` put
 * it inside the workdir the check had resolved it outside of. A relative
 * "file:" path gets "./" (an absolute one never starts so). Caller frees.
 */
static char *sqlite_name(const char *path)
{
	return strncmp(path, "file:", 5) == 0 ? xasprintf("./%s", path) : xstrdup(path);
}

/* Opens path read-write; creates the schema in an empty file only when
 * create (and then the file and its directories too). */
static int db_open_mode(const char *path, bool create, struct db **out, char **errstr)
{
	struct db *db = xcalloc(1, sizeof(*db));
	struct header h;
	struct stat st;
	char *name = NULL;
	int rc = -1, need;

	db->path = xstrdup(path);
	db->redact = true;
	db->one_name = create; /* the gate's: checked before SQLite touches it */
	if ((create && make_parents(path, errstr) < 0) || path_check(path, errstr) < 0 ||
	    (create && stat(path, &st) == 0 && file_linked(db, path, &st, errstr) < 0))
		goto out;
	name = sqlite_name(path);
	if (sqlite3_open_v2(name, &db->sql,
	                    SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
	                    NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db->sql, DB_BUSY_MS);
	/* Look before touching: a foreign, newer or wiped file is left as it is. */
	if (db_harden(db, errstr) < 0 || read_header(db, &h, errstr) < 0)
		goto out;
	if ((need = header_check(db, &h, create, errstr)) < 0) {
		rc = need;
		goto out;
	}
	if (db_wal(db, errstr) < 0)
		goto out;
	if (need && (need = db_migrate(db, create, errstr)) < 0) {
		rc = need;
		goto out;
	}
	file_remember(db);
	rc = 0;
out:
	free(name);
	if (rc < 0) {
		db_close(db);
		db = NULL;
	}
	*out = db;
	return rc;
}

int db_open(const char *path, struct db **out, char **errstr)
{
	return db_open_mode(path, true, out, errstr);
}

int db_open_existing(const char *path, struct db **out, char **errstr)
{
	return db_open_mode(path, false, out, errstr);
}

/* Returns a new "file:" URI for path, opened immutable (no -shm, no WAL
 * read: for a log in a directory this user cannot write). Caller frees. */
static char *immutable_uri(const char *path)
{
	struct buf b;

	buf_init(&b, 0);
	buf_puts(&b, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7f)
			buf_printf(&b, "%%%02X", *p);
		else
			buf_append(&b, p, 1);
	}
	buf_puts(&b, "?immutable=1");
	return buf_take(&b, NULL);
}

int db_open_readonly(const char *path, struct db **out, char **errstr)
{
	struct db *db = xcalloc(1, sizeof(*db));
	struct header h;
	char *uri = NULL, *name = NULL;
	int rc = -1, need;

	db->path = xstrdup(path);
	db->redact = true;
	if (path_check(path, errstr) < 0)
		goto out;
	name = sqlite_name(path);
	if (sqlite3_open_v2(name, &db->sql, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		db_fail(db, errstr, "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db->sql, DB_BUSY_MS);
	if (db_harden(db, errstr) < 0)
		goto out;
	if (read_header(db, &h, errstr) < 0) {
		/* WAL needs a -shm it may not create here: read the file as it is. */
		free(*errstr);
		*errstr = NULL;
		sqlite3_close(db->sql);
		uri = immutable_uri(path);
		if (sqlite3_open_v2(uri, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) !=
		    SQLITE_OK || db_harden(db, errstr) < 0 || read_header(db, &h, errstr) < 0) {
			if (*errstr == NULL)
				db_fail(db, errstr, "cannot open read-only");
			goto out;
		}
	}
	if ((need = header_check(db, &h, false, errstr)) < 0) {
		rc = need;
		goto out;
	}
	if (need) {
		*errstr = xasprintf("audit log %s has schema %d, older than %d, and cannot be"
		                    " upgraded read-only: run `airlock audit verify` once as its"
		                    " owner", path, h.version, DB_SCHEMA_VERSION);
		goto out;
	}
	rc = 0;
out:
	free(uri);
	free(name);
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
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close(db->sql);
	if (db->md) {
		char *err = NULL;
		const struct lazy_crypto *c = lazy_crypto(&err);
		if (c)
			c->EVP_MD_CTX_free(db->md);
		free(err);
	}
	strv_free(db->secrets);
	free(db->mode);
	free(db->path);
	free(db->real);
	free(db);
}

void db_set_redact(struct db *db, bool on)
{
	db->redact = on;
}

void db_add_secret_value(struct db *db, const char *value)
{
	if (value && strlen(value) >= DB_SECRET_MIN && !strv_contains(db->secrets, value))
		strv_push(&db->secrets, value);
}

char *db_redact(struct db *db, const char *s)
{
	size_t n;
	char *r = db->redact ? redact_text(s, strlen(s), db->secrets, &n) : NULL;

	return r ? r : xstrdup(s);
}

char *db_redact_text(const char *s, size_t len, size_t *outlen)
{
	return redact_text(s, len, NULL, outlen);
}
