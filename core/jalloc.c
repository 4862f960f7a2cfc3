/*
 * jalloc.c: jansson's memory for the decoding of one input line. A line
 * decodes into ~25 small allocations (objects, their hash tables, keys,
 * strings) that all die when its answer is written; bumping them out of
 * one block kept for the process, and dropping them all when the next line
 * starts, spares malloc() and free() ~8% of `airlock classify`'s time.
 *
 * Only decoding bumps (jalloc_line_begin() .. jalloc_line_decoded()):
 * what jansson allocates later (json_dumps() strings callers free() with
 * free(), trees kept across lines) comes from malloc() as before. A free
 * of block memory is a no-op; a line bigger than the block takes the rest
 * from malloc(), and free() returns it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/asan.h"
#include "core/jalloc.h"
#include "core/util.h"

#define BLOCK (256u << 10)
#define GAP (AIRLOCK_ASAN ? 16 : 0) /* a poisoned gap after each allocation */

/* Per thread: a block is bumped and reset by the thread decoding into it
 * (the gate's other threads decode nothing, and get malloc()). */
static __thread struct {
	char *base;
	size_t used;
	bool on;
} jl;

static bool in_block(const void *p)
{
	return jl.base && (const char *)p >= jl.base && (const char *)p < jl.base + BLOCK;
}

static void *jalloc_malloc(size_t n)
{
	size_t need = ((n + 15) & ~(size_t)15) + GAP;
	void *p;

	if (!jl.on || need > BLOCK - jl.used)
		return xmalloc(n);
	p = jl.base + jl.used;
	jl.used += need;
	ASAN_UNPOISON_MEMORY_REGION(p, n);
	return p;
}

static void jalloc_free(void *p)
{
	if (!in_block(p))
		free(p);
}

void jalloc_install(void)
{
	json_set_alloc_funcs(jalloc_malloc, jalloc_free);
}

void jalloc_line_begin(void)
{
	if (jl.base == NULL)
		jl.base = xmalloc(BLOCK);
	/* everything the last line decoded is dead now: under ASan a read of
	 * it is reported, not served from the next line's bytes */
	ASAN_POISON_MEMORY_REGION(jl.base, BLOCK);
	jl.used = 0;
	jl.on = true;
}

void jalloc_line_decoded(void)
{
	jl.on = false;
}
