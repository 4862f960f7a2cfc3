/*
 * diff.c: a preview's life: built by the previewer its tool names (a
 * table), marked incomplete whenever applying it would not do exactly what
 * the call does, applied only when complete, freed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff/diff_internal.h"

typedef void (*preview_fn)(struct diff *, const struct call *, const struct diff_opts *);

static const preview_fn previewers[] = {
	[TOOL_SHELL] = overlay_preview,
	[TOOL_SQL] = changeset_preview,
	[TOOL_READ_FILE] = NULL,
	[TOOL_WRITE_FILE] = filediff_preview,
	[TOOL_EDIT_FILE] = filediff_preview,
	[TOOL_HTTP] = NULL,
	[TOOL_OTHER] = NULL,
};

struct diff *diff_new(enum tool t, const char *workdir)
{
	struct diff *d = xcalloc(1, sizeof(*d));
	d->tool = t;
	d->workdir = xstrdup(workdir);
	d->exit_code = -1;
	return d;
}

struct diff *diff_preview_call(const struct call *c, const struct diff_opts *o)
{
	struct diff *d;

	if ((size_t)c->tool >= nitems(previewers) || previewers[c->tool] == NULL)
		return NULL;
	d = diff_new(c->tool, o->workdir);
	previewers[c->tool](d, c, o);
	if (d->error && !d->incomplete)
		diff_set_incomplete(d, "the preview failed");
	return d;
}

char *diff_memdup(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

void entry_clear(struct diff_entry *e)
{
	free(e->path);
	free(e->old_data);
	free(e->new_data);
	free(e->patch);
}

void diff_free(struct diff *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++)
		entry_clear(&d->entries[i]);
	free(d->entries);
	changeset_free(d->sql);
	strv_free(d->notes);
	free(d->workdir);
	free(d->title);
	free(d->error);
	free(d->incomplete);
	free(d->out);
	free(d->err);
	free(d->read_path);
	free(d->read_real[0]);
	free(d->read_real[1]);
	free(d->link_data);
	free(d);
}

const char *diff_error(const struct diff *d)
{
	return d->error;
}

bool diff_complete(const struct diff *d, const char **why)
{
	if (d->incomplete && why)
		*why = d->incomplete;
	return d->incomplete == NULL;
}

/* Keeps a note, or past DIFF_NOTES_CAP counts it: a dry run that wrote
 * 45,000 files into a nested .git made a note for each, each compared
 * with every one before (23 s of a held gate), and 45,000 lines of them
 * came before the stat block, a deletion named after them. */
static void push_note(struct diff *d, char *s)
{
	if (strv_len(d->notes) < DIFF_NOTES_CAP) {
		strv_push_owned(&d->notes, s);
		return;
	}
	d->notes_more++;
	free(s);
}

void diff_set_incomplete(struct diff *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (d->incomplete == NULL)
		d->incomplete = s;
	else if (!strv_contains(d->notes, s) && strcmp(s, d->incomplete) != 0)
		push_note(d, s);
	else
		free(s);
}

void diff_add_note(struct diff *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push_note(d, xvasprintf(fmt, ap));
	va_end(ap);
}

struct diff_entry *diff_add_entry(struct diff *d, const char *path, enum diff_op op)
{
	struct diff_entry *e;

	if (d->n == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 16;
		d->entries = xreallocarray(d->entries, d->alloc, sizeof(*d->entries));
	}
	e = &d->entries[d->n++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->op = op;
	return e;
}

bool diff_hold(struct diff *d, size_t n)
{
	d->held += (long long)n;
	if (d->held <= DIFF_TOTAL_CAP)
		return true;
	diff_set_incomplete(d, "the changes exceed the preview's %lld MiB cap; not all are shown",
	                    DIFF_TOTAL_CAP >> 20);
	return false;
}

int diff_check_unchanged(const struct diff *d, char **errstr)
{
	if (d->tool != TOOL_WRITE_FILE && d->tool != TOOL_EDIT_FILE)
		return 0; /* a dry run stands for nothing it read; SQL checks its own */
	return filediff_unchanged(d, errstr);
}

int diff_apply(struct diff *d, struct outcome *o, char **errstr)
{
	if (d->incomplete) {
		*errstr = xasprintf("the preview cannot be applied: %s", d->incomplete);
		return -1;
	}
	if (d->tool == TOOL_SQL)
		return changeset_apply(d, o, errstr);
	return apply_files(d, o, errstr);
}
