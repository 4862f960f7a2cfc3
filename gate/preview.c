/*
 * preview.c: the gate's preview plug points (diff/). Every ask call gets a
 * preview, which is recorded and shown to the person approving it; after
 * approval a complete preview is applied instead of running the call again,
 * so what the person saw is what lands.
 * Rules it keeps:
 *  - a preview that failed the way the call would fail (edit text absent,
 *    SQL error) refuses the call instead of running it;
 *  - an incomplete preview (network, paths outside the workdir, time limit)
 *    is shown but never applied: the call runs under its profile instead;
 *  - a preview whose workdir changed since it was shown is refused, and so
 *    is a file tool's call not applied whose file (or link) changed.
 */
#include <stdlib.h>

#include "core/util.h"
#include "diff/diff.h"
#include "exec/exec.h"
#include "gate/pipeline.h"

struct preview {
	struct diff *d;
};

struct preview *gate_preview(struct gate *g, const struct call *c, const struct verdict *v,
                             const struct plan *pl, struct outcome *o)
{
	char **binds = NULL, **env = gate_call_env(g, pl, &binds);
	struct diff_opts opts = {
		.workdir = gate_workdir(g),
		.profile = pl->profile ? pl->profile : exec_builtin_profile("workspace"),
		.env = env,
		.binds = binds,
		.verdict = v,
	};
	struct diff *d = diff_preview_call(c, &opts);
	struct preview *p;

	strv_free(env);
	strv_free(binds);
	if (d == NULL)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->d = d;
	free(o->preview);
	o->preview = diff_render(d, DIFF_FORMAT_PLAIN, NULL);
	return p;
}

int gate_apply_preview(struct gate *g, struct preview *p, const struct call *c,
                       struct outcome *o)
{
	long long start = clock_ns();
	char *err = NULL;

	(void)g, (void)c;
	if (diff_error(p->d)) {
		outcome_set_reason(o, "%s", diff_error(p->d));
		return -1;
	}
	/* not applied, the call runs on what is there now: a link swapped
	 * since the preview (link.txt -> real.txt, then -> other.txt) had the
	 * approved edit land on a file no one was shown */
	if (!diff_complete(p->d, NULL)) {
		if (diff_check_unchanged(p->d, &err) < 0) {
			outcome_set_reason(o, "%s", err);
			free(err);
			return -1;
		}
		return 0;
	}
	if (diff_apply(p->d, o, &err) < 0) {
		outcome_set_reason(o, "%s", err);
		free(err);
		return -1;
	}
	o->applied = "preview";
	o->duration_ms = (clock_ns() - start) / 1000000;
	return 1;
}

void gate_preview_free(struct preview *p)
{
	if (p == NULL)
		return;
	diff_free(p->d);
	free(p);
}
