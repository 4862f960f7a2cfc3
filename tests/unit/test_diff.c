/*
 * test_diff.c: previews against real files, a real SQLite database and (for
 * shell) the real sandbox, through the gate's plug points: build the
 * preview, check its text, optionally change the workdir, approve (apply),
 * check the files or rows afterwards. Cases: tests/data/diff/ (one .tsv per tool).
 */
#include <setjmp.h>
#include <stdarg.h>
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
#include "diff/diff.h"
#include "diff/diff_internal.h"
#include "exec/exec.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"
#include "tdata.h"

#define SEP " ;; "

/* Splits s on SEP into a new vector (caller frees). "-" is the empty list. */
static char **split(const char *s)
{
	char **v = NULL;
	const char *p = s, *q;

	if (strcmp(s, "-") == 0)
		return xcalloc(1, sizeof(char *));
	while ((q = strstr(p, SEP)) != NULL) {
		strv_push_owned(&v, xstrndup(p, (size_t)(q - p)));
		p = q + strlen(SEP);
	}
	strv_push(&v, p);
	return v;
}

static void write_bytes(const char *path, const char *data, size_t len, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	chmod(path, mode);
}

/* One setup step in dir: "f p=text", "x p=text", "o p=text" (uid 65534,
 * mode 0666), "d p", "l p=target",
 * "b p=N" (N bytes with NULs), "n p=N" (N numbered lines), "r p" (remove),
 * "z p=text" (text, a NUL, text), "p p" (a FIFO). */
static void setup_one(const char *dir, const char *op)
{
	const char *arg = op + 2, *eq = strchr(arg, '=');
	char *name = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup(arg);
	char *path = xasprintf("%s/%s", dir, name), *cmd;
	const char *val = eq ? eq + 1 : "";
	struct buf b;

	switch (op[0]) {
	case 'f': write_bytes(path, val, strlen(val), 0644); break;
	case 'x': write_bytes(path, val, strlen(val), 0755); break;
	case 'z': /* text, a NUL, the text again */
		buf_init(&b, 0);
		buf_append(&b, val, strlen(val) + 1);
		buf_puts(&b, val);
		write_bytes(path, b.data, b.len, 0644);
		buf_free(&b);
		break;
	case 'o': /* another user's file that anyone may write */
		write_bytes(path, val, strlen(val), 0666);
		assert_int_equal(chown(path, 65534, 65534), 0);
		break;
	case 'd': assert_int_equal(mkdir(path, 0755), 0); break;
	case 'p': assert_int_equal(mkfifo(path, 0644), 0); break;
	case 'l': assert_int_equal(symlink(val, path), 0); break;
	case 'b':
	case 'n':
		buf_init(&b, 0);
		for (long i = 0; i < strtol(val, NULL, 10); i++)
			op[0] == 'b' ? buf_append(&b, i % 3 ? "\x01" : "", 1) : buf_printf(&b, "line %ld\n", i);
		write_bytes(path, b.data ? b.data : "", b.len, 0644);
		buf_free(&b);
		break;
	case 'r':
		cmd = xasprintf("rm -rf '%s'", path);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		break;
	default: fail_msg("bad setup step [%s]", op);
	}
	free(name);
	free(path);
}

static void setup_all(const char *dir, const char *spec)
{
	char **v = split(spec);
	for (size_t i = 0; v[i]; i++)
		setup_one(dir, v[i]);
	strv_free(v);
}

/* One check after apply: "p=text", "p!" (absent), "p->target", "p/" (dir), "p@755". */
static void check_one(const struct tdata_row *r, const char *dir, const char *want)
{
	const char *eq = strstr(want, "->") ? strstr(want, "->") : strchr(want, '=');
	size_t n = eq ? (size_t)(eq - want) : strcspn(want, "!/@");
	char *name = xstrndup(want, n), *path = xasprintf("%s/%s", dir, name);
	char got[4096] = "";
	struct stat st;
	int exists = lstat(path, &st) == 0;
	FILE *f;

	if (want[n] == '!' && exists)
		fail_msg("line %zu: %s should be gone", r->line, name);
	else if (want[n] == '/' && !(exists && S_ISDIR(st.st_mode)))
		fail_msg("line %zu: %s should be a directory", r->line, name);
	else if (want[n] == '@' && !(exists && (st.st_mode & 07777) == strtoul(want + n + 1, NULL, 8)))
		fail_msg("line %zu: %s mode %o, want %s", r->line, name, st.st_mode & 07777, want + n + 1);
	else if (want[n] == '-') {
		ssize_t k = readlink(path, got, sizeof(got) - 1);
		got[k > 0 ? k : 0] = '\0';
		if (strcmp(got, want + n + 2) != 0)
			fail_msg("line %zu: %s -> [%s], want [%s]", r->line, name, got, want + n + 2);
	} else if (want[n] == '=') {
		if (!exists || !S_ISREG(st.st_mode) || (f = fopen(path, "r")) == NULL)
			fail_msg("line %zu: %s missing", r->line, name);
		got[fread(got, 1, sizeof(got) - 1, f)] = '\0';
		fclose(f);
		if (strcmp(got, want + n + 1) != 0)
			fail_msg("line %zu: %s holds [%s], want [%s]", r->line, name, got, want + n + 1);
	}
	free(name);
	free(path);
}

static struct call *decode(const struct tdata_row *r, const char *json)
{
	struct call *c = NULL;
	json_t *id = NULL;
	char *err = NULL;

	if (protocol_decode(json, strlen(json), r->line, &c, &id, &err) < 0)
		fail_msg("line %zu: cannot decode [%s]: %s", r->line, json, err);
	return c;
}

/* Fails unless every SEP-separated piece of want occurs in text. */
/* Each " ;; " piece of want is in text; one written "!piece" is not. */
static void expect_text(const struct tdata_row *r, const char *text, const char *want)
{
	char **v = split(want);
	for (size_t i = 0; v[i]; i++)
		if (v[i][0] == '!' && strstr(text ? text : "", v[i] + 1) != NULL)
			fail_msg("line %zu (%s): preview holds [%s]:\n%s", r->line, r->f[0], v[i] + 1,
			         text);
		else if (v[i][0] != '!' && strstr(text ? text : "", v[i]) == NULL)
			fail_msg("line %zu (%s): preview lacks [%s]:\n%s", r->line, r->f[0], v[i], text);
	strv_free(v);
}

struct env {
	char dir[64];
	char *db;
	struct gate *g;
};

static int env_setup(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));
	struct gate_opts go = {0};
	char *err = NULL;
	int rc;

	snprintf(e->dir, sizeof(e->dir), "/tmp/airlock-difftest.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	e->db = xasprintf("%s.audit.db", e->dir);
	go.workdir = e->dir;
	go.db_path = e->db;
	go.no_tty = true;
	*state = e;
	if (gate_open(&go, &e->g, &rc, &err) < 0)
		fail_msg("gate_open: %s", err);
	return 0;
}

static int env_teardown(void **state)
{
	struct env *e = *state;
	char *cmd = xasprintf("rm -rf '%s' '%s'*", e->dir, e->db);
	gate_close(e->g);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(e->db);
	free(e);
	return 0;
}

/* Empties the workdir between cases. */
static void env_reset(struct env *e)
{
	char *cmd = xasprintf("find '%s' -mindepth 1 -delete", e->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A file tool's preview not applied runs the call itself (1, "run"). */
static const char *apply_word(int rc, const struct outcome *o)
{
	if (rc > 0 && o->applied && strcmp(o->applied, "run") == 0)
		return "run";
	return rc > 0 ? "preview" : rc == 0 ? "run" : "refused";
}

/* Runs SQL on the case's database t.db in the workdir. */
static void sql_exec(struct env *e, const struct tdata_row *r, const char *sql)
{
	char *path = xasprintf("%s/t.db", e->dir), *err = NULL;
	sqlite3 *db = NULL;

	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("line %zu: setup SQL failed: %s", r->line, err ? err : sqlite3_errmsg(db));
	sqlite3_close(db);
	free(path);
}

static int first_cols(void *arg, int n, char **vals, char **cols)
{
	struct buf *b = arg;
	(void)cols;
	buf_printf(b, "%s%s", b->len ? "," : "", n && vals[0] ? vals[0] : "NULL");
	return 0;
}

/* "SELECT ...=a,b": the first column of every row, joined by commas. */
static void sql_check(struct env *e, const struct tdata_row *r, const char *check)
{
	const char *eq = strrchr(check, '=');
	char *path = xasprintf("%s/t.db", e->dir), *q = xstrndup(check, (size_t)(eq - check));
	sqlite3 *db = NULL;
	struct buf b;

	buf_init(&b, 0);
	buf_puts(&b, "");
	b.len = 0;
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, q, first_cols, &b, NULL) != SQLITE_OK)
		fail_msg("line %zu: check [%s] failed: %s", r->line, q, sqlite3_errmsg(db));
	if (strcmp(b.data, eq + 1) != 0)
		fail_msg("line %zu (%s): [%s] gave [%s], want [%s]", r->line, r->f[0], q, b.data, eq + 1);
	sqlite3_close(db);
	buf_free(&b);
	free(q);
	free(path);
}

/* Returns a new copy of s with every @WD@ replaced by the workdir. */
static char *subst_wd(const char *s, const char *wd)
{
	struct buf b;
	const char *p;

	buf_init(&b, 0);
	while ((p = strstr(s, "@WD@")) != NULL) {
		buf_append(&b, s, (size_t)(p - s));
		buf_puts(&b, wd);
		s = p + 4;
	}
	buf_puts(&b, s);
	return buf_take(&b, NULL);
}

/* Previews, mutates, approves and checks one case; sql_setup/check given
 * for SQL tables. */
static void run_case(struct env *e, const struct tdata_row *r, bool sql)
{
	struct classify_opts co;
	struct call *c;
	struct verdict *v;
	struct plan pl = {.action = ACTION_ASK, .profile = exec_builtin_profile("workspace")};
	struct outcome *o = outcome_new();
	struct preview *p;
	char *seen, **checks, *json;
	int rc;

	if (r->nf < 7)
		fail_msg("line %zu: want 7 fields, got %zu", r->line, r->nf);
	env_reset(e);
	sql ? sql_exec(e, r, r->f[1]) : setup_all(e->dir, r->f[1]);
	json = subst_wd(r->f[2], e->dir);
	c = decode(r, json);
	free(json);
	classify_opts_init(&co, e->dir, "/nonexistent-home");
	v = classify_call(c, &co);
	p = gate_preview(e->g, c, v, &pl, o);
	if (strcmp(r->f[3], "-") != 0)
		sql ? sql_exec(e, r, r->f[3]) : setup_all(e->dir, r->f[3]);
	rc = p ? gate_apply_preview(e->g, p, c, o) : 0;
	seen = xasprintf("%s\nresult: %s %s\nreason: %s\nstdout: %.*s", o->preview ? o->preview : "",
	                 apply_word(rc, o), o->applied ? o->applied : "-", o->reason ? o->reason : "-",
	                 (int)o->outlen, o->out ? o->out : "");
	if (strcmp(apply_word(rc, o), r->f[4]) != 0)
		fail_msg("line %zu (%s): %s, want %s\n%s", r->line, r->f[0], apply_word(rc, o), r->f[4],
		         seen);
	expect_text(r, seen, r->f[5]);
	checks = split(r->f[6]);
	for (size_t i = 0; checks[i]; i++)
		sql ? sql_check(e, r, checks[i]) : check_one(r, e->dir, checks[i]);
	strv_free(checks);
	free(seen);
	gate_preview_free(p);
	outcome_free(o);
	verdict_free(v);
	call_free(c);
}

static void run_table(void **state, const char *path, bool sql)
{
	struct tdata_row *rows;
	size_t n = tdata_load(path, &rows);

	if (n == 0)
		skip();
	for (size_t i = 0; i < n; i++)
		run_case(*state, &rows[i], sql);
	tdata_free(rows, n);
}

static void test_files(void **state)
{
	run_table(state, "tests/data/diff/files.tsv", false);
}

static void test_sql(void **state)
{
	run_table(state, "tests/data/diff/sql.tsv", true);
}

static void test_shell(void **state)
{
	run_table(state, "tests/data/diff/shell.tsv", false);
}

/* The edit rules: old content, call, new content or "error: text". */
static void test_edits(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/diff/edits.tsv", &rows), len;
	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct call *c = decode(&rows[i], rows[i].f[1]);
		char *out = NULL, *err = NULL;
		int rc = diff_apply_edits(c, rows[i].f[0], strlen(rows[i].f[0]), &out, &len, &err);
		const char *want = rows[i].f[2];
		if (strncmp(want, "error: ", 7) == 0) {
			if (rc == 0 || strstr(err, want + 7) == NULL)
				fail_msg("line %zu: want error [%s], got %s", rows[i].line, want + 7,
				         rc ? err : out);
		} else if (rc < 0 || strcmp(out, want) != 0 || len != strlen(want)) {
			fail_msg("line %zu: got [%s], want [%s]", rows[i].line, rc ? err : out, want);
		}
		free(out);
		free(err);
		call_free(c);
	}
	tdata_free(rows, n);
}

/* A 10,000-line file with every 10th line changed: stats come from libgit2. */
static void test_big_diff(void **state)
{
	struct buf a, b;
	char *text, *err = NULL;
	(void)state;
	buf_init(&a, 0);
	buf_init(&b, 0);
	for (int i = 0; i < 10000; i++) {
		buf_printf(&a, "line %d\n", i);
		buf_printf(&b, i % 10 ? "line %d\n" : "changed %d\n", i);
	}
	text = diff_buffers("big.txt", a.data, a.len, b.data, b.len, DIFF_FORMAT_PLAIN, &err);
	assert_non_null(text);
	assert_non_null(strstr(text, "big.txt | 2000 +1000 -1000"));
	assert_non_null(strstr(text, "\n-line 0\n+changed 0\n"));
	free(text);
	text = diff_buffers("big.txt", a.data, a.len, b.data, b.len, DIFF_FORMAT_COLOR, &err);
	assert_non_null(strstr(text, "\033[31m-line 0\033[m\n"));
	free(text);
	buf_free(&a);
	buf_free(&b);
}

/* The JSON form carries the same facts as the text. */
static void test_json(void **state)
{
	struct env *e = *state;
	struct diff_opts o = {.workdir = e->dir};
	struct tdata_row r = {.line = 0, .file = "test_json"};
	struct call *c;
	struct diff *d;
	json_t *j;

	env_reset(e);
	setup_all(e->dir, "f a.txt=one\ntwo\n");
	c = decode(&r, "{\"tool\":\"edit_file\",\"input\":{\"path\":\"a.txt\",\"old_string\":\"two\","
	               "\"new_string\":\"2\"}}");
	d = diff_preview_call(c, &o);
	j = diff_to_json(d);
	assert_true(json_is_true(json_object_get(j, "complete")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "summary"),
	                                                    "modified")), 1);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(json_object_get(j, "files"), 0), "patch")),
	                    "@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
	json_decref(j);
	diff_free(d);
	call_free(c);
}

/* A database another connection holds locked: the preview fails, clearly. */
static void test_locked_database(void **state)
{
	struct env *e = *state;
	struct diff_opts o = {.workdir = e->dir};
	struct tdata_row r = {.line = 0, .file = "test_locked_database", .f = {(char *)"locked"}};
	char *path = xasprintf("%s/t.db", e->dir);
	sqlite3 *db = NULL;
	struct call *c;
	struct diff *d;

	env_reset(e);
	sql_exec(e, &r, "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1);");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	c = decode(&r, "{\"tool\":\"sql\",\"input\":{\"query\":\"DELETE FROM t\",\"database\":"
	               "\"t.db\"}}");
	d = diff_preview_call(c, &o);
	assert_non_null(diff_error(d));
	assert_non_null(strstr(diff_error(d), "database is locked"));
	assert_false(diff_complete(d, NULL));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	sql_check(e, &r, "SELECT count(*) FROM t=1");
	diff_free(d);
	call_free(c);
	free(path);
}

/* A dry run that could not start (here: the sandbox refuses a secret file
 * with a second hard link) changed nothing because it never ran: the
 * preview must not read " no changes", which looks like a harmless call
 * that approval then runs unpreviewed. */
static void test_dry_run_unavailable(void **state)
{
	struct env *e = *state;
	struct diff_opts o = {.workdir = e->dir};
	struct tdata_row r = {.line = 0, .file = "test_dry_run_unavailable"};
	char *cmd = xasprintf("cd '%s' && echo S=1 > .env && ln .env other", e->dir), *text;
	struct call *c;
	struct diff *d;

	env_reset(e);
	assert_int_equal(system(cmd), 0);
	c = decode(&r, "{\"tool\":\"shell\",\"input\":{\"command\":\"echo hi > f\"}}");
	d = diff_preview_call(c, &o);
	text = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	assert_false(diff_complete(d, NULL));
	if (strstr(text, "dry run unavailable")) { /* a sandbox that refuses the link */
		assert_null(strstr(text, " no changes"));
		assert_non_null(strstr(text, "the dry run did not run: what the command changes "
		                             "is not known"));
	}
	free(text);
	diff_free(d);
	call_free(c);
	free(cmd);
}

/* A 9 MiB command as the title filled the text's cap, and the "not
 * applied" line after it, which the screen reads, was cut away. */
static void test_title_capped(void **state)
{
	struct diff *d = diff_new(TOOL_SHELL, "/");
	char *text;
	size_t n = 9u << 20;

	(void)state;
	d->title = xmalloc(n + 1);
	memset(d->title, 'a', n);
	d->title[n] = '\0';
	diff_set_incomplete(d, "dry run unavailable: cannot run /bin/sh: Argument list too long");
	text = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	assert_non_null(strstr(text, "... [9433088 more bytes]\nnot applied from the preview: "));
	assert_true(strlen(text) < 16384);
	free(text);
	diff_free(d);
}

/* A dry run that wrote 45,000 files into a nested .git made a note for
 * each (compared with every one before: 23 s of a held gate), and their
 * lines came before the stat block. Notes past DIFF_NOTES_CAP are counted. */
static void test_notes_capped(void **state)
{
	struct diff *d = diff_new(TOOL_SHELL, "/");
	char *text;

	(void)state;
	for (int i = 0; i < 5000; i++)
		diff_set_incomplete(d, "the dry run changed sub/.git/f%d", i);
	assert_int_equal(strv_len(d->notes), DIFF_NOTES_CAP);
	assert_int_equal(d->notes_more, 5000 - 1 - DIFF_NOTES_CAP);
	text = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	assert_non_null(strstr(text, "\nnote: ... and 4979 more notes (not listed)\n"));
	free(text);
	diff_free(d);
}

/* A stat block cut at 8 MiB ended in half a path glued to its notice
 * ("000[7394 more changes not listed"): the line cut goes, and it is
 * counted with the changes not listed. */
static void test_stat_cut_whole_lines(void **state)
{
	struct diff *d = diff_new(TOOL_SHELL, "/");
	char name[200], *text, *notice, *line_start;
	size_t n = 50000, shown = 0, more = 0;

	(void)state;
	d->ran = true;
	for (size_t i = 0; i < n; i++) {
		struct diff_entry *e;
		snprintf(name, sizeof(name), "%0180zu", i);
		e = diff_add_entry(d, name, DIFF_OP_ADD);
		e->new_mode = S_IFREG | 0644;
	}
	text = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	notice = strstr(text, " more changes not listed");
	assert_non_null(notice);
	while (notice > text && *notice != '[')
		notice--;
	assert_true(notice > text && notice[-1] == '\n');
	assert_int_equal(sscanf(notice, "[%zu more changes", &more), 1);
	for (line_start = text; line_start < notice; line_start = strchr(line_start, '\n') + 1)
		shown += strncmp(line_start, " 0", 2) == 0;
	assert_int_equal(shown + more, n);
	free(text);
	diff_free(d);
}

/* The swap diff_run_hook makes: sub -> a becomes sub -> b. */
static char *swap_dir;

static void swap_link(void)
{
	char *cmd = xasprintf("ln -sfn b '%s/o/sub'", swap_dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* An approved write outside the workdir (not applied) was checked, then
 * run by name: a directory link swapped in between carried it to b/.
 * Now it is refused, and nothing lands in a/ or b/. The same for an edit
 * through a link in the workdir, whose link is swapped to another file. */
static void test_run_after_swap(void **state)
{
	struct env *e = *state;
	struct diff_opts o = {.workdir = e->dir};
	struct tdata_row r = {.line = 0, .file = "test_run_after_swap"};
	char *cmd = xasprintf("cd '%s' && mkdir -p w o/a o/b && ln -s a o/sub && echo hi >e.txt && "
	                      "echo other >o.txt && ln -s e.txt l.txt", e->dir);
	char *wd = xasprintf("%s/w", e->dir), *err = NULL, *a, *b;
	struct outcome *out = outcome_new();
	struct call *c;
	struct diff *d;

	env_reset(e);
	assert_int_equal(system(cmd), 0);
	swap_dir = e->dir;
	o.workdir = wd;
	c = decode(&r, "{\"tool\":\"write_file\",\"input\":{\"path\":\"../o/sub/f.txt\","
	               "\"content\":\"x\\n\"}}");
	d = diff_preview_call(c, &o);
	assert_false(diff_complete(d, NULL));
	diff_run_hook = swap_link;
	assert_int_equal(diff_run_file(d, out, &err), -1);
	diff_run_hook = NULL;
	assert_non_null(err);
	a = xasprintf("%s/o/a/f.txt", e->dir), b = xasprintf("%s/o/b/f.txt", e->dir);
	assert_int_not_equal(access(b, F_OK), 0);
	assert_int_not_equal(access(a, F_OK), 0);
	free(err), err = NULL;
	diff_free(d);
	call_free(c);
	/* unswapped, the same write lands in a/ (the link is followed as shown) */
	free(cmd);
	cmd = xasprintf("ln -sfn a '%s/o/sub'", e->dir);
	assert_int_equal(system(cmd), 0);
	c = decode(&r, "{\"tool\":\"write_file\",\"input\":{\"path\":\"../o/sub/f.txt\","
	               "\"content\":\"x\\n\"}}");
	d = diff_preview_call(c, &o);
	assert_int_equal(diff_run_file(d, out, &err), 1);
	assert_int_equal(access(a, F_OK), 0);
	diff_free(d);
	call_free(c);
	free(a);
	free(b);
	free(wd);
	free(cmd);
	outcome_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_big_diff),
		cmocka_unit_test_setup_teardown(test_json, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_files, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_sql, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_shell, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_locked_database, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_unavailable, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_run_after_swap, env_setup, env_teardown),
		cmocka_unit_test(test_notes_capped),
		cmocka_unit_test(test_title_capped),
		cmocka_unit_test(test_stat_cut_whole_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
