/*
 * diff_internal.h: the preview's body, shared by the files of diff/ only.
 * An entry records both what the preview read (old) and what it would
 * write (new), so apply can check the first and write exactly the second.
 */
#ifndef AIRLOCK_DIFF_INTERNAL_H
#define AIRLOCK_DIFF_INTERNAL_H

#include <sys/types.h>
#include <time.h>

#include "core/util.h"
#include "diff/diff.h"

enum diff_op { DIFF_OP_ADD, DIFF_OP_MODIFY, DIFF_OP_DELETE };

struct diff_entry {
	char *path;              /* relative to the workdir; owned */
	enum diff_op op;
	mode_t old_mode, new_mode; /* S_IFREG|perm, S_IFDIR|perm, S_IFLNK; 0 = absent */
	char *old_data;          /* file bytes or link target; dirs: child names, NUL-separated */
	size_t old_len;
	char *new_data;          /* what apply writes; owned */
	size_t new_len;
	bool binary;
	bool replaces;           /* a DELETE of the same path goes first: check that one */
	int adds, dels;          /* line counts of the text diff */
	char *patch;             /* hunks ("@@", " ", "+", "-" lines); owned, NULL if none */
	size_t patch_len;
	bool patch_truncated;
	bool unread;             /* old_data not read (past DIFF_FILE_CAP): old_len is its
	                          * size, old_mtime its mtime, to tell a change */
	struct timespec old_mtime;
};

/* One statement of a SQL preview. */
struct sql_stmt {
	char *kind;              /* first keyword, upper case: "DELETE"; owned */
	long long changes;       /* sqlite3_changes64() after it ran */
	char **tables;           /* tables it writes (authorizer), but shadow tables; owned */
	char **top;              /* of them, written by the statement itself, not a trigger,
	                          * in the authorizer's order (shadow tables too until run) */
	int *top_ops;            /* SQLITE_INSERT, _UPDATE or _DELETE for each of top */
	char *target;            /* the table its count is of (the first of top but shadow
	                          * tables), NULL for none; owned */
	int op;                  /* what it did there (SQLITE_INSERT for a REPLACE, an upsert) */
};

/* One table the changes touch. */
struct row_sums; /* changeset.c: each row's sum, to compare rows */

struct sql_table {
	char *name;
	char **cols;             /* column names, in order */
	long long before;        /* rows before the statement; -1 unknown */
	long long after;         /* rows after it, for a table without a primary key; -1 unknown */
	long long deleted, inserted, updated;
	bool no_pk;              /* the session extension does not record it */
	bool gone;               /* dropped by the statement */
	bool virtual;            /* a virtual table (an R-tree, FTS): its shadow tables hold the rows */
	bool null_pk;            /* a row's key holds a NULL: the session skips that row */
	unsigned char sum_before[32], sum_after[32]; /* no_pk: SHA-256 of its rows */
	bool summed_before, summed_after;
	struct row_sums *rows_after; /* no_pk: each row's sum after, until compared */
	long long vanished;      /* no_pk: rows before that no row after equals; -1 unknown */
	char **rows_gone;        /* no_pk: the first of them, rendered ("- log _rowid_=3 ...") */
	size_t rows_gone_more;   /* and how many more */
	char **rows_new;         /* no_pk: the rows after that no row before equals ("+ ...") */
	size_t rows_new_more;
};

struct diff_sql {
	char *path;              /* the database file, absolute */
	char *real;              /* path resolved when previewed; the apply opens it */
	dev_t dev;               /* and the file found there then */
	ino_t ino;
	char *query;
	void *changeset;         /* sqlite3session_changeset(); sqlite3_free */
	int changeset_len;
	struct sql_stmt *stmts;
	size_t nstmts;
	struct sql_table *tables;
	size_t ntables;
	char **rows;             /* the first rows_cap changes, rendered */
	size_t rows_total, rows_cap;
	char **ddl;              /* schema changes: "DROP TABLE users" */
	char **kinds;            /* other databases: "DELETE users" per statement */
	size_t skipped;          /* BEGIN/COMMIT statements skipped */
	long long now_ms;        /* 'now' the statements saw (julian day, ms); the apply's too */
	size_t unrun;            /* 1-based: the first statement whose rows are not shown
	                          * (refused, or interrupted: 1); 0 when all ran */
	int failed;              /* primary SQLite code a statement failed with */
	long long schema;        /* PRAGMA schema_version before the statement */
	bool snap;               /* the preview (not the apply): keyless tables are snapped */
	struct {
		char *name;
		struct row_sums *rs; /* its rows' sums before the statements, sorted */
	} *snaps;
	size_t nsnaps;
};

struct diff {
	enum tool tool;
	char *workdir;
	char *title;             /* one line: what was previewed; owned */
	char *error;             /* the preview failed like the call would; owned */
	char *incomplete;        /* why apply must not stand in for the run; owned */
	char **notes;            /* extra lines shown after the title, DIFF_NOTES_CAP at most */
	size_t notes_more;       /* notes past the cap: counted, not kept */
	struct diff_entry *entries;
	size_t n, alloc;
	long long held;          /* bytes of old+new data held, against DIFF_TOTAL_CAP */
	size_t unlisted;         /* dry run: changes the walk saw but could not list */
	bool outside;            /* file tool: the path is outside the workdir */
	char *read_path;         /* file tool: the absolute path it read; owned */
	char *read_real[2];      /* and its directory and itself resolved (realpath), NULL
	                          * when it did not resolve; owned */
	mode_t link_mode;        /* edit_file through a symlink: the link itself (S_IFLNK) */
	char *link_data;         /* and its target; the entry holds what it points to */
	size_t link_len;
	/* shell dry run */
	bool ran;
	long long wall_ms;       /* the dry run's wall time */
	int exit_code;
	bool timed_out;
	char *out, *err;
	size_t outlen, errlen;
	/* sql */
	struct diff_sql *sql;
};

/* diff.c */
#define DIFF_NOTES_CAP 20 /* notes kept; the rest are counted */
/* Returns a new NUL-terminated copy of n bytes (which may hold NULs). */
char *diff_memdup(const void *p, size_t n);
struct diff *diff_new(enum tool t, const char *workdir);
/* Sets the first reason the preview cannot be applied (later ones are notes). */
void diff_set_incomplete(struct diff *d, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
void diff_add_note(struct diff *d, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
/* Appends an entry (zeroed but for path and op) and returns it. */
struct diff_entry *diff_add_entry(struct diff *d, const char *path, enum diff_op op);
/* Counts bytes held; returns false (and marks the preview incomplete) past the cap. */
bool diff_hold(struct diff *d, size_t n);

/* filediff.c */
/* Appends n bytes with control bytes as \xNN and invisible or reordering
 * characters (C1, bidi controls, zero-width) as \uXXXX; tabs kept, and a
 * final newline when keep_newline. */
void diff_escape(struct buf *b, const char *p, size_t n, bool keep_newline);
/* Returns a new one-line copy of s escaped so (a path, a name, a title
 * from outside): it cannot forge lines, drive the terminal or hide behind
 * bidi controls. Caller frees. */
char *diff_shown(const char *s);
/* Fills e->patch/adds/dels/binary from e->old_data/new_data with libgit2. */
int filediff_entry(struct diff_entry *e, char **errstr);
/* Reads a whole file at dirfd/path (a final symlink followed only when
 * follow) up to cap bytes; returns 1 = read (new *data), 0 = absent, -1. */
int filediff_read(int dirfd, const char *path, bool follow, long long cap, char **data,
                  size_t *len, char **errstr);
/* Reads what is at dirfd/name without following it: *mode (0 = absent) and
 * *data: file bytes, link target, or a dir's sorted NUL-separated names. */
int filediff_state(int dirfd, const char *name, mode_t *mode, char **data, size_t *len,
                   char **errstr);
void filediff_preview(struct diff *d, const struct call *c, const struct diff_opts *o);
/* Reads again what a file tool's preview read: 0 when unchanged, -1 with *errstr. */
int filediff_unchanged(const struct diff *d, char **errstr);
void entry_clear(struct diff_entry *e);

/* overlay.c */
void overlay_preview(struct diff *d, const struct call *c, const struct diff_opts *o);

/* changeset.c */
void changeset_preview(struct diff *d, const struct call *c, const struct diff_opts *o);
/* failed: the preview stopped with an error, so no count stands for "none" */
void changeset_render(const struct diff_sql *s, struct buf *b, bool color, bool failed);
json_t *changeset_to_json(const struct diff_sql *s);
int changeset_apply(struct diff *d, struct outcome *o, char **errstr);
void changeset_free(struct diff_sql *s);

/* apply.c */
/* Opens path (relative) beneath rootfd without following any symlink. */
int apply_open_beneath(int rootfd, const char *path, int flags, mode_t mode);
int apply_files(struct diff *d, struct outcome *o, char **errstr);
/* filediff_state() for rel beneath rootfd, opened without following
 * symlinks; a missing parent directory reads as absent. */
int apply_read_state(int rootfd, const char *rel, mode_t *mode, char **data, size_t *len,
                     char **errstr);
/* Reads the current state of one entry's path beneath rootfd and says
 * whether it still matches what the preview read. */
bool apply_unchanged(int rootfd, const struct diff_entry *e);

#endif
