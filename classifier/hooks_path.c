/*
 * hooks_path.c: the paths a git config makes git run or read as config
 * from the workdir: a core.hooksPath directory (`.githooks`, committed so
 * that hooks run) and a file an include names (`../.gitconfig.local`). A
 * file write_file or edit_file puts there runs at the host's next commit,
 * and those tools are not sandboxed (the sandbox keeps these paths
 * read-only for shell calls). The caller reads the configs with libgit2,
 * as the guard does (exec_config_guarded()), and passes what they name in
 * classify_opts: the classifier itself reads no file.
 */
#include <stdio.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

void hooks_path_write(struct cctx *x, const char *abs, struct span sp)
{
	char p[CLS_MAX_PATH], dir[CLS_MAX_PATH];

	if (x->wd == NULL || paths_class(x, abs) != PC_WORKDIR)
		return;
	if (x->o->config_unread) {
		cls_add(x, TIER_HIGH, "fs.write.git_config", sp,
		        "writes %s, and the git config that says where hooks run from could not "
		        "be read", abs);
		return;
	}
	for (char *const *r = x->o->config_guarded; r && *r; r++) {
		int n = snprintf(p, sizeof(p), "%s/%s", x->wd, *r);
		if (n < 0 || (size_t)n >= sizeof(p) || !paths_resolve(x, p, dir, sizeof(dir)) ||
		    !path_contains(dir, abs))
			continue;
		cls_add(x, TIER_HIGH, "fs.write.git_config", sp,
		        "writes %s in %s, which a git config makes hooks or config git runs", abs, dir);
		return;
	}
}
