/*
 * secrets.c: what a sandbox masks in its workdir, at the top level and
 * below: secret files (.env, keys, credentials: the classifier's names,
 * and the copies editors leave of them: server.key~, #.env#, ..env.swp),
 * and sockets and FIFOs, through which a host process listening on one
 * would take requests from a sandbox that has no network.
 * Rules:
 *  - the walk is breadth first, never follows a link to a directory, and
 *    skips version-control and dependency trees (what is in them is not the
 *    project's own, and node_modules alone can hold 100,000 directories);
 *  - it reads at most SECRETS_ENTRIES directory entries, so one plan costs a
 *    bounded time (docs/sandbox.md has the figures), and fails closed when a
 *    directory is left unread then, or cannot be read for a reason other
 *    than being gone or closed to the caller: what it holds would show
 *    unmasked, and a sandbox that can write the workdir could put a secret
 *    there (20,000 empty files made ahead of it, or a path too long);
 *  - a secret file is masked only when its real path stays in the workdir,
 *    and a .pem unless it holds certificates (public) and nothing else;
 *  - what a directory holds is remembered for the life of the process (the
 *    gate plans a sandbox per call). From a process's fourth search on,
 *    each directory read is watched with inotify (the watch set on the
 *    directory opened, before it is read), and one with no event since is
 *    known unchanged without a system call. A watch follows its inode, not
 *    the path: when a watched directory moves, the paths of all below it
 *    change, so that forgets everything, as do a mount table change, a
 *    lost event and a workdir that is another directory than last time.
 *    An unwatched directory is read again when its mtime, ctime, inode or
 *    device changed (the ctime too: a sandbox that can write the workdir
 *    can put an mtime back with utimensat(), never a ctime), and one
 *    changed within RACY_NS when read is read again next time too: a name
 *    added in the same clock tick leaves the times as they were (git's
 *    "racy" entries);
 *  - what a process's first searches read is kept for the next process in
 *    the state directory (see "kept for the next process" below), trusted
 *    by the same test as an unwatched directory's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/kept.h"
#include "core/state.h"
#include "core/util.h"
#include "exec/exec_internal.h"
#include "policy/policy.h"

#define RACY_NS 2000000000LL /* 2 s: coarser than any file system's clock */
/* Slots for remembered directories, a power of two, half of them used at
 * most (probes stay short); fuller, the table doubles, keeping what it
 * holds, up to room for every directory SECRETS_ENTRIES entries can hold
 * (past that, reached by a sweep's unbounded search, everything is
 * forgotten): a table too small would forget everything on every search. It
 * starts small: each page of it is a page fault (~20 us here) before the
 * first search, and 8,192 slots (720 KiB) added 2.3 ms to every one-shot
 * `airlock exec`, whose workdir mostly holds a few directories. */
#define CACHE_MIN 256
#define CACHE_MAX (1 << 18)

/* Directories never entered: version control, and trees of other people's
 * code or caches that a package manager or tool rebuilds. */
static const char *const skipped[] = {
	".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__", ".tox",
	".mypy_cache", ".pytest_cache", ".gradle", ".terraform", ".cache",
};

/* What one directory held when read: its secret names and subdirectories.
 * Its path is canonical (the walk starts at a real path and never enters a
 * link), so a secret that is a regular file needs no realpath(); a secret
 * name on anything else (a link) is resolved each time. */
struct dir_seen {
	char *path; /* owned; the key, kept once set (NULL: a free slot), so
	             * that no probe chain is ever cut */
	bool valid; /* the lists hold what the directory holds */
	int watch;  /* its inotify watch, or -1: then lstat() decides */
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
	char **files, **others, **subdirs; /* secret names; owned */
	char **pipes;                      /* sockets and FIFOs; owned */
	size_t entries;                    /* how many it had */
	bool has_git;                      /* an entry named .git */
	bool has_airlock;                  /* an entry named .airlock */
	char **hides, **keeps; /* names the deny rules' globs match; owned */
	uint64_t gen;          /* the set of globs they are for (0: none) */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dir_seen *cache; /* cache_slots of them, or NULL */
static size_t cache_slots;
static size_t cache_used;
static unsigned searches; /* secrets_find() calls: watching starts at WATCH_FROM */
static int ino_fd = -1;   /* inotify, or -1 */
static int mnt_fd = -1;   /* /proc/self/mountinfo: a mount changes what a path
                           * holds without an inotify event */
static size_t *watch_slot; /* watch -> its slot + 1 (0: none) */
static size_t watch_cap;
static bool watch_full; /* out of watches: no more tried until forgotten */
static bool dirty;      /* a directory was read since the last keep_save() */
static size_t dirs_read; /* directories read, for the tests */

/*
 * With deny = Read(...) or Edit(...) rules that name paths by a glob
 * (profile->hide_globs, keep_globs), reading a directory also notes which
 * of its entries they match (dir_seen.hides, keeps), for one set of
 * patterns, numbered gl_gen: so what a directory holds is for one set. A
 * search that brings another set (a policy changed, or the kept file's was
 * another) makes it the set, under a new number; what was remembered for an
 * older one serves its secrets still, but a search with globs reads the
 * directory again. A search that brings no set (the guard's, which has no
 * policy) takes what is remembered for any, and reads for the set.
 */
static char **gl_hide, **gl_keep; /* the set's patterns; owned */
static struct policy_globs *gl_hide_m, *gl_keep_m; /* compiled; NULL when empty */
static uint64_t gl_gen;  /* the set's number; 0: none */
static uint64_t gl_last; /* the last number given */
static bool gl_told;     /* a search brought its set: a kept file's is not taken */

/* No IN_DONT_FOLLOW: the watch is set through /proc/self/fd, a link to
 * the directory opened (itself opened without following one). */
#define WATCH_MASK                                                                        \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | \
	 IN_ONLYDIR | IN_EXCL_UNLINK)

/* One directory waiting to be read: its path and depth (the top is 0). */
struct pending_dir {
	char *path;
	int depth;
};

struct walk {
	const char *wd;
	unsigned what;         /* MASK_SECRETS, MASK_PIPES */
	struct search_globs *globs; /* what the deny rules' globs match, or NULL */
	struct pending_dir *q; /* queue; [head, n) still to read */
	size_t head, n, alloc;
	size_t entries; /* entries read so far */
	size_t pem_read; /* .pem bytes read so far */
	char **found;   /* real paths; owned, NULL-terminated */
	size_t nfound;
	bool via_links; /* found holds a link's target */
	char *linked;   /* a regular file found with another hard link; owned */
	char **gitdirs; /* the .git entries below the top, when asked; owned */
	size_t ngitdirs;
	bool want_gitdirs;
};

static bool skipped_name(const char *name)
{
	for (size_t i = 0; i < nitems(skipped); i++)
		if (strcmp(name, skipped[i]) == 0)
			return true;
	return false;
}

/* ---- the cache ------------------------------------------------------------ */

static size_t slot_of(const char *path)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (size_t)(h & (cache_slots - 1));
}

/* The slot holding path, or the free one where it would go. */
static struct dir_seen *cache_slot(const char *path)
{
	size_t i = slot_of(path);

	while (cache[i].path && strcmp(cache[i].path, path) != 0)
		i = (i + 1) & (cache_slots - 1);
	return &cache[i];
}

/* Forgets what the directory held; keeps its key and watch. */
static void seen_forget(struct dir_seen *s)
{
	strv_free(s->files);
	strv_free(s->others);
	strv_free(s->subdirs);
	strv_free(s->pipes);
	strv_free(s->hides);
	strv_free(s->keeps);
	s->files = s->others = s->subdirs = s->pipes = s->hides = s->keeps = NULL;
	s->gen = 0;
	s->entries = 0;
	s->has_git = s->has_airlock = false;
	s->valid = false;
}

/* Forgets everything, the watches too (closing inotify drops them). */
static void cache_clear(void)
{
	for (size_t i = 0; i < cache_slots; i++) {
		seen_forget(&cache[i]);
		free(cache[i].path);
		cache[i].path = NULL;
		cache[i].watch = -1;
	}
	cache_used = 0;
	if (ino_fd >= 0)
		close(ino_fd);
	ino_fd = -1;
	free(watch_slot);
	watch_slot = NULL;
	watch_cap = 0;
	watch_full = false;
}

/* Makes the (empty) table n slots. */
static void cache_resize(size_t n)
{
	free(cache);
	cache = xcalloc(n, sizeof(*cache));
	cache_slots = n;
	for (size_t i = 0; i < n; i++)
		cache[i].watch = -1;
}

/* Doubles the table, keeping what it remembers and its watches: a search
 * of a workdir bigger than the table was would else forget all it read
 * before the last doubling, and the next search read it again. */
static void cache_grow(void)
{
	struct dir_seen *old = cache;
	size_t n = cache_slots;

	cache = NULL;
	cache_resize(n * 2);
	for (size_t i = 0; i < n; i++) {
		struct dir_seen *s;
		if (old[i].path == NULL)
			continue;
		s = cache_slot(old[i].path);
		*s = old[i];
		if (s->watch >= 0)
			watch_slot[s->watch] = (size_t)(s - cache) + 1;
	}
	free(old);
}

/* A one-shot `airlock exec` with a writable workdir searches three times
 * (the guard's note, the plan, the sweep after the run) and exits: a watch
 * set then costs an open, an fstat and inotify_add_watch() per directory
 * and never pays back. The gate's later calls search again and again. */
#define WATCH_FROM 4

/* From search WATCH_FROM on: inotify and the mount table's poll. */
static void watch_start(void)
{
	if (searches < WATCH_FROM || ino_fd >= 0)
		return;
	ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (mnt_fd < 0)
		mnt_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mnt_fd < 0 && ino_fd >= 0) { /* a mount would go unseen: no watching */
		close(ino_fd);
		ino_fd = -1;
	}
}

/* Watches the directory open at fd as s's, before it is read or trusted;
 * none when it cannot (no inotify, out of watches, or the same directory
 * watched already for another path, a bind mount: an event names one
 * slot): then lstat() decides, as before. */
static void watch_add(struct dir_seen *s, int fd)
{
	char via[32];
	int w;

	if (ino_fd < 0 || watch_full || s->watch >= 0)
		return;
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	if ((w = inotify_add_watch(ino_fd, via, WATCH_MASK)) < 0) {
		watch_full = errno == ENOSPC;
		return;
	}
	if ((size_t)w < watch_cap && watch_slot[w] != 0 && cache[watch_slot[w] - 1].watch == w)
		return;
	if ((size_t)w >= watch_cap) {
		size_t cap = (size_t)w * 2 + 64;
		watch_slot = xreallocarray(watch_slot, cap, sizeof(*watch_slot));
		memset(watch_slot + watch_cap, 0, (cap - watch_cap) * sizeof(*watch_slot));
		watch_cap = cap;
	}
	watch_slot[w] = (size_t)(s - cache) + 1;
	s->watch = w;
}

/* Takes in what changed since the last search: each directory with an
 * event is forgotten; a mount table change or a lost event forgets all. */
static void events_drain(void)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p = {.fd = mnt_fd, .events = POLLPRI};
	ssize_t n;

	if (ino_fd < 0)
		return;
	if (poll(&p, 1, 0) != 0) {
		cache_clear();
		return;
	}
	while ((n = read(ino_fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		for (char *q = buf; q < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)q;
			struct dir_seen *s;
			q += sizeof(*ev) + ev->len;
			if (ev->mask & (IN_Q_OVERFLOW | IN_MOVE_SELF)) {
				cache_clear(); /* lost events; or every path below moved */
				return;
			}
			if (ev->wd < 0 || (size_t)ev->wd >= watch_cap || watch_slot[ev->wd] == 0)
				continue;
			s = &cache[watch_slot[ev->wd] - 1];
			if (s->watch == ev->wd)
				seen_forget(s);
			if (ev->mask & IN_IGNORED && s->watch == ev->wd)
				s->watch = -1; /* the kernel dropped it: deleted, unmounted */
		}
	if (n < 0 && errno != EAGAIN) /* events may be lost: trust nothing remembered */
		cache_clear();
}

/* The workdir's path may lead to another directory with no event on any
 * watch (one above it renamed, another made in its place): one lstat() a
 * search checks that what is remembered for it is what is there. */
static void root_check(const char *wd)
{
	const struct dir_seen *s = cache_slot(wd);
	struct stat st;

	if (s->path && s->valid &&
	    (lstat(wd, &st) < 0 || st.st_dev != s->dev || st.st_ino != s->ino))
		cache_clear();
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* True when a directory with this mtime may still gain a name within the
 * same tick of the file system's clock. */
static bool racy(const struct timespec *mtime)
{
	struct timespec now;
	long long d;

	clock_gettime(CLOCK_REALTIME, &now);
	/* a time from a kept file may be anything: far off either way, the
	 * product below overflowed (UBSan stopped the call) */
	if (mtime->tv_sec > now.tv_sec)
		return true;
	if (mtime->tv_sec < now.tv_sec - RACY_NS / 1000000000LL - 1)
		return false;
	d = (now.tv_sec - mtime->tv_sec) * 1000000000LL + (now.tv_nsec - mtime->tv_nsec);
	return d < RACY_NS;
}

/* The slot for path, taken when it was free (the table grows, or forgets
 * all, first when it is half full). */
static struct dir_seen *cache_take(const char *path)
{
	struct dir_seen *s = cache_slot(path);

	if (s->path != NULL)
		return s;
	if (cache_used + 1 >= cache_slots / 2) {
		if (cache_slots < CACHE_MAX) {
			cache_grow();
		} else {
			cache_clear();
			cache_resize(cache_slots);
		}
		s = cache_slot(path);
	}
	s->path = xstrdup(path);
	s->watch = -1;
	cache_used++;
	return s;
}

/* ---- the deny rules' globs ------------------------------------------------- */

static bool strv_same(char *const *a, char *const *b)
{
	size_t i = 0;

	for (; a && a[i] && b && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return (a == NULL || a[i] == NULL) && (b == NULL || b[i] == NULL);
}

static void globs_drop(void)
{
	strv_free(gl_hide);
	strv_free(gl_keep);
	policy_globs_free(gl_hide_m);
	policy_globs_free(gl_keep_m);
	gl_hide = gl_keep = NULL;
	gl_hide_m = gl_keep_m = NULL;
	gl_gen = 0;
}

/* Makes hide and keep the set (none when both are empty), unless they are
 * already; -1 when a pattern is not one policy_globs_new() takes (the
 * policy or the kept file made them: it cannot happen, and fails closed). */
static int globs_set(char *const *hide, char *const *keep)
{
	struct policy_globs *h = NULL, *k = NULL;

	if (strv_same(hide, gl_hide) && strv_same(keep, gl_keep))
		return 0;
	if ((hide && *hide && (h = policy_globs_new(hide)) == NULL) ||
	    (keep && *keep && (k = policy_globs_new(keep)) == NULL)) {
		policy_globs_free(h);
		return -1;
	}
	globs_drop();
	if (h == NULL && k == NULL)
		return 0;
	gl_hide = strv_dup(hide);
	gl_keep = strv_dup(keep);
	gl_hide_m = h;
	gl_keep_m = k;
	gl_gen = ++gl_last;
	return 0;
}

/* One directory being read, split for the globs: its segments, with room
 * for an entry's name after them, and the sets its entries are matched
 * against (NULL: none, or one that matches the directory, masked or kept
 * whole). Made once per directory read, so an entry costs no allocation. */
struct dir_globs {
	char buf[PATH_MAX];
	char *segs[PATH_MAX / 2 + 1];
	size_t n;
	const struct policy_globs *hide, *keep;
};

static void dir_globs_start(struct dir_globs *dg, const char *path)
{
	char *save = NULL;

	dg->hide = dg->keep = NULL;
	dg->n = 0;
	/* a longer path was not opened: its directory is never read */
	if (gl_gen == 0 || strlen(path) >= sizeof(dg->buf))
		return;
	memcpy(dg->buf, path, strlen(path) + 1);
	for (char *t = strtok_r(dg->buf, "/", &save); t; t = strtok_r(NULL, "/", &save))
		dg->segs[dg->n++] = t;
	if (gl_hide_m && !policy_globs_match(gl_hide_m, dg->segs, dg->n))
		dg->hide = gl_hide_m;
	if (gl_keep_m && !policy_globs_match(gl_keep_m, dg->segs, dg->n))
		dg->keep = gl_keep_m;
}

/* Notes the entry name into s when the globs match it. */
static void dir_globs_entry(struct dir_globs *dg, struct dir_seen *s, const char *name)
{
	dg->segs[dg->n] = (char *)name; /* read, never written */
	if (dg->hide && policy_globs_match_entry(dg->hide, dg->segs, dg->n + 1))
		strv_push(&s->hides, name);
	if (dg->keep && policy_globs_match_entry(dg->keep, dg->segs, dg->n + 1))
		strv_push(&s->keeps, name);
}

/* ---- kept for the next process ---------------------------------------------- */

/*
 * A one-shot `airlock exec` read every directory of its workdir afresh (20
 * ms for 1,110 directories; an lstat() of each is a tenth of that). What a
 * process's first searches read is written to the state directory
 * (search/KEY, one file per workdir, private), and the next process's first
 * search starts from it: each directory kept is trusted only while its
 * device, inode, mtime and ctime are as kept, the test an unwatched
 * directory passes within a process, and one whose times were racy when
 * written is not kept. A file that is not the user's own and private, or does not
 * parse, is ignored: the file can only spare reads, never add a trust the
 * directory itself does not give. The sandbox cannot write it: the state
 * directory is hidden, and no grant may make it writable. The set of
 * globs the matches were noted for is written ahead of the directories,
 * and each notes whether its matches are for it: a process whose policy
 * has another set reads those directories again.
 */
#define KEEP_MAGIC "airlock-search 7" /* 7: .airlock noted */
#define KEEP_MAX (64u << 20)

/* Writes what is remembered of wd's tree, when something was read since. */
static void keep_save(const char *wd)
{
	char *path;
	struct buf b;

	if (!dirty || (path = state_file(wd, "search")) == NULL)
		return;
	dirty = false;
	buf_init(&b, KEEP_MAX);
	kept_str(&b, KEEP_MAGIC);
	kept_str(&b, wd);
	kept_list(&b, gl_hide);
	kept_list(&b, gl_keep);
	for (size_t i = 0; i < cache_slots; i++) {
		const struct dir_seen *s = &cache[i];
		uint64_t id[3] = {(uint64_t)s->dev, (uint64_t)s->ino, (uint64_t)s->entries};
		int64_t t[4] = {(int64_t)s->mtime.tv_sec, (int64_t)s->mtime.tv_nsec,
		                (int64_t)s->ctime.tv_sec, (int64_t)s->ctime.tv_nsec};
		uint8_t git = (uint8_t)(s->has_git | s->has_airlock << 1),
		        globbed = gl_gen != 0 && s->gen == gl_gen;
		if (s->path == NULL || !s->valid || racy(&s->mtime) || racy(&s->ctime) ||
		    !path_contains(wd, s->path))
			continue;
		kept_str(&b, s->path);
		buf_append(&b, id, sizeof(id));
		buf_append(&b, t, sizeof(t));
		buf_append(&b, &git, 1);
		kept_list(&b, s->files);
		kept_list(&b, s->others);
		kept_list(&b, s->subdirs);
		kept_list(&b, s->pipes);
		buf_append(&b, &globbed, 1);
		kept_list(&b, globbed ? s->hides : NULL);
		kept_list(&b, globbed ? s->keeps : NULL);
	}
	(void)kept_write(path, &b);
	free(path);
	buf_free(&b);
}

/* One kept directory into the table, its matches for the set gen (0:
 * none, dropped); false when the record is amiss. */
static bool keep_record(struct kept_rd *r, const char *wd, uint64_t gen)
{
	const char *path = kept_rd_str(r);
	uint64_t id[3];
	int64_t t[4];
	uint8_t git, globbed;
	struct dir_seen *s;
	char **lists[6];

	kept_rd_bytes(r, id, sizeof(id));
	kept_rd_bytes(r, t, sizeof(t));
	kept_rd_bytes(r, &git, 1);
	for (size_t i = 0; i < 4; i++)
		lists[i] = kept_rd_list(r, KEPT_NAMES);
	kept_rd_bytes(r, &globbed, 1);
	for (size_t i = 4; i < nitems(lists); i++)
		lists[i] = kept_rd_list(r, KEPT_NAMES);
	if (!globbed || gen == 0) {
		strv_free(lists[4]);
		strv_free(lists[5]);
		lists[4] = lists[5] = NULL;
	}
	for (size_t i = 0; i < nitems(t); i += 2) /* nanoseconds as a clock gives them */
		if (t[i + 1] < 0 || t[i + 1] >= 1000000000)
			r->bad = true;
	if (r->bad || path[0] != '/' || !path_contains(wd, path) ||
	    (s = cache_take(path))->valid) {
		for (size_t i = 0; i < nitems(lists); i++)
			strv_free(lists[i]);
		return !r->bad && path[0] == '/';
	}
	s->dev = (dev_t)id[0];
	s->ino = (ino_t)id[1];
	s->entries = (size_t)id[2];
	s->mtime = (struct timespec){(time_t)t[0], (long)t[1]};
	s->ctime = (struct timespec){(time_t)t[2], (long)t[3]};
	s->has_git = (git & 1) != 0;
	s->has_airlock = (git & 2) != 0;
	s->files = lists[0];
	s->others = lists[1];
	s->subdirs = lists[2];
	s->pipes = lists[3];
	s->hides = lists[4];
	s->keeps = lists[5];
	s->gen = globbed ? gen : 0;
	s->valid = true;
	return true;
}

/* The set of globs a kept file's matches are for: the search's when it is
 * the same, or the file's when the search brought none yet (the guard's
 * search comes first); 0 when another set, or none, so none serve. */
static uint64_t keep_globs(struct kept_rd *r)
{
	char **hide = kept_rd_list(r, KEPT_PATHS), **keep = kept_rd_list(r, KEPT_PATHS);
	uint64_t gen = 0;

	if (!r->bad && (hide || keep)) {
		if (gl_gen == 0 && !gl_told && globs_set(hide, keep) < 0)
			r->bad = true;
		else if (strv_same(hide, gl_hide) && strv_same(keep, gl_keep))
			gen = gl_gen;
	}
	strv_free(hide);
	strv_free(keep);
	return gen;
}

/* Before a process's first search: what the last process kept of wd. */
static void keep_load(const char *wd)
{
	char *path = state_file(wd, "search");
	size_t len;
	char *data = path ? kept_read(path, KEEP_MAX, &len) : NULL;
	struct kept_rd r = {data, data ? data + len : NULL, data == NULL};
	uint64_t gen;

	if (!r.bad && (strcmp(kept_rd_str(&r), KEEP_MAGIC) != 0 || strcmp(kept_rd_str(&r), wd) != 0))
		r.bad = true;
	gen = r.bad ? 0 : keep_globs(&r);
	while (!r.bad && r.p < r.end)
		if (!keep_record(&r, wd, gen))
			r.bad = true;
	if (r.bad && cache_used > 0) /* half a file: none of it */
		cache_clear();
	free(data);
	free(path);
}

size_t secrets_dirs_read(void)
{
	return dirs_read;
}

void secrets_forget(void)
{
	pthread_mutex_lock(&cache_lock);
	if (cache)
		cache_clear();
	globs_drop();
	gl_told = false;
	searches = 0;
	dirty = false;
	pthread_mutex_unlock(&cache_lock);
}

/* ---- reading a directory -------------------------------------------------- */

/* The entry's type, not following a link (DT_DIR, DT_REG, ...). */
static unsigned char entry_type(DIR *d, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type;
	if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode)    ? DT_DIR
	       : S_ISREG(st.st_mode)  ? DT_REG
	       : S_ISSOCK(st.st_mode) ? DT_SOCK
	       : S_ISFIFO(st.st_mode) ? DT_FIFO
	                              : DT_UNKNOWN;
}

/* True when name, or name in lower case, is one of the classifier's secret
 * names: SERVER.KEY, .ENV and ID_RSA, copied from a system that ignores
 * case, hold what server.key, .env and id_rsa do. */
static bool secret_name_as_is(const char *name)
{
	char low[NAME_MAX + 1];
	size_t i;

	if (classify_secret_name(name))
		return true;
	for (i = 0; name[i] && i < NAME_MAX; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	return strcmp(low, name) != 0 && classify_secret_name(low);
}

/* The names editors and tools give a file's copies, which hold what it
 * does: {prefix, suffix} around the file's own name. */
static const struct {
	const char *pre, *suf;
} copy_names[] = {
	{"", "~"},    /* Emacs' and Vim's backup: server.key~ */
	{"#", "#"},   /* Emacs' auto-save: #.env# */
	{".", ".swp"}, /* Vim's swap file, its text in blocks: ..env.swp */
	{".", ".swo"}, {".", ".swn"}, {".", ".un~"}, /* the next swap files; undo */
	{"", ".bak"}, {"", ".orig"}, /* git mergetool's, patch's */
	{"", ".old"}, {"", ".save"}, /* nano's */
	{"", "___jb_tmp___"}, {"", "___jb_old___"}, /* JetBrains' safe write */
};

/* True when name is a secret name (secret_name_as_is()), or the name of a
 * copy of one (copy_names[], up to two deep: #server.key~#, or an Emacs
 * numbered backup .env.~2~): an editor left ..env.swp or #.env# beside
 * a masked .env, and server.key~ beside server.key, and they showed
 * what the masked file held. */
static bool secret_name(const char *name)
{
	char core[NAME_MAX + 1];
	size_t n = strlen(name);

	if (secret_name_as_is(name))
		return true;
	if (n > NAME_MAX)
		return false;
	memcpy(core, name, n + 1);
	for (int depth = 0; depth < 2; depth++) {
		bool cut = false;
		for (size_t i = 0; i < nitems(copy_names) && !cut; i++) {
			size_t p = strlen(copy_names[i].pre), q = strlen(copy_names[i].suf);
			if (n > p + q && strncmp(core, copy_names[i].pre, p) == 0 &&
			    strcmp(core + n - q, copy_names[i].suf) == 0) {
				memmove(core, core + p, n - p - q);
				n -= p + q;
				core[n] = '\0';
				cut = true;
			}
		}
		/* Emacs' numbered backups: NAME.~N~ */
		if (!cut && n > 4 && core[n - 1] == '~') {
			size_t k = n - 1;
			while (k > 0 && isdigit((unsigned char)core[k - 1]))
				k--;
			if (k < n - 1 && k >= 3 && core[k - 1] == '~' && core[k - 2] == '.') {
				n = k - 2;
				core[n] = '\0';
				cut = true;
			}
		}
		if (!cut)
			return false;
		if (secret_name_as_is(core))
			return true;
	}
	return false;
}

/* Lists an open directory into s (names only; s->path is the caller's). */
static void dir_list(DIR *d, struct dir_seen *s)
{
	struct dir_globs dg;
	struct dirent *e;

	dir_globs_start(&dg, s->path);
	s->gen = gl_gen;
	while ((e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		unsigned char t;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		s->entries++;
		s->has_git |= strcmp(name, ".git") == 0;
		s->has_airlock |= strcmp(name, ".airlock") == 0;
		t = entry_type(d, e);
		if (t == DT_SOCK || t == DT_FIFO)
			strv_push(&s->pipes, name);
		else if (secret_name(name))
			strv_push(t == DT_REG ? &s->files : &s->others, name);
		if (t == DT_DIR && !skipped_name(name))
			strv_push(&s->subdirs, name);
		if (dg.hide || dg.keep)
			dir_globs_entry(&dg, s, name);
	}
}

/* True when s remembers the directory st describes, unchanged. */
static bool seen_is(const struct dir_seen *s, const struct stat *st)
{
	return s->path && s->dev == st->st_dev && s->ino == st->st_ino &&
	       same_time(&s->mtime, &st->st_mtim) && same_time(&s->ctime, &st->st_ctim);
}

/* Opens path as a directory, never through a link; NULL with errno. */
static DIR *dir_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e;
	DIR *d;

	if (fd < 0)
		return NULL;
	if ((d = fdopendir(fd)) != NULL)
		return d;
	e = errno;
	close(fd);
	errno = e;
	return NULL;
}

/* Reads the open directory st describes into s, afresh. */
static void dir_read(DIR *d, struct dir_seen *s, const struct stat *st)
{
	seen_forget(s);
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->mtime = st->st_mtim;
	s->ctime = st->st_ctim;
	dir_list(d, s);
	s->valid = s->watch >= 0 || (!racy(&st->st_mtim) && !racy(&st->st_ctim));
	dirty = true;
	dirs_read++;
}

/*
 * What path holds: from the cache when watched with no event since, or
 * unwatched with its identity and mtime as remembered; else read. With
 * gen, what is remembered serves only when read for that set of globs.
 * Returns the entry, valid until the next call, or NULL with errno when
 * it cannot be opened.
 */
static const struct dir_seen *dir_get(const char *path, uint64_t gen)
{
	struct dir_seen *s = cache_take(path);
	bool fits = s->valid && (gen == 0 || s->gen == gen);
	struct stat st;
	DIR *d;

	if (fits && s->watch >= 0)
		return s; /* no event since it was read */
	/* not watched, and not to be: one lstat(), as cheap as it gets */
	if ((ino_fd < 0 || watch_full) && fits && lstat(path, &st) == 0 && seen_is(s, &st))
		return s;
	if ((d = dir_open(path)) == NULL) {
		seen_forget(s);
		return NULL;
	}
	watch_add(s, dirfd(d)); /* first: a change from here on is an event */
	if (fstat(dirfd(d), &st) < 0) {
		int e = errno;
		closedir(d);
		seen_forget(s);
		errno = e;
		return NULL;
	}
	if (!fits || !seen_is(s, &st))
		dir_read(d, s, &st);
	closedir(d);
	return s;
}

/* ---- the walk ------------------------------------------------------------- */

static void queue_push(struct walk *wk, char *path, int depth)
{
	if (wk->n == wk->alloc) {
		wk->alloc = wk->alloc ? wk->alloc * 2 : 64;
		wk->q = xreallocarray(wk->q, wk->alloc, sizeof(*wk->q));
	}
	wk->q[wk->n++] = (struct pending_dir){path, depth};
}

/* Adds real (taken) unless a link's target found it already: regular files
 * are found once each, as the walk never enters a link. A regular file
 * with another hard link is noted: the mask covers one name, and the
 * other, in any directory under any name, shows what it holds (a call
 * made `.env` and `ln .env keep.txt`; the user filled .env in later, in
 * place, and the next call read keep.txt). */
static void found_push(struct walk *wk, char *real)
{
	struct stat st;

	if (wk->via_links && strv_contains(wk->found, real)) {
		free(real);
		return;
	}
	if (!wk->linked && lstat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		wk->linked = xstrdup(real);
	strv_push_owned(&wk->found, real);
	wk->nfound++;
}

#define PEM_READ (1 << 20)  /* a .pem read whole, up to this; larger is masked */
#define PEM_TOTAL (64 << 20) /* .pem bytes read a search; past it, each is masked */

/* PEM block labels that hold nothing secret: certificates, CRLs, public
 * keys, requests, parameters. */
static const char *const pem_labels_public[] = {
	"CERTIFICATE",          "TRUSTED CERTIFICATE", "X509 CERTIFICATE", "X509 CRL",
	"PUBLIC KEY",           "RSA PUBLIC KEY",      "CERTIFICATE REQUEST",
	"NEW CERTIFICATE REQUEST", "PKCS7",            "CMS",
	"DH PARAMETERS",        "X9.42 DH PARAMETERS", "EC PARAMETERS",
};

/* Text that only private key material carries, in any of its forms: PEM
 * and SSH2 armour, PuTTY files, `openssl rsa|ec -text` dumps. */
static const char *const pem_marks_private[] = {
	"PRIVATE KEY", "Private-Key", "privateExponent", "PuTTY-User-Key-File", "Private-Lines",
	"priv:",
};

static bool pem_label_public(const char *label, size_t n)
{
	for (size_t i = 0; i < nitems(pem_labels_public); i++)
		if (strlen(pem_labels_public[i]) == n && memcmp(label, pem_labels_public[i], n) == 0)
			return true;
	return false;
}

/* A line of base64 alone, outside any block: key material without its
 * armour. Short ones are words ("x=1"). */
static bool pem_line_bare(const char *l, size_t n)
{
	if (n < 16)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)l[i]) && l[i] != '+' && l[i] != '/' && l[i] != '=')
			return false;
	return true;
}

/* One line of a .pem: false when it makes the file not public (a block
 * of another kind, bare base64 outside a block, a control byte). */
static bool pem_line_public(const char *l, size_t n, bool *inside, bool *blocks)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)l[i] < 0x20 ? l[i] != '\t' : l[i] == 0x7f)
			return false; /* binary: DER, or something else */
	if (n > 16 && memcmp(l, "-----BEGIN ", 11) == 0 && memcmp(l + n - 5, "-----", 5) == 0) {
		*inside = *blocks = true;
		return pem_label_public(l + 11, n - 16);
	}
	if (n >= 9 && memcmp(l, "-----END ", 9) == 0)
		*inside = false;
	return *inside || n == 0 || l[0] == '#' || !pem_line_bare(l, n);
}

/* True when text (a .pem read whole) holds public blocks and nothing
 * else that could be a key: comments and prose (a bundle's "# Issuer:"
 * lines, `openssl x509 -text` dumps) may lie between the blocks. */
static bool pem_text_public(const char *text, size_t len)
{
	bool inside = false, blocks = false;

	for (size_t i = 0; i < nitems(pem_marks_private); i++)
		if (memmem(text, len, pem_marks_private[i], strlen(pem_marks_private[i])))
			return false;
	for (const char *l = text, *end = text + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = (size_t)((nl ? nl : end) - l);
		if (n && l[n - 1] == '\r')
			n--;
		if (!pem_line_public(l, n, &inside, &blocks))
			return false;
		l = nl ? nl + 1 : end;
	}
	return blocks;
}

/* True when path names a .pem that holds only certificates and other
 * public blocks (a CA bundle, a vendored certifi's cacert.pem), which
 * tools and test suites read. Anything else is masked: a private key in
 * any form, one that cannot be read whole, one larger than PEM_READ, or
 * one past the search's PEM_TOTAL (a workdir filled with large .pem files
 * would make each search read them all). */
static bool pem_public(struct walk *wk, const char *path)
{
	size_t n = strlen(path), got = 0;
	ssize_t r = 0;
	struct stat st;
	char *buf;
	bool pub;
	int fd;

	if (n < 4 || strcasecmp(path + n - 4, ".pem") != 0)
		return false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > PEM_READ ||
	    wk->pem_read + (size_t)st.st_size > PEM_TOTAL) {
		close(fd);
		return false;
	}
	wk->pem_read += (size_t)st.st_size;
	buf = xmalloc((size_t)st.st_size + 1);
	while (got <= (size_t)st.st_size &&
	       (r = read(fd, buf + got, (size_t)st.st_size + 1 - got)) > 0)
		got += (size_t)r;
	close(fd);
	/* fail safe: a read error, or a size that changed while read */
	pub = r >= 0 && got == (size_t)st.st_size && pem_text_public(buf, got);
	free(buf);
	return pub;
}

/* A secret name on a link: its real path, when a regular file, a FIFO or
 * a socket (what opens to a secret) in the workdir not found already. */
static void found_resolve(struct walk *wk, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(path, real) && path_contains(wk->wd, real) && stat(real, &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
	    !strv_contains(wk->found, real) && !pem_public(wk, real)) {
		found_push(wk, xstrdup(real));
		wk->via_links = true;
	}
}

/* True when the directory at path, which could not be opened with errno
 * e, may be passed over: it is gone, or no longer a directory (a link is
 * not entered: its target is searched where it is), or closed to the
 * caller, so to the sandbox too, which runs as the same user. Closed means
 * it cannot be entered: one that can be but not listed (chmod 0111, which
 * a call that can write the workdir may do to the directory holding a
 * masked .env) still opens to a name known. Any other error (a path too
 * long to open, out of descriptors) leaves unknown what it shows. */
static bool unread_harmless(int e, const char *path)
{
	if (e == EACCES || e == EPERM)
		return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0;
	return e == ENOENT || e == ENOTDIR || e == ELOOP;
}

/* One directory: its secrets found, its subdirectories queued. */
static int walk_dir(struct walk *wk, const struct pending_dir *pd, char **errstr)
{
	bool globbed = wk->globs && gl_gen != 0; /* the search's set is gl_gen's */
	const struct dir_seen *s = dir_get(pd->path, globbed ? gl_gen : 0);

	if (s == NULL) {
		int e = errno;
		if (pd->depth > 0 && unread_harmless(e, pd->path))
			return 0;
		*errstr = xasprintf("workdir: cannot list %s to mask its secret files, sockets and "
		                    "FIFOs: %s%s",
		                    pd->path, strerror(e),
		                    e == EACCES ? " (it can be entered but not listed: make it "
		                                  "readable, or closed)"
		                                : "");
		return -1;
	}
	wk->entries += s->entries;
	if (wk->want_gitdirs && s->has_git && pd->depth > 0) {
		strv_push_owned(&wk->gitdirs, xasprintf("%s/.git", pd->path));
		wk->ngitdirs++;
	}
	if (wk->want_gitdirs && (wk->what & SEARCH_AIRLOCKS) && s->has_airlock && pd->depth > 0)
		strv_push_owned(&wk->gitdirs, xasprintf("%s/.airlock", pd->path));
	if (wk->globs && s->has_airlock && pd->depth > 0)
		strv_push_owned(&wk->globs->airlocks, xasprintf("%s/.airlock", pd->path));
	/* a FIFO with a secret name is a secret too: a password manager serves
	 * a .env through one (1Password's local .env files), network or not */
	for (size_t i = 0; s->pipes && s->pipes[i]; i++)
		if ((wk->what & MASK_PIPES) || ((wk->what & MASK_SECRETS) && secret_name(s->pipes[i])))
			found_push(wk, xasprintf("%s/%s", pd->path, s->pipes[i]));
	for (size_t i = 0; (wk->what & MASK_SECRETS) && s->files && s->files[i]; i++) {
		char *p = xasprintf("%s/%s", pd->path, s->files[i]);
		if (pem_public(wk, p))
			free(p);
		else
			found_push(wk, p);
	}
	for (size_t i = 0; (wk->what & MASK_SECRETS) && s->others && s->others[i]; i++) {
		char *p = xasprintf("%s/%s", pd->path, s->others[i]);
		found_resolve(wk, p);
		free(p);
	}
	for (size_t i = 0; globbed && s->hides && s->hides[i]; i++)
		strv_push_owned(&wk->globs->hidden, xasprintf("%s/%s", pd->path, s->hides[i]));
	for (size_t i = 0; globbed && s->keeps && s->keeps[i]; i++)
		strv_push_owned(&wk->globs->kept, xasprintf("%s/%s", pd->path, s->keeps[i]));
	for (size_t i = 0; s->subdirs && s->subdirs[i]; i++)
		queue_push(wk, xasprintf("%s/%s", pd->path, s->subdirs[i]), pd->depth + 1);
	return 0;
}

int secrets_search(const char *wd, unsigned what, char *const *skip, struct search_globs *globs,
                   char ***found, size_t *n, char ***gitdirs, char **errstr)
{
	struct walk wk = {.wd = wd, .what = what, .globs = globs, .want_gitdirs = gitdirs != NULL};
	int rc = 0;

	queue_push(&wk, xstrdup(wd), 0);
	if (globs)
		globs->hidden = globs->kept = globs->airlocks = NULL;
	pthread_mutex_lock(&cache_lock);
	if (cache == NULL)
		cache_resize(CACHE_MIN);
	gl_told |= globs != NULL;
	if (globs && globs_set(globs->hide, globs->keep) < 0) {
		*errstr = xstrdup("workdir: a deny rule's path pattern cannot be matched in the "
		                  "sandbox (not an absolute path of at most 128 segments)");
		rc = -1; /* fail safe: what it matches would show */
	}
	if (++searches == 1 && cache_used == 0)
		keep_load(wd);
	watch_start();
	events_drain();
	root_check(wd);
	watch_start(); /* again, when the drain forgot everything */
	while (rc == 0 && wk.head < wk.n) {
		/* a copy: walk_dir() queues more, which may move the queue */
		struct pending_dir pd = wk.q[wk.head++];
		if (strv_contains(skip, pd.path))
			continue;
		if (wk.entries >= SECRETS_ENTRIES && !(what & SEARCH_SWEEP)) { /* pd unsearched */
			size_t wl = strlen(wd);
			const char *rel = strlen(pd.path) > wl ? pd.path + wl + 1 : pd.path;
			size_t top = strcspn(rel, "/");
			*errstr = xasprintf("workdir %s: more than %d entries to search for secret "
			                    "files, sockets and FIFOs (not counting .git, "
			                    "node_modules and other tool trees), so %s was not searched "
			                    "and could show one unmasked: if a tree such as %.*s holds "
			                    "no secrets, name it in the profile's secrets-skip "
			                    "(airlock-policy(5)), or run from a smaller directory",
			                    wd, SECRETS_ENTRIES, pd.path, (int)top, rel);
			rc = -1;
		} else if ((rc = walk_dir(&wk, &pd, errstr)) < 0 && (what & SEARCH_SWEEP) &&
		           pd.depth > 0) {
			free(*errstr); /* a path too long, say: the host's git cannot */
			*errstr = NULL; /* reach it by that path either */
			rc = 0;
		}
	}
	if (rc == 0 && searches < WATCH_FROM)
		keep_save(wd);
	pthread_mutex_unlock(&cache_lock);
	if (rc == 0 && wk.linked && (what & MASK_SECRETS)) {
		*errstr = xasprintf("workdir: %s has another hard link, which would show what it "
		                    "holds unmasked: remove that link (find . -samefile %s lists "
		                    "it), or use a profile that shows secret files",
		                    wk.linked, wk.linked);
		rc = -1;
	}
	free(wk.linked);
	for (size_t i = 0; i < wk.n; i++)
		free(wk.q[i].path);
	free(wk.q);
	if (rc < 0) {
		strv_free(wk.found);
		strv_free(wk.gitdirs);
		wk.found = wk.gitdirs = NULL;
		wk.nfound = 0;
		if (globs) {
			strv_free(globs->hidden);
			strv_free(globs->kept);
			strv_free(globs->airlocks);
			globs->hidden = globs->kept = globs->airlocks = NULL;
		}
	}
	*found = wk.found;
	*n = wk.nfound;
	if (gitdirs)
		*gitdirs = wk.gitdirs;
	return rc;
}

int secrets_find(const char *wd, unsigned what, char *const *skip, char ***found, size_t *n,
                 char ***gitdirs, char **errstr)
{
	return secrets_search(wd, what, skip, NULL, found, n, gitdirs, errstr);
}

void secrets_globs_expect(char *const *hide, char *const *keep)
{
	pthread_mutex_lock(&cache_lock);
	gl_told = true;
	if (globs_set(hide, keep) < 0) /* the search that brings them fails */
		globs_drop();
	pthread_mutex_unlock(&cache_lock);
}
