/*
 * state.c: airlock's state directory ($XDG_STATE_HOME/airlock, else
 * ~/.local/state/airlock), where a guarded run's pending record, the
 * default audit log and what one process keeps for the next lie. Rules:
 * it is private (0700, made so); a file in it for a workdir is refused
 * when the state directory lies in that workdir or holds it, judged where
 * it really is, since a sandbox that can write the workdir could then
 * write the file; and every kept file is refused when the state directory
 * lies in a repository or project (another call's workdir could hold it).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/state.h"
#include "core/util.h"

/* The state directory must be compared with the workdir where it really
 * is: GNU stow links ~/.local into a dotfiles repository when it holds
 * .local/bin, and with that repository the workdir, a sandbox rewrote the
 * kept search so that the next call showed a .env unmasked (a text test
 * saw ~/.local/state apart from ~/dots). */
/* Cuts head to its longest part that realpath() resolves, into real;
 * false when none does. A stat() finds that part first: a realpath() of
 * a path that does not exist walks every component with a readlink()
 * before it fails, and ~/.config/git/config, where there is no
 * ~/.config, failed three times so (12 readlink()s where 3 stat()s find
 * ~). What stat() cannot reach realpath() cannot resolve. */
static bool head_resolve(char *head, char real[PATH_MAX])
{
	struct stat st;
	bool found;

	while (stat(head, &st) < 0 && path_up(head))
		;
	while (!(found = realpath(head, real) != NULL) && path_up(head))
		;
	return found;
}

/* path's longest existing part resolved, the rest appended as it is (a new
 * string); NULL when the rest holds a "." or "..". */
static char *resolved_once(const char *path)
{
	char *head = xstrdup(path), real[PATH_MAX], *out = NULL;
	const char *rest;
	bool found = head_resolve(head, real);

	rest = path + strlen(head);
	for (const char *c = rest + strspn(rest, "/"); found && *c; c += strspn(c, "/")) {
		size_t n = strcspn(c, "/");
		found = !(n == 1 && c[0] == '.') && !(n == 2 && c[0] == '.' && c[1] == '.');
		c += n;
	}
	if (found) /* head is "/" or ends where a "/" follows */
		out = xasprintf("%s%s", strcmp(real, "/") == 0 && rest[0] == '/' ? "" : real, rest);
	free(head);
	return out;
}

static char *path_resolve(const char *path)
{
	char *cur = resolved_once(path), target[PATH_MAX];

	/* its first missing part may be a link to nothing yet (realpath()
	 * fails on it): followed, as the kernel will once its target exists */
	for (int hops = 0; cur && hops < 40; hops++) {
		char *head = xstrdup(cur), real[PATH_MAX], *next;
		ssize_t n;
		(void)head_resolve(head, real);
		const char *rest = cur + strlen(head), *first = rest + strspn(rest, "/");
		size_t len = strcspn(first, "/");
		char *link = xasprintf("%s/%.*s", strcmp(real, "/") == 0 ? "" : real, (int)len, first);
		n = len ? readlink(link, target, sizeof(target) - 1) : -1;
		free(link);
		free(head);
		if (n <= 0)
			return cur;
		target[n] = '\0';
		next = target[0] == '/' ? xasprintf("%s%s", target, first + len)
		                        : xasprintf("%s/%s%s", strcmp(real, "/") == 0 ? "" : real,
		                                    target, first + len);
		free(cur);
		cur = resolved_once(next);
		free(next);
	}
	free(cur);
	return NULL; /* a loop of links */
}

/*
 * One call's resolutions, per thread, from state_hold() to the matching
 * state_release(): a sandboxed call asks for the state directory five or
 * more times (kept search, kept git config, pending record, its update
 * and its end), and each answer cost two realpath()s of every component
 * of it and of the home (~60 readlink()s a call). Nothing is kept across
 * calls, or past a change of XDG_STATE_HOME or HOME, so a link changed
 * between calls is seen by the next, as before.
 */
#define HELD_PATHS 16

struct state_held {
	unsigned depth;
	size_t npaths;
	char *path[HELD_PATHS], *real[HELD_PATHS]; /* state_path_resolved()'s; owned */
	bool root_known, home_known;
	char *root;     /* state_root()'s answer (may be NULL); owned */
	char *root_env; /* the "XDG_STATE_HOME\nHOME" it was made from; owned */
	char home[PATH_MAX]; /* HOME resolved, or "" */
	char *home_env; /* the HOME it was made from; owned */
};
static __thread struct state_held held;

void state_hold(void)
{
	held.depth++;
}

void state_forget(void)
{
	unsigned depth = held.depth;

	for (size_t i = 0; i < held.npaths; i++) {
		free(held.path[i]);
		free(held.real[i]);
	}
	free(held.root);
	free(held.root_env);
	free(held.home_env);
	memset(&held, 0, sizeof(held));
	held.depth = depth;
}

void state_release(void)
{
	if (held.depth == 0 || --held.depth > 0)
		return;
	state_forget();
}

char *state_path_resolved(const char *path)
{
	char *real;

	for (size_t i = 0; held.depth && i < held.npaths; i++)
		if (strcmp(held.path[i], path) == 0)
			return held.real[i] ? xstrdup(held.real[i]) : NULL;
	real = path_resolve(path);
	if (held.depth && held.npaths < HELD_PATHS) {
		held.path[held.npaths] = xstrdup(path);
		held.real[held.npaths++] = real ? xstrdup(real) : NULL;
	}
	return real;
}

/* The environment an answer depends on, as one string (new). */
static char *env_pair(const char *a, const char *b)
{
	return xasprintf("%c%s\n%c%s", a ? '+' : '-', a ? a : "", b ? '+' : '-', b ? b : "");
}

static char *state_root_resolve(const char *state, const char *home)
{
	char *root = NULL, *real;

	if (state && state[0] == '/')
		root = xasprintf("%s/airlock", state);
	else if (home && home[0] == '/')
		root = xasprintf("%s/.local/state/airlock", home);
	if (root == NULL)
		return NULL;
	real = state_path_resolved(root);
	free(root);
	return real;
}

char *state_root(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *env;

	if (held.depth == 0)
		return state_root_resolve(state, home);
	env = env_pair(state, home);
	if (!held.root_known || strcmp(held.root_env, env) != 0) {
		free(held.root);
		free(held.root_env);
		held.root = state_root_resolve(state, home);
		held.root_env = env;
		held.root_known = true;
	} else {
		free(env);
	}
	return held.root ? xstrdup(held.root) : NULL;
}

/* HOME resolved into home (PATH_MAX), or "" when unset, relative or
 * missing; once per held call. */
static void home_resolved(char *home)
{
	const char *h = getenv("HOME");
	char *env;

	if (held.depth == 0) {
		if (!h || h[0] != '/' || !realpath(h, home))
			home[0] = '\0';
		return;
	}
	env = env_pair(h, NULL);
	if (!held.home_known || strcmp(held.home_env, env) != 0) {
		if (!h || h[0] != '/' || !realpath(h, held.home))
			held.home[0] = '\0';
		free(held.home_env);
		held.home_env = env;
		held.home_known = true;
	} else {
		free(env);
	}
	memcpy(home, held.home, PATH_MAX);
}

/* The sub directory sub of the state directory root, as a new string;
 * NULL when it lies in wd or holds it (the sandbox could write it). */
static char *dir_of(const char *root, const char *wd, const char *sub)
{
	char *dir = xasprintf("%s/%s", root, sub);

	if (path_contains(wd, dir) || path_contains(dir, wd)) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *state_dir(const char *wd, const char *sub)
{
	char *root = state_root(), *dir = root ? dir_of(root, wd, sub) : NULL;

	free(root);
	return dir;
}

/* The workdir's part of a file name: FNV-1a of its path, in hex. */
void state_key(const char *wd, char key[17])
{
	uint64_t h = 1469598103934665603ULL;

	for (const unsigned char *p = (const unsigned char *)wd; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	snprintf(key, 17, "%016llx", (unsigned long long)h);
}

/* Makes dir and its parents, private; -1 when it cannot. */
int state_dir_make(const char *dir)
{
	char *p;
	int rc = 0;

	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0; /* one system call, every run but the first */
	p = xstrdup(dir);
	for (char *s = strchr(p + 1, '/'); rc == 0 && s; s = strchr(s + 1, '/')) {
		*s = '\0';
		rc = mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
		*s = '/';
	}
	if (rc == 0 && mkdir(p, 0700) < 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* Marks of a directory another call may have as its workdir: a repository
 * or a project with a policy file. */
static const char *const project_marks[] = {".git", ".hg", ".jj", ".airlock"};

/* True when a directory above the resolved state directory root, other
 * than the home (never a workdir: `airlock exec` refuses it), holds a
 * project mark. A call whose workdir holds the state directory can write
 * the files kept there for every other workdir: GNU stow links ~/.local
 * into a dotfiles repository, and a sandboxed call in that repository
 * rewrote the policy reading kept for another project, whose next call
 * ran what its deny rule names. state_dir() sees only its own workdir.
 * About an lstat a level; the answer is kept for the process. */
static bool root_in_project(const char *root)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char *last_root, *last_home;
	static bool last;
	char home[PATH_MAX], *dir;
	bool in = false;

	home_resolved(home);
	pthread_mutex_lock(&lock);
	if (last_root && strcmp(last_root, root) == 0 && strcmp(last_home, home) == 0) {
		in = last;
		goto out;
	}
	dir = xstrdup(root);
	while (!in && path_up(dir)) {
		struct stat st;
		if (strcmp(dir, home) == 0)
			continue;
		for (size_t i = 0; !in && i < nitems(project_marks); i++) {
			char *mark = xasprintf("%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
			                       project_marks[i]);
			in = lstat(mark, &st) == 0;
			free(mark);
		}
	}
	free(dir);
	free(last_root);
	free(last_home);
	last_root = xstrdup(root);
	last_home = xstrdup(home);
	last = in;
out:
	pthread_mutex_unlock(&lock);
	return in;
}

char *state_file(const char *wd, const char *sub)
{
	char key[17], *root = state_root(), *dir = NULL, *path;

	if (root && !root_in_project(root))
		dir = dir_of(root, wd, sub);
	free(root);
	if (dir == NULL || state_dir_make(dir) < 0) {
		free(dir);
		return NULL;
	}
	state_key(wd, key);
	path = xasprintf("%s/%s", dir, key);
	free(dir);
	return path;
}
