/*
 * hooks_path.c: the directory git takes its hooks from when a config sets
 * core.hooksPath (`.githooks`, `tools/hooks`): a file write_file or
 * edit_file puts there runs at the next commit on the host, and those tools
 * are not sandboxed. Reads the repository's .git/config and the user's git
 * config (bounded, regular files only, never a FIFO), only for a file
 * tool's write into the workdir. Includes are not followed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

#define HOOKS_CONFIG_MAX 65536 /* a config longer than this is read this far */

/* The text of the regular file path, at most HOOKS_CONFIG_MAX bytes;
 * NULL when there is none. Caller frees. */
static char *read_small(const char *path)
{
	struct stat st;
	ssize_t n;
	char *buf;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = xmalloc(HOOKS_CONFIG_MAX + 1);
	n = read(fd, buf, HOOKS_CONFIG_MAX);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* The value of a line's `hooksPath = VALUE` (p after the key), quotes and
 * a trailing comment taken off, into out. */
static bool config_value(const char *p, const char *end, char *out, size_t outsz)
{
	size_t n = 0;
	bool q = false;

	p += strspn(p, " \t");
	if (p >= end || *p != '=')
		return false;
	for (p++, p += strspn(p, " \t"); p < end && n + 1 < outsz; p++) {
		if (*p == '"') {
			q = !q;
			continue;
		}
		if (!q && (*p == ';' || *p == '#'))
			break;
		if (*p == '\\' && p + 1 < end)
			p++;
		out[n++] = *p;
	}
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r'))
		n--;
	out[n] = '\0';
	return n > 0;
}

/* The last core.hooksPath the config text t sets, into out. */
static bool config_hooks_path(const char *t, char *out, size_t outsz)
{
	bool core = false, found = false;

	for (const char *l = t; *l;) {
		const char *end = strchr(l, '\n'), *p = l + strspn(l, " \t");
		if (end == NULL)
			end = l + strlen(l);
		if (*p == '[') { /* [core] or [core] hooksPath = x on one line */
			const char *e = memchr(p, ']', (size_t)(end - p));
			core = e && e - p - 1 == 4 && strncasecmp(p + 1, "core", 4) == 0;
			p = e ? e + 1 + strspn(e + 1, " \t") : end;
		}
		if (core && end - p > 9 && strncasecmp(p, "hookspath", 9) == 0 &&
		    config_value(p + 9, end, out, outsz))
			found = true;
		l = *end ? end + 1 : end;
	}
	return found;
}

/* Whether abs lies in the hooks directory that the config file conf sets,
 * a relative one taken from the work tree wd. */
static bool in_hooks_path(struct cctx *x, const char *conf, const char *abs, char *dir,
                          size_t dirsz)
{
	char v[CLS_MAX_PATH], p[CLS_MAX_PATH], *text = read_small(conf);
	bool set = text && config_hooks_path(text, v, sizeof(v));
	int n;

	free(text);
	if (!set)
		return false;
	if (v[0] == '~' && v[1] == '/')
		n = snprintf(p, sizeof(p), "%s%s", x->home, v + 1);
	else
		n = snprintf(p, sizeof(p), "%s%s%s", v[0] == '/' ? "" : x->wd,
		             v[0] == '/' ? "" : "/", v);
	if (n < 0 || (size_t)n >= sizeof(p) || !paths_resolve(x, p, dir, dirsz))
		return false;
	return path_contains(dir, abs);
}

void hooks_path_write(struct cctx *x, const char *abs, struct span sp)
{
	char conf[CLS_MAX_PATH], dir[CLS_MAX_PATH];
	static const char *const confs[] = {"/.git/config", "/.gitconfig", "/.config/git/config"};

	if (x->wd == NULL || paths_class(x, abs) != PC_WORKDIR)
		return;
	for (size_t i = 0; i < nitems(confs); i++) {
		int n = snprintf(conf, sizeof(conf), "%s%s", i == 0 ? x->wd : x->home, confs[i]);
		if (n < 0 || (size_t)n >= sizeof(conf) || !in_hooks_path(x, conf, abs, dir, sizeof(dir)))
			continue;
		cls_add(x, TIER_HIGH, "fs.write.git_config", sp,
		        "writes %s in %s, which core.hooksPath makes git's hooks directory", abs, dir);
		return;
	}
}
