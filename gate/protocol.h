/*
 * protocol.h: the tool-call protocol (docs/protocol.md). One JSON object per
 * line in any of the accepted shapes becomes one struct call; one struct
 * outcome becomes one JSON result line. A line that cannot be decoded with
 * certainty is an error result, never a guess.
 */
#ifndef AIRLOCK_PROTOCOL_H
#define AIRLOCK_PROTOCOL_H

#include <stdbool.h>
#include <stdio.h>

#include "core/airlock.h"

#define PROTOCOL_LINE_CAP (16u << 20) /* default line cap: 16 MiB */

/*
 * Decodes one line. Returns 0 and a new call (caller frees), or -1 with
 * *errstr (caller frees) and, when the line held a readable id, *id (a new
 * reference, else NULL) so the error result can echo it.
 */
int protocol_decode(const char *line, size_t len, size_t lineno, struct call **out,
                    json_t **id, char **errstr) AIRLOCK_MUST_CHECK;

/* Decodes an already parsed object (hook and MCP paths); same contract. */
int protocol_decode_json(json_t *root, size_t lineno, struct call **out, json_t **id,
                         char **errstr) AIRLOCK_MUST_CHECK;

/*
 * For lines airlock reads but does not act on (watch's stream, an MCP
 * server's responses): json_loadb(), and when that fails, again with the
 * bytes that are not UTF-8 and the \uD800-\uDFFF escapes without their
 * pair made U+FFFD. JavaScript's JSON.stringify writes a lone surrogate (a
 * string cut inside an emoji, one a model wrote) as such an escape, which
 * jansson refuses, and Node uses U+FFFD in its place: the line was lost
 * whole. Returns a new reference, or NULL with *jerr (of the first try).
 */
json_t *protocol_load_repaired(const char *line, size_t len, size_t flags, json_error_t *jerr);

/* Maps an agent's tool name to a tool through the alias table. */
enum tool protocol_tool_alias(const char *name);

/* Returns a new result object for a call that went through the gate. */
json_t *protocol_result(const struct call *c, const struct verdict *v, const struct outcome *o);
/* Returns a new error result: {"id", "decision":"error", "error", "line"}. */
json_t *protocol_error(json_t *id, size_t lineno, const char *msg);
/* Writes obj as one compact line without flushing; returns 0 or -1. */
int protocol_print(FILE *f, json_t *obj);
/* Writes obj as one compact line and flushes; returns 0 or -1 (EPIPE...). */
int protocol_write(FILE *f, json_t *obj);

/*
 * A line reader over a file descriptor with a hard cap: a longer line is
 * discarded up to its newline and reported, so the stream goes on.
 */
struct reader;
/* Returns a new reader on fd (not closed by reader_free); caller frees. */
struct reader *reader_new(int fd, size_t cap);
void reader_free(struct reader *r);
/*
 * Returns 1 with the next line in *line and *len (without its newline; valid
 * until the next call), 0 at end of input, -1 on a read error (errno set).
 * *toolong is true when the line exceeded the cap: *line is then empty.
 */
int reader_next(struct reader *r, const char **line, size_t *len, bool *toolong);
/* Returns true when a whole line is already buffered (no read needed). */
bool reader_ready(const struct reader *r);
/*
 * A line longer than the cap is discarded unless fn is set: then its bytes
 * are handed to fn as they arrive, without the newline, in one or more
 * calls (first marks the line's first bytes), and reader_next() reports it
 * too long once it ends. Nothing longer than the cap is ever held.
 */
typedef void (*reader_pass_fn)(void *arg, const char *p, size_t n, bool first);
void reader_set_pass(struct reader *r, reader_pass_fn fn, void *arg);

/* True when line[0..len) holds only blanks (spaces, tabs, CRs). The line
 * is not NUL-terminated: strspn() over it read past its end, into the
 * reader's buffer, and a blank last line could be answered as bad JSON. */
bool protocol_blank(const char *line, size_t len);

/* What protocol_each_call() does with each line of a stream. */
struct protocol_sink {
	/* a decoded call; the call is freed when this returns */
	void (*call)(void *arg, const struct call *c);
	/* a line that did not decode: its id when one was read (else NULL) */
	void (*bad)(void *arg, size_t lineno, json_t *id, const char *msg);
	/* the input has nothing more buffered (flush now); false stops; or NULL */
	bool (*idle)(void *arg);
	void *arg;
	/* blank lines are skipped, not answered as bad JSON (which the gate does) */
	bool skip_blank;
	/* each line decodes into core/jalloc.h's block: nothing the sink is given
	 * outlives its line (jalloc_install() done) */
	bool line_block;
};
/*
 * Reads calls from fd, one per line, until end of input: the loop of the
 * commands that only look at calls (classify, preview). A line over the
 * cap or that does not decode goes to bad() and the stream goes on. Returns 0, or -1 on a read error (errno set).
 */
int protocol_each_call(int fd, const struct protocol_sink *sink);

#endif
