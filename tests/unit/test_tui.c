/*
 * test_tui.c: the screens without a terminal: hostile text shown escaped
 * (tests/data/tui/escape.tsv), classifier spans (spans.tsv), the browser's
 * key handling and keyset paging (browse.tsv), and the approval screen
 * driven by scripted keys (approve.tsv).
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include <cmocka.h>

#include "core/util.h"
#include "db/db.h"
#include "gate/protocol.h"
#include "tdata.h"
#include "tui/browser_internal.h"
#include "tui/tui.h"

/* ---- key notation: plain characters (UTF-8), <Name>, <Name*N>, <c*N>,
 * <Paste:TEXT> (a bracketed paste of TEXT) ----------------------------- */

static const struct {
	const char *name;
	enum tkey_code code;
} key_names[] = {
	{"Up", TK_UP},       {"Down", TK_DOWN},   {"PgUp", TK_PGUP}, {"PgDn", TK_PGDN},
	{"Home", TK_HOME},   {"End", TK_END},     {"Enter", TK_ENTER}, {"Esc", TK_ESC},
	{"BS", TK_BACKSPACE}, {"Resize", TK_RESIZE}, {"Tick", TK_TIMEOUT},
};

static void push_key(struct tkey **v, size_t *n, struct tkey k, long times)
{
	for (long i = 0; i < times; i++) {
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = k;
	}
}

/* Decodes one UTF-8 character of a key string. */
static size_t key_char(const char *s, uint32_t *cp)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	*cp = len == 1 ? c : c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++)
		*cp = (*cp << 6) | ((unsigned char)s[i] & 0x3f);
	return len;
}

/* The code points of the pastes in a test's keys (reset by each parse). */
static uint32_t paste_pool[4096];
static size_t paste_used;

static struct tkey paste_key(const char *s, const char *end)
{
	struct tkey k = {.code = TK_PASTE, .text = paste_pool + paste_used};

	while (s < end && paste_used < nitems(paste_pool)) {
		s += key_char(s, &paste_pool[paste_used++]);
		k.ntext++;
	}
	return k;
}

static size_t parse_keys(const char *s, struct tkey **out)
{
	size_t n = 0;

	*out = NULL;
	paste_used = 0;
	while (*s) {
		struct tkey k = {.code = TK_CHAR};
		const char *end = s[0] == '<' ? strchr(s, '>') : NULL;
		if (end && strncmp(s, "<Paste:", 7) == 0) {
			push_key(out, &n, paste_key(s + 7, end), 1);
			s = end + 1;
			continue;
		}
		if (end && end - s > 1) {
			char name[32] = {0}, *star;
			long times = 1;
			memcpy(name, s + 1, (size_t)(end - s - 1) < 31 ? (size_t)(end - s - 1) : 31);
			if ((star = strchr(name, '*')) != NULL) {
				*star = '\0';
				times = strtol(star + 1, NULL, 10);
			}
			k.code = TK_NONE;
			for (size_t i = 0; i < nitems(key_names); i++)
				if (strcmp(name, key_names[i].name) == 0)
					k.code = key_names[i].code;
			if (k.code == TK_NONE && strlen(name) == 1)
				k = (struct tkey){.code = TK_CHAR, .ch = (uint32_t)(unsigned char)name[0]};
			if (k.code == TK_NONE)
				fail_msg("unknown key name <%s>", name);
			push_key(out, &n, k, times);
			s = end + 1;
			continue;
		}
		s += key_char(s, &k.ch);
		push_key(out, &n, k, 1);
	}
	return n;
}

/* ---- helpers ------------------------------------------------------------ */

static char *doc_text(const struct doc *d, enum tattr mark)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < d->nrows; i++) {
		char *r = doc_row_marked(&d->rows[i], mark);
		buf_printf(&b, "%s%s", i ? "\n" : "", r);
		free(r);
	}
	return buf_take(&b, NULL);
}

static int setup(void **state)
{
	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		return -1;
	return 0;
}

/* ---- escaping ----------------------------------------------------------- */

static void test_escape_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/tui/escape.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct doc d;
		char *got;
		doc_init(&d, (int)strtol(rows[i].f[1], NULL, 10), rows[i].f[2][0] == '1');
		doc_puts(&d, rows[i].f[0], TA_NORMAL);
		doc_newline(&d);
		got = doc_text(&d, TA_MARK);
		if (strcmp(got, rows[i].f[3]) != 0 || d.nmarked != (size_t)(int)strtol(rows[i].f[4], NULL, 10))
			fail_msg("%s:%zu: got [%s] (%zu marked), want [%s] (%s)", rows[i].file,
			         rows[i].line, got, d.nmarked, rows[i].f[3], rows[i].f[4]);
		for (size_t r = 0; r < d.nrows; r++)
			assert_true(d.rows[r].cells <= d.width);
		free(got);
		doc_clear(&d);
	}
	tdata_free(rows, n);
}

/* NUL cannot live in a data file line: checked here. */
static void test_escape_nul(void **state)
{
	struct doc d;
	char *got;

	(void)state;
	doc_init(&d, 80, false);
	doc_put(&d, "a\0b", 3, TA_NORMAL);
	doc_newline(&d);
	got = doc_text(&d, TA_MARK);
	assert_string_equal(got, "a[[\\0]]b");
	free(got);
	doc_clear(&d);
}

/* A character one cell wide with U+FE0F is wrapped as two cells: some
 * terminals draw it so, and a row of them pushed its tail past the edge. */
static void test_escape_emoji_selector(void **state)
{
	static const struct {
		const char *in, *row0, *row1;
	} cases[] = {
		{"x\u263a\ufe0f\u263a\ufe0f\u263a\ufe0f\u263a\ufe0f\u263a\ufe0f",
		 "x\u263a\ufe0f\u263a\ufe0f\u263a\ufe0f\u263a\ufe0f", "\u263a\ufe0f"},
		{"abcdefghi1\ufe0f\u20e3", "abcdefghi", "1\ufe0f\u20e3"},
		{"abcdefgh\U0001F600\ufe0f", "abcdefgh\U0001F600\ufe0f", NULL}, /* wide already */
		{"abcdefg\U0001F1FA\U0001F1F8", "abcdefg\U0001F1FA", "\U0001F1F8"}, /* a flag */
	};
	struct doc d;

	(void)state;
	for (size_t i = 0; i < nitems(cases); i++) {
		doc_init(&d, 10, false);
		doc_puts(&d, cases[i].in, TA_NORMAL);
		doc_newline(&d);
		assert_int_equal(d.nrows, cases[i].row1 ? 2 : 1);
		assert_memory_equal(d.rows[0].text, cases[i].row0, strlen(cases[i].row0));
		assert_int_equal(d.rows[0].len, strlen(cases[i].row0));
		if (cases[i].row1) {
			assert_int_equal(d.rows[1].len, strlen(cases[i].row1));
			assert_memory_equal(d.rows[1].text, cases[i].row1, strlen(cases[i].row1));
		}
		for (size_t r = 0; r < d.nrows; r++)
			assert_true(d.rows[r].cells <= d.width);
		doc_clear(&d);
	}
}

/* No byte from 0 to 255, alone or after any other, reaches a row unescaped. */
static void test_escape_every_byte(void **state)
{
	struct doc d;
	char in[2];

	(void)state;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			doc_init(&d, 80, false);
			doc_put(&d, in, 2, TA_NORMAL);
			doc_newline(&d);
			for (size_t r = 0; r < d.nrows; r++)
				for (size_t k = 0; k < d.rows[r].len; k++) {
					unsigned char c = (unsigned char)d.rows[r].text[k];
					if (c < 0x20 || c == 0x7f)
						fail_msg("byte 0x%02x reached the screen from %02x %02x", c, a, b);
				}
			assert_true(utf8_valid(d.rows[0].text, d.rows[0].len));
			doc_clear(&d);
		}
}

static void test_spans_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/tui/spans.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct span sp[8];
		size_t nsp = 0;
		struct doc d;
		char *got, *save = NULL, *copy = xstrdup(rows[i].f[1]);
		for (char *t = strtok_r(copy, ",", &save); t && nsp < 8;
		     t = strtok_r(NULL, ",", &save))
			sp[nsp++] = (struct span){strtoul(t, NULL, 10), strtoul(strchr(t, ':') + 1, NULL, 10)};
		doc_init(&d, 80, false);
		doc_put_spans(&d, rows[i].f[0], sp, nsp);
		doc_newline(&d);
		got = doc_text(&d, TA_SPAN);
		if (strcmp(got, rows[i].f[2]) != 0)
			fail_msg("%s:%zu: got [%s], want [%s]", rows[i].file, rows[i].line, got,
			         rows[i].f[2]);
		free(got);
		free(copy);
		doc_clear(&d);
	}
	tdata_free(rows, n);
}

static void test_diff_files(void **state)
{
	struct doc d;
	const char *diff = " a | 2 +-\n 1 file changed\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n"
	                   "--- a/b\n+++ b/b\n@@ -1 +1 @@\n-\tz\n";

	(void)state;
	doc_init(&d, 80, false);
	doc_put_diff(&d, diff);
	assert_int_equal(d.nfiles, 2);
	assert_int_equal(d.files[0], 2);
	assert_int_equal(d.files[1], 7);
	assert_int_equal(d.rows[5].runs[0].attr, TA_DEL);
	assert_int_equal(d.rows[6].runs[0].attr, TA_ADD);
	assert_int_equal(d.rows[4].runs[0].attr, TA_HUNK);
	assert_string_equal(d.rows[10].text, "-       z"); /* tabs expand in diffs */
	assert_int_equal(d.nmarked, 0);
	doc_clear(&d);
}

/* Inside a hunk, a removed "-- a/README.md" and an added "++ b/README.md"
 * are content, not another file's header. */
static void test_diff_hunk_content(void **state)
{
	struct doc d;
	const char *diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n ctx\n"
	                   "--- a/README.md\n+++ b/README.md\n+evil\n\\ No newline at end of file\n"
	                   "--- a/y\n+++ b/y\n";

	(void)state;
	doc_init(&d, 80, false);
	doc_put_diff(&d, diff);
	assert_int_equal(d.nfiles, 1);
	assert_int_equal(d.rows[1].runs[0].attr, TA_FILE);
	assert_int_equal(d.rows[5].runs[0].attr, TA_DEL);
	assert_int_equal(d.rows[6].runs[0].attr, TA_ADD);
	assert_int_equal(d.rows[7].runs[0].attr, TA_ADD);
	assert_int_equal(d.rows[9].runs[0].attr, TA_FILE); /* the hunk is over */
	doc_clear(&d);
}

/* ---- the browser --------------------------------------------------------- */

struct fake {
	long nitems;    /* list:N */
	int files, lines;
};

static int fake_page(void *arg, struct browser *b, int64_t key, int dir, size_t limit,
                     char **errstr)
{
	struct fake *f = arg;
	int64_t k = dir > 0 ? (key ? key - 1 : f->nitems) : (key ? key + 1 : 1);
	int added = 0;

	(void)errstr;
	for (; k >= 1 && k <= f->nitems && (size_t)added < limit; k += dir > 0 ? -1 : 1) {
		char *t = xasprintf("item %lld  high  text", (long long)k);
		browser_add(b, k, t, TIER_HIGH, 11, 4);
		free(t);
		added++;
	}
	return added;
}

static int fake_detail(void *arg, int64_t key, int view, struct doc *d, char **errstr)
{
	struct fake *f = arg;
	struct buf b;

	(void)errstr;
	if (f->files == 0) {
		doc_printf(d, TA_NORMAL, "detail of %lld view %d\n", (long long)key, view);
		return 0;
	}
	buf_init(&b, 0);
	for (int i = 1; i <= f->files; i++) {
		buf_printf(&b, "diff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n@@ -0,0 +1,%d @@\n", i,
		           i, i, i, f->lines);
		for (int l = 1; l <= f->lines; l++)
			buf_printf(&b, "+line %d.%d\n", i, l);
	}
	doc_put_diff(d, b.data);
	buf_free(&b);
	return 0;
}

static void fake_header(void *arg, struct browser *b, struct doc *d)
{
	(void)arg, (void)b;
	doc_puts(d, "header\n", TA_TITLE);
}

static const struct keybind no_keys[] = {{0, TK_NONE, 0, NULL, NULL}};

static const struct browser_ops fake_ops = {
	.page = fake_page, .detail = fake_detail, .header = fake_header,
	.keys = no_keys, .nviews = 2,
};

static void frame(struct browser *b)
{
	const struct trow *rows[24];
	int cr, cc;

	browser_layout(b, 24, 80, rows, &cr, &cc);
	for (int i = 0; i < 24; i++)
		if (rows[i])
			assert_true(rows[i]->cells <= 80);
}

/* Checks one "name=value" or "name~text" expectation. */
static void expect(struct browser *b, bool quit, const char *e, const struct tdata_row *r)
{
	const char *v = e + strcspn(e, "=~<");
	char name[16] = {0};
	long long want = strtoll(v + (v[0] == '<' ? 2 : 1), NULL, 10), got;

	memcpy(name, e, (size_t)(v - e) < 15 ? (size_t)(v - e) : 15);
	if (v[0] == '~') {
		if (b->msg == NULL || strstr(b->msg, v + 1) == NULL)
			fail_msg("%s:%zu: message [%s] lacks [%s]", r->file, r->line,
			         b->msg ? b->msg : "", v + 1);
		return;
	}
	got = strcmp(name, "top") == 0     ? (long long)b->top
	      : strcmp(name, "key") == 0   ? (long long)browser_selected(b)
	      : strcmp(name, "view") == 0  ? b->view
	      : strcmp(name, "help") == 0  ? b->help
	      : strcmp(name, "quit") == 0  ? quit
	      : strcmp(name, "nitems") == 0 ? (long long)b->nitems
	      : strcmp(name, "mode") == 0  ? (long long)b->mode
	                                   : -999;
	if (strcmp(name, "mode") == 0)
		want = strcmp(v + 1, "detail") == 0 ? BM_DETAIL : BM_LIST;
	if (strcmp(name, "top") == 0 && strcmp(v + 1, "end") == 0)
		want = (long long)(b->doc.nrows - (size_t)b->body_rows);
	if (v[0] == '<' ? got > want : got != want)
		fail_msg("%s:%zu: %s is %lld, want %s", r->file, r->line, name, got, v);
}

static void test_browse_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/tui/browse.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct fake f = {0};
		bool detail = strncmp(rows[i].f[0], "diff:", 5) == 0, quit = false;
		struct tkey *keys;
		size_t nk = parse_keys(rows[i].f[1], &keys);
		char *err = NULL, *ex = xstrdup(rows[i].f[2]), *save = NULL;
		struct browser *b;
		int cmd;

		if (detail)
			sscanf(rows[i].f[0], "diff:%d:%d", &f.files, &f.lines);
		else
			f.nitems = strtol(rows[i].f[0] + 5, NULL, 10);
		b = browser_new(&fake_ops, &f, detail, false);
		assert_int_equal(browser_reload(b, &err), 0);
		frame(b);
		for (size_t k = 0; k < nk; k++) {
			if (browser_key(b, &keys[k], &cmd) == BA_QUIT)
				quit = true;
			frame(b);
		}
		for (char *e = strtok_r(ex, " ", &save); e; e = strtok_r(NULL, " ", &save))
			expect(b, quit, e, &rows[i]);
		browser_free(b);
		free(keys);
		free(ex);
	}
	tdata_free(rows, n);
}

/* ---- the approval screen, scripted ---------------------------------------- */

struct script {
	struct tkey *keys;
	size_t n, at;
	int rows, cols; /* 0: 24x80 */
	char *last; /* the last frame, rows joined, marks as [[...]] */
	long long now; /* the screen's clock: each key read moves it */
	int ms_per_read; /* 0: 1000 */
	size_t grow_at;  /* rows x cols until this many keys were read, then 24x80 */
};

static void script_size(void *arg, int *rows, int *cols)
{
	struct script *s = arg;

	*rows = s->rows && s->at < s->grow_at ? s->rows : 24;
	*cols = s->cols && s->at < s->grow_at ? s->cols : 80;
}

static void script_draw(void *arg, const struct trow **rows, int nrows, int cr, int cc)
{
	struct script *s = arg;
	struct buf b;
	int cols;

	(void)cr, (void)cc;
	script_size(s, &(int){0}, &cols);
	buf_init(&b, 0);
	for (int i = 0; i < nrows; i++) {
		char *t = rows[i] ? doc_row_marked(rows[i], TA_MARK) : xstrdup("");
		assert_true(rows[i] == NULL || rows[i]->cells <= cols);
		buf_printf(&b, "%s\n", t);
		free(t);
	}
	free(s->last);
	s->last = buf_take(&b, NULL);
}

static int script_read(void *arg, int timeout_ms, struct tkey *k)
{
	struct script *s = arg;

	(void)timeout_ms;
	if (s->at >= s->n)
		return -1;
	*k = s->keys[s->at++];
	s->now += (s->ms_per_read ? s->ms_per_read : 1000) * 1000000LL;
	return 0;
}

static long long script_now(void *arg)
{
	struct script *s = arg;

	return s->now + 1; /* 0 means "not shown yet" to the screen */
}

static size_t three(void *arg)
{
	(void)arg;
	return 3;
}

static void test_approve_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/tui/approve.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct tdata_row *r = &rows[i];
		struct verdict *v = verdict_new();
		struct script s = {0};
		struct screen_io io = {&s, script_size, script_draw, script_read, script_now};
		struct tui_answer ans;
		char *input = xasprintf("command:\n%s\n", r->f[0]);
		struct tui_ask ask = {
			.tool = "shell", .tier = TIER_HIGH, .call_id = r->nf > 6 ? r->f[6] : "7",
			.subject = r->f[0],
			.subject_label = "command", .verdict = v, .policy_reason = "high asks",
			.input_text = input, .edit_text = r->f[0],
			.pattern = r->nf > 7 ? r->f[7] : "Shell(rm -rf build)",
			.can_save = true, .pending = three,
		};
		const char *want_reason = strcmp(r->f[3], "-") ? r->f[3] : NULL;

		verdict_add(v, TIER_HIGH, "fs.delete", (struct span){0, 2}, "deletes files");
		s.n = parse_keys(r->nf > 1 && strcmp(r->f[1], "-") ? r->f[1] : "", &s.keys);
		s.ms_per_read = r->nf > 5 ? (int)strtol(r->f[5], NULL, 10) : 0;
		tui_approve_io(&ask, &ans, &io);
		if (strcmp(tui_choice_name(ans.choice), r->f[2]) != 0)
			fail_msg("%s:%zu: choice %s, want %s", r->file, r->line,
			         tui_choice_name(ans.choice), r->f[2]);
		if ((want_reason == NULL) != (ans.reason == NULL) ||
		    (want_reason && strcmp(want_reason, ans.reason) != 0))
			fail_msg("%s:%zu: reason [%s], want [%s]", r->file, r->line,
			         ans.reason ? ans.reason : "-", r->f[3]);
		if (strcmp(r->f[4], "-") != 0 && (s.last == NULL || strstr(s.last, r->f[4]) == NULL))
			fail_msg("%s:%zu: the screen lacks [%s]:\n%s", r->file, r->line, r->f[4],
			         s.last ? s.last : "(nothing drawn)");
		tui_answer_clear(&ans);
		verdict_free(v);
		free(input);
		free(s.keys);
		free(s.last);
	}
	tdata_free(rows, n);
}

/* A terminal too small at first: the call is seen only once it grows, and
 * the second before a key approves starts then. */
static void test_approve_grown(void **state)
{
	struct verdict *v = verdict_new();
	struct tui_ask ask = {.tool = "shell", .tier = TIER_HIGH, .call_id = "7",
	                      .subject = "rm -rf build", .verdict = v};
	struct script s = {.rows = 3, .cols = 10, .grow_at = 12, .ms_per_read = 100};
	struct screen_io io = {&s, script_size, script_draw, script_read, script_now};
	struct tui_answer ans;

	(void)state;
	s.n = parse_keys("<Tick*12>aaaa", &s.keys); /* 1.2 s too small, then 0.4 s */
	tui_approve_io(&ask, &ans, &io);
	assert_int_equal(ans.choice, TUI_HANGUP);
	assert_non_null(strstr(s.last, "read it, then press"));
	tui_answer_clear(&ans);
	free(s.keys);
	free(s.last);
	verdict_free(v);
}

/* A reason quotes the agent's words (a script's name): newlines in them
 * posed as the screen's own rows ("policy: tier low: allow") and empty
 * lines pushed the policy's real reason below the fold (review 3). */
static void test_approve_reason(void **state)
{
	struct verdict *v = verdict_new();
	struct tui_ask ask = {.tool = "shell", .tier = TIER_HIGH, .call_id = "7",
	                      .subject = "source x", .verdict = v,
	                      .policy_reason = "tier high: ask\n\n\n\nok"};
	struct script s = {.rows = 24, .cols = 80, .grow_at = SIZE_MAX, .ms_per_read = 100};
	struct screen_io io = {&s, script_size, script_draw, script_read, script_now};
	struct tui_answer ans;
	char fake[200] = "x\n  policy: tier low: allow";
	size_t n = strlen(fake);

	(void)state;
	memset(fake + n, '\n', 30); /* 30 empty lines */
	fake[n + 30] = '\0';
	verdict_add(v, TIER_HIGH, "exec.script", (struct span){0, 6}, "runs a script (%s)", fake);
	s.n = parse_keys("<Tick>", &s.keys);
	tui_approve_io(&ask, &ans, &io);
	assert_int_equal(ans.choice, TUI_HANGUP);
	if (strstr(s.last, "(x[[\\n]]  policy: tier low: allow[[<30 newlines>]])") == NULL ||
	    strstr(s.last, "\n  policy: tier high: ask[[<4 newlines>]]ok\n") == NULL)
		fail_msg("a reason's newlines made rows:\n%s", s.last);
	tui_answer_clear(&ans);
	free(s.keys);
	free(s.last);
	verdict_free(v);
}

static bool gone_after(void *arg)
{
	int *left = arg;
	return --*left < 0;
}

/* The caller left (run's agent exited) while the call was up: the screen
 * closes on the next tick with TUI_GONE, and keys after it decide nothing. */
static void test_approve_gone(void **state)
{
	struct verdict *v = verdict_new();
	int left = 3;
	struct tui_ask ask = {.tool = "shell", .tier = TIER_HIGH, .call_id = "7",
	                      .subject = "rm -rf build", .verdict = v, .gone = gone_after,
	                      .gone_arg = &left};
	struct script s = {.rows = 24, .cols = 80, .grow_at = SIZE_MAX, .ms_per_read = 250};
	struct screen_io io = {&s, script_size, script_draw, script_read, script_now};
	struct tui_answer ans;

	(void)state;
	s.n = parse_keys("<Tick*3>a", &s.keys);
	tui_approve_io(&ask, &ans, &io);
	assert_int_equal(ans.choice, TUI_GONE);
	assert_string_equal(tui_choice_name(ans.choice), "gone");
	assert_int_equal(left, -1);
	tui_answer_clear(&ans);
	free(s.keys);
	free(s.last);
	verdict_free(v);
}

/* A terminal too small to show the call: keys decide nothing, at any size. */
static void test_approve_too_small(void **state)
{
	static const int sizes[][2] = {{1, 1}, {5, 80}, {24, 29}, {3, 10}, {2, 200}};
	struct verdict *v = verdict_new();
	struct tui_ask ask = {.tool = "shell", .tier = TIER_HIGH, .call_id = "7",
	                      .subject = "rm -rf \xe2\x80\xae build", .verdict = v,
	                      .pattern = "Shell(x)", .can_save = true};

	(void)state;
	for (size_t i = 0; i < nitems(sizes); i++) {
		struct script s = {.rows = sizes[i][0], .cols = sizes[i][1], .grow_at = SIZE_MAX};
		struct screen_io io = {&s, script_size, script_draw, script_read, NULL};
		struct tui_answer ans;

		s.n = parse_keys("aAysp<Enter>", &s.keys);
		tui_approve_io(&ask, &ans, &io);
		assert_int_equal(ans.choice, TUI_HANGUP);
		if (sizes[i][0] >= 1 && sizes[i][1] >= 20)
			assert_non_null(strstr(s.last, "enlarge"));
		tui_answer_clear(&ans);
		free(s.keys);
		free(s.last);
	}
	verdict_free(v);
}

/* A header cut to fit (30x6 kept the title's rows, not the warning below
 * it, and said nothing): a mark counts the rows cut, and nothing approves
 * until the terminal shows it whole; at 80x24 the same keys approve. */
static void test_approve_header_cut(void **state)
{
	static const struct {
		int rows, cols;
		size_t grow_at;
		const char *keys;
		enum tui_choice want;
	} cases[] = {
		{6, 30, SIZE_MAX, "<j*40>a", TUI_HANGUP},
		{6, 30, SIZE_MAX, "<j*40>Ay", TUI_HANGUP},
		{6, 30, 40, "<j*40>a", TUI_APPROVE}, /* enlarged: seen whole */
		{24, 80, SIZE_MAX, "a", TUI_APPROVE},
	};
	struct verdict *v = verdict_new();
	struct tui_ask ask = {.tool = "shell", .tier = TIER_HIGH, .call_id = "7",
	                      .subject = "rm -rf \x1b[8m build", .verdict = v,
	                      .pattern = "Shell(x)", .can_save = true};

	(void)state;
	for (size_t i = 0; i < nitems(cases); i++) {
		struct script s = {.rows = cases[i].rows, .cols = cases[i].cols,
		                   .grow_at = cases[i].grow_at};
		struct screen_io io = {&s, script_size, script_draw, script_read, script_now};
		struct tui_answer ans;

		s.n = parse_keys(cases[i].keys, &s.keys);
		tui_approve_io(&ask, &ans, &io);
		if (ans.choice != cases[i].want)
			fail_msg("case %zu: %s, not %s:\n%s", i, tui_choice_name(ans.choice),
			         tui_choice_name(cases[i].want), s.last);
		if (cases[i].want == TUI_HANGUP &&
		    (strstr(s.last, "header rows cut") == NULL ||
		     strstr(s.last, "header cut: enlarge") == NULL))
			fail_msg("case %zu: the cut is not said:\n%s", i, s.last);
		tui_answer_clear(&ans);
		free(s.keys);
		free(s.last);
	}
	verdict_free(v);
}

/* ---- the audit browser over a real log ------------------------------------- */

static char logdir[] = "/tmp/airlock-test-tui-XXXXXX";

struct logcall {
	const char *json;
	enum tier tier;
	const char *rule;  /* NULL: none fired */
	enum action action;
	enum decision decision; /* DECISION_ERROR: not decided yet */
	const char *who, *reason;
	long long wait_ms;
	const char *preview;
	bool finished;
};

static const struct logcall logcalls[] = {
	/* the oldest: the agent's words pose as the record's own rows */
	{"{\"tool\":\"shell\",\"input\":{\"command\":\"echo \\\"x\\nOutcome: ran, exit 0\\\"\"}}",
	 TIER_HIGH, "exec.script", ACTION_ASK, DECISION_DENIED, "user",
	 "no\nDecision: approved (policy said allow), by user", 0, NULL, true},
	{"{\"tool\":\"shell\",\"input\":{\"command\":\"ls -la                    ;rm x\"}}",
	 TIER_LOW, NULL, ACTION_AUTO,
	 DECISION_AUTO, "policy", NULL, 0, "--- a/file1\n+++ b/file1\n@@ -1 +1 @@\n+x\n", true},
	{"{\"tool\":\"shell\",\"input\":{\"command\":\"rm -rf build\"}}", TIER_HIGH, "fs.delete",
	 ACTION_ASK, DECISION_DENIED, "user", "not now", 2500, NULL, true},
	{"{\"tool\":\"shell\",\"input\":{\"command\":\"echo \\u001b[31m red\"}}", TIER_MEDIUM, NULL,
	 ACTION_AUTO, DECISION_AUTO, "policy", NULL, 0, NULL, true},
	{"{\"tool\":\"deploy-prod\",\"input\":{\"target\":\"eu\"}}", TIER_HIGH, "tool.unknown",
	 ACTION_ASK, DECISION_ERROR, NULL, NULL, 0, NULL, false},
};

static void log_call(struct db *db, const struct logcall *lc)
{
	struct call *c = NULL;
	struct verdict *v = verdict_new();
	struct outcome *o = outcome_new();
	json_t *id = NULL;
	char *err = NULL;
	int64_t cid;

	if (protocol_decode(lc->json, strlen(lc->json), 1, &c, &id, &err) < 0)
		fail_msg("decode %s: %s", lc->json, err);
	if (lc->rule)
		verdict_add(v, lc->tier, lc->rule, (struct span){0, 2}, "because");
	v->tier = lc->tier;
	assert_int_equal(db_call_received(db, c, v, &cid, &err), 0);
	if (lc->preview)
		assert_int_equal(db_call_previewed(db, cid, lc->preview, &err), 0);
	if (lc->decision != DECISION_ERROR)
		assert_int_equal(db_call_decided(db, cid,
		                                 &(struct db_decision){lc->action, lc->decision,
		                                                       lc->who, lc->reason,
		                                                       lc->wait_ms, NULL},
		                                 &err),
		                 0);
	if (lc->finished) {
		o->decision = lc->decision;
		o->ran = lc->decision == DECISION_AUTO;
		o->exit_code = o->ran ? 0 : -1;
		assert_int_equal(db_call_finished(db, cid, o, &err), 0);
	}
	outcome_free(o);
	verdict_free(v);
	call_free(c);
	json_decref(id);
}

/* Edits the oldest call's row in the call index (not chained) as one with
 * write access could: the list showed it as true. */
static void tamper_index(const char *dir)
{
	char *path = xasprintf("%s/audit.db", dir);
	sqlite3 *h = NULL;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE call_index SET decision = 'auto', summary = "
	                                 "'echo harmless' WHERE id = (SELECT min(id) FROM call_index)", NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(h);
	free(path);
}

static struct db *make_log(void)
{
	struct db *db = NULL;
	char *err = NULL, *path;

	assert_non_null(mkdtemp(logdir));
	path = xasprintf("%s/audit.db", logdir);
	if (db_open(path, &db, &err) < 0)
		fail_msg("db_open: %s", err);
	assert_int_equal(db_session_begin(db, &(struct db_session_info){.cwd = "/w", .mode = "gate",
	                                      .policy_digest = "x"}, &err), 0);
	for (size_t i = 0; i < nitems(logcalls); i++)
		log_call(db, &logcalls[i]);
	free(path);
	tamper_index(logdir);
	return db;
}

static void test_audit_table(void **state)
{
	struct tdata_row *rows;
	size_t n = tdata_load("tests/data/tui/audit.tsv", &rows);
	struct db *db = make_log();
	char *cmd;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct tdata_row *r = &rows[i];
		struct script s = {0};
		struct screen_io io = {&s, script_size, script_draw, script_read, NULL};
		char *err = NULL;

		s.n = parse_keys(strcmp(r->f[0], "-") ? r->f[0] : "", &s.keys);
		if (tui_audit_browse_io(db, NULL, &io, false, &err) < 0)
			fail_msg("%s:%zu: %s", r->file, r->line, err);
		if (s.last == NULL || strstr(s.last, r->f[1]) == NULL)
			fail_msg("%s:%zu: the screen lacks [%s]:\n%s", r->file, r->line, r->f[1],
			         s.last ? s.last : "(nothing drawn)");
		if (strcmp(r->f[2], "-") != 0 && strstr(s.last, r->f[2]) != NULL)
			fail_msg("%s:%zu: the screen holds [%s]:\n%s", r->file, r->line, r->f[2], s.last);
		free(s.keys);
		free(s.last);
	}
	tdata_free(rows, n);
	assert_int_equal(db_session_end(db, &(char *){NULL}), 0);
	db_close(db);
	cmd = xasprintf("rm -rf %s", logdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_table),  cmocka_unit_test(test_escape_nul),
		cmocka_unit_test(test_escape_emoji_selector),
		cmocka_unit_test(test_escape_every_byte), cmocka_unit_test(test_spans_table),
		cmocka_unit_test(test_diff_files),    cmocka_unit_test(test_diff_hunk_content),
		cmocka_unit_test(test_browse_table),
		cmocka_unit_test(test_approve_table), cmocka_unit_test(test_approve_too_small),
		cmocka_unit_test(test_approve_header_cut),
		cmocka_unit_test(test_approve_grown),  cmocka_unit_test(test_approve_gone),
		cmocka_unit_test(test_approve_reason),
		cmocka_unit_test(test_audit_table),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
