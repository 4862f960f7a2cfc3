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
 * read with libgit2, which is loaded only when workdir is in a work tree.
 */
char **git_identity_read(const char *workdir);

#endif
