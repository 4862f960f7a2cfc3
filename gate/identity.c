/*
 * identity.c: the host's git identity, for a sandboxed call that writes to
 * git (see identity.h). Rules: never the config file, only the identity
 * values; config is read by libgit2 as git would read it, never parsed by
 * hand (levels, includes and includeIf); libgit2 is loaded only for a
 * workdir inside a git work tree.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/lazy.h"
#include "core/util.h"
#include "gate/identity.h"

/* Each variable git reads first, and the config keys it falls back on. */
static const struct {
	const char *env, *key, *fallback;
} ident_rows[] = {
        {"GIT_AUTHOR_NAME", "author.name", "user.name"},
        {"GIT_AUTHOR_EMAIL", "author.email", "user.email"},
        {"GIT_COMMITTER_NAME", "committer.name", "user.name"},
        {"GIT_COMMITTER_EMAIL", "committer.email", "user.email"},
};

bool git_identity_wanted(const struct verdict *v)
{
	for (size_t i = 0; v && i < v->nfindings; i++)
		if (strncmp(v->findings[i].rule, "git.", 4) == 0)
			return true;
	return false;
}

/* True when dir or a directory above it holds .git (a directory, or the
 * file a linked worktree or submodule has): a few stats, no libgit2. */
static bool in_work_tree(const char *dir)
{
	char *p = xasprintf("%s/.git", dir);
	struct stat st;
	bool yes = false;

	while (!yes) {
		yes = lstat(p, &st) == 0;
		char *slash = strrchr(p, '/'); /* p ends in "/.git": drop a level */
		*slash = '\0';
		slash = strrchr(p, '/');
		if (yes || slash == NULL)
			break;
		strcpy(slash, "/.git");
	}
	free(p);
	return yes;
}

/* The value of key in cfg as a new string, or NULL when unset or empty. */
static char *config_value(const struct lazy_git *g, git_config *cfg, const char *key)
{
	git_buf b = {0};
	char *v = NULL;

	if (g->git_config_get_string_buf(&b, cfg, key) == 0 && b.ptr && *b.ptr)
		v = xstrdup(b.ptr);
	g->git_buf_dispose(&b);
	return v;
}

/* The repository's config as git reads it for workdir; NULL when libgit2
 * cannot open it (not a repository, another user's, unreadable). */
static git_config *repo_config(const struct lazy_git *g, const char *workdir)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL;

	if (g->git_repository_open_ext(&repo, workdir, 0, NULL) == 0 &&
	    g->git_repository_config_snapshot(&cfg, repo) < 0)
		cfg = NULL;
	if (repo)
		g->git_repository_free(repo);
	return cfg;
}

char **git_identity_read(const char *workdir)
{
	const struct lazy_git *g = NULL;
	git_config *cfg = NULL;
	char **env = NULL;

	if (workdir == NULL || !in_work_tree(workdir) || (g = lazy_git(NULL)) == NULL ||
	    (cfg = repo_config(g, workdir)) == NULL)
		return NULL;
	for (size_t i = 0; i < nitems(ident_rows); i++) {
		const char *set = getenv(ident_rows[i].env);
		char *v = set && *set ? xstrdup(set) : config_value(g, cfg, ident_rows[i].key);
		if (v == NULL)
			v = config_value(g, cfg, ident_rows[i].fallback);
		if (v)
			strv_push_owned(&env, xasprintf("%s=%s", ident_rows[i].env, v));
		free(v);
	}
	g->git_config_free(cfg);
	return env;
}
