/*
 * capture.c: a call's standard streams and its wait: stdin fed from memory,
 * stdout/stderr captured through pipes with a byte cap each, a wall-clock
 * deadline that kills the child (for the namespace backend: the pid
 * namespace's init, so everything in it dies). Rules: a stream that hits
 * its cap is reported (truncated) and closed, so a flooding child gets
 * EPIPE instead of blocking; the loop never waits past the deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/asan.h"
#include "core/util.h"
#include "exec/exec_internal.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Streaming mode hands the child airlock's own 0, 1 and 2, except those
 * that lead to a file: a descriptor with a path behind it can be reopened
 * through /proc/self/fd/N with more access than it was opened with, so a
 * readonly run could write the file on its stdin, or read back and
 * truncate the log its output is appended to, on a host mount the sandbox
 * does not show. Those reach the child through a pipe that airlock relays.
 * Pipes, sockets and character devices (terminals, /dev/null) are passed
 * as they are: reopening them gives nothing more.
 */
static bool relayed(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 &&
	       (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode));
}

/* Streaming mode: a pipe for each stream that is relayed; 0 or -1. One pipe
 * serves 1 and 2 when they share an open file (2>&1), keeping their order. */
static int relay_open(struct capture *c)
{
	bool err_relay = relayed(2);

	if (relayed(0)) {
		c->in_pos = lseek(0, 0, SEEK_CUR);
		if (c->in_pos < 0)
			c->in_pos = 0;
		if (pipe2(c->in, O_CLOEXEC) < 0)
			return -1;
		c->relay_in = true;
	}
	if (relayed(1) && pipe2(c->out, O_CLOEXEC) < 0)
		return -1;
	c->err_on_out = err_relay && c->out[1] >= 0 &&
	                syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 1, 2) == 0;
	if (err_relay && !c->err_on_out && pipe2(c->err, O_CLOEXEC) < 0)
		return -1;
	return 0;
}

/* Capture mode: pipes for the three streams (stdin /dev/null when there is
 * nothing to feed); 0 or -1. */
static int capture_pipes(struct capture *c)
{
	if (pipe2(c->out, O_CLOEXEC) < 0 || pipe2(c->err, O_CLOEXEC) < 0)
		return -1;
	if (c->stdin_data)
		return pipe2(c->in, O_CLOEXEC);
	c->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return c->in[0] < 0 ? -1 : 0;
}

int capture_open(struct capture *c, const struct exec_spec *s, char **errstr)
{
	c->on = s->capture;
	c->in[0] = c->in[1] = c->out[0] = c->out[1] = c->err[0] = c->err[1] = -1;
	c->stdin_data = s->stdin_data;
	c->stdin_len = s->stdin_data ? s->stdin_len : 0;
	c->stdin_off = 0;
	c->relay_in = c->err_on_out = false;
	c->done = -1;
	c->disk = -1;
	c->relay_left[0] = c->relay_left[1] = -1;
	c->done_seen = false;
	if ((c->on ? capture_pipes(c) : relay_open(c)) < 0) {
		*errstr = xasprintf("cannot set up the %s pipes: %s", c->on ? "output" : "relay",
		                    strerror(errno));
		capture_close(c);
		return -1;
	}
	return 0;
}

void capture_child_fds(const struct capture *c, int fds[3])
{
	fds[0] = c->in[0] >= 0 ? c->in[0] : 0;
	fds[1] = c->out[1] >= 0 ? c->out[1] : 1;
	fds[2] = c->err[1] >= 0 ? c->err[1] : c->err_on_out ? c->out[1] : 2;
}

void capture_parent_close(struct capture *c)
{
	close_fd(&c->in[0]);
	close_fd(&c->out[1]);
	close_fd(&c->err[1]);
	if (c->in[1] >= 0)
		fcntl(c->in[1], F_SETFL, O_NONBLOCK);
}

void capture_close(struct capture *c)
{
	close_fd(&c->done);
	close_fd(&c->disk);
	for (int i = 0; i < 2; i++) {
		close_fd(&c->in[i]);
		close_fd(&c->out[i]);
		close_fd(&c->err[i]);
	}
}

/*
 * Reads what is ready into b (capture) or onto airlock's own fd `to` (a
 * relayed stream, of which *left bytes may still pass, or all when it is
 * negative); closes the fd at EOF, at either cap, or when `to` fails.
 * A relayed stream leads to a host file that airlock, not the sandbox,
 * writes, so RLIMIT_FSIZE never held it: `airlock exec -- head -c 20000000
 * /dev/zero >out` under a 10 MiB file-size cap wrote all 20 MB (reproduced
 * on 0895477, tests/e2e/145-sandbox-review13.sh). The profile's file size
 * is now what each relayed stream carries; past it the command gets EPIPE.
 */
static void drain(int *fd, struct buf *b, int to, long long *left, bool *truncated)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));
	bool full = false;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0 && !b && left && *left >= 0 && n > *left) {
		full = true;
		n = (ssize_t)*left;
	}
	if (n > 0 && b)
		buf_append(b, chunk, (size_t)n);
	else if (n > 0 && fd_write_all(to, chunk, (size_t)n) < 0)
		n = 0;
	if (n > 0 && left && *left >= 0)
		*left -= n;
	if (full) {
		*truncated = true;
		n = 0;
	}
	if (b && b->truncated)
		*truncated = true;
	if (n <= 0 || (b && b->truncated))
		close_fd(fd);
}

static void feed(struct capture *c)
{
	ssize_t n = write(c->in[1], c->stdin_data + c->stdin_off, c->stdin_len - c->stdin_off);

	if (n > 0)
		c->stdin_off += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || c->stdin_off >= c->stdin_len)
		close_fd(&c->in[1]);
}

/* A relayed stdin: the next piece of the file from where the child has
 * got to (pread, so what the pipe did not take is read again next time). */
static void relay_feed(struct capture *c)
{
	char chunk[65536];
	ssize_t n = pread(0, chunk, sizeof(chunk), c->in_pos), w = 0;

	if (n < 0 && errno == EINTR)
		return;
	if (n > 0)
		w = write(c->in[1], chunk, (size_t)n);
	if (w > 0)
		c->in_pos += w;
	if (n <= 0 || (w < 0 && errno != EAGAIN && errno != EINTR))
		close_fd(&c->in[1]);
}

/* One poll round; returns false when the child has exited or its init
 * reported that the namespace is empty (done). */
static bool pump(struct capture *c, int pidfd, int wait_ms, struct exec_result *res)
{
	struct pollfd p[5] = {
	        {pidfd, POLLIN, 0},     {c->out[0], POLLIN, 0}, {c->err[0], POLLIN, 0},
	        {c->in[1], POLLOUT, 0}, {c->done, POLLIN, 0},
	};

	if (poll(p, 5, wait_ms) < 0)
		return errno == EINTR;
	if (p[1].revents)
		drain(&c->out[0], c->on ? c->ob : NULL, 1, &c->relay_left[0], &res->truncated);
	if (p[2].revents)
		drain(&c->err[0], c->on ? c->eb : NULL, 2, &c->relay_left[1], &res->truncated);
	if (p[3].revents)
		c->relay_in ? relay_feed(c) : feed(c);
	if (p[4].revents) { /* one message of less than PIPE_BUF: read whole */
		c->done_seen = read(c->done, c->msg, sizeof(*c->msg)) == sizeof(*c->msg);
		close_fd(&c->done);
		if (c->done_seen)
			return false;
	}
	return !(p[0].revents & POLLIN);
}

/*
 * The host file system a call may fill: its writable workdir's, or a dry
 * run's overlay directory's. RLIMIT_FSIZE caps each file, not how many:
 * a workspace call fallocated 8 MiB files, or wrote one of 300 MB, until
 * the file system under its workdir had no byte left, and one that made
 * empty files took every inode (reproduced on 0895477 in a 256 MiB tmpfs,
 * tests/e2e/145-sandbox-review13.sh); with the 1 GiB default file size any
 * disk fills so, and the host's own programs, the audit log and the state
 * directory usually share it. So the call is killed, as at its
 * deadline, once what is free there for unprivileged programs (f_bavail,
 * f_ffree) falls below a floor: a twentieth of the file system, at least
 * 256 MiB (10,000 inodes), and never more than half of what was free when
 * the call started, so a call on a nearly full disk may still use half of
 * what is left. What it wrote stays; the host keeps room to work. Checked
 * every 50 ms while the call runs (an fstatfs, about 1 us), so a burst of
 * writes can pass the floor by what it writes in that time (fallocate,
 * which allocates far faster, is refused: seccomp.c). The
 * explicit none profile, which runs nothing sandboxed, is not watched, nor
 * a FUSE or network file system (remote_fs).
 */
#define DISK_POLL_MS 50
#define FLOOR_BYTES (256ULL << 20)
#define FLOOR_FILES 10000ULL

/* File systems whose statfs asks a server (FUSE, network): one that hangs
 * would hang the wait loop, and the deadline with it. Not watched. */
static const unsigned long remote_fs[] = {
        FUSE_SUPER_MAGIC, NFS_SUPER_MAGIC,  SMB_SUPER_MAGIC,  CIFS_SUPER_MAGIC, SMB2_SUPER_MAGIC,
        V9FS_MAGIC,       CEPH_SUPER_MAGIC, AFS_SUPER_MAGIC,  CODA_SUPER_MAGIC,
};

static bool fs_remote(unsigned long type)
{
	for (size_t i = 0; i < nitems(remote_fs); i++)
		if (type == remote_fs[i])
			return true;
	return false;
}

static unsigned long long floor_of(unsigned long long total, unsigned long long min,
                                   unsigned long long free_now)
{
	unsigned long long f = total / 20 > min ? total / 20 : min;
	return f < free_now / 2 ? f : free_now / 2;
}

static void disk_watch_open(struct capture *c, const struct exec_spec *s)
{
	const char *dir = s->overlay_dir ? s->overlay_dir : s->workdir;
	struct statfs st;

	if (s->profile->none || (!s->overlay_dir && !s->profile->workdir_rw) || !dir)
		return;
	c->disk = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->disk < 0 || fstatfs(c->disk, &st) < 0 || fs_remote((unsigned long)st.f_type)) {
		close_fd(&c->disk); /* not watched: the call runs as before */
		return;
	}
	c->floor_bytes = floor_of((unsigned long long)st.f_blocks * st.f_frsize, FLOOR_BYTES,
	                          (unsigned long long)st.f_bavail * st.f_frsize);
	/* btrfs and others count no inodes (f_files 0): nothing to run out of */
	c->floor_files = st.f_files ? floor_of(st.f_files, FLOOR_FILES, st.f_ffree) : 0;
}

/* True when the watched file system has fallen below its floor. */
static bool disk_low(const struct capture *c)
{
	struct statfs st;

	if (c->disk < 0 || fstatfs(c->disk, &st) < 0)
		return false;
	return (unsigned long long)st.f_bavail * st.f_frsize < c->floor_bytes ||
	       (c->floor_files && st.f_ffree < c->floor_files);
}

/* Inits that reported done before they finished exiting: reaped later. */
static pthread_mutex_t late_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t late[64];
static size_t nlate;

void capture_reap_late(void)
{
	pthread_mutex_lock(&late_lock);
	for (size_t i = 0; i < nlate;) {
		if (waitpid(late[i], NULL, WNOHANG) != 0)
			late[i] = late[--nlate];
		else
			i++;
	}
	pthread_mutex_unlock(&late_lock);
}

/* Reaps pid now if it has exited, else queues it; false when queued. */
static bool reap_or_queue(pid_t pid)
{
	bool queued = false;

	if (waitpid(pid, NULL, WNOHANG) != 0)
		return true;
	pthread_mutex_lock(&late_lock);
	if (nlate < nitems(late)) {
		late[nlate++] = pid;
		queued = true;
	}
	pthread_mutex_unlock(&late_lock);
	if (!queued)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return !queued;
}

bool capture_wait(struct capture *c, int pidfd, pid_t pid, long long deadline,
                  struct exec_result *res, int *status, struct rusage *ru)
{
	bool alive = true;

	if (c->in[1] >= 0 && c->stdin_len == 0 && !c->relay_in)
		close_fd(&c->in[1]);
	while (alive || c->out[0] >= 0 || c->err[0] >= 0) {
		long long left = (deadline - clock_ns()) / 1000000;
		bool cancelled = c->cancel && *c->cancel, full = alive && disk_low(c);
		int slice = c->disk >= 0 ? DISK_POLL_MS : 1000;
		if (alive && (left <= 0 || cancelled || full)) {
			res->timed_out |= left <= 0;
			res->disk_low |= full;
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			close_fd(&c->disk);
			left = 1000;
		}
		if (!alive && left <= 0)
			break; /* a descendant outside a pid namespace kept a pipe open */
		alive = pump(c, alive ? pidfd : -1, (int)(left > slice ? slice : left + 1), res) &&
		        alive;
		if (!alive && c->out[0] < 0 && c->err[0] < 0)
			break;
	}
	close_fd(&c->in[1]);
	close_fd(&c->out[0]);
	close_fd(&c->err[0]);
	close_fd(&c->done);
	close_fd(&c->disk);
	memset(ru, 0, sizeof(*ru));
	*status = 0;
	/* init said the namespace is empty: its own exit (tearing down the
	 * mount namespace takes an RCU grace period) need not hold the call.
	 * It is killed all the same, so that nothing could outlive the call
	 * even if something but init had written "done". */
	if (c->done_seen && !res->timed_out) {
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		return reap_or_queue(pid);
	}
	int w;
	while ((w = wait4(pid, status, 0, ru)) < 0 && errno == EINTR)
		;
	if (w < 0) /* reaped by someone else (a SIGCHLD handler): never report success */
		*status = EXIT_INTERNAL << 8;
	return true;
}

void exec_result_status(struct exec_result *res, int status, const struct rusage *ru)
{
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->cpu_ms = (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000LL +
	              (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
	res->peak_kb = ru->ru_maxrss;
}

char *sbx_utoa(char *b, unsigned n)
{
	char d[12];
	int k = 0, i = 0;

	do
		d[k++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (k > 0)
		b[i++] = d[--k];
	b[i] = '\0';
	return b;
}

/* Child: async-signal-safe PATH search (execvpe reads the caller's PATH). */
int exec_lookup_execve(char *const *argv, char *const *env)
{
	const char *path = "/usr/bin:/bin", *name = argv[0];
	size_t nl = strlen(name);
	char buf[PATH_MAX];
	int saw_eacces = 0;

	if (strchr(name, '/')) {
		execve(name, argv, env);
		return errno;
	}
	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		size_t dl = (size_t)(end - p);
		if (dl == 0)
			dl = 1, p = ".";
		if (dl + nl + 2 <= sizeof(buf)) {
			memcpy(buf, p, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, name, nl + 1);
			execve(buf, argv, env);
			if (errno == EACCES)
				saw_eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				return errno;
		}
		if (*end == '\0')
			break;
		p = end;
	}
	return saw_eacces ? EACCES : ENOENT;
}

/* Appends a line of airlock's own to a captured stderr. */
static void err_append(struct exec_result *res, const char *line)
{
	size_t n = strlen(line);

	res->err = xrealloc(res->err, res->errlen + n + 1);
	memcpy(res->err + res->errlen, line, n + 1);
	res->errlen += n;
}

/* Fills the result after the child is reaped; -1 when a step failed. */
static int spawn_finish(struct sbx_report *r, int status, const struct rusage *ru,
                        struct capture *c, struct exec_result *res, char **errstr)
{
	if (r->step != STEP_NONE) {
		*errstr = sbx_report_message(r);
		res->exec_errno = r->step == STEP_EXEC ? r->err : 0;
		return -1;
	}
	exec_result_status(res, c->done_seen ? c->msg->status : status, ru);
	if (c->done_seen) { /* init reaped the whole tree and measured it */
		res->cpu_ms = (c->msg->utime_us + c->msg->stime_us) / 1000;
		res->peak_kb = c->msg->maxrss_kb;
	}
	res->out = buf_take(c->ob, &res->outlen);
	res->err = buf_take(c->eb, &res->errlen);
	if (res->disk_low && c->on) /* the agent sees why its call died */
		err_append(res, "airlock: the call was killed: " EXEC_DISK_LOW_WHY "\n");
	return 0;
}

/* The child's memory: the report, then its stack (it shares ours until
 * execve, like posix_spawn, so no page tables are copied). */
/* AddressSanitizer's frames carry redzones: its builds get four times the
 * stack, so a sanitized child never runs into the report below it. */
#define SPAWN_STACK ((AIRLOCK_ASAN ? 4 : 1) * 128 * 1024)
struct spawn_page {
	struct sbx_report r;
	struct sbx_done done;
	sbx_child_fn fn;
	void *arg;
	int fds[4];
	char stack[] __attribute__((aligned(16)));
};

#define SPAWN_PAGE_SIZE (sizeof(struct spawn_page) + SPAWN_STACK)

/* Under AddressSanitizer, the child's frames leave their redzones marked in
 * the stack's shadow (it never returns, it execs): clear them before the
 * page is used again, or the next child trips over them. */

/* One page per thread, kept between calls: a fresh mapping would fault in
 * the child's stack pages again every call (~20 us each on a VM). */
static pthread_key_t page_key;
static pthread_once_t page_once = PTHREAD_ONCE_INIT;

static void page_unmap(void *pg)
{
	munmap(pg, SPAWN_PAGE_SIZE);
}

static void page_key_make(void)
{
	if (pthread_key_create(&page_key, page_unmap) != 0)
		abort(); /* out of keys at start-up: nothing sensible to do */
}

/* This thread's spawn page with a clear report, or NULL with errno. */
static struct spawn_page *page_get(void)
{
	struct spawn_page *pg;

	pthread_once(&page_once, page_key_make);
	pg = pthread_getspecific(page_key);
	if (!pg) {
		pg = mmap(NULL, SPAWN_PAGE_SIZE, PROT_READ | PROT_WRITE,
		          MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (pg == MAP_FAILED)
			return NULL;
		if (pthread_setspecific(page_key, pg) != 0) {
			munmap(pg, SPAWN_PAGE_SIZE);
			errno = ENOMEM;
			return NULL;
		}
	}
	/* the whole page: a fresh mapping may reuse the range of an exited
	 * thread's stack whose redzones are still marked in the shadow */
	ASAN_UNPOISON_MEMORY_REGION(pg, SPAWN_PAGE_SIZE);
	memset(pg, 0, sizeof(*pg));
	return pg;
}

/* Child: every signal stays blocked (spawn_clone blocked them), so no
 * handler of ours runs on the shared memory; the command's process resets
 * them with exec_child_signals() just before execve. */
SBX_CHILD static int spawn_child(void *arg)
{
	struct spawn_page *pg = arg;

	pg->fn(pg->arg, &pg->r, pg->fds);
	_exit(EXIT_INTERNAL);
}

void exec_child_signals(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
}

/* clone() with CLONE_VM|CLONE_VFORK: this thread sleeps until the child
 * has exec'd or died; every signal is blocked meanwhile so none runs a
 * handler on the shared memory. Returns the pid, or -1 with errno. */
static pid_t spawn_clone(struct spawn_page *pg, uint64_t flags, int *pidfd)
{
	sigset_t all, saved;
	pid_t pid;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pid = clone(spawn_child, pg->stack + SPAWN_STACK,
	            (int)flags | CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, pg, pidfd);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = e;
	return pid;
}

/* The done pipe: read end in c->done, write end returned (>= 10), or -1. */
static int done_pipe_open(struct capture *c)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (p[1] < 10) { /* clear of the numbers the child dup2()s onto */
		int w = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
		close(p[1]);
		p[1] = w;
	}
	c->done = p[0];
	return p[1];
}

/* Opens the child's pipes: capture (spec NULL: a pool build, whose call is
 * not known yet, so stdin is always a pipe) and the done pipe. */
static int spawn_pipes(struct spawn *sp, const struct exec_spec *s, bool done_pipe,
                       struct spawn_page *pg, char **errstr)
{
	static const struct exec_spec pool_spec = {.capture = true, .stdin_data = ""};

	if (capture_open(&sp->c, s ? s : &pool_spec, errstr) < 0)
		return -1;
	capture_child_fds(&sp->c, pg->fds);
	pg->fds[3] = -1;
	if (done_pipe && (pg->fds[3] = done_pipe_open(&sp->c)) < 0) {
		*errstr = xasprintf("exec: cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int spawn_start(struct spawn *sp, const struct exec_spec *s, uint64_t flags, bool done_pipe,
                sbx_child_fn fn, void *arg, char **errstr)
{
	struct spawn_page *pg;
	int rc = -1;

	memset(sp, 0, sizeof(*sp));
	sp->c = (struct capture){.done = -1, .in = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}};
	sp->pid = -1;
	sp->pidfd = -1;
	pg = page_get();
	if (!pg) {
		*errstr = xasprintf("exec: mmap: %s", strerror(errno));
		return -1;
	}
	if (spawn_pipes(sp, s, done_pipe, pg, errstr) < 0)
		goto out;
	pg->fn = fn;
	pg->arg = arg;
	pg->r.t[PH_CLONE] = clock_ns();
	sp->pid = spawn_clone(pg, flags, &sp->pidfd);
	if (sp->pid < 0)
		sbx_report_fail(&pg->r, STEP_CLONE, errno, NULL);
	/* the child has exec'd or died: the page is ours again */
	sp->r = pg->r;
	capture_parent_close(&sp->c);
	rc = 0;
out:
	if (pg->fds[3] >= 0)
		close(pg->fds[3]);
	pg->fds[3] = -1;
	return rc;
}

/*
 * What a captured stream may hold: the profile's `output`, but never more
 * than CAPTURE_CEILING, also where it says 0 (no limit) or more. The buffer
 * is the gate's, a host process outside the sandbox and its memory caps,
 * and encoding it for the result and the audit log takes several times its
 * size: with `output = 0` a call that printed 200 MB made the gate take
 * 1.97 GB and 44 s (reproduced on 0895477, tests/e2e/145-sandbox-review13.sh),
 * and one that printed more could exhaust the host's memory. As with
 * `timeout = 0`, airlock's own ceiling stands in for "none".
 */
#define CAPTURE_CEILING (16LL << 20)

static size_t capture_cap(long long output)
{
	return (size_t)(output > 0 && output < CAPTURE_CEILING ? output : CAPTURE_CEILING);
}

int spawn_wait(struct spawn *sp, const struct exec_spec *s, long long start,
               struct exec_result *res, enum sbx_step *failed, char **errstr)
{
	long long tmo = s->timeout_ms > 0 ? s->timeout_ms : s->profile->timeout * 1000;
	struct buf ob, eb;
	struct rusage ru;
	int status = 0, rc = -1;

	if (failed)
		*failed = (enum sbx_step)sp->r.step;
	if (sp->pid < 0) {
		*errstr = sbx_report_message(&sp->r);
		return -1;
	}
	buf_init(&ob, capture_cap(s->profile->output));
	buf_init(&eb, capture_cap(s->profile->output));
	sp->c.ob = &ob;
	sp->c.eb = &eb;
	sp->c.msg = &sp->done;
	sp->c.stdin_data = s->stdin_data;
	sp->c.stdin_len = s->stdin_data ? s->stdin_len : 0;
	sp->c.cancel = s->cancel;
	if (s->profile->file_size > 0 && !s->profile->none) /* a relayed stream's file */
		sp->c.relay_left[0] = sp->c.relay_left[1] = s->profile->file_size;
	disk_watch_open(&sp->c, s);
	capture_wait(&sp->c, sp->pidfd, sp->pid, start + (tmo > 0 ? tmo : 600000) * 1000000LL, res,
	             &status, &ru);
	res->wall_ms = (clock_ns() - start) / 1000000;
	sp->r.t[PH_DONE] = clock_ns();
	if (!sp->pooled)
		exec_phases_add(sp->r.t);
	rc = spawn_finish(&sp->r, status, &ru, &sp->c, res, errstr);
	buf_free(&ob);
	buf_free(&eb);
	return rc;
}

void spawn_close(struct spawn *sp)
{
	capture_close(&sp->c);
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	sp->pidfd = -1;
}

int exec_spawn_wait(const struct exec_spec *s, uint64_t flags, bool done_pipe, sbx_child_fn fn,
                    void *arg, struct exec_result *res, enum sbx_step *failed, char **errstr)
{
	long long start = clock_ns();
	struct spawn sp;
	int rc = -1;

	capture_reap_late();
	if (spawn_start(&sp, s, flags, done_pipe, fn, arg, errstr) == 0)
		rc = spawn_wait(&sp, s, start, res, failed, errstr);
	spawn_close(&sp);
	return rc;
}
