/*
 * seccomp.c: the syscall filter every sandboxed command runs under. Built
 * with libseccomp once per process and variant (network on; no memory cgroup
 * holding the tree), exported to raw BPF and cached, so a call pays one
 * seccomp(2) and no compile. Rules: default
 * allow; the deny list is a table (one row per syscall, with its reason in
 * docs/sandbox.md); arguments that the kernel reads as 32-bit ints are
 * compared masked to 32 bits; a foreign architecture kills the process.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec_internal.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Syscalls refused with EPERM outright. */
static const char *const denied[] = {
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "kcmp",
        "pidfd_getfd",
        "bpf",
        "perf_event_open",
        "userfaultfd",
        "keyctl",
        "add_key",
        "request_key",
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "open_tree",
        "move_mount",
        "mount_setattr",
        "unshare",
        "setns",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "swapon",
        "swapoff",
        "reboot",
        "acct",
        "syslog",
        "open_by_handle_at",
        "name_to_handle_at",
        "quotactl",
        "lookup_dcookie",
        "uselib",
        "ioperm",
        "iopl",
};

/* Syscalls newer than some libseccomp this builds against, refused by
 * number: syscalls added since Linux 5.x have one number on every
 * architecture. open_tree_attr clones a mount like open_tree. */
static const struct {
	const char *name;
	int nr;
} denied_new[] = {{"open_tree_attr", 467}};

/*
 * Setting a set-user-ID or set-group-ID bit, refused (systemd's
 * RestrictSUIDSGID): a file made so in a writable workdir keeps the bit on
 * the host, where nosuid no longer holds, and runs as the caller (root
 * included) for whoever runs it. {syscall, its number if libseccomp does
 * not know it, the mode argument, the flags argument (open: only with
 * O_CREAT or O_TMPFILE) or -1}. openat2 passes both in memory seccomp
 * cannot read: it answers "no such call", and libc falls back to openat.
 */
static const struct {
	const char *name;
	int nr, mode, flags;
} suid_calls[] = {
        {"chmod", -1, 1, -1},  {"fchmod", -1, 1, -1},   {"fchmodat", -1, 2, -1},
        {"fchmodat2", 452, 2, -1}, {"mkdir", -1, 1, -1}, {"mkdirat", -1, 2, -1},
        {"mknod", -1, 1, -1},  {"mknodat", -1, 2, -1},  {"creat", -1, 1, -1},
        {"open", -1, 2, 1},    {"openat", -1, 3, 2},
};
static const unsigned suid_bits[] = {S_ISUID, S_ISGID};
static const unsigned create_flags[] = {O_CREAT, O_TMPFILE};

/*
 * RLIMIT_CORE stays what the first process set (1 byte: limits.c), since
 * under any other value a crash runs the host's core_pattern helper as
 * root, outside the sandbox. setrlimit and prlimit64 that would set it
 * answer 0 and change nothing: harnesses that turn cores off with
 * setrlimit(RLIMIT_CORE, 0) and fail when it fails keep working, and `ulimit
 * -c` still reads 0 (blocks). A prlimit64 that also asks for the old value
 * is refused (EPERM), since it would not be filled. The resource is an int,
 * compared as 32 bits.
 */
/*
 * fallocate that allocates (any mode without FALLOC_FL_PUNCH_HOLE, which
 * only frees): EOPNOTSUPP, as on a file system without it, and glibc's
 * posix_fallocate then writes the blocks instead. ext4 allocated 4 GiB in
 * 32 ms here, so a call could pass the floor capture.c keeps on its
 * workdir's file system by tens of GiB between two of its 50 ms checks;
 * writing goes at the speed of the page cache and the disk.
 */
/* clone(2) flags that would make a namespace: each refused. */
static const unsigned long clone_ns_flags[] = {CLONE_NEWNS,    CLONE_NEWUTS, CLONE_NEWIPC,
                                               CLONE_NEWUSER,  CLONE_NEWPID, CLONE_NEWNET,
                                               CLONE_NEWCGROUP};

/* ioctl requests refused: keystroke injection into a terminal. */
static const unsigned long ioctl_denied[] = {TIOCSTI, TIOCLINUX};

/* Socket families refused even when the network is on. */
static const int af_denied[] = {AF_VSOCK, AF_ALG};

#define M32 0xffffffffULL

/*
 * System V IPC in a call no memory cgroup holds (an unprivileged caller on a
 * cgroup v1 host). Its objects outlive their process, and a segment every
 * mapping of it, until the call's ipc namespace dies, so RLIMIT_AS, the only
 * memory cap such a call has, counts none of them; the namespace's own caps
 * (shmall, shmmax, shmmni, semmni, msgmni) are writable only by uid 0 of the
 * sandbox's user namespace, which an unprivileged caller's does not map.
 * Reproduced on 0895477 as nobody: four 256 MiB segments, each mapped,
 * filled and unmapped in turn, held 1 GiB of the host's memory; 100
 * semaphore sets of 32,000 held 194 MiB; 300 message queues filled with
 * one-byte messages held 435 MiB; each could go on to the namespace's
 * 4,096 segments, 32,000 sets or 32,000 queues. So a segment is at most
 * 1 MiB (4,096 of them: 4 GiB, within what the tree's address-space caps
 * allow it already, processes times memory; PostgreSQL's interlock segment
 * is a few bytes), a set at most 32 semaphores (32,000 sets: 123 MiB
 * measured; PostgreSQL's System V sets hold 17), and no message queue is made
 * (ENOSPC, msgget's "too many queues": a queue holds up to 16,384 messages,
 * 1.4 MiB of kernel memory whatever their size; nothing in a build uses
 * them). Each refusal is the call's own error for a size past the limit.
 * {syscall, {argument, comparison, datum a, datum b}, errno}: semget's
 * nsems is an int compared whole, which refuses every value whose low 32
 * bits pass 32 (fail safe); msgget's key is an int, IPC_PRIVATE makes one.
 */
#define SHM_SEGMENT_MAX (1024 * 1024ULL)
#define SEM_SET_MAX 32ULL
static const struct {
	int nr;
	struct scmp_arg_cmp cmp;
	int err;
} ipc_uncapped[] = {
        {SCMP_SYS(shmget), {1, SCMP_CMP_GT, SHM_SEGMENT_MAX, 0}, EINVAL},
        {SCMP_SYS(semget), {1, SCMP_CMP_GT, SEM_SET_MAX, 0}, EINVAL},
        {SCMP_SYS(msgget), {0, SCMP_CMP_MASKED_EQ, M32, IPC_PRIVATE}, ENOSPC},
        {SCMP_SYS(msgget), {1, SCMP_CMP_MASKED_EQ, IPC_CREAT, IPC_CREAT}, ENOSPC},
};

/* A syscall's number from libseccomp, else the fallback (-1: none). */
static int sys_nr(const char *name, int fallback)
{
	int nr = seccomp_syscall_resolve_name(name);
	return nr != __NR_SCMP_ERROR ? nr : fallback;
}

static int add_suid_rules(scmp_filter_ctx ctx)
{
	int rc = 0;

	for (size_t i = 0; i < nitems(suid_calls); i++) {
		int nr = sys_nr(suid_calls[i].name, suid_calls[i].nr);
		for (size_t b = 0; nr >= 0 && b < nitems(suid_bits); b++) {
			struct scmp_arg_cmp c[2] = {SCMP_CMP((unsigned)suid_calls[i].mode,
			                                     SCMP_CMP_MASKED_EQ, suid_bits[b],
			                                     suid_bits[b])};
			if (suid_calls[i].flags < 0) {
				rc |= seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, c);
				continue;
			}
			for (size_t f = 0; f < nitems(create_flags); f++) {
				c[1] = SCMP_CMP((unsigned)suid_calls[i].flags, SCMP_CMP_MASKED_EQ,
				                create_flags[f], create_flags[f]);
				rc |= seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, c);
			}
		}
	}
	return rc | seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
}

static int add_rules(scmp_filter_ctx ctx, unsigned variant)
{
	bool network = variant & SECCOMP_NETWORK;
	int rc = 0;

	for (size_t i = 0; i < nitems(denied); i++) {
		int nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr != __NR_SCMP_ERROR)
			rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	for (size_t i = 0; i < nitems(denied_new); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		                       sys_nr(denied_new[i].name, denied_new[i].nr), 0);
	rc |= add_suid_rules(ctx);
	for (size_t i = 0; i < nitems(clone_ns_flags); i++)
		rc |= seccomp_rule_add(
		        ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
		        SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]));
	/* clone3 passes its flags in memory seccomp cannot read: say "no such
	 * call" so libc falls back to clone, whose flags are checked above. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	for (size_t i = 0; i < nitems(ioctl_denied); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		                       SCMP_A1(SCMP_CMP_MASKED_EQ, M32, ioctl_denied[i]));
	for (size_t i = 0; i < nitems(af_denied); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
		                       SCMP_A0(SCMP_CMP_MASKED_EQ, M32, (unsigned)af_denied[i]));
	if (!network)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
		                       SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
	/* personality: only the default; libseccomp takes one comparison per
	 * argument, so the 0xffffffff query is refused too (fail safe) */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
	                       SCMP_A0(SCMP_CMP_NE, PER_LINUX, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), SCMP_SYS(fallocate), 1,
	                       SCMP_A1(SCMP_CMP_MASKED_EQ, FALLOC_FL_PUNCH_HOLE, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(setrlimit), 1,
	                       SCMP_A0(SCMP_CMP_MASKED_EQ, M32, RLIMIT_CORE));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(prlimit64), 3,
	                       SCMP_A1(SCMP_CMP_MASKED_EQ, M32, RLIMIT_CORE), SCMP_A2(SCMP_CMP_NE, 0, 0),
	                       SCMP_A3(SCMP_CMP_EQ, 0, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 3,
	                       SCMP_A1(SCMP_CMP_MASKED_EQ, M32, RLIMIT_CORE), SCMP_A2(SCMP_CMP_NE, 0, 0),
	                       SCMP_A3(SCMP_CMP_NE, 0, 0));
	for (size_t i = 0; (variant & SECCOMP_UNCAPPED) && i < nitems(ipc_uncapped); i++)
		rc |= seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(ipc_uncapped[i].err),
		                             ipc_uncapped[i].nr, 1, &ipc_uncapped[i].cmp);
	return rc;
}

struct sock_fprog *seccomp_filter_compile(unsigned variant, char **errstr)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct sock_fprog *prog = NULL;
	struct stat st;
	int fd = -1;

	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0 || add_rules(ctx, variant) != 0) {
		*errstr = xstrdup("seccomp: cannot build the filter (libseccomp rejected a rule)");
		goto out;
	}
	fd = memfd_create("airlock-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size % (off_t)sizeof(struct sock_filter) != 0) {
		*errstr = xasprintf("seccomp: cannot export the filter: %s", strerror(errno));
		goto out;
	}
	prog = xcalloc(1, sizeof(*prog));
	prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	prog->filter = xmalloc((size_t)st.st_size);
	if (pread(fd, prog->filter, (size_t)st.st_size, 0) != st.st_size) {
		*errstr = xstrdup("seccomp: short read of the exported filter");
		free(prog->filter);
		free(prog);
		prog = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return prog;
}

#if defined(__x86_64__)
#include "exec/seccomp_bpf.h"
/* The same filters, compiled ahead (checked by tests/unit/test_exec.c):
 * a one-shot `airlock exec` then pays nothing for libseccomp. */
static const struct sock_fprog precompiled[SECCOMP_VARIANTS] = {
        {nitems(seccomp_bpf_v0), (struct sock_filter *)seccomp_bpf_v0},
        {nitems(seccomp_bpf_v1), (struct sock_filter *)seccomp_bpf_v1},
        {nitems(seccomp_bpf_v2), (struct sock_filter *)seccomp_bpf_v2},
        {nitems(seccomp_bpf_v3), (struct sock_filter *)seccomp_bpf_v3},
};
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sock_fprog *cache[SECCOMP_VARIANTS];

const struct sock_fprog *seccomp_filter(unsigned variant, char **errstr)
{
	struct sock_fprog *p;

	assert(variant < SECCOMP_VARIANTS);
#if defined(__x86_64__)
	if (!getenv("AIRLOCK_SECCOMP_COMPILE"))
		return &precompiled[variant];
#endif
	pthread_mutex_lock(&lock);
	if (!cache[variant])
		cache[variant] = seccomp_filter_compile(variant, errstr);
	p = cache[variant];
	pthread_mutex_unlock(&lock);
	return p;
}

int seccomp_filter_header(FILE *f, char **errstr)
{
	const struct scmp_version *v = seccomp_version();

	fprintf(f,
	        "/*\n * seccomp_bpf.h: GENERATED from exec/seccomp.c's rules by\n"
	        " * AIRLOCK_REGEN_SECCOMP=1 build/tests/test_exec (libseccomp %u.%u.%u,\n"
	        " * x86_64). Do not edit; test_exec fails when it is stale.\n */\n",
	        v->major, v->minor, v->micro);
	fprintf(f, "#define SECCOMP_BPF_LIBSECCOMP \"%u.%u.%u\"\n", v->major, v->minor, v->micro);
	for (unsigned var = 0; var < SECCOMP_VARIANTS; var++) {
		struct sock_fprog *p = seccomp_filter_compile(var, errstr);
		if (!p)
			return -1;
		fprintf(f, "static const struct sock_filter seccomp_bpf_v%u[] = {\n", var);
		for (unsigned i = 0; i < p->len; i++)
			fprintf(f, "\t{0x%04x, %u, %u, 0x%08x},\n", p->filter[i].code,
			        p->filter[i].jt, p->filter[i].jf, p->filter[i].k);
		fprintf(f, "};\n");
		free(p->filter);
		free(p);
	}
	return 0;
}

int seccomp_install(const struct sock_fprog *prog)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}
