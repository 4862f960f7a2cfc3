/*
 * encode.c: JSON for verdicts and byte strings, one-line call summaries.
 * Output is always valid UTF-8: jansson refuses anything else, and a
 * command's raw bytes must never break the result stream.
 */
#include <stdint.h>
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

static int append_dumped(const char *p, size_t n, void *arg)
{
	buf_append(arg, p, n);
	return 0;
}

/* Each value goes through jansson's own encoder, so a line written here
 * holds the bytes json_dumps(..., JSON_COMPACT) writes for the same tree:
 * only the tree (an allocation per node, a "%p" snprintf and a hash insert
 * per object or array for jansson's loop check) is left out. */
int encode_append_json(struct buf *b, const json_t *j)
{
	if (json_is_integer(j)) /* a call's id, most often: no snprintf per line */
		return encode_append_integer(b, json_integer_value(j));
	return json_dump_callback(j, append_dumped, b, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* The digits jansson's "%" JSON_INTEGER_FORMAT writes, without printf. */
int encode_append_integer(struct buf *b, json_int_t v)
{
	char d[24], *p = d + sizeof(d);
	/* through unsigned: the negation of the least value does not overflow */
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	buf_append(b, p, (size_t)(d + sizeof(d) - p));
	return 0;
}

int encode_append_bytes(struct buf *b, const char *p, size_t n)
{
	json_t *s = encode_bytes(p, n);
	int rc = s ? encode_append_json(b, s) : -1;

	json_decref(s);
	return rc;
}

/* Encoded text that recurs, kept: a slot is found by a hash of the bytes
 * and used only when it holds the same bytes, so it cannot answer wrong.
 * Per thread, so that no thread reads a slot another is filling. */
#define TEXT_SLOTS 512
#define TEXT_MAX 256 /* longer text is encoded each time: bounds the memory */
static __thread struct {
	char *text; /* copy of the string; NULL: empty slot */
	char *json;
	size_t len;
} texts[TEXT_SLOTS];

int encode_append_string(struct buf *b, const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t n, slot;
	struct buf one;

	for (n = 0; s[n] && n <= TEXT_MAX; n++)
		h = (h ^ (unsigned char)s[n]) * 16777619u;
	if (n > TEXT_MAX)
		return encode_append_bytes(b, s, strlen(s));
	slot = h % TEXT_SLOTS;
	if (texts[slot].text && strcmp(texts[slot].text, s) == 0) {
		buf_append(b, texts[slot].json, texts[slot].len);
		return 0;
	}
	buf_init(&one, 0);
	if (encode_append_bytes(&one, s, n) < 0) {
		buf_free(&one);
		return -1;
	}
	buf_append(b, one.data, one.len);
	free(texts[slot].text);
	free(texts[slot].json);
	texts[slot].text = xstrndup(s, n);
	texts[slot].json = buf_take(&one, &texts[slot].len);
	return 0;
}

static int append_size(struct buf *b, size_t v)
{
	return encode_append_integer(b, (json_int_t)v);
}

static int append_span(struct buf *b, struct span sp)
{
	buf_append(b, "[", 1);
	if (append_size(b, sp.off) < 0)
		return -1;
	buf_append(b, ",", 1);
	if (append_size(b, sp.len) < 0)
		return -1;
	buf_append(b, "]", 1);
	return 0;
}

/* The verdict's parallel arrays, one finding field each, in this order. */
enum finding_field { FIELD_RULE, FIELD_REASON, FIELD_SPAN };

static int append_finding_field(struct buf *b, const struct finding *f, enum finding_field k)
{
	switch (k) {
	case FIELD_RULE: return encode_append_string(b, f->rule);
	case FIELD_REASON: return encode_append_string(b, f->reason);
	case FIELD_SPAN: return append_span(b, f->span);
	}
	return -1;
}

int encode_append_verdict(struct buf *b, const struct verdict *v)
{
	static const char *const keys[] = {",\"rules\":[", "],\"reasons\":[", "],\"spans\":["};

	buf_puts(b, "\"tier\":");
	if (encode_append_string(b, tier_name(v->tier)) < 0)
		return -1;
	for (enum finding_field k = FIELD_RULE; k <= FIELD_SPAN; k++) {
		buf_puts(b, keys[k]);
		for (size_t i = 0; i < v->nfindings; i++) {
			if (i)
				buf_append(b, ",", 1);
			if (append_finding_field(b, &v->findings[i], k) < 0)
				return -1;
		}
	}
	buf_append(b, "]", 1);
	return 0;
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
