/*
 * filediff.c: write_file and edit_file previews: the file as it is now
 * against the content the call would leave, diffed by libgit2 (no diff
 * algorithm of our own). Rules it keeps:
 *  - a path inside the workdir is read beneath it without following
 *    symlinks, so apply can check exactly what was read;
 *  - the edit rules are diff_apply_edits(), the executor's own;
 *  - every read and every patch is capped, and the cap is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lazy.h"
#include "diff/diff_internal.h"

#define PATCH_CAP (1u << 20) /* rendered hunks per file */
#define BINARY_SNIFF 8000    /* git's heuristic: a NUL in the first 8000 bytes */

int filediff_read(int dirfd, const char *path, bool follow, long long cap, char **data,
                  size_t *len, char **errstr)
{
	/* O_NONBLOCK: a FIFO (a link to one, or one swapped in after a stat)
	 * must not hang the preview, and so the gate, on open or read */
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
	char chunk[65536];
	struct stat st;
	struct buf b;
	ssize_t n = 0;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*errstr = fd < 0 ? xasprintf("cannot open %s: %s", path, strerror(errno))
		                 : xasprintf("%s is not a regular file", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf_init(&b, (size_t)cap + 1);
	while (!b.truncated && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		buf_append(&b, chunk, (size_t)n);
	}
	close(fd);
	if (n < 0 || b.len > (size_t)cap) {
		*errstr = n < 0 ? xasprintf("cannot read %s: %s", path, strerror(errno))
		                : xasprintf("%s is larger than %lld bytes; not previewed", path, cap);
		buf_free(&b);
		return -1;
	}
	*data = buf_take(&b, len);
	return 1;
}

/* Text with a few NULs in it: at most 1 in 20 of the sniffed bytes are
 * NULs or other control bytes than tab, newline and CR. Compressed or random
 * data has about 1 in 8, UTF-16 text 1 in 2, an ELF more. */
static bool mostly_text(const char *p, size_t n)
{
	size_t ctl = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		ctl += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
	}
	return ctl * 20 <= n;
}

/* git's rule (a NUL in the first 8,000 bytes), except for text with a few
 * NULs planted in it: "Binary files differ" hid every line of a .envrc or
 * a Makefile from the approver, and bash skips NULs in what it sources. */
static bool looks_binary(const char *p, size_t n)
{
	size_t sniff = n < BINARY_SNIFF ? n : BINARY_SNIFF;

	return p && memchr(p, '\0', sniff) != NULL && !mostly_text(p, sniff);
}

/* True when one side would run as a script: it starts with #!, or it is
 * executable and no ELF (execve() refuses it, and the shell that asked
 * runs it itself). dash and bash skip NUL bytes past a script's first
 * line, so "Binary files differ" would hide lines that run: such a file
 * is diffed as text, its NULs shown escaped like every control byte. */
static bool runs_as_script(const char *p, size_t n, mode_t mode)
{
	if (p == NULL)
		return false;
	if (n >= 2 && p[0] == '#' && p[1] == '!')
		return true;
	return S_ISREG(mode) && (mode & 0111) && !(n >= 4 && memcmp(p, "\177ELF", 4) == 0);
}

struct patch_out {
	struct buf b;
};

/* Control bytes, invalid UTF-8 and characters that reorder or hide text
 * (C1, bidi embeddings, overrides and isolates: "Trojan Source", a line
 * that reads as a comment but is code; zero-width ones; the variation
 * selectors but an emoji's one U+FE0F) are shown escaped (core's
 * buf_append_shown); tabs stay, and a line's final newline when
 * keep_newline says so. */
void diff_escape(struct buf *b, const char *p, size_t n, bool keep_newline)
{
	bool nl = keep_newline && n > 0 && p[n - 1] == '\n';

	buf_append_shown(b, p, n - nl, SHOWN_TAB);
	if (nl)
		buf_append(b, "\n", 1);
}

char *diff_shown(const char *s)
{
	struct buf b;

	buf_init(&b, 0);
	diff_escape(&b, s, strlen(s), false);
	return buf_take(&b, NULL);
}

/* Appends a diff line, escaped (tabs and the final newline kept): a file
 * must not drive the terminal of the person reading its diff, nor hide
 * what a line does. */
static void append_line(struct buf *b, const char *p, size_t n)
{
	diff_escape(b, p, n, true);
}

static int patch_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
                      const git_diff_line *l, void *payload)
{
	struct buf *b = &((struct patch_out *)payload)->b;

	(void)delta, (void)hunk;
	switch (l->origin) {
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		buf_append(b, &l->origin, 1);
		/* fall through */
	case GIT_DIFF_LINE_HUNK_HDR:
		append_line(b, l->content, l->content_len);
		break;
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		if (b->len && b->data[b->len - 1] != '\n')
			buf_puts(b, "\n");
		buf_puts(b, "\\ No newline at end of file\n");
		break;
	default: /* file headers: render.c writes its own */
		break;
	}
	return 0;
}

/* A text diff of old against new for one entry through libgit2. */
int filediff_entry(struct diff_entry *e, char **errstr)
{
	const struct lazy_git *g = lazy_git(errstr);
	git_diff_options opts;
	git_patch *p = NULL;
	struct patch_out po;
	size_t ctx, adds = 0, dels = 0;
	int rc = -1;

	if (g == NULL)
		return -1;
	e->binary = looks_binary(e->old_data, e->old_len) || looks_binary(e->new_data, e->new_len);
	if (e->binary && (runs_as_script(e->old_data, e->old_len, e->old_mode) ||
	                  runs_as_script(e->new_data, e->new_len, e->new_mode)))
		e->binary = false;
	if (e->binary || S_ISDIR(e->old_mode) || S_ISDIR(e->new_mode))
		return 0;
	buf_init(&po.b, PATCH_CAP);
	g->git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags |= GIT_DIFF_FORCE_TEXT; /* binary was decided above */
	if (g->git_patch_from_buffers(&p, e->old_data, e->old_len, e->path, e->new_data,
	                              e->new_len, e->path, &opts) < 0 ||
	    g->git_patch_print(p, patch_line, &po) < 0 ||
	    g->git_patch_line_stats(&ctx, &adds, &dels, p) < 0) {
		const git_error *ge = g->git_error_last();
		*errstr = xasprintf("cannot diff %s: %s", e->path, ge ? ge->message : "libgit2 failed");
		goto out;
	}
	e->adds = (int)adds;
	e->dels = (int)dels;
	e->patch_truncated = po.b.truncated;
	buf_drop_cut_word(&po.b);
	if (po.b.len)
		e->patch = buf_take(&po.b, &e->patch_len);
	rc = 0;
out:
	buf_free(&po.b);
	g->git_patch_free(p);
	return rc;
}

char *diff_buffers(const char *path, const char *a, size_t alen, const char *b, size_t blen,
                   enum diff_format f, char **errstr)
{
	struct diff *d = diff_new(TOOL_WRITE_FILE, "/");
	struct diff_entry *e = diff_add_entry(d, path, a ? DIFF_OP_MODIFY : DIFF_OP_ADD);
	char *text = NULL;

	e->old_mode = a ? S_IFREG | 0644 : 0;
	e->new_mode = S_IFREG | 0644;
	e->old_data = a ? diff_memdup(a, alen) : NULL;
	e->old_len = alen;
	e->new_data = diff_memdup(b, blen);
	e->new_len = blen;
	if (filediff_entry(e, errstr) == 0)
		text = diff_render(d, f, NULL);
	diff_free(d);
	return text;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's children as sorted NUL-separated names. */
static int read_dir_names(int dirfd, const char *name, char **data, size_t *len, char **errstr)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	struct dirent *de;
	struct buf b;
	size_t n;

	if (dir == NULL) {
		*errstr = xasprintf("cannot list %s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			strv_push(&names, de->d_name);
	closedir(dir);
	n = strv_len(names);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	buf_init(&b, 0);
	for (size_t i = 0; i < n; i++)
		buf_append(&b, names[i], strlen(names[i]) + 1);
	strv_free(names);
	*data = buf_take(&b, len);
	return 0;
}

int filediff_state(int dirfd, const char *name, mode_t *mode, char **data, size_t *len,
                   char **errstr)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;

	*mode = 0;
	*data = NULL;
	*len = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		*errstr = xasprintf("cannot stat %s: %s", name, strerror(errno));
		return -1;
	}
	*mode = st.st_mode & (S_IFMT | 07777);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(dirfd, name, target, sizeof(target))) < 0) {
			*errstr = xasprintf("cannot read link %s: %s", name, strerror(errno));
			return -1;
		}
		*data = diff_memdup(target, (size_t)n);
		*len = (size_t)n;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return read_dir_names(dirfd, name, data, len, errstr);
	if (!S_ISREG(st.st_mode)) {
		*errstr = xasprintf("%s is not a regular file, directory or symlink", name);
		return -1;
	}
	return filediff_read(dirfd, name, false, DIFF_FILE_CAP, data, len, errstr) < 0 ? -1 : 0;
}

/* Why write_file's target cannot be read for its preview, or NULL: past
 * the read cap, a special file, no read permission. write_file never
 * reads it, and the preview's "larger than 64 MiB" or "not a regular
 * file" refused a call the executor runs (it renames a new file over
 * whatever is there). */
static const char *unread_why(int pfd, const char *name, const struct stat *st)
{
	if (S_ISREG(st->st_mode) && st->st_size > DIFF_FILE_CAP)
		return "is past the 64 MiB a preview reads";
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode))
		return "is a special file (a FIFO, socket or device)";
	if (S_ISREG(st->st_mode) && faccessat(pfd, name, R_OK, AT_EACCESS) < 0)
		return "cannot be read (no read permission)";
	return NULL;
}

/* True when write_file's target is not read (unread_why): its mode, size
 * and mtime are kept (e->unread) to tell a change, not its bytes, and the
 * call runs, not applied (the apply compares bytes). */
static bool target_unread(struct diff *d, struct diff_entry *e, int pfd, const char *name)
{
	struct stat st;
	const char *why;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (why = unread_why(pfd, name, &st)) == NULL)
		return false;
	e->unread = true;
	e->old_mode = st.st_mode & (S_IFMT | 07777);
	e->old_len = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	e->old_mtime = st.st_mtim;
	diff_set_incomplete(d, "%s %s: what it holds now is not shown (%lld bytes), only what "
	                       "write_file replaces it with (run, not applied from the preview)",
	                    e->path, why, (long long)st.st_size);
	return true;
}

/* The directory abs names and abs itself, resolved (NULL when not). A
 * call that is not applied runs on the path as given: a directory link
 * in it pointed elsewhere since the preview would carry the write there. */
static void resolve_both(const char *abs, char *real[2])
{
	char *copy = xstrdup(abs);

	real[0] = realpath(dirname(copy), NULL);
	real[1] = realpath(abs, NULL);
	free(copy);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Resolves the call's path: *abs always, *rel when it lands in the workdir. */
static int locate(const char *workdir, const char *p, char **abs, char **rel, char **errstr)
{
	const char *home = getenv("HOME");
	char *c1, *c2, *dir, *base, *real;
	size_t n = strlen(workdir);
	int rc = -1;

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home)
		*abs = xasprintf("%s%s", home, p + 1);
	else
		*abs = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", workdir, p);
	c1 = xstrdup(*abs), c2 = xstrdup(*abs);
	dir = dirname(c1), base = basename(c2);
	if ((*abs)[strlen(*abs) - 1] == '/') { /* f.txt/ read "is a directory" */
		*errstr = xasprintf("%s ends in a slash, which names a directory: a file's path is "
		                    "needed", p);
		goto out;
	}
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strcmp(base, "/") == 0) {
		*errstr = xasprintf("%s is a directory, not a file", p);
		goto out;
	}
	if ((real = realpath(dir, NULL)) == NULL) {
		*errstr = xasprintf("cannot write %s: directory %s: %s", p, dir, strerror(errno));
		goto out;
	}
	*rel = NULL;
	if (strcmp(real, workdir) == 0)
		*rel = xstrdup(base);
	else if (strncmp(real, workdir, n) == 0 && real[n] == '/')
		*rel = xasprintf("%s/%s", real + n + 1, base);
	free(real);
	rc = 0;
out:
	free(c1);
	free(c2);
	return rc;
}

/* Opens the directory the entry lands in: beneath the workdir when rel. */
static int open_parent(const char *workdir, const char *abs, const char *rel, char **errstr)
{
	char *copy = xstrdup(rel ? rel : abs), *dir = dirname(copy);
	int root = -1, fd;

	if (rel) {
		root = open(workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		fd = root < 0 ? -1 : apply_open_beneath(root, dir, O_PATH | O_DIRECTORY, 0);
	} else {
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		*errstr = xasprintf("cannot open directory %s: %s", dir, strerror(errno));
	if (root >= 0)
		close(root);
	free(copy);
	return fd;
}

/* The content edit_file would start from: through a symlink, as the tool reads. */
static int edit_source(struct diff *d, struct diff_entry *e, const char *abs, char **errstr)
{
	char *data = NULL;
	size_t len = 0;
	struct stat st;

	if (!S_ISLNK(e->old_mode))
		return 0;
	/* what the executor (gate/tools.c) does: it reads through the link and
	 * renames the result over it; "runs through it" read as the target
	 * being edited, and the target was left as it was */
	diff_set_incomplete(d, "%s is a symlink to %s: the edit reads that file, and the link "
	                       "is replaced by a regular file holding the result; %s itself is "
	                       "not changed (run, not applied from the preview)", e->path,
	                    e->old_data ? e->old_data : "", e->old_data ? e->old_data : "");
	if (filediff_read(AT_FDCWD, abs, true, DIFF_FILE_CAP, &data, &len, errstr) <= 0) {
		if (*errstr == NULL)
			*errstr = xasprintf("cannot open %s: %s", abs, strerror(ENOENT));
		return -1;
	}
	/* the link itself is kept, read again with what it points to before
	 * the approved call runs (filediff_unchanged) */
	d->link_mode = e->old_mode;
	d->link_data = e->old_data;
	d->link_len = e->old_len;
	e->old_data = data;
	e->old_len = len;
	e->old_mode = stat(abs, &st) == 0 ? st.st_mode & (S_IFMT | 07777) : S_IFREG | 0644;
	return 0;
}

/* The content the call leaves: write_file's, or the edits applied. */
static int new_content(struct diff *d, const struct call *c, struct diff_entry *e,
                       const char *abs, char **errstr)
{
	struct stat st;

	e->new_mode = S_IFREG | 0644;
	if (stat(abs, &st) == 0 && S_ISREG(st.st_mode))
		e->new_mode = S_IFREG | (st.st_mode & 0777); /* the executor keeps the mode,
		                                               * not setuid or setgid */
	if (c->tool == TOOL_WRITE_FILE) {
		if (c->content == NULL) {
			*errstr = xstrdup("write_file: no content given");
			return -1;
		}
		e->new_len = strlen(c->content);
		e->new_data = diff_memdup(c->content, e->new_len);
		return 0;
	}
	if (e->old_mode == 0) {
		*errstr = xasprintf("cannot open %s: %s", c->path, strerror(ENOENT));
		return -1;
	}
	if (edit_source(d, e, abs, errstr) < 0)
		return -1;
	return diff_apply_edits(c, e->old_data, e->old_len, &e->new_data, &e->new_len, errstr);
}

void filediff_preview(struct diff *d, const struct call *c, const struct diff_opts *o)
{
	char *abs = NULL, *rel = NULL, *err = NULL, *copy = NULL;
	struct diff_entry *e;
	int pfd = -1;

	(void)o;
	d->title = xasprintf("%s %s", tool_name(c->tool), c->path ? c->path : "(no path)");
	if (c->path == NULL || c->path[0] == '\0') { /* "" read " ends in a slash" */
		err = xasprintf("%s: no path given", tool_name(c->tool));
		goto out;
	}
	if (locate(d->workdir, c->path, &abs, &rel, &err) < 0 ||
	    (pfd = open_parent(d->workdir, abs, rel, &err)) < 0)
		goto out;
	if (rel == NULL) {
		d->outside = true;
		diff_set_incomplete(d, "writes outside the workdir: %s: not applied from the preview",
		                    abs);
	}
	e = diff_add_entry(d, rel ? rel : abs, DIFF_OP_MODIFY);
	d->read_path = xstrdup(abs);
	resolve_both(abs, d->read_real);
	copy = xstrdup(abs);
	if (c->tool == TOOL_WRITE_FILE && target_unread(d, e, pfd, basename(copy)))
		; /* its old content is not read; the new is shown whole */
	else if (filediff_state(pfd, basename(copy), &e->old_mode, &e->old_data, &e->old_len,
	                        &err) < 0)
		goto out;
	if (S_ISDIR(e->old_mode)) {
		err = xasprintf("%s is a directory, not a file", c->path);
		goto out;
	}
	e->op = e->old_mode ? DIFF_OP_MODIFY : DIFF_OP_ADD;
	if (c->tool == TOOL_WRITE_FILE && S_ISLNK(e->old_mode)) {
		/* "mode 120000 -> 100644" and a "-" line of the target's name read
		 * as a write through the link, which agents' own tools do */
		const char *t = e->old_data ? e->old_data : "";
		diff_add_note(d, "%s is a symlink to %s: write_file replaces the link with a regular "
		                 "file holding the content below; %s itself is not changed", e->path,
		              t, t);
	}
	if (new_content(d, c, e, abs, &err) < 0)
		goto out;
	if (!diff_hold(d, (e->unread ? 0 : e->old_len) + e->new_len))
		goto out;
	if (e->unread) { /* diffed against nothing: every line written is shown */
		size_t size = e->old_len;
		e->old_len = 0;
		filediff_entry(e, &err);
		e->old_len = size;
	} else
		filediff_entry(e, &err);
out:
	if (err && d->error == NULL)
		d->error = err;
	else
		free(err);
	if (pfd >= 0)
		close(pfd);
	free(copy);
	free(abs);
	free(rel);
}

/* True when mode, data and len are what the preview read. */
static bool same_state(mode_t mode, const char *data, size_t len, mode_t omode,
                       const char *odata, size_t olen)
{
	return mode == omode && len == olen && (len == 0 || memcmp(data, odata, len) == 0);
}

/* What is at pfd/name now against entry e (and a link against d's). */
static bool unchanged_at(const struct diff *d, const struct diff_entry *e, int pfd,
                         const char *name)
{
	char *data = NULL, *err = NULL;
	mode_t mode = 0;
	size_t len = 0;
	struct stat st;
	bool same = false;

	if (e->unread)
		same = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		       (st.st_mode & (S_IFMT | 07777)) == e->old_mode &&
		       (size_t)st.st_size == e->old_len && st.st_mtim.tv_sec == e->old_mtime.tv_sec &&
		       st.st_mtim.tv_nsec == e->old_mtime.tv_nsec;
	else if (filediff_state(pfd, name, &mode, &data, &len, &err) == 0)
		same = d->link_data ? same_state(mode, data, len, d->link_mode, d->link_data,
		                                 d->link_len)
		                    : same_state(mode, data, len, e->old_mode, e->old_data, e->old_len);
	free(data);
	free(err);
	if (!same || d->link_data == NULL)
		return same;
	/* through the link, as edit_source() read it */
	data = NULL;
	same = filediff_read(AT_FDCWD, d->read_path, true, DIFF_FILE_CAP, &data, &len, &err) > 0 &&
	       stat(d->read_path, &st) == 0 &&
	       same_state(st.st_mode & (S_IFMT | 07777), data, len, e->old_mode, e->old_data,
	                  e->old_len);
	free(data);
	free(err);
	return same;
}

int filediff_unchanged(const struct diff *d, char **errstr)
{
	const struct diff_entry *e = d->n == 1 ? &d->entries[0] : NULL;
	char *copy, *err = NULL, *real[2];
	int pfd, rc = 0;

	if (e == NULL || d->read_path == NULL || d->error)
		return 0; /* nothing was read: a failed preview refuses the call anyway */
	copy = xstrdup(d->read_path);
	resolve_both(d->read_path, real);
	pfd = open_parent(d->workdir, d->read_path, d->outside ? NULL : e->path, &err);
	if (pfd < 0 || !same_str(real[0], d->read_real[0]) || !same_str(real[1], d->read_real[1]) ||
	    !unchanged_at(d, e, pfd, basename(copy))) {
		char *p = diff_shown(e->path);
		*errstr = xasprintf("the file changed since the preview: %s%s is not what the preview "
		                    "read, or its path leads elsewhere; nothing was run (preview "
		                    "again)", p,
		                    d->link_data ? " (a symlink) or the file it points to" : "");
		free(p);
		rc = -1;
	}
	if (pfd >= 0)
		close(pfd);
	free(real[0]);
	free(real[1]);
	free(err);
	free(copy);
	return rc;
}
