/*
 * approve.c: STAND-IN (foundation issue) until the approval screen lands:
 * every ask is denied, and says so, because no person can be asked yet.
 */
#include "core/util.h"
#include "gate/pipeline.h"

void gate_approve(struct gate *g, const struct call *c, const struct verdict *v,
                  const struct plan *pl, const char *preview, struct approval *a)
{
	(void)g;
	(void)c;
	(void)v;
	(void)pl;
	(void)preview;
	a->decision = DECISION_DENIED;
	a->reason = xstrdup("no approval screen yet: high-risk calls are denied");
	a->who = "no-terminal";
	a->wait_ms = 0;
}
