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
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int capture_open(struct capture *c, const struct exec_spec *s, char **errstr)
{
	c->on = s->capture;
	c->in[0] = c->in[1] = c->out[0] = c->out[1] = c->err[0] = c->err[1] = -1;
	c->stdin_data = s->stdin_data;
	c->stdin_len = s->stdin_data ? s->stdin_len : 0;
	c->stdin_off = 0;
	c->done = -1;
	c->done_seen = false;
	if (!c->on)
		return 0;
	if (pipe2(c->out, O_CLOEXEC) < 0 || pipe2(c->err, O_CLOEXEC) < 0 ||
	    (c->stdin_data ? pipe2(c->in, O_CLOEXEC)
	                   : (c->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC))) < 0) {
		*errstr = xasprintf("cannot set up the output pipes: %s", strerror(errno));
		capture_close(c);
		return -1;
	}
	return 0;
}

void capture_child_fds(const struct capture *c, int fds[3])
{
	fds[0] = c->on ? c->in[0] : 0;
	fds[1] = c->on ? c->out[1] : 1;
	fds[2] = c->on ? c->err[1] : 2;
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
	for (int i = 0; i < 2; i++) {
		close_fd(&c->in[i]);
		close_fd(&c->out[i]);
		close_fd(&c->err[i]);
	}
}

/* Reads what is ready into b; closes the fd at EOF or at the cap. */
static void drain(int *fd, struct buf *b, bool *truncated)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0)
		buf_append(b, chunk, (size_t)n);
	if (b->truncated)
		*truncated = true;
	if (n <= 0 || b->truncated)
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

/* One poll round; returns false when the child has exited or its init
 * reported that the namespace is empty (done). */
static bool pump(struct capture *c, int pidfd, int wait_ms, struct exec_result *res)
{
	struct pollfd p[5] = {
	        {pidfd, POLLIN, 0},     {c->out[0], POLLIN, 0}, {c->err[0], POLLIN, 0},
	        {c->in[1], POLLOUT, 0}, {c->done, POLLIN, 0},
	};
	char b;

	if (poll(p, 5, wait_ms) < 0)
		return errno == EINTR;
	if (p[1].revents)
		drain(&c->out[0], c->ob, &res->truncated);
	if (p[2].revents)
		drain(&c->err[0], c->eb, &res->truncated);
	if (p[3].revents)
		feed(c);
	if (p[4].revents) {
		c->done_seen = read(c->done, &b, 1) == 1;
		close_fd(&c->done);
		if (c->done_seen)
			return false;
	}
	return !(p[0].revents & POLLIN);
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

	if (c->in[1] >= 0 && c->stdin_len == 0)
		close_fd(&c->in[1]);
	while (alive || c->out[0] >= 0 || c->err[0] >= 0) {
		long long left = (deadline - clock_ns()) / 1000000;
		if (alive && left <= 0) {
			res->timed_out = true;
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			left = 1000;
		}
		if (!alive && left <= 0)
			break; /* a descendant outside a pid namespace kept a pipe open */
		alive = pump(c, alive ? pidfd : -1, (int)(left > 1000 ? 1000 : left + 1), res) &&
		        alive;
		if (!alive && c->out[0] < 0 && c->err[0] < 0)
			break;
	}
	close_fd(&c->in[1]);
	close_fd(&c->out[0]);
	close_fd(&c->err[0]);
	close_fd(&c->done);
	memset(ru, 0, sizeof(*ru));
	*status = 0;
	/* init said the namespace is empty: its own exit (tearing down the
	 * mount namespace takes an RCU grace period) need not hold the call */
	if (c->done_seen && !res->timed_out)
		return reap_or_queue(pid);
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

/* clone_args as the kernel reads it (kept local: linux/sched.h and glibc's
 * sched.h clash). */
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
struct clone_args_v0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* Fills the result after the child is reaped; -1 when a step failed. */
static int spawn_finish(struct sbx_report *r, int status, const struct rusage *ru,
                        struct capture *c, struct exec_result *res, char **errstr)
{
	if (r->step != STEP_NONE) {
		*errstr = sbx_report_message(r);
		res->exec_errno = r->step == STEP_EXEC ? r->err : 0;
		return -1;
	}
	exec_result_status(res, r->cmd_done ? r->cmd_status : status, ru);
	if (c->done_seen) { /* init reaped the whole tree and measured it */
		res->cpu_ms = (r->ru_utime_us + r->ru_stime_us) / 1000;
		res->peak_kb = r->ru_maxrss;
	}
	res->out = buf_take(c->ob, &res->outlen);
	res->err = buf_take(c->eb, &res->errlen);
	return 0;
}

/* The done pipe: read end in c->done, write end returned (>= 3), or -1. */
static int done_pipe_open(struct capture *c)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (p[1] < 10) { /* clear of the numbers init dup2()s onto */
		int w = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
		close(p[1]);
		p[1] = w;
	}
	c->done = p[0];
	return p[1];
}

int exec_spawn_wait(const struct exec_spec *s, uint64_t flags, bool done_pipe, sbx_child_fn fn,
                    void *arg, struct exec_result *res, char **errstr)
{
	long long start = clock_ns(),
	          tmo = s->timeout_ms > 0 ? s->timeout_ms : s->profile->timeout * 1000;
	struct buf ob, eb;
	struct capture c = {.ob = &ob, .eb = &eb};
	struct clone_args_v0 a = {.flags = flags | CLONE_PIDFD, .exit_signal = SIGCHLD};
	struct sbx_report *r;
	struct rusage ru;
	int pidfd = -1, status = 0, fds[4] = {-1, -1, -1, -1}, rc = -1;
	pid_t pid;

	capture_reap_late();
	buf_init(&ob, (size_t)s->profile->output);
	buf_init(&eb, (size_t)s->profile->output);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		*errstr = xasprintf("exec: mmap: %s", strerror(errno));
		r = NULL;
		goto out;
	}
	if (capture_open(&c, s, errstr) < 0)
		goto out;
	capture_child_fds(&c, fds);
	if (done_pipe && (fds[3] = done_pipe_open(&c)) < 0) {
		*errstr = xasprintf("exec: cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	a.pidfd = (uint64_t)(uintptr_t)&pidfd;
	r->t[PH_CLONE] = clock_ns();
	pid = (pid_t)syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0)
		fn(arg, r, fds);
	if (pid < 0) {
		sbx_report_fail(r, STEP_CLONE, errno, NULL);
		*errstr = sbx_report_message(r);
		goto out;
	}
	capture_parent_close(&c);
	close(fds[3]);
	fds[3] = -1;
	capture_wait(&c, pidfd, pid, start + (tmo > 0 ? tmo : 600000) * 1000000LL, res, &status,
	             &ru);
	res->wall_ms = (clock_ns() - start) / 1000000;
	exec_phases_add(r->t);
	rc = spawn_finish(r, status, &ru, &c, res, errstr);
out:
	capture_close(&c);
	if (fds[3] >= 0)
		close(fds[3]);
	if (pidfd >= 0)
		close(pidfd);
	if (r)
		munmap(r, sizeof(*r));
	buf_free(&ob);
	buf_free(&eb);
	return rc;
}
