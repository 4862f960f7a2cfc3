/*
 * mounts.c: the sandbox's file system: a tmpfs root with the system binds,
 * a minimal /etc, /dev and /proc, a private /tmp, an empty $HOME and the
 * workdir. Rules: every granted path is resolved (realpath) in the parent
 * and opened with RESOLVE_NO_SYMLINKS in the child, so a symlink swapped in
 * between fails instead of carrying a bind elsewhere; every bind is nosuid
 * and nodev (device nodes: nosuid, noexec) and private; a workdir that
 * contains $HOME is refused, so home secrets never show through it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/state.h"
#include "core/util.h"
#include "exec/exec_internal.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000 /* Linux 5.8 */
#endif

#define A_BIND (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define A_RO (A_BIND | MOUNT_ATTR_RDONLY)
#define A_DEV (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)
/* The host's device nodes, bound in: read-only, since a root caller owns
 * the host's /dev/null and could otherwise chmod it (or touch it) for the
 * whole machine. A read-only mount still lets a device be read and written:
 * it refuses changes to the inode, not I/O. */
#define A_DEVNODE (A_DEV | MOUNT_ATTR_RDONLY)

/* System directories: bound read-only, or re-created as the same symlink. */
static const char *const sys_dirs[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                       "/lib32", "/lib64", "/libx32"};

/* The minimal /etc: never shadow, gshadow, sudoers or anything else. */
static const char *const etc_files[] = {
        "/etc/passwd",        "/etc/group",        "/etc/hosts",           "/etc/resolv.conf",
        "/etc/nsswitch.conf", "/etc/ssl",          "/etc/ca-certificates", "/etc/ld.so.cache",
        "/etc/ld.so.conf",    "/etc/ld.so.conf.d", "/etc/alternatives",    "/etc/localtime",
        /* Debian's JDKs keep java.security and logging.properties here:
         * without them javac and every Maven build failed at start */
        "/etc/java-11-openjdk", "/etc/java-17-openjdk", "/etc/java-21-openjdk",
        "/etc/java-25-openjdk",
        /* ...and Debian's Maven its launcher config (not settings.xml,
         * which may hold server and proxy passwords) */
        "/etc/maven/m2.conf", "/etc/maven/logging",
};

/* Secret directories inside a bound /etc directory (TLS private keys,
 * a JMX password file; readable by a root caller): covered by an empty
 * read-only tmpfs. */
static const char *const etc_masked[] = {
        "/etc/ssl/private",
        "/etc/java-11-openjdk/management", "/etc/java-17-openjdk/management",
        "/etc/java-21-openjdk/management", "/etc/java-25-openjdk/management"};

static const char *const dev_nodes[] = {"/dev/null",   "/dev/zero",    "/dev/full",
                                        "/dev/random", "/dev/urandom", "/dev/tty"};

/* Symlinks inside the sandbox: {path, target}. */
static const char *const dev_links[][2] = {
        {"/dev/ptmx", "pts/ptmx"},          {"/dev/fd", "/proc/self/fd"},
        {"/dev/stdin", "/proc/self/fd/0"},  {"/dev/stdout", "/proc/self/fd/1"},
        {"/dev/stderr", "/proc/self/fd/2"},
};

/* /proc entries a caller that is root on the host could otherwise write
 * through plain file permissions (sysctls, sysrq): bound read-only. */
static const char *const proc_ro[] = {
        "/proc/sys", "/proc/sysrq-trigger", "/proc/irq",  "/proc/bus",
        "/proc/fs",  "/proc/acpi",          "/proc/scsi", "/proc/driver"};

/* A bind or mount the caller's spec asks for, sorted by target. */
struct want {
	enum sbx_op_kind kind;
	char *src, *dst, *data;
	unsigned attr;
	bool is_dir;
	size_t seq; /* insertion order: breaks ties, so a tmpfs precedes a bind on it */
	bool hides; /* a directory the policy denies reading: nothing below it */
};

static struct sbx_op *op_add(struct sbx_plan *pl, enum sbx_op_kind k, const char *inside)
{
	struct sbx_op *op;

	if (pl->n == pl->alloc) {
		pl->alloc = pl->alloc ? pl->alloc * 2 : 64;
		pl->ops = xreallocarray(pl->ops, pl->alloc, sizeof(*pl->ops));
	}
	op = &pl->ops[pl->n++];
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->dst = xasprintf(SBX_STAGE "%s", strcmp(inside, "/") == 0 ? "" : inside);
	return op;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Ops whose data is len bytes of a file, which may hold NULs. */
static bool op_has_bytes(enum sbx_op_kind k)
{
	return k == OP_FILE || k == OP_COVER;
}

/* Makes op a deep copy of from (op's old pointers are not freed). */
static void op_copy(struct sbx_op *op, const struct sbx_op *from)
{
	*op = *from;
	op->src = dup_or_null(from->src);
	op->dst = dup_or_null(from->dst);
	op->data = NULL;
	if (from->data && op_has_bytes(from->kind)) { /* may hold NULs: len + 1 bytes */
		op->data = xmalloc(from->len + 1);
		memcpy(op->data, from->data, from->len + 1);
	} else if (from->data)
		op->data = xstrdup(from->data);
}

static bool plan_has_dir(const struct sbx_plan *pl, const char *staged)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->ops[i].kind == OP_MKDIR && strcmp(pl->ops[i].dst, staged) == 0)
			return true;
	return false;
}

/* Adds mkdir ops for every ancestor of inside (and inside itself if dir). */
static void op_mkdirs(struct sbx_plan *pl, const char *inside, bool self)
{
	char *p = xstrdup(inside);

	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';
		if (*s != '/' && !end)
			continue;
		if (end && !self)
			break;
		*s = '\0';
		char *staged = xasprintf(SBX_STAGE "%s", p);
		if (!plan_has_dir(pl, staged))
			op_add(pl, OP_MKDIR, p);
		free(staged);
		if (end)
			break;
		*s = '/';
	}
	free(p);
}

/* A bind of a resolved host path onto the same (or given) path inside. */
static void op_bind(struct sbx_plan *pl, const char *src, const char *inside, bool dir,
                    unsigned attr)
{
	op_mkdirs(pl, inside, dir);
	if (!dir)
		op_add(pl, OP_MKFILE, inside);
	struct sbx_op *op = op_add(pl, OP_BIND, inside);
	op->src = xstrdup(src);
	op->attr_set = attr;
}

static void op_mount(struct sbx_plan *pl, enum sbx_op_kind k, const char *inside, const char *data,
                     unsigned attr)
{
	op_mkdirs(pl, inside, true);
	struct sbx_op *op = op_add(pl, k, inside);
	op->data = data ? xstrdup(data) : NULL;
	op->attr_set = attr;
}

static void op_symlink(struct sbx_plan *pl, const char *inside, const char *target)
{
	op_add(pl, OP_SYMLINK, inside)->src = xstrdup(target);
}

/* Small regular files under /etc are copied into the new root rather than
 * bound: a write costs less than a mount and its teardown. Larger ones,
 * and directories, are bound. */
#define ETC_COPY_MAX (64 * 1024)

/* Adds a copy of the regular file at real as inside; false when it cannot
 * be read whole (then it is bound instead). */
static bool op_file(struct sbx_plan *pl, const char *real, const char *inside, off_t size)
{
	int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *data = xmalloc((size_t)size + 1);
	ssize_t n = fd >= 0 ? read(fd, data, (size_t)size + 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)size) { /* changed while reading: bind it */
		free(data);
		return false;
	}
	data[n] = '\0';
	op_mkdirs(pl, inside, false);
	struct sbx_op *op = op_add(pl, OP_FILE, inside);
	op->data = data;
	op->len = (size_t)n;
	return true;
}

/* The sandbox's hostname (ns.c sets "airlock") resolves, as a host's own
 * does: Java's InetAddress.getLocalHost() threw UnknownHostException, and
 * the JVM test suites that call it failed. */
static void hosts_name_self(struct sbx_op *op)
{
	static const char line[] = "\n127.0.1.1\tairlock\n";

	op->data = xrealloc(op->data, op->len + sizeof(line));
	memcpy(op->data + op->len, line, sizeof(line));
	op->len += sizeof(line) - 1;
}

/* The directory etc_real() resolved last, for one plan_system(). */
struct dir_memo {
	char dir[PATH_MAX], real[PATH_MAX];
	bool ok;
};

/* path (absolute, a plain name in a directory) resolved into real, what
 * it is into *st; false when it cannot be. What realpath() and stat()
 * answered, but its directory is resolved once for the files in it one
 * after another (m), and a file that is no link is that directory and
 * its name: realpath() of each /etc entry walked /etc again with a
 * readlink() a component, ~50 system calls a one-shot call. */
static bool etc_real(const char *path, struct dir_memo *m, char real[PATH_MAX], struct stat *st)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n == 0 || n >= sizeof(m->dir) || lstat(path, st) < 0)
		return false;
	if (S_ISLNK(st->st_mode))
		return realpath(path, real) && stat(real, st) == 0;
	if (strlen(m->dir) != n || strncmp(m->dir, path, n) != 0) {
		memcpy(m->dir, path, n);
		m->dir[n] = '\0';
		m->ok = realpath(m->dir, m->real) != NULL;
	}
	return m->ok && (size_t)snprintf(real, PATH_MAX, "%s%s",
	                                 strcmp(m->real, "/") == 0 ? "" : m->real,
	                                 slash) < PATH_MAX;
}

static void plan_system(struct sbx_plan *pl)
{
	char target[PATH_MAX], real[PATH_MAX];
	struct dir_memo memo = {.ok = false};
	struct stat st;

	for (size_t i = 0; i < nitems(sys_dirs); i++) {
		if (lstat(sys_dirs[i], &st) < 0)
			continue;
		ssize_t n = S_ISLNK(st.st_mode) ? readlink(sys_dirs[i], target, sizeof(target) - 1)
		                                : -1;
		if (n > 0) {
			target[n] = '\0';
			op_symlink(pl, sys_dirs[i], target);
		} else if (S_ISDIR(st.st_mode) && realpath(sys_dirs[i], real)) {
			op_bind(pl, real, sys_dirs[i], true, A_RO);
		}
	}
	for (size_t i = 0; i < nitems(etc_files); i++) {
		if (!etc_real(etc_files[i], &memo, real, &st) ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		if (S_ISREG(st.st_mode) && st.st_size <= ETC_COPY_MAX &&
		    op_file(pl, real, etc_files[i], st.st_size)) {
			if (strcmp(etc_files[i], "/etc/hosts") == 0)
				hosts_name_self(&pl->ops[pl->n - 1]);
			continue;
		}
		op_bind(pl, real, etc_files[i], S_ISDIR(st.st_mode), A_RO);
	}
	for (size_t i = 0; i < nitems(etc_masked); i++)
		if (stat(etc_masked[i], &st) == 0 && S_ISDIR(st.st_mode))
			op_mount(pl, OP_TMPFS, etc_masked[i], "mode=0755,size=4k,nr_inodes=4", A_RO);
}

/* plan_system()'s ops, resolved once per process: realpath() of the
 * system paths costs ~65 syscalls, a tenth of a gate call's sandbox.
 * They are re-read when an /etc entry's ctime changes, and after
 * mounts_forget_system() (a sandbox could not open one of them). */
static pthread_mutex_t sys_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sbx_plan sys_plan;
static bool sys_resolved;
static struct timespec etc_seen[nitems(etc_files)]; /* ctime of each, or 0 */

/* The ctime of each /etc entry (through symlinks); cheaper than re-reading
 * them, and a copy must not go stale in a long gate session. */
static void etc_stamp(struct timespec *t)
{
	struct stat st;

	for (size_t i = 0; i < nitems(etc_files); i++)
		t[i] = stat(etc_files[i], &st) == 0 ? st.st_ctim : (struct timespec){0, 0};
}

static bool etc_changed(void)
{
	struct timespec now[nitems(etc_files)];

	etc_stamp(now);
	return memcmp(now, etc_seen, sizeof(now)) != 0;
}

static void plan_system_cached(struct sbx_plan *pl)
{
	pthread_mutex_lock(&sys_lock);
	if (sys_resolved && etc_changed()) {
		mounts_plan_clear(&sys_plan);
		sys_resolved = false;
	}
	if (!sys_resolved) {
		etc_stamp(etc_seen);
		plan_system(&sys_plan);
		sys_resolved = true;
	}
	for (size_t i = 0; i < sys_plan.n; i++) {
		struct sbx_op *op = op_add(pl, sys_plan.ops[i].kind, "/");
		free(op->dst);
		op_copy(op, &sys_plan.ops[i]);
	}
	pthread_mutex_unlock(&sys_lock);
}

void mounts_forget_system(void)
{
	pthread_mutex_lock(&sys_lock);
	mounts_plan_clear(&sys_plan);
	sys_resolved = false;
	pthread_mutex_unlock(&sys_lock);
}

/* A tmpfs's inodes, one per KiB of its size: each file costs the kernel
 * about that much memory, which no rlimit counts and its size did not
 * bound (the default is half the host's pages: a call with no network made
 * a million empty files in /tmp, 0.9 GB of the host's memory, and could
 * make three million in each of /tmp, /dev/shm and the home). */
#define TMPFS_INODES(size) ((size) / 1024 > 1024 ? (size) / 1024 : 1024)

static void plan_dev_proc(struct sbx_plan *pl, long long shm_size, bool host_root)
{
	char opts[96];

	op_mount(pl, OP_TMPFS, "/dev", "mode=0755,size=64k,nr_inodes=64", A_DEV);
	for (size_t i = 0; i < nitems(dev_nodes); i++)
		if (access(dev_nodes[i], F_OK) == 0)
			op_bind(pl, dev_nodes[i], dev_nodes[i], false, A_DEVNODE);
	op_mount(pl, OP_DEVPTS, "/dev/pts", "newinstance,ptmxmode=0666,mode=0620", A_DEV);
	snprintf(opts, sizeof(opts), "mode=1777,size=%lld,nr_inodes=%lld", shm_size,
	         TMPFS_INODES(shm_size));
	op_mount(pl, OP_TMPFS, "/dev/shm", opts, A_BIND);
	for (size_t i = 0; i < nitems(dev_links); i++)
		op_symlink(pl, dev_links[i][0], dev_links[i][1]);
	op_add(pl, OP_SETATTR, "/dev")->attr_set = A_DEV | MOUNT_ATTR_RDONLY;
	op_mount(pl, OP_PROC, "/proc", NULL, A_BIND | MOUNT_ATTR_NOEXEC);
	/* only host root owns those files; anyone else cannot write them */
	for (size_t i = 0; host_root && i < nitems(proc_ro); i++)
		op_add(pl, OP_REBIND, proc_ro[i])->attr_set = A_RO | MOUNT_ATTR_NOEXEC;
}

/* Appends a want; takes ownership of src, dst and data. */
static void want_push(struct want **w, size_t *n, enum sbx_op_kind kind, char *src, char *dst,
                      char *data, unsigned attr, bool is_dir)
{
	*w = xreallocarray(*w, *n + 1, sizeof(**w));
	(*w)[*n] = (struct want){kind, src, dst, data, attr, is_dir, *n, false};
	(*n)++;
}

static int want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	int c = strcmp(x->dst, y->dst);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Resolves a granted path; 1 when found, 0 when absent, -1 when refused. */
static int grant_resolve(const char *path, const char *home, char real[PATH_MAX], bool *is_dir,
                         char **errstr)
{
	struct stat st;

	if (!realpath(path, real) || stat(real, &st) < 0)
		return 0;
	if (path_contains(real, home)) {
		*errstr = xasprintf("granted path %s resolves to %s, which contains $HOME (%s): "
		                    "grant the files inside instead",
		                    path, real, home);
		return -1;
	}
	*is_dir = S_ISDIR(st.st_mode);
	return 1;
}

static pthread_mutex_t protect_lock = PTHREAD_MUTEX_INITIALIZER;
static char **protected; /* exec_protect_path()'s */

void exec_protect_path(const char *path)
{
	pthread_mutex_lock(&protect_lock);
	if (!strv_contains(protected, path))
		strv_push(&protected, path);
	pthread_mutex_unlock(&protect_lock);
}

/* -1 with *errstr when the read-write grant real (path as given) holds
 * airlock's state (the records a killed run's recovery trusts, the audit
 * log) or lies in it: a sandbox could forge, cut or remove them. */
static int grant_protected(const char *path, const char *real, char **errstr)
{
	char *root = state_root(), *hit = NULL, rr[PATH_MAX];

	if (root && realpath(root, rr)) { /* made by the first guarded run */
		free(root);
		root = xstrdup(rr);
	}
	if (root && (path_contains(real, root) || path_contains(root, real)))
		hit = xstrdup(root);
	pthread_mutex_lock(&protect_lock);
	for (char **p = protected; !hit && p && *p; p++)
		if (path_contains(real, *p) || path_contains(*p, real))
			hit = xstrdup(*p);
	pthread_mutex_unlock(&protect_lock);
	free(root);
	if (hit == NULL)
		return 0;
	*errstr = xasprintf("granted path %s (read-write) resolves to %s, which holds or lies in "
	                    "%s, which airlock protects (its state: the audit log, the records "
	                    "of running sandboxes; or a policy file it read): a sandboxed "
	                    "command could rewrite it; grant a narrower path",
	                    path, real, hit);
	free(hit);
	return -1;
}

static void want_mask(struct want **w, size_t *n, const char *real);

/* True when name under dfd is another mount's root (or cannot be told):
 * the walk below does not enter it, since a FUSE or network file system
 * whose server hangs would hang every call's plan. Its cached attributes
 * are asked for (AT_STATX_DONT_SYNC), which such a file system answers
 * without its server. */
static bool mount_root_at(int dfd, const char *name)
{
	struct statx sx;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, 0,
	          &sx) < 0)
		return true;
	return !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	       (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* Directory entries a call reads in its granted directories, all taken
 * together, for their sockets and FIFOs; and in its read-write ones, which
 * a call can fill, on their own, past which the call fails. */
#define GRANT_PIPES_ENTRIES 1024
#define GRANT_PIPES_RW_ENTRIES 16384

/*
 * Masks each socket and FIFO below the granted directory real, bound at
 * dst, when the sandbox has no network (budget non-NULL): a read-only bind
 * refuses no connect(), so `home = ~/.ssh` handed a call with no network
 * the user's ssh ControlMaster sockets (a shell on every host it had open)
 * and `~/.gnupg` gpg-agent's. Breadth first, never into a link nor another
 * mount (mount_root_at()); past *budget entries the rest is left as it is,
 * and false is returned, as it is for a directory of the caller's own that
 * cannot be opened (the sandbox could chmod it back). A socket granted by
 * its own path stays. Nor into a directory of own (real paths: the
 * workdir, whose search masks its sockets and FIFOs, and the read-write
 * grants, walked on their own): a call fills those, and one that made
 * 1,100 files in a workdir lying in a read-only grant used up this walk,
 * so the next reached a host service's socket elsewhere in the grant.
 */
static bool want_grant_pipes(const char *real, const char *dst, size_t *budget,
                             char *const *own, struct want **w, size_t *n)
{
	char **queue = NULL;
	size_t head = 0;
	bool whole = true;

	if (budget == NULL)
		return true;
	strv_push(&queue, "");
	for (; queue[head] && whole; head++) {
		char *dir = xasprintf("%s%s", real, queue[head]);
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		struct stat st;

		if (d == NULL && fd >= 0)
			close(fd);
		if (fd < 0 && errno == EACCES && lstat(dir, &st) == 0 && st.st_uid == geteuid())
			whole = false;
		while (d && (e = readdir(d)) != NULL) {
			unsigned char t = e->d_type;
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (*budget == 0) {
				whole = false;
				break;
			}
			(*budget)--;
			if (t == DT_UNKNOWN && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				t = S_ISDIR(st.st_mode)    ? DT_DIR
				    : S_ISSOCK(st.st_mode) ? DT_SOCK
				    : S_ISFIFO(st.st_mode) ? DT_FIFO
				                           : DT_REG;
			if (t == DT_DIR) {
				char *sub = xasprintf("%s/%s", queue[head], e->d_name);
				char *at = xasprintf("%s%s", real, sub);
				if (!mount_root_at(dirfd(d), e->d_name) && !strv_contains(own, at))
					strv_push_owned(&queue, sub);
				else
					free(sub);
				free(at);
			} else if (t == DT_SOCK || t == DT_FIFO) {
				char *at = xasprintf("%s%s/%s", dst, queue[head], e->d_name);
				want_mask(w, n, at);
				free(at);
			}
		}
		if (d)
			closedir(d);
		free(dir);
	}
	strv_free(queue);
	return whole;
}

/* The files in the home that make the agent run airlock: Claude Code's
 * user settings, which name the hook (docs/integrations.md). */
static const char *const agent_hook_files[] = {
	".claude/settings.json",
	".claude/settings.local.json",
};

/* path (resolved) read-only when the read-write grant real holds it,
 * and the directory holding it pinned (bound onto itself, so that it
 * cannot be renamed away and replaced) when that lies below the grant's
 * top. */
static void want_grant_kept(const char *real, const char *path, struct want **w, size_t *n)
{
	char r[PATH_MAX], *dir;

	if (!realpath(path, r) || !path_contains(real, r) || strcmp(real, r) == 0)
		return;
	dir = xstrdup(r);
	path_up(dir);
	if (strcmp(dir, real) != 0)
		want_push(w, n, OP_REBIND, NULL, xstrdup(dir), NULL, A_BIND, true);
	want_push(w, n, OP_REBIND, NULL, xstrdup(r), NULL, A_RO, false);
	free(dir);
}

/*
 * What makes airlock run, where the read-write grant real holds it: the
 * agent's hook settings (agent_hook_files under home) and airlock's own
 * binary. With `read-write = ~/.claude` a call removed the hook that gates
 * the next calls, and with a grant of the directory holding the binary
 * (`~/.local/bin`) it replaced airlock with a script the next hook ran on
 * the host (the tenth review). The rest of the grant stays writable.
 */
static void want_agent_hooks(const char *real, const char *home, struct want **w, size_t *n)
{
	for (size_t i = 0; i < nitems(agent_hook_files); i++) {
		char *logical = xasprintf("%s/%s", home, agent_hook_files[i]);
		want_grant_kept(real, logical, w, n);
		free(logical);
	}
	want_grant_kept(real, "/proc/self/exe", w, n);
}

/* Each directory between the read-write grant real (not included) and
 * dir (included), pinned: bound onto itself, so that it cannot be renamed
 * away and replaced by one without what is kept below it. */
static void want_pins_to(const char *real, const char *dir, struct want **w, size_t *n)
{
	char *up = xstrdup(dir);

	while (strcmp(up, real) != 0 && path_contains(real, up)) {
		want_push(w, n, OP_REBIND, NULL, xstrdup(up), NULL, A_BIND, true);
		if (!path_up(up))
			break;
	}
	free(up);
}

/* True when path has a `.` or `..` part. */
static bool path_has_dots(const char *path)
{
	for (const char *p = path; (p = strstr(p, "/.")) != NULL; p++)
		if (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0')))
			return true;
	return false;
}

/* Makes the directories of logical (absolute, not there) that are missing
 * below the deepest one that is, when that one is the read-write grant real
 * or lies in it: 0 when made, 1 when it is not the grant's (left), -1 with
 * errno when one cannot be made. */
static int path_dir_make(const char *real, const char *logical)
{
	char *p = xstrdup(logical), r[PATH_MAX];
	bool found;
	int rc = 1;

	while (!(found = realpath(p, r) != NULL) && errno == ENOENT && path_up(p))
		;
	if (!found || !path_contains(real, r) || path_has_dots(logical))
		goto out;
	rc = -1;
	for (const char *at = logical + strlen(p); at;) {
		at = strchr(at + 1, '/');
		char *part = xstrndup(logical, at ? (size_t)(at - logical) : strlen(logical));
		bool made = mkdir(part, 0755) == 0 || errno == EEXIST;
		free(part);
		if (!made)
			goto out;
	}
	rc = 0;
out:
	free(p);
	return rc;
}

/* The first link on the way to logical that lies in the read-write grant
 * real (its directory is the grant or in it), as a new string the caller
 * frees; NULL when there is none. The call could point it elsewhere. */
static char *path_link_in(const char *real, const char *logical)
{
	char *p = xstrdup(logical), *dir, r[PATH_MAX], *found = NULL;
	struct stat st;

	do {
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		dir = xstrdup(p);
		if (path_up(dir) && realpath(dir, r) && path_contains(real, r))
			found = xstrdup(p);
		free(dir);
	} while (!found && path_up(p) && strcmp(p, "/") != 0);
	free(p);
	return found;
}

/*
 * git's global and XDG configs (and GIT_CONFIG_GLOBAL's, as git's
 * environment names them: guard.c) where the read-write grant real holds
 * them: read-only, each directory between the grant's top and one pinned.
 * Every git command on the host reads them and runs what they name
 * (core.fsmonitor on each `git status`, aliases, pagers, hooksPath): with
 * `read-write = ~/.config/git` a call appended a core.fsmonitor to the
 * user's ~/.config/git/config (reproduced on 0895477,
 * tests/e2e/145-sandbox-review13.sh). One not there yet is made first,
 * empty (git reads an empty config as none), since the call could make it;
 * -1 with *errstr when it cannot be, or when a link in the grant lies on
 * the way to one (a stow link `config -> ~/dots/gitconfig` the call could
 * point at a file of its own).
 */
static int want_git_globals(const char *real, struct want **w, size_t *n, char **errstr)
{
	char **paths = guard_global_configs(), r[PATH_MAX];
	int rc = 0;

	for (char **p = paths; rc == 0 && p && *p; p++) {
		char *link = (*p)[0] == '/' ? path_link_in(real, *p) : NULL, *dir;
		if (link) {
			*errstr = xasprintf("git's config %s is reached through the link %s in "
			                    "read-write grant %s, which a call could point at a file "
			                    "of its own: grant a narrower path",
			                    *p, link, real);
			free(link);
			rc = -1;
			break;
		}
		if ((*p)[0] != '/' || path_has_dots(*p))
			continue;
		dir = xstrdup(*p);
		path_up(dir);
		int made = 1; /* its directory: 0 there or made in the grant, 1 not the grant's */
		if (!realpath(*p, r) && errno == ENOENT)
			made = realpath(dir, r) ? (path_contains(real, r) ? 0 : 1)
			       : errno == ENOENT ? path_dir_make(real, dir)
			                         : 1;
		if (made == 0) {
			int fd = open(*p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd < 0 && errno != EEXIST) {
				*errstr = xasprintf("git's config %s lies in read-write grant %s and is "
				                    "not there: it cannot be made, to be kept read-only "
				                    "(a call could make it): %s",
				                    *p, real, strerror(errno));
				rc = -1;
			}
			if (fd >= 0)
				close(fd);
		} else if (made < 0) {
			*errstr = xasprintf("git's config %s lies in read-write grant %s and its "
			                    "directory cannot be made, to keep it read-only: %s",
			                    *p, real, strerror(errno));
			rc = -1;
		}
		free(dir);
		if (rc == 0 && realpath(*p, r) && path_contains(real, r) && strcmp(real, r) != 0) {
			dir = xstrdup(r);
			path_up(dir);
			want_pins_to(real, dir, w, n);
			want_push(w, n, OP_REBIND, NULL, xstrdup(r), NULL, A_RO, false);
			free(dir);
		}
	}
	strv_free(paths);
	return rc;
}

/*
 * The directories on the caller's PATH that the read-write grant real is
 * or holds: read-only, and each directory between the grant's top and
 * one pinned (bound onto itself: a directory holding a mount can still be
 * renamed, and one made in its place filled). The user's shell runs what
 * they hold by name: with `read-write = ~/.cargo` a call planted
 * `~/.cargo/bin/git` that the user's next `git` ran on the host
 * (reproduced on 5a0a230, tests/e2e/126-sandbox-review11.sh). One that is
 * not there yet is made first, empty, as the call could make it and fill
 * it; -1 with *errstr when it cannot be, or when a link in the grant
 * lies on the way to one (a mount cannot hold a link in place). Relative
 * entries (`.`, `bin`) are the user's own risk in every directory, and are
 * left.
 */
static int want_path_dirs(const char *real, struct want **w, size_t *n, char **errstr)
{
	const char *env = getenv("PATH");
	char *list = xstrdup(env ? env : ""), *save = NULL, r[PATH_MAX], **dirs = NULL;
	int rc = 0;

	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *link = e[0] == '/' ? path_link_in(real, e) : NULL;
		if (link) {
			*errstr = xasprintf("PATH directory %s is reached through the link %s in "
			                    "read-write grant %s, which a call could point at a "
			                    "directory of its own: put the directory the link "
			                    "leads to on PATH, or grant a narrower path",
			                    e, link, real);
			free(link);
			rc = -1;
			break;
		}
		bool there = e[0] == '/' && realpath(e, r) != NULL;
		int made = !there && e[0] == '/' && errno == ENOENT ? path_dir_make(real, e) : 1;

		if (made == 0)
			there = realpath(e, r) != NULL;
		if (made < 0 || (made == 0 && !there)) {
			*errstr = xasprintf("PATH directory %s lies in read-write grant %s and is "
			                    "not there: it cannot be made, to be kept read-only (a "
			                    "call could make it and fill it): %s",
			                    e, real, strerror(errno));
			rc = -1;
			break;
		}
		if (there && path_contains(real, r) && !strv_contains(dirs, r))
			strv_push(&dirs, r);
	}
	/* the pins first: a pin after a read-only bind at the same path (one
	 * PATH directory holding another) would make it writable again */
	for (char **d = dirs; rc == 0 && d && *d; d++) {
		char *up = xstrdup(*d);
		if (path_up(up))
			want_pins_to(real, up, w, n);
		free(up);
	}
	for (char **d = dirs; rc == 0 && d && *d; d++)
		want_push(w, n, OP_REBIND, NULL, xstrdup(*d), NULL, A_RO, true);
	strv_free(dirs);
	free(list);
	return rc;
}

/* Adds the read_only/read_write/binds lists; -1 when one is refused. */
static int want_grants(char *const *list, unsigned attr, const char *home, size_t *budget,
                       char *const *own, struct want **w, size_t *n, char **errstr)
{
	char real[PATH_MAX];
	bool dir = false;

	for (char *const *p = list; p && *p; p++) {
		if ((*p)[0] != '/') {
			*errstr = xasprintf("granted path %s is not absolute", *p);
			return -1;
		}
		int r = grant_resolve(*p, home, real, &dir, errstr);
		if (r < 0 || (r > 0 && attr == A_BIND && grant_protected(*p, real, errstr) < 0))
			return -1;
		if (r > 0)
			want_push(w, n, OP_BIND, xstrdup(real), xstrdup(real), NULL, attr, dir);
		if (r > 0 && dir && attr == A_BIND)
			want_agent_hooks(real, home, w, n);
		if (r > 0 && dir && attr == A_BIND && want_path_dirs(real, w, n, errstr) < 0)
			return -1;
		if (r > 0 && dir && attr == A_BIND && want_git_globals(real, w, n, errstr) < 0)
			return -1;
		/* a read-write grant is the sandbox's to fill: a call made 1,100
		 * files there, and the next reached a host's socket past them */
		if (r > 0 && dir && !want_grant_pipes(real, real, budget, own, w, n) && attr == A_BIND) {
			*errstr = xasprintf("granted path %s (read-write) holds more than %d entries, "
			                    "or a directory that cannot be read, to check for "
			                    "sockets and FIFOs, and a call can fill it to hide a "
			                    "host's socket: grant a narrower path",
			                    *p, GRANT_PIPES_RW_ENTRIES);
			return -1;
		}
	}
	return 0;
}

/* $HOME paths granted read-only, bound at their place under the empty home. */
static int want_home(char *const *list, const char *home, size_t *budget, char *const *own,
                     struct want **w, size_t *n, char **errstr)
{
	char real[PATH_MAX];
	struct stat st;

	for (char *const *p = list; p && *p; p++) {
		const char *rel = strncmp(*p, "~/", 2) == 0 ? *p + 2 : *p;
		if (rel[0] == '/' || strstr(rel, "..") || rel[0] == '\0') {
			*errstr =
			        xasprintf("home path %s must be relative to $HOME, without ..", *p);
			return -1;
		}
		char *logical = xasprintf("%s/%s", home, rel);
		if (realpath(logical, real) && stat(real, &st) == 0) {
			want_push(w, n, OP_BIND, xstrdup(real), logical, NULL, A_RO,
			          S_ISDIR(st.st_mode));
			if (S_ISDIR(st.st_mode))
				want_grant_pipes(real, logical, budget, own, w, n);
		} else {
			free(logical);
		}
	}
	return 0;
}

/* Where a guarded path really is: links are resolved here, since the child
 * resolves an absolute one before pivot_root, against the host with the
 * stage over /tmp, and would protect nothing. 1 with real set when it is
 * inside the workdir; 0 when absent, or outside (the sandbox cannot see
 * it); -1 for a dangling link, whose target the command could create. */
static int guarded_real(const char *wd, const char *logical, char real[PATH_MAX])
{
	struct stat st;

	if (lstat(logical, &st) < 0)
		return 0;
	if (!realpath(logical, real))
		return -1;
	return path_contains(wd, real) ? 1 : 0;
}

/* rel under root bound with attr (read-only, or onto itself for a
 * holder) when it exists; shown names it in the message. A holder that is
 * no directory is read-only whole: bound onto itself it stayed writable,
 * and a secondary Jujutsu workspace's `.jj/repo` file, which names the
 * repository whose config the host's `jj` runs, was rewritten to name one
 * of the call's. -1 with *errstr for a link to nothing, whose target the
 * command could create. */
static int want_kept(const char *root, const char *rel, const char *shown, unsigned attr,
                     struct want **w, size_t *n, char **errstr)
{
	char real[PATH_MAX], *logical = xasprintf("%s/%s", root, rel);
	int r = guarded_real(root, logical, real);
	struct stat st;

	if (r > 0 && attr == A_BIND && stat(real, &st) == 0 && !S_ISDIR(st.st_mode))
		attr = A_RO;
	if (r < 0) {
		*errstr = xasprintf("%s is a link to nothing; the sandbox cannot keep it read-only "
		                    "(create its target or remove it)",
		                    shown ? shown : logical);
	} else if (r > 0 && attr == A_RO && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	           st.st_nlink > 1) { /* as a deny = Edit(...) path: the other name writes it */
		*errstr = xasprintf("%s has another hard link, through which a call could write it: "
		                    "remove that link (find . -samefile %s lists it)",
		                    shown ? shown : logical, real);
		r = -1;
	} else if (r > 0) {
		want_push(w, n, OP_REBIND, NULL, xstrdup(real), NULL, attr, false);
	}
	free(logical);
	return r < 0 ? -1 : 0;
}

/* rel in the workdir wd read-only, when it exists (what, for the message:
 * "core.hooksPath", "an include"). */
static int want_ro_rel(const char *wd, const char *rel, const char *what, struct want **w,
                       size_t *n, char **errstr)
{
	char *shown = xasprintf("workdir: %s (%s)", rel, what);
	int rc = want_kept(wd, rel, shown, A_RO, w, n, errstr);

	free(shown);
	return rc;
}

/* The refs rc, hooks and inc (guard.c: taken) of a repository config,
 * "" the workdir's, else a nested one's, read-only in wd. */
static int want_refs(const char *wd, int rc, char **hooks, char **inc, const char *nested,
                     struct want **w, size_t *n, char **errstr)
{
	char *what[2] = {xasprintf("%score.hooksPath", nested),
	                 xasprintf("an include of %s config", nested[0] ? nested : "the repository")};

	if (rc < 0)
		*errstr = xstrdup(GUARD_CONFIG_UNREAD);
	for (char **p = hooks; rc == 0 && p && *p; p++)
		rc = want_ro_rel(wd, *p, what[0], w, n, errstr);
	for (char **p = inc; rc == 0 && p && *p; p++)
		rc = want_ro_rel(wd, *p, what[1], w, n, errstr);
	strv_free(hooks);
	strv_free(inc);
	free(what[0]);
	free(what[1]);
	return rc < 0 ? -1 : 0;
}

/* What the repository config of wd has the host's git run or read from
 * the workdir (guard.c): the hooks directory core.hooksPath names, and the
 * files it includes, read-only as .git/hooks and .git/config are. */
static int want_config_refs(const char *wd, struct want **w, size_t *n, char **errstr)
{
	char **hooks, **inc;
	int rc = guard_config_refs(wd, &hooks, &inc);

	return want_refs(wd, rc, hooks, inc, "", w, n, errstr);
}

/* Each named configuration below guard_named[] in the workdir wd (one
 * readdir of each directory there is) that exists: read-only, and its
 * NAME pinned when a directory, as the table's own paths are. A NAME
 * without the file is left writable: one the run puts there, the sweep
 * removes. */
static int want_named(const char *wd, struct want **w, size_t *n, char **errstr)
{
	struct guard_name *names;
	size_t nn = guard_names_read(wd, &names);
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < nn; i++) {
		char *file = xasprintf("%s/%s", names[i].rel, guard_named[names[i].k].file);
		char *shown = xasprintf("workdir: %s", file), *logical = xasprintf("%s/%s", wd, file);
		struct stat st;
		if (lstat(logical, &st) == 0) { /* through a link NAME too: the spec follows it */
			if (names[i].dir.is_dir)
				rc = want_kept(wd, names[i].rel, shown, A_BIND, w, n, errstr);
			if (rc == 0)
				rc = want_kept(wd, file, shown, A_RO, w, n, errstr);
		}
		free(logical);
		free(shown);
		free(file);
	}
	guard_names_free(names, nn);
	return rc;
}

/* What a writable workdir keeps (guard.c's table) under root: each path
 * that exists read-only, each holder bound onto itself, writable, so that
 * it cannot be renamed away and replaced by one without the protection. A
 * .git that is a file or a link (a worktree's pointer) is read-only whole.
 * For a linked worktree's git directories (git), the table's .git part,
 * the root itself bound by the caller. */
/* True when entry i of guard_paths[] lies under one found absent. */
static bool under_absent(size_t i, const bool *absent)
{
	const uint8_t *j;
	size_t n = guard_holders(i, &j);

	for (size_t k = 0; k < n; k++)
		if (absent[j[k]])
			return true;
	return false;
}

/* Each entry is first looked up from the root, opened once, and one that
 * is not there (or under a directory that is not) is done: want_kept()
 * would find nothing either. An empty workdir's plan made ~100 lstat()s
 * of absolute paths, each walking the root's components again, half of
 * them under directories already found absent. */
static int want_guarded(const char *root, bool git, struct want **w, size_t *n, char **errstr)
{
	char *dotgit = xasprintf("%s/.git", root);
	struct stat st;
	bool git_whole = !git && lstat(dotgit, &st) == 0 && !S_ISDIR(st.st_mode);
	bool absent[GUARD_NPATHS] = {false};
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = 0;

	free(dotgit);
	for (size_t i = 0; rc == 0 && i < GUARD_NPATHS; i++) {
		const struct guard_path *g = &guard_paths[i];
		const char *rel = guard_rel(i, git);
		bool holder = g->kind == GUARD_PIN || (g->kind == GUARD_GITDIR && !git_whole);
		char *shown;
		if (rel == NULL || rel[0] == '\0' || (git_whole && strncmp(rel, ".git/", 5) == 0))
			continue;
		if (under_absent(i, absent) ||
		    (dfd >= 0 && fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)) {
			absent[i] = true;
			continue;
		}
		shown = git ? NULL : xasprintf("workdir: %s", rel); /* NULL: the whole path */
		rc = want_kept(root, rel, shown, holder ? A_BIND : A_RO, w, n, errstr);
		free(shown);
	}
	if (dfd >= 0)
		close(dfd);
	if (rc < 0)
		return -1;
	return git ? 0 : want_named(root, w, n, errstr) < 0 ? -1 : want_config_refs(root, w, n, errstr);
}

#define COVER_MAX (64 * 1024) /* bytes of a covering copy: the stage is a 1 MiB tmpfs */
#define COVER_ENTRIES 512     /* entries read for submodules, worktrees and clones */

/* One plan's search for repository configs to cover. */
struct covers {
	const char *root; /* what the sandbox shows of them: a config elsewhere is not */
	size_t entries;   /* directory entries read, COVER_ENTRIES at most */
	struct want **w;
	size_t *n;
	char **errstr;
};

typedef int cover_fn(struct covers *c, const char *path);

/* Covers the repository config file at path with a copy cut of its
 * credentials (gitcreds.c) when it holds any, where it really lies in
 * c->root. -1 with *errstr when such a file cannot be read whole or its
 * copy is too large for the stage: the call must not see it uncut. */
static int want_cover(struct covers *c, const char *path)
{
	char real[PATH_MAX], *text, *cut;
	struct stat st;
	size_t len;

	if (realpath(path, real) == NULL || stat(real, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !path_contains(c->root, real))
		return 0; /* absent, not a file git reads, or not shown */
	for (size_t i = 0; i < *c->n; i++)
		if ((*c->w)[i].kind == OP_COVER && strcmp((*c->w)[i].dst, real) == 0)
			return 0;
	if ((text = guard_config_text(AT_FDCWD, real, false, &len)) == NULL) {
		*c->errstr = xasprintf("%s cannot be read to cut the credentials it may hold (a "
		                       "repository config over 1 MiB?)", real);
		return -1;
	}
	cut = gitcreds_shown(text, len);
	free(text);
	if (cut && strlen(cut) > COVER_MAX) {
		*c->errstr = xasprintf("%s holds credentials and is over %d KiB: too large to "
		                       "show cut; remove them from it, or use a profile that "
		                       "shows secrets",
		                       real, COVER_MAX / 1024);
		free(cut);
		return -1;
	}
	if (cut)
		want_push(c->w, c->n, OP_COVER, NULL, xstrdup(real), cut, A_RO, false);
	return 0;
}

/* fn on dir/NAME + tail for each entry NAME of the directory dir (none
 * when dir is absent or a link), each counted against COVER_ENTRIES: a
 * call could fill .venv/src with empty names to make every plan slow. */
static int covers_each(struct covers *c, const char *dir, const char *tail, cover_fn *fn)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || (d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *path;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++c->entries > COVER_ENTRIES) {
			*c->errstr = xasprintf("%s: more than %d submodules, worktrees and clones to "
			                       "read for credentials; use a profile that shows "
			                       "secrets",
			                       dir, COVER_ENTRIES);
			rc = -1;
			break;
		}
		path = xasprintf("%s/%s%s", dir, e->d_name, tail);
		rc = fn(c, path);
		free(path);
	}
	closedir(d);
	return rc;
}

static int want_module_covers(struct covers *c, const char *dir);

/* The config files of the git directory gd: config, config.worktree, each
 * linked worktree's entry's config.worktree (worktrees/NAME: `git config
 * --worktree` writes there), and the submodules' git directories below
 * modules/ (a submodule's name may hold slashes: modules/libs/x). */
static int want_git_covers(struct covers *c, const char *gd)
{
	static const struct {
		const char *name, *tail;
		cover_fn *fn;
	} parts[] = {
		{"config", NULL, want_cover},
		{"config.worktree", NULL, want_cover},
		{"worktrees", "/config.worktree", want_cover},
		{"modules", NULL, want_module_covers},
	};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < nitems(parts); i++) {
		char *path = xasprintf("%s/%s", gd, parts[i].name);
		rc = parts[i].tail ? covers_each(c, path, parts[i].tail, parts[i].fn)
		                   : parts[i].fn(c, path);
		free(path);
	}
	return rc;
}

/* Each git directory (one holding HEAD) at or below dir, as
 * want_git_covers() reads it; never through a link. */
static int want_module_covers(struct covers *c, const char *dir)
{
	struct stat st;
	char *head = xasprintf("%s/HEAD", dir);
	bool git = lstat(head, &st) == 0;

	free(head);
	return git ? want_git_covers(c, dir) : covers_each(c, dir, "", want_module_covers);
}

/* The files the config of the git directory gd (its work tree top) has
 * git include from the workdir c->root (a .gitconfig.local beside it),
 * covered as it is. Not the user's global config's includes: for a
 * dotfiles repository as the workdir only, and an includeIf there would
 * make every readonly one-shot call load libgit2 (7.9 -> 24.2 ms). -1
 * with *errstr when the config cannot be read for them. */
static int want_include_covers(struct covers *c, const char *top, const char *gd)
{
	char **inc;
	int rc = guard_repo_includes(c->root, top, gd, &inc);

	if (rc < 0)
		*c->errstr = xstrdup(GUARD_CONFIG_UNREAD);
	for (char **p = inc; rc == 0 && p && *p; p++) {
		char *path = xasprintf("%s/%s", c->root, *p);
		rc = want_cover(c, path);
		free(path);
	}
	strv_free(inc);
	return rc;
}

/* The git directory a .git entry (dotgit) of the workdir c->root leads
 * git to, and the common directory that one names, as want_git_covers()
 * reads them: a directory, a link to one, or a file naming one ("gitdir:
 * ../store/x", or a linked worktree's); and the files their configs
 * include. */
static int want_dotgit_covers(struct covers *c, const char *dotgit)
{
	char gd[PATH_MAX], common[PATH_MAX], *top = xstrdup(dotgit);
	struct stat st;
	bool found;
	int rc = 0;

	path_up(top);
	if (lstat(dotgit, &st) == 0 && S_ISREG(st.st_mode))
		found = gitdir_file_read(top, gd);
	else
		found = realpath(dotgit, gd) != NULL;
	if (found && stat(gd, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = want_git_covers(c, gd) < 0 || want_include_covers(c, top, gd) < 0 ? -1 : 0;
		if (rc == 0 && gitdir_common_read(gd, common) && strcmp(common, gd) != 0)
			rc = want_git_covers(c, common) < 0 || want_include_covers(c, top, common) < 0
			         ? -1
			         : 0;
	}
	free(top);
	return rc;
}

/* Where tools clone a repository, with the URL it was fetched from, into
 * a tree the search does not enter: pip's editable VCS installs
 * (`pip install -e git+https://TOKEN@host/r#egg=x` clones into
 * .venv/src/x) and Terraform's git module sources (.terraform/modules/x). */
static const char *const clone_dirs[] = {".venv/src", ".terraform/modules"};

/* The credentials in the config of each repository the workdir wd shows
 * (gitdirs: the nested ones the search passed; its own .git too; those
 * tools clone into clone_dirs[], one level down), cut (want_cover()): each
 * .git followed to its git directory, as git does. */
static int want_wd_covers(const char *wd, char *const *gitdirs, struct want **w, size_t *n,
                          char **errstr)
{
	struct covers c = {wd, 0, w, n, errstr};
	char *top = xasprintf("%s/.git", wd);
	int rc = want_dotgit_covers(&c, top);

	free(top);
	for (char *const *g = gitdirs; rc == 0 && g && *g; g++)
		rc = want_dotgit_covers(&c, *g);
	for (size_t i = 0; rc == 0 && i < nitems(clone_dirs); i++) {
		char *dir = xasprintf("%s/%s", wd, clone_dirs[i]);
		rc = covers_each(&c, dir, "/.git", want_dotgit_covers);
		free(dir);
	}
	return rc;
}

/* Makes dir/upper and dir/work (dir too, when absent) for an overlay. */
static int overlay_dirs_make(const char *dir, char **errstr)
{
	for (int i = 0; i < 3; i++) {
		char *d = i ? xasprintf("%s/%s", dir, i == 2 ? "work" : "upper") : xstrdup(dir);
		int e = mkdir(d, 0700) < 0 && errno != EEXIST ? errno : 0;
		free(d);
		if (e) {
			*errstr = xasprintf("overlay dir %s: cannot create upper/work: %s", dir,
			                    strerror(e));
			return -1;
		}
	}
	return 0;
}

/* A linked worktree's repository (gitdir.c): read-only; an overlay in a
 * dry run, as the workdir is; or, with a writable workdir, writable as the
 * workdir's own .git is, its hooks and config kept the same way, the
 * worktree's own gitdir writable and the other worktrees' entries
 * read-only (a commit writes objects and refs there, and the index and
 * HEAD in the gitdir). */
static int want_linked(const struct exec_spec *s, const struct gitdir_linked *l, struct want **w,
                       size_t *n, char **errstr)
{
	bool rw = s->profile->workdir_rw && !s->overlay_dir;
	char real[PATH_MAX], *up, *wt;
	struct covers c = {l->common, 0, w, n, errstr};
	int rc;

	if (!s->profile->show_secrets) { /* the common config, and this worktree's own */
		wt = xasprintf("%s/config.worktree", l->gitdir);
		rc = want_git_covers(&c, l->common) < 0 || want_cover(&c, wt) < 0 ? -1 : 0;
		free(wt);
		if (rc < 0)
			return -1;
	}

	if (s->overlay_dir) { /* a dry run: what it writes there is thrown away */
		if (!realpath(s->overlay_dir, real)) {
			*errstr = xasprintf("overlay dir %s: %s", s->overlay_dir, strerror(errno));
			return -1;
		}
		up = xasprintf("%s/common", real);
		if (overlay_dirs_make(up, errstr) < 0) {
			free(up);
			return -1;
		}
		want_push(w, n, OP_OVERLAY, xstrdup(l->common), xstrdup(l->common), up, A_BIND,
		          true);
		return 0;
	}
	want_push(w, n, OP_BIND, xstrdup(l->common), xstrdup(l->common), NULL, rw ? A_BIND : A_RO,
	          true);
	if (!rw)
		return 0;
	/* from the host: a bind of the staged one would be read-only with the
	 * worktrees directory above it */
	want_push(w, n, OP_BIND, xstrdup(l->gitdir), xstrdup(l->gitdir), NULL, A_BIND, true);
	if (want_guarded(l->common, true, w, n, errstr) < 0)
		return -1;
	return want_guarded(l->gitdir, true, w, n, errstr);
}

#define SECRETS_MAX 256     /* masks per workdir; more fails closed */
#define NESTED_MAX 64       /* nested repositories kept read-only; past it, swept */
#define PINS_MAX 512        /* directories holding them, pinned; more fails closed */
#define MASK_SRC "/dev/null" /* what a masked file shows: nodev, so not even that */

/* A mask binds over a file that exists: no mountpoint is made for it. */
static bool want_is_mask(const struct want *w)
{
	return w->kind == OP_BIND && !w->is_dir && w->src && strcmp(w->src, MASK_SRC) == 0;
}

/* Adds a mask over real (the file a secret name leads to) unless there. */
static void want_mask(struct want **w, size_t *n, const char *real)
{
	for (size_t i = 0; i < *n; i++)
		if (want_is_mask(&(*w)[i]) && strcmp((*w)[i].dst, real) == 0)
			return;
	want_push(w, n, OP_BIND, xstrdup(MASK_SRC), xstrdup(real), NULL, A_RO, false);
}

/* Pins each directory between the workdir and a masked path (real) by
 * binding it onto itself: a mount point cannot be renamed or removed, so a
 * call that can write the workdir cannot carry a masked secret or socket,
 * with its directory, to where the next call's search does not look (into
 * node_modules, or past the entries it reads) and read it there. -1 with
 * *errstr past PINS_MAX. */
static int want_pins(const char *wd, const char *real, struct want **w, size_t *n, size_t *pins,
                     char **errstr)
{
	char *dir = xstrdup(real);
	int rc = 0;

	while (rc == 0 && path_up(dir) && strcmp(dir, wd) != 0 && path_contains(wd, dir)) {
		bool have = false;
		for (size_t i = 0; i < *n && !have; i++)
			have = (*w)[i].kind == OP_REBIND && strcmp((*w)[i].dst, dir) == 0;
		if (have)
			continue;
		if (++*pins > PINS_MAX) {
			*errstr = xasprintf("workdir %s: its secret files, sockets and FIFOs lie in "
			                    "more than %d directories to pin; move them out, or use a "
			                    "profile that shows them",
			                    wd, PINS_MAX);
			rc = -1;
		} else {
			want_push(w, n, OP_REBIND, NULL, xstrdup(dir), NULL, A_BIND, true);
		}
	}
	free(dir);
	return rc;
}

/* The directories a search of the workdir wd does not enter: the kernel's
 * mounts below it (covered) and the profile's secrets_skip; a new vector. */
static char **search_skip(const struct profile *p, const char *wd, char *const *covered)
{
	char **skip = strv_dup(covered);

	for (char *const *s = p->secrets_skip; s && *s; s++)
		strv_push_owned(&skip, xasprintf("%s/%s", wd, *s));
	return skip;
}

/* What the config of the repository nested in wd at gitdir (X/.git) has
 * the host's git run or read from the workdir: its core.hooksPath
 * directories (a nested project's husky: X/.husky/_, git-ignored) and the
 * files it includes, read-only as its config is. */
static int want_nested_refs(const char *wd, const char *gitdir, struct want **w, size_t *n,
                            char **errstr)
{
	char **hooks, **inc, *top = xstrdup(gitdir);
	int rc;

	path_up(top);
	rc = guard_nested_refs(wd, top, gitdir, &hooks, &inc);
	free(top);
	return want_refs(wd, rc, hooks, inc, "a nested repository's ", w, n, errstr);
}

/*
 * The repositories nested in a writable workdir (each X/.git the search
 * passed): read-only where the host's git reads what runs (config, hooks,
 * and the rest of guard.c's table under .git), the directory pinned, a
 * .git file read-only. The host's git runs their config when it enters one
 * (core.fsmonitor on every outer `git status`, once it is a gitlink), and
 * a user's own would otherwise be changed in place. What the run makes
 * anew, and what lies past NESTED_MAX, guard_sweep() checks after it.
 */
static int want_nested(const char *wd, char *const *gitdirs, struct want **w, size_t *n,
                       char **errstr)
{
	struct stat st;
	size_t kept = 0;

	for (char *const *g = gitdirs; g && *g && kept < NESTED_MAX; g++) {
		if (lstat(*g, &st) < 0 || S_ISLNK(st.st_mode))
			continue;
		kept++;
		if (!S_ISDIR(st.st_mode)) {
			want_push(w, n, OP_REBIND, NULL, xstrdup(*g), NULL, A_RO, false);
			continue;
		}
		want_push(w, n, OP_REBIND, NULL, xstrdup(*g), NULL, A_BIND, true);
		if (want_guarded(*g, true, w, n, errstr) < 0 ||
		    want_nested_refs(wd, *g, w, n, errstr) < 0)
			return -1;
	}
	return 0;
}

/*
 * The policy of each project nested in a writable workdir (X/.airlock, as
 * the search passed it), read-only, as the workdir's own: a monorepo's
 * `sub/.airlock/policy` is what a session started in sub trusts, and a
 * call in the outer project emptied its rules (the tenth review). Up to
 * NESTED_MAX; a link to a directory in wd keeps that directory (the
 * gate reads the policy through it), one elsewhere is the grant's.
 */
static int want_nested_policies(const char *wd, char *const *airlocks, struct want **w,
                                size_t *n, char **errstr)
{
	size_t wl = strlen(wd), kept = 0;
	struct stat st;

	for (char *const *a = airlocks; a && *a && kept < NESTED_MAX; a++) {
		if (!path_contains(wd, *a) || stat(*a, &st) < 0 || !S_ISDIR(st.st_mode))
			continue; /* a link is followed: to a directory in wd, that is kept */
		kept++;
		if (want_ro_rel(wd, *a + wl + 1, "a nested project's policy", w, n, errstr) < 0)
			return -1;
	}
	return 0;
}

/*
 * What the workdir must not show (secrets.c, at the top level and below),
 * each masked by /dev/null bound read-only and nodev, so opening or
 * connecting to it fails:
 *  - its secret files (.env, id_rsa, *.pem: the classifier's names): the
 *    sandbox hides $HOME and the environment, and an auto-run `grep -r KEY
 *    .` must not hand a workdir's .env to the agent either; profiles with
 *    show_secrets (approved, none) skip these;
 *  - its sockets and FIFOs, unless the profile has the network: a host
 *    database or docker daemon listening on one in the project would take
 *    requests from a sandbox that has no network.
 * When the sandbox can write the workdir (pin), the directories holding
 * them are pinned too (want_pins). The search enters neither the covered
 * kernel mounts nor the profile's secrets_skip directories (a user's
 * choice for a huge build or data tree, which would fail the search).
 * The same search finds what the deny rules' globs match, into globs,
 * for want_hidden() and want_denied_writes().
 */
static int want_masks(const struct profile *p, const char *wd, char *const *covered, bool pin,
                      struct search_globs *globs, struct want **w, size_t *n, char **errstr)
{
	unsigned what = (p->show_secrets ? 0 : MASK_SECRETS) | (p->network ? 0 : MASK_PIPES);
	bool globbed = globs->hide || globs->keep;
	char **found, **gitdirs = NULL, **skip;
	size_t nfound, pins = 0;
	int rc = 0;

	if (what == 0 && !pin && !globbed)
		return 0;
	skip = search_skip(p, wd, covered);
	rc = secrets_search(wd, what, skip, globs, &found, &nfound,
	                    pin || !p->show_secrets ? &gitdirs : NULL, errstr);
	strv_free(skip);
	if (rc == 0 && strv_len(globs->hidden) + strv_len(globs->kept) > SECRETS_MAX) {
		*errstr = xasprintf("workdir %s: more than %d paths that deny = Read(...) or "
		                    "Edit(...) rules' patterns match to mask or keep read-only: "
		                    "name their directory in the rule instead",
		                    wd, SECRETS_MAX);
		rc = -1;
	}
	if (rc < 0 && what == 0 && !globbed) { /* only the nested repositories: the sweep has them */
		free(*errstr);
		*errstr = NULL;
		return 0;
	}
	if (rc < 0)
		return -1;
	rc = pin ? want_nested(wd, gitdirs, w, n, errstr) : 0;
	if (rc == 0 && pin)
		rc = want_nested_policies(wd, globs->airlocks, w, n, errstr);
	strv_free(globs->airlocks);
	globs->airlocks = NULL;
	if (rc == 0 && !p->show_secrets)
		rc = want_wd_covers(wd, gitdirs, w, n, errstr);
	strv_free(gitdirs);
	if (rc == 0 && nfound > SECRETS_MAX) {
		*errstr = xasprintf("workdir %s: more than %d secret files, sockets and FIFOs to "
		                    "mask; move them out, or use a profile that shows them",
		                    wd, SECRETS_MAX);
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < nfound; i++) {
		want_mask(w, n, found[i]);
		if (pin)
			rc = want_pins(wd, found[i], w, n, &pins, errstr);
	}
	strv_free(found);
	return rc;
}

/* True when a directory at real is hidden already (a rule naming it whole
 * and a glob matching it). */
static bool want_hides(const struct want *w, size_t n, const char *real)
{
	for (size_t i = 0; i < n; i++)
		if (w[i].hides && strcmp(w[i].dst, real) == 0)
			return true;
	return false;
}

/*
 * The paths the policy denies reading (profile->hide: deny = Read(...)
 * rules that name a path whole; or what the search found their globs
 * match) where they lie in the workdir: a file masked as a secret is, a
 * directory covered by an empty read-only tmpfs.
 * The rule stops a call that names the path; this stops one that reads it
 * as part of a tree (`grep -r x .`, `rg`, `tar c .`). When the sandbox can
 * write the workdir the directories up to it are pinned, so a call cannot
 * move it out from under the mask. A path that is not there, the workdir
 * itself, or one outside it (nothing of the host shows there but what is
 * granted) is left alone. A file with another hard link fails, as a
 * secret does: the other name would show what it holds.
 */
static int want_hidden(char *const *hide, const char *wd, bool pin, struct want **w, size_t *n,
                       char **errstr)
{
	char real[PATH_MAX];
	struct stat st;
	size_t pins = 0;

	for (char *const *h = hide; h && *h; h++) {
		if (realpath(*h, real) == NULL || stat(real, &st) < 0 || strcmp(real, wd) == 0 ||
		    !path_contains(wd, real) || want_hides(*w, *n, real))
			continue;
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			*errstr = xasprintf("workdir: %s, which a deny = Read(...) rule names, has "
			                    "another hard link, which would show what it holds "
			                    "unmasked: remove that link (find . -samefile %s lists it)",
			                    real, real);
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			want_push(w, n, OP_TMPFS, NULL, xstrdup(real),
			          xstrdup("mode=0755,size=4k,nr_inodes=4"), A_RO, true);
			(*w)[*n - 1].hides = true;
		} else {
			want_mask(w, n, real);
		}
		if (pin && want_pins(wd, real, w, n, &pins, errstr) < 0)
			return -1;
	}
	return 0;
}

/* airlock's own state directory, where the workdir holds it (GNU stow
 * links ~/.local into a dotfiles repository, or the workdir is ~/.local):
 * hidden as a directory a deny rule names is, so a call cannot forge the
 * pending records a recovery trusts, the kept readings later calls take,
 * or the default audit log. One not made yet is made first where the
 * sandbox writes the workdir (pin): an absent one had no mount, the call
 * made it, and a pending record it left there for another project had
 * that project's next run move its .git/config, hooks and
 * .claude/settings.json aside (the ninth review). */
static int want_state_hidden(const char *wd, bool pin, struct want **w, size_t *n,
                             char **errstr)
{
	char *state[] = {state_root(), NULL};
	int rc = 0;

	if (state[0] && pin && path_contains(wd, state[0]) && state_dir_make(state[0]) < 0) {
		*errstr = xasprintf("airlock's state directory %s lies in the workdir and cannot "
		                    "be made, to hide it from the sandbox: %s (make it, or set "
		                    "XDG_STATE_HOME outside the workdir)",
		                    state[0], strerror(errno));
		rc = -1;
	}
	if (rc == 0 && state[0])
		rc = want_hidden(state, wd, pin, w, n, errstr);
	free(state[0]);
	return rc;
}

/* The paths the policy denies writing (profile->keep: deny = Edit(...)
 * rules that name a path whole; or what the search found their globs
 * match) that lie in a writable workdir: bound
 * read-only onto themselves, which also keeps them from being moved or
 * removed, and (pin) the directories up to each pinned (want_pins()):
 * else `mv sub sub.old; mkdir sub` and a new sub/yarn.lock replaced a
 * kept one. One not there yet is not kept (a call may make it). A file
 * with another hard link fails, as a hidden one does: the other name
 * would write it. */
static int want_denied_writes(char *const *keep, const char *wd, bool pin, struct want **w,
                              size_t *n, char **errstr)
{
	char real[PATH_MAX];
	struct stat st;
	size_t pins = 0;

	for (char *const *k = keep; k && *k; k++) {
		if (!realpath(*k, real) || stat(real, &st) < 0 || strcmp(real, wd) == 0 ||
		    !path_contains(wd, real))
			continue;
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			*errstr = xasprintf("workdir: %s, which a deny = Edit(...) rule keeps, has "
			                    "another hard link, through which it could be written: "
			                    "remove that link (find . -samefile %s lists it)",
			                    real, real);
			return -1;
		}
		want_push(w, n, OP_REBIND, NULL, xstrdup(real), NULL, A_RO, S_ISDIR(st.st_mode));
		if (pin && want_pins(wd, real, w, n, &pins, errstr) < 0)
			return -1;
	}
	return 0;
}

/* Drops what would be mounted below a hidden directory (a secret's mask, a
 * pin, a guarded path, a grant): its tmpfs is empty and read-only, so no
 * mount point could be made there, and the deny rule wins over a grant. */
static void wants_drop_hidden(struct want *w, size_t *n)
{
	size_t k = 0, hides = 0;

	for (size_t i = 0; i < *n; i++)
		hides += w[i].hides;
	if (hides == 0) /* the usual plan: nothing to look at twice */
		return;
	for (size_t i = 0; i < *n; i++) {
		bool under = false;
		for (size_t j = 0; j < *n && !under; j++)
			under = w[j].hides && i != j && strcmp(w[i].dst, w[j].dst) != 0 &&
			        path_contains(w[j].dst, w[i].dst);
		if (under) {
			free(w[i].src);
			free(w[i].dst);
			free(w[i].data);
		} else {
			w[k++] = w[i];
		}
	}
	*n = k;
}

/* The kernel's own file systems: one mounted below the workdir (a chroot
 * being built, with its proc, sys and dev) would show the host through the
 * recursive bind: its processes and their command lines, its devices and
 * kernel knobs. */
static const char *const kernel_fs[] = {
	"proc",      "sysfs",    "devtmpfs", "devpts",    "mqueue",     "cgroup",  "cgroup2",
	"debugfs",   "tracefs",  "securityfs", "pstore",  "efivarfs",   "bpf",     "configfs",
	"fusectl",   "binfmt_misc", "hugetlbfs", "nsfs",  "rpc_pipefs", "selinuxfs", "autofs",
};

static bool kernel_fs_type(const char *type)
{
	for (size_t i = 0; i < nitems(kernel_fs); i++)
		if (strcmp(type, kernel_fs[i]) == 0)
			return true;
	return false;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void mountinfo_unescape(char *s)
{
	char *o = s;

	for (; *s; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o = *s;
		}
	}
	*o = '\0';
}

/* Reads the mount points of the kernel's file systems from mountinfo (f);
 * returns a new NULL-terminated vector (possibly NULL: none). */
static char **kernel_mounts_read(FILE *f)
{
	char **v = NULL, *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0) {
		char type[64], *mp = line;
		const char *sep = strstr(line, " - ");
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ...;
		 * the mount point as long as it is: escaped (\040 for a space), it
		 * can be four times PATH_MAX, and one cut short covers nothing */
		for (int i = 0; i < 4 && mp; i++)
			mp = strchr(mp, ' ') ? strchr(mp, ' ') + 1 : NULL;
		if (sep == NULL || mp == NULL || sscanf(sep + 3, "%63s", type) != 1 ||
		    !kernel_fs_type(type))
			continue;
		mp[strcspn(mp, " ")] = '\0';
		mountinfo_unescape(mp);
		strv_push(&v, mp);
	}
	free(line);
	return v;
}

/* The host's kernel file system mount points, read again only when poll()
 * on mountinfo says the mount table changed: the gate plans a sandbox per
 * call, and reading the table costs per mount. */
static pthread_mutex_t kmounts_lock = PTHREAD_MUTEX_INITIALIZER;
static int kmounts_fd = -1;
static char **kmounts;
static bool kmounts_known;

/* Brings kmounts up to date (lock held); -1 with *errstr. */
static int kernel_mounts_refresh(char **errstr)
{
	struct pollfd p = {.events = POLLPRI};
	FILE *f;

	if (kmounts_fd < 0 && (kmounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0)
		goto fail;
	/* the poll also clears the change it reports; a change after it is
	 * reported to the next one */
	p.fd = kmounts_fd;
	if (poll(&p, 1, 0) < 0)
		goto fail;
	if (kmounts_known && p.revents == 0)
		return 0;
	kmounts_known = false;
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		goto fail;
	strv_free(kmounts);
	kmounts = kernel_mounts_read(f);
	kmounts_known = !ferror(f);
	fclose(f);
	if (kmounts_known)
		return 0;
	errno = EIO;
fail:
	*errstr = xasprintf("cannot read /proc/self/mountinfo to see what is mounted in the "
	                    "workdir: %s", strerror(errno));
	return -1;
}

/* Each kernel file system mounted below wd on the host is covered by an
 * empty read-only tmpfs. -1 with *errstr when the mount table cannot be
 * read: then what lies below the workdir is not known. */
static int want_kernel_mounts(const char *wd, struct want **w, size_t *n, char ***covered,
                              char **errstr)
{
	int rc;

	pthread_mutex_lock(&kmounts_lock);
	rc = kernel_mounts_refresh(errstr);
	for (size_t i = 0; rc == 0 && kmounts && kmounts[i]; i++)
		if (strcmp(kmounts[i], wd) != 0 && path_contains(wd, kmounts[i])) {
			want_push(w, n, OP_TMPFS, NULL, xstrdup(kmounts[i]),
			          xstrdup("mode=0555,size=4k"), A_RO, true);
			strv_push(covered, kmounts[i]);
		}
	pthread_mutex_unlock(&kmounts_lock);
	return rc;
}

bool mounts_writes_workdir(const struct profile *p, const char *wd)
{
	char real[PATH_MAX];

	if (p->workdir_rw)
		return true;
	for (char *const *g = p->read_write; g && *g; g++)
		if (realpath(*g, real) && path_contains(wd, real))
			return true;
	return false;
}

char **mounts_search_skip(const struct profile *p, const char *wd)
{
	char **covered = NULL, **skip, *err = NULL;

	pthread_mutex_lock(&kmounts_lock);
	if (kernel_mounts_refresh(&err) == 0) /* else the plan fails: nothing runs */
		for (size_t i = 0; kmounts && kmounts[i]; i++)
			if (strcmp(kmounts[i], wd) != 0 && path_contains(wd, kmounts[i]))
				strv_push(&covered, kmounts[i]);
	pthread_mutex_unlock(&kmounts_lock);
	free(err);
	skip = search_skip(p, wd, covered);
	strv_free(covered);
	/* the guard searches with this next, the plan after it: the guard's
	 * reads serve the plan's deny globs too */
	secrets_globs_expect(p->hide_globs, p->keep_globs);
	return skip;
}

/* The workdir: bound, or an overlay whose upper/work live in overlay_dir. */
static int want_workdir(const struct exec_spec *s, const char *wd, struct want **w, size_t *n,
                        char **errstr)
{
	bool rw = s->profile->workdir_rw;

	if (!s->overlay_dir) {
		want_push(w, n, OP_BIND, xstrdup(wd), xstrdup(wd), NULL, rw ? A_BIND : A_RO, true);
	} else {
		char real[PATH_MAX];
		if (!realpath(s->overlay_dir, real)) {
			*errstr = xasprintf("overlay dir %s: %s", s->overlay_dir, strerror(errno));
			return -1;
		}
		if (overlay_dirs_make(real, errstr) < 0)
			return -1;
		want_push(w, n, OP_OVERLAY, xstrdup(wd), xstrdup(wd), xstrdup(real), A_BIND, true);
		rw = true;
	}
	char **covered = NULL; /* the kernel's mounts below wd: not searched */
	struct search_globs globs = {s->profile->hide_globs, s->profile->keep_globs, NULL, NULL,
	                             NULL};
	/* a read-only workdir that a read-write grant opens, whole or in part,
	 * is guarded as a writable one: without it `read-write = WORKDIR` or
	 * `WORKDIR/build` in a readonly profile let a call plant .git/hooks
	 * and .mcp.json, or a nested repository's fsmonitor, and carry a
	 * masked secret's directory away, with no pin and no sweep (the eighth
	 * review); pins and guarded paths outside the grant stay read-only,
	 * as a bind onto itself keeps the flags of what it binds */
	if (!s->overlay_dir && !rw)
		rw = mounts_writes_workdir(s->profile, wd);
	bool pin = rw && !s->overlay_dir;
	int rc = want_kernel_mounts(wd, w, n, &covered, errstr) < 0 ||
	                 want_masks(s->profile, wd, covered, pin, &globs, w, n, errstr) < 0 ||
	                 want_hidden(s->profile->hide, wd, pin, w, n, errstr) < 0 ||
	                 want_hidden(globs.hidden, wd, pin, w, n, errstr) < 0 ||
	                 want_state_hidden(wd, pin, w, n, errstr) < 0
	         ? -1
	         : 0;
	strv_free(covered);
	strv_free(globs.hidden);
	if (rc < 0) {
		strv_free(globs.kept);
		return -1;
	}
	/* A writable workdir must not plant what runs or decides later: hooks and
	 * config the host's git runs, airlock's project policy, the agent's hook
	 * and MCP settings. */
	if (rw && (want_denied_writes(s->profile->keep, wd, pin, w, n, errstr) < 0 ||
	           want_denied_writes(globs.kept, wd, pin, w, n, errstr) < 0)) {
		strv_free(globs.kept);
		return -1;
	}
	strv_free(globs.kept);
	return rw ? want_guarded(wd, false, w, n, errstr) : 0;
}

/* A git directory inside the workdir that its .git file names (gitdir.c):
 * bound onto itself, so that it cannot be renamed away, and its hooks and
 * config kept as .git's are. Its config's credentials are cut with every
 * .git's (want_wd_covers()). */
static int want_gitdir_inside(const struct exec_spec *s, const char *wd, struct want **w,
                              size_t *n, char **errstr)
{
	char *dir = s->overlay_dir || mounts_writes_workdir(s->profile, wd) ? gitdir_inside_find(wd)
	                                                                     : NULL;
	int rc = 0;

	if (dir) {
		want_push(w, n, OP_REBIND, NULL, xstrdup(dir), NULL, A_BIND, false);
		rc = want_guarded(dir, true, w, n, errstr);
	}
	free(dir);
	return rc;
}

static void wants_emit(struct sbx_plan *pl, struct want *w, size_t n)
{
	qsort(w, n, sizeof(*w), want_cmp);
	for (size_t i = 0; i < n; i++) {
		struct sbx_op *op;
		if (want_is_mask(&w[i])) {
			op = op_add(pl, OP_BIND, w[i].dst);
			op->src = xstrdup(w[i].src);
			op->attr_set = w[i].attr;
			continue;
		}
		if (w[i].kind == OP_BIND) {
			op_bind(pl, w[i].src, w[i].dst, w[i].is_dir, w[i].attr);
			continue;
		}
		if (w[i].kind == OP_REBIND) {
			op_add(pl, OP_REBIND, w[i].dst)->attr_set = w[i].attr;
			continue;
		}
		if (w[i].kind == OP_COVER) { /* over a file that exists, as a mask */
			op = op_add(pl, OP_COVER, w[i].dst);
			op->data = xstrdup(w[i].data);
			op->len = strlen(op->data);
			op->attr_set = w[i].attr;
			continue;
		}
		op_mkdirs(pl, w[i].dst, true);
		op = op_add(pl, w[i].kind, w[i].dst);
		op->src = w[i].src ? xstrdup(w[i].src) : NULL;
		op->data = w[i].data ? xstrdup(w[i].data) : NULL;
		op->attr_set = w[i].attr;
	}
}

static void wants_free(struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(w[i].src);
		free(w[i].dst);
		free(w[i].data);
	}
	free(w);
}

/* The directories a call can fill, each walked on its own for sockets and
 * FIFOs, that the grants' walks do not enter (want_grant_pipes()): the
 * workdir and the read-write grants, resolved. A new list. */
static char **grants_own(const char *wd, char *const *read_write)
{
	char **own = NULL, real[PATH_MAX];

	strv_push(&own, wd);
	for (char *const *p = read_write; p && *p; p++)
		if (realpath(*p, real))
			strv_push(&own, real);
	return own;
}

/* /tmp, the empty home and everything granted, in target order. */
static int plan_dynamic(const struct exec_spec *s, const char *wd, const char *home,
                        struct sbx_plan *pl, char **errstr)
{
	const struct profile *p = s->profile;
	long long tsz = p->tmp_size > 0 ? p->tmp_size : 256LL << 20;
	struct want *w = NULL;
	struct gitdir_linked linked;
	bool is_linked = gitdir_linked_find(wd, home, &linked);
	size_t n = 0, left = GRANT_PIPES_ENTRIES, rw_left = GRANT_PIPES_RW_ENTRIES;
	bool pipes = !p->network || s->overlay_dir; /* want_grant_pipes() */
	size_t *budget = pipes ? &left : NULL, *rw_budget = pipes ? &rw_left : NULL;
	int rc = -1;

	want_push(&w, &n, OP_TMPFS, NULL, xstrdup("/tmp"),
	          xasprintf("mode=1777,size=%lld,nr_inodes=%lld", tsz, TMPFS_INODES(tsz)), A_BIND,
	          true);
	if (strcmp(home, "/tmp") != 0)
		want_push(&w, &n, OP_TMPFS, NULL, xstrdup(home),
		          xasprintf("mode=0700,size=%lld,nr_inodes=%lld", tsz, TMPFS_INODES(tsz)),
		          A_BIND, true);
	char **own = grants_own(wd, p->read_write);

	if (want_workdir(s, wd, &w, &n, errstr) < 0 ||
	    (is_linked && want_linked(s, &linked, &w, &n, errstr) < 0) ||
	    (!is_linked && want_gitdir_inside(s, wd, &w, &n, errstr) < 0) ||
	    want_home(p->home, home, budget, own, &w, &n, errstr) < 0 ||
	    want_grants(p->read_only, A_RO, home, budget, own, &w, &n, errstr) < 0 ||
	    want_grants(p->read_write, A_BIND, home, rw_budget, own, &w, &n, errstr) < 0 ||
	    want_grants(s->binds, A_RO, home, budget, own, &w, &n, errstr) < 0)
		goto out;
	wants_drop_hidden(w, &n);
	wants_emit(pl, w, n);
	rc = 0;
out:
	strv_free(own);
	gitdir_linked_clear(&linked);
	wants_free(w, n);
	return rc;
}

/* Workdirs refused outright: the system's own directories (writable, a root
 * caller's sandbox would change the host's programs or configuration;
 * /etc holds shadow, /proc and /sys the kernel's knobs). */
static const char *const sys_workdirs[] = {
	"/etc",      "/proc",     "/sys",          "/boot",    "/run",
	"/bin",      "/sbin",     "/lib",          "/lib32",   "/lib64",   "/libx32",
	"/usr/bin",  "/usr/sbin", "/usr/lib",      "/usr/lib32", "/usr/lib64", "/usr/libexec",
	"/usr/share", "/usr/include", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib",
	"/var/lib",  "/var/log",  "/var/spool",
};
/* ... and these, though not what lies below them (/var/www/site, and
 * /dev/shm, a tmpfs, are fine). */
static const char *const sys_workdirs_exact[] = {"/usr", "/usr/local", "/var", "/dev"};
/* Shared scratch directories, refused as workdirs themselves (a directory
 * below one is fine): other programs keep their live sockets and shared
 * memory there (tmux, ssh-agent, X11, shm segments), and a readonly call
 * could connect to a tmux server there and have it run anything outside
 * the sandbox. /tmp would also fall under the stage the root is built on. */
static const char *const shared_workdirs_exact[] = {"/tmp", "/var/tmp", "/dev/shm"};

/* The homes whose secrets no workdir may contain: $HOME as given and the
 * account's own (passwd), each resolved. Resolved once per home string:
 * a gate plans a sandbox per call, and passwd and realpath cost syscalls. */
static pthread_mutex_t homes_lock = PTHREAD_MUTEX_INITIALIZER;
static char *homes_for; /* the home they were resolved for; owned */
static char homes_real[2][PATH_MAX];

static void homes_resolve(const char *home)
{
	char buf[4096];
	struct passwd pw, *p = NULL;
	const char *h[2] = {home, NULL};

	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &p) == 0 && p && p->pw_dir)
		h[1] = p->pw_dir;
	for (int i = 0; i < 2; i++)
		if (!h[i] || h[i][0] != '/' || !realpath(h[i], homes_real[i]))
			snprintf(homes_real[i], PATH_MAX, "%s", h[i] && h[i][0] == '/' ? h[i] : "");
	free(homes_for);
	homes_for = xstrdup(home ? home : "");
}

/* 0, or -1 with *errstr when wd is a system directory or contains a home. */
static int workdir_allowed(const char *wd, const char *home, char **errstr)
{
	bool sys = false;
	int rc = 0;

	for (size_t i = 0; i < nitems(sys_workdirs); i++)
		sys |= path_contains(sys_workdirs[i], wd);
	for (size_t i = 0; i < nitems(sys_workdirs_exact); i++)
		sys |= strcmp(sys_workdirs_exact[i], wd) == 0;
	if (sys) {
		*errstr = xasprintf("workdir %s is a system directory: run from a project directory",
		                    wd);
		return -1;
	}
	for (size_t i = 0; i < nitems(shared_workdirs_exact); i++)
		if (strcmp(shared_workdirs_exact[i], wd) == 0) {
			*errstr = xasprintf("workdir %s is a shared scratch directory (other "
			                    "programs' sockets and shared memory live there): run "
			                    "from a project directory, or a directory below it",
			                    wd);
			return -1;
		}
	pthread_mutex_lock(&homes_lock);
	if (homes_for == NULL || strcmp(homes_for, home ? home : "") != 0)
		homes_resolve(home);
	for (int i = 0; rc == 0 && i < 2; i++)
		if (homes_real[i][0] && path_contains(wd, homes_real[i])) {
			*errstr = xasprintf("workdir %s contains the home %s, whose secrets the "
			                    "sandbox hides: run from a project directory",
			                    wd, homes_real[i]);
			rc = -1;
		}
	pthread_mutex_unlock(&homes_lock);
	return rc;
}

int exec_workdir_check(const char *wd, char **errstr)
{
	const char *home = getenv("HOME");
	char real[PATH_MAX];

	if (!realpath(wd, real)) {
		*errstr = xasprintf("workdir %s: %s", wd, strerror(errno));
		return -1;
	}
	return workdir_allowed(real, home && home[0] == '/' ? home : NULL, errstr);
}

const char *mounts_home(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/' && h[1] != '\0')
		return h;
	return geteuid() == 0 ? "/root" : "/nonexistent-home";
}

int mounts_plan(const struct exec_spec *s, const char *home, bool host_root, struct sbx_plan *pl,
                char **errstr)
{
	char wd[PATH_MAX];

	memset(pl, 0, sizeof(*pl));
	if (!s->workdir || !realpath(s->workdir, wd)) {
		*errstr = xasprintf("workdir %s: %s", s->workdir ? s->workdir : "(none)",
		                    s->workdir ? strerror(errno) : "not given");
		return -1;
	}
	if (workdir_allowed(wd, home, errstr) < 0)
		return -1;
	pl->workdir = xstrdup(wd);
	pl->home = xstrdup(home);
	plan_system_cached(pl);
	plan_dev_proc(pl, s->profile->tmp_size > 0 ? s->profile->tmp_size : 64LL << 20, host_root);
	if (plan_dynamic(s, wd, home, pl, errstr) < 0)
		goto fail;
	if (pl->n > SBX_MAX_OPS) {
		*errstr = xasprintf("sandbox: %zu mounts planned, more than %d: grant fewer paths",
		                    pl->n, SBX_MAX_OPS);
		goto fail;
	}
	return 0;
fail:
	mounts_plan_clear(pl);
	return -1;
}

/* Ops that make a mount, and those whose source is a host directory (so
 * that what is mounted under it sits on a host entry). */
static bool op_mounts(enum sbx_op_kind k)
{
	return k == OP_BIND || k == OP_REBIND || k == OP_TMPFS || k == OP_PROC || k == OP_DEVPTS ||
	       k == OP_OVERLAY || k == OP_COVER;
}

static bool op_shows_host(enum sbx_op_kind k)
{
	return k == OP_BIND || k == OP_REBIND || k == OP_OVERLAY;
}

void mounts_mark_host(struct sbx_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct sbx_op *op = &pl->ops[i];
		op->on_host = false;
		for (size_t j = 0; j < i && op_mounts(op->kind) && !op->on_host; j++)
			op->on_host = op_shows_host(pl->ops[j].kind) &&
			              strcmp(pl->ops[j].dst, op->dst) != 0 &&
			              path_contains(pl->ops[j].dst, op->dst);
	}
}

char *mounts_masked(const struct sbx_plan *pl)
{
	const size_t stage = strlen(SBX_STAGE), wl = pl->workdir ? strlen(pl->workdir) : 0;
	struct buf b;
	size_t n = 0;

	buf_init(&b, 0);
	for (size_t i = 0; wl && i < pl->n; i++) {
		const struct sbx_op *op = &pl->ops[i];
		const char *in = op->dst + stage;
		if (op->kind != OP_BIND || !op->src || strcmp(op->src, MASK_SRC) != 0 ||
		    strcmp(in, pl->workdir) == 0 || !path_contains(pl->workdir, in))
			continue; /* not a mask in the workdir (/dev/null itself is bound so) */
		if (n++ < 3)
			buf_printf(&b, "%s%s", n > 1 ? ", " : "", in + wl + 1);
	}
	if (n > 3)
		buf_printf(&b, " and %zu more", n - 3);
	if (n == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b, NULL);
}

void mounts_plan_clear(struct sbx_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->ops[i].src);
		free(pl->ops[i].dst);
		free(pl->ops[i].data);
	}
	free(pl->ops);
	free(pl->workdir);
	free(pl->home);
	memset(pl, 0, sizeof(*pl));
}

void mounts_plan_copy(struct sbx_plan *dst, const struct sbx_plan *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->ops = xcalloc(src->n ? src->n : 1, sizeof(*dst->ops));
	dst->n = dst->alloc = src->n;
	for (size_t i = 0; i < src->n; i++)
		op_copy(&dst->ops[i], &src->ops[i]);
	dst->workdir = dup_or_null(src->workdir);
	dst->home = dup_or_null(src->home);
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool mounts_plan_same(const struct sbx_plan *a, const struct sbx_plan *b)
{
	if (a->n != b->n || !str_same(a->workdir, b->workdir) || !str_same(a->home, b->home))
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct sbx_op *x = &a->ops[i], *y = &b->ops[i];
		if (x->kind != y->kind || x->attr_set != y->attr_set || x->len != y->len ||
		    !str_same(x->src, y->src) || !str_same(x->dst, y->dst))
			return false;
		/* data is a string, or a file's len bytes (which may hold NULs) */
		if (op_has_bytes(x->kind) ? x->len && memcmp(x->data, y->data, x->len) != 0
		                       : !str_same(x->data, y->data))
			return false;
	}
	return true;
}

/* ---- child side: syscalls only ----------------------------------------- */

/* Writes "/proc/self/fd/N" into b (at least 32 bytes). */
static char *fd_path(char *b, int fd)
{
	memcpy(b, "/proc/self/fd/", 14);
	sbx_utoa(b + 14, (unsigned)fd);
	return b;
}

static int open_src(const char *path)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* Opens the sources of binds and overlays into fd[i] (lower, upper,
 * work): on the child's stack, as the plan may be shared by other calls. */
static int open_sources(const struct sbx_plan *pl, int (*fd)[3], struct sbx_report *r)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct sbx_op *op = &pl->ops[i];
		fd[i][0] = fd[i][1] = fd[i][2] = -1;
		if (op->kind != OP_BIND && op->kind != OP_OVERLAY)
			continue;
		fd[i][0] = open_src(op->src);
		if (fd[i][0] < 0)
			goto fail;
		if (op->kind == OP_OVERLAY) {
			char b[PATH_MAX];
			size_t n = strlen(op->data);
			if (n + 7 > sizeof(b))
				goto fail;
			memcpy(b, op->data, n);
			memcpy(b + n, "/upper", 7);
			fd[i][1] = open_src(b);
			memcpy(b + n, "/work", 6);
			fd[i][2] = open_src(b);
			if (fd[i][1] < 0 || fd[i][2] < 0)
				goto fail;
		}
		continue;
	fail:
		sbx_report_fail(r, STEP_OPEN_SOURCE, errno, op->src);
		return -1;
	}
	return 0;
}

/* MOUNT_ATTR_* bits as mount(2) flags, for mounts made in one call. */
static unsigned long ms_flags(unsigned attr)
{
	static const struct {
		unsigned attr;
		unsigned long ms;
	} map[] = {{MOUNT_ATTR_RDONLY, MS_RDONLY},
	           {MOUNT_ATTR_NOSUID, MS_NOSUID},
	           {MOUNT_ATTR_NODEV, MS_NODEV},
	           {MOUNT_ATTR_NOEXEC, MS_NOEXEC}};
	unsigned long f = 0;

	for (size_t i = 0; i < nitems(map); i++)
		if (attr & map[i].attr)
			f |= map[i].ms;
	return f;
}

static int set_attr(const char *dst, unsigned attr, bool recursive)
{
	struct mount_attr a = {.attr_set = attr, .propagation = MS_PRIVATE};
	return mount_setattr(AT_FDCWD, dst, recursive ? AT_RECURSIVE : 0, &a, sizeof(a));
}

static int do_overlay(const struct sbx_op *op, const int fd[3])
{
	char opts[256], a[32], b[32], c[32];
	size_t k = 0;
	const char *parts[] = {"lowerdir=", fd_path(a, fd[0]),  ",upperdir=", fd_path(b, fd[1]),
	                       ",workdir=", fd_path(c, fd[2]), ",userxattr"};

	for (size_t i = 0; i < nitems(parts); i++) {
		size_t n = strlen(parts[i]);
		memcpy(opts + k, parts[i], n);
		k += n;
	}
	opts[k] = '\0';
	return mount("overlay", op->dst, "overlay", MS_NOSUID | MS_NODEV, opts);
}

/* Creates dst with exactly these bytes; -1 with errno. */
static int write_file_whole(const char *dst, const char *data, size_t len)
{
	int fd = open(dst, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

/* Covers the host file at op->dst with op's bytes, read-only: a file
 * written in the stage (its root, which is never a host directory), bound
 * over it and unlinked, so that the new root does not show it twice. */
static int cover(const struct sbx_op *op)
{
	static const char tmp[] = SBX_STAGE "/.airlock-cover";
	int e;

	if (write_file_whole(tmp, op->data, op->len) < 0)
		return -1;
	if (mount(tmp, op->dst, NULL, MS_BIND, NULL) < 0 || set_attr(op->dst, op->attr_set, false) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return unlink(tmp);
}

/* Runs one op with its opened sources; -1 with errno. */
static int op_run(const struct sbx_op *op, const int src[3])
{
	char fdp[32];
	int fd;

	switch (op->kind) {
	case OP_MKDIR:
		return mkdir(op->dst, 0755) < 0 && errno != EEXIST ? -1 : 0;
	case OP_MKFILE:
		fd = open(op->dst, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			return -1;
		return fd >= 0 ? close(fd) : 0;
	case OP_SYMLINK:
		return symlink(op->src, op->dst);
	case OP_FILE:
		return write_file_whole(op->dst, op->data, op->len);
	case OP_TMPFS:
		return mount("tmpfs", op->dst, "tmpfs", ms_flags(op->attr_set) | MS_NOSUID | MS_NODEV,
		             op->data);
	case OP_PROC:
		return mount("proc", op->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	case OP_DEVPTS:
		return mount("devpts", op->dst, "devpts", MS_NOSUID | MS_NOEXEC, op->data);
	case OP_BIND:
		if (mount(fd_path(fdp, src[0]), op->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
			return -1;
		return set_attr(op->dst, op->attr_set, true);
	case OP_REBIND:
		if (mount(op->dst, op->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
			return errno == ENOENT ? 0 : -1; /* absent: nothing to protect */
		return set_attr(op->dst, op->attr_set, true);
	case OP_OVERLAY:
		return do_overlay(op, src);
	case OP_SETATTR:
		return set_attr(op->dst, op->attr_set, false);
	case OP_COVER:
		return cover(op);
	}
	errno = EINVAL; /* fail safe: an unknown op never passes */
	return -1;
}

/* New tmpfs, proc and devpts mounts get their flags at mount time and are
 * private already (their parent, the stage, is private): only the overlay
 * needs a second call. */
static int op_attr(const struct sbx_op *op)
{
	if (op->kind == OP_OVERLAY)
		return set_attr(op->dst, op->attr_set, false);
	return 0;
}

int mounts_check_attached(const struct sbx_plan *pl, struct sbx_report *r)
{
	const size_t stage = strlen(SBX_STAGE);

	for (size_t i = 0; i < pl->n; i++) {
		const struct sbx_op *op = &pl->ops[i];
		const char *in = op->dst + stage;
		struct statx sx;
		if (!op->on_host)
			continue;
		if (statx(AT_FDCWD, in[0] ? in : "/", AT_SYMLINK_NOFOLLOW, 0, &sx) < 0) {
			if (errno == ENOENT)
				continue; /* gone on the host: nothing shows there */
			sbx_report_fail(r, STEP_MOUNT, errno, in);
			return -1;
		}
		/* a kernel that cannot say is treated as detached (fail safe) */
		if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
		    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
			sbx_report_fail(r, STEP_MOUNT, ESTALE, in);
			return -1;
		}
	}
	return 0;
}

int mounts_apply(const struct sbx_plan *pl, struct sbx_report *r)
{
	int fd[SBX_MAX_OPS][3]; /* 24 KiB of the child's 128 KiB stack */

	if (open_sources(pl, fd, r) < 0)
		return -1;
	/* No recursive MS_PRIVATE over the host's tree: a user namespace's copy
	 * of it is already slave (nothing propagates out), every mount made
	 * here is set private, and pivot_root refuses a shared root (fail
	 * closed). That walk costs time per host mount. */
	if (mount("tmpfs", SBX_STAGE, "tmpfs", MS_NOSUID | MS_NODEV,
	          "mode=0755,size=1m,nr_inodes=4096") < 0 ||
	    set_attr(SBX_STAGE, A_BIND, false) < 0) {
		sbx_report_fail(r, STEP_MOUNT, errno, SBX_STAGE);
		return -1;
	}
	for (size_t i = 0; i < pl->n; i++) {
		if (op_run(&pl->ops[i], fd[i]) < 0 || op_attr(&pl->ops[i]) < 0) {
			sbx_report_fail(r, STEP_MOUNT, errno, pl->ops[i].dst);
			return -1;
		}
	}
	if (chdir(SBX_STAGE) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		sbx_report_fail(r, STEP_PIVOT, errno, SBX_STAGE);
		return -1;
	}
	if (set_attr("/", A_RO, false) < 0) {
		sbx_report_fail(r, STEP_MOUNT, errno, "/ (read-only)");
		return -1;
	}
	if (chdir(pl->workdir) < 0) {
		sbx_report_fail(r, STEP_CHDIR, errno, pl->workdir);
		return -1;
	}
	return 0;
}
