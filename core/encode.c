/*
 * encode.c: JSON for verdicts and byte strings, one-line call summaries.
 * Output is always valid UTF-8: jansson refuses anything else, and a
 * command's raw bytes must never break the result stream.
 */
#include <stdlib.h>
#include <string.h>

#include "core/encode.h"
#include "core/util.h"

json_t *encode_bytes(const char *p, size_t n)
{
	json_t *s;
	char *fixed;

	if (p == NULL)
		return json_string("");
	if (utf8_valid(p, n)) /* checked: jansson need not walk it again */
		return json_stringn_nocheck(p, n);
	fixed = utf8_repair(p, n);
	s = json_string(fixed);
	free(fixed);
	return s;
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();
	for (; v && *v; v++)
		json_array_append_new(a, encode_bytes(*v, strlen(*v)));
	return a;
}

void encode_verdict(json_t *obj, const struct verdict *v)
{
	json_t *rules = json_array(), *reasons = json_array(), *spans = json_array();

	for (size_t i = 0; i < v->nfindings; i++) {
		const struct finding *f = &v->findings[i];
		json_t *span = json_array();
		json_array_append_new(rules, encode_bytes(f->rule, strlen(f->rule)));
		json_array_append_new(reasons, encode_bytes(f->reason, strlen(f->reason)));
		/* not json_pack(): its format parser costs more than the pair */
		json_array_append_new(span, json_integer((json_int_t)f->span.off));
		json_array_append_new(span, json_integer((json_int_t)f->span.len));
		json_array_append_new(spans, span);
	}
	json_object_set_new(obj, "tier", json_string_nocheck(tier_name(v->tier)));
	json_object_set_new(obj, "rules", rules);
	json_object_set_new(obj, "reasons", reasons);
	json_object_set_new(obj, "spans", spans);
}

json_t *encode_verdict_full(const struct verdict *v)
{
	json_t *obj = json_object(), *cmds = json_array();

	encode_verdict(obj, v);
	for (size_t i = 0; i < v->ncommands; i++)
		json_array_append_new(cmds, strv_json(v->commands[i].argv));
	json_object_set_new(obj, "commands", cmds);
	json_object_set_new(obj, "statements", strv_json(v->statements));
	json_object_set_new(obj, "reads", strv_json(v->reads));
	json_object_set_new(obj, "writes", strv_json(v->writes));
	json_object_set_new(obj, "hosts", strv_json(v->hosts));
	return obj;
}

char *encode_escape(const char *s, size_t max)
{
	struct buf b;
	size_t cut;

	buf_init(&b, 0);
	buf_append_shown(&b, s ? s : "", s ? strlen(s) : 0, 0);
	buf_puts(&b, "");
	if (max > 3 && b.len > max) { /* cut between characters, never inside one */
		for (cut = max - 3; cut > 0 && (b.data[cut] & 0xc0) == 0x80; cut--)
			;
		b.len = cut;
		buf_puts(&b, "...");
	}
	return buf_take(&b, NULL);
}

char *encode_summary(const struct call *c, size_t max)
{
	return encode_escape(call_subject(c), max);
}
