/*
 * limits.c: the resource caps of a call: rlimits (memory, CPU, file size,
 * open files, processes, core 0) and a pids cgroup, because RLIMIT_NPROC
 * does not bind a caller whose uid is root on the host. Rules: a root
 * caller with a process cap and no writable pids cgroup fails closed; the
 * cgroup is created per call, joined by the child before it forks, and
 * removed after the pid namespace is gone.
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
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

#define NOFILE_DEFAULT 1024

void limits_from_profile(const struct profile *p, struct sbx_limits *l)
{
	const struct {
		int res;
		long long v;
		long long slack; /* hard = soft + slack: SIGXCPU before SIGKILL */
	} rows[] = {
	        {RLIMIT_AS, p->memory, 0},          {RLIMIT_CPU, p->cpu, 1},
	        {RLIMIT_FSIZE, p->file_size, 0},    {RLIMIT_NPROC, p->processes, 0},
	        {RLIMIT_NOFILE, NOFILE_DEFAULT, 0}, {RLIMIT_CORE, 0, 0},
	};

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < nitems(rows) && l->n < LIMITS_MAX; i++) {
		if (rows[i].v <= 0 && rows[i].res != RLIMIT_CORE)
			continue;
		l->res[l->n] = rows[i].res;
		l->rl[l->n].rlim_cur = (rlim_t)rows[i].v;
		l->rl[l->n].rlim_max = (rlim_t)(rows[i].v + rows[i].slack);
		l->n++;
	}
}

int limits_apply(const struct sbx_limits *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct rlimit cur, want = l->rl[i];
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

struct sbx_cgroup {
	char *dir;
	int procs;        /* this call's cgroup.procs: the first process joins it */
	int parent_procs; /* the caller's: init leaves through it when done */
};

/* The pids hierarchy root and our own cgroup in it, v1 then v2. */
static char *pids_base(void)
{
	static const struct {
		const char *root, *probe, *key;
	} rows[] = {
	        {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/pids/cgroup.procs", "pids"},
	        {"/sys/fs/cgroup", "/sys/fs/cgroup/cgroup.subtree_control", ""},
	};
	char line[512];
	char *found = NULL;

	for (size_t i = 0; i < nitems(rows) && !found; i++) {
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

int cgroup_create(long long max, bool required, struct sbx_cgroup **out, char **errstr)
{
	char *base = max > 0 ? pids_base() : NULL, val[32], *procs = NULL;
	struct sbx_cgroup *cg = NULL;
	int rc = -1;

	*out = NULL;
	cgroup_sweep();
	if (!base) {
		if (!required || max <= 0)
			return 0;
		*errstr = xstrdup("no writable pids cgroup: a root caller's process cap needs one "
		                  "(RLIMIT_NPROC does not bind root); mount the pids controller "
		                  "(cgroup v1 /sys/fs/cgroup/pids or v2 with +pids) writable");
		return -1;
	}
	cg = xcalloc(1, sizeof(*cg));
	cg->procs = cg->parent_procs = -1;
	cg->dir = xasprintf("%s/airlock-%d-%u", base, (int)getpid(), atomic_fetch_add(&cg_seq, 1));
	snprintf(val, sizeof(val), "%lld", max);
	if (mkdir(cg->dir, 0700) < 0 && errno != EEXIST) {
		*errstr = xasprintf("pids cgroup %s: cannot create: %s", cg->dir, strerror(errno));
		goto out;
	}
	procs = xasprintf("%s/cgroup.procs", cg->dir);
	if (write_file(cg->dir, "pids.max", val) < 0 ||
	    (cg->procs = fd_high(open(procs, O_WRONLY | O_CLOEXEC))) < 0) {
		*errstr = xasprintf("pids cgroup %s: cannot set pids.max: %s", cg->dir,
		                    strerror(errno));
		goto out;
	}
	free(procs);
	procs = xasprintf("%s/cgroup.procs", base);
	cg->parent_procs = fd_high(open(procs, O_WRONLY | O_CLOEXEC)); /* optional */
	*out = cg;
	cg = NULL;
	rc = 0;
out:
	cgroup_destroy(cg);
	free(procs);
	free(base);
	return rc;
}

int cgroup_procs_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->procs : -1;
}

int cgroup_parent_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->parent_procs : -1;
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

void cgroup_destroy(struct sbx_cgroup *cg)
{
	if (!cg)
		return;
	if (cg->procs >= 0)
		close(cg->procs);
	if (cg->parent_procs >= 0)
		close(cg->parent_procs);
	/* the sandbox's init may still be exiting (it reports done first):
	 * queue the directory instead of waiting for it */
	if (rmdir(cg->dir) < 0 && errno == EBUSY) {
		pthread_mutex_lock(&stale_lock);
		if (nstale < nitems(stale)) {
			stale[nstale++] = cg->dir;
			cg->dir = NULL;
		}
		pthread_mutex_unlock(&stale_lock);
		for (int i = 0; cg->dir && i < 100 && rmdir(cg->dir) < 0 && errno == EBUSY; i++)
			usleep(200); /* queue full: wait, bounded */
	}
	free(cg->dir);
	free(cg);
}

void cgroup_sweep_orphans(void)
{
	char *base = pids_base(), *path;
	struct dirent *e;
	DIR *d = base ? opendir(base) : NULL;

	while (d && (e = readdir(d)) != NULL) {
		int pid;
		unsigned seq;
		char end;
		if (sscanf(e->d_name, "airlock-%d-%u%c", &pid, &seq, &end) != 2 || pid <= 0 ||
		    pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", base, e->d_name);
		(void)rmdir(path); /* refused while a task is still in it */
		free(path);
	}
	if (d)
		closedir(d);
	free(base);
}

void cgroup_release_all(void)
{
	for (int i = 0; i < 100; i++) {
		cgroup_sweep();
		pthread_mutex_lock(&stale_lock);
		size_t left = nstale;
		pthread_mutex_unlock(&stale_lock);
		if (left == 0)
			return;
		usleep(500);
	}
}
