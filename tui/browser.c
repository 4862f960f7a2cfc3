/*
 * browser.c: the list/detail browser both screens are made of (tmux's
 * mode-tree.c serves three modes the same way): a window of list items
 * fetched a page at a time through a callback (keyset paging: the list never
 * holds more than BROWSER_WINDOW items), a detail document per item, search,
 * a one-line prompt, and the key handling. No curses here: keys come in as
 * struct tkey, frames go out as rows (layout.c).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/browser_internal.h"

static const struct keybind nav_keys[] = {
	{'j', TK_NONE, NAV_DOWN, NULL, "j/Down: down one line"},
	{0, TK_DOWN, NAV_DOWN, NULL, NULL},
	{'k', TK_NONE, NAV_UP, NULL, "k/Up: up one line"},
	{0, TK_UP, NAV_UP, NULL, NULL},
	{0, TK_PGDN, NAV_PGDN, NULL, "PgDn/space: down one page"},
	{' ', TK_NONE, NAV_PGDN, NULL, NULL},
	{TK_CTRL('f'), TK_NONE, NAV_PGDN, NULL, NULL},
	{0, TK_PGUP, NAV_PGUP, NULL, "PgUp: up one page"},
	{TK_CTRL('b'), TK_NONE, NAV_PGUP, NULL, NULL},
	{'g', TK_NONE, NAV_TOP, NULL, "g/Home: top"},
	{0, TK_HOME, NAV_TOP, NULL, NULL},
	{'G', TK_NONE, NAV_BOTTOM, NULL, "G/End: bottom"},
	{0, TK_END, NAV_BOTTOM, NULL, NULL},
	{'n', TK_NONE, NAV_NEXT_FILE, NULL, "n/N: next/previous file in the diff"},
	{'N', TK_NONE, NAV_PREV_FILE, NULL, NULL},
	{'/', TK_NONE, NAV_SEARCH, NULL, "/: search (Enter on an empty search: next match)"},
	{'v', TK_NONE, NAV_VIEW, NULL, "v: next view (diff / raw input)"},
	{'?', TK_NONE, NAV_HELP, NULL, "?: this help"},
	{0, TK_ENTER, NAV_OPEN, NULL, "Enter: open the selected item"},
	{'q', TK_NONE, NAV_BACK, NULL, "q/Esc: back, or leave"},
	{0, TK_ESC, NAV_BACK, NULL, NULL},
	{TK_CTRL('l'), TK_NONE, NAV_REDRAW, NULL, "Ctrl-L: redraw"},
	{0, TK_NONE, 0, NULL, NULL},
};

const struct keybind *browser_nav_keys(void)
{
	return nav_keys;
}

static bool key_matches(const struct keybind *kb, const struct tkey *k)
{
	if (kb->code != TK_NONE)
		return k->code == kb->code;
	return k->code == TK_CHAR && k->ch == kb->ch;
}

const struct keybind *browser_lookup(const struct keybind *table, const struct tkey *k)
{
	for (; table && (table->ch || table->code != TK_NONE); table++)
		if (table->cmd != 0 && key_matches(table, k)) /* cmd 0: footer words only */
			return table;
	return NULL;
}

struct browser *browser_new(const struct browser_ops *ops, void *arg, bool detail_only,
                            bool ascii)
{
	struct browser *b = xcalloc(1, sizeof(*b));

	b->ops = ops;
	b->arg = arg;
	b->detail_only = detail_only;
	b->mode = detail_only ? BM_DETAIL : BM_LIST;
	b->ascii = ascii;
	b->body_rows = 10;
	return b;
}

static void items_free(struct browser *b)
{
	for (size_t i = 0; i < b->nitems; i++)
		free(b->items[i].text);
	b->nitems = 0;
}

void browser_free(struct browser *b)
{
	if (b == NULL)
		return;
	items_free(b);
	free(b->items);
	doc_clear(&b->doc);
	doc_clear(&b->frame);
	free(b->search);
	free(b->msg);
	free(b->prompt_label);
	free(b);
}

void browser_add(struct browser *b, int64_t key, const char *row_text, int tier,
                 size_t tier_off, size_t tier_len)
{
	struct bitem it = {key, xstrdup(row_text), tier, tier_off, tier_len};

	if (b->nitems == b->alloc) {
		b->alloc = b->alloc ? b->alloc * 2 : 64;
		b->items = xreallocarray(b->items, b->alloc, sizeof(*b->items));
	}
	if (b->prepend) { /* newer items arrive closest first: each goes on top */
		memmove(b->items + 1, b->items, b->nitems * sizeof(*b->items));
		b->items[0] = it;
		b->sel++;
		b->ltop++;
	} else {
		b->items[b->nitems] = it;
	}
	b->nitems++;
	b->added++;
}

/* Drops n items from the front or the back to keep the window bounded. */
static void items_drop(struct browser *b, size_t n, bool front)
{
	if (n > b->nitems)
		n = b->nitems;
	if (front) {
		for (size_t i = 0; i < n; i++)
			free(b->items[i].text);
		memmove(b->items, b->items + n, (b->nitems - n) * sizeof(*b->items));
		b->sel = b->sel >= n ? b->sel - n : 0;
		b->ltop = b->ltop >= n ? b->ltop - n : 0;
		b->at_newest = false;
	} else {
		for (size_t i = b->nitems - n; i < b->nitems; i++)
			free(b->items[i].text);
		b->at_oldest = false;
	}
	b->nitems -= n;
}

/* Fetches one page beyond the window's edge: dir 1 below (older), -1 above. */
static int fetch(struct browser *b, int dir, char **errstr)
{
	int64_t key = 0;
	int n;

	if (b->nitems)
		key = dir > 0 ? b->items[b->nitems - 1].key : b->items[0].key;
	b->prepend = dir < 0;
	b->added = 0;
	n = b->ops->page(b->arg, b, key, dir, BROWSER_PAGE, errstr);
	b->prepend = false;
	if (n < 0)
		return -1;
	if ((size_t)n < BROWSER_PAGE) {
		if (dir > 0)
			b->at_oldest = true;
		else
			b->at_newest = true;
	}
	if (b->nitems > BROWSER_WINDOW)
		items_drop(b, b->nitems - BROWSER_WINDOW, dir > 0);
	return n;
}

/* Loads from one end: dir 1 the newest page, -1 the oldest page. */
static int load_end(struct browser *b, int dir, char **errstr)
{
	items_free(b);
	b->sel = b->ltop = 0;
	b->at_newest = b->at_oldest = false;
	if (fetch(b, dir, errstr) < 0)
		return -1;
	if (dir > 0) {
		b->at_newest = true;
	} else {
		b->at_oldest = true;
		b->sel = b->nitems ? b->nitems - 1 : 0;
	}
	return 0;
}

int browser_reload(struct browser *b, char **errstr)
{
	browser_invalidate(b);
	return load_end(b, 1, errstr);
}

int browser_open(struct browser *b, char **errstr)
{
	(void)errstr;
	if (b->nitems == 0)
		return 0;
	b->mode = BM_DETAIL;
	b->top = 0;
	b->view = 0; /* each item opens on its first view */
	browser_invalidate(b);
	return 0;
}

void browser_invalidate(struct browser *b)
{
	b->doc_valid = false;
}

/* Moves the list selection by delta, paging in items at the edges. */
static void list_move(struct browser *b, long delta)
{
	char *err = NULL;
	long to = (long)b->sel + delta;

	if (to >= (long)b->nitems && !b->at_oldest) {
		if (fetch(b, 1, &err) < 0)
			goto fail;
		to = (long)b->sel + delta;
	}
	if (to < 0 && !b->at_newest) {
		if (fetch(b, -1, &err) < 0)
			goto fail;
		to = (long)b->sel + delta;
	}
	if (to >= (long)b->nitems)
		to = (long)b->nitems - 1;
	b->sel = to < 0 ? 0 : (size_t)to;
	return;
fail:
	browser_message(b, "%s", err);
	free(err);
}

static size_t max_top(const struct browser *b)
{
	size_t body = (size_t)(b->body_rows > 0 ? b->body_rows : 1);
	return b->doc.nrows > body ? b->doc.nrows - body : 0;
}

static void detail_move(struct browser *b, long delta)
{
	long to = (long)b->top + delta;
	long mt = (long)max_top(b);

	b->top = to < 0 ? 0 : to > mt ? (size_t)mt : (size_t)to;
}

/* Jumps to the next (dir 1) or previous file start in the diff. */
static void detail_file(struct browser *b, int dir)
{
	const struct doc *d = &b->doc;

	for (size_t i = 0; i < d->nfiles; i++) {
		size_t f = d->files[dir > 0 ? i : d->nfiles - 1 - i];
		if ((dir > 0 && f > b->top) || (dir < 0 && f < b->top)) {
			b->top = f;
			detail_move(b, 0);
			return;
		}
	}
	browser_message(b, d->nfiles ? "no %s file" : "no files in this view",
	                dir > 0 ? "next" : "previous");
}

/* Searches from the top row or the row after it, wrapping once. */
void browser_search_next(struct browser *b, bool inclusive)
{
	size_t row;

	if (b->search == NULL || *b->search == '\0')
		return;
	if (b->mode == BM_LIST) {
		browser_message(b, "search works in the detail view; f filters the list");
		return;
	}
	if (doc_find(&b->doc, b->search, b->top + (inclusive ? 0 : 1), 1, &row)) {
		b->top = row;
	} else if (doc_find(&b->doc, b->search, 0, 1, &row)) {
		b->top = row;
		browser_message(b, "search wrapped to the top");
	} else {
		browser_message(b, "not found: %s", b->search);
		return;
	}
	detail_move(b, 0);
}

static long page_rows(const struct browser *b)
{
	return b->body_rows > 2 ? b->body_rows - 1 : 1;
}

/* Movement keys, in list or detail mode. */
static void nav_move(struct browser *b, int cmd)
{
	static const struct {
		int cmd;
		int dir;  /* -2 top, 2 bottom, else lines or pages */
		bool page;
	} moves[] = {
		{NAV_DOWN, 1, false}, {NAV_UP, -1, false}, {NAV_PGDN, 1, true},
		{NAV_PGUP, -1, true}, {NAV_TOP, -2, false}, {NAV_BOTTOM, 2, false},
	};
	char *err = NULL;

	for (size_t i = 0; i < nitems(moves); i++) {
		long delta;
		if (moves[i].cmd != cmd)
			continue;
		if (moves[i].dir == -2 || moves[i].dir == 2) {
			if (b->mode == BM_DETAIL)
				b->top = moves[i].dir < 0 ? 0 : max_top(b);
			else if (load_end(b, moves[i].dir < 0 ? 1 : -1, &err) < 0)
				browser_message(b, "%s", err);
			free(err);
			return;
		}
		delta = moves[i].page ? moves[i].dir * page_rows(b) : moves[i].dir;
		if (b->mode == BM_DETAIL)
			detail_move(b, delta);
		else
			list_move(b, delta);
	}
}

/* The browser's own keys; returns the action. */
static enum baction nav_key(struct browser *b, int cmd)
{
	switch (cmd) {
	case NAV_NEXT_FILE:
	case NAV_PREV_FILE:
		if (b->mode == BM_DETAIL)
			detail_file(b, cmd == NAV_NEXT_FILE ? 1 : -1);
		return BA_NONE;
	case NAV_SEARCH:
		browser_prompt(b, PROMPT_SEARCH, "search: ", NULL);
		return BA_NONE;
	case NAV_VIEW:
		if (b->ops->nviews > 1 && b->mode == BM_DETAIL) {
			b->view = (b->view + 1) % b->ops->nviews;
			b->top = 0;
			browser_invalidate(b);
		}
		return BA_NONE;
	case NAV_HELP:
		b->help = true;
		return BA_NONE;
	case NAV_OPEN:
		if (b->mode == BM_LIST)
			browser_open(b, NULL);
		return BA_NONE;
	case NAV_BACK:
		if (b->mode == BM_DETAIL && !b->detail_only) {
			b->mode = BM_LIST;
			return BA_NONE;
		}
		return BA_QUIT;
	default:
		nav_move(b, cmd);
		return BA_NONE;
	}
}

enum baction browser_key(struct browser *b, const struct tkey *k, int *cmd)
{
	const struct keybind *kb;

	if (k->code == TK_TIMEOUT || k->code == TK_RESIZE || k->code == TK_NONE)
		return BA_NONE; /* a message stays until a key is pressed, not 250 ms */
	free(b->msg);
	b->msg = NULL;
	if (b->too_small) { /* nothing is decided about what cannot be seen */
		browser_message(b, "the terminal is too small to show the call");
		return BA_NONE;
	}
	if (b->prompting)
		return k->code == TK_PASTE ? prompt_paste(b, k) : prompt_key(b, k);
	if (k->code == TK_PASTE) { /* text for another window, never keys */
		browser_message(b, "a paste is text, not keys: ignored");
		return BA_UNKNOWN;
	}
	if (b->help) { /* any key leaves the help */
		b->help = false;
		return BA_NONE;
	}
	if ((kb = browser_lookup(b->ops->keys, k)) != NULL) {
		*cmd = kb->cmd;
		return BA_CMD;
	}
	if ((kb = browser_lookup(nav_keys, k)) != NULL)
		return nav_key(b, kb->cmd);
	browser_message(b, "unknown key; ? shows the keys");
	return BA_UNKNOWN;
}

void browser_message(struct browser *b, const char *fmt, ...)
{
	va_list ap;

	free(b->msg);
	va_start(ap, fmt);
	b->msg = xvasprintf(fmt, ap);
	va_end(ap);
}

enum bmode browser_mode(const struct browser *b)
{
	return b->mode;
}

int browser_view(const struct browser *b)
{
	return b->view;
}

int64_t browser_selected(const struct browser *b)
{
	if (b->nitems == 0)
		return 0;
	return b->items[b->sel < b->nitems ? b->sel : b->nitems - 1].key;
}

size_t browser_top(const struct browser *b)
{
	return b->top;
}

const struct doc *browser_doc(const struct browser *b)
{
	return &b->doc;
}

bool browser_too_small(const struct browser *b)
{
	return b->too_small;
}

bool browser_in_help(const struct browser *b)
{
	return b->help;
}
