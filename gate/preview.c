/*
 * preview.c: STAND-IN until the preview issue lands: no preview is built,
 * so approved calls always run.
 */
#include "gate/pipeline.h"

struct preview *gate_preview(struct gate *g, const struct call *c, const struct verdict *v,
                             const struct plan *pl, struct outcome *o)
{
	(void)g, (void)c, (void)v, (void)pl, (void)o;
	return NULL;
}

int gate_apply_preview(struct gate *g, struct preview *p, const struct call *c,
                       struct outcome *o)
{
	(void)g, (void)p, (void)c, (void)o;
	return 0;
}

void gate_preview_free(struct preview *p)
{
	(void)p;
}
