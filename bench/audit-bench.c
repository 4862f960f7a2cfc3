/*
 * audit-bench.c: the audit log's speed figures (bench/audit.sh builds it
 * against libairlock.a). Modes:
 *   append PATH N   N auto calls through the public API as the gate records
 *                   them: 4 chained events each (received, classified,
 *                   decided, finished) in 2 commits: prints events/s
 *   append-ask PATH N  the same for asked calls: 3 commits per call
 *   fill PATH N     N calls of one "received" event each, chained, in bulk
 *                   transactions of 10,000 (to build a large log quickly)
 *   baseline PATH N N one-row transactions into a plain WAL table, no chain:
 *                   the per-commit floor of this machine, as rows/s
 *   verify PATH     db_verify over the whole log: prints seconds
 *   page PATH       open + the first page of 50 calls, unfiltered and with
 *                   filters (the browser's first screen): prints ms
 *   redact FILE N   db_redact_text() over 1 MiB (the capture cap of one
 *                   stream) made of FILE repeated, N times: prints MB/s
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "db/db.h"
#include "db/db_internal.h"

static double now_s(void)
{
	return (double)clock_ns() / 1e9;
}

static struct db *open_or_die(const char *path)
{
	struct db *db;
	char *err = NULL;

	if (db_open(path, &db, &err) < 0) {
		fprintf(stderr, "audit-bench: %s\n", err);
		exit(1);
	}
	return db;
}

static void die(const char *what, char *err)
{
	fprintf(stderr, "audit-bench: %s: %s\n", what, err ? err : "?");
	exit(1);
}

/* mode 'a': an auto call as the gate records it: received, classified and
 * decided in one commit before it runs (db_call_begin), finished in a
 * second. mode 'k': an asked call: received (+classified), decided and
 * finished each in its own commit (the person's wait between them is
 * not timed). Prints events/s. */
static int bench_append(const char *path, long long n, char mode)
{
	struct db *db = open_or_die(path);
	struct db_session_info si = {.cwd = "/w", .mode = "gate", .policy_digest = "00"};
	struct db_decision d = {ACTION_AUTO, DECISION_AUTO, "policy", NULL, 0, NULL};
	struct db_decision asked = {ACTION_ASK, DECISION_APPROVED, "user", NULL, 0, NULL};
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	char *err = NULL;
	double t0;

	c->tool = TOOL_SHELL;
	c->name = xstrdup("shell");
	c->input = json_pack("{s:s}", "command", "git status --short && ls -la src/");
	c->command = json_string_value(json_object_get(c->input, "command"));
	verdict_add(v, TIER_MEDIUM, "git.read", (struct span){0, 3}, "reads the repository");
	o->decision = DECISION_AUTO;
	o->ran = true;
	o->exit_code = 0;
	o->out = xstrdup(" M db/db.c\n?? db/chain.c\ntotal 48\n");
	o->outlen = strlen(o->out);
	if (db_session_begin(db, &si, &err) < 0)
		die("session", err);
	t0 = now_s();
	for (long long i = 0; i < n; i++) {
		int64_t id;
		int rc = mode == 'a'
		                 ? db_call_begin(db, c, v, &d, NULL, &id, &err)
		                 : db_call_received(db, c, v, &id, &err) < 0
		                           ? -1
		                           : db_call_decided(db, id, &asked, &err);
		if (rc < 0 || db_call_finished(db, id, o, &err) < 0)
			die("append", err);
	}
	double dt = now_s() - t0;
	if (db_session_end(db, &err) < 0)
		die("session end", err);
	printf("%.0f\n", (double)(n * 4) / dt);
	call_free(c);
	verdict_free(v);
	outcome_free(o);
	db_close(db);
	return 0;
}

/* One bulk transaction of `count` calls, each a chained received event
 * plus its call_index row. */
static void fill_batch(struct db *db, long long base, long long count)
{
	static const char *const tools[] = {"shell", "shell", "shell", "read_file", "sql", "http"};
	struct chain_tx tx;
	char *err = NULL;

	if (chain_begin(db, &tx, &err) < 0)
		die("begin", err);
	for (long long i = base; i < base + count; i++) {
		char body[256];
		int64_t id;
		sqlite3_stmt *st;
		snprintf(body, sizeof(body), "{\"id\":\"c%lld\",\"input\":{\"command\":\"make -j4 target%lld"
		         "\"},\"name\":\"shell\",\"summary\":\"make -j4 target%lld\",\"tool\":\"%s\"}",
		         i, i % 1000, i % 1000, tools[i % 6]);
		if (chain_add(db, &tx, 1, -1, "received", body, &id, &err) < 0)
			die("add", err);
		st = db_stmt(db, ST_SUM_INSERT, &err);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, 1);
		sqlite3_bind_text(st, 3, tx.time, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, "gate", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, tools[i % 6], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, tools[i % 6], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, body + 40, 20, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 8, (int)(i % 7 == 0 ? 3 : i % 4));
		sqlite3_bind_text(st, 9, i % 7 == 0 ? "fs.delete.recursive" : "", -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("index", xstrdup(sqlite3_errmsg(db->sql)));
		sqlite3_reset(st);
	}
	if (chain_commit(db, &tx, &err) < 0)
		die("commit", err);
}

static int bench_fill(const char *path, long long n)
{
	struct db *db = open_or_die(path);
	double t0 = now_s();

	for (long long i = 0; i < n; i += 10000)
		fill_batch(db, i, n - i < 10000 ? n - i : 10000);
	/* Decisions in bulk, with the same spread a real log has. */
	if (sqlite3_exec(db->sql, "UPDATE call_index SET decision = CASE id % 5 WHEN 3 THEN"
	                 " 'approved' WHEN 4 THEN 'denied' ELSE 'auto' END;"
	                 "INSERT OR IGNORE INTO call_rules SELECT 'fs.delete.recursive', id"
	                 " FROM call_index WHERE rules != ''", NULL, NULL, NULL) != SQLITE_OK)
		die("decisions", xstrdup(sqlite3_errmsg(db->sql)));
	printf("%.0f\n", (double)n / (now_s() - t0));
	db_close(db);
	return 0;
}

static int bench_baseline(const char *path, long long n)
{
	sqlite3 *s;
	sqlite3_stmt *st;
	double t0;

	if (sqlite3_open(path, &s) != SQLITE_OK ||
	    sqlite3_exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
	                 "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s, "INSERT INTO t(body) VALUES ('{\"command\":\"git status\"}')", -1,
	                       &st, NULL) != SQLITE_OK)
		die("baseline", xstrdup(sqlite3_errmsg(s)));
	t0 = now_s();
	for (long long i = 0; i < n; i++) {
		sqlite3_exec(s, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("baseline", xstrdup(sqlite3_errmsg(s)));
		sqlite3_reset(st);
		sqlite3_exec(s, "COMMIT", NULL, NULL, NULL);
	}
	printf("%.0f\n", (double)n / (now_s() - t0));
	sqlite3_finalize(st);
	sqlite3_close(s);
	return 0;
}

static int bench_redact(const char *file, long long n)
{
	FILE *f = fopen(file, "rb");
	size_t cap = 1u << 20, got = 0, len, k;
	char *text = xmalloc(cap), *out;
	double t0;

	while (f && got < cap && (k = fread(text + got, 1, cap - got, f)) > 0) {
		got += k;
		if (got < cap)
			rewind(f);
	}
	if (f == NULL || got == 0) {
		fprintf(stderr, "audit-bench: cannot read %s\n", file);
		exit(1);
	}
	fclose(f);
	t0 = now_s();
	for (long long i = 0; i < n; i++)
		free(db_redact_text(text, got, &len));
	printf("%.1f\n", (double)got * (double)n / (now_s() - t0) / 1e6);
	free(text);
	return 0;
}

static int bench_verify(const char *path)
{
	struct db *db = open_or_die(path);
	long long n = 0;
	char *err = NULL;
	double t0 = now_s();

	if (db_verify(db, &n, &err) != 0)
		die("verify", err);
	printf("%.3f %lld\n", now_s() - t0, n);
	db_close(db);
	return 0;
}

static int count_cb(void *arg, const struct db_call_row *row)
{
	(void)row;
	++*(int *)arg;
	return 0;
}

static int bench_page(const char *path)
{
	static const struct { const char *label; struct db_filter f; } cases[] = {
		{"first page", {.tier = -1}},
		{"tier critical", {.tier = 3}},
		{"decision denied", {.tier = -1, .decision = "denied"}},
		{"rule", {.tier = -1, .rule = "fs.delete.recursive"}},
		{"text", {.tier = -1, .text = "target999"}},
	};
	char *err = NULL;

	for (size_t i = 0; i < nitems(cases); i++) {
		double t0 = now_s();
		struct db *db = open_or_die(path);
		int rows = 0;
		if (db_calls_page(db, &cases[i].f, 0, DB_PAGE_OLDER, 50, count_cb, &rows, &err) < 0)
			die("page", err);
		db_close(db);
		printf("%s\t%.1f\t%d\n", cases[i].label, (now_s() - t0) * 1000, rows);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long n = 0;

	if (argc >= 4)
		parse_ll(argv[3], 1, 100000000, &n);
	if (argc == 4 && strcmp(argv[1], "append") == 0)
		return bench_append(argv[2], n, 'a');
	if (argc == 4 && strcmp(argv[1], "append-ask") == 0)
		return bench_append(argv[2], n, 'k');
	if (argc == 4 && strcmp(argv[1], "fill") == 0)
		return bench_fill(argv[2], n);
	if (argc == 4 && strcmp(argv[1], "baseline") == 0)
		return bench_baseline(argv[2], n);
	if (argc == 4 && strcmp(argv[1], "redact") == 0)
		return bench_redact(argv[2], n);
	if (argc == 3 && strcmp(argv[1], "verify") == 0)
		return bench_verify(argv[2]);
	if (argc == 3 && strcmp(argv[1], "page") == 0)
		return bench_page(argv[2]);
	fprintf(stderr, "usage: audit-bench append|append-ask|fill PATH N | redact FILE N | "
	                "verify|page PATH\n");
	return 2;
}
