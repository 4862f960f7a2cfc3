/*
 * apply.c: lands a complete file preview in the workdir.
 * Rules it keeps:
 *  - every path is opened beneath the workdir without following any
 *    symlink (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else an
 *    O_NOFOLLOW walk), and changed with *at() calls on its parent;
 *  - nothing is written unless every path still holds what the preview
 *    read; deletions go first (deepest first), then additions in order;
 *  - files are replaced atomically (a temp file beside, then renameat).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diff/diff_internal.h"

/* The O_NOFOLLOW walk for kernels without openat2 (< 5.6). */
static int walk_beneath(int rootfd, const char *path, int flags, mode_t mode)
{
	char *copy = xstrdup(path), *save = NULL, *comp, *next;
	int cur = dup(rootfd), fd = -1;

	for (comp = strtok_r(copy, "/", &save); cur >= 0 && comp; comp = next) {
		next = strtok_r(NULL, "/", &save);
		if (strcmp(comp, "..") == 0) {
			errno = EXDEV;
			goto out;
		}
		fd = openat(cur, comp, next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
		                            : flags | O_NOFOLLOW | O_CLOEXEC, mode);
		close(cur);
		cur = fd;
		fd = -1;
	}
	fd = cur, cur = -1;
out:
	if (cur >= 0)
		close(cur);
	free(copy);
	return fd;
}

int apply_open_beneath(int rootfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		return walk_beneath(rootfd, path, flags, mode);
	return (int)fd;
}

/* Opens the parent of rel beneath root; *base points into *copy. */
static int open_parent(int rootfd, const char *rel, char **copy, const char **base)
{
	char *c1 = xstrdup(rel);
	int fd;

	*copy = xstrdup(rel);
	*base = basename(*copy);
	fd = apply_open_beneath(rootfd, dirname(c1), O_PATH | O_DIRECTORY, 0);
	free(c1);
	return fd;
}

int apply_read_state(int rootfd, const char *rel, mode_t *mode, char **data, size_t *len,
                     char **errstr)
{
	const char *base;
	char *copy;
	int pfd = open_parent(rootfd, rel, &copy, &base), rc;

	*mode = 0, *data = NULL, *len = 0;
	if (pfd < 0) {
		rc = errno == ENOENT || errno == ENOTDIR ? 0 : -1; /* no parent dir: nothing there */
		if (rc < 0)
			*errstr = xasprintf("cannot open the directory of %s beneath the workdir: %s",
			                    rel, strerror(errno));
	} else {
		rc = filediff_state(pfd, base, mode, data, len, errstr);
		close(pfd);
	}
	free(copy);
	return rc;
}

bool apply_unchanged(int rootfd, const struct diff_entry *e)
{
	char *data = NULL, *err = NULL;
	mode_t mode = 0;
	size_t len = 0;
	bool same = apply_read_state(rootfd, e->path, &mode, &data, &len, &err) == 0 &&
	            mode == e->old_mode && len == e->old_len &&
	            (len == 0 || memcmp(data, e->old_data, len) == 0);

	free(data);
	free(err);
	return same;
}

/* True when rel's parent is a directory now, reached without a link, or
 * one the preview makes (a new directory, or one replacing a file:
 * entries are in walk order, so it comes before its contents; *made
 * keeps the last one found, for the many files a new directory holds).
 * An absent path under a directory removed since the preview read as
 * absent, and the apply stopped there with the changes before it made. */
static bool parent_ready(int rootfd, const struct diff *d, size_t i, const char **made)
{
	const char *rel = d->entries[i].path, *slash = strrchr(rel, '/'), *base;
	size_t n = slash ? (size_t)(slash - rel) : 0;
	char *copy;
	int fd;

	if (slash == NULL)
		return true; /* the workdir itself */
	if (*made && strlen(*made) == n && strncmp(*made, rel, n) == 0)
		return true;
	fd = open_parent(rootfd, rel, &copy, &base);
	free(copy);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	for (size_t k = i; k-- > 0;) {
		const struct diff_entry *p = &d->entries[k];
		if (p->op != DIFF_OP_DELETE && S_ISDIR(p->new_mode) && strlen(p->path) == n &&
		    strncmp(p->path, rel, n) == 0) {
			*made = p->path;
			return true;
		}
	}
	return false;
}

/* The check before anything is applied: the path holds what the preview
 * read, and a new one can be made where the preview made it. */
static bool still_applies(int rootfd, const struct diff *d, size_t i, const char **made)
{
	const struct diff_entry *e = &d->entries[i];

	if (e->replaces)
		return true; /* its DELETE twin is checked */
	if (!apply_unchanged(rootfd, e))
		return false;
	return e->old_mode != 0 || parent_ready(rootfd, d, i, made);
}

/* Writes data to a fresh temp file in pfd, then renames it over base
 * (replacing a link there, never writing through it); sync: fsync the
 * file first (a single write, not one of a preview's many). */
static int replace_data(int pfd, const char *base, const char *data, size_t len, mode_t mode,
                        bool sync)
{
	char tmp[64];
	int fd, rc = -1;

	snprintf(tmp, sizeof(tmp), ".airlock-%ld-%lld", (long)getpid(), clock_ns());
	if ((fd = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -1;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		off += (size_t)n;
	}
	if (fchmod(fd, mode & 07777) < 0 || (sync && fsync(fd) < 0))
		goto out;
	rc = renameat(pfd, tmp, pfd, base);
out:
	close(fd);
	if (rc < 0) {
		int saved = errno;
		unlinkat(pfd, tmp, 0);
		errno = saved;
	}
	return rc;
}

int diff_replace_at(int dirfd, const char *name, const char *data, size_t len, mode_t mode)
{
	return replace_data(dirfd, name, data, len, mode, true);
}

/* Writes e's new content over base in pfd (a temp file, then rename). */
static int replace_file(int pfd, const char *base, const struct diff_entry *e)
{
	char tmp[64];
	int rc = -1;

	if (!S_ISLNK(e->new_mode)) /* durability: one syncfs() after the whole preview */
		return replace_data(pfd, base, e->new_data, e->new_len, e->new_mode, false);
	snprintf(tmp, sizeof(tmp), ".airlock-%ld-%lld", (long)getpid(), clock_ns());
	rc = symlinkat(e->new_data, pfd, tmp) < 0 || renameat(pfd, tmp, pfd, base) < 0 ? -1 : 0;
	if (rc < 0) {
		int saved = errno;
		unlinkat(pfd, tmp, 0);
		errno = saved;
	}
	return rc;
}

/* A directory's new mode, through a descriptor opened without following. */
static int chmod_dir(int pfd, const char *base, mode_t mode)
{
	int fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fchmod(fd, mode);
	close(fd);
	return rc;
}

/*
 * The passes of an apply. Directory modes are set around the changes, not
 * in walk order: a dry run that wrote into a directory and then made it
 * read-only ('chmod 555 d'), or made a read-only one writable to change
 * it, must not leave the apply half done. So modified directories first
 * get the union of their old and new permissions (each a state shown),
 * directories to delete get write and search for their owner, new ones
 * are made 0700; the changes run; then every directory gets the mode the
 * preview showed, deepest first.
 */
enum apply_step { STEP_WIDEN, STEP_CHANGE, STEP_MODE };

static const struct {
	enum apply_step step;
	bool reverse;  /* deepest first (entries are in walk order) */
	bool deletes;  /* the pass takes deletions, else the rest */
} passes[] = {
	{STEP_WIDEN, false, false}, {STEP_WIDEN, false, true},  {STEP_CHANGE, true, true},
	{STEP_CHANGE, false, false}, {STEP_MODE, true, false},
};

/* One entry's change (STEP_CHANGE) through its parent pfd. */
static int change_entry(int pfd, const char *base, const struct diff_entry *e, bool dir)
{
	if (e->op == DIFF_OP_DELETE)
		return unlinkat(pfd, base, dir ? AT_REMOVEDIR : 0);
	return dir ? mkdirat(pfd, base, 0700) : replace_file(pfd, base, e);
}

/* The change again, in a parent its owner had made read-only: the dry run
 * could only have made it while the directory was writable, then left it
 * with its old mode (or it would be an entry, widened by STEP_WIDEN). The
 * parent gets write and search for its owner meanwhile, then its mode back. */
static int change_in_readonly(int pfd, const char *base, const struct diff_entry *e, bool dir)
{
	int fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1, saved;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    fchmod(fd, (st.st_mode | 0300) & 07777) < 0) {
		if (fd >= 0)
			close(fd);
		errno = EACCES;
		return -1;
	}
	rc = change_entry(pfd, base, e, dir);
	saved = errno;
	if (fchmod(fd, st.st_mode & 07777) < 0 && rc == 0)
		rc = -1, saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Performs one entry's part of a pass through its parent directory; 1 when
 * it changed the entry, 0 when the pass had nothing to do, -1. Only a dry
 * run (shell) is followed into a read-only parent: a file tool's write
 * there fails as its executor's would. */
static int apply_entry(int rootfd, const struct diff_entry *e, enum apply_step step, bool shell)
{
	bool dir = S_ISDIR(e->op == DIFF_OP_DELETE ? e->old_mode : e->new_mode);
	bool moddir = dir && e->op == DIFF_OP_MODIFY;
	const char *base;
	char *copy = NULL;
	int pfd = -1, rc = 0;

	if ((step == STEP_WIDEN && !(moddir || (dir && e->op == DIFF_OP_DELETE))) ||
	    (step == STEP_CHANGE && moddir) || (step == STEP_MODE && !dir))
		return 0;
	if ((pfd = open_parent(rootfd, e->path, &copy, &base)) < 0)
		rc = -1;
	else if (step == STEP_WIDEN)
		rc = chmod_dir(pfd, base, (e->old_mode | (moddir ? e->new_mode : 0700)) & 07777);
	else if (step == STEP_MODE)
		rc = chmod_dir(pfd, base, e->new_mode & 07777); /* the mode shown, not umask's */
	else if ((rc = change_entry(pfd, base, e, dir)) < 0 && errno == EACCES && shell)
		rc = change_in_readonly(pfd, base, e, dir);
	if (pfd >= 0)
		close(pfd);
	free(copy);
	return rc < 0 ? -1 : step == STEP_CHANGE;
}

static int apply_all(struct diff *d, int root, char **errstr)
{
	size_t done = 0, i = 0;
	int rc;

	for (size_t p = 0; p < nitems(passes); p++)
		for (size_t k = 0; k < d->n; k++) {
			i = passes[p].reverse ? d->n - 1 - k : k;
			if ((d->entries[i].op == DIFF_OP_DELETE) != passes[p].deletes)
				continue;
			rc = apply_entry(root, &d->entries[i], passes[p].step, d->tool == TOOL_SHELL);
			if (rc < 0)
				goto fail;
			done += (size_t)rc;
		}
	return 0;
fail:
	*errstr = xasprintf("cannot apply the preview at %s: %s (%zu of %zu changes were "
	                    "applied before this one)", d->entries[i].path, strerror(errno), done,
	                    d->n);
	return -1;
}

/* syncfs() wants a real descriptor, not an O_PATH one. */
static int flush(int root)
{
	int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = syncfs(fd);
	close(fd);
	return rc;
}

int apply_files(struct diff *d, struct outcome *o, char **errstr)
{
	int root = open(d->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = -1;
	const char *made = NULL;

	if (root < 0) {
		*errstr = xasprintf("cannot open the workdir %s: %s", d->workdir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < d->n; i++)
		if (!still_applies(root, d, i, &made)) {
			*errstr = xasprintf("the workdir changed since the preview: %s is not what the "
			                    "preview read; nothing was applied (preview again)",
			                    d->entries[i].path);
			goto out;
		}
	if (apply_all(d, root, errstr) < 0)
		goto out;
	if (flush(root) < 0) {
		*errstr = xasprintf("the preview was applied but cannot be flushed to disk: %s",
		                    strerror(errno));
		goto out;
	}
	o->ran = true;
	o->exit_code = d->tool == TOOL_SHELL ? d->exit_code : 0;
	if (d->tool == TOOL_SHELL) {
		o->out = d->out, o->outlen = d->outlen;
		o->err = d->err, o->errlen = d->errlen;
		d->out = d->err = NULL;
	} else if (d->n == 1) {
		o->out = xasprintf("wrote %zu bytes to %s\n", d->entries[0].new_len,
		                   d->entries[0].path);
		o->outlen = strlen(o->out);
	}
	rc = 0;
out:
	close(root);
	return rc;
}

int diff_open_dir(const char *workdir, const char *abs, bool beneath, const char *expect,
                  char **errstr)
{
	char *copy = xstrdup(abs), *real = realpath(dirname(copy), NULL);
	const char *rel = NULL;
	size_t n = strlen(workdir);
	int root = -1, fd = -1;

	if (real == NULL) {
		*errstr = xasprintf("cannot open the directory of %s: %s", abs, strerror(errno));
		goto out;
	}
	if (expect && strcmp(real, expect) != 0) {
		*errstr = xasprintf("the directory of %s now leads to %s, not %s as previewed; "
		                    "nothing was written", abs, real, expect);
		goto out;
	}
	if (strcmp(real, workdir) == 0)
		rel = ".";
	else if (strncmp(real, workdir, n) == 0 && real[n] == '/')
		rel = real + n + 1;
	else if (beneath) {
		*errstr = xasprintf("%s is outside the workdir; an auto-run write may only land "
		                    "inside it", abs);
		goto out;
	}
	/* outside (approved by a person who saw the path): from / by the
	 * resolved path, still without following a link swapped in since */
	root = open(rel ? workdir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rel == NULL)
		rel = real[1] ? real + 1 : ".";
	if (root < 0 || (fd = apply_open_beneath(root, rel, O_PATH | O_DIRECTORY, 0)) < 0)
		*errstr = xasprintf("cannot open the directory %s without following a symlink "
		                    "(changed since it was checked?): %s; nothing was written", real,
		                    strerror(errno));
out:
	if (root >= 0)
		close(root);
	free(real);
	free(copy);
	return fd;
}

/* True when dirfd/name holds what the preview read: the file (or its
 * size and mtime when unread), or the link and, through it, the file. */
static bool same_at(const struct diff *d, const struct diff_entry *e, int dirfd,
                    const char *name)
{
	char *data = NULL, *err = NULL;
	mode_t mode = 0, want = d->link_data ? d->link_mode : e->old_mode;
	size_t len = 0;
	struct stat st;
	bool same;

	if (e->unread)
		return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		       (st.st_mode & (S_IFMT | 07777)) == e->old_mode &&
		       (size_t)st.st_size == e->old_len && st.st_mtim.tv_sec == e->old_mtime.tv_sec &&
		       st.st_mtim.tv_nsec == e->old_mtime.tv_nsec;
	same = filediff_state(dirfd, name, &mode, &data, &len, &err) == 0 && mode == want &&
	       (d->link_data ? len == d->link_len && memcmp(data, d->link_data, len) == 0
	                     : len == e->old_len && (len == 0 || memcmp(data, e->old_data, len) == 0));
	free(data);
	free(err);
	if (!same || d->link_data == NULL)
		return same;
	/* through the link, as the preview read it: only read, the write
	 * replaces the link (what the preview said) */
	data = NULL, len = 0;
	same = filediff_read(dirfd, name, true, DIFF_FILE_CAP, &data, &len, &err) > 0 &&
	       len == e->old_len && (len == 0 || memcmp(data, e->old_data, len) == 0);
	free(data);
	free(err);
	return same;
}

void (*diff_run_hook)(void);

int diff_run_file(const struct diff *d, struct outcome *o, char **errstr)
{
	const struct diff_entry *e = d->n == 1 ? &d->entries[0] : NULL;
	char *copy = NULL;
	int pfd = -1, rc = -1;

	if (d->tool != TOOL_WRITE_FILE && d->tool != TOOL_EDIT_FILE)
		return 0;
	if (e == NULL || d->read_path == NULL || d->error || e->new_data == NULL) {
		*errstr = xasprintf("the preview of %s holds nothing to write; nothing was run",
		                    d->title ? d->title : "the call");
		return -1;
	}
	if (filediff_unchanged(d, errstr) < 0)
		return -1;
	if (diff_run_hook)
		diff_run_hook();
	copy = xstrdup(d->read_path);
	if ((pfd = diff_open_dir(d->workdir, d->read_path, false, d->read_real[0], errstr)) < 0)
		goto out;
	if (!same_at(d, e, pfd, basename(copy))) {
		char *p = diff_shown(e->path);
		*errstr = xasprintf("the file changed since the preview: %s is not what the preview "
		                    "read; nothing was run (preview again)", p);
		free(p);
		goto out;
	}
	if (diff_replace_at(pfd, basename(copy), e->new_data, e->new_len, e->new_mode & 0777) < 0) {
		*errstr = xasprintf("cannot replace %s: %s", d->read_path, strerror(errno));
		goto out;
	}
	o->ran = true;
	o->exit_code = 0;
	o->out = xasprintf("wrote %zu bytes to %s\n", e->new_len, e->path);
	o->outlen = strlen(o->out);
	rc = 1;
out:
	if (pfd >= 0)
		close(pfd);
	free(copy);
	return rc;
}
