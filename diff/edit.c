/*
 * edit.c: the edit_file rules, shared by the preview and the executor so
 * both agree: the old text must be non-empty and occur exactly once unless
 * replace_all is set, as in the agents' own edit tools; a MultiEdit "edits"
 * list applies in order, each edit on the result of the one before.
 */
#include <stdlib.h>
#include <string.h>

#include "diff/diff_internal.h"

/* Replaces old with new once (it must occur exactly once) or everywhere. */
static int edit_text(const char *text, const char *old, const char *new_text, bool all,
                     struct buf *out, char **errstr)
{
	size_t oldlen = strlen(old), count = 0;
	const char *p = text, *hit;

	if (oldlen == 0) {
		*errstr = xstrdup("edit_file: old text is empty");
		return -1;
	}
	for (hit = strstr(p, old); hit; hit = strstr(hit + oldlen, old))
		count++;
	if (count == 0 || (count > 1 && !all)) {
		*errstr = count ? xasprintf("edit_file: old text occurs %zu times; give more context "
		                            "or set replace_all", count)
		                : xstrdup("edit_file: old text not found in the file");
		return -1;
	}
	while ((hit = strstr(p, old)) != NULL) {
		buf_append(out, p, (size_t)(hit - p));
		buf_puts(out, new_text);
		p = hit + oldlen;
		if (!all)
			break;
	}
	buf_puts(out, p);
	return 0;
}

/* One element of "edits": old_string/new_string (or old/new). */
static int edit_one(json_t *e, size_t i, const char *cur, struct buf *out, char **errstr)
{
	const char *o = json_string_value(json_object_get(e, "old_string"));
	const char *n = json_string_value(json_object_get(e, "new_string"));

	if (o == NULL)
		o = json_string_value(json_object_get(e, "old"));
	if (n == NULL)
		n = json_string_value(json_object_get(e, "new"));
	if (o == NULL || n == NULL) {
		*errstr = xasprintf("edit_file: edits[%zu] needs old_string and new_string", i);
		return -1;
	}
	return edit_text(cur, o, n, json_is_true(json_object_get(e, "replace_all")), out, errstr);
}

int diff_apply_edits(const struct call *c, const char *old_content, size_t old_len,
                     char **new_content, size_t *len, char **errstr)
{
	json_t *edits = json_object_get(c->input, "edits"), *e;
	char *cur = xstrndup(old_content ? old_content : "", old_content ? old_len : 0);
	struct buf out;
	size_t i;
	int rc = -1;

	buf_init(&out, 0);
	if (strlen(cur) != (old_content ? old_len : 0)) { /* the text ops stop at a NUL */
		*errstr = xasprintf("edit_file: the file holds a NUL byte at offset %zu (binary); "
		                    "edits apply to text only, nothing was changed", strlen(cur));
		goto out;
	}
	if (!json_is_array(edits)) {
		if (c->old_text == NULL || c->new_text == NULL) {
			*errstr = xstrdup("edit_file: needs old_string and new_string");
			goto out;
		}
		if (edit_text(cur, c->old_text, c->new_text, c->replace_all, &out, errstr) < 0)
			goto out;
	} else {
		json_array_foreach(edits, i, e) {
			buf_free(&out);
			buf_init(&out, 0);
			if (edit_one(e, i, cur, &out, errstr) < 0)
				goto out;
			free(cur);
			cur = xstrndup(out.data ? out.data : "", out.len);
		}
	}
	if (out.data == NULL)
		buf_puts(&out, cur); /* an empty edits list changes nothing */
	*new_content = buf_take(&out, len);
	rc = 0;
out:
	buf_free(&out);
	free(cur);
	return rc;
}
