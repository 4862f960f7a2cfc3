/*
 * util.c: allocation, string vectors, capped buffers, UTF-8 repair.
 * Out-of-memory aborts: airlock cannot fail closed without memory anyway,
 * and abort() leaves no half-made decision behind.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

static void __attribute__((noreturn)) oom(size_t n)
{
	fprintf(stderr, "airlock: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		oom(n);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	/* most of the classifier's reasons are a fixed text or one "%s": the
	 * same bytes, without vasprintf()'s buffer and its shrinking realloc() */
	if (strchr(fmt, '%') == NULL)
		return xstrdup(fmt);
	if (strcmp(fmt, "%s") == 0) {
		va_list cp;
		const char *s;
		va_copy(cp, ap);
		s = va_arg(cp, const char *);
		va_end(cp);
		return xstrdup(s ? s : "(null)"); /* what glibc prints for NULL */
	}
	if (vasprintf(&p, fmt, ap) < 0)
		oom(0);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

size_t strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

void strv_push_owned(char ***v, char *s)
{
	size_t n = strv_len(*v);
	*v = xreallocarray(*v, n + 2, sizeof(**v));
	(*v)[n] = s;
	(*v)[n + 1] = NULL;
}

void strv_push(char ***v, const char *s)
{
	strv_push_owned(v, xstrdup(s));
}

bool strv_contains(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

char **strv_dup(char *const *v)
{
	char **copy = NULL;
	if (v == NULL)
		return NULL;
	copy = xcalloc(1, sizeof(*copy));
	for (; *v; v++)
		strv_push(&copy, *v);
	return copy;
}

void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

void buf_init(struct buf *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->cap && b->len + n > b->cap) {
		n = b->cap > b->len ? b->cap - b->len : 0;
		b->truncated = true;
	}
	if (b->len + n + 1 > b->alloc) {
		size_t want = b->alloc ? b->alloc : 256;
		while (want < b->len + n + 1)
			want *= 2;
		b->data = xrealloc(b->data, want);
		b->alloc = want;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

size_t cut_word_start(const char *s, size_t n)
{
	size_t keep = n;

	while (keep > 0 && n - keep < CUT_WORD_MAX && !isspace((unsigned char)s[keep - 1]))
		keep--;
	return keep;
}

void buf_drop_cut_word(struct buf *b)
{
	if (!b->truncated || b->data == NULL)
		return;
	b->len = cut_word_start(b->data, b->len);
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_puts(b, s);
	free(s);
}

char *buf_take(struct buf *b, size_t *len)
{
	char *p;
	if (b->data == NULL)
		buf_append(b, "", 0);
	p = b->data;
	if (len)
		*len = b->len;
	buf_init(b, b->cap);
	return p;
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b, b->cap);
}

size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned c = p[0];
	size_t len;
	uint32_t v, min;

	if (n == 0 || c == 0)
		return 0;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		len = 2, min = 0x80, v = c & 0x1f;
	else if ((c & 0xf0) == 0xe0)
		len = 3, min = 0x800, v = c & 0x0f;
	else if ((c & 0xf8) == 0xf0)
		len = 4, min = 0x10000, v = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	uint32_t cp;

	return utf8_decode(p, n, &cp);
}

/* Code points that reorder or hide text. */
static const struct {
	uint32_t lo, hi;
} hidden_ranges[] = {
	{0x0080, 0x009f},   /* C1 controls (0x9b is a CSI on some terminals) */
	{0x00ad, 0x00ad},   /* soft hyphen */
	{0x034f, 0x034f},   /* combining grapheme joiner */
	{0x061c, 0x061c},   /* arabic letter mark */
	{0x115f, 0x1160},   /* hangul fillers */
	{0x17b4, 0x17b5},
	{0x180b, 0x180f},   /* mongolian variation selectors, vowel separator */
	{0x200b, 0x200f},   /* zero-width space/joiners, LRM, RLM */
	{0x2028, 0x2029},   /* line and paragraph separators */
	{0x202a, 0x202e},   /* bidi embeddings and overrides */
	{0x2060, 0x2064},   /* word joiner, invisible operators */
	{0x2066, 0x2069},   /* bidi isolates */
	{0x206a, 0x206f},   /* deprecated format characters */
	{0x2800, 0x2800},   /* braille pattern blank: a space that is not one */
	{0x3164, 0x3164},   /* hangul filler */
	{0xfeff, 0xfeff},   /* zero-width no-break space */
	{0xffa0, 0xffa0},
	{0xfff9, 0xfffb},   /* interlinear annotations */
	{0x13430, 0x1343f}, /* egyptian hieroglyph format controls */
	{0x1bca0, 0x1bca3}, /* shorthand format controls */
	{0x1d173, 0x1d17a}, /* musical symbol format controls */
	{0xe0000, 0xe007f}, /* tag characters */
	{0xe0100, 0xe01ef}, /* variation selectors supplement */
};

bool utf8_hidden(uint32_t cp)
{
	for (size_t i = 0; i < nitems(hidden_ranges); i++)
		if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
			return true;
	return false;
}

bool utf8_valid(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i);
		if (k == 0)
			return false;
		i += k;
	}
	return true;
}

bool utf8_selector_hides(uint32_t prev, uint32_t cp)
{
	if (cp < 0xfe00 || cp > 0xfe0f)
		return false;
	return cp != 0xfe0f || prev == 0 || (prev >= 0xfe00 && prev <= 0xfe0f);
}

void buf_append_shown(struct buf *b, const char *p, size_t n, unsigned keep)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t run = 0, k;
	uint32_t cp, prev = 0;

	for (size_t i = 0; i < n; i += k, prev = cp) {
		cp = 0;
		k = utf8_decode(u + i, n - i, &cp);
		if (k > 1 ? !utf8_hidden(cp) && !utf8_selector_hides(prev, cp)
		          : k == 1 && ((cp >= 0x20 && cp != 0x7f) || (cp == '\t' && (keep & SHOWN_TAB)) ||
		                       (cp == '\n' && (keep & SHOWN_NEWLINE))))
			continue;
		buf_append(b, p + run, i - run);
		if (k > 1)
			buf_printf(b, "\\u%04x", (unsigned)cp);
		else
			buf_printf(b, "\\x%02x", u[i]);
		k = k ? k : 1;
		run = i + k;
	}
	buf_append(b, p + run, n - run);
}

void buf_append_printable(struct buf *b, const char *p, size_t n)
{
	buf_append_shown(b, p, n, SHOWN_TAB | SHOWN_NEWLINE);
}

char *utf8_repair(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i);
		if (k == 0) {
			buf_append(&b, "\xef\xbf\xbd", 3);
			i++;
		} else {
			buf_append(&b, p + i, k);
			i += k;
		}
	}
	return buf_take(&b, NULL);
}

bool path_contains(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool path_up(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash == NULL || strcmp(path, "/") == 0)
		return false;
	slash[slash == path] = '\0'; /* "/a" keeps its slash */
	return true;
}

int parse_ll(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long long clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int fd_read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			errno = EIO; /* shorter than the caller was told */
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

int fd_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int hex_digit(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}
