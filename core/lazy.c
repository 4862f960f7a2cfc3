/*
 * lazy.c: dlopen() the heavy libraries on first use (see lazy.h).
 * A library that is missing or lacks a symbol is an error the caller
 * reports; nothing falls back to doing without it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/lazy.h"
#include "core/util.h"

#ifndef AIRLOCK_SONAME_GIT2
#define AIRLOCK_SONAME_GIT2 "libgit2.so"
#endif
#ifndef AIRLOCK_SONAME_CRYPTO
#define AIRLOCK_SONAME_CRYPTO "libcrypto.so.3"
#endif
#ifndef AIRLOCK_SONAME_PGQUERY
#define AIRLOCK_SONAME_PGQUERY "libpg_query.so"
#endif

struct lazy_lib {
	const char *soname;
	const char *package;
	const char *const *names; /* symbol names, in table order */
	size_t count;
	void **slots;             /* the table, viewed as pointers */
	bool loaded;
	char *error;              /* sticky: a failed load is not retried */
	char *last;               /* a transient failure's message, this try's */
};

/*
 * dlopen() keeps errno to itself, so a load that failed for want of a
 * descriptor or memory is told by its message, which ends with the
 * strerror() of the cause in this process's locale. Such a failure is the
 * moment's, not the host's: it is not kept, and the next call tries again
 * (the gate runs for hours, and one burst of open files must not leave it
 * unable to load libgit2 for good); the hint says what to raise, not to
 * install a package that is there.
 */
static const int lazy_transient[] = {EMFILE, ENFILE, ENOMEM};

static int lazy_fail_open(struct lazy_lib *lib, const char *why)
{
	size_t n = why ? strlen(why) : 0;

	free(lib->error);
	lib->error = NULL;
	for (size_t i = 0; i < nitems(lazy_transient); i++) {
		const char *e = strerror(lazy_transient[i]);
		size_t k = strlen(e);

		if (n >= k && strcmp(why + n - k, e) == 0) {
			free(lib->last);
			lib->last = xasprintf("cannot load %s: %s (%s; tried again on the next "
			                      "call)", lib->soname, why,
			                      lazy_transient[i] == ENOMEM ? "out of memory"
			                      : "raise the open-file limit, ulimit -n");
			return -1;
		}
	}
	lib->error = xasprintf("cannot load %s: %s (install %s)", lib->soname,
	                       why ? why : "unknown error", lib->package);
	return -1;
}

/*
 * Opens the library and fills every slot; 0, or -1 with lib->error set
 * (kept: the library is missing or broken) or lib->last (this try only).
 */
static int lazy_load(struct lazy_lib *lib)
{
	void *h;

	if (lib->loaded)
		return 0;
	if (lib->error)
		return -1;
	h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return lazy_fail_open(lib, dlerror());
	for (size_t i = 0; i < lib->count; i++) {
		lib->slots[i] = dlsym(h, lib->names[i]);
		if (lib->slots[i] == NULL) {
			lib->error = xasprintf("%s lacks %s (install %s)", lib->soname,
			                       lib->names[i], lib->package);
			return -1;
		}
	}
	lib->loaded = true;
	return 0;
}

#define LAZY_NAME(f) #f,
static const char *const git_names[] = {LAZY_GIT_FUNCS(LAZY_NAME)};
static const char *const crypto_names[] = {LAZY_CRYPTO_FUNCS(LAZY_NAME)};
static const char *const pgquery_names[] = {LAZY_PGQUERY_FUNCS(LAZY_NAME)};
#undef LAZY_NAME

static struct lazy_git git_table;
static struct lazy_crypto crypto_table;
static struct lazy_pgquery pgquery_table;

static struct lazy_lib git_lib = {AIRLOCK_SONAME_GIT2, "libgit2-dev", git_names,
                                  nitems(git_names), (void **)&git_table, false, NULL,
                                  NULL};
static struct lazy_lib crypto_lib = {AIRLOCK_SONAME_CRYPTO, "libssl-dev", crypto_names,
                                     nitems(crypto_names), (void **)&crypto_table,
                                     false, NULL, NULL};
static struct lazy_lib pgquery_lib = {AIRLOCK_SONAME_PGQUERY, "libpg-query-dev",
                                      pgquery_names, nitems(pgquery_names),
                                      (void **)&pgquery_table, false, NULL, NULL};

static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

static const void *lazy_get(struct lazy_lib *lib, const void *table, char **errstr)
{
	int rc;

	pthread_mutex_lock(&lazy_lock);
	bool first = !lib->loaded;
	rc = lazy_load(lib);
	if (rc == 0 && first && lib == &git_lib && git_table.git_libgit2_init() < 0) {
		lib->loaded = false;
		lib->error = xstrdup("cannot initialise libgit2");
		rc = -1;
	}
	/* The log's SHA-256 is the default provider's whatever the host's
	 * openssl.cnf says, and reading that file (and what it loads) was
	 * 0.7 ms of each process that writes the log: a hook call's. */
	if (rc == 0 && first && lib == &crypto_lib &&
	    crypto_table.OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1) {
		lib->loaded = false;
		lib->error = xstrdup("cannot initialise libcrypto");
		rc = -1;
	}
	if (rc < 0 && errstr)
		*errstr = xstrdup(lib->error ? lib->error : lib->last);
	pthread_mutex_unlock(&lazy_lock);
	if (rc < 0)
		return NULL;
	return table;
}

const struct lazy_git *lazy_git(char **errstr)
{
	return lazy_get(&git_lib, &git_table, errstr);
}

const struct lazy_crypto *lazy_crypto(char **errstr)
{
	return lazy_get(&crypto_lib, &crypto_table, errstr);
}

const struct lazy_pgquery *lazy_pgquery(char **errstr)
{
	return lazy_get(&pgquery_lib, &pgquery_table, errstr);
}

char *lazy_git_path(void)
{
	Dl_info info;
	bool loaded;

	pthread_mutex_lock(&lazy_lock);
	loaded = git_lib.loaded;
	pthread_mutex_unlock(&lazy_lock);
	if (!loaded || dladdr((void *)git_table.git_libgit2_init, &info) == 0 ||
	    info.dli_fname == NULL || info.dli_fname[0] != '/')
		return NULL;
	return xstrdup(info.dli_fname);
}
