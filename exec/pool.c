/*
 * pool.c: sandboxes built ahead of time for a long-running caller (the
 * gate). A slot's thread clones a sandbox for the shell (mounts, network,
 * uid, process cap) the last call used; its first process sets everything
 * up, namespaces, root, capabilities dropped, seccomp loaded, and then
 * waits on a socket. The next call with the same shell puts its command in
 * the shared memory and sends 'g': the sandbox starts the command and
 * becomes init, and the slot's thread builds the next one while that call
 * runs. With a second core free, a call waits only for its command.
 *
 * Rules: a pooled sandbox runs one call, like any other, and a shell that
 * differs in anything never matches; one that failed before its command
 * started is discarded and the call builds its own, so errors are reported
 * the usual way; a waiting sandbox holds no descriptor but its own (see
 * ns_enter) and dies with its slot's thread (PR_SET_PDEATHSIG), so slot
 * threads never exit while the process lives.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

#define POOL_SLOTS 2 /* enough for the gate's two usual shells: readonly and workspace */

/* One sandbox being built, or waiting for its call. */
struct build {
	struct ns_shell sh;       /* its own copy of the plan, and its cgroup */
	int go[2];                /* socket pair: 'g' runs cmd, anything else exits */
	const struct ns_cmd *cmd; /* the taker's, set before 'g' */
	bool went;                /* child: it read 'g' and is starting cmd */
	bool quit;                /* told to exit: no call may take it */
	struct spawn sp;
	int start_rc;
	char *err; /* spawn_start's error, owned */
};

struct slot {
	pthread_t thread;
	pthread_cond_t cond; /* want set, build ended: everyone waits on it */
	struct ns_shell *want; /* what to keep ready (owned); NULL: nothing */
	struct build *cur;     /* the build in flight, until it is freed or handed over */
	bool taken;            /* cur has a call, which frees it */
	bool ready;            /* cur can be offered: its socket and cgroup exist */
	bool ended;            /* cur's child exec'd or died: too late to take */
	unsigned long long used;
};

static struct {
	pthread_mutex_t lock;
	bool on, threads;
	struct slot slot[POOL_SLOTS];
	unsigned long long tick;
	unsigned long hits, misses;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void shell_free(struct ns_shell *sh)
{
	if (!sh)
		return;
	ns_shell_clear(sh);
	free(sh);
}

/* Child: set up, wait for the call, run it. As pid 1, exiting takes
 * everything in the namespace with it. */
SBX_CHILD static void build_child(void *arg, struct sbx_report *r, const int fds[4])
{
	struct build *b = arg;
	char c = 0;

	if (ns_enter(&b->sh, r, fds, b->go[1]) == 0) {
		while (recv(b->go[1], &c, 1, 0) < 0 && errno == EINTR)
			;
		/* built a while ago: a host rename of a masked or read-only path
		 * since (git config rewrites .git/config so) has detached its
		 * mount, and this sandbox would show the new one unprotected; the
		 * call then builds its own */
		if (c == 'g' && mounts_check_attached(&b->sh.plan, r) == 0) {
			b->went = true;
			ns_launch(&b->sh, b->cmd, r, fds);
		}
	}
	_exit(EXIT_INTERNAL);
}

/* Slot thread: what the child needs before it can be offered; false with
 * b->err when it cannot be built. */
static bool build_prepare(struct build *b)
{
	mounts_mark_host(&b->sh.plan);
	if (ns_shell_cgroup(&b->sh, &b->err) < 0)
		return false;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b->go) < 0) {
		b->err = xasprintf("exec: socketpair: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Slot thread: returns when b's child has exec'd init or died. */
static void build_spawn(struct build *b)
{
	b->start_rc = spawn_start(&b->sp, NULL, ns_shell_flags(&b->sh), true, build_child, b,
	                          &b->err);
	close(b->go[1]); /* the child's end */
	b->go[1] = -1;
}

static void build_free(struct build *b)
{
	if (!b)
		return;
	/* a child that never started a command has exited: reap it here */
	if (!b->went && b->start_rc == 0 && b->sp.pid > 0)
		while (waitpid(b->sp.pid, NULL, 0) < 0 && errno == EINTR)
			;
	spawn_close(&b->sp);
	for (int i = 0; i < 2; i++)
		if (b->go[i] >= 0)
			close(b->go[i]);
	ns_shell_clear(&b->sh);
	free(b->err);
	free(b);
}

/* Tells a waiting build to exit (pool.lock held). */
static void build_quit(struct slot *sl)
{
	if (sl->cur && !sl->taken && !sl->ended && !sl->cur->quit) {
		sl->cur->quit = true; /* before it is ready, it is never spawned */
		if (sl->ready)
			(void)!send(sl->cur->go[0], "q", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

static void *slot_main(void *arg)
{
	struct slot *sl = arg;

	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!sl->want)
			pthread_cond_wait(&sl->cond, &pool.lock);
		struct build *b = xcalloc(1, sizeof(*b));
		b->go[0] = b->go[1] = -1;
		b->sp.pid = b->sp.pidfd = -1;
		ns_shell_copy(&b->sh, sl->want);
		sl->cur = b;
		sl->taken = sl->ended = sl->ready = false;
		pthread_mutex_unlock(&pool.lock);

		bool ok = build_prepare(b);
		pthread_mutex_lock(&pool.lock);
		sl->ready = ok && !b->quit;
		ok = sl->ready;
		pthread_mutex_unlock(&pool.lock);
		if (ok)
			build_spawn(b);
		else
			b->start_rc = -1;

		pthread_mutex_lock(&pool.lock);
		sl->ended = true;
		if (!sl->taken) { /* failed on its own, or told to quit */
			if (!b->quit) {
				shell_free(sl->want); /* stop until a call asks again */
				sl->want = NULL;
			}
			pthread_mutex_unlock(&pool.lock);
			build_free(b);
			pthread_mutex_lock(&pool.lock);
		}
		sl->cur = NULL; /* a taker owns it now, or it is freed */
		pthread_cond_broadcast(&sl->cond);
	}
	return NULL;
}

/* The slot whose waiting build fits sh, or NULL (pool.lock held). */
static struct slot *slot_ready(const struct ns_shell *sh)
{
	for (int i = 0; i < POOL_SLOTS; i++) {
		struct slot *sl = &pool.slot[i];
		if (sl->cur && sl->ready && !sl->taken && !sl->ended && !sl->cur->quit &&
		    ns_shell_same(&sl->cur->sh, sh))
			return sl;
	}
	return NULL;
}

int pool_run(const struct ns_shell *sh, const struct ns_cmd *cmd, const struct exec_spec *spec,
             struct exec_result *res, char **errstr)
{
	long long start = clock_ns();
	struct build *b = NULL;
	struct slot *sl;
	int rc;

	pthread_mutex_lock(&pool.lock);
	if (!pool.on) { /* not a long-running caller: nothing to count */
		pthread_mutex_unlock(&pool.lock);
		return POOL_MISS;
	}
	sl = slot_ready(sh);
	if (sl) {
		b = sl->cur;
		sl->taken = true;
		sl->used = ++pool.tick;
		b->cmd = cmd;
		/* if this fails the child is gone, and its thread ends the build */
		(void)!send(b->go[0], "g", 1, MSG_NOSIGNAL);
		while (sl->cur == b)
			pthread_cond_wait(&sl->cond, &pool.lock);
	}
	if (!b || b->start_rc < 0 || !b->went) {
		pool.misses++;
		pthread_mutex_unlock(&pool.lock);
		build_free(b);
		return POOL_MISS;
	}
	pool.hits++;
	pthread_mutex_unlock(&pool.lock);
	b->sp.pooled = true;
	capture_reap_late();
	rc = spawn_wait(&b->sp, spec, start, res, NULL, errstr);
	build_free(b);
	return rc;
}

void pool_want(const struct ns_shell *sh)
{
	struct ns_shell *old = NULL;
	struct slot *sl = NULL;

	pthread_mutex_lock(&pool.lock);
	for (int i = 0; pool.on && i < POOL_SLOTS; i++)
		if (pool.slot[i].want && ns_shell_same(pool.slot[i].want, sh)) {
			pool.slot[i].used = ++pool.tick; /* it rebuilds by itself */
			goto out;
		}
	for (int i = 0; pool.on && i < POOL_SLOTS; i++) /* an idle slot, else the oldest */
		if (!sl || !pool.slot[i].want || (sl->want && pool.slot[i].used < sl->used))
			sl = &pool.slot[i];
	if (!sl)
		goto out;
	old = sl->want;
	sl->want = xcalloc(1, sizeof(*sl->want));
	ns_shell_copy(sl->want, sh);
	sl->used = ++pool.tick;
	build_quit(sl);
	pthread_cond_broadcast(&sl->cond);
out:
	pthread_mutex_unlock(&pool.lock);
	shell_free(old);
}

/* Starts the slot threads with every signal blocked: a handler of ours
 * must never run on a thread that shares its memory with a sandbox. */
static int threads_start(char **errstr)
{
	sigset_t all, saved;
	int e = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	for (int i = 0; i < POOL_SLOTS && !e; i++) {
		pthread_cond_init(&pool.slot[i].cond, NULL);
		e = pthread_create(&pool.slot[i].thread, NULL, slot_main, &pool.slot[i]);
		if (!e)
			pthread_detach(pool.slot[i].thread);
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (e) {
		*errstr = xasprintf("exec: cannot start the sandbox pool: %s", strerror(e));
		return -1;
	}
	pool.threads = true;
	return 0;
}

int exec_pool_start(char **errstr)
{
	int rc = 0;

	cgroup_sweep_orphans(); /* a killed gate's waiting sandboxes left these */
	pthread_mutex_lock(&pool.lock);
	if (!pool.threads)
		rc = threads_start(errstr);
	pool.on = rc == 0;
	pthread_mutex_unlock(&pool.lock);
	return rc;
}

void exec_pool_stop(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2; /* a build in its setup finishes in milliseconds */
	pthread_mutex_lock(&pool.lock);
	pool.on = false;
	for (int i = 0; i < POOL_SLOTS; i++) {
		struct slot *sl = &pool.slot[i];
		shell_free(sl->want);
		sl->want = NULL;
		build_quit(sl);
		while (sl->cur && !sl->taken &&
		       pthread_cond_timedwait(&sl->cond, &pool.lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&pool.lock);
}

void exec_pool_stats(unsigned long *hits, unsigned long *misses)
{
	pthread_mutex_lock(&pool.lock);
	*hits = pool.hits;
	*misses = pool.misses;
	pthread_mutex_unlock(&pool.lock);
}
