/*
 * util.h: small helpers every module uses: allocation that aborts on
 * out-of-memory (so callers never check), NULL-terminated string vectors,
 * a growable byte buffer with a hard cap, and UTF-8 repair for JSON output.
 */
#ifndef AIRLOCK_UTIL_H
#define AIRLOCK_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/airlock.h"

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

/* Abort with a message on allocation failure; never return NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
/* Returns a new copy; caller frees. xstrdup(NULL) returns NULL. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a new formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) AIRLOCK_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap) AIRLOCK_PRINTF(1, 0);

/* NULL-terminated string vectors. strv_free(NULL) is a no-op. */
size_t strv_len(char *const *v);
/* Appends a copy of s. */
void strv_push(char ***v, const char *s);
/* Appends s, taking ownership. */
void strv_push_owned(char ***v, char *s);
bool strv_contains(char *const *v, const char *s);
/* Returns a deep copy; caller frees. */
char **strv_dup(char *const *v);
void strv_free(char **v);

/*
 * A byte buffer that never grows past `cap` bytes (0 = no cap). Appends past
 * the cap are dropped and set `truncated`, so the cap is reported, not silent.
 * The data is always NUL-terminated for convenience.
 */
struct buf {
	char *data;
	size_t len, alloc, cap;
	bool truncated;
};
void buf_init(struct buf *b, size_t cap);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
/* Where the last word of s[0..n) starts: back to the last white space, at
 * most CUT_WORD_MAX bytes. A cut that fell inside a word drops or marks
 * what follows, since a token cut short matches no secret's shape and
 * would be stored and shown as it is. */
#define CUT_WORD_MAX 4096
size_t cut_word_start(const char *s, size_t n);
/* A buffer its cap cut loses its partial last word (cut_word_start). No-op
 * unless truncated. */
void buf_drop_cut_word(struct buf *b);
/* Hands the data to the caller (who frees it) and resets the buffer. */
char *buf_take(struct buf *b, size_t *len);
void buf_free(struct buf *b);

/*
 * Returns a new NUL-terminated copy of p[0..n) that is valid UTF-8: invalid
 * sequences and NUL bytes become U+FFFD. Caller frees.
 */
char *utf8_repair(const char *p, size_t n);
/* Decodes the UTF-8 sequence at p[0..n) into *cp; returns its length
 * (1..4), or 0 when it is invalid, overlong, a surrogate or NUL. */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);
/* True for code points that reorder or hide text on a terminal: C1
 * controls, bidi embeddings, overrides and isolates ("Trojan Source"),
 * zero-width and other invisible characters. */
bool utf8_hidden(uint32_t cp);
/* True for a variation selector (U+FE00-FE0F) that shows nothing and can
 * carry data, after the code point prev (0: none): any but one U+FE0F
 * right after a character that is no selector (an emoji's own). Two per
 * byte after an emoji hid 'rm -rf ~' in run("😀") for a decoder to eval. */
bool utf8_selector_hides(uint32_t prev, uint32_t cp);
/* The value of the hex digit c (either case), or -1 when it is none. */
int hex_digit(int c);
/* Returns true when p[0..n) is valid UTF-8 with no NUL bytes. */
bool utf8_valid(const char *p, size_t n);
/*
 * Appends p[0..n) fit for a terminal: control bytes (C0 and DEL, but tab
 * and newline when keep says so) and bytes that are not valid UTF-8 become
 * \xNN text, and code points that reorder or hide text (utf8_hidden: C1,
 * bidi, zero-width; the selectors utf8_selector_hides() names) \uNNNN, so
 * what an agent or a file holds cannot move
 * the cursor, repaint the screen, change the terminal's state or read as
 * something else. The one escaper behind every printed summary, diff line
 * and log row.
 */
#define SHOWN_TAB 1u
#define SHOWN_NEWLINE 2u
void buf_append_shown(struct buf *b, const char *p, size_t n, unsigned keep);
/* buf_append_shown() keeping tabs and newlines: a child's output. */
void buf_append_printable(struct buf *b, const char *p, size_t n);

/* True when dir is path itself or one of its ancestors; both canonical
 * (absolute, resolved): the test is on the text. */
bool path_contains(const char *dir, const char *path);
/* Cuts path to its parent in place ("/a/b" -> "/a", "/a" -> "/", "a/b" ->
 * "a"); false, leaving it, when there is none ("/", or no slash). */
bool path_up(char *path);

/* Parses a whole decimal integer in [min, max]; returns 0 or -1. */
int parse_ll(const char *s, long long min, long long max, long long *out);
/* Monotonic clock in nanoseconds. */
long long clock_ns(void);
/* Reads exactly n bytes from fd into p, retrying short reads and EINTR;
 * 0, or -1 with errno (EIO: the file ended first). */
int fd_read_all(int fd, void *p, size_t n);
/* Writes all of p[0..n) to fd, retrying short writes and EINTR; 0 or -1
 * with errno. */
int fd_write_all(int fd, const void *p, size_t n);

#endif
