/*
 * test_db.c: the audit log against real SQLite files: redaction cases,
 * filters and paging, tampering (triggers dropped first), tail anchoring,
 * prune, migration from a real v1 log, foreign and newer files, and
 * several processes appending at once. Cases live in tests/data/db/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "core/util.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "tdata.h"

#define MAXCALLS 32

static char dir[] = "/tmp/airlock-test-db-XXXXXX";
static int serial;

static char *tmp_path(void)
{
	return xasprintf("%s/t%d.db", dir, ++serial);
}

static struct db *open_ok(const char *path)
{
	struct db *db = NULL;
	char *err = NULL;

	if (db_open(path, &db, &err) != 0)
		fail_msg("db_open %s: %s", path, err);
	return db;
}

/* Runs raw SQL on the file with a separate connection, as an attacker would. */
static void raw_sql(const char *path, const char *sql)
{
	sqlite3 *s;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	if (sqlite3_exec(s, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("sql %s: %s", sql, err);
	sqlite3_close(s);
}

static enum tier tier_of(const char *s)
{
	enum tier t = TIER_LOW;
	assert_int_equal(tier_from_name(s, &t), 0);
	return t;
}

static const struct {
	const char *name;
	enum decision d;
	enum action a;
} decisions[] = {
	{"auto", DECISION_AUTO, ACTION_AUTO},
	{"approved", DECISION_APPROVED, ACTION_ASK},
	{"denied", DECISION_DENIED, ACTION_ASK},
};

/* verdict_add wants rule ids with static storage: intern them. */
static char *interned[64];

static const char *intern(const char *s)
{
	size_t i;

	for (i = 0; i < nitems(interned) && interned[i]; i++)
		if (strcmp(interned[i], s) == 0)
			return interned[i];
	assert_true(i < nitems(interned));
	return interned[i] = xstrdup(s);
}

/* Records one calls.tsv row; returns the call id. */
static int64_t record_row(struct db *db, const struct tdata_row *r)
{
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	char *err = NULL, *rules = xstrdup(r->f[3]), *save = NULL;
	int64_t id = 0;
	static const enum tool tools[] = {TOOL_SHELL, TOOL_SQL, TOOL_READ_FILE, TOOL_HTTP};

	c->tool = TOOL_OTHER;
	for (size_t i = 0; i < nitems(tools); i++)
		if (strcmp(r->f[0], tool_name(tools[i])) == 0)
			c->tool = tools[i];
	c->name = xstrdup(r->f[0]);
	c->input = json_pack("{s:s}", "subject", r->f[1]);
	c->command = c->query = c->path = c->url = json_string_value(json_object_get(c->input, "subject"));
	for (char *t = strtok_r(rules, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcmp(t, "-") != 0)
			verdict_add(v, tier_of(r->f[2]), intern(t), (struct span){0, 0}, "because %s", t);
	v->tier = tier_of(r->f[2]);
	if (db_call_received(db, c, v, &id, &err) != 0)
		fail_msg("received: %s", err);
	for (size_t i = 0; i < nitems(decisions); i++) {
		if (strcmp(r->f[4], decisions[i].name) != 0)
			continue;
		if (db_call_decided(db, id,
		                    &(struct db_decision){decisions[i].a, decisions[i].d, r->f[5], NULL,
		                                          strtoll(r->f[6], NULL, 10), NULL},
		                    &err) != 0)
			fail_msg("decided: %s", err);
		if (decisions[i].d != DECISION_DENIED) {
			struct outcome *o = outcome_new();
			o->decision = decisions[i].d;
			o->ran = true;
			o->exit_code = 0;
			o->duration_ms = 7;
			if (db_call_finished(db, id, o, &err) != 0)
				fail_msg("finished: %s", err);
			outcome_free(o);
		}
	}
	free(rules);
	call_free(c);
	verdict_free(v);
	return id;
}

/* A log with the calls of calls.tsv in one ended gate session. */
static size_t make_log(const char *path, int64_t *ids)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/calls.tsv", &rows);
	struct db *db = open_ok(path);
	struct db_session_info si = {.cwd = "/w", .mode = "gate", .policy_digest = "00"};
	char *err = NULL;

	assert_true(n <= MAXCALLS);
	if (db_session_begin(db, &si, &err) != 0)
		fail_msg("session: %s", err);
	for (size_t i = 0; i < n; i++)
		ids[i] = record_row(db, &rows[i]);
	if (db_session_end(db, &err) != 0)
		fail_msg("end: %s", err);
	db_close(db);
	tdata_free(rows, n);
	return n;
}

static void verify_ok(const char *path, long long *events)
{
	struct db *db = open_ok(path);
	struct db_verify_report r;
	char *err = NULL;

	if (db_verify_report(db, &r, &err) != 0)
		fail_msg("verify %s: %s", path, err);
	if (events)
		*events = r.events;
	db_close(db);
}

/* ---- redaction ---- */

static void test_redact_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/redact.tsv", &rows);
	char *values[] = {(char *)"s3cr3t-value-42", NULL};

	(void)state;
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *got = redact_text(rows[i].f[0], strlen(rows[i].f[0]), values, &len);
		const char *shown = got ? got : rows[i].f[0];
		if (strcmp(shown, rows[i].f[1]) != 0)
			fail_msg("%s:%zu: got '%s', want '%s'", rows[i].file, rows[i].line, shown,
			         rows[i].f[1]);
		free(got);
	}
	tdata_free(rows, n);
}

/* Argv arrays: an option's password in the word after it, or attached. */
static void test_redact_argv(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/redact_argv.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		json_t *in = json_loads(rows[i].f[0], 0, NULL), *got;
		char *text;
		assert_non_null(in);
		got = redact_json(in, NULL);
		text = json_dumps(got, JSON_COMPACT);
		if (strcmp(text, rows[i].f[1]) != 0)
			fail_msg("%s:%zu: got %s, want %s", rows[i].file, rows[i].line, text, rows[i].f[1]);
		free(text);
		json_decref(got);
		json_decref(in);
	}
	tdata_free(rows, n);
}

/* Large texts with many secrets redact in one forward walk: a time bound
 * far above the linear cost and far below the old quadratic one. */
static void test_redact_scale(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/redact_scale.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct buf b;
		struct timespec t0, t1;
		size_t len, times = strtoul(rows[i].f[1], NULL, 10), markers = 0;
		char *text, *got;
		double secs;

		buf_init(&b, 0);
		for (size_t k = 0; k < times; k++)
			buf_puts(&b, rows[i].f[0]);
		buf_puts(&b, rows[i].nf > 3 ? rows[i].f[3] : "");
		text = buf_take(&b, &len);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		got = redact_text(text, len, NULL, &len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		for (const char *p = got; p && (p = strstr(p, "[REDACTED:")) != NULL; p++)
			markers++;
		if (secs > 5.0 || markers != strtoul(rows[i].f[2], NULL, 10))
			fail_msg("%s:%zu: %zu markers (want %s) in %.1f s (want under 5)",
			         rows[i].file, rows[i].line, markers, rows[i].f[2], secs);
		free(got);
		free(text);
	}
	tdata_free(rows, n);
}

/* Stored bodies are redacted, the caller's call is not touched, and
 * --no-redact stores the text as is. */
static void test_redact_stored(void **state)
{
	char *path = tmp_path(), *err = NULL, *text;
	struct db *db = open_ok(path);
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	json_t *detail = NULL;
	int64_t id;
	const char *cmd = "curl -u x:y https://me:pw123@h/ -H 'Authorization: Bearer "
	                  "ghp_abcdefghijklmnopqrstuvwxyz0123456789' # TOKENVALUE99";

	(void)state;
	db_add_secret_value(db, "TOKENVALUE99");
	db_add_secret_value(db, "abc"); /* too short: ignored */
	c->tool = TOOL_SHELL;
	c->input = json_pack("{s:s}", "command", cmd);
	c->command = json_string_value(json_object_get(c->input, "command"));
	assert_int_equal(db_call_received(db, c, v, &id, &err), 0);
	assert_string_equal(json_string_value(json_object_get(c->input, "command")), cmd);
	assert_int_equal(db_call_detail(db, id, &detail, &err), 0);
	text = json_dumps(detail, 0);
	assert_null(strstr(text, "pw123"));
	assert_null(strstr(text, "ghp_abc"));
	assert_null(strstr(text, "TOKENVALUE99"));
	assert_non_null(strstr(text, "[REDACTED:credential]"));
	assert_non_null(strstr(text, "-u x:[REDACTED:password]")); /* curl user:password */
	free(text);
	json_decref(detail);
	db_set_redact(db, false);
	assert_int_equal(db_call_received(db, c, v, &id, &err), 0);
	assert_int_equal(db_call_detail(db, id, &detail, &err), 0);
	text = json_dumps(detail, 0);
	assert_non_null(strstr(text, "TOKENVALUE99"));
	free(text);
	json_decref(detail);
	call_free(c);
	verdict_free(v);
	db_close(db);
	free(path);
}

/* A stream cut at the capture cap loses its last partial word, which may
 * be a secret too short for any shape (tests/data/db/cut.tsv). */
static void test_cut_stream(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/cut.tsv", &rows);
	char *path = tmp_path(), *err = NULL;
	struct db *db = open_ok(path);
	struct call *c = call_new();
	struct verdict *v = verdict_new();

	(void)state;
	c->tool = TOOL_SHELL;
	c->input = json_pack("{s:s}", "command", "x");
	for (size_t i = 0; i < n; i++) {
		struct outcome *o = outcome_new();
		json_t *detail = NULL, *events;
		const char *got;
		int64_t id;

		o->out = xstrdup(rows[i].f[0]);
		o->outlen = strlen(o->out);
		o->truncated = strcmp(rows[i].f[1], "1") == 0;
		assert_int_equal(db_call_received(db, c, v, &id, &err), 0);
		assert_int_equal(db_call_finished(db, id, o, &err), 0);
		assert_int_equal(db_call_detail(db, id, &detail, &err), 0);
		events = json_object_get(detail, "events");
		got = json_string_value(json_object_get(
			json_object_get(json_array_get(events, json_array_size(events) - 1), "body"),
			"stdout"));
		if (got == NULL || strcmp(got, rows[i].f[2]) != 0)
			fail_msg("%s:%zu: stored '%s', want '%s'", rows[i].file, rows[i].line,
			         got ? got : "(none)", rows[i].f[2]);
		json_decref(detail);
		outcome_free(o);
	}
	call_free(c);
	verdict_free(v);
	db_close(db);
	free(path);
	tdata_free(rows, n);
}

/* ---- queries ---- */

struct collect {
	int64_t ids[MAXCALLS * 2];
	size_t n;
};

static int collect_cb(void *arg, const struct db_call_row *row)
{
	struct collect *c = arg;
	assert_true(c->n < nitems(c->ids));
	c->ids[c->n++] = row->id;
	return 0;
}

/* Parses "key=value key=value" into f; values point into spec. */
static void parse_filter(char *spec, struct db_filter *f)
{
	char *save = NULL;

	db_filter_init(f);
	for (char *kv = strtok_r(spec, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
		char *v = strchr(kv, '=');
		if (v == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(kv, "tier") == 0) {
			size_t l = strlen(v);
			f->tier_at_least = v[l - 1] == '+';
			v[l - (f->tier_at_least ? 1 : 0)] = '\0';
			f->tier = (int)tier_of(v);
		} else if (strcmp(kv, "decision") == 0) {
			f->decision = v;
		} else if (strcmp(kv, "tool") == 0) {
			f->tool = v;
		} else if (strcmp(kv, "rule") == 0) {
			f->rule = v;
		} else if (strcmp(kv, "mode") == 0) {
			f->mode = v;
		} else if (strcmp(kv, "text") == 0) {
			/* text takes the rest of the line */
			f->text = v;
			if (save && *save)
				v[strlen(v)] = ' ';
			break;
		}
	}
}

static void test_filters(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	struct tdata_row *rows;
	size_t n, ncalls = make_log(path, ids);
	struct db *db = open_ok(path);

	(void)state;
	(void)ncalls;
	n = tdata_load("tests/data/db/filters.tsv", &rows);
	for (size_t i = 0; i < n; i++) {
		struct db_filter f;
		struct collect got = {.n = 0};
		char want[256] = "", have[256] = "", *spec = xstrdup(rows[i].f[0]);
		size_t w = 0;

		parse_filter(spec, &f);
		assert_true(db_calls_page(db, &f, 0, DB_PAGE_OLDER, 100, collect_cb, &got, &err) >= 0);
		for (size_t k = 0; k < got.n; k++)
			for (size_t j = 0; j < ncalls; j++)
				if (ids[j] == got.ids[k])
					w += (size_t)snprintf(have + w, sizeof(have) - w, "%s%zu",
					                      k ? " " : "", j + 1);
		snprintf(want, sizeof(want), "%s", rows[i].f[1]);
		if (strcmp(want, "-") == 0)
			want[0] = '\0';
		if (strcmp(want, have) != 0)
			fail_msg("%s:%zu: filter '%s': got '%s', want '%s'", rows[i].file,
			         rows[i].line, rows[i].f[0], have, want);
		assert_int_equal(db_calls_count(db, &f, &err), (long long)got.n);
		free(spec);
	}
	tdata_free(rows, n);
	db_close(db);
	free(path);
}

/* Keyset paging in both directions visits every call once, in order. */
static void test_paging(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	size_t ncalls = make_log(path, ids);
	struct db *db = open_ok(path);
	struct collect all = {.n = 0};
	int64_t after = 0;
	int n;

	(void)state;
	do {
		size_t before = all.n;
		n = db_calls_page(db, NULL, after, DB_PAGE_NEWER, 3, collect_cb, &all, &err);
		assert_true(n >= 0);
		if (all.n > before)
			after = all.ids[all.n - 1];
	} while (n == 3);
	assert_int_equal(all.n, ncalls);
	for (size_t i = 0; i < ncalls; i++)
		assert_int_equal(all.ids[i], ids[i]);
	all.n = 0;
	assert_int_equal(db_calls_page(db, NULL, ids[4], DB_PAGE_OLDER, 2, collect_cb, &all, &err), 2);
	assert_int_equal(all.ids[0], ids[3]);
	assert_int_equal(all.ids[1], ids[2]);
	db_close(db);
	free(path);
}

static int export_cb(void *arg, json_t *call)
{
	json_array_append(arg, call);
	return 0;
}

static void test_detail_export_stats(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	size_t ncalls = make_log(path, ids);
	struct db *db = open_ok(path);
	json_t *d = NULL, *all = json_array(), *st = NULL, *c2;

	(void)state;
	assert_int_equal(db_call_detail(db, ids[1], &d, &err), 0);
	assert_int_equal(json_array_size(json_object_get(d, "events")), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "call"), "decision")), "denied");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "session"), "mode")), "gate");
	json_decref(d);
	assert_int_equal(db_call_detail(db, 999999, &d, &err), 1);
	free(err);
	err = NULL;
	assert_int_equal(db_export_calls(db, NULL, export_cb, all, &err), 0);
	assert_int_equal(json_array_size(all), ncalls);
	c2 = json_object_get(json_array_get(all, 1), "events");
	assert_non_null(json_object_get(c2, "received"));
	assert_non_null(json_object_get(c2, "classified"));
	assert_non_null(json_object_get(c2, "decided"));
	assert_null(json_object_get(c2, "finished"));
	assert_int_equal(db_stats(db, NULL, &st, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "total"), "calls")), (json_int_t)ncalls);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "by_tier"), "high")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "by_decision"), "denied")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "waits"), "count")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "waits"), "max_ms")), 12000);
	json_decref(st);
	json_decref(all);
	db_close(db);
	free(path);
}

/* ---- integrity ---- */

static int64_t resolve_id(const char *s, int64_t last)
{
	if (strncmp(s, "LAST", 4) == 0)
		return last + strtoll(s + 4, NULL, 10);
	return strtoll(s, NULL, 10);
}

/* The log of calls.tsv at path with its triggers dropped and sql run on
 * it, opened; *last is its last event before sql. */
static struct db *tampered_log(const char *path, const char *sql, long long *last)
{
	int64_t ids[MAXCALLS];

	make_log(path, ids);
	verify_ok(path, last);
	raw_sql(path, "DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete;");
	raw_sql(path, sql);
	return open_ok(path);
}

static void test_tamper(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/tamper.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *path = tmp_path(), *err = NULL;
		long long last;
		struct db *db = tampered_log(path, rows[i].f[0], &last);
		struct db_verify_report r;

		if (db_verify_report(db, &r, &err) != 1)
			fail_msg("%s:%zu: tampering not caught: %s", rows[i].file, rows[i].line,
			         rows[i].f[0]);
		if (r.bad_event != resolve_id(rows[i].f[1], last) || strstr(err, rows[i].f[2]) == NULL)
			fail_msg("%s:%zu: got event %lld '%s', want %s '%s'", rows[i].file,
			         rows[i].line, (long long)r.bad_event, err, rows[i].f[1], rows[i].f[2]);
		free(err);
		db_close(db);
		free(path);
	}
	tdata_free(rows, n);
}

static int64_t index_check(const char *path)
{
	struct db *db = open_ok(path);
	int64_t bad = -1;
	char *err = NULL;
	int rc = db_verify_index(db, &bad, &err);

	if (rc < 0)
		fail_msg("verify_index %s: %s", path, err);
	assert_int_equal(rc, bad ? 1 : 0);
	free(err);
	db_close(db);
	return bad;
}

/* What record.c writes as it goes equals what the chain derives; edits to
 * the index are caught and reindex repairs them. */
static void test_index(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/index_tamper.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *path = tmp_path(), *err = NULL;
		int64_t ids[MAXCALLS], bad;
		long long ord = strtoll(rows[i].f[1], NULL, 10);
		struct db *db;

		make_log(path, ids);
		assert_int_equal(index_check(path), 0);
		raw_sql(path, rows[i].f[0]);
		bad = index_check(path);
		if (bad != ids[ord - 1])
			fail_msg("%s:%zu: got call %lld, want %lld", rows[i].file, rows[i].line,
			         (long long)bad, (long long)ids[ord - 1]);
		db = open_ok(path);
		assert_int_equal(db_reindex(db, &err), 0);
		db_close(db);
		assert_int_equal(index_check(path), 0);
		verify_ok(path, NULL);
		free(path);
	}
	tdata_free(rows, n);
}

/* Triggers planted in the file never act on airlock's connection
 * (tests/data/db/planted.tsv): calls recorded after them are all there. */
static void test_planted(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/planted.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *path = tmp_path();
		int64_t ids[MAXCALLS];
		struct db *db;
		struct db_verify_report r;
		char *err = NULL;
		int64_t bad;

		make_log(path, ids);
		raw_sql(path, rows[i].f[0]);
		make_log(path, ids);
		db = open_ok(path);
		if (db_verify_report(db, &r, &err) != 0)
			fail_msg("%s:%zu: the chain: %s", rows[i].file, rows[i].line, err);
		db_close(db);
		if ((bad = index_check(path)) != 0)
			fail_msg("%s:%zu: call %lld differs from the chain", rows[i].file, rows[i].line,
			         (long long)bad);
		free(path);
	}
	tdata_free(rows, n);
}

/* Cutting the tail and moving the head anchor passes verify (no key), but
 * not a pin taken before. */
static void test_pin(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	struct db_verify_report r;
	struct db *db;
	char pin[65], *sql;
	int64_t pin_id;

	(void)state;
	make_log(path, ids);
	db = open_ok(path);
	assert_int_equal(db_verify_report(db, &r, &err), 0);
	memcpy(pin, r.head, sizeof(pin));
	pin_id = r.last_id;
	assert_int_equal(db_verify_pin(db, pin_id, pin, &err), 0);
	assert_int_equal(db_verify_pin(db, pin_id - 1, pin, &err), 1);
	free(err);
	err = NULL;
	db_close(db);
	sql = xasprintf("DROP TRIGGER events_no_delete; DELETE FROM events WHERE id >= %lld;"
	                " UPDATE chain_head SET (id, hash) = (SELECT id, hash FROM events"
	                " ORDER BY id DESC LIMIT 1)", (long long)pin_id - 2);
	raw_sql(path, sql);
	free(sql);
	verify_ok(path, NULL);
	db = open_ok(path);
	assert_int_equal(db_verify_pin(db, pin_id, pin, &err), 1);
	assert_non_null(strstr(err, "not in the log"));
	free(err);
	err = NULL;
	/* the session's end went with the tail: verify counts it open, from
	 * the chain, even when the derived sessions table says it ended */
	raw_sql(path, "UPDATE sessions SET ended = 1");
	assert_int_equal(db_verify_report(db, &r, &err), 0);
	assert_int_equal(r.open_sessions, 1);
	db_close(db);
	free(path);
}

/* A log whose tail was removed refuses further appends (fail closed). */
static void test_tail_refuses_append(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	struct db *db;
	struct db_session_info si = {.mode = "gate"};

	(void)state;
	make_log(path, ids);
	raw_sql(path, "DROP TRIGGER events_no_delete; DELETE FROM events WHERE id ="
	              " (SELECT max(id) FROM events);");
	db = open_ok(path);
	assert_int_equal(db_session_begin(db, &si, &err), -1);
	assert_non_null(strstr(err, "head anchor"));
	free(err);
	db_close(db);
	free(path);
}

static void test_prune(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int64_t ids[MAXCALLS];
	struct db *db;
	long long removed = 0, events;
	struct db_verify_report r;

	(void)state;
	make_log(path, ids);
	/* Backdate the first call so prune has something to cut. */
	raw_sql(path, "DROP TRIGGER events_no_update; UPDATE events SET time ="
	              " '2000-01-01T00:00:00.000Z' WHERE id <= 5;");
	db = open_ok(path);
	/* The edit broke the chain: prune refuses. */
	assert_int_equal(db_prune(db, "2001-01-01", &removed, &err), 1);
	free(err);
	err = NULL;
	db_close(db);
	free(path);

	path = tmp_path();
	make_log(path, ids);
	db = open_ok(path);
	assert_int_equal(db_prune(db, "2000-01-01", &removed, &err), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(db_prune(db, "9999-01-01", &removed, &err), 0);
	assert_true(removed > 10);
	assert_int_equal(db_verify_report(db, &r, &err), 0);
	assert_int_equal(r.pruned_through, removed);
	assert_int_equal(db_calls_count(db, NULL, &err), 0);
	db_close(db);
	/* Appends after a prune still verify; a second prune too. */
	make_log(path, ids);
	verify_ok(path, &events);
	assert_true(events > 10);
	db = open_ok(path);
	assert_int_equal(db_prune(db, "9999-01-01", &removed, &err), 0);
	assert_int_equal(db_verify_report(db, &r, &err), 0);
	db_close(db);
	assert_int_equal(index_check(path), 0);
	/* Forging the anchor after a prune is caught. */
	raw_sql(path, "UPDATE anchors SET hash = zeroblob(32);");
	db = open_ok(path);
	assert_int_equal(db_verify_report(db, &r, &err), 1);
	free(err);
	db_close(db);
	free(path);
}

/* ---- schema ---- */

static void load_v1(const char *path)
{
	FILE *f = fopen("tests/data/db/v1.sql", "r");
	char *sql = xcalloc(1, 65536);
	size_t n;

	assert_non_null(f);
	n = fread(sql, 1, 65535, f);
	fclose(f);
	assert_true(n > 0 && n < 65535);
	raw_sql(path, sql);
	free(sql);
}

static void test_migrate_v1(void **state)
{
	char *path = tmp_path(), *err = NULL;
	struct db *db;
	struct db_filter f;
	struct collect got = {.n = 0};
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/calls.tsv", &rows);
	struct db_session_info si = {.mode = "watch"};
	long long events;

	(void)state;
	load_v1(path);
	verify_ok(path, &events); /* opening migrates 1 -> 2 */
	assert_int_equal(events, 13);
	db = open_ok(path);
	db_filter_init(&f);
	assert_int_equal(db_calls_page(db, &f, 0, DB_PAGE_NEWER, 10, collect_cb, &got, &err), 3);
	f.rule = "fs.delete.recursive";
	f.decision = "denied";
	assert_int_equal(db_calls_count(db, &f, &err), 1);
	/* v1 and v2 events in one chain. */
	assert_int_equal(db_session_begin(db, &si, &err), 0);
	record_row(db, &rows[0]);
	assert_int_equal(db_session_end(db, &err), 0);
	db_close(db);
	verify_ok(path, &events);
	assert_int_equal(events, 13 + 6);
	assert_int_equal(index_check(path), 0);
	db = open_ok(path);
	db_filter_init(&f);
	f.mode = "watch";
	assert_int_equal(db_calls_count(db, &f, &err), 1);
	db_close(db);
	tdata_free(rows, n);
	free(path);
}

/* ---- free text that is not UTF-8 ---- */

/* bytes when field is name, else dflt. */
static const char *pick(const char *field, const char *name, const char *bytes,
                        const char *dflt)
{
	return strcmp(field, name) == 0 ? bytes : dflt;
}

/* Records one call with text.tsv's bytes in the named field. */
static void record_text(struct db *db, const char *f, const char *bytes)
{
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	char *err = NULL;
	int64_t id = 0;

	c->name = xstrdup("shell");
	c->input = json_pack("{s:s}", "command", "true");
	c->command = pick(f, "command", bytes, "true");
	c->cwd = xstrdup(pick(f, "cwd", bytes, "/w"));
	o->reason = xstrdup(pick(f, "out_reason", bytes, "done"));
	o->applied = pick(f, "applied", bytes, "run");
	o->out = xstrdup(pick(f, "stdout", bytes, ""));
	o->outlen = strlen(o->out);
	o->decision = DECISION_APPROVED;
	if (db_call_received(db, c, v, &id, &err) != 0 ||
	    db_call_decided(db, id,
	                    &(struct db_decision){ACTION_ASK, DECISION_APPROVED,
	                                          pick(f, "who", bytes, "user"),
	                                          pick(f, "reason", bytes, "ok"), 5,
	                                          pick(f, "policy", bytes, "rule")},
	                    &err) != 0 ||
	    db_call_finished(db, id, o, &err) != 0)
		fail_msg("%s [%s]: %s", f, bytes, err);
	outcome_free(o);
	call_free(c);
	verdict_free(v);
}

static void test_text_not_utf8(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/text.tsv", &rows);
	char *path = tmp_path(), *err = NULL, *dump;
	struct db *db = open_ok(path);
	json_t *detail = NULL;
	(void)state;
	if (db_session_begin(db, &(struct db_session_info){.cwd = "/w", .mode = "gate"}, &err))
		fail_msg("session: %s", err);
	for (size_t i = 0; i < n; i++) {
		record_text(db, rows[i].f[0], rows[i].f[1]);
		if (db_call_detail(db, (int64_t)(i * 4 + 2), &detail, &err) != 0)
			fail_msg("line %zu: detail: %s", rows[i].line, err);
		dump = json_dumps(detail, JSON_COMPACT);
		/* repaired, or in the one-line summary shown as \xNN text */
		if (!strstr(dump, "\"decided\"") ||
		    (!strstr(dump, "\xef\xbf\xbd") && !strstr(dump, "\"ls \\\\xff\"")))
			fail_msg("line %zu: decided event or repair missing: %s", rows[i].line, dump);
		free(dump);
		json_decref(detail);
	}
	db_close(db);
	verify_ok(path, NULL);
	tdata_free(rows, n);
	free(path);
}

/* ---- the file removed or replaced while the log is open ---- */

static void file_unlink(const char *path)
{
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);

	assert_int_equal(unlink(path), 0);
	unlink(wal);
	unlink(shm);
	free(wal), free(shm);
}

static void file_replace(const char *path)
{
	char *other = tmp_path();

	db_close(open_ok(other));
	assert_int_equal(rename(other, path), 0);
	free(other);
}

/* The WAL holds every commit since the last checkpoint: removed, later
 * commits went to an unlinked file, lost with the records before them at
 * a kill -9; a new -shm lets a second writer in. */
static void side_unlink(const char *path, const char *side)
{
	char *p = xasprintf("%s%s", path, side);

	assert_int_equal(unlink(p), 0);
	free(p);
}

static void unlink_wal(const char *path)
{
	side_unlink(path, "-wal");
}

static void unlink_shm(const char *path)
{
	side_unlink(path, "-shm");
}

/* A second name (a hard link) may lie in the workdir, where the agent's
 * commands write: made while the gate runs, the next write refuses. */
static void file_link(const char *path)
{
	char *p = xasprintf("%s.link", path);

	assert_int_equal(link(path, p), 0);
	free(p);
}

static void link_wal(const char *path)
{
	char *w = xasprintf("%s-wal", path);

	file_link(w);
	free(w);
}

/* Every later write refuses: nothing is recorded only in a lost file. */
static void test_file_removed(void **state)
{
	static const struct {
		const char *name;
		void (*act)(const char *path);
		const char *why;
	} cases[] = {{"unlinked", file_unlink, "removed or replaced while airlock ran"},
	             {"replaced", file_replace, "removed or replaced while airlock ran"},
	             {"wal unlinked", unlink_wal, "removed or replaced while airlock ran"},
	             {"shm unlinked", unlink_shm, "removed or replaced while airlock ran"},
	             {"hard-linked", file_link, "has 2 names (hard links)"},
	             {"wal hard-linked", link_wal, "has 2 names (hard links)"}};
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/calls.tsv", &rows);
	(void)state;
	for (size_t i = 0; i < nitems(cases); i++) {
		char *path = tmp_path(), *err = NULL;
		struct db *db = open_ok(path);
		struct db_session_info si = {.cwd = "/w", .mode = "gate"};
		struct call *c = call_new();
		struct verdict *v = verdict_new();
		int64_t id = 0;

		if (db_session_begin(db, &si, &err) != 0)
			fail_msg("%s: session: %s", cases[i].name, err);
		record_row(db, &rows[0]);
		cases[i].act(path);
		c->name = xstrdup("shell");
		c->input = json_pack("{s:s}", "command", "true");
		c->command = "true";
		if (db_call_received(db, c, v, &id, &err) == 0)
			fail_msg("%s: a call was recorded in a log that is gone or has another name",
			         cases[i].name);
		if (strstr(err, cases[i].why) == NULL)
			fail_msg("%s: unclear error: %s", cases[i].name, err);
		free(err);
		db_close(db);
		call_free(c);
		verdict_free(v);
		free(path);
	}
	tdata_free(rows, n);
}

/* A relative path starting with "file:" names a file, as the gate's
 * workdir check reads it: SQLite took it for a URI, and on c93eb52
 * `file:x.db?mode=memory` kept the log in memory (recorded nowhere). */
static void test_uri_name(void **state)
{
	char old[4096], *err = NULL;
	struct db *db = NULL;
	struct stat st;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(dir), 0);
	if (db_open("file:u.db?mode=memory", &db, &err) != 0)
		fail_msg("cannot open a log named file:...: %s", err);
	db_close(db);
	assert_int_equal(stat("file:u.db?mode=memory", &st), 0);
	assert_true(st.st_size > 0);
	if (db_open_existing("file:u.db?mode=memory", &db, &err) != 0)
		fail_msg("cannot read it back: %s", err);
	db_close(db);
	assert_int_equal(chdir(old), 0);
}

/* A log that has a second name already is refused before SQLite touches
 * it (reproduced on c93eb52: a link in the workdir let an auto-run `cp`
 * empty the gate's log); the audit commands still read it. */
static void test_file_linked_open(void **state)
{
	char *path = tmp_path(), *other = xasprintf("%s.link", path), *err = NULL;
	struct db *db = NULL;

	(void)state;
	db_close(open_ok(path));
	assert_int_equal(link(path, other), 0);
	if (db_open(path, &db, &err) == 0 || strstr(err, "has 2 names (hard links)") == NULL)
		fail_msg("a hard-linked log was opened to record calls: %s", err ? err : "ok");
	free(err);
	err = NULL;
	if (db_open_existing(path, &db, &err) != 0)
		fail_msg("a hard-linked log could not be read: %s", err);
	db_close(db);
	free(other);
	free(path);
}

/* The first column of sql's first row, as a new string, or NULL. */
static char *query_text(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *r = NULL;

	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		r = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return r;
}

/* A disk too full for a call's output (max_page_count stands in for it):
 * the call has run, so its outcome is recorded without the output rather
 * than not at all; base left only received..decided in the log. */
static void test_finished_disk_full(void **state)
{
	char *path = tmp_path(), *err = NULL;
	struct db *db = open_ok(path);
	struct db_session_info si = {.cwd = "/w", .mode = "gate"};
	struct call *c = call_new();
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	struct db_decision d = {ACTION_AUTO, DECISION_AUTO, "policy", NULL, 0, NULL};
	int64_t id = 0;
	char *reason;
	(void)state;

	if (db_session_begin(db, &si, &err) != 0)
		fail_msg("session: %s", err);
	c->name = xstrdup("shell");
	c->input = json_pack("{s:s}", "command", "true");
	c->command = "true";
	if (db_call_begin(db, c, v, &d, NULL, &id, &err) != 0)
		fail_msg("begin: %s", err);
	o->decision = DECISION_AUTO;
	o->ran = true;
	o->exit_code = 0;
	o->outlen = 1 << 20;
	o->out = xmalloc(o->outlen);
	for (size_t i = 0; i < o->outlen; i++) /* not compressible, not a secret */
		o->out[i] = (char)('a' + (i * 7919 + i / 26) % 26);
	assert_int_equal(sqlite3_exec(db->sql, "PRAGMA max_page_count = 200", NULL, NULL, NULL),
	                 SQLITE_OK);
	if (db_call_finished(db, id, o, &err) != 0)
		fail_msg("the outcome of a call that ran was not recorded: %s", err);
	reason = query_text(db, "SELECT json_extract(body, '$.reason') FROM events"
	                        " WHERE kind = 'finished'");
	if (reason == NULL || strstr(reason, "was not recorded") == NULL ||
	    strstr(reason, "full") == NULL)
		fail_msg("the reason does not say the output is missing: %s", reason);
	free(reason);
	outcome_free(o);
	call_free(c);
	verdict_free(v);
	db_close(db);
	free(path);
}

/* Out of file descriptors, SQLite says "unable to open database file" and
 * its code's hint blamed the directory's permissions; the errno's hint
 * names the limit. In a child: the limit stays its own. */
static void test_fail_errno_hint(void **state)
{
	char *path = tmp_path();
	pid_t pid;
	int status = 0;
	(void)state;

	if ((pid = fork()) == 0) {
		struct rlimit rl;
		struct db *db = NULL;
		char *err = NULL;
		int fd = dup(0); /* the lowest free descriptor */

		close(fd);
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = (rlim_t)fd + 1; /* the log opens, its WAL does not */
		setrlimit(RLIMIT_NOFILE, &rl);
		if (db_open(path, &db, &err) == 0)
			_exit(2);
		_exit(strstr(err, "ulimit -n") ? 0 : (fprintf(stderr, "%s\n", err), 1));
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("out of descriptors: the error does not name ulimit -n (status %d)",
		         status);
	free(path);
}

static void test_foreign_files(void **state)
{
	char *path = tmp_path(), *err = NULL;
	struct db *db = NULL;
	FILE *f;

	(void)state;
	f = fopen(path, "w");
	fputs("this is not a database, just some text that is long enough to be a header\n", f);
	fclose(f);
	assert_int_equal(db_open(path, &db, &err), -1);
	assert_null(db);
	free(err);
	free(path);

	path = tmp_path();
	raw_sql(path, "CREATE TABLE users(id INTEGER);");
	assert_int_equal(db_open(path, &db, &err), -1);
	assert_non_null(strstr(err, "not an airlock audit log"));
	free(err);
	free(path);

	path = tmp_path();
	db = open_ok(path);
	db_close(db);
	raw_sql(path, "PRAGMA user_version = 99;");
	assert_int_equal(db_open(path, &db, &err), -1);
	assert_non_null(strstr(err, "newer"));
	free(err);
	free(path);

	/* every table dropped and the version reset: the mark stays, so the
	 * file is a wiped log, never made a new one (by the gate or a reader) */
	path = tmp_path();
	db = open_ok(path);
	db_close(db);
	raw_sql(path, "DROP VIEW calls; DROP TABLE events; DROP TABLE chain_head;"
	              " DROP TABLE anchors; DROP TABLE sessions; DROP TABLE call_index;"
	              " DROP TABLE call_rules; PRAGMA user_version = 0;");
	assert_int_equal(db_open(path, &db, &err), DB_OPEN_BROKEN);
	assert_non_null(strstr(err, "holds no tables"));
	free(err);
	assert_int_equal(db_open_existing(path, &db, &err), DB_OPEN_BROKEN);
	free(err);
	assert_int_equal(db_open_readonly(path, &db, &err), DB_OPEN_BROKEN);
	free(err);
	free(path);

	/* a lowered version with schema 2's tables failed a migration */
	for (int v = 0; v < 2; v++) {
		char *sql = xasprintf("PRAGMA user_version = %d;", v);
		path = tmp_path();
		db = open_ok(path);
		db_close(db);
		raw_sql(path, sql);
		assert_int_equal(db_open(path, &db, &err), DB_OPEN_BROKEN);
		assert_non_null(strstr(err, "version was edited"));
		free(err);
		free(sql);
		free(path);
	}

	/* a FIFO hung every reader; a dangling symlink was followed to create */
	path = tmp_path();
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(db_open_existing(path, &db, &err), -1);
	assert_non_null(strstr(err, "not a regular file (a FIFO)"));
	free(err);
	assert_int_equal(db_open_readonly(path, &db, &err), -1);
	free(err);
	unlink(path);
	assert_int_equal(symlink("/nonexistent/airlock-test.db", path), 0);
	assert_int_equal(db_open(path, &db, &err), -1);
	assert_non_null(strstr(err, "symlink to a file that is not there"));
	free(err);
	unlink(path);
	free(path);

	/* an empty file is a log to the gate, not to a reader */
	path = tmp_path();
	fclose(fopen(path, "w"));
	assert_int_equal(db_open_existing(path, &db, &err), -1);
	assert_non_null(strstr(err, "no airlock schema"));
	free(err);
	db = open_ok(path);
	db_close(db);
	free(path);
}

/* One call's events checked alone (audit show): what the range catches,
 * and what it leaves to the whole walk. */
static void test_tamper_range(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/tamper_range.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *path = tmp_path(), *err = NULL;
		long long last, want;
		struct db *db = tampered_log(path, rows[i].f[0], &last);
		int rc;

		if (parse_ll(rows[i].f[3], 0, 2, &want) < 0)
			fail_msg("%s:%zu: bad expected code '%s'", rows[i].file, rows[i].line, rows[i].f[3]);
		rc = db_verify_range(db, resolve_id(rows[i].f[1], last), resolve_id(rows[i].f[2], last),
		                     &err);
		if (rc != want ||
		    (strcmp(rows[i].f[4], "-") != 0 && (err == NULL || !strstr(err, rows[i].f[4]))))
			fail_msg("%s:%zu: got %d '%s', want %s '%s'", rows[i].file, rows[i].line, rc,
			         err ? err : "", rows[i].f[3], rows[i].f[4]);
		free(err);
		db_close(db);
		free(path);
	}
	tdata_free(rows, n);
}

/* What `audit show` says of every call after an edit (tamper_show.tsv):
 * the derived index row and the session start are checked too. */
static void test_tamper_show(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/tamper_show.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *path = tmp_path(), *err = NULL, *why = NULL;
		long long last, want, broken = 0;
		struct db *db = tampered_log(path, rows[i].f[0], &last);

		if (parse_ll(rows[i].f[1], 0, 1, &want) < 0)
			fail_msg("%s:%zu: bad expected code '%s'", rows[i].file, rows[i].line, rows[i].f[1]);
		for (int64_t id = 1; id <= last; id++) {
			json_t *d = NULL, *in;
			if (db_call_detail(db, id, &d, &err) != 0) {
				free(err);
				err = NULL;
				continue;
			}
			in = json_object_get(d, "integrity");
			if (json_is_true(json_object_get(in, "broken")) && broken++ == 0)
				why = xstrdup(json_string_value(json_object_get(in, "error")));
			json_decref(d);
		}
		if ((broken > 0) != (want == 1) ||
		    (strcmp(rows[i].f[2], "-") != 0 && (why == NULL || !strstr(why, rows[i].f[2]))))
			fail_msg("%s:%zu: %lld calls broken '%s', want %s '%s'", rows[i].file,
			         rows[i].line, broken, why ? why : "", rows[i].f[1], rows[i].f[2]);
		free(why);
		db_close(db);
		free(path);
	}
	tdata_free(rows, n);
}

/* Four processes append at once; the chain stays linear. */
static void test_concurrent(void **state)
{
	char *path = tmp_path();
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/db/calls.tsv", &rows);
	pid_t pids[4];
	long long events;
	struct db *db;
	char *err = NULL;

	(void)state;
	db_close(open_ok(path));
	for (int p = 0; p < 4; p++) {
		if ((pids[p] = fork()) == 0) {
			struct db_session_info si = {.mode = "gate"};
			db = open_ok(path);
			if (db_session_begin(db, &si, &err) != 0)
				_exit(1);
			for (int i = 0; i < 50; i++)
				record_row(db, &rows[(size_t)i % n]);
			if (db_session_end(db, &err) != 0)
				_exit(1);
			db_close(db);
			_exit(0);
		}
	}
	for (int p = 0; p < 4; p++) {
		int st;
		assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	verify_ok(path, &events);
	db = open_ok(path);
	assert_int_equal(db_calls_count(db, NULL, &err), 200);
	db_close(db);
	assert_int_equal(index_check(path), 0);
	tdata_free(rows, n);
	free(path);
}

/*
 * Another process holds a write lock on a fresh log (as one gate does
 * while it switches the file to WAL) when this one opens it: the switch
 * waits for the lock instead of failing at once, as SQLite's busy handler
 * does not cover it. Fails on 09d0c43 ("cannot enable WAL: database is
 * locked"), which 8 gates starting together hit now and then.
 */
static void test_open_waits_for_wal(void **state)
{
	char *path = tmp_path(), *err = NULL;
	int ready[2];
	char c;
	pid_t pid;
	long long t0;
	struct db *db;
	int st;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	if ((pid = fork()) == 0) {
		sqlite3 *sql;
		if (sqlite3_open(path, &sql) != SQLITE_OK ||
		    sqlite3_exec(sql, "BEGIN IMMEDIATE", NULL, NULL,
		                 NULL) != SQLITE_OK)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		sqlite3_exec(sql, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(sql);
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	t0 = clock_ns();
	if (db_open(path, &db, &err) != 0)
		fail_msg("db_open beside a writer: %s", err);
	assert_true(clock_ns() - t0 >= 200 * 1000000LL); /* it did wait for the reader */
	db_close(db);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(ready[0]);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact_table),
		cmocka_unit_test(test_redact_scale),
		cmocka_unit_test(test_redact_argv),
		cmocka_unit_test(test_redact_stored),
		cmocka_unit_test(test_cut_stream),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_paging),
		cmocka_unit_test(test_detail_export_stats),
		cmocka_unit_test(test_tamper),
		cmocka_unit_test(test_tamper_range),
		cmocka_unit_test(test_tamper_show),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_tail_refuses_append),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_migrate_v1),
		cmocka_unit_test(test_foreign_files),
		cmocka_unit_test(test_file_removed),
		cmocka_unit_test(test_file_linked_open),
		cmocka_unit_test(test_uri_name),
		cmocka_unit_test(test_finished_disk_full),
		cmocka_unit_test(test_fail_errno_hint),
		cmocka_unit_test(test_text_not_utf8),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_open_waits_for_wal),
	};
	int rc;

	if (mkdtemp(dir) == NULL)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (getenv("KEEP_TEST_DB") == NULL) {
		char *cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd) != 0)
			rc = rc ? rc : 1;
		free(cmd);
	}
	for (size_t i = 0; i < nitems(interned); i++)
		free(interned[i]);
	return rc;
}
