/*
 * guard.c: what a writable workdir must not gain. A sandboxed command may
 * change the project, but not plant what runs or decides later on the host:
 * the hooks and config the host's git runs (core.fsmonitor runs on every
 * `git status`), airlock's project policy, the agent's hook and MCP
 * settings (a Claude Code hook runs outside any sandbox).
 *
 * Two halves share guard_paths[]. The mount plan (mounts.c) keeps each path
 * that exists read-only, and pins the directories that hold them: bound
 * onto itself, still writable, a directory cannot be renamed away (a mount
 * point cannot be), so `mv .git x && mkdir .git` does not get round the
 * read-only config. A path that does not exist has no mount point, so
 * exec_run() notes what each is before the run (guard_note) and afterwards
 * (guard_sweep) acts on those the run made: created, or replaced, or under
 * a directory it replaced. The same is done in a linked worktree's
 * repository, writable with the workdir (the roots: the table's .git part
 * under its common dir and its gitdir), and every git directory is walked
 * for links and special files the run made. Rules: act only on what the
 * run made; never follow links; the sandbox has exited, so nothing it
 * started can race us.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "core/child.h"
#include "core/lazy.h"
#include "core/kept.h"
#include "core/state.h"
#include "core/util.h"
#include "exec/exec_internal.h"

/* Sorted, so that a directory comes before what it holds. */
const struct guard_path guard_paths[GUARD_NPATHS] = {
	{".aider.conf.yml", GUARD_REMOVE}, /* aider's lint-cmd runs after each edit; .aider* */
	/* is what aider writes into .gitignore: unseen in a diff */
	{".airlock", GUARD_REMOVE},
	{".amazonq", GUARD_PIN},
	{".amazonq/default.json", GUARD_REMOVE}, /* Amazon Q's workspace MCP servers */
	{".amazonq/mcp.json", GUARD_REMOVE},
	{".claude", GUARD_PIN},
	{".claude/settings.json", GUARD_REMOVE},
	{".claude/settings.local.json", GUARD_REMOVE},
	{".codex", GUARD_PIN}, /* other agents' and editors' configs run commands too */
	{".codex/config.toml", GUARD_REMOVE}, /* its MCP servers and notify program */
	{".config", GUARD_PIN}, /* lefthook's local config may lie here */
	{".config/lefthook-local.json", GUARD_REMOVE},
	{".config/lefthook-local.toml", GUARD_REMOVE},
	{".config/lefthook-local.yaml", GUARD_REMOVE},
	{".config/lefthook-local.yml", GUARD_REMOVE},
	{".continue", GUARD_PIN},
	{".continue/mcpServers", GUARD_HOOKS}, /* Continue's workspace MCP servers */
	{".crush.json", GUARD_REMOVE}, /* Crush's MCP servers and language servers */
	{".cursor", GUARD_PIN},
	{".cursor/hooks.json", GUARD_REMOVE}, /* commands around each agent step */
	{".cursor/mcp.json", GUARD_REMOVE},
	{".devcontainer", GUARD_PIN}, /* initializeCommand runs on the host */
	{".devcontainer.json", GUARD_REMOVE},
	{".devcontainer/devcontainer.json", GUARD_REMOVE},
	{".direnv", GUARD_HOOKS}, /* direnv's layout dir, git-ignored: nix-direnv evals its */
	/* cached flake-profile.rc, and layout python puts its venv's bin on PATH */
	{".envrc.local", GUARD_REMOVE}, /* what an allowed .envrc sources: direnv */
	{".envrc.private", GUARD_REMOVE}, /* hashes the .envrc alone; git-ignored */
	{".gemini", GUARD_PIN},
	{".gemini/extensions", GUARD_HOOKS}, /* workspace extensions' MCP servers */
	{".gemini/settings.json", GUARD_REMOVE},
	{".git", GUARD_GITDIR},
	{".git/commondir", GUARD_REMOVE}, /* config and hooks come from there */
	{".git/config", GUARD_CONFIG},
	{".git/config.worktree", GUARD_REMOVE}, /* read when config says so */
	{".git/gitdir", GUARD_REMOVE}, /* a linked worktree's link back (gitdir.c) */
	{".git/hooks", GUARD_HOOKS},
	{".git/info", GUARD_HOOKS}, /* exclude and attributes: what git status and */
	/* git diff show of what the run left, unseen in any diff themselves */
	{".git/modules", GUARD_MODULES}, /* submodules' own config and hooks */
	{".git/sl", GUARD_PIN},            /* Sapling's state in a git repository: */
	{".git/sl/config", GUARD_REMOVE}, /* its [hooks] and aliases, as .sl/config */
	{".git/worktrees", GUARD_WORKTREES}, /* linked worktrees' commondir: their config */
	{".hg", GUARD_PIN}, /* Mercurial runs the [hooks] of .hg/hgrc (pre-status */
	{".hg/hgrc", GUARD_REMOVE}, /* runs on `hg status`) and loads its [extensions] */
	{".hg/hgrc-not-shared", GUARD_REMOVE}, /* read too in a share-safe repository */
	{".hg/sharedpath", GUARD_REMOVE}, /* whose hgrc a share reads as its own */
	{".husky", GUARD_PIN},
	{".husky/_", GUARD_HOOKS}, /* husky's core.hooksPath, git-ignored: unseen in a diff */
	{".jj", GUARD_PIN}, /* Jujutsu's repository config: its aliases, pager and */
	{".jj/repo", GUARD_PIN}, /* diff and fix tools run on the next `jj` there */
	{".jj/repo/config.toml", GUARD_REMOVE},
	{".junie", GUARD_PIN}, /* JetBrains Junie's project MCP servers */
	{".junie/mcp", GUARD_PIN},
	{".junie/mcp/mcp.json", GUARD_REMOVE},
	{".kilo", GUARD_PIN}, /* Kilo Code's project config and MCP servers, */
	{".kilo/kilo.json", GUARD_REMOVE}, /* loaded when the project opens */
	{".kilo/kilo.jsonc", GUARD_REMOVE},
	{".kilo/mcp.json", GUARD_REMOVE},
	{".kilocode", GUARD_PIN}, /* its older layout, still read */
	{".kilocode/mcp.json", GUARD_REMOVE},
	{".kiro", GUARD_PIN},
	{".kiro/hooks", GUARD_HOOKS}, /* Kiro's agent hooks, which may run commands */
	{".kiro/settings", GUARD_PIN},
	{".kiro/settings/mcp.json", GUARD_REMOVE},
	{".lefthook-local", GUARD_HOOKS}, /* lefthook's local scripts; its local config, */
	/* merged into what its git hooks run, is git-ignored: unseen in a diff */
	{".lefthook-local.json", GUARD_REMOVE},
	{".lefthook-local.toml", GUARD_REMOVE},
	{".lefthook-local.yaml", GUARD_REMOVE},
	{".lefthook-local.yml", GUARD_REMOVE},
	{".mcp.json", GUARD_REMOVE},
	{".mise.local.toml", GUARD_REMOVE}, /* mise's local config, git-ignored and */
	/* trusted by its path: its [hooks] run at the user's next prompt there */
	{".opencode", GUARD_PIN},
	{".opencode/opencode.json", GUARD_REMOVE}, /* opencode's MCP servers */
	{".opencode/opencode.jsonc", GUARD_REMOVE},
	{".opencode/plugin", GUARD_HOOKS}, /* plugins it loads at its start */
	{".opencode/plugins", GUARD_HOOKS},
	{".qwen", GUARD_PIN}, /* Qwen Code, Gemini CLI's fork: its MCP servers */
	{".qwen/settings.json", GUARD_REMOVE},
	{".roo", GUARD_PIN},
	{".roo/mcp.json", GUARD_REMOVE}, /* Roo Code's project MCP servers */
	{".sl", GUARD_PIN}, /* Sapling's repository config: [hooks] as Mercurial's */
	{".sl/config", GUARD_REMOVE},
	{".vscode", GUARD_PIN},
	{".vscode/mcp.json", GUARD_REMOVE},
	{".vscode/settings.json", GUARD_REMOVE}, /* interpreter, shell and tool paths it runs */
	{".vscode/tasks.json", GUARD_REMOVE}, /* a folderOpen task runs on opening */
	{".windsurf", GUARD_PIN},
	{".windsurf/hooks.json", GUARD_REMOVE}, /* Cascade's workspace hooks */
	{".zed", GUARD_PIN},
	{".zed/settings.json", GUARD_REMOVE}, /* language server and formatter commands */
	/* docker compose merges an override beside compose.yaml unasked, and
	 * projects git-ignore it as local: one planted would have the next
	 * `docker compose up` run a privileged container with / bound */
	{"compose.override.yaml", GUARD_REMOVE},
	{"compose.override.yml", GUARD_REMOVE},
	{"crush.json", GUARD_REMOVE},
	{"docker-compose.override.yaml", GUARD_REMOVE},
	{"docker-compose.override.yml", GUARD_REMOVE},
	{"kilo.json", GUARD_REMOVE},
	{"kilo.jsonc", GUARD_REMOVE},
	{"lefthook-local.json", GUARD_REMOVE},
	{"lefthook-local.toml", GUARD_REMOVE},
	{"lefthook-local.yaml", GUARD_REMOVE},
	{"lefthook-local.yml", GUARD_REMOVE},
	{"mise.local.toml", GUARD_REMOVE},
	{"opencode.json", GUARD_REMOVE},
	{"opencode.jsonc", GUARD_REMOVE},
};

/* Each directory here is a GUARD_PIN of the table above. */
const struct guard_named guard_named[GUARD_NNAMED] = {
	{".devcontainer", "devcontainer.json"}, /* named configurations, one level deep */
};

/*
 * The keys a config the run made may hold: what git init, clone, remote and
 * branch write, and identity. Any other may run a command (fsmonitor,
 * aliases, pagers, editors, filters, ssh, credential helpers, includes), so
 * a config holding one is removed whole: git works without one.
 */
static const char *const inert_keys[] = {
	"core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
	"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf",
	"core.eol", "core.safecrlf", "core.quotepath", "extensions.objectformat",
	"extensions.refstorage", "init.defaultbranch", "user.name", "user.email",
	"remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push",
	"remote.*.tagopt", "remote.*.prune", "remote.*.mirror", "branch.*.remote",
	"branch.*.merge", "branch.*.rebase", "branch.*.pushremote", "branch.*.description",
	"submodule.*.url", "submodule.*.active", "pull.rebase", "pull.ff", "push.default",
	"push.autosetupremote", "fetch.prune", "merge.ff", "color.ui", "gc.auto",
	"index.version",
};

/* Bounds on a .git/modules the run made: deeper or wider, it goes whole. */
#define MODULES_DEPTH 8
#define MODULES_ENTRIES 4096

/* True when entry j is a directory that holds entry i. */
static bool holds(size_t j, size_t i)
{
	size_t n = strlen(guard_paths[j].rel);
	return j != i && strncmp(guard_paths[i].rel, guard_paths[j].rel, n) == 0 &&
	       guard_paths[i].rel[n] == '/';
}

/* For each entry, the entries that hold it: holds() asked of every pair
 * for every root at each note cost a third of a gate call's guard in a
 * repository (15,000 calls of strlen and strncmp), for a table that never
 * changes. */
static struct {
	uint8_t n;
	uint8_t j[GUARD_NPATHS];
} holders[GUARD_NPATHS];
static pthread_once_t holders_once = PTHREAD_ONCE_INIT;
_Static_assert(GUARD_NPATHS <= UINT8_MAX, "an entry's index fits in holders[]");

static void holders_build(void)
{
	for (size_t i = 0; i < GUARD_NPATHS; i++)
		for (size_t j = 0; j < GUARD_NPATHS; j++)
			if (holds(j, i))
				holders[i].j[holders[i].n++] = (uint8_t)j;
}

size_t guard_holders(size_t i, const uint8_t **j)
{
	pthread_once(&holders_once, holders_build);
	*j = holders[i].j;
	return holders[i].n;
}

const char *guard_rel(size_t i, bool git)
{
	const char *rel = guard_paths[i].rel;

	if (!git)
		return rel;
	if (strncmp(rel, ".git", 4) != 0 || (rel[4] != '\0' && rel[4] != '/'))
		return NULL;
	return rel[4] ? rel + 5 : "";
}

/* Path of entry i under root r of g, as a new string; NULL when the root
 * does not hold it. */
static char *root_path(const struct guard_note *g, int r, size_t i)
{
	const char *rel = guard_rel(i, r != GUARD_WD);

	if (g->root[r] == NULL || rel == NULL)
		return NULL;
	return rel[0] ? xasprintf("%s/%s", g->root[r], rel) : xstrdup(g->root[r]);
}

/* Links are never followed: under a holder that is a link or a file, a path
 * counts as absent, and is never acted on, wherever the link points. Each
 * entry is looked up from its root, opened once (a note and a sweep made
 * ~100 lstat()s of absolute paths, each walking the root's components
 * again); the root itself, and all of one that cannot be opened, as
 * before. */
static void note_ids(struct guard_note *g)
{
	struct stat st;

	pthread_once(&holders_once, holders_build);
	memset(g->id, 0, sizeof(g->id));
	for (int r = 0; r < GUARD_NROOTS; r++) {
		int dfd = g->root[r] ? open(g->root[r], O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		for (size_t i = 0; i < GUARD_NPATHS; i++) {
			const char *rel = guard_rel(i, r != GUARD_WD);
			bool under_link = false, found;
			for (size_t k = 0; k < holders[i].n; k++) {
				size_t j = holders[i].j[k];
				under_link |= j < i && !g->id[r][j].is_dir;
			}
			if (g->root[r] == NULL || rel == NULL || under_link)
				continue;
			if (dfd >= 0 && rel[0]) {
				found = fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
			} else {
				char *p = root_path(g, r, i);
				found = lstat(p, &st) == 0;
				free(p);
			}
			if (found)
				g->id[r][i] = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev,
				                                st.st_ino};
		}
		if (dfd >= 0)
			close(dfd);
	}
}

static bool id_same(const struct guard_id *a, const struct guard_id *b)
{
	return a->present == b->present &&
	       (!a->present || (a->dev == b->dev && a->ino == b->ino));
}

/* The run made entry i under a root: it exists now, and it or a directory
 * holding it is not the one that was there before. */
static bool made(const struct guard_id *before, const struct guard_id *after, size_t i)
{
	if (!after[i].present)
		return false;
	if (!id_same(&before[i], &after[i]))
		return true;
	pthread_once(&holders_once, holders_build);
	for (size_t k = 0; k < holders[i].n; k++)
		if (!id_same(&before[holders[i].j[k]], &after[holders[i].j[k]]))
			return true;
	return false;
}

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Removes name under dfd, a whole tree, every step relative to a directory
 * already opened without following links: a link swapped in by anything
 * still running cannot carry the removal outside. */
static int remove_at(int dfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0);
	if (depth > 64 || (fd = openat(dfd, name, DIR_FLAGS)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			rc |= remove_at(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	return rc < 0 ? -1 : unlinkat(dfd, name, AT_REMOVEDIR);
}

/* What a recovery (guard_recover()) moves aside instead of removing: it
 * cannot tell what the killed run made from what the user changed in the
 * same span, so nothing is lost; git, the gate and the agents read none of
 * these names. Per thread: the gate runs calls on several. */
#define QUARANTINE ".airlock-killed"
static __thread bool quarantine;

/* Removes name under dfd (moves it aside, in a recovery) and says so in b. */
static void drop(int dfd, const char *name, const char *shown, const char *why, struct buf *b)
{
	char aside[NAME_MAX + 1];
	bool move = quarantine &&
	            snprintf(aside, sizeof(aside), "%s" QUARANTINE, name) < (int)sizeof(aside);
	const char *how;
	int rc;

	if (move) {
		remove_at(dfd, aside, 0); /* an older one */
		rc = renameat(dfd, name, dfd, aside);
	} else {
		rc = remove_at(dfd, name, 0);
	}
	if (move)
		how = rc == 0 ? " (moved aside as " QUARANTINE ")" : " (could not be moved)";
	else
		how = rc == 0 ? "" : " (could not be removed)";
	buf_printf(b, "%s%s%s%s", b->len ? ", " : "", shown, why ? why : "", how);
}

/* The directory name under dfd, opened without following a link; NULL when
 * it is not one. */
static DIR *open_dir_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, DIR_FLAGS);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (fd >= 0 && d == NULL)
		close(fd);
	return d;
}

static bool dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* True when st's change time lies in span. */
static bool in_span(const struct stat *st, const struct guard_span *span)
{
	const struct timespec *c = &st->st_ctim, *from = &span->since;

	return (c->tv_sec > from->tv_sec || (c->tv_sec == from->tv_sec && c->tv_nsec >= from->tv_nsec)) &&
	       (span->until == 0 || c->tv_sec <= span->until);
}

/* True when name under dfd ("": dfd itself) changed in since (NULL:
 * always): made, written, renamed or linked then. A change time cannot be
 * set, from inside a sandbox or out, but by the clock. */
static bool fresh(int dfd, const char *name, const struct guard_span *since)
{
	struct stat st;

	if (since == NULL)
		return true;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH)) == 0 &&
	       in_span(&st, since);
}

/* True when name in dfd is a regular file (not followed). */
static bool regular_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* True when name in dfd is git init's info/exclude, or one like it: a
 * regular file of comments and blank lines alone, which excludes nothing. */
static bool exclude_inert(int dfd, const char *name)
{
	size_t n;
	struct stat st;
	/* one link only: another name would write it once it is read-only */
	char *text = strcmp(name, "exclude") == 0 &&
	                             fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	                             S_ISREG(st.st_mode) && st.st_nlink == 1
	                     ? guard_config_text(dfd, name, false, &n)
	                     : NULL;
	bool inert = text != NULL;

	for (char *p = text; inert && p < text + n; p++) {
		p += strspn(p, " \t\r");
		inert = *p == '\n' || *p == '#' || *p == '\0';
		p += strcspn(p, "\n");
	}
	free(text);
	return inert;
}

/* A hooks directory the run made: every entry but git init's inert
 * *.sample files goes (regular files only: a directory so named in
 * .gemini/extensions is an extension Gemini CLI loads), and but the
 * comments alone of git init's info/exclude; a link or file named hooks
 * goes whole. With since, one the run may have changed: only what changed
 * from then on. */
static void sweep_hooks(int dfd, const char *name, const char *shown,
                        const struct guard_span *since, struct buf *b)
{
	DIR *d = open_dir_at(dfd, name);
	struct dirent *e;
	size_t sl = strlen(".sample");

	if (d == NULL) {
		if (errno != ENOENT && fresh(dfd, name, since))
			drop(dfd, name, shown, NULL, b);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *s;
		if (dot(e->d_name) ||
		    (n > sl && strcmp(e->d_name + n - sl, ".sample") == 0 &&
		     regular_at(dirfd(d), e->d_name)) ||
		    exclude_inert(dirfd(d), e->d_name) || !fresh(dirfd(d), e->d_name, since))
			continue;
		s = xasprintf("%s/%s", shown, e->d_name);
		drop(dirfd(d), e->d_name, s, NULL, b);
		free(s);
	}
	closedir(d);
}

/* True when a config entry is inert (inert_keys[]). */
typedef bool config_inert_fn(const char *name, const char *value);

static bool key_inert(const char *name, const char *value)
{
	(void)value;
	for (size_t i = 0; i < nitems(inert_keys); i++)
		if (fnmatch(inert_keys[i], name, 0) == 0)
			return true;
	return false;
}

/* The first key of a config file that is not inert, as a new string; NULL
 * when all are. A file libgit2 cannot read counts as not inert. */
static char *config_risky_key(const char *path, config_inert_fn *inert)
{
	char *err = NULL, *key = NULL;
	const struct lazy_git *g = lazy_git(&err);
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	int rc = 0;

	if (g == NULL || g->git_config_open_ondisk(&cfg, path) < 0 ||
	    g->git_config_iterator_new(&it, cfg) < 0) {
		key = xstrdup("something unreadable");
		goto out;
	}
	while (key == NULL && (rc = g->git_config_next(&e, it)) == 0)
		if (!inert(e->name, e->value ? e->value : ""))
			key = xstrdup(e->name);
	if (key == NULL && rc != GIT_ITEROVER)
		key = xstrdup("something unreadable");
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	free(err);
	return key;
}

/* The largest config the sweep reads; a larger one the run made goes. */
#define CONFIG_MAX (1024 * 1024)

/* Where the config text may open an include or includeIf section (names
 * are case-insensitive; "[include.x]" is the old form): the next "["
 * followed by the word, blanks between, anywhere from p. Not only at the
 * start of a line after spaces and tabs: git and libgit2 skip a carriage
 * return there too ("\r[include]"), and a section may follow another on
 * its line; libgit2 then opened the included FIFO and the sweep hung. A
 * value that merely holds the text counts too. */
char *guard_include_next(const char *p, const char *end)
{
	static const char word[] = "include";
	const char *q;

	for (; (p = memchr(p, '[', (size_t)(end - p))) != NULL; p++) {
		for (q = p + 1; q < end && isspace((unsigned char)*q); q++)
			;
		if ((size_t)(end - q) >= sizeof(word) - 1 &&
		    strncasecmp(q, word, sizeof(word) - 1) == 0)
			return (char *)q;
	}
	return NULL;
}

static bool config_includes(const char *text, size_t len)
{
	return guard_include_next(text, text + len) != NULL;
}

/* As exec_internal.h says; follow: the user's own, read as git reads it. */
char *guard_config_text(int dfd, const char *name, bool follow, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | (follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC);
	char *text = NULL;
	struct stat st;
	ssize_t n = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= CONFIG_MAX) {
		text = xmalloc((size_t)st.st_size + 1);
		n = read(fd, text, (size_t)st.st_size + 1);
	}
	if (fd >= 0)
		close(fd);
	if (n < 0 || n > st.st_size) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	*len = (size_t)n;
	return text;
}

/*
 * The first risky key of the config name under dfd, as a new string, or
 * NULL when every key is inert. An include is risky before anything is
 * read through libgit2, which would follow it: to a FIFO the run left (the
 * sweep, and the gate with it, hung in open), to airlock's own stdin, or
 * to a file outside the workdir.
 */
static char *config_check_key(int dfd, const char *name, config_inert_fn *inert)
{
	size_t n;
	char *text = guard_config_text(dfd, name, false, &n), *key = NULL, *path;

	if (text == NULL)
		key = xstrdup("something unreadable or too large");
	else if (config_includes(text, n))
		key = xstrdup("include.path");
	free(text);
	if (key)
		return key;
	path = xasprintf("/proc/self/fd/%d/%s", dfd, name);
	key = config_risky_key(path, inert);
	free(path);
	return key;
}

/* A config-format file the run made: kept when every entry is inert,
 * else removed. */
static void check_config_with(int dfd, const char *name, const char *shown,
                              config_inert_fn *inert, struct buf *b)
{
	struct stat st;
	char *key, *why;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISREG(st.st_mode)) {
		drop(dfd, name, shown, NULL, b);
		return;
	}
	/* another name for it, which no mount keeps read-only: a call ran git
	 * init and `ln .git/config notes.txt`, and the next one wrote the
	 * fsmonitor of the host's next git status through notes.txt */
	if (st.st_nlink > 1) {
		drop(dfd, name, shown, " (it has another hard link, through which it could be "
		                       "written)", b);
		return;
	}
	key = config_check_key(dfd, name, inert);
	if (key == NULL)
		return;
	why = xasprintf(" (it set %s)", key);
	drop(dfd, name, shown, why, b);
	free(why);
	free(key);
}

/* A config the run made: kept when every key is inert, else removed. */
static void check_config(int dfd, const char *name, const char *shown, struct buf *b)
{
	check_config_with(dfd, name, shown, key_inert, b);
}

/* Everything git reads from a .git/modules the run made: each submodule's
 * config, hooks, commondir and config.worktree, at any depth (a module's
 * name may hold slashes, and modules nest); a link, which git would
 * follow, goes. -1 when a bound is hit. */
static int sweep_modules(int dfd, const char *name, const char *shown, int depth, int *left,
                         struct buf *b)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth > MODULES_DEPTH)
		return -1;
	if ((d = open_dir_at(dfd, name)) == NULL) {
		if (errno != ENOENT)
			drop(dfd, name, shown, NULL, b);
		return 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		char *s;
		if (dot(n))
			continue;
		if (--*left < 0) {
			rc = -1;
			break;
		}
		s = xasprintf("%s/%s", shown, n);
		if (strcmp(n, "config") == 0)
			check_config(dirfd(d), n, s, b);
		else if (strcmp(n, "hooks") == 0)
			sweep_hooks(dirfd(d), n, s, NULL, b);
		else if (strcmp(n, "commondir") == 0 || strcmp(n, "config.worktree") == 0 ||
		         e->d_type == DT_LNK)
			drop(dirfd(d), n, s, NULL, b);
		else if (e->d_type == DT_DIR)
			rc = sweep_modules(dirfd(d), n, s, depth + 1, left, b);
		free(s);
	}
	closedir(d);
	return rc;
}

/* True when the todo line l (n bytes, no newline) runs a command, as
 * git's sequencer reads it: "exec CMD" or "x CMD", after blanks. */
static bool todo_exec(const char *l, size_t n)
{
	static const char *const words[] = {"exec", "x"};

	while (n && (*l == ' ' || *l == '\t'))
		l++, n--;
	for (size_t i = 0; i < nitems(words); i++) {
		size_t w = strlen(words[i]);
		if (n > w && strncmp(l, words[i], w) == 0 && (l[w] == ' ' || l[w] == '\t'))
			return true;
	}
	return false;
}

static int special_cmp(const void *a, const void *b)
{
	const struct guard_special *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->ctime.tv_sec != y->ctime.tv_sec)
		return x->ctime.tv_sec < y->ctime.tv_sec ? -1 : 1;
	return (x->ctime.tv_nsec > y->ctime.tv_nsec) - (x->ctime.tv_nsec < y->ctime.tv_nsec);
}

/* Notes what path is (stat: links followed, as git follows them). */
static void file_note(struct guard_note *g, char *path)
{
	struct stat st;
	struct guard_file f = {path, stat(path, &st) == 0, {0, 0, {0, 0}}};

	if (f.present)
		f.id = (struct guard_special){st.st_dev, st.st_ino, st.st_ctim};
	g->files = xreallocarray(g->files, g->nfiles + 1, sizeof(*g->files));
	g->files[g->nfiles++] = f;
}

/* True when path, which the run may have written, is there and is not what
 * the note saw (made, replaced, or changed: its change time is not the
 * one noted). Without a note of it (g NULL: a recovery, or a repository
 * nested), when it changed from since on. */
static bool file_changed(const struct guard_note *g, const char *path,
                         const struct guard_span *since)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	for (size_t i = 0; g && i < g->nfiles; i++)
		if (strcmp(g->files[i].path, path) == 0) {
			struct guard_special now = {st.st_dev, st.st_ino, st.st_ctim};
			return !g->files[i].present || special_cmp(&now, &g->files[i].id) != 0;
		}
	return in_span(&st, since);
}

/*
 * The todo of an interactive rebase in the git directory gd (shown as
 * shown) that the run changed (file_changed()): its exec lines run on the host at
 * `git rebase --continue` (a run that stopped a rebase of its own at a
 * `break`, or wrote a todo into the user's, planted them there), so they
 * go and the rest is kept, replaced whole by a rename; a todo that is no
 * regular file, or larger than CONFIG_MAX, goes whole.
 */
static void sweep_todo(const struct guard_note *g, const char *gd, const char *shown,
                       const struct guard_span *since, struct buf *b)
{
	static const char todo[] = "git-rebase-todo", tmp[] = "git-rebase-todo.airlock";
	char *dir = xasprintf("%s/rebase-merge", gd), *path = xasprintf("%s/%s", dir, todo);
	char *text, *s;
	int dfd = open(dir, DIR_FLAGS), fd = -1;
	size_t n, cut = 0;
	struct buf out;
	bool changed = dfd >= 0 && file_changed(g, path, since);

	free(dir);
	free(path);
	if (!changed) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	s = xasprintf("%s/rebase-merge/%s", shown, todo);
	buf_init(&out, 0);
	if ((text = guard_config_text(dfd, todo, false, &n)) == NULL) {
		drop(dfd, todo, s, NULL, b);
		goto out;
	}
	for (const char *p = text, *end = text + n, *nl, *next; p < end; p = next) {
		nl = memchr(p, '\n', (size_t)(end - p));
		next = nl ? nl + 1 : end;
		if (todo_exec(p, (size_t)((nl ? nl : end) - p)))
			cut++;
		else
			buf_append(&out, p, (size_t)(next - p));
	}
	if (cut == 0)
		goto out;
	if (quarantine) { /* the user's own, perhaps: kept aside whole */
		remove_at(dfd, "git-rebase-todo" QUARANTINE, 0);
		linkat(dfd, todo, dfd, "git-rebase-todo" QUARANTINE, 0);
	}
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fd_write_all(fd, out.data ? out.data : "", out.len) < 0 ||
	    renameat(dfd, tmp, dfd, todo) < 0) {
		unlinkat(dfd, tmp, 0);
		drop(dfd, todo, s, " (its exec lines could not be taken out)", b);
	} else {
		buf_printf(b, "%s%s (its %zu exec line%s)", b->len ? ", " : "", s, cut,
		           cut == 1 ? "" : "s");
	}
out:
	if (fd >= 0)
		close(fd);
	buf_free(&out);
	free(text);
	free(s);
	close(dfd);
}

/* Opens the directory holding rel under wd, a component at a time, never
 * through a link; its fd, with *name at rel's last component, or -1. */
static int open_parent(const char *wd, const char *rel, const char **name)
{
	char part[PATH_MAX];
	const char *slash;
	int fd = open(wd, DIR_FLAGS), next;

	while (fd >= 0 && (slash = strchr(rel, '/')) != NULL) {
		snprintf(part, sizeof(part), "%.*s", (int)(slash - rel), rel);
		next = openat(fd, part, DIR_FLAGS);
		close(fd);
		fd = next;
		rel = slash + 1;
	}
	*name = rel;
	return fd;
}

/* The merge strategies git has. A sequencer reads its strategy from its
 * state on `git rebase --continue` and `git cherry-pick --continue` (and
 * revert's), and runs any other as `git merge-NAME`, a name with a slash
 * as a path: x/../evil ran the workdir's evil on the host once the run
 * had made a directory git-merge-x there. */
static const char *const own_strategies[] = {
	"octopus", "ort", "ours", "recursive", "resolve", "subtree",
};

static bool strategy_own(const char *s, size_t n)
{
	for (size_t i = 0; i < nitems(own_strategies); i++)
		if (strlen(own_strategies[i]) == n && strncmp(s, own_strategies[i], n) == 0)
			return true;
	return false;
}

/* rebase-merge/strategy, read as git reads it (one line, its newline
 * dropped): why it goes, as a new string, or NULL when git has it. */
static char *strategy_risky(int dfd, const char *name)
{
	size_t n;
	char *text = guard_config_text(dfd, name, false, &n), *why = NULL;

	if (text == NULL)
		return xstrdup(" (something unreadable or too large)");
	if (n && text[n - 1] == '\n' && --n && text[n - 1] == '\r')
		n--;
	if (!strategy_own(text, n))
		why = xstrdup(" (a strategy git does not have: a command it runs)");
	free(text);
	return why;
}

static bool opts_inert(const char *name, const char *value)
{
	return strcmp(name, "options.strategy") != 0 || strategy_own(value, strlen(value));
}

/* sequencer/opts, a config file: why it goes, or NULL. */
static char *opts_risky(int dfd, const char *name)
{
	char *key = config_check_key(dfd, name, opts_inert), *why;

	if (key == NULL)
		return NULL;
	why = xasprintf(" (it set %s)", key);
	free(key);
	return why;
}

/* A sequencer's state files besides the todo that name what git runs;
 * one the run changed (file_changed()) is checked as it says. */
static const struct {
	const char *rel;
	char *(*risky)(int dfd, const char *name);
} seq_state[] = {
	{"rebase-merge/strategy", strategy_risky},
	{"sequencer/opts", opts_risky},
};

/* The todo (sweep_todo()) and the other state of the sequencers in the
 * git directory gd: what the host's git reads on --continue. */
static void sweep_sequencer(const struct guard_note *g, const char *gd, const char *shown,
                            const struct guard_span *since, struct buf *b)
{
	sweep_todo(g, gd, shown, since, b);
	for (size_t i = 0; i < nitems(seq_state); i++) {
		char *path = xasprintf("%s/%s", gd, seq_state[i].rel), *why, *s;
		const char *name;
		int dfd = -1;
		if (file_changed(g, path, since) &&
		    (dfd = open_parent(gd, seq_state[i].rel, &name)) >= 0 &&
		    (why = seq_state[i].risky(dfd, name)) != NULL) {
			s = xasprintf("%s/%s", shown, seq_state[i].rel);
			drop(dfd, name, s, why, b);
			free(s);
			free(why);
		}
		if (dfd >= 0)
			close(dfd);
		free(path);
	}
}

/* The commondir git itself writes for a linked worktree: its common
 * directory is the .git two levels up, where the read-only config and
 * hooks are. Anything else points that worktree's git elsewhere. */
static bool commondir_is_own(int dfd, const char *name)
{
	static const char own[] = "../..";
	char buf[sizeof(own) + 2];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	struct stat st;
	bool reg = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);

	if (fd >= 0)
		close(fd);
	if (!reg || n < (ssize_t)sizeof(own) - 1)
		return false;
	if (buf[n - 1] == '\n')
		n--;
	return n == (ssize_t)sizeof(own) - 1 && memcmp(buf, own, (size_t)n) == 0;
}

/* A .git/worktrees the run made (git worktree add): in each worktree's
 * directory, a commondir that is not git's own and a config.worktree with
 * a risky key go (a linked worktree elsewhere on the host reads them on
 * every git command there); a link goes. -1 when the bound is hit. */
static int sweep_worktrees(int dfd, const char *name, const char *shown, struct buf *b)
{
	DIR *d = open_dir_at(dfd, name), *w;
	struct dirent *e, *f;
	int left = MODULES_ENTRIES, rc = 0;

	if (d == NULL) {
		if (errno != ENOENT)
			drop(dfd, name, shown, NULL, b);
		return 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *s;
		if (dot(e->d_name))
			continue;
		s = xasprintf("%s/%s", shown, e->d_name);
		if (e->d_type == DT_LNK)
			drop(dirfd(d), e->d_name, s, NULL, b);
		else if ((w = open_dir_at(dirfd(d), e->d_name)) != NULL) {
			while ((f = readdir(w)) != NULL && (rc = --left < 0 ? -1 : 0) == 0) {
				char *t = xasprintf("%s/%s", s, f->d_name);
				if (strcmp(f->d_name, "commondir") == 0 &&
				    !commondir_is_own(dirfd(w), f->d_name))
					drop(dirfd(w), f->d_name, t, NULL, b);
				else if (strcmp(f->d_name, "config.worktree") == 0)
					check_config(dirfd(w), f->d_name, t, b);
				free(t);
			}
			closedir(w);
		}
		free(s);
	}
	closedir(d);
	return rc;
}

static void act(int dfd, const char *name, const char *shown, enum guard_kind kind,
                const struct guard_id *now, struct buf *b)
{
	int left = MODULES_ENTRIES;

	switch (kind) {
	case GUARD_PIN:    /* a new directory: what it holds is checked entry by */
	case GUARD_GITDIR: /* entry; a link or file made in its place goes */
		if (!now->is_dir)
			drop(dfd, name, shown, NULL, b);
		break;
	case GUARD_REMOVE:
		drop(dfd, name, shown, NULL, b);
		break;
	case GUARD_CONFIG:
		check_config(dfd, name, shown, b);
		break;
	case GUARD_HOOKS:
		sweep_hooks(dfd, name, shown, NULL, b);
		break;
	case GUARD_MODULES:
		if (sweep_modules(dfd, name, shown, 0, &left, b) < 0)
			drop(dfd, name, shown, " (too large to check)", b);
		break;
	case GUARD_WORKTREES:
		if (sweep_worktrees(dfd, name, shown, b) < 0)
			drop(dfd, name, shown, " (too large to check)", b);
		break;
	}
}

/* A walk's depth bound (it holds one fd a level): a directory deeper goes
 * whole, since a branch name may be that deep. There is no bound on
 * entries: a walk cut short would leave a link past the cut (a run that
 * made 100,000 files first hid one); a run that floods .git pays for it
 * in its own sweep, regular files costing a readdir alone. */
#define GITDIR_DEPTH 64

/* One walk of the git directories: noting what is there (into set), or
 * sweeping what was not (b set). */
struct gitdir_walk {
	const struct guard_note *g; /* its roots; sweeping, what was there */
	struct guard_note *into;    /* noting: where specials go */
	const struct guard_span *since; /* sweeping, else: what changed from then */
	struct buf *b;
	size_t alloc;
	int depth;               /* of the directory being read */
	int fds[GITDIR_DEPTH + 1]; /* the directories open on the way there */
};

/* With since: true when a directory on the way to the one being read
 * (below the top) changed from then, so what it holds may have come with
 * it, change times and all (a directory moved in keeps them). Asked only
 * for a link or special file found, which are rare: a stat per directory
 * walked cost 2,000 system calls a call with 200 nested repositories. */
static bool walk_moved(const struct gitdir_walk *w)
{
	for (int i = 1; i <= w->depth; i++)
		if (fresh(w->fds[i], "", w->since))
			return true;
	return false;
}

/* Notes a special entry, or, sweeping, removes it unless it was there
 * before, unchanged. */
static void walk_special(struct gitdir_walk *w, int dfd, const char *name, const char *shown,
                         const struct stat *st)
{
	struct guard_special sp = {st->st_dev, st->st_ino, st->st_ctim};

	if (w->into) {
		if (w->into->nspecials == w->alloc) {
			w->alloc = w->alloc ? w->alloc * 2 : 16;
			w->into->specials = xreallocarray(w->into->specials, w->alloc, sizeof(sp));
		}
		w->into->specials[w->into->nspecials++] = sp;
	} else if (w->since ? fresh(dfd, name, w->since) || walk_moved(w)
	                    : w->g->nspecials == 0 || /* bsearch() wants a base even then */
	                          bsearch(&sp, w->g->specials, w->g->nspecials, sizeof(sp),
	                                  special_cmp) == NULL) {
		drop(dfd, name, shown, S_ISLNK(st->st_mode) ? " (a link)" : " (not a file)", w->b);
	}
}

/*
 * The loose-object fan-out and the packs are not noted (a large repository
 * holds thousands of entries there), but git reads them by name: a FIFO the
 * run left in place of a loose object or a pack index hung the host's next
 * `git status` for good. So a sweep walks each one whose change time says
 * the run added, removed or renamed an entry in it (the run cannot set a
 * change time), and what is special there goes: git keeps none. True when
 * name in dfd, an entry of objects/, is one of them and is not walked.
 */
static bool objects_skipped(const struct gitdir_walk *w, int dfd, const char *name)
{
	bool kept = strcmp(name, "pack") == 0 ||
	            (strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2);

	return kept && (w->into || !fresh(dfd, name, w->since ? w->since : &w->g->since));
}

/*
 * A git directory's files the host's git writes by name later, following
 * links: reflogs appended (with a commit subject or branch name the agent
 * chose), COMMIT_EDITMSG and MERGE_MSG rewritten. A link the run left at
 * .git/logs/HEAD carried the next host commit's reflog line into
 * ~/.bashrc, its $(...) run by the next shell. So each link, FIFO, socket
 * or device the run made, renamed or linked goes, at any depth. The
 * loose-object fan-out and the packs are skipped unless the run changed
 * them (objects_skipped()): git writes there only by a new name and a
 * rename. Only the git directory's own objects, and
 * only real directories there: a branch objects/ab has its reflog at
 * logs/refs/heads/objects/ab, and a link objects/ab carries new objects
 * outside. Walks the directory open at fd (taken: closed here).
 */
static void walk_dir(struct gitdir_walk *w, int fd, const char *shown, bool objects, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat st;

	if (d == NULL)
		close(fd);
	else
		w->fds[depth] = dirfd(d); /* depth <= GITDIR_DEPTH: deeper goes whole */
	while (d && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		unsigned char t = e->d_type;
		char *s;
		int sub;
		if (dot(n) || t == DT_REG)
			continue;
		if (t == DT_UNKNOWN) { /* some file systems do not say */
			if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
				continue;
			t = S_ISDIR(st.st_mode) ? DT_DIR : DT_LNK;
		}
		if (objects && t == DT_DIR && objects_skipped(w, dirfd(d), n))
			continue;
		s = xasprintf("%s/%s", shown, n);
		if (t == DT_DIR && depth >= GITDIR_DEPTH) {
			if (w->b)
				drop(dirfd(d), n, s, " (too deep to check for links)", w->b);
		} else if (t == DT_DIR) {
			if ((sub = openat(dirfd(d), n, DIR_FLAGS)) >= 0)
				walk_dir(w, sub, s, depth == 0 && strcmp(n, "objects") == 0, depth + 1);
		} else if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		           !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			w->depth = depth;
			walk_special(w, dirfd(d), n, s, &st);
		}
		free(s);
	}
	if (d)
		closedir(d);
}

/* Walks g's git directories: the workdir's .git (when a directory), and a
 * linked worktree's common dir, which holds its gitdir. */
static void walk_gitdirs(struct gitdir_walk *w)
{
	char *dirs[] = {xasprintf("%s/.git", w->g->root[GUARD_WD]), w->g->root[GUARD_COMMON]};

	for (size_t i = 0; i < nitems(dirs); i++) {
		const char *shown = i == 0 ? ".git" : dirs[i];
		int fd = dirs[i] ? open(dirs[i], DIR_FLAGS) : -1;
		if (fd >= 0)
			walk_dir(w, fd, shown, false, 0); /* takes fd */
	}
	free(dirs[0]);
}

static void note_gitdirs(struct guard_note *g)
{
	struct gitdir_walk w = {.g = g, .into = g};

	walk_gitdirs(&w);
	if (g->nspecials)
		qsort(g->specials, g->nspecials, sizeof(*g->specials), special_cmp);
}

/* The largest packed-refs the sweep reads for replace refs. */
#define PACKED_MAX (256 * 1024 * 1024)

/* packed-refs under gfd, which the run rewrote, without its refs/replace/
 * lines (and the peeled line after each), written under git's own lock
 * and renamed over it; said in b. Whose a line was cannot be told: git
 * writes the file whole. */
static void packed_replace_cut(int gfd, const char *shown, struct buf *b)
{
	static const char mark[] = " refs/replace/";
	int fd = openat(gfd, "packed-refs", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), out;
	struct stat st;
	char *text = NULL;
	ssize_t n = -1;
	struct buf kept;
	bool cut = false, skip_peeled = false;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= PACKED_MAX) {
		text = xmalloc((size_t)st.st_size + 1);
		n = read(fd, text, (size_t)st.st_size + 1);
	}
	if (fd >= 0)
		close(fd);
	if (n < 0 || n > st.st_size || memmem(text, (size_t)n, mark, sizeof(mark) - 1) == NULL) {
		free(text);
		return;
	}
	buf_init(&kept, (size_t)n);
	for (char *p = text, *end = text + n; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		bool replace = memmem(p, len, mark, sizeof(mark) - 1) != NULL && p[0] != '#';
		if (replace || (skip_peeled && p[0] == '^'))
			cut = true;
		else
			buf_append(&kept, p, len);
		skip_peeled = replace || (skip_peeled && p[0] == '^');
		p += len;
	}
	free(text);
	out = cut ? openat(gfd, "packed-refs.lock", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	                   st.st_mode & 0777)
	          : -1;
	if (out >= 0 && (write(out, kept.data, kept.len) != (ssize_t)kept.len || close(out) < 0 ||
	                 renameat(gfd, "packed-refs.lock", gfd, "packed-refs") < 0)) {
		unlinkat(gfd, "packed-refs.lock", 0);
		out = -1;
	}
	if (cut)
		buf_printf(b, "%s%s/packed-refs's refs/replace/ lines (replace refs: they change what "
		              "git shows of a commit)%s",
		           b->len ? ", " : "", shown, out >= 0 ? "" : " (could not be cut)");
	buf_free(&kept);
}

/*
 * Replace refs the run made (`git replace`): each swaps an object for
 * another in what the host's git shows (`git show`, `git log -p`), so a
 * commit the run made showed the user no change while the working tree and
 * a push held the real one. In the git directory gitdir (shown so), a
 * loose one changed from since on goes, and every one when refs or
 * refs/replace changed (moved in, with the change times it had), and the
 * refs/replace/ lines of a packed-refs the run rewrote.
 */
static void sweep_replace(const char *gitdir, const char *shown, const struct guard_span *since,
                          const struct guard_id *refs, struct buf *b)
{
	int gfd = gitdir ? open(gitdir, DIR_FLAGS) : -1, rfd;
	struct stat st;
	bool moved;
	DIR *d;
	struct dirent *e;

	if (gfd < 0)
		return;
	/* refs swapped for a directory that holds an old replace/ (a new entry
	 * in refs, refs/stash, changes its times too: the note's id tells);
	 * with no note (a recovery), any change to refs counts */
	if (refs)
		moved = fstatat(gfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		        (!refs->present || refs->dev != st.st_dev || refs->ino != st.st_ino);
	else
		moved = fresh(gfd, "refs", since);
	if ((rfd = openat(gfd, "refs", DIR_FLAGS)) >= 0) {
		if ((d = open_dir_at(rfd, "replace")) != NULL) {
			moved = moved || fresh(dirfd(d), "", since);
			while ((e = readdir(d)) != NULL) {
				char *s;
				if (dot(e->d_name) || !(moved || fresh(dirfd(d), e->d_name, since)))
					continue;
				s = xasprintf("%s/refs/replace/%s", shown, e->d_name);
				drop(dirfd(d), e->d_name, s,
				     " (a replace ref: it changes what git shows of a commit)", b);
				free(s);
			}
			closedir(d);
		}
		close(rfd);
	}
	if (fresh(gfd, "packed-refs", since))
		packed_replace_cut(gfd, shown, b);
	close(gfd);
}

/* The git directories walk_gitdirs() walks: the workdir's .git, and a
 * linked worktree's common dir or the one its .git file names (owned). */
static void replace_dirs(const struct guard_note *g, char *dirs[2])
{
	dirs[0] = xasprintf("%s/.git", g->root[GUARD_WD]);
	dirs[1] = g->root[GUARD_COMMON] ? xstrdup(g->root[GUARD_COMMON]) : NULL;
}

static void note_refs(struct guard_note *g)
{
	char *dirs[2], *p;
	struct stat st;

	replace_dirs(g, dirs);
	for (int i = 0; i < 2; i++) {
		p = dirs[i] ? xasprintf("%s/refs", dirs[i]) : NULL;
		if (p && lstat(p, &st) == 0)
			g->refs_id[i] = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev, st.st_ino};
		free(p);
		free(dirs[i]);
	}
}

/* sweep_replace() in g's git directories; noted: g's note is the run's
 * own, else (a recovery) refs is judged by its change time. */
static void sweep_replaces(const struct guard_note *g, const struct guard_span *since,
                           bool noted, struct buf *b)
{
	char *dirs[2];

	replace_dirs(g, dirs);
	for (int i = 0; i < 2; i++) {
		sweep_replace(dirs[i], i == 0 ? ".git" : dirs[i], since,
		              noted ? &g->refs_id[i] : NULL, b);
		free(dirs[i]);
	}
}

static void sweep_gitdirs(const struct guard_note *before, struct buf *b)
{
	struct gitdir_walk w = {.g = before, .b = b};

	walk_gitdirs(&w);
}

/* ---- repositories nested in the workdir ---------------------------------- */

/*
 * A nested repository's config runs when the host's git enters it: the
 * outer `git status` runs `git status` in each gitlink (`git add -A` makes
 * one of any nested repository), and core.fsmonitor runs then. Its hooks
 * run on a commit there. So what a run made or changed there is checked
 * as in a .git the run made. The plan (mounts.c) keeps a repository found
 * before the run read-only where it can; this is for what it cannot: a
 * repository made by the run, one made since the plan (the gate plans
 * ahead), one past its bound, one the search does not pass but the
 * index holds as a gitlink, and where a .git file or link leads.
 * "Changed" is by change time, which nothing can set but the clock.
 */

/* The table's entry name under dfd, of kind: with since NULL, made by the
 * run and acted on whole; else acted on when it changed from since on,
 * but for a hooks directory, which loses what changed in it, and a
 * directory holding others, left to their own entries. */
static void act_since(int dfd, const char *name, const char *shown, enum guard_kind kind,
                      const struct guard_span *since, struct buf *b)
{
	struct stat st;
	struct guard_id id;
	bool holder = kind == GUARD_PIN || kind == GUARD_GITDIR;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	id = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev, st.st_ino};
	if (since && kind == GUARD_HOOKS && id.is_dir)
		sweep_hooks(dfd, name, shown, since, b);
	else if (since == NULL || (!(holder && id.is_dir) && fresh(dfd, name, since)))
		act(dfd, name, shown, kind, &id, b);
}

/* What the guard reads of the workdir's index besides its gitlinks. */
struct index_seen {
	char **marks; /* the entries marked assume-unchanged or skip-worktree,
	               * sorted; owned */
	time_t since; /* entries whose stat data is from here on are fresh (0:
	               * not asked) */
	size_t fresh; /* how many */
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int nested_cmp(const void *a, const void *b)
{
	const struct guard_nested *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* The .git of each gitlink in the index of the repository whose worktree
 * is top, added to *gitdirs unless there; only those in the workdir wd,
 * and not reached through a link: git does not enter one, and the sweep
 * must not act outside the workdir. What else the index holds goes to
 * seen (NULL: not asked). */
static void gitlinks_add(const char *wd, const char *top, char ***gitdirs,
                         struct index_seen *seen)
{
	char ***marks = seen ? &seen->marks : NULL;
	time_t since = seen ? seen->since : 0;
	size_t *fresh = seen ? &seen->fresh : NULL;
	char gd[PATH_MAX], real[PATH_MAX], **links = NULL, *own = xasprintf("%s/.git", top);
	struct stat st;

	/* .git a directory, else a file naming one; unreadable: the search
	 * stands alone */
	if (gitindex_read(own, &links, marks, since, fresh) < 0 && links == NULL &&
	    gitdir_file_read(top, gd))
		(void)gitindex_read(gd, &links, marks, since, fresh);
	for (char **l = links; l && *l; l++) {
		char *dir = xasprintf("%s/%s", top, *l), *dotgit = xasprintf("%s/.git", dir);
		if (!strv_contains(*gitdirs, dotgit) && lstat(dotgit, &st) == 0 &&
		    realpath(dir, real) && strcmp(real, dir) == 0 && path_contains(wd, real))
			strv_push(gitdirs, dotgit);
		free(dotgit);
		free(dir);
	}
	strv_free(links);
	free(own);
}

/* The .git of each gitlink that the search did not pass (in a skipped
 * tree, or below a directory it cannot list: chmod 0111), in the
 * workdir's index and in each nested repository's, added to *gitdirs.
 * The host's git enters a gitlink wherever it lies, ignored or not, and
 * its `git status` in one enters that one's gitlinks in turn; the run can
 * write any of those indexes (`git add -f node_modules/x`). The
 * workdir's own index's marked entries and fresh ones go to seen, its
 * marks sorted. */
static void nested_gitlinks(const struct guard_note *g, char ***gitdirs,
                            struct index_seen *seen)
{
	const char *wd = g->root[GUARD_WD];

	gitlinks_add(wd, wd, gitdirs, seen);
	if (seen->marks)
		qsort(seen->marks, strv_len(seen->marks), sizeof(*seen->marks), str_cmp);
	for (size_t i = 0; *gitdirs && (*gitdirs)[i]; i++) { /* grows as it goes */
		char *top = xstrdup((*gitdirs)[i]);
		path_up(top);
		gitlinks_add(wd, top, gitdirs, NULL);
		free(top);
	}
}

/* The nested .git entries under g's workdir: 0 with a new vector in
 * *gitdirs (NULL: none), the marked entries of the workdir's index in
 * seen and the nested .airlock entries in *airlocks, or -1
 * with *errstr. */
static int nested_find(const struct guard_note *g, char ***gitdirs, struct index_seen *seen,
                       char ***airlocks, char **errstr)
{
	char **found = NULL, **both = NULL;
	size_t n;
	int rc = secrets_find(g->root[GUARD_WD], SEARCH_SWEEP | SEARCH_AIRLOCKS, g->skip, &found,
	                      &n, &both, errstr);

	strv_free(found);
	for (char **p = both; p && *p; p++)
		strv_push(strcmp(strrchr(*p, '/'), "/.airlock") == 0 ? airlocks : gitdirs, *p);
	strv_free(both);
	if (rc == 0)
		nested_gitlinks(g, gitdirs, seen);
	return rc;
}

/* The ids of what paths names, sorted (nested_cmp), into *ids and *n
 * (what is gone is passed by). */
static void airlocks_note(char *const *paths, struct guard_nested **ids, size_t *n)
{
	struct stat st;

	for (char *const *p = paths; p && *p; p++) {
		if (lstat(*p, &st) < 0)
			continue;
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = (struct guard_nested){.dev = st.st_dev, .ino = st.st_ino};
	}
	if (*n)
		qsort(*ids, *n, sizeof(**ids), nested_cmp);
}

/* File systems that stamp a change to the nanosecond, or near: others may
 * keep seconds (FAT keeps two), and truncate a change's time below the
 * note's. */
static const unsigned long fine_fs[] = {
	EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC,
	F2FS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */,
};

/* The note's time: the clock file systems stamp changes with (a change
 * after it has a change time at or past it); on a file system not known
 * to keep fine times, two seconds back, where a change the user made just
 * before counts as the run's, and is only checked. */
static void note_since(struct guard_note *g)
{
	struct statfs fs;
	struct timespec now;
	bool fine = false;

	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	if (statfs(g->root[GUARD_WD], &fs) == 0)
		for (size_t i = 0; i < nitems(fine_fs); i++)
			fine |= (unsigned long)fs.f_type == fine_fs[i];
	g->since = (struct guard_span){fine ? now : (struct timespec){now.tv_sec - 2, 0}, 0};
}

/* True when dir is one of g's own git directories (the workdir's .git,
 * a linked worktree's two, or the one its .git file names), which the
 * rest of the guard keeps. */
static bool nested_own(const struct guard_note *g, const char *dir)
{
	char *own = xasprintf("%s/.git", g->root[GUARD_WD]);
	bool is = strcmp(dir, own) == 0;

	for (int r = GUARD_COMMON; r < GUARD_NROOTS; r++)
		is |= g->root[r] && strcmp(dir, g->root[r]) == 0;
	free(own);
	return is;
}

/* True when real is a linked worktree's entry (X/worktrees/NAME) of one
 * of g's own git directories X, with git's own commondir: its config and
 * hooks are X's, which the guard keeps. */
static bool nested_own_worktree(const struct guard_note *g, const char *real)
{
	char *up = xstrdup(real);
	const char *base;
	bool is = false;
	int fd;

	if (path_up(up) && (base = strrchr(up, '/')) && strcmp(base, "/worktrees") == 0 &&
	    path_up(up) && nested_own(g, up) && (fd = open(real, DIR_FLAGS)) >= 0) {
		is = commondir_is_own(fd, "commondir");
		close(fd);
	}
	free(up);
	return is;
}

/* Where the .git file or link path (st) leads, in real: true when that is
 * a directory the run could write (in the workdir, or in a linked
 * worktree's common dir) other than g's own git directories. Inside
 * those is no exception: a .git/evil the run made holds what a nested
 * repository's git runs, and nothing else there checks it. */
static bool nested_target(const struct guard_note *g, const char *path, const struct stat *st,
                          char real[PATH_MAX])
{
	const char *wd = g->root[GUARD_WD], *common = g->root[GUARD_COMMON];
	char *dir = xstrdup(path);
	struct stat t;
	bool ok;

	path_up(dir);
	ok = S_ISLNK(st->st_mode) ? realpath(path, real) != NULL : gitdir_file_read(dir, real);
	ok = ok && stat(real, &t) == 0 && S_ISDIR(t.st_mode) &&
	     (path_contains(wd, real) || (common && path_contains(common, real))) &&
	     !nested_own(g, real);
	free(dir);
	return ok;
}

/* Notes the hooks directory of a nested git directory gd: one moved in
 * keeps its hooks as they were, change times and all. */
static void note_nested_hooks(const char *gd, struct guard_nested *n)
{
	char *hooks = xasprintf("%s/hooks", gd);
	struct stat st;

	if (lstat(hooks, &st) == 0)
		n->hooks = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev, st.st_ino};
	free(hooks);
}

static void note_nested(struct guard_note *g, char *const *skip)
{
	char **gitdirs = NULL, **airlocks = NULL, *err = NULL, real[PATH_MAX];
	struct index_seen seen = {NULL, 0, 0};
	struct stat st;

	g->skip = strv_dup(skip);
	int rc = nested_find(g, &gitdirs, &seen, &airlocks, &err);
	g->marks = seen.marks;
	if (rc < 0) {
		g->nested_unknown = true; /* each counts as there before */
		strv_free(airlocks);
		free(err);
		return;
	}
	for (char **p = gitdirs; p && *p; p++) {
		struct guard_nested n;
		const char *gd = *p;
		if (lstat(*p, &st) < 0)
			continue;
		n = (struct guard_nested){st.st_dev, st.st_ino, {0}, {0}};
		if (!S_ISDIR(st.st_mode)) {
			gd = nested_target(g, *p, &st, real) && stat(real, &st) == 0 ? real : NULL;
			if (gd)
				n.target = (struct guard_id){true, true, st.st_dev, st.st_ino};
		}
		if (gd)
			note_nested_hooks(gd, &n);
		g->nested = xreallocarray(g->nested, g->nnested + 1, sizeof(*g->nested));
		g->nested[g->nnested++] = n;
	}
	strv_free(gitdirs);
	if (g->nnested)
		qsort(g->nested, g->nnested, sizeof(*g->nested), nested_cmp);
	airlocks_note(airlocks, &g->airlocks, &g->nairlocks);
	strv_free(airlocks);
}

/* The note of the .git st when it is one the note saw, at this path or
 * another (`mv pkgs libs` moves a user's nested repository, which must
 * not count as made: its hooks and config would go); NULL when the run
 * made it. */
static const struct guard_nested *nested_was(const struct guard_note *g, const struct stat *st)
{
	static const struct guard_nested unknown = {0};
	struct guard_nested key = {.dev = st->st_dev, .ino = st->st_ino};

	if (g->nested_unknown)
		return &unknown;
	return g->nnested ? bsearch(&key, g->nested, g->nnested, sizeof(key), nested_cmp) : NULL;
}

/* The note of the .git file or link path (st) when where it leads, real,
 * is what it led to before the run: the .git the one noted and unchanged
 * since (a file rewritten in place keeps its inode), leading to the same
 * directory. Else (NULL) what lies there counts as the run's, however
 * old: a directory made by an earlier call, outside any .git, and named
 * now. */
static const struct guard_nested *nested_target_was(const struct guard_note *g,
                                                    const char *path, const struct stat *st,
                                                    const char *real)
{
	const struct guard_nested *f = nested_was(g, st);
	struct stat t;

	if (f == NULL || fresh(AT_FDCWD, path, &g->since))
		return NULL;
	if (g->nested_unknown)
		return f;
	if (!f->target.present || stat(real, &t) < 0 || t.st_dev != f->target.dev ||
	    t.st_ino != f->target.ino)
		return NULL;
	return f;
}

/* A nested git directory gd (real), shown as shown: with f NULL, one the
 * run made, checked as a made .git is, its links and special files all
 * gone; else (f, its note in g) what changed from g's time on: its
 * config, commondir, config.worktree and hooks, a hooks directory not the
 * one noted whole, and each link or special file that changed or lies
 * below a directory that did (one moved in: objects/ab/logs, with a
 * logs/HEAD link an earlier call left in the fan-out no walk enters,
 * moved to logs/); its modules and worktrees the plan keeps read-only.
 * worktree: gd is a linked worktree's entry of the guard's own
 * repository. */
static void sweep_nested_refs(const struct guard_note *g, const char *top, const char *gd,
                              const struct guard_span *since, struct buf *b);

static void sweep_nested_gitdir(const struct guard_note *g, const struct guard_nested *f,
                                const char *top, const char *gd, const char *shown, bool worktree,
                                struct buf *b)
{
	const struct guard_span *since = f ? &g->since : NULL;
	int fd = open(gd, DIR_FLAGS);

	for (size_t i = 0; fd >= 0 && i < GUARD_NPATHS; i++) {
		const char *rel = guard_rel(i, true);
		enum guard_kind kind = guard_paths[i].kind;
		struct guard_id id;
		struct stat st;
		char *s;
		if (rel == NULL || rel[0] == '\0' || fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (worktree && (strcmp(rel, "commondir") == 0 || strcmp(rel, "gitdir") == 0))
			continue; /* git's own, leading back to what the guard keeps */
		id = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev, st.st_ino};
		s = xasprintf("%s/%s", shown, rel);
		if (since && kind == GUARD_HOOKS && id.is_dir) /* one moved in: all of it */
			sweep_hooks(fd, rel, s,
			            g->nested_unknown || id_same(&f->hooks, &id) ? since : NULL, b);
		else
			act_since(fd, rel, s, kind, since, b);
		free(s);
	}
	if (fd >= 0 && since && !worktree) /* made: its config went, or sets neither */
		sweep_nested_refs(g, top, gd, since, b);
	if (fd >= 0)
		sweep_sequencer(NULL, gd, shown, since ? since : &(struct guard_span){{0, 0}, 0}, b);
	if (fd >= 0) { /* links and specials: made, or changed from then */
		struct guard_note none = {0};
		struct gitdir_walk w = {.g = &none, .since = since, .b = b};
		walk_dir(&w, fd, shown, false, 0); /* takes fd */
	}
}

/* The git directory whose index is the workdir's, when the sweep may
 * write it (in the workdir, or a linked worktree's own), resolved into
 * real; else false. */
static bool marks_dir(const struct guard_note *g, char real[PATH_MAX])
{
	const char *wd = g->root[GUARD_WD], *wt = g->root[GUARD_WTDIR];
	char gd[PATH_MAX], *own = xasprintf("%s/.git", wd);
	struct stat st;
	bool ok = lstat(own, &st) == 0 && S_ISDIR(st.st_mode) ? realpath(own, real) != NULL
	          : gitdir_file_read(wd, gd)                   ? realpath(gd, real) != NULL
	                                                       : false;

	free(own);
	return ok && ((path_contains(wd, real) && strcmp(real, wd) != 0) ||
	              (wt && strcmp(real, wt) == 0));
}

/*
 * Clears the assume-unchanged and skip-worktree marks the run set in the
 * workdir's index (after: the entries marked now, sorted): git status and
 * git diff pass such an entry by, so a run that marked the Makefile and
 * then edited it showed the host no change while make ran the edit. The
 * user's own marks (noted before the run) stay. Each entry whose stat
 * data is from the run's span is smudged (gitindex.c), unsaid. Costs
 * nothing unless a mark is new or the run wrote the index: then a read,
 * a hash and a write of it.
 */
static void sweep_marks(const struct guard_note *g, const struct index_seen *seen,
                        struct buf *b)
{
	char *const *after = seen->marks;
	char real[PATH_MAX], **cleared = NULL;
	size_t n = 0, left = 0;
	int rc = -1;

	/* no note (a recovery, whose note is taken after the killed run): every
	 * mark counts as the user's, and only fresh entries are smudged */
	char *const *keep = g->nested_unknown ? after : g->marks;

	for (char *const *m = after; !g->nested_unknown && m && *m; m++)
		n += !(g->marks && bsearch(m, g->marks, strv_len(g->marks), sizeof(*m), str_cmp));
	if (n == 0 && seen->fresh == 0)
		return;
	if (marks_dir(g, real))
		rc = gitindex_unhide(real, keep, seen->since, &cleared);
	left = rc == 0 && strv_len(cleared) >= n ? 0 : n - (rc == 0 ? strv_len(cleared) : 0);
	for (size_t i = 0; cleared && cleared[i] && i < 4; i++)
		buf_printf(b, "%sthe assume-unchanged or skip-worktree mark of %s in the index",
		           b->len ? ", " : "", cleared[i][0] ? cleared[i] : "an entry (split index)");
	if (strv_len(cleared) > 4)
		buf_printf(b, " and of %zu more", strv_len(cleared) - 4);
	if (left)
		buf_printf(b, "%s%zu assume-unchanged or skip-worktree mark%s in the index (could not "
		              "be removed: `git ls-files -v | grep '^[a-zS]'` lists them; git status "
		              "does not show their changes)",
		           b->len ? ", " : "", left, left == 1 ? "" : "s");
	strv_free(cleared);
}

/*
 * Removes each nested .airlock the run made (none of the ids noted before,
 * at any path: a `mv pkgs libs` moves a user's): inside the outer project
 * such a policy only adds restrictions, but a session started in that
 * directory reads it as its own project's, trusted with trust-project,
 * and a new .gitignore can keep it out of git status.
 */
static void sweep_airlocks(const struct guard_note *g, char *const *after, struct buf *b)
{
	const char *wd = g->root[GUARD_WD], *name;
	size_t wl = strlen(wd);
	struct stat st;
	int dfd;

	for (char *const *p = after; !g->nested_unknown && p && *p; p++) {
		struct guard_nested key;
		if (lstat(*p, &st) < 0 || !path_contains(wd, *p) || strcmp(*p, wd) == 0)
			continue;
		key = (struct guard_nested){.dev = st.st_dev, .ino = st.st_ino};
		if (g->nairlocks &&
		    bsearch(&key, g->airlocks, g->nairlocks, sizeof(key), nested_cmp) != NULL)
			continue;
		if ((dfd = open_parent(wd, *p + wl + 1, &name)) < 0)
			continue;
		drop(dfd, name, *p + wl + 1, NULL, b);
		close(dfd);
	}
}

/* A .git file or link at path naming real, a directory that holds it (the
 * workdir itself, `gitdir: ..`): git takes that worktree for the git
 * directory, its config, hooks/ and logs/ plain project files there (the
 * host's `git status` ran a config written at the workdir's top). No
 * repository is laid out so; unless the note saw it, the .git goes. */
static void nested_drop_holder(const struct guard_note *g, const char *path,
                               const struct stat *st, const char *real, struct buf *b)
{
	const char *wd = g->root[GUARD_WD], *name;
	char *dir = xstrdup(path);
	int dfd;

	path_up(dir);
	if (path_contains(real, dir) && path_contains(wd, path) &&
	    nested_target_was(g, path, st, real) == NULL &&
	    (dfd = open_parent(wd, path + strlen(wd) + 1, &name)) >= 0) {
		drop(dfd, name, path + strlen(wd) + 1, " (it names a directory that holds it)", b);
		close(dfd);
	}
	free(dir);
}

static void sweep_nested(const struct guard_note *g, struct buf *b)
{
	const char *wd = g->root[GUARD_WD];
	char **gitdirs = NULL, **airlocks = NULL, *err = NULL, real[PATH_MAX];
	struct index_seen seen = {NULL, g->since.since.tv_sec, 0};
	size_t wl = strlen(wd);
	struct stat st;

	if (nested_find(g, &gitdirs, &seen, &airlocks, &err) < 0) { /* the workdir is gone: */
		strv_free(seen.marks); /* so is what the host's git would run */
		strv_free(airlocks);
		free(err);
		return;
	}
	sweep_marks(g, &seen, b);
	strv_free(seen.marks);
	sweep_airlocks(g, airlocks, b);
	strv_free(airlocks);
	for (char **p = gitdirs; p && *p; p++) {
		char *top = xstrdup(*p);
		path_up(top);
		if (lstat(*p, &st) < 0)
			;
		else if (S_ISDIR(st.st_mode))
			sweep_nested_gitdir(g, nested_was(g, &st), top, *p, *p + wl + 1, false, b);
		else if (!nested_target(g, *p, &st, real))
			;
		else if (strcmp(real, wd) == 0 || path_contains(real, *p)) /* a worktree */
			nested_drop_holder(g, *p, &st, real, b);
		else
			sweep_nested_gitdir(g, nested_target_was(g, *p, &st, real), top, real,
			                    path_contains(wd, real) ? real + wl + 1 : real,
			                    nested_own_worktree(g, real), b);
		free(top);
	}
	strv_free(gitdirs);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct guard_name *)a)->rel, ((const struct guard_name *)b)->rel);
}

size_t guard_names_read(const char *wd, struct guard_name **names)
{
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat st;
	const char *name;
	DIR *d;
	int dfd;

	*names = NULL;
	for (size_t k = 0; k < GUARD_NNAMED; k++) {
		const struct guard_named *g = &guard_named[k];
		if ((dfd = open_parent(wd, g->dir, &name)) < 0)
			continue;
		d = open_dir_at(dfd, name);
		close(dfd);
		while (d && (e = readdir(d)) != NULL) {
			struct guard_name *x;
			char *file;
			if (dot(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
				continue; /* a file here is the directory's own business */
			if (n == cap)
				*names = xrealloc(*names, (cap = cap ? 2 * cap : 8) * sizeof(**names));
			x = &(*names)[n++];
			*x = (struct guard_name){xasprintf("%s/%s", g->dir, e->d_name), k,
			                         {true, S_ISDIR(st.st_mode), st.st_dev, st.st_ino},
			                         {0}};
			file = xasprintf("%s/%s", e->d_name, g->file);
			/* through a link NAME, what the spec reads: only looked at,
			 * never acted on (name_act() removes the link) */
			if (fstatat(dirfd(d), file, &st, x->dir.is_dir ? AT_SYMLINK_NOFOLLOW : 0) == 0)
				x->file = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev,
				                            st.st_ino};
			free(file);
		}
		if (d)
			closedir(d);
	}
	if (n > 1)
		qsort(*names, n, sizeof(**names), name_cmp);
	return n;
}

void guard_names_free(struct guard_name *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i].rel);
	free(names);
}

/* The table's index of named directory k (a PIN there). */
static size_t named_index(size_t k)
{
	for (size_t i = 0; i < GUARD_NPATHS; i++)
		if (strcmp(guard_paths[i].rel, guard_named[k].dir) == 0)
			return i;
	return GUARD_NPATHS; /* not reached: a test checks the table */
}

/* Acts on x, one name below a directory of guard_named[] in the workdir
 * wd: with since NULL, the run made it when before (what the note found
 * of the same name, NULL: none) differs, or the directory holding it was
 * replaced (held); else by change time. NAME/FILE made is removed; a
 * link NAME that leads to a FILE the run made, or made itself, goes
 * itself: the spec follows it, and the guard follows no link to act. */
static void name_act(const char *wd, const struct guard_name *x, const struct guard_name *before,
                     bool held, const struct guard_span *since, struct buf *b)
{
	const struct guard_named *g = &guard_named[x->k];
	bool dir_made = held || before == NULL || !id_same(&before->dir, &x->dir);
	char *file = xasprintf("%s/%s", x->rel, g->file), *shown = NULL;
	const char *name;
	int dfd;

	if (x->dir.is_dir) {
		if (since || (x->file.present && (dir_made || !id_same(&before->file, &x->file)))) {
			if ((dfd = open_parent(wd, file, &name)) >= 0) {
				if (since)
					act_since(dfd, name, file, GUARD_REMOVE, since, b);
				else
					drop(dfd, name, file, NULL, b);
				close(dfd);
			} else if (!since) {
				buf_printf(b, "%s%s (could not be removed)", b->len ? ", " : "", file);
			}
		}
	} else if (x->file.present &&
	           (since || dir_made || !id_same(&before->file, &x->file)) &&
	           (dfd = open_parent(wd, x->rel, &name)) >= 0) {
		/* a link the run made, or one whose FILE it made through it;
		 * removed even in a recovery: moved aside, NAME.airlock-killed
		 * would be a NAME the spec reads as well */
		bool q = quarantine;
		shown = xasprintf("%s (a link to a %s)", x->rel, g->file);
		quarantine = false;
		if (fresh(dfd, name, since))
			drop(dfd, name, shown, NULL, b);
		quarantine = q;
		close(dfd);
	}
	free(shown);
	free(file);
}

/* The names below guard_named[] in the workdir: what the run made (since
 * NULL; before noted) or changed from since on, by name_act(). */
static void sweep_names(const struct guard_note *before, const struct guard_id *after_ids,
                        const struct guard_span *since, struct buf *b)
{
	const char *wd = before->root[GUARD_WD];
	struct guard_name *now;
	size_t n = guard_names_read(wd, &now);

	for (size_t i = 0; i < n; i++) {
		size_t j = named_index(now[i].k);
		bool held = since == NULL && j < GUARD_NPATHS &&
		            !id_same(&before->id[GUARD_WD][j], &after_ids[j]);
		/* bsearch() may not be given NULL, even for no elements */
		const struct guard_name *was =
		    since || before->nnames == 0
		        ? NULL
		        : bsearch(&now[i], before->names, before->nnames, sizeof(*now), name_cmp);
		name_act(wd, &now[i], was, held, since, b);
	}
	guard_names_free(now, n);
}

/* Acts on what the run made under root r; in b as the workdir-relative
 * path, or the whole path outside the workdir. */
static void sweep_root(const struct guard_note *before, const struct guard_note *after, int r,
                       struct buf *b)
{
	for (size_t i = 0; i < GUARD_NPATHS; i++) {
		const char *rel = guard_rel(i, r != GUARD_WD), *name;
		char *shown;
		int dfd;
		if (!made(before->id[r], after->id[r], i) || rel == NULL || rel[0] == '\0')
			continue;
		shown = r == GUARD_WD ? xstrdup(rel) : xasprintf("%s/%s", after->root[r], rel);
		if ((dfd = open_parent(after->root[r], rel, &name)) < 0)
			buf_printf(b, "%s%s (could not be removed)", b->len ? ", " : "", shown);
		else
			act(dfd, name, shown, guard_paths[i].kind, &after->id[r][i], b);
		if (dfd >= 0)
			close(dfd);
		free(shown);
	}
}

#define CONFIG_WAIT_MS 2000   /* a read takes ~0.5 ms once libgit2 is loaded */
#define CONFIG_REFS_MAX 65536 /* bytes of paths from the child */

struct config_arg {
	const struct lazy_git *g;
	const char *path; /* the config file */
};

static bool include_key(const char *name)
{
	size_t n = strlen(name);
	return strcmp(name, "include.path") == 0 ||
	       (strncmp(name, "includeif.", 10) == 0 && n > 15 && strcmp(name + n - 5, ".path") == 0);
}

/* What of the config file at a->path itself decides what the host's git
 * runs: core.hooksPath ("H" VALUE) and each include.path and
 * includeIf.*.path ("I" VALUE), into b, each NUL-terminated. Not what the
 * files it includes set: libgit2 does not say which file that came from,
 * against whose directory git resolves their includes, and it skips an
 * includeIf without a repository, so config_refs_walk() reads each of
 * them as a file of its own. -1 when it cannot be read. */
static int config_refs_read(const struct config_arg *a, struct buf *b)
{
	const struct lazy_git *g = a->g;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	int rc = -1, got;

	if (g->git_config_open_ondisk(&cfg, a->path) < 0 || g->git_config_iterator_new(&it, cfg) < 0)
		goto out;
	while ((got = g->git_config_next(&e, it)) == 0) {
		if (e->include_depth != 0 || e->value == NULL)
			continue;
		if (strcmp(e->name, "core.hookspath") == 0)
			buf_append(b, "H", 1), buf_append(b, e->value, strlen(e->value) + 1);
		else if (include_key(e->name))
			buf_append(b, "I", 1), buf_append(b, e->value, strlen(e->value) + 1);
	}
	rc = got == GIT_ITEROVER ? 0 : -1;
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	return rc;
}

/* The child of config_refs(): reads, sends, exits. */
static void config_refs_send(void *arg, int fd)
{
	struct buf b;

	buf_init(&b, 0);
	_exit(config_refs_read(arg, &b) == 0 && fd_write_all(fd, b.data, b.len) == 0 ? 0 : 1);
}

/*
 * The core.hooksPath values (added to *hooks) and includes (added to
 * *includes) that the config file path itself sets (config_refs_read()),
 * read as git reads it, through links. libgit2 is loaded only when the
 * text names hooksPath or an include. It opens every file the config
 * includes, and one in the workdir a run may have left a FIFO (the sweep,
 * and the gate with it, hung in open), so a config with an include is
 * read in a child with a deadline (child.c). -1 when the text names
 * either but it cannot be read, or not in time, or the file is there but
 * no text it reads (a FIFO, over CONFIG_MAX): what the host's git runs is
 * then unknown.
 */
static int config_refs(const char *path, char ***hooks, char ***includes)
{
	size_t n;
	char *text = guard_config_text(AT_FDCWD, path, true, &n), *err = NULL;
	bool inc = text && config_includes(text, n);
	bool want = text && (inc || strcasestr(text, "hookspath"));
	struct config_arg a = {NULL, path};
	bool read = text != NULL;
	struct stat st;
	struct buf b;
	int rc;

	free(text);
	if (!read && stat(path, &st) == 0)
		return -1; /* there, but not a file we read (over CONFIG_MAX): unknown */
	if (!want)
		return 0;
	if ((a.g = lazy_git(&err)) == NULL) {
		free(err);
		return -1;
	}
	buf_init(&b, 0);
	rc = inc ? child_collect(config_refs_send, &a, CONFIG_WAIT_MS, CONFIG_REFS_MAX, &b)
	         : config_refs_read(&a, &b);
	for (size_t i = 0; rc == 0 && i < b.len; i += strlen(b.data + i) + 1)
		strv_push(b.data[i] == 'H' ? hooks : includes, b.data + i + 1);
	buf_free(&b);
	return rc;
}

/* v made relative to wd (resolved), when it names a path in wd; "." and
 * empty components dropped, ".." refused (git resolves a relative one from
 * the work tree's top); else NULL. An absolute one is resolved only when it
 * does not lie in wd as written (a link it names is kept as the link), and
 * through its longest existing part: a link to a directory not made yet
 * leads into wd as well once the run makes it. */
static char *rel_in(const char *wd, const char *v)
{
	char *real = NULL, *out;
	size_t n = strlen(wd);
	struct buf b;

	/* a link into the workdir, to a directory the run may make too: a
	 * global core.hooksPath ~/.githooks, stow's link to dots/githooks */
	if (v[0] == '/' && (strncmp(v, wd, n) != 0 || v[n] != '/') &&
	    (real = state_path_resolved(v)) != NULL)
		v = real;
	if (v[0] == '/' && (strncmp(v, wd, n) != 0 || v[n] != '/')) {
		free(real);
		return NULL;
	}
	buf_init(&b, 0);
	for (const char *p = v[0] == '/' ? v + n + 1 : v; *p; p += strspn(p, "/")) {
		size_t len = strcspn(p, "/");
		if (len == 2 && strncmp(p, "..", 2) == 0) {
			buf_free(&b);
			free(real);
			return NULL;
		}
		if (len != 1 || p[0] != '.')
			buf_printf(&b, "%s%.*s", b.len ? "/" : "", (int)len, p);
		p += len;
	}
	out = b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
	free(real);
	return out;
}

/* abs with "." and ".." taken out as written (a new string): a path in
 * the workdir that may not exist yet. */
static char *path_lexical(const char *abs)
{
	struct buf b;

	buf_init(&b, 0);
	for (const char *p = abs; *p; p += strspn(p, "/")) {
		size_t len = strcspn(p, "/");
		if (len == 2 && strncmp(p, "..", 2) == 0) {
			char *slash = memrchr(b.data ? b.data : "", '/', b.len);
			b.len = slash ? (size_t)(slash - b.data) : 0;
		} else if (len && !(len == 1 && p[0] == '.')) {
			buf_printf(&b, "/%.*s", (int)len, p);
		}
		p += len;
	}
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), xstrdup("/"));
}

/* A path value v of the config (an include's, core.hooksPath's), made
 * relative to wd when it names a path there: a relative one against dir
 * (an include's config directory, the work tree's top for hooks), ~/
 * against the home, as git resolves them; "." and ".." as written. */
static char *include_rel(const char *wd, const char *confdir, const char *v)
{
	const char *home = getenv("HOME");
	char *abs = NULL, *lex, *rel;

	if (strncmp(v, "~/", 2) == 0)
		abs = home && home[0] == '/' ? xasprintf("%s/%s", home, v + 2) : NULL;
	else if (v[0] == '/')
		abs = xstrdup(v);
	else if (v[0] != '\0')
		abs = xasprintf("%s/%s", confdir, v);
	if (abs == NULL)
		return NULL;
	lex = path_lexical(abs);
	rel = rel_in(wd, lex);
	free(lex);
	free(abs);
	return rel;
}

/* A path value v of the config file at path, as git resolves it: ~/
 * against the home, a relative one against that file's directory (as git
 * names the file, links not resolved); a new string, or NULL. */
static char *include_abs(const char *path, const char *v)
{
	const char *home = getenv("HOME"), *slash = strrchr(path, '/');

	if (strncmp(v, "~/", 2) == 0)
		return home && home[0] == '/' ? xasprintf("%s/%s", home, v + 2) : NULL;
	if (v[0] == '/')
		return xstrdup(v);
	if (v[0] == '\0' || slash == NULL)
		return NULL;
	return xasprintf("%.*s/%s", (int)(slash - path), path, v);
}

/* git's own bound on nested includes (deeper, it stops with an error), and
 * ours on the files read for one repository's config. */
#define INCLUDE_DEPTH 10
#define INCLUDE_FILES 64

/* What the config file at path decides, and each file it includes, at any
 * depth, whatever the condition of an includeIf (git may read it; libgit2
 * never does without a repository): the core.hooksPath values into
 * *hooks, the included files (their paths as git opens them) into
 * *files, each once. -1 when one cannot be read, or there are more than
 * INCLUDE_FILES. */
static int config_refs_walk(const char *path, int depth, char ***hooks, char ***files)
{
	char **inc = NULL;
	int rc = config_refs(path, hooks, &inc);

	for (char **p = inc; rc == 0 && depth < INCLUDE_DEPTH && p && *p; p++) {
		char *abs = include_abs(path, *p), *lex = abs ? path_lexical(abs) : NULL;
		bool seen = false;
		for (char **f = *files; lex && !seen && f && *f; f++) {
			char *l = path_lexical(*f);
			seen = strcmp(l, lex) == 0; /* a cycle: git stops at its bound */
			free(l);
		}
		if (abs && !seen && strv_len(*files) >= INCLUDE_FILES)
			rc = -1;
		else if (abs && !seen) {
			strv_push(files, abs);
			rc = config_refs_walk(abs, depth + 1, hooks, files);
		}
		free(lex);
		free(abs);
	}
	strv_free(inc);
	return rc;
}

/*
 * The user's and the system's git config, which every repository reads
 * before its own: a relative core.hooksPath there (`git config --global
 * core.hooksPath .githooks`, so that each project's committed hooks run)
 * names a directory in every work tree, and an include there may name a
 * file in the workdir (a dotfiles repository's gitconfig). Read as the
 * repository's config is, and kept for the process while each file read
 * has the identity and times it had (a stat a file a call); one changed in
 * the last RACY_S seconds is read again next time (a change in the same
 * clock tick keeps the times).
 */
#define RACY_S 2

struct global_refs {
	bool valid;
	int rc;
	char **paths;           /* every file read, the ntop top ones first */
	size_t ntop;
	struct stat *st;        /* what each was (st_nlink 0: absent) */
	char **hooks, **files;  /* config_refs_walk()'s */
};

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static struct global_refs global;

/* True when git takes v as a true boolean (git_parse_maybe_bool(): true,
 * yes, on in any case, or a number other than 0, with a k, m or g unit);
 * false for anything else, where git reads the system config or stops.
 * "no", "off" and "00" used to skip it here while git read it, and a
 * hooksPath of GIT_CONFIG_SYSTEM's went unguarded. */
static bool git_env_true(const char *v)
{
	char *end;
	long long n;

	if (strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0)
		return true;
	errno = 0;
	n = strtoll(v, &end, 0);
	if (end != v && *end && strchr("kKmMgG", *end))
		end++;
	return end != v && *end == '\0' && errno == 0 && n != 0;
}

char **guard_global_configs(void)
{
	const char *nosys = getenv("GIT_CONFIG_NOSYSTEM"), *sys = getenv("GIT_CONFIG_SYSTEM");
	const char *glob = getenv("GIT_CONFIG_GLOBAL"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char **v = NULL;

	if (!nosys || !git_env_true(nosys))
		strv_push(&v, sys && sys[0] ? sys : "/etc/gitconfig");
	if (glob && glob[0]) {
		strv_push(&v, glob);
		return v;
	}
	if (xdg && xdg[0] == '/')
		strv_push_owned(&v, xasprintf("%s/git/config", xdg));
	else if (home && home[0] == '/')
		strv_push_owned(&v, xasprintf("%s/.config/git/config", home));
	if (home && home[0] == '/')
		strv_push_owned(&v, xasprintf("%s/.gitconfig", home));
	return v;
}

static void stamp(const char *path, struct stat *st)
{
	if (stat(path, st) < 0)
		memset(st, 0, sizeof(*st));
}

static bool stamp_same(const struct stat *a, const struct stat *b)
{
	return a->st_nlink == b->st_nlink && a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* True when what global holds was read from the files as they are. */
static bool global_fresh(void)
{
	struct stat st;
	char **want = guard_global_configs();
	size_t ntop = strv_len(want);
	bool fresh = global.valid && global.ntop == ntop;

	for (size_t i = 0; fresh && i < ntop; i++) /* the same files, as the environment names */
		fresh = strcmp(global.paths[i], want[i]) == 0;
	for (size_t i = 0; fresh && global.paths[i]; i++) {
		stamp(global.paths[i], &st);
		fresh = stamp_same(&st, &global.st[i]) &&
		        (st.st_nlink == 0 || st.st_ctim.tv_sec + RACY_S < time(NULL));
	}
	strv_free(want);
	return fresh;
}

/* Reads the global configs afresh into global (global_lock held). */
static void global_read(void)
{
	char **tops = guard_global_configs();
	size_t n;

	strv_free(global.paths);
	strv_free(global.hooks);
	strv_free(global.files);
	free(global.st);
	memset(&global, 0, sizeof(global));
	/* config_refs() loads libgit2 only for a file whose text names an
	 * include or hooksPath (most global configs name neither) */
	for (char **t = tops; global.rc == 0 && t && *t; t++)
		global.rc = config_refs_walk(*t, 0, &global.hooks, &global.files);
	/* stamped after the read: a change during it is seen next time, as
	 * then it is within RACY_S, or has other times than these */
	global.paths = tops;
	global.ntop = strv_len(tops);
	for (char **f = global.files; f && *f; f++)
		strv_push(&global.paths, *f);
	n = strv_len(global.paths);
	global.st = xcalloc(n + 1, sizeof(*global.st));
	for (size_t i = 0; i < n; i++)
		stamp(global.paths[i], &global.st[i]);
	global.valid = true;
}

/*
 * Kept for the next process (kept.c). A one-shot `airlock exec` with a
 * writable workdir read the global configs afresh, and one that names an
 * include loaded libgit2 and read it in a child with a deadline: 24 ms a
 * call against 10 ms without, for a common ~/.gitconfig. What a read found
 * is kept in the state directory (gitglobal/KEY: per workdir, as
 * state_file() refuses a state directory the sandbox could
 * write), with the environment that names the files and resolves "~/";
 * the next process takes it as what it read itself, so global_fresh()
 * tests it file by file before any use. A read that failed is not kept:
 * the next process reads again.
 */
#define GKEEP_MAGIC "airlock-gitglobal 1"
#define GKEEP_MAX (1u << 20)

static const char *const global_env[] = {"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM",
                                         "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "HOME"};

/* The environment guard_global_configs() and include_abs() read, one
 * string per variable ("" and 0 when unset). */
static void global_env_put(struct buf *b)
{
	for (size_t i = 0; i < nitems(global_env); i++) {
		const char *v = getenv(global_env[i]);
		uint8_t set = v != NULL;
		buf_append(b, &set, 1);
		kept_str(b, v ? v : "");
	}
}

static bool global_env_same(struct kept_rd *r)
{
	bool same = true;

	for (size_t i = 0; i < nitems(global_env); i++) {
		const char *v = getenv(global_env[i]), *k;
		uint8_t set;
		kept_rd_bytes(r, &set, 1);
		k = kept_rd_str(r);
		same = same && set == (v != NULL) && strcmp(k, v ? v : "") == 0;
	}
	return same && !r->bad;
}

/* Writes global, read afresh by this process, for the next in wd. */
static void global_save(const char *wd)
{
	char *path = global.rc == 0 ? state_file(wd, "gitglobal") : NULL;
	size_t n = strv_len(global.paths);
	uint32_t ntop = (uint32_t)global.ntop;
	struct buf b;

	if (path == NULL)
		return;
	buf_init(&b, GKEEP_MAX);
	kept_str(&b, GKEEP_MAGIC);
	global_env_put(&b);
	buf_append(&b, &ntop, sizeof(ntop));
	kept_list(&b, global.paths);
	for (size_t i = 0; i < n; i++) {
		const struct stat *st = &global.st[i];
		int64_t v[8] = {(int64_t)st->st_dev,          (int64_t)st->st_ino,
		                (int64_t)st->st_nlink,        (int64_t)st->st_size,
		                (int64_t)st->st_mtim.tv_sec,  (int64_t)st->st_mtim.tv_nsec,
		                (int64_t)st->st_ctim.tv_sec,  (int64_t)st->st_ctim.tv_nsec};
		buf_append(&b, v, sizeof(v));
	}
	kept_list(&b, global.hooks);
	kept_list(&b, global.files);
	(void)kept_write(path, &b);
	buf_free(&b);
	free(path);
}

/* What the last process in wd kept into global (left invalid when there
 * is none, or it is amiss, or another environment's). */
static void global_load(const char *wd)
{
	char *path = state_file(wd, "gitglobal");
	size_t len, n;
	char *data = path ? kept_read(path, GKEEP_MAX, &len) : NULL;
	struct kept_rd r = {data, data ? data + len : NULL, data == NULL};
	uint32_t ntop = 0;

	if (!r.bad && strcmp(kept_rd_str(&r), GKEEP_MAGIC) == 0 && global_env_same(&r)) {
		kept_rd_bytes(&r, &ntop, sizeof(ntop));
		global.paths = kept_rd_list(&r, KEPT_PATHS);
		n = strv_len(global.paths);
		global.st = xcalloc(n + 1, sizeof(*global.st));
		for (size_t i = 0; i < n; i++) {
			int64_t v[8];
			kept_rd_bytes(&r, v, sizeof(v));
			global.st[i] = (struct stat){.st_dev = (dev_t)v[0], .st_ino = (ino_t)v[1],
			                             .st_nlink = (nlink_t)v[2], .st_size = (off_t)v[3],
			                             .st_mtim = {(time_t)v[4], (long)v[5]},
			                             .st_ctim = {(time_t)v[6], (long)v[7]}};
		}
		global.hooks = kept_rd_list(&r, KEPT_ANY);
		global.files = kept_rd_list(&r, KEPT_PATHS);
		global.ntop = ntop;
		/* whole, and the files read are the tops and then those included */
		global.valid = !r.bad && r.p == r.end && ntop <= n &&
		               n == ntop + strv_len(global.files);
	}
	if (!global.valid) {
		strv_free(global.paths);
		strv_free(global.hooks);
		strv_free(global.files);
		free(global.st);
		memset(&global, 0, sizeof(global));
	}
	free(data);
	free(path);
}

/* Adds the global configs' core.hooksPath values, the configs and the
 * files they include to hooks and files, as they are read from wd; -1
 * when one of them cannot be read. */
static int global_refs_add(const char *wd, char ***hooks, char ***files)
{
	int rc;

	pthread_mutex_lock(&global_lock);
	if (!global.valid)
		global_load(wd);
	if (!global_fresh()) {
		global_read();
		global_save(wd);
	}
	rc = global.rc;
	for (char **h = global.hooks; h && *h; h++)
		strv_push(hooks, *h);
	/* the configs themselves too, not only what they include: stow links
	 * ~/.gitconfig to dots/git/gitconfig, and a call in dots set the
	 * core.fsmonitor of the user's next `git status` anywhere */
	for (size_t i = 0; i < global.ntop; i++)
		strv_push(files, global.paths[i]);
	for (char **f = global.files; f && *f; f++)
		strv_push(files, *f);
	pthread_mutex_unlock(&global_lock);
	return rc;
}

/* What the config of the git directory dir, whose work tree is top, has
 * git run or read (config_refs_walk()), made relative to wd, when it lies
 * there: config.worktree too (in wtdir; NULL: dir), where
 * extensions.worktreeConfig makes git read it after config. Every
 * core.hooksPath value set in any file: which one git takes may hang on
 * an includeIf's condition; a relative one from top, where git runs
 * hooks. As guard_config_refs() says; the vectors are added to. Without
 * user, the user's and the system's configs are left out. */
static int refs_of(const char *wd, const char *top, const char *dir, const char *wtdir,
                   bool user, char ***hooks_rels, char ***include_rels)
{
	char **hooks = NULL, **files = NULL, *path;
	int rc = user ? global_refs_add(wd, &hooks, &files) : 0;

	for (int i = 0; rc == 0 && dir && i < 2; i++) { /* no repository: the global ones */
		path = i ? xasprintf("%s/config", dir)
		         : xasprintf("%s/config.worktree", wtdir ? wtdir : dir);
		rc = config_refs_walk(path, 0, &hooks, &files);
		free(path);
	}
	for (char **f = files; f && *f; f++) {
		char *r = include_rel(wd, "/", *f); /* absolute already */
		if (r && !strv_contains(*include_rels, r))
			strv_push(include_rels, r);
		free(r);
	}
	for (char **h = hooks; h && *h; h++) {
		char *r = include_rel(wd, top, *h);
		if (r && !exec_path_guarded(r, true) && !strv_contains(*hooks_rels, r)) {
			if (strv_len(*hooks_rels) >= GUARD_HOOKS_MAX)
				rc = -1;
			else
				strv_push(hooks_rels, r);
		}
		free(r);
	}
	strv_free(hooks);
	strv_free(files);
	return rc;
}

int guard_config_refs(const char *wd, char ***hooks_rels, char ***include_rels)
{
	struct gitdir_linked l = {0};
	char *dir = NULL;
	struct stat st;
	int rc = 0;

	*hooks_rels = *include_rels = NULL;
	if (lstat((dir = xasprintf("%s/.git", wd)), &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(dir);
		if ((dir = gitdir_inside_find(wd)) == NULL && gitdir_linked_find(wd, NULL, &l))
			dir = xstrdup(l.common); /* a linked worktree's: the common one */
	}
	rc = refs_of(wd, wd, dir, l.gitdir, true, hooks_rels, include_rels);
	gitdir_linked_clear(&l);
	free(dir);
	return rc;
}

int guard_nested_refs(const char *wd, const char *top, const char *gitdir, char ***hooks_rels,
                      char ***include_rels)
{
	*hooks_rels = *include_rels = NULL;
	return refs_of(wd, top, gitdir, NULL, true, hooks_rels, include_rels);
}

int guard_repo_includes(const char *wd, const char *top, const char *gitdir, char ***include_rels)
{
	char **hooks = NULL;
	int rc;

	*include_rels = NULL;
	rc = refs_of(wd, top, gitdir, NULL, false, &hooks, include_rels);
	strv_free(hooks);
	return rc;
}

/* What each hooks directory of core.hooksPath is (lstat, not followed). */
static void note_hooks(struct guard_note *g)
{
	struct stat st;

	memset(g->hooks_id, 0, sizeof(g->hooks_id));
	for (size_t i = 0; g->hooks_rels && g->hooks_rels[i]; i++) {
		char *p = xasprintf("%s/%s", g->root[GUARD_WD], g->hooks_rels[i]);
		if (lstat(p, &st) == 0)
			g->hooks_id[i] = (struct guard_id){true, S_ISDIR(st.st_mode), st.st_dev,
			                                   st.st_ino};
		free(p);
	}
}

/* The core.hooksPath directories (since NULL: those the run made or
 * replaced, after before) swept as a made .git/hooks is, the host's next
 * commit running what they hold; with since, what changed in them then. */
static void sweep_hooks_paths(const struct guard_note *before, const struct guard_note *after,
                              const struct guard_span *since, struct buf *b)
{
	const char *name;
	int dfd;

	for (size_t i = 0; after->hooks_rels && after->hooks_rels[i]; i++) {
		const char *rel = after->hooks_rels[i];
		if (since == NULL && (!after->hooks_id[i].present ||
		                      id_same(&before->hooks_id[i], &after->hooks_id[i])))
			continue;
		if ((dfd = open_parent(after->root[GUARD_WD], rel, &name)) < 0) {
			if (since == NULL)
				buf_printf(b, "%s%s (could not be removed)", b->len ? ", " : "", rel);
			continue;
		}
		sweep_hooks(dfd, name, rel, since, b);
		close(dfd);
	}
}

/* The sequencers' state in g's git directories: the workdir's .git, one inside
 * it that its .git file names, a linked worktree's gitdir (where its
 * rebase state is). */
static void sweep_todos(const struct guard_note *g, const struct guard_note *noted,
                        const struct guard_span *since, struct buf *b)
{
	char *own = xasprintf("%s/.git", g->root[GUARD_WD]);
	struct stat st;

	if (lstat(own, &st) == 0 && S_ISDIR(st.st_mode))
		sweep_sequencer(noted, own, ".git", since, b);
	for (int r = GUARD_COMMON; r < GUARD_NROOTS; r++)
		if (g->root[r])
			sweep_sequencer(noted, g->root[r], g->root[r], since, b);
	free(own);
}

/* What sweep_todos() and sweep_includes() will look at, noted. */
static void note_files(struct guard_note *g)
{
	for (int r = GUARD_WD; r < GUARD_NROOTS; r++) {
		const char *git = r == GUARD_WD ? "/.git" : "";
		if (g->root[r] == NULL)
			continue;
		file_note(g, xasprintf("%s%s/rebase-merge/git-rebase-todo", g->root[r], git));
		for (size_t i = 0; i < nitems(seq_state); i++)
			file_note(g, xasprintf("%s%s/%s", g->root[r], git, seq_state[i].rel));
	}
	for (char **p = g->include_rels; p && *p; p++)
		file_note(g, xasprintf("%s/%s", g->root[GUARD_WD], *p));
}

/* The file rel in wd that a config includes, where git finds it (links
 * followed, as git does): one the run made or changed (file_changed())
 * is kept when every key is inert, else removed. The host's next `git
 * status` reads it. A link there that the run made and that leads out
 * of the workdir, or nowhere, goes whole: git follows it on every
 * command (into /dev/zero, every git command there failed; into a
 * terminal, it waited), and nothing outside is the run's to check. */
static void include_check(const char *wd, const char *rel, const struct guard_note *noted,
                          const struct guard_span *since, struct buf *b)
{
	char real[PATH_MAX], *logical = xasprintf("%s/%s", wd, rel);
	const char *name;
	struct stat st;
	int dfd;

	if (realpath(logical, real) && strcmp(real, wd) != 0 && path_contains(wd, real)) {
		if (file_changed(noted, logical, since) &&
		    (dfd = open_parent(wd, real + strlen(wd) + 1, &name)) >= 0) {
			check_config(dfd, name, real + strlen(wd) + 1, b);
			close(dfd);
		}
	} else if ((dfd = open_parent(wd, rel, &name)) >= 0) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
		    fresh(dfd, name, since))
			drop(dfd, name, rel, " (a link out of the workdir)", b);
		close(dfd);
	}
	free(logical);
}

/* Each file the repository config includes from the workdir (an existing
 * one the plan keeps read-only), by include_check(). */
static void sweep_includes(const struct guard_note *g, const struct guard_note *noted,
                           const struct guard_span *since, struct buf *b)
{
	for (char **p = g->include_rels; p && *p; p++)
		include_check(g->root[GUARD_WD], *p, noted, since, b);
}

/* What the config of a nested repository (git directory gd, work tree
 * top) that was there before has git run from the workdir: each
 * core.hooksPath directory loses what changed in it from since on, and
 * each file it includes that changed then is checked (include_check()).
 * The plan keeps those that existed read-only; a config the run changed
 * is checked whole before. */
static void sweep_nested_refs(const struct guard_note *g, const char *top, const char *gd,
                              const struct guard_span *since, struct buf *b)
{
	const char *wd = g->root[GUARD_WD], *name;
	char **hooks = NULL, **inc = NULL;
	int dfd;

	(void)guard_nested_refs(wd, top, gd, &hooks, &inc); /* what can be read */
	for (char **h = hooks; h && *h; h++)
		if ((dfd = open_parent(wd, *h, &name)) >= 0) {
			sweep_hooks(dfd, name, *h, since, b);
			close(dfd);
		}
	for (char **p = inc; p && *p; p++)
		include_check(wd, *p, NULL, since, b);
	strv_free(hooks);
	strv_free(inc);
}

int guard_note(const char *wd, const char *home, char *const *skip, struct guard_note *g)
{
	int rc;

	struct gitdir_linked l;

	memset(g, 0, sizeof(*g));
	g->root[GUARD_WD] = xstrdup(wd);
	if (gitdir_linked_find(wd, home, &l)) { /* the same test as the mount plan's */
		g->root[GUARD_COMMON] = l.common;
		g->root[GUARD_WTDIR] = l.gitdir;
	} else { /* a git directory inside the workdir, named by its .git file */
		g->root[GUARD_COMMON] = gitdir_inside_find(wd);
	}
	rc = guard_config_refs(wd, &g->hooks_rels, &g->include_rels);
	note_since(g); /* first: a change from here on is the run's */
	note_ids(g);
	note_hooks(g);
	note_gitdirs(g);
	note_refs(g);
	note_nested(g, skip);
	note_files(g);
	g->nnames = guard_names_read(wd, &g->names);
	return rc;
}

void guard_note_clear(struct guard_note *g)
{
	for (int r = 0; r < GUARD_NROOTS; r++)
		free(g->root[r]);
	strv_free(g->hooks_rels);
	strv_free(g->include_rels);
	free(g->specials);
	strv_free(g->skip);
	free(g->nested);
	free(g->airlocks);
	strv_free(g->marks);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i].path);
	free(g->files);
	guard_names_free(g->names, g->nnames);
	memset(g, 0, sizeof(*g));
}

char *guard_sweep(const struct guard_note *before)
{
	struct guard_note after = *before; /* the same roots, borrowed */
	struct buf b;

	note_ids(&after);
	note_hooks(&after);
	buf_init(&b, 0);
	for (int r = 0; r < GUARD_NROOTS; r++)
		sweep_root(before, &after, r, &b);
	sweep_names(before, after.id[GUARD_WD], NULL, &b);
	sweep_hooks_paths(before, &after, NULL, &b);
	sweep_includes(before, before, &before->since, &b);
	sweep_todos(before, before, &before->since, &b);
	sweep_gitdirs(before, &b);
	sweep_replaces(before, &before->since, true, &b);
	sweep_nested(before, &b);
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
}

char *guard_recover(const struct guard_note *g, const struct guard_span *since)
{
	struct guard_note r = *g; /* the same roots, borrowed */
	struct gitdir_walk w = {.g = g, .since = since};
	struct buf b;
	const char *name;
	int dfd;

	buf_init(&b, 0);
	w.b = &b;
	quarantine = true;
	for (int k = 0; k < GUARD_NROOTS; k++)
		for (size_t i = 0; g->root[k] && i < GUARD_NPATHS; i++) {
			const char *rel = guard_rel(i, k != GUARD_WD);
			char *shown;
			if (rel == NULL || rel[0] == '\0' ||
			    (dfd = open_parent(g->root[k], rel, &name)) < 0)
				continue;
			shown = k == GUARD_WD ? xstrdup(rel) : xasprintf("%s/%s", g->root[k], rel);
			act_since(dfd, name, shown, guard_paths[i].kind, since, &b);
			close(dfd);
			free(shown);
		}
	sweep_names(g, NULL, since, &b);
	sweep_hooks_paths(g, g, since, &b);
	sweep_includes(g, NULL, since, &b);
	sweep_todos(g, NULL, since, &b);
	walk_gitdirs(&w);
	sweep_replaces(g, since, false, &b);
	r.since = *since;
	r.nested_unknown = true; /* each nested one by change time */
	sweep_nested(&r, &b);
	quarantine = false;
	return b.len ? buf_take(&b, NULL) : (buf_free(&b), NULL);
}

int exec_config_guarded(const char *wd, char ***rels)
{
	char **hooks = NULL, **inc = NULL;
	int rc = guard_config_refs(wd, &hooks, &inc);

	*rels = NULL;
	for (char **p = hooks; rc == 0 && p && *p; p++)
		strv_push(rels, *p);
	for (char **p = inc; rc == 0 && p && *p; p++)
		strv_push(rels, *p);
	strv_free(hooks);
	strv_free(inc);
	return rc < 0 ? -1 : 0;
}

/* True when rel is DIR/NAME/FILE of an entry of guard_named[]. */
static bool path_named(const char *rel)
{
	for (size_t k = 0; k < GUARD_NNAMED; k++) {
		size_t n = strlen(guard_named[k].dir);
		const char *slash;
		if (strncmp(rel, guard_named[k].dir, n) != 0 || rel[n] != '/')
			continue;
		if ((slash = strchr(rel + n + 1, '/')) != NULL && slash > rel + n + 1 &&
		    strcmp(slash + 1, guard_named[k].file) == 0)
			return true;
	}
	return false;
}

bool exec_path_guarded(const char *rel, bool is_dir)
{
	if (!is_dir && path_named(rel))
		return true; /* the sweep removes one made */
	for (size_t i = 0; i < GUARD_NPATHS; i++) {
		const struct guard_path *g = &guard_paths[i];
		size_t n = strlen(g->rel);
		bool holder = g->kind == GUARD_PIN || g->kind == GUARD_GITDIR;
		if (strncmp(rel, g->rel, n) != 0 || (rel[n] != '\0' && rel[n] != '/'))
			continue;
		if (rel[n] == '\0' && !(holder && is_dir))
			return true; /* the path itself; a holder only as a directory */
		if (rel[n] == '/' && !holder)
			return true; /* under a guarded file or directory */
	}
	return false;
}
