/*
 * 118-faults-shim.c: an LD_PRELOAD shim for tests/e2e/118-faults-review.sh:
 * the Nth pthread_create() (AIRLOCK_FAULT_N, counted from 1) fails with
 * EAGAIN, as under a small `ulimit -v` or `ulimit -u`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static long calls;
	const char *n = getenv("AIRLOCK_FAULT_N");
	create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");

	if (n && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == strtol(n, NULL, 10))
		return EAGAIN;
	return real(t, a, fn, arg);
}
