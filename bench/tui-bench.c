/*
 * tui-bench.c: the screens' own cost, without a terminal or process start
 * (bench/tui.sh builds it against libairlock.a and prints it beside the
 * end-to-end figures measured in tmux). Modes, each the median of 7 runs:
 *   approve DIFF   the approval screen's first frame for a call whose
 *                  preview is the file DIFF (layout of every row included)
 *   audit DB       db_open + the audit browser's first frame over DB
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "db/db.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"

#define RUNS 7

static long long drawn;

static void io_size(void *a, int *r, int *c)
{
	(void)a;
	*r = 24;
	*c = 80;
}

static void io_draw(void *a, const struct trow **rows, int n, int cr, int cc)
{
	(void)a, (void)rows, (void)n, (void)cr, (void)cc;
	if (drawn == 0)
		drawn = clock_ns();
}

static int io_read(void *a, int t, struct tkey *k)
{
	(void)a, (void)t, (void)k;
	return -1; /* the first frame is all we time */
}

static const struct screen_io io = {NULL, io_size, io_draw, io_read};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b;
	char chunk[65536];
	size_t n;

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(&b, chunk, n);
	fclose(f);
	return buf_take(&b, NULL);
}

static double approve_once(const char *diff)
{
	struct verdict *v = verdict_new();
	struct tui_ask ask = {.tool = "write_file", .tier = TIER_HIGH, .call_id = "1",
	                      .subject = "big.txt", .subject_label = "path", .verdict = v,
	                      .preview = diff, .input_text = diff};
	struct tui_answer ans;
	long long t0 = clock_ns();

	drawn = 0;
	tui_approve_io(&ask, &ans, &io);
	tui_answer_clear(&ans);
	verdict_free(v);
	return (double)(drawn - t0) / 1e6;
}

static double audit_once(const char *path)
{
	struct db *db = NULL;
	char *err = NULL;
	long long t0 = clock_ns();

	drawn = 0;
	if (db_open(path, &db, &err) < 0 || tui_audit_browse_io(db, NULL, &io, false, &err) < 0) {
		fprintf(stderr, "tui-bench: %s\n", err);
		exit(1);
	}
	db_close(db);
	return (double)(drawn - t0) / 1e6;
}

int main(int argc, char **argv)
{
	double t[RUNS];
	char *diff = NULL;

	if (argc != 3 || (strcmp(argv[1], "approve") && strcmp(argv[1], "audit"))) {
		fprintf(stderr, "usage: tui-bench approve DIFF | audit DB\n");
		return 2;
	}
	setlocale(LC_CTYPE, "C.UTF-8");
	if (strcmp(argv[1], "approve") == 0)
		diff = slurp(argv[2]);
	for (int i = 0; i < RUNS; i++)
		t[i] = diff ? approve_once(diff) : audit_once(argv[2]);
	qsort(t, RUNS, sizeof(t[0]), cmp);
	printf("%.2f\n", t[RUNS / 2]);
	free(diff);
	return 0;
}
