/*
 * sql.c: SQL through PostgreSQL's own grammar (libpg_query, loaded lazily):
 * every statement's tree is walked, so a DELETE inside a CTE or EXPLAIN
 * ANALYZE still counts. Text the grammar rejects goes to the keyword
 * fallback (sql_fallback.c). If libpg_query cannot be loaded the call fails
 * closed: sql.parser_unavailable (high) plus the fallback's reading.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/lazy.h"
#include "core/util.h"

struct sqlw {
	struct cctx *x;
	struct span sp;   /* the current statement */
	const char *stmt; /* its text (not NUL-terminated) */
	size_t stmtlen;
	int depth;
};

#define MAX_BODY_DEPTH 4 /* function bodies inside function bodies */

typedef void (*node_fn)(struct sqlw *s, json_t *node);

static void add(struct sqlw *s, enum tier t, const char *rule, const char *why)
{
	cls_add(s->x, t, rule, s->sp, "%s", why);
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Two A_Const nodes with the same value (their locations differ). */
static bool const_same(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;
	size_t na = 0, nb = 0;

	json_object_foreach(a, k, v) {
		if (strcmp(k, "location") == 0)
			continue;
		na++;
		if (!json_equal(v, json_object_get(b, k)))
			return false;
	}
	json_object_foreach(b, k, v)
		nb += strcmp(k, "location") != 0;
	return na == nb;
}

/* Two column references to the same column. */
static bool column_same(json_t *a, json_t *b)
{
	return a && b && json_equal(json_object_get(a, "fields"), json_object_get(b, "fields"));
}

/* Whether an expression reads the row: a column (CURRENT OF a cursor
 * names one row). One that reads none is the same for every row (2 > 1,
 * NULL IS NULL, now() IS NOT NULL, EXISTS (SELECT 1), $1). Past 200
 * levels it is taken to read none, the stricter reading. */
static bool reads_row(json_t *e, int depth)
{
	static const char *const refs[] = {"ColumnRef", "CurrentOfExpr"};
	const char *k;
	json_t *v;
	size_t i;

	if (depth > 200)
		return false;
	json_array_foreach(e, i, v)
		if (reads_row(v, depth + 1))
			return true;
	json_object_foreach(e, k, v) {
		for (size_t r = 0; r < nitems(refs); r++)
			if (strcmp(k, refs[r]) == 0)
				return true;
		if ((json_is_object(v) || json_is_array(v)) && reads_row(v, depth + 1))
			return true;
	}
	return false;
}

/* A constant number other than 0: true where MySQL and SQLite run the
 * text (WHERE id = 1 OR 1 is every row there). */
static bool const_nonzero(json_t *c)
{
	const char *f = str(json_object_get(c, "fval"), "fval");

	if (json_integer_value(json_object_get(json_object_get(c, "ival"), "ival")) != 0)
		return true;
	return f && strspn(f, "0.") != strlen(f);
}

/* A WHERE that holds for every row (the tree has false and 0 as {}):
 * true, a number other than 0, NOT false, c = c for equal constants or
 * one column, and an OR with one such arm or an AND of them. Agents
 * write WHERE 1=1 as a template. An OR arm that reads no row and is not
 * plainly false (id = 1 OR 2 > 1, OR 1) is taken to hold: it was
 * UPDATE's scoped medium. */
static bool always_true(json_t *e);

/* The kind of a constant's value (ival, fval, sval ...): its first key
 * that is not its location. */
static const char *const_kind(json_t *c)
{
	const char *k;
	json_t *v;

	json_object_foreach(c, k, v)
		if (strcmp(k, "location") != 0)
			return k;
	return "";
}

/* A constant false, 0 or NULL, or c = d for two different constants of
 * one kind (1 = 1.0 and '1' = 1 may hold: they count as true). */
static bool plainly_false(json_t *e)
{
	json_t *c = json_object_get(e, "A_Const"), *x = json_object_get(e, "A_Expr");
	json_t *l = json_object_get(json_object_get(x, "lexpr"), "A_Const"),
	       *r = json_object_get(json_object_get(x, "rexpr"), "A_Const");
	const char *op = str(json_object_get(json_array_get(json_object_get(x, "name"), 0), "String"),
	                     "sval");

	if (c)
		return !always_true(e);
	return op && strcmp(op, "=") == 0 && l && r && strcmp(const_kind(l), const_kind(r)) == 0 &&
	       !const_same(l, r);
}

static bool always_true(json_t *e)
{
	json_t *c = json_object_get(e, "A_Const"), *x = json_object_get(e, "A_Expr"),
	       *b = json_object_get(e, "BoolExpr"), *arg;
	size_t i;

	if (c)
		return json_is_true(json_object_get(json_object_get(c, "boolval"), "boolval")) ||
		       const_nonzero(c);
	if (x) {
		json_t *op = json_array_get(json_object_get(x, "name"), 0);
		json_t *l = json_object_get(x, "lexpr"), *r = json_object_get(x, "rexpr");
		if (!str(x, "kind") || strcmp(str(x, "kind"), "AEXPR_OP") != 0 ||
		    !str(json_object_get(op, "String"), "sval") ||
		    strcmp(str(json_object_get(op, "String"), "sval"), "=") != 0)
			return false;
		if (json_object_get(l, "A_Const") && json_object_get(r, "A_Const"))
			return const_same(json_object_get(l, "A_Const"), json_object_get(r, "A_Const"));
		return column_same(json_object_get(l, "ColumnRef"), json_object_get(r, "ColumnRef"));
	}
	if (!b || !str(b, "boolop"))
		return false;
	json_t *args = json_object_get(b, "args");
	if (strcmp(str(b, "boolop"), "OR_EXPR") == 0) {
		json_array_foreach(args, i, arg)
			if (always_true(arg) || (!reads_row(arg, 0) && !plainly_false(arg)))
				return true;
		return false;
	}
	if (strcmp(str(b, "boolop"), "AND_EXPR") == 0) {
		json_array_foreach(args, i, arg)
			if (!always_true(arg))
				return false;
		return json_array_size(args) > 0;
	}
	if (strcmp(str(b, "boolop"), "NOT_EXPR") == 0) { /* NOT false */
		json_t *a0 = json_object_get(json_array_get(args, 0), "A_Const");
		return a0 && json_object_get(a0, "boolval") &&
		       !json_is_true(json_object_get(json_object_get(a0, "boolval"), "boolval"));
	}
	return false;
}

/* A WHERE true for every row: as always_true, or one that reads no row
 * at all (WHERE 2 > 1; a constant false one changes nothing either way). */
static bool every_row(json_t *w)
{
	return always_true(w) || !reads_row(w, 0);
}

/* SQLite's schema table written as a table (with PRAGMA writable_schema
 * on): rewriting a row's sql changes or removes a table outside any ALTER
 * or DROP, or leaves a file that no longer opens; it was a scoped UPDATE
 * (medium). */
static void schema_table(struct sqlw *s, json_t *n)
{
	static const char *const names[] = {"sqlite_master", "sqlite_schema", "sqlite_temp_master",
	                                    "sqlite_temp_schema"};
	const char *rel = str(json_object_get(n, "relation"), "relname");

	for (size_t i = 0; rel && i < nitems(names); i++)
		if (strcasecmp(rel, names[i]) == 0)
			add(s, TIER_HIGH, "sql.drop", "writes SQLite's schema table itself: a table can "
			                              "vanish or the file stop opening");
}

static void n_delete(struct sqlw *s, json_t *n)
{
	json_t *w = json_object_get(n, "whereClause");

	schema_table(s, n);
	add(s, TIER_HIGH, "sql.delete", "DELETE removes rows");
	if (w == NULL)
		add(s, TIER_HIGH, "sql.delete.no_where", "DELETE without WHERE empties the table");
	else if (every_row(w))
		add(s, TIER_HIGH, "sql.delete.no_where",
		    "DELETE whose WHERE holds for every row empties the table");
}

static void n_update(struct sqlw *s, json_t *n)
{
	json_t *w = json_object_get(n, "whereClause");

	schema_table(s, n);
	if (w == NULL)
		add(s, TIER_HIGH, "sql.update.no_where", "UPDATE without WHERE changes every row");
	else if (every_row(w))
		add(s, TIER_HIGH, "sql.update.no_where",
		    "UPDATE whose WHERE holds for every row changes every row");
	else
		add(s, TIER_MEDIUM, "sql.update", "UPDATE changes rows");
}

static void n_insert(struct sqlw *s, json_t *n)
{
	schema_table(s, n);
	add(s, TIER_MEDIUM, "sql.insert", "INSERT adds rows");
}

/* MERGE: each WHEN clause is an INSERT, UPDATE or DELETE of its own; with
 * a join condition that holds for every row (ON true) and no AND of its
 * own, a WHEN MATCHED clause reaches every row of the target. */
static void n_merge(struct sqlw *s, json_t *n)
{
	bool every = json_object_get(n, "joinCondition") &&
	             every_row(json_object_get(n, "joinCondition"));
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(n, "mergeWhenClauses"), i, w) {
		json_t *c = json_object_get(w, "MergeWhenClause");
		const char *cmd = str(c, "commandType");
		bool all = every && json_object_get(c, "condition") == NULL;
		if (cmd && strcmp(cmd, "CMD_DELETE") == 0) {
			add(s, TIER_HIGH, "sql.delete", "MERGE ... THEN DELETE removes rows");
			if (all)
				add(s, TIER_HIGH, "sql.delete.no_where",
				    "MERGE ... ON true ... THEN DELETE empties the table");
		} else if (cmd && strcmp(cmd, "CMD_UPDATE") == 0 && all)
			add(s, TIER_HIGH, "sql.update.no_where",
			    "MERGE ... ON true ... THEN UPDATE changes every row");
		else if (cmd && strcmp(cmd, "CMD_UPDATE") == 0)
			add(s, TIER_MEDIUM, "sql.update", "MERGE ... THEN UPDATE changes rows");
		else if (cmd && strcmp(cmd, "CMD_INSERT") == 0)
			add(s, TIER_MEDIUM, "sql.insert", "MERGE ... THEN INSERT adds rows");
	}
}

/* Settings that switch off what keeps data consistent or recorded:
 * PostgreSQL's session_replication_role, MySQL's foreign_key_checks (as
 * DISABLE TRIGGER ALL) and sql_log_bin, which keeps the session's writes
 * out of the binary log, so replicas and point-in-time backups never see
 * them (both were low). Shared with the keyword fallback. */
static const struct {
	const char *name, *why;
} unsafe_settings[] = {
	{"session_replication_role", "session_replication_role turns off triggers and foreign-key "
	                             "checks"},
	{"foreign_key_checks", "foreign_key_checks turns off MySQL's foreign-key checks"},
	{"sql_log_bin", "sql_log_bin keeps the session's writes out of MySQL's binary log "
	                "(replicas, point-in-time backups)"},
};

const char *sql_unsafe_setting(const char *name, size_t n)
{
	for (size_t i = 0; name && i < nitems(unsafe_settings); i++)
		if (strlen(unsafe_settings[i].name) == n && strncasecmp(name, unsafe_settings[i].name, n) == 0)
			return unsafe_settings[i].why;
	return NULL;
}

static void setting(struct sqlw *s, const char *name)
{
	const char *why = name ? sql_unsafe_setting(name, strlen(name)) : NULL;

	if (why)
		add(s, TIER_HIGH, "sql.admin", why);
}

/* The text of a string constant node, or NULL. */
static const char *const_string(json_t *arg)
{
	return str(json_object_get(json_object_get(arg, "A_Const"), "sval"), "sval");
}

static void n_set(struct sqlw *s, json_t *n)
{
	static const char *const mysql_resets[] = {"master", "slave", "replica", "persist"};
	const char *kind = str(n, "kind"), *name = str(n, "name");

	setting(s, name);
	/* SET ROLE r, SET SESSION AUTHORIZATION r: what follows runs with
	 * r's privileges (a superuser's, when the login may become one), as
	 * sudo does; NONE and DEFAULT go back to the login's own (it was low) */
	if (kind && name && strcmp(kind, "VAR_SET_VALUE") == 0 &&
	    (strcmp(name, "role") == 0 || strcmp(name, "session_authorization") == 0)) {
		const char *to = const_string(json_array_get(json_object_get(n, "args"), 0));
		if (to == NULL || (strcasecmp(to, "none") != 0 && strcasecmp(to, "default") != 0))
			add(s, TIER_HIGH, "sql.admin", "SET ROLE or SESSION AUTHORIZATION acts with "
			                               "another role's privileges");
	}
	/* PostgreSQL reads MySQL's RESET MASTER as resetting a setting it
	 * does not have; MySQL deletes its binary logs or replica state */
	for (size_t i = 0; kind && name && i < nitems(mysql_resets); i++)
		if (strcmp(kind, "VAR_RESET") == 0 && strcasecmp(name, mysql_resets[i]) == 0)
			add(s, TIER_HIGH, "sql.admin", "RESET MASTER, SLAVE, REPLICA or PERSIST deletes "
			                               "MySQL's binary logs, replication state or "
			                               "persisted settings");
}

/* ALTER DATABASE d SET NAME ...: a setting for every later session; its
 * VariableSetStmt is not a tree node of its own, so the walk does not
 * meet it */
static void n_alterdb_set(struct sqlw *s, json_t *n)
{
	add(s, TIER_MEDIUM, "sql.alter", "ALTER DATABASE ... SET changes every later session's "
	                                 "settings");
	setting(s, str(json_object_get(n, "setstmt"), "name"));
}

static void n_maintenance(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_MEDIUM, "sql.other", "VACUUM and REINDEX rewrite storage and can lock tables "
	                                 "other sessions use");
}

/* Whether a VACUUM's options hold FULL. */
static bool vacuum_full(json_t *n)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(n, "options"), i, o) {
		const char *name = str(json_object_get(o, "DefElem"), "defname");
		if (name && strcmp(name, "full") == 0)
			return true;
	}
	return false;
}

/* Statements that hold a table, or a whole database, so that every other
 * session waits: on a live database an outage for as long as they last
 * (a VACUUM FULL of a large table, hours). They were medium as statements
 * with no rating, and MySQL's LOCK TABLES low. */
static void n_cluster(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "sql.lock", "CLUSTER rewrites the table under an exclusive lock: every "
	                              "other session's reads and writes of it wait");
}

static void n_vacuum(struct sqlw *s, json_t *n)
{
	if (!json_is_true(json_object_get(n, "is_vacuumcmd"))) /* ANALYZE only reads */
		return;
	if (vacuum_full(n))
		add(s, TIER_HIGH, "sql.lock", "VACUUM FULL rewrites tables under an exclusive lock: "
		                              "every other session's reads and writes of them wait");
	else
		n_maintenance(s, n);
}

/* LOCK TABLE: held until the transaction ends. ACCESS SHARE, ROW SHARE
 * and ROW EXCLUSIVE (modes 1-3) only keep out schema changes and VACUUM
 * FULL; the stronger ones stop other sessions' writes or reads. */
static void n_lock(struct sqlw *s, json_t *n)
{
	if (json_integer_value(json_object_get(n, "mode")) > 3 ||
	    !json_object_get(n, "mode"))
		add(s, TIER_HIGH, "sql.lock", "LOCK holds the table until the transaction ends: other "
		                              "sessions' writes (or reads) of it wait");
	else
		add(s, TIER_MEDIUM, "sql.lock", "LOCK holds the table until the transaction ends: "
		                                "other sessions' schema changes wait");
}

/* PREPARE TRANSACTION keeps the transaction, with its locks and rows,
 * after the session ends, until someone commits or rolls it back; COMMIT
 * and ROLLBACK PREPARED finish one, whoever's it is and whatever it did. */
static void n_transaction(struct sqlw *s, json_t *n)
{
	const char *kind = str(n, "kind");

	if (kind && strcmp(kind, "TRANS_STMT_PREPARE") == 0)
		add(s, TIER_HIGH, "sql.lock", "PREPARE TRANSACTION keeps its locks after the session "
		                              "ends, until someone commits or rolls it back");
	else if (kind && (strcmp(kind, "TRANS_STMT_COMMIT_PREPARED") == 0 ||
	                  strcmp(kind, "TRANS_STMT_ROLLBACK_PREPARED") == 0))
		add(s, TIER_HIGH, "sql.admin", "COMMIT or ROLLBACK PREPARED applies or discards a "
		                               "prepared transaction, another session's writes");
}

/* What DROP ... CASCADE takes from tables it does not name: every column
 * of a type, a domain or an extension's types (DROP EXTENSION postgis
 * CASCADE: every geometry column, in every table); it was high, as DROP
 * TABLE t. A table's CASCADE drops views and constraints, no rows. */
static const char *const cascade_columns[] = {"OBJECT_TYPE", "OBJECT_DOMAIN", "OBJECT_EXTENSION"};

static void n_drop(struct sqlw *s, json_t *n)
{
	const char *type = str(n, "removeType"), *beh = str(n, "behavior");
	bool cascade = beh && strcmp(beh, "DROP_CASCADE") == 0;

	for (size_t i = 0; cascade && type && i < nitems(cascade_columns); i++)
		if (strcmp(type, cascade_columns[i]) == 0) {
			add(s, TIER_CRITICAL, "sql.drop.cascade", "DROP TYPE, DOMAIN or EXTENSION ... "
			                                          "CASCADE drops every column of it, in "
			                                          "every table, with its values");
			return;
		}
	if (type && strcmp(type, "OBJECT_SCHEMA") == 0 && cascade)
		add(s, TIER_CRITICAL, "sql.drop.cascade", "DROP SCHEMA ... CASCADE drops everything in it");
	else
		add(s, TIER_HIGH, "sql.drop", "DROP destroys a database object and its data");
}

static void n_dropdb(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_CRITICAL, "sql.drop.database", "DROP DATABASE destroys a whole database");
}

static void n_truncate(struct sqlw *s, json_t *n)
{
	const char *beh = str(n, "behavior");

	if (beh && strcmp(beh, "DROP_CASCADE") == 0) /* say what the names do not */
		add(s, TIER_HIGH, "sql.truncate", "TRUNCATE ... CASCADE removes every row, and every "
		                                  "row of each table that refers to it, in turn");
	else
		add(s, TIER_HIGH, "sql.truncate", "TRUNCATE removes every row");
}

/* ALTER TABLE commands that change who may see or do what, as GRANT
 * does (they were sql.alter, medium). */
static const char *const access_cmds[][2] = {
	{"AT_DisableRowSecurity", "DISABLE ROW LEVEL SECURITY shows every row to whoever may "
	                          "read the table"},
	{"AT_NoForceRowSecurity", "NO FORCE ROW LEVEL SECURITY lets the table's owner past its "
	                          "policies"},
	{"AT_ChangeOwner", "OWNER TO hands the table, and every right on it, to another role"},
};

/* A function that runs with its owner's privileges for whoever calls it
 * (SECURITY DEFINER): an ALTER that makes one, or a CREATE. */
static bool security_definer(json_t *options)
{
	json_t *o;
	size_t i;

	json_array_foreach(options, i, o) {
		json_t *d = json_object_get(o, "DefElem");
		const char *name = str(d, "defname");
		if (name && strcmp(name, "security") == 0 &&
		    json_is_true(json_object_get(json_object_get(json_object_get(d, "arg"), "Boolean"),
		                                 "boolval")))
			return true;
	}
	return false;
}

/* ALTER ... OWNER TO r of a schema, function, database ...: its new
 * owner, named in the reason (ALTER TABLE's comes as AT_ChangeOwner) */
static void n_owner(struct sqlw *s, json_t *n)
{
	const char *to = str(json_object_get(n, "newowner"), "rolename");

	cls_add(s->x, TIER_HIGH, "sql.grant", s->sp, "OWNER TO %s hands the object, and every right "
	        "on it, to that role", to ? to : "a role");
}

/* CREATE or ALTER POLICY: USING (true) or WITH CHECK (true) opens every
 * row to the policy's roles */
static void n_policy(struct sqlw *s, json_t *n)
{
	json_t *q = json_object_get(n, "qual"), *c = json_object_get(n, "with_check");
	bool all = (q && every_row(q)) || (c && every_row(c));

	add(s, TIER_HIGH, "sql.grant", all ? "a row-security policy that holds for every row "
	                                     "lets its roles see or change them all"
	                                   : "a row-security policy changes who sees or changes "
	                                     "which rows");
}

static void n_alter_function(struct sqlw *s, json_t *n)
{
	if (security_definer(json_object_get(n, "actions")))
		add(s, TIER_HIGH, "sql.grant", "SECURITY DEFINER runs the function with its owner's "
		                               "privileges for whoever calls it");
	add(s, TIER_MEDIUM, "sql.alter", "ALTER changes the schema");
}

static void n_alter(struct sqlw *s, json_t *n)
{
	json_t *cmds = json_object_get(n, "cmds"), *c;
	size_t i;

	json_array_foreach(cmds, i, c) {
		const char *st = str(json_object_get(c, "AlterTableCmd"), "subtype");
		if (st && strncmp(st, "AT_Drop", 7) == 0) {
			add(s, TIER_HIGH, "sql.alter.drop", "ALTER ... DROP destroys a column or constraint");
			return;
		}
		for (size_t k = 0; st && k < nitems(access_cmds); k++)
			if (strcmp(st, access_cmds[k][0]) == 0)
				add(s, TIER_HIGH, "sql.grant", access_cmds[k][1]);
		if (st && strcmp(st, "AT_DisableTrigAll") == 0) /* as session_replication_role */
			add(s, TIER_HIGH, "sql.admin",
			    "DISABLE TRIGGER ALL turns off the table's foreign-key checks");
		/* ALTER COLUMN c TYPE T USING 0: a USING that reads no column
		 * writes the same value into every row, as UPDATE t SET c = 0 */
		if (st && strcmp(st, "AT_AlterColumnType") == 0) {
			json_t *u = json_object_get(json_object_get(json_object_get(
			    json_object_get(c, "AlterTableCmd"), "def"), "ColumnDef"), "raw_default");
			if (u && !reads_row(u, 0))
				add(s, TIER_HIGH, "sql.update.no_where",
				    "ALTER ... TYPE ... USING a value that reads no column overwrites every row");
		}
	}
	add(s, TIER_MEDIUM, "sql.alter", "ALTER changes the schema");
}

static void n_grant(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "sql.grant", "GRANT or REVOKE changes who may do what");
}

static void n_copy(struct sqlw *s, json_t *n)
{
	if (json_is_true(json_object_get(n, "is_program")))
		add(s, TIER_HIGH, "sql.copy.program", "COPY ... PROGRAM runs a shell command on the server");
	else if (str(n, "filename"))
		add(s, TIER_HIGH, "sql.server_file", "COPY reads or writes a file on the server");
	else if (json_is_true(json_object_get(n, "is_from")))
		add(s, TIER_MEDIUM, "sql.insert", "COPY FROM adds rows");
}

static void n_create(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_MEDIUM, "sql.create", "CREATE adds a database object");
}

void sql_classify_inner(struct cctx *x, const char *sql, size_t len, struct span sp)
{
	if (x->sql_body >= MAX_BODY_DEPTH) {
		cls_add(x, TIER_HIGH, "parse.too_deep", sp, "SQL run by SQL is nested too deeply to read");
		return;
	}
	x->sql_body++;
	sql_classify(x, sql, len, false, 0, sp);
	x->sql_body--;
}

/* SQL text found inside a function body, read like any other SQL. */
static void body_sql(struct sqlw *s, const char *sql)
{
	sql_classify_inner(s->x, sql, strlen(sql), s->sp);
}

/* The text of expression e when it is one string literal, '...' (with ''
 * for a quote) or $tag$...$tag$, in the arena; NULL for anything else. */
static const char *literal_text(struct cctx *x, const char *e)
{
	size_t n = strlen(e), k = 0, tl;
	char *t;

	while (n && strchr(" \t\r\n", e[n - 1]))
		n--;
	while (n && strchr(" \t\r\n", *e)) {
		e++;
		n--;
	}
	if (n >= 2 && e[0] == '$' && (tl = strcspn(e + 1, "$") + 2) * 2 <= n &&
	    strncmp(e + n - tl, e, tl) == 0 && memmem(e + tl, n - 2 * tl, e, tl) == NULL)
		return arena_strndup(x->a, e + tl, n - 2 * tl);
	if (n < 2 || e[0] != '\'' || e[n - 1] != '\'')
		return NULL;
	t = arena_alloc(x->a, n);
	for (size_t i = 1; i + 1 < n; i++) {
		if (e[i] == '\'' && e[i + 1] != '\'') /* a quote ends it: 'a' || 'b' */
			return NULL;
		t[k++] = e[i];
		i += e[i] == '\'';
	}
	t[k] = '\0';
	return t;
}

/* The statements of a PL/pgSQL body (pg_query_parse_plpgsql's tree): each
 * SQL statement and each SELECT it evaluates is read as SQL; EXECUTE of a
 * string literal is read as SQL too, one built at run time cannot be. */
static void walk_plpgsql(struct sqlw *s, json_t *j, int depth)
{
	const char *key, *q;
	json_t *val;
	size_t i;

	if (depth > 200) {
		add(s, TIER_HIGH, "parse.too_deep", "the function body is nested too deeply to read");
		return;
	}
	if (json_is_array(j))
		json_array_foreach(j, i, val)
			walk_plpgsql(s, val, depth + 1);
	json_object_foreach(j, key, val) {
		if (strcmp(key, "PLpgSQL_stmt_dynexecute") == 0 || strcmp(key, "PLpgSQL_stmt_dynfors") == 0) {
			q = str(json_object_get(json_object_get(val, "query"), "PLpgSQL_expr"), "query");
			if ((q = q ? literal_text(s->x, q) : NULL) != NULL)
				body_sql(s, q);
			else
				add(s, TIER_HIGH, "sql.exec", "runs SQL built at run time (EXECUTE)");
		}
		if (strcmp(key, "sqlstmt") == 0 && (q = str(json_object_get(val, "PLpgSQL_expr"), "query")))
			body_sql(s, q);
		else if (strcmp(key, "PLpgSQL_expr") == 0 && (q = str(val, "query")) != NULL &&
		         (strncasecmp(q, "SELECT", 6) == 0 || strncasecmp(q, "WITH", 4) == 0))
			body_sql(s, q); /* PERFORM, FOR ... IN, RETURN QUERY; not bare expressions */
		else if (json_is_object(val) || json_is_array(val))
			walk_plpgsql(s, val, depth + 1);
	}
}

/* A body of LANGUAGE plpgsql (or a DO block): parsed by libpg_query's
 * PL/pgSQL parser from the whole statement. */
static void body_plpgsql(struct sqlw *s)
{
	char *err = NULL;
	const struct lazy_pgquery *pg = lazy_pgquery(&err);
	PgQueryPlpgsqlParseResult r;
	json_t *root;

	free(err); /* sql_classify already failed closed on a missing library */
	if (pg == NULL)
		return;
	r = pg->pg_query_parse_plpgsql(arena_strndup(s->x->a, s->stmt, s->stmtlen));
	root = r.error ? NULL : json_loads(r.plpgsql_funcs, 0, NULL);
	if (root == NULL)
		add(s, TIER_HIGH, "sql.unparsed", "the PL/pgSQL body cannot be read with certainty");
	else
		walk_plpgsql(s, root, 0);
	json_decref(root);
	pg->pg_query_free_plpgsql_parse_result(r);
}

/* What a function or DO block will run: its language, and its body read
 * as SQL (sql, plpgsql). Nesting past MAX_BODY_DEPTH is not read. */
static void read_body(struct sqlw *s, const char *lang, const char *body)
{
	if (s->x->sql_body >= MAX_BODY_DEPTH) {
		add(s, TIER_HIGH, "parse.too_deep", "function bodies are nested too deeply to read");
		return;
	}
	if (body == NULL) /* libpg_query asserts (aborts) on a body-less DO or function */
		return;
	if (strcasecmp(lang, "sql") == 0)
		body_sql(s, body);
	else if (strcasecmp(lang, "plpgsql") == 0)
		body_plpgsql(s);
}

/* A DefElem's string value (a String, or the first of a List of them). */
static const char *defelem_str(json_t *d)
{
	json_t *arg = json_object_get(d, "arg");
	json_t *items = json_object_get(json_object_get(arg, "List"), "items");

	if (items)
		arg = json_array_get(items, 0);
	return str(json_object_get(arg, "String"), "sval");
}

/* The LANGUAGE and AS options of a function or DO block; *lang and *body
 * keep their defaults when absent. */
static void lang_and_body(json_t *options, const char **lang, const char **body)
{
	json_t *o;
	size_t i;

	json_array_foreach(options, i, o) {
		json_t *d = json_object_get(o, "DefElem");
		const char *name = str(d, "defname");
		if (name && strcmp(name, "language") == 0 && defelem_str(d))
			*lang = defelem_str(d);
		else if (name && strcmp(name, "as") == 0)
			*body = defelem_str(d);
	}
}

static bool fn_builtin(const char *name, size_t n);

static void n_function(struct sqlw *s, json_t *n)
{
	static const char *const unsafe[] = {"c", "internal", "plpythonu", "plpython3u",
	                                     "plperlu", "pltclu", "plsh"};
	const char *lang = "sql", *body = NULL;
	json_t *names = json_object_get(n, "funcname");
	const char *f = str(json_object_get(json_array_get(names, json_array_size(names) - 1),
	                                    "String"), "sval");

	/* public.lower(text) in plperl, whose body is not read: a search_path
	 * that puts its schema before pg_catalog makes every lower() run it,
	 * and a call of lower() is low (it was medium, a create) */
	if (f && fn_builtin(f, strlen(f)))
		add(s, TIER_HIGH, "sql.exec", "creates a function with a built-in's name: where the "
		                              "search path finds it first, every call of the "
		                              "built-in runs it");
	lang_and_body(json_object_get(n, "options"), &lang, &body);
	if (security_definer(json_object_get(n, "options")))
		add(s, TIER_HIGH, "sql.grant", "SECURITY DEFINER runs the function with its owner's "
		                               "privileges for whoever calls it");
	for (size_t k = 0; k < nitems(unsafe); k++)
		if (strcasecmp(lang, unsafe[k]) == 0) {
			add(s, TIER_HIGH, "sql.exec", "creates a function in an untrusted language");
			return;
		}
	n_create(s, n);
	read_body(s, lang, body);
}

static void n_exec(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "sql.exec", "runs procedural code or loads native code on the server");
}

static void n_do(struct sqlw *s, json_t *n)
{
	const char *lang = "plpgsql", *body = NULL;

	n_exec(s, n);
	lang_and_body(json_object_get(n, "args"), &lang, &body);
	read_body(s, lang, body);
}

static void n_subscription(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "net.fetch", "a subscription connects to another server and copies "
	                               "its tables into this one");
}

static void n_foreign(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "net.fetch", "IMPORT FOREIGN SCHEMA connects to another server to read "
	                               "its tables");
}

static void n_admin(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_HIGH, "sql.admin", "changes roles or server settings");
}

static void n_select(struct sqlw *s, json_t *n)
{
	if (json_object_get(n, "intoClause"))
		add(s, TIER_MEDIUM, "sql.create", "SELECT INTO creates a table");
	if (json_object_get(n, "lockingClause")) /* it was low, as a read */
		add(s, TIER_MEDIUM, "sql.lock", "SELECT ... FOR UPDATE or SHARE locks the rows it "
		                                "reads until the transaction ends: other sessions' "
		                                "writes of them wait");
}

/* DROP OWNED BY r: every object r owns in the database, tables and
 * their rows too, none of them named (it was high, as DROP TABLE t). */
static void n_drop_owned(struct sqlw *s, json_t *n)
{
	(void)n;
	add(s, TIER_CRITICAL, "sql.drop.cascade", "DROP OWNED drops every object the role owns in "
	                                          "the database, with their rows");
}

/* Catalogs that hold credentials: PostgreSQL's password hashes and
 * foreign servers' user mappings (passwords in clear), MySQL's account
 * table. Reading them is as /etc/shadow is. */
static const char *const credential_tables[][2] = {
	{"pg_catalog", "pg_authid"},        {"pg_catalog", "pg_shadow"},
	{"pg_catalog", "pg_user_mappings"}, {"pg_catalog", "pg_user_mapping"},
	{"mysql", "user"},
};

bool sql_credential_table(const char *schema, size_t sn, const char *rel, size_t rn)
{
	for (size_t i = 0; i < nitems(credential_tables); i++) {
		const char *cs = credential_tables[i][0], *cr = credential_tables[i][1];
		bool catalog = strcmp(cs, "pg_catalog") == 0; /* on the search path */
		if (strlen(cr) == rn && strncasecmp(rel, cr, rn) == 0 &&
		    ((schema == NULL && catalog) ||
		     (schema && strlen(cs) == sn && strncasecmp(schema, cs, sn) == 0)))
			return true;
	}
	return false;
}

static void n_range(struct sqlw *s, json_t *n)
{
	const char *schema = str(n, "schemaname"), *rel = str(n, "relname");

	if (rel && sql_credential_table(schema, schema ? strlen(schema) : 0, rel, strlen(rel)))
		add(s, TIER_HIGH, "secrets.read", "reads stored password hashes or credentials");
}

/* Functions whose argument is SQL text they run. */
static const char *const runs_sql[] = {
	"query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema",
	"ts_stat",      "crosstab",           "crosstab2",
	"crosstab3",    "crosstab4",
};

/* dblink's functions that run SQL on the connection, which may be this
 * same server (dblink_exec('dbname=prod', 'DROP DATABASE x')): the SQL is
 * the last text argument (a connection or cursor name may come first, a
 * fail_on_error boolean after). They were net.fetch alone: high, where
 * the DROP DATABASE they run is critical. */
static const char *const dblink_runs_sql[] = {
	"dblink", "dblink_exec", "dblink_send_query", "dblink_open",
};

static void dblink_sql_text(struct sqlw *s, json_t *args)
{
	const char *q;

	for (size_t i = json_array_size(args); i-- > 0;) {
		json_t *a = json_array_get(args, i);
		if ((q = const_string(a)) != NULL) {
			sql_classify_inner(s->x, q, strlen(q), s->sp);
			return;
		}
		if (json_object_get(a, "A_Const") == NULL)
			break;
	}
	add(s, TIER_HIGH, "sql.exec", "runs SQL text built at run time (dblink)");
}

/* Functions that run the SQL text of their first argument (crosstab of
 * two texts runs both): query_to_xml('SELECT pg_read_file(...)', ...)
 * reads the file. A literal text is read as SQL; text built at run time
 * cannot be read. */
static void func_sql_text(struct sqlw *s, json_t *n, const char *f)
{
	json_t *args = json_object_get(n, "args");
	const char *q;

	for (size_t k = 0; k < nitems(dblink_runs_sql); k++)
		if (strcasecmp(f, dblink_runs_sql[k]) == 0)
			dblink_sql_text(s, args);

	for (size_t k = 0; k < nitems(runs_sql); k++) {
		if (strcasecmp(f, runs_sql[k]) != 0)
			continue;
		for (size_t i = 0; i < (strcasecmp(f, "crosstab") == 0 ? 2 : 1); i++) {
			json_t *a = json_array_get(args, i);
			if (a == NULL)
				break;
			if ((q = const_string(a)) != NULL)
				sql_classify_inner(s->x, q, strlen(q), s->sp);
			else if (i == 0 || json_object_get(a, "A_Const") == NULL)
				add(s, TIER_HIGH, "sql.exec", "runs SQL text built at run time");
		}
	}
}

/* Functions that reach the server's files, the network or other sessions,
 * or change state from inside a SELECT, which reads as read-only:
 * sequences and large objects, statistics, WAL and backups. Names are
 * matched in any case, here and by the keyword fallback (sql_fallback.c),
 * which reads text the grammar rejects. */
static const struct sql_fn sql_fns[] = {
	{"pg_read_file", "sql.server_file", "reads a file on the server", TIER_HIGH},
	{"pg_read_binary_file", "sql.server_file", "reads a file on the server", TIER_HIGH},
	{"pg_ls_dir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_logdir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_waldir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_tmpdir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_archive_statusdir", "sql.server_file", "lists a directory on the server",
	 TIER_HIGH},
	{"pg_ls_logicalsnapdir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_logicalmapdir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_ls_replslotdir", "sql.server_file", "lists a directory on the server", TIER_HIGH},
	{"pg_stat_file", "sql.server_file", "reads a file's metadata on the server", TIER_HIGH},
	{"pg_logdir_ls", "sql.server_file", "lists the server's log directory", TIER_HIGH},
	{"lo_import", "sql.server_file", "reads a file on the server", TIER_HIGH},
	{"lo_export", "sql.server_file", "writes a file on the server", TIER_HIGH},
	{"pg_file_write", "sql.server_file", "writes a file on the server", TIER_HIGH},
	{"dblink", "net.fetch", "connects to another server", TIER_HIGH},
	{"dblink_exec", "net.fetch", "runs SQL on another server", TIER_HIGH},
	{"pg_terminate_backend", "sql.admin", "kills other sessions", TIER_HIGH},
	{"pg_cancel_backend", "sql.admin", "cancels other sessions' queries", TIER_HIGH},
	{"pg_reload_conf", "sql.admin", "reloads the server's configuration", TIER_HIGH},
	{"pg_promote", "sql.admin", "promotes a standby server to primary", TIER_HIGH},
	{"pg_drop_replication_slot", "sql.admin", "drops a replication slot a replica needs",
	 TIER_HIGH},
	{"pg_replication_origin_drop", "sql.admin", "drops a replication origin", TIER_HIGH},
	{"pg_create_physical_replication_slot", "sql.admin",
	 "creates a replication slot, which holds WAL until the disk fills", TIER_HIGH},
	{"pg_create_logical_replication_slot", "sql.admin",
	 "creates a replication slot, which holds WAL until the disk fills", TIER_HIGH},
	{"pg_file_unlink", "sql.server_file", "deletes a file on the server", TIER_HIGH},
	{"pg_file_rename", "sql.server_file", "renames a file on the server", TIER_HIGH},
	{"lo_unlink", "sql.delete", "deletes a large object", TIER_HIGH},
	{"dblink_connect", "net.fetch", "connects to another server", TIER_HIGH},
	{"load_extension", "sql.exec", "loads native code", TIER_HIGH},
	{"load_file", "sql.server_file", "reads a file on the server (MySQL)", TIER_HIGH},
	/* lib_mysqludf_sys, the usual MySQL UDFs that run shell commands */
	{"sys_exec", "sql.exec", "runs a shell command on the server (MySQL UDF)", TIER_HIGH},
	{"sys_eval", "sql.exec", "runs a shell command on the server (MySQL UDF)", TIER_HIGH},
	/* the sqlite3 shell's own functions, on the machine it runs on */
	{"readfile", "sql.server_file", "reads a file (sqlite3 readfile)", TIER_HIGH},
	{"writefile", "sql.server_file", "writes a file (sqlite3 writefile)", TIER_HIGH},
	{"fsdir", "sql.server_file", "lists directories (sqlite3 fsdir)", TIER_HIGH},
	{"zipfile", "sql.server_file", "reads or writes a zip file (sqlite3 zipfile)", TIER_HIGH},
	{"edit", "sql.exec", "runs an editor program (sqlite3 edit)", TIER_HIGH},
	{"setval", "sql.update", "sets a sequence: later inserts can reuse or skip ids", TIER_MEDIUM},
	{"nextval", "sql.update", "advances a sequence", TIER_MEDIUM},
	{"lo_create", "sql.insert", "creates a large object", TIER_MEDIUM},
	{"lo_from_bytea", "sql.insert", "creates a large object", TIER_MEDIUM},
	{"lo_put", "sql.update", "writes into a large object", TIER_MEDIUM},
	{"lo_truncate", "sql.update", "truncates a large object", TIER_MEDIUM},
	{"lowrite", "sql.update", "writes into a large object", TIER_MEDIUM},
	{"pg_replication_slot_advance", "sql.admin",
	 "advances a replication slot: the changes it skips never reach its replica", TIER_HIGH},
	{"pg_replication_origin_advance", "sql.admin",
	 "advances a replication origin: the changes it skips are never applied", TIER_HIGH},
	{"pg_copy_physical_replication_slot", "sql.admin",
	 "creates a replication slot, which holds WAL until the disk fills", TIER_HIGH},
	{"pg_copy_logical_replication_slot", "sql.admin",
	 "creates a replication slot, which holds WAL until the disk fills", TIER_HIGH},
	{"pg_wal_replay_resume", "sql.admin", "resumes a standby's replication", TIER_HIGH},
	{"pg_stat_reset_slru", "sql.admin", "discards the server's statistics", TIER_HIGH},
	{"pg_stat_reset_replication_slot", "sql.admin", "discards the server's statistics",
	 TIER_HIGH},
	{"pg_stat_reset_subscription_stats", "sql.admin", "discards the server's statistics",
	 TIER_HIGH},
	/* the names before PostgreSQL 10 and 15 */
	{"pg_start_backup", "sql.admin", "starts a server backup", TIER_HIGH},
	{"pg_stop_backup", "sql.admin", "ends a server backup", TIER_HIGH},
	{"pg_switch_xlog", "sql.admin", "forces a WAL segment switch", TIER_HIGH},
	{"pg_xlog_replay_pause", "sql.admin", "pauses a standby's replication", TIER_HIGH},
	{"pg_xlog_replay_resume", "sql.admin", "resumes a standby's replication", TIER_HIGH},
	{"pg_stat_reset", "sql.admin", "discards the server's statistics", TIER_HIGH},
	{"pg_stat_reset_shared", "sql.admin", "discards the server's statistics", TIER_HIGH},
	{"pg_stat_reset_single_table_counters", "sql.admin", "discards the server's statistics",
	 TIER_HIGH},
	{"pg_stat_statements_reset", "sql.admin", "discards the server's statistics", TIER_HIGH},
	{"pg_switch_wal", "sql.admin", "forces a WAL segment switch", TIER_HIGH},
	{"pg_create_restore_point", "sql.admin", "writes a named restore point into the WAL",
	 TIER_HIGH},
	{"pg_import_system_collations", "sql.create", "creates collations in a schema",
	 TIER_MEDIUM},
	{"pg_backup_start", "sql.admin", "starts a server backup", TIER_HIGH},
	{"pg_backup_stop", "sql.admin", "ends a server backup", TIER_HIGH},
	{"pg_wal_replay_pause", "sql.admin", "pauses a standby's replication", TIER_HIGH},
	{"pg_replication_origin_create", "sql.admin", "creates a replication origin", TIER_HIGH},
	{"pg_logical_emit_message", "sql.admin", "writes a message into the WAL", TIER_HIGH},
	{"pg_truncate_visibility_map", "sql.admin", "truncates a table's visibility map", TIER_HIGH},
	{"pg_rotate_logfile", "sql.admin", "rotates the server's log file", TIER_HIGH},
};

/* dblink_connect_u, dblink_send_query, dblink_open...: the extension's
 * every function talks to the other server */
static const struct sql_fn dblink_any = {"dblink", "net.fetch",
                                         "uses a connection to another server (dblink)",
                                         TIER_HIGH};

/* Built-in functions of PostgreSQL, SQLite and MySQL that only compute or
 * read (sorted, lower case), and the names the grammar gives its own
 * syntax (EXTRACT is pg_catalog.extract, TRIM btrim): any other name,
 * in pg_catalog too, is a function the database or the agent defined,
 * whose body is not in the text. `SELECT
 * purge_all()` deletes what purge_all's body deletes; it was low. */
static const char *const builtin_fns[] = {
	"abs", "acos", "acosh", "adddate", "addtime", "aes_decrypt", "aes_encrypt", "age", "any_value",
	"array",
	"array_agg", "array_append", "array_cat", "array_dims", "array_fill", "array_length",
	"array_lower", "array_ndims", "array_position", "array_positions", "array_prepend",
	"array_remove", "array_replace", "array_sample", "array_shuffle", "array_to_json",
	"array_to_string", "array_to_tsvector", "array_upper",
	"ascii", "asin", "asinh", "atan", "atan2", "atanh", "avg",
	"benchmark", "bin", "bit_and", "bit_count", "bit_length", "bit_or", "bit_xor", "bm25", "bool_and",
	"bool_or", "box", "btrim",
	"cardinality", "cast", "cbrt", "ceil", "ceiling", "changes", "char", "char_length",
	"character_length", "chr", "circle", "clock_timestamp", "coalesce", "col_description",
	"collation_for", "concat", "concat_ws", "connection_id", "conv", "convert", "convert_from",
	"convert_to", "corr", "cos", "cosh", "cot", "count", "covar_pop", "covar_samp", "crc32",
	"crosstab", "crosstab2", "crosstab3", "crosstab4", "crypt", "cume_dist", "cumulative", "curdate",
	"current_catalog", "current_database", "current_date", "current_role", "current_schema",
	"current_schemas", "current_setting", "current_time", "current_timestamp", "current_user",
	"currval", "curtime",
	"database",
	"date", "date_add", "date_bin", "date_format", "date_part", "date_sub", "date_subtract",
	"date_trunc", "datediff", "daterange", "datetime",
	"day", "dayname", "dayofmonth", "dayofweek", "dayofyear", "decode", "degrees", "dense_rank",
	"digest", "div",
	"elt", "encode", "every", "exp", "export_set", "extract",
	"factorial", "family", "field", "find_in_set", "first_value", "floor", "format", "format_bytes",
	"format_type", "found_rows", "from_base64", "from_days", "from_unixtime", "fts3_tokenizer",
	"gcd", "gen_random_bytes", "gen_random_uuid", "gen_salt", "generate_series",
	"generate_subscripts", "get_byte", "get_lock", "glob", "greatest", "group_concat",
	"has_any_column_privilege", "has_column_privilege", "has_database_privilege",
	"has_foreign_data_wrapper_privilege", "has_function_privilege", "has_language_privilege",
	"has_schema_privilege", "has_sequence_privilege", "has_server_privilege", "has_table_privilege",
	"has_tablespace_privilege", "has_type_privilege",
	"hex", "highlight", "hmac", "host", "hour",
	"ifnull", "iif", "inet6_aton", "inet6_ntoa", "inet_aton", "inet_client_addr", "inet_client_port",
	"inet_merge", "inet_ntoa", "inet_server_addr", "inet_server_port", "initcap", "instr",
	"int4range", "int8range", "is_free_lock", "is_normalized", "isempty", "isfinite", "isnull",
	"json", "json_agg", "json_array", "json_array_append", "json_array_elements",
	"json_array_elements_text", "json_array_insert", "json_array_length", "json_arrayagg",
	"json_build_array", "json_build_object", "json_contains", "json_depth", "json_each",
	"json_each_text", "json_extract", "json_extract_path", "json_extract_path_text",
	"json_group_array", "json_group_object", "json_insert", "json_keys", "json_length", "json_merge",
	"json_merge_patch", "json_merge_preserve", "json_object", "json_object_agg", "json_object_keys",
	"json_objectagg", "json_overlaps", "json_patch", "json_populate_record", "json_pretty",
	"json_quote", "json_remove", "json_replace", "json_schema_valid", "json_search", "json_set",
	"json_strip_nulls", "json_table", "json_tree", "json_type", "json_typeof", "json_unquote",
	"json_valid", "json_value", "jsonb", "jsonb_agg", "jsonb_array_elements",
	"jsonb_array_elements_text", "jsonb_array_length", "jsonb_build_array", "jsonb_build_object",
	"jsonb_each", "jsonb_each_text", "jsonb_extract_path", "jsonb_extract_path_text", "jsonb_insert",
	"jsonb_object", "jsonb_object_agg", "jsonb_object_keys", "jsonb_path_exists", "jsonb_path_query",
	"jsonb_path_query_array", "jsonb_path_query_first", "jsonb_pretty", "jsonb_set",
	"jsonb_strip_nulls", "jsonb_typeof",
	"julianday", "justify_days", "justify_hours", "justify_interval",
	"lag", "last_day", "last_insert_id", "last_insert_rowid", "last_value", "lastval", "lcase", "lcm",
	"lead", "least", "left", "length", "levenshtein", "like", "like_escape", "likelihood", "likely",
	"ln", "lo_close", "lo_get", "lo_lseek", "lo_lseek64", "lo_open", "lo_tell", "lo_tell64",
	"localtime", "localtimestamp", "locate", "log", "log10", "log1p", "log2", "loread", "lower",
	"lower_inc", "lpad", "ltrim",
	"make_date", "make_interval", "make_set", "make_time", "make_timestamp", "make_timestamptz",
	"makedate", "maketime", "masklength", "matchinfo", "max", "md5", "median", "microsecond", "mid",
	"min", "minute", "mod", "mode", "month", "monthname",
	"network", "normalize", "now", "nth_value", "ntile", "nullif", "num_nonnulls", "num_nulls",
	"numnode", "numrange",
	"obj_description", "oct", "octet_length", "offsets", "ord", "overlaps", "overlay",
	"percent_rank", "percentile", "percentile_cont", "percentile_disc",
	"period_add",
	"pg_advisory_lock", "pg_advisory_unlock", "pg_advisory_xact_lock",
	"pg_backend_pid", "pg_blocking_pids",
	"pg_char_to_encoding", "pg_collation_for", "pg_column_is_updatable", "pg_column_size",
	"pg_conf_load_time", "pg_current_logfile", "pg_current_snapshot", "pg_current_wal_insert_lsn",
	"pg_current_wal_lsn", "pg_current_xact_id",
	"pg_database_size", "pg_describe_object",
	"pg_encoding_to_char",
	"pg_get_constraintdef", "pg_get_expr", "pg_get_function_arguments",
	"pg_get_function_identity_arguments", "pg_get_function_result", "pg_get_functiondef",
	"pg_get_indexdef", "pg_get_keywords", "pg_get_object_address", "pg_get_partkeydef",
	"pg_get_ruledef", "pg_get_serial_sequence", "pg_get_statisticsobjdef", "pg_get_triggerdef",
	"pg_get_userbyid", "pg_get_viewdef", "pg_get_wal_replay_pause_state",
	"pg_has_role",
	"pg_identify_object", "pg_index_column_has_property", "pg_index_has_property",
	"pg_indexam_has_property", "pg_indexes_size", "pg_input_is_valid", "pg_is_in_recovery",
	"pg_is_wal_replay_paused",
	"pg_jit_available",
	"pg_last_committed_xact", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
	"pg_last_xact_replay_timestamp", "pg_listening_channels",
	"pg_my_temp_schema",
	"pg_notify",
	"pg_options_to_table",
	"pg_partition_ancestors", "pg_partition_root", "pg_partition_tree", "pg_postmaster_start_time",
	"pg_relation_filenode", "pg_relation_filepath", "pg_relation_size",
	"pg_safe_snapshot_blocking_pids", "pg_sequence_last_value", "pg_size_bytes", "pg_size_pretty",
	"pg_sleep",
	"pg_table_is_visible", "pg_table_size", "pg_tablespace_location", "pg_tablespace_size",
	"pg_total_relation_size", "pg_trigger_depth", "pg_try_advisory_lock", "pg_typeof",
	"pg_visible_in_snapshot",
	"pg_wal_lsn_diff", "pg_walfile_name",
	"pg_xact_commit_timestamp",
	"pgp_sym_decrypt", "pgp_sym_encrypt", "phraseto_tsquery", "pi", "plainto_tsquery", "point",
	"position", "pow", "power", "printf",
	"quarter", "query_to_xml", "query_to_xml_and_xmlschema", "query_to_xmlschema", "querytree",
	"quote", "quote_ident", "quote_literal", "quote_nullable",
	"radians", "rand", "random", "random_normal", "randomblob", "range_merge", "rank", "regclass",
	"regexp",
	"regexp_count", "regexp_instr", "regexp_like", "regexp_match", "regexp_matches", "regexp_replace",
	"regexp_split_to_array", "regexp_split_to_table", "regexp_substr",
	"regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx",
	"regr_sxy", "regr_syy", "release_all_locks", "release_lock", "repeat", "replace", "reverse",
	"right", "round", "row_count", "row_number", "row_security_active", "row_to_json", "rpad",
	"rtrim",
	"scale", "schema", "sec_to_time", "second", "session_user", "set_config", "setweight", "sha1",
	"sha2", "sha224", "sha256", "sha384", "sha512", "sign", "similar_escape", "similar_to_escape",
	"similarity", "sin", "sinh", "sleep", "snippet", "soundex", "space", "split_part",
	"sqlite_compileoption_get", "sqlite_compileoption_used", "sqlite_offset", "sqlite_source_id",
	"sqlite_version",
	"sqrt",
	"starts_with", "statement_timestamp", "std", "stddev", "stddev_pop", "stddev_samp", "str_to_date",
	"strcmp", "strftime", "string_agg", "string_to_array", "string_to_table", "strip", "strpos",
	"subdate", "substr", "substring", "substring_index", "subtime", "sum", "sysdate", "system_user",
	"tan", "tanh", "textcat", "time", "time_format", "time_to_sec", "timediff", "timeofday",
	"timestamp", "timestampadd", "timestampdiff", "timezone",
	"to_ascii", "to_base64", "to_char", "to_date", "to_days", "to_hex", "to_json", "to_jsonb",
	"to_number", "to_regclass", "to_regnamespace", "to_regoper", "to_regproc", "to_regprocedure",
	"to_regrole", "to_regtype", "to_seconds", "to_timestamp", "to_tsquery", "to_tsvector",
	"total", "total_changes", "transaction_timestamp", "translate", "trim", "trim_array", "trunc",
	"truncate",
	"ts_headline", "ts_lexize", "ts_rank", "ts_rank_cd", "ts_stat", "tsrange", "tstzrange",
	"tsvector_to_array",
	"txid_current", "txid_current_snapshot", "txid_status", "typeof",
	"ucase", "unaccent", "unhex", "unicode", "unistr", "unix_timestamp", "unixepoch", "unlikely",
	"unnest", "upper", "upper_inc", "user", "utc_date", "utc_time", "utc_timestamp", "uuid",
	"uuid_generate_v1", "uuid_generate_v4", "uuid_short",
	"var_pop", "var_samp", "variance", "version",
	"websearch_to_tsquery", "week", "weekday", "width_bucket", "word_similarity",
	"xml_is_well_formed", "xmlagg", "xmlcomment", "xmlconcat", "xmlelement", "xmlexists", "xmlforest",
	"xmlparse", "xmlpi", "xmlroot", "xmlserialize",
	"xpath", "xpath_exists",
	"year", "yearweek",
	"zeroblob",
};

static int builtin_cmp(const void *key, const void *elem)
{
	const struct {
		const char *s;
		size_t n;
	} *k = key;
	const char *e = *(const char *const *)elem;
	int c = strncasecmp(k->s, e, k->n);

	return c ? c : (e[k->n] ? -1 : 0);
}

/* Families of built-ins by their prefix: SQLite's pragma_NAME table-valued
 * functions (only pragmas without side effects have one) and PostGIS's
 * ST_ functions, which compute on geometries. */
static const char *const builtin_prefixes[] = {"pragma_", "st_"};

static bool fn_builtin(const char *name, size_t n)
{
	struct {
		const char *s;
		size_t n;
	} k = {name, n};

	for (size_t i = 0; i < nitems(builtin_prefixes); i++) {
		size_t pl = strlen(builtin_prefixes[i]);
		if (n > pl && strncasecmp(name, builtin_prefixes[i], pl) == 0)
			return true;
	}
	return bsearch(&k, builtin_fns, nitems(builtin_fns), sizeof(builtin_fns[0]), builtin_cmp);
}

/* A function no table knows: what it does is its body's, which the call
 * does not show (CALL of a procedure likewise). Fail closed. */
static const struct sql_fn unknown_fn = {"", "sql.call",
                                         "calls a function or procedure airlock does not know: "
                                         "its body is not in the text and may write, delete "
                                         "or drop",
                                         TIER_HIGH};

const struct sql_fn *sql_fn_find(const char *name, size_t n)
{
	for (size_t i = 0; i < nitems(sql_fns); i++)
		if (strlen(sql_fns[i].name) == n && strncasecmp(name, sql_fns[i].name, n) == 0)
			return &sql_fns[i];
	if (n >= 6 && strncasecmp(name, "dblink", 6) == 0)
		return &dblink_any;
	return fn_builtin(name, n) ? NULL : &unknown_fn;
}

bool sql_fn_runs_sql(const char *name, size_t n)
{
	for (size_t k = 0; k < nitems(runs_sql); k++)
		if (strlen(runs_sql[k]) == n && strncasecmp(name, runs_sql[k], n) == 0)
			return true;
	return false;
}

static void n_func(struct sqlw *s, json_t *n)
{
	json_t *names = json_object_get(n, "funcname");
	const char *f = str(json_object_get(json_array_get(names, json_array_size(names) - 1), "String"), "sval");
	const struct sql_fn *fn = f ? sql_fn_find(f, strlen(f)) : NULL;

	if (fn)
		add(s, fn->tier, fn->rule, fn->why);
	if (f)
		func_sql_text(s, n, f);
	if (f && strcasecmp(f, "set_config") == 0) /* SET by another name */
		setting(s, const_string(json_array_get(json_object_get(n, "args"), 0)));
}

/* CALL p(): its call is under "funccall", not a FuncCall node the walk
 * meets (it was medium, a statement with no rating) */
static void n_call(struct sqlw *s, json_t *n)
{
	json_t *f = json_object_get(n, "funccall");

	if (f)
		n_func(s, f);
	else
		add(s, TIER_HIGH, "sql.call", "CALL runs a procedure whose body is not in the text");
}

static const struct {
	const char *type;
	node_fn fn; /* NULL: known and harmless */
} nodes[] = {
	{"DeleteStmt", n_delete}, {"UpdateStmt", n_update}, {"InsertStmt", n_insert},
	{"MergeStmt", n_merge}, {"DropStmt", n_drop}, {"DropdbStmt", n_dropdb},
	{"TruncateStmt", n_truncate}, {"AlterTableStmt", n_alter}, {"RenameStmt", n_alter},
	{"AlterObjectSchemaStmt", n_alter}, {"AlterOwnerStmt", n_owner}, {"AlterSeqStmt", n_alter},
	{"AlterEnumStmt", n_alter}, {"AlterDomainStmt", n_alter}, {"AlterFunctionStmt", n_alter_function},
	{"CreatePolicyStmt", n_policy}, {"AlterPolicyStmt", n_policy},
	{"AlterDatabaseSetStmt", n_alterdb_set},
	{"GrantStmt", n_grant}, {"GrantRoleStmt", n_grant}, {"AlterDefaultPrivilegesStmt", n_grant},
	{"CopyStmt", n_copy}, {"CreateStmt", n_create}, {"IndexStmt", n_create},
	{"ViewStmt", n_create}, {"CreateTableAsStmt", n_create}, {"CreateSeqStmt", n_create},
	{"CreateSchemaStmt", n_create}, {"CompositeTypeStmt", n_create}, {"CreateEnumStmt", n_create},
	{"CreateDomainStmt", n_create}, {"CreatedbStmt", n_create}, {"CommentStmt", n_create},
	{"CreateTrigStmt", n_create}, {"RuleStmt", n_create}, {"DefineStmt", n_create},
	{"CreateFunctionStmt", n_function}, {"DoStmt", n_do}, {"LoadStmt", n_exec},
	{"CreateExtensionStmt", n_exec}, {"AlterSystemStmt", n_admin}, {"CreateRoleStmt", n_admin},
	{"AlterRoleStmt", n_admin}, {"DropRoleStmt", n_admin}, {"AlterRoleSetStmt", n_admin},
	{"ReassignOwnedStmt", n_admin},
	{"DropOwnedStmt", n_drop_owned}, {"DropTableSpaceStmt", n_drop}, {"DropSubscriptionStmt", n_drop},
	{"DropUserMappingStmt", n_drop}, {"CreateSubscriptionStmt", n_subscription},
	{"AlterSubscriptionStmt", n_subscription}, {"ImportForeignSchemaStmt", n_foreign}, {"FuncCall", n_func}, {"SelectStmt", n_select}, {"RangeVar", n_range},
	{"ExplainStmt", NULL}, {"VariableShowStmt", NULL}, {"TransactionStmt", n_transaction},
	{"VariableSetStmt", n_set}, {"PrepareStmt", NULL}, {"DeallocateStmt", NULL},
	{"DeclareCursorStmt", NULL}, {"FetchStmt", NULL}, {"ClosePortalStmt", NULL},
	{"ListenStmt", NULL}, {"UnlistenStmt", NULL}, {"NotifyStmt", NULL}, {"CheckPointStmt", NULL},
	{"DiscardStmt", NULL}, {"VacuumStmt", n_vacuum}, {"ReindexStmt", n_maintenance},
	{"LockStmt", n_lock}, {"ClusterStmt", n_cluster},
	{"CallStmt", n_call},
};

/* The node table in name order, built once (rows stay grouped by kind). */
static size_t order[nitems(nodes)];
static pthread_once_t order_once = PTHREAD_ONCE_INIT;

static int order_cmp(const void *a, const void *b)
{
	return strcmp(nodes[*(const size_t *)a].type, nodes[*(const size_t *)b].type);
}

static void order_build(void)
{
	for (size_t i = 0; i < nitems(nodes); i++)
		order[i] = i;
	qsort(order, nitems(nodes), sizeof(order[0]), order_cmp);
}

static int node_index(const char *type)
{
	size_t lo = 0, hi = nitems(nodes);

	pthread_once(&order_once, order_build);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(type, nodes[order[mid]].type);
		if (c == 0)
			return (int)order[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static void walk(struct sqlw *s, json_t *j)
{
	const char *key;
	json_t *val;
	size_t i;

	if (++s->depth > 200) {
		add(s, TIER_HIGH, "parse.too_deep", "the SQL tree is nested too deeply to read");
		s->depth--;
		return;
	}
	if (json_is_array(j)) {
		json_array_foreach(j, i, val)
			walk(s, val);
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, val) {
			int k = key[0] >= 'A' && key[0] <= 'Z' ? node_index(key) : -1;
			if (k >= 0 && nodes[k].fn)
				nodes[k].fn(s, val);
			if (json_is_object(val) || json_is_array(val))
				walk(s, val);
		}
	}
	s->depth--;
}

static void add_statement(struct cctx *x, const char *sql, size_t off, size_t len)
{
	while (len && strchr(" \t\r\n", sql[off])) {
		off++;
		len--;
	}
	while (len && strchr(" \t\r\n;", sql[off + len - 1]))
		len--;
	if (len)
		strv_push_owned(&x->v->statements, xstrndup(sql + off, len));
}

/* Walks one parse tree; returns -1 when the JSON cannot be read. */
static int walk_tree(struct cctx *x, const char *tree, const char *sql, size_t len, bool exact,
                     size_t base, struct span sp)
{
	json_t *root = json_loads(tree, 0, NULL), *st;
	size_t i;

	if (root == NULL)
		return -1;
	json_array_foreach(json_object_get(root, "stmts"), i, st) {
		json_t *node = json_object_get(st, "stmt");
		size_t off = (size_t)json_integer_value(json_object_get(st, "stmt_location"));
		size_t sl = (size_t)json_integer_value(json_object_get(st, "stmt_len"));
		struct sqlw s = {x, sp, sql + off, 0, 0};
		const char *type = json_object_iter_key(json_object_iter(node));

		if (off > len)
			off = len;
		if (sl == 0 || sl > len - off)
			sl = len - off;
		s.stmt = sql + off;
		s.stmtlen = sl;
		if (exact)
			s.sp = cls_span(x, base + off, sl);
		if (x->sql_body == 0) /* a body's statements run when it is called */
			add_statement(x, sql, off, sl);
		if (type && node_index(type) < 0)
			add(&s, TIER_MEDIUM, "sql.other", "a statement kind airlock does not rate");
		walk(&s, node);
	}
	json_decref(root);
	return 0;
}

/* Whether the script gives NAME a literal value (a later reading of the
 * script judges the SQL with it), or airlock knows it (HOME, PWD). */
static bool shell_var_known(const struct cctx *x, const char *name, size_t n)
{
	if ((n == 4 && memcmp(name, "HOME", 4) == 0) || (n == 3 && memcmp(name, "PWD", 3) == 0))
		return true;
	for (size_t i = 0; i < x->nvars; i++)
		if (strlen(x->vars[i].name) == n && memcmp(x->vars[i].name, name, n) == 0)
			return true;
	return false;
}

/*
 * Whether SQL from a shell command's word or here-document still holds a
 * $NAME, ${...} or $(...) that the shell fills in at run time with text
 * airlock never sees, and that can be any SQL: `ID=$(cat x); psql -c
 * "SELECT * FROM t WHERE id = $ID"` was low, and x may hold `1; DROP
 * TABLE t`. A name the script gives a literal value is judged with that
 * value in a later reading (ID=5 is no finding). A $tag$ dollar quote,
 * $1 (a parameter, or the shell's: as often a function body's) and a
 * name's own $ (my$col) are not counted.
 */
static bool shell_runtime_text(const struct cctx *x, const char *sql, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		size_t k = i + 1, name;
		bool brace;
		if (sql[i] != '$' || (i > 0 && (isalnum((unsigned char)sql[i - 1]) || sql[i - 1] == '_')))
			continue;
		if (sql[k] == '(')
			return true;
		brace = sql[k] == '{';
		k += brace;
		name = k;
		if (k == len || (!isalpha((unsigned char)sql[k]) && sql[k] != '_'))
			continue;
		while (k < len && (isalnum((unsigned char)sql[k]) || sql[k] == '_'))
			k++;
		if (!brace && k < len && sql[k] == '$') { /* $tag$ opens a dollar quote */
			i = k;
			continue;
		}
		if ((brace && (k == len || sql[k] != '}')) || !shell_var_known(x, sql + name, k - name))
			return true; /* ${NAME:-...} and the like, or a name with no known value */
		i = k;
	}
	return false;
}

/*
 * Text the grammar rejects as a whole is read by keywords; each of its
 * statements that the grammar reads alone is walked as well, since a
 * client that runs a script statement by statement (psql, sqlite3, the
 * sql tool) runs it past the one it rejects. One MySQL `LIMIT 1, 2`
 * made `LOAD '/tmp/x.so'` (native code) and `COPY t FROM '/etc/passwd'`
 * low, ALTER SYSTEM, CREATE EXTENSION and ALTER ROLE ... SUPERUSER
 * medium, by keywords. The keyword reading lists the statements.
 */
static void grammar_statements(struct cctx *x, const struct lazy_pgquery *pg, const char *sql,
                               size_t len, bool exact, size_t base, struct span sp)
{
	PgQuerySplitResult sr = pg->pg_query_split_with_scanner(sql);

	x->sql_body++; /* not listed again */
	for (int i = 0; sr.error == NULL && sr.n_stmts > 1 && i < sr.n_stmts; i++) {
		size_t off = (size_t)sr.stmts[i]->stmt_location, n = (size_t)sr.stmts[i]->stmt_len;
		PgQueryParseResult r;
		char *one;
		if (off > len || n > len - off)
			break;
		/* the split keeps the blanks after the ';': without them each
		 * finding's span is the keyword reading's, which cls_add() then
		 * keeps once (`SELECT ^; DELETE FROM t` listed sql.delete twice) */
		while (n > 0 && isspace((unsigned char)sql[off]))
			off++, n--;
		one = arena_strndup(x->a, sql + off, n);
		r = pg->pg_query_parse(one);
		if (r.error == NULL)
			(void)walk_tree(x, r.parse_tree, one, n, exact, base + off, sp);
		pg->pg_query_free_parse_result(r);
	}
	x->sql_body--;
	pg->pg_query_free_split_result(sr);
}

void sql_classify(struct cctx *x, const char *sql, size_t len, bool exact, size_t base,
                  struct span sp)
{
	char *err = NULL, *copy = arena_strndup(x->a, sql, len);
	const struct lazy_pgquery *pg = lazy_pgquery(&err);
	PgQueryParseResult r;

	size_t before = strv_len(x->v->statements);

	if (x->cur && x->sql_body == 0 && shell_runtime_text(x, copy, len))
		cls_add(x, TIER_HIGH, "sql.exec", sp, "the SQL holds $NAME or $( ) that the shell "
		                                      "fills in at run time: it can be any SQL");
	sql_dot_commands(x, copy, len, exact, base, sp);
	if (pg == NULL) {
		cls_add(x, TIER_HIGH, "sql.parser_unavailable", sp,
		        "cannot read SQL with certainty: %s", err ? err : "libpg_query missing");
		free(err);
		sql_fallback(x, copy, len, exact, base, sp, true);
		return;
	}
	r = pg->pg_query_parse(copy);
	if (r.error || walk_tree(x, r.parse_tree, copy, len, exact, base, sp) < 0) {
		sql_fallback(x, copy, len, exact, base, sp, true);
		if (r.error)
			grammar_statements(x, pg, copy, len, exact, base, sp);
	}
	else if (memmem(copy, len, "/*!", 3))
		/* MySQL runs the text of its executable comments (slash-star-bang),
		 * which PostgreSQL skips: read them by keywords too, and list
		 * their statements when the grammar saw only a comment */
		sql_fallback(x, copy, len, exact, base, sp, strv_len(x->v->statements) == before);
	else if (sql_reads_otherwise(x, copy, len))
		/* what follows a -- with no blank in MySQL, and a $$ string in
		 * SQLite or MySQL (no quote there): SELECT $q$; DROP TABLE t;
		 * SELECT $q$ drops t */
		sql_fallback_otherwise(x, copy, len, exact, base, sp);
	pg->pg_query_free_parse_result(r);
}
