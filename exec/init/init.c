/*
 * init.c: the sandbox's pid 1. ns.c builds the sandbox in a child that
 * shares airlock's memory (no page tables copied), starts the command from
 * it, then execs this program from a sealed memfd so that init owns
 * nothing of airlock's. It is built freestanding (no libc, a few pages):
 * an exec of it costs a fraction of a fork of airlock.
 *
 * argv[1] is the command's pid. init waits for it, kills and reaps
 * everything else in the namespace (orphans are reaped all along), leaves
 * the call's cgroup, and writes a struct sbx_done to its done pipe. A pid
 * namespace's init ignores signals it has no handler for, so nothing
 * inside the sandbox can kill it; airlock kills it (and with it the whole
 * namespace) with SIGKILL from outside.
 */
#include "exec/init/init.h"

typedef long word;

enum { NR_WRITE, NR_GETPID, NR_KILL, NR_WAIT4, NR_GETRUSAGE, NR_PRCTL, NR_EXIT_GROUP, NR_COUNT };

#if defined(__x86_64__)
static const word nr[NR_COUNT] = {1, 39, 62, 61, 98, 157, 231};

static word sys4(word n, word a, word b, word c, word d)
{
	register word r10 __asm__("r10") = d;
	word r;

	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
	                 : "rcx", "r11", "memory");
	return r;
}

__asm__(".text\n.globl _start\n_start:\n"
        "\txor %rbp, %rbp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall init_main\n\thlt\n");
#elif defined(__aarch64__)
static const word nr[NR_COUNT] = {64, 172, 129, 260, 165, 167, 94};

static word sys4(word n, word a, word b, word c, word d)
{
	register word x8 __asm__("x8") = n;
	register word x0 __asm__("x0") = a;
	register word x1 __asm__("x1") = b;
	register word x2 __asm__("x2") = c;
	register word x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}

__asm__(".text\n.globl _start\n_start:\n\tmov x0, sp\n\tbl init_main\n\tbrk #0\n");
#else
#error "the sandbox's init has syscall stubs for x86_64 and aarch64 only"
#endif

#define EINTR 4
#define SIGKILL 9
#define RUSAGE_CHILDREN (-1)
#define PR_SET_NAME 15
#define PR_SET_DUMPABLE 4

struct timeval_k {
	long sec, usec;
};
struct rusage_k {
	struct timeval_k utime, stime;
	long maxrss, rest[13];
};

static word sys(int call, word a, word b, word c, word d)
{
	return sys4(nr[call], a, b, c, d);
}

static long long parse_pid(const char *s)
{
	long long v = 0;

	for (; s && *s >= '0' && *s <= '9' && v < 1 << 22; s++)
		v = v * 10 + (*s - '0');
	return s && *s == '\0' ? v : -1;
}

static long long usec(struct timeval_k t)
{
	return t.sec * 1000000LL + t.usec;
}

void init_main(long *sp);

void __attribute__((noreturn, used)) init_main(long *sp)
{
	char **argv = (char **)(sp + 1);
	long long cmd = sp[0] == 2 ? parse_pid(argv[1]) : -1;
	struct sbx_done d = {.status = 127 << 8};
	struct rusage_k ru;
	word w;
	int st;

	/* kill(-1) below means every process this uid may signal: outside a
	 * fresh pid namespace that would be the whole machine */
	if (sys(NR_GETPID, 0, 0, 0, 0) != 1 || cmd <= 1)
		for (;;)
			sys(NR_EXIT_GROUP, 125, 0, 0, 0);
	/* already so (ns.c execs init from an execute-only memfd); said again
	 * for a host whose fs.suid_dumpable is 1 */
	sys(NR_PRCTL, PR_SET_DUMPABLE, 0, 0, 0);
	sys(NR_PRCTL, PR_SET_NAME, (word) "airlock-init", 0, 0); /* not "memfd:..." in ps */
	for (;;) { /* the command's status; orphans are reaped as they come */
		w = sys(NR_WAIT4, -1, (word)&st, 0, 0);
		if (w == cmd) {
			d.status = st;
			break;
		}
		if (w < 0 && w != -EINTR)
			break; /* no children left: bad pid, or nothing to wait for */
	}
	sys(NR_KILL, -1, SIGKILL, 0, 0); /* everything else in the namespace */
	while ((w = sys(NR_WAIT4, -1, (word)&st, 0, 0)) > 0 || w == -EINTR)
		;
	sys(NR_WRITE, SBX_INIT_CG_FD, (word) "0", 1, 0); /* fails harmlessly if closed */
	sys(NR_WRITE, SBX_INIT_MEM_FD, (word) "0", 1, 0);
	if (sys(NR_GETRUSAGE, RUSAGE_CHILDREN, (word)&ru, 0, 0) == 0) {
		d.utime_us = usec(ru.utime);
		d.stime_us = usec(ru.stime);
		d.maxrss_kb = ru.maxrss;
	}
	sys(NR_WRITE, SBX_INIT_DONE_FD, (word)&d, sizeof(d), 0);
	for (;;)
		sys(NR_EXIT_GROUP, 0, 0, 0, 0);
}
