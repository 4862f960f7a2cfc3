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
 * It also lists the entries git status passes by (assume-unchanged,
 * skip-worktree, or stat data that vouches for a file the run changed),
 * and clears those marks or smudges those entries where the guard asks:
 * the one write, an index file replaced whole by a rename, its trailer
 * recomputed with the hash that made it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lazy.h"
#include "core/util.h"
#include "exec/exec_internal.h"

#define INDEX_MAX (1024L * 1024 * 1024) /* larger is not read */
#define MODE_GITLINK 0160000
#define ENTRY_FIXED 40 /* ctime, mtime, dev, ino, mode, uid, gid, size */
#define NAME_MASK 0x0fff /* the flags' name length; all ones: longer, up to its NUL */
#define CE_VALID 0x80      /* assume-unchanged, in the flags' first byte */
#define CE_EXTENDED 0x40   /* extended flags follow (v3 and later) */
#define CE_SKIP 0x40       /* skip-worktree, in the extended flags' first byte */

/* What one parse of an index gathers, and, with clear, changes. */
struct index_out {
	bool all;        /* every path to links, not only gitlinks */
	char **links;    /* gitlinks (every path, with all) */
	char **hidden;   /* entries marked assume-unchanged or skip-worktree ("" for
	                  * a split index's unnamed one); NULL when not asked */
	bool want_hidden;
	uint32_t since;        /* entries whose stat data says they changed at or
	                        * after it (seconds; 0: not asked) are fresh */
	size_t fresh;          /* how many, in every parse */
	unsigned char *clear;  /* the buffer itself, writable: marks cleared in it */
	char *const *keep;     /* sorted: marked entries whose marks stay */
	char shared[PATH_MAX]; /* a split index's shared file, "" when none */
	size_t link_at;        /* where in buf the shared file's hash lies */
	bool unnamed;          /* a gitlink with no name (split index) */
};

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

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An entry (at e, mode its mode) whose stat data says its file changed at
 * or after o->since: counted, and smudged in o->clear as git smudges a
 * racily clean entry (its size 0), so that git status compares its
 * content again. git trusts an entry whose stat data matches the file's
 * and reads no content: a run that edited the Makefile and wrote the
 * index with the file's new stat data beside the old blob left git
 * status and git diff silent. The run cannot set a file's change time,
 * so such an entry names one in its span; git compares seconds. */
static void entry_fresh(struct index_out *o, const unsigned char *buf, const unsigned char *e,
                        uint32_t mode)
{
	if (o->since == 0 || be32(e) < o->since || (mode & 0170000) == MODE_GITLINK)
		return;
	o->fresh++;
	if (o->clear)
		memset(o->clear + (e - buf) + 36, 0, 4);
}

/* The marks git status passes an entry by (assume-unchanged, skip-worktree)
 * at its flags f: noted in o, and cleared in o->clear (at the same offset)
 * unless o->keep holds the name. */
static void entry_marks(struct index_out *o, const unsigned char *buf, const unsigned char *f,
                        bool extended, const char *name)
{
	const char *key = name;
	unsigned char *w;

	if (!(f[0] & CE_VALID) && !(extended && (f[2] & CE_SKIP)))
		return;
	if (o->want_hidden)
		strv_push(&o->hidden, name);
	if (o->clear == NULL ||
	    (o->keep && bsearch(&key, o->keep, strv_len(o->keep), sizeof(*o->keep), name_cmp)))
		return;
	w = o->clear + (f - buf);
	w[0] &= (unsigned char)~CE_VALID;
	if (extended)
		w[2] &= (unsigned char)~CE_SKIP;
}

/* The entries of the index in buf (len) with hashes of hsz bytes, into o:
 * each gitlink's path (each entry's, with o->all), its marked entries, the
 * shared index's name (a split index's "link" extension) when there is
 * one, and o->unnamed set when a gitlink has no name (it takes the name
 * of a shared entry it replaces). -1 when the file does not parse with
 * that hash size. */
static int index_parse(const unsigned char *buf, size_t len, size_t hsz, struct index_out *o)
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
		const unsigned char *e = p, *nul, *f;
		size_t fixed = ENTRY_FIXED + hsz + 2, strip = 0, sl, flen;
		uint32_t mode;
		bool extended;

		if ((size_t)(end - p) < fixed)
			return -1;
		mode = be32(p + 24);
		f = p + ENTRY_FIXED + hsz;
		flen = ((size_t)f[0] << 8 | f[1]) & NAME_MASK;
		extended = version >= 3 && (f[0] & CE_EXTENDED);
		if (extended)
			fixed += 2;
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
		entry_marks(o, buf, f, extended, name);
		entry_fresh(o, buf, e, mode);
		if (have == 0 && (mode & 0170000) == MODE_GITLINK)
			o->unnamed = true;
		else if (have && (o->all || (mode & 0170000) == MODE_GITLINK))
			strv_push(&o->links, name);
		if (version < 4 && (mode & 0170000) == MODE_GITLINK && nul && !o->all)
			name_variants(e + fixed, flen, nul, &o->links);
	}
	/* extensions, as git reads them: while 8 bytes are left before the
	 * checksum, and one that runs past it ends the list */
	while ((size_t)(end - p) >= 8) {
		uint32_t sz = be32(p + 4);
		if ((size_t)(end - p) - 8 < sz)
			break;
		if (memcmp(p, "link", 4) == 0 && sz >= hsz) {
			int off = snprintf(o->shared, PATH_MAX, "sharedindex.");
			o->link_at = (size_t)(p + 8 - buf);
			for (size_t i = 0; i < hsz && off < PATH_MAX - 2; i++)
				off += snprintf(o->shared + off, PATH_MAX - (size_t)off, "%02x", p[8 + i]);
		}
		p += 8 + sz;
	}
	return 0;
}

/* index_parse() with each hash size (SHA-1, SHA-256): the gitlinks and
 * marked entries of every one that parses, into o, and the first one's
 * shared index. Both, not the first: git reads the index with the
 * repository's hash, and one crafted to parse both ways must not hide
 * what the other way finds. */
static int index_parse_any(const unsigned char *buf, size_t len, struct index_out *o)
{
	int rc = -1;

	o->shared[0] = '\0';
	o->unnamed = false;
	for (size_t hsz = 20; hsz <= 32; hsz += 12) {
		struct index_out one = {.all = o->all, .want_hidden = o->want_hidden,
		                        .since = o->since};
		if (index_parse(buf, len, hsz, &one) == 0) {
			for (size_t i = 0; one.links && one.links[i]; i++)
				strv_push(&o->links, one.links[i]); /* a path twice costs a stat */
			for (size_t i = 0; one.hidden && one.hidden[i]; i++)
				strv_push(&o->hidden, one.hidden[i]);
			if (rc < 0)
				memcpy(o->shared, one.shared, sizeof(o->shared));
			o->unnamed |= one.unnamed;
			o->fresh += one.fresh;
			rc = 0;
		}
		strv_free(one.links);
		strv_free(one.hidden);
	}
	return rc;
}

int gitindex_parse(const unsigned char *buf, size_t len, char ***links)
{
	struct index_out o = {.links = *links};
	int rc = index_parse_any(buf, len, &o);

	*links = o.links;
	return rc;
}

/* The index file path, read whole into a new buffer (*buf, caller frees;
 * its mode in *mode): its length, or -1 when it cannot be read or is no
 * regular file of 12 bytes to INDEX_MAX. */
static ssize_t index_file_load(const char *path, unsigned char **buf, mode_t *mode)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t len = -1;

	*buf = NULL;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    st.st_size > INDEX_MAX)
		goto out;
	/* read, never mapped: a file another sandbox truncates in place while
	 * it is read would end this process with SIGBUS */
	*buf = xmalloc((size_t)st.st_size);
	if (fd_read_all(fd, *buf, (size_t)st.st_size) < 0) {
		free(*buf);
		*buf = NULL;
		goto out;
	}
	*mode = st.st_mode & 07777;
	len = (ssize_t)st.st_size;
out:
	if (fd >= 0)
		close(fd);
	return len;
}

/* index_parse_any() over the index file path. -1 when it cannot be read
 * or parsed. */
static int index_file_read(const char *path, struct index_out *o)
{
	unsigned char *buf;
	mode_t mode;
	ssize_t len = index_file_load(path, &buf, &mode);
	int rc = len < 0 ? -1 : index_parse_any(buf, (size_t)len, o);

	free(buf);
	return rc;
}

int gitindex_read(const char *gitdir, char ***links, char ***hidden, time_t since,
                  size_t *fresh)
{
	struct index_out o = {.links = *links, .want_hidden = hidden != NULL,
	                      .since = (uint32_t)since};
	char *path = xasprintf("%s/index", gitdir);
	int rc = index_file_read(path, &o);

	free(path);
	if (rc == 0 && o.shared[0]) { /* a split index: the rest of it, each path
	                               * when one of its entries became a gitlink */
		struct index_out s = {.all = o.unnamed, .links = o.links, .hidden = o.hidden,
		                      .want_hidden = o.want_hidden, .since = o.since};
		path = xasprintf("%s/%s", gitdir, o.shared);
		rc = index_file_read(path, &s);
		o.links = s.links;
		o.hidden = s.hidden;
		o.fresh += s.fresh;
		free(path);
	}
	*links = o.links;
	if (fresh)
		*fresh = o.fresh;
	if (hidden)
		*hidden = o.hidden;
	else
		strv_free(o.hidden);
	return rc;
}

int gitindex_gitlinks(const char *gitdir, char ***links)
{
	return gitindex_read(gitdir, links, NULL, 0, NULL);
}

/* The hash of buf (len) with the hash whose size is hsz, into out: false
 * when libcrypto cannot be had. */
static bool index_digest(const unsigned char *buf, size_t len, size_t hsz, unsigned char *out)
{
	const struct lazy_crypto *c = lazy_crypto(NULL);
	EVP_MD_CTX *ctx = c ? c->EVP_MD_CTX_new() : NULL;
	bool ok = ctx && c->EVP_DigestInit_ex(ctx, hsz == 20 ? c->EVP_sha1() : c->EVP_sha256(),
	                                      NULL) == 1 &&
	          c->EVP_DigestUpdate(ctx, buf, len) == 1 &&
	          c->EVP_DigestFinal_ex(ctx, out, NULL) == 1;

	if (ctx)
		c->EVP_MD_CTX_free(ctx);
	return ok;
}

/* The hash size that made buf's trailer (len bytes in all), with *zero
 * set when the trailer is all zeros (index.skipHash); 0 when neither
 * hash made it, or libcrypto is missing. */
static size_t index_hash_size(const unsigned char *buf, size_t len, bool *zero)
{
	static const unsigned char zeros[32];
	unsigned char d[EVP_MAX_MD_SIZE];
	struct index_out o = {0};

	for (size_t hsz = 20; hsz <= 32; hsz += 12) {
		if (len < 12 + hsz)
			continue;
		*zero = memcmp(buf + len - hsz, zeros, hsz) == 0;
		if (*zero ? index_parse(buf, len, hsz, &o) == 0
		          : index_digest(buf, len - hsz, hsz, d) && memcmp(d, buf + len - hsz, hsz) == 0) {
			strv_free(o.links);
			return hsz;
		}
		strv_free(o.links);
		o.links = NULL;
	}
	return 0;
}

/* Writes buf (len) as gitdir's file name, by a new file and a rename. */
static int index_replace(const char *gitdir, const char *name, const unsigned char *buf,
                         size_t len, mode_t mode)
{
	int dfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1, rc = -1;
	static const char tmp[] = "index.airlock";

	if (dfd < 0)
		return -1;
	(void)unlinkat(dfd, tmp, 0); /* one left by a killed sweep, or planted */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		goto out;
	if (fd_write_all(fd, buf, len) < 0 || close(fd) < 0) {
		fd = -1;
		(void)unlinkat(dfd, tmp, 0);
		goto out;
	}
	fd = -1;
	rc = renameat(dfd, tmp, dfd, name);
	if (rc < 0)
		(void)unlinkat(dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	return rc;
}

/* The index file gitdir/name, read into *buf (caller frees; its mode in
 * *mode), its marks cleared in it but on what keep names, each cleared
 * pushed to *cleared; its hash size in *hsz, *zero set for
 * index.skipHash's zero trailer, o filled. Its length, or -1 when it
 * cannot be read, or parsed, or its trailer matches no hash. */
static ssize_t index_clear(const char *gitdir, const char *name, char *const *keep,
                           time_t since, unsigned char **buf, mode_t *mode, size_t *hsz,
                           bool *zero, struct index_out *o, char ***cleared)
{
	char *path = xasprintf("%s/%s", gitdir, name);
	ssize_t len = index_file_load(path, buf, mode);

	free(path);
	*o = (struct index_out){.want_hidden = true, .keep = keep, .since = (uint32_t)since};
	if (len < 0 || (*hsz = index_hash_size(*buf, (size_t)len, zero)) == 0)
		return -1;
	o->clear = *buf;
	if (index_parse(*buf, (size_t)len, *hsz, o) < 0)
		return -1;
	for (size_t i = 0; o->hidden && o->hidden[i]; i++) {
		const char *key = o->hidden[i];
		if (!keep || !bsearch(&key, keep, strv_len(keep), sizeof(*keep), name_cmp))
			strv_push(cleared, key);
	}
	return len;
}

/* Clears the marks of a split index's shared part (o->shared) into a new
 * shared file named by its new hash, and points the main image main (o:
 * its parse, hsz its hash size) at it: true when it did, or had none to
 * clear. */
static bool shared_unhide(const char *gitdir, char *const *keep, time_t since,
                          unsigned char *main, const struct index_out *o, size_t hsz,
                          char ***cleared, size_t *fresh)
{
	struct index_out so;
	unsigned char *buf = NULL;
	char name[PATH_MAX];
	size_t shsz = 0, n = strv_len(*cleared);
	mode_t mode;
	bool zero = false, ok;
	ssize_t len =
	        index_clear(gitdir, o->shared, keep, since, &buf, &mode, &shsz, &zero, &so, cleared);

	*fresh += so.fresh;
	ok = len >= 0 && strv_len(*cleared) == n && so.fresh == 0;
	if (len >= 0 && !ok && !zero && shsz == hsz &&
	    index_digest(buf, (size_t)len - hsz, hsz, buf + len - hsz)) {
		int off = snprintf(name, sizeof(name), "sharedindex.");
		for (size_t i = 0; i < hsz; i++)
			off += snprintf(name + off, sizeof(name) - (size_t)off, "%02x",
			                buf[(size_t)len - hsz + i]);
		ok = index_replace(gitdir, name, buf, (size_t)len, mode) == 0;
		if (ok)
			memcpy(main + o->link_at, buf + len - hsz, hsz);
	}
	strv_free(so.links);
	strv_free(so.hidden);
	free(buf);
	return ok;
}

/* git's lock on gitdir's index (dfd), taken as git takes it: a new
 * index.lock, whose rename over the index is the write. One there already
 * is another git's, and its write would race this one, unless it changed
 * in the run's span (since, seconds): a run that left one would keep its
 * index as it wrote it. An open descriptor, or -1. */
static int index_lock(int dfd, time_t since)
{
	struct stat st;
	int fd = openat(dfd, "index.lock", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                0666);

	if (fd < 0 && errno == EEXIST && since &&
	    fstatat(dfd, "index.lock", &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ctime >= since &&
	    unlinkat(dfd, "index.lock", 0) == 0)
		fd = openat(dfd, "index.lock", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            0666);
	return fd;
}

int gitindex_unhide(const char *gitdir, char *const *keep, time_t since, char ***cleared)
{
	struct index_out o = {0};
	unsigned char *buf = NULL;
	size_t hsz = 0, fresh = 0;
	mode_t mode;
	bool zero = false, held = false;
	int dfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), lock = -1, rc = -1;
	ssize_t len;

	*cleared = NULL;
	if (dfd < 0 || (lock = index_lock(dfd, since)) < 0)
		goto out;
	held = true; /* from here on the lock is ours to remove or rename */
	len = index_clear(gitdir, "index", keep, since, &buf, &mode, &hsz, &zero, &o, cleared);
	fresh = o.fresh;
	if (len < 0 ||
	    (o.shared[0] && !shared_unhide(gitdir, keep, since, buf, &o, hsz, cleared, &fresh)))
		goto out;
	if (*cleared || fresh) {
		if ((!zero && !index_digest(buf, (size_t)len - hsz, hsz, buf + len - hsz)) ||
		    fchmod(lock, mode) < 0 || fd_write_all(lock, buf, (size_t)len) < 0)
			goto out;
		rc = close(lock);
		lock = -1;
		if (rc < 0 || renameat(dfd, "index.lock", dfd, "index") < 0) {
			rc = -1;
			goto out;
		}
		held = false; /* renamed: it is the index now */
	}
	rc = 0;
out:
	if (lock >= 0)
		close(lock);
	if (held)
		(void)unlinkat(dfd, "index.lock", 0);
	if (dfd >= 0)
		close(dfd);
	strv_free(o.links);
	strv_free(o.hidden);
	free(buf);
	return rc;
}
