/*
 * names.c: a fixed set of names looked up by hash, for the program and
 * wrapper tables: about one strcmp() a lookup where a binary search took
 * ten. Built once; read-only after, so threads may share it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

struct names {
	const char *const *names; /* the caller's; kept */
	size_t *slots;            /* index + 1 into names; 0 empty */
	size_t mask;
};

static size_t names_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct names *names_new(const char *const *names, size_t n)
{
	struct names *ix = xcalloc(1, sizeof(*ix));
	size_t cap = 16;

	while (cap < 2 * n) /* at most half full: probes stay short */
		cap *= 2;
	ix->names = names;
	ix->slots = xcalloc(cap, sizeof(*ix->slots));
	ix->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t h = names_hash(names[i]) & ix->mask;
		while (ix->slots[h] && strcmp(names[ix->slots[h] - 1], names[i]) != 0)
			h = (h + 1) & ix->mask;
		if (ix->slots[h] == 0) /* a name given twice keeps its first index */
			ix->slots[h] = i + 1;
	}
	return ix;
}

size_t names_find(const struct names *ix, const char *s)
{
	for (size_t h = names_hash(s) & ix->mask; ix->slots[h]; h = (h + 1) & ix->mask)
		if (strcmp(ix->names[ix->slots[h] - 1], s) == 0)
			return ix->slots[h] - 1;
	return SIZE_MAX;
}
