/*
 * encode.h: the shared structs as JSON, so the result stream, `airlock
 * classify` and the audit log describe a call in the same words.
 */
#ifndef AIRLOCK_ENCODE_H
#define AIRLOCK_ENCODE_H

#include <jansson.h>

#include "core/airlock.h"
#include "core/util.h"

/* Adds tier, rules, reasons and spans of v to obj. */
void encode_verdict(json_t *obj, const struct verdict *v);
/*
 * The same JSON text, appended to b without building a tree: each value is
 * encoded by jansson exactly as inside json_dumps(obj, JSON_COMPACT), so a
 * line written from these equals the dump of the tree it stands for. Each
 * returns 0, or -1 when jansson could not allocate (b then holds a part).
 */
/* Appends j (any type) compact. */
int encode_append_json(struct buf *b, const json_t *j) AIRLOCK_MUST_CHECK;
/* Appends v as jansson writes an integer. Returns 0. */
int encode_append_integer(struct buf *b, json_int_t v) AIRLOCK_MUST_CHECK;
/* Appends p[0..n) as encode_bytes() makes it a string. */
int encode_append_bytes(struct buf *b, const char *p, size_t n) AIRLOCK_MUST_CHECK;
/* Appends s as encode_bytes() makes it a string; text that recurs (tier,
 * tool and rule names, most reasons) is encoded once and kept. */
int encode_append_string(struct buf *b, const char *name) AIRLOCK_MUST_CHECK;
/* Appends "tier":..,"rules":[..],"reasons":[..],"spans":[..]: the members
 * encode_verdict() adds, in its order. */
int encode_append_verdict(struct buf *b, const struct verdict *v) AIRLOCK_MUST_CHECK;
/* Returns a new reference: v with commands, paths and hosts too. */
json_t *encode_verdict_full(const struct verdict *v);
/* Returns a new JSON string from bytes that may not be UTF-8 (repaired). */
json_t *encode_bytes(const char *p, size_t n);
/* Returns a one-line summary of the call for lists; caller frees. Control
 * characters are escaped and the result is cut at max bytes (>= 16). */
char *encode_summary(const struct call *c, size_t max);
/* Returns a new one-line copy of s as buf_append_shown() writes it (control
 * bytes, newlines included, and invalid UTF-8 as \xNN; reordering and
 * invisible code points as \uNNNN), cut between characters at max bytes
 * with "..." (max 0 = no cut; else >= 16); for text from outside shown on a
 * terminal. Caller frees. */
char *encode_escape(const char *s, size_t max);

#endif
