/*
 * identity.h: the host's git identity for a sandboxed call that writes to
 * git. The sandbox's home is empty, so `git commit` there failed with
 * "Author identity unknown"; ~/.gitconfig itself must not be shown (it may
 * hold credential helpers, http.extraHeader tokens, URLs with tokens), so
 * only the four identity values are passed, in the environment git reads
 * before any config.
 */
#ifndef AIRLOCK_GATE_IDENTITY_H
#define AIRLOCK_GATE_IDENTITY_H

#include <stdbool.h>

#include "core/airlock.h"

/* True when the verdict has a git finding (commit, merge, stash, tag...):
 * only such a call is given the identity, so a call that does not write
 * to git never pays for libgit2. */
bool git_identity_wanted(const struct verdict *v);

/*
 * Returns "GIT_AUTHOR_NAME=...", "GIT_AUTHOR_EMAIL=...",
 * "GIT_COMMITTER_NAME=..." and "GIT_COMMITTER_EMAIL=..." for the ones
 * known (NULL-terminated; caller frees with strv_free), or NULL when
 * workdir is not in a git work tree or no identity is set. Each comes from
 * the caller's own GIT_* variable when set, else the repository's config
 * as git reads it (author.name or committer.name before user.name; the
 * system, global, XDG and repository levels, includes and includeIf),
 * read with libgit2, which is loaded only when workdir is in a work tree,
 * in a child process given a deadline (an included file may be a FIFO).
 * Also the host's global ignore file (core.excludesFile, else git's XDG
 * default), in the hidden home, so `git add -A` leaves out what it does on
 * the host: appended to *binds (to bind read-only; caller frees) and
 * named by GIT_CONFIG_COUNT/KEY_0/VALUE_0 in the entries returned.
 */
char **git_identity_read(const char *workdir, char ***binds);

/* True when the call runs git at all (a command named git): such a call
 * is given the host's safe.directory (git_trust_read). */
bool git_trust_wanted(const struct verdict *v);

/*
 * For a workdir in a work tree owned by another user (a root agent in a
 * container on a bind-mounted checkout): the host's safe.directory
 * values, from the system, global and XDG config where git honours them,
 * as {"GIT_CONFIG_PARAMETERS='safe.directory'='...' ...", NULL} (caller
 * frees with strv_free), so git in the sandbox, which sees no
 * ~/.gitconfig, trusts exactly what the host's trusts; NULL otherwise
 * (libgit2 is loaded only for such a work tree: a few stats decide).
 */
char **git_trust_read(const char *workdir);

#endif
