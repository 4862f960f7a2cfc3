/*
 * signals.c: SIGTERM, SIGINT and SIGHUP end a gate session cleanly.
 * Rules it keeps:
 *  - the handler only records the signal and writes a byte to a pipe
 *    (async-signal-safe); a watcher thread does the rest;
 *  - the stream stops after the call in flight, which is still recorded,
 *    and the session is ended in the audit log before airlock exits 128+sig;
 *  - the call's processes (every descendant of airlock) get SIGTERM, then
 *    SIGKILL after SIGNALS_GRACE_MS, so a child ignoring SIGTERM still dies;
 *  - a second SIGINT while stopping exits at once (the session stays open
 *    in the log, which `audit verify` reports);
 *  - a result write still blocked after the grace period (nobody reads the
 *    pipe) is made to fail, so a stop never waits on the reader for good.
 * Handlers, not a sigwait thread with the signals blocked: a blocked mask is
 * inherited through exec by sandboxed children, and the approval screen
 * (tui/) installs its own handlers while it is up.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "gate/pipeline.h"

#define SIGNALS_GRACE_MS 2000 /* SIGTERM to SIGKILL for the call's processes */
#define SIGNALS_SCAN_MS 100   /* how often the watcher looks for new ones */
#define SIGNALS_MAX_PROCS 4096

static const int handled[] = {SIGTERM, SIGINT, SIGHUP};

static volatile sig_atomic_t caught;
static int wake[2] = {-1, -1};
static pthread_t watcher;
static bool running;
static pthread_mutex_t target_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gate *target;

static void on_signal(int sig)
{
	int saved = errno;
	char b = 's';

	if (caught == SIGINT && sig == SIGINT)
		_exit(128 + sig); /* asked twice: stop waiting */
	if (caught == 0)
		caught = sig;
	if (write(wake[1], &b, 1) < 0) {
		/* the pipe is full: the watcher is already awake */
	}
	errno = saved;
}

/* Reads the parent pid from /proc/PID/stat, or -1. */
static pid_t proc_ppid(const char *pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long long pp;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %lld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

/* Collects every descendant of this process into pids; returns the count. */
static size_t descendants(pid_t *pids, size_t max)
{
	static pid_t pid[SIGNALS_MAX_PROCS], ppid[SIGNALS_MAX_PROCS];
	size_t n = 0, found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < SIGNALS_MAX_PROCS)
		if (isdigit((unsigned char)e->d_name[0])) {
			pid[n] = (pid_t)strtol(e->d_name, NULL, 10);
			ppid[n++] = proc_ppid(e->d_name);
		}
	closedir(d);
	pids[found++] = getpid(); /* seed; removed below */
	for (size_t i = 0; i < found && found < max; i++)
		for (size_t k = 0; k < n && found < max; k++)
			if (ppid[k] == pids[i] && pid[k] != pids[i])
				pids[found++] = pid[k];
	memmove(pids, pids + 1, (found - 1) * sizeof(*pids));
	return found - 1;
}

/* A reader that stopped reading the results held the gate in write() past
 * the signal for good (the session never ended); after the grace period
 * that write is made to fail. The kick is never SIGINT, which twice exits
 * at once. */
static void unstick_output(void)
{
	pthread_mutex_lock(&target_lock);
	if (target)
		gate_unstick_output(target, caught == SIGINT ? SIGTERM : caught);
	pthread_mutex_unlock(&target_lock);
}

/* Signals the call's processes until airlock stops: SIGTERM, then SIGKILL. */
static void reap_calls(void)
{
	static pid_t pids[SIGNALS_MAX_PROCS];
	long long first = 0, start = clock_ns();
	struct pollfd p = {wake[0], POLLIN, 0};
	char b;

	for (;;) {
		size_t n = descendants(pids, nitems(pids));
		if (n && first == 0)
			first = clock_ns();
		for (size_t i = 0; i < n; i++)
			kill(pids[i], clock_ns() - first >= SIGNALS_GRACE_MS * 1000000LL ? SIGKILL
			                                                                  : SIGTERM);
		if (clock_ns() - start >= SIGNALS_GRACE_MS * 1000000LL)
			unstick_output();
		if (poll(&p, 1, SIGNALS_SCAN_MS) > 0 && read(wake[0], &b, 1) == 1 && b == 'q')
			return;
	}
}

static void *watch_main(void *arg)
{
	char b;
	ssize_t n;

	(void)arg;
	do
		n = read(wake[0], &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || b == 'q')
		return NULL;
	pthread_mutex_lock(&target_lock);
	if (target)
		gate_stop(target, caught);
	pthread_mutex_unlock(&target_lock);
	reap_calls();
	return NULL;
}

int gate_signals_start(char **errstr)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};

	caught = 0;
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		*errstr = xasprintf("cannot set up signal handling: pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(wake[0], F_SETFL, 0); /* the watcher blocks; the handler must not */
	if (pthread_create(&watcher, NULL, watch_main, NULL) != 0) {
		*errstr = xstrdup("cannot set up signal handling: cannot start a thread");
		close(wake[0]);
		close(wake[1]);
		wake[0] = wake[1] = -1;
		return -1;
	}
	running = true;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nitems(handled); i++)
		sigaddset(&sa.sa_mask, handled[i]);
	for (size_t i = 0; i < nitems(handled); i++)
		sigaction(handled[i], &sa, NULL);
	return 0;
}

void gate_signals_forward(int sig)
{
	char b = 's';

	if (!running || sig <= 0)
		return;
	if (caught == 0)
		caught = sig;
	if (write(wake[1], &b, 1) < 0) {
		/* the pipe is full: the watcher is already awake */
	}
}

void gate_signals_attach(struct gate *g)
{
	pthread_mutex_lock(&target_lock);
	target = g;
	if (g && caught)
		gate_stop(g, caught); /* caught while the gate was opening */
	pthread_mutex_unlock(&target_lock);
}

int gate_signals_stop(void)
{
	struct sigaction sa = {.sa_handler = SIG_DFL};
	char b = 'q';
	int sig = caught;

	if (!running)
		return 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nitems(handled); i++)
		sigaction(handled[i], &sa, NULL);
	gate_signals_attach(NULL);
	while (write(wake[1], &b, 1) < 0 && errno == EINTR)
		;
	pthread_join(watcher, NULL);
	close(wake[0]);
	close(wake[1]);
	wake[0] = wake[1] = -1;
	running = false;
	return sig ? sig : caught;
}
