/*
 * arena.c: the per-call bump allocator, so parsing a command costs a
 * handful of heap allocations, not one per word. Freed all at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/asan.h"
#include "core/util.h"

/* Under AddressSanitizer every allocation comes from a heap block whose
 * unused bytes stay poisoned, with a poisoned gap after each allocation
 * (core/asan.h). The inline first block is not used then: poisoned bytes
 * left in a stack frame would trip whatever used the stack next. */
#define ARENA_GAP (AIRLOCK_ASAN ? 16 : 0)

struct arena_blk {
	struct arena_blk *next;
	char data[];
};

void arena_init(struct arena *a)
{
	a->cur = a->first;
	a->end = AIRLOCK_ASAN ? a->first : a->first + sizeof(a->first);
	a->blocks = NULL;
}

void arena_free(struct arena *a)
{
	while (a->blocks) {
		struct arena_blk *b = a->blocks;
		a->blocks = b->next;
		free(b);
	}
	arena_init(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	size_t want = n;
	void *p;

	n = ((n + 15) & ~(size_t)15) + ARENA_GAP;
	if ((size_t)(a->end - a->cur) < n) {
		size_t sz = n > 32768 ? n : 32768;
		struct arena_blk *b = xmalloc(sizeof(*b) + sz + 16);
		b->next = a->blocks;
		a->blocks = b;
		a->cur = (char *)(((uintptr_t)b->data + 15) & ~(uintptr_t)15);
		a->end = a->cur + sz;
		ASAN_POISON_MEMORY_REGION(a->cur, sz);
	}
	p = a->cur;
	a->cur += n;
	ASAN_UNPOISON_MEMORY_REGION(p, want);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
