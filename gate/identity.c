/*
 * identity.c: the host's git identity, for a sandboxed call that writes to
 * git (see identity.h). Rules: never the config file, only the identity
 * values; config is read by libgit2 as git would read it, never parsed by
 * hand (levels, includes and includeIf); libgit2 is loaded only for a
 * workdir inside a git work tree; the read runs in a child with a deadline.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/child.h"
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

bool git_trust_wanted(const struct verdict *v)
{
	for (size_t i = 0; v && i < v->ncommands; i++) {
		const char *prog = v->commands[i].argv ? v->commands[i].argv[0] : NULL;
		const char *base = prog ? strrchr(prog, '/') : NULL;
		if (prog && strcmp(base ? base + 1 : prog, "git") == 0)
			return true;
	}
	return false;
}

bool git_identity_wanted(const struct verdict *v)
{
	for (size_t i = 0; v && i < v->nfindings; i++)
		if (strncmp(v->findings[i].rule, "git.", 4) == 0)
			return true;
	return false;
}

/* The work tree's top: dir or the nearest directory above it holding .git
 * (a directory, or the file a linked worktree or submodule has), as a new
 * string, or NULL: a few stats, no libgit2. */
static char *work_tree_top(const char *dir)
{
	char *d = xstrdup(dir);
	struct stat st;

	do {
		char *p = xasprintf("%s/.git", d);
		bool yes = lstat(p, &st) == 0;
		free(p);
		if (yes)
			return d;
	} while (path_up(d) && strcmp(d, "/") != 0); /* / is no one's work tree */
	free(d);
	return NULL;
}

static bool in_work_tree(const char *dir)
{
	char *top = work_tree_top(dir);
	bool yes = top != NULL;

	free(top);
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

/* True when the work tree top or its .git is owned by another user: git's
 * ownership check (safe.directory) then refuses it unless trusted. */
static bool owned_by_other(const char *top)
{
	char *dotgit = xasprintf("%s/.git", top);
	struct stat a, b;
	bool other = (lstat(top, &a) == 0 && a.st_uid != geteuid()) ||
	             (lstat(dotgit, &b) == 0 && b.st_uid != geteuid());

	free(dotgit);
	return other;
}

/* Appends " 'name'='value'" quoted as git quotes GIT_CONFIG_PARAMETERS. */
static void param_append(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, "%s'%s'='", b->len ? " " : "", name);
	for (const char *c = value; *c; c++)
		if (*c == '\'' || *c == '!')
			buf_printf(b, "'\\%c'", *c);
		else
			buf_append(b, c, 1);
	buf_puts(b, "'");
}

char **git_trust_read(const char *workdir)
{
	char *top = workdir ? work_tree_top(workdir) : NULL;
	const struct lazy_git *g = NULL;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	char **env = NULL;
	struct buf b;

	buf_init(&b, 0);
	if (top == NULL || !owned_by_other(top) || (g = lazy_git(NULL)) == NULL ||
	    g->git_config_open_default(&cfg) < 0 ||
	    g->git_config_multivar_iterator_new(&it, cfg, "safe.directory", NULL) < 0)
		goto out;
	while (g->git_config_next(&e, it) == 0)
		param_append(&b, "safe.directory", e->value ? e->value : "");
	if (b.len)
		strv_push_owned(&env, xasprintf("GIT_CONFIG_PARAMETERS=%s", b.data));
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	buf_free(&b);
	free(top);
	return env;
}

/* The global ignore file git reads (core.excludesFile, else
 * $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore), resolved, when it
 * is a regular file outside workdir (which shows already); else NULL.
 * Only the user's and the system's config name it: the repository's own
 * could name ~/.ssh/id_rsa to have it bound into the sandbox. */
static char *excludes_file(const struct lazy_git *g, const char *workdir)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char real[PATH_MAX], *path = NULL, *found = NULL;
	git_config *cfg = NULL;
	git_buf b = {0};
	struct stat st;

	if (g->git_config_open_default(&cfg) == 0 &&
	    g->git_config_get_path(&b, cfg, "core.excludesfile") == 0 && b.ptr && *b.ptr)
		path = xstrdup(b.ptr);
	else if (xdg && xdg[0] == '/')
		path = xasprintf("%s/git/ignore", xdg);
	else if (home && home[0] == '/')
		path = xasprintf("%s/.config/git/ignore", home);
	g->git_buf_dispose(&b);
	if (cfg)
		g->git_config_free(cfg);
	if (path && path[0] == '/' && realpath(path, real) && stat(real, &st) == 0 &&
	    S_ISREG(st.st_mode) && !path_contains(workdir, real))
		found = xstrdup(real);
	free(path);
	return found;
}

/* The read proper, with libgit2 (loaded): the entries, the bind appended. */
static char **identity_collect(const struct lazy_git *g, const char *workdir, char ***binds)
{
	git_config *cfg = NULL;
	char **env = NULL, *ignore;

	if ((cfg = repo_config(g, workdir)) == NULL)
		return NULL;
	/* git add -A would take what the host's global ignore file leaves out
	 * (editor files, .envrc): shown read-only, named as git's config */
	if ((ignore = excludes_file(g, workdir)) != NULL) {
		strv_push(binds, ignore);
		strv_push(&env, "GIT_CONFIG_COUNT=1");
		strv_push(&env, "GIT_CONFIG_KEY_0=core.excludesFile");
		strv_push_owned(&env, xasprintf("GIT_CONFIG_VALUE_0=%s", ignore));
		free(ignore);
	}
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

#define IDENT_WAIT_MS 2000 /* a read takes ~0.5 ms once libgit2 is loaded */
#define IDENT_MAX 65536    /* bytes of entries and binds from the child */

/* In the child: the entries as "E...\0" and binds as "B...\0" on fd. */
struct identity_arg {
	const struct lazy_git *g;
	const char *workdir;
};

static void identity_send(void *arg, int fd)
{
	const struct identity_arg *a = arg;
	char **binds = NULL, **env = identity_collect(a->g, a->workdir, &binds);
	struct buf b;

	buf_init(&b, 0);
	for (int k = 0; k < 2; k++)
		for (char **e = k ? binds : env; e && *e; e++) {
			buf_puts(&b, k ? "B" : "E");
			buf_append(&b, *e, strlen(*e) + 1);
		}
	_exit(b.len <= IDENT_MAX && fd_write_all(fd, b.data, b.len) == 0 ? 0 : 1);
}

/*
 * libgit2 reads the repository's config and every file it includes: one
 * the project holds (include.path = ../.gitconfig) a sandboxed call may
 * replace with a FIFO, on whose open() the gate blocked for good. So the
 * read runs in a child given IDENT_WAIT_MS; late, or dead, it is killed
 * and no identity is passed (git in the sandbox says it has none).
 */
char **git_identity_read(const char *workdir, char ***binds)
{
	struct identity_arg a = {NULL, workdir};
	char **env = NULL;
	struct buf b;

	if (workdir == NULL || !in_work_tree(workdir) || (a.g = lazy_git(NULL)) == NULL)
		return NULL;
	buf_init(&b, 0);
	if (child_collect(identity_send, &a, IDENT_WAIT_MS, IDENT_MAX, &b) < 0)
		b.len = 0;
	for (size_t i = 0; i < b.len; i += strlen(b.data + i) + 1)
		if (b.data[i] == 'E' || b.data[i] == 'B')
			strv_push(b.data[i] == 'E' ? &env : binds, b.data + i + 1);
	buf_free(&b);
	return env;
}
