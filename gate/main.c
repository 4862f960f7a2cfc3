/*
 * main.c: airlock's entry point: picks the subcommand from a table.
 * With no subcommand, stdin that is not a terminal means `airlock gate`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/airlock.h"
#include "core/util.h"
#include "gate/commands.h"

/* answers: the exit code when stdout was closed at start, for the
 * commands whose stdout carries the answers (0: any other). */
static const struct {
	const char *name;
	int (*run)(int, char **);
	int answers;
	const char *summary;
} commands[] = {
	{"gate", cmd_gate, EXIT_INTERNAL, "classify, decide, sandbox and record a stream of tool calls"},
	{"classify", cmd_classify, 0, "print the verdict for each call; runs nothing"},
	{"exec", cmd_exec, 0, "run one command in the sandbox"},
	{"preview", cmd_preview, 0, "show what each call would change"},
	{"policy", cmd_policy, 0, "check or show the effective policy"},
	{"audit", cmd_audit, 0, "list, show, export and verify the audit log"},
	{"run", cmd_run, 0, "start an agent as a child and gate its tool calls"},
	/* 2 is the one status after which Claude Code blocks the tool */
	{"hook", cmd_hook, EXIT_USAGE, "answer a Claude Code PreToolUse hook"},
	{"mcp", cmd_mcp, EXIT_INTERNAL, "proxy an MCP stdio server, gating tools/call"},
	{"watch", cmd_watch, 0, "classify and record an agent's own event stream"},
};

/*
 * Holds each of fds 0, 1, 2 that is closed with /dev/null opened the other
 * way (reads of fd 0 and writes of 1 and 2 still fail with EBADF, as on a
 * closed descriptor), and returns which were (bit fd). A closed one is the
 * lowest free descriptor: the signal pipe airlock made took fd 0 and the
 * gate read its own pipe for good (a hang, `airlock gate <&-`), and a
 * file opened on fd 1 would get the results.
 */
static unsigned stdio_guard(void)
{
	unsigned closed = 0;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		closed |= 1u << fd;
		if (open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) != fd)
			_exit(EXIT_INTERNAL); /* fail safe: cannot happen, fd was free */
	}
	return closed;
}

/* argv[0] becomes "airlock CMD": getopt names the program by it, and
 * `airlock audit -h` said "audit: invalid option", `airlock gate --x`
 * "gate: unrecognized option", as if from another program. */
static int command_run(size_t i, int argc, char **argv, unsigned closed)
{
	static char *prog; /* for the process's life, as argv */

	if ((closed & 2u) && commands[i].answers) {
		fprintf(stderr, "airlock %s: stdout is closed, so no answer could be given;"
		                " nothing was read or run\n", commands[i].name);
		return commands[i].answers;
	}
	prog = xasprintf("airlock %s", commands[i].name);
	argv[0] = prog;
	return commands[i].run(argc, argv);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: airlock [COMMAND] [OPTIONS]\n"
	           "airlock %s stands between a coding agent and the machine.\n\ncommands:\n",
	        AIRLOCK_VERSION);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`agent | airlock [GATE OPTIONS]` runs the gate. `airlock COMMAND --help` for\n"
	           "more; `airlock --version` (-V) prints the version; man airlock for exit\n"
	           "codes and files.\n");
}

int main(int argc, char **argv)
{
	unsigned closed = stdio_guard();

	/* jansson drops bytes or asserts when its allocator fails mid-parse;
	 * abort instead, as everywhere else, so no different call is decoded. */
	json_set_alloc_funcs(xmalloc, free);
	if (argc < 2) {
		if (!isatty(STDIN_FILENO))
			return command_run(0, argc, argv, closed);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return command_run(i, argc - 1, argv + 1, closed);
	if (argv[1][0] == '-' && !isatty(STDIN_FILENO))
		return command_run(0, argc, argv, closed);
	fprintf(stderr, "airlock: unknown command %s\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
