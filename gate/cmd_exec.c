/*
 * cmd_exec.c: `airlock exec [--profile P] [--workdir DIR] [--chdir DIR]
 * [--network] [--timeout S] [--untrusted-project] [--git-identity]
 * [--git-trust] -- CMD [ARGS...]`: one command in the sandbox, output
 * streamed, its exit status passed through. Rules: a sandbox that cannot be
 * built exits 125 with the step and the fix, and the command never runs;
 * only the explicit profile "none" runs unsandboxed.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/airlock.h"
#include "core/util.h"
#include "exec/exec.h"
#include "gate/commands.h"
#include "gate/identity.h"
#include "policy/policy.h"

struct exec_opts {
	const char *profile, *workdir, *chdir, *policy;
	bool network;
	bool untrusted; /* --untrusted-project: policy_source.guessed */
	bool identity;  /* --git-identity: pass the host's git identity */
	bool trust;     /* --git-trust: pass the host's safe.directory */
	long long timeout_s;
	char **argv;
};

static const char exec_usage[] =
	"usage: airlock exec [--profile readonly|workspace|approved|none|NAME] [--policy FILE]\n"
	"                    [--workdir DIR] [--chdir DIR] [--network] [--timeout S]\n"
	"                    [--untrusted-project] [--git-identity] [--git-trust] -- CMD [ARGS...]\n"
	"Runs CMD once in a sandbox of the profile, as the gate runs an auto-run call.\n"
	"  --profile NAME       the profile (default workspace), built-in or a policy's\n"
	"  --policy FILE        an extra policy file, the top layer\n"
	"  --workdir DIR        the project directory (default: the current one)\n"
	"  --chdir DIR          where CMD starts: the workdir or below it\n"
	"  --network            the network, whatever the profile says\n"
	"  --timeout S          a wall-clock limit of S seconds (1 to 86400)\n"
	"  --untrusted-project  the project's policy file is read as untrusted\n"
	"  --git-identity       the host's git user.name and user.email\n"
	"  --git-trust          the host's safe.directory\n";

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "airlock exec: %s\n", why);
	fputs(exec_usage, stderr);
	return EXIT_USAGE;
}

static const struct option exec_longopts[] = {
	{"profile", required_argument, NULL, 'p'}, {"policy", required_argument, NULL, 'P'},
	{"workdir", required_argument, NULL, 'w'}, {"chdir", required_argument, NULL, 'c'},
	{"network", no_argument, NULL, 'n'},       {"timeout", required_argument, NULL, 't'},
	{"untrusted-project", no_argument, NULL, 'u'},
	{"git-identity", no_argument, NULL, 'i'},  {"git-trust", no_argument, NULL, 'T'},
	{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
};

/* Parses the options (getopt_long: --opt=value too); returns 0, or an exit
 * code to return. */
static int parse(int argc, char **argv, struct exec_opts *o)
{
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+h", exec_longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': o->profile = optarg; break;
		case 'P': o->policy = optarg; break;
		case 'w': o->workdir = optarg; break;
		case 'c': o->chdir = optarg; break;
		case 'n': o->network = true; break;
		case 'u': o->untrusted = true; break;
		case 'i': o->identity = true; break;
		case 'T': o->trust = true; break;
		case 't':
			if (parse_ll(optarg, 1, 86400, &o->timeout_s) < 0)
				return usage("--timeout takes whole seconds from 1 to 86400");
			break;
		case 'h': fputs(exec_usage, stdout); return EXIT_OK + 256; /* help: exit 0 */
		default: return usage(NULL);
		}
	}
	if (optind >= argc)
		return usage("no command given");
	o->argv = argv + optind;
	return 0;
}

/* True when a user or project policy file exists (the layers policy_load
 * reads: any project file, nested or not, or too many of them, which
 * policy_load refuses), so a built-in name may have been redefined there.
 * A link to nothing counts: policy_load refuses it, as the gate does; with
 * access() it read as no file and the built-in profile ran. */
static bool policy_present(const char *workdir)
{
	const char *home = getenv("HOME");
	char *dir = home ? xasprintf("%s/.config/airlock", home) : NULL;
	char *a = home ? xasprintf("%s/policy", dir) : NULL;
	char *dirs[POLICY_MAX_PROJECT_FILES];
	size_t n = policy_project_roots(workdir, dirs, POLICY_MAX_PROJECT_FILES);
	struct stat st;
	bool yes = (a && (lstat(a, &st) == 0 || (stat(dir, &st) < 0 && lstat(dir, &st) == 0))) ||
	           n > 0;

	for (size_t i = 0; i < n && i < POLICY_MAX_PROJECT_FILES; i++)
		free(dirs[i]);
	free(a);
	free(dir);
	return yes;
}

/* Finds the profile: the policy's definition when policy files exist (they
 * may tune a built-in; o->policy is --policy FILE, the top layer, or NULL),
 * else the built-in. Returns a copy; caller frees. */
static struct profile *profile_find(const struct exec_opts *o, const char *workdir,
                                    char **errstr)
{
	const char *name = o->profile, *file = o->policy;
	const struct profile *builtin = exec_builtin_profile(name), *p;
	struct policy_source src = {.workdir = workdir, .home = getenv("HOME"), .file = file,
	                            .guessed = o->untrusted};
	struct policy *pol = NULL;
	struct profile *copy = NULL;

	if (builtin && file == NULL && !policy_present(workdir))
		return profile_dup(builtin); /* the fast path: no policy to parse */
	if (policy_load(&src, &pol, errstr) < 0)
		return NULL;
	p = policy_profile(pol, name);
	if (p || builtin)
		copy = profile_dup(p ? p : builtin);
	else
		*errstr = xasprintf("no profile named %s (built-in: readonly, workspace, approved, "
		                    "none; others come from [profile \"NAME\"] in a policy file)",
		                    name);
	policy_free(pol);
	return copy;
}

/* SIGINT, SIGTERM and SIGHUP while the command runs: the sandbox is killed
 * and the call ends as usual, so what the run planted is still swept and
 * its cgroup removed; then airlock dies of the same signal. Dying at once,
 * as before, left a created .mcp.json or .airlock/ in place (a hung
 * command invites Ctrl-C) and the call's cgroup behind. */
static const int interrupting[] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	if (interrupted == 0)
		interrupted = sig;
}

/* Catches the signals above, except one already ignored (nohup, or a
 * shell's background job keeps SIGINT ignored on purpose). */
static void interrupts_catch(void)
{
	struct sigaction sa = {.sa_handler = on_interrupt}, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(interrupting) / sizeof(interrupting[0]); i++)
		if (sigaction(interrupting[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(interrupting[i], &sa, NULL);
}

/* Maps a result to the exit status a shell would show. */
static int exit_of(const struct exec_result *r, long long timeout_s)
{
	if (r->timed_out) {
		fprintf(stderr, "airlock exec: timed out after %lld s; the sandbox was killed\n",
		        timeout_s);
		return 128 + SIGKILL;
	}
	if (r->disk_low) { /* streaming: no captured stderr carries exec's line */
		fprintf(stderr, "airlock exec: killed: %s\n", EXEC_DISK_LOW_WHY);
		return 128 + SIGKILL;
	}
	if (r->signal)
		return 128 + r->signal;
	return r->exit_code;
}

int cmd_exec(int argc, char **argv)
{
	struct exec_opts o = {.profile = "workspace"};
	struct exec_result res;
	struct profile *prof = NULL;
	char *err = NULL, *cwd = NULL, **ident = NULL, **trust = NULL, **binds = NULL;
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc > 255 ? EXIT_OK : rc;
	cwd = o.workdir ? realpath(o.workdir, NULL) : getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "airlock exec: workdir %s: %s\n", o.workdir ? o.workdir : ".",
		        strerror(errno));
		return EXIT_USAGE;
	}
	prof = profile_find(&o, cwd, &err);
	if (!prof) {
		fprintf(stderr, "airlock exec: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}
	prof->network |= o.network;
	/* only when asked (the hook asks for a call that writes to git):
	 * loading libgit2 costs ~20 ms, and this path starts once per call */
	if (o.identity)
		ident = git_identity_read(cwd, &binds);
	if (o.trust && (trust = git_trust_read(cwd)) != NULL)
		for (char **e = trust; *e; e++)
			strv_push(&ident, *e);
	/* A stdin relayed from a file (exec/capture.c) is written to a pipe the
	 * command may close unread: that is EPIPE, not a reason to die. */
	signal(SIGPIPE, SIG_IGN);
	interrupts_catch();
	struct exec_spec spec = {.argv = o.argv,
	                         .workdir = cwd,
	                         .cwd = o.chdir,
	                         .profile = prof,
	                         .env = ident,
	                         .binds = binds,
	                         .timeout_ms = o.timeout_s * 1000,
	                         .capture = false,
	                         .cancel = &interrupted};
	if (exec_run(&spec, &res, &err) < 0) {
		fprintf(stderr, "airlock exec: %s\n", err);
		rc = res.exec_errno == ENOENT ? EXIT_NOT_FOUND
		     : res.exec_errno         ? EXIT_CANNOT_EXEC
		                              : EXIT_INTERNAL;
		goto out;
	}
	rc = exit_of(&res, o.timeout_s ? o.timeout_s : prof->timeout);
	if (rc == EXIT_NOT_FOUND && res.hidden_path) { /* bash -c: command not found */
		char *hint = exec_hidden_path_hint(res.hidden_path);
		fprintf(stderr, "airlock exec: %s\n", hint);
		free(hint);
	}
	if (rc != 0 && res.masked) /* perhaps why: say so, once it failed */
		fprintf(stderr, "airlock exec: this sandbox hides %s (secret files, sockets and "
		                "FIFOs in the workdir, and what the policy's deny = Read rules "
		                "name); --profile approved shows secret files, never what a deny "
		                "rule names\n",
		        res.masked);
	if (res.recovered)
		fprintf(stderr, "airlock exec: removed %s, left in the workdir by an earlier "
		                "sandboxed run whose airlock was killed before it checked\n",
		        res.recovered);
	if (res.removed)
		fprintf(stderr, "airlock exec: removed %s, which the command made: a sandboxed "
		                "command may not plant git hooks or config, or set up the "
		                "gate or the agent\n",
		        res.removed);
	exec_result_clear(&res);
out:
	free(err);
	free(cwd);
	strv_free(ident);
	strv_free(trust);
	strv_free(binds);
	profile_free(prof);
	if (interrupted) { /* die of it, as the shell that sent it expects */
		fprintf(stderr, "airlock exec: interrupted by signal %d; the sandbox was killed\n",
		        (int)interrupted);
		signal(interrupted, SIG_DFL);
		raise(interrupted);
		rc = 128 + interrupted;
	}
	return rc;
}
