/*
 * kept.h: what one process learned, kept in the state directory for the
 * next (kept.c).
 */
#ifndef AIRLOCK_KEPT_H
#define AIRLOCK_KEPT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
/* Appends s with its NUL; a list as a 32-bit count and its strings. */
void kept_str(struct buf *b, const char *s);
void kept_list(struct buf *b, char *const *v);
/* Appends path and its stamp: device, inode, size, and the change and
 * modify times to the nanosecond (zeros when it cannot be stat'ed). A
 * package upgrade replaces a file, and with it the inode and the change
 * time. */
void kept_stamp(struct buf *b, const char *path);
/* Writes b to path whole (a private temporary renamed over it), after the
 * stamp of the running airlock binary; -1 when it could not be, or b was
 * truncated (then nothing changed). The first file written in a directory
 * removes those beside it not written for 30 days (their workdirs may be
 * gone). */
int kept_write(const char *path, const struct buf *b);
/* The bytes kept_write() wrote at path (a new buffer, their count in
 * *len); NULL when it is absent, not a regular file, not the user's own
 * and private, empty, over max bytes, or written by another airlock
 * binary (an upgrade may read the files otherwise). */
char *kept_read(const char *path, size_t max, size_t *len);

/* A reader of a kept file's bytes [p, end); bad once anything is amiss,
 * and from then on it reads empty strings, zeros and empty lists. */
struct kept_rd {
	const char *p, *end;
	bool bad;
};
enum kept_kind {
	KEPT_ANY,   /* any string */
	KEPT_NAMES, /* directory entry names: no '/', not empty, "." or ".." */
	KEPT_PATHS, /* absolute paths */
};
const char *kept_rd_str(struct kept_rd *r);
void kept_rd_bytes(struct kept_rd *r, void *out, size_t n);
/* A list kept_list() wrote, each string of the kind k, else bad (a new
 * vector, what was read before then, for the caller to free). */
char **kept_rd_list(struct kept_rd *r, enum kept_kind k);
/* Reads what kept_stamp() wrote: true when the file at that path has the
 * same stamp now; false, and bad when the bytes are amiss, else. */
bool kept_rd_stamp_same(struct kept_rd *r);

#endif
