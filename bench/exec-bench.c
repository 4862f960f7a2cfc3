/*
 * exec-bench.c: gate-mode cost of the sandbox: N calls of `true` through
 * exec_run() (capture on, as the gate runs auto-run calls) against N bare
 * fork+exec+wait of the same binary, both in this one process. Prints
 * "bare<TAB>ms per call" and "sandbox<TAB>ms per call" lines, then the
 * sandbox's phase breakdown; "guard DIR" times a gate call's guard in a
 * repository; "secrets DIR" times the search for a
 * workdir's secret files. Built by bench/exec.sh; not part of airlock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "exec/exec.h"
#include "exec/exec_internal.h"

/* CPU ms (user+system) of this process and its reaped children so far. */
static double cpu_ms(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) *
	               1e3 +
	       (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec) /
	               1e3;
}

static double bare(int n)
{
	long long t0 = clock_ns();
	for (int i = 0; i < n; i++) {
		int st;
		pid_t p = fork();
		if (p == 0) {
			execl("/usr/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &st, 0) < 0 || st != 0)
			return -1;
	}
	return (double)(clock_ns() - t0) / 1e6 / n;
}

/* Agents think between calls: with gap_us > 0, each call starts that long
 * after the last ended, and only the calls themselves are timed. */
static double sandboxed_gap(int n, const char *wd, const char *profile, int gap_us)
{
	char *argv[] = {(char *)"/usr/bin/true", NULL}, *err = NULL;
	struct exec_spec s = {.argv = argv, .workdir = wd, .capture = true,
	                      .profile = exec_builtin_profile(profile)};
	struct exec_result r;
	long long busy = 0;

	for (int i = 0; i < n; i++) {
		if (gap_us > 0)
			usleep((useconds_t)gap_us);
		long long t0 = clock_ns();
		if (exec_run(&s, &r, &err) < 0 || r.exit_code != 0) {
			fprintf(stderr, "exec-bench: %s\n", err ? err : "true failed");
			return -1;
		}
		busy += clock_ns() - t0;
		exec_result_clear(&r);
	}
	return (double)busy / 1e6 / n;
}

static double sandboxed(int n, const char *wd, const char *profile)
{
	return sandboxed_gap(n, wd, profile, 0);
}

/* "once CMD": one sandboxed call, streamed, as `airlock exec` does it,
 * from a binary that loads only what exec/ needs (for the breakdown). */
static int once(char **cmd)
{
	char cwd[4096], *err = NULL;
	struct exec_result r;
	struct exec_spec s = {.argv = cmd, .workdir = getcwd(cwd, sizeof(cwd)),
	                      .profile = exec_builtin_profile("workspace")};
	if (exec_run(&s, &r, &err) < 0) {
		fprintf(stderr, "exec-bench: %s\n", err);
		return 125;
	}
	return r.exit_code;
}

/* "secrets DIR": the search for DIR's secret files a plan makes, first
 * with nothing kept (as one `airlock exec` pays it in a new workdir), first
 * from what that search kept (as the next `airlock exec` pays it), and then
 * remembered (as the gate pays it per call): "cold<TAB>ms", "kept<TAB>ms",
 * "warm<TAB>ms" (median of 50), "found<TAB>N". */
static int secrets(const char *dir)
{
	double warm[50];
	char **found, *err = NULL;
	size_t n;
	long long t0 = clock_ns();

	if (secrets_find(dir, MASK_SECRETS | MASK_PIPES, NULL, &found, &n, NULL, &err) < 0) {
		fprintf(stderr, "exec-bench: %s\n", err);
		return 1;
	}
	printf("cold\t%.3f\nfound\t%zu\n", (double)(clock_ns() - t0) / 1e6, n);
	strv_free(found);
	secrets_forget(); /* as a new process */
	t0 = clock_ns();
	if (secrets_find(dir, MASK_SECRETS | MASK_PIPES, NULL, &found, &n, NULL, &err) < 0)
		return 1;
	printf("kept\t%.3f\n", (double)(clock_ns() - t0) / 1e6);
	strv_free(found);
	for (size_t i = 0; i < nitems(warm); i++) {
		t0 = clock_ns();
		if (secrets_find(dir, MASK_SECRETS | MASK_PIPES, NULL, &found, &n, NULL, &err) < 0)
			return 1;
		warm[i] = (double)(clock_ns() - t0) / 1e6;
		strv_free(found);
	}
	for (size_t i = 1; i < nitems(warm); i++) /* insertion sort: 50 values */
		for (size_t j = i; j > 0 && warm[j] < warm[j - 1]; j--) {
			double t = warm[j];
			warm[j] = warm[j - 1];
			warm[j - 1] = t;
		}
	printf("warm\t%.3f\n", warm[nitems(warm) / 2]);
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "guard DIR": what a gate call's guard costs in DIR (a repository): the
 * note before the run and the sweep after it, in process, medians of 200:
 * "note<TAB>ms", "sweep<TAB>ms". */
static int guard(const char *dir)
{
	double note[200], sweep[200];
	char real[4096];

	if (realpath(dir, real) == NULL)
		return 1;
	for (size_t i = 0; i < nitems(note); i++) {
		struct guard_note g;
		long long t0 = clock_ns();
		if (guard_note(real, mounts_home(), NULL, &g) < 0) {
			fprintf(stderr, "exec-bench: cannot note %s\n", real);
			return 1;
		}
		long long t1 = clock_ns();
		free(guard_sweep(&g));
		note[i] = (double)(t1 - t0) / 1e6;
		sweep[i] = (double)(clock_ns() - t1) / 1e6;
		guard_note_clear(&g);
	}
	printf("note\t%.3f\nsweep\t%.3f\n", median(note, nitems(note)), median(sweep, nitems(sweep)));
	return 0;
}

#define ROUNDS 5

/* ROUNDS rounds of k bare calls, then k sandboxed ones: the cost above
 * bare is each round's difference, so a burst of load on this shared
 * machine moves one round, not the figure (the median of the rounds).
 * Fills bare[] and diff[]; returns the mean sandboxed time, -1 on error. */
static double rounds(int k, const char *wd, double *bare_ms, double *diff, double *cpu_b,
                     double *cpu_s)
{
	double sum = 0;

	*cpu_b = *cpu_s = 0;
	for (int i = 0; i < ROUNDS; i++) {
		double c0 = cpu_ms(), b = bare(k), c1 = cpu_ms();
		double sb = sandboxed(k, wd, "workspace"), c2 = cpu_ms();
		if (b < 0 || sb < 0)
			return -1;
		bare_ms[i] = b;
		diff[i] = sb - b;
		sum += sb;
		*cpu_b += (c1 - c0) / k / ROUNDS;
		*cpu_s += (c2 - c1) / k / ROUNDS;
	}
	return sum / ROUNDS;
}

static void print_rounds(const char *name, double *diff)
{
	printf("%s_over_bare\t%.3f\n", name, median(diff, ROUNDS)); /* sorts diff */
	printf("%s_spread\t%.3f..%.3f\n", name, diff[0], diff[ROUNDS - 1]);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "once") == 0)
		return once(argv + 2);
	if (argc > 2 && strcmp(argv[1], "secrets") == 0)
		return secrets(argv[2]);
	if (argc > 2 && strcmp(argv[1], "guard") == 0)
		return guard(argv[2]);
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1000, k = n / 2 / ROUNDS;
	char here[4096], *err = NULL;
	const char *wd = argc > 1 ? argv[1] : getcwd(here, sizeof(here)); /* not /tmp: refused */
	double bf[ROUNDS], df[ROUNDS], bp[ROUNDS], dp[ROUNDS], cb, cs, cbp, cp;
	unsigned long hits, misses;

	setenv("AIRLOCK_EXEC_PHASES", "1", 1);
	double fresh = rounds(k, wd, bf, df, &cb, &cs);
	double nb = sandboxed(n / 4, wd, "none");
	/* the gate keeps the next sandbox built while a call runs */
	if (exec_pool_start(&err) < 0) {
		fprintf(stderr, "exec-bench: %s\n", err);
		return 1;
	}
	double pooled = rounds(k, wd, bp, dp, &cbp, &cp);
	double pg = sandboxed_gap(n / 4, wd, "workspace", 20000);
	exec_pool_stop();
	double fg = sandboxed_gap(n / 4, wd, "workspace", 20000);
	exec_pool_stats(&hits, &misses);
	if (fresh < 0 || nb < 0 || pooled < 0 || pg < 0 || fg < 0)
		return 1;
	double all[2 * ROUNDS];
	memcpy(all, bf, sizeof(bf));
	memcpy(all + ROUNDS, bp, sizeof(bp));
	printf("rounds\t%d of %d calls each\n", ROUNDS, k);
	printf("bare\t%.3f\n", median(all, 2 * ROUNDS));
	printf("sandbox\t%.3f\n", fresh);
	printf("none\t%.3f\n", nb);
	printf("pooled\t%.3f\n", pooled);
	print_rounds("sandbox", df);
	print_rounds("pooled", dp);
	printf("spaced_pooled\t%.3f\n", pg);
	printf("spaced_fresh\t%.3f\n", fg);
	printf("cpu_pooled\t%.3f\n", cp);
	printf("pool_hits\t%lu/%lu\n", hits, hits + misses);
	printf("cpu_bare\t%.3f\n", (cb + cbp) / 2);
	printf("cpu_sandbox\t%.3f\n", cs);
	printf("phases\t");
	exec_phases_print(stdout);
	return 0;
}
