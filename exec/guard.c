/*
 * guard.c: what a writable workdir must not gain. The mount plan keeps
 * airlock's project policy and the agent's hook and MCP settings read-only
 * when they exist (mounts.c); one that does not exist has no mount point,
 * so a command could create it, and the next session would obey it (a
 * Claude Code hook in .claude/settings.json runs outside any sandbox).
 * exec_run() notes which are absent before the run and removes those that
 * appeared after it, without following links, and says so in the result.
 * A .git the run created is kept, but its live hooks are removed too.
 * Rules: only paths that did not exist before are touched; the sandbox has
 * exited by then, so nothing it started can race the removal.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

static const char *const guarded[] = {
	".airlock", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json",
};

/* The bit guard_absent() sets when the workdir had no .git: a repository
 * the run creates keeps everything but live hooks (git init's *.sample
 * files are inert; anything else in .git/hooks runs on the host later). */
#define GIT_BIT (1u << nitems(guarded))

unsigned guard_absent(const char *wd)
{
	unsigned absent = 0;
	struct stat st;

	for (size_t i = 0; i < nitems(guarded); i++) {
		char *p = xasprintf("%s/%s", wd, guarded[i]);
		if (lstat(p, &st) < 0 && errno == ENOENT)
			absent |= 1u << i;
		free(p);
	}
	{
		char *g = xasprintf("%s/.git", wd);
		if (lstat(g, &st) < 0 && errno == ENOENT)
			absent |= GIT_BIT;
		free(g);
	}
	return absent;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Live hooks in a .git/hooks the run created: every entry but *.sample. */
static void sweep_hooks(const char *wd, struct buf *b)
{
	char *dir = xasprintf("%s/.git/hooks", wd);
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t sl = strlen(".sample");

	while (d && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *p;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (n > sl && strcmp(e->d_name + n - sl, ".sample") == 0))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		buf_printf(b, "%s.git/hooks/%s%s", b->len ? ", " : "", e->d_name,
		           nftw(p, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? ""
		                                                               : " (could not be removed)");
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

char *guard_sweep(const char *wd, unsigned absent)
{
	struct buf b;
	struct stat st;

	buf_init(&b, 0);
	for (size_t i = 0; i < nitems(guarded); i++) {
		char *p;
		if (!(absent & (1u << i)))
			continue;
		p = xasprintf("%s/%s", wd, guarded[i]);
		if (lstat(p, &st) == 0) {
			int rc = S_ISDIR(st.st_mode) ? nftw(p, remove_one, 16, FTW_DEPTH | FTW_PHYS)
			                             : unlink(p);
			buf_printf(&b, "%s%s%s", b.len ? ", " : "", guarded[i],
			           rc == 0 ? "" : " (could not be removed)");
		}
		free(p);
	}
	if (absent & GIT_BIT)
		sweep_hooks(wd, &b);
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
}
