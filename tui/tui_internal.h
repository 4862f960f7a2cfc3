/*
 * tui_internal.h: the parts of tui/ shared by its files only (and its unit
 * test). Three layers, as in tmux: state (doc.c, browser.c: plain data and
 * key handling, no curses), drawing (term.c: the only file that calls
 * ncurses) and the two screens built on them (approve.c, audit.c).
 */
#ifndef AIRLOCK_TUI_INTERNAL_H
#define AIRLOCK_TUI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/airlock.h"

struct db;
struct db_filter;

/* ---- Styled text (doc.c) ------------------------------------------------ */

/* What a run of text means; term.c maps each to colours and attributes. */
enum tattr {
	TA_NORMAL,
	TA_DIM,
	TA_BOLD,
	TA_TITLE,   /* header bar */
	TA_MARK,    /* hostile or invisible text shown escaped */
	TA_SPAN,    /* a span the classifier flagged */
	TA_ADD,     /* diff + line */
	TA_DEL,     /* diff - line */
	TA_HUNK,    /* diff @@ line */
	TA_FILE,    /* diff file header */
	TA_MATCH,   /* search match */
	TA_SELECT,  /* the selected list row */
	TA_KEY,     /* a key name in the footer */
	TA_LOW,     /* tiers: TA_TIER(t) */
	TA_MEDIUM,
	TA_HIGH,
	TA_CRITICAL,
};
#define TA_COUNT (TA_CRITICAL + 1)
#define TA_TIER(t) ((enum tattr)(TA_LOW + (int)(t)))

/* A run of bytes of one row's text in one attribute. */
struct trun {
	uint32_t off, len;
	uint8_t attr;
};

/* One screen row: safe UTF-8 (no control characters) no wider than the
 * document's width, split into runs. */
struct trow {
	char *text;
	size_t len;
	struct trun *runs;
	size_t nruns;
	int cells;
};

#define DOC_MAX_ROWS 500000 /* rows kept per document; the rest are counted */

/*
 * A document: text wrapped to a width, every byte of it sanitised. Control
 * characters, escapes, carriage returns, invalid UTF-8, bidi overrides and
 * invisible characters become visible escapes in TA_MARK and are counted.
 */
struct doc {
	struct trow *rows;
	size_t nrows, alloc;
	int width;         /* wrap width in cells (>= 1) */
	bool ascii;        /* escape all non-ASCII (the terminal is not UTF-8) */
	bool expand_tabs;  /* tabs become spaces (diffs) instead of \t marks */
	bool squeeze;      /* long runs of blanks or blank lines become one mark */
	bool oneline;      /* '\n' is shown as a \n mark, not a new row */
	const char *gutter; /* ASCII put at the start of every row, or NULL */
	size_t *files;     /* rows that start a file, for n/N */
	size_t nfiles;
	size_t nmarked;    /* escapes shown */
	int stacked;       /* zero-width marks drawn on the last character */
	size_t dropped;    /* rows past DOC_MAX_ROWS, not kept */
	struct doc_chunk *chunks; /* where rows' text and runs live (one free) */
	/* the row being filled, copied into rows[] when it ends */
	bool open;
	char *cbuf;
	size_t clen, ccap;
	struct trun *cruns;
	size_t cnruns, crcap;
	int ccells;
};

/* Starts an empty document for a width; doc_clear frees what it holds. */
void doc_init(struct doc *d, int width, bool ascii);
void doc_clear(struct doc *d);
/* Appends n bytes in attribute a, sanitising and wrapping; '\n' ends a row. */
void doc_put(struct doc *d, const char *s, size_t n, enum tattr a);
void doc_puts(struct doc *d, const char *s, enum tattr a);
void doc_printf(struct doc *d, enum tattr a, const char *fmt, ...) AIRLOCK_PRINTF(3, 4);
/* Ends the current row (an empty row when none is open). */
void doc_newline(struct doc *d);
/* Appends a unified diff (with its stat summary) coloured line by line and
 * records where each file starts. */
void doc_put_diff(struct doc *d, const char *diff);
/* Appends text where the byte ranges in spans are shown in TA_SPAN. */
void doc_put_spans(struct doc *d, const char *text, const struct span *spans, size_t nspans);
/* Finds the next row at or after from (dir 1) or at or before it (dir -1)
 * whose text holds needle, case-insensitively. Returns true and sets *row. */
bool doc_find(const struct doc *d, const char *needle, size_t from, int dir, size_t *row);
/* Appends a copy of a finished row and frees r's text and runs (r is
 * zeroed). */
void doc_push_row(struct doc *d, struct trow *r);
/* Returns a new string of one row with runs in attribute a wrapped as
 * "[[...]]" (tests and plain dumps); caller frees. */
char *doc_row_marked(const struct trow *r, enum tattr a);

/*
 * Decodes one display unit at s[0..n): a character or one escape. Writes its
 * display text (NUL-terminated, at most 15 bytes) to out, its width to
 * *cells (0 for a combining mark) and why it was escaped to *mark. Returns
 * the bytes consumed (>= 1). Tabs and newlines are the caller's business.
 */
enum umark { UM_NONE, UM_HOSTILE, UM_TERMINAL /* escaped only because not UTF-8 */ };
size_t text_unit(const char *s, size_t n, bool ascii, char out[16], int *cells,
                 enum umark *mark);

/* ---- Keys (browser.c; term.c turns terminal input into these) ----------- */

enum tkey_code {
	TK_NONE,
	TK_CHAR, /* ch holds a Unicode code point */
	TK_UP,
	TK_DOWN,
	TK_LEFT,
	TK_RIGHT,
	TK_PGUP,
	TK_PGDN,
	TK_HOME,
	TK_END,
	TK_ENTER,
	TK_ESC,
	TK_BACKSPACE,
	TK_RESIZE,
	TK_PASTE,   /* text the terminal marked as pasted (bracketed paste) */
	TK_TIMEOUT, /* nothing typed within the read timeout */
};
struct tkey {
	enum tkey_code code;
	uint32_t ch;          /* TK_CHAR: a Unicode code point */
	const uint32_t *text; /* TK_PASTE: its code points (the reader's, valid
	                       * until its next read); ntext of them, and
	                       * cut more were dropped past the reader's cap */
	size_t ntext, cut;
};
#define TK_CTRL(c) ((uint32_t)((c)&0x1f))

/* ---- The list/detail browser (browser.c), like tmux's mode-tree.c ------- */

struct browser;

/* One key a screen binds: a character or a special key, a command number
 * the screen interprets, and the words for the footer and the help. */
struct keybind {
	uint32_t ch;          /* 0 when code is not TK_CHAR */
	enum tkey_code code;
	int cmd;
	const char *label;    /* footer word, or NULL to keep it out of the footer */
	const char *help;
};

/* What a screen plugs into the browser. */
struct browser_ops {
	/* Adds up to limit items after item key (older when dir is 1, newer
	 * when -1; key 0 starts at the newest (dir 1) or the oldest (dir -1))
	 * with browser_add(). Returns the count added or -1 with *errstr. */
	int (*page)(void *arg, struct browser *b, int64_t key, int dir, size_t limit,
	            char **errstr);
	/* Fills d (already initialised for the width) with item key in view. */
	int (*detail)(void *arg, int64_t key, int view, struct doc *d, char **errstr);
	/* Fills the header rows (d is initialised for the width). */
	void (*header)(void *arg, struct browser *b, struct doc *d);
	/* Words at the right of the footer (a countdown), or NULL. */
	const char *(*status)(void *arg);
	const struct keybind *keys; /* the screen's keys, ended by a zero row */
	int nviews;                 /* detail views `v` cycles through */
	/* Told, after each frame that showed the detail view whole (its header
	 * not cut: rows seen under a cut header do not count as seen), which
	 * of its rows were on screen: top to bottom (exclusive). May be NULL. */
	void (*drawn)(void *arg, struct browser *b, size_t top, size_t bottom);
};

/* What browser_key() tells the screen. */
enum baction {
	BA_NONE,    /* handled; redraw */
	BA_CMD,     /* a screen key: *cmd says which */
	BA_PROMPT,  /* a prompt was answered: browser_prompt_text() */
	BA_QUIT,    /* leave the screen */
	BA_GONE,    /* the terminal went away */
	BA_UNKNOWN, /* a key no screen knows: typing meant for someone else? */
};

enum bmode { BM_LIST, BM_DETAIL };

/* Returns a new browser; it starts in list mode unless detail_only. */
struct browser *browser_new(const struct browser_ops *ops, void *arg, bool detail_only,
                            bool ascii);
void browser_free(struct browser *b);
/* Adds an item from the page callback; row_text is sanitised (tiers in
 * their colour when tier >= 0). */
void browser_add(struct browser *b, int64_t key, const char *row_text, int tier,
                 size_t tier_off, size_t tier_len);
/* Loads the first page (or reloads after a filter change). */
int browser_reload(struct browser *b, char **errstr);
/* Opens the detail view of the selected item. */
int browser_open(struct browser *b, char **errstr);
/* Handles one key. Sets *cmd for BA_CMD. */
enum baction browser_key(struct browser *b, const struct tkey *k, int *cmd);
/* Starts a one-line prompt; its answer comes back as BA_PROMPT with id. */
void browser_prompt(struct browser *b, int id, const char *label, const char *init);
/* Starts a one-key choice (answered by the first character typed). */
void browser_choice(struct browser *b, int id, const char *label);
/* True while a prompt or choice is open. */
bool browser_prompting(const struct browser *b);
/* The answered prompt's id and text (valid until the next key). */
int browser_prompt_id(const struct browser *b);
const char *browser_prompt_text(const struct browser *b);
/* A one-line message in the footer until the next key. */
void browser_message(struct browser *b, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
/* Lays out a frame of rows x cols: fills out[0..rows) with rows to draw
 * (borrowed until the next browser call); sets the cursor for prompts. */
void browser_layout(struct browser *b, int rows, int cols, const struct trow **out,
                    int *cursor_row, int *cursor_col);
enum bmode browser_mode(const struct browser *b);
int browser_view(const struct browser *b);
int64_t browser_selected(const struct browser *b);
/* The first body row shown in detail mode (tests). */
size_t browser_top(const struct browser *b);
/* Rows of the detail document (tests). */
const struct doc *browser_doc(const struct browser *b);
/* Forgets the detail document so the next frame rebuilds it. */
void browser_invalidate(struct browser *b);
/* True when the last frame was too small to show the screen. */
bool browser_too_small(const struct browser *b);
/* Help mode: the help text over the body until a key. */
bool browser_in_help(const struct browser *b);

/* ---- The terminal (term.c: the only code that calls ncurses) ------------ */

struct term;

/* Opens path (NULL: /dev/tty) as a curses screen. Returns 0, or -1 with
 * *errstr (caller frees) when there is no usable terminal. */
int term_open(const char *path, struct term **out, char **errstr) AIRLOCK_MUST_CHECK;
/* Restores the terminal and frees; term_close(NULL) is a no-op. */
void term_close(struct term *t);
/* True when the terminal takes UTF-8. */
bool term_utf8(const struct term *t);
void term_size(struct term *t, int *rows, int *cols);
/* Paints rows (as laid out by browser_layout) and flushes. */
void term_draw(struct term *t, const struct trow **rows, int nrows, int cursor_row,
               int cursor_col);
/* Waits up to timeout_ms for a key. Returns 0, or -1 when the terminal is
 * gone (EOF, hangup). */
int term_read(struct term *t, int timeout_ms, struct tkey *k);
/*
 * Leaves the screen, runs $EDITOR (else vi) on a file holding text with the
 * terminal as its stdin/stdout, and comes back. Returns 0 and *out (new
 * text, caller frees), or -1 with *errstr.
 */
int term_edit(struct term *t, const char *text, const char *suffix, char **out,
              char **errstr) AIRLOCK_MUST_CHECK;

/* Where a screen reads keys and draws: the terminal, or a test script. */
struct screen_io {
	void *arg;
	void (*size)(void *arg, int *rows, int *cols);
	void (*draw)(void *arg, const struct trow **rows, int nrows, int cursor_row,
	             int cursor_col);
	int (*read)(void *arg, int timeout_ms, struct tkey *k); /* -1: gone */
	long long (*now)(void *arg); /* a clock in ns; NULL: clock_ns() (tests fake it) */
};
/* Fills io with t's functions. */
void term_screen_io(struct term *t, struct screen_io *io);
/*
 * One turn of a screen: lays out and draws a frame on io (*rows is a
 * scratch array the caller frees), sets *drawn_ns (when not NULL and still
 * 0) once it is on screen, reads a key and handles it. Returns the action.
 */
enum baction browser_step(struct browser *b, const struct screen_io *io,
                          const struct trow ***rows, int *cmd, long long *drawn_ns);
/* The audit browser over any io (tests). */
int tui_audit_browse_io(struct db *db, const struct db_filter *f, const struct screen_io *io,
                        bool ascii, char **errstr);

struct tui_ask;
struct tui_answer;
/* The approval screen over any io, without a terminal (tests): no editor. */
void tui_approve_io(const struct tui_ask *ask, struct tui_answer *ans,
                    const struct screen_io *io);

/* ---- Signals while a screen is up (term.c) ------------------------------ */

/* Catches SIGINT, SIGTERM and SIGHUP (flag only) until tui_signals_restore. */
void tui_signals_catch(void);
void tui_signals_restore(void);
/* The signal caught since tui_signals_catch, or 0. */
int tui_signal_caught(void);

#endif
