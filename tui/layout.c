/*
 * layout.c: turns the browser's state into a frame: header rows, the body
 * (list, detail or help), a prompt or message row and the key row. Pure
 * state to rows: term.c paints them, tests read them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/browser_internal.h"

/* Where each frame row comes from. */
struct slot {
	const struct doc *d;
	size_t row;
};

/* Rebuilds the detail document when stale or the width changed. */
static void ensure_doc(struct browser *b, int cols)
{
	int64_t key = browser_selected(b);
	char *err = NULL;

	if (b->doc_valid && b->doc.width == cols && b->doc_key == key)
		return;
	doc_clear(&b->doc);
	doc_init(&b->doc, cols, b->ascii);
	if (b->ops->detail(b->arg, key, b->view, &b->doc, &err) < 0) {
		doc_newline(&b->doc);
		doc_printf(&b->doc, TA_MARK, "cannot show this item: %s", err);
		doc_newline(&b->doc);
		free(err);
	}
	if (b->doc.open)
		doc_newline(&b->doc);
	if (b->doc.dropped)
		doc_printf(&b->doc, TA_MARK, "... %zu more rows not shown (cap %d rows)\n",
		           b->doc.dropped, DOC_MAX_ROWS);
	b->doc_valid = true;
	b->doc_key = key;
}

/* Appends a copy of row r with every match of needle in TA_MATCH. */
static void push_matched(struct doc *fr, const struct trow *r, const char *needle)
{
	size_t nl = strlen(needle), i = 0;
	bool *hit = xcalloc(r->len + 1, sizeof(bool));
	struct trow c = {0};

	while (nl && i + nl <= r->len) {
		if (strncasecmp(r->text + i, needle, nl) == 0) {
			memset(hit + i, 1, nl);
			i += nl;
		} else {
			i++;
		}
	}
	for (size_t u = 0; u < r->nruns; u++) {
		const struct trun *run = &r->runs[u];
		for (size_t at = run->off, end = run->off + run->len; at < end;) {
			size_t j = at;
			while (j < end && hit[j] == hit[at])
				j++;
			c.runs = xreallocarray(c.runs, c.nruns + 1, sizeof(*c.runs));
			c.runs[c.nruns++] = (struct trun){(uint32_t)at, (uint32_t)(j - at),
			                                  hit[at] ? (uint8_t)TA_MATCH : run->attr};
			at = j;
		}
	}
	c.text = xstrndup(r->text, r->len);
	c.len = r->len;
	c.cells = r->cells;
	free(hit);
	doc_push_row(fr, &c);
}

static bool row_contains(const struct trow *r, const char *needle)
{
	size_t nl = strlen(needle);
	for (size_t i = 0; nl && i + nl <= r->len; i++)
		if (strncasecmp(r->text + i, needle, nl) == 0)
			return true;
	return false;
}

static void body_detail(struct browser *b, int cols, int body, struct slot *s)
{
	ensure_doc(b, cols);
	/* never past the last screenful: scrolled to the end of a 30x6 frame
	 * and enlarged, the body stayed empty below the header */
	if (b->doc.nrows <= (size_t)body)
		b->top = 0;
	else if (b->top > b->doc.nrows - (size_t)body)
		b->top = b->doc.nrows - (size_t)body;
	for (int i = 0; i < body && b->top + (size_t)i < b->doc.nrows; i++) {
		const struct trow *r = &b->doc.rows[b->top + (size_t)i];
		if (b->search && *b->search && row_contains(r, b->search)) {
			push_matched(&b->frame, r, b->search);
			s[i] = (struct slot){&b->frame, b->frame.nrows - 1};
		} else {
			s[i] = (struct slot){&b->doc, b->top + (size_t)i};
		}
	}
}

/* One list item as one row: cut to the width, tier in colour, selection. */
static void push_item(struct browser *b, const struct bitem *it, int cols, bool sel)
{
	struct doc t;
	struct trow row;
	size_t n = strlen(it->text);
	enum tattr base = sel ? TA_SELECT : TA_NORMAL;

	doc_init(&t, cols, b->ascii);
	t.squeeze = true; /* a run of spaces cannot push the rest past the edge */
	if (it->tier >= 0 && it->tier_off + it->tier_len <= n) {
		doc_put(&t, it->text, it->tier_off, base);
		doc_put(&t, it->text + it->tier_off, it->tier_len, TA_TIER(it->tier));
		doc_put(&t, it->text + it->tier_off + it->tier_len,
		        n - it->tier_off - it->tier_len, base);
	} else {
		doc_put(&t, it->text, n, base);
	}
	if (t.open)
		doc_newline(&t);
	if (t.nrows == 0)
		doc_puts(&t, " \n", base);
	row = t.rows[0];
	row.text = xstrndup(row.text, row.len);
	row.runs = xreallocarray(NULL, row.nruns + 1, sizeof(*row.runs));
	memcpy(row.runs, t.rows[0].runs, row.nruns * sizeof(*row.runs));
	if (sel && row.cells < cols) { /* the selection bar spans the width */
		size_t pad = (size_t)(cols - row.cells);
		row.text = xrealloc(row.text, row.len + pad + 1);
		memset(row.text + row.len, ' ', pad);
		row.text[row.len + pad] = '\0';
		row.runs[row.nruns++] = (struct trun){(uint32_t)row.len, (uint32_t)pad, TA_SELECT};
		row.len += pad;
		row.cells = cols;
	}
	doc_push_row(&b->frame, &row);
	doc_clear(&t);
}

static void body_list(struct browser *b, int cols, int body, struct slot *s)
{
	if (b->nitems == 0) {
		doc_puts(&b->frame, "  (nothing matches)\n", TA_DIM);
		s[0] = (struct slot){&b->frame, b->frame.nrows - 1};
		return;
	}
	if (b->sel >= b->nitems)
		b->sel = b->nitems - 1;
	if (b->sel < b->ltop)
		b->ltop = b->sel;
	if (b->sel >= b->ltop + (size_t)body)
		b->ltop = b->sel - (size_t)body + 1;
	for (int i = 0; i < body && b->ltop + (size_t)i < b->nitems; i++) {
		size_t k = b->ltop + (size_t)i;
		push_item(b, &b->items[k], cols, k == b->sel);
		s[i] = (struct slot){&b->frame, b->frame.nrows - 1};
	}
}

/* The help lines of kb, but those of keys the screen's own table binds
 * (its q denies; the list's q goes back) and, with no list, of Enter. */
static void help_table(struct doc *d, const struct keybind *kb, const struct browser *b,
                       bool nav)
{
	for (; kb->ch || kb->code != TK_NONE; kb++) {
		struct tkey k = {.code = kb->code != TK_NONE ? kb->code : TK_CHAR, .ch = kb->ch};
		if (kb->help == NULL)
			continue;
		if (nav && (browser_lookup(b->ops->keys, &k) ||
		            (b->detail_only && kb->cmd == NAV_OPEN)))
			continue;
		doc_printf(d, TA_NORMAL, "  %s\n", kb->help);
	}
}

static void body_help(struct browser *b, int body, struct slot *s)
{
	size_t first = b->frame.nrows;

	doc_puts(&b->frame, "Keys on this screen (any key closes this help):\n", TA_BOLD);
	help_table(&b->frame, b->ops->keys, b, false);
	help_table(&b->frame, browser_nav_keys(), b, true);
	for (int i = 0; i < body && first + (size_t)i < b->frame.nrows; i++)
		s[i] = (struct slot){&b->frame, first + (size_t)i};
}

/* A prompt, after the message a key left (the answer is full, a paste
 * does not answer), which would go unseen under the prompt otherwise. */
static void put_prompt(struct doc *d, const struct browser *b)
{
	if (b->msg) {
		doc_puts(d, b->msg, TA_BOLD);
		doc_puts(d, " | ", TA_DIM);
	}
	doc_puts(d, b->prompt_label, TA_BOLD);
	doc_put(d, b->pbuf, b->plen, TA_NORMAL);
}

/* The row above the keys: the prompt, a message or where we are. */
static void footer_line(struct browser *b, int *cursor_col)
{
	size_t before = b->frame.nrows;

	*cursor_col = -1;
	if (b->prompting) {
		put_prompt(&b->frame, b);
	} else if (b->msg) {
		doc_puts(&b->frame, b->msg, TA_BOLD);
	} else if (b->mode == BM_DETAIL && !b->help) {
		size_t n = b->doc.nrows, last = b->top + (size_t)b->body_rows;
		doc_printf(&b->frame, TA_DIM, "rows %zu-%zu of %zu%s%s", n ? b->top + 1 : 0,
		           last > n ? n : last, n, b->search ? "  search: " : "",
		           b->search ? b->search : "");
	}
	if (b->frame.open)
		doc_newline(&b->frame);
	if (b->frame.nrows == before)
		doc_newline(&b->frame);
	/* a prompt longer than the width shows its last row, cursor at its end */
	if (b->prompting)
		*cursor_col = b->frame.rows[b->frame.nrows - 1].cells;
}

static const char *key_name(const struct keybind *kb, char buf[8])
{
	static const struct {
		enum tkey_code code;
		const char *name;
	} names[] = {{TK_ENTER, "Enter"}, {TK_ESC, "Esc"}, {TK_PGDN, "PgDn"}, {TK_PGUP, "PgUp"}};

	for (size_t i = 0; i < nitems(names); i++)
		if (kb->code == names[i].code)
			return names[i].name;
	buf[0] = kb->ch < 0x80 ? (char)kb->ch : '?';
	buf[1] = '\0';
	return buf;
}

/* The key row: as many "k label" pairs as fit, the status at the right. */
static void footer_keys(struct browser *b, int cols)
{
	const char *status = b->ops->status ? b->ops->status(b->arg) : NULL;
	int room = cols - (status ? (int)strlen(status) + 1 : 0), used = 0;
	char kbuf[8];

	for (const struct keybind *kb = b->ops->keys; kb->ch || kb->code != TK_NONE; kb++) {
		const char *k;
		int w;
		if (kb->label == NULL)
			continue;
		k = key_name(kb, kbuf);
		w = (int)(strlen(k) + 1 + strlen(kb->label) + 2);
		if (used + w > room)
			break;
		doc_puts(&b->frame, k, TA_KEY);
		doc_printf(&b->frame, TA_NORMAL, " %s  ", kb->label);
		used += w;
	}
	if (status && (int)strlen(status) < cols) {
		doc_printf(&b->frame, TA_NORMAL, "%*s", cols - used - (int)strlen(status), "");
		doc_puts(&b->frame, status, TA_BOLD);
	}
	if (b->frame.open)
		doc_newline(&b->frame);
}

/* Rows the footer line needs: a prompt or a message wraps onto up to a
 * third of the rows, so a question like "remember Shell(...) for this
 * session?" shows the pattern it asks about, not only its tail, and a
 * message its start ("since wants YYYY-MM-DD..." showed as "...filter not
 * changed", at 30 columns "not seen yet: rows 1-40 of the command" as
 * "scroll (space)"). */
static int prompt_rows(const struct browser *b, int rows, int cols)
{
	struct doc t;
	int n;

	if (!b->prompting && !b->msg)
		return 1;
	doc_init(&t, cols, b->ascii);
	if (b->prompting)
		put_prompt(&t, b);
	else
		doc_puts(&t, b->msg, TA_BOLD);
	if (t.open)
		doc_newline(&t);
	n = t.nrows > 0 ? (int)t.nrows : 1;
	doc_clear(&t);
	return n < rows / 3 ? n : rows / 3 > 1 ? rows / 3 : 1;
}

/* The footer line's rows fl..fe in its nf slots: its last rows; when it
 * does not fit, its first row, a mark saying how many rows are cut, and
 * its last rows. Only the tail showed before: a long question ("remember
 * Shell(rm -rf ~/.ssh /tmp/aaa...) for this session?") lost its start,
 * and nothing said so. */
static void footer_slots(struct browser *b, struct slot *s, int nf, size_t fl, size_t fe)
{
	size_t n = fe - fl, head, tail, mark;

	if (n <= (size_t)nf || nf < 2) {
		for (int i = 0; i < nf; i++) /* the last nf rows of the footer line */
			if (fe >= (size_t)(nf - i) && fe - (size_t)(nf - i) >= fl)
				s[i] = (struct slot){&b->frame, fe - (size_t)(nf - i)};
		return;
	}
	head = nf >= 3 ? 1 : 0;
	tail = (size_t)nf - 1 - head;
	mark = b->frame.nrows;
	doc_printf(&b->frame, TA_MARK, "<%zu rows of the %s cut>", n - head - tail,
	           b->prompting ? "question" : "message");
	if (b->frame.open)
		doc_newline(&b->frame);
	if (head)
		s[0] = (struct slot){&b->frame, fl};
	s[head] = (struct slot){&b->frame, mark};
	for (size_t i = 0; i < tail; i++)
		s[head + 1 + i] = (struct slot){&b->frame, fe - tail + i};
}

/* The header's first nh rows; when it has more, its first nh - 1 and a
 * mark saying how many are cut. At 30x6 the approval screen kept only its
 * title's rows: the warning that the command hides text and the NOTE that
 * approval runs the call went unseen, and nothing said so. Such a frame
 * is not reported to the screen's `drawn`: it was not seen whole. */
static void header_slots(struct browser *b, struct slot *s, size_t nh)
{
	size_t n = b->frame.nrows, mark;

	b->header_cut = n > nh ? n - nh + 1 : 0;
	for (size_t i = 0; i < nh; i++)
		s[i] = (struct slot){&b->frame, i};
	if (b->header_cut == 0 || nh == 0)
		return;
	mark = b->frame.nrows;
	doc_printf(&b->frame, TA_MARK, "<%zu header rows cut: enlarge>", b->header_cut);
	if (b->frame.open)
		doc_newline(&b->frame);
	s[nh - 1] = (struct slot){&b->frame, mark}; /* its first row: the count */
}

/* A terminal too small for the screen: a notice, and its keys do nothing
 * (nobody approves what they cannot read); the timeout still runs. */
static void layout_too_small(struct browser *b, int rows, int cols, const struct trow **out)
{
	doc_printf(&b->frame, TA_MARK, "airlock: enlarge the terminal to at least %dx%d (%dx%d)",
	           MIN_COLS, MIN_ROWS, cols, rows);
	doc_newline(&b->frame);
	for (int i = 0; i < rows; i++)
		out[i] = (size_t)i < b->frame.nrows ? &b->frame.rows[i] : NULL;
}

void browser_layout(struct browser *b, int rows, int cols, const struct trow **out,
                    int *cursor_row, int *cursor_col)
{
	struct slot *s;
	size_t nh, fl, fe, kr;
	int body, nf;

	doc_clear(&b->frame);
	doc_init(&b->frame, cols, b->ascii);
	*cursor_row = *cursor_col = -1;
	b->header_cut = 0;
	if ((b->too_small = rows < MIN_ROWS || cols < MIN_COLS)) {
		layout_too_small(b, rows, cols, out);
		return;
	}
	s = xcalloc((size_t)rows, sizeof(*s));
	b->ops->header(b->arg, b, &b->frame);
	if (b->frame.open)
		doc_newline(&b->frame);
	/* a narrow terminal wraps the header: up to a third of the rows, so a
	 * warning below the title is not cut off */
	nh = (size_t)(rows / 3 > 3 ? rows / 3 : 3);
	if (nh > b->frame.nrows)
		nh = b->frame.nrows;
	nf = prompt_rows(b, rows, cols);
	body = rows - (int)nh - 1 - nf;
	b->body_rows = body > 1 ? body : 1;
	header_slots(b, s, nh);
	if (body > 0) {
		if (b->help)
			body_help(b, body, s + nh);
		else if (b->mode == BM_DETAIL)
			body_detail(b, cols, body, s + nh);
		else
			body_list(b, cols, body, s + nh);
	}
	fl = b->frame.nrows;
	footer_line(b, cursor_col);
	fe = b->frame.nrows;
	footer_keys(b, cols);
	kr = b->frame.nrows - 1;
	if (rows >= 2) {
		footer_slots(b, s + rows - 1 - nf, nf, fl, fe);
		s[rows - 1] = (struct slot){&b->frame, kr};
	}
	*cursor_row = b->prompting ? rows - 2 : -1;
	for (int i = 0; i < rows; i++) /* rows[] is final now: pointers are safe */
		out[i] = s[i].d ? &s[i].d->rows[s[i].row] : NULL;
	free(s);
}

enum baction browser_step(struct browser *b, const struct screen_io *io,
                          const struct trow ***rows, int *cmd, long long *drawn_ns)
{
	int nr = 0, nc = 0, cr, cc;
	struct tkey k;

	io->size(io->arg, &nr, &nc);
	if (nr < 1 || nc < 1)
		nr = 1, nc = 8;
	*rows = xreallocarray(*rows, (size_t)nr, sizeof(**rows));
	browser_layout(b, nr, nc, *rows, &cr, &cc);
	io->draw(io->arg, *rows, nr, cr, cc);
	/* a cut header is not the screen seen: a warning in it went unseen */
	if (b->ops->drawn && !b->too_small && !b->header_cut && !b->help &&
	    b->mode == BM_DETAIL)
		b->ops->drawn(b->arg, b, b->top, b->top + (size_t)b->body_rows);
	if (drawn_ns && *drawn_ns == 0)
		*drawn_ns = clock_ns();
	if (io->read(io->arg, STEP_TICK_MS, &k) < 0)
		return BA_GONE;
	return browser_key(b, &k, cmd);
}
