/*
 * classify-bench.c: per-call latency of classify_shell() and classify_sql()
 * over the lines of a file (one command or query per line), on one core.
 * A two-character "\\n" in a line stands for a newline (here-documents).
 * Prints calls/s, median and p99 in microseconds. Used by bench/classify.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier.h"
#include "core/util.h"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct classify_opts o;
	FILE *f;
	char *line = NULL, **lines = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;
	long long *ns, t0, sum = 0;
	bool sql;

	if (argc != 3 || (f = fopen(argv[2], "r")) == NULL) {
		fprintf(stderr, "usage: classify-bench shell|sql FILE\n");
		return 2;
	}
	sql = strcmp(argv[1], "sql") == 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		for (char *p = line; (p = strstr(p, "\\n")) != NULL;) {
			*p = '\n';
			memmove(p + 1, p + 2, strlen(p + 2) + 1);
		}
		lines = xreallocarray(lines, n + 1, sizeof(*lines));
		lines[n++] = xstrdup(line);
	}
	fclose(f);
	free(line);
	ns = xcalloc(n ? n : 1, sizeof(*ns));
	classify_opts_init(&o, "/tmp/airlock-bench-wd", "/root");
	if (sql && n)
		verdict_free(classify_sql(lines[0], &o)); /* load libpg_query outside the timing */
	for (size_t i = 0; i < n; i++) {
		struct verdict *v;
		t0 = clock_ns();
		v = sql ? classify_sql(lines[i], &o) : classify_shell(lines[i], &o);
		ns[i] = clock_ns() - t0;
		verdict_free(v);
	}
	for (size_t i = 0; i < n; i++)
		sum += ns[i];
	qsort(ns, n, sizeof(*ns), cmp_ll);
	/* calls/s, median, p99, mean and max, all from the per-call times */
	printf("%zu %.0f %.2f %.2f %.2f %.2f\n", n, sum ? n / (sum / 1e9) : 0.0,
	       n ? ns[n / 2] / 1e3 : 0.0, n ? ns[(size_t)(n * 0.99)] / 1e3 : 0.0,
	       n ? sum / 1e3 / n : 0.0, n ? ns[n - 1] / 1e3 : 0.0);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(ns);
	return 0;
}
