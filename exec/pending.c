/*
 * pending.c: a guarded run's note, kept on disk until its sweep is done.
 * An airlock killed between the two (SIGKILL, the OOM killer, a crash; the
 * sandbox dies with it) never sweeps: what its run planted stays, and the
 * next run's note would take it for the user's own. So exec_run() records
 * the span of change times the run may make (from the note to its
 * deadline, past which the sandbox is dead) in a file named for the
 * workdir and itself, and removes it after the sweep; the next guarded run
 * in that workdir that finds one whose writer is gone first sweeps what
 * changed in that span: not what the user changed after it.
 * Rules: the directory is the user's state directory, which no sandbox
 * sees (its home is empty); a file is another run's while its writer
 * lives (the boot, the pid and its start time: a pid alone is reused,
 * and the clock can move more than the time since the boot), and never
 * acted on then; one that cannot be written leaves the
 * run as it was before there were any (nothing recovered after a kill).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"
#include "core/util.h"
#include "exec/exec_internal.h"


/* What follows "PID (COMM)" in /proc/PID/stat, read into buf (COMM may
 * hold anything, so after the last parenthesis); NULL when there is no
 * such file, with errno. */
static const char *proc_stat_read(long pid, char *buf, size_t size)
{
	char path[64], *paren;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	if (paren == NULL || paren[1] != ' ') {
		errno = EIO;
		return NULL;
	}
	return paren + 2; /* field 3, the state */
}

/* When the process whose stat fields from the third on are f started, in
 * clock ticks since boot (field 22); 0 when unknown. With the pid, it
 * names one process: a pid alone is handed to another once its process
 * is gone. */
static unsigned long long proc_start(const char *f)
{
	unsigned long long start = 0;

	for (int field = 3; f && field < 22; field++)
		if ((f = strchr(f, ' ')) != NULL)
			f++;
	if (f == NULL || sscanf(f, "%llu", &start) != 1)
		return 0;
	return start;
}

/* This process's start (proc_start()). */
static unsigned long long self_start(void)
{
	char buf[1024];

	return proc_start(proc_stat_read((long)getpid(), buf, sizeof(buf)));
}

static char boot_id_text[40] = "-";

static void boot_id_load(void)
{
	char buf[64];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n == 37 && buf[36] == '\n') {
		memcpy(boot_id_text, buf, 36);
		boot_id_text[36] = '\0';
	}
}

/* This boot's id (/proc/sys/kernel/random/boot_id, 36 characters), or
 * "-" when unknown: a record holds it, as a process is its pid and start
 * time only within one boot. */
static const char *boot_id(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, boot_id_load);
	return boot_id_text;
}

/* Writes the record for wd's span to path (made, or rewritten in place:
 * written over, then cut to its length, so that the file keeps its block
 * and an unchanged length changes nothing); -1 when it cannot. A kill
 * half-way leaves a record that does not parse (its old text's tail, or
 * the mark pending_end() leaves), which is read as none: safe, as no
 * command has started by then. */
static int record_write(const char *path, const char *wd, const struct guard_span *span)
{
	char *text = xasprintf("%lld %lld %llu %s\n%s\n", (long long)span->since.tv_sec,
	                       (long long)span->until, self_start(), boot_id(), wd);
	size_t n = strlen(text);
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), rc = 0;

	if (fd < 0 || pwrite(fd, text, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0)
		rc = -1;
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}

/*
 * A finished record's file is kept as dir/SPARE for the next record,
 * renamed, not unlinked and made again: on ext4 a file made where files
 * were recently deleted scans the inode table for a free inode, and the
 * unlink and create of every call cost a tenth of `airlock exec -- true`
 * (perf: recently_deleted() in ext4_create(), 0.07-0.2 ms). Its name
 * holds no workdir key, so no run reads it as a record; its text starts
 * with SPARE_MARK, which does not parse, from before it is renamed until
 * a new record is written over it.
 */
#define SPARE "spare"
#define SPARE_MARK "x"

/* Takes the spare file as path; false when there is none (or another run
 * took it first: rename() hands it to one of them). */
static bool spare_take(const char *dir, const char *path)
{
	char *spare = xasprintf("%s/%s", dir, SPARE);
	bool ok = rename(spare, path) == 0;

	free(spare);
	return ok;
}

char *pending_begin(const char *wd, const struct guard_span *span)
{
	static unsigned seq;
	char key[17], *dir = state_dir(wd, "pending"), *path = NULL;

	if (dir == NULL || state_dir_make(dir) < 0)
		goto out;
	state_key(wd, key);
	path = xasprintf("%s/%s-%ld-%u", dir, key, (long)getpid(),
	                 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	(void)spare_take(dir, path); /* else record_write() makes it */
	if (record_write(path, wd, span) < 0) {
		unlink(path);
		free(path);
		path = NULL;
	}
out:
	free(dir);
	return path;
}

void pending_update(const char *path, const char *wd, const struct guard_span *span)
{
	if (path)
		(void)record_write(path, wd, span);
}

/* Marks the record at path as none and renames it to the spare; false
 * when it cannot (then it is unlinked). The mark first: a kill between
 * the two leaves a file that does not parse, read as none. */
static bool spare_keep(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *spare;
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	bool ok = fd >= 0 && pwrite(fd, SPARE_MARK, 1, 0) == 1;

	if (fd >= 0)
		close(fd);
	if (!ok || slash == NULL)
		return false;
	spare = xasprintf("%.*s/%s", (int)(slash - path), path, SPARE);
	/* never over another run's spare: that would free its inode */
	ok = renameat2(AT_FDCWD, path, AT_FDCWD, spare, RENAME_NOREPLACE) == 0;
	free(spare);
	return ok;
}

void pending_end(char *path)
{
	if (path && !spare_keep(path))
		unlink(path);
	free(path);
}

/* The boot time, in seconds of CLOCK_REALTIME: a note older was written
 * by a process gone with the last boot, whatever its pid is now. Only for
 * a record without a boot id (an older airlock's): the clock may be set
 * forward by more than the time since the boot (a VM restored from a
 * snapshot, a clock set at boot by NTP), and then a live run's record
 * looks older. */
static long long boot_time(void)
{
	struct timespec real, up;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &up);
	return (long long)real.tv_sec - (long long)up.tv_sec - 1;
}

/* True when process pid, started at start (0: unknown), is gone: no such
 * process, a zombie (killed, its parent not yet waiting: kill() still
 * finds it), or another process that has its pid now. */
static bool writer_gone(pid_t pid, unsigned long long start)
{
	char buf[1024];
	const char *f;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	if ((f = proc_stat_read((long)pid, buf, sizeof(buf))) == NULL)
		return errno == ENOENT;
	return f[0] == 'Z' || f[0] == 'X' || (start && proc_start(f) != start);
}

/* The note in dir/name when it is wd's and its writer is gone: its span
 * in since and until; false otherwise (another run's, live, or unreadable). */
static bool orphan_read(int dfd, const char *name, const char *wd, long long *since,
                        long long *until)
{
	char buf[PATH_MAX + 128], boot[40] = "", *nl;
	unsigned long long start = 0;
	long pid = 0;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	nl = strchr(buf, '\n'); /* "SINCE UNTIL START BOOT\nWD\n", seconds; START, ticks */
	if (nl == NULL)
		return false;
	*nl = '\0'; /* the fields of the first line only: %s would read on into WD */
	if (sscanf(buf, "%lld %lld %llu %39s", since, until, &start, boot) < 2 ||
	    strncmp(nl + 1, wd, strlen(wd)) != 0 || strcmp(nl + 1 + strlen(wd), "\n") != 0)
		return false;
	if (sscanf(name + 17, "%ld-", &pid) != 1 || pid <= 0)
		return false;
	if (boot[0] && strcmp(boot, "-") != 0 && strcmp(boot_id(), "-") != 0)
		return strcmp(boot, boot_id()) != 0 || writer_gone((pid_t)pid, start);
	return *since < boot_time() || writer_gone((pid_t)pid, start);
}

bool pending_orphans(const char *wd, struct guard_span *span, char ***taken)
{
	char key[17], *dir = state_dir(wd, "pending");
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	bool found = false;
	long long from, to;

	*taken = NULL;
	state_key(wd, key);
	while (d && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, key, 16) != 0 || e->d_name[16] != '-' ||
		    !orphan_read(dirfd(d), e->d_name, wd, &from, &to))
			continue;
		if (!found || from < span->since.tv_sec)
			span->since = (struct timespec){(time_t)from, 0};
		if (!found || (span->until && (to == 0 || to > span->until)))
			span->until = (time_t)to;
		found = true;
		strv_push_owned(taken, xasprintf("%s/%s", dir, e->d_name));
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

void pending_orphans_end(char **taken)
{
	for (char **p = taken; p && *p; p++)
		unlink(*p);
	strv_free(taken);
}
