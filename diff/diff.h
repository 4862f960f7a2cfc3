/*
 * diff.h: previews. What a call would change, before it runs: a unified
 * diff for write_file/edit_file, a sandboxed overlay dry run for shell, the
 * rows a SQLite statement would touch. A preview never touches the real
 * workdir; applying one writes exactly what was shown, or refuses.
 */
#ifndef AIRLOCK_DIFF_H
#define AIRLOCK_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/airlock.h"

#define DIFF_DRYRUN_TIMEOUT_MS 10000LL  /* default dry run wall-clock limit */
#define DIFF_OUTPUT_CAP (256u << 10)    /* default dry run output cap per stream */
#define DIFF_FILE_CAP (64LL << 20)      /* largest file a preview reads */
#define DIFF_TOTAL_CAP (256LL << 20)    /* largest total a preview holds in memory */
#define DIFF_TEXT_CAP (8u << 20)        /* largest rendered preview text */
#define DIFF_ROWS_SHOWN 20              /* default SQL rows shown per preview */

struct diff;

struct diff_opts {
	const char *workdir;            /* absolute, resolved; required */
	const struct profile *profile;  /* dry run sandbox; NULL: builtin "workspace" */
	char *const *env;               /* dry run extra environment; may be NULL */
	char *const *binds;             /* dry run extra read-only binds; may be NULL */
	const struct verdict *verdict;  /* hosts/writes mark a preview incomplete; may be NULL */
	long long timeout_ms;           /* dry run limit; 0: DIFF_DRYRUN_TIMEOUT_MS */
	size_t output_cap;              /* dry run output cap; 0: DIFF_OUTPUT_CAP */
	size_t rows_shown;              /* SQL rows listed; 0: DIFF_ROWS_SHOWN */
};

enum diff_format { DIFF_FORMAT_PLAIN, DIFF_FORMAT_COLOR };

/*
 * Builds the preview of one call. Returns a new preview (caller frees with
 * diff_free), or NULL when the tool has nothing to preview (read_file, http,
 * other tools). Failures are part of the preview (diff_error), never a crash.
 */
struct diff *diff_preview_call(const struct call *c, const struct diff_opts *o);
void diff_free(struct diff *d);

/* Returns the error that made the preview fail (the call would fail the
 * same way), or NULL. Borrowed. */
const char *diff_error(const struct diff *d);
/* True when applying the preview does exactly what the call would do.
 * Otherwise *why (when not NULL) gets a borrowed reason. */
bool diff_complete(const struct diff *d, const char **why);

/* Returns the preview as git-style text (new string, caller frees): lines
 * start with '-', '+' or ' ' as in git; colour adds ANSI escapes. */
char *diff_render(const struct diff *d, enum diff_format f, size_t *len);
/* Returns a new JSON object describing the preview. */
json_t *diff_to_json(const struct diff *d);

/*
 * Applies exactly what was previewed: file changes beneath the workdir
 * without following symlinks (deletions first), or the SQL statement in one
 * transaction that must produce the previewed changeset. Refuses when the
 * workdir (or database) changed since the preview. Returns 0 and fills o
 * (ran, exit_code, out), or -1 with *errstr (caller frees) and nothing
 * changed. Only for a complete preview.
 */
int diff_apply(struct diff *d, struct outcome *o, char **errstr) AIRLOCK_MUST_CHECK;

/*
 * Reads again what a file tool's preview read (the file, or a symlink and
 * what it points to) before a preview that is not applied lets the call
 * run: that run acts on what is there then, and a link swapped since the
 * preview made it edit another file than the one shown. Returns 0 when
 * unchanged (or nothing to check: other tools), -1 with *errstr (caller
 * frees) when it changed.
 */
int diff_check_unchanged(const struct diff *d, char **errstr) AIRLOCK_MUST_CHECK;

/*
 * Runs a write_file/edit_file call whose preview is not applied (outside
 * the workdir, through a symlink, a file not read) on exactly what the
 * preview read: its directory opened by the path it resolved to then,
 * without following any symlink (beneath the workdir when inside), the
 * file (or link, and through it the file) compared with what was read,
 * and the content shown renamed over the name, never written through a
 * link. Returns 1 when written (o filled), 0 when d is not a file tool's
 * (the call runs), -1 with *errstr (caller frees) and nothing written.
 */
int diff_run_file(const struct diff *d, struct outcome *o, char **errstr) AIRLOCK_MUST_CHECK;
/* Tests only: called by diff_run_file() after its check by name, before
 * it opens what it writes (a swap made there must not carry the write
 * elsewhere). NULL in airlock. */
extern void (*diff_run_hook)(void);

/*
 * Opens (O_PATH) the directory abs lands in by the path realpath() gives
 * for it, without following any symlink: beneath workdir (absolute,
 * resolved) when inside, else from / unless beneath (an auto-run write:
 * refused outside). expect, when not NULL, is what it resolved to before
 * (a preview): another path is refused. Returns the fd, or -1 with
 * *errstr (caller frees).
 */
int diff_open_dir(const char *workdir, const char *abs, bool beneath, const char *expect,
                  char **errstr);
/* Replaces dirfd/name atomically (a temp file beside it, fsync, renameat)
 * with len bytes of data and mode's permission bits; a link at name is
 * replaced, not followed. Returns 0, or -1 with errno. */
int diff_replace_at(int dirfd, const char *name, const char *data, size_t len, mode_t mode);

/*
 * The edit_file rules shared by the preview and the executor: one old/new
 * pair (old must occur exactly once unless replace_all) or a MultiEdit
 * "edits" list applied in order, to old_len bytes of text (a NUL in them
 * is an error: the edits would drop what follows it). Returns 0 with a new
 * NUL-terminated *new_content (caller frees) of *len bytes, or -1 with
 * *errstr.
 */
int diff_apply_edits(const struct call *c, const char *old_content, size_t old_len,
                     char **new_content, size_t *len, char **errstr) AIRLOCK_MUST_CHECK;

/* Tuning for benchmarks and tests: diffs two buffers as path and returns
 * the rendered text (new string, caller frees), or NULL with *errstr. */
char *diff_buffers(const char *path, const char *a, size_t alen, const char *b, size_t blen,
                   enum diff_format f, char **errstr);

#endif
