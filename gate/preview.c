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
 *    is a file tool's call not applied whose file (or link) changed; that
 *    call runs here (diff_run_file), on the directory and file the preview
 *    read, opened without following links, never by name again.
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
	/* not applied: a file tool runs here on exactly what the preview read
	 * (opened without following links, compared, then replaced). Checked
	 * and then run by name, a directory link swapped in between carried
	 * the approved write to another directory. Other tools run the call. */
	if (!diff_complete(p->d, NULL)) {
		int rc = diff_run_file(p->d, o, &err);
		if (rc < 0) {
			outcome_set_reason(o, "%s", err);
			free(err);
			return -1;
		}
		if (rc > 0) {
			o->applied = "run";
			o->duration_ms = (clock_ns() - start) / 1000000;
		}
		return rc;
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
