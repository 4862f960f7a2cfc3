/*
 * exec.c: STAND-IN (foundation issue) until the namespace sandbox lands:
 * a plain fork/exec with rlimits, a cleared environment, a wall-clock
 * timeout and capped output capture. It isolates nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec.h"

#define MIB (1024LL * 1024)

static const char *const default_env[] = {"PATH", "LANG", "TERM", "TZ", NULL};

static const struct profile builtin[] = {
	{.name = (char *)"readonly", .env = (char **)default_env, .memory = 2048 * MIB, .cpu = 60,
	 .timeout = 120, .processes = 256, .file_size = 1024 * MIB, .output = MIB,
	 .tmp_size = 256 * MIB},
	{.name = (char *)"workspace", .workdir_rw = true, .env = (char **)default_env,
	 .memory = 2048 * MIB, .cpu = 60, .timeout = 120, .processes = 256,
	 .file_size = 1024 * MIB, .output = MIB, .tmp_size = 256 * MIB},
	{.name = (char *)"approved", .workdir_rw = true, .env = (char **)default_env,
	 .memory = 4096 * MIB, .cpu = 600, .timeout = 600, .processes = 1024,
	 .file_size = 4096 * MIB, .output = MIB, .tmp_size = 1024 * MIB},
	{.name = (char *)"none", .none = true, .workdir_rw = true, .network = true,
	 .env = (char **)default_env, .timeout = 600, .output = MIB},
};

const struct profile *exec_builtin_profile(const char *name)
{
	for (size_t i = 0; name && i < nitems(builtin); i++)
		if (strcmp(builtin[i].name, name) == 0)
			return &builtin[i];
	return NULL;
}

void exec_result_clear(struct exec_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

static void set_limit(int res, long long v)
{
	struct rlimit rl = {(rlim_t)v, (rlim_t)v};
	if (v > 0)
		setrlimit(res, &rl);
}

/* In the child: limits, environment, cwd, then exec. Never returns. */
static void child_exec(const struct exec_spec *s, int in, int out, int err)
{
	const struct profile *p = s->profile;
	char **env = NULL;

	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	set_limit(RLIMIT_AS, p->memory);
	set_limit(RLIMIT_CPU, p->cpu);
	set_limit(RLIMIT_FSIZE, p->file_size);
	set_limit(RLIMIT_CORE, 0);
	for (char **n = p->env; n && *n; n++) {
		const char *v = getenv(*n);
		if (v)
			strv_push_owned(&env, xasprintf("%s=%s", *n, v));
	}
	for (char *const *e = s->env; e && *e; e++)
		strv_push(&env, *e);
	if (env == NULL)
		env = xcalloc(1, sizeof(*env));
	if (chdir(s->workdir) < 0) {
		dprintf(2, "airlock: cannot enter workdir %s: %s\n", s->workdir, strerror(errno));
		_exit(EXIT_INTERNAL);
	}
	execvpe(s->argv[0], s->argv, env);
	dprintf(2, "airlock: cannot run %s: %s\n", s->argv[0], strerror(errno));
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

/* Reads what is ready on fd into b; returns false at EOF. */
static bool drain(int fd, struct buf *b, bool *truncated)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN);
	buf_append(b, chunk, (size_t)n);
	*truncated |= b->truncated;
	return true;
}

/* Pumps output until both pipes close and the child exits, or the deadline. */
static int wait_child(pid_t pid, int outfd, int errfd, long long deadline,
                      struct exec_result *res, struct buf *ob, struct buf *eb)
{
	struct pollfd pfd[2] = {{outfd, POLLIN, 0}, {errfd, POLLIN, 0}};
	int status = 0;

	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long long left = (deadline - clock_ns()) / 1000000;
		if (left <= 0) {
			res->timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(pfd, 2, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (pfd[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !drain(pfd[i].fd, i ? eb : ob, &res->truncated)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return status;
}

int exec_run(const struct exec_spec *s, struct exec_result *res, char **errstr)
{
	int outp[2] = {-1, -1}, errp[2] = {-1, -1}, in = -1, status;
	long long start = clock_ns(), timeout_ms;
	struct buf ob, eb;
	struct rusage ru;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : s->profile->timeout * 1000;
	if (timeout_ms <= 0)
		timeout_ms = 600000;
	buf_init(&ob, (size_t)s->profile->output);
	buf_init(&eb, (size_t)s->profile->output);
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || (s->capture && (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0))) {
		*errstr = xasprintf("cannot set up pipes: %s", strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		*errstr = xasprintf("cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child_exec(s, in, s->capture ? outp[1] : 1, s->capture ? errp[1] : 2);
	close(in);
	if (s->capture) {
		close(outp[1]);
		close(errp[1]);
	}
	status = wait_child(pid, s->capture ? outp[0] : -1, s->capture ? errp[0] : -1,
	                    start + timeout_ms * 1000000, res, &ob, &eb);
	res->wall_ms = (clock_ns() - start) / 1000000;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		res->cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
		              (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		res->peak_kb = ru.ru_maxrss;
	}
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->out = buf_take(&ob, &res->outlen);
	res->err = buf_take(&eb, &res->errlen);
	return 0;
fail:
	if (in >= 0)
		close(in);
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	buf_free(&ob);
	buf_free(&eb);
	return -1;
}
