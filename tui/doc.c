/*
 * doc.c: styled text wrapped to a width, the state every screen draws from.
 * Rules it keeps:
 *  - no byte reaches the terminal unexamined: control characters, escapes,
 *    carriage returns, invalid UTF-8, bidi overrides and invisible
 *    characters are shown as visible escapes in TA_MARK, so a command can
 *    never hide or reorder text in front of the person approving it;
 *  - rows never exceed the width; a document keeps at most DOC_MAX_ROWS rows
 *    and counts the rest.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/asan.h"
#include "core/util.h"
#include "tui/tui_internal.h"

/* Short names for the usual control characters; the rest are \xNN. */
static const char *const ctl_names[32] = {
	['\0'] = "\\0", ['\a'] = "\\a", ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n",
	['\v'] = "\\v", ['\f'] = "\\f", ['\r'] = "\\r", [0x1b] = "\\e",
};

size_t text_unit(const char *s, size_t n, bool ascii, char out[16], int *cells,
                 enum umark *mark)
{
	unsigned char c = (unsigned char)s[0];
	uint32_t cp = 0;
	size_t len;
	int w;

	*mark = UM_HOSTILE;
	if (c < 0x20 || c == 0x7f) {
		if (c < 0x20 && ctl_names[c])
			snprintf(out, 16, "%s", ctl_names[c]);
		else
			snprintf(out, 16, "\\x%02x", c);
		*cells = (int)strlen(out);
		return 1;
	}
	if (c < 0x80) {
		out[0] = (char)c;
		out[1] = '\0';
		*cells = 1;
		*mark = UM_NONE;
		return 1;
	}
	if ((len = utf8_decode((const unsigned char *)s, n, &cp)) == 0) {
		snprintf(out, 16, "\\x%02x", c);
		*cells = 4;
		return 1;
	}
	w = utf8_hidden(cp) ? -1 : ascii ? -2 : wcwidth((wchar_t)cp);
	/* a regional indicator (half a flag): wcwidth gives it one cell, and
	 * terminals draw it in one or two; wrapped at the wider, a row of
	 * them cannot push what follows past the right edge (as U+FE0F) */
	if (w == 1 && cp >= 0x1f1e6 && cp <= 0x1f1ff)
		w = 2;
	if (w < 0) {
		snprintf(out, 16, "<U+%04X>", (unsigned)cp);
		*cells = (int)strlen(out);
		*mark = w == -2 ? UM_TERMINAL : UM_HOSTILE;
		return len;
	}
	memcpy(out, s, len);
	out[len] = '\0';
	*cells = w;
	*mark = UM_NONE;
	return len;
}

/* Rows are allocated from chunks: one document of 10,000 rows is a few
 * allocations, not 20,000 (the approval screen's first frame budget). */
#define CHUNK_SIZE (64u << 10)

struct doc_chunk {
	struct doc_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

/* Under AddressSanitizer what a chunk has not handed out stays poisoned,
 * with a gap after each allocation (core/asan.h). */
static void *arena_alloc(struct doc *d, size_t n)
{
	struct doc_chunk *c = d->chunks;
	size_t want = n;
	void *p;

	n = ((n + 15) & ~(size_t)15) + (AIRLOCK_ASAN ? 16 : 0);
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;
		c = xmalloc(sizeof(*c) + cap);
		c->cap = cap;
		c->used = 0;
		c->next = d->chunks;
		d->chunks = c;
		ASAN_POISON_MEMORY_REGION(c->data, cap);
	}
	p = (char *)c->data + c->used;
	c->used += n;
	ASAN_UNPOISON_MEMORY_REGION(p, want);
	return p;
}

void doc_init(struct doc *d, int width, bool ascii)
{
	memset(d, 0, sizeof(*d));
	d->width = width < 1 ? 1 : width;
	d->ascii = ascii;
}

void doc_clear(struct doc *d)
{
	for (struct doc_chunk *c = d->chunks, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(d->rows);
	free(d->files);
	free(d->cbuf);
	free(d->cruns);
	memset(d, 0, sizeof(*d));
}

/* Copies the row being filled into rows[] (or counts it past the cap). */
static void row_end(struct doc *d)
{
	struct trow *r;

	if (d->nrows >= DOC_MAX_ROWS) {
		d->dropped++;
		goto reset;
	}
	if (d->nrows == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 64;
		d->rows = xreallocarray(d->rows, d->alloc, sizeof(*d->rows));
	}
	r = &d->rows[d->nrows++];
	r->text = arena_alloc(d, d->clen + 1);
	if (d->clen)
		memcpy(r->text, d->cbuf, d->clen);
	r->text[d->clen] = '\0';
	r->len = d->clen;
	r->runs = d->cnruns ? arena_alloc(d, d->cnruns * sizeof(*r->runs)) : NULL;
	if (d->cnruns)
		memcpy(r->runs, d->cruns, d->cnruns * sizeof(*r->runs));
	r->nruns = d->cnruns;
	r->cells = d->ccells;
reset:
	d->clen = 0;
	d->cnruns = 0;
	d->ccells = 0;
	d->stacked = 0;
	d->open = false;
}

/* Appends display bytes to the open row in attribute a. */
static void row_add(struct doc *d, const char *p, size_t n, enum tattr a, int cells)
{
	struct trun *last = d->cnruns ? &d->cruns[d->cnruns - 1] : NULL;

	d->open = true;
	if (d->clen + n + 1 > d->ccap) {
		d->ccap = (d->clen + n + 1) * 2;
		d->cbuf = xrealloc(d->cbuf, d->ccap);
	}
	memcpy(d->cbuf + d->clen, p, n);
	if (last && last->attr == a && last->off + last->len == d->clen) {
		last->len += (uint32_t)n;
	} else {
		if (d->cnruns == d->crcap) {
			d->crcap = d->crcap ? d->crcap * 2 : 8;
			d->cruns = xreallocarray(d->cruns, d->crcap, sizeof(*d->cruns));
		}
		d->cruns[d->cnruns++] = (struct trun){(uint32_t)d->clen, (uint32_t)n, (uint8_t)a};
	}
	d->clen += n;
	d->ccells += cells;
}

/* Starts a row with the gutter (the command's rows are marked as its own,
 * so text in it cannot pose as the screen's labels). */
static void row_start(struct doc *d)
{
	if (!d->open && d->gutter)
		row_add(d, d->gutter, strlen(d->gutter), TA_DIM, (int)strlen(d->gutter));
}

/* Adds one unit, wrapping first when it does not fit. An escape wider
 * than a whole row (a very narrow terminal) is split: it is ASCII. */
static void put_unit(struct doc *d, const char *p, size_t n, enum tattr a, int cells)
{
	if (cells > d->width && (size_t)cells == n) {
		for (size_t i = 0; i < n; i++)
			put_unit(d, p + i, 1, a, 1);
		return;
	}
	if (d->ccells + cells > d->width && d->clen > 0) {
		row_end(d);
		row_start(d);
	}
	row_add(d, p, n, a, cells);
}

void doc_newline(struct doc *d)
{
	row_start(d);
	row_end(d);
}

#define SQUEEZE_SPACES 16 /* a run this long of blanks is shown as its length */
#define SQUEEZE_LINES 3   /* ... and of newlines (2 empty lines stay as they are) */

/* The blanks that are not ASCII spaces (Unicode's space separators, UTF-8):
 * they print as nothing as well as a space does. */
static const char *const wide_blanks[] = {
	"\xc2\xa0",     /* no-break space */
	"\xe1\x9a\x80", /* ogham space mark */
	"\xe2\x80\x80", "\xe2\x80\x81", "\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84",
	"\xe2\x80\x85", "\xe2\x80\x86", "\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89",
	"\xe2\x80\x8a", /* en quad ... hair space */
	"\xe2\x80\xaf", /* narrow no-break space */
	"\xe2\x81\x9f", /* medium mathematical space */
	"\xe3\x80\x80", /* ideographic space */
};

/* Bytes of the blank at s (a space or a wide blank), 0 when it is none. */
static size_t blank_len(const char *s, size_t n)
{
	if (s[0] == ' ')
		return 1;
	if ((unsigned char)s[0] < 0x80)
		return 0;
	for (size_t i = 0; i < nitems(wide_blanks); i++) {
		size_t k = strlen(wide_blanks[i]);
		if (k <= n && memcmp(s, wide_blanks[i], k) == 0)
			return k;
	}
	return 0;
}

/* A run of blanks at s, of at most max of them (0: any): returns its bytes,
 * *units how many, *wide whether one is not an ASCII space. */
static size_t blank_run(const char *s, size_t n, size_t max, size_t *units, bool *wide)
{
	size_t i = 0, k;

	*units = 0;
	*wide = false;
	while (i < n && (max == 0 || *units < max) && (k = blank_len(s + i, n - i)) > 0) {
		*wide |= k > 1;
		(*units)++;
		i += k;
	}
	return i;
}

/* A run of newlines at s, with blanks between them (lines that only look
 * empty): returns the bytes up to its last newline, *lines how many
 * newlines, *blank whether a line held blanks. */
static size_t line_run(const char *s, size_t n, size_t *lines, bool *blank)
{
	size_t i = 0, end = 0, units, b;
	bool wide, pending = false; /* blanks since the last newline */

	*lines = 0;
	*blank = false;
	while (i < n) {
		if (s[i] == '\n') {
			(*lines)++;
			*blank |= pending;
			pending = false;
			end = ++i;
		} else if ((b = blank_run(s + i, n - i, 0, &units, &wide)) > 0) {
			pending = true; /* after the last newline: the next line's indent */
			i += b;
		} else {
			break;
		}
	}
	return end;
}

/* True when s starts a run of blanks squeeze() takes. */
static bool long_blank_run(const char *s, size_t n)
{
	size_t units;
	bool wide;

	blank_run(s, n, SQUEEZE_SPACES, &units, &wide);
	return units >= SQUEEZE_SPACES;
}

/* Squeezes a long run of blanks or of (blank or empty) lines at s into one
 * mark, so a command cannot push its dangerous part past the edge or below
 * the fold behind what looks like nothing, whether the blanks are ASCII
 * spaces or not. Returns the bytes taken (0: none). */
static size_t squeeze(struct doc *d, const char *s, size_t n)
{
	size_t k, units;
	bool wide;
	char *m;

	if (!d->squeeze || (s[0] != '\n' && blank_len(s, n) == 0)) /* before scanning: O(n) */
		return 0;
	if (s[0] == '\n') {
		k = line_run(s, n, &units, &wide);
		if (units < SQUEEZE_LINES)
			return 0;
		if (!d->oneline)
			doc_newline(d);
		m = d->oneline ? xasprintf("<%zu newlines>", units)
		               : xasprintf("<%zu %s lines>", units - 1, wide ? "blank" : "empty");
	} else {
		k = blank_run(s, n, 0, &units, &wide);
		if (units < SQUEEZE_SPACES)
			return 0;
		m = xasprintf("<%zu %s>", units, wide ? "blanks" : "spaces");
	}
	row_start(d);
	for (const char *p = m; *p; p++) /* wraps like an escape: ASCII */
		put_unit(d, p, 1, TA_MARK, 1);
	if (s[0] == '\n' && !d->oneline)
		doc_newline(d);
	d->nmarked++;
	free(m);
	return k;
}

/* Zero-width marks drawn on one character: Vietnamese stacks two, a few
 * scripts four. 200 combining marks on one letter ("Zalgo") drew, in
 * terminals that stack them, over the rows above and below it (a line
 * of the diff or the command); past these, each is shown as <U+XXXX>. */
#define STACK_MAX 4

/* A variation selector (U+FE00-FE0F) shows nothing and can carry data:
 * two per byte after an emoji hid 'rm -rf ~' in run("😀") for a decoder
 * to eval. Only one U+FE0F right on a character (an emoji's) is drawn;
 * d->stacked already counts the one at s. */
static bool selector_hides(const struct doc *d, const char *s, size_t n)
{
	uint32_t cp = 0;

	if (utf8_decode((const unsigned char *)s, n, &cp) == 0 || cp < 0xfe00 || cp > 0xfe0f)
		return false;
	return cp != 0xfe0f || d->stacked != 1;
}

/*
 * True when s starts with U+FE0F. Terminals differ on the width of a
 * character one cell wide (wcwidth) with it: some draw "\u263a\ufe0f" as
 * an emoji in two cells, others in one, so 40 of them made a row 40
 * cells wider on the screen than it was wrapped, and the command's
 * '; rm ...' tail went past the right edge. Such a character is given two
 * cells: on either terminal the row fits (on the second it is shorter).
 */
static bool emoji_selector_at(const char *s, size_t n)
{
	return n >= 3 && memcmp(s, "\xef\xb8\x8f", 3) == 0;
}

void doc_put(struct doc *d, const char *s, size_t n, enum tattr a)
{
	char out[16];
	enum umark mark;
	int cells;
	size_t i = 0, k;

	while (i < n) {
		if ((k = squeeze(d, s + i, n - i)) > 0) {
			i += k;
			continue;
		}
		if (s[i] == '\n' && !d->oneline) {
			doc_newline(d);
			i++;
			continue;
		}
		row_start(d);
		if (s[i] == '\t' && d->expand_tabs) {
			int sp = 8 - d->ccells % 8;
			put_unit(d, "        ", (size_t)sp, a, sp);
			i++;
			continue;
		}
		/* printable ASCII runs go in one piece (the common case) */
		for (k = i; k < n && k - i < (size_t)(d->width - d->ccells) &&
		            (unsigned char)s[k] >= 0x20 && (unsigned char)s[k] < 0x7f;
		     k++)
			if (d->squeeze && s[k] == ' ' && k > i && long_blank_run(s + k, n - k))
				break; /* squeeze() takes it */
		if (k > i && emoji_selector_at(s + k, n - k))
			k--; /* the last one is a unit of two cells, below */
		if (k > i) {
			d->stacked = 0;
			row_add(d, s + i, k - i, a, (int)(k - i));
			if (d->ccells >= d->width && k < n && s[k] != '\n')
				row_end(d);
			i = k;
			continue;
		}
		k = text_unit(s + i, n - i, d->ascii, out, &cells, &mark);
		if (cells == 1 && mark == UM_NONE && emoji_selector_at(s + i + k, n - i - k))
			cells = 2;
		if (cells == 0 && d->clen == (d->gutter ? strlen(d->gutter) : 0)) {
			/* a combining mark with nothing to combine (but the gutter) */
			snprintf(out, sizeof(out), "<comb>");
			cells = 6;
			mark = UM_HOSTILE;
		} else if (cells == 0 && (++d->stacked > STACK_MAX || selector_hides(d, s + i, n - i))) {
			uint32_t cp = 0;
			utf8_decode((const unsigned char *)s + i, n - i, &cp);
			snprintf(out, sizeof(out), "<U+%04X>", (unsigned)cp);
			cells = (int)strlen(out);
			mark = UM_HOSTILE;
		} else if (cells > 0)
			d->stacked = 0;
		i += k;
		if (mark == UM_HOSTILE)
			d->nmarked++;
		put_unit(d, out, strlen(out), mark != UM_NONE ? TA_MARK : a, cells);
	}
}

void doc_puts(struct doc *d, const char *s, enum tattr a)
{
	doc_put(d, s, strlen(s), a);
}

void doc_printf(struct doc *d, enum tattr a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	doc_puts(d, s, a);
	free(s);
}

static void mark_file(struct doc *d)
{
	d->files = xreallocarray(d->files, d->nfiles + 1, sizeof(*d->files));
	d->files[d->nfiles++] = d->nrows;
}

/* The attribute of one diff line, by its first characters. */
static enum tattr diff_attr(const char *l, size_t n, bool *file_start)
{
	static const struct {
		const char *prefix;
		enum tattr a;
		bool file;
	} kinds[] = {
		{"diff ", TA_FILE, true}, {"+++ ", TA_FILE, false}, {"--- ", TA_FILE, false},
		{"@@", TA_HUNK, false},   {"+", TA_ADD, false},     {"-", TA_DEL, false},
		{"Binary files ", TA_FILE, false},
	};
	for (size_t i = 0; i < nitems(kinds); i++) {
		size_t pl = strlen(kinds[i].prefix);
		if (n >= pl && memcmp(l, kinds[i].prefix, pl) == 0) {
			*file_start = kinds[i].file;
			return kinds[i].a;
		}
	}
	*file_start = false;
	return TA_NORMAL;
}

/* The lines a hunk header announces: "@@ -4,3 +4,4 @@" is 3 old, 4 new (a
 * count left out is 1); none when l is no hunk header. */
static void hunk_lines(const char *l, size_t n, long *old, long *new)
{
	char *end;

	*old = *new = 0;
	if (n < 8 || memcmp(l, "@@ -", 4) != 0)
		return;
	strtol(l + 4, &end, 10);
	*old = *end == ',' ? strtol(end + 1, &end, 10) : 1;
	if (strncmp(end, " +", 2) != 0) {
		*old = 0;
		return;
	}
	strtol(end + 2, &end, 10);
	*new = *end == ',' ? strtol(end + 1, &end, 10) : 1;
	if (*old < 0 || *new < 0 || strncmp(end, " @@", 3) != 0)
		*old = *new = 0;
}

/* Inside a hunk every line is content, by its first byte alone: a removed
 * "-- a/README.md" or an added "++ b/README.md" drew as a bold file header
 * ("--- a/README.md", "+++ b/README.md"), and the lines after it read as
 * another file's. Returns false (hunk over) on a line no hunk holds. */
static bool hunk_attr(const char *l, size_t n, long *old, long *new, enum tattr *a)
{
	char c = n ? l[0] : ' ';

	if (c == '\\') /* "\ No newline at end of file": no line of either side */
		*a = TA_NORMAL;
	else if (c == '+' && *new > 0)
		*a = TA_ADD, --*new;
	else if (c == '-' && *old > 0)
		*a = TA_DEL, --*old;
	else if (c == ' ' && *old > 0 && *new > 0)
		*a = TA_NORMAL, --*old, --*new;
	else
		return false;
	return true;
}

/* Grows rows[] once for every line of text (a 10,000-line diff). */
static void reserve_rows(struct doc *d, const char *text)
{
	size_t lines = 1;

	for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	if (d->nrows + lines > d->alloc && d->nrows + lines <= DOC_MAX_ROWS) {
		d->alloc = d->nrows + lines + 64;
		d->rows = xreallocarray(d->rows, d->alloc, sizeof(*d->rows));
	}
}

void doc_put_diff(struct doc *d, const char *diff)
{
	bool saw_diff_line = strncmp(diff, "diff ", 5) == 0 || strstr(diff, "\ndiff ") != NULL;
	bool tabs = d->expand_tabs, start = false;
	const char *l = diff, *nl;
	long old = 0, new = 0; /* lines the hunk still holds */

	d->expand_tabs = true;
	reserve_rows(d, diff);
	while (*l) {
		size_t n;
		enum tattr a;

		nl = strchr(l, '\n');
		n = nl ? (size_t)(nl - l) : strlen(l);
		if ((old > 0 || new > 0) && hunk_attr(l, n, &old, &new, &a))
			start = false;
		else if ((a = diff_attr(l, n, &start)) == TA_HUNK)
			hunk_lines(l, n, &old, &new);
		else
			old = new = 0;
		/* without "diff " lines, a "--- " followed by "+++ " starts a file */
		if (!saw_diff_line && a == TA_FILE && n >= 4 && memcmp(l, "--- ", 4) == 0 && nl &&
		    strncmp(nl + 1, "+++ ", 4) == 0)
			start = true;
		if (start)
			mark_file(d);
		doc_put(d, l, n, a);
		row_end(d);
		if (nl == NULL)
			break;
		l = nl + 1;
	}
	d->expand_tabs = tabs;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool utf8_cont(const char *text, size_t at)
{
	return ((unsigned char)text[at] & 0xc0) == 0x80;
}

/* Bytes of the blank or newline that ends at text[end] (after start), 0
 * when there is none. */
static size_t blank_before(const char *text, size_t start, size_t end)
{
	if (end > start && (text[end - 1] == '\n' || text[end - 1] == ' '))
		return 1;
	for (size_t i = 0; i < nitems(wide_blanks); i++) {
		size_t k = strlen(wide_blanks[i]);
		if (end - start >= k && memcmp(text + end - k, wide_blanks[i], k) == 0)
			return k;
	}
	return 0;
}

/* Bytes of the character at s when it draws nothing of its own (a
 * combining mark, U+FE0F, a variation selector) but on the one before it;
 * 0 otherwise. The hidden ones are shown as <U+XXXX> marks: not these. */
static size_t zero_width_len(const char *s, size_t n)
{
	uint32_t cp = 0;
	size_t k = utf8_decode((const unsigned char *)s, n, &cp);

	return k > 1 && !utf8_hidden(cp) && wcwidth((wchar_t)cp) == 0 ? k : 0;
}

/*
 * Fits the span [*off, *end) of text (n bytes) to what can be marked on
 * its own: whole characters (a span that split one showed both halves as
 * \xNN marks, a letter the agent never sent as bytes) with the marks drawn
 * on them (an edge between a one-cell emoji and its U+FE0F wrapped it as
 * one cell where terminals like kitty draw two), and no blank or
 * newline at either edge (a run of them split by a span's edge was two
 * runs, each too short to squeeze: a log's forged span cut 60 newlines
 * into pairs and pushed the rest of the command below the fold). A
 * character has at most 3 continuation bytes: stray ones stay as they
 * are, shown as \xNN.
 */
static void span_fit(const char *text, size_t n, size_t *off, size_t *end)
{
	size_t k;

	for (k = 0; k < 3 && *off > 0 && utf8_cont(text, *off); k++)
		(*off)--;
	for (k = 0; k < 3 && *end < n && utf8_cont(text, *end); k++)
		(*end)++;
	while (*end < n && (k = zero_width_len(text + *end, n - *end)) > 0)
		*end += k;
	while (*off < *end && (text[*off] == '\n' || blank_len(text + *off, *end - *off) > 0))
		*off += text[*off] == '\n' ? 1 : blank_len(text + *off, *end - *off);
	while (*off < *end && (k = zero_width_len(text + *off, *end - *off)) > 0)
		*off += k; /* drawn on the character before: stays with it */
	while ((k = blank_before(text, *off, *end)) > 0)
		*end -= k;
}

void doc_put_spans(struct doc *d, const char *text, const struct span *spans, size_t nspans)
{
	size_t n = strlen(text), at = 0;
	struct span *v = nspans ? xreallocarray(NULL, nspans, sizeof(*v)) : NULL;

	if (nspans) { /* qsort: a tampered log's spans are not a verdict's handful */
		memcpy(v, spans, nspans * sizeof(*v));
		qsort(v, nspans, sizeof(*v), span_cmp); /* not with NULL: it is nonnull */
	}
	for (size_t i = 0; i < nspans; i++) {
		size_t off = v[i].off, end;
		if (v[i].len == 0 || off >= n) /* len 0 means the whole call: nothing to mark */
			continue;
		end = v[i].len > n - off ? n : off + v[i].len;
		if (off < at)
			off = at;
		span_fit(text, n, &off, &end);
		if (end <= off || end <= at)
			continue;
		if (off < at) /* snapped back into the mark before: joins it */
			off = at;
		doc_put(d, text + at, off - at, TA_NORMAL);
		doc_put(d, text + off, end - off, TA_SPAN);
		at = end;
	}
	doc_put(d, text + at, n - at, TA_NORMAL);
	free(v);
}

static bool row_has(const struct trow *r, const char *needle, size_t nl)
{
	if (nl == 0 || r->len < nl)
		return false;
	for (size_t i = 0; i + nl <= r->len; i++)
		if (strncasecmp(r->text + i, needle, nl) == 0)
			return true;
	return false;
}

bool doc_find(const struct doc *d, const char *needle, size_t from, int dir, size_t *row)
{
	size_t nl = strlen(needle);

	if (d->nrows == 0 || (dir > 0 && from >= d->nrows))
		return false;
	if (from >= d->nrows)
		from = d->nrows - 1;
	for (size_t i = from;; i += (size_t)dir) {
		if (row_has(&d->rows[i], needle, nl)) {
			*row = i;
			return true;
		}
		if ((dir > 0 && i + 1 >= d->nrows) || (dir < 0 && i == 0))
			return false;
	}
}

void doc_push_row(struct doc *d, struct trow *r)
{
	if (d->open)
		row_end(d);
	if (d->nrows == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 64;
		d->rows = xreallocarray(d->rows, d->alloc, sizeof(*d->rows));
	}
	d->rows[d->nrows] = *r;
	d->rows[d->nrows].text = arena_alloc(d, r->len + 1);
	memcpy(d->rows[d->nrows].text, r->text ? r->text : "", r->len);
	d->rows[d->nrows].text[r->len] = '\0';
	d->rows[d->nrows].runs = r->nruns ? arena_alloc(d, r->nruns * sizeof(*r->runs)) : NULL;
	if (r->nruns)
		memcpy(d->rows[d->nrows].runs, r->runs, r->nruns * sizeof(*r->runs));
	d->nrows++;
	free(r->text);
	free(r->runs);
	memset(r, 0, sizeof(*r));
}

char *doc_row_marked(const struct trow *r, enum tattr a)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct trun *u = &r->runs[i];
		if (u->attr == a)
			buf_puts(&b, "[[");
		buf_append(&b, r->text + u->off, u->len);
		if (u->attr == a)
			buf_puts(&b, "]]");
	}
	return buf_take(&b, NULL);
}
