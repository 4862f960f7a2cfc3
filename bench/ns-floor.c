/*
 * ns-floor.c: the least any namespace sandbox can cost here, for
 * bench/exec.sh: one clone() into new user, mount, pid, net, ipc, uts and
 * cgroup namespaces (sharing memory until the exec, as airlock does), then
 * exec of the command, nothing else: no uid map, no mounts, no seccomp,
 * no init, no limits. A real sandbox can only be slower.
 *
 *	ns-floor PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[64 * 1024] __attribute__((aligned(16)));

static int child(void *arg)
{
	char **argv = arg;

	execv(argv[0], argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
	            CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_VM | CLONE_VFORK | SIGCHLD;
	pid_t pid;
	int st;

	if (argc < 2) {
		fputs("usage: ns-floor PROGRAM [ARGS...]\n", stderr);
		return 2;
	}
	pid = clone(child, stack + sizeof(stack), flags, argv + 1);
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		perror("ns-floor");
		return 125;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
