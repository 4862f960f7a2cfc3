/*
 * jalloc.h: jansson's allocations for decoding one line at a time from a
 * block that is reused for the next line (see jalloc.c).
 */
#ifndef AIRLOCK_JALLOC_H
#define AIRLOCK_JALLOC_H

#include <jansson.h>

/* Makes jansson allocate through jalloc (malloc() until a line begins).
 * Call before any jansson value exists whose memory matters: values made
 * before are freed with free() as ever. */
void jalloc_install(void);

/* The values jansson makes from here to jalloc_line_decoded() come from
 * the block, and are all dead at the next jalloc_line_begin(): the caller
 * drops every reference to them before it. Frees of them are no-ops. */
void jalloc_line_begin(void);
void jalloc_line_decoded(void);

#endif
