/*
 * load.c: reads the policy layers (user, project, --policy FILE) through
 * libgit2's config API and merges them over the compiled-in defaults.
 * Rules it keeps: a file writable by group or others, or owned by another
 * user (root excepted), is an error, like doas.conf; with no file at any
 * layer libgit2 is never loaded; errors name file, section, key and line.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kept.h"
#include "core/lazy.h"
#include "core/state.h"
#include "core/util.h"
#include "exec/exec.h"
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

/* user, the project files (outermost first), --policy FILE */
#define LAYERS_MAX (POLICY_MAX_PROJECT_FILES + 2)

struct layer {
	enum layer_kind kind;
	char *path;
	const char *root; /* a project layer's directory: anchors its patterns */
	bool exists, must_exist;
	bool nested;      /* a project layer inside another: stricter only */
	int origin;
	const char *foreign; /* a project layer's first file read outside the project */
};

/* The project layers' directories, outermost first; owned. */
struct project_roots {
	char *dir[POLICY_MAX_PROJECT_FILES];
	size_t n;
};

/* One config entry, copied out of libgit2. */
struct entry {
	size_t layer;       /* index into the layers, which are in merge order */
	char *name, *value; /* value NULL: a key with no '=' */
	struct entry_typed typed;
};

static void entries_free(struct entry *en, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(en[i].name);
		free(en[i].value);
	}
	free(en);
}

/* True when path, or the directory holding it, is a symbolic link to
 * nothing: a policy file that is there but cannot be read, not an absent
 * one (removing a link's target must not drop the rules silently). */
static bool dangling(const char *path)
{
	struct stat st;
	char *dir;
	bool link;

	if (lstat(path, &st) == 0)
		return true; /* open() said ENOENT: only a link to nothing is there */
	dir = xstrdup(path);
	link = path_up(dir) && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && stat(dir, &st) < 0;
	free(dir);
	return link;
}

/* Opens a policy file without blocking (a FIFO must not hang the load) and
 * checks its type, owner and mode; *fd -1 when absent and !must_exist. */
static int file_open_checked(const char *path, bool must_exist, int *fd, char **errstr)
{
	struct stat st;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		int err = errno;
		if (err == ENOENT && !must_exist && !dangling(path))
			return 0;
		if (err == ENOENT && !must_exist)
			*errstr = xasprintf("%s: it or its directory is a symbolic link to nothing: "
			                    "its rules cannot be read (restore the target or remove "
			                    "the link)", path);
		else
			*errstr = xasprintf("%s: cannot read policy file: %s", path, strerror(err));
		return -1;
	}
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode))
		*errstr = xasprintf("%s: not a regular file", path);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		*errstr = xasprintf("%s: unsafe permissions %04o: writable by %s (chmod go-w %s)",
		                    path, (unsigned)(st.st_mode & 07777),
		                    st.st_mode & S_IWOTH ? "others" : "group", path);
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		*errstr = xasprintf("%s: unsafe owner uid %u: owned by another user (chown it or "
		                    "remove it)", path, (unsigned)st.st_uid);
	else
		return 0;
	close(*fd);
	*fd = -1;
	return -1;
}

int policy_check_file_mode(const char *path, bool must_exist, bool *exists, char **errstr)
{
	int fd, rc = file_open_checked(path, must_exist, &fd, errstr);

	*exists = fd >= 0;
	if (fd >= 0)
		close(fd);
	return rc;
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

/* True when dir holds a .airlock/policy that is a project layer for workdir:
 * a file or a link (a bad link or mode is found, then refused), or a
 * .airlock that cannot be searched or is a link to nothing (its rules
 * cannot be read: refused, where they used to be passed over). */
static bool project_file_at(const char *dir, const char *workdir)
{
	char *ad = xasprintf("%s/.airlock", strcmp(dir, "/") == 0 ? "" : dir), *path;
	struct stat st, pst;
	bool found = lstat(ad, &st) == 0; /* where it is absent, one lstat as before */

	if (found) {
		path = xasprintf("%s/policy", ad);
		if (lstat(path, &pst) == 0)
			st = pst;
		else if (errno != ENOENT && errno != ENOTDIR)
			found = true; /* unreadable (EACCES): there, so refused, not passed over */
		else
			found = errno == ENOENT && S_ISLNK(st.st_mode) && stat(ad, &pst) < 0;
		free(path);
	}
	free(ad);
	/* above the workdir, another user's file is not this project's: in /tmp
	 * anyone could plant one, and it would fail every load below */
	return found && (strcmp(dir, workdir) == 0 || st.st_uid == geteuid() || st.st_uid == 0);
}

size_t policy_project_roots(const char *workdir, char **dirs, size_t max)
{
	char *dir = xstrdup(workdir);
	size_t n = strlen(dir), total = 0, kept;
	bool plain = dir[0] == '/' && strstr(dir, "/./") == NULL && strstr(dir, "/../") == NULL &&
	             !(n >= 2 && strcmp(dir + n - 2, "/.") == 0) &&
	             !(n >= 3 && strcmp(dir + n - 3, "/..") == 0);

	for (;;) {
		if (project_file_at(dir, workdir) && total++ < max)
			dirs[total - 1] = xstrdup(dir); /* innermost first, for now */
		if (!plain || !path_up(dir))
			break;
	}
	free(dir);
	kept = total < max ? total : max;
	for (size_t i = 0; i < kept / 2; i++) { /* outermost first */
		char *t = dirs[i];
		dirs[i] = dirs[kept - 1 - i];
		dirs[kept - 1 - i] = t;
	}
	return total;
}

/* Finds the layers that exist; returns how many, -1 on a permission error. */
static int layers_find(struct policy *p, const struct policy_source *src,
                       const struct project_roots *pr, struct layer *ly, size_t *n,
                       struct load_errors *le)
{
	int found = 0;

	*n = 0;
	if (src->home)
		ly[(*n)++] = (struct layer){.kind = LAYER_USER,
		                            .path = xasprintf("%s/.config/airlock/policy", src->home)};
	for (size_t i = 0; i < pr->n; i++)
		ly[(*n)++] = (struct layer){.kind = LAYER_PROJECT, .root = pr->dir[i], .nested = i > 0,
		                            .path = xasprintf("%s/.airlock/policy", pr->dir[i])};
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
		if (ly[i].kind == LAYER_PROJECT && !ly[i].nested)
			p->project_layer = ly[i].origin; /* the outermost: where saves go */
	}
	return le->n ? -1 : found;
}

/* The value v read as a boolean and as a number, as keys.c takes them. */
static struct entry_typed typed_of(const struct lazy_git *g, const char *v)
{
	struct entry_typed t = {.bool_v = 1, .int_rc = -1};

	if (v != NULL) {
		t.bool_rc = g->git_config_parse_bool(&t.bool_v, v) < 0 ? -1 : 0;
		t.int_rc = g->git_config_parse_int64(&t.int_v, v) < 0 ? -1 : 0;
	}
	return t;
}

/*
 * Reads one layer through a git_config of its own and appends its entries:
 * libgit2 takes one file per level in a config (a second is GIT_EEXISTS),
 * and so each file's [include] still resolves from that file.
 */
static int layer_read(const struct lazy_git *g, const struct layer *ly, size_t li,
                      struct entry **out, size_t *nout, struct load_errors *le)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	int rc = -1;

	if (g->git_config_new(&cfg) < 0 ||
	    g->git_config_add_file_ondisk(cfg, ly[li].path, layer_info[ly[li].kind].level, NULL,
	                                  0) < 0 ||
	    g->git_config_iterator_new(&it, cfg) < 0) {
		load_error_add(le, "%s: %s", ly[li].path,
		               g->git_error_last() ? g->git_error_last()->message
		                                   : "libgit2 failed to read the policy");
		goto out;
	}
	while (g->git_config_next(&e, it) == 0) {
		if (*nout == POLICY_MAX_ENTRIES) {
			load_error_add(le, "more than %d policy entries in all files: refusing them",
			               POLICY_MAX_ENTRIES);
			goto out;
		}
		*out = xreallocarray(*out, *nout + 1, sizeof(**out));
		(*out)[(*nout)++] = (struct entry){li, xstrdup(e->name), xstrdup(e->value),
		                                   typed_of(g, e->value)};
	}
	rc = 0;
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	return rc;
}

/* Copies out the existing layers' entries, in merge order (the layers'). */
static int entries_read(const struct lazy_git *g, const struct layer *ly, size_t n,
                        struct entry **out, size_t *nout, struct load_errors *le)
{
	for (size_t i = 0; i < n; i++)
		if (ly[i].exists && layer_read(g, ly, i, out, nout, le) < 0)
			return -1;
	return 0;
}

/* trust-project counts only from the user file and --policy FILE. */
static bool trust_scan(const struct layer *ly, const struct entry *en, size_t n)
{
	bool trust = false;

	for (size_t i = 0; i < n; i++) {
		if (ly[en[i].layer].kind == LAYER_PROJECT ||
		    strcmp(en[i].name, "policy.trust-project") != 0)
			continue;
		if (en[i].value == NULL || en[i].typed.bool_rc == 0)
			trust = en[i].value == NULL || en[i].typed.bool_v;
	}
	return trust;
}

/*
 * Includes are checked before libgit2 reads anything: it would open a FIFO
 * include with a blocking open() (a cloned repository could hang every
 * call) and read a nested include relative to its own file. So each layer
 * is read here through a checked descriptor, and every [include] path it
 * holds is resolved as libgit2 does and checked in turn, to libgit2's depth.
 * The scan finds more than libgit2 would rather than less: a `path` key in
 * any section, after any ']' of a header line; a value with quotes or backslashes
 * (whose meaning needs git's unescaping) is refused. It reads lines as
 * libgit2 does: a UTF-8 BOM skipped, a line ended by \n only, and \v, \f
 * and \r blanks like a space (else "\v path = fifo" hid an include).
 */
#define INCLUDE_DEPTH 10          /* libgit2's limit */
#define POLICY_MAX_FILE (16 << 20) /* bytes in one policy file */
/* Files read and bytes in all, every layer and include: a file that
 * includes the next 50 times, 10 deep, was 50^10 reads, and every load
 * (each hook call, the gate's start) hung; libgit2 would read as many. */
#define POLICY_MAX_READS 256
#define POLICY_MAX_TEXT (64u << 20)

struct scan_budget {
	size_t files, bytes;
	bool said;
};

struct include_scan {
	struct policy *p;
	struct load_errors *le;
	const char *top; /* the layer's file, for messages */
	struct buf *read; /* each file's path and text, in the order read (kept below) */
	const char *confine; /* a project layer's: the project */
	const char *foreign; /* the first file it read outside confine, or NULL */
	struct scan_budget *budget; /* shared by every layer's scan */
};

static void include_scan_file(struct include_scan *sc, const char *path, bool must_exist,
                              int depth);

/* libgit2's blanks (git__isspace): a line break other than \n is one too. */
static bool cfg_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Checks one include value of the file at `from`, then its own includes. */
static void include_follow(struct include_scan *sc, const char *from, const char *val,
                           size_t n, int depth)
{
	const char *slash = strrchr(from, '/');
	char *v = xstrndup(val, n), *path;

	if (strpbrk(v, "\"\\")) {
		load_error_add(sc->le, "%s: [include] path = %s: write include paths without "
		               "quotes or backslashes", from, v);
		free(v);
		return;
	}
	if (strncmp(v, "~/", 2) == 0) {
		/* libgit2's "~/" is $HOME as it stands (a list when it holds a
		 * ':'), not the policy's home: the hook's is the passwd entry's
		 * when $HOME is not absolute, and the scan checked, and the
		 * reading was kept beside, another file than libgit2 read */
		const char *home = getenv("HOME");
		if (home == NULL || home[0] == '\0' || strchr(home, ':')) {
			load_error_add(sc->le, "%s: [include] path = %s: \"~/\" needs $HOME set to "
			               "one directory", from, v);
			free(v);
			return;
		}
		path = xasprintf("%s/%s", home, v + 2);
	} else if (v[0] == '/' || slash == NULL)
		path = xstrdup(v);
	else
		path = xasprintf("%.*s/%s", (int)(slash - from), from, v);
	if (depth >= INCLUDE_DEPTH)
		load_error_add(sc->le, "%s: includes nested deeper than %d (included from %s)",
		               path, INCLUDE_DEPTH, sc->top);
	else
		include_scan_file(sc, path, true, depth + 1); /* a missing one is an error */
	free(path);
	free(v);
}

/* Whether [s, end) holds one of the bytes in set. */
static bool span_has(const char *s, const char *end, const char *set)
{
	for (; s < end; s++)
		if (*s && strchr(set, *s))
			return true;
	return false;
}

/*
 * git-config takes a value's double quotes out wherever they stand, so
 * `deny = Shell(cat "my file")` is read as Shell(cat my file), three
 * words, and `cat "my file"` was not denied while `policy check` said ok
 * (fifth policy review). A pattern (a rule's or a credential's `for`)
 * whose quoted part holds a blank or a glob character would mean another
 * thing, so it is an error; quotes around the whole value, escaped ones
 * (\") and quotes around a plain word (the same word to the shell) are not.
 */
static void pattern_quote_check(struct include_scan *sc, const char *from, const char *key,
                                size_t klen, const char *v, const char *end)
{
	static const char *const keys[] = {"allow", "ask", "deny", "allow-critical", "ask-critical",
	                                     "for"};
	const char *open = NULL, *s = v, *tail;
	size_t k = 0;

	while (k < nitems(keys) && (strlen(keys[k]) != klen || strncasecmp(key, keys[k], klen)))
		k++;
	for (; k < nitems(keys) && s < end; s++) {
		if (*s == '\\' && s + 1 < end) {
			s++;
		} else if (open == NULL && (*s == ';' || *s == '#')) {
			break;
		} else if (*s == '"' && open == NULL) {
			open = s;
		} else if (*s == '"') {
			for (tail = s + 1; tail < end && cfg_blank(*tail); tail++)
				;
			if (!(open == v && (tail == end || *tail == ';' || *tail == '#')) &&
			    span_has(open + 1, s, " \t*?[")) {
				/* not the text of a file outside the project (it may hold
				 * a token, and the hook hands the agent load errors) */
				load_error_add(sc->le, "%s: %.*s = %.*s: git-config takes out the double "
				               "quotes, and the pattern would mean another one (quote the "
				               "whole value and escape the inner quotes as \\\", or use "
				               "single quotes)", from, (int)klen, key,
				               sc->foreign ? 3 : (int)(end - v), sc->foreign ? "..." : v);
				return;
			}
			open = NULL;
		}
	}
}

/* A `path = VALUE` at s (after blanks), followed as an include; a rule's
 * pattern is checked for git-config's quotes; anything else (another
 * header, another key) is passed over. */
static void include_key(struct include_scan *sc, const char *from, const char *s,
                        const char *end, int depth)
{
	const char *key;
	size_t klen, n;

	while (s < end && cfg_blank(*s))
		s++;
	for (key = s; s < end && (isalnum((unsigned char)*s) || *s == '-'); s++)
		;
	klen = (size_t)(s - key);
	while (s < end && cfg_blank(*s))
		s++;
	if (s == end || *s != '=')
		return;
	for (s++; s < end && cfg_blank(*s); s++)
		;
	if (klen != 4 || strncasecmp(key, "path", 4) != 0) {
		pattern_quote_check(sc, from, key, klen, s, end);
		return;
	}
	n = strcspn(s, "#;\n");
	if (n > (size_t)(end - s))
		n = (size_t)(end - s);
	while (n && cfg_blank(s[n - 1]))
		n--;
	if (n)
		include_follow(sc, from, s, n, depth);
}

/*
 * One line. A `path` key is followed wherever libgit2 could read one: at
 * the line's start, and after every ']' of a line that opens a header
 * (libgit2 reads on after a header, "[a] [include] path = x", and where a
 * header ends depends on its quoted subsection: "[a \"]\"] [include] path
 * = x"). The section is not asked: a value continued with a backslash
 * makes the next line ("[rules]") value text to libgit2, so the "[include]"
 * before still holds for the line after it; and no section but [include]
 * has a `path` key, so one elsewhere is an error anyway. Each missed an
 * include libgit2 opened: a FIFO hung every call (fifth policy review).
 */
static void include_line(struct include_scan *sc, const char *from, const char *s,
                         size_t n, int depth)
{
	const char *end = s + n;

	while (s < end && cfg_blank(*s))
		s++;
	if (s == end || *s != '[') {
		include_key(sc, from, s, end, depth);
		return;
	}
	for (const char *c = s; c < end && (c = memchr(c, ']', (size_t)(end - c))) != NULL; c++)
		include_key(sc, from, c + 1, end, depth);
}

/* Notes the real path of a policy file read through fd (one readlink: the
 * file that was opened, not what the path names by now); returns it (owned
 * by p->files), or NULL when it cannot be told. */
static const char *file_note(struct policy *p, int fd, const char *path)
{
	char proc[64], real[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n > 0 && real[0] == '/')
		real[n] = '\0';
	else if (realpath(path, real) == NULL) /* no /proc */
		return NULL;
	strv_push(&p->files, real);
	return p->files[strv_len(p->files) - 1];
}

/*
 * A file a project layer reads from outside the project: the first one is
 * noted for the layer (see load_apply_entry: its names and values are not
 * shown in errors). A cloned repository chooses its .airlock/policy, and
 * `[include] path = ~/.gitconfig` made each of that file's entries an
 * error naming its section, `[url "https://u:TOKEN@github.com/"] insteadof:
 * unknown section`, which the hook hands the agent as its deny reason.
 */
static void file_foreign(struct include_scan *sc, const char *real)
{
	if (sc->confine && sc->foreign == NULL && (real == NULL || !path_contains(sc->confine, real)))
		sc->foreign = real ? real : "a file whose path cannot be told";
}

/* Counts one more file read; false (said once) past the budget. */
static bool budget_take(struct include_scan *sc, const char *path)
{
	struct scan_budget *bg = sc->budget;

	if (++bg->files <= POLICY_MAX_READS && bg->bytes <= POLICY_MAX_TEXT)
		return true;
	if (!bg->said)
		load_error_add(sc->le, "%s: more than %d policy files or %u MiB read in all "
		               "(included from %s): refusing them (an include repeated or fanned "
		               "out?)", path, POLICY_MAX_READS, POLICY_MAX_TEXT >> 20, sc->top);
	bg->said = true;
	return false;
}

/* Reads a file through a checked descriptor; NULL when absent or on an error. */
static char *file_read_checked(struct include_scan *sc, const char *path, bool must_exist,
                               int depth)
{
	char *err = NULL, chunk[8192];
	struct buf b;
	ssize_t r;
	int fd;

	if (sc->budget->said)
		return NULL; /* refused already: not one more open */
	if (file_open_checked(path, must_exist, &fd, &err) < 0) {
		if (depth)
			load_error_add(sc->le, "%s (included from %s)", err, sc->top);
		else
			load_error_add(sc->le, "%s", err);
		free(err);
		return NULL;
	}
	if (fd < 0)
		return NULL;
	if (!budget_take(sc, path)) {
		close(fd);
		return NULL;
	}
	file_foreign(sc, file_note(sc->p, fd, path));
	buf_init(&b, POLICY_MAX_FILE);
	while ((r = read(fd, chunk, sizeof(chunk))) > 0 && !b.truncated)
		buf_append(&b, chunk, (size_t)r);
	close(fd);
	sc->budget->bytes += b.len;
	if (r < 0 || b.truncated || (b.len && memchr(b.data, '\0', b.len))) {
		load_error_add(sc->le, "%s: %s", path,
		               r < 0         ? strerror(errno)
		               : b.truncated ? "larger than 16 MiB: not a policy file"
		                             : "holds a NUL byte: not a policy file");
		buf_free(&b);
		return NULL;
	}
	return b.data ? buf_take(&b, NULL) : xstrdup("");
}

/*
 * Kept for the next process (core/kept.c). With a policy file at any
 * layer, each call loaded libgit2 to read it: 11 ms of a Claude Code hook's
 * 21 (and as much again in the `airlock exec` it rewrites the call into).
 * What libgit2 read (the entries, their values typed) is kept in the state
 * directory (policy/KEY, per outermost project; state_file() refuses a
 * state directory the sandbox could write) beside the exact bytes it was
 * read from: each existing layer's kind and path, $HOME (libgit2 resolves
 * "~/" with it), and the path and whole text of every file the include
 * scan read, in order. The next process, after its own scan, takes the
 * entries only when those bytes are the same, so what it applies is what
 * libgit2 reads of the files as they are, never a reading of other text.
 * A reading whose files changed while libgit2 read them is not kept. Nor
 * is one taken once libgit2 may read them otherwise: the library file it
 * was loaded from is kept with its stamp (an upgrade replaces the file),
 * and with $LD_LIBRARY_PATH, which may make the next process load another.
 */
#define POLICY_KEPT_MAGIC "airlock-policy 2"
#define POLICY_KEPT_MAX (64u << 20)
#define READ_ABSENT UINT64_MAX

/* Notes a file the scan read (text NULL: absent or refused). */
static void read_note(struct buf *read, const char *path, const char *text)
{
	uint64_t n = text ? strlen(text) : READ_ABSENT; /* a policy file holds no NUL */

	if (read == NULL)
		return;
	kept_str(read, path);
	buf_append(read, &n, sizeof(n));
	if (text)
		buf_append(read, text, (size_t)n);
}

/* The rest of what the entries are read from: $HOME and each existing
 * layer's index, kind and path. */
static void read_head(struct buf *head, const struct layer *ly, size_t nl)
{
	const char *home = getenv("HOME");

	kept_str(head, home ? home : "");
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t kind = (uint32_t)ly[i].kind;
		if (!ly[i].exists)
			continue;
		buf_append(head, &i, sizeof(i));
		buf_append(head, &kind, sizeof(kind));
		kept_str(head, ly[i].path);
	}
}

/* True when the file at path holds text[0..n) and nothing more (a regular
 * file; never waits on a FIFO). */
static bool file_holds(const char *path, const char *text, uint64_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *got = NULL;
	struct stat st;
	bool same;

	same = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == n;
	if (same && n) {
		got = xmalloc((size_t)n);
		same = fd_read_all(fd, got, (size_t)n) == 0 && memcmp(got, text, (size_t)n) == 0;
	}
	if (fd >= 0)
		close(fd);
	free(got);
	return same;
}

/* True when every file the scan read still holds what it noted: the
 * files did not change while libgit2 read them. */
static bool read_same(const struct buf *read)
{
	struct kept_rd r = {read->data, read->data + read->len, read->data == NULL};
	bool same = true;

	while (same && !r.bad && r.p < r.end) {
		const char *path = kept_rd_str(&r);
		uint64_t n;
		kept_rd_bytes(&r, &n, sizeof(n));
		if (n == READ_ABSENT || r.bad || (uint64_t)(r.end - r.p) < n)
			return false; /* refused or gone then: nothing to keep */
		same = file_holds(path, r.p, n);
		r.p += n;
	}
	return same && !r.bad;
}

/* Appends a blob as a 64-bit length and its bytes. */
static void blob_put(struct buf *b, const struct buf *blob)
{
	uint64_t n = blob->len;

	buf_append(b, &n, sizeof(n));
	if (n)
		buf_append(b, blob->data, blob->len);
}

/* True when the reader's next blob is blob's bytes. */
static bool blob_same(struct kept_rd *r, const struct buf *blob)
{
	uint64_t n;

	kept_rd_bytes(r, &n, sizeof(n));
	if (r->bad || n != blob->len || (uint64_t)(r->end - r->p) < n ||
	    (n && memcmp(r->p, blob->data, (size_t)n) != 0))
		return false;
	r->p += n;
	return true;
}

/* Writes the entries libgit2 read from head and read, for the next process. */
static void kept_save(const char *wd, const struct buf *head, const struct buf *read,
                      const struct entry *en, size_t n)
{
	char *path = state_file(wd, "policy"), *lib = lazy_git_path();
	const char *ldpath = getenv("LD_LIBRARY_PATH");
	uint32_t count = (uint32_t)n;
	struct buf b;

	if (path == NULL || lib == NULL) {
		free(path);
		free(lib);
		return;
	}
	buf_init(&b, POLICY_KEPT_MAX);
	kept_str(&b, POLICY_KEPT_MAGIC);
	blob_put(&b, head);
	blob_put(&b, read);
	kept_stamp(&b, lib);
	kept_str(&b, ldpath ? ldpath : "");
	free(lib);
	buf_append(&b, &count, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint32_t layer = (uint32_t)en[i].layer;
		uint8_t has = en[i].value != NULL;
		int32_t t[3] = {en[i].typed.bool_rc, en[i].typed.int_rc, en[i].typed.bool_v};
		int64_t v = en[i].typed.int_v;
		buf_append(&b, &layer, sizeof(layer));
		kept_str(&b, en[i].name);
		buf_append(&b, &has, 1);
		kept_str(&b, has ? en[i].value : "");
		buf_append(&b, t, sizeof(t));
		buf_append(&b, &v, sizeof(v));
	}
	(void)kept_write(path, &b);
	buf_free(&b);
	free(path);
}

/* The entries the last process kept in wd, when they were read from
 * head and read as they are now: 0 with them in *out and *nout, else -1. */
static int kept_take(const char *wd, const struct buf *head, const struct buf *read,
                     const struct layer *ly, size_t nl, struct entry **out, size_t *nout)
{
	char *path = state_file(wd, "policy");
	size_t len;
	char *data = path ? kept_read(path, POLICY_KEPT_MAX, &len) : NULL;
	struct kept_rd r = {data, data ? data + len : NULL, data == NULL};
	const char *ldpath = getenv("LD_LIBRARY_PATH");
	uint32_t count = 0;

	if (!r.bad && strcmp(kept_rd_str(&r), POLICY_KEPT_MAGIC) == 0 && blob_same(&r, head) &&
	    blob_same(&r, read) && kept_rd_stamp_same(&r) &&
	    strcmp(kept_rd_str(&r), ldpath ? ldpath : "") == 0)
		kept_rd_bytes(&r, &count, sizeof(count));
	else
		r.bad = true;
	for (uint32_t i = 0; i < count && !r.bad && *nout < POLICY_MAX_ENTRIES; i++) {
		uint32_t layer;
		uint8_t has;
		int32_t t[3];
		struct entry e = {0};
		kept_rd_bytes(&r, &layer, sizeof(layer));
		const char *name = kept_rd_str(&r);
		kept_rd_bytes(&r, &has, 1);
		const char *value = kept_rd_str(&r);
		kept_rd_bytes(&r, t, sizeof(t));
		kept_rd_bytes(&r, &e.typed.int_v, sizeof(e.typed.int_v));
		if (r.bad || layer >= nl || !ly[layer].exists || name[0] == '\0') {
			r.bad = true;
			break;
		}
		e = (struct entry){layer, xstrdup(name), has ? xstrdup(value) : NULL,
		                   {t[0], t[1], t[2], e.typed.int_v}};
		*out = xreallocarray(*out, *nout + 1, sizeof(**out));
		(*out)[(*nout)++] = e;
	}
	if (r.bad || r.p != r.end || *nout != count) {
		entries_free(*out, *nout);
		*out = NULL;
		*nout = 0;
		r.bad = true;
	}
	free(data);
	free(path);
	return r.bad ? -1 : 0;
}

static void include_scan_file(struct include_scan *sc, const char *path, bool must_exist,
                              int depth)
{
	char *text = file_read_checked(sc, path, must_exist, depth);
	const char *s = text;

	read_note(sc->read, path, text);
	if (s && strncmp(s, "\xef\xbb\xbf", 3) == 0) /* libgit2 skips a UTF-8 BOM */
		s += 3;
	while (s && *s) {
		size_t n = strcspn(s, "\n");
		include_line(sc, path, s, n, depth);
		s += n + (s[n] != '\0');
	}
	free(text);
}

/* Applies the entries in order; a project file is trusted (may loosen) only
 * when it is the outermost and the user file or --policy trusts projects. */
static void entries_apply(struct policy *p, const struct layer *ly, const struct entry *en,
                          size_t n, struct load_errors *le)
{
	struct load_ctx cx = {.p = p, .le = le};

	p->trust_project = trust_scan(ly, en, n) && !p->workdir_guessed;
	for (size_t i = 0; i < n; i++) {
		const struct layer *l = &ly[en[i].layer];
		cx.typed = &en[i].typed;
		cx.path = l->path;
		cx.origin = l->origin;
		cx.anchor = l->root ? l->root : p->workdir;
		cx.project = l->kind == LAYER_PROJECT;
		cx.nested = l->nested;
		cx.untrusted = cx.project && (l->nested || !p->trust_project);
		cx.foreign = l->foreign;
		load_apply_entry(&cx, en[i].name, en[i].value);
	}
}

static int load_files(struct policy *p, const struct policy_source *src,
                      const struct project_roots *pr, char **errstr)
{
	struct layer ly[LAYERS_MAX] = {0};
	struct load_errors le = {0};
	struct entry *en = NULL;
	const struct lazy_git *g;
	struct buf head, read;
	struct scan_budget budget = {0};
	bool keepable;
	size_t nl = 0, n = 0;
	int rc = -1, found = layers_find(p, src, pr, ly, &nl, &le);

	buf_init(&head, POLICY_KEPT_MAX);
	buf_init(&read, POLICY_KEPT_MAX);
	if (found <= 0) {
		rc = found;
		goto out;
	}
	for (size_t i = 0; i < nl; i++) {
		struct include_scan sc = {.p = p, .le = &le, .top = ly[i].path, .read = &read,
		                          .budget = &budget,
		                          .confine = ly[i].kind == LAYER_PROJECT ? p->workdir
		                                                                 : NULL};
		if (ly[i].exists)
			include_scan_file(&sc, ly[i].path, true, 0);
		ly[i].foreign = sc.foreign;
	}
	if (le.n)
		goto out;
	read_head(&head, ly, nl);
	keepable = !head.truncated && !read.truncated; /* else a change past the cut hides */
	if (!keepable || kept_take(p->workdir, &head, &read, ly, nl, &en, &n) < 0) {
		if ((g = lazy_git(errstr)) == NULL)
			goto out;
		if (entries_read(g, ly, nl, &en, &n, &le) < 0)
			goto out;
		if (keepable && read_same(&read))
			kept_save(p->workdir, &head, &read, en, n);
	}
	entries_apply(p, ly, en, n, &le);
	load_finish(p, &le);
	rc = le.n ? -1 : 0;
out:
	if (le.n)
		*errstr = load_errors_take(&le);
	entries_free(en, n);
	buf_free(&head);
	buf_free(&read);
	for (size_t i = 0; i < nl; i++)
		free(ly[i].path);
	return rc;
}

/* Finds the project layers for workdir; -1 with *errstr when there are more
 * than POLICY_MAX_PROJECT_FILES (a nest that deep is not a project's). */
static int roots_find(const char *workdir, struct project_roots *pr, char **errstr)
{
	size_t total = policy_project_roots(workdir, pr->dir, POLICY_MAX_PROJECT_FILES);
	struct buf b;

	pr->n = total < POLICY_MAX_PROJECT_FILES ? total : POLICY_MAX_PROJECT_FILES;
	if (total <= POLICY_MAX_PROJECT_FILES)
		return 0;
	buf_init(&b, 0);
	buf_printf(&b, "%s: %zu project policy files from here up to /, more than %d: refusing "
	           "them (remove the nested ones not wanted); the innermost are", workdir,
	           total, POLICY_MAX_PROJECT_FILES);
	for (size_t i = pr->n; i-- > 0;)
		buf_printf(&b, " %s/.airlock/policy%s", pr->dir[i], i ? "," : "");
	*errstr = buf_take(&b, NULL);
	return -1;
}

/* The path a deny = Read(...) or Edit(...) rule names whole, a new string or NULL:
 * its literal segments, when nothing or a lone segment `*` or `**` follows
 * them (Read(./secret), the same with ** as a last segment, Read(./n.txt);
 * not Read(.env), which is any .env in the tree, nor a glob like *.key). */
static char *denied_whole(const struct pattern *pat)
{
	size_t k = 0;
	struct buf b;

	while (k < pat->nsegs && !pat->segglob[k])
		k++;
	if (k == 0 || (k < pat->nsegs && (k + 1 < pat->nsegs || (strcmp(pat->segs[k], "*") != 0 &&
	                                                         strcmp(pat->segs[k], "**") != 0))))
		return NULL;
	buf_init(&b, 0);
	for (size_t i = 0; i < k; i++)
		buf_printf(&b, "/%s", pat->segs[i]);
	return buf_take(&b, NULL);
}

/* The pattern a deny = Read(...) or Edit(...) rule names paths by that
 * denied_whole() does not take (any .sql: Read(*.sql); a key in config:
 * Read(./config/NAME.key) with a * for NAME), as policy_globs_new() takes
 * it; a new string, or NULL. A bare Read, every
 * path, is the rules' alone. */
static char *denied_glob(const struct pattern *pat)
{
	char *whole;

	if (pat->all || pat->nsegs == 0)
		return NULL;
	if ((whole = denied_whole(pat)) != NULL) {
		free(whole);
		return NULL;
	}
	return pattern_path_text(pat);
}

/* The paths the deny rules of kind k name whole (denied_whole()), but
 * the workdir itself, which the rules alone hold, or with globs, the
 * patterns they name paths by otherwise (denied_glob()); a new vector or
 * NULL. */
static char **denied_paths(const struct policy *p, enum pattern_kind k, bool globs)
{
	char **v = NULL;

	for (size_t i = 0; i < p->rules.n[k]; i++) {
		const struct rule *r = p->rules.v[k] + i;
		char *path = r->act != RA_DENY ? NULL
		             : globs           ? denied_glob(&r->pat)
		                               : denied_whole(&r->pat);
		if (path && strcmp(path, p->workdir) != 0 && !strv_contains(v, path))
			strv_push(&v, path);
		free(path);
	}
	return v;
}

/*
 * What the deny = Read(...) rules name whole goes into every profile's
 * hide list, and what the deny = Edit(...) rules do into its keep list,
 * the patterns they name paths by otherwise into hide_globs and
 * keep_globs, for the sandbox to mask or keep read-only where it lies in
 * the workdir (the globs: what its search of the workdir finds they match):
 * a rule stops a call that names the path, but `grep -r x .`, `rg` or
 * `tar c .` read it as part of a tree the rule does not name, and `cp -r
 * x/. .`, `tar xf` or `git checkout` write it so.
 */
/*
 * The policy's own files in the workdir are kept read-only too, but for
 * its .airlock/, which the sandbox guards itself: a nested project's
 * sub/.airlock/policy (a monorepo's sub-project rules), an include such as
 * rules/shared.policy, or the user file linked into a dotfiles workdir
 * (GNU stow): an auto-run script (python3 w.py, medium) rewrote them, so
 * the sub-project lost its deny rules, or the user file gained
 * allow-critical = Shell. Strings only; the sandbox binds each.
 */
static void keep_policy_files(const struct policy *p, char ***keep)
{
	char *guarded = xasprintf("%s/.airlock", strcmp(p->workdir, "/") == 0 ? "" : p->workdir);

	for (char *const *f = p->files; f && *f; f++)
		if (path_contains(p->workdir, *f) && !path_contains(guarded, *f) &&
		    !strv_contains(*keep, *f))
			strv_push(keep, *f);
	free(guarded);
}

static void hide_denied_paths(struct policy *p)
{
	char **hide = denied_paths(p, PK_READ, false), **keep = denied_paths(p, PK_EDIT, false);
	char **hide_globs = denied_paths(p, PK_READ, true);
	char **keep_globs = denied_paths(p, PK_EDIT, true);

	keep_policy_files(p, &keep);

	for (size_t i = 0; (hide || keep || hide_globs || keep_globs) && i < p->nprofiles; i++) {
		struct profile *pr = p->profiles[i].prof;
		strv_free(pr->hide);
		strv_free(pr->keep);
		strv_free(pr->hide_globs);
		strv_free(pr->keep_globs);
		pr->hide = strv_dup(hide);
		pr->keep = strv_dup(keep);
		pr->hide_globs = strv_dup(hide_globs);
		pr->keep_globs = strv_dup(keep_globs);
	}
	strv_free(hide);
	strv_free(keep);
	strv_free(hide_globs);
	strv_free(keep_globs);
}

/*
 * No sandbox may rewrite the policy through a profile's read-write grant
 * (exec/mounts.c refuses a grant that holds or lies in a protected path, as
 * for the audit log): with `read-write = ~/.config`, an auto-run command
 * appended `allow-critical = Shell` to the user file. The user file is
 * protected where it would be (a sandbox could create it), every other
 * file read where it really is (an include, --policy FILE, a linked
 * layer's target); one inside the workdir is as writable without the
 * grant (and .airlock/ is guarded there), so it does not refuse a grant
 * that holds the workdir. So is a .airlock in every directory above the
 * project: a grant of its parent let a call plant ../.airlock/policy, the
 * outermost project layer then, which moved the user's relative deny
 * rules there (and under trust-project allowed anything). Strings only:
 * no system call.
 */
static void files_protect(const struct policy *p, const struct policy_source *src)
{
	char *dir = xstrdup(p->workdir);

	if (src->home) {
		char *user = xasprintf("%s/.config/airlock/policy", src->home);
		exec_protect_path(user);
		free(user);
	}
	for (char *const *f = p->files; f && *f; f++)
		if (!path_contains(p->workdir, *f))
			exec_protect_path(*f);
	while (dir[0] == '/' && path_up(dir)) {
		char *ad = xasprintf("%s/.airlock", strcmp(dir, "/") == 0 ? "" : dir);
		exec_protect_path(ad);
		free(ad);
	}
	free(dir);
}

int policy_load(const struct policy_source *src, struct policy **out, char **errstr)
{
	struct policy *p = xcalloc(1, sizeof(*p));
	struct project_roots pr = {0};
	int rc = -1;

	if (src->workdir && !src->defaults_only && roots_find(src->workdir, &pr, errstr) < 0)
		goto out;
	/* the outermost project anchors the user's and the session's patterns:
	 * a file planted in a subdirectory must not move them */
	p->workdir = pr.n ? xstrdup(pr.dir[0]) : NULL;
	if (p->workdir == NULL)
		p->workdir = src->workdir ? xstrdup(src->workdir) : getcwd(NULL, 0);
	if (p->workdir == NULL)
		p->workdir = xstrdup("/");
	p->home = src->home ? xstrdup(src->home) : home_fallback();
	policy_defaults_apply(p);
	p->workdir_guessed = src->guessed;
	if (!src->defaults_only && load_files(p, src, &pr, errstr) < 0)
		goto out;
	if (!src->defaults_only)
		files_protect(p, src);
	hide_denied_paths(p);
	p->session_origin = policy_origin_add(p, "session");
	rc = 0;
out:
	for (size_t i = 0; i < pr.n; i++)
		free(pr.dir[i]);
	if (rc < 0) {
		policy_free(p);
		p = NULL;
	}
	*out = p;
	return rc;
}
