/*
 * changeset.c: SQL previews. A SQLite statement runs inside a transaction
 * with the session extension recording a changeset, which becomes a row
 * diff; then everything is rolled back. Approval runs it again in one
 * transaction and commits only when it makes the same changes.
 * Rules it keeps:
 *  - the string cannot end the transaction (BEGIN/COMMIT are skipped,
 *    ROLLBACK/SAVEPOINT/ATTACH/PRAGMA stop the preview);
 *  - the preview always ends in ROLLBACK, whatever failed.
 */
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/encode.h"
#include "core/lazy.h"
#include "diff/diff_internal.h"

#define BUSY_MS 2000

/* What the authorizer saw while one statement was prepared. */
struct auth {
	struct diff_sql *s;
	struct sql_stmt *st;
	const char *skip;    /* BEGIN/COMMIT: skipped, the string runs in one transaction */
	const char *refused; /* a statement a preview cannot contain */
	char *altered;       /* the table an ALTER TABLE names; owned */
};

static const struct {
	int code;
	const char *verb;
} ddl_verbs[] = {
	{SQLITE_CREATE_TABLE, "CREATE TABLE"},  {SQLITE_DROP_TABLE, "DROP TABLE"},
	{SQLITE_ALTER_TABLE, "ALTER TABLE"},    {SQLITE_CREATE_INDEX, "CREATE INDEX"},
	{SQLITE_DROP_INDEX, "DROP INDEX"},      {SQLITE_CREATE_VIEW, "CREATE VIEW"},
	{SQLITE_DROP_VIEW, "DROP VIEW"},        {SQLITE_CREATE_TRIGGER, "CREATE TRIGGER"},
	{SQLITE_DROP_TRIGGER, "DROP TRIGGER"},  {SQLITE_CREATE_VTABLE, "CREATE VIRTUAL TABLE"},
	{SQLITE_DROP_VTABLE, "DROP VIRTUAL TABLE"},
};

static int authorize(void *arg, int code, const char *a1, const char *a2, const char *db,
                     const char *trigger)
{
	struct auth *a = arg;
	struct sql_stmt *st = a->st;
	size_t n;

	switch (code) {
	case SQLITE_TRANSACTION:
		if (a1 && strcasecmp(a1, "ROLLBACK") != 0) {
			a->skip = a1;
			return SQLITE_DENY;
		}
		a->refused = "ROLLBACK inside the statement string";
		return SQLITE_DENY;
	case SQLITE_SAVEPOINT: a->refused = "SAVEPOINT/RELEASE"; return SQLITE_DENY;
	case SQLITE_ATTACH: a->refused = "ATTACH"; return SQLITE_DENY;
	case SQLITE_DETACH: a->refused = "DETACH"; return SQLITE_DENY;
	case SQLITE_PRAGMA: a->refused = "PRAGMA"; return SQLITE_DENY;
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		/* sqlite_master's rows are the schema (shown as DDL); but a
		 * statement writing sqlite_sequence (no primary key, so in no
		 * changeset) resets AUTOINCREMENT, and a new row takes a
		 * deleted one's id and what refers to it: counted like any
		 * table without a key. SQLite's own upkeep of it on an INSERT
		 * asks no authorizer. */
		if (a1 == NULL || (strncmp(a1, "sqlite_", 7) == 0 && strcmp(a1, "sqlite_sequence") != 0) ||
		    (db != NULL && strcmp(db, "main") != 0))
			return SQLITE_OK;
		if (!strv_contains(st->tables, a1))
			strv_push(&st->tables, a1);
		/* sqlite3_changes() counts the rows of the statement's own
		 * table, not its triggers' (whose writes come with a name) */
		if (trigger == NULL) {
			n = strv_len(st->top);
			strv_push(&st->top, a1);
			st->top_ops = xreallocarray(st->top_ops, n + 1, sizeof(*st->top_ops));
			st->top_ops[n] = code;
		}
		return SQLITE_OK;
	default: break;
	}
	/* ALTER TABLE: arg 1 the database, arg 2 the table */
	if (code == SQLITE_ALTER_TABLE && a2 && a->altered == NULL && a1 && strcmp(a1, "main") == 0)
		a->altered = xstrdup(a2);
	for (size_t i = 0; i < nitems(ddl_verbs); i++) {
		const char *name = code == SQLITE_ALTER_TABLE ? a2 : a1;
		char *line;
		if (ddl_verbs[i].code != code || name == NULL || strncmp(name, "sqlite_", 7) == 0)
			continue;
		line = xasprintf("%s %s", ddl_verbs[i].verb, name); /* escaped when shown */
		if (strv_contains(a->s->ddl, line))
			free(line);
		else
			strv_push_owned(&a->s->ddl, line);
	}
	return SQLITE_OK;
}

/* Skips whitespace, parentheses and SQL comments. */
static const char *skip_blank(const char *p)
{
	for (;;) {
		p += strspn(p, " \t\r\n(");
		if (p[0] == '-' && p[1] == '-')
			p += strcspn(p, "\n");
		else if (p[0] == '/' && p[1] == '*' && strstr(p + 2, "*/"))
			p = strstr(p + 2, "*/") + 2;
		else
			return p;
	}
}

/* The statement's first keyword, upper case ("?" when there is none). */
static char *first_word(const char *sql)
{
	size_t n;
	char *w;

	sql = skip_blank(sql);
	for (n = 0; sql[n] && ((sql[n] | 32) >= 'a' && (sql[n] | 32) <= 'z'); n++)
		;
	w = n ? xstrndup(sql, n) : xstrdup("?");
	for (char *p = w; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 32);
	return w;
}

/* tools.c's output shape: "col|col" then one "val|val" line per row. */
static void output_row(sqlite3_stmt *q, struct buf *out, bool *header)
{
	int n = sqlite3_column_count(q);

	if (!*header) {
		for (int i = 0; i < n; i++)
			buf_printf(out, "%s%s", i ? "|" : "", sqlite3_column_name(q, i));
		buf_puts(out, "\n");
		*header = true;
	}
	for (int i = 0; i < n; i++) {
		const unsigned char *v = sqlite3_column_text(q, i);
		buf_printf(out, "%s%s", i ? "|" : "", v ? (const char *)v : "NULL");
	}
	buf_puts(out, "\n");
}

static void stmt_clear(struct sql_stmt *st)
{
	free(st->kind);
	strv_free(st->tables);
	strv_free(st->top);
	free(st->top_ops);
	free(st->target);
	memset(st, 0, sizeof(*st));
}

static struct sql_stmt *stmt_add(struct diff_sql *s, const char *sql)
{
	struct sql_stmt *st;
	s->stmts = xreallocarray(s->stmts, s->nstmts + 1, sizeof(*s->stmts));
	st = &s->stmts[s->nstmts++];
	memset(st, 0, sizeof(*st));
	st->kind = first_word(sql);
	return st;
}

/* sql_stmt.op of an upsert: no SQLITE_* action code has this value */
#define OP_UPSERT (-1)

#define ROW_SUM 16              /* bytes of a row's SHA-256 kept to compare rows */
#define ROWS_COMPARED 1000000  /* rows of a table compared one by one (16 MiB) */

/*
 * Each row's own sum, for a table without a PRIMARY KEY: which rows it
 * held before the statements and no longer holds after them. The
 * table's digest alone said only that something changed, and was shown
 * only when no statement counted a change: an INSERT into grants whose
 * trigger made bob's 'read' grant 'all' read "INSERT would add 1 row".
 */
struct row_sums {
	unsigned char (*v)[ROW_SUM];
	size_t n, cap;
	bool over; /* more than ROWS_COMPARED rows: none kept */
	/* the rows of the other side, sorted: the rows of this one that none
	 * of them equals are listed (the first ROWS_GONE_SHOWN), marked '-'
	 * (before, against after) or '+' (after, against before) */
	const struct row_sums *against;
	char mark;
	const char *table;
	char **gone;
	size_t gone_more;
};

#define ROWS_GONE_SHOWN 20

static void row_sums_free(struct row_sums *rs)
{
	if (rs == NULL)
		return;
	free(rs->v);
	strv_free(rs->gone);
	free(rs);
}

static int row_sum_cmp(const void *a, const void *b)
{
	return memcmp(a, b, ROW_SUM);
}

/* True when the main database's table name is of type (PRAGMA table_list). */
static bool table_type_is(sqlite3 *db, const char *name, const char *type)
{
	sqlite3_stmt *q = NULL;
	bool is = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_list WHERE schema = 'main' AND "
	                           "name = ?1 AND type = ?2", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, type, -1, SQLITE_STATIC);
		is = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	return is;
}

/* True when the main database holds name (a table or view) and it has no
 * PRIMARY KEY column: the session extension does not record its rows. */
static bool table_keyless(sqlite3 *db, const char *name)
{
	sqlite3_stmt *q = NULL;
	bool keyless = false;

	if (sqlite3_prepare_v2(db, "SELECT count(*), max(pk) FROM pragma_table_info(?1)", -1, &q,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		keyless = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) > 0 &&
		          sqlite3_column_int(q, 1) == 0;
	}
	sqlite3_finalize(q);
	return keyless;
}

/* True when name is a virtual table's shadow table (an R-tree's
 * geo_node, an FTS index's data): the virtual table's own code writes it,
 * from statements it prepares while the caller's statement is. */
static bool is_shadow(sqlite3 *db, const char *name)
{
	return table_type_is(db, name, "shadow");
}

/*
 * The table a statement's count is of: the first it writes itself that is
 * no shadow table. Counts were given to a table only when the statement
 * wrote no other, so an INSERT into an R-tree (which writes its shadow
 * tables), or into a table with a trigger, read "1 row added that no
 * statement counts (a trigger)"; and by the first word, so "WITH c AS
 * (...) DELETE FROM log" was no DELETE. Shadow tables leave st->tables:
 * they have primary keys, and their rows are in the changeset.
 */
static void stmt_target(sqlite3 *db, struct sql_stmt *st)
{
	char **kept = NULL;

	for (size_t i = 0; st->top && st->top[i]; i++)
		if (st->target == NULL && !is_shadow(db, st->top[i])) {
			st->target = xstrdup(st->top[i]);
			st->op = st->top_ops[i];
		}
	/* an INSERT that also updates its own table (ON CONFLICT DO UPDATE):
	 * its count is of rows added and rows changed together */
	for (size_t i = 0; st->target && st->op == SQLITE_INSERT && st->top[i]; i++)
		if (st->top_ops[i] == SQLITE_UPDATE && strcmp(st->top[i], st->target) == 0)
			st->op = OP_UPSERT;
	for (char **p = st->tables; p && *p; p++)
		if (!is_shadow(db, *p))
			strv_push(&kept, *p);
	strv_free(st->tables);
	st->tables = kept;
	strv_free(st->top);
	free(st->top_ops);
	st->top = NULL;
	st->top_ops = NULL;
}

/* The snapshot of a table's rows before the statements, or NULL. */
static struct row_sums *snap_find(const struct diff_sql *s, const char *name)
{
	for (size_t i = 0; i < s->nsnaps; i++)
		if (strcmp(s->snaps[i].name, name) == 0)
			return s->snaps[i].rs;
	return NULL;
}

static bool table_digest(sqlite3 *db, const char *name, unsigned char md[32],
                         struct row_sums *rs);

/*
 * Before the first statement that may write a table without a PRIMARY
 * KEY (itself or through a trigger: the authorizer names both), the sum
 * of each of its rows: the rows after the statements that none of them
 * equals are listed as they would be ('+ grants rowid=2 who='bob'
 * what='all''), where only the rows as they are now were. Preview only.
 */
static void snap_tables(struct diff_sql *s, sqlite3 *db, const struct sql_stmt *st)
{
	struct row_sums *rs;

	for (char **p = st->tables; s->snap && p && *p; p++) {
		if (snap_find(s, *p) || !table_keyless(db, *p))
			continue;
		rs = xcalloc(1, sizeof(*rs));
		if (!table_digest(db, *p, NULL, rs) || rs->over) {
			row_sums_free(rs);
			rs = xcalloc(1, sizeof(*rs));
			rs->over = true; /* not compared: nothing listed */
		} else if (rs->n)
			qsort(rs->v, rs->n, ROW_SUM, row_sum_cmp);
		s->snaps = xreallocarray(s->snaps, s->nsnaps + 1, sizeof(*s->snaps));
		s->snaps[s->nsnaps].name = xstrdup(*p);
		s->snaps[s->nsnaps++].rs = rs;
	}
}

static long long count_rows(sqlite3 *db, const char *name);

/* The main database's table's column names; caller frees. */
static char **table_columns(sqlite3 *db, const char *name)
{
	sqlite3_stmt *q = NULL;
	char **cols = NULL;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &q, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(q) == SQLITE_ROW)
			strv_push(&cols, (const char *)sqlite3_column_text(q, 0));
	}
	sqlite3_finalize(q);
	return cols;
}

/*
 * ALTER TABLE t DROP COLUMN c takes c's value out of every row, and no
 * changeset has them: the preview read "schema: ALTER TABLE t" and
 * "statement 1: ALTER, 0 rows changed". Its line now names the columns
 * gone and the rows that held them (before: the columns and rows before
 * the statement ran). A RENAME keeps the count of columns: no line.
 */
static void alter_dropped(struct diff_sql *s, sqlite3 *db, const char *table, char **before,
                          long long rows)
{
	char **after = table_columns(db, table), *line = NULL, *old;
	struct buf names;
	size_t i;

	buf_init(&names, 0);
	if (after == NULL || strv_len(after) >= strv_len(before))
		goto out;
	for (char **p = before; p && *p; p++)
		if (!strv_contains(after, *p))
			buf_printf(&names, "%s%s", names.len ? ", " : "", *p);
	old = xasprintf("ALTER TABLE %s", table);
	for (i = 0; s->ddl && s->ddl[i] && strcmp(s->ddl[i], old) != 0; i++)
		;
	free(old);
	if (names.len == 0 || s->ddl == NULL || s->ddl[i] == NULL)
		goto out;
	line = xasprintf("ALTER TABLE %s drops column %s: its values in %lld %s are lost", table,
	                 names.data, rows, rows == 1 ? "row" : "rows");
	free(s->ddl[i]);
	s->ddl[i] = line;
out:
	buf_free(&names);
	strv_free(after);
}

/* Prepares and steps one statement; *tail moves past it. 1 = ran, 0 =
 * skipped, -1 = failed, -2 = refused (cannot be previewed). */
static int run_one(sqlite3 *db, struct diff_sql *s, const char **tail, struct buf *out,
                   char **errstr)
{
	struct auth a = {.s = s};
	sqlite3_stmt *q = NULL;
	const char *sql = *tail;
	bool header = false;
	sqlite3_int64 total;
	char **cols = NULL;
	long long rows = 0;
	int rc;

	a.st = stmt_add(s, sql);
	sqlite3_set_authorizer(db, authorize, &a);
	rc = sqlite3_prepare_v2(db, sql, -1, &q, tail);
	sqlite3_set_authorizer(db, NULL, NULL);
	if (rc != SQLITE_OK || q == NULL) { /* read only after a statement that ran */
		free(a.altered);
		a.altered = NULL;
	}
	if (rc == SQLITE_OK && q == NULL) { /* only whitespace or a comment */
		stmt_clear(a.st);
		s->nstmts--;
		return 0;
	}
	if (rc != SQLITE_OK && (a.skip || a.refused)) {
		if (a.refused) {
			*errstr = xasprintf("statement %zu: %s is not previewed; it and any statement "
			                    "after it did not run in the preview, so what they change "
			                    "is not shown", s->nstmts, a.refused);
			s->unrun = s->nstmts;
		} else
			s->skipped++;
		stmt_clear(a.st);
		s->nstmts--;
		return a.refused ? -2 : 0;
	}
	if (rc != SQLITE_OK) {
		*errstr = xasprintf("statement %zu: %s", s->nstmts, sqlite3_errmsg(db));
		return -1;
	}
	stmt_target(db, a.st);
	snap_tables(s, db, a.st);
	if (a.altered) {
		cols = table_columns(db, a.altered);
		rows = count_rows(db, a.altered);
	}
	total = sqlite3_total_changes64(db);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (out)
			output_row(q, out, &header);
	if (rc == SQLITE_DONE && a.altered && cols)
		alter_dropped(s, db, a.altered, cols, rows);
	strv_free(cols);
	free(a.altered);
	if (rc != SQLITE_DONE) {
		s->failed = sqlite3_errcode(db) & 0xff;
		*errstr = xasprintf("statement %zu: %s", s->nstmts, sqlite3_errmsg(db));
	} else /* sqlite3_changes() keeps the last INSERT/UPDATE/DELETE's count
	        * through a SELECT or a DROP: 0 when nothing changed at all */
		a.st->changes = sqlite3_total_changes64(db) == total ? 0 : sqlite3_changes64(db);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 1 : -1;
}

/* The first table the statements wrote that has generated columns
 * (pragma_table_xinfo's hidden 2 and 3), or NULL: SQLite 3.40's session
 * extension answers SQLITE_SCHEMA for the whole changeset then, and the
 * screen guessed "a table the statements changed, then dropped?" where
 * an UPDATE of one ordinary table was all there was. */
static const char *written_generated(sqlite3 *db, const struct diff_sql *s)
{
	sqlite3_stmt *q = NULL;
	const char *found = NULL;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)", -1,
	                       &q, NULL) != SQLITE_OK)
		return NULL;
	for (size_t i = 0; found == NULL && i < s->nstmts; i++)
		for (char **p = s->stmts[i].tables; found == NULL && p && *p; p++) {
			sqlite3_bind_text(q, 1, *p, -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW)
				found = *p;
			sqlite3_reset(q);
		}
	sqlite3_finalize(q);
	return found;
}

/* Runs the whole string with a session attached; the caller owns the
 * transaction. *cs gets the changeset (sqlite3_free). 0, -1 or -2 (refused). */
static int run_recorded(sqlite3 *db, struct diff_sql *s, struct buf *out, void **cs, int *cslen,
                        char **errstr)
{
	sqlite3_session *sess = NULL;
	const char *tail = s->query;
	int rc = -1, src;

	*cs = NULL;
	*cslen = 0;
	if (sqlite3session_create(db, "main", &sess) != SQLITE_OK ||
	    sqlite3session_attach(sess, NULL) != SQLITE_OK) {
		*errstr = xasprintf("cannot start a SQLite session: %s", sqlite3_errmsg(db));
		goto out;
	}
	rc = 0; /* an empty string runs nothing */
	while (tail && *tail)
		if ((rc = run_one(db, s, &tail, out, errstr)) < 0)
			break;
	if (rc == -1)
		goto out;
	if ((src = sqlite3session_changeset(sess, cslen, cs)) != SQLITE_OK) {
		const char *gen = rc != -2 ? written_generated(db, s) : NULL;
		char *shown = gen ? diff_shown(gen) : NULL;
		if (gen) /* a refusal keeps its own reason */
			*errstr = xasprintf("cannot read the SQLite changeset (%s: %s has generated "
			                    "columns, which this SQLite's session extension cannot "
			                    "record): the rows are not previewed", sqlite3_errstr(src),
			                    shown);
		else if (rc != -2)
			*errstr = xasprintf("cannot read the SQLite changeset (%s; a table the "
			                    "statements changed, then dropped?): the rows are not "
			                    "previewed", sqlite3_errstr(src));
		free(shown);
		rc = -2;
		goto out;
	}
	rc = rc == -2 ? -2 : 0; /* refused: what ran before it is still shown */
out:
	sqlite3session_delete(sess);
	return rc;
}

/*
 * 'now' in a preview and its apply: the time the preview ran. A human's
 * approval takes seconds, so "SET updated_at = CURRENT_TIMESTAMP" made
 * another changeset at approval, and was refused every time as "the
 * database changed since the preview". The preview's and the apply's
 * connections open through this VFS, the default one with its clock
 * pinned (per thread, while the statements run) to the preview's: the
 * time shown is the time written. SQLite reads the clock once a statement.
 */
static _Thread_local sqlite3_int64 pinned_ms; /* julian day in ms; 0: the real clock */
static sqlite3_vfs pinned_vfs, *pinned_real;
static pthread_once_t pinned_once = PTHREAD_ONCE_INIT;

static int pinned_now64(sqlite3_vfs *v, sqlite3_int64 *t)
{
	double d;
	int rc;

	(void)v;
	if (pinned_ms) {
		*t = pinned_ms;
		return SQLITE_OK;
	}
	if (pinned_real->iVersion >= 2 && pinned_real->xCurrentTimeInt64)
		return pinned_real->xCurrentTimeInt64(pinned_real, t);
	rc = pinned_real->xCurrentTime(pinned_real, &d);
	*t = (sqlite3_int64)(d * 86400000.0);
	return rc;
}

static int pinned_now(sqlite3_vfs *v, double *t)
{
	sqlite3_int64 ms = 0;
	int rc = pinned_now64(v, &ms);

	*t = (double)ms / 86400000.0;
	return rc;
}

/* A copy of the default VFS (its pAppData too, which unix's xOpen reads),
 * registered once, not as the default. */
static void pinned_register(void)
{
	if ((pinned_real = sqlite3_vfs_find(NULL)) == NULL)
		return;
	pinned_vfs = *pinned_real;
	pinned_vfs.zName = "airlock-pinned-clock";
	pinned_vfs.pNext = NULL;
	pinned_vfs.xCurrentTime = pinned_now;
	if (pinned_vfs.iVersion >= 2)
		pinned_vfs.xCurrentTimeInt64 = pinned_now64;
	if (sqlite3_vfs_register(&pinned_vfs, 0) != SQLITE_OK)
		pinned_real = NULL;
}

/* The VFS to open with: the pinned one, or the default if it cannot be. */
static const char *pinned_vfs_name(void)
{
	pthread_once(&pinned_once, pinned_register);
	return pinned_real ? pinned_vfs.zName : NULL;
}

/* Pins 'now' to ms (0: the real clock now) for this thread until
 * pinned_ms is reset; returns it. */
static long long clock_pin(long long ms)
{
	sqlite3_int64 t = ms;

	pinned_ms = 0;
	if (t == 0 && pinned_real && pinned_now64(&pinned_vfs, &t) != SQLITE_OK)
		t = 0;
	return pinned_ms = t;
}

static int open_db(const char *path, sqlite3 **db, char **errstr)
{
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, pinned_vfs_name()) != SQLITE_OK) {
		*errstr = xasprintf("cannot open database %s: %s", path, sqlite3_errmsg(*db));
		return -1;
	}
	sqlite3_busy_timeout(*db, BUSY_MS);
	sqlite3_extended_result_codes(*db, 1);
	/* The statement runs in airlock's own process, before anyone approved
	 * it. Debian's SQLite is built with SQLITE_ENABLE_FTS3_TOKENIZER: the
	 * two-argument fts3_tokenizer() takes a blob as a pointer to a
	 * tokenizer's functions, so a string (or a trigger the database
	 * holds) made the preview call any address it named. Off here; the
	 * statement then fails in the preview and the call is refused. */
	if (sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)NULL) !=
	    SQLITE_OK) {
		*errstr = xasprintf("cannot open database %s: cannot turn off fts3_tokenizer(): %s",
		                    path, sqlite3_errmsg(*db));
		return -1;
	}
	return 0;
}

static int exec_simple(sqlite3 *db, const char *sql, char **errstr)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	if (errstr)
		*errstr = xasprintf("%s: %s", sql, sqlite3_errmsg(db));
	return -1;
}

#define PROGRESS_STEPS 10000 /* VM steps between deadline checks */

/* What bounds a preview's run: it writes the real database file (then rolls
 * back), so a statement without end must neither run forever nor fill the
 * disk. */
struct sql_limits {
	long long deadline_ns;
	long long limit_ms;
	bool expired;
};

static int past_deadline(void *arg)
{
	struct sql_limits *l = arg;
	if (clock_ns() > l->deadline_ns)
		l->expired = true;
	return l->expired;
}

/* Sets the preview connection's limits: the dry run's time, and room to
 * grow the file by DIFF_TOTAL_CAP at most (max_page_count is per
 * connection: the file keeps no trace of it). */
static int set_limits(sqlite3 *db, const struct call *c, const struct diff_opts *o,
                      struct sql_limits *l, char **errstr)
{
	long long limit = o->timeout_ms > 0 ? o->timeout_ms : DIFF_DRYRUN_TIMEOUT_MS;
	sqlite3_stmt *q = NULL;
	long long pages = -1, size = 0;
	char *sql;

	l->limit_ms = c->timeout_ms > 0 && c->timeout_ms < limit ? c->timeout_ms : limit;
	l->deadline_ns = clock_ns() + l->limit_ms * 1000000LL;
	sqlite3_progress_handler(db, PROGRESS_STEPS, past_deadline, l);
	if (sqlite3_prepare_v2(db, "SELECT page_count, page_size FROM pragma_page_count, "
	                           "pragma_page_size", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW) {
		pages = sqlite3_column_int64(q, 0);
		size = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (pages < 0 || size <= 0) {
		*errstr = xasprintf("cannot read the size of the database: %s", sqlite3_errmsg(db));
		return -1;
	}
	sql = sqlite3_mprintf("PRAGMA max_page_count = %lld", pages + DIFF_TOTAL_CAP / size);
	if (exec_simple(db, sql, errstr) < 0) {
		sqlite3_free(sql);
		return -1;
	}
	sqlite3_free(sql);
	return 0;
}

static void stmts_clear(struct diff_sql *s)
{
	for (size_t i = 0; i < s->nstmts; i++)
		stmt_clear(&s->stmts[i]);
	free(s->stmts);
	s->stmts = NULL;
	s->nstmts = 0;
}

/* The snapshots are read by count_after() only: up to 16 MiB a table. */
static void snaps_free(struct diff_sql *s)
{
	for (size_t i = 0; i < s->nsnaps; i++) {
		free(s->snaps[i].name);
		row_sums_free(s->snaps[i].rs);
	}
	free(s->snaps);
	s->snaps = NULL;
	s->nsnaps = 0;
}

void changeset_free(struct diff_sql *s)
{
	if (s == NULL)
		return;
	stmts_clear(s);
	for (size_t i = 0; i < s->ntables; i++) {
		free(s->tables[i].name);
		strv_free(s->tables[i].cols);
		row_sums_free(s->tables[i].rows_after);
		strv_free(s->tables[i].rows_gone);
		strv_free(s->tables[i].rows_new);
	}
	free(s->tables);
	snaps_free(s);
	sqlite3_free(s->changeset);
	strv_free(s->rows);
	strv_free(s->ddl);
	strv_free(s->kinds);
	free(s->path);
	free(s->real);
	free(s->query);
	free(s);
}

static struct sql_table *table_get(struct diff_sql *s, sqlite3 *db, const char *name)
{
	struct sql_table *t;
	sqlite3_stmt *q = NULL;

	for (size_t i = 0; i < s->ntables; i++)
		if (strcmp(s->tables[i].name, name) == 0)
			return &s->tables[i];
	s->tables = xreallocarray(s->tables, s->ntables + 1, sizeof(*s->tables));
	t = &s->tables[s->ntables++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->before = t->after = t->vanished = -1;
	t->no_pk = true;
	if (sqlite3_prepare_v2(db, "SELECT name, pk FROM pragma_table_info(?1)", -1, &q, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(q) == SQLITE_ROW) {
			strv_push(&t->cols, (const char *)sqlite3_column_text(q, 0));
			if (sqlite3_column_int(q, 1) > 0)
				t->no_pk = false;
		}
	}
	t->gone = t->cols == NULL;
	sqlite3_finalize(q);
	t->virtual = table_type_is(db, name, "virtual");
	return t;
}

/* True when a table with a PRIMARY KEY holds a row whose key has a NULL
 * (SQLite allows one in a key that is not INTEGER PRIMARY KEY, unless
 * WITHOUT ROWID): the session extension records no change to such a row,
 * so neither the rows listed nor the changeset compared at apply have it. */
static bool has_null_pk(sqlite3 *db, const struct sql_table *t)
{
	sqlite3_stmt *q = NULL;
	struct buf w;
	char *sql;
	bool found = false;

	if (t->no_pk || t->gone)
		return false;
	buf_init(&w, 0);
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) WHERE pk > 0", -1, &q,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, t->name, -1, SQLITE_STATIC);
		while (sqlite3_step(q) == SQLITE_ROW) {
			sql = sqlite3_mprintf("%s\"%w\" IS NULL", w.len ? " OR " : "",
			                      (const char *)sqlite3_column_text(q, 0));
			buf_puts(&w, sql);
			sqlite3_free(sql);
		}
	}
	sqlite3_finalize(q);
	q = NULL;
	sql = sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM main.\"%w\" WHERE %s)", t->name,
	                      w.len ? w.data : "0");
	/* fail safe: a key that cannot be checked counts as holding a NULL */
	found = sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK ||
	        sqlite3_step(q) != SQLITE_ROW || sqlite3_column_int(q, 0) != 0;
	sqlite3_finalize(q);
	sqlite3_free(sql);
	buf_free(&w);
	return found;
}

#define TEXT_SHOWN 60 /* bytes of a text value shown, from where it changed */
#define BLOB_SHOWN 16
#define SHOWN_BEFORE 20 /* of them, before the first changed byte */

/* Where an UPDATE's old and new value first differ, when both are text
 * or both blobs; else 0. A change past the part shown would otherwise
 * show the same cut text on both sides of the arrow (a URL's query, a
 * JSON document's last field), and the approver would see no change. */
static int value_changed_at(sqlite3_value *a, sqlite3_value *b)
{
	int type = a && b ? sqlite3_value_type(a) : SQLITE_NULL, n, m, i = 0;
	const unsigned char *p, *q;

	if (type != SQLITE_TEXT && type != SQLITE_BLOB)
		return 0;
	if (sqlite3_value_type(b) != type)
		return 0;
	p = type == SQLITE_TEXT ? sqlite3_value_text(a) : sqlite3_value_blob(a);
	n = sqlite3_value_bytes(a);
	q = type == SQLITE_TEXT ? sqlite3_value_text(b) : sqlite3_value_blob(b);
	m = sqlite3_value_bytes(b);
	while (p && q && i < n && i < m && p[i] == q[i])
		i++;
	return i;
}

/* The first byte shown of a value of n bytes that changes at byte at:
 * 0 while the change falls in the first part shown. */
static int shown_from(int at, int n, int shown)
{
	int before = shown < TEXT_SHOWN ? shown / 4 : SHOWN_BEFORE;

	if (n <= shown || at < shown - before)
		return 0;
	return at - before;
}

/* A cut value's length, and where the part shown starts if not at 0. */
static void value_cut_note(struct buf *b, int from, int n)
{
	if (from > 0)
		buf_printf(b, " (%d bytes, from byte %d)", n, from);
	else
		buf_printf(b, " (%d bytes)", n);
}

/* One value as SQL text: 42, 1.5, 'it''s', x'00ff', NULL; a long one cut
 * to the part from byte at of it on (see value_changed_at()), with its
 * length. */
static void value_text(struct buf *b, sqlite3_value *v, int at)
{
	int n, from, end;
	const unsigned char *p;
	struct buf q;

	if (v == NULL) {
		buf_puts(b, "?");
		return;
	}
	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER: buf_printf(b, "%lld", (long long)sqlite3_value_int64(v)); return;
	case SQLITE_FLOAT: buf_printf(b, "%.17g", sqlite3_value_double(v)); return;
	case SQLITE_NULL: buf_puts(b, "NULL"); return;
	case SQLITE_BLOB:
		n = sqlite3_value_bytes(v);
		p = sqlite3_value_blob(v);
		from = shown_from(at, n, BLOB_SHOWN);
		buf_puts(b, from > 0 ? "x'..." : "x'");
		for (int i = from; i < n && i < from + BLOB_SHOWN; i++)
			buf_printf(b, "%02x", p[i]);
		buf_puts(b, from + BLOB_SHOWN < n ? "...'" : "'");
		if (n > BLOB_SHOWN)
			value_cut_note(b, from, n);
		return;
	default: break;
	}
	p = sqlite3_value_text(v);
	n = sqlite3_value_bytes(v);
	from = shown_from(at, n, TEXT_SHOWN);
	while (from > 0 && (p[from] & 0xc0) == 0x80)
		from--; /* never half a character */
	end = from + TEXT_SHOWN < n ? from + TEXT_SHOWN : n;
	while (end > from && end < n && (p[end] & 0xc0) == 0x80)
		end--;
	buf_init(&q, 0);
	for (int i = from; i < end; i++)
		buf_append(&q, p[i] == '\'' ? "''" : (const char *)&p[i], p[i] == '\'' ? 2 : 1);
	/* as a diff line is: controls, bad UTF-8, bidi and zero-width ones
	 * escaped, so a value cannot reorder what the approver reads */
	buf_puts(b, from > 0 ? "'..." : "'");
	diff_escape(b, q.data ? q.data : "", q.len, false);
	buf_puts(b, end < n ? "...'" : "'");
	if (from > 0 || end < n)
		value_cut_note(b, from, n);
	buf_free(&q);
}

/* A table or column name as shown: the database is the agent's, and a
 * name holding a newline or an escape sequence must not forge rows or
 * drive the terminal. */
static void name_text(struct buf *b, const char *name)
{
	diff_escape(b, name, strlen(name), false);
}

static const char *col_name(const struct sql_table *t, int i, char *tmp, size_t n)
{
	if ((size_t)i < strv_len(t->cols))
		return t->cols[i];
	snprintf(tmp, n, "c%d", i);
	return tmp;
}

#define ROW_LINE_CAP 4096 /* one listed row; up to ROWS_SORTED are held to sort */

/* "- users id=1 name='a'", "+ ...", "~ users id=3: name 'a' -> 'b'" */
static char *row_line(sqlite3_changeset_iter *it, const struct sql_table *t, int op, int ncol)
{
	unsigned char *pk = NULL;
	sqlite3_value *ov, *nv;
	struct buf b, names;
	char tmp[16];
	int npk = 0, at, cut = 0;
	size_t mark = 0;

	buf_init(&b, ROW_LINE_CAP);
	buf_init(&names, 1024);
	sqlite3changeset_pk(it, &pk, &npk);
	buf_printf(&b, "%c ", op == SQLITE_DELETE ? '-' : op == SQLITE_INSERT ? '+' : '~');
	name_text(&b, t->name);
	mark = b.len;
	for (int i = 0; i < ncol; i++) {
		ov = nv = NULL;
		if (op != SQLITE_INSERT)
			sqlite3changeset_old(it, i, &ov);
		if (op != SQLITE_DELETE)
			sqlite3changeset_new(it, i, &nv);
		if (op == SQLITE_UPDATE && !(i < npk && pk[i]) && nv == NULL)
			continue; /* unchanged column */
		if (b.truncated) { /* past the cap: named and counted below */
			cut++;
			buf_puts(&names, cut > 1 ? ", " : "");
			name_text(&names, col_name(t, i, tmp, sizeof(tmp)));
			continue;
		}
		mark = b.len;
		bool key = op == SQLITE_UPDATE && i < npk && pk[i] && nv == NULL;
		buf_puts(&b, " ");
		name_text(&b, col_name(t, i, tmp, sizeof(tmp)));
		buf_puts(&b, op == SQLITE_UPDATE && !key ? " " : "=");
		if (key) {
			value_text(&b, ov, 0);
			buf_puts(&b, ":");
			continue;
		}
		at = op == SQLITE_UPDATE ? value_changed_at(ov, nv) : 0;
		value_text(&b, op == SQLITE_INSERT ? nv : ov, at);
		if (op == SQLITE_UPDATE) {
			buf_puts(&b, " -> ");
			value_text(&b, nv, at);
		}
		if (b.truncated) {
			cut++;
			name_text(&names, col_name(t, i, tmp, sizeof(tmp)));
		}
	}
	/* the line was cut at its cap without a word: 80 changed columns of
	 * long text hid the last one, 'role 'user' -> 'admin''; the columns
	 * past the cap are named (1 KiB of names) */
	if (cut) {
		b.len = mark;
		b.data[b.len] = '\0';
		b.cap = 0;
		buf_printf(&b, " [... %d more column%s not shown, the row cut at %d KiB: %s%s]", cut,
		           cut == 1 ? "" : "s", ROW_LINE_CAP >> 10, names.data ? names.data : "",
		           names.truncated ? "..." : "");
	}
	buf_free(&names);
	return buf_take(&b, NULL);
}

#define ROWS_SORTED 10000 /* changes put in key order before the first are listed */

/* One change waiting to be listed, with its sort key. */
struct row_key {
	size_t table;      /* order of first appearance */
	int op;            /* DELETE, UPDATE, INSERT */
	bool is_int;
	sqlite3_int64 ikey;
	char *line;        /* rendered; also the tie-breaker */
};

static int row_cmp(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;
	static const int rank[] = {[SQLITE_DELETE] = 0, [SQLITE_UPDATE] = 1, [SQLITE_INSERT] = 2};

	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	if (a->op != b->op)
		return rank[a->op] - rank[b->op];
	if (a->is_int && b->is_int && a->ikey != b->ikey)
		return a->ikey < b->ikey ? -1 : 1;
	return strcmp(a->line, b->line);
}

/* The first primary key column's value, when it is an integer. */
static void row_pk(sqlite3_changeset_iter *it, int op, struct row_key *k)
{
	unsigned char *pk = NULL;
	sqlite3_value *v = NULL;
	int npk = 0;

	sqlite3changeset_pk(it, &pk, &npk);
	for (int i = 0; i < npk; i++)
		if (pk[i]) {
			if (op == SQLITE_INSERT)
				sqlite3changeset_new(it, i, &v);
			else
				sqlite3changeset_old(it, i, &v);
			break;
		}
	k->is_int = v && sqlite3_value_type(v) == SQLITE_INTEGER;
	k->ikey = k->is_int ? sqlite3_value_int64(v) : 0;
}

/*
 * Lists the first rows_cap of up to ROWS_SORTED changes in key order, and
 * past them the first change of each table and kind not listed yet (up
 * to rows_cap more): 20 harmless INSERTs into one table filled the list,
 * and the one UPDATE a trigger made in another ('role user -> admin') was
 * only a count. (Keys are sorted by table, then kind: a pair's first key
 * is where it starts.)
 */
static void rows_keep(struct diff_sql *s, struct row_key *keys, size_t n)
{
	size_t extra = 0;

	qsort(keys, n, sizeof(*keys), row_cmp);
	for (size_t i = 0; i < n; i++) {
		bool first = i == 0 || keys[i].table != keys[i - 1].table ||
		             keys[i].op != keys[i - 1].op;
		if (i < s->rows_cap || (first && extra++ < s->rows_cap))
			strv_push_owned(&s->rows, keys[i].line);
		else
			free(keys[i].line);
	}
	free(keys);
}

/* Counts every change per table and lists the first ones in key order. */
static int changeset_walk(struct diff_sql *s, sqlite3 *db, char **errstr)
{
	sqlite3_changeset_iter *it = NULL;
	struct row_key *keys = xcalloc(ROWS_SORTED, sizeof(*keys));
	size_t nkeys = 0;
	const char *tab;
	int ncol, op, indirect, rc;

	if (sqlite3changeset_start(&it, s->changeset_len, s->changeset) != SQLITE_OK) {
		if (errstr)
			*errstr = xstrdup("cannot read the SQLite changeset");
		free(keys);
		return -1;
	}
	while ((rc = sqlite3changeset_next(it)) == SQLITE_ROW) {
		struct sql_table *t;
		sqlite3changeset_op(it, &tab, &ncol, &op, &indirect);
		t = table_get(s, db, tab);
		*(op == SQLITE_DELETE ? &t->deleted : op == SQLITE_INSERT ? &t->inserted
		                                                         : &t->updated) += 1;
		s->rows_total++;
		if (nkeys < ROWS_SORTED && s->rows_cap) {
			keys[nkeys] = (struct row_key){.table = (size_t)(t - s->tables), .op = op};
			row_pk(it, op, &keys[nkeys]);
			keys[nkeys++].line = row_line(it, t, op, ncol);
		}
	}
	sqlite3changeset_finalize(it);
	rows_keep(s, keys, nkeys);
	for (size_t i = 0; i < s->nstmts; i++) /* tables the session cannot record */
		for (char **p = s->stmts[i].tables; p && *p; p++)
			table_get(s, db, *p);
	if (rc != SQLITE_DONE) {
		if (errstr)
			*errstr = xstrdup("the SQLite changeset is corrupt");
		return -1;
	}
	return 0;
}

/* A table's rows now; 0 when it does not exist (the statement creates it). */
static long long count_rows(sqlite3 *db, const char *name)
{
	char *sql = sqlite3_mprintf("SELECT count(*) FROM main.\"%w\"", name);
	sqlite3_stmt *q = NULL;
	long long n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_free(sql);
	return n;
}

/* Feeds one column value to the digest: its type, then its bytes. */
static bool digest_value(const struct lazy_crypto *c, EVP_MD_CTX *ctx, sqlite3_stmt *q, int i)
{
	unsigned char type = (unsigned char)sqlite3_column_type(q, i);
	sqlite3_int64 iv;
	double dv;
	const void *p;
	unsigned long long n;

	if (c->EVP_DigestUpdate(ctx, &type, 1) != 1)
		return false;
	switch (type) {
	case SQLITE_INTEGER:
		iv = sqlite3_column_int64(q, i);
		return c->EVP_DigestUpdate(ctx, &iv, sizeof(iv)) == 1;
	case SQLITE_FLOAT:
		dv = sqlite3_column_double(q, i);
		return c->EVP_DigestUpdate(ctx, &dv, sizeof(dv)) == 1;
	case SQLITE_NULL: return true;
	default:
		p = type == SQLITE_TEXT ? (const void *)sqlite3_column_text(q, i)
		                        : sqlite3_column_blob(q, i);
		n = (unsigned long long)sqlite3_column_bytes(q, i);
		return c->EVP_DigestUpdate(ctx, &n, sizeof(n)) == 1 &&
		       (n == 0 || c->EVP_DigestUpdate(ctx, p, (size_t)n) == 1);
	}
}


/* "- log rowid=3 msg='debug'": a row of a table without a key, which the
 * changeset does not list. */
static void row_gone(struct row_sums *rs, sqlite3_stmt *q)
{
	struct buf b;

	if (strv_len(rs->gone) >= ROWS_GONE_SHOWN) {
		rs->gone_more++;
		return;
	}
	buf_init(&b, ROW_LINE_CAP);
	buf_printf(&b, "%c ", rs->mark);
	name_text(&b, rs->table);
	for (int i = 0; i < sqlite3_column_count(q); i++) {
		/* a column's value is unprotected: the docs allow only a copy */
		sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(q, i));
		buf_puts(&b, " ");
		name_text(&b, sqlite3_column_name(q, i));
		buf_puts(&b, "=");
		value_text(&b, v, 0);
		sqlite3_value_free(v);
	}
	if (b.truncated) {
		b.cap = 0;
		buf_puts(&b, " [... the row cut]");
	}
	strv_push_owned(&rs->gone, buf_take(&b, NULL));
}

/* Keeps the sum of the row q is on (its columns fed to ctx). */
static bool row_sum_keep(const struct lazy_crypto *c, EVP_MD_CTX *ctx, sqlite3_stmt *q,
                         struct row_sums *rs)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (rs->over)
		return true;
	if (rs->n == ROWS_COMPARED) {
		free(rs->v);
		rs->v = NULL;
		rs->n = rs->cap = 0;
		rs->over = true;
		return true;
	}
	/* the digest set up by the first row is reused: fetching it anew
	 * for each of a million rows cost seconds */
	if (c->EVP_DigestInit_ex(ctx, rs->n ? NULL : c->EVP_sha256(), NULL) != 1)
		return false;
	for (int i = 0; i < sqlite3_column_count(q); i++)
		if (!digest_value(c, ctx, q, i))
			return false;
	if (c->EVP_DigestFinal_ex(ctx, md, &len) != 1 || len < ROW_SUM)
		return false;
	if (rs->against && (rs->against->n == 0 || bsearch(md, rs->against->v, rs->against->n,
	                                                  ROW_SUM, row_sum_cmp) == NULL))
		row_gone(rs, q);
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 64;
		rs->v = xreallocarray(rs->v, rs->cap, sizeof(*rs->v));
	}
	memcpy(rs->v[rs->n++], md, ROW_SUM);
	return true;
}

/* Rows of before that no row of after equals (each row after matches
 * one before at most). Sorts before; after is sorted. */
static long long row_sums_vanished(struct row_sums *before, const struct row_sums *after)
{
	size_t i = 0, j = 0;
	long long gone = 0;
	int cmp;

	if (before->n)
		qsort(before->v, before->n, ROW_SUM, row_sum_cmp);
	while (i < before->n) {
		cmp = j < after->n ? memcmp(before->v[i], after->v[j], ROW_SUM) : -1;
		if (cmp < 0)
			gone++, i++;
		else if (cmp > 0)
			j++;
		else
			i++, j++;
	}
	return gone;
}

/*
 * The SHA-256 of every row of a table the session cannot record (one
 * without a PRIMARY KEY), in scan order with its rowid. Its rows are
 * counted, not listed, and the count alone let them change between
 * preview and approval: 'DELETE FROM log WHERE lvl = 'debug'' removed
 * the row a second connection had made 'debug' since, the same number
 * of rows as shown. A table that does not exist (yet) sums as empty.
 * With rs, each row's own sum is kept there too; md NULL: only those.
 * False when it cannot be read.
 */
static bool table_digest(sqlite3 *db, const char *name, unsigned char md[32],
                         struct row_sums *rs)
{
	const struct lazy_crypto *c;
	EVP_MD_CTX *ctx = NULL, *row = NULL;
	sqlite3_stmt *q = NULL;
	char *sql, *err = NULL;
	unsigned int mdlen = 0;
	bool ok = false;
	int rc = SQLITE_DONE;

	if ((c = lazy_crypto(&err)) == NULL || (ctx = c->EVP_MD_CTX_new()) == NULL ||
	    c->EVP_DigestInit_ex(ctx, c->EVP_sha256(), NULL) != 1 ||
	    (rs && (row = c->EVP_MD_CTX_new()) == NULL))
		goto out;
	sql = sqlite3_mprintf("SELECT _rowid_, * FROM main.\"%w\"", name);
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		sqlite3_finalize(q); /* a view has no rowid */
		q = NULL;
		sqlite3_free(sql);
		sql = sqlite3_mprintf("SELECT * FROM main.\"%w\"", name);
		if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
			sqlite3_finalize(q);
			q = NULL;
		}
	}
	sqlite3_free(sql);
	while (q && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		for (int i = 0; md && i < sqlite3_column_count(q); i++)
			if (!digest_value(c, ctx, q, i))
				goto out;
		if (rs && !row_sum_keep(c, row, q, rs))
			goto out;
	}
	ok = rc == SQLITE_DONE &&
	     (md == NULL || (c->EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32));
out:
	sqlite3_finalize(q);
	if (ctx)
		c->EVP_MD_CTX_free(ctx);
	if (row)
		c->EVP_MD_CTX_free(row);
	free(err);
	return ok;
}

/* Rows after the statements (before the rollback) in the tables the session
 * cannot record: a trigger's changes there show nowhere else. */
static void count_after(struct diff_sql *s, sqlite3 *db)
{
	for (size_t i = 0; i < s->ntables; i++) {
		struct sql_table *t = &s->tables[i];
		if (t->no_pk && !t->gone) {
			struct row_sums *snap = snap_find(s, t->name);
			t->after = count_rows(db, t->name);
			row_sums_free(t->rows_after);
			t->rows_after = xcalloc(1, sizeof(*t->rows_after));
			t->rows_after->against = snap && !snap->over ? snap : NULL;
			t->rows_after->mark = '+';
			t->rows_after->table = t->name;
			t->summed_after = table_digest(db, t->name, t->sum_after, t->rows_after);
			if (t->summed_after && !t->rows_after->over) {
				t->rows_new = t->rows_after->gone;
				t->rows_new_more = t->rows_after->gone_more;
				t->rows_after->gone = NULL;
			}
			t->rows_after->against = NULL;
		}
		t->null_pk |= has_null_pk(db, t);
	}
}

/* The apply left those tables with the rows the preview said. */
static bool same_after(const struct diff_sql *s, sqlite3 *db)
{
	unsigned char md[32];

	for (size_t i = 0; i < s->ntables; i++) {
		const struct sql_table *t = &s->tables[i];
		if (t->after >= 0 && count_rows(db, t->name) != t->after)
			return false;
		if (t->summed_after &&
		    (!table_digest(db, t->name, md, NULL) || memcmp(md, t->sum_after, 32) != 0))
			return false;
	}
	return true;
}

/* The schema's version: any CREATE, DROP or ALTER since changes it. */
static long long schema_version(sqlite3 *db)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(db, "SELECT schema_version FROM pragma_schema_version", -1, &q,
	                       NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Rows per table and the schema before the statement (after the rollback). */
static void count_before(struct diff_sql *s, sqlite3 *db)
{
	for (size_t i = 0; i < s->ntables; i++) {
		struct sql_table *t = &s->tables[i];
		struct row_sums before = {.against = t->rows_after, .mark = '-', .table = t->name};
		bool keep = t->summed_after && !t->rows_after->over;
		/* a view the statements drop holds no rows of its own: "DROP
		 * would remove table v with its 2 rows" while its table kept
		 * them (the schema line says DROP VIEW v) */
		if (t->gone && table_type_is(db, t->name, "view"))
			t->gone = t->no_pk = false;
		if (keep && t->rows_after->n)
			qsort(t->rows_after->v, t->rows_after->n, ROW_SUM, row_sum_cmp);
		t->before = count_rows(db, t->name);
		if (t->no_pk)
			t->summed_before =
			    table_digest(db, t->name, t->sum_before, keep ? &before : NULL);
		if (keep && t->summed_before && !before.over) {
			t->vanished = row_sums_vanished(&before, t->rows_after);
			t->rows_gone = before.gone;
			t->rows_gone_more = before.gone_more;
			before.gone = NULL;
		}
		free(before.v);
		strv_free(before.gone);
		row_sums_free(t->rows_after);
		t->rows_after = NULL;
		t->null_pk |= has_null_pk(db, t);
	}
	s->schema = schema_version(db);
}

/* What the preview stated still holds: the same schema (a trigger added
 * since could change a table no changeset records: one without a primary
 * key) and the same row counts (a DROP's rows are in no changeset). */
static bool same_start(const struct diff_sql *s, sqlite3 *db)
{
	unsigned char md[32];

	if (s->schema < 0 || schema_version(db) != s->schema)
		return false;
	for (size_t i = 0; i < s->ntables; i++) {
		const struct sql_table *t = &s->tables[i];
		if (count_rows(db, t->name) != t->before)
			return false;
		if (t->summed_before &&
		    (!table_digest(db, t->name, md, NULL) || memcmp(md, t->sum_before, 32) != 0))
			return false;
	}
	return true;
}

/* Which file path names (through any links), now: its resolved path and
 * inode. With the database's lock held, it is the file being read. */
static bool db_identity(const char *path, char **real, dev_t *dev, ino_t *ino)
{
	struct stat st;

	*real = realpath(path, NULL);
	if (*real == NULL || stat(*real, &st) < 0) {
		free(*real);
		*real = NULL;
		return false;
	}
	*dev = st.st_dev, *ino = st.st_ino;
	return true;
}

static char *db_path(const char *workdir, const char *p)
{
	const char *home = getenv("HOME");
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home)
		return xasprintf("%s%s", home, p + 1);
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", workdir, p);
}

/* Keywords after which SQL names a table. */
static const char *const table_words[] = {"FROM", "INTO", "UPDATE", "TABLE", "JOIN", "EXISTS"};

/* The tables a statement names, by keyword scan (no database to ask). */
static char *scan_tables(const char *sql)
{
	struct buf b;
	bool take = false;

	buf_init(&b, 1024);
	while (*sql) {
		size_t n = strspn(sql, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                       "0123456789_.\"`[]");
		if (n == 0) {
			sql++;
			continue;
		}
		char *w = xstrndup(sql, n);
		bool kw = false;
		for (size_t i = 0; i < nitems(table_words); i++)
			kw |= strcasecmp(w, table_words[i]) == 0;
		if (take && !kw && strcasecmp(w, "IF") != 0 && strcasecmp(w, "NOT") != 0 &&
		    strcasecmp(w, "ONLY") != 0)
			buf_printf(&b, "%s%s", b.len ? ", " : "", w);
		take = kw || (take && (strcasecmp(w, "IF") == 0 || strcasecmp(w, "NOT") == 0 ||
		                      strcasecmp(w, "ONLY") == 0));
		free(w);
		sql += n;
	}
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
}

/* Other databases: the statement kinds and tables, without running anything. */
static void other_preview(struct diff *d, struct diff_sql *s, const struct diff_opts *o)
{
	char *const *stmts = o->verdict ? o->verdict->statements : NULL;
	char *one[] = {s->query, NULL};

	if (stmts == NULL || stmts[0] == NULL)
		stmts = one;
	for (size_t i = 0; stmts[i]; i++) {
		char *kind = first_word(stmts[i]), *tables = scan_tables(stmts[i]);
		strv_push_owned(&s->kinds, tables ? xasprintf("%s %s", kind, tables) : xstrdup(kind));
		free(kind);
		free(tables);
	}
	diff_set_incomplete(d, "no SQLite database given: the statement kinds are shown, the "
	                       "rows are not previewed");
}

/* True when the statements change anything: rows, counted rows, schema. */
static bool changes_any(const struct diff_sql *s)
{
	for (size_t i = 0; i < s->nstmts; i++)
		if (s->stmts[i].changes)
			return true;
	return s->changeset_len > 0 || s->ddl != NULL;
}

void changeset_preview(struct diff *d, const struct call *c, const struct diff_opts *o)
{
	struct diff_sql *s = d->sql = xcalloc(1, sizeof(*s));
	struct sql_limits lim = {0};
	sqlite3 *db = NULL;
	char *err = NULL;
	int rc;

	s->query = xstrdup(c->query ? c->query : "");
	s->rows_cap = o->rows_shown ? o->rows_shown : DIFF_ROWS_SHOWN;
	d->title = xasprintf("sql on %s", c->database ? c->database : "(no database)");
	if (c->query == NULL) {
		d->error = xstrdup("sql: no query given");
		return;
	}
	if (c->database == NULL) {
		other_preview(d, s, o);
		return;
	}
	s->path = db_path(d->workdir, c->database);
	if (open_db(s->path, &db, &err) < 0 || set_limits(db, c, o, &lim, &err) < 0 ||
	    exec_simple(db, "BEGIN", &err) < 0)
		goto out;
	if (!db_identity(s->path, &s->real, &s->dev, &s->ino)) {
		err = xasprintf("cannot resolve the database %s: %s", s->path, strerror(errno));
		goto out;
	}
	s->now_ms = clock_pin(0);
	s->snap = true;
	rc = run_recorded(db, s, NULL, &s->changeset, &s->changeset_len, &err);
	pinned_ms = 0;
	sqlite3_progress_handler(db, 0, NULL, NULL); /* the rollback and counts run whole */
	if (rc == -1 && (lim.expired || s->failed == SQLITE_FULL)) {
		s->unrun = 1; /* rolled back before the changeset was read: no row is shown */
		diff_set_incomplete(d, lim.expired ? "the statement did not finish within %lld ms: "
		                                     "not previewed (%s)"
		                                   : "the statement grows the database by more "
		                                     "than %lld MiB: not previewed (%s)",
		                    lim.expired ? lim.limit_ms : DIFF_TOTAL_CAP >> 20, err);
		free(err);
		err = NULL;
	}
	if (rc == 0 || rc == -2) {
		changeset_walk(s, db, rc == 0 ? &err : NULL);
		count_after(s, db);
	}
	snaps_free(s);
	/* an interrupt or a full disk has rolled the transaction back already */
	if (sqlite3_get_autocommit(db) || exec_simple(db, "ROLLBACK", err ? NULL : &err) == 0)
		count_before(s, db);
	for (size_t i = 0; i < s->ntables; i++)
		if (s->tables[i].no_pk && (!s->tables[i].summed_before ||
		                           (s->tables[i].after >= 0 && !s->tables[i].summed_after))) {
			char *nm = diff_shown(s->tables[i].name);
			diff_set_incomplete(d, "the rows of %s (no PRIMARY KEY) cannot be read to check "
			                       "at approval that they are still the ones previewed", nm);
			free(nm);
		}
	for (size_t i = 0; i < s->ntables; i++)
		if (s->tables[i].null_pk) {
			char *nm = diff_shown(s->tables[i].name);
			diff_set_incomplete(d, "%s holds a row whose PRIMARY KEY is NULL: SQLite's "
			                       "session extension does not record changes to it, so "
			                       "the rows are not previewed", nm);
			free(nm);
		}
	if (rc == -2) {
		diff_set_incomplete(d, "%s", err);
		free(err);
		err = NULL;
	}
	/* the executor opens the database read-only under such a profile */
	if (o->profile && !o->profile->workdir_rw && changes_any(s))
		diff_set_incomplete(d, "profile %s opens the database read-only: the changes are "
		                       "shown, not applied", o->profile->name ? o->profile->name : "");
out:
	sqlite3_close(db);
	d->error = err;
}

/* Same changes as the preview: the changeset bytes and each statement's count. */
static bool same_changes(const struct diff_sql *a, const struct diff_sql *b, const void *cs,
                         int cslen)
{
	if (cslen != a->changeset_len || (cslen && memcmp(cs, a->changeset, (size_t)cslen) != 0) ||
	    a->nstmts != b->nstmts)
		return false;
	for (size_t i = 0; i < a->nstmts; i++)
		if (a->stmts[i].changes != b->stmts[i].changes)
			return false;
	return true;
}

int changeset_apply(struct diff *d, struct outcome *o, char **errstr)
{
	struct diff_sql *s = d->sql, now = {.query = s->query};
	sqlite3 *db = NULL;
	void *cs = NULL;
	int cslen = 0, rc = -1, ran;
	char *real = NULL;
	dev_t dev = 0;
	ino_t ino = 0;
	struct buf out;

	buf_init(&out, DIFF_TEXT_CAP);
	/* the file the preview read, not what its path names now: a link
	 * swapped between preview and approval (t.db -> a.db, then -> b.db)
	 * had the previewed change committed to another database */
	if (open_db(s->real, &db, errstr) < 0 || exec_simple(db, "BEGIN IMMEDIATE", errstr) < 0)
		goto out;
	if (!db_identity(s->path, &real, &dev, &ino) || strcmp(real, s->real) != 0 ||
	    dev != s->dev || ino != s->ino) {
		exec_simple(db, "ROLLBACK", NULL);
		*errstr = xasprintf("the database %s changed since the preview: it is not the file "
		                    "the preview read (%s); nothing was committed (preview again)",
		                    s->path, s->real);
		goto out;
	}
	if (!same_start(s, db)) {
		exec_simple(db, "ROLLBACK", NULL);
		*errstr = xasprintf("the database %s changed since the preview: its schema, or the "
		                    "rows a table holds, is not what the preview read; nothing was "
		                    "committed (preview again)", s->path);
		goto out;
	}
	clock_pin(s->now_ms); /* the time the preview showed */
	ran = run_recorded(db, &now, &out, &cs, &cslen, errstr);
	pinned_ms = 0;
	if (ran < 0) {
		exec_simple(db, "ROLLBACK", NULL);
		goto out;
	}
	if (!same_changes(s, &now, cs, cslen) || !same_after(s, db)) {
		exec_simple(db, "ROLLBACK", NULL);
		/* with the schema and the counts as read, a statement that draws
		 * random() differs every run: said so, not only "changed" */
		*errstr = xasprintf("the database %s changed since the preview, or the statement "
		                    "is not deterministic (random(), randomblob(): not pinned as "
		                    "'now' is): it would now make different changes; nothing was "
		                    "committed (preview again)", s->path);
		goto out;
	}
	if (exec_simple(db, "COMMIT", errstr) < 0) {
		exec_simple(db, "ROLLBACK", NULL);
		goto out;
	}
	o->ran = true;
	o->exit_code = 0;
	o->truncated = out.truncated;
	o->out = buf_take(&out, &o->outlen);
	rc = 0;
out:
	buf_free(&out);
	free(real);
	stmts_clear(&now);
	strv_free(now.ddl);
	sqlite3_free(cs);
	sqlite3_close(db);
	return rc;
}

/* 48213 -> "48,213" */
static const char *grouped(long long v, char tmp[32])
{
	char raw[24];
	int n = snprintf(raw, sizeof(raw), "%lld", v < 0 ? -v : v), j = 0;

	if (v < 0)
		tmp[j++] = '-';
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			tmp[j++] = ',';
		tmp[j++] = raw[i];
	}
	tmp[j] = '\0';
	return tmp;
}

/* Rows the statements changed in a table the session cannot record. */
static long long untracked(const struct diff_sql *s, const char *table, int op)
{
	long long n = 0;
	for (size_t i = 0; i < s->nstmts; i++)
		if (s->stmts[i].target && strcmp(s->stmts[i].target, table) == 0 &&
		    s->stmts[i].op == op)
			n += s->stmts[i].changes;
	return n;
}

static const char *plural(long long n)
{
	return n == 1 ? "row" : "rows";
}

/* True when a table without a primary key holds other rows after the
 * statements than before (its digests differ). */
static bool no_pk_rewritten(const struct sql_table *t)
{
	return t->no_pk && t->summed_before && t->summed_after &&
	       memcmp(t->sum_before, t->sum_after, sizeof(t->sum_before)) != 0;
}

/* The rows of a table without a primary key that would change beyond
 * what the statements count (counted: the rows they delete, update or
 * replace). Without a row-by-row comparison (past ROWS_COMPARED rows),
 * a change of its digest is all that is known. */
static void rows_uncounted(const struct sql_table *t, long long counted, long long ins,
                           const char *nm, struct buf *b)
{
	char n1[32];
	long long extra = t->vanished - counted;

	if (t->vanished >= 0 && extra > 0)
		buf_printf(b, " %s: rows it holds would change: %s %s it held before, beyond what "
		              "the statements count (a trigger's writes; listed below)\n", nm,
		           grouped(extra, n1), plural(extra));
	else if (t->vanished < 0 && no_pk_rewritten(t) && counted + ins == 0)
		buf_printf(b, " %s: rows it holds would change (a trigger's writes, not "
		              "counted by any statement; which rows is not shown)\n", nm);
	else if (t->vanished < 0 && no_pk_rewritten(t))
		buf_printf(b, " %s: rows it holds may change beyond what the statements count "
		              "(over %s rows: not compared one by one)\n", nm,
		           grouped(ROWS_COMPARED, n1));
}

/* One list of rows_gone_lines(): its head, its lines, how many more. */
static void row_list(struct buf *b, const char *nm, const char *what, char **v, size_t more)
{
	char n1[32];

	if (v == NULL)
		return;
	buf_printf(b, " %s: the rows %s:\n", nm, what);
	for (char **p = v; *p; p++)
		buf_printf(b, "%s\n", *p);
	if (more)
		buf_printf(b, " ... and %s more of those rows of %s\n", grouped((long long)more, n1),
		           nm);
}

/* The rows of a table without a primary key that the statements (or
 * their triggers) would change or remove, as they are now, and the rows
 * they would leave that it does not hold now: the changeset lists none
 * of them, and a trigger's rewrite of one was a count. */
static void rows_gone_lines(const struct sql_table *t, const char *nm, struct buf *b)
{
	row_list(b, nm, "it holds now that would change or go", t->rows_gone, t->rows_gone_more);
	row_list(b, nm, "it would hold that it does not now", t->rows_new, t->rows_new_more);
}

/*
 * An upsert's count (ON CONFLICT DO UPDATE) is of the rows it added and
 * the rows it changed together, which in a table without a PRIMARY KEY
 * nothing else tells apart: "INSERT would add 2 rows" beside "1 row
 * removed that no statement counts (a REPLACE ...)" where one row was
 * added and one changed, nothing removed. The rows added are what the
 * table grew by beyond the other statements' counts; the rest changed.
 * Without the row count after, all are counted as added, as before.
 */
static void upserts_split(const struct diff_sql *s, const struct sql_table *t, long long del,
                          long long *ins, long long *upd)
{
	long long ups = untracked(s, t->name, OP_UPSERT), added = ups;

	if (ups == 0)
		return;
	if (t->after >= 0 && t->before >= 0) {
		added = t->after - (t->before - del + *ins);
		added = added < 0 ? 0 : added > ups ? ups : added;
	}
	*ins += added;
	*upd += ups - added;
}

static void table_totals(const struct diff_sql *s, const struct sql_table *t, struct buf *b)
{
	char n1[32], n2[32];
	long long del = t->deleted, upd = t->updated, ins = t->inserted, net = 0;
	char *nm = diff_shown(t->name);

	if (t->gone) {
		buf_printf(b, " DROP would remove table %s with its %s %s\n", nm,
		           grouped(t->before, n1), plural(t->before));
		goto out;
	}
	if (t->no_pk) {
		del = untracked(s, t->name, SQLITE_DELETE);
		upd = untracked(s, t->name, SQLITE_UPDATE);
		ins = untracked(s, t->name, SQLITE_INSERT);
		upserts_split(s, t, del, &ins, &upd);
		if (t->after >= 0 && t->before >= 0)
			net = t->after - (t->before - del + ins);
		if (t->virtual) /* an R-tree's INSERT listed only its shadow tables' blobs */
			buf_printf(b, " %s is a virtual table: SQLite's session extension does not "
			              "record its rows (its shadow tables' rows are listed as "
			              "stored); counts come from the statements\n", nm);
		else
			buf_printf(b, " %s has no PRIMARY KEY: SQLite's session extension does not "
			              "record its rows; counts come from the statements\n", nm);
		if (t->after >= 0)
			buf_printf(b, " %s would hold %s %s (%s before)\n", nm, grouped(t->after, n1),
			           plural(t->after), grouped(t->before, n2));
		/* a trigger's UPDATE there is in no statement's count, and the
		 * row count stays: "would hold 2 rows (2 before)" read as no
		 * change while every admin grant was handed to another user;
		 * beside an INSERT's count it was not mentioned at all */
		rows_uncounted(t, del + upd + (net < 0 ? -net : 0), ins, nm, b);
		/* a REPLACE that meets a UNIQUE row deletes it, and no count
		 * says so: "INSERT would add 1 row" beside "would hold 2 rows (2
		 * before)", while the admin's row was replaced */
		if (net != 0)
			buf_printf(b, " %s: %s %s %s that no statement counts (%s; %s)\n", nm,
			           grouped(net < 0 ? -net : net, n1), plural(net < 0 ? -net : net),
			           net < 0 ? "removed" : "added",
			           net < 0 ? "a REPLACE that met a UNIQUE row, or a trigger" : "a trigger",
			           t->rows_gone || t->rows_new ? "listed below" : "which rows is not shown");
	}
	if (del)
		buf_printf(b, " DELETE would remove %s of %s %s in %s\n", grouped(del, n1),
		           grouped(t->before, n2), plural(t->before), nm);
	if (upd)
		buf_printf(b, " UPDATE would change %s of %s %s in %s\n", grouped(upd, n1),
		           grouped(t->before, n2), plural(t->before), nm);
	if (ins)
		buf_printf(b, " INSERT would add %s %s to %s (%s before)\n", grouped(ins, n1),
		           plural(ins), nm, grouped(t->before, n2));
	rows_gone_lines(t, nm, b);
out:
	free(nm);
}

#define STMTS_SHOWN 20 /* statements listed one by one; the rest are summed */

/* Schema changes, after the totals and rows, the first STMTS_SHOWN named
 * and the rest counted by verb: 30 CREATE INDEX lines came before "DELETE
 * would remove 2 of 2 rows in users", past the approval screen's first
 * page; a CREATE TRIGGER among the rest is still counted as one. */
static void ddl_lines(const struct diff_sql *s, struct buf *b)
{
	size_t n = strv_len(s->ddl), count[nitems(ddl_verbs)] = {0};
	const char *sep = "";

	for (size_t i = 0; i < n; i++) {
		char *safe;
		if (i >= STMTS_SHOWN) {
			for (size_t v = 0; v < nitems(ddl_verbs); v++)
				if (strncmp(s->ddl[i], ddl_verbs[v].verb, strlen(ddl_verbs[v].verb)) == 0 &&
				    s->ddl[i][strlen(ddl_verbs[v].verb)] == ' ') {
					count[v]++;
					break;
				}
			continue;
		}
		safe = diff_shown(s->ddl[i]);
		buf_printf(b, " schema: %s\n", safe);
		free(safe);
	}
	if (n <= STMTS_SHOWN)
		return;
	buf_printf(b, " ... and %zu more schema changes (", n - STMTS_SHOWN);
	for (size_t v = 0; v < nitems(ddl_verbs); v++)
		if (count[v]) {
			buf_printf(b, "%s%zu %s", sep, count[v], ddl_verbs[v].verb);
			sep = ", ";
		}
	buf_puts(b, ")\n");
}

/* Each statement's kind and count, after the totals and rows: a string of
 * 300 INSERTs into a log listed 300 lines first, and the UPDATE a trigger
 * made in users (role 'user' -> 'admin') came below them, far past the
 * approval screen's first page. */
static void stmt_lines(const struct diff_sql *s, struct buf *b)
{
	char n1[32];
	long long rest = 0;
	size_t i;

	for (i = 0; s->kinds && s->kinds[i]; i++)
		if (i < STMTS_SHOWN)
			buf_printf(b, " statement %zu: %s\n", i + 1, s->kinds[i]);
	if (i > STMTS_SHOWN)
		buf_printf(b, " ... and %zu more statements\n", i - STMTS_SHOWN);
	for (i = 0; i < s->nstmts; i++)
		if (i < STMTS_SHOWN)
			buf_printf(b, " statement %zu: %s, %s %s changed\n", i + 1, s->stmts[i].kind,
			           grouped(s->stmts[i].changes, n1), plural(s->stmts[i].changes));
		else
			rest += s->stmts[i].changes;
	if (s->nstmts > STMTS_SHOWN)
		buf_printf(b, " ... and %zu more statements, %s %s changed\n",
		           s->nstmts - STMTS_SHOWN, grouped(rest, n1), plural(rest));
}

void changeset_render(const struct diff_sql *s, struct buf *b, bool color, bool failed)
{
	char n1[32];

	if (s->skipped)
		buf_printf(b, " %zu BEGIN/COMMIT statement%s skipped: the whole string runs in one "
		              "transaction\n", s->skipped, s->skipped == 1 ? "" : "s");
	for (size_t i = 0; i < s->ntables; i++)
		table_totals(s, &s->tables[i], b);
	/* a string cut at a refused or interrupted statement: what the rest
	 * would change is unknown, never "no rows would change" (on approval
	 * the whole string runs) */
	if (s->unrun)
		buf_printf(b, " statements from %zu on are not previewed: the rows they would "
		              "change are not shown\n", s->unrun);
	else if (!failed && s->path && s->rows_total == 0 && s->ntables == 0 && s->ddl == NULL)
		buf_puts(b, " no rows would change\n");
	for (size_t i = 0; s->rows && s->rows[i]; i++) {
		const char *r = s->rows[i];
		const char *col = *r == '-' ? "\033[31m" : *r == '+' ? "\033[32m" : "\033[33m";
		buf_printf(b, "%s%s%s\n", color ? col : "", r, color ? "\033[m" : "");
	}
	if (s->rows_total > strv_len(s->rows) && strv_len(s->rows) > s->rows_cap)
		buf_printf(b, " ... and %s more changed rows (first %zu shown, then the first of "
		              "%zu more tables or kinds of change)\n",
		           grouped((long long)(s->rows_total - strv_len(s->rows)), n1), s->rows_cap,
		           strv_len(s->rows) - s->rows_cap);
	else if (s->rows_total > strv_len(s->rows))
		buf_printf(b, " ... and %s more changed rows (first %zu shown)\n",
		           grouped((long long)(s->rows_total - strv_len(s->rows)), n1),
		           strv_len(s->rows));
	ddl_lines(s, b);
	stmt_lines(s, b);
}

static json_t *lines_json(char **v)
{
	json_t *a = json_array();

	for (char **p = v; p && *p; p++)
		json_array_append_new(a, encode_bytes(*p, strlen(*p)));
	return a;
}

json_t *changeset_to_json(const struct diff_sql *s)
{
	json_t *j = json_object(), *a;

	if (s->path)
		json_object_set_new(j, "database", json_string(s->path));
	a = json_array();
	for (size_t i = 0; i < s->nstmts; i++)
		json_array_append_new(a, json_pack("{ss sI}", "kind", s->stmts[i].kind, "changes",
		                                   (json_int_t)s->stmts[i].changes));
	json_object_set_new(j, "statements", a);
	a = json_array();
	for (size_t i = 0; i < s->ntables; i++) {
		const struct sql_table *t = &s->tables[i];
		json_t *o = json_pack("{so sI sI sI sI sb}", "table",
		                      encode_bytes(t->name, strlen(t->name)), "rows_before",
		                      (json_int_t)t->before, "deleted", (json_int_t)t->deleted,
		                      "inserted", (json_int_t)t->inserted, "updated",
		                      (json_int_t)t->updated, "primary_key", !t->no_pk);
		if (t->after >= 0)
			json_object_set_new(o, "rows_after", json_integer((json_int_t)t->after));
		if (t->no_pk && t->summed_before && t->summed_after)
			json_object_set_new(o, "rows_changed", json_boolean(no_pk_rewritten(t)));
		if (t->vanished >= 0)
			json_object_set_new(o, "rows_vanished", json_integer((json_int_t)t->vanished));
		if (t->rows_gone)
			json_object_set_new(o, "rows_gone", lines_json(t->rows_gone));
		if (t->rows_new)
			json_object_set_new(o, "rows_new", lines_json(t->rows_new));
		json_array_append_new(a, o);
	}
	json_object_set_new(j, "tables", a);
	a = json_array();
	for (size_t i = 0; s->rows && s->rows[i]; i++)
		json_array_append_new(a, encode_bytes(s->rows[i], strlen(s->rows[i])));
	json_object_set_new(j, "rows", a);
	json_object_set_new(j, "rows_total", json_integer((json_int_t)s->rows_total));
	if (s->unrun)
		json_object_set_new(j, "not_previewed_from", json_integer((json_int_t)s->unrun));
	a = json_array();
	for (size_t i = 0; s->ddl && s->ddl[i]; i++)
		json_array_append_new(a, encode_bytes(s->ddl[i], strlen(s->ddl[i])));
	json_object_set_new(j, "schema", a);
	a = json_array();
	for (size_t i = 0; s->kinds && s->kinds[i]; i++)
		json_array_append_new(a, encode_bytes(s->kinds[i], strlen(s->kinds[i])));
	json_object_set_new(j, "kinds", a);
	return j;
}
