/*
 * sql_fallback.c: SQL that PostgreSQL's grammar rejects (MySQL backticks,
 * DELETE ... LIMIT, PRAGMA, REPLACE INTO) is read by keywords. String
 * literals, quoted identifiers and comments are skipped, so keywords inside
 * them never fire; MySQL's executable comments (/ *! ... * /) are read.
 * Text is read twice when backslashes or '#' make quoting ambiguous, and a
 * statement that starts with no keyword it knows is high (sql.unparsed).
 * Also: sqlite3 dot-commands (.shell runs a shell command).
 */
#include <ctype.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

#define KW_MAX 64

struct stmt {
	char kw[KW_MAX][24]; /* upper-cased keywords in order */
	size_t nkw;
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

/* Skips a comment at s[i] if there is one; returns i when not. */
static size_t skip_comment(const char *s, size_t n, size_t i, bool hash)
{
	if ((s[i] == '-' && i + 1 < n && s[i + 1] == '-') || (hash && s[i] == '#')) {
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
		if (strcmp(st->kw[i], kw) == 0) {
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
};

static void f_add(struct fctx *f, enum tier t, const char *rule, const char *why)
{
	cls_add(f->x, t, rule, f->sp, "%s (read by keywords: PostgreSQL's grammar rejects it)", why);
}

/* A keyword counts unless a neighbour makes it part of another clause:
 * ON DELETE, FOR UPDATE, DO UPDATE, ON UPDATE. */
static bool stmt_kw(const struct stmt *st, const char *kw, size_t *at)
{
	for (size_t i = 0; i < st->nkw; i++) {
		const char *prev = i ? st->kw[i - 1] : "";
		if (strcmp(st->kw[i], kw) != 0)
			continue;
		if (strcmp(prev, "ON") == 0 || strcmp(prev, "FOR") == 0 || strcmp(prev, "DO") == 0)
			continue;
		*at = i;
		return true;
	}
	return false;
}

static void judge_dml(struct fctx *f, const struct stmt *st)
{
	size_t at;

	if (stmt_kw(st, "DELETE", &at)) {
		f_add(f, TIER_HIGH, "sql.delete", "DELETE removes rows");
		if (!has(st, "WHERE", at, NULL))
			f_add(f, TIER_HIGH, "sql.delete.no_where", "DELETE without WHERE empties the table");
	}
	if (stmt_kw(st, "UPDATE", &at)) {
		if (has(st, "WHERE", at, NULL))
			f_add(f, TIER_MEDIUM, "sql.update", "UPDATE changes rows");
		else
			f_add(f, TIER_HIGH, "sql.update.no_where", "UPDATE without WHERE changes every row");
	}
	if (has(st, "INSERT", 0, NULL) || has(st, "REPLACE", 0, &at) || has(st, "UPSERT", 0, NULL) ||
	    has(st, "MERGE", 0, NULL))
		if (strcmp(st->kw[0], "SELECT") != 0 || !has(st, "REPLACE", 0, NULL))
			f_add(f, TIER_MEDIUM, "sql.insert", "INSERT or REPLACE adds rows");
	if (has(st, "TRUNCATE", 0, NULL))
		f_add(f, TIER_HIGH, "sql.truncate", "TRUNCATE removes every row");
}

static void judge_ddl(struct fctx *f, const struct stmt *st)
{
	size_t at;
	const char *k0 = st->kw[0];

	if (has(st, "DROP", 0, &at)) {
		const char *next = at + 1 < st->nkw ? st->kw[at + 1] : "";
		if (strcmp(next, "DATABASE") == 0 || strcmp(next, "KEYSPACE") == 0) /* CQL */
			f_add(f, TIER_CRITICAL, "sql.drop.database", "DROP DATABASE destroys a whole database");
		else if (strcmp(next, "SCHEMA") == 0 && has(st, "CASCADE", at, NULL))
			f_add(f, TIER_CRITICAL, "sql.drop.cascade", "DROP SCHEMA ... CASCADE drops everything in it");
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
	if (has(st, "LOAD_EXTENSION", 0, NULL) || strcmp(k0, "DO") == 0)
		f_add(f, TIER_HIGH, "sql.exec", "runs procedural or native code");
	if (strcmp(k0, "PRAGMA") == 0 && st->eq)
		f_add(f, TIER_MEDIUM, "sql.other", "PRAGMA ... = changes database settings");
	if (strcmp(k0, "CALL") == 0 || strcmp(k0, "EXECUTE") == 0 || strcmp(k0, "SOURCE") == 0)
		f_add(f, TIER_MEDIUM, "sql.other", "runs SQL airlock cannot see");
}

static void judge(struct cctx *x, const struct stmt *st, const char *sql, bool exact,
                  size_t base, struct span sp, bool record)
{
	struct fctx f = {x, exact ? cls_span(x, base + st->off, st->end - st->off) : sp};
	bool known = false;

	if (record && st->end > st->off)
		strv_push_owned(&x->v->statements, xstrndup(sql + st->off, st->end - st->off));
	if (st->nkw == 0)
		return;
	for (size_t i = 0; i < nitems(read_first); i++)
		known |= strcmp(st->kw[0], read_first[i]) == 0;
	if (!known) {
		cls_add(x, TIER_HIGH, "sql.unparsed", f.sp,
		        "cannot read this SQL with certainty: it starts with %s", st->kw[0]);
		return;
	}
	judge_dml(&f, st);
	judge_ddl(&f, st);
}

static void trim(const char *s, struct stmt *st)
{
	while (st->off < st->end && isspace((unsigned char)s[st->off]))
		st->off++;
	while (st->end > st->off && isspace((unsigned char)s[st->end - 1]))
		st->end--;
}

static void pass(struct cctx *x, const char *s, size_t n, bool exact, size_t base,
                 struct span sp, bool loose)
{
	struct stmt st;
	size_t i = 0;

	memset(&st, 0, sizeof(st));
	while (i <= n) {
		size_t j;
		if (i == n || s[i] == ';') {
			st.end = i;
			trim(s, &st);
			judge(x, &st, s, exact, base, sp, !loose);
			memset(&st, 0, sizeof(st));
			st.off = ++i;
			continue;
		}
		if ((j = skip_comment(s, n, i, loose)) != i) {
			i = j;
		} else if (s[i] == '\'' || s[i] == '"' || s[i] == '`' || s[i] == '[') {
			i = skip_quote(s, n, i, loose);
		} else if (s[i] == '$' && i + 1 < n && (s[i + 1] == '$' || isalpha((unsigned char)s[i + 1]))) {
			const char *tag_end = memchr(s + i + 1, '$', n - i - 1);
			size_t tl = tag_end ? (size_t)(tag_end - s) - i + 1 : 0;
			const char *close = tl ? memmem(s + i + tl, n - i - tl, s + i, tl) : NULL;
			i = close ? (size_t)(close - s) + tl : i + 1;
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
			size_t k = 0;
			for (j = i; j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'); j++)
				if (k + 1 < sizeof(st.kw[0]))
					st.kw[st.nkw < KW_MAX ? st.nkw : KW_MAX - 1][k++] = (char)toupper((unsigned char)s[j]);
			st.kw[st.nkw < KW_MAX ? st.nkw : KW_MAX - 1][k] = '\0';
			if (st.nkw < KW_MAX)
				st.nkw++;
			i = j;
		} else {
			st.eq |= s[i] == '=';
			i++;
		}
	}
}

void sql_fallback(struct cctx *x, const char *sql, size_t len, bool exact, size_t base,
                  struct span sp)
{
	pass(x, sql, len, exact, base, sp, false);
	if (memchr(sql, '\\', len) || memchr(sql, '#', len))
		pass(x, sql, len, exact, base, sp, true);
}

/* sqlite3 dot-commands at the start of a line: judged, then blanked out so
 * the SQL parser sees only SQL. */
void sql_dot_commands(struct cctx *x, char *sql, size_t len, bool exact, size_t base,
                      struct span sp)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(sql + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - sql) : len, b = i;
		while (b < e && (sql[b] == ' ' || sql[b] == '\t'))
			b++;
		if (b < e && sql[b] == '.' && b + 1 < e && isalpha((unsigned char)sql[b + 1])) {
			struct span ds = exact ? cls_span(x, base + b, e - b) : sp;
			const char *arg = sql + b, *le = sql + e;
			size_t al;
			/* the argument is bounded by this line: sql need not end in NUL */
			while (arg < le && *arg != ' ' && *arg != '\t')
				arg++;
			while (arg < le && (*arg == ' ' || *arg == '\t'))
				arg++;
			al = (size_t)(le - arg);
			if (strncmp(sql + b, ".shell", 6) == 0 || strncmp(sql + b, ".system", 7) == 0)
				shell_script_text(x, arena_strndup(x->a, arg, al), al, ds);
			else if (strncmp(sql + b, ".output", 7) == 0 || strncmp(sql + b, ".once", 5) == 0 ||
			         strncmp(sql + b, ".save", 5) == 0 || strncmp(sql + b, ".backup", 7) == 0) {
				char abs[CLS_MAX_PATH];
				size_t pl = 0;
				char *p;
				while (pl < al && arg[pl] != ' ' && arg[pl] != '\t')
					pl++;
				p = arena_strndup(x->a, arg, pl);
				if (p[0] && p[0] != '-' && paths_resolve(x, p, abs, sizeof(abs)))
					paths_write_abs(x, abs, ds, abs);
			} else if (strncmp(sql + b, ".read", 5) == 0)
				cls_add(x, x->o->unknown_program, "exec.script", ds,
				        ".read runs SQL from a file airlock cannot see");
			else if (strncmp(sql + b, ".load", 5) == 0)
				cls_add(x, TIER_HIGH, "sql.exec", ds, ".load loads native code");
			else if (strncmp(sql + b, ".import", 7) == 0)
				cls_add(x, TIER_MEDIUM, "sql.insert", ds, ".import adds rows");
			memset(sql + b, ' ', e - b);
		}
		i = e + 1;
	}
}
