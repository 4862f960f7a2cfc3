/*
 * probe.c: escape attempts made from inside the sandbox, one per
 * subcommand. Each prints "BLOCKED <errno name>" and exits 0 when the
 * attempt failed, or "ESCAPED ..." and exits 1 when it worked. Built by
 * tests/sandbox/run.sh; never part of airlock itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

static int verdict(long rc, const char *what)
{
	if (rc < 0) {
		printf("BLOCKED %s: %s\n", what, strerrorname_np(errno));
		return 0;
	}
	printf("ESCAPED %s (rc %ld)\n", what, rc);
	return 1;
}

static int p_ptrace(char **a) { (void)a; return verdict(syscall(SYS_ptrace, 16 /*ATTACH*/, 1, 0, 0), "ptrace attach pid 1"); }

static int p_vmread(char **a)
{
	char buf[8], src[8] = "x";
	struct iovec l = {buf, 8}, r = {src, 8};
	(void)a;
	return verdict(syscall(SYS_process_vm_readv, getppid() ? getppid() : 1, &l, 1, &r, 1, 0),
	               "process_vm_readv");
}

static int p_socket(char **a)
{
	int fam = (int)strtol(a[0], NULL, 10), type = a[1] ? (int)strtol(a[1], NULL, 10) : SOCK_STREAM;
	return verdict(socket(fam, type, 0), "socket");
}

static int p_connect(char **a)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(int)strtol(a[0], NULL, 10))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (fd < 0)
		return verdict(fd, "socket AF_INET");
	return verdict(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "connect 127.0.0.1");
}

static int p_abstract(char **a)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	size_t n = strlen(a[0]);
	memcpy(sa.sun_path + 1, a[0], n);
	if (fd < 0)
		return verdict(fd, "socket AF_UNIX");
	return verdict(connect(fd, (struct sockaddr *)&sa,
	                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)),
	               "connect abstract unix socket");
}

/* Prints Landlock's ABI version here (0: none); run on the host. */
static int p_llabi(char **a)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* VERSION */);
	(void)a;
	printf("%ld\n", v > 0 ? v : 0);
	return 0;
}

static int p_unixpath(char **a)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", a[0]);
	if (fd < 0)
		return verdict(fd, "socket AF_UNIX");
	return verdict(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "connect unix socket file");
}

static int p_fifo(char **a)
{
	return verdict(open(a[0], O_WRONLY | O_NONBLOCK), "open a FIFO for writing");
}

static int p_mount(char **a) { (void)a; return verdict(mount("none", "/tmp", "tmpfs", 0, NULL), "mount tmpfs"); }
static int p_umount(char **a) { (void)a; return verdict(umount2("/proc", MNT_DETACH), "umount /proc"); }
static int p_remount(char **a)
{
	return verdict(mount(NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL), "remount rw");
}
static int p_userns(char **a) { (void)a; return verdict(unshare(CLONE_NEWUSER), "unshare user ns"); }
static int p_clone_ns(char **a)
{
	(void)a;
	long pid = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	return verdict(pid, "clone(CLONE_NEWUSER)");
}
static int p_chroot(char **a) { (void)a; return verdict(chroot("/tmp"), "chroot"); }
static int p_pivot(char **a) { (void)a; return verdict(syscall(SYS_pivot_root, ".", "."), "pivot_root"); }
static int p_clone3(char **a)
{
	uint64_t args[8] = {0};
	(void)a;
	args[4] = SIGCHLD;
	long pid = syscall(SYS_clone3, args, sizeof(args));
	if (pid == 0)
		_exit(0);
	return verdict(pid, "clone3");
}
static int p_keyctl(char **a) { (void)a; return verdict(syscall(SYS_keyctl, 0 /*GET_KEYRING_ID*/, -3, 0), "keyctl"); }
static int p_addkey(char **a) { (void)a; return verdict(syscall(SYS_add_key, "user", "x", "y", 1, -3), "add_key"); }
static int p_bpf(char **a)
{
	union bpf_attr at;
	(void)a;
	memset(&at, 0, sizeof(at));
	at.map_type = BPF_MAP_TYPE_ARRAY;
	at.key_size = 4;
	at.value_size = 4;
	at.max_entries = 1;
	return verdict(syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof(at)), "bpf");
}
static int p_perf(char **a)
{
	struct perf_event_attr pe;
	(void)a;
	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_CPU_CLOCK;
	return verdict(syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0), "perf_event_open");
}
static int p_uffd(char **a) { (void)a; return verdict(syscall(SYS_userfaultfd, 0), "userfaultfd"); }
static int p_iouring(char **a)
{
	char params[120] = {0};
	(void)a;
	return verdict(syscall(SYS_io_uring_setup, 4, params), "io_uring_setup");
}

/* An x32 syscall: the filter must kill us (SIGSYS) before the kernel sees it. */
static int p_x32(char **a)
{
	(void)a;
	long rc = syscall(0x40000000 | SYS_getpid);
	printf("ESCAPED x32 syscall returned %ld (%s)\n", rc, strerrorname_np(errno));
	return 1;
}

/* An i386 syscall through int 0x80: foreign arch, must be killed. */
static int p_i386(char **a)
{
	long rc = 20; /* getpid on i386 */
	(void)a;
	__asm__ volatile("int $0x80" : "+a"(rc) : : "memory");
	printf("ESCAPED int 0x80 returned %ld\n", rc);
	return 1;
}

static int p_tiocsti(char **a)
{
	int m, s;
	char c = 'x';
	(void)a;
	if (openpty(&m, &s, NULL, NULL, NULL) < 0)
		return verdict(-1, "openpty");
	/* the request compared as 32 bits: high garbage must not slip past */
	long rc = syscall(SYS_ioctl, s, (unsigned long)TIOCSTI | (1UL << 32), &c);
	if (rc == 0)
		return verdict(rc, "TIOCSTI (high bits)");
	return verdict(ioctl(s, TIOCSTI, &c), "TIOCSTI");
}

static int p_tioclinux(char **a)
{
	char c = 3;
	(void)a;
	return verdict(ioctl(0, 0x541C, &c), "TIOCLINUX");
}

static int p_mknod(char **a) { return verdict(mknod(a[0], S_IFCHR | 0666, makedev(1, 3)), "mknod"); }

static int p_personality(char **a) { (void)a; return verdict(syscall(SYS_personality, 0x0040000), "personality ADDR_NO_RANDOMIZE"); }

/* Prints what a process would hold: euid, CapEff, NoNewPrivs. */
static int p_status(char **a)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	(void)a;
	printf("euid %d\n", (int)geteuid());
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff", 6) || !strncmp(line, "CapPrm", 6) ||
		    !strncmp(line, "NoNewPrivs", 10) || !strncmp(line, "Seccomp:", 8))
			fputs(line, stdout);
	return 0;
}

/* Forks until refused (at most 4000); prints how many lived. */
static int p_forkbomb(char **a)
{
	int n = 0;
	(void)a;
	for (; n < 4000; n++) {
		pid_t p = fork();
		if (p < 0)
			break;
		if (p == 0) {
			pause();
			_exit(0);
		}
	}
	printf("forked %d\n", n);
	kill(0, SIGKILL);
	return 0;
}

static int p_membomb(char **a)
{
	size_t total = 0, step = 64 << 20;
	(void)a;
	for (int i = 0; i < 128; i++) { /* up to 8 GiB */
		char *p = mmap(NULL, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		/* faulted in: a memory cgroup caps use, not address space, and
		 * takes the place of RLIMIT_AS where there is one */
		memset(p, 1, step);
		total += step;
	}
	printf("allocated %zu MiB\n", total >> 20);
	return total >= (size_t)8 << 30;
}

/* Four processes each fault in MB MiB and hold it for a second: each stays
 * under a per-process cap, together they pass a tree cap of less. Prints
 * how many were killed. */
static int p_treebomb(char **a)
{
	size_t mb = (size_t)strtoul(a[0], NULL, 10);
	int killed = 0, st;

	for (int i = 0; i < 4; i++)
		if (fork() == 0) {
			char *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(2);
			memset(p, 1, mb << 20);
			sleep(1);
			_exit(0);
		}
	while (wait(&st) > 0)
		killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	printf("killed %d\n", killed);
	return 0;
}

/* Leaves a setsid'd, double-forked grandchild running `sleep TAG`. */
static int p_grandchild(char **a)
{
	if (fork() == 0) {
		setsid();
		if (fork() == 0) {
			execlp("sleep", "sleep", a[0], (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	usleep(100000);
	printf("left sleep %s behind\n", a[0]);
	return 0;
}

static int p_kill(char **a) { return verdict(kill((int)strtol(a[0], NULL, 10), SIGKILL), "kill host pid"); }

static int p_write(char **a)
{
	int fd = open(a[0], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return verdict(fd, a[0]);
	return verdict(write(fd, "PWNED\n", 6), a[0]);
}

static int p_link(char **a) { return verdict(link(a[0], a[1]), "hard link"); }

/* The "shocker" escape: a file handle for the host's root, opened by handle
 * (needs CAP_DAC_READ_SEARCH in the initial namespace; seccomp denies it). */
static int p_handle(char **a)
{
	struct {
		unsigned int bytes;
		int type;
		unsigned char f[8];
	} h = {8, 1, {2, 0, 0, 0, 0, 0, 0, 0}}; /* ext4: inode 2, the root directory */
	(void)a;
	return verdict(syscall(SYS_open_by_handle_at, AT_FDCWD, &h, O_RDONLY), "open_by_handle_at");
}
static int p_module(char **a) { (void)a; return verdict(syscall(SYS_finit_module, 0, "", 0), "finit_module"); }
static int p_kexec(char **a) { (void)a; return verdict(syscall(SYS_kexec_load, 0, 0, NULL, 0), "kexec_load"); }
static int p_reboot(char **a)
{
	(void)a; /* CAD_OFF: harmless even if it worked, but it must not */
	return verdict(syscall(SYS_reboot, 0xfee1dead, 672274793, 0, NULL), "reboot");
}
static int p_clock(char **a)
{
	struct timespec ts;
	(void)a;
	clock_gettime(CLOCK_REALTIME, &ts);
	return verdict(clock_settime(CLOCK_REALTIME, &ts), "clock_settime");
}
static int p_swapon(char **a) { (void)a; return verdict(syscall(SYS_swapon, "/tmp/swap", 0), "swapon"); }
static int p_iopl(char **a) { (void)a; return verdict(syscall(SYS_iopl, 3), "iopl"); }
static int p_setns(char **a)
{
	int fd = open("/proc/1/ns/mnt", O_RDONLY);
	(void)a;
	if (fd < 0)
		return verdict(fd, "open /proc/1/ns/mnt");
	return verdict(setns(fd, 0), "setns into pid 1's mount namespace");
}

/* init is the only process the command shares a uid with that it must not
 * reach: through /proc it could forge "done" or rewrite init's code. */
static int p_initproc(char **a)
{
	const char *what[] = {"/proc/1/mem", "/proc/1/fd/3", "/proc/1/environ"};
	int flags[] = {O_RDWR, O_WRONLY, O_RDONLY};
	(void)a;
	for (int i = 0; i < 3; i++) {
		int fd = open(what[i], flags[i]);
		if (fd >= 0)
			return verdict(fd, what[i]);
	}
	return verdict(-1, "open init's /proc/1/mem, fd and environ");
}

/* pid 1 shares airlock's memory until it execs init, while the command
 * already runs: race it from the command's first instruction for 50 ms. */
static int p_initrace(char **a)
{
	struct timespec t0, t;
	long ms = 0;

	(void)a;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms < 50) {
		int fd = open("/proc/1/mem", O_RDWR);
		if (fd >= 0)
			return verdict(fd, "open pid 1's memory before init's exec");
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
	}
	return verdict(-1, "open pid 1's memory before init's exec");
}

/* Each way to make a set-user-ID or set-group-ID file in the workdir. */
static int p_suid(char **a)
{
	struct stat st;
	int fd, bad = 0;
	char p[256];

	snprintf(p, sizeof(p), "%s.1", a[0]);
	if ((fd = open(p, O_CREAT | O_WRONLY, 0755)) >= 0) {
		close(fd);
		bad |= chmod(p, 04755) == 0 || chmod(p, 02755) == 0;
		bad |= syscall(SYS_fchmodat, AT_FDCWD, p, 04755) == 0;
		bad |= syscall(452 /* fchmodat2 */, AT_FDCWD, p, 04755, 0) == 0;
		if ((fd = open(p, O_WRONLY)) >= 0) {
			bad |= fchmod(fd, 04755) == 0;
			close(fd);
		}
	}
	snprintf(p, sizeof(p), "%s.2", a[0]);
	if ((fd = open(p, O_CREAT | O_WRONLY, 04755)) >= 0) {
		bad |= fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
		close(fd);
	}
	snprintf(p, sizeof(p), "%s.3", a[0]);
	bad |= mknod(p, S_IFREG | 04755, 0) == 0;
	snprintf(p, sizeof(p), "%s.4", a[0]);
	bad |= mkdir(p, 02755) == 0 && stat(p, &st) == 0 && (st.st_mode & S_ISGID);
	errno = EPERM;
	return verdict(bad ? 0 : -1, "make a set-user-ID or set-group-ID file");
}

/* Takes every inotify instance and pending real-time signal it can, says
 * how many, then holds them for a[0] seconds: the kernel counts both per
 * user across namespaces, so what the sandbox holds the host lacks. */
static int p_ucounts(char **a)
{
	sigset_t rt;
	union sigval v = {0};
	long ino = 0, sig = 0;

	sigemptyset(&rt);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(&rt, s);
	sigprocmask(SIG_BLOCK, &rt, NULL);
	while (ino < 100000 && syscall(SYS_inotify_init1, 0) >= 0)
		ino++;
	while (sig < 10000000 && sigqueue(getpid(), SIGRTMIN + (int)(sig % 8), v) == 0)
		sig++;
	printf("held %ld %ld\n", ino, sig);
	sleep((unsigned)strtoul(a[0], NULL, 10));
	return 0;
}

/* Outside the sandbox: can this uid still make an inotify instance and
 * queue a real-time signal? */
static int p_ucounts_host(char **a)
{
	sigset_t rt;
	union sigval v = {0};
	(void)a;
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &rt, NULL);
	printf("inotify %s signal %s\n", syscall(SYS_inotify_init1, 0) >= 0 ? "made" : "refused",
	       sigqueue(getpid(), SIGRTMIN, v) == 0 ? "queued" : "refused");
	return 0;
}

/* System V IPC objects outlive their process (until the ipc namespace
 * dies), so no rlimit counts them: "big" asks for what a call with no
 * memory cgroup may not have (a 2 MiB segment, a set of 64 semaphores, a
 * message queue), "small" for what PostgreSQL needs (a few bytes, 17). */
static int p_sysvipc(char **a)
{
	int big = strcmp(a[0], "big") == 0;
	int shm = shmget(IPC_PRIVATE, big ? 2 << 20 : 64, IPC_CREAT | 0600);
	int sem = semget(IPC_PRIVATE, big ? 64 : 17, IPC_CREAT | 0600);

	if (!big) {
		printf("segment %s set %s\n", shm >= 0 ? "made" : "refused", sem >= 0 ? "made" : "refused");
		return 0;
	}
	if (shm >= 0 || sem >= 0) {
		printf("ESCAPED System V IPC uncapped (segment %d, set %d)\n", shm, sem);
		return 1;
	}
	return verdict(msgget(IPC_PRIVATE, IPC_CREAT | 0600), "System V segment, set and queue");
}

/* A core_pattern that pipes to a helper runs it as root on the host for
 * every crash unless RLIMIT_CORE is exactly 1: the call lowers it to 0 (as
 * harnesses do) and must find it still 1. */
static int p_core(char **a)
{
	struct rlimit zero = {0, 0}, now;
	(void)a;
	setrlimit(RLIMIT_CORE, &zero);
	if (getrlimit(RLIMIT_CORE, &now) == 0 && now.rlim_cur == 1 && now.rlim_max == 1) {
		printf("BLOCKED RLIMIT_CORE stays 1\n");
		return 0;
	}
	printf("ESCAPED RLIMIT_CORE is %llu\n", (unsigned long long)now.rlim_cur);
	return 1;
}

static const struct {
	const char *name;
	int (*fn)(char **);
	int nargs;
} probes[] = {
	{"ptrace", p_ptrace, 0},     {"vmread", p_vmread, 0},       {"socket", p_socket, 1},
	{"connect", p_connect, 1},   {"abstract", p_abstract, 1},   {"llabi", p_llabi, 0},
	{"unixpath", p_unixpath, 1}, {"fifo", p_fifo, 1},   {"mount", p_mount, 0},
	{"umount", p_umount, 0},     {"remount", p_remount, 1},     {"userns", p_userns, 0},
	{"clonens", p_clone_ns, 0},  {"chroot", p_chroot, 0},       {"pivot", p_pivot, 0},
	{"clone3", p_clone3, 0},     {"keyctl", p_keyctl, 0},       {"addkey", p_addkey, 0},
	{"bpf", p_bpf, 0},           {"perf", p_perf, 0},           {"uffd", p_uffd, 0},
	{"iouring", p_iouring, 0},   {"x32", p_x32, 0},             {"i386", p_i386, 0},
	{"tiocsti", p_tiocsti, 0},   {"tioclinux", p_tioclinux, 0}, {"mknod", p_mknod, 1},
	{"personality", p_personality, 0}, {"status", p_status, 0}, {"forkbomb", p_forkbomb, 0},
	{"membomb", p_membomb, 0},   {"treebomb", p_treebomb, 1},   {"grandchild", p_grandchild, 1}, {"kill", p_kill, 1},
	{"write", p_write, 1},       {"link", p_link, 2},           {"handle", p_handle, 0},
	{"module", p_module, 0},     {"kexec", p_kexec, 0},         {"reboot", p_reboot, 0},
	{"clock", p_clock, 0},       {"swapon", p_swapon, 0},       {"iopl", p_iopl, 0},
	{"setns", p_setns, 0},       {"initproc", p_initproc, 0},
	{"initrace", p_initrace, 0},   {"suid", p_suid, 1},
	{"ucounts", p_ucounts, 1},     {"ucounts-host", p_ucounts_host, 0},
	{"sysvipc", p_sysvipc, 1},     {"core", p_core, 0},
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(probes) / sizeof(probes[0]); i++)
		if (strcmp(argv[1], probes[i].name) == 0) {
			if (argc - 2 < probes[i].nargs) {
				fprintf(stderr, "probe %s: needs %d args\n", argv[1], probes[i].nargs);
				return 2;
			}
			return probes[i].fn(argv + 2);
		}
	fprintf(stderr, "probe: unknown attempt %s\n", argc > 1 ? argv[1] : "(none)");
	return 2;
}
