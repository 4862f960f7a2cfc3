/*
 * exec_internal.h: what the files of exec/ share and nothing outside exec/
 * includes: the backend table, the mount plan, the child's report page and
 * the per-concern helpers. Code marked "child" runs between clone and execve
 * of a possibly multi-threaded parent: syscalls only, no malloc, no stdio.
 */
#ifndef AIRLOCK_EXEC_INTERNAL_H
#define AIRLOCK_EXEC_INTERNAL_H

#include <limits.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "exec/exec.h"
#include "exec/init/init.h"

/* The directory the new root is staged on before pivot_root. */
#define SBX_STAGE "/tmp"

/* ---- backends (backend.c) ---------------------------------------------- */

struct exec_backend {
	const char *name;
	/* Checks the spec and builds what the call needs; 0 or -1 + errstr. */
	int (*prepare)(const struct exec_spec *spec, void **state, char **errstr);
	/* Runs the prepared call and waits; 0 when it ran, -1 + errstr. */
	int (*run)(void *state, struct exec_result *res, char **errstr);
	/* Frees what prepare built; accepts NULL. */
	void (*destroy)(void *state);
};
extern const struct exec_backend exec_backend_namespace; /* ns.c */
extern const struct exec_backend exec_backend_none;      /* backend.c */

/* ---- what a writable workdir must not gain (guard.c) -------------------- */

/* The paths a writable workdir keeps, relative to it (guard.c's table,
 * which mounts.c reads too). Each one that exists is bound read-only, but
 * the holders are bound onto themselves, still writable, so that they
 * cannot be renamed away; guard_sweep() acts on those the run made. */
enum guard_kind {
	GUARD_PIN,     /* a directory holding others; a link or file made here goes */
	GUARD_GITDIR,  /* .git: a PIN when a directory, read-only whole when not */
	GUARD_REMOVE,  /* made by the run: removed */
	GUARD_CONFIG,  /* made by the run: kept only if every key is inert */
	GUARD_HOOKS,   /* made by the run: all but *.sample removed */
	GUARD_MODULES, /* made by the run: each submodule's config and hooks, as above */
	GUARD_WORKTREES, /* made by the run: each linked worktree's commondir and config */
};
struct guard_path {
	const char *rel;
	enum guard_kind kind;
};
#define GUARD_NPATHS 103
extern const struct guard_path guard_paths[GUARD_NPATHS];
/* What each guarded path is (lstat, links never followed). */
struct guard_id {
	bool present, is_dir;
	dev_t dev;
	ino_t ino;
};
/* A directory of the table each of whose subdirectories may hold a file
 * read as the table's own (one level of names, a fixed file name): the
 * dev containers spec reads .devcontainer/NAME/devcontainer.json as it
 * reads .devcontainer/devcontainer.json. The plan keeps an existing one
 * read-only and its NAME pinned; the sweep removes one the run made. */
struct guard_named {
	const char *dir, *file;
};
#define GUARD_NNAMED 1
extern const struct guard_named guard_named[GUARD_NNAMED];
/* What guard_note() found below them: "DIR/NAME", what NAME and
 * NAME/FILE were (not followed), and which entry of guard_named[]. */
struct guard_name {
	char *rel; /* owned */
	size_t k;
	struct guard_id dir, file;
};
/* core.hooksPath directories kept at most (guard_config_refs()): one is
 * the rule, a few where includeIf's choose between them. */
#define GUARD_HOOKS_MAX 8

/* Where a path of the table lies under a root of the guard: the workdir
 * holds all of them as they are; a linked worktree's common dir and gitdir
 * (git true) hold the .git part, ".git" standing for the root itself ("")
 * and ".git/config" for "config"; NULL for the rest. */
const char *guard_rel(size_t i, bool git);
/* The entries of guard_paths[] that hold entry i (directories it lies
 * under), in *j; returns how many. Static storage. */
size_t guard_holders(size_t i, const uint8_t **j);

/* What a link or special file in a git directory is (lstat). */
struct guard_special {
	dev_t dev;
	ino_t ino;
	struct timespec ctime; /* a rename or a new link changes it */
};
/* The change times that are a run's: from since on, to until (whole
 * seconds, inclusive; 0: no end). */
struct guard_span {
	struct timespec since;
	time_t until;
};
/* The roots: the workdir, and a linked worktree's two git directories,
 * which a writable workdir's run may write as well (mounts.c); or, in
 * GUARD_COMMON, a git directory inside the workdir its .git file names. */
enum { GUARD_WD, GUARD_COMMON, GUARD_WTDIR, GUARD_NROOTS };
struct guard_note {
	char *root[GUARD_NROOTS]; /* owned; NULL when absent */
	struct guard_id id[GUARD_NROOTS][GUARD_NPATHS];
	char **hooks_rels;       /* core.hooksPath in the workdir; owned, or NULL */
	char **include_rels;     /* what the config includes from the workdir; owned */
	struct guard_id hooks_id[GUARD_HOOKS_MAX];
	struct guard_special *specials; /* links, FIFOs, sockets and devices in
	                                 * the git directories, sorted; owned */
	size_t nspecials;
	/* repositories nested in the workdir: each X/.git the search passes */
	char **skip;              /* what the search does not enter; owned */
	struct guard_span since;  /* from the note's time on: a change time
	                           * at or past it is the run's */
	struct guard_nested *nested; /* what each .git was, sorted by id; owned */
	size_t nnested;
	bool nested_unknown;      /* the search failed: none counts as made */
	struct guard_nested *airlocks; /* each nested .airlock, sorted by id; owned */
	size_t nairlocks;
	char **marks;             /* the workdir index's entries marked
	                           * assume-unchanged or skip-worktree, sorted;
	                           * owned, NULL when none */
	struct guard_file *files; /* rebase todos and included configs; owned */
	size_t nfiles;
	struct guard_id refs_id[2]; /* .git/refs and the common dir's refs */
	struct guard_name *names; /* below guard_named[], sorted by rel; owned */
	size_t nnames;
};
/* What a file the sweep checks by its change was before the run (stat,
 * links followed as git follows them). */
struct guard_file {
	char *path; /* owned */
	bool present;
	struct guard_special id;
};
struct guard_nested { /* a nested .git, wherever the run moves it */
	dev_t dev;
	ino_t ino;
	struct guard_id target; /* where a .git file or link leads, when checked */
	struct guard_id hooks;  /* the hooks directory of the git directory */
};
/* Notes what each guarded path under the workdir wd (resolved), and under
 * the git directories of a linked worktree (found with home as mounts.c
 * does), is before a run, and the repositories nested in wd outside skip
 * (mounts_search_skip()). guard_note_clear() frees, also after -1: the
 * config could not be read (guard_config_refs()), and the call must not run. */
int guard_note(const char *wd, const char *home, char *const *skip, struct guard_note *g);
/* Why a call is refused when guard_note() or the plan cannot read the
 * repository config (guard_config_refs() -1). */
#define GUARD_CONFIG_UNREAD                                                              \
	"workdir: the repository config, or a file it includes, cannot be read within 2 s " \
	"(a FIFO, a config git rejects, one over 1 MiB, or over 64 files included or 8 "   \
	"hooks paths), so whether it sets "                                                 \
	"core.hooksPath or includes a file in the workdir is unknown, and those cannot be " \
	"kept read-only"

/* What the repository config of wd (resolved) has git run or read from
 * the workdir, relative to wd, the files it includes followed at any
 * depth, an includeIf whatever its condition: each hooks directory
 * core.hooksPath names (*hooks_rels, those the table does not hold
 * already, as husky's .husky/_; at most GUARD_HOOKS_MAX), kept as
 * .git/hooks is; and each file included (include.path, includeIf.*.path;
 * *include_rels), kept as a config is. 0 with new vectors or NULL; -1 when
 * a config names either but cannot be read, or names too many: what the
 * host's git runs is unknown. */
int guard_config_refs(const char *wd, char ***hooks_rels, char ***include_rels);
/* The next place in the config text [p, end) that may open an include
 * or includeIf section (the word after a "[" and blanks), or NULL. */
char *guard_include_next(const char *p, const char *end);
/* The files git reads before a repository's own config, as the environment
 * names them (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL,
 * XDG_CONFIG_HOME, HOME): a new vector, caller frees (strv_free). */
char **guard_global_configs(void);
/* The text of the regular file name under dfd (at most 1 MiB), read
 * without waiting on a FIFO or following a link (follow: through links),
 * NUL-terminated (a new string, *len its length); NULL when it is not one. */
char *guard_config_text(int dfd, const char *name, bool follow, size_t *len);

/* ---- repository config credentials (gitcreds.c) ------------------------- */

/* The config text (n bytes) as a sandbox may see it: a new string with
 * every URL's user information and every shape the audit log redacts cut,
 * or NULL when it holds none (it is shown as it is). */
char *gitcreds_cut(const char *text, size_t n);
/* What the sandbox is to see of the config text (n bytes): as
 * gitcreds_cut(), and then, when git may read a value otherwise than it
 * lies in the text (a quote or a backslash there), a note alone unless git
 * reads no credential from the copy (libgit2 reads it: quotes inside a
 * URL's user information, `https://u:"tok"@h`, or a line continued inside
 * it hide it from the shapes, not from git). A new string, or NULL. */
char *gitcreds_shown(const char *text, size_t n);
/* The same for the repository nested in wd whose git directory is gitdir
 * and whose work tree is top: relative to wd, what lies in wd. */
int guard_nested_refs(const char *wd, const char *top, const char *gitdir, char ***hooks_rels,
                      char ***include_rels);
/* The files the config of that repository itself includes from wd
 * (relative to wd), not the user's or the system's: reading those costs a
 * one-shot call libgit2 (~15 ms) when ~/.gitconfig has an includeIf. */
int guard_repo_includes(const char *wd, const char *top, const char *gitdir, char ***include_rels);
void guard_note_clear(struct guard_note *g);
/* What lies below each directory of guard_named[] under the workdir wd,
 * into *names (sorted by rel; owned, guard_names_free()); their count.
 * A directory that is a link, or none, holds nothing: one readdir each. */
size_t guard_names_read(const char *wd, struct guard_name **names);
void guard_names_free(struct guard_name *names, size_t n);
/* Acts on each guarded path the run made (created, replaced, or under a
 * holder it replaced) under before's roots; returns what went as "a, b
 * (why)" (caller frees) or NULL when nothing did. */
char *guard_sweep(const struct guard_note *before);
/* After a run whose sweep never happened (pending.c: its airlock was
 * killed), acts on what changed under g's roots in span, by change
 * time, as guard_sweep() on what a run made; returns what went, as
 * guard_sweep() does. g is noted afresh after it. */
char *guard_recover(const struct guard_note *g, const struct guard_span *span);

/* ---- a guarded run's note on disk until its sweep (pending.c) ---------- */

/* Records span, the change times a guarded run may make (from its note
 * to its deadline), for the workdir wd (resolved) in the user's state
 * directory; the file's path, a new string, or NULL when it cannot be
 * written (then a kill leaves nothing to recover). */
char *pending_begin(const char *wd, const struct guard_span *span);
/* Rewrites the record at path (NULL: nothing) with span: a run whose
 * plan took long moves its deadline, which counts from the command's
 * start, past the one recorded at the note. */
void pending_update(const char *path, const char *wd, const struct guard_span *span);
/* Removes the record and frees path (NULL: nothing). */
void pending_end(char *path);
/* True when a run in wd left a record and is gone (killed before its
 * sweep): in *span, from the earliest start to the latest deadline of
 * such records (until 0 when one has none); their paths in *taken (a new
 * vector), for pending_orphans_end() once the recovery is done: a kill
 * before then, or a record of the recovering run that could not be
 * written, leaves them for the next run. */
bool pending_orphans(const char *wd, struct guard_span *span, char ***taken);
/* Removes each record in taken, and frees it (NULL: nothing). */
void pending_orphans_end(char **taken);

/* ---- steps and the report page (ns.c) ----------------------------------- */

/* A setup step; each has a name and a fix in ns.c's table. */
enum sbx_step {
	STEP_NONE,
	STEP_CLONE,
	STEP_PARENT_GONE,
	STEP_UIDMAP,
	STEP_CGROUP,
	STEP_OPEN_SOURCE,
	STEP_MOUNT,
	STEP_PIVOT,
	STEP_HOSTNAME,
	STEP_LOOPBACK,
	STEP_CAPS,
	STEP_FORK,
	STEP_LIMITS,
	STEP_CHDIR,
	STEP_SECCOMP,
	STEP_EXEC,
	STEP_INIT,
	STEP_COUNT
};

/* Written by the child, which shares the parent's memory until execve. */
struct sbx_report {
	int step;         /* enum sbx_step that failed; STEP_NONE when none */
	int err;          /* its errno */
	char detail[512]; /* the path or object the step was working on */
	long long t[8];   /* clock_ns() at the phases (bench/exec.sh's breakdown) */
};

/* Phases timed into sbx_report.t. */
enum sbx_phase {
	PH_CLONE,
	PH_CHILD,
	PH_MAPPED,
	PH_MOUNTED,
	PH_READY,
	PH_FORKED,
	PH_EXEC,
	PH_DONE, /* the parent has the command's status */
	PH_COUNT
};

/* Prints the mean phase durations of this process's calls (bench only;
 * collected when AIRLOCK_EXEC_PHASES is set). */
#include <stdio.h>
void exec_phases_print(FILE *f);

/* Child: records a failure in the report (async-signal-safe). */
void sbx_report_fail(struct sbx_report *r, enum sbx_step step, int err, const char *detail);
/* Returns a new message for a failed report: step, errno, detail, fix. */
char *sbx_report_message(const struct sbx_report *r);

/* ---- mount plan (mounts.c) ---------------------------------------------- */

enum sbx_op_kind {
	OP_MKDIR,   /* dst */
	OP_MKFILE,  /* dst: an empty file to bind a file onto */
	OP_FILE,    /* dst: a copy of a small host file (data, len bytes) */
	OP_SYMLINK, /* dst -> src */
	OP_TMPFS,   /* tmpfs on dst with options data */
	OP_BIND,    /* host src (opened before staging) onto dst */
	OP_PROC,    /* a new proc on dst */
	OP_DEVPTS,  /* a new devpts instance on dst */
	OP_REBIND,  /* dst (inside the stage) bound onto itself, then attrs */
	OP_OVERLAY, /* overlay: lower = src, upper/work = data/{upper,work} */
	OP_SETATTR, /* attrs on the mount at dst itself, not its submounts */
	OP_COVER,   /* dst, a host file, covered read-only by our copy (data, len
	             * bytes): written in the stage, bound, unlinked */
};

struct sbx_op {
	enum sbx_op_kind kind;
	char *src;         /* owned */
	char *dst;         /* staged path, SBX_STAGE + the path inside; owned */
	char *data;        /* mount data, or OP_FILE's or OP_COVER's contents; owned */
	size_t len;        /* OP_FILE, OP_COVER: bytes in data */
	unsigned attr_set; /* MOUNT_ATTR_* applied after mounting */
	bool on_host;      /* its mount point is a host entry (under a bound host
	                    * directory); set by mounts_mark_host() */
};

/* The child keeps three fds per op on its stack: the plan's bound. */
#define SBX_MAX_OPS 2048

struct sbx_plan {
	struct sbx_op *ops;
	size_t n, alloc;
	char *workdir; /* the command's cwd inside (resolved); owned */
	char *home;    /* $HOME inside; owned */
};

/* The home the sandbox hides and mounts_plan() is given: $HOME when it is
 * an absolute path other than /, else root's or none. Not owned. */
const char *mounts_home(void);
/* What a search of the workdir wd (resolved) does not enter under profile
 * p: the kernel's mounts below it (NULL when the mount table cannot be
 * read) and p's secrets_skip; a new vector (strv_free). */
char **mounts_search_skip(const struct profile *p, const char *wd);
/* True when a sandbox of profile p can write in the workdir wd (resolved):
 * p's workdir is read-write, or one of its read-write grants resolves to
 * wd or to a path below it (a `readonly` profile granting `build/`, or the
 * workdir itself); what it can write there is guarded as a writable
 * workdir is. */
bool mounts_writes_workdir(const struct profile *p, const char *wd);
/*
 * Builds the mount plan for a spec: the system binds, /dev, /proc, /tmp,
 * the empty home, the workdir (or its overlay) and the granted paths, every
 * granted path resolved first. host_root: the caller is root on the host,
 * so /proc's sysctls and the like are rebound read-only. Returns 0, or -1
 * with *errstr (caller frees).
 */
int mounts_plan(const struct exec_spec *spec, const char *home, bool host_root,
                struct sbx_plan *pl, char **errstr) AIRLOCK_MUST_CHECK;
void mounts_plan_clear(struct sbx_plan *pl);
/* What the plan masks in the workdir, for a person: "a/.env, b.key and 4
 * more" (relative paths); a new string, or NULL when nothing. */
char *mounts_masked(const struct sbx_plan *pl);
/* Makes dst (cleared first by the caller) a deep copy of src. */
void mounts_plan_copy(struct sbx_plan *dst, const struct sbx_plan *src);
/* True when two plans build the same root. */
bool mounts_plan_same(const struct sbx_plan *a, const struct sbx_plan *b);
/* Drops the system paths mounts_plan() resolved once and keeps reusing,
 * after a sandbox could not open one of them. */
void mounts_forget_system(void);
/* Child: opens the sources, stages the new root and pivots into it. The
 * plan is only read: other calls' children may be using it too. */
int mounts_apply(const struct sbx_plan *pl, struct sbx_report *r);
/* Marks each mount whose mount point is a host directory entry (on_host):
 * a host rename or unlink of that entry detaches the mount in every
 * namespace. For a sandbox built ahead, which mounted a while before its
 * call. */
void mounts_mark_host(struct sbx_plan *pl);
/* Child, after mounts_apply() and pivot_root: 0 when every on_host mount is
 * still in place (or its path is gone); -1 with the path in *r when one was
 * detached, so the path now shows the host's new, unprotected entry. */
int mounts_check_attached(const struct sbx_plan *pl, struct sbx_report *r);

/* ---- seccomp (seccomp.c) ------------------------------------------------ */

/* A filter's variant, bits or'ed: the call has the network; no memory
 * cgroup holds its tree (System V segments are capped in size then). */
enum { SECCOMP_NETWORK = 1, SECCOMP_UNCAPPED = 2, SECCOMP_VARIANTS = 4 };
/* Returns the compiled filter (built once per process and variant, static
 * storage), or NULL with *errstr set. Thread-safe. */
const struct sock_fprog *seccomp_filter(unsigned variant, char **errstr);
/* Compiles the filter with libseccomp; a new program (free ->filter and it)
 * or NULL with *errstr. */
struct sock_fprog *seccomp_filter_compile(unsigned variant, char **errstr);
/* Writes exec/seccomp_bpf.h (every variant as a C array); -1 with *errstr. */
int seccomp_filter_header(FILE *f, char **errstr);
/* Child: sets no_new_privs and installs the filter; -1 with errno. */
int seccomp_install(const struct sock_fprog *prog);

/* ---- limits (limits.c) -------------------------------------------------- */

#define LIMITS_MAX 10
struct sbx_limits {
	int res[LIMITS_MAX];
	struct rlimit rl[LIMITS_MAX];
	size_t n;
};
/* Fills the rlimits a profile asks for (core size always 1 byte). */
void limits_from_profile(const struct profile *p, struct sbx_limits *l);
/* Child: applies them, all but the address-space cap when tree_capped (a
 * memory cgroup holds the whole tree: cgroup_memory_capped()); -1 with
 * errno. */
int limits_apply(const struct sbx_limits *l, bool tree_capped);

/* Child, before seccomp (which then keeps it): RLIMIT_CORE 1, the value
 * for which the kernel runs no core_pattern helper; 0 where the caller's
 * hard limit is 0. -1 with errno. */
int limits_core_pin(void);

/* Reads, once per process, the caps the sandbox's user namespace gets on
 * what the kernel counts per user across namespaces (inotify, fanotify,
 * new user namespaces). Call before any child that applies them. */
void limits_userns_prepare(void);
/* Child, holding its capabilities in the new user namespace: writes those
 * caps; -1 with errno and *failed the file. */
int limits_userns_apply(const char **failed);

struct sbx_cgroup;
/*
 * Creates a pids cgroup capped at max processes and opens its cgroup.procs
 * for the child to join; where a memory cgroup is writable, caps the tree's
 * memory at mem bytes too (v2: in the same cgroup; v1: a second one). *out
 * is NULL (and 0 returned) when no pids cgroup is writable and `required`
 * is false. Caller frees with cgroup_destroy().
 */
int cgroup_create(long long max, long long mem, bool required, struct sbx_cgroup **out,
                  char **errstr) AIRLOCK_MUST_CHECK;
/* The open cgroup.procs fd of the call's cgroup, or -1 (>= 10). */
int cgroup_procs_fd(const struct sbx_cgroup *cg);
/* The open cgroup.procs fd of the call's v1 memory cgroup, or -1 (>= 10). */
int cgroup_memory_fd(const struct sbx_cgroup *cg);
/* True when a memory limit caps the call's whole tree (v1 or v2). */
bool cgroup_memory_capped(const struct sbx_cgroup *cg);
/* The open cgroup.procs fd of the caller's own cgroup, or -1 (>= 10):
 * init moves itself back there once its namespace is empty, so the call's
 * cgroup can be removed without waiting for init's exit. */
int cgroup_parent_fd(const struct sbx_cgroup *cg);
/* The same for the caller's v1 memory cgroup, or -1 (>= 10). */
int cgroup_memory_parent_fd(const struct sbx_cgroup *cg);
/* Removes the cgroup, or queues it while its last task is still exiting,
 * and frees; accepts NULL. */
void cgroup_destroy(struct sbx_cgroup *cg);
/* Removes the empty cgroups left by airlock processes that are gone (one
 * killed while it held a sandbox in its pool, say). */
void cgroup_sweep_orphans(void);

/* ---- the namespace sandbox's halves (ns.c) ------------------------------ */

/* What a sandbox is before any command runs: planned by the parent, read
 * by the child. A pooled sandbox holds a copy of its own (pool.c). */
struct ns_shell {
	struct sbx_plan plan;
	const struct sock_fprog *filter; /* static storage (seccomp.c) */
	struct sbx_cgroup *cgroup;       /* owned; made when it is built */
	long long processes;             /* the cgroup's cap */
	long long memory;                /* the memory cgroup's cap */
	bool root;                       /* root on the host: the cgroup is required */
	bool network;
	dev_t wd_dev; /* the workdir when planned: a directory replaced at */
	ino_t wd_ino; /* the same path is another shell */
	char uid_map[48], gid_map[48];
	int parent_pidfd, init_fd; /* process-wide, never closed */
};

/* The command one call runs in a sandbox; borrowed pointers. */
struct ns_cmd {
	char *const *argv;
	char *const *env;
	const char *cwd; /* resolved, in the workdir; NULL: stay in the workdir */
	struct sbx_limits limits;
};

/* Creates the shell's pids cgroup; 0 or -1 with *errstr. */
int ns_shell_cgroup(struct ns_shell *sh, char **errstr) AIRLOCK_MUST_CHECK;
/* True when two shells would build the same sandbox. */
bool ns_shell_same(const struct ns_shell *a, const struct ns_shell *b);
/* Makes dst a copy of src's plan and settings, without a cgroup. */
void ns_shell_copy(struct ns_shell *dst, const struct ns_shell *src);
/* Frees the plan and removes the cgroup; the struct may be reused. */
void ns_shell_clear(struct ns_shell *sh);
/* The clone flags for this shell's namespaces. */
uint64_t ns_shell_flags(const struct ns_shell *sh);
/* Child: closes every fd but fds, extra and the shell's own, then maps the
 * uid, joins the cgroup, builds the root, drops capabilities and loads
 * seccomp. 0, or -1 with the step in *r. */
int ns_enter(const struct ns_shell *sh, struct sbx_report *r, const int fds[4], int extra);
/* Child: starts cmd and execs init; returns only on failure (in *r). */
void ns_launch(const struct ns_shell *sh, const struct ns_cmd *cmd, struct sbx_report *r,
               const int fds[4]);

/* ---- the pool of sandboxes built ahead (pool.c) ------------------------- */

/* pool_run()'s answer when no built sandbox fits: build one for the call. */
#define POOL_MISS (-2)
/* Runs cmd in a sandbox built ahead for this shell: 0 or -1 as
 * exec_spawn_wait(), or POOL_MISS when no pool runs (see exec_pool_start),
 * none was ready, or it failed before the command started (nothing ran). */
int pool_run(const struct ns_shell *sh, const struct ns_cmd *cmd, const struct exec_spec *spec,
             struct exec_result *res, char **errstr);
/* Asks for sandboxes like sh to be kept ready (copies what it needs); a
 * no-op when no pool runs. */
void pool_want(const struct ns_shell *sh);

/* ---- what a workdir's sandbox masks (secrets.c) -------------------------- */

#define SECRETS_ENTRIES 100000 /* directory entries read at most: more fails */
#define MASK_SECRETS 1u        /* secret files (the classifier's names) */
#define MASK_PIPES 2u          /* sockets and FIFOs */
#define SEARCH_AIRLOCKS 8u     /* the .airlock entries below the top (nested
                                * projects' policy) go to gitdirs too */
#define SEARCH_SWEEP 4u        /* after a run: no SECRETS_ENTRIES bound, and a
                                * directory below the top that cannot be read is
                                * passed over, the rest still searched */
/* The real paths of what `what` names in the workdir wd and below it,
 * never entering a directory in skip (NULL: none); 0 with a new
 * NULL-terminated vector in *found (strv_free) and its length in *n, or -1
 * with *errstr when a directory cannot be searched (the workdir unlisted,
 * SECRETS_ENTRIES reached with one still unread; see SEARCH_SWEEP).
 * With gitdirs, the .git entries the walk passes below the top go there
 * too, as a new vector (NULL when none): nested repositories, of any type,
 * not entered. */
/* Directories this process has read (not taken from what it remembers, or
 * from what an earlier process kept): for the tests. */
size_t secrets_dirs_read(void);
/* Forgets what this process remembers of every search, as a new process
 * starts (what an earlier one kept is read at the next search). */
void secrets_forget(void);
int secrets_find(const char *wd, unsigned what, char *const *skip, char ***found, size_t *n,
                 char ***gitdirs, char **errstr) AIRLOCK_MUST_CHECK;
/* What a search also finds: the paths in the workdir that the deny rules'
 * globs match (policy_globs_new()), as the walk meets them (a link not
 * resolved; nothing below a directory they match, which covers it).
 * Skipped trees (node_modules, secrets_skip) are not searched. */
struct search_globs {
	char *const *hide; /* in: profile->hide_globs (NULL: none) */
	char *const *keep; /* in: profile->keep_globs */
	char **hidden;     /* out: what hide matches; a new vector (NULL: none) */
	char **kept;       /* out: what keep matches */
	char **airlocks;   /* out: each .airlock below the top (a nested
	                    * project's policy); a new vector (NULL: none) */
};
/* secrets_find() that, with globs, also finds what globs asks for (a
 * search without holds no set; one with an empty set holds none). */
int secrets_search(const char *wd, unsigned what, char *const *skip, struct search_globs *globs,
                   char ***found, size_t *n, char ***gitdirs, char **errstr) AIRLOCK_MUST_CHECK;
/* Makes hide and keep the set of globs searches that bring none read for
 * (the guard's, before the plan's brings them): else the plan's search
 * read again every directory the guard's had just read. */
void secrets_globs_expect(char *const *hide, char *const *keep);

/* ---- a linked worktree's repository (gitdir.c) --------------------------- */

/* A linked worktree's two directories outside it, resolved: the main
 * repository's .git (common) and the worktree's own (gitdir, inside it). */
struct gitdir_linked {
	char *common, *gitdir; /* owned */
};
/* True, with both in *l, when wd (resolved) is a linked worktree whose .git
 * file names a directory in another repository's .git, in git's own layout
 * and linked back to wd, and that repository's .git neither holds nor lies
 * in wd, nor holds home; else false, *l zeroed. gitdir_linked_clear()
 * frees. */
bool gitdir_linked_find(const char *wd, const char *home, struct gitdir_linked *l);
void gitdir_linked_clear(struct gitdir_linked *l);
/* The directory wd's .git file names when it lies inside wd (git init
 * --separate-git-dir=.repo): an ordinary directory of the writable
 * workdir, whose hooks and config the host's git runs, so it is guarded
 * as .git is. A new string (resolved), or NULL. */
char *gitdir_inside_find(const char *wd);
/* "gitdir: PATH" of dir's .git, a regular file, PATH resolved against dir
 * into gitdir (PATH_MAX); false when there is none or it leads nowhere. */
bool gitdir_file_read(const char *dir, char gitdir[PATH_MAX]);
/* The directory the "commondir" file of gitdir names (a linked worktree's
 * repository), resolved into common (PATH_MAX); false when there is none. */
bool gitdir_common_read(const char *gitdir, char common[PATH_MAX]);

/* ---- a repository's index (gitindex.c) ---------------------------------- */

/* The paths of the gitlinks in the index of the git directory gitdir (and
 * its shared index, when split), relative to its worktree, pushed to
 * *links (strv_free); 0, or -1 when the index cannot be read or parsed
 * (what was pushed stays). */
int gitindex_gitlinks(const char *gitdir, char ***links);
/* gitindex_gitlinks() that also pushes to *hidden (NULL: not asked) the
 * path of each entry marked assume-unchanged or skip-worktree, which git
 * status and git diff pass by ("" for a split index's unnamed one), and
 * counts into *fresh (NULL: not asked) the entries whose stat data says
 * their file changed at or after since (seconds; 0: none): git reads no
 * content for an entry whose stat data matches the file. */
int gitindex_read(const char *gitdir, char ***links, char ***hidden, time_t since,
                  size_t *fresh);
/* Clears those marks in gitdir's index file but on the entries keep
 * names (sorted by strcmp; NULL: none), and smudges each fresh entry
 * (since, as above: its size 0, as git smudges a racily clean one, so git
 * status compares its content again); in a split index's shared part too,
 * written anew under its new hash's name. The index is replaced by a new
 * file renamed over it, its trailer made again with the hash that made it
 * (none with index.skipHash's zeros); the paths cleared in a new vector in
 * *cleared (NULL: none). 0, or -1 when the index cannot be read, its
 * trailer matches no hash, or it cannot be written. Loads libcrypto. */
int gitindex_unhide(const char *gitdir, char *const *keep, time_t since, char ***cleared);
/* The gitlinks of the index image buf (len bytes), pushed to *links; -1
 * when it does not parse (a split index's shared part is not read). For
 * the fuzzer (tests/fuzz/fuzz_gitindex.c). */
int gitindex_parse(const unsigned char *buf, size_t len, char ***links);

/* ---- environment (env.c) ------------------------------------------------ */

/*
 * Returns a new environment: the profile's allowlist taken from `from`
 * (never a name that looks secret), HOME=home, PATH defaulted, then the
 * granted `extra` entries. Caller frees with strv_free().
 */
char **env_build(const struct profile *p, char *const *from, char *const *extra, const char *home);
/* The directories of the sandbox's PATH (taken from `from` when the
 * profile passes it) that lie under home and that no home, read-only or
 * read-write grant shows: empty in the sandbox, so a program there is not
 * found. "~/.cargo/bin, ~/.local/bin" (caller frees), or NULL. */
char *env_path_hidden(const struct profile *p, char *const *from, const char *home);
/* The workdir's virtual environments whose interpreter is a link into
 * the part of home the profile does not show (a venv made by pyenv's or
 * uv's Python): ".venv/bin/python leads into ~/.pyenv/versions/3.11.7"
 * (caller frees), or NULL. */
char *env_venv_hidden(const struct profile *p, const char *wd, const char *home);
/* Returns true when a variable name looks like a secret (TOKEN, KEY, ...). */
bool env_name_secret(const char *name);

/* ---- capture and waiting (capture.c) ------------------------------------ */

struct capture {
	bool on; /* capture mode; else the child inherits 0/1/2 */
	int in[2], out[2], err[2];
	int done; /* read end: init writes a struct sbx_done once its namespace is empty */
	bool done_seen;
	struct sbx_done *msg; /* where the done message goes */
	const char *stdin_data;
	size_t stdin_len, stdin_off;
	struct buf *ob, *eb; /* capture mode; NULL when streaming */
	const volatile sig_atomic_t *cancel; /* exec_spec.cancel */
	int disk;            /* O_PATH fd on the file system the call may fill, or -1 */
	long long relay_left[2]; /* bytes stdout's and stderr's relays may still
	                          * write to their files; -1: no cap */
	unsigned long long floor_bytes, floor_files; /* killed below these free */
	bool relay_in;       /* streaming: stdin is a file, relayed from in_pos */
	bool err_on_out;     /* streaming: 2 shares 1's file, and its relay pipe */
	off_t in_pos;
};
/* Opens the pipes (capture mode) or /dev/null; when streaming, the relay
 * pipes for the streams that lead to files. 0 or -1 with *errstr. */
int capture_open(struct capture *c, const struct exec_spec *spec, char **errstr) AIRLOCK_MUST_CHECK;
/* The fds the child puts on 0, 1 and 2. */
void capture_child_fds(const struct capture *c, int fds[3]);
/* Parent: closes the child's pipe ends after the fork. */
void capture_parent_close(struct capture *c);
/*
 * Pumps stdin/stdout/stderr until the child (pidfd) exits or its init
 * reports done, killing it at the deadline (ns, CLOCK_MONOTONIC) or when
 * c->disk's file system falls below its floor. Fills timed_out, disk_low
 * and truncated; reaps the child into *status and *ru. Returns
 * false when init reported done but was still exiting: it is queued and
 * reaped by a later capture_reap_late() (the status is in c->msg).
 */
bool capture_wait(struct capture *c, int pidfd, pid_t pid, long long deadline,
                  struct exec_result *res, int *status, struct rusage *ru);
/* Reaps queued inits that have finished exiting (never blocks). */
void capture_reap_late(void);
/* Closes whatever is still open. */
void capture_close(struct capture *c);

/* Marks the functions that run on the child's borrowed stack and never
 * return (they exec or exit): AddressSanitizer cannot follow that stack
 * and would warn on the command's stderr, so they stay uninstrumented;
 * what they call is still checked. */
#define SBX_CHILD __attribute__((no_sanitize_address))

/* The child side of a spawn: never returns. It runs on the parent's memory
 * (CLONE_VM) while the parent sleeps (CLONE_VFORK): syscalls only, and it
 * writes nothing but its own stack and the report. fds: what goes on 0, 1
 * and 2, then the write end of the done pipe (-1 unless asked for). */
typedef void (*sbx_child_fn)(void *arg, struct sbx_report *r, const int fds[4]);
/*
 * Spawns fn in a clone child with these extra flags, feeds and captures its
 * streams (or lets it inherit 0/1/2), enforces the deadline and reaps it.
 * With done_pipe, the child's init reports the command's status through
 * it. *failed (when not NULL) gets the step that failed. Returns 0 with
 * *res filled when the command ran, or -1 with *errstr (caller frees) when
 * a setup step or the exec failed.
 */
int exec_spawn_wait(const struct exec_spec *s, uint64_t flags, bool done_pipe, sbx_child_fn fn,
                    void *arg, struct exec_result *res, enum sbx_step *failed,
                    char **errstr) AIRLOCK_MUST_CHECK;
/* A started child, held by whoever waits for it (the caller of
 * exec_spawn_wait(), or the taker of a pooled sandbox). */
struct spawn {
	struct capture c;     /* the parent's ends of the pipes */
	struct sbx_done done; /* init's message lands here */
	struct sbx_report r;  /* the child's report, copied once it exec'd or died */
	pid_t pid;            /* -1 when clone failed (r says why) */
	int pidfd;
	bool pooled; /* built ahead (pool.c): its phase times mean nothing */
};
/*
 * The two halves of exec_spawn_wait(). spawn_start opens the pipes (spec
 * NULL: a pool build, stdin always a pipe) and clones fn, returning once
 * the child has exec'd or died; -1 with *errstr only when no child was
 * tried. spawn_wait feeds, captures and reaps it under spec's limits from
 * start (clock_ns()); same results as exec_spawn_wait(). spawn_close
 * closes what is left; call it in any case after spawn_start.
 */
int spawn_start(struct spawn *sp, const struct exec_spec *spec, uint64_t flags, bool done_pipe,
                sbx_child_fn fn, void *arg, char **errstr) AIRLOCK_MUST_CHECK;
int spawn_wait(struct spawn *sp, const struct exec_spec *spec, long long start,
               struct exec_result *res, enum sbx_step *failed, char **errstr) AIRLOCK_MUST_CHECK;
void spawn_close(struct spawn *sp);
/* Adds one call's phase times (only when AIRLOCK_EXEC_PHASES is set). */
void exec_phases_add(const long long *t);

/* Child, right before execve: every signal to its default disposition (an
 * ignored SIGPIPE would otherwise survive execve) and none blocked. */
void exec_child_signals(void);
/* Writes n in decimal into b (at least 11 bytes); returns b. Child-safe. */
char *sbx_utoa(char *b, unsigned n);
/* Child helper: looks argv[0] up in PATH of env and execve()s it; returns
 * errno. */
int exec_lookup_execve(char *const *argv, char *const *env);
/* The command's cwd for spec: NULL (the workdir) when it names none, else
 * a new resolved path at or below the workdir in *out; -1 with *errstr when
 * it is missing or outside, where the sandbox shows nothing of the host. */
int exec_cwd_resolve(const struct exec_spec *spec, char **out, char **errstr) AIRLOCK_MUST_CHECK;
/* Fills the result fields from a wait status and rusage. */
void exec_result_status(struct exec_result *res, int status, const struct rusage *ru);

#endif
