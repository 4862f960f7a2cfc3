/*
 * browser_internal.h: the browser's body, shared by browser.c, prompt.c and
 * layout.c (and the unit test). The screens use tui_internal.h only.
 */
#ifndef AIRLOCK_BROWSER_INTERNAL_H
#define AIRLOCK_BROWSER_INTERNAL_H

#include "tui/tui_internal.h"

#define BROWSER_PAGE 200   /* items fetched per page */
#define BROWSER_WINDOW 600 /* items kept; scrolling further drops the far end */
#define PROMPT_MAX 400     /* bytes a prompt answer may hold */
#define MIN_ROWS 6         /* smaller terminals get a notice, not the screen */
#define MIN_COLS 30
#define STEP_TICK_MS 250   /* key wait per turn: countdowns and queue counts refresh */

/* The browser's own commands (nav_keys in browser.c). */
enum nav_cmd {
	NAV_DOWN = 1,
	NAV_UP,
	NAV_PGDN,
	NAV_PGUP,
	NAV_TOP,
	NAV_BOTTOM,
	NAV_NEXT_FILE,
	NAV_PREV_FILE,
	NAV_SEARCH,
	NAV_VIEW,
	NAV_HELP,
	NAV_OPEN,
	NAV_BACK,
	NAV_REDRAW,
};

#define PROMPT_SEARCH (-1) /* the browser's own search prompt */

struct bitem {
	int64_t key;
	char *text;          /* raw; sanitised when laid out */
	int tier;            /* -1: none */
	size_t tier_off, tier_len;
};

struct browser {
	const struct browser_ops *ops;
	void *arg;
	bool detail_only, ascii;
	enum bmode mode;

	/* the list window */
	struct bitem *items;
	size_t nitems, alloc, sel, ltop, added;
	bool at_newest, at_oldest, prepend;

	/* the detail view */
	struct doc doc;
	bool doc_valid;
	int64_t doc_key;
	int view;
	size_t top;
	int body_rows;       /* from the last layout */
	char *search;

	/* the prompt */
	bool prompting, single, answered;
	int prompt_id;
	char *prompt_label;
	char pbuf[PROMPT_MAX + 1];
	size_t plen;

	char *msg;
	bool help;
	bool too_small;      /* the last frame could not show the screen */
	size_t header_cut;   /* header rows the last frame cut (0: none) */
	struct doc frame;    /* rows built for the last frame */
};

const struct keybind *browser_nav_keys(void);
/* Returns the binding of k in table (ended by a zero row), or NULL. */
const struct keybind *browser_lookup(const struct keybind *table, const struct tkey *k);
/* Handles a key, or a paste, while a prompt is open (prompt.c). */
enum baction prompt_key(struct browser *b, const struct tkey *k);
enum baction prompt_paste(struct browser *b, const struct tkey *k);
/* Searches from the top row shown (inclusive) or the row after it. */
void browser_search_next(struct browser *b, bool inclusive);

#endif
