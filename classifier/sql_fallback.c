/*
 * sql_fallback.c: SQL that PostgreSQL's grammar rejects (MySQL backticks,
 * DELETE ... LIMIT, PRAGMA, REPLACE INTO) is read by keywords. String
 * literals, quoted identifiers and comments are skipped, so keywords inside
 * them never fire; MySQL's executable comments (/ *! ... * /) are read.
 * Text is read twice when backslashes or '#' make quoting ambiguous, and a
 * statement that starts with no keyword it knows is high (sql.unparsed).
 * Also: SQL clients' own commands (sqlite3 .shell, psql \!, mysql system)
 * run shell commands, write output files or read SQL from elsewhere.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

#define KW_MAX 64

/* A keyword, upper-cased (one longer than the longest function name
 * sql_fn_find knows is cut short); call: a '(' follows. */
struct kw {
	char s[40];
	bool call;
	bool dotted; /* a '.' stands right before it: NAME.THIS */
	bool quoted; /* `NAME` or [NAME]: a name, never a keyword */
};

struct stmt {
	struct kw *kw;       /* in order: first, then grown in the arena */
	size_t nkw, cap;
	struct kw first[KW_MAX];
	size_t off, end;
	bool eq;             /* an '=' outside strings */
};

/* Skips a quoted run starting at s[i]; returns the index after it. */
static size_t skip_quote(const char *s, size_t n, size_t i, bool backslash)
{
	char q = s[i] == '[' ? ']' : s[i];
	for (i++; i < n; i++) {
		if (backslash && s[i] == '\\' && q != '`' && q != ']') {
			i++;
		} else if (s[i] == q) {
			if (i + 1 < n && s[i + 1] == q && q != ']')
				i++;
			else
				return i + 1;
		}
	}
	return n;
}

/* MySQL's -- starts a comment only before a blank or control byte. */
static bool mysql_dash_comment(const char *s, size_t n, size_t i)
{
	return i + 2 >= n || (unsigned char)s[i + 2] <= ' ';
}

static bool mysql_dashes(const char *sql, size_t len)
{
	for (const char *p = sql; (p = memmem(p, len - (size_t)(p - sql), "--", 2)) != NULL; p++)
		if (!mysql_dash_comment(sql, len, (size_t)(p - sql)))
			return true;
	return false;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* The length of the $$ or $tag$ that opens a dollar quote at s[i], or 0:
 * PostgreSQL's, where a '$' after a name's letters is part of the name. */
static size_t dollar_tag(const char *s, size_t n, size_t i)
{
	size_t k = i + 1;

	if (s[i] != '$' || (i > 0 && ident_char(s[i - 1])))
		return 0;
	if (k < n && (isalpha((unsigned char)s[k]) || s[k] == '_'))
		while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
			k++;
	return k < n && s[k] == '$' ? k - i + 1 : 0;
}

/* A comment opened inside a comment: PostgreSQL nests them, SQLite and
 * MySQL end both at the first close, so what follows it runs there. */
static bool has_nested_comment(const char *sql, size_t len)
{
	const char *p = sql, *e = sql + len, *open, *close;

	while ((open = memmem(p, (size_t)(e - p), "/*", 2)) != NULL) {
		close = memmem(open + 2, (size_t)(e - open - 2), "*/", 2);
		if (close == NULL)
			return false;
		if (memmem(open + 2, (size_t)(close - open - 2), "/*", 2))
			return true;
		p = close + 2;
	}
	return false;
}

/* Backslash escapes and # comments: MySQL's, where quoting ends elsewhere. */
static bool mysql_quoting(const char *sql, size_t len)
{
	return memchr(sql, '\\', len) || memchr(sql, '#', len);
}

static bool has_dollar_quote(const char *sql, size_t len)
{
	for (const char *p = sql; (p = memchr(p, '$', len - (size_t)(p - sql))) != NULL; p++)
		if (dollar_tag(sql, len, (size_t)(p - sql)))
			return true;
	return false;
}

/* An E'...' string holding a backslash: PostgreSQL's escapes make \' a
 * quote inside it, where SQLite (whose E is a column name, 'a\' its
 * alias) ends the string there: `SELECT E'a\' FROM (SELECT 1 AS E); DROP
 * TABLE t; --'` is one SELECT of a string to the grammar and drops t in
 * sqlite3 and the sql tool (it was low). MySQL escapes as PostgreSQL. */
static bool has_escape_string(const char *sql, size_t len)
{
	if (memchr(sql, '\\', len) == NULL)
		return false;
	for (size_t i = 0; i + 1 < len; i++)
		if ((sql[i] == 'E' || sql[i] == 'e') && sql[i + 1] == '\'' &&
		    (i == 0 || !ident_char(sql[i - 1])))
			return true;
	return false;
}

/* A [ ... ] holding a quote: SQLite's name in brackets ends at the first
 * ], where PostgreSQL's subscript goes on to the string's end: `SELECT
 * a['] FROM t; DROP TABLE t; --'] FROM t` is one SELECT to the grammar and
 * drops t in SQLite (it was low). */
static bool has_bracket_quote(const char *sql, size_t len)
{
	const char *open = memchr(sql, '[', len), *close;

	while (open != NULL) {
		size_t rest = len - (size_t)(open - sql);
		close = memchr(open, ']', rest);
		if (close == NULL)
			return false;
		if (memchr(open, '\'', (size_t)(close - open)) || memchr(open, '"', (size_t)(close - open)))
			return true;
		open = memchr(close, '[', len - (size_t)(close - sql));
	}
	return false;
}

/* Whether the MySQL reading differs from PostgreSQL's for this text. */
static bool mysql_differs(const struct cctx *x, const char *sql, size_t len)
{
	return x->sql_dialect != SQL_PG &&
	       (mysql_quoting(sql, len) || (x->sql_dialect == SQL_MYSQL && mysql_dashes(sql, len)));
}

bool sql_reads_otherwise(const struct cctx *x, const char *sql, size_t len)
{
	return mysql_differs(x, sql, len) ||
	       (x->sql_dialect != SQL_PG && (has_dollar_quote(sql, len) || has_nested_comment(sql, len) ||
	                                     has_escape_string(sql, len) ||
	                                     has_bracket_quote(sql, len)));
}

/* Skips a comment at s[i] if there is one; returns i when not. The MySQL
 * reading (mysql) also has # comments, and -- only before a blank. */
static size_t skip_comment(const char *s, size_t n, size_t i, bool mysql)
{
	if ((s[i] == '-' && i + 1 < n && s[i + 1] == '-' && (!mysql || mysql_dash_comment(s, n, i))) ||
	    (mysql && s[i] == '#')) {
		const char *nl = memchr(s + i, '\n', n - i);
		return nl ? (size_t)(nl - s) : n;
	}
	if (s[i] == '/' && i + 1 < n && s[i + 1] == '*' && !(i + 2 < n && s[i + 2] == '!')) {
		const char *e = memmem(s + i + 2, n - i - 2, "*/", 2);
		return e ? (size_t)(e - s) + 2 : n;
	}
	return i;
}

static bool has(const struct stmt *st, const char *kw, size_t from, size_t *at)
{
	for (size_t i = from; i < st->nkw; i++)
		if (!st->kw[i].quoted && strcmp(st->kw[i].s, kw) == 0) {
			if (at)
				*at = i;
			return true;
		}
	return false;
}

static const char *const read_first[] = {
	"SELECT", "EXPLAIN", "SHOW", "DESCRIBE", "DESC", "VALUES", "BEGIN", "COMMIT", "ROLLBACK",
	"START", "END", "SET", "USE", "SAVEPOINT", "RELEASE", "DETACH", "ANALYZE", "WITH",
	"TABLE", "CHECKPOINT", "LISTEN", "HELP", "HANDLER", "LOCK", "UNLOCK", "FLUSH", "PRAGMA",
	"VACUUM", "REINDEX", "OPTIMIZE", "CHECK", "CHECKSUM", "REPAIR", "CACHE", "KILL", "DO",
	"CALL", "EXECUTE", "PREPARE", "DEALLOCATE", "RESET", "DISCARD", "INSERT", "REPLACE",
	"UPSERT", "MERGE", "UPDATE", "DELETE", "DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT",
	"REVOKE", "COPY", "ATTACH", "LOAD", "RENAME", "COMMENT", "SOURCE",
};

struct fctx {
	struct cctx *x;
	struct span sp;
	bool extra; /* a reading beside the grammar's (RD_EXTRA) */
};

static void f_add(struct fctx *f, enum tier t, const char *rule, const char *why)
{
	cls_add(f->x, t, rule, f->sp, "%s (read by keywords, %s)", why,
	        f->extra ? "as MySQL or SQLite quote it" : "PostgreSQL's grammar rejects it");
}

/* A keyword counts unless a neighbour makes it part of another clause:
 * ON DELETE, FOR UPDATE, ON UPDATE, and ON CONFLICT ... DO UPDATE (a
 * MySQL event's DO DELETE is the statement it runs). */
static bool stmt_kw(const struct stmt *st, const char *kw, size_t *at)
{
	size_t conflict = st->nkw;

	has(st, "CONFLICT", 0, &conflict);
	for (size_t i = 0; i < st->nkw; i++) {
		const char *prev = i ? st->kw[i - 1].s : "";
		if (st->kw[i].quoted || strcmp(st->kw[i].s, kw) != 0)
			continue;
		if (strcmp(prev, "ON") == 0 || strcmp(prev, "FOR") == 0 ||
		    (strcmp(prev, "DO") == 0 && conflict < i))
			continue;
		*at = i;
		return true;
	}
	return false;
}

/* Whether the WHERE at keyword w holds for every row as far as its
 * words tell: it, or one of its OR arms, names no column up to its end
 * (ORDER, LIMIT, RETURNING). WHERE 1=1, WHERE true, id = 1 OR 1 are every
 * row (or, false, none), as the grammar's reading says; `UPDATE t SET a
 * = 1 WHERE 1=1 LIMIT 5` was a scoped UPDATE. */
static bool where_every_row(const struct stmt *st, size_t w)
{
	static const char *const consts[] = {"TRUE", "FALSE", "NOT", "AND", "XOR", "IS", "NULL"};
	bool arm_const = true;

	for (size_t i = w + 1; i < st->nkw; i++) {
		const struct kw *k = &st->kw[i];
		bool c = false;
		if (!k->quoted && (strcmp(k->s, "ORDER") == 0 || strcmp(k->s, "LIMIT") == 0 ||
		                   strcmp(k->s, "RETURNING") == 0))
			break;
		if (!k->quoted && strcmp(k->s, "OR") == 0) {
			if (arm_const)
				return true;
			arm_const = true;
			continue;
		}
		for (size_t j = 0; j < nitems(consts) && !k->quoted && !k->call; j++)
			c |= strcmp(k->s, consts[j]) == 0;
		arm_const &= c;
	}
	return arm_const;
}

static void judge_dml(struct fctx *f, const struct stmt *st)
{
	size_t at, w;

	if (stmt_kw(st, "DELETE", &at)) {
		f_add(f, TIER_HIGH, "sql.delete", "DELETE removes rows");
		if (!has(st, "WHERE", at, &w))
			f_add(f, TIER_HIGH, "sql.delete.no_where", "DELETE without WHERE empties the table");
		else if (where_every_row(st, w))
			f_add(f, TIER_HIGH, "sql.delete.no_where",
			      "DELETE whose WHERE reads no column empties the table");
	}
	if (stmt_kw(st, "UPDATE", &at)) {
		if (!has(st, "WHERE", at, &w))
			f_add(f, TIER_HIGH, "sql.update.no_where", "UPDATE without WHERE changes every row");
		else if (where_every_row(st, w))
			f_add(f, TIER_HIGH, "sql.update.no_where",
			      "UPDATE whose WHERE reads no column changes every row");
		else
			f_add(f, TIER_MEDIUM, "sql.update", "UPDATE changes rows");
	}
	if (has(st, "INSERT", 0, NULL) || has(st, "REPLACE", 0, &at) || has(st, "UPSERT", 0, NULL) ||
	    has(st, "MERGE", 0, NULL))
		if (strcmp(st->kw[0].s, "SELECT") != 0 || !has(st, "REPLACE", 0, NULL))
			f_add(f, TIER_MEDIUM, "sql.insert", "INSERT or REPLACE adds rows");
	if (has(st, "TRUNCATE", 0, NULL) && strcmp(st->kw[0].s, "PRAGMA") != 0) /* wal_checkpoint */
		f_add(f, TIER_HIGH, "sql.truncate", "TRUNCATE removes every row");
}

static void judge_ddl(struct fctx *f, const struct stmt *st)
{
	size_t at;
	const char *k0 = st->kw[0].s;

	if (has(st, "DROP", 0, &at)) {
		const char *next = at + 1 < st->nkw ? st->kw[at + 1].s : "";
		if (strcmp(next, "DATABASE") == 0 || strcmp(next, "KEYSPACE") == 0) /* CQL */
			f_add(f, TIER_CRITICAL, "sql.drop.database", "DROP DATABASE destroys a whole database");
		else if (strcmp(next, "SCHEMA") == 0 && has(st, "CASCADE", at, NULL))
			f_add(f, TIER_CRITICAL, "sql.drop.cascade", "DROP SCHEMA ... CASCADE drops everything in it");
		else if ((strcmp(next, "TYPE") == 0 || strcmp(next, "DOMAIN") == 0 ||
		          strcmp(next, "EXTENSION") == 0) && has(st, "CASCADE", at, NULL))
			f_add(f, TIER_CRITICAL, "sql.drop.cascade", "DROP TYPE, DOMAIN or EXTENSION ... "
			                                            "CASCADE drops every column of it, in "
			                                            "every table");
		else if (strcmp(next, "SCHEMA") == 0)
			f_add(f, TIER_CRITICAL, "sql.drop.database",
			      "DROP SCHEMA is MySQL's DROP DATABASE: it destroys a whole database");
		else if (strcmp(k0, "ALTER") == 0)
			f_add(f, TIER_HIGH, "sql.alter.drop", "ALTER ... DROP destroys a column or constraint");
		else if (strcmp(k0, "CREATE") != 0 || strcmp(next, "TABLE") == 0)
			f_add(f, TIER_HIGH, "sql.drop", "DROP destroys a database object and its data");
	}
	if (strcmp(k0, "ALTER") == 0 || strcmp(k0, "RENAME") == 0)
		f_add(f, TIER_MEDIUM, "sql.alter", "ALTER changes the schema");
	if (strcmp(k0, "CREATE") == 0)
		f_add(f, TIER_MEDIUM, "sql.create", "CREATE adds a database object");
	if (strcmp(k0, "GRANT") == 0 || strcmp(k0, "REVOKE") == 0)
		f_add(f, TIER_HIGH, "sql.grant", "GRANT or REVOKE changes who may do what");
	if (strcmp(k0, "ATTACH") == 0)
		f_add(f, TIER_HIGH, "sql.attach", "ATTACH opens another database file");
	if (has(st, "PROGRAM", 0, NULL) && strcmp(k0, "COPY") == 0)
		f_add(f, TIER_HIGH, "sql.copy.program", "COPY ... PROGRAM runs a shell command on the server");
	if (has(st, "OUTFILE", 0, NULL) || has(st, "DUMPFILE", 0, NULL) || has(st, "INFILE", 0, NULL) ||
	    has(st, "LOAD_FILE", 0, NULL) || has(st, "READFILE", 0, NULL) ||
	    has(st, "WRITEFILE", 0, NULL) || has(st, "FSDIR", 0, NULL) ||
	    (strcmp(k0, "VACUUM") == 0 && has(st, "INTO", 0, NULL)))
		f_add(f, TIER_HIGH, "sql.server_file", "reads or writes a file on the server");
	if (has(st, "LOAD_EXTENSION", 0, NULL) || strcmp(k0, "DO") == 0 || has(st, "SONAME", 0, NULL))
		f_add(f, TIER_HIGH, "sql.exec", "runs procedural or native code");
	if ((strcmp(k0, "SET") == 0 && (has(st, "GLOBAL", 0, NULL) || has(st, "PERSIST", 0, NULL) ||
	                               has(st, "PERSIST_ONLY", 0, NULL))) ||
	    strcmp(k0, "KILL") == 0)
		f_add(f, TIER_HIGH, "sql.admin", "changes the server's global settings (a log file "
		                                 "setting writes files) or kills sessions");
	/* SET ROLE r, SET SESSION AUTHORIZATION r: what follows runs with
	 * r's privileges (it was low); NONE and DEFAULT go back */
	if (strcmp(k0, "SET") == 0 && st->nkw > 1 &&
	    (strcmp(st->kw[1].s, "ROLE") == 0 ||
	     (st->nkw > 2 && strcmp(st->kw[1].s, "SESSION") == 0 &&
	      strcmp(st->kw[2].s, "AUTHORIZATION") == 0)) &&
	    strcmp(st->kw[st->nkw - 1].s, "NONE") != 0 && strcmp(st->kw[st->nkw - 1].s, "DEFAULT") != 0)
		f_add(f, TIER_HIGH, "sql.admin", "SET ROLE or SESSION AUTHORIZATION acts with another "
		                                 "role's privileges");
	for (size_t i = 1; strcmp(k0, "SET") == 0 && i < st->nkw; i++) {
		const char *why = sql_unsafe_setting(st->kw[i].s, strlen(st->kw[i].s));
		if (why)
			f_add(f, TIER_HIGH, "sql.admin", why);
	}
	/* MySQL's ALTER TABLE that throws the rows away: ENGINE=BLACKHOLE
	 * stores nothing, DISCARD TABLESPACE deletes the table's .ibd file
	 * (they were sql.alter, medium) */
	if (strcmp(k0, "ALTER") == 0 &&
	    (has(st, "BLACKHOLE", 0, NULL) ||
	     (has(st, "DISCARD", 0, &at) && at + 1 < st->nkw &&
	      strcmp(st->kw[at + 1].s, "TABLESPACE") == 0)))
		f_add(f, TIER_HIGH, "sql.alter.drop", "ALTER ... ENGINE=BLACKHOLE or DISCARD "
		                                      "TABLESPACE destroys the table's rows");
	if (strcmp(k0, "FLUSH") == 0)
		f_add(f, TIER_MEDIUM, "sql.other", "FLUSH reloads or locks server state");
	if (strcmp(k0, "PRAGMA") == 0 && st->eq)
		f_add(f, TIER_MEDIUM, "sql.other", "PRAGMA ... = changes database settings");
	if (strcmp(k0, "EXECUTE") == 0 || strcmp(k0, "SOURCE") == 0)
		f_add(f, TIER_MEDIUM, "sql.other", "runs SQL airlock cannot see");
	if (strcmp(k0, "CALL") == 0) /* as the grammar's CALL: it was medium */
		f_add(f, TIER_HIGH, "sql.call", "CALL runs a procedure whose body is not in the text");
	/* MySQL's LOCK TABLES (READ stops others' writes, WRITE their reads
	 * too) and LOCK INSTANCE FOR BACKUP: held until UNLOCK or the session
	 * ends (it was low) */
	if (strcmp(k0, "LOCK") == 0)
		f_add(f, TIER_HIGH, "sql.lock", "LOCK holds tables until they are unlocked: other "
		                                "sessions' writes (or reads) wait");
	if (strcmp(k0, "VACUUM") == 0 || strcmp(k0, "REINDEX") == 0 ||
	    strcmp(k0, "OPTIMIZE") == 0 || strcmp(k0, "REPAIR") == 0)
		f_add(f, TIER_MEDIUM, "sql.other", "rebuilds tables or indexes and can lock tables "
		                                   "other sessions use");
}

/* Words that stand before '(' in SQL without being a call: operators,
 * clauses and type names (sorted). */
static const char *const not_calls[] = {
	"AGAINST", "ALL", "AND", "ANY", "AS", "BIGINT", "BINARY", "BIT", "BLOB", "BY", "CASE",
	"CHARACTER", "CHECK", "CONSTRAINT", "DATE", "DATETIME", "DEC", "DECIMAL", "DEFAULT", "DISTINCT",
	"DOUBLE", "ELSE", "ENUM", "EXCEPT", "EXISTS", "FILTER", "FLOAT", "FOREIGN", "FROM", "GROUP",
	"HAVING", "IF", "IN", "INDEX", "INT", "INTEGER", "INTERSECT", "INTERVAL", "INTO", "JOIN", "KEY",
	"LATERAL", "LIMIT", "MATCH", "MEDIUMINT", "NCHAR", "NOT", "NUMERIC", "NVARCHAR", "OFFSET", "ON",
	"OR", "ORDER", "OVER", "PARTITION", "POINT", "PRIMARY", "REAL", "RECURSIVE", "REFERENCES", "ROW",
	"SELECT", "SET", "SIGNED", "SMALLINT", "SOME", "TABLE", "TEXT", "THEN", "TIME", "TIMESTAMP",
	"TINYINT", "TUPLE", "UNION", "UNIQUE", "UNSIGNED", "USING", "VALUE", "VALUES", "VARBINARY",
	"VARCHAR", "WHEN", "WHERE", "WITH", "WITHIN", "YEAR",
};

static int word_cmp(const void *a, const void *b)
{
	return strcmp(a, *(const char *const *)b);
}

/* Whether keyword i of a statement that reads (SELECT, VALUES, MySQL's DO
 * expr) is a call of a function sql_fn_find does not know: `SELECT
 * purge_all() LIMIT 1, 2` runs purge_all's body as the grammar's reading
 * says (sql.call), and so does `purge_all`() in backquotes. Elsewhere a word before '(' may be a table or a
 * column list (INSERT INTO t (a)), which only the grammar tells apart. */
static bool unknown_call(const struct stmt *st, size_t i)
{
	const char *k0 = st->kw[0].s, *prev = i ? st->kw[i - 1].s : "";

	if (strcmp(k0, "SELECT") != 0 && strcmp(k0, "VALUES") != 0 && strcmp(k0, "DO") != 0 &&
	    strcmp(k0, "WITH") != 0)
		return false;
	return strcmp(prev, "WITH") != 0 && strcmp(prev, "RECURSIVE") != 0 &&
	       !bsearch(st->kw[i].s, not_calls, nitems(not_calls), sizeof(not_calls[0]), word_cmp);
}

/* Calls of the functions the grammar's walk judges (sql.c's table): text
 * the grammar rejects still runs where it is read statement by statement
 * (a psql script goes on after an error), so `SELECT ^; SELECT
 * pg_read_file(...)` reads the file. A function that runs SQL text
 * (query_to_xml) has it in a string, which this reading skips. */
static void judge_calls(struct fctx *f, const struct stmt *st)
{
	for (size_t i = 0; i < st->nkw; i++) { /* FROM mysql.user, pg_shadow */
		const char *schema = i + 1 < st->nkw && st->kw[i + 1].dotted ? st->kw[i].s : NULL;
		const char *rel = schema ? st->kw[i + 1].s : st->kw[i].s;
		if (sql_credential_table(schema, schema ? strlen(schema) : 0, rel, strlen(rel))) {
			f_add(f, TIER_HIGH, "secrets.read", "reads stored password hashes or credentials");
			break;
		}
		i += schema != NULL;
	}
	for (size_t i = 0; i < st->nkw; i++) {
		const struct sql_fn *fn;
		size_t n = strlen(st->kw[i].s);
		if (!st->kw[i].call)
			continue;
		if ((fn = sql_fn_find(st->kw[i].s, n)) != NULL &&
		    (strcmp(fn->rule, "sql.call") != 0 || unknown_call(st, i)))
			f_add(f, fn->tier, fn->rule, fn->why);
		else if (sql_fn_runs_sql(st->kw[i].s, n))
			f_add(f, TIER_HIGH, "sql.exec", "runs SQL text that is not read here");
	}
}

/* MySQL statements that change accounts or replication, by their first
 * two keywords (CREATE OR REPLACE USER as CREATE USER). */
static void judge_admin(struct fctx *f, const struct stmt *st)
{
	static const char *const admin[][2] = {
		{"CREATE", "USER"},   {"ALTER", "USER"},    {"RENAME", "USER"},
		{"DROP", "USER"},     {"CREATE", "ROLE"},   {"DROP", "ROLE"},
		{"SET", "PASSWORD"},  {"RESET", "MASTER"},  {"RESET", "SLAVE"},
		{"RESET", "REPLICA"}, {"RESET", "BINARY"},  {"START", "SLAVE"},
		{"START", "REPLICA"}, {"START", "GROUP_REPLICATION"},
		{"SET", "DEFAULT"}, /* SET DEFAULT ROLE r TO u: u's roles at login */
		{"RESET", "PERSIST"}, /* drops settings persisted in mysqld-auto.cnf */
	};
	const char *k1 = st->nkw > 1 ? st->kw[1].s : "";

	if (strcmp(k1, "OR") == 0 && st->nkw > 3)
		k1 = st->kw[3].s;
	for (size_t i = 0; i < nitems(admin); i++)
		if (strcmp(st->kw[0].s, admin[i][0]) == 0 && strcmp(k1, admin[i][1]) == 0)
			f_add(f, TIER_HIGH, "sql.admin", "changes database accounts, their passwords or "
			                                 "replication (RESET MASTER deletes the binary logs)");
}

/* The end of the quoted string at sql[i] and its text with quotes and
 * backslash escapes undone (MySQL's reading), or 0 when sql[i] starts no
 * string. */
static size_t string_text(struct cctx *x, const char *sql, size_t i, size_t end, char **text)
{
	size_t close = skip_quote(sql, end, i, true), n = 0;
	char *t;

	if ((sql[i] != '\'' && sql[i] != '"') || close > end || close < i + 2 || sql[close - 1] != sql[i])
		return 0;
	t = arena_alloc(x->a, close - i);
	for (size_t k = i + 1; k + 1 < close; k++) {
		if (sql[k] == '\\' || (sql[k] == sql[i] && sql[k + 1] == sql[i]))
			k++;
		t[n++] = sql[k];
	}
	t[n] = '\0';
	*text = t;
	return close;
}

/* Skips blanks and one word (or `quoted` name) at sql[i]. */
static size_t skip_word(const char *sql, size_t i, size_t end)
{
	while (i < end && isspace((unsigned char)sql[i]))
		i++;
	if (i < end && sql[i] == '`')
		return skip_quote(sql, end, i, false);
	while (i < end && (isalnum((unsigned char)sql[i]) || sql[i] == '_' || sql[i] == '$'))
		i++;
	return i;
}

/* MySQL PREPARE NAME FROM '...' and MariaDB EXECUTE IMMEDIATE '...': the
 * string is SQL the server runs, read as SQL. Anything else there (@var,
 * CONCAT(...), strings pasted together, a comment) is SQL built at run
 * time, which cannot be read. */
static void judge_dynamic(struct fctx *f, const struct stmt *st, const char *sql)
{
	size_t from = 0;
	bool prep = strcmp(st->kw[0].s, "PREPARE") == 0 && has(st, "FROM", 1, &from) && from <= 2;
	bool imm = strcmp(st->kw[0].s, "EXECUTE") == 0 && st->nkw > 1 &&
	           strcmp(st->kw[1].s, "IMMEDIATE") == 0;
	size_t i = skip_word(sql, st->off, st->end), close;
	char *text = NULL;

	if (!prep && !imm)
		return;
	i = skip_word(sql, i, st->end);
	if (prep)
		i = skip_word(sql, i, st->end);
	while (i < st->end && isspace((unsigned char)sql[i]))
		i++;
	close = i < st->end ? string_text(f->x, sql, i, st->end, &text) : 0;
	while (close && close < st->end && isspace((unsigned char)sql[close]))
		close++;
	if (close && (close == st->end || (imm && strncasecmp(sql + close, "USING", 5) == 0)))
		sql_classify_inner(f->x, text, strlen(text), f->sp);
	else
		f_add(f, TIER_HIGH, "sql.exec", "runs SQL built at run time");
}

/* SQLite's settings that switch off what keeps the data consistent, with
 * the value that does: foreign_keys and ignore_check_constraints as
 * MySQL's foreign_key_checks (sql.admin), writable_schema, which lets
 * later statements rewrite sqlite_schema's text, so a table vanishes or
 * the file no longer opens, and schema_version. They were medium, as
 * PRAGMA journal_mode. */
static const struct {
	const char *name;
	bool on; /* on (1, yes, true) is unsafe; else off */
	const char *why;
} pragmas[] = {
	{"FOREIGN_KEYS", false, "PRAGMA foreign_keys = OFF turns off SQLite's foreign-key checks"},
	{"IGNORE_CHECK_CONSTRAINTS", true, "PRAGMA ignore_check_constraints turns off CHECK "
	                                   "constraints"},
	{"SCHEMA_VERSION", true, "PRAGMA schema_version = N makes connections misread the "
	                         "schema: SQLite documents it as corrupting the database"},
	{"WRITABLE_SCHEMA", true, "PRAGMA writable_schema lets statements rewrite the schema "
	                          "table: a table can vanish or the file stop opening"},
};

/* PRAGMA [schema.]NAME = VALUE or (VALUE): whether VALUE reads as on. */
static bool pragma_on(const char *sql, const struct stmt *st)
{
	static const char *const on[] = {"1", "on", "yes", "true"};
	const char *p = memchr(sql + st->off, '=', st->end - st->off);
	size_t n;

	if (p == NULL)
		p = memchr(sql + st->off, '(', st->end - st->off);
	if (p == NULL)
		return false;
	for (p++; p < sql + st->end && strchr(" \t\r\n'\"", *p); p++)
		;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
	if (p + n > sql + st->end)
		n = (size_t)(sql + st->end - p);
	for (size_t i = 0; i < nitems(on); i++)
		if (strlen(on[i]) == n && strncasecmp(p, on[i], n) == 0)
			return true;
	return n > 0 && strspn(p, "0123456789") == n && strspn(p, "0") < n; /* 2, 10 */
}

static void judge_pragma(struct fctx *f, const struct stmt *st, const char *sql)
{
	const char *name;

	if (strcmp(st->kw[0].s, "PRAGMA") != 0 || st->nkw < 2)
		return;
	name = st->kw[st->nkw > 2 && st->kw[2].dotted ? 2 : 1].s; /* main.foreign_keys */
	for (size_t i = 0; i < nitems(pragmas); i++)
		if (strcmp(name, pragmas[i].name) == 0 && (st->eq || st->kw[1].call || st->nkw > 2) &&
		    pragma_on(sql, st) == pragmas[i].on)
			f_add(f, TIER_HIGH, "sql.admin", pragmas[i].why);
}

/* SQLite's schema table written as a table (with writable_schema on):
 * rewriting a row's sql changes or removes a table outside any ALTER or
 * DROP; it was a scoped UPDATE (medium). */
static void judge_schema_table(struct fctx *f, const struct stmt *st)
{
	static const char *const schema[] = {"SQLITE_MASTER", "SQLITE_SCHEMA",
	                                     "SQLITE_TEMP_MASTER", "SQLITE_TEMP_SCHEMA"};
	const char *k0 = st->kw[0].s;

	if (strcmp(k0, "UPDATE") != 0 && strcmp(k0, "DELETE") != 0 && strcmp(k0, "INSERT") != 0 &&
	    strcmp(k0, "REPLACE") != 0)
		return;
	for (size_t i = 1; i < st->nkw && i < 6; i++)
		for (size_t k = 0; k < nitems(schema); k++)
			if (strcmp(st->kw[i].s, schema[k]) == 0) {
				f_add(f, TIER_HIGH, "sql.drop", "writes SQLite's schema table itself: "
				                                "a table can vanish or the file stop "
				                                "opening");
				return;
			}
}

/* How a pass reads the text. */
enum {
	RD_MYSQL = 1,  /* backslash escapes, # comments, -- only before a blank */
	RD_DOLLAR = 2, /* $$ and $tag$ quotes, PostgreSQL's */
	RD_EXTRA = 4,  /* one more reading of text already read: it only adds
	                * findings, and a statement it cannot place is no
	                * sql.unparsed */
	RD_RECORD = 8, /* lists the statements */
};

static void judge(struct cctx *x, const struct stmt *st, const char *sql, bool exact,
                  size_t base, struct span sp, unsigned how)
{
	struct fctx f = {x, exact ? cls_span(x, base + st->off, st->end - st->off) : sp,
	                 (how & RD_EXTRA) != 0};
	bool known = false;

	if ((how & RD_RECORD) && st->end > st->off)
		strv_push_owned(&x->v->statements, xstrndup(sql + st->off, st->end - st->off));
	if (st->nkw == 0)
		return;
	for (size_t i = 0; i < nitems(read_first); i++)
		known |= strcmp(st->kw[0].s, read_first[i]) == 0;
	if (!known && !(how & RD_EXTRA)) {
		cls_add(x, TIER_HIGH, "sql.unparsed", f.sp,
		        "cannot read this SQL with certainty: it starts with %s", st->kw[0].s);
		return;
	}
	judge_dml(&f, st);
	judge_ddl(&f, st);
	judge_pragma(&f, st, sql);
	judge_schema_table(&f, st);
	judge_admin(&f, st);
	judge_dynamic(&f, st, sql);
	judge_calls(&f, st);
}

static void stmt_reset(struct stmt *st, size_t off)
{
	st->kw = st->first;
	st->nkw = 0;
	st->cap = KW_MAX;
	st->off = off;
	st->end = 0;
	st->eq = false;
}

/* The next keyword's slot. The list grows (in the call's arena) rather
 * than drop keywords: a DROP or LOAD_FILE past the 64th word of a long
 * statement was not read (`ALTER TABLE t ADD a INT, ... DROP c`). */
static struct kw *stmt_push(struct cctx *x, struct stmt *st)
{
	if (st->nkw == st->cap) {
		struct kw *more = arena_alloc(x->a, 2 * st->cap * sizeof(*more));
		memcpy(more, st->kw, st->nkw * sizeof(*more));
		st->kw = more;
		st->cap *= 2;
	}
	st->kw[st->nkw].call = false;
	return &st->kw[st->nkw++];
}

static void trim(const char *s, struct stmt *st)
{
	while (st->off < st->end && isspace((unsigned char)s[st->off]))
		st->off++;
	while (st->end > st->off && isspace((unsigned char)s[st->end - 1]))
		st->end--;
}

/* The word s[from, to), upper-cased: a keyword, or a name in backquotes or
 * brackets (quoted, the quotes dropped), with what stands around it. */
static void kw_add(struct cctx *x, struct stmt *st, const char *s, size_t n, size_t from,
                   size_t to)
{
	struct kw *k = stmt_push(x, st);
	bool q = s[from] == '`' || s[from] == '[';
	char close = s[from] == '[' ? ']' : '`';
	size_t l = 0, j = to, end = q && to > from + 1 && s[to - 1] == close ? to - 1 : to;

	k->quoted = q;
	k->dotted = from > 0 && s[from - 1] == '.';
	for (size_t i = from + q; i < end; i++)
		if (l + 1 < sizeof(k->s))
			k->s[l++] = (char)toupper((unsigned char)s[i]);
	k->s[l] = '\0';
	while (j < n && isspace((unsigned char)s[j]))
		j++;
	k->call = j < n && s[j] == '(';
}

static void pass(struct cctx *x, const char *s, size_t n, bool exact, size_t base,
                 struct span sp, unsigned how)
{
	bool mysql = how & RD_MYSQL;
	struct stmt st;
	size_t i = 0, tl;

	stmt_reset(&st, 0);
	while (i <= n) {
		size_t j;
		if (i == n || s[i] == ';') {
			st.end = i;
			trim(s, &st);
			judge(x, &st, s, exact, base, sp, how);
			stmt_reset(&st, ++i);
			continue;
		}
		if ((j = skip_comment(s, n, i, mysql)) != i) {
			i = j;
		} else if (s[i] == '`' || s[i] == '[') { /* FROM `mysql`.`user` */
			j = skip_quote(s, n, i, mysql);
			kw_add(x, &st, s, n, i, j);
			i = j;
		} else if (s[i] == '\'' || s[i] == '"') {
			i = skip_quote(s, n, i, mysql);
		} else if ((how & RD_DOLLAR) && (tl = dollar_tag(s, n, i)) != 0) {
			const char *close = memmem(s + i + tl, n - i - tl, s + i, tl);
			i = close ? (size_t)(close - s) + tl : n; /* unclosed: PostgreSQL rejects it */
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
			for (j = i; j < n && ident_char(s[j]); j++)
				;
			kw_add(x, &st, s, n, i, j);
			i = j;
		} else {
			st.eq |= s[i] == '=';
			i++;
		}
	}
}

void sql_fallback(struct cctx *x, const char *sql, size_t len, bool exact, size_t base,
                  struct span sp, bool record)
{
	pass(x, sql, len, exact, base, sp, RD_DOLLAR | (record ? RD_RECORD : 0));
	if (mysql_quoting(sql, len) || (x->sql_dialect == SQL_MYSQL && mysql_dashes(sql, len)))
		pass(x, sql, len, exact, base, sp, RD_MYSQL);
	if (x->sql_dialect != SQL_PG && has_dollar_quote(sql, len))
		pass(x, sql, len, exact, base, sp, RD_EXTRA);
}

void sql_fallback_otherwise(struct cctx *x, const char *sql, size_t len, bool exact,
                            size_t base, struct span sp)
{
	if (mysql_differs(x, sql, len))
		pass(x, sql, len, exact, base, sp, RD_MYSQL | RD_EXTRA);
	if (x->sql_dialect != SQL_PG && (has_dollar_quote(sql, len) || has_nested_comment(sql, len) ||
	                                 has_escape_string(sql, len) || has_bracket_quote(sql, len)))
		pass(x, sql, len, exact, base, sp, RD_EXTRA);
}

/* What an SQL client's own command does with its argument. */
enum meta_act {
	M_SHELL,  /* runs the rest of the line through the shell */
	M_OUT,    /* sends output to FILE, or to |CMD */
	M_LAST,   /* writes the last argument (.backup ?DB? FILE) */
	M_READ,   /* runs SQL from FILE, or from the output of |CMD */
	M_IMPORT, /* adds rows from FILE, or from |CMD */
	M_LOIMPORT, /* psql \lo_import FILE: stores a file of this machine */
	M_LOAD,   /* loads native code */
	M_HOOK,   /* opens the output in another program */
	M_ENV,    /* sets NAME VALUE; a pager or editor VALUE is a command */
	M_COPY,   /* psql \copy: a file on this machine, or PROGRAM 'CMD' */
	M_GEXEC,  /* psql \gexec: runs each value the query returns as SQL */
	M_TEXT,   /* psql commands whose arguments are text (\set, \echo) */
	M_CD,     /* .cd DIR, \cd [DIR]: later relative files are in DIR */
	M_RESTORE, /* .restore ?DB? FILE: the database's content replaced by FILE's */
	M_ARCHIVE, /* .archive|.ar: -x writes files into -C DIR, -c|-u|-i reads them */
	M_DBCONFIG, /* .dbconfig OPTION on|off: sqlite3_db_config flags (dbconfigs) */
	M_NONE,   /* any other sqlite3 dot-command: not SQL, nothing to judge */
	M_LIST,   /* psql's listings (psql_lists), found by meta_psql_list only */
};

/* sqlite3 dot-commands and mysql's commands start a line; psql's
 * backslash commands (and mysql's) may follow SQL on it (SELECT 1 \g |CMD). */
static const struct {
	const char *name;
	enum meta_act act;
} metas[] = {
	{".shell", M_SHELL}, {".system", M_SHELL}, {".output", M_OUT}, {".once", M_OUT},
	{".load", M_LOAD}, {".log", M_OUT}, {".trace", M_OUT}, {".open", M_OUT}, {".clone", M_OUT},
	{".backup", M_LAST}, {".save", M_LAST}, {".read", M_READ}, {".import", M_IMPORT},
	{".excel", M_HOOK}, {".www", M_HOOK}, {".cd", M_CD}, {"\\cd", M_CD},
	{".restore", M_RESTORE}, {".iotrace", M_OUT}, {".archive", M_ARCHIVE}, {".ar", M_ARCHIVE},
	{"\\!", M_SHELL}, {"\\o", M_OUT}, {"\\out", M_OUT}, {"\\g", M_OUT}, {"\\gx", M_OUT},
	{"\\w", M_OUT}, {"\\write", M_OUT}, {"\\i", M_READ}, {"\\include", M_READ},
	{"\\ir", M_READ}, {"\\include_relative", M_READ}, {"\\setenv", M_ENV},
	{"\\P", M_SHELL}, {"\\T", M_OUT}, {"\\.", M_READ},
	{"\\lo_export", M_LAST}, {"\\lo_import", M_LOIMPORT},
	{"\\copy", M_COPY}, {"\\gexec", M_GEXEC}, {"\\set", M_TEXT}, {"\\echo", M_TEXT},
	{"\\qecho", M_TEXT}, {"\\warn", M_TEXT}, {"\\if", M_TEXT}, {"\\elif", M_TEXT},
	{"\\prompt", M_TEXT}, {"\\else", M_TEXT}, {"\\endif", M_TEXT}, {"\\unset", M_TEXT},
	{"system", M_SHELL}, {"pager", M_SHELL}, {"tee", M_OUT}, {"source", M_READ},
	{"\\d", M_LIST}, /* and psql's other listings: psql_lists */
	{".dbconfig", M_DBCONFIG},
	{".", M_NONE}, /* last: .tables, .schema, ... */
};

/* sqlite3's .dbconfig flags that wipe the database or switch off its
 * checks, with the value that does. `.dbconfig reset_database on` and
 * VACUUM empty the whole file (it was medium, the VACUUM's), as DROP
 * DATABASE does; writable_schema and enable_fkey as their PRAGMAs. */
static const struct {
	const char *name;
	bool on; /* the unsafe value: on, or off */
	enum tier tier;
	const char *rule, *why;
} dbconfigs[] = {
	{"reset_database", true, TIER_CRITICAL, "db.wipe",
	 ".dbconfig reset_database on: the next VACUUM empties the whole database"},
	{"writable_schema", true, TIER_HIGH, "sql.admin",
	 ".dbconfig writable_schema lets statements rewrite the schema table"},
	{"enable_fkey", false, TIER_HIGH, "sql.admin",
	 ".dbconfig enable_fkey off turns off foreign-key checks"},
	{"defensive", false, TIER_HIGH, "sql.admin",
	 ".dbconfig defensive off lets statements corrupt the database file"},
};

/* psql's commands that only list or describe, or set how results are
 * shown (\dt+, \l, \x): every \d... and these, each with S or + after
 * it. Not mysql's: its \d sets the delimiter. */
static const char *const psql_lists[] = {
	"l",  "list", "x", "timing", "conninfo", "encoding", "errverbose", "q", "quit",
	"?",  "a",    "t", "H",      "pset",     "lo_list",  "sf",         "sv", "z",
	"h",  "help", "p", "print",  "r",        "reset",
};

/* Whether s[0..n) starts one of psql_lists or a \d listing; *al is set to
 * the length of its name. */
static bool meta_psql_list(const char *s, size_t n, size_t *al)
{
	size_t w = 1;

	if (n < 2) /* a backslash ending the text: no name, and nothing past it */
		return false;
	while (w < n && (isalpha((unsigned char)s[w]) || s[w] == '_' || s[w] == '?'))
		w++;
	while (w > 2 && s[w - 1] == 'S') /* \dtS, \lS: system objects too */
		w--;
	*al = w;
	while (*al < n && (s[*al] == 'S' || s[*al] == '+'))
		(*al)++;
	if (*al < n && s[*al] != ' ' && s[*al] != '\t' && s[*al] != '\\')
		return false;
	if (s[1] == 'd' && w <= 6)
		return true;
	for (size_t i = 0; i < nitems(psql_lists); i++)
		if (strlen(psql_lists[i]) == w - 1 && strncmp(s + 1, psql_lists[i], w - 1) == 0)
			return true;
	return false;
}

/* The client command at s[0..n) (n up to the end of the line), or -1; *al
 * is set to the length of its name. Words (mysql's) match in any case. */
static int meta_find(const char *s, size_t n, bool line_start, bool mysql, size_t *al)
{
	size_t w = 1;

	if (n > 1 && !isalnum((unsigned char)s[1]))
		w = 2; /* \! and \. */
	else
		while (w < n && (isalnum((unsigned char)s[w]) || s[w] == '_'))
			w++;
	if (s[0] != '\\' && s[0] != '.' && !line_start)
		return -1;
	for (size_t i = 0; i < nitems(metas); i++) {
		size_t l = strlen(metas[i].name);
		if (metas[i].act == M_LIST)
			continue;
		bool word = metas[i].name[0] != '\\' && metas[i].name[0] != '.';
		if (l == w &&
		    (word ? line_start && strncasecmp(s, metas[i].name, l) == 0
		          : strncmp(s, metas[i].name, l) == 0) &&
		    (l == n || s[l] == ' ' || s[l] == '\t' || w == 2)) {
			*al = l;
			return (int)i;
		}
	}
	/* sqlite3 takes a dot-command by a prefix (.sh and .sy are .shell and
	 * .system, .o is .output): the first row it starts, the table's order
	 * putting the command that runs or loads code first */
	for (size_t i = 0; line_start && s[0] == '.' && w >= 2 && i + 1 < nitems(metas); i++)
		if (metas[i].name[0] == '.' && strlen(metas[i].name) > w &&
		    strncmp(s, metas[i].name, w) == 0 && (w == n || s[w] == ' ' || s[w] == '\t')) {
			*al = w;
			return (int)i;
		}
	if (!mysql && s[0] == '\\' && meta_psql_list(s, n, al)) {
		for (size_t i = 0; i < nitems(metas); i++)
			if (metas[i].act == M_LIST)
				return (int)i;
	}
	if (line_start && s[0] == '.' && n > 1 && isalpha((unsigned char)s[1])) {
		*al = w;
		return (int)nitems(metas) - 1;
	}
	return -1;
}

/* Skips blanks, then options (-x, --bom) unless opts is false: the next
 * argument's start. *hook is set when -x or -e opens another program. */
static const char *meta_arg(const char *p, const char *le, bool opts, bool *hook)
{
	for (;;) {
		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		if (!opts || p >= le || *p != '-')
			return p;
		*hook |= (p[1] == 'x' || p[1] == 'e') && (p + 2 == le || p[2] == ' ');
		while (p < le && *p != ' ' && *p != '\t')
			p++;
	}
}

/* An argument the clients let be quoted ("|cmd x", 'PAGER CMD'): [*p, *le)
 * narrowed to what is inside the quotes. */
static bool meta_unquote(const char **p, const char **le)
{
	const char *close;

	if (*p < *le && (**p == '"' || **p == '\'') &&
	    (close = memchr(*p + 1, **p, (size_t)(*le - *p - 1))) != NULL) {
		*le = close;
		(*p)++;
		return true;
	}
	return false;
}

/* A command the client pipes query output into (.once |CMD, \\o |CMD, mysql's
 * pager CMD): judged as `cat | CMD`, so a shell there runs data it reads
 * from the database (exec.pipe_to_shell), not commands from a terminal. */
static void meta_output_command(struct cctx *x, const char *cmd, size_t n, struct span ds)
{
	char *t = arena_alloc(x->a, n + 7);

	memcpy(t, "cat | ", 6);
	memcpy(t + 6, cmd, n);
	t[n + 6] = '\0';
	shell_script_text(x, t, n + 6, ds);
}

void sql_client_output(struct cctx *x, const struct word *w, const char *v, struct span sp)
{
	if (v[0] == '|')
		meta_output_command(x, v + 1, strlen(v + 1), sp);
	else if (v[0] != '\0')
		paths_write(x, w, v, sp);
}

/* The file or |command argument [p, le) of an output, read or import. */
static void meta_target(struct cctx *x, enum meta_act act, const char *p, const char *le,
                        struct span ds)
{
	char abs[CLS_MAX_PATH];
	size_t pl = 0;
	char *f;

	bool quoted = meta_unquote(&p, &le);

	if (p < le && *p == '|') {
		if (act == M_OUT) /* the query's output is its input */
			meta_output_command(x, p + 1, (size_t)(le - p - 1), ds);
		else
			shell_script_text(x, arena_strndup(x->a, p + 1, (size_t)(le - p - 1)),
			                  (size_t)(le - p - 1), ds);
		return;
	}
	while (p + pl < le && (quoted || (p[pl] != ' ' && p[pl] != '\t')))
		pl++;
	f = arena_strndup(x->a, p, pl);
	if (f[0] == '\0' || strcmp(f, "stdout") == 0 || strcmp(f, "stderr") == 0 ||
	    strcmp(f, "off") == 0 || strcmp(f, "-") == 0)
		return;
	if (!paths_resolve(x, f, abs, sizeof(abs))) { /* relative to a directory known at run time */
		if (act == M_OUT || act == M_LAST)
			cls_add(x, TIER_HIGH, "fs.write.outside_workdir", ds,
			        "writes %s in a directory known only at run time", f);
		return;
	}
	if (act == M_OUT || act == M_LAST)
		paths_write_abs(x, abs, ds, abs);
	else
		paths_read_abs(x, abs, ds);
}

/* .archive (.ar) [OPTIONS] [FILE...] of the sqlite3 shell: -x|--extract
 * writes the archive's files into -C|--directory DIR (else here); -c,
 * -u, -i (--create, --update, --insert) read the FILEs into it, so a
 * secret named there is read; -f|--file ARCHIVE is a zip file instead of
 * the database, written when files are added. */
static void meta_archive(struct cctx *x, const char *p, const char *le, struct span ds)
{
	const char *dir = ".", *dend = dir + 1, *zip = NULL, *zend = NULL;
	bool extract = false, adds = false, dirnext = false, zipnext = false;

	while (p < le) {
		const char *e;
		p += strspn(p, " \t");
		e = p + strcspn(p, " \t");
		if (e > le)
			e = le;
		if (dirnext) {
			dir = p, dend = e, dirnext = false;
		} else if (zipnext) {
			zip = p, zend = e, zipnext = false;
		} else if (e - p > 12 && strncmp(p, "--directory=", 12) == 0) {
			dir = p + 12, dend = e;
		} else if (*p == '-' && p[1] == '-') {
			extract |= strncmp(p, "--extract", (size_t)(e - p)) == 0 && e - p > 3;
			adds |= (strncmp(p, "--create", 8) == 0 || strncmp(p, "--update", 8) == 0 ||
			         strncmp(p, "--insert", 8) == 0);
			dirnext |= e - p == 11 && strncmp(p, "--directory", 11) == 0;
			zipnext |= e - p == 6 && strncmp(p, "--file", 6) == 0;
		} else if (*p == '-') {
			extract |= memchr(p, 'x', (size_t)(e - p)) != NULL;
			adds |= memchr(p, 'c', (size_t)(e - p)) || memchr(p, 'u', (size_t)(e - p)) ||
			        memchr(p, 'i', (size_t)(e - p));
			dirnext |= e[-1] == 'C';
			zipnext |= e[-1] == 'f';
		} else if (adds && p < e) {
			meta_target(x, M_IMPORT, p, e, ds);
		}
		p = e;
	}
	if (extract) {
		meta_target(x, M_OUT, dir, dend, ds);
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", ds,
		        ".archive -x writes each name the archive holds: an absolute one, or "
		        "one through a link it made, anywhere");
	}
	if (zip)
		meta_target(x, adds ? M_OUT : M_IMPORT, zip, zend, ds);
}

/* psql runs the text between backquotes in a backslash command's
 * arguments as a shell command (\set x `CMD`); mysql's commands do not. */
static void meta_backquotes(struct cctx *x, int m, const char *p, const char *le, struct span ds)
{
	const char *b, *e;

	if (metas[m].name[0] != '\\' || x->sql_dialect == SQL_MYSQL)
		return;
	while ((b = memchr(p, '`', (size_t)(le - p))) != NULL) {
		if ((e = memchr(b + 1, '`', (size_t)(le - b - 1))) == NULL) {
			cls_add(x, TIER_HIGH, "parse.uncertain", ds, "%s: a backquote without its end",
			        metas[m].name);
			return;
		}
		shell_script_text(x, arena_strndup(x->a, b + 1, (size_t)(e - b - 1)),
		                  (size_t)(e - b - 1), ds);
		p = e + 1;
	}
}

/* Whether q starts the word kw (any case) that ends at a blank or le. */
static bool meta_word_is(const char *q, const char *le, const char *kw)
{
	size_t l = strlen(kw);

	return (size_t)(le - q) >= l && strncasecmp(q, kw, l) == 0 &&
	       (q + l == le || isspace((unsigned char)q[l]));
}

/* The FROM or TO of a \copy's arguments [p, le), outside quotes and
 * parentheses, or le. */
static const char *copy_direction(const char *p, const char *le)
{
	int depth = 0;

	for (const char *q = p; q < le; q++) {
		if (*q == '\'' || *q == '"')
			q += skip_quote(q, (size_t)(le - q), 0, false) - 1;
		else if (*q == '(' || *q == ')')
			depth += *q == '(' ? 1 : -1;
		else if (depth == 0 && (q == p || isspace((unsigned char)q[-1])) &&
		         (meta_word_is(q, le, "from") || meta_word_is(q, le, "to")))
			return q;
	}
	return le;
}

/* psql \copy TABLE|(QUERY) FROM|TO FILE|PROGRAM 'CMD'|STDIN|STDOUT: the
 * file is on this machine, read or written as the user; PROGRAM runs CMD
 * here. Without FROM or TO it cannot be read. */
static void meta_copy(struct cctx *x, const char *p, const char *le, struct span ds)
{
	static const char *const stdio[] = {"stdin", "stdout", "pstdin", "pstdout"};
	const char *q = copy_direction(p, le), *w, *ce = le;
	bool from, unused = false;

	if (q >= le) {
		cls_add(x, TIER_HIGH, "sql.unparsed", ds, "\\copy without FROM or TO cannot be read");
		return;
	}
	from = meta_word_is(q, le, "from");
	w = meta_arg(q + (from ? 4 : 2), le, false, &unused);
	if (meta_word_is(w, le, "program")) {
		const char *c = meta_arg(w + 7, le, false, &unused);
		cls_add(x, TIER_HIGH, "sql.copy.program", ds,
		        "\\copy ... PROGRAM runs a shell command on this machine");
		if (meta_unquote(&c, &ce))
			shell_script_text(x, arena_strndup(x->a, c, (size_t)(ce - c)), (size_t)(ce - c), ds);
		else
			cls_add(x, TIER_HIGH, "exec.dynamic_command", ds,
			        "\\copy ... PROGRAM: the command cannot be read");
		return;
	}
	if (from)
		cls_add(x, TIER_MEDIUM, "sql.insert", ds, "\\copy FROM adds rows");
	for (size_t i = 0; i < nitems(stdio); i++)
		if (meta_word_is(w, le, stdio[i]))
			return;
	meta_target(x, from ? M_READ : M_OUT, w, le, ds);
}

/* .dbconfig OPTION VALUE: VALUE on, 1, yes or true sets the flag. */
static void meta_dbconfig(struct cctx *x, const char *p, const char *le, struct span ds)
{
	static const char *const on[] = {"on", "1", "yes", "true"};
	const char *v = p;
	size_t n, vn;
	bool set = false;

	while (v < le && *v != ' ' && *v != '\t')
		v++;
	n = (size_t)(v - p);
	while (v < le && (*v == ' ' || *v == '\t'))
		v++;
	for (vn = 0; v + vn < le && v[vn] != ' ' && v[vn] != '\t'; vn++)
		;
	if (vn == 0) /* no value: it lists the flags */
		return;
	for (size_t i = 0; i < nitems(on); i++)
		set |= strlen(on[i]) == vn && strncasecmp(v, on[i], vn) == 0;
	for (size_t i = 0; i < nitems(dbconfigs); i++)
		if (strlen(dbconfigs[i].name) == n && strncmp(p, dbconfigs[i].name, n) == 0 &&
		    set == dbconfigs[i].on)
			cls_add(x, dbconfigs[i].tier, dbconfigs[i].rule, ds, "%s", dbconfigs[i].why);
}

static void meta_run(struct cctx *x, int m, const char *arg, const char *le, struct span ds)
{
	static const char *const cmd_env[] = {"PAGER", "PSQL_PAGER", "EDITOR", "PSQL_EDITOR",
	                                      "VISUAL"};
	bool hook = false;
	const char *p = meta_arg(arg, le, metas[m].act != M_SHELL && metas[m].act != M_ARCHIVE,
	                         &hook), *q;
	size_t n = (size_t)(le - p);

	meta_backquotes(x, m, arg, le, ds);
	if (hook || metas[m].act == M_HOOK)
		cls_add(x, TIER_HIGH, "exec.hook_program", ds,
		        "%s opens the output in another program", metas[m].name);
	switch (metas[m].act) {
	case M_SHELL:
		if (n && (strcasecmp(metas[m].name, "pager") == 0 || strcmp(metas[m].name, "\\P") == 0))
			meta_output_command(x, p, n, ds);
		else if (n)
			shell_script_text(x, arena_strndup(x->a, p, n), n, ds);
		break;
	case M_LAST:
		for (q = le; q > p && q[-1] != ' ' && q[-1] != '\t'; q--)
			;
		meta_target(x, M_LAST, q, le, ds);
		break;
	case M_READ:
		cls_add(x, x->o->unknown_program, "exec.script", ds,
		        "%s runs SQL from a file or command output airlock cannot see", metas[m].name);
		meta_target(x, M_READ, p, le, ds);
		break;
	case M_IMPORT:
		cls_add(x, TIER_MEDIUM, "sql.insert", ds, ".import adds rows");
		meta_target(x, M_IMPORT, p, le, ds);
		break;
	case M_LOIMPORT: /* \lo_export LOID FILE is M_LAST: it writes FILE */
		cls_add(x, TIER_MEDIUM, "sql.insert", ds, "\\lo_import stores a file in the database");
		meta_target(x, M_IMPORT, p, le, ds);
		break;
	case M_LOAD:
		cls_add(x, TIER_HIGH, "sql.exec", ds, "%s loads native code", metas[m].name);
		break;
	case M_OUT:
		meta_target(x, M_OUT, p, le, ds);
		break;
	case M_ENV:
		for (size_t i = 0; i < nitems(cmd_env); i++) {
			size_t l = strlen(cmd_env[i]);
			if ((size_t)(le - p) > l && strncmp(p, cmd_env[i], l) == 0 && p[l] == ' ') {
				const char *e = le;
				q = meta_arg(p + l, le, false, &hook);
				meta_unquote(&q, &e);
				shell_script_text(x, arena_strndup(x->a, q, (size_t)(e - q)),
				                  (size_t)(e - q), ds);
			}
		}
		break;
	case M_COPY:
		meta_copy(x, p, le, ds);
		break;
	case M_CD: {
		/* the client's own directory: relative files after it are there
		 * (home for a bare \cd); one it cannot resolve is unknown */
		char abs[CLS_MAX_PATH];
		const char *e = le;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		meta_unquote(&p, &e);
		q = arena_strndup(x->a, p, (size_t)(e - p));
		if (q[0] == '\0')
			x->cwd = x->home[0] ? x->home : NULL;
		else
			x->cwd = paths_resolve(x, q, abs, sizeof(abs)) ? arena_strndup(x->a, abs, strlen(abs))
			                                               : NULL;
		break;
	}
	case M_GEXEC:
		cls_add(x, TIER_HIGH, "sql.exec", ds,
		        "\\gexec runs each value the query returns as SQL, built at run time");
		break;
	case M_RESTORE:
		cls_add(x, TIER_HIGH, "sql.truncate", ds,
		        ".restore replaces the database's whole content with a file's");
		for (q = le; q > p && q[-1] != ' ' && q[-1] != '\t'; q--)
			;
		meta_target(x, M_IMPORT, q, le, ds);
		break;
	case M_ARCHIVE:
		meta_archive(x, p, le, ds);
		break;
	case M_DBCONFIG:
		meta_dbconfig(x, p, le, ds);
		break;
	case M_HOOK:
	case M_TEXT:
	case M_NONE:
	case M_LIST:
		break;
	}
}

/* Where the arguments of command m, starting at p, end: psql ends them at
 * an unquoted backslash, which starts the next command on the line
 * (`\echo x \! CMD` runs CMD); \! and \copy take the whole line, as
 * \o, \g and \w do after a |. Inside '...' a backslash escapes. */
static const char *meta_args_end(int m, const char *p, const char *le)
{
	const char *q = p;

	if (metas[m].name[0] != '\\' || metas[m].act == M_SHELL || metas[m].act == M_COPY)
		return le;
	while (q < le && (*q == ' ' || *q == '\t'))
		q++;
	if (metas[m].act == M_OUT && q < le &&
	    (*q == '|' || ((*q == '\'' || *q == '"') && q + 1 < le && q[1] == '|')))
		return le;
	for (; q < le; q++) {
		char c = *q;
		if (c == '\\')
			return q;
		if (c != '\'' && c != '"' && c != '`')
			continue;
		for (q++; q < le && *q != c; q++)
			q += c == '\'' && *q == '\\' && q + 1 < le;
		if (q >= le)
			return le;
	}
	return le;
}

/* Where the text stands between lines: in a quote ('\'', '"', '$' for
 * $$), in a block comment, and whether quoting became ambiguous (a
 * backslash in a quote: MySQL escapes with it, PostgreSQL does not). */
struct meta_state {
	char q;
	bool comment, ambiguous;
	bool mysql; /* mysql's client: --x is no comment */
};

/* The first client command of the line [b, e) outside quotes and
 * comments, or e; st carries over from line to line. */
static size_t meta_start(const char *sql, size_t b, size_t e, struct meta_state *st, int *m,
                         size_t *al)
{
	for (size_t i = b; i < e; i++) {
		char c = sql[i], d = i + 1 < e ? sql[i + 1] : '\0';
		if (st->comment) {
			st->comment = !(c == '*' && d == '/');
			i += !st->comment;
		} else if (st->q) {
			st->ambiguous |= c == '\\';
			if (c == st->q && (c != '$' || d == '$')) {
				i += c == '$';
				st->q = 0;
			}
		} else if (c == '-' && d == '-' && (!st->mysql || mysql_dash_comment(sql, e, i))) {
			return e;
		} else if (c == '/' && d == '*') {
			st->comment = true;
			i++;
		} else if (c == '\'' || c == '"' || (c == '$' && d == '$')) {
			st->q = c;
			i += c == '$';
		} else if ((i == b || c == '\\') &&
		           (*m = meta_find(sql + i, e - i, i == b, st->mysql, al)) >= 0) {
			return i;
		}
	}
	return e;
}

void sql_dot_commands(struct cctx *x, char *sql, size_t len, bool exact, size_t base,
                      struct span sp)
{
	struct meta_state st = {0, false, false, x->sql_dialect == SQL_MYSQL};

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(sql + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - sql) : len, b = i, al = 0;
		int m = -1;
		while (b < e && (sql[b] == ' ' || sql[b] == '\t'))
			b++;
		/* one line may hold several psql commands (\echo x \! CMD), and
		 * `\\` goes back to SQL (\echo x \\ DROP TABLE t) */
		while ((b = meta_start(sql, b, e, &st, &m, &al)) < e) {
			/* the argument is bounded by this line: sql need not end in NUL */
			size_t ae = (size_t)(meta_args_end(m, sql + b + al, sql + e) - sql);
			meta_run(x, m, sql + b + al, sql + ae, exact ? cls_span(x, base + b, ae - b) : sp);
			/* blanked so the SQL parser sees SQL; not when the quoting
			 * before it is ambiguous: the server may read it as SQL */
			if (!st.ambiguous)
				memset(sql + b, ' ', ae - b);
			if (ae + 1 < e && sql[ae] == '\\' && sql[ae + 1] == '\\') {
				if (!st.ambiguous)
					memset(sql + ae, ' ', 2);
				ae += 2;
			}
			b = ae;
		}
		i = e + 1;
	}
}
