/*
 * util.h: small helpers every module uses: allocation that aborts on
 * out-of-memory (so callers never check), NULL-terminated string vectors,
 * a growable byte buffer with a hard cap, and UTF-8 repair for JSON output.
 */
#ifndef AIRLOCK_UTIL_H
#define AIRLOCK_UTIL_H

#include <stdarg.h>
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
/* Hands the data to the caller (who frees it) and resets the buffer. */
char *buf_take(struct buf *b, size_t *len);
void buf_free(struct buf *b);

/*
 * Returns a new NUL-terminated copy of p[0..n) that is valid UTF-8: invalid
 * sequences and NUL bytes become U+FFFD. Caller frees.
 */
char *utf8_repair(const char *p, size_t n);
/* Returns true when p[0..n) is valid UTF-8 with no NUL bytes. */
bool utf8_valid(const char *p, size_t n);
/*
 * Appends p[0..n) fit for a terminal: control characters but newline and
 * tab (C0, DEL, C1 in UTF-8 form) and bytes that are not valid UTF-8 become
 * \xNN text, so what a child prints cannot move the cursor, repaint the
 * screen or change the terminal's state (palette, modes).
 */
void buf_append_printable(struct buf *b, const char *p, size_t n);

/* Parses a whole decimal integer in [min, max]; returns 0 or -1. */
int parse_ll(const char *s, long long min, long long max, long long *out);
/* Monotonic clock in nanoseconds. */
long long clock_ns(void);
/* Writes all of p[0..n) to fd, retrying short writes and EINTR; 0 or -1
 * with errno. */
int fd_write_all(int fd, const void *p, size_t n);

#endif
