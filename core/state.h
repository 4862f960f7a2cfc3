/*
 * state.h: airlock's state directory and the files in it (state.c).
 */
#ifndef AIRLOCK_STATE_H
#define AIRLOCK_STATE_H

/* path with its longest existing prefix resolved (links followed), as a
 * new string; NULL when the rest holds a "." or ".." (it could lead
 * anywhere once made). */
char *state_path_resolved(const char *path);
/* airlock's state directory ($XDG_STATE_HOME/airlock, else
 * ~/.local/state/airlock: the pending records, the default audit log), a
 * new string; NULL when neither is set. No grant may make it writable. */
char *state_root(void);
/* From state_hold() to its state_release() (nested pairs count), this
 * thread's state_root(), the home it judges against and each
 * state_path_resolved() are resolved once, not at every ask: for the
 * planning of one call, never across calls, and never while a sandbox
 * runs (it could change what they resolve through). state_forget() drops
 * what was resolved so far, after the files were changed (a recovery). */
void state_hold(void);
void state_release(void);
void state_forget(void);
/* The file for the workdir wd (resolved) in the state directory's sub
 * directory sub (made, private), as a new string; NULL when the state
 * directory is unknown, in wd or holding it, in a repository or project
 * (a directory above it, the home excepted, holds .git, .hg, .jj or
 * .airlock: a call there could write it), or cannot be made. */
char *state_file(const char *wd, const char *sub);
/* The state directory's sub directory sub, as a new string, not made;
 * NULL when the state directory is unknown, in wd or holding it. */
char *state_dir(const char *wd, const char *sub);
/* Makes dir and its parents, private; -1 when it cannot. */
int state_dir_make(const char *dir);
/* The workdir's part of a file name in the state directory: a hash of
 * its path, 16 hex digits and a NUL. */
void state_key(const char *wd, char key[17]);

#endif
