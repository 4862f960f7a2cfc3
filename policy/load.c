/*
 * load.c: reads the policy layers (user, project, --policy FILE) through
 * libgit2's config API and merges them over the compiled-in defaults.
 * Rules it keeps: a file writable by group or others, or owned by another
 * user (root excepted), is an error, like doas.conf; with no file at any
 * layer libgit2 is never loaded; errors name file, section, key and line.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lazy.h"
#include "core/util.h"
#include "policy/policy_internal.h"

enum layer_kind { LAYER_USER, LAYER_PROJECT, LAYER_FILE };

static const struct {
	const char *what;
	int level; /* libgit2 priority level */
} layer_info[] = {
	[LAYER_USER] = {"user", GIT_CONFIG_LEVEL_GLOBAL},
	[LAYER_PROJECT] = {"project", GIT_CONFIG_LEVEL_LOCAL},
	[LAYER_FILE] = {"--policy", GIT_CONFIG_LEVEL_APP},
};

struct layer {
	enum layer_kind kind;
	char *path;
	bool exists, must_exist;
	int origin;
};

/* One config entry, copied out of libgit2. */
struct entry {
	int level;
	size_t seq;
	char *name, *value; /* value NULL: a key with no '=' */
};

int policy_check_file_mode(const char *path, bool must_exist, bool *exists, char **errstr)
{
	struct stat st;
	int fd;

	*exists = false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return 0;
		*errstr = xasprintf("%s: cannot read policy file: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*errstr = xasprintf("%s: not a regular file", path);
		close(fd);
		return -1;
	}
	close(fd);
	*exists = true;
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*errstr = xasprintf("%s: unsafe permissions %04o: writable by %s (chmod go-w %s)",
		                    path, (unsigned)(st.st_mode & 07777),
		                    st.st_mode & S_IWOTH ? "others" : "group", path);
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		*errstr = xasprintf("%s: unsafe owner uid %u: owned by another user (chown it or "
		                    "remove it)", path, (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

static char *home_fallback(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return xstrdup(h);
	pw = getpwuid(geteuid());
	return xstrdup(pw ? pw->pw_dir : "/");
}

/* Finds the layers that exist; returns how many, -1 on a permission error. */
static int layers_find(struct policy *p, const struct policy_source *src, struct layer *ly,
                       size_t *n, struct load_errors *le)
{
	int found = 0;

	*n = 0;
	if (src->home)
		ly[(*n)++] = (struct layer){.kind = LAYER_USER,
		                            .path = xasprintf("%s/.config/airlock/policy", src->home)};
	if (src->workdir)
		ly[(*n)++] = (struct layer){.kind = LAYER_PROJECT,
		                            .path = xasprintf("%s/.airlock/policy", src->workdir)};
	if (src->file)
		ly[(*n)++] = (struct layer){.kind = LAYER_FILE, .path = xstrdup(src->file),
		                            .must_exist = true};
	for (size_t i = 0; i < *n; i++) {
		char *err = NULL;
		if (policy_check_file_mode(ly[i].path, ly[i].must_exist, &ly[i].exists, &err) < 0)
			load_error_add(le, "%s", err);
		free(err);
		if (!ly[i].exists)
			continue;
		found++;
		ly[i].origin = policy_origin_add(p, ly[i].path);
		if (ly[i].kind == LAYER_USER)
			p->user_layer = ly[i].origin;
		if (ly[i].kind == LAYER_PROJECT)
			p->project_layer = ly[i].origin;
	}
	return le->n ? -1 : found;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Opens the existing layers in one git_config and copies every entry out. */
static int entries_read(const struct lazy_git *g, struct layer *ly, size_t n,
                        struct entry **out, size_t *nout, struct load_errors *le)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	int rc = -1;

	if (g->git_config_new(&cfg) < 0)
		goto gitfail;
	for (size_t i = 0; i < n; i++) {
		if (ly[i].exists &&
		    g->git_config_add_file_ondisk(cfg, ly[i].path, layer_info[ly[i].kind].level,
		                                  NULL, 0) < 0)
			goto gitfail;
	}
	if (g->git_config_iterator_new(&it, cfg) < 0)
		goto gitfail;
	while (g->git_config_next(&e, it) == 0) {
		if (*nout == POLICY_MAX_ENTRIES) {
			load_error_add(le, "more than %d policy entries in all files: refusing them",
			               POLICY_MAX_ENTRIES);
			goto out;
		}
		*out = xreallocarray(*out, *nout + 1, sizeof(**out));
		(*out)[*nout] = (struct entry){e->level, *nout, xstrdup(e->name), xstrdup(e->value)};
		(*nout)++;
	}
	if (*nout > 1)
		qsort(*out, *nout, sizeof(**out), entry_cmp);
	rc = 0;
	goto out;
gitfail:
	load_error_add(le, "%s", g->git_error_last() ? g->git_error_last()->message
	                                             : "libgit2 failed to read the policy");
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	return rc;
}

static const struct layer *layer_of(const struct layer *ly, size_t n, int level)
{
	for (size_t i = 0; i < n; i++)
		if (ly[i].exists && layer_info[ly[i].kind].level == level)
			return &ly[i];
	return NULL;
}

/* trust-project counts only from the user file and --policy FILE. */
static bool trust_scan(const struct lazy_git *g, const struct entry *en, size_t n)
{
	bool trust = false;

	for (size_t i = 0; i < n; i++) {
		int b = 0;
		if (en[i].level == GIT_CONFIG_LEVEL_LOCAL ||
		    strcmp(en[i].name, "policy.trust-project") != 0)
			continue;
		if (en[i].value == NULL || g->git_config_parse_bool(&b, en[i].value) == 0)
			trust = en[i].value == NULL || b;
	}
	return trust;
}

/* include.path targets are policy files too: the same permission rules. */
static void include_check(const struct policy *p, const struct layer *l, const char *value,
                          struct load_errors *le)
{
	char *path, *dir, *err = NULL;
	const char *slash = strrchr(l->path, '/');
	bool exists;

	dir = slash ? xstrndup(l->path, (size_t)(slash - l->path)) : xstrdup(".");
	if (strncmp(value, "~/", 2) == 0)
		path = xasprintf("%s/%s", p->home, value + 2);
	else
		path = value[0] == '/' ? xstrdup(value) : xasprintf("%s/%s", dir, value);
	if (policy_check_file_mode(path, false, &exists, &err) < 0)
		load_error_add(le, "%s (included from %s)", err, l->path);
	free(err);
	free(path);
	free(dir);
}

static void entries_apply(struct policy *p, const struct lazy_git *g, const struct layer *ly,
                          size_t nl, const struct entry *en, size_t n, struct load_errors *le)
{
	struct load_ctx cx = {.p = p, .git = g, .le = le};

	p->trust_project = trust_scan(g, en, n);
	for (size_t i = 0; i < n; i++) {
		const struct layer *l = layer_of(ly, nl, en[i].level);
		if (l == NULL)
			continue; /* cannot happen: every level we add is a layer */
		cx.path = l->path;
		cx.origin = l->origin;
		cx.untrusted = l->kind == LAYER_PROJECT && !p->trust_project;
		if (strcmp(en[i].name, "include.path") == 0 && en[i].value)
			include_check(p, l, en[i].value, le);
		load_apply_entry(&cx, en[i].name, en[i].value);
	}
}

static int load_files(struct policy *p, const struct policy_source *src, char **errstr)
{
	struct layer ly[3] = {0};
	struct load_errors le = {0};
	struct entry *en = NULL;
	const struct lazy_git *g;
	size_t nl = 0, n = 0;
	int rc = -1, found = layers_find(p, src, ly, &nl, &le);

	if (found <= 0) {
		rc = found;
		goto out;
	}
	if ((g = lazy_git(errstr)) == NULL)
		goto out;
	if (entries_read(g, ly, nl, &en, &n, &le) < 0)
		goto out;
	entries_apply(p, g, ly, nl, en, n, &le);
	load_finish(p, &le);
	rc = le.n ? -1 : 0;
out:
	if (le.n)
		*errstr = load_errors_take(&le);
	for (size_t i = 0; i < n; i++) {
		free(en[i].name);
		free(en[i].value);
	}
	free(en);
	for (size_t i = 0; i < nl; i++)
		free(ly[i].path);
	return rc;
}

int policy_load(const struct policy_source *src, struct policy **out, char **errstr)
{
	struct policy *p = xcalloc(1, sizeof(*p));
	int rc = -1;

	p->workdir = src->workdir ? xstrdup(src->workdir) : getcwd(NULL, 0);
	if (p->workdir == NULL)
		p->workdir = xstrdup("/");
	p->home = src->home ? xstrdup(src->home) : home_fallback();
	policy_defaults_apply(p);
	if (!src->defaults_only && load_files(p, src, errstr) < 0)
		goto out;
	p->session_origin = policy_origin_add(p, "session");
	rc = 0;
out:
	if (rc < 0) {
		policy_free(p);
		p = NULL;
	}
	*out = p;
	return rc;
}
