/*
 * gitindex.c: the gitlinks in a repository's index, read without git or
 * libgit2 (a one-shot `airlock exec` would pay ~15 ms to load it). The
 * host's `git status` enters each gitlink that holds a .git and runs its
 * config there, wherever it lies, and a writable workdir's run can write
 * the index (`git add -f node_modules/x`), so the guard (guard.c) checks
 * those as it checks the nested repositories its search finds. Rules:
 * read only, bounded by the file, every length checked before use; a
 * split index's shared part is read too; what cannot be parsed adds
 * nothing (the caller's search still stands).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

#define INDEX_MAX (1024L * 1024 * 1024) /* larger is not read */
#define MODE_GITLINK 0160000
#define ENTRY_FIXED 40 /* ctime, mtime, dev, ino, mode, uid, gid, size */
#define NAME_MASK 0x0fff /* the flags' name length; all ones: longer, up to its NUL */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* git's offset varint (varint.c); false past end. */
static bool varint_read(const unsigned char **p, const unsigned char *end, size_t *out)
{
	size_t v;
	unsigned char c;

	if (*p >= end)
		return false;
	c = *(*p)++;
	v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (SIZE_MAX >> 8))
			return false;
		c = *(*p)++;
		v = ((v + 1) << 7) | (c & 127);
	}
	*out = v;
	return true;
}

/* A v2/v3 gitlink's name whose flags say a length short of its NUL: git
 * takes the flags' length, but copies one byte more and reads up to a
 * NUL (2.39: "a/su" for flags 3 over "a/sub"), and another version may
 * read to the NUL; each reading that differs is pushed too, since the
 * guard must check the .git of whichever git enters. */
static void name_variants(const unsigned char *p, size_t flen, const unsigned char *nul,
                          char ***links)
{
	size_t full = (size_t)(nul - p);

	if (full > flen && flen + 1 < PATH_MAX) /* the byte more */
		strv_push_owned(links, xasprintf("%.*s", (int)(flen + 1), (const char *)p));
	if (full > flen + 1 && full < PATH_MAX) /* up to the NUL */
		strv_push_owned(links, xasprintf("%.*s", (int)full, (const char *)p));
}

/* The entries of the index in buf (len) with hashes of hsz bytes: each
 * gitlink's path (each entry's, with all) pushed to *links, the shared
 * index's name (a split index's "link" extension) into shared when there
 * is one, and *unnamed set when a gitlink has no name (it takes the name
 * of a shared entry it replaces). -1 when the file does not parse with
 * that hash size. */
static int index_parse(const unsigned char *buf, size_t len, size_t hsz, bool all,
                       char ***links, char shared[PATH_MAX], bool *unnamed)
{
	const unsigned char *p = buf + 12, *end = buf + len;
	char name[PATH_MAX] = "";
	uint32_t version, n;
	size_t have = 0;

	if (len < 12 + hsz || memcmp(buf, "DIRC", 4) != 0)
		return -1;
	version = be32(buf + 4);
	n = be32(buf + 8);
	end -= hsz; /* the trailing checksum */
	if (version < 2 || version > 4)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = p, *nul;
		size_t fixed = ENTRY_FIXED + hsz + 2, strip = 0, sl, flen;
		uint32_t mode;
		if ((size_t)(end - p) < fixed)
			return -1;
		mode = be32(p + 24);
		flen = ((size_t)p[ENTRY_FIXED + hsz] << 8 | p[ENTRY_FIXED + hsz + 1]) & NAME_MASK;
		if (version >= 3 && (p[ENTRY_FIXED + hsz] & 0x40))
			fixed += 2; /* extended flags */
		p += fixed;
		if (p > end || (version == 4 && !varint_read(&p, end, &strip)))
			return -1;
		nul = memchr(p, '\0', (size_t)(end - p));
		if (version < 4 && flen < NAME_MASK) { /* the name's length is the flags', as git reads it */
			if ((size_t)(end - p) < flen)
				return -1;
			sl = strnlen((const char *)p, flen);
		} else if (nul == NULL) {
			return -1;
		} else {
			sl = (size_t)(nul - p);
			flen = sl;
		}
		if (version < 4) {
			have = 0;
		} else if (strip > have) {
			return -1;
		} else {
			have -= strip;
		}
		if (have + sl >= PATH_MAX)
			return -1;
		memcpy(name + have, p, sl);
		have += sl;
		name[have] = '\0';
		/* v4: the name and its NUL; else padded with NULs to a multiple of 8 */
		p = version == 4 ? p + flen + 1 : e + (fixed + flen + 8) / 8 * 8;
		if (p > end)
			return -1;
		if (have == 0 && (mode & 0170000) == MODE_GITLINK)
			*unnamed = true;
		else if (have && (all || (mode & 0170000) == MODE_GITLINK))
			strv_push(links, name);
		if (version < 4 && (mode & 0170000) == MODE_GITLINK && nul && !all)
			name_variants(e + fixed, flen, nul, links);
	}
	/* extensions, as git reads them: while 8 bytes are left before the
	 * checksum, and one that runs past it ends the list */
	while ((size_t)(end - p) >= 8) {
		uint32_t sz = be32(p + 4);
		if ((size_t)(end - p) - 8 < sz)
			break;
		if (memcmp(p, "link", 4) == 0 && sz >= hsz) {
			int o = snprintf(shared, PATH_MAX, "sharedindex.");
			for (size_t i = 0; i < hsz && o < PATH_MAX - 2; i++)
				o += snprintf(shared + o, PATH_MAX - (size_t)o, "%02x", p[8 + i]);
		}
		p += 8 + sz;
	}
	return 0;
}

/* index_parse() with each hash size (SHA-1, SHA-256): the gitlinks of
 * every one that parses, pushed to *links, and the first one's shared
 * index. Both, not the first: git reads the index with the repository's
 * hash, and one crafted to parse both ways must not hide what the other
 * way finds. */
static int index_parse_any(const unsigned char *buf, size_t len, bool all, char ***links,
                           char shared[PATH_MAX], bool *unnamed)
{
	char other[PATH_MAX];
	bool un = false;
	int rc = -1;

	*unnamed = false;
	for (size_t hsz = 20; hsz <= 32; hsz += 12) {
		char **found = NULL;
		if (index_parse(buf, len, hsz, all, &found, rc < 0 ? shared : other, &un) == 0) {
			for (size_t i = 0; found && found[i]; i++)
				strv_push(links, found[i]); /* a path twice costs a stat */
			*unnamed |= un;
			rc = 0;
		}
		strv_free(found);
	}
	return rc;
}

int gitindex_parse(const unsigned char *buf, size_t len, char ***links)
{
	char shared[PATH_MAX];
	bool unnamed;

	return index_parse_any(buf, len, false, links, shared, &unnamed);
}

/* The gitlinks of the index file path (every path, with all), pushed to
 * *links; its shared index's name into shared ("" when none), *unnamed
 * as index_parse() sets it. -1 when it cannot be read or parsed. */
static int index_file_read(const char *path, bool all, char ***links, char shared[PATH_MAX],
                           bool *unnamed)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = -1;
	struct stat st;
	unsigned char *buf = NULL;

	shared[0] = '\0';
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    st.st_size > INDEX_MAX)
		goto out;
	/* read, never mapped: a file another sandbox truncates in place while
	 * it is read would end this process with SIGBUS */
	buf = xmalloc((size_t)st.st_size);
	if (fd_read_all(fd, buf, (size_t)st.st_size) < 0)
		goto out;
	rc = index_parse_any(buf, (size_t)st.st_size, all, links, shared, unnamed);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

int gitindex_gitlinks(const char *gitdir, char ***links)
{
	char shared[PATH_MAX], other[PATH_MAX], *path = xasprintf("%s/index", gitdir);
	bool unnamed, ignored;
	int rc = index_file_read(path, false, links, shared, &unnamed);

	free(path);
	if (rc == 0 && shared[0]) { /* a split index: the rest of it, each path
	                             * when one of its entries became a gitlink */
		path = xasprintf("%s/%s", gitdir, shared);
		rc = index_file_read(path, unnamed, links, other, &ignored);
		free(path);
	}
	return rc;
}
