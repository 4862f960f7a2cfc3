/*
 * cmd_run.c: `airlock run -- AGENT [ARGS...]`: the agent runs as a child.
 * Each line it writes on stdout that is a tool call (any protocol shape)
 * goes through the gate and its result goes back on the agent's stdin as
 * one JSON line; every other line passes through to airlock's stdout.
 * Rules it keeps:
 *  - lines are handled in order: chatter after a call waits for its result;
 *  - a line shaped like a call that cannot be decoded is answered with an
 *    error result (the agent is waiting for one), never run or echoed;
 *  - what the agent prints reaches the terminal as text: its stderr is
 *    relayed (held while an approval screen is up) and both it and the
 *    chatter have control characters escaped when they go to a terminal, so
 *    an agent printing what a model wrote cannot draw over the screen or
 *    change the terminal's colours;
 *  - its exit status is airlock's; it dies with airlock (PR_SET_PDEATHSIG)
 *    and gets the signals airlock gets;
 *  - results go to the agent from a thread of their own: its stdout is read
 *    while a result longer than the pipe waits for it to read (an agent
 *    printing as it waits would otherwise block on a full pipe, and airlock
 *    on the result, for ever).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "gate/agent.h"
#include "gate/commands.h"
#include "gate/pipeline.h"
#include "gate/protocol.h"

static const char run_usage[] =
	"usage: airlock run [OPTIONS] -- AGENT [ARGS...]\n"
	"Starts AGENT with its stdin and stdout on pipes. Every line it prints that is a\n"
	"tool call goes through the gate and the result comes back on its stdin as one\n"
	"JSON line; its other output passes through. Exits with the agent's status.\n" AGENT_GATE_USAGE;

static const struct option run_longopts[] = {
	AGENT_GATE_LONGOPTS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static bool type_is(json_t *o, const char *t)
{
	const char *v = json_string_value(json_object_get(o, "type"));
	return v && strcmp(v, t) == 0;
}

/* True when the object has one of the call shapes of docs/protocol.md. */
static bool call_shaped(json_t *o)
{
	const char *m = json_string_value(json_object_get(o, "method"));

	if (!json_is_object(o))
		return false;
	if (json_object_get(o, "jsonrpc"))
		return m && strcmp(m, "tools/call") == 0;
	return type_is(o, "tool_use") || type_is(o, "function_call") ||
	       (type_is(o, "function") && json_object_get(o, "function")) ||
	       json_object_get(o, "hook_event_name") || json_object_get(o, "tool_name") ||
	       json_object_get(o, "tool");
}

/* An array holding a call: a batch, which the protocol does not take. */
static bool batch_of_calls(json_t *a)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (call_shaped(e))
			return true;
	return false;
}

/* A line that starts like a JSON object (after blanks or a UTF-8 BOM):
 * one that does not parse is a broken call, not chatter, and is answered. */
static bool object_like(const char *line, size_t len)
{
	size_t i = len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	return i < len && line[i] == '{';
}

/* Returns the result for a call line, or NULL when the line is chatter.
 * An object line that is not strict JSON (a NUL, invalid UTF-8, trailing
 * text, a duplicate key) could be a call the lax reading would miss, so
 * protocol_decode() answers it with its error: the agent is not left
 * waiting for a result that never comes. */
static json_t *run_line(struct gate *g, const char *line, size_t len, size_t lineno)
{
	json_t *root = memchr(line, '\0', len) ? NULL
	                                        : json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *res = NULL, *id = NULL;
	struct call *c = NULL;
	struct verdict *v = NULL;
	struct outcome *o;
	char *err = NULL;

	/* a batch is answered, as the gate answers it, not passed on as
	 * chatter: the agent would wait for results that never come */
	if (json_is_array(root) && batch_of_calls(root)) {
		err = xstrdup("a JSON array of calls: airlock reads one call per line, and runs "
		              "no batch; none of these ran");
		res = gate_reject(g, NULL, lineno, err, line, len);
		goto out;
	}
	if (root == NULL ? !object_like(line, len) : !call_shaped(root))
		goto out;
	json_decref(root); /* decode strictly (duplicate keys are an error) */
	root = NULL;
	if (protocol_decode(line, len, lineno, &c, &id, &err) < 0) {
		res = gate_reject(g, id, lineno, err, line, len); /* recorded, as gate does */
		id = NULL;
		goto out;
	}
	o = gate_call(g, c, &v);
	res = protocol_result(c, v, o);
	outcome_free(o);
out:
	json_decref(root);
	json_decref(id);
	verdict_free(v);
	call_free(c);
	free(err);
	return res;
}

#define RESULTS_MAX (256u << 20) /* result bytes queued for an agent not reading */

/* A result line waiting for the agent to read it. */
struct result_line {
	char *text;
	size_t len;
	struct result_line *next;
};

/* The results' way to the agent's stdin, written by their own thread. */
struct results {
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct result_line *head, *tail;
	size_t bytes;         /* queued */
	bool closing, gone;
};

static void *results_main(void *arg)
{
	struct results *rs = arg;
	struct result_line *q;

	pthread_mutex_lock(&rs->lock);
	for (;;) {
		while (rs->head == NULL && !rs->closing)
			pthread_cond_wait(&rs->cond, &rs->lock);
		if ((q = rs->head) == NULL)
			break;
		pthread_mutex_unlock(&rs->lock);
		if (!rs->gone && fd_write_all(rs->fd, q->text, q->len) < 0) {
			fprintf(stderr, "airlock run: cannot answer the agent (it closed its stdin?): "
			                "%s\n", strerror(errno));
			rs->gone = true; /* only this thread reads or writes it */
		}
		pthread_mutex_lock(&rs->lock);
		rs->head = q->next;
		if (rs->head == NULL)
			rs->tail = NULL;
		rs->bytes -= q->len;
		pthread_cond_broadcast(&rs->cond);
		free(q->text);
		free(q);
	}
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

/* Queues res for the agent; waits only while RESULTS_MAX bytes are queued
 * (an agent that sends calls and never reads their results). */
static void results_send(struct results *rs, json_t *res)
{
	struct result_line *q = xcalloc(1, sizeof(*q));
	char *text = json_dumps(res, JSON_COMPACT);

	q->text = text ? xasprintf("%s\n", text) : xstrdup("{\"decision\":\"error\"}\n");
	q->len = strlen(q->text);
	free(text);
	pthread_mutex_lock(&rs->lock);
	while (rs->bytes > RESULTS_MAX && rs->head)
		pthread_cond_wait(&rs->cond, &rs->lock);
	if (rs->tail)
		rs->tail->next = q;
	else
		rs->head = q;
	rs->tail = q;
	rs->bytes += q->len;
	pthread_cond_broadcast(&rs->cond);
	pthread_mutex_unlock(&rs->lock);
}

/* Starts the writer; -1 when the thread cannot start. */
static int results_start(struct results *rs, int fd)
{
	*rs = (struct results){.fd = fd};
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->cond, NULL);
	if ((errno = pthread_create(&rs->thread, NULL, results_main, rs)) == 0)
		return 0;
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->cond);
	return -1;
}

/* Writes what is queued, then closes the agent's stdin. */
static void results_stop(struct results *rs)
{
	pthread_mutex_lock(&rs->lock);
	rs->closing = true;
	pthread_cond_broadcast(&rs->cond);
	pthread_mutex_unlock(&rs->lock);
	pthread_join(rs->thread, NULL);
	close(rs->fd);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->cond);
}

/* How a line over the cap is read, from its first bytes. */
struct long_line {
	bool chatter;  /* it does not start like a JSON object: copied through */
	bool out_gone; /* airlock's stdout failed */
};

/* A line over the cap is passed here as it arrives, never held: one that
 * starts like a JSON object may be a call, and is answered with an error
 * once it ends; any other is chatter, copied to stdout. Answered too, as it
 * was, a long log line's error result was read by the agent as the result
 * of its next call, and every result after it was one call late. */
static void long_line_pass(void *arg, const char *p, size_t n, bool first)
{
	struct long_line *ll = arg;

	if (first)
		ll->chatter = !object_like(p, n);
	if (ll->chatter && !ll->out_gone && agent_write_text(stdout, p, n) < 0)
		ll->out_gone = true;
}

/* Pumps the agent's stdout until it closes it. */
static void run_pump(struct gate *g, struct agent_child *ch, size_t cap)
{
	struct reader *r = reader_new(ch->out_fd, cap);
	struct long_line ll = {0};
	struct results rs;
	bool out_gone = false;
	size_t lineno = 0, len;
	const char *line;
	bool toolong;
	json_t *res;

	if (results_start(&rs, ch->in_fd) < 0) {
		fprintf(stderr, "airlock run: cannot start the thread that answers the agent: %s; "
		                "no call is read\n", strerror(errno));
		close(ch->in_fd);
		close(ch->out_fd);
		reader_free(r);
		return;
	}

	reader_set_pass(r, long_line_pass, &ll);
	while (reader_next(r, &line, &len, &toolong) == 1) {
		lineno++;
		if (toolong && !ll.chatter) {
			fprintf(stderr, "airlock run: agent line %zu is longer than the line cap (%zu "
			                "bytes); answered with an error\n",
			        lineno, cap);
			res = gate_reject(g, NULL, lineno, "line longer than the line cap; skipped", NULL,
			                  len);
		} else if (toolong || (res = run_line(g, line, len, lineno)) == NULL) {
			/* chatter (a long line's text is out already: its end) */
			if (!out_gone && (ll.out_gone ||
			                  (!toolong && agent_write_text(stdout, line, len) < 0) ||
			                  putchar('\n') == EOF || fflush(stdout) == EOF)) {
				/* say it once; keep gating */
				fprintf(stderr, "airlock run: cannot write the agent's output: %s\n",
				        strerror(errno));
				out_gone = true;
			}
			continue;
		}
		results_send(&rs, res);
		json_decref(res);
	}
	results_stop(&rs);
	close(ch->out_fd);
	reader_free(r);
}

int cmd_run(int argc, char **argv)
{
	struct gate_opts o = {.mode = "run"};
	struct agent_child ch;
	struct gate *g = NULL;
	char *err = NULL, *cmdline;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", run_longopts, NULL)) != -1) {
		if ((rc = agent_gate_option(c, optarg, &o, &err)) < 0) {
			fprintf(stderr, "airlock run: %s\n", err);
			free(err);
			return EXIT_USAGE;
		} else if (rc > 0)
			continue;
		fputs(run_usage, c == 'h' ? stdout : stderr);
		return c == 'h' ? EXIT_OK : EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "airlock run: no agent given: airlock run [OPTIONS] -- AGENT [ARGS...]\n");
		fputs(run_usage, stderr);
		return EXIT_USAGE;
	}
	o.agent = cmdline = agent_command_line(argv + optind);
	if (gate_open(&o, &g, &rc, &err) < 0)
		goto fail;
	signal(SIGPIPE, SIG_IGN);
	if (agent_spawn_piped(argv + optind, &ch, &rc, &err) < 0)
		goto fail;
	agent_forward_signals(ch.pid);
	gate_set_requester(g, ch.pid);
	if (agent_relay_start(&ch, &err) < 0) {
		kill(ch.pid, SIGKILL);
		agent_wait(ch.pid);
		agent_relay_stop(&ch);
		rc = EXIT_INTERNAL;
		goto fail;
	}
	run_pump(g, &ch, o.line_cap ? o.line_cap : PROTOCOL_LINE_CAP);
	rc = agent_wait(ch.pid);
	agent_relay_stop(&ch);
	/* the agent's status, unless it says success and the log is not whole */
	if (gate_close(g) < 0 && rc == EXIT_OK)
		rc = EXIT_INTERNAL;
	free(cmdline);
	return rc;
fail:
	fprintf(stderr, "airlock run: %s\n", err);
	free(err);
	(void)gate_close(g);
	free(cmdline);
	return rc;
}
