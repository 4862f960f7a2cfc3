/*
 * prompt.c: the browser's one-line prompt (deny reason, search, filters) and
 * one-key choices (y/n, p/u). What is typed is kept as UTF-8 with no control
 * characters, at most PROMPT_MAX bytes: a longer answer is refused key by key
 * with a message, never cut silently.
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/browser_internal.h"

void browser_prompt(struct browser *b, int id, const char *label, const char *init)
{
	size_t n = init ? strlen(init) : 0;

	free(b->prompt_label);
	b->prompt_label = xstrdup(label);
	b->prompt_id = id;
	b->prompting = true;
	b->single = false;
	b->answered = false;
	if (n > PROMPT_MAX)
		n = PROMPT_MAX;
	memcpy(b->pbuf, init ? init : "", n);
	b->pbuf[n] = '\0';
	b->plen = n;
}

void browser_choice(struct browser *b, int id, const char *label)
{
	browser_prompt(b, id, label, NULL);
	b->single = true;
}

int browser_prompt_id(const struct browser *b)
{
	return b->prompt_id;
}

const char *browser_prompt_text(const struct browser *b)
{
	return b->answered ? b->pbuf : NULL;
}

bool browser_prompting(const struct browser *b)
{
	return b->prompting;
}

/* Encodes a code point as UTF-8; returns its length (0 when refused). */
static size_t utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* An answered prompt: the search is the browser's, the rest the screen's. */
static enum baction prompt_done(struct browser *b)
{
	b->prompting = false;
	b->answered = true;
	if (b->prompt_id != PROMPT_SEARCH)
		return BA_PROMPT;
	if (b->plen > 0) { /* a new search starts at the top row shown */
		free(b->search);
		b->search = xstrdup(b->pbuf);
		browser_search_next(b, true);
	} else {
		browser_search_next(b, false);
	}
	return BA_NONE;
}

static void prompt_backspace(struct browser *b)
{
	while (b->plen > 0) {
		unsigned char c = (unsigned char)b->pbuf[--b->plen];
		if ((c & 0xc0) != 0x80)
			break;
	}
	b->pbuf[b->plen] = '\0';
}

/* Adds one typed or pasted character: 1, or 0 for one no answer holds (a
 * control character), or -1 when the answer is full. */
static int prompt_add(struct browser *b, uint32_t cp)
{
	char u[4];
	size_t n = utf8_encode(cp, u);

	if (n == 0)
		return 0;
	if (b->plen + n > PROMPT_MAX) {
		browser_message(b, "the answer is limited to %d bytes", PROMPT_MAX);
		return -1;
	}
	memcpy(b->pbuf + b->plen, u, n);
	b->plen += n;
	b->pbuf[b->plen] = '\0';
	return 1;
}

/* A paste into a one-line answer: its line breaks and tabs are blanks. It
 * never answers a one-key choice (a pasted "y" is not a person's yes). */
enum baction prompt_paste(struct browser *b, const struct tkey *k)
{
	if (b->single) {
		browser_message(b, "a paste does not answer: press the key");
		return BA_NONE;
	}
	for (size_t i = 0; i < k->ntext; i++)
		if (prompt_add(b, k->text[i] == '\n' || k->text[i] == '\r' || k->text[i] == '\t'
		                      ? ' '
		                      : k->text[i]) < 0)
			return BA_NONE;
	if (k->cut)
		browser_message(b, "the answer is limited to %d bytes", PROMPT_MAX);
	return BA_NONE;
}

enum baction prompt_key(struct browser *b, const struct tkey *k)
{
	if (k->code == TK_ESC) {
		b->prompting = false;
		browser_message(b, "cancelled");
		return BA_NONE;
	}
	if (k->code == TK_ENTER)
		return b->single ? BA_NONE : prompt_done(b);
	if (k->code == TK_BACKSPACE) {
		prompt_backspace(b);
		return BA_NONE;
	}
	if (k->code != TK_CHAR)
		return BA_NONE;
	if (k->ch == TK_CTRL('u')) {
		b->plen = 0;
		b->pbuf[0] = '\0';
		return BA_NONE;
	}
	if (k->ch == 0x7f || k->ch == TK_CTRL('h')) {
		prompt_backspace(b);
		return BA_NONE;
	}
	return prompt_add(b, k->ch) > 0 && b->single ? prompt_done(b) : BA_NONE;
}
