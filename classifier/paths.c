/*
 * paths.c: paths as the kernel would see them: ~ expanded, made absolute
 * against the current directory, . and .. folded, symlinks followed (the
 * only I/O the classifier does). Rules: a path that cannot be resolved is
 * treated as outside the workdir; writes into rc files, cron, systemd,
 * ~/.ssh and .git/hooks are high even when they look harmless.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* Folds ., .. and // of an absolute path in place. */
static void fold(char *p)
{
	char *out = p, *s = p;

	while (*s) {
		char *e;
		size_t n;
		while (*s == '/')
			s++;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0)
			break;
		if (n == 1 && s[0] == '.') {
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* next = p[0..keep) + "/" + link + rest; false when it does not fit. */
static bool splice(char *next, size_t sz, const char *p, size_t keep, const char *link,
                   const char *rest)
{
	size_t ll = strlen(link), rl = strlen(rest);

	if (keep + 1 + ll + rl + 1 > sz)
		return false;
	memcpy(next, p, keep);
	next[keep] = '/';
	memcpy(next + keep + 1, link, ll);
	memcpy(next + keep + 1 + ll, rest, rl + 1);
	return true;
}

/* What lstat() and readlink() said of a path during this call. A call is
 * judged against the filesystem as it stands when the call arrives, so
 * within one call the same question gets the same answer and is asked
 * once. Never kept across calls: a call may create links. */
enum seen_kind { SEEN_MISSING, SEEN_PLAIN, SEEN_LINK, SEEN_BADLINK };

#define SEEN_MAX 16 /* past it, paths are looked up each time */

struct paths_seen {
	struct arena *a;
	size_t n;
	struct seen {
		const char *path, *link; /* arena; link for SEEN_LINK */
		size_t len;
		enum seen_kind kind;
	} e[SEEN_MAX];
};

struct paths_seen *paths_seen_new(struct arena *a)
{
	struct paths_seen *s = arena_alloc(a, sizeof(*s));

	s->a = a;
	s->n = 0;
	return s;
}

/* The entry for p, or NULL. */
static const struct seen *seen_find(const struct paths_seen *s, const char *p, size_t len)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->e[i].len == len && memcmp(s->e[i].path, p, len) == 0)
			return &s->e[i];
	return NULL;
}

static void seen_put(struct paths_seen *s, const char *p, size_t len, enum seen_kind k,
                     const char *link, size_t ll)
{
	struct seen *e;

	if (s == NULL || s->n == SEEN_MAX)
		return;
	e = &s->e[s->n++];
	e->path = arena_strndup(s->a, p, len);
	e->len = len;
	e->link = k == SEEN_LINK ? arena_strndup(s->a, link, ll) : NULL;
	e->kind = k;
}

/* Whether path p is missing, not a link, a link (its target copied into
 * link[cap]) or a link that cannot be read. */
static enum seen_kind look(struct paths_seen *s, const char *p, char *link, size_t cap)
{
	size_t len = strlen(p);
	const struct seen *e = seen_find(s, p, len);
	struct stat st;
	ssize_t ll = 0;
	enum seen_kind k;

	if (e) {
		if (e->kind == SEEN_LINK) { /* it came from a buffer of cap bytes too */
			size_t l = strlen(e->link);
			l = l < cap ? l : cap - 1;
			memcpy(link, e->link, l);
			link[l] = '\0';
		}
		return e->kind;
	}
	if (lstat(p, &st) != 0)
		k = SEEN_MISSING;
	else if (!S_ISLNK(st.st_mode))
		k = SEEN_PLAIN;
	else if ((ll = readlink(p, link, cap - 1)) <= 0)
		k = SEEN_BADLINK; /* /proc/PID/root of another process: unreadable */
	else {
		link[ll] = '\0';
		k = SEEN_LINK;
	}
	seen_put(s, p, len, k, link, (size_t)ll);
	return k;
}

/* True when p has a ".." component. */
static bool has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || s[2] == '\0'))
			return true;
	return false;
}

/* Resolves the absolute path p in place as the kernel walks it: component
 * by component, a symlink replaced by its target before a later ".."
 * applies, so LINK/../x is x beside LINK's target, not beside LINK (folding
 * ".." as text first would put `etc-link/../etc/cron.d/x` in the workdir).
 * Past a component that does not exist, or too many links, the rest folds
 * as text. */
static void walk(struct paths_seen *seen, char *p, size_t sz)
{
	char out[CLS_MAX_PATH], rest[CLS_MAX_PATH], link[CLS_MAX_PATH], next[CLS_MAX_PATH];
	const char *s = rest;
	size_t n = 0;
	bool exists = true;
	int hops = 0;

	if ((size_t)snprintf(rest, sizeof(rest), "%s", p) >= sizeof(rest))
		return;
	while (*s) {
		size_t l, at = n;
		enum seen_kind k = SEEN_MISSING;
		s += strspn(s, "/");
		l = strcspn(s, "/");
		if (l == 0 || (l == 1 && s[0] == '.')) {
			s += l;
			continue;
		}
		if (l == 2 && s[0] == '.' && s[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
			s += l;
			continue;
		}
		if (n + l + 2 > sizeof(out))
			return;
		out[n++] = '/';
		memcpy(out + n, s, l);
		n += l;
		out[n] = '\0';
		s += l;
		if (exists && (hops >= 40 || (k = look(seen, out, link, sizeof(link))) == SEEN_MISSING))
			exists = false;
		if (!exists || k == SEEN_PLAIN)
			continue;
		if (k == SEEN_BADLINK) {
			exists = false;
			continue;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s%s", link, s) >= sizeof(next))
			return;
		memcpy(rest, next, strlen(next) + 1);
		s = rest;
		n = link[0] == '/' ? 0 : at;
		hops++;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	if (n < sz)
		memcpy(p, out, n + 1);
}

/* Follows symlinks component by component from offset `from`. */
static void follow(struct paths_seen *seen, char *p, size_t sz, size_t from)
{
	char link[CLS_MAX_PATH], next[CLS_MAX_PATH];

	for (int hops = 0; hops < 40;) {
		size_t i = from;
		bool changed = false;
		while (p[i]) {
			enum seen_kind k;
			size_t e = i + 1;
			while (p[e] && p[e] != '/')
				e++;
			{
				char c = p[e];
				p[e] = '\0';
				k = look(seen, p, link, sizeof(link));
				p[e] = c;
			}
			if (k == SEEN_PLAIN) {
				i = e;
				continue;
			}
			if (k != SEEN_LINK)
				return;
			if (!splice(next, sizeof(next), p, link[0] == '/' ? 0 : i, link, p + e))
				return;
			if (strlen(next) >= sz)
				return;
			memcpy(p, next, strlen(next) + 1);
			if (has_dotdot(p)) { /* a target with .. meets the links it passes */
				walk(seen, p, sz);
				return;
			}
			fold(p);
			changed = true;
			hops++;
			break;
		}
		if (!changed)
			return;
		from = 0;
	}
}

const char *paths_workdir(struct arena *a, const char *wd)
{
	static __thread char in[CLS_MAX_PATH], out[CLS_MAX_PATH];
	char *r;

	if (wd == NULL || wd[0] != '/')
		return wd;
	if (strcmp(in, wd) != 0) {
		snprintf(in, sizeof(in), "%s", wd);
		r = realpath(wd, NULL);
		snprintf(out, sizeof(out), "%s", r ? r : wd);
		free(r);
		fold(out);
	}
	return arena_strndup(a, out, strlen(out));
}

/* A glob that matches every entry or every dotfile of a directory: *, .*,
 * .[!.]*, .??* (no letter or digit narrows it). */
static bool match_all(const char *g)
{
	if (strchr(g, '*') == NULL || strchr(g, '/'))
		return false;
	for (; *g; g++)
		if (strchr("*.?[]!^", *g) == NULL)
			return false;
	return true;
}

bool paths_critical(const struct cctx *x, const char *abs)
{
	size_t al = strlen(abs), hl = strlen(x->home), wl = x->wd ? strlen(x->wd) : 0;
	const char *slash = strchr(abs + 1, '/');

	if (strcmp(abs, "/") == 0 || slash == NULL || strcmp(slash, "/*") == 0)
		return true;
	if (hl > 1 && strncmp(x->home, abs, al) == 0 && (x->home[al] == '/' || al == hl))
		return true;
	if (hl > 1 && strncmp(abs, x->home, hl) == 0 && abs[hl] == '/' && match_all(abs + hl + 1))
		return true;
	if (wl > al && strncmp(x->wd, abs, al) == 0 && x->wd[al] == '/')
		return true;
	return false;
}

const char *paths_tilde(const struct cctx *x, const char *p)
{
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && x->home[0]) {
		size_t hl = strlen(x->home), pl = strlen(p + 1);
		char *r = arena_alloc(x->a, hl + pl + 1);
		memcpy(r, x->home, hl);
		memcpy(r + hl, p + 1, pl + 1);
		return r;
	}
	return p;
}

size_t paths_proc_root(const char *p)
{
	size_t l;

	if (strncmp(p, "/proc/", 6) != 0)
		return 0;
	l = strcspn(p + 6, "/");
	if (l == 0 || (strspn(p + 6, "0123456789") != l && strncmp(p + 6, "self/", 5) != 0 &&
	               strncmp(p + 6, "thread-self/", 12) != 0))
		return 0;
	return strncmp(p + 6 + l, "/root", 5) == 0 && (p[11 + l] == '/' || p[11 + l] == '\0')
	               ? 11 + l
	               : 0;
}

/* Drops leading /proc/X/root components: a process's root is this one's
 * (another process's cannot be read without ptrace rights, so following
 * the link would leave /proc/1/root/etc/shadow looking like no secret). */
static void proc_root_strip(char *p)
{
	size_t skip;

	while ((skip = paths_proc_root(p)) != 0) {
		memmove(p, p + skip, strlen(p + skip) + 1);
		if (p[0] == '\0') {
			p[0] = '/';
			p[1] = '\0';
		}
	}
}

static bool under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* out = dir "/" p (dir NULL: p alone), as snprintf() would write it;
 * false when it does not fit. No printf: this runs for every path. */
static bool join(char *out, size_t outsz, const char *dir, const char *p)
{
	size_t dl = dir ? strlen(dir) : 0, pl = strlen(p), n = dir ? dl + 1 + pl : pl;

	if (n >= outsz) { /* what snprintf() leaves there: a cut copy */
		if (dir)
			snprintf(out, outsz, "%s/%s", dir, p);
		else
			snprintf(out, outsz, "%s", p);
		return false;
	}
	if (dir) {
		memcpy(out, dir, dl);
		out[dl] = '/';
	}
	memcpy(out + n - pl, p, pl + 1);
	return true;
}

bool paths_resolve(const struct cctx *x, const char *p, char *out, size_t outsz)
{
	size_t from = 0, wl;

	p = paths_tilde(x, p);
	if (p[0] == '\0')
		return false;
	if (p[0] != '/' && x->cwd == NULL)
		return false;
	if (!join(out, outsz, p[0] == '/' ? NULL : x->cwd, p))
		return false;
	proc_root_strip(out);
	if (has_dotdot(out)) {
		walk(x->seen, out, outsz);
		proc_root_strip(out);
		return true;
	}
	fold(out);
	proc_root_strip(out);
	wl = x->wd ? strlen(x->wd) : 0;
	if (wl > 1 && under(out, x->wd))
		from = wl;
	follow(x->seen, out, outsz, from);
	return true;
}

static bool prefixed(const char *p, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(p, list[i], strlen(list[i])) == 0)
			return true;
	return false;
}

static const char *const devnull[] = {"/dev/null", "/dev/zero", "/dev/stdout",
                                      "/dev/stderr", "/dev/stdin", "/dev/tty",
                                      "/dev/fd/", "/proc/self/fd/", "/dev/full"};
static const char *const disks[] = {
	"/dev/sd",   "/dev/hd",      "/dev/vd",   "/dev/xvd",  "/dev/nvme", "/dev/mmcblk",
	"/dev/loop", "/dev/dm-",     "/dev/mapper/", "/dev/disk/", "/dev/md", "/dev/mem",
	"/dev/kmem", "/dev/port",    "/dev/sr",   "/dev/root", "/dev/nbd",  "/dev/zram",
	"/dev/mtd",  "/dev/rbd",     "/dev/bcache", "/dev/ubi", "/dev/sg",
};
static const char *const tmps[] = {"/tmp", "/var/tmp", "/dev/shm"};

enum path_class paths_class(const struct cctx *x, const char *abs)
{
	bool dev = strncmp(abs, "/dev/", 5) == 0 || strncmp(abs, "/proc/", 6) == 0;

	if (dev && prefixed(abs, devnull, nitems(devnull)))
		return PC_DEVNULL;
	if (dev && (strncmp(abs, "/dev/tcp/", 9) == 0 || strncmp(abs, "/dev/udp/", 9) == 0))
		return PC_NET;
	if (dev && prefixed(abs, disks, nitems(disks)))
		return PC_DISK;
	if (x->wd && under(abs, x->wd))
		return PC_WORKDIR;
	for (size_t i = 0; i < nitems(tmps); i++)
		if (under(abs, tmps[i]))
			return PC_TMP;
	return PC_OUTSIDE;
}

/* /dev/tcp/HOST/PORT -> hosts[] */
static void dev_tcp_host(struct cctx *x, const char *abs)
{
	const char *h = abs + 9, *e = strchr(h, '/');
	net_add_host(x, h, e ? (size_t)(e - h) : strlen(h));
}

/* A path holding expansions, with each $NAME, ${...}, $(...) and `...` as
 * a *: what the shell could make of it, as a glob (/proc/$PPID/environ is
 * /proc/STAR/environ). False when nothing literal is left. */
static bool dynamic_as_glob(const char *p, char *out, size_t cap)
{
	size_t n = 0, lit = 0;

	while (*p && n + 2 < cap) {
		if (*p == '$' || *p == '`') {
			char open = p[0] == '`' ? '`' : p[1] == '{' ? '}' : p[1] == '(' ? ')' : 0;
			const char *end = open ? strchr(p + 1 + (open != '`'), open) : NULL;
			if (open && end == NULL)
				return false; /* unbalanced: nothing to say */
			p = open ? end + 1 : p + 1 + strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			                                          "abcdefghijklmnopqrstuvwxyz0123456789_");
			out[n++] = '*';
			continue;
		}
		lit += *p != '/';
		out[n++] = *p++;
	}
	out[n] = '\0';
	return *p == '\0' && lit > 0;
}

/* A read whose path is known only at run time: a secret it may reach. */
static void read_dynamic(struct cctx *x, const char *p, struct span sp)
{
	char glob[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	const char *why;

	/* resolving costs syscalls: only a glob with a secret's hint, or an
	 * absolute one, can reach a secret */
	if (dynamic_as_glob(p, glob, sizeof(glob)) &&
	    (glob[0] == '/' || glob[0] == '~' || secrets_maybe_path(glob)) &&
	    paths_resolve(x, glob, abs, sizeof(abs)) && (why = secrets_path(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.read", sp, "may read %s (%s)", p, why);
}

/* A relative read after `cd $X`: the directory is known only at run time.
 * Read from the workdir or the home, would it reach a secret? (.env,
 * .aws/credentials, ../../.ssh/id_rsa). No path is recorded: it is not
 * known. */
static void read_unanchored(struct cctx *x, const char *p, struct span sp)
{
	const char *anchors[] = {x->wd, x->home}, *why;
	char abs[CLS_MAX_PATH];

	if (p[0] == '/' || x->cwd != NULL || !secrets_maybe_path(p))
		return;
	for (size_t i = 0; i < nitems(anchors); i++) {
		int n = anchors[i] && anchors[i][0] ? snprintf(abs, sizeof(abs), "%s/%s", anchors[i], p)
		                                    : -1;
		if (n < 0 || (size_t)n >= sizeof(abs))
			continue;
		fold(abs);
		if ((why = secrets_path(x, abs)) != NULL) {
			cls_add(x, TIER_HIGH, "secrets.read", sp,
			        "may read %s in a directory known only at run time (%s)", p, why);
			return;
		}
	}
}

void paths_read(struct cctx *x, const struct word *w, const char *p)
{
	char abs[CLS_MAX_PATH];
	struct span sp = shell_span_word(x, w);

	if (w->flags & W_PROCSUB)
		return;
	if (w->flags & W_DYNAMIC) {
		read_dynamic(x, p, sp);
		return;
	}
	if (!paths_resolve(x, p, abs, sizeof(abs))) {
		read_unanchored(x, p, sp);
		return;
	}
	paths_read_abs(x, abs, sp);
}

void paths_read_abs(struct cctx *x, const char *abs, struct span sp)
{
	const char *why;

	cls_add_path(x, &x->v->reads, abs);
	if (paths_class(x, abs) == PC_NET) {
		dev_tcp_host(x, abs);
		cls_add(x, TIER_HIGH, "net.fetch", sp, "opens a network connection through %s", abs);
	}
	if (paths_class(x, abs) == PC_DISK) /* every file on it, every secret included */
		cls_add(x, TIER_HIGH, "secrets.read", sp, "reads the raw device %s: all it stores",
		        abs);
	if ((why = secrets_path(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.read", sp, "reads %s (%s)", abs, why);
}

/* Files and directories whose contents run later or grant access. */
static const char *const persist_home[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".config/fish", ".ssh", ".config/autostart",
	".config/systemd", ".local/share/systemd", ".gitconfig", ".config/git", ".inputrc",
	".xinitrc", ".xprofile", ".pam_environment", ".npmrc", ".pip", ".config/pip",
	".bash_aliases", ".local/bin", ".bin",
	/* startup files other programs run code from: editors, debuggers,
	 * REPLs and clients, direnv's own rc, the session's environment and
	 * desktop entries, gradle's init scripts, cargo's config (its runner
	 * and rustc wrapper), docker's credential helpers, kubectl's exec
	 * plugins */
	".vimrc", ".vim", ".config/nvim", ".emacs", ".emacs.el", ".emacs.d", ".config/emacs",
	".tmux.conf", ".config/tmux", ".gdbinit", ".config/gdb", ".lldbinit", ".irbrc", ".pryrc",
	".Rprofile", ".psqlrc", ".sqliterc", ".curlrc", ".wgetrc", ".direnvrc", ".config/direnv",
	".config/environment.d", ".local/share/applications", ".gradle/init.d", ".gradle/init.gradle",
	".cargo/config", ".cargo/config.toml", ".docker/config.json", ".kube/config",
	/* review 11: more that run at a later start, or that PATH finds
	 * first: bin directories on the usual PATH (~/bin, cargo's, go's,
	 * deno's, bun's), vim's and neovim's plugin directories, IPython's
	 * startup scripts, other REPLs' and tools' rc files (lesskey can set
	 * LESSOPEN), the X session and window managers' startup, KDE's env
	 * and autostart scripts, D-Bus activation files (their Exec runs on
	 * the first call), docker's CLI plugins, VS Code's user settings and
	 * extensions, terminals that run Lua or launch commands */
	"bin", ".cargo/bin", "go/bin", ".deno/bin", ".bun/bin", ".local/share/nvim/site",
	".ipython", ".pdbrc", ".perldb", ".ghci", ".guile", ".sbclrc", ".octaverc", ".screenrc",
	".lesskey", ".config/lesskey", ".mailcap", ".xsessionrc", ".xsession", ".config/i3",
	".i3", ".config/sway", ".config/hypr", ".config/openbox", ".config/plasma-workspace",
	".kde/Autostart", ".config/lxsession", ".local/share/dbus-1", ".docker/cli-plugins",
	".config/Code/User", ".vscode/extensions", ".config/kitty", ".wezterm.lua",
	".config/wezterm",
};
static const char *const persist_abs[] = {
	"/etc/profile", "/etc/bash.bashrc", "/etc/zsh", "/etc/environment", "/etc/cron",
	"/etc/anacrontab", "/var/spool/cron", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd",
	"/etc/init.d", "/etc/rc.local", "/etc/ld.so.preload", "/etc/sudoers", "/etc/ssh",
	"/root/.ssh", "/root/.bashrc", "/root/.profile", "/etc/xdg/autostart", "/etc/udev",
};

/* mise's config files: mise.toml, .mise.toml, mise.local.toml,
 * mise.ENV.toml, .miserc.toml, and config*.toml in a mise/ or .mise/
 * directory or in mise/conf.d/. mise trusts one by its path, not its
 * content (outside paranoid mode), so a trusted file edited later runs
 * its [hooks] (enter, leave, cd) and [env] _.source in the user's own
 * shell with `mise activate`, on the next prompt in the directory. */
static bool mise_config(const char *abs)
{
	const char *b = strrchr(abs, '/') + 1; /* abs is absolute */
	size_t n = strlen(b), dl = (size_t)(b - abs);

	if (n <= 5 || strcmp(b + n - 5, ".toml") != 0)
		return false;
	if (strncmp(b, "mise.", 5) == 0 || strncmp(b, ".mise.", 6) == 0 ||
	    strcmp(b, ".miserc.toml") == 0 || strstr(abs, "/mise/conf.d/"))
		return true;
	return strncmp(b, "config.", 7) == 0 &&
	       ((dl >= 6 && strncmp(b - 6, "/mise/", 6) == 0) ||
	        (dl >= 7 && strncmp(b - 7, "/.mise/", 7) == 0));
}

/* abs ends with one of list (each starting with '/'). */
static bool ends_with_any(const char *abs, const char *const *list, size_t n)
{
	size_t al = strlen(abs);

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(list[i]);
		if (al >= l && strcmp(abs + al - l, list[i]) == 0)
			return true;
	}
	return false;
}

/* Mercurial's, Jujutsu's and Sapling's repository configs, as exec/guard.c
 * keeps them in the sandbox: their [hooks] (pre-status, ...), aliases and
 * pagers run at the user's next command there; .jj/repo may be a file
 * naming the repository whose config jj reads. */
static bool vcs_config(const char *abs)
{
	static const char *const ends[] = {"/.hg/hgrc", "/.hg/hgrc-not-shared", "/.hg/sharedpath",
	                                   "/.jj/repo", "/.jj/repo/config.toml", "/.sl/config",
	                                   "/.git/sl/config"};
	return ends_with_any(abs, ends, nitems(ends));
}

/* docker compose merges an override file beside the compose file into
 * every `up`, unasked (a privileged service binding /); projects often
 * git-ignore them, so a diff does not show one. */
static bool compose_override(const char *abs)
{
	static const char *const ends[] = {"/compose.override.yaml", "/compose.override.yml",
	                                   "/docker-compose.override.yaml",
	                                   "/docker-compose.override.yml"};
	return ends_with_any(abs, ends, nitems(ends));
}

static const char *persistence(const struct cctx *x, const char *abs)
{
	size_t hl = strlen(x->home);

	if (hl > 1 && under(abs, x->home) && abs[hl] == '/') {
		const char *rel = abs + hl + 1;
		for (size_t i = 0; i < nitems(persist_home); i++) {
			size_t n = strlen(persist_home[i]);
			if (strncmp(rel, persist_home[i], n) == 0 && (rel[n] == '/' || rel[n] == '\0'))
				return persist_home[i];
		}
	}
	for (size_t i = 0; i < nitems(persist_abs); i++) /* each is "/" and more */
		if (abs[1] == persist_abs[i][1] &&
		    strncmp(abs, persist_abs[i], strlen(persist_abs[i])) == 0)
			return persist_abs[i];
	if (strstr(abs, "/.ssh/") || strstr(abs, "/.bashrc"))
		return ".ssh or a shell rc file";
	/* python runs a .pth file's import lines, and sitecustomize, at every
	 * start of an interpreter that has that site-packages */
	if (strstr(abs, "/site-packages/") &&
	    ((strlen(abs) > 4 && strcmp(abs + strlen(abs) - 4, ".pth") == 0) ||
	     strstr(abs, "/sitecustomize.py") || strstr(abs, "/usercustomize.py")))
		return "a python startup file";
	/* what an allowed .envrc sources (source_env_if_exists): direnv
	 * trusts the .envrc by its hash alone, so these run unseen in the
	 * user's shell */
	if (strstr(abs, "/.envrc.local") || strstr(abs, "/.envrc.private"))
		return "direnv's local .envrc";
	/* direnv's layout directory: nix-direnv evaluates its cached
	 * flake-profile.rc, layout python puts its venv's bin first on PATH */
	if (strstr(abs, "/.direnv/"))
		return "direnv's layout directory";
	if (mise_config(abs))
		return "mise's config, whose hooks run in the user's shell";
	if (vcs_config(abs))
		return "a repository config whose hooks run at the next hg, jj or sl there";
	if (compose_override(abs))
		return "a compose override, which docker compose merges in unasked";
	return NULL;
}

/* What decides how later calls are gated: airlock's policy and audit log,
 * and the agent's own hook, permission and MCP server settings. */
static const char *const gate_rel[] = {
	".airlock",         ".claude/settings.json", ".claude/settings.local.json", ".mcp.json",
	".cursor/mcp.json", ".vscode/mcp.json",      ".vscode/tasks.json",          ".gemini/settings.json",
	".codex/config.toml", ".claude/hooks",       ".vscode/settings.json",
	".devcontainer/devcontainer.json",           ".devcontainer.json",
	/* the other agents' and editors' MCP servers, hooks and plugins, as
	 * exec/guard.c keeps them read-only in the sandbox: write_file is not
	 * sandboxed */
	".amazonq/mcp.json", ".amazonq/default.json", ".cursor/hooks.json", ".kiro/hooks",
	".kiro/settings/mcp.json", ".opencode/opencode.json", ".opencode/opencode.jsonc",
	".opencode/plugin", ".opencode/plugins", ".roo/mcp.json", ".windsurf/hooks.json",
	/* the rest of guard.c's table: Zed's language server and formatter
	 * commands, aider's lint-cmd, Qwen Code's, Crush's, opencode's root
	 * and Continue's MCP servers, Gemini CLI's workspace extensions */
	".zed/settings.json", ".aider.conf.yml", ".qwen/settings.json", ".crush.json", "crush.json",
	"opencode.json", "opencode.jsonc", ".continue/mcpServers", ".gemini/extensions",
	/* Kilo Code's and JetBrains Junie's project MCP servers */
	".kilocode/mcp.json", ".kilo/kilo.json", ".kilo/kilo.jsonc", ".kilo/mcp.json", "kilo.json",
	"kilo.jsonc", ".junie/mcp/mcp.json",
};
static const char *const gate_home[] = {
	".config/airlock",  ".local/state/airlock",  ".claude/settings.json", ".claude/settings.local.json",
	".claude.json",     ".codex/config.toml",    ".cursor/mcp.json",      ".gemini/settings.json",
	".claude/hooks",
};

/* rel is one of list, or under one. */
static bool rel_match(const char *rel, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l;
		if (rel[0] != list[i][0]) /* none is empty: the first byte rules most out */
			continue;
		l = strlen(list[i]);
		if (strncmp(rel, list[i], l) == 0 && (rel[l] == '/' || rel[l] == '\0'))
			return true;
	}
	return false;
}

/* rel is one of list, under one, or the directory that holds one: moving
 * or copying a directory onto .claude replaces the settings in it. */
static bool rel_match_or_holder(const char *rel, const char *const *list, size_t n)
{
	size_t l = strlen(rel);

	for (size_t i = 0; i < n; i++)
		if (list[i][0] == rel[0] && strncmp(list[i], rel, l) == 0 && list[i][l] == '/')
			return true;
	return rel_match(rel, list, n);
}

/* The dev containers spec also reads .devcontainer/NAME/devcontainer.json
 * (one per configuration, one level deep), whose initializeCommand runs on
 * the host as .devcontainer/devcontainer.json's does: it was medium. */
static bool devcontainer_named(const char *rel)
{
	static const char dir[] = ".devcontainer/", file[] = "/devcontainer.json";
	const char *name = rel + sizeof(dir) - 1, *slash;

	if (strncmp(rel, dir, sizeof(dir) - 1) != 0 || (slash = strchr(name, '/')) == NULL ||
	    slash == name)
		return false;
	return strcmp(slash, file) == 0;
}

static bool gate_config(const struct cctx *x, const char *abs)
{
	size_t hl = strlen(x->home), wl = x->wd ? strlen(x->wd) : 0;
	const char *st = x->o->state;

	if (hl > 1 && under(abs, x->home) && abs[hl] == '/' &&
	    rel_match_or_holder(abs + hl + 1, gate_home, nitems(gate_home)))
		return true;
	/* $XDG_STATE_HOME/airlock, in it, or the directory holding it (a
	 * move onto that replaces it) */
	if (st && st[0] == '/' && st[1]) {
		size_t pl = (size_t)(strrchr(st, '/') - st);
		if (under(abs, st) || (pl > 0 && strlen(abs) == pl && strncmp(abs, st, pl) == 0))
			return true;
	}
	return wl > 1 && under(abs, x->wd) && abs[wl] == '/' &&
	       (rel_match_or_holder(abs + wl + 1, gate_rel, nitems(gate_rel)) ||
	        devcontainer_named(abs + wl + 1));
}

/* What git reads from its directory that runs commands, or says where to read
 * them from: hooks, config (core.fsmonitor, aliases), config.worktree,
 * commondir (config and hooks then come from there), info/attributes (which
 * filters run) and modules/ (each submodule's own config and hooks). */
/* worktrees: a linked worktree's commondir names the config it runs;
 * rebase-merge's todo: its exec lines run at git rebase --continue. */
static const char *const git_run[] = {"hooks",     "config",          "config.worktree",
                                      "commondir", "info/attributes", "modules",
                                      "worktrees", "rebase-merge/git-rebase-todo"};

/* A directory holding HEAD, objects/ and refs/ is a bare repository to git
 * run in it (safe.bareRepository defaults to all), and its config's
 * core.fsmonitor (with core.worktree) runs at the next git status there,
 * the host's or an editor's: so a file named config beside a HEAD, or a
 * HEAD beside a config, is that repository's config. One stat, only for
 * those two names. */
static bool bare_repo_file(const char *abs)
{
	const char *base = strrchr(abs, '/');
	const char *other;
	char sib[CLS_MAX_PATH];
	struct stat st;

	if (base == NULL)
		return false;
	base++;
	other = strcmp(base, "config") == 0 ? "HEAD" : strcmp(base, "HEAD") == 0 ? "config" : NULL;
	if (other == NULL ||
	    (size_t)snprintf(sib, sizeof(sib), "%.*s%s", (int)(base - abs), abs, other) >= sizeof(sib))
		return false;
	return stat(sib, &st) == 0 && S_ISREG(st.st_mode);
}

/* A .git itself (replacing or moving it swaps every one of those) or one of
 * git_run inside it, at any depth: a nested repository's hooks run too. */
static bool git_config(const char *abs)
{
	if (bare_repo_file(abs))
		return true;
	for (const char *p = strstr(abs, "/.git"); p; p = strstr(p + 1, "/.git")) {
		if (p[5] == '\0' || (p[5] == '/' && rel_match(p + 6, git_run, nitems(git_run))))
			return true;
	}
	/* husky points core.hooksPath at .husky: its files are the hooks;
	 * lefthook merges its git-ignored local config and scripts into
	 * what the hook it installed runs */
	return strstr(abs, "/.husky/") != NULL || strstr(abs, "/.lefthook-local") != NULL ||
	       strstr(abs, "/.config/lefthook-local.") != NULL ||
	       strstr(abs, "/lefthook-local.") != NULL;
}

bool paths_holds_secrets(const struct cctx *x, const char *abs)
{
	static const char *const roots[] = {"/etc", "/root"};
	size_t n = strlen(abs);

	if (strcmp(abs, "/") == 0 ||
	    (strncmp(x->home, abs, n) == 0 && (x->home[n] == '/' || x->home[n] == '\0')))
		return true;
	for (size_t i = 0; i < nitems(roots); i++)
		if (strcmp(abs, roots[i]) == 0)
			return true;
	return secrets_holds_dir(x, abs);
}

const char *paths_protected(const struct cctx *x, const char *abs)
{
	return git_config(abs) ? "fs.write.git_config" : gate_config(x, abs) ? "fs.write.gate_config"
	                                                                      : NULL;
}

void paths_write_abs(struct cctx *x, const char *abs, struct span sp, const char *shown)
{
	const char *why;

	switch (paths_class(x, abs)) {
	case PC_DEVNULL:
		return;
	case PC_NET:
		dev_tcp_host(x, abs);
		cls_add(x, TIER_HIGH, "net.upload", sp, "sends data over the network through %s",
		        abs);
		return;
	case PC_DISK:
		cls_add(x, TIER_CRITICAL, "sys.disk", sp, "writes straight onto the device %s", abs);
		cls_add_path(x, &x->v->writes, abs);
		return;
	case PC_WORKDIR:
	case PC_TMP:
	case PC_OUTSIDE:
	case PC_UNKNOWN:
		break;
	}
	cls_add_path(x, &x->v->writes, abs);
	if ((why = persistence(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, "fs.write.persistence", sp,
		        "writes %s (%s), which runs later or grants access", shown, why);
	if (git_config(abs))
		cls_add(x, TIER_HIGH, "fs.write.git_config", sp,
		        "writes %s: git runs hooks and config commands from it", shown);
	if (gate_config(x, abs))
		cls_add(x, TIER_HIGH, "fs.write.gate_config", sp,
		        "writes %s, which decides how later calls are gated or recorded", shown);
	switch (paths_class(x, abs)) {
	case PC_WORKDIR:
		cls_add(x, TIER_MEDIUM, "fs.write", sp, "writes %s inside the workdir", shown);
		break;
	case PC_TMP:
		cls_add(x, TIER_MEDIUM, "fs.write.tmp", sp, "writes %s in a temporary directory",
		        shown);
		break;
	case PC_DEVNULL:
	case PC_NET:
	case PC_DISK:
	case PC_OUTSIDE:
	case PC_UNKNOWN:
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "writes %s, outside the workdir", shown);
		break;
	}
}

void paths_write(struct cctx *x, const struct word *w, const char *p, struct span sp)
{
	char abs[CLS_MAX_PATH];

	if (w->flags & W_PROCSUB)
		return;
	if ((w->flags & W_DYNAMIC) || !paths_resolve(x, p, abs, sizeof(abs))) {
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "writes %s, a path only known at run time", p);
		return;
	}
	paths_write_abs(x, abs, sp, abs);
}
