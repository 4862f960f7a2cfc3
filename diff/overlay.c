/*
 * overlay.c: shell previews: a dry run in the sandbox with the workdir as
 * an overlay, then a walk of the upper dir. (Waiting for exec/'s overlay.)
 */
#include "diff/diff_internal.h"

void overlay_preview(struct diff *d, const struct call *c, const struct diff_opts *o)
{
	(void)o;
	d->title = xasprintf("shell %s", c->command ? c->command : "");
	diff_set_incomplete(d, "dry run unavailable: the sandbox has no overlay support yet");
}
