/*
 * breaker.c: circuit breakers kept across a session: calls per tool per
 * minute, the same call repeated, and total auto-run time. Time comes from
 * the caller (`now`), so tests drive the clock. State is bounded: one ring
 * of at most [breaker] per-minute times per tool, POLICY_MAX_TOOLS tools.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "policy/policy_internal.h"

#define WINDOW POLICY_BREAKER_WINDOW

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL; /* a separator, so fields cannot slide */
}

/* What acts beyond the named fields, as canonical JSON (a new string, or
 * NULL): a tool airlock does not know acts on its whole input, a MultiEdit
 * on its edits. Left out, every call of an MCP tool was "the same call"
 * whatever its arguments, and the 11th asked. */
static char *call_rest(const struct call *c)
{
	json_t *v = c->tool == TOOL_OTHER       ? c->input
	            : c->tool == TOOL_EDIT_FILE ? json_object_get(c->input, "edits")
	                                        : NULL;

	return v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
}

/* Two calls are "the same" when tool and every field that acts are equal
 * (as bs->key maps them, when set). */
static uint64_t call_hash(const struct breaker_state *bs, const struct call *c)
{
	uint64_t h = 14695981039346656037ULL;
	char *rest = call_rest(c);
	const char *fields[] = {tool_name(c->tool), c->name,     c->command,  c->query,
	                        c->database,        c->path,     c->content,  c->old_text,
	                        c->new_text,        c->method,   c->url,      c->body,
	                        c->replace_all ? "replace-all" : NULL,        rest};

	for (size_t i = 0; i < nitems(fields); i++) {
		char *k = bs->key && fields[i] ? bs->key(fields[i], bs->key_arg) : NULL;
		h = fnv(h, k ? k : fields[i]);
		free(k);
	}
	free(rest);
	return h;
}

static const char *breaker_tool(const struct call *c)
{
	return c->tool == TOOL_OTHER && c->name ? c->name : tool_name(c->tool);
}

static struct tool_window *window_for(struct breaker_state *bs, const char *tool, size_t cap)
{
	struct tool_window *w;

	for (size_t i = 0; i < bs->ntools; i++)
		if (strcmp(bs->tools[i].tool, tool) == 0)
			return &bs->tools[i];
	if (bs->ntools == POLICY_MAX_TOOLS) { /* one shared window for the rest */
		w = &bs->tools[POLICY_MAX_TOOLS];
		if (w->tool == NULL)
			w->tool = xstrdup("(other tools)");
	} else {
		w = &bs->tools[bs->ntools++];
		w->tool = xstrdup(tool);
	}
	if (w->ring == NULL) {
		w->ring = xcalloc(cap, sizeof(*w->ring));
		w->cap = cap;
	}
	return w;
}

/* Records a call at now; returns true when `cap` calls were already made
 * within the last minute. */
static bool window_push(struct tool_window *w, time_t now)
{
	bool full;

	while (w->count > 0 && w->ring[w->head] <= now - WINDOW) {
		w->head = (w->head + 1) % w->cap;
		w->count--;
	}
	full = w->count == w->cap;
	if (full) {
		w->ring[w->head] = now;
		w->head = (w->head + 1) % w->cap;
	} else {
		w->ring[(w->head + w->count) % w->cap] = now;
		w->count++;
	}
	return full;
}

enum breaker_trip breaker_record(struct policy *p, const struct call *c, time_t now)
{
	const struct breaker_conf *b = &p->breaker;
	struct breaker_state *bs = &p->bs;
	uint64_t h = call_hash(bs, c);
	enum breaker_trip trip = TRIP_NONE;

	if (bs->same > 0 && h == bs->last_hash) {
		bs->same++;
	} else {
		bs->last_hash = h;
		bs->same = 1;
	}
	if (b->per_minute > 0 &&
	    window_push(window_for(bs, breaker_tool(c), (size_t)b->per_minute), now))
		trip = TRIP_PER_MINUTE;
	else if (b->repeat > 0 && bs->same > b->repeat)
		trip = TRIP_REPEAT;
	else if (b->session_seconds > 0 && bs->runtime_ms >= b->session_seconds * 1000)
		trip = TRIP_SESSION;
	return trip;
}

size_t policy_breaker_memory(const struct policy *p)
{
	long long n = p->breaker.per_minute > p->breaker.repeat ? p->breaker.per_minute
	                                                        : p->breaker.repeat;
	return n > 0 ? (size_t)n : 0;
}

void policy_breaker_replay(struct policy *p, const struct call *c, time_t when)
{
	(void)breaker_record(p, c, when); /* a past trip was decided back then */
}

void policy_breaker_key(struct policy *p, policy_key_fn fn, void *arg)
{
	p->bs.key = fn;
	p->bs.key_arg = arg;
}

char *breaker_reason(const struct policy *p, enum breaker_trip trip, const struct call *c)
{
	const struct breaker_conf *b = &p->breaker;

	switch (trip) {
	case TRIP_PER_MINUTE:
		return xasprintf("breaker per-minute: more than %lld %s calls in a minute "
		                 "([breaker] per-minute)", b->per_minute, breaker_tool(c));
	case TRIP_REPEAT:
		return xasprintf("breaker repeat: the same call %lld times in a row, limit %lld "
		                 "([breaker] repeat)", p->bs.same, b->repeat);
	case TRIP_SESSION:
		return xasprintf("breaker session-seconds: %lld s of auto-run time this session, "
		                 "limit %lld ([breaker] session-seconds)",
		                 p->bs.runtime_ms / 1000, b->session_seconds);
	case TRIP_NONE: break;
	}
	return NULL;
}

void breaker_state_clear(struct breaker_state *bs)
{
	for (size_t i = 0; i <= POLICY_MAX_TOOLS; i++) {
		free(bs->tools[i].tool);
		free(bs->tools[i].ring);
	}
	memset(bs, 0, sizeof(*bs));
}
