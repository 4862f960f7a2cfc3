/*
 * kept.c: what one process learned, kept in the state directory for the
 * next (the secret files search's tree, the global git config's
 * references). Rules: a kept file is written whole or not at all (a
 * private temporary renamed over it); it is read only when it is a
 * regular file, the user's own and private, and within a bound; a reader
 * that meets anything amiss marks itself bad and reads nothing more, so a
 * damaged or forged file can only cost a fresh read, never add trust.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/kept.h"
#include "core/util.h"

void kept_str(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s) + 1);
}

void kept_list(struct buf *b, char *const *v)
{
	uint32_t n = (uint32_t)strv_len(v);

	buf_append(b, &n, sizeof(n));
	for (uint32_t i = 0; i < n; i++)
		kept_str(b, v[i]);
}

/* The stamp's fields, in the order kept_stamp() writes them. */
static void stamp_of(const char *path, int64_t f[7])
{
	struct stat st;

	memset(f, 0, 7 * sizeof(*f));
	if (stat(path, &st) < 0)
		return;
	f[0] = (int64_t)st.st_dev;
	f[1] = (int64_t)st.st_ino;
	f[2] = (int64_t)st.st_size;
	f[3] = (int64_t)st.st_ctim.tv_sec;
	f[4] = (int64_t)st.st_ctim.tv_nsec;
	f[5] = (int64_t)st.st_mtim.tv_sec;
	f[6] = (int64_t)st.st_mtim.tv_nsec;
}

void kept_stamp(struct buf *b, const char *path)
{
	int64_t f[7];

	stamp_of(path, f);
	kept_str(b, path);
	buf_append(b, f, sizeof(f));
}

bool kept_rd_stamp_same(struct kept_rd *r)
{
	const char *path = kept_rd_str(r);
	int64_t was[7], now[7];

	kept_rd_bytes(r, was, sizeof(was));
	if (r->bad || path[0] != '/')
		return false;
	stamp_of(path, now);
	return now[1] != 0 && memcmp(was, now, sizeof(now)) == 0;
}

#define KEPT_DAYS 30 /* a kept file unused this long goes (its workdir may be gone) */

/* Removes the kept files beside path not written for KEPT_DAYS: done when a
 * workdir's first file is written, so rarely. */
static void kept_prune(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	time_t old = time(NULL) - KEPT_DAYS * 86400;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (slash == NULL) {
		free(dir);
		return;
	}
	*slash = '\0';
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' &&
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode) && st.st_mtime < old)
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	free(dir);
}

/*
 * Every kept file starts with the stamp of the airlock binary that wrote
 * it (/proc/self/exe's, as kept_stamp() takes it), and only that binary
 * takes it. What is kept is what this airlock's code made of the
 * files it read (the guard's includes, the search's secret names), and
 * an upgrade that reads them otherwise must read them again, not rely on
 * each format's version being raised by hand. Without /proc nothing is
 * kept: every process reads afresh.
 */
static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static int64_t self_stamp[7];
static bool self_known;

static void self_read(void)
{
	stamp_of("/proc/self/exe", self_stamp); /* the running image, not a binary replaced since */
	self_known = self_stamp[1] != 0;
}

static bool self_get(void)
{
	pthread_once(&self_once, self_read);
	return self_known;
}

int kept_write(const char *path, const struct buf *b)
{
	static unsigned seq; /* two threads of one process may write one path */
	char *tmp = xasprintf("%s.%ld.%u", path, (long)getpid(),
	                      __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	int fd = -1, rc = -1;

	if (access(path, F_OK) != 0)
		kept_prune(path);
	if (!b->truncated && self_get() &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0 &&
	    fd_write_all(fd, self_stamp, sizeof(self_stamp)) == 0 &&
	    fd_write_all(fd, b->data, b->len) == 0 && close(fd) == 0 && (fd = -1, rename(tmp, path) == 0))
		rc = 0;
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

char *kept_read(const char *path, size_t max, size_t *len)
{
	/* O_NONBLOCK: a FIFO left at the path must not hang the call */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *data = NULL;
	struct stat st;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (self_get() && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 077) == 0 && (uint64_t)st.st_size > sizeof(self_stamp) &&
	    (uint64_t)st.st_size - sizeof(self_stamp) <= max) {
		size_t n = (size_t)st.st_size - sizeof(self_stamp);
		data = xmalloc((size_t)st.st_size);
		if (fd_read_all(fd, data, (size_t)st.st_size) == 0 &&
		    memcmp(data, self_stamp, sizeof(self_stamp)) == 0) {
			memmove(data, data + sizeof(self_stamp), n);
			*len = n;
		} else {
			free(data);
			data = NULL;
		}
	}
	close(fd);
	return data;
}

const char *kept_rd_str(struct kept_rd *r)
{
	const char *s = r->p, *nul = r->bad ? NULL : memchr(r->p, '\0', (size_t)(r->end - r->p));

	if (nul == NULL) {
		r->bad = true;
		return "";
	}
	r->p = nul + 1;
	return s;
}

void kept_rd_bytes(struct kept_rd *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n;
}

/* True when s may stand in a list of the kind k. */
static bool kind_ok(enum kept_kind k, const char *s)
{
	switch (k) {
	case KEPT_NAMES: /* one directory entry's name */
		return s[0] != '\0' && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
	case KEPT_PATHS:
		return s[0] == '/';
	case KEPT_ANY:
		return true;
	}
	return false;
}

char **kept_rd_list(struct kept_rd *r, enum kept_kind k)
{
	uint32_t n = 0;
	char **v = NULL;

	kept_rd_bytes(r, &n, sizeof(n));
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		const char *s = kept_rd_str(r);
		if (kind_ok(k, s))
			strv_push(&v, s);
		else
			r->bad = true;
	}
	return v;
}
