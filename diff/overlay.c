/*
 * overlay.c: shell previews. The command runs once in the sandbox with the
 * workdir mounted as an overlay (exec_spec.overlay_dir; network off), then
 * the upper dir is walked: whiteouts are deletions, opaque dirs replace the
 * tree below them, everything else is an addition or a modification,
 * diffed against the real workdir.
 * Rules it keeps:
 *  - the real workdir is only read, beneath its root, never following links;
 *  - anything the walk cannot express exactly (special files, redirected
 *    dirs, a timeout, network or writes outside the workdir), or that a
 *    sandboxed run may not leave (exec's guarded paths), makes the
 *    preview incomplete, so approval runs the command instead of applying;
 *  - the overlay dir is removed whatever happened.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "diff/diff_internal.h"
#include "exec/exec.h"

struct walk {
	struct diff *d;
	int root;          /* the real workdir, O_PATH */
	const char *upper; /* absolute path of the upper dir */
	int in_opaque;     /* > 0 below an opaque dir that replaced a lower one */
};

/* True when path (not followed) has xattr name, equal to want when given. */
static bool has_xattr(const char *path, const char *name, const char *want)
{
	char v[8];
	ssize_t n = lgetxattr(path, name, v, sizeof(v) - 1);

	if (n < 0)
		return false;
	v[n] = '\0';
	return want == NULL || strcmp(v, want) == 0;
}

static bool is_whiteout(const char *path, const struct stat *st)
{
	return (S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0)) ||
	       (S_ISREG(st->st_mode) && st->st_size == 0 &&
	        has_xattr(path, "user.overlay.whiteout", NULL));
}

static char *join(const char *rel, const char *name)
{
	return *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

/* One lower entry and everything below it become deletions (pre-order). */
static void add_deleted(struct walk *w, const char *rel)
{
	struct diff_entry *e;
	char *err = NULL, *data = NULL;
	mode_t mode;
	size_t len;

	if (apply_read_state(w->root, rel, &mode, &data, &len, &err) < 0 || mode == 0) {
		if (err) {
			diff_set_incomplete(w->d, "cannot read %s: %s", rel, err);
			w->d->unlisted++;
		}
		free(err);
		free(data);
		return;
	}
	e = diff_add_entry(w->d, rel, DIFF_OP_DELETE);
	e->old_mode = mode, e->old_data = data, e->old_len = len;
	if (!diff_hold(w->d, len))
		return;
	if (S_ISDIR(mode)) {
		char *names = diff_memdup(data, len); /* e may move as entries grow */
		for (size_t off = 0; off < len; off += strlen(names + off) + 1) {
			char *sub = join(rel, names + off);
			add_deleted(w, sub);
			free(sub);
		}
		free(names);
	} else if (filediff_entry(e, &err) < 0) {
		diff_set_incomplete(w->d, "no text diff for %s: %s", rel, err);
		free(err);
	}
}

/* True when rel, made below an opaque directory, had a lower twin that the
 * opaque listing deleted: the new entry replaces it (rm -rf d; mkdir d;
 * echo > d/a), and the DELETE twin is the one checked before applying. */
static bool replaces_deleted(const struct walk *w, const char *rel)
{
	int fd;

	if (w->in_opaque == 0)
		return false;
	/* the twin is there in the workdir, reached without a link, as
	 * add_deleted() walked it: one open, not a search of every entry so
	 * far (rm -rf build && make remade thousands) */
	if ((fd = apply_open_beneath(w->root, rel, O_PATH | O_NOFOLLOW, 0)) < 0)
		return false;
	close(fd);
	return true;
}

/* The lower side of rel: its mode and data (0 when absent). */
static int lower_of(struct walk *w, const char *rel, mode_t *mode, char **data, size_t *len)
{
	char *err = NULL;
	if (apply_read_state(w->root, rel, mode, data, len, &err) == 0)
		return 0;
	diff_set_incomplete(w->d, "cannot read %s in the workdir: %s", rel, err);
	w->d->unlisted++;
	free(err);
	return -1;
}

/* The names the workdir's file rel has (its hard links), 0 when unknown. */
static unsigned long lower_links(const struct walk *w, const char *rel)
{
	int fd = apply_open_beneath(w->root, rel, O_PATH | O_NOFOLLOW, 0);
	struct stat st;
	unsigned long n = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = (unsigned long)st.st_nlink;
	if (fd >= 0)
		close(fd);
	return n;
}

/* The new side of a file or symlink from the upper dir. */
static int upper_data(struct walk *w, const char *rel, const char *upath,
                      const struct stat *st, struct diff_entry *e, mode_t lmode,
                      const char *ldata, size_t llen)
{
	char target[4096], *err = NULL;
	ssize_t n;

	if (S_ISLNK(st->st_mode)) {
		if ((n = readlink(upath, target, sizeof(target))) < 0)
			goto fail;
		e->new_data = diff_memdup(target, (size_t)n);
		e->new_len = (size_t)n;
		return 0;
	}
	if (has_xattr(upath, "user.overlay.metacopy", NULL)) { /* data still in the lower file */
		if (!S_ISREG(lmode)) {
			diff_set_incomplete(w->d, "%s: metadata-only copy-up without a lower file", rel);
			return -1;
		}
		e->new_data = diff_memdup(ldata, llen);
		e->new_len = llen;
		return 0;
	}
	if (filediff_read(AT_FDCWD, upath, false, DIFF_FILE_CAP, &e->new_data, &e->new_len,
	                  &err) > 0)
		return 0;
	diff_set_incomplete(w->d, "cannot read what the dry run wrote to %s: %s", rel,
	                    err ? err : "gone");
	free(err);
	return -1;
fail:
	diff_set_incomplete(w->d, "cannot read the dry run's %s: %s", rel, strerror(errno));
	return -1;
}

/* A file or symlink in the upper dir: added, or modified against the lower. */
static void upper_file(struct walk *w, const char *rel, const char *upath,
                       const struct stat *st, bool lower)
{
	mode_t lmode = 0, nmode = st->st_mode & (S_IFMT | 07777);
	char *ldata = NULL, *err = NULL;
	size_t llen = 0;
	struct diff_entry tmp = {0}, *e;
	bool replaces = false;
	unsigned long nlinks;

	/* a hard link the dry run made (a copy-up has one link): applied, it
	 * would be a copy, where the run makes both names one file and a
	 * later write to one changes the other */
	if (S_ISREG(st->st_mode) && st->st_nlink > 1)
		diff_set_incomplete(w->d, "%s has %lu names after the dry run (a hard link it "
		                          "made): the apply would write copies, not links",
		                    rel, (unsigned long)st->st_nlink);
	if (lower && lower_of(w, rel, &lmode, &ldata, &llen) < 0)
		return;
	replaces = !lower && replaces_deleted(w, rel);
	if (S_ISDIR(lmode)) { /* a directory replaced by a file */
		add_deleted(w, rel);
		free(ldata);
		lmode = 0, ldata = NULL, llen = 0;
		replaces = true;
	}
	if (upper_data(w, rel, upath, st, &tmp, lmode, ldata, llen) < 0) {
		w->d->unlisted++;
		goto out;
	}
	if (lmode == nmode && llen == tmp.new_len && memcmp(ldata, tmp.new_data, llen) == 0)
		goto out; /* copied up but unchanged (opened for writing, touched) */
	e = diff_add_entry(w->d, rel, lmode ? DIFF_OP_MODIFY : DIFF_OP_ADD);
	e->old_mode = lmode, e->old_data = ldata, e->old_len = llen;
	e->new_mode = nmode, e->new_data = tmp.new_data, e->new_len = tmp.new_len;
	e->replaces = replaces;
	ldata = tmp.new_data = NULL;
	/* the apply renames a new file over it: its other names (anywhere on
	 * that file system) keep the old bytes, where the run's write through
	 * one name changes them all */
	if (S_ISREG(lmode) && S_ISREG(nmode) && (nlinks = lower_links(w, rel)) > 1)
		diff_add_note(w->d, "%s has %lu hard links: the apply writes a new file, so its "
		                    "other names keep what they hold (a run writing through it "
		                    "would change them too)", rel, nlinks);
	if (diff_hold(w->d, e->old_len + e->new_len) && filediff_entry(e, &err) < 0) {
		diff_set_incomplete(w->d, "no text diff for %s: %s", rel, err);
		free(err);
	}
out:
	free(tmp.new_data);
	free(ldata);
}

static void walk_dir(struct walk *w, const char *rel, bool lower);

/* A directory in the upper dir: new, opaque (replaced), or a copy-up. */
static void upper_dir(struct walk *w, const char *rel, const char *upath,
                      const struct stat *st, bool lower)
{
	mode_t lmode = 0, nmode = st->st_mode & (S_IFMT | 07777);
	bool opaque = has_xattr(upath, "user.overlay.opaque", "y");
	char *ldata = NULL;
	size_t llen = 0;
	struct diff_entry *e;
	bool replaces = false;

	if (has_xattr(upath, "user.overlay.redirect", NULL))
		diff_set_incomplete(w->d, "%s was renamed in place (overlay redirect): not previewed",
		                    rel);
	if (lower && lower_of(w, rel, &lmode, &ldata, &llen) < 0)
		return;
	replaces = !lower && replaces_deleted(w, rel);
	if (lmode && !S_ISDIR(lmode)) { /* a file replaced by a directory */
		add_deleted(w, rel);
		lmode = 0;
		replaces = true;
	}
	if (S_ISDIR(lmode) && opaque)
		for (size_t off = 0; off < llen; off += strlen(ldata + off) + 1) {
			char *sub = join(rel, ldata + off);
			add_deleted(w, sub);
			free(sub);
		}
	if (lmode == 0 || (lmode & 07777) != (nmode & 07777)) {
		e = diff_add_entry(w->d, rel, lmode ? DIFF_OP_MODIFY : DIFF_OP_ADD);
		e->new_mode = nmode;
		e->replaces = replaces;
		if (lmode)
			e->old_mode = lmode, e->old_data = ldata, e->old_len = llen, ldata = NULL;
	}
	free(ldata);
	opaque = opaque && lmode != 0;
	w->in_opaque += opaque;
	walk_dir(w, rel, lmode != 0 && !opaque);
	w->in_opaque -= opaque;
}

/* Every entry of one upper directory, in name order. */
static void walk_dir(struct walk *w, const char *rel, bool lower)
{
	char *udir = *rel ? xasprintf("%s/%s", w->upper, rel) : xstrdup(w->upper);
	char *names = NULL, *err = NULL;
	mode_t mode;
	size_t len = 0;

	if (filediff_state(AT_FDCWD, udir, &mode, &names, &len, &err) < 0 || !S_ISDIR(mode)) {
		diff_set_incomplete(w->d, "cannot walk the dry run's changes in %s: %s",
		                    *rel ? rel : ".", err ? err : "not a directory");
		goto out;
	}
	for (size_t off = 0; off < len && !(w->d->held > DIFF_TOTAL_CAP);
	     off += strlen(names + off) + 1) {
		char *sub = join(rel, names + off), *upath = xasprintf("%s/%s", w->upper, sub);
		struct stat st;
		if (lstat(upath, &st) < 0) {
			diff_set_incomplete(w->d, "cannot stat %s: %s", sub, strerror(errno));
			w->d->unlisted++;
		}
		else if (is_whiteout(upath, &st)) {
			if (lower)
				add_deleted(w, sub);
		} else if (S_ISDIR(st.st_mode))
			upper_dir(w, sub, upath, &st, lower);
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			upper_file(w, sub, upath, &st, lower);
		else {
			diff_set_incomplete(w->d, "%s is a special file: not previewed", sub);
			w->d->unlisted++;
		}
		free(upath);
		free(sub);
	}
out:
	free(udir);
	free(names);
	free(err);
}

/* A deleted path, found by its name: the DELETE twins of re-made files. */
struct twin {
	const char *path;
	size_t i;
};

static int twin_cmp(const void *a, const void *b)
{
	return strcmp(((const struct twin *)a)->path, ((const struct twin *)b)->path);
}

/* Folds a file or link re-made below an opaque directory into its DELETE
 * twin: one MODIFY, or nothing when it holds what it held ("rm -rf d;
 * mkdir d; echo same > d/f" listed d/f deleted, then d/f added with the
 * same line: a change that changes nothing read as two). The twin keeps
 * what the preview read, so the apply checks it as before. Directories
 * stay pairs: the twin's listing is what tells a file added since. */
static void fold_remade(struct diff *d)
{
	struct twin *t = xcalloc(d->n + 1, sizeof(*t)), key, *hit;
	bool *drop = xcalloc(d->n + 1, sizeof(*drop));
	size_t nt = 0, k = 0;

	for (size_t i = 0; i < d->n; i++)
		if (d->entries[i].op == DIFF_OP_DELETE && !S_ISDIR(d->entries[i].old_mode))
			t[nt++] = (struct twin){d->entries[i].path, i};
	qsort(t, nt, sizeof(*t), twin_cmp);
	for (size_t i = 0; i < d->n && nt; i++) {
		struct diff_entry *a = &d->entries[i], *del;
		char *err = NULL;
		if (!a->replaces || a->op != DIFF_OP_ADD || S_ISDIR(a->new_mode))
			continue;
		key.path = a->path;
		if ((hit = bsearch(&key, t, nt, sizeof(*t), twin_cmp)) == NULL)
			continue;
		del = &d->entries[hit->i];
		drop[i] = true;
		if (del->old_mode == a->new_mode && del->old_len == a->new_len &&
		    (a->new_len == 0 || memcmp(del->old_data, a->new_data, a->new_len) == 0)) {
			drop[hit->i] = true;
			continue;
		}
		del->op = DIFF_OP_MODIFY;
		del->new_mode = a->new_mode;
		del->new_data = a->new_data, del->new_len = a->new_len, a->new_data = NULL;
		free(del->patch);
		del->patch = NULL, del->patch_len = 0, del->adds = del->dels = 0;
		if (filediff_entry(del, &err) < 0)
			diff_set_incomplete(d, "no text diff for %s: %s", del->path, err);
		free(err);
	}
	for (size_t i = 0; i < d->n; i++) {
		if (drop[i])
			entry_clear(&d->entries[i]);
		else
			d->entries[k++] = d->entries[i];
	}
	d->n = k;
	free(drop);
	free(t);
}

#define FOREIGN_SCAN_CAP 50000 /* workdir entries looked at for unmapped owners */

/* Finds, below root, an entry owned by another uid that the caller may
 * still write (group/other write bits): overlayfs cannot copy it up in the
 * sandbox's namespace (EOVERFLOW), though the real run could change it.
 * Returns a new relative path, or NULL; *seen counts entries looked at. */
static char *find_foreign(int root, const char *rel, size_t *seen)
{
	DIR *dir;
	struct dirent *de;
	char *hit = NULL;
	int fd = openat(root, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (hit == NULL && *seen < FOREIGN_SCAN_CAP && (de = readdir(dir)) != NULL) {
		struct stat st;
		char *sub;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		(*seen)++;
		sub = join(rel, de->d_name);
		if (st.st_uid != geteuid() && !S_ISLNK(st.st_mode) && (st.st_mode & 022))
			hit = sub, sub = NULL;
		else if (S_ISDIR(st.st_mode))
			hit = find_foreign(root, sub, seen);
		free(sub);
	}
	closedir(dir);
	return hit;
}

/* A dry run that failed somewhere may have failed on a file it could not
 * copy up; then the preview is not what the run would do. */
static void check_foreign(struct walk *w)
{
	size_t seen = 0;
	char *hit;

	if (w->d->exit_code == 0 && w->d->errlen == 0)
		return;
	if ((hit = find_foreign(w->root, "", &seen)) != NULL)
		diff_set_incomplete(w->d, "%s belongs to another user: the dry run cannot change it "
		                          "(overlayfs copy-up in the sandbox), the real run could",
		                    hit);
	else if (seen >= FOREIGN_SCAN_CAP)
		diff_add_note(w->d, "the dry run reported errors; only %d workdir entries were "
		                    "checked for files it could not change", FOREIGN_SCAN_CAP);
	free(hit);
}

/* Removes dirfd/name and everything below it, never following a symlink. */
static void remove_tree(int dirfd, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dirfd, name, 0);
		return;
	}
	fchmodat(dirfd, name, 0700, 0); /* overlayfs leaves work/work at mode 0 */
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (dir = fdopendir(fd)) != NULL) {
		while ((de = readdir(dir)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				remove_tree(fd, de->d_name);
		closedir(dir);
	} else if (fd >= 0)
		close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* What the dry run cannot show: the network, writes that land outside. */
static void verdict_limits(struct diff *d, const struct verdict *v, const struct profile *p)
{
	if (v == NULL)
		return;
	if (v->hosts && v->hosts[0])
		diff_set_incomplete(d, "needs network: not previewed (%s)", v->hosts[0]);
	for (size_t i = 0; v->writes && v->writes[i]; i++)
		if (under(v->writes[i], d->workdir))
			continue;
		else if (under(v->writes[i], "/tmp") && p && !p->none) /* "no changes" read as a
		                                                        * write the preview missed */
			diff_add_note(d, "writes %s: /tmp is the sandbox's own, in the dry run and the "
			                 "run alike, and what lands there is not kept: not a change",
			              v->writes[i]);
		else if (!under(v->writes[i], "/dev"))
			diff_set_incomplete(d, "writes outside the workdir: %s: not previewed",
			                    v->writes[i]);
}

/* True when path is dir or lies under it, or (an ancestor made or
 * replaced) dir lies under path. */
static bool overlaps(const char *path, const char *dir)
{
	return under(path, dir) || under(dir, path);
}

/* True when rel lies in a repository nested in the workdir (a .git below
 * its top): that config and those hooks run when the host's git enters
 * it, and the run's guard sweeps what a run made there. */
static bool in_nested_repo(const char *rel)
{
	for (const char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/'))
		if (strncmp(p + 1, ".git", 4) == 0 && (p[5] == '/' || p[5] == '\0'))
			return true;
	return false;
}

/* Why a sandboxed run's guard would remove or refuse entry e, or NULL:
 * guard.c's table, what the repository config names (core.hooksPath, an
 * included file), a nested repository, a link in the .git directory. */
static const char *entry_guarded(const struct diff_entry *e, char *const *refs)
{
	bool dir = e->op != DIFF_OP_DELETE && S_ISDIR(e->new_mode);

	if (exec_path_guarded(e->path, dir))
		return "git hooks or config, gate or agent settings";
	for (char *const *r = refs; r && *r; r++)
		if (overlaps(e->path, *r))
			return "core.hooksPath or a config include names it";
	if (e->op != DIFF_OP_DELETE && in_nested_repo(e->path))
		return "a nested repository's .git";
	if (e->op != DIFF_OP_DELETE && S_ISLNK(e->new_mode) && under(e->path, ".git"))
		return "a link in .git";
	return NULL;
}

/* An apply must not do what the run it stands for could not. A sandboxed
 * run may not plant hooks, git config or gate and agent settings (exec's
 * guard removes them after a run on the real workdir: its table, the
 * hooks directory and included files the config names, nested
 * repositories); the dry run's overlay is not swept, so applying it must
 * not plant them either: approval runs the command instead, and the guard
 * sweeps that. */
static void guard_limits(struct diff *d, const struct profile *p)
{
	char **refs = NULL;
	const char *why;

	/* the overlay is writable whatever the profile: a run under a read-only
	 * workdir could write none of what the dry run did */
	if (p && !p->workdir_rw && d->n)
		diff_set_incomplete(d, "profile %s keeps the workdir read-only: what the dry run "
		                       "wrote is shown, not applied", p->name ? p->name : "");
	if (d->n && exec_config_guarded(d->workdir, &refs) < 0)
		diff_set_incomplete(d, "the repository config cannot be read, so which paths its "
		                       "hooks and includes guard is unknown: not applied from the "
		                       "preview");
	for (size_t i = 0; i < d->n; i++)
		if ((why = entry_guarded(&d->entries[i], refs)) != NULL)
			diff_set_incomplete(d, "the dry run changed %s, which a sandboxed run may not "
			                       "leave in the workdir (%s): not applied from the preview "
			                       "(the run's guard removes it)", d->entries[i].path, why);
	strv_free(refs);
}

/* In a linked worktree the main repository's git directory is an overlay
 * too (exec: the overlay dir's common/); what the dry run wrote there (a
 * commit's objects and refs, this worktree's index and HEAD) is neither
 * shown nor applied, so applying the rest would report a commit that
 * never lands. */
static void common_limits(struct diff *d, const char *tmp)
{
	char *up = xasprintf("%s/common/upper", tmp), *names = NULL, *err = NULL;
	mode_t mode;
	size_t len = 0;

	if (filediff_state(AT_FDCWD, up, &mode, &names, &len, &err) < 0)
		diff_set_incomplete(d, "cannot read what the dry run wrote to the main repository "
		                       "of this linked worktree: %s", err);
	else if (mode != 0 && len > 0)
		diff_set_incomplete(d, "the dry run changed the main repository's git directory of "
		                       "this linked worktree (a commit, the index): not shown, so "
		                       "not applied from the preview");
	free(names);
	free(err);
	free(up);
}

/* Where upper/work go: outside the workdir (overlayfs refuses overlapping
 * layers), tmpfs first (written and walked once, then thrown away; user
 * xattrs on tmpfs need kernel 6.6, so a failed run retries on disk). */
static const char *const tmp_bases[] = {"/dev/shm", "/tmp", "/var/tmp"};

/* Returns a new private directory under tmp_bases[*i] or later, or NULL. */
static char *overlay_tmp(const char *workdir, size_t *i)
{
	for (; *i < nitems(tmp_bases); (*i)++) {
		char *t = xasprintf("%s/airlock-preview.XXXXXX", tmp_bases[*i]);
		if (!under(t, workdir) && mkdtemp(t))
			return t;
		free(t);
	}
	return NULL;
}

/* overlayfs creates work/work when it mounts: proof the run used the overlay. */
static bool overlay_was_mounted(const char *tmp)
{
	char *ww = xasprintf("%s/work/work", tmp);
	struct stat st;
	bool ok = lstat(ww, &st) == 0 && S_ISDIR(st.st_mode);
	free(ww);
	return ok;
}

/* The dry run's profile: the call's, but it must not change the host
 * before anyone approved. A profile without a sandbox gets the workspace
 * sandbox; paths granted read-write (outside the workdir, or bound over
 * the overlay inside it) are bound read-only. Either way the real run may
 * do what the dry run could not show, so the preview is not applied. */
static struct profile *dry_profile(struct diff *d, const struct profile *p)
{
	struct profile *prof;

	if (p == NULL)
		return profile_dup(exec_builtin_profile("workspace"));
	if (p->none) {
		diff_set_incomplete(d, "profile %s runs without a sandbox: the dry run ran in the "
		                       "workspace sandbox and may differ", p->name ? p->name : "");
		return profile_dup(exec_builtin_profile("workspace"));
	}
	prof = profile_dup(p);
	for (char **w = prof->read_write; w && *w; w++) {
		diff_set_incomplete(d, "profile %s grants writes to %s: the dry run had it "
		                       "read-only and cannot show them", p->name ? p->name : "", *w);
		strv_push(&prof->read_only, *w);
	}
	strv_free(prof->read_write);
	prof->read_write = NULL;
	return prof;
}

/* Runs the command once on the overlay; fills the dry run fields of d. */
static int dry_run(struct diff *d, const struct call *c, const struct diff_opts *o,
                   const char *tmp, bool last)
{
	char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)c->command, NULL};
	struct profile *prof = dry_profile(d, o->profile);
	long long limit = o->timeout_ms > 0 ? o->timeout_ms : DIFF_DRYRUN_TIMEOUT_MS;
	struct exec_spec spec = {.argv = argv, .workdir = d->workdir, .profile = prof,
	                         .env = o->env, .binds = o->binds, .capture = true,
	                         .overlay_dir = tmp};
	struct exec_result r = {0};
	char *err = NULL;
	int rc = -1;

	prof->network = false;
	prof->output = (long long)(o->output_cap ? o->output_cap : DIFF_OUTPUT_CAP);
	spec.timeout_ms = c->timeout_ms > 0 && c->timeout_ms < limit ? c->timeout_ms : limit;
	if (exec_run(&spec, &r, &err) < 0) {
		if (last)
			diff_set_incomplete(d, "dry run unavailable: %s", err);
		free(err);
		goto out;
	}
	if (!overlay_was_mounted(tmp)) { /* fail safe: the command may have run on the real workdir */
		free(d->error);
		d->error = xasprintf("the sandbox did not mount the workdir as an overlay (no "
		                     "work/work in %s): the dry run may have changed the real "
		                     "workdir; the call is refused (check exec/)", tmp);
		diff_set_incomplete(d, "no overlay");
	}
	d->ran = true;
	d->wall_ms = r.wall_ms;
	d->exit_code = r.exit_code;
	d->timed_out = r.timed_out;
	d->out = r.out, d->outlen = r.outlen;
	d->err = r.err, d->errlen = r.errlen;
	r.out = r.err = NULL;
	if (r.timed_out)
		diff_set_incomplete(d, "the dry run did not finish within %lld ms: what it changed "
		                       "until then is shown, the command was not previewed whole",
		                    spec.timeout_ms);
	/* a stream at its cap is closed: the command gets EPIPE or SIGPIPE and
	 * may stop there, where the real run (its profile's own cap) goes on */
	if (r.truncated)
		diff_set_incomplete(d, "the dry run's output passed %lld bytes per stream, where "
		                       "it was closed: the command may have stopped there, it was "
		                       "not previewed whole", prof->output);
	/* killed by a sandbox limit the real run may not hit the same way (the
	 * overlay's pages are memory), or by its own hand: not shown whole */
	if (r.exit_code < 0 && !r.timed_out)
		diff_set_incomplete(d, "the dry run was killed (signal %d): what it changed until "
		                       "then is shown, the command was not previewed whole",
		                    r.signal);
	rc = 0;
out:
	exec_result_clear(&r);
	profile_free(prof);
	return rc;
}

void overlay_preview(struct diff *d, const struct call *c, const struct diff_opts *o)
{
	struct walk w = {.d = d, .root = -1};
	char *tmp = NULL, *upper = NULL;

	d->title = xasprintf("shell %s", c->command ? c->command : "");
	if (c->command == NULL) {
		d->error = xstrdup("shell: no command given");
		return;
	}
	verdict_limits(d, o->verdict, o->profile);
	for (size_t i = 0;; i++) {
		if ((tmp = overlay_tmp(d->workdir, &i)) == NULL) {
			diff_set_incomplete(d, "dry run unavailable: cannot create a directory for the "
			                       "overlay in /dev/shm or /tmp: %s", strerror(errno));
			return;
		}
		if (dry_run(d, c, o, tmp, i > 0) == 0)
			break;
		remove_tree(AT_FDCWD, tmp);
		free(tmp);
		tmp = NULL;
		if (i > 0)
			return;
	}
	w.upper = upper = xasprintf("%s/upper", tmp);
	if ((w.root = open(d->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		diff_set_incomplete(d, "cannot open the workdir %s: %s", d->workdir, strerror(errno));
		goto out;
	}
	walk_dir(&w, "", true);
	fold_remade(d);
	check_foreign(&w);
	guard_limits(d, o->profile);
	common_limits(d, tmp);
out:
	if (w.root >= 0)
		close(w.root);
	remove_tree(AT_FDCWD, tmp);
	free(upper);
	free(tmp);
}
