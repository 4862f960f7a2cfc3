/*
 * limits.c: the resource caps of a call: rlimits (memory, CPU, file size,
 * open files, processes, core 0, pending signals, message queues, locked
 * memory) and a
 * pids cgroup, because RLIMIT_NPROC does not bind a caller whose uid is
 * root on the host; where writable, a memory cgroup caps the whole tree's
 * memory as well; and the user namespace's own caps on what the kernel
 * counts per user (inotify, fanotify). Rules: a root caller with a process
 * cap and no writable pids cgroup fails closed; the cgroups are created per
 * call, joined by the child before it forks, and removed after the pid
 * namespace is gone; what the kernel counts per user across namespaces
 * gets a quarter of the caller's, so the host keeps the rest.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

#define NOFILE_DEFAULT 1024
#define SHARED_UNBOUNDED 16384 /* the share of a caller with no limit */

/*
 * A quarter of the caller's soft limit of res. Pending signals, POSIX
 * message queue bytes and locked shared memory are counted per user across
 * user namespaces, and bounded only by the caller's own limit: a readonly
 * call queued all 96,360 signals root may have pending, and while it ran
 * the host's sigqueue() and timer_create() failed with EAGAIN; one run by
 * nobody locked all 8 MiB of SysV shared memory the uid may lock
 * (SHM_LOCK), and the host's failed with ENOMEM (reproduced on 5a0a230,
 * tests/e2e/126-sandbox-review11.sh). The sandbox gets a quarter; the rest
 * stays the host's.
 */
static long long caller_share(int res)
{
	struct rlimit r;

	if (getrlimit(res, &r) < 0 || r.rlim_cur == RLIM_INFINITY)
		return SHARED_UNBOUNDED;
	return r.rlim_cur / 4 > 0 ? (long long)(r.rlim_cur / 4) : 1;
}

/*
 * RLIMIT_CORE of every sandboxed process: 1 byte, not 0. A core_pattern that
 * pipes to a helper (`|/usr/share/apport/apport ...`, systemd-coredump)
 * makes the kernel run that helper as root on the host, outside the
 * sandbox and its caps, for every crash, whatever RLIMIT_CORE says, except
 * 1: fs/coredump.c keeps that value to stop a crashing helper's recursion
 * ("RLIMIT_CORE is set to 1, aborting core"). Under 0, as before, apport
 * is still run, reads the core from the pipe and writes a report for a
 * packaged binary into the host's /var/crash, and a crash loop starts a
 * root helper per crash that no pids or memory cap of the call bounds. One
 * byte is also below any binary format's smallest core, so no core file is
 * written either. The seccomp filter keeps the command from changing it
 * (seccomp.c). A core_pattern that names a socket (`@`, Linux 6.16) is not
 * stopped by any limit: its server reads the limit from the process.
 */
#define CORE_SENTINEL 1

int limits_core_pin(void)
{
	struct rlimit cur, want = {CORE_SENTINEL, CORE_SENTINEL};

	/* a caller whose hard limit is 0 cannot give 1: 0 is the best left */
	if (getrlimit(RLIMIT_CORE, &cur) == 0 && cur.rlim_max < CORE_SENTINEL)
		want.rlim_cur = want.rlim_max = 0;
	return setrlimit(RLIMIT_CORE, &want);
}

void limits_from_profile(const struct profile *p, struct sbx_limits *l)
{
	const struct {
		int res;
		long long v;
		long long slack; /* hard = soft + slack: SIGXCPU before SIGKILL */
	} rows[] = {
	        {RLIMIT_AS, p->memory, 0},
	        {RLIMIT_CPU, p->cpu, 1},
	        {RLIMIT_FSIZE, p->file_size, 0},
	        {RLIMIT_NPROC, p->processes, 0},
	        {RLIMIT_NOFILE, NOFILE_DEFAULT, 0},
	        {RLIMIT_CORE, CORE_SENTINEL, 0},
	        {RLIMIT_SIGPENDING, caller_share(RLIMIT_SIGPENDING), 0},
	        {RLIMIT_MSGQUEUE, caller_share(RLIMIT_MSGQUEUE), 0},
	        {RLIMIT_MEMLOCK, caller_share(RLIMIT_MEMLOCK), 0},
	};

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < nitems(rows) && l->n < LIMITS_MAX; i++) {
		if (rows[i].v <= 0)
			continue;
		l->res[l->n] = rows[i].res;
		l->rl[l->n].rlim_cur = (rlim_t)rows[i].v;
		l->rl[l->n].rlim_max = (rlim_t)(rows[i].v + rows[i].slack);
		l->n++;
	}
}

int limits_apply(const struct sbx_limits *l, bool tree_capped)
{
	for (size_t i = 0; i < l->n; i++) {
		struct rlimit cur, want = l->rl[i];
		/* a memory cgroup caps what the tree uses; address space is no
		 * measure of that, and a JVM, ASan or a wasm runtime reserves far
		 * more than it touches (they failed under 2 GiB of it) */
		if (tree_capped && l->res[i] == RLIMIT_AS)
			continue;
		/* never raise a limit the caller already had lower */
		if (getrlimit(l->res[i], &cur) == 0 && cur.rlim_max != RLIM_INFINITY &&
		    want.rlim_max > cur.rlim_max) {
			want.rlim_max = cur.rlim_max;
			if (want.rlim_cur > want.rlim_max)
				want.rlim_cur = want.rlim_max;
		}
		if (setrlimit(l->res[i], &want) < 0)
			return -1;
	}
	return 0;
}

/*
 * The kernel counts inotify and fanotify objects per user across user
 * namespaces, and checks each namespace's own cap on the way up: with
 * none set in the sandbox's (its default is INT_MAX), a readonly call
 * took all 128 inotify instances and all 192,536 watches of the caller's
 * uid, and the host's editors, file managers and the gate's own search
 * could make none while it ran (reproduced on 5a0a230,
 * tests/e2e/126-sandbox-review11.sh). The sandbox's namespace is capped at
 * a quarter of what the caller's allows (the smaller of the host-wide
 * fs.inotify figure and the caller's namespace's), so the rest stays the
 * host's. New user namespaces, which seccomp refuses already, are capped
 * at 0 as well: a second lock on nesting one to regain capabilities.
 * Written by the first process while it holds CAP_SYS_RESOURCE in its
 * namespace; the command, without it, reads them only.
 */
static struct userns_cap {
	const char *path;   /* in /proc/sys/user: the sandbox namespace's own */
	const char *host;   /* the host-wide figure, or NULL */
	long long fallback; /* when neither can be read */
	int share;          /* a 1/share part of the caller's; 0: capped at 0 */
	char val[24];       /* what the child writes; "" when absent here */
} userns_caps[] = {
        {"/proc/sys/user/max_inotify_instances", "/proc/sys/fs/inotify/max_user_instances",
         128, 4, ""},
        {"/proc/sys/user/max_inotify_watches", "/proc/sys/fs/inotify/max_user_watches", 8192,
         4, ""},
        {"/proc/sys/user/max_fanotify_groups", "/proc/sys/fs/fanotify/max_user_groups", 128,
         4, ""},
        {"/proc/sys/user/max_fanotify_marks", "/proc/sys/fs/fanotify/max_user_marks", 8192, 4,
         ""},
        {"/proc/sys/user/max_user_namespaces", NULL, 0, 0, ""},
};

/* A figure from a /proc/sys file, or -1. */
static long long sysctl_read(const char *path)
{
	char b[32];
	long long v = -1;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		char *end;
		b[n] = '\0';
		errno = 0;
		v = strtoll(b, &end, 10);
		if (errno || end == b || v < 0)
			v = -1;
	}
	return v;
}

static pthread_once_t userns_once = PTHREAD_ONCE_INIT;

/* The initial user namespace's fixed inode number (the kernel's
 * PROC_USER_INIT_INO): no other namespace has it. */
#define USERNS_INIT_INO 0xEFFFFFFDU

/* True when this process is in the initial user namespace, whose
 * /proc/sys/user figures are the host-wide fs.inotify and fs.fanotify
 * ones (the kernel backs both with init_user_ns's ucount_max[]): each
 * read costs an open of a /proc/sys file, ~12 us here. */
static bool userns_initial(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 && st.st_ino == USERNS_INIT_INO;
}

static void userns_caps_read(void)
{
	bool initial = userns_initial();

	for (size_t i = 0; i < nitems(userns_caps); i++) {
		struct userns_cap *c = &userns_caps[i];
		long long own = sysctl_read(c->path), v;
		long long host = initial && own >= 0 ? own : sysctl_read(c->host);

		if (own < 0 && access(c->path, F_OK) < 0)
			continue; /* the kernel has no such count: nothing to cap */
		if (c->share == 0) {
			v = 0;
		} else {
			v = own >= 0 && (host < 0 || own < host) ? own : host;
			v = (v < 0 ? c->fallback : v) / c->share;
			if (v < 1)
				v = 1;
		}
		snprintf(c->val, sizeof(c->val), "%lld", v);
	}
}

void limits_userns_prepare(void)
{
	pthread_once(&userns_once, userns_caps_read);
}

int limits_userns_apply(const char **failed)
{
	for (size_t i = 0; i < nitems(userns_caps); i++) {
		const struct userns_cap *c = &userns_caps[i];
		size_t n = strlen(c->val);
		int fd, ok;

		if (n == 0)
			continue;
		if ((fd = open(c->path, O_WRONLY | O_CLOEXEC)) < 0) {
			*failed = c->path;
			return -1;
		}
		ok = write(fd, c->val, n) == (ssize_t)n;
		close(fd);
		if (!ok) {
			*failed = c->path;
			return -1;
		}
	}
	return 0;
}

struct sbx_cgroup {
	char *dir;        /* pids */
	char *mem_dir;    /* memory (v1), or NULL */
	int procs;        /* join_fd() of this call's cgroup: the first process joins it */
	int parent_procs; /* the caller's: init leaves through it when done */
	int mem_procs;    /* join_fd() of the memory cgroup, or -1 */
	int mem_parent;   /* join_fd() of the caller's memory cgroup, or -1 */
	bool mem_capped;  /* a memory limit holds the tree (v1 or v2) */
};

/* Where a controller's hierarchy is mounted (v1), or the unified one (v2):
 * the file that must be writable, and the controller's name in
 * /proc/self/cgroup ("" for v2). */
struct cg_row {
	const char *root, *probe, *key;
};
static const struct cg_row pids_rows[] = {
        {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/pids/cgroup.procs", "pids"},
        {"/sys/fs/cgroup", "/sys/fs/cgroup/cgroup.subtree_control", ""},
};
/* v2 needs no row: its memory.max sits in the pids cgroup itself */
static const struct cg_row memory_rows[] = {
        {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/memory/cgroup.procs", "memory"},
};

/* The first hierarchy of rows that is writable, with our own cgroup in it. */
static char *cg_base(const struct cg_row *rows, size_t nrows)
{
	char line[512];
	char *found = NULL;

	for (size_t i = 0; i < nrows && !found; i++) {
		if (access(rows[i].probe, W_OK) < 0)
			continue;
		FILE *f = fopen("/proc/self/cgroup", "re");
		while (f && !found && fgets(line, sizeof(line), f)) {
			/* "8:pids:/a/b" (v1) or "0::/a/b" (v2) */
			char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c2)
				continue;
			*c2 = '\0';
			c2[1 + strcspn(c2 + 1, "\n")] = '\0';
			if (strcmp(c1 + 1, rows[i].key) == 0)
				found = xasprintf("%s%s", rows[i].root,
				                  strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
		}
		if (f)
			fclose(f);
	}
	return found;
}

static char *pids_base(void)
{
	return cg_base(pids_rows, nitems(pids_rows));
}

static int write_file(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX];
	int fd, rc = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val))
		rc = 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

static atomic_uint cg_seq;
static void cgroup_sweep(void);

static pthread_once_t pidns_once = PTHREAD_ONCE_INIT;
static unsigned long pidns_ino; /* 0: unknown */

static void pidns_read(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == 0)
		pidns_ino = (unsigned long)st.st_ino;
}

/* Our pid namespace, in the names of the cgroups we make: two airlocks in
 * two pid namespaces (containers, CI jobs under `unshare -p`) may have one
 * pid and one cgroup hierarchy, and a name of pid and sequence alone made
 * them share a cgroup: the later one's pids.max held for both (a call
 * capped at 64 processes ran 150 beside one allowed 4096), and a sweep in
 * one namespace, where that pid was gone, removed the other's cgroup
 * before its first process joined. */
static unsigned long pidns_id(void)
{
	pthread_once(&pidns_once, pidns_read);
	return pidns_ino;
}

/* Moves fd to 10 or above, clear of the numbers the child dup2()s onto. */
static int fd_high(int fd)
{
	int h;

	if (fd < 0 || fd >= 10)
		return fd;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd);
	return h;
}

/* Removes a cgroup directory, or queues it while its last task is still
 * exiting (then *dir is taken). */
static void dir_remove_or_queue(char **dir);

static pthread_once_t swap_once = PTHREAD_ONCE_INIT;
static bool swap_none; /* the host has no swap (SwapTotal 0) */

static void swap_read(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kb = -1;

	while (f && kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "SwapTotal: %lld kB", &kb) != 1)
			kb = -1;
	if (f)
		fclose(f);
	swap_none = kb == 0;
}

/* True when a limit on memory alone bounds the tree: its swap was limited
 * too (swap_set), or the host has none. Else RLIMIT_AS stays: a memory
 * bomb over a cgroup that does not account swap went on into the host's
 * swap, with no other bound. */
static bool memory_bounded(bool swap_set)
{
	if (swap_set)
		return true;
	pthread_once(&swap_once, swap_read);
	return swap_none;
}

/*
 * The file a process writes "0" to, to move itself into dir (-1 if none).
 * v1's "tasks" moves the writing thread alone, and the processes that
 * write (the sandbox's first process joining, its init leaving) have one
 * thread each, so it moves the whole process as "cgroup.procs" would. It
 * is preferred because a cgroup.procs write takes the kernel's threadgroup
 * lock for writing, which waits out an RCU grace period: measured here at
 * 0.1 to 0.3 ms a write against 0.02 ms for "tasks", four writes a call.
 * v2 has only cgroup.procs.
 */
static int join_fd(const char *dir)
{
	char *path = xasprintf("%s/tasks", dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		free(path);
		path = xasprintf("%s/cgroup.procs", dir);
		fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	free(path);
	return fd_high(fd);
}

/*
 * The tree's memory cap, where a memory cgroup is writable (a root caller,
 * or a delegated v2 memory controller): RLIMIT_AS bounds each process's
 * address space, not the sum over the tree, nor the tmpfs and memfd pages
 * it holds, which are charged here. Optional, since RLIMIT_AS still holds.
 */
static void memory_add(struct sbx_cgroup *cg, long long max)
{
	char val[32], *base;

	snprintf(val, sizeof(val), "%lld", max);
	if (max <= 0)
		return;
	if (write_file(cg->dir, "memory.max", val) == 0) { /* v2: in place */
		/* no swap beyond it, as v1's memsw: with no RLIMIT_AS besides
		 * (mem_capped), swap would be the tree's only other bound */
		cg->mem_capped = memory_bounded(write_file(cg->dir, "memory.swap.max", "0") == 0);
		return;
	}
	base = cg_base(memory_rows, nitems(memory_rows));
	if (base == NULL)
		return;
	cg->mem_dir = xasprintf("%s%s", base, strrchr(cg->dir, '/'));
	if ((mkdir(cg->mem_dir, 0700) < 0 && errno != EEXIST) ||
	    write_file(cg->mem_dir, "memory.limit_in_bytes", val) < 0 ||
	    (cg->mem_procs = join_fd(cg->mem_dir)) < 0) {
		(void)rmdir(cg->mem_dir);
		free(cg->mem_dir);
		cg->mem_dir = NULL;
	} else {
		/* swap too, where it is accounted (the file exists) */
		cg->mem_capped = memory_bounded(
		        write_file(cg->mem_dir, "memory.memsw.limit_in_bytes", val) == 0);
		cg->mem_parent = join_fd(base); /* optional */
	}
	free(base);
}

int cgroup_create(long long max, long long mem, bool required, struct sbx_cgroup **out,
                  char **errstr)
{
	char *base = max > 0 ? pids_base() : NULL, val[32];
	struct sbx_cgroup *cg = NULL;
	int rc = -1;

	*out = NULL;
	cgroup_sweep();
	if (!base) {
		if (!required || max <= 0)
			return 0;
		if (access("/proc/self/cgroup", R_OK) < 0) /* the likelier cause, then */
			*errstr = xasprintf("cannot read /proc/self/cgroup (%s): mount /proc; a "
			                    "root caller's process cap needs its pids cgroup",
			                    strerror(errno));
		else
			*errstr = xstrdup("no writable pids cgroup: a root caller's process cap "
			                  "needs one (RLIMIT_NPROC does not bind root); mount the "
			                  "pids controller (cgroup v1 /sys/fs/cgroup/pids or v2 "
			                  "with +pids) writable");
		return -1;
	}
	cg = xcalloc(1, sizeof(*cg));
	cg->procs = cg->parent_procs = cg->mem_procs = cg->mem_parent = -1;
	snprintf(val, sizeof(val), "%lld", max);
	for (int tries = 0;; tries++) { /* one of our own, never one that is there */
		cg->dir = xasprintf("%s/airlock-%d-%u-%lx", base, (int)getpid(),
		                    atomic_fetch_add(&cg_seq, 1), pidns_id());
		if (mkdir(cg->dir, 0700) == 0)
			break;
		if (errno != EEXIST || tries == 63) {
			*errstr = xasprintf("pids cgroup %s: cannot create: %s", cg->dir,
			                    strerror(errno));
			goto out;
		}
		free(cg->dir);
	}
	if (write_file(cg->dir, "pids.max", val) < 0 || (cg->procs = join_fd(cg->dir)) < 0) {
		*errstr = xasprintf("pids cgroup %s: cannot set pids.max: %s", cg->dir,
		                    strerror(errno));
		goto out;
	}
	cg->parent_procs = join_fd(base); /* optional */
	memory_add(cg, mem);
	*out = cg;
	cg = NULL;
	rc = 0;
out:
	cgroup_destroy(cg);
	free(base);
	return rc;
}

int cgroup_procs_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->procs : -1;
}

int cgroup_memory_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->mem_procs : -1;
}

bool cgroup_memory_capped(const struct sbx_cgroup *cg)
{
	return cg && cg->mem_capped;
}

int cgroup_parent_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->parent_procs : -1;
}

int cgroup_memory_parent_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->mem_parent : -1;
}

/* Cgroups whose last task was still exiting at destroy: removed later. */
static pthread_mutex_t stale_lock = PTHREAD_MUTEX_INITIALIZER;
static char *stale[32];
static size_t nstale;

/* Removes queued cgroups that have emptied since (never blocks). */
static void cgroup_sweep(void)
{
	pthread_mutex_lock(&stale_lock);
	for (size_t i = 0; i < nstale;) {
		if (rmdir(stale[i]) == 0 || errno != EBUSY) {
			free(stale[i]);
			stale[i] = stale[--nstale];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&stale_lock);
}

static void dir_remove_or_queue(char **dir)
{
	if (*dir == NULL || rmdir(*dir) == 0 || errno != EBUSY)
		return;
	pthread_mutex_lock(&stale_lock);
	if (nstale < nitems(stale)) {
		stale[nstale++] = *dir;
		*dir = NULL;
	}
	pthread_mutex_unlock(&stale_lock);
	for (int i = 0; *dir && i < 100 && rmdir(*dir) < 0 && errno == EBUSY; i++)
		usleep(200); /* queue full: wait, bounded */
}

void cgroup_destroy(struct sbx_cgroup *cg)
{
	if (!cg)
		return;
	if (cg->procs >= 0)
		close(cg->procs);
	if (cg->parent_procs >= 0)
		close(cg->parent_procs);
	if (cg->mem_procs >= 0)
		close(cg->mem_procs);
	if (cg->mem_parent >= 0)
		close(cg->mem_parent);
	/* the sandbox's init may still be exiting (it reports done first):
	 * queue the directories instead of waiting for it */
	dir_remove_or_queue(&cg->dir);
	dir_remove_or_queue(&cg->mem_dir);
	free(cg->dir);
	free(cg->mem_dir);
	free(cg);
}

/* A cgroup of another pid namespace's airlock is removed only this long
 * after it was made: its pid means nothing here. */
#define FOREIGN_AGE 3600

/* True when the cgroup dir/name of another pid namespace is old enough to
 * be an orphan (one just made may not have been joined yet). */
static bool foreign_old(DIR *d, const char *name)
{
	struct stat st;

	return fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_ctime + FOREIGN_AGE < time(NULL);
}

/* Removes the empty airlock-PID-N-NS cgroups under base whose PID is gone
 * (NS ours), or that another pid namespace made an hour ago or more; and
 * those named airlock-PID-N, by an older airlock, whose PID is gone. */
static void sweep_orphans_in(char *base)
{
	char *path;
	struct dirent *e;
	DIR *d = base ? opendir(base) : NULL;

	while (d && (e = readdir(d)) != NULL) {
		int pid = 0, n;
		unsigned seq;
		unsigned long ns = 0;
		char end;
		n = sscanf(e->d_name, "airlock-%d-%u-%lx%c", &pid, &seq, &ns, &end);
		if (n != 3 && sscanf(e->d_name, "airlock-%d-%u%c", &pid, &seq, &end) == 2)
			ns = pidns_id(), n = 3; /* an older airlock's: judged as ours */
		if (n != 3 || pid <= 0)
			continue;
		if (ns != pidns_id() ? !foreign_old(d, e->d_name)
		                     : pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", base, e->d_name);
		(void)rmdir(path); /* refused while a task is still in it */
		free(path);
	}
	if (d)
		closedir(d);
	free(base);
}

void cgroup_sweep_orphans(void)
{
	sweep_orphans_in(pids_base());
	sweep_orphans_in(cg_base(memory_rows, nitems(memory_rows)));
}
