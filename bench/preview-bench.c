/*
 * preview-bench.c: the preview's costs against issue 6's yardsticks, in one
 * process: an overlay dry run of `true` vs the same sandboxed run; a
 * preview of a command changing 1,000 files (dry run, walk, diffs, render);
 * a 10,000-line file diff. Prints TAB-separated "name<TAB>ms" lines
 * (medians) for bench/preview.sh.
 * usage: preview-bench WORKDIR RUNS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "diff/diff.h"
#include "exec/exec.h"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* CPU time of this process: what the diff costs, whatever else the machine runs. */
static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double median_ms(long long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return (double)v[n / 2] / 1e6;
}

/* One sandboxed run of cmd; with an overlay dir when overlay is set. */
static long long sandboxed(const char *wd, const char *cmd, const char *overlay)
{
	char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL};
	struct exec_spec s = {.argv = argv, .workdir = wd, .overlay_dir = overlay,
	                      .profile = exec_builtin_profile("workspace"), .capture = true};
	struct exec_result r;
	char *err = NULL;
	long long t = clock_ns();

	if (exec_run(&s, &r, &err) < 0) {
		fprintf(stderr, "exec_run: %s\n", err);
		exit(1);
	}
	exec_result_clear(&r);
	return clock_ns() - t;
}

/* Times one whole shell preview; *render_ns gets the render's share. */
static long long preview_shell(const char *wd, const char *cmd, long long *render_ns,
                               size_t *nfiles, long long *dry_ns)
{
	struct call c = {.tool = TOOL_SHELL, .command = cmd, .name = (char *)"shell"};
	struct diff_opts o = {.workdir = wd, .timeout_ms = 120000};
	long long t = clock_ns(), r;
	struct diff *d = diff_preview_call(&c, &o);
	const char *why = NULL;
	json_t *j;
	char *text;

	if (!diff_complete(d, &why)) {
		fprintf(stderr, "preview incomplete: %s\n", why);
		exit(1);
	}
	r = clock_ns();
	text = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	*render_ns = clock_ns() - r;
	t = clock_ns() - t;
	j = diff_to_json(d);
	*nfiles = json_array_size(json_object_get(j, "files"));
	if (dry_ns)
		*dry_ns = (long long)json_integer_value(
		        json_object_get(json_object_get(j, "dry_run"), "wall_ms")) * 1000000;
	json_decref(j);
	free(text);
	diff_free(d);
	return t;
}

static void fill(const char *wd, int files, int lines)
{
	for (int i = 0; i < files; i++) {
		char *p = xasprintf("%s/f%04d.txt", wd, i);
		FILE *f = fopen(p, "w");
		for (int k = 0; f && k < lines; k++)
			fprintf(f, "line %d of file %d\n", k, i);
		if (f)
			fclose(f);
		free(p);
	}
}

int main(int argc, char **argv)
{
	long long runs = 0, *a, *b, *c, render = 0;
	const char *wd = argc > 1 ? argv[1] : NULL;
	char *big = NULL, *err = NULL;
	size_t nfiles = 0;
	struct buf x, y;

	if (wd == NULL || argc < 3 || parse_ll(argv[2], 3, 100000, &runs) < 0) {
		fprintf(stderr, "usage: preview-bench WORKDIR RUNS\n");
		return 2;
	}
	a = xcalloc((size_t)runs, sizeof(*a));
	b = xcalloc((size_t)runs, sizeof(*b));
	c = xcalloc((size_t)runs, sizeof(*c));
	for (int i = 0; i < runs; i++) { /* interleaved, so load drifts hit all */
		char ov[] = "/dev/shm/airlock-bench-ov.XXXXXX", *rm;
		a[i] = sandboxed(wd, "true", NULL);
		b[i] = preview_shell(wd, "true", &render, &nfiles, NULL);
		if (mkdtemp(ov) == NULL)
			return 1;
		c[i] = sandboxed(wd, "true", ov); /* the same tmpfs the preview uses */
		rm = xasprintf("rm -rf %s", ov);
		if (system(rm) != 0)
			return 1;
		free(rm);
	}
	printf("sandboxed\t%.3f\n", median_ms(a, (int)runs));
	printf("dryrun\t%.3f\n", median_ms(b, (int)runs));
	printf("overlayrun\t%.3f\n", median_ms(c, (int)runs));
	for (int i = 0; i < runs; i++) { /* paired: each preview minus the run beside it */
		long long pa = b[i] - a[i], pc = c[i] - a[i], pd = b[i] - c[i];
		a[i] = pa, b[i] = pc, c[i] = pd;
	}
	printf("pair_dry\t%.3f\n", median_ms(a, (int)runs));
	printf("pair_overlay\t%.3f\n", median_ms(b, (int)runs));
	printf("pair_diff\t%.3f\n", median_ms(c, (int)runs));

	/* one process rewriting 1,000 files (perl-base is always there) */
	static const char cmd1000[] = "perl -pi -e 's/^line 3 /LINE 3 /' *.txt";
	big = xasprintf("%s/many", wd);
	mkdir(big, 0755);
	fill(big, 1000, 20);
	for (int i = 0; i < 5; i++) {
		long long dry = 0;
		b[i] = preview_shell(big, cmd1000, &render, &nfiles, &dry);
		c[i] = render;
		a[i] = b[i] - dry;
	}
	printf("files\t%zu\n", nfiles);
	printf("preview1000\t%.3f\n", median_ms(b, 5));
	printf("own1000\t%.3f\n", median_ms(a, 5));
	printf("render1000\t%.3f\n", median_ms(c, 5));

	buf_init(&x, 0);
	buf_init(&y, 0);
	for (int i = 0; i < 10000; i++) {
		buf_printf(&x, "line %d: some text that is not very long\n", i);
		buf_printf(&y, i % 7 ? "line %d: some text that is not very long\n"
		                     : "line %d: changed text\n", i);
	}
	for (int i = 0; i < runs; i++) {
		long long t = clock_ns(), u = cpu_ns();
		char *text = diff_buffers("big.txt", x.data, x.len, y.data, y.len,
		                          DIFF_FORMAT_PLAIN, &err);
		c[i] = clock_ns() - t;
		a[i] = cpu_ns() - u;
		if (text == NULL) {
			fprintf(stderr, "diff: %s\n", err);
			return 1;
		}
		free(text);
	}
	printf("diff10000\t%.3f\n", median_ms(c, (int)runs));
	printf("diff10000cpu\t%.3f\n", median_ms(a, (int)runs));
	buf_free(&x);
	buf_free(&y);
	free(big);
	free(a);
	free(b);
	free(c);
	return 0;
}
