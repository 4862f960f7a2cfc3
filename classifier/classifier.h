/*
 * classifier.h: a decoded call -> a verdict (tier, rules with reasons and
 * spans, the commands that would run, the paths read and written).
 * Pure: no I/O beyond resolving symlinks, so every case is a unit test.
 * What cannot be read with certainty is at least high, never low.
 */
#ifndef AIRLOCK_CLASSIFIER_H
#define AIRLOCK_CLASSIFIER_H

#include "core/airlock.h"

struct classify_opts {
	const char *workdir;       /* absolute; relative paths resolve against it */
	const char *home;          /* $HOME, for ~ and secret paths */
	enum tier unknown_program; /* policy [policy] unknown-program, default medium */
	enum tier unknown_tool;    /* policy [policy] unknown-tool, default high */
};

/* Fills opts with the defaults for this workdir and home (borrowed strings). */
void classify_opts_init(struct classify_opts *opts, const char *workdir, const char *home);

/* Returns a new verdict for the call; never NULL; caller frees. */
struct verdict *classify_call(const struct call *c, const struct classify_opts *opts);

/* Returns a new verdict for one shell command string; caller frees. */
struct verdict *classify_shell(const char *cmd, const struct classify_opts *opts);

/* Returns a new verdict for one SQL string (one or more statements). */
struct verdict *classify_sql(const char *sql, const struct classify_opts *opts);

#endif
