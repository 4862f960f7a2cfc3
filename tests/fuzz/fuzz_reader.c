/*
 * fuzz_reader.c: the capped line reader (gate/protocol.c) over a stream cut
 * into arbitrary read sizes. The first input byte picks the read size and
 * the cap; the rest is the stream. Invariant: the reader yields exactly the
 * stream's lines (the last one may lack its newline), each line longer than
 * the cap reported as too long and every other line intact. With a pass
 * function (inputs of odd size), each too-long line's bytes are handed
 * over whole, in order, marked first exactly once, and nothing else is.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "gate/protocol.h"
#include "tests/fuzz/fuzz.h"

struct feed {
	int fd;
	const uint8_t *p;
	size_t n, chunk;
};

/* Writes the stream as packets of `chunk` bytes: each read() gets one. */
static void *writer(void *arg)
{
	struct feed *f = arg;
	for (size_t off = 0; off < f->n;) {
		size_t k = f->n - off < f->chunk ? f->n - off : f->chunk;
		ssize_t w = write(f->fd, f->p + off, k);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

/* What the pass function was handed for the current line. */
struct passed {
	struct buf b;
	int firsts;
};

static void pass(void *arg, const char *p, size_t n, bool first)
{
	struct passed *ps = arg;
	if (first && ps->b.len != 0)
		fuzz_fail("first marks a line's start", NULL, "%zu bytes already passed", ps->b.len);
	if (!first && ps->firsts == 0)
		fuzz_fail("first marks a line's start", NULL, "bytes passed before a first");
	ps->firsts += first;
	buf_append(&ps->b, p, n);
}

/* After a line: what was passed must be the line when it was too long,
 * nothing otherwise. */
static void expect_passed(struct passed *ps, bool toolong, const uint8_t *want, size_t wlen)
{
	if (toolong && (ps->firsts != 1 || ps->b.len != wlen ||
	                (wlen && memcmp(ps->b.data, want, wlen) != 0)))
		fuzz_fail("long lines passed whole", NULL, "%d firsts, %zu bytes of %zu", ps->firsts,
		          ps->b.len, wlen);
	if (!toolong && (ps->firsts != 0 || ps->b.len != 0))
		fuzz_fail("only long lines passed", NULL, "%zu bytes passed", ps->b.len);
	buf_free(&ps->b);
	buf_init(&ps->b, 0);
	ps->firsts = 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void expect_line(const char *got, size_t glen, bool toolong, const uint8_t *want,
                        size_t wlen, size_t cap)
{
	if (toolong != (wlen > cap))
		fuzz_fail("toolong iff over the cap", NULL, "line of %zu bytes, cap %zu, toolong %d",
		          wlen, cap, toolong);
	if (!toolong && (glen != wlen || memcmp(got, want, wlen) != 0))
		fuzz_fail("lines intact", NULL, "got %zu bytes, want %zu", glen, wlen);
	if (toolong && glen != 0)
		fuzz_fail("too long lines are empty", NULL, "got %zu bytes", glen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f;
	struct passed ps = {.firsts = 0};
	struct reader *r;
	pthread_t t;
	int p[2];
	size_t cap, off = 0;
	const char *line;
	size_t len;
	bool toolong;

	if (size < 1)
		return 0;
	cap = 1 + data[0] % 64;
	f = (struct feed){.p = data + 1, .n = size - 1, .chunk = 1 + (data[0] >> 2) + size / 200};
	if (pipe2(p, O_DIRECT) < 0)
		abort();
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	f.fd = p[1];
	pthread_create(&t, NULL, writer, &f);
	r = reader_new(p[0], cap);
	buf_init(&ps.b, 0);
	if (size & 1)
		reader_set_pass(r, pass, &ps);
	while (reader_next(r, &line, &len, &toolong) == 1) {
		const uint8_t *nl = memchr(f.p + off, '\n', f.n - off);
		size_t wlen = nl ? (size_t)(nl - (f.p + off)) : f.n - off;
		if (off >= f.n)
			fuzz_fail("no extra lines", NULL, "a line after the end of the stream");
		expect_line(line, len, toolong, f.p + off, wlen, cap);
		if (size & 1)
			expect_passed(&ps, toolong, f.p + off, wlen);
		off += wlen + (nl != NULL);
	}
	if (off != f.n)
		fuzz_fail("no lost lines", NULL, "stopped at %zu of %zu bytes", off, f.n);
	reader_free(r);
	buf_free(&ps.b);
	pthread_join(t, NULL);
	close(p[0]);
	return 0;
}
