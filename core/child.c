/*
 * child.c: a read run in a forked child with a deadline (child.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"

/* What the child sent, up to max bytes before the deadline, into b; false
 * when it sent more, or not all in time. */
static bool child_receive(int fd, int ms, size_t max, struct buf *b)
{
	long long end = clock_ns() + ms * 1000000LL, left;
	size_t start = b->len;
	char chunk[4096];
	ssize_t n = 1;

	while (n > 0 && b->len - start <= max && (left = end - clock_ns()) > 0) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, (int)(left / 1000000 + 1)) <= 0)
			continue; /* EINTR, or the deadline: checked above */
		if ((n = read(fd, chunk, sizeof(chunk))) > 0)
			buf_append(b, chunk, (size_t)n);
	}
	return n == 0 && b->len - start <= max;
}

int child_collect(void (*fn)(void *arg, int fd), void *arg, int ms, size_t max, struct buf *b)
{
	int fds[2], status = 0;
	pid_t pid, parent = getpid();
	bool got;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		/* stuck on a FIFO, it must not outlive a caller that dies meanwhile */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		close(fds[0]);
		fn(arg, fds[1]);
		_exit(1);
	}
	close(fds[1]);
	got = pid > 0 && child_receive(fds[0], ms, max, b);
	if (pid > 0) {
		kill(pid, SIGKILL); /* gone already, or late */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	return got && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
