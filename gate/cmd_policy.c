/*
 * cmd_policy.c: `airlock policy check [FILE]` validates policy files and
 * `airlock policy show [--defaults]` prints the effective policy with the
 * origin of each value. Any error in any layer exits 2 (EXIT_USAGE).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/airlock.h"
#include "core/util.h"
#include "gate/commands.h"
#include "policy/policy.h"

static const char policy_usage[] =
	"usage: airlock policy check [-w|--workdir DIR] [FILE]\n"
	"       airlock policy show [--defaults] [-w|--workdir DIR] [--policy FILE]\n"
	"\n"
	"check   validate FILE, or every layer (~/.config/airlock/policy, each\n"
	"        .airlock/policy from DIR up to /); exit 2 on any error\n"
	"show    print the effective merged policy, each value's origin as a comment;\n"
	"        --defaults prints the compiled-in defaults as a policy file\n";

static const struct option policy_longopts[] = {
	{"defaults", no_argument, NULL, 'd'},
	{"policy", required_argument, NULL, 'p'},
	{"workdir", required_argument, NULL, 'w'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct policy_args {
	bool defaults;
	const char *file, *workdir;
};

/* One line of a message to stderr, fit for a terminal: errors and warnings
 * quote the files' text (a cloned repository's project file), and an ESC
 * there retitled the terminal or cleared the warnings from sight, or a
 * \n in a quoted value began a line of its own. */
static void say(const char *verb, const char *kind, const char *text)
{
	struct buf b;

	buf_init(&b, 0);
	buf_append_shown(&b, text, strlen(text), SHOWN_TAB);
	buf_puts(&b, "");
	fprintf(stderr, "airlock policy%s%s: %s%s\n", *verb ? " " : "", verb, kind, b.data);
	buf_free(&b);
}

static int load(const char *verb, const struct policy_args *a, struct policy **out,
                char **wd)
{
	struct policy_source src = {.defaults_only = a->defaults, .file = a->file};
	char *err = NULL;

	*wd = NULL;
	if (!a->defaults && (a->workdir || strcmp(verb, "show") == 0 || a->file == NULL)) {
		if ((*wd = realpath(a->workdir ? a->workdir : ".", NULL)) == NULL) {
			fprintf(stderr, "airlock policy %s: cannot resolve workdir %s: %s\n", verb,
			        a->workdir ? a->workdir : ".", strerror(errno));
			return -1;
		}
		src.workdir = *wd;
		src.home = getenv("HOME");
	}
	if (policy_load(&src, out, &err) < 0) {
		for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
			say(verb, "", line);
		free(err);
		return -1;
	}
	for (char *const *w = policy_warnings(*out); w && *w; w++)
		say(verb, "warning: ", *w);
	return 0;
}

static int run(const char *verb, const struct policy_args *a)
{
	struct policy *p = NULL;
	char *wd = NULL;
	int rc = EXIT_USAGE;

	if (load(verb, a, &p, &wd) < 0)
		goto out;
	if (strcmp(verb, "check") == 0) {
		printf("%s: ok\n", a->file ? a->file : "policy");
	} else if (policy_show(p, stdout, !a->defaults) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "airlock policy show: cannot write: %s\n", strerror(errno));
		rc = EXIT_INTERNAL;
		goto out;
	}
	rc = EXIT_OK;
out:
	policy_free(p);
	free(wd);
	return rc;
}

/*
 * `check DIR/.airlock/policy` is a project file: checked as FILE alone it
 * passed as a trusted --policy file, "ok" with no word that the gate
 * ignores its allow rules and whatever else would loosen the policy. It
 * is checked as the gate reads it, with DIR as the workdir (the user's
 * file and the layers above it too), so those warnings show.
 */
static int check_project(struct policy_args *a)
{
	static const char suffix[] = ".airlock/policy";
	const char *f = a->file;
	size_t fl = strlen(f), sl = sizeof(suffix) - 1;
	char *dir;
	int rc;

	if (fl < sl || strcmp(f + fl - sl, suffix) != 0 || (fl > sl && f[fl - sl - 1] != '/'))
		return run("check", a);
	dir = fl == sl ? xstrdup(".") : fl == sl + 1 ? xstrdup("/") : xstrndup(f, fl - sl - 1);
	printf("%s: a project file: checked as the gate reads it in %s\n", f, dir);
	a->workdir = dir;
	a->file = NULL;
	rc = run("check", a);
	free(dir);
	return rc;
}

/* Why `airlock policy VERB ...` cannot go on, or NULL when it can. */
static const char *policy_args_wrong(const char *verb, const struct policy_args *a,
                                     int extra)
{
	bool check = strcmp(verb, "check") == 0;

	if (check && a->defaults)
		return "check takes no --defaults (`policy show --defaults` prints them)";
	if (check && a->file)
		return "check takes the file as its argument, not --policy";
	if (extra > (check ? 1 : 0))
		return check ? "check takes one FILE at most" : "show takes no argument";
	return NULL;
}

int cmd_policy(int argc, char **argv)
{
	struct policy_args a = {0};
	const char *verb, *wrong;
	int ch;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(policy_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "check") != 0 && strcmp(verb, "show") != 0) {
		say("", "unknown verb (check or show): ", verb);
		goto usage;
	}
	argv[1] = argv[0]; /* getopt's messages name "airlock policy", not the verb */
	optind = 1;
	while ((ch = getopt_long(argc - 1, argv + 1, "+hw:", policy_longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': a.defaults = true; break;
		case 'p': a.file = optarg; break;
		case 'w': a.workdir = optarg; break;
		case 'h': fputs(policy_usage, stdout); return EXIT_OK;
		default: goto usage;
		}
	}
	if ((wrong = policy_args_wrong(verb, &a, argc - optind - 1)) != NULL) {
		fprintf(stderr, "airlock policy: %s\n", wrong);
		goto usage;
	}
	if (strcmp(verb, "check") == 0 && optind + 1 < argc)
		a.file = argv[optind + 1];
	if (strcmp(verb, "check") == 0 && a.file && a.workdir == NULL)
		return check_project(&a);
	return run(verb, &a);
usage:
	fputs(policy_usage, stderr);
	return EXIT_USAGE;
}
