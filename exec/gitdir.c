/*
 * gitdir.c: the repository of a workdir that is a linked worktree (`git
 * worktree add`): its .git is a file naming a directory (the worktree's
 * gitdir, COMMON/worktrees/NAME) in the main repository's .git (the
 * common dir), outside the workdir and so missing from the sandbox, where
 * every git command then failed, `git status` included ("not a git
 * repository"). mounts.c binds the common dir: read-only, or writable with
 * the workdir, under the guard's protection of its hooks and config, as
 * the workdir's own .git is (guard.c). Rules: found only when the layout
 * is git's own and the worktree's entry points back at this workdir, so a
 * .git file from an archive cannot name ~/.ssh to be shown; links are
 * resolved first.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

/* The value of a small regular file git reads whole (a .git file,
 * commondir, gitdir) as git takes it, in buf (size PATH_MAX): its
 * trailing newlines and carriage returns dropped, up to its first NUL;
 * false when it cannot be read or is empty. Not its first line: a
 * "gitdir: ../x\r\n" the run wrote kept its "\r", so it led nowhere and
 * the sweep passed it by, where git entered ../x. */
static bool value_read(const char *path, char buf[PATH_MAX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t n = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, PATH_MAX - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	if (st.st_size > n) { /* longer than a path: git's is what comes before a NUL */
		if (memchr(buf, '\0', (size_t)n) == NULL)
			return false;
	} else {
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
	}
	buf[n] = '\0';
	return buf[0] != '\0';
}

/* rel resolved against dir (when relative) into real; false when absent. */
static bool resolve_at(const char *dir, const char *rel, char real[PATH_MAX])
{
	char *p = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
	bool ok = realpath(p, real) != NULL;

	free(p);
	return ok;
}

/* True when gitdir is common/worktrees/NAME, NAME one component. */
static bool in_worktrees(const char *common, const char *gitdir)
{
	char *dir = xasprintf("%s/worktrees/", common);
	size_t n = strlen(dir);
	bool ok = strncmp(gitdir, dir, n) == 0 && gitdir[n] != '\0' &&
	          strchr(gitdir + n, '/') == NULL;

	free(dir);
	return ok;
}

bool gitdir_file_read(const char *wd, char gitdir[PATH_MAX])
{
	char line[PATH_MAX], *dotgit = xasprintf("%s/.git", wd);
	struct stat st;
	bool ok = lstat(dotgit, &st) == 0 && S_ISREG(st.st_mode) && value_read(dotgit, line) &&
	          strncmp(line, "gitdir: ", 8) == 0 && resolve_at(wd, line + 8, gitdir);

	free(dotgit);
	return ok;
}

bool gitdir_common_read(const char *gitdir, char common[PATH_MAX])
{
	char line[PATH_MAX], *meta = xasprintf("%s/commondir", gitdir);
	bool ok = value_read(meta, line) && resolve_at(gitdir, line, common);

	free(meta);
	return ok;
}

char *gitdir_inside_find(const char *wd)
{
	char gitdir[PATH_MAX];
	struct stat st;

	if (!gitdir_file_read(wd, gitdir) || strcmp(gitdir, wd) == 0 ||
	    !path_contains(wd, gitdir) || stat(gitdir, &st) < 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return xstrdup(gitdir);
}

bool gitdir_linked_find(const char *wd, const char *home, struct gitdir_linked *l)
{
	char line[PATH_MAX], gitdir[PATH_MAX], common[PATH_MAX], back[PATH_MAX];
	char *dotgit = xasprintf("%s/.git", wd), *meta = NULL;

	memset(l, 0, sizeof(*l));
	/* "gitdir: PATH" in a regular file, PATH a directory... */
	if (!gitdir_file_read(wd, gitdir))
		goto out;
	/* ...holding "commondir" (a linked worktree's; a submodule has none)
	 * that names the directory gitdir lies in, git's own layout
	 * (COMMON/worktrees/NAME)... */
	meta = xasprintf("%s/commondir", gitdir);
	if (!value_read(meta, line) || !resolve_at(gitdir, line, common) ||
	    !in_worktrees(common, gitdir))
		goto out;
	/* ...and "gitdir", git's link back to this worktree's .git file */
	free(meta);
	meta = xasprintf("%s/gitdir", gitdir);
	if (!value_read(meta, line) || !resolve_at(gitdir, line, back) ||
	    strcmp(back, dotgit) != 0)
		goto out;
	/* nothing the sandbox shows already, nor a home or the root */
	if (path_contains(wd, common) || path_contains(common, wd) ||
	    (home && path_contains(common, home)))
		goto out;
	l->common = xstrdup(common);
	l->gitdir = xstrdup(gitdir);
out:
	free(meta);
	free(dotgit);
	return l->common != NULL;
}

void gitdir_linked_clear(struct gitdir_linked *l)
{
	free(l->common);
	free(l->gitdir);
	memset(l, 0, sizeof(*l));
}
