/*
 * test_core.c: the shared helpers: UTF-8 repair (tests/data/core/utf8.tsv),
 * path containment and parents (path_contains.tsv, path_up.tsv), capped
 * buffers, string vectors, verdict bookkeeping, enum names, whole reads.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/encode.h"
#include "core/jalloc.h"
#include "core/kept.h"
#include "core/lazy.h"
#include "core/state.h"
#include "core/util.h"
#include "tdata.h"

static void test_utf8_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/core/utf8.tsv", &rows);
	(void)state;
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++) {
		const char *in = rows[i].f[0];
		char *fixed = utf8_repair(in, strlen(in));
		if ((strcmp(rows[i].f[1], "yes") == 0) != utf8_valid(in, strlen(in)))
			fail_msg("line %zu: validity of [%s]", rows[i].line, in);
		if (strcmp(fixed, rows[i].f[2]) != 0)
			fail_msg("line %zu: repaired [%s], want [%s]", rows[i].line, fixed,
			         rows[i].f[2]);
		assert_true(utf8_valid(fixed, strlen(fixed)));
		free(fixed);
		if (rows[i].nf > 3) {
			struct buf b;
			buf_init(&b, 0);
			buf_append_printable(&b, in, strlen(in));
			if (strcmp(b.data ? b.data : "", rows[i].f[3]) != 0)
				fail_msg("line %zu: printable [%s], want [%s]", rows[i].line,
				         b.data ? b.data : "", rows[i].f[3]);
			buf_free(&b);
		}
	}
	tdata_free(rows, n);
}

static void test_path_contains_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/core/path_contains.tsv", &rows);
	(void)state;
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++)
		if (path_contains(rows[i].f[0], rows[i].f[1]) != (strcmp(rows[i].f[2], "yes") == 0))
			fail_msg("line %zu: path_contains(%s, %s), want %s", rows[i].line,
			         rows[i].f[0], rows[i].f[1], rows[i].f[2]);
	tdata_free(rows, n);
}

static void test_path_up_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/core/path_up.tsv", &rows);
	(void)state;
	assert_true(n >= 6);
	for (size_t i = 0; i < n; i++) {
		char *p = xstrdup(rows[i].f[0]);
		bool up = path_up(p);
		if (strcmp(p, rows[i].f[1]) != 0 || up != (strcmp(rows[i].f[2], "yes") == 0))
			fail_msg("line %zu: path_up(%s) -> %s %d, want %s %s", rows[i].line,
			         rows[i].f[0], p, up, rows[i].f[1], rows[i].f[2]);
		free(p);
	}
	tdata_free(rows, n);
}

static void test_nul_is_invalid(void **state)
{
	char *fixed = utf8_repair("a\0b", 3);
	(void)state;
	assert_false(utf8_valid("a\0b", 3));
	assert_string_equal(fixed, "a\xef\xbf\xbd" "b");
	free(fixed);
}

static void test_buf_cap(void **state)
{
	struct buf b;
	size_t len;
	char *s;
	(void)state;
	buf_init(&b, 8);
	buf_puts(&b, "12345");
	assert_false(b.truncated);
	buf_puts(&b, "6789");
	assert_true(b.truncated);
	assert_int_equal(b.len, 8);
	buf_puts(&b, "more");
	assert_int_equal(b.len, 8);
	s = buf_take(&b, &len);
	assert_string_equal(s, "12345678");
	assert_int_equal(len, 8);
	free(s);
	buf_free(&b);
	/* a cut inside a word: the word goes, back to the blank before it */
	buf_init(&b, 16);
	buf_puts(&b, "key: ghp_abcdefghijklmn");
	buf_drop_cut_word(&b);
	assert_string_equal(b.data, "key: ");
	buf_free(&b);
	buf_init(&b, 16);
	buf_puts(&b, "line one\nab"); /* not cut: kept whole */
	buf_drop_cut_word(&b);
	assert_string_equal(b.data, "line one\nab");
	buf_free(&b);
}

static void test_strv(void **state)
{
	char **v = NULL, **d;
	(void)state;
	assert_int_equal(strv_len(v), 0);
	strv_push(&v, "a");
	strv_push_owned(&v, xstrdup("b"));
	assert_int_equal(strv_len(v), 2);
	assert_true(strv_contains(v, "b"));
	assert_false(strv_contains(v, "c"));
	d = strv_dup(v);
	assert_string_equal(d[1], "b");
	assert_null(d[2]);
	strv_free(v);
	strv_free(d);
	strv_free(NULL);
}

static void test_verdict_max_tier(void **state)
{
	struct verdict *v = verdict_new();
	(void)state;
	assert_int_equal(v->tier, TIER_LOW);
	verdict_add(v, TIER_HIGH, "net.fetch", (struct span){0, 4}, "fetches %s", "x");
	verdict_add(v, TIER_MEDIUM, "fs.write", (struct span){5, 2}, "writes");
	assert_int_equal(v->tier, TIER_HIGH);
	assert_true(verdict_has(v, "fs.write"));
	assert_false(verdict_has(v, "fs.delete"));
	verdict_add_path(&v->writes, "/w/a");
	verdict_add_path(&v->writes, "/w/a");
	assert_int_equal(strv_len(v->writes), 1);
	verdict_free(v);
	verdict_free(NULL);
}

static void test_names(void **state)
{
	enum tier t;
	enum action a;
	(void)state;
	assert_string_equal(tier_name(TIER_CRITICAL), "critical");
	assert_int_equal(tier_from_name("medium", &t), 0);
	assert_int_equal(t, TIER_MEDIUM);
	assert_int_equal(tier_from_name("severe", &t), -1);
	assert_int_equal(action_from_name("ask", &a), 0);
	assert_int_equal(a, ACTION_ASK);
	assert_string_equal(decision_name(DECISION_APPROVED), "approved");
	assert_string_equal(tool_name(TOOL_EDIT_FILE), "edit_file");
}

static void test_summary_escapes(void **state)
{
	static const struct {
		const char *command;
		size_t max;
		const char *want;
	} rows[] = {
		{"echo hi\r\033[2Kls", 64, "echo hi\\x0d\\x1b[2Kls"},
		{"0123456789012345678901234567890123456789", 20, "01234567890123456..."},
		/* a bidi override would show "rm" reversed after an innocent word */
		{"echo \xe2\x80\xaemr -rf ~", 64, "echo \\u202emr -rf ~"},
		/* cut between characters: never half of the euro sign */
		{"01234567890123\xe2\x82\xacxy", 18, "01234567890123..."},
	};
	struct call *c = call_new();
	(void)state;
	c->tool = TOOL_SHELL;
	for (size_t i = 0; i < nitems(rows); i++) {
		char *s;
		c->command = rows[i].command;
		s = encode_summary(c, rows[i].max);
		assert_string_equal(s, rows[i].want);
		free(s);
	}
	call_free(c);
}

static void test_parse_ll(void **state)
{
	long long v;
	(void)state;
	assert_int_equal(parse_ll("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_ll("101", 0, 100, &v), -1);
	assert_int_equal(parse_ll("4x", 0, 100, &v), -1);
	assert_int_equal(parse_ll("", 0, 100, &v), -1);
	assert_int_equal(parse_ll("99999999999999999999", 0, 100, &v), -1);
}

/* encode_append_verdict() streams what json_dumps() of encode_verdict()'s
 * tree holds, byte for byte: reasons from tests/data/core/utf8.tsv (bad
 * UTF-8, controls, NULs cut short), one past the kept-text bound, spans
 * past the kept numbers; each twice, the second from the kept text. */
static void test_encode_streamed(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/core/utf8.tsv", &rows);
	char *long_reason = xmalloc(600);
	(void)state;
	memset(long_reason, 'r', 599);
	long_reason[599] = '\0';
	assert_true(n >= 10);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i <= n; i++) {
			struct verdict *v = verdict_new();
			const char *r = i < n ? rows[i].f[0] : long_reason;
			json_t *o = json_object();
			struct buf b;
			char *want;
			verdict_add(v, TIER_MEDIUM, "fs.write", (struct span){i, 3}, "%s", r);
			verdict_add(v, TIER_HIGH, r, (struct span){1023, 1024 + i}, "again: %s", r);
			encode_verdict(o, v);
			want = json_dumps(o, JSON_COMPACT);
			buf_init(&b, 0);
			buf_append(&b, "{", 1);
			assert_int_equal(encode_append_verdict(&b, v), 0);
			buf_append(&b, "}", 2); /* with its NUL */
			if (strcmp(b.data, want) != 0)
				fail_msg("row %zu, round %d: streamed %s, dumped %s", i, round, b.data,
				         want);
			free(want);
			buf_free(&b);
			json_decref(o);
			verdict_free(v);
		}
	free(long_reason);
	tdata_free(rows, n);
}

/* fd_read_all(): what arrives in pieces is read whole; a file that ends
 * before the size the caller was told is an error, not a short buffer. */
static void test_fd_read_all(void **state)
{
	char got[8] = {0};
	int p[2];
	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "abc", 3), 3);
	assert_int_equal(write(p[1], "defg", 4), 4);
	assert_int_equal(fd_read_all(p[0], got, 7), 0);
	assert_string_equal(got, "abcdefg");
	assert_int_equal(write(p[1], "xy", 2), 2);
	close(p[1]);
	assert_int_equal(fd_read_all(p[0], got, 3), -1);
	close(p[0]);
}

/* The child of test_lazy_transient(): 0, or the step that went wrong. */
static int lazy_transient_child(void)
{
	struct rlimit r = {32, 32};
	const struct lazy_git *g;
	char *err = NULL;
	int fd, first = -1;

	if (setrlimit(RLIMIT_NOFILE, &r) != 0)
		return 1;
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		if (first < 0)
			first = fd;
	g = lazy_git(&err);
	if (g != NULL || err == NULL)
		return 2;
	if (strstr(err, "ulimit -n") == NULL || strstr(err, "install") != NULL)
		return 3;
	free(err);
	err = NULL;
	for (fd = first; fd >= 0 && fd < 32; fd++)
		close(fd);
	g = lazy_git(&err);
	if (g == NULL)
		return 4;
	return 0;
}

/* A library that failed to load for want of a descriptor says so, not
 * "install libgit2-dev", and loads on the next try once one is free (it
 * used to stay failed for the life of the process: a gate that once ran
 * out of descriptors could never read a repository again). */
static void test_lazy_transient(void **state)
{
	int st = 0;
	pid_t pid;
	(void)state;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(lazy_transient_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* "a|b" as a vector ("-": none). */
static char **bar_split(const char *s)
{
	char **v = NULL, *copy = xstrdup(s), *save = NULL;

	if (strcmp(s, "-") != 0)
		for (char *t = strtok_r(copy, "|", &save); t; t = strtok_r(NULL, "|", &save))
			strv_push(&v, t);
	free(copy);
	return v;
}

/* kept_list() then kept_rd_list() over tests/data/core/kept.tsv: what a
 * list reads back as, whole, cut short, or of the wrong kind. */
static void test_kept_table(void **state)
{
	static const struct {
		const char *name;
		enum kept_kind kind;
	} kinds[] = {{"any", KEPT_ANY}, {"names", KEPT_NAMES}, {"paths", KEPT_PATHS}};
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/core/kept.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct tdata_row *r = &rows[i];
		char **in = bar_split(r->f[0]), **out, *got;
		enum kept_kind kind = KEPT_ANY;
		size_t keep, k;
		struct buf b, j;

		for (k = 0; k < nitems(kinds) && strcmp(kinds[k].name, r->f[1]) != 0; k++)
			;
		assert_true(k < nitems(kinds));
		kind = kinds[k].kind;
		buf_init(&b, 0);
		kept_list(&b, in);
		keep = strcmp(r->f[2], "all") == 0 ? b.len : strtoul(r->f[2], NULL, 10);
		assert_true(keep <= b.len);
		struct kept_rd rd = {b.data ? b.data : "", (b.data ? b.data : "") + keep, false};
		out = kept_rd_list(&rd, kind);
		buf_init(&j, 0);
		for (char **o = out; o && *o; o++)
			buf_printf(&j, "%s%s", o == out ? "" : "|", *o);
		got = rd.bad ? xstrdup("bad") : j.len ? buf_take(&j, NULL) : xstrdup("-");
		if (strcmp(got, r->f[3]) != 0)
			fail_msg("%s:%zu: read [%s], want [%s]", r->file, r->line, got, r->f[3]);
		assert_true(rd.bad || rd.p == rd.end);
		free(got);
		buf_free(&j);
		buf_free(&b);
		strv_free(in);
		strv_free(out);
	}
	tdata_free(rows, n);
}

/* kept_stamp() then kept_rd_stamp_same(): the same file unchanged; not
 * once it is replaced (a package upgrade renames a new file over it) or
 * touched, nor a path that is gone or relative, nor a cut stamp. */
static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static bool stamp_same_now(const struct buf *b, size_t cut)
{
	struct kept_rd r = {b->data, b->data + b->len - cut, false};
	return kept_rd_stamp_same(&r);
}

static void test_kept_stamp(void **state)
{
	char dir[] = "/tmp/airlock-stamp-XXXXXX", *path, *tmp;
	struct timespec t[2] = {{1000000000, 0}, {1000000000, 0}};
	struct buf b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/lib.so", dir);
	tmp = xasprintf("%s/lib.so.new", dir);
	write_text(path, "v1");
	buf_init(&b, 0);
	kept_stamp(&b, path);
	assert_true(stamp_same_now(&b, 0));
	assert_false(stamp_same_now(&b, 1));
	write_text(tmp, "v2");
	assert_int_equal(rename(tmp, path), 0);
	assert_false(stamp_same_now(&b, 0));
	buf_free(&b);
	buf_init(&b, 0);
	kept_stamp(&b, path);
	assert_true(stamp_same_now(&b, 0));
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	assert_false(stamp_same_now(&b, 0));
	buf_free(&b);
	buf_init(&b, 0);
	kept_stamp(&b, path);
	assert_int_equal(unlink(path), 0);
	assert_false(stamp_same_now(&b, 0));
	buf_free(&b);
	buf_init(&b, 0);
	kept_stamp(&b, "lib.so"); /* relative: never the same */
	assert_false(stamp_same_now(&b, 0));
	buf_free(&b);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(tmp);
}

/* kept_write() then kept_read(): whole; refused when another can read
 * it, through a link, empty, or over the bound. */
static void test_kept_file(void **state)
{
	char dir[] = "/tmp/airlock-kept-XXXXXX", *path, *link;
	char *data;
	size_t len;
	struct buf b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/k", dir);
	link = xasprintf("%s/l", dir);
	buf_init(&b, 0);
	kept_str(&b, "magic");
	assert_int_equal(kept_write(path, &b), 0);
	data = kept_read(path, 1024, &len);
	assert_non_null(data);
	assert_int_equal(len, 6);
	assert_memory_equal(data, "magic", 6);
	free(data);
	assert_null(kept_read(path, 5, &len)); /* over the bound */
	{ /* written by another airlock binary (its stamp leads the file) */
		int fd = open(path, O_RDWR);
		char c;
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, 8), 1); /* the inode's first byte */
		c ^= 1;
		assert_int_equal(pwrite(fd, &c, 1, 8), 1);
		assert_null(kept_read(path, 1024, &len));
		c ^= 1;
		assert_int_equal(pwrite(fd, &c, 1, 8), 1);
		assert_int_equal(close(fd), 0);
		assert_non_null(data = kept_read(path, 1024, &len));
		free(data);
	}
	assert_int_equal(symlink("k", link), 0);
	assert_null(kept_read(link, 1024, &len));
	assert_int_equal(chmod(path, 0640), 0);
	assert_null(kept_read(path, 1024, &len));
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(truncate(path, 0), 0);
	assert_null(kept_read(path, 1024, &len));
	{ /* a FIFO at the path: refused at once, not waited on */
		char *fifo = xasprintf("%s/fifo", dir);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_null(kept_read(fifo, 1024, &len));
		assert_int_equal(unlink(fifo), 0);
		free(fifo);
	}
	/* a first file in the directory removes those not written for 30
	 * days, no other */
	{
		struct timespec old[2] = {{time(NULL) - 31 * 86400, 0}, {time(NULL) - 31 * 86400, 0}};
		struct timespec fresh[2] = {{time(NULL) - 29 * 86400, 0}, {time(NULL) - 29 * 86400, 0}};
		char *other = xasprintf("%s/k2", dir);
		assert_int_equal(utimensat(AT_FDCWD, path, old, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(utimensat(AT_FDCWD, link, old, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(kept_write(other, &b), 0);
		assert_int_equal(access(path, F_OK), -1);
		assert_int_equal(unlink(link), 0); /* a link is left alone */
		assert_int_equal(symlink("k", link), 0);
		assert_int_equal(kept_write(path, &b), 0);
		assert_int_equal(utimensat(AT_FDCWD, path, fresh, 0), 0);
		assert_int_equal(unlink(other), 0);
		assert_int_equal(kept_write(other, &b), 0);
		assert_int_equal(access(path, F_OK), 0);
		assert_int_equal(kept_write(other, &b), 0); /* there: no prune */
		assert_int_equal(unlink(other), 0);
		free(other);
	}
	buf_free(&b);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	free(link);
}

/* state_file(): refused when a directory above the state directory, the
 * home excepted, is a repository or project (a call there could write
 * what is kept for others); the home's own .git refuses nothing. */
static void test_state_file(void **state)
{
	static const struct {
		const char *state, *mark; /* XDG_STATE_HOME, below dir; a mark made first */
		bool kept;
	} cases[] = {
		{"plain/st", NULL, true},
		{"dots/.local/st", "dots/.git", false},
		{"proj/a/b", "proj/.airlock", false},
		{"hg/st", "hg/.hg", false},
		{"home/.local/state", "home/.git", true},
	};
	char dir[] = "/tmp/airlock-state-XXXXXX";
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *old_state = getenv("XDG_STATE_HOME") ? xstrdup(getenv("XDG_STATE_HOME")) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < nitems(cases); i++) {
		char *home = xasprintf("%s/home", dir), *st = xasprintf("%s/%s", dir, cases[i].state);
		char *path, *cmd;
		if (cases[i].mark) {
			char *mark = xasprintf("%s/%s", dir, cases[i].mark);
			cmd = xasprintf("mkdir -p '%s'", mark);
			assert_int_equal(system(cmd), 0);
			free(cmd);
			free(mark);
		}
		cmd = xasprintf("mkdir -p '%s' '%s'", home, st);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		setenv("HOME", home, 1);
		setenv("XDG_STATE_HOME", st, 1);
		path = state_file("/nonexistent/wd", "kept");
		if ((path != NULL) != cases[i].kept)
			fail_msg("%s: state_file() gave %s", cases[i].state, path ? path : "NULL");
		free(path);
		free(home);
		free(st);
	}
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	if (old_state)
		setenv("XDG_STATE_HOME", old_state, 1);
	else
		unsetenv("XDG_STATE_HOME");
	free(old_home);
	free(old_state);
}

/* Lines decoded into jalloc's block read back as a heap decode does at any
 * size (past the block the rest comes from malloc()), a second line reuses
 * the block, and what jansson makes after the decode is heap memory that
 * free() takes: json_dumps() from the block would crash the free(). */
static void test_jalloc_lines(void **state)
{
	static const size_t sizes[] = {0, 1, 100, 4096, 200000, 300000, 1000000, 5};

	(void)state;
	jalloc_install();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		json_t *doc = json_pack("{s:s%,s:[]}", "x", "", (size_t)0, "a");
		char *text, *want, *got, *pad = xcalloc(1, sizes[i] + 1);
		json_t *j;

		memset(pad, 'x', sizes[i]);
		json_object_set_new(doc, "x", json_string(pad));
		for (size_t k = 0; k < sizes[i] / 64; k++)
			json_array_append_new(json_object_get(doc, "a"), json_pack("{s:I}", "k", (json_int_t)k));
		text = json_dumps(doc, JSON_COMPACT);
		want = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
		jalloc_line_begin();
		j = json_loads(text, 0, NULL);
		jalloc_line_decoded();
		assert_non_null(j);
		got = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		assert_string_equal(got, want);
		free(got);
		json_decref(j);
		json_decref(doc);
		free(text);
		free(want);
		free(pad);
	}
	json_set_alloc_funcs(xmalloc, free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_table),      cmocka_unit_test(test_nul_is_invalid),
		cmocka_unit_test(test_buf_cap),         cmocka_unit_test(test_strv),
		cmocka_unit_test(test_verdict_max_tier), cmocka_unit_test(test_names),
		cmocka_unit_test(test_summary_escapes), cmocka_unit_test(test_parse_ll),
		cmocka_unit_test(test_path_contains_table), cmocka_unit_test(test_path_up_table),
		cmocka_unit_test(test_fd_read_all), cmocka_unit_test(test_encode_streamed),
		cmocka_unit_test(test_kept_table),    cmocka_unit_test(test_kept_file),
		cmocka_unit_test(test_kept_stamp),
		cmocka_unit_test(test_state_file),      cmocka_unit_test(test_lazy_transient),
		cmocka_unit_test(test_jalloc_lines),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
