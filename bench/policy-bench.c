/*
 * policy-bench.c: policy_decide() per call with a 200-rule policy file, for
 * three call shapes (a 3-command shell call with paths, a file read, an
 * http fetch), breakers on. Prints CPU microseconds per call (the machine
 * may be shared); bench/policy.sh sets the 5 us budget beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "policy/policy.h"

static void write_policy(const char *path, int nrules)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		exit(2);
	fputs("[rules]\n", f);
	for (int i = 0; i < nrules; i++) {
		switch (i % 10) {
		case 0: fprintf(f, "\tdeny = Read(secret%d/**)\n", i); break;
		case 1: fprintf(f, "\task = Shell(tool%d push *)\n", i); break;
		case 2: fprintf(f, "\tallow = WebFetch(domain:api%d.example.com)\n", i); break;
		case 3: fprintf(f, "\tdeny = Sql(DROP TABLE t%d*)\n", i); break;
		default: fprintf(f, "\tallow = Shell(tool%d run test:*)\n", i); break;
		}
	}
	fputs("\tallow = Shell(make test)\n\tallow = Shell(ls *)\n\tallow = Shell(grep *)\n", f);
	fclose(f);
}

/* CPU time, so other processes on a shared machine do not count. */
static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double run(struct policy *p, const struct call *c, const struct verdict *v, long n)
{
	long long t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		struct plan pl;
		policy_decide(p, c, v, (time_t)(1000 + i / 50), &pl);
		plan_clear(&pl);
	}
	return (double)(cpu_ns() - t0) / 1000.0 / (double)n;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 200000;
	struct policy_source src = {.workdir = "/work/proj", .home = "/home/u"};
	struct policy *p;
	struct call *sh = call_new(), *rd = call_new(), *web = call_new();
	struct verdict *vs = verdict_new(), *vr = verdict_new(), *vw = verdict_new();
	char *err = NULL, *path = argc > 1 ? argv[1] : "/tmp/airlock-policy-bench";
	const char *cmds[][4] = {{"make", "test", NULL}, {"ls", "-la", "build", NULL},
	                         {"grep", "-r", "TODO", NULL}};

	write_policy(path, 200);
	src.file = path;
	if (policy_load(&src, &p, &err) < 0) {
		fprintf(stderr, "policy-bench: %s\n", err);
		return 2;
	}
	sh->tool = TOOL_SHELL;
	sh->command = "make test && ls -la build | grep -r TODO";
	for (size_t i = 0; i < 3; i++)
		verdict_add_command(vs, strv_dup((char **)cmds[i]), (struct span){0, 0});
	verdict_add_path(&vs->reads, "/work/proj/src/main.c");
	verdict_add_path(&vs->writes, "/work/proj/build/out.o");
	vs->tier = TIER_HIGH;
	rd->tool = TOOL_READ_FILE;
	rd->path = "/work/proj/src/a.c";
	verdict_add_path(&vr->reads, "/work/proj/src/a.c");
	web->tool = TOOL_HTTP;
	web->url = "https://api7.example.com/v1";
	verdict_add_path(&vw->hosts, "api7.example.com");
	printf("shell (3 commands, 2 paths): %.2f\n", run(p, sh, vs, n));
	printf("read_file (1 path):          %.2f\n", run(p, rd, vr, n));
	printf("http (1 host):               %.2f\n", run(p, web, vw, n));
	policy_free(p);
	call_free(sh);
	call_free(rd);
	call_free(web);
	verdict_free(vs);
	verdict_free(vr);
	verdict_free(vw);
	remove(path);
	return 0;
}
