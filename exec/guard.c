/*
 * guard.c: what a writable workdir must not gain. The mount plan keeps
 * airlock's project policy and the agent's hook and MCP settings read-only
 * when they exist (mounts.c); one that does not exist has no mount point,
 * so a command could create it, and the next session would obey it (a
 * Claude Code hook in .claude/settings.json runs outside any sandbox).
 * exec_run() notes which are absent before the run and removes those that
 * appeared after it, without following links, and says so in the result.
 * Rules: only paths that did not exist before are touched; the sandbox has
 * exited by then, so nothing it started can race the removal.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

static const char *const guarded[] = {
	".airlock", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json",
};

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
	return absent;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
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
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
}
