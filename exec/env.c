/*
 * env.c: the environment a sandboxed command starts with. Rules: built from
 * nothing; only the profile's allowlist is copied from the caller, and a name
 * that looks like a secret is never copied even when allowlisted (credentials
 * come only as the policy's explicit grants); HOME is the sandbox's empty home.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "exec/exec_internal.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Substrings (upper-cased compare) that mark a variable as a secret. */
static const char *const secret_words[] = {"TOKEN", "KEY",    "SECRET",  "PASS",   "CREDENTIAL",
                                           "AUTH",  "COOKIE", "SESSION", "PRIVATE"};

/* Whole words of a name, between underscores: "PAT" alone would match
 * PATH and every PATTERN (a personal access token: GH_PAT, GITHUB_PAT). */
static const char *const secret_parts[] = {"PAT", "PW", "DSN"};

static bool name_has_part(const char *up, const char *part)
{
	size_t n = strlen(part);

	for (const char *p = strstr(up, part); p; p = strstr(p + 1, part))
		if ((p == up || p[-1] == '_') && (p[n] == '\0' || p[n] == '_'))
			return true;
	return false;
}

bool env_name_secret(const char *name)
{
	char up[256];
	size_t i;

	for (i = 0; name[i] && name[i] != '=' && i + 1 < sizeof(up); i++)
		up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < nitems(secret_words); k++)
		if (strstr(up, secret_words[k]))
			return true;
	for (size_t k = 0; k < nitems(secret_parts); k++)
		if (name_has_part(up, secret_parts[k]))
			return true;
	return false;
}

/* A value that holds a secret's shape (a token, a private key) is not
 * copied whatever its name: `env = G*` passed GH_PAT=ghp_... into the
 * sandbox, and a name no list can foresee may carry one. */
static bool env_value_secret(const char *value)
{
	struct span sp;

	return classify_find_secret(value, strlen(value), &sp) != NULL;
}

static bool allowed(char *const *allow, const char *name)
{
	for (char *const *a = allow; a && *a; a++)
		if (fnmatch(*a, name, 0) == 0)
			return true;
	return false;
}

/* True when dir lies under one of the paths the profile shows from the
 * host: its home grants (relative to home) and its read-only and
 * read-write grants (absolute). */
static bool path_shown(const struct profile *p, const char *dir, const char *home)
{
	char *const *lists[] = {p->home, p->read_only, p->read_write};
	bool shown = false;

	for (size_t i = 0; i < nitems(lists) && !shown; i++)
		for (char *const *e = lists[i]; e && *e && !shown; e++) {
			const char *rel = strncmp(*e, "~/", 2) == 0 ? *e + 2 : *e;
			char *abs = i == 0 ? xasprintf("%s/%s", home, rel) : xstrdup(*e);
			shown = path_contains(abs, dir);
			free(abs);
		}
	return shown;
}

char *env_path_hidden(const struct profile *p, char *const *from, const char *home)
{
	const char *path = NULL;
	char *copy, *save = NULL, **dirs = NULL;
	struct buf b;

	for (char *const *e = from; e && *e && !path; e++)
		if (strncmp(*e, "PATH=", 5) == 0 && allowed(p->env, "PATH"))
			path = *e + 5;
	if (path == NULL || home == NULL || home[0] != '/' || strcmp(home, "/") == 0)
		return NULL;
	copy = xstrdup(path);
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (!path_contains(home, dir) || strcmp(home, dir) == 0 || path_shown(p, dir, home))
			continue;
		char *tilde = xasprintf("~%s", dir + strlen(home)); /* dir is below home */
		if (!strv_contains(dirs, tilde))
			strv_push(&dirs, tilde);
		free(tilde);
	}
	free(copy);
	if (dirs == NULL)
		return NULL;
	buf_init(&b, 0);
	for (char **d = dirs; *d; d++)
		buf_printf(&b, "%s%s", d == dirs ? "" : ", ", *d);
	strv_free(dirs);
	return buf_take(&b, NULL);
}

/* Where a virtual environment's interpreter lives, relative to the workdir:
 * made by a Python installed in the home (pyenv, uv, conda, asdf), it is a
 * link into the hidden home. */
static const char *const venv_pythons[] = {".venv/bin/python", "venv/bin/python"};

/* True when real (resolved) is an interpreter, INSTALL/bin/python*, a
 * regular file: the link is the workdir's, so a command could point it
 * anywhere in the home and learn from the hint what exists there. */
static bool venv_interpreter(const char *real)
{
	const char *base = strrchr(real, '/');
	struct stat st;

	return base && strncmp(base + 1, "python", 6) == 0 && base - real >= 4 &&
	       strncmp(base - 4, "/bin", 4) == 0 && stat(real, &st) == 0 && S_ISREG(st.st_mode);
}

char *env_venv_hidden(const struct profile *p, const char *wd, const char *home)
{
	char real[PATH_MAX];
	struct buf b;

	if (wd == NULL || home == NULL || home[0] != '/' || strcmp(home, "/") == 0)
		return NULL;
	buf_init(&b, 0);
	for (size_t i = 0; i < nitems(venv_pythons); i++) {
		char *link = xasprintf("%s/%s", wd, venv_pythons[i]), *bin, *inst;
		if (realpath(link, real) && path_contains(home, real) && venv_interpreter(real) &&
		    !path_shown(p, real, home) && (bin = strrchr(real, '/')) != NULL) {
			*bin = '\0'; /* INSTALL/bin: name INSTALL, which the interpreter needs whole */
			inst = strrchr(real, '/');
			if (inst && inst > real + strlen(home)) {
				*inst = '\0';
				buf_printf(&b, "%s%s leads into ~%s", b.len ? ", " : "",
				           venv_pythons[i], real + strlen(home));
			}
		}
		free(link);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b, NULL);
}

char **env_build(const struct profile *p, char *const *from, char *const *extra, const char *home)
{
	char **env = NULL;
	bool have_path = false;

	for (char *const *e = from; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || eq == *e)
			continue;
		char *name = xstrndup(*e, (size_t)(eq - *e));
		if (strcmp(name, "HOME") != 0 && allowed(p->env, name) && !env_name_secret(name) &&
		    !env_value_secret(eq + 1)) {
			strv_push(&env, *e);
			have_path |= strcmp(name, "PATH") == 0;
		}
		free(name);
	}
	if (!have_path)
		strv_push(&env, "PATH=" DEFAULT_PATH);
	strv_push_owned(&env, xasprintf("HOME=%s", home));
	for (char *const *e = extra; e && *e; e++)
		strv_push(&env, *e);
	return env;
}
