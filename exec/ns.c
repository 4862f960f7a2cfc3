/*
 * ns.c: the namespace backend. One clone makes new user, mount, pid, net,
 * ipc, uts and cgroup namespaces at once; that first process maps the
 * caller's own uid, builds the root (mounts.c), drops every capability,
 * loads the seccomp filter, starts the command and then execs init
 * (exec/init/), which reports the command's status once the namespace is
 * empty. Rules: all planning happens in the parent before clone (the
 * child only makes syscalls, on the parent's memory until execve, so no
 * page tables are copied); a failed step is written to the report and
 * nothing runs; the sandbox dies with airlock (PR_SET_PDEATHSIG, re-checked
 * through a pidfd) and with its init, which exits as soon as the command
 * does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"
#include "exec/init/init.h"

#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)
#endif

extern char **environ;

static const struct {
	const char *name, *fix;
} steps[STEP_COUNT] = {
        [STEP_NONE] = {"none", NULL},
        [STEP_CLONE] = {"create the namespaces (clone)",
                        "user namespaces look disabled: set user.max_user_namespaces > 0 and "
                        "kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ AppArmor blocks "
                        "them unless kernel.apparmor_restrict_unprivileged_userns=0 or an "
                        "AppArmor profile with 'userns,' covers airlock; in a container, "
                        "allow "
                        "clone/unshare in its seccomp profile. Or run as root"},
        [STEP_PARENT_GONE] = {"check that airlock is still running", NULL},
        [STEP_UIDMAP] = {"map the caller's uid into the user namespace",
                         "check /proc/sys/user/max_user_namespaces and that /proc is mounted"},
        [STEP_CGROUP] = {"join the pids cgroup", "check the pids cgroup is writable"},
        [STEP_OPEN_SOURCE] = {"open a path to bind",
                              "a granted path vanished or became a symlink while preparing"},
        [STEP_MOUNT] = {"mount", "the kernel refused a mount in the user namespace; "
                                 "an LSM (AppArmor, SELinux) may forbid it"},
        [STEP_PIVOT] = {"pivot_root into the new root", NULL},
        [STEP_HOSTNAME] = {"set the hostname", NULL},
        [STEP_LOOPBACK] = {"bring up loopback in the network namespace", NULL},
        [STEP_CAPS] = {"drop capabilities", NULL},
        [STEP_FORK] = {"fork the command", "the process limit may be reached"},
        [STEP_LIMITS] = {"set resource limits", NULL},
        [STEP_CHDIR] = {"enter the workdir", NULL},
        [STEP_SECCOMP] = {"install the seccomp filter",
                          "the kernel needs CONFIG_SECCOMP_FILTER; in a container, "
                          "allow seccomp"},
        [STEP_EXEC] = {"start the program", NULL},
        [STEP_INIT] = {"start the sandbox's init from its memfd",
                       "vm.memfd_noexec must be 0 or 1; 2 forbids executing a memfd"},
};

void sbx_report_fail(struct sbx_report *r, enum sbx_step step, int err, const char *detail)
{
	size_t n = detail ? strlen(detail) : 0;

	if (r->step != STEP_NONE)
		return;
	r->step = (int)step;
	r->err = err;
	if (n >= sizeof(r->detail))
		n = sizeof(r->detail) - 1;
	if (n)
		memcpy(r->detail, detail, n);
	r->detail[n] = '\0';
}

/* Errors that say more than the step does, whichever step met them: out of
 * descriptors, clone's "cannot create the namespaces" blamed user
 * namespaces being off and a bind blamed a vanished grant; out of
 * processes (clone's EAGAIN), the same user namespace hint (reproduced on
 * 5a0a230 with ulimit -n 20 and prlimit --nproc=1). */
static const struct {
	int err;
	const char *fix;
} err_fixes[] = {
        {EMFILE, "airlock ran out of file descriptors: raise its limit (ulimit -n) or close "
                 "what its caller leaves open"},
        {ENFILE, "the system ran out of file descriptors (fs.file-max)"},
        {EAGAIN, "the caller's process limit is reached (ulimit -u; for a root caller, the "
                 "pids cgroup)"},
};

/* The hint for a failed step: the error's own when it has one. */
static const char *report_fix(int step, int err)
{
	for (size_t i = 0; i < nitems(err_fixes); i++)
		if (err_fixes[i].err == err)
			return err_fixes[i].fix;
	return steps[step].fix;
}

char *sbx_report_message(const struct sbx_report *r)
{
	int s = r->step > STEP_NONE && r->step < STEP_COUNT ? r->step : STEP_NONE;
	const char *fix = s == STEP_NONE ? NULL : report_fix(s, r->err);

	if (s == STEP_EXEC)
		return xasprintf("cannot run %s: %s", r->detail, strerror(r->err));
	return xasprintf("sandbox: cannot %s%s%s: %s%s%s%s", steps[s].name, r->detail[0] ? " " : "",
	                 r->detail, strerror(r->err), fix ? " (hint: " : "", fix ? fix : "",
	                 fix ? ")" : "");
}

/* One call: the sandbox's shell and the command, prepared by the parent. */
struct ns_state {
	const struct exec_spec *spec;
	struct ns_shell sh;
	struct ns_cmd cmd;
	char **env; /* owned; cmd.env points here */
	char *cwd;  /* owned; cmd.cwd points here */
};

/* ---- child -------------------------------------------------------------- */

static int write_proc(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;
	if (fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s))
		rc = 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

static int loopback_up(void)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	memcpy(ifr.ifr_name, "lo", 3);
	ifr.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
	if (fd >= 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) == 0)
		rc = 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * The capability the first process keeps in its permitted set (never
 * effective, and it exists only in the sandbox's user namespace) until it
 * execs init. Until then that process shares airlock's memory, and the
 * command, same uid and already running, could otherwise open /proc/1/mem
 * and write airlock's memory: the kernel's ptrace check refuses a caller
 * that lacks a permitted capability of its target. Marking the process
 * non-dumpable would do the same, but the dumpable flag belongs to the
 * memory, airlock's, and stuck there it made /proc/self/uid_map of every
 * later sandbox root's, so a gate run by a user failed its calls. Which
 * capability does not matter; this one grants nothing in a namespace.
 */
#define CAP_FIRST_KEEPS CAP_WAKE_ALARM

/* Sets all three capability sets to nothing but `keep` permitted. */
static int caps_set(unsigned long long keep)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].permitted = (uint32_t)keep;
	d[1].permitted = (uint32_t)(keep >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

/* No capability survives (but CAP_FIRST_KEEPS, permitted only, which the
 * command drops before its exec), and exec as uid 0 grants none back
 * (NOROOT). */
static int caps_drop(void)
{
	int cap = 0;

	while (cap <= 63 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
		cap++;
	if (cap <= 63 && errno != EINVAL) /* EINVAL: past the kernel's last */
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECUREBITS,
	          SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	                  SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	                  SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
	          0, 0, 0) < 0)
		return -1;
	return caps_set(1ULL << CAP_FIRST_KEEPS);
}

/* Closes every descriptor but the n in keep (unsorted, -1s ignored): a
 * sandbox must not hold another call's pipes open while it is being set
 * up, or waiting in the pool, or that call never sees end-of-file. */
SBX_CHILD static int keep_only(int *keep, size_t n)
{
	unsigned next = 0;

	for (size_t i = 1; i < n; i++) /* insertion sort: n is below 12 */
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < next)
			continue;
		if ((unsigned)keep[i] > next &&
		    syscall(SYS_close_range, next, (unsigned)keep[i] - 1, 0) < 0)
			return -1;
		next = (unsigned)keep[i] + 1;
	}
	return (int)syscall(SYS_close_range, next, ~0U, 0);
}

/* Landlock's scope (Linux 6.12, ABI 6), declared here: older headers
 * lack the field. */
struct landlock_scope_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};
#define LANDLOCK_SCOPE_ABSTRACT_UNIX (1ULL << 0)

/*
 * Confines abstract unix sockets to the sandbox: one made outside cannot
 * be connected to or sent to. The network namespace does that for a call
 * with no network; one with the network shares the host's, and with it
 * the desktop's X server (@/tmp/.X11-unix/X0: keystrokes into the user's
 * session, a shell on the host) and whatever else listens there. The
 * command's own sockets still work. A kernel without the scope (before
 * 6.12, or Landlock off) leaves it as it was: 0 then too.
 */
static int abstract_scope(void)
{
	struct landlock_scope_attr a = {0, 0, LANDLOCK_SCOPE_ABSTRACT_UNIX};
	int fd = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0), rc;

	if (fd < 0) /* no Landlock, off, or too old for the field or the flag */
		return errno == ENOSYS || errno == EOPNOTSUPP || errno == E2BIG ||
		                       errno == EINVAL
		               ? 0
		               : -1;
	rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	close(fd);
	return rc;
}

/* Identity, cgroup and file system: everything that needs the capabilities. */
static int child_setup(const struct ns_shell *sh, struct sbx_report *r)
{
	struct pollfd p = {sh->parent_pidfd, POLLIN, 0};
	int cg = cgroup_procs_fd(sh->cgroup), mem = cgroup_memory_fd(sh->cgroup);
	const char *failed = NULL;

	r->t[PH_CHILD] = clock_ns();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || poll(&p, 1, 0) != 0) {
		sbx_report_fail(r, STEP_PARENT_GONE, errno ? errno : ESRCH, NULL);
		return -1;
	}
	if (write_proc("/proc/self/uid_map", sh->uid_map) < 0 ||
	    write_proc("/proc/self/setgroups", "deny") < 0 ||
	    write_proc("/proc/self/gid_map", sh->gid_map) < 0) {
		sbx_report_fail(r, STEP_UIDMAP, errno, "/proc/self/uid_map");
		return -1;
	}
	if (limits_userns_apply(&failed) < 0) {
		sbx_report_fail(r, STEP_LIMITS, errno, failed);
		return -1;
	}
	if (limits_core_pin() < 0) { /* before seccomp, which then keeps it */
		sbx_report_fail(r, STEP_LIMITS, errno, "(RLIMIT_CORE)");
		return -1;
	}
	r->t[PH_MAPPED] = clock_ns();
	if ((cg >= 0 && write(cg, "0", 1) != 1) || (mem >= 0 && write(mem, "0", 1) != 1)) {
		sbx_report_fail(r, STEP_CGROUP, errno, NULL);
		return -1;
	}
	if (mounts_apply(&sh->plan, r) < 0)
		return -1;
	r->t[PH_MOUNTED] = clock_ns();
	if (sethostname("airlock", 7) < 0) {
		sbx_report_fail(r, STEP_HOSTNAME, errno, NULL);
		return -1;
	}
	if (!sh->network && loopback_up() < 0) {
		sbx_report_fail(r, STEP_LOOPBACK, errno, NULL);
		return -1;
	}
	return 0;
}

int ns_enter(const struct ns_shell *sh, struct sbx_report *r, const int fds[4], int extra)
{
	int keep[] = {fds[0],
	              fds[1],
	              fds[2],
	              fds[3],
	              extra,
	              sh->parent_pidfd,
	              sh->init_fd,
	              cgroup_procs_fd(sh->cgroup),
	              cgroup_parent_fd(sh->cgroup),
	              cgroup_memory_fd(sh->cgroup),
	              cgroup_memory_parent_fd(sh->cgroup)};

	if (keep_only(keep, nitems(keep)) < 0) {
		sbx_report_fail(r, STEP_FORK, errno, "(descriptors)");
		return -1;
	}
	if (child_setup(sh, r) < 0)
		return -1;
	if (caps_drop() < 0) {
		sbx_report_fail(r, STEP_CAPS, errno, NULL);
		return -1;
	}
	/* init runs under the filter too: it is in the command's reach */
	if (seccomp_install(sh->filter) < 0) {
		sbx_report_fail(r, STEP_SECCOMP, errno, NULL);
		return -1;
	}
	if (sh->network && abstract_scope() < 0) { /* after no_new_privs, which it needs */
		sbx_report_fail(r, STEP_SECCOMP, errno, "(Landlock's abstract socket scope)");
		return -1;
	}
	r->t[PH_READY] = clock_ns();
	return 0;
}

/* Puts fds on 0, 1 and 2 and closes every other descriptor. */
static int child_fds(const int fds[3])
{
	for (int i = 0; i < 3; i++)
		if (fds[i] != i && dup2(fds[i], i) < 0)
			return -1;
	return (int)syscall(SYS_close_range, 3, ~0U, 0);
}

struct command_arg {
	const struct ns_shell *sh;
	const struct ns_cmd *cmd;
	struct sbx_report *r;
	const int *fds;
};

/* The command: its streams, a new session, limits, exec. It runs on the
 * first process's stack while that sleeps (CLONE_VFORK). */
SBX_CHILD static int command_main(void *arg)
{
	const struct command_arg *a = arg;
	struct sbx_report *r = a->r;
	int e;

	r->t[PH_FORKED] = clock_ns();
	if (child_fds(a->fds) < 0) {
		sbx_report_fail(r, STEP_FORK, errno, "(descriptors)");
		_exit(EXIT_INTERNAL);
	}
	setsid();
	if (caps_set(0) < 0) {
		sbx_report_fail(r, STEP_CAPS, errno, NULL);
		_exit(EXIT_INTERNAL);
	}
	if (limits_apply(&a->cmd->limits, cgroup_memory_capped(a->sh->cgroup)) < 0) {
		sbx_report_fail(r, STEP_LIMITS, errno, NULL);
		_exit(EXIT_INTERNAL);
	}
	if (a->cmd->cwd && chdir(a->cmd->cwd) < 0) {
		sbx_report_fail(r, STEP_CHDIR, errno, a->cmd->cwd);
		_exit(EXIT_INTERNAL);
	}
	r->t[PH_EXEC] = clock_ns();
	exec_child_signals();
	e = exec_lookup_execve(a->cmd->argv, a->cmd->env);
	sbx_report_fail(r, STEP_EXEC, e, a->cmd->argv[0]);
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

/* Puts fd at number at, or leaves at closed when fd is -1; 0 or -1. */
SBX_CHILD static int fd_at(int fd, int at)
{
	if (fd >= 0)
		return dup2(fd, at) < 0 ? -1 : 0;
	return close(at) < 0 && errno != EBADF ? -1 : 0;
}

/* Becomes init (exec/init/init.c) with only its descriptors open. */
static void init_exec(const struct ns_shell *sh, struct sbx_report *r, int done, pid_t cmd)
{
	char pid[12], *argv[] = {(char *)"airlock-init", sbx_utoa(pid, (unsigned)cmd), NULL};
	char *envp[] = {NULL};
	if (dup2(done, SBX_INIT_DONE_FD) < 0 ||
	    fd_at(cgroup_parent_fd(sh->cgroup), SBX_INIT_CG_FD) < 0 ||
	    fd_at(cgroup_memory_parent_fd(sh->cgroup), SBX_INIT_MEM_FD) < 0)
		goto fail;
	/* 0-2 are airlock's own streams: init must not hold them open; the
	 * rest close at exec, once the memfd has been used */
	syscall(SYS_close_range, 0, 2, 0);
	syscall(SYS_close_range, SBX_INIT_MEM_FD + 1, ~0U, CLOSE_RANGE_CLOEXEC);
	syscall(SYS_execveat, sh->init_fd, "", argv, envp, AT_EMPTY_PATH);
fail:
	sbx_report_fail(r, STEP_INIT, errno, NULL);
}

SBX_CHILD void ns_launch(const struct ns_shell *sh, const struct ns_cmd *cmd, struct sbx_report *r,
                         const int fds[4])
{
	char stack[32 * 1024] __attribute__((aligned(16)));
	struct command_arg a = {sh, cmd, r, fds};
	pid_t pid;

	pid = clone(command_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	if (pid < 0)
		sbx_report_fail(r, STEP_FORK, errno, NULL);
	if (r->step == STEP_NONE)
		init_exec(sh, r, fds[3], pid);
}

/* The sandbox's first process: set up, start the command, become init.
 * Any failure exits, and as pid 1 that takes the command with it. */
SBX_CHILD static void ns_child(void *arg, struct sbx_report *r, const int fds[4])
{
	const struct ns_state *st = arg;

	if (ns_enter(&st->sh, r, fds, -1) == 0)
		ns_launch(&st->sh, &st->cmd, r, fds);
	_exit(EXIT_INTERNAL);
}

/* ---- parent ------------------------------------------------------------- */

/* Sums of phase durations over the calls of this process (bench only). */
static long long phase_sum[PH_COUNT];
static long long phase_calls;

void exec_phases_add(const long long *t)
{
	if (!getenv("AIRLOCK_EXEC_PHASES"))
		return;
	for (int i = 1; i < PH_COUNT; i++)
		if (t[i] && t[i - 1])
			phase_sum[i] += t[i] - t[i - 1];
	phase_calls++;
}

void exec_phases_print(FILE *f)
{
	static const char *const names[PH_COUNT] = {
	        [PH_CHILD] = "clone",  [PH_MAPPED] = "uidmap", [PH_MOUNTED] = "mounts",
	        [PH_READY] = "ready",  [PH_FORKED] = "fork",   [PH_EXEC] = "limits",
	        [PH_DONE] = "run+reap"};
	for (int i = 1; i < PH_COUNT && phase_calls; i++)
		fprintf(f, "%s=%.3fms ", names[i],
		        (double)phase_sum[i] / 1e6 / (double)phase_calls);
	fputc('\n', f);
}

static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static int self_pidfd = -1, self_errno;

static void self_pidfd_open(void)
{
	self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	self_errno = errno;
}

/* init.elf, linked in by exec/init/blob.S */
extern const char sbx_init_elf[], sbx_init_elf_end[];

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_memfd = -1, init_errno;

/* Copies init into a sealed memfd, once per process: nothing can change
 * it afterwards, and it needs no installed file. */
static void init_memfd_open(void)
{
	size_t n = (size_t)(sbx_init_elf_end - sbx_init_elf);
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	int fd = memfd_create("airlock-init", flags | MFD_EXEC);

	if (fd < 0 && errno == EINVAL) /* before Linux 6.3, exec is the default */
		fd = memfd_create("airlock-init", flags);
	if (fd >= 0 && fd < 10) { /* clear of the numbers the child dup2()s onto */
		int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
		if (h < 0 && errno == EINVAL) /* 10 is at or past RLIMIT_NOFILE */
			errno = EMFILE;
		close(fd);
		fd = h;
	}
	/* Execute-only: exec of a file its process cannot read leaves the new
	 * image non-dumpable from its first instruction (the kernel's
	 * would_dump), so the command, under the same uid, cannot open init's
	 * /proc/1/mem, fd or environ and take it over. A dumpable init could be
	 * made to forge "done", outlive airlock, or leave the pids cgroup. */
	if (fd < 0 || write(fd, sbx_init_elf, n) != (ssize_t)n ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    fchmod(fd, 0111) < 0) {
		init_errno = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return;
	}
	init_memfd = fd;
}

/* True when our uid is root on the host (RLIMIT_NPROC does not bind it):
 * euid 0 and uid 0 mapped to 0 (the initial namespace, or a container that
 * maps root to root). A rootless container's root is a user on the host. */
static bool root_is_host_root(void)
{
	char line[128];
	bool root = false;
	FILE *f = fopen("/proc/self/uid_map", "re");

	if (!f)
		return true; /* cannot tell: assume the stricter case */
	while (fgets(line, sizeof(line), f)) {
		unsigned long in, out, n;
		if (sscanf(line, "%lu %lu %lu", &in, &out, &n) == 3 && in == 0)
			root = out == 0;
	}
	fclose(f);
	return root;
}

static pthread_once_t root_once = PTHREAD_ONCE_INIT;
static bool root_mapped_to_root;

static void root_map_read(void)
{
	root_mapped_to_root = root_is_host_root();
}

/* A process's uid map never changes: it is read once, not every call. */
static bool host_root(void)
{
	if (geteuid() != 0)
		return false;
	pthread_once(&root_once, root_map_read);
	return root_mapped_to_root;
}

/* The process-wide pieces every shell shares: init's memfd, our pidfd. */
static int shell_process_fds(struct ns_shell *sh, char **errstr)
{
	pthread_once(&init_once, init_memfd_open);
	if (init_memfd < 0) {
		struct sbx_report r = {.step = STEP_NONE};
		sbx_report_fail(&r, STEP_INIT, init_errno, NULL);
		*errstr = sbx_report_message(&r);
		return -1;
	}
	sh->init_fd = init_memfd;
	limits_userns_prepare();
	pthread_once(&self_once, self_pidfd_open);
	if (self_pidfd < 0) {
		*errstr = xasprintf("sandbox: pidfd_open: %s%s", strerror(self_errno),
		                    self_errno == ENOSYS ? " (needs Linux 5.3+)" : "");
		return -1;
	}
	sh->parent_pidfd = self_pidfd;
	return 0;
}

/* Everything but the cgroup, which is made when the shell is built. */
static int shell_plan(const struct exec_spec *s, struct ns_shell *sh, char **errstr)
{
	const struct profile *p = s->profile;
	struct stat st;

	sh->root = host_root();
	sh->network = p->network && !s->overlay_dir;
	sh->processes = p->processes;
	sh->memory = p->memory;
	snprintf(sh->uid_map, sizeof(sh->uid_map), "%u %u 1\n", geteuid(), geteuid());
	snprintf(sh->gid_map, sizeof(sh->gid_map), "%u %u 1\n", getegid(), getegid());
	if (mounts_plan(s, mounts_home(), sh->root, &sh->plan, errstr) < 0)
		return -1;
	if (stat(sh->plan.workdir, &st) < 0) {
		*errstr = xasprintf("workdir %s: %s", sh->plan.workdir, strerror(errno));
		return -1;
	}
	sh->wd_dev = st.st_dev;
	sh->wd_ino = st.st_ino;
	return shell_process_fds(sh, errstr);
}

/* The filter waits for the cgroup: without a memory cgroup holding the tree
 * it caps System V segments, which no rlimit counts (seccomp.c). */
int ns_shell_cgroup(struct ns_shell *sh, char **errstr)
{
	unsigned variant = sh->network ? SECCOMP_NETWORK : 0;

	if (cgroup_create(sh->processes, sh->memory, sh->root, &sh->cgroup, errstr) < 0)
		return -1;
	if (!cgroup_memory_capped(sh->cgroup))
		variant |= SECCOMP_UNCAPPED;
	sh->filter = seccomp_filter(variant, errstr);
	return sh->filter ? 0 : -1;
}

bool ns_shell_same(const struct ns_shell *a, const struct ns_shell *b)
{
	return a->network == b->network && a->root == b->root && a->processes == b->processes &&
	       a->memory == b->memory &&
	       a->wd_dev == b->wd_dev && a->wd_ino == b->wd_ino &&
	       strcmp(a->uid_map, b->uid_map) == 0 && strcmp(a->gid_map, b->gid_map) == 0 &&
	       mounts_plan_same(&a->plan, &b->plan);
}

void ns_shell_copy(struct ns_shell *dst, const struct ns_shell *src)
{
	*dst = *src;
	dst->cgroup = NULL;
	mounts_plan_copy(&dst->plan, &src->plan);
}

void ns_shell_clear(struct ns_shell *sh)
{
	mounts_plan_clear(&sh->plan);
	cgroup_destroy(sh->cgroup);
	sh->cgroup = NULL;
}

uint64_t ns_shell_flags(const struct ns_shell *sh)
{
	return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
	       CLONE_NEWCGROUP | (sh->network ? 0 : CLONE_NEWNET);
}

static int ns_prepare(const struct exec_spec *s, void **state, char **errstr)
{
	struct ns_state *st = xcalloc(1, sizeof(*st));

	*state = st;
	st->spec = s;
	if (shell_plan(s, &st->sh, errstr) < 0 || exec_cwd_resolve(s, &st->cwd, errstr) < 0)
		return -1;
	st->env = env_build(s->profile, environ, s->env, st->sh.plan.home);
	st->cmd.argv = s->argv;
	st->cmd.env = st->env;
	st->cmd.cwd = st->cwd;
	limits_from_profile(s->profile, &st->cmd.limits);
	return 0;
}

static void ns_destroy(void *state)
{
	struct ns_state *st = state;
	if (!st)
		return;
	ns_shell_clear(&st->sh);
	strv_free(st->env);
	free(st->cwd);
	free(st);
}

/* A sandbox of its own, built now. */
static int run_fresh(struct ns_state *st, struct exec_result *res, char **errstr)
{
	enum sbx_step failed = STEP_NONE;
	int rc;

	if (ns_shell_cgroup(&st->sh, errstr) < 0)
		return -1;
	rc = exec_spawn_wait(st->spec, ns_shell_flags(&st->sh), true, ns_child, st, res, &failed,
	                     errstr);
	if (failed == STEP_OPEN_SOURCE)
		mounts_forget_system(); /* perhaps a system path moved: re-read it */
	return rc;
}

/* Captured calls of a process that keeps a pool (the gate) take a sandbox
 * built ahead of time when one matches, and ask for the next. Overlays
 * (preview dry runs) are one-off and always built fresh. */
static int ns_run(void *state, struct exec_result *res, char **errstr)
{
	struct ns_state *st = state;
	int rc = POOL_MISS;

	if (st->spec->capture && !st->spec->overlay_dir) {
		rc = pool_run(&st->sh, &st->cmd, st->spec, res, errstr);
		if (rc == POOL_MISS)
			pool_want(&st->sh);
	}
	if (rc == POOL_MISS)
		rc = run_fresh(st, res, errstr);
	if (rc == 0)
		res->masked = mounts_masked(&st->sh.plan);
	return rc;
}

const struct exec_backend exec_backend_namespace = {
        .name = "namespace",
        .prepare = ns_prepare,
        .run = ns_run,
        .destroy = ns_destroy,
};
