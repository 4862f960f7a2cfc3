/*
 * tdata.h: table-driven test data. A data file holds one case per line,
 * fields separated by TABs; '#' starts a comment line; blank lines are
 * skipped. Fields understand C escapes (\t \n \\ \xHH \0 is refused), so
 * multi-line inputs fit on one line. Adding a case is adding a line.
 */
#ifndef AIRLOCK_TDATA_H
#define AIRLOCK_TDATA_H

#include <stddef.h>

#define TDATA_MAXF 8

struct tdata_row {
	char *f[TDATA_MAXF]; /* decoded fields; NULL past nf */
	size_t nf;
	size_t line;         /* line number in the file */
	const char *file;
};

/* Reads every row of path (relative to the source tree); aborts the test
 * run with a message if the file cannot be read. Returns the row count and
 * a new array the caller frees with tdata_free(). */
size_t tdata_load(const char *path, struct tdata_row **rows);
void tdata_free(struct tdata_row *rows, size_t n);

#endif
