/*
 * agent.c: helpers for the integration commands.
 * Rules it keeps:
 *  - a child started here never outlives airlock (PR_SET_PDEATHSIG, checked
 *    against the race with the parent's death before exec);
 *  - a shell word quoted here is one word whatever it holds;
 *  - tool arguments that cannot be mapped stay an unknown tool (high by
 *    default): mapping may add findings, never remove them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "gate/agent.h"
#include "gate/protocol.h"

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

/* In the child: wire the pipes (errp[1] < 0: stderr stays airlock's), tie
 * its life to ours, exec; reports errno on err_fd when exec fails. Never
 * returns. */
static void child_exec(char *const *argv, int in[2], int out[2], int errp[2], int err_fd,
                       pid_t parent)
{
	int e;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EXIT_INTERNAL); /* the parent is already gone: never run orphaned */
	/* A session of its own, without the terminal: the approval screen
	 * reads keys from that terminal, and a child that shared it could push
	 * an "a" into it (TIOCSTI) and approve its own call. Its stderr may
	 * still be the terminal; airlock forwards the signals it receives. */
	if (setsid() < 0)
		_exit(EXIT_INTERNAL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
	    (errp[1] >= 0 && dup2(errp[1], STDERR_FILENO) < 0))
		_exit(EXIT_INTERNAL);
	close_pair(in);
	close_pair(out);
	close_pair(errp);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(EXIT_INTERNAL);
	_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static int spawn(char *const *argv, bool piped, struct agent_child *ch, int *exit_code,
                 char **errstr)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, ep[2] = {-1, -1}, errp[2] = {-1, -1}, e = 0;
	pid_t parent = getpid();
	ssize_t n;

	*exit_code = EXIT_INTERNAL;
	ch->err_fd = -1;
	ch->relay = NULL;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0 ||
	    (piped && pipe2(errp, O_CLOEXEC) < 0)) {
		*errstr = xasprintf("cannot create pipes for %s: %s", argv[0], strerror(errno));
		goto fail;
	}
	if ((ch->pid = fork()) < 0) {
		*errstr = xasprintf("cannot fork for %s: %s", argv[0], strerror(errno));
		goto fail;
	}
	if (ch->pid == 0) {
		close(ep[0]);
		child_exec(argv, in, out, errp, ep[1], parent);
	}
	close(ep[1]), ep[1] = -1;
	do
		n = read(ep[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ep[0]), ep[0] = -1;
	if (n == sizeof(e)) { /* exec failed: the child reported why */
		waitpid(ch->pid, NULL, 0);
		*exit_code = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		*errstr = xasprintf("cannot run %s: %s%s", argv[0], strerror(e),
		                    e == ENOENT ? " (is it on PATH?)" : "");
		goto fail;
	}
	close(in[0]);
	close(out[1]);
	if (piped)
		close(errp[1]);
	ch->in_fd = in[1];
	ch->out_fd = out[0];
	ch->err_fd = errp[0];
	return 0;
fail:
	close_pair(in);
	close_pair(out);
	close_pair(ep);
	close_pair(errp);
	ch->pid = -1;
	return -1;
}

int agent_spawn(char *const *argv, struct agent_child *ch, int *exit_code, char **errstr)
{
	return spawn(argv, false, ch, exit_code, errstr);
}

int agent_spawn_piped(char *const *argv, struct agent_child *ch, int *exit_code,
                      char **errstr)
{
	return spawn(argv, true, ch, exit_code, errstr);
}

int agent_write_text(FILE *f, const char *p, size_t n)
{
	struct buf b;
	int rc = 0;

	if (!isatty(fileno(f)))
		return fwrite(p, 1, n, f) == n ? 0 : -1;
	buf_init(&b, 0);
	buf_append_printable(&b, p, n);
	if (b.len && fwrite(b.data, 1, b.len, f) != b.len)
		rc = -1;
	buf_free(&b);
	return rc;
}

/* ---- the stderr relay ---------------------------------------------------- */

#define RELAY_QUIET_MS 100   /* after the child exited: this long without output ends it */
#define RELAY_LINGER_MS 1000 /* ... and never longer than this */

struct agent_relay {
	pthread_t thread;
	int fd;
	atomic_bool stop;
	atomic_llong deadline;
};

static void *relay_main(void *arg)
{
	struct agent_relay *r = arg;
	bool tty = isatty(STDERR_FILENO) == 1;
	char chunk[4096];

	for (;;) {
		struct pollfd p = {.fd = r->fd, .events = POLLIN};
		int n = poll(&p, 1, RELAY_QUIET_MS);
		ssize_t k;
		if (n < 0 && errno != EINTR)
			break;
		if (atomic_load(&r->stop) && (n == 0 || clock_ns() >= atomic_load(&r->deadline)))
			break;
		if (n <= 0)
			continue;
		if ((k = read(r->fd, chunk, sizeof(chunk))) == 0 || (k < 0 && errno != EINTR))
			break;
		if (k < 0)
			continue;
		/* never while an approval screen is up; only a terminal can draw
		 * over it, and a pipe nobody reads must not hold the screen off */
		if (tty)
			gate_terminal_lock();
		agent_write_text(stderr, chunk, (size_t)k);
		fflush(stderr);
		if (tty)
			gate_terminal_unlock();
	}
	return NULL;
}

int agent_relay_start(struct agent_child *ch, char **errstr)
{
	struct agent_relay *r;
	int e;

	if (ch->err_fd < 0)
		return 0;
	r = xcalloc(1, sizeof(*r));
	r->fd = ch->err_fd;
	if ((e = pthread_create(&r->thread, NULL, relay_main, r)) != 0) {
		*errstr = xasprintf("cannot start the stderr relay: %s", strerror(e));
		free(r);
		return -1;
	}
	ch->relay = r;
	return 0;
}

void agent_relay_stop(struct agent_child *ch)
{
	if (ch->relay) {
		atomic_store(&ch->relay->deadline, clock_ns() + RELAY_LINGER_MS * 1000000LL);
		atomic_store(&ch->relay->stop, true);
		pthread_join(ch->relay->thread, NULL);
		free(ch->relay);
		ch->relay = NULL;
	}
	if (ch->err_fd >= 0)
		close(ch->err_fd);
	ch->err_fd = -1;
}

static volatile sig_atomic_t forward_pid;

/* Every one is passed on, those from the terminal too (Ctrl-C, a hangup):
 * the child runs in a session of its own (child_exec), so the terminal
 * cannot reach it, and airlock waits for it to exit. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	if (forward_pid > 0)
		kill((pid_t)forward_pid, sig);
}

void agent_forward_signals(pid_t pid)
{
	static const int sigs[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};
	struct sigaction sa = {0};

	forward_pid = pid;
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nitems(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

void agent_forward_signal(int sig)
{
	forward(sig, NULL, NULL);
}

int agent_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_INTERNAL;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : EXIT_INTERNAL;
}

char *agent_shell_quote(const char *s)
{
	struct buf b;

	buf_init(&b, 0);
	buf_puts(&b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_append(&b, s, 1);
	}
	buf_puts(&b, "'");
	return buf_take(&b, NULL);
}

/* A reason quotes the call (a path, a command): its control characters are
 * shown as \xNN. The text is shown to a person (Claude Code's prompt, its
 * transcript, a client's tool error; the hook's stderr), where an escape
 * sequence a model wrote into a path could redraw the screen. */
char *agent_reason_text(const char *prefix, const struct verdict *v, const char *why)
{
	struct buf b;

	buf_init(&b, 4096);
	buf_printf(&b, "%s%s", prefix, tier_name(v->tier));
	for (size_t i = 0; i < v->nfindings; i++) {
		const char *r = v->findings[i].reason ? v->findings[i].reason : "";
		buf_puts(&b, i ? "; " : ": ");
		buf_append_shown(&b, r, strlen(r), 0);
		buf_printf(&b, " (%s)", v->findings[i].rule);
	}
	if (why && *why) {
		buf_puts(&b, "; ");
		buf_append_shown(&b, why, strlen(why), 0);
	}
	return buf_take(&b, NULL);
}

char *agent_command_line(char *const *argv)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; argv[i]; i++) {
		bool plain = argv[i][0] && strspn(argv[i], "abcdefghijklmnopqrstuvwxyz"
		                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		                                           "-_./=:@+,") == strlen(argv[i]);
		char *q = plain ? xstrdup(argv[i]) : agent_shell_quote(argv[i]);
		buf_printf(&b, "%s%s", i ? " " : "", q);
		free(q);
	}
	return buf_take(&b, NULL);
}

char *agent_self_path(char **errstr)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n < 0 || (size_t)n >= sizeof(buf) - 1) {
		*errstr = xasprintf("cannot read /proc/self/exe: %s (is /proc mounted?)",
		                    n < 0 ? strerror(errno) : "path too long");
		return NULL;
	}
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Binary size suffixes, as policy sizes take them (libgit2's k, m, g). */
static const struct {
	char letter;
	int shift;
} size_suffixes[] = {{'k', 10}, {'m', 20}, {'g', 30}};

/* A byte count with an optional k/m/g suffix in [min, max]: "16M" was
 * refused while a policy's sizes take it. Returns 0 or -1. */
static int parse_bytes(const char *arg, long long min, long long max, long long *out)
{
	size_t n = strlen(arg);
	int shift = 0;
	char *num;
	int rc;

	for (size_t i = 0; n > 1 && i < nitems(size_suffixes); i++)
		if (tolower((unsigned char)arg[n - 1]) == size_suffixes[i].letter)
			shift = size_suffixes[i].shift, n--;
	num = xstrndup(arg, n);
	rc = parse_ll(num, 0, max >> shift, out);
	free(num);
	if (rc < 0 || (*out <<= shift) < min)
		return -1;
	return 0;
}

int agent_gate_option(int ch, const char *arg, struct gate_opts *o, char **errstr)
{
	long long cap;

	switch (ch) {
	case 'd': o->db_path = arg; return 1;
	case 'w': o->workdir = arg; return 1;
	case 'p': o->policy_file = arg; return 1;
	case 'R': o->no_redact = true; return 1;
	case 'A': o->approve_with = arg; return 1;
	case 'T': o->no_tty = true; return 1;
	case 'L':
		if (parse_bytes(arg, 1024, 1LL << 34, &cap) < 0) {
			*errstr = xasprintf("--line-cap wants bytes from 1024 to 16G, with an optional "
			                    "k, m or g suffix (got \"%s\")", arg);
			return -1;
		}
		o->line_cap = (size_t)cap;
		return 1;
	default: return 0;
	}
}

/* ---- Mapping named tools (MCP) to calls the classifier reads. ---------- */

/* Argument names that hold one path, and those that hold a list of them. */
static const char *const path_keys[] = {"path",   "file_path",   "filePath", "filename",
                                        "file",   "source",      "destination", "target",
                                        "dir",    "directory",   "src",      "dest",
                                        "notebook_path"};
/* Arguments that change nothing a call does: search patterns and filters,
 * output shapes and limits, a note for the model (Claude Code's Grep, Glob,
 * LS and WebFetch, the MCP filesystem server's search). */
static const char *const inert_keys[] = {
	"pattern", "patterns", "glob",   "exclude",   "excludePatterns", "include",
	"ignore",  "type",     "output_mode", "head_limit", "encoding",  "description",
	"prompt",  "-A",       "-B",     "-C",        "-i",              "-n",
	/* NotebookEdit: the cell written; the notebook's path is what is judged */
	"new_source", "cell_id", "cell_type", "edit_mode",
};
/* Argument names under which tools take a command or code to run: the
 * tool runs it itself, so a call holding one is never run unasked, even
 * where only "command" is read as a shell command (a "cmd", a "script",
 * a "command" that is an object). */
static const char *const run_keys[] = {"command", "cmd",  "commandLine", "command_line",
                                       "script",  "shell", "code"};
/* Claude Code's search tools: no path means the current directory. */
static const char *const search_tools[] = {"Glob", "Grep", "LS"};
static const char *const path_list_keys[] = {"paths", "files"};
/* Arguments that select, by a glob, the files a search reads below its path. */
static const char *const glob_keys[] = {"glob", "include"};
/* Arguments that name the directory a tool runs its command or resolves
 * its paths in (Codex's workdir, an MCP shell server's cwd). */
static const char *const cwd_keys[] = {"cwd", "workdir", "working_directory", "working_dir"};
/* Words in a tool name that mean it changes what its paths name. */
static const char *const write_words[] = {"write", "create", "edit",  "update", "delete",
                                          "remove", "move",  "rename", "mkdir", "append",
                                          "put",   "save",   "patch", "insert", "replace",
                                          "upload", "chmod", "unlink", "touch", "copy",
                                          "wipe",  "erase", "purge", "destroy", "drop"};
/* Words of a tool's name that say what it does with a path is read it (as
 * a whole word: read_file, getFileInfo, LS; not target or budget). */
static const char *const read_words[] = {"read", "get",   "list",  "view",   "show",  "search",
                                         "find", "grep",  "glob",  "ls",     "stat",  "info",
                                         "tree", "cat",   "head",  "tail",   "count", "exists",
                                         "describe", "inspect", "preview", "diff", "open", "lookup"};
/* Words that say a "query" argument is SQL. */
static const char *const sql_words[] = {"sql", "query", "database", "db", "postgres",
                                        "sqlite", "mysql", "table"};
static const char *const sql_starts[] = {"select", "insert", "update", "delete", "with",
                                         "create", "drop",   "alter",  "pragma", "replace",
                                         "truncate", "grant", "attach", "vacuum"};

static bool has_word(const char *s, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcasestr(s, words[i]))
			return true;
	return false;
}

/* True when a whole word of name is one of words: words split at what is
 * not a letter or digit, and where a lower-case letter meets an upper-case
 * one (read_file, read-file, readFile, ReadFile). */
static bool name_has_word(const char *name, const char *const *words, size_t n)
{
	for (const char *p = name; *p;) {
		const char *w = p;
		size_t len;
		if (!isalnum((unsigned char)*p)) {
			p++;
			continue;
		}
		while (isalnum((unsigned char)*p) &&
		       !(p > w && islower((unsigned char)p[-1]) && isupper((unsigned char)*p)))
			p++;
		len = (size_t)(p - w);
		for (size_t i = 0; i < n; i++)
			if (strlen(words[i]) == len && strncasecmp(w, words[i], len) == 0)
				return true;
	}
	return false;
}

static bool starts_sql(const char *q)
{
	q += strspn(q, " \t\r\n(");
	for (size_t i = 0; i < nitems(sql_starts); i++) {
		size_t n = strlen(sql_starts[i]);
		if (strncasecmp(q, sql_starts[i], n) == 0 && !isalnum((unsigned char)q[n]))
			return true;
	}
	return false;
}

struct call *agent_canonical_call(const char *name, const char *kind, json_t *fields,
                                  json_t *id, enum shape shape)
{
	/* decoded without the id: an id the protocol refuses (an object, an
	 * array, which an MCP client may send) must not drop the mapped call,
	 * leaving only the unknown tool a rule on the tool's name allows */
	json_t *root = json_pack("{s:s, s:o}", "tool", kind, "input", fields);
	struct call *c = NULL;
	json_t *eid = NULL;
	char *err = NULL;

	if (root == NULL || protocol_decode_json(root, 0, &c, &eid, &err) < 0) {
		free(err); /* cannot map it with certainty: the caller keeps the unknown tool */
		json_decref(eid);
		c = NULL;
	} else {
		free(c->name);
		c->name = xstrdup(name);
		c->shape = shape;
		json_decref(c->id);
		c->id = json_incref(id ? id : json_null());
	}
	json_decref(root);
	return c;
}

/* A call read from another tool's arguments: that tool runs it, so a
 * shell command there never runs in airlock's sandbox. */
static struct call *derived(const char *name, const char *kind, json_t *fields, json_t *id)
{
	struct call *c = agent_canonical_call(name, kind, fields, id, SHAPE_MCP);

	if (c)
		c->unsandboxed = c->tool == TOOL_SHELL;
	return c;
}

/* Adds c (when the mapping worked) and marks the argument key as read. */
static bool push_call(struct call ***v, size_t *n, struct call *c, json_t *used, const char *key)
{
	if (c == NULL)
		return false;
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = c;
	(*v)[*n] = NULL;
	json_object_set_new(used, key, json_true());
	return true;
}

/* One derived call per path the tool names. */
static void map_path(const char *name, const char *tool, json_t *args, const char *key,
                     const char *path, json_t *id, json_t *used, struct call ***v, size_t *n)
{
	json_t *content = json_object_get(args, "content"), *edits = json_object_get(args, "edits");
	bool writes = has_word(tool, write_words, nitems(write_words)) || content || edits;

	if (json_is_array(edits)) {
		if (push_call(v, n,
		              derived(name, "edit_file",
		                      json_pack("{s:s, s:O}", "path", path, "edits", edits), id),
		              used, key))
			json_object_set_new(used, "edits", json_true());
	} else if (writes) {
		if (push_call(v, n,
		              derived(name, "write_file",
		                      json_pack("{s:s, s:s}", "path", path, "content",
		                                json_is_string(content) ? json_string_value(content)
		                                                        : ""),
		                      id),
		              used, key) &&
		    (content == NULL || json_is_string(content)))
			json_object_set_new(used, "content", json_true());
	} else {
		/* read, and no more, only for a tool whose name says it reads: what
		 * run_script, execute, send_email or apply do with a file is not
		 * known (they were a plain read, low, and allowed). Its read is
		 * judged and the key stays unread, so the tool stays unknown too. */
		json_t *mark = name_has_word(tool, read_words, nitems(read_words)) ? json_incref(used)
		                                                                  : json_object();
		push_call(v, n, derived(name, "read_file", json_pack("{s:s}", "path", path), id), mark,
		          key);
		json_decref(mark);
	}
}

/* True when a path argument holds what the mapping cannot read as paths:
 * an object, or an array with an element that is not a string. Such a key
 * stays unread: the tool stays unknown beside what was read. */
static bool path_unreadable(json_t *val)
{
	size_t i;
	json_t *e;

	if (json_is_object(val))
		return true;
	json_array_foreach(val, i, e)
		if (!json_is_string(e))
			return true;
	return false;
}

/* One call per path a path argument names: a string, or each string of an
 * array, under either kind of key (a tool may take one path or many under
 * either name). {"path":["~/.ssh/id_rsa"]} and {"paths":"~/.ssh/id_rsa"}
 * were read by nobody, and forwarded under a rule on the tool; an array
 * with a string and an object read the string and dropped the rest. */
static void map_paths(const char *name, const char *tool, json_t *args, json_t *id,
                      json_t *used, struct call ***v, size_t *n)
{
	const char *const *tabs[] = {path_keys, path_list_keys};
	const size_t lens[] = {nitems(path_keys), nitems(path_list_keys)};
	json_t *val, *e;
	size_t i;

	for (size_t t = 0; t < nitems(tabs); t++)
		for (size_t k = 0; k < lens[t]; k++) {
			const char *key = tabs[t][k];
			val = json_object_get(args, key);
			if (json_string_length(val) > 0)
				map_path(name, tool, args, key, json_string_value(val), id, used, v, n);
			json_array_foreach(val, i, e)
				if (json_string_length(e) > 0)
					map_path(name, tool, args, key, json_string_value(e), id, used, v, n);
			if (path_unreadable(val)) /* some of it read, not all: the tool stays */
				json_object_del(used, key);
		}
}

/* True when every argument was read by the mapping, or changes nothing a
 * call does: a flag, a number, or a search pattern or limit by name. */
static bool all_read(json_t *args, json_t *used)
{
	const char *key;
	json_t *val;

	json_object_foreach(args, key, val) {
		bool inert = json_is_boolean(val) || json_is_number(val) || json_is_null(val);
		for (size_t i = 0; !inert && i < nitems(inert_keys); i++)
			inert = strcmp(key, inert_keys[i]) == 0;
		if (!inert && !json_object_get(used, key))
			return false;
	}
	return true;
}

struct call *agent_other_call(const char *name, json_t *args, json_t *id)
{
	struct call *c = call_new();

	c->name = xstrdup(name);
	c->tool = TOOL_OTHER;
	c->shape = SHAPE_MCP;
	c->id = json_incref(id ? id : json_null());
	c->input = json_is_object(args) ? json_deep_copy(args) : json_object();
	return c;
}

/* True when args hold, unread, something the tool may run (run_keys). */
static bool runs_unread(json_t *args, json_t *used)
{
	for (size_t i = 0; args && i < nitems(run_keys); i++)
		if (json_object_get(args, run_keys[i]) && !json_object_get(used, run_keys[i]))
			return true;
	return false;
}

/* The pattern with its first {a,b} group expanded, one string per
 * alternative, as the glob library and the shell do: a new vector
 * (strv_free), the pattern alone when it has no group. */
static char **brace_first_expand(const char *pat)
{
	const char *open = strchr(pat, '{'), *close = open ? strchr(open, '}') : NULL;
	char **out = NULL;

	if (close == NULL) {
		strv_push(&out, pat);
		return out;
	}
	for (const char *alt = open + 1; alt;) {
		size_t len = strcspn(alt, ",}");
		strv_push_owned(&out, xasprintf("%.*s%.*s%s", (int)(open - pat), pat, (int)len, alt,
		                                close + 1));
		alt = alt[len] == ',' ? alt + len + 1 : NULL;
	}
	return out;
}

/*
 * A search tool reads the files its glob selects below its path (Claude
 * Code's Grep "glob", the "include" of a search tool an MCP server offers),
 * so a glob that can name a secret (".env*", "*.pem" at any depth,
 * "{.env,x}") reads secrets: one read of PATH/GLOB per alternative of a
 * {a,b} group, which the classifier matches against secret names as the
 * shell would expand it. Only Grep's was read: an MCP tool's
 * {"path":".","include":".env"} was a read of "." at low.
 */
static void map_globs(const char *name, json_t *args, json_t *id, json_t *used,
                      struct call ***v, size_t *n)
{
	const char *dir = json_string_value(json_object_get(args, "path"));

	for (size_t k = 0; k < nitems(glob_keys); k++) {
		const char *glob = json_string_value(json_object_get(args, glob_keys[k]));
		char **alts;
		if (glob == NULL || *glob == '\0')
			continue;
		alts = brace_first_expand(glob);
		for (char **p = alts; *p; p++) {
			char *path = dir && *dir ? xasprintf("%s/%s", dir, *p) : xstrdup(*p);
			if (!push_call(v, n, derived(name, "read_file", json_pack("{s:s}", "path", path), id),
			               used, glob_keys[k]))
				push_call(v, n, agent_other_call(name, args, id), used, glob_keys[k]);
			free(path);
		}
		strv_free(alts);
	}
}

/* Arguments under which a tool takes a patch it applies itself: Codex's
 * apply_patch "input", a diff tool's "patch". */
static const char *const patch_keys[] = {"patch", "diff", "patch_text", "input"};
/* The headers of Codex's apply_patch envelope and of a git or unified
 * diff that name a file the patch changes (--- and +++ are read in pairs). */
static const char *const patch_heads[] = {"*** Add File: ", "*** Update File: ",
                                          "*** Delete File: ", "*** Move to: ",
                                          "rename from ", "rename to ", "copy to "};

/* The path a header line names, from p[0..n) (no newline): a new string,
 * or NULL for /dev/null. *unsure is set for a quoted git path. */
static char *patch_path(const char *p, size_t n, bool strip_ab, bool *unsure)
{
	size_t k = strcspn(p, "\t\r");

	n = k < n ? k : n;
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (n > 0 && p[0] == '"') {
		*unsure = true; /* C-quoted: not read with certainty */
		return NULL;
	}
	if (strip_ab && n > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/')
		p += 2, n -= 2;
	if (n == 0 || (n == 9 && memcmp(p, "/dev/null", 9) == 0))
		return NULL;
	return xstrndup(p, n);
}

/*
 * The files a patch text changes. Returns a new vector (strv_free), or
 * NULL when text holds no header; *unsure set when a header's path could
 * not be read with certainty. A patch an apply_patch tool takes was read
 * by nobody: under a rule allowing the tool, one that added
 * ~/.bashrc or .git/hooks/pre-commit was forwarded unjudged.
 */
static char **patch_paths(const char *text, bool *unsure)
{
	char **out = NULL;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n'), *next = nl ? nl + 1 : l + strlen(l);
		size_t n = (size_t)(next - l) - (nl != NULL);
		char *p = NULL;

		for (size_t i = 0; i < nitems(patch_heads) && p == NULL; i++) {
			size_t h = strlen(patch_heads[i]);
			if (n >= h && strncmp(l, patch_heads[i], h) == 0)
				p = patch_path(l + h, n - h, false, unsure);
		}
		if (p == NULL && n > 4 && strncmp(l, "--- ", 4) == 0 && strncmp(next, "+++ ", 4) == 0) {
			const char *nl2 = strchr(next, '\n');
			size_t n2 = nl2 ? (size_t)(nl2 - next) : strlen(next);
			bool ab = strncmp(l + 4, "a/", 2) == 0 && strncmp(next + 4, "b/", 2) == 0;
			if ((p = patch_path(l + 4, n - 4, ab, unsure)) != NULL && !strv_contains(out, p))
				strv_push_owned(&out, p);
			else
				free(p);
			p = patch_path(next + 4, n2 - 4, ab, unsure);
			next = nl2 ? nl2 + 1 : next + n2;
		}
		if (p && !strv_contains(out, p))
			strv_push_owned(&out, p);
		else
			free(p);
		l = next;
	}
	return out;
}

/* A write of each file a patch in an argument names (patch_paths). The
 * key is read when it is one that holds a patch (patch_keys) and every
 * header was; a patch in any other argument (a note, an issue's body)
 * adds its writes and leaves the tool unknown as well. */
static void map_patches(const char *name, json_t *args, json_t *id, json_t *used,
                        struct call ***v, size_t *n)
{
	json_t *seen = json_object(), *val; /* push_call's bookkeeping */
	const char *key;

	json_object_foreach(args, key, val) {
		const char *text = json_string_value(val);
		bool unsure = false, mine = false, all = true;
		char **paths;
		if (text == NULL || json_object_get(used, key) || (paths = patch_paths(text, &unsure)) == NULL)
			continue;
		for (size_t i = 0; i < nitems(patch_keys); i++)
			mine = mine || strcmp(key, patch_keys[i]) == 0;
		for (char **p = paths; *p; p++)
			all = push_call(v, n,
			                derived(name, "write_file",
			                        json_pack("{s:s, s:s}", "path", *p, "content", ""), id),
			                seen, key) &&
			      all;
		if (mine && all && !unsure)
			json_object_set_new(used, key, json_true());
		strv_free(paths);
	}
	json_decref(seen);
}

/* An http call per http(s) URL a "url" or "urls" argument holds (a string
 * or an array of them, as paths are read): {"url":["https://x/?k=..."]}
 * was read by nobody, its host covered by the rule on the tool alone. A
 * key with anything else in it stays unread (the tool stays unknown). */
static void map_urls(const char *name, json_t *args, json_t *id, json_t *used,
                     struct call ***v, size_t *n)
{
	static const char *const url_keys[] = {"url", "urls"};

	for (size_t k = 0; k < nitems(url_keys); k++) {
		json_t *val = json_object_get(args, url_keys[k]), *e;
		bool all = true;
		size_t i, from = *n;
		if (json_is_string(val))
			val = json_pack("[O]", val);
		else if (json_is_array(val))
			json_incref(val);
		else
			continue;
		json_array_foreach(val, i, e) {
			const char *u = json_string_value(e);
			all = u && strncasecmp(u, "http", 4) == 0 &&
			      push_call(v, n, derived(name, "http", json_pack("{s:s}", "url", u), id),
			                used, url_keys[k]) &&
			      all;
		}
		if (!all || *n == from)
			json_object_del(used, url_keys[k]);
		json_decref(val);
	}
}

/* Arguments under which a tool takes the words it runs its command with. */
static const char *const argv_keys[] = {"args", "argv"};

/* The command text cmd and its words argv (strings) make: cmd as it is
 * (a string is shell text, an array quoted word by word), then each word
 * quoted. A new string, or NULL when a word is not a string. */
static char *command_words(json_t *cmd, json_t *argv)
{
	struct buf b;
	size_t i;
	json_t *w;
	char *q;

	buf_init(&b, 0);
	if (json_is_string(cmd))
		buf_puts(&b, json_string_value(cmd));
	json_array_foreach(cmd, i, w) {
		if (!json_is_string(w))
			goto fail;
		q = agent_shell_quote(json_string_value(w));
		buf_printf(&b, "%s%s", i ? " " : "", q);
		free(q);
	}
	json_array_foreach(argv, i, w) {
		if (!json_is_string(w))
			goto fail;
		q = agent_shell_quote(json_string_value(w));
		buf_printf(&b, " %s", q);
		free(q);
	}
	return buf_take(&b, NULL);
fail:
	buf_free(&b);
	return NULL;
}

/*
 * A command the tool runs, with the words an "args" (or "argv") array
 * adds to it, as a server that spawns command with args runs it:
 * {"command":"cat","args":["~/.ssh/id_rsa"]} was judged as "cat" alone
 * beside the unknown tool: the person asked, and the log, never heard of
 * the key. Words that are not all strings stay unread beside the command
 * (the tool stays unknown).
 */
static void map_command(const char *name, json_t *args, json_t *cmd, json_t *id, json_t *used,
                        struct call ***v, size_t *n)
{
	json_t *argv = NULL;
	const char *key = NULL;
	char *text;

	for (size_t k = 0; k < nitems(argv_keys) && argv == NULL; k++)
		if (json_is_array(json_object_get(args, argv_keys[k])))
			argv = json_object_get(args, key = argv_keys[k]);
	if (argv == NULL || (text = command_words(cmd, argv)) == NULL) {
		push_call(v, n, derived(name, "shell", json_pack("{s:O}", "command", cmd), id), used,
		          "command");
		return;
	}
	if (push_call(v, n, derived(name, "shell", json_pack("{s:s}", "command", text), id), used,
	              "command"))
		json_object_set_new(used, key, json_true());
	free(text);
}

/* Maps args (an object, or NULL) to the calls the classifier reads,
 * pushed on v; marks in used the keys read. */
static void map_args(const char *name, const char *tool, json_t *args, json_t *id, json_t *used,
                     struct call ***v, size_t *n)
{
	json_t *cmd = json_object_get(args, "command");
	const char *sql = json_string_value(json_object_get(args, "sql")), *sql_key = "sql";
	const char *query = json_string_value(json_object_get(args, "query"));

	if (args && (json_is_string(cmd) || json_is_array(cmd)))
		map_command(name, args, cmd, id, used, v, n);
	/* "query" is SQL only for a tool that says so by name (a web search
	 * for "select ..." is not SQL) */
	if (args && !sql && query && has_word(tool, sql_words, nitems(sql_words)) &&
	    starts_sql(query))
		sql = query, sql_key = "query";
	if (sql)
		push_call(v, n, derived(name, "sql", json_pack("{s:s}", "query", sql), id), used,
		          sql_key);
	if (args) {
		map_urls(name, args, id, used, v, n);
		map_paths(name, tool, args, id, used, v, n);
		map_globs(name, args, id, used, v, n);
		map_patches(name, args, id, used, v, n);
	}
}

/*
 * The directory the tool works in, when args name one (cwd_keys): the
 * calls v[from..n) were read from args, so they are judged from there.
 * Unread, {"command":"cat credentials","cwd":"~/.aws"} was judged as a
 * read of the server's own credentials file, and {"path":"config",
 * "cwd":"~/.ssh"} as the project's config: forwarded under a rule on the
 * tool. Returns true when they name two directories: which one the tool
 * takes is not known, so they stay unread and the caller asks.
 */
static bool map_cwd(json_t *args, json_t *used, struct call **v, size_t from, size_t n)
{
	const char *cwd = NULL;

	for (size_t k = 0; args && k < nitems(cwd_keys); k++) {
		const char *s = json_string_value(json_object_get(args, cwd_keys[k]));
		if (s && *s && cwd && strcmp(cwd, s) != 0)
			return true;
		if (s && *s)
			cwd = s;
	}
	if (cwd == NULL)
		return false; /* none, or not text: unread, the unknown tool stays */
	for (size_t i = from; i < n; i++)
		if (v[i]->tool != TOOL_OTHER) {
			free(v[i]->cwd);
			v[i]->cwd = xstrdup(cwd);
		}
	for (size_t k = 0; k < nitems(cwd_keys); k++)
		if (json_string_value(json_object_get(args, cwd_keys[k])))
			json_object_set_new(used, cwd_keys[k], json_true());
	return false;
}

void agent_calls_place(struct call **calls, const char *base)
{
	for (size_t i = 0; calls && calls[i]; i++) {
		struct call *c = calls[i];
		char *joined;
		if (c->cwd == NULL)
			c->cwd = base ? xstrdup(base) : NULL;
		else if (c->cwd[0] != '/' && base) {
			joined = xasprintf("%s/%s", base, c->cwd);
			free(c->cwd);
			c->cwd = joined;
		}
	}
}

/* The arguments the mapping reads by name, beside path_keys and the rest. */
static const char *const mapped_keys[] = {"url", "urls", "sql", "query", "content", "edits"};

bool agent_key_folds(const char *key, const char *want)
{
	const unsigned char *k = (const unsigned char *)key;

	for (; *want; want++) {
		int w = tolower((unsigned char)*want);
		if (w == 's' && k[0] == 0xc5 && k[1] == 0xbf)
			k += 2;
		else if (w == 'k' && k[0] == 0xe2 && k[1] == 0x84 && k[2] == 0xaa)
			k += 3;
		else if (*k && tolower(*k) == w)
			k++;
		else
			return false;
	}
	return *k == '\0';
}

/* The mapped key that key folds to (itself when it is one), or NULL. */
static const char *key_mapped(const char *key)
{
	const char *const *tabs[] = {path_keys, path_list_keys, glob_keys,
	                             run_keys,  mapped_keys,    cwd_keys};
	const size_t lens[] = {nitems(path_keys), nitems(path_list_keys), nitems(glob_keys),
	                       nitems(run_keys),  nitems(mapped_keys),    nitems(cwd_keys)};

	for (size_t t = 0; t < nitems(tabs); t++)
		for (size_t i = 0; i < lens[t]; i++)
			if (agent_key_folds(key, tabs[t][i]))
				return tabs[t][i];
	return NULL;
}

/*
 * The arguments as a server that folds case reads them: each key that
 * folds to a mapped one ("Path", "PATH", "filE_path") in its place, the
 * last of them winning as in Go's encoding/json. Unread before, "Path"
 * left only the unknown tool, which a rule allowing the tool allowed: a
 * Go server binding typed arguments read the SSH key it named. A new
 * object, or NULL when every key is spelled as the mapping reads it.
 */
static json_t *args_folded(json_t *args)
{
	const char *key, *m;
	json_t *val, *alt = NULL;

	json_object_foreach(args, key, val) {
		if ((m = key_mapped(key)) == NULL || (alt == NULL && strcmp(m, key) == 0))
			continue;
		if (alt == NULL) /* the keys before this one are spelled as read */
			alt = json_deep_copy(args);
		json_object_del(alt, key);
		json_object_set(alt, m, val);
	}
	return alt;
}

struct call **agent_tool_calls(const char *name, const char *tool, json_t *args, json_t *id)
{
	struct call **v = NULL;
	size_t n = 0;
	json_t *used = json_object(), *alt;
	bool two_cwds;

	if (!json_is_object(args))
		args = NULL;
	map_args(name, tool, args, id, used, &v, &n);
	two_cwds = map_cwd(args, used, v, 0, n);
	/* nothing read, or not all of it: the unknown tool stays, with the
	 * original arguments, beside whatever was read */
	if (n == 0 || (args && !all_read(args, used))) {
		bool runs = runs_unread(args, used) || two_cwds;
		if (push_call(&v, &n, agent_other_call(name, args, id), used, ""))
			v[n - 1]->unsandboxed = runs;
	}
	if ((alt = args_folded(args)) != NULL) { /* judged as both readers read them */
		json_t *more = json_object();
		size_t from = n;
		map_args(name, tool, alt, id, more, &v, &n);
		if (map_cwd(alt, more, v, from, n)) /* folded, they name two: ask */
			for (size_t i = 0; i < n; i++)
				v[i]->unsandboxed = v[i]->unsandboxed || v[i]->tool == TOOL_OTHER;
		json_decref(more);
		json_decref(alt);
	}
	if (n > 1 || v[0]->tool != TOOL_OTHER) /* the recorded call keeps what was sent */
		json_object_set(v[0]->input, "arguments", args ? args : json_object());
	json_decref(used);
	return v;
}

/* Adds a read of path to c's calls, or, when it cannot be mapped, the
 * unknown tool (high). */
static void read_push(const struct call *c, json_t *a, const char *path, struct call ***v)
{
	json_t *used = json_object(); /* push_call's bookkeeping; a's keys stay */
	size_t n = 0;

	while ((*v)[n])
		n++;
	if (!push_call(v, &n, derived(c->name, "read_file", json_pack("{s:s}", "path", path), c->id),
	               used, "read"))
		push_call(v, &n, agent_other_call(c->name, a, c->id), used, "read");
	json_decref(used);
}

/*
 * Glob lists the names its pattern matches, so the directory the pattern
 * starts in (the part before the first wildcard, up to its last slash) is
 * listed as LS would list it: a pattern under /root or ../../root/.ssh
 * reads /root or /root/.ssh, not only the path it is matched from; one
 * directory per alternative of a {a,b} group, expanded first as the glob
 * library does ("{/root/.ssh,x}/id_*" lists /root/.ssh). A pattern that
 * starts with a wildcard adds nothing: path is read already.
 */
static void glob_dir_read(const struct call *c, json_t *a, struct call ***v)
{
	const char *pat = json_string_value(json_object_get(a, "pattern"));
	const char *dir = json_string_value(json_object_get(a, "path"));
	char **alts;

	if (strcmp(c->name, "Glob") != 0 || pat == NULL || dir == NULL)
		return;
	alts = brace_first_expand(pat);
	for (char **p = alts; *p; p++) {
		const char *one = *p, *slash = one + strcspn(one, "*?[{");
		char *path;
		while (slash > one && slash[-1] != '/')
			slash--;
		if (slash == one)
			continue;
		path = one[0] == '/' ? xstrndup(one, (size_t)(slash - one))
		                     : xasprintf("%s/%.*s", dir, (int)(slash - one), one);
		read_push(c, a, path, v);
		free(path);
	}
	strv_free(alts);
}

struct call **agent_named_calls(const struct call *c, json_t *args, const char *cwd)
{
	const char *dot = strchr(c->name, '.');
	struct call **v;
	json_t *a;

	if (strncmp(c->name, "mcp:", 4) == 0 && dot)
		return agent_tool_calls(c->name, dot + 1, args, c->id);
	if (c->tool != TOOL_OTHER)
		return NULL;
	a = json_is_object(args) ? json_deep_copy(args) : json_object();
	for (size_t i = 0; i < nitems(search_tools); i++)
		if (strcmp(c->name, search_tools[i]) == 0 && !json_object_get(a, "path") && cwd)
			json_object_set_new(a, "path", json_string(cwd));
	v = agent_tool_calls(c->name, c->name, a, c->id);
	glob_dir_read(c, a, &v);
	json_decref(a);
	return v;
}

struct call **agent_unknown_calls(const struct call *c, const char *workdir)
{
	struct call **calls;

	if (c->tool != TOOL_OTHER)
		return NULL;
	calls = agent_named_calls(c, c->input, c->cwd ? c->cwd : workdir);
	agent_calls_place(calls, strncmp(c->name, "mcp:", 4) != 0 ? c->cwd : NULL);
	return calls;
}

void agent_calls_free(struct call **calls)
{
	for (size_t i = 0; calls && calls[i]; i++)
		call_free(calls[i]);
	free(calls);
}

void agent_verdict_merge(struct verdict *into, const struct verdict *v)
{
	char ***dst[] = {&into->reads, &into->writes, &into->hosts};
	char **src[] = {v->reads, v->writes, v->hosts};

	for (size_t i = 0; i < v->nfindings; i++)
		if (!verdict_has(into, v->findings[i].rule) || v->findings[i].tier > into->tier)
			verdict_add(into, v->findings[i].tier, v->findings[i].rule,
			            (struct span){0, 0}, "%s",
			            v->findings[i].reason ? v->findings[i].reason : "");
	for (size_t i = 0; i < v->ncommands; i++)
		verdict_add_command(into, strv_dup(v->commands[i].argv), (struct span){0, 0});
	for (size_t k = 0; k < nitems(src); k++)
		for (size_t i = 0; src[k] && src[k][i]; i++)
			verdict_add_path(dst[k], src[k][i]);
}

/* Claude Code's tools that read every file below their path themselves,
 * outside airlock's sandbox: Grep their text, Glob and LS (which lists
 * below its path, up to its cap) their names. */
static const char *const tree_tools[] = {"Grep", "Glob", "LS"};
/* Words in an MCP tool's name that say it searches a tree (the filesystem
 * server's search_files, a grep or find tool): its server runs it. */
static const char *const tree_words[] = {"search", "grep", "find", "glob", "tree", "walk"};

/* The part of an absolute path before its first segment with a glob
 * character ("/w/src/x*.pem" -> "/w/src", "/w/x" -> itself); a new string. */
static char *path_stem(const char *path)
{
	char *stem = xstrdup(path), *g = stem + strcspn(stem, "*?[{\\");

	if (*g == '\0')
		return stem;
	*g = '\0';
	if (!path_up(stem) || stem[0] != '/') { /* nothing before it: the whole tree */
		free(stem);
		stem = xstrdup("/");
	}
	return stem;
}

/* A path a deny = Read(...) rule names (whole, or by a glob that may match
 * there) below tree, or NULL. */
static const char *denied_below(const char *tree, const struct profile *pr)
{
	const char *hit = NULL;

	for (char *const *h = pr->hide; h && *h && !hit; h++)
		if (path_contains(tree, *h) && strcmp(tree, *h) != 0) /* itself: the rule's */
			hit = *h;
	for (char *const *g = pr->hide_globs; g && *g && !hit; g++) {
		char *stem = path_stem(*g);
		if (path_contains(tree, stem) || path_contains(stem, tree))
			hit = *g;
		free(stem);
	}
	return hit;
}

bool agent_tree_denied(struct gate *g, const struct call *c, struct verdict *v)
{
	const struct profile *pr = policy_profile(gate_policy(g), "readonly");
	bool mcp = c->name && strncmp(c->name, "mcp:", 4) == 0;
	const char *dot = mcp ? strchr(c->name, '.') : NULL;
	bool tree = dot && has_word(dot + 1, tree_words, nitems(tree_words));

	for (size_t i = 0; i < nitems(tree_tools) && c->name; i++)
		tree = tree || strcmp(c->name, tree_tools[i]) == 0;
	for (char *const *r = v->reads; tree && r && *r; r++) {
		char *stem = path_stem(*r);
		const char *hit = pr ? denied_below(stem, pr) : stem; /* no profile: fail safe */
		if (hit)
			verdict_add(v, TIER_HIGH, "policy.deny_below", (struct span){0, 0},
			            "%s searches every file below %s, and a deny rule names %s there: "
			            "%s runs it outside airlock's sandbox, which would hide it",
			            c->name, stem, hit, mcp ? "its server" : "Claude Code");
		free(stem);
		if (hit)
			return true;
	}
	return false;
}

bool agent_calls_unsandboxed(struct call *const *calls)
{
	for (size_t i = 0; calls && calls[i]; i++)
		if (calls[i]->unsandboxed)
			return true;
	return false;
}

/* Every call classified by one(arg, call), findings and paths merged. */
static struct verdict *classify_each(struct call **calls,
                                     struct verdict *(*one)(const void *, const struct call *),
                                     const void *arg)
{
	struct verdict *v = one(arg, calls[0]);

	for (size_t i = 1; calls[i]; i++) {
		struct verdict *more = one(arg, calls[i]);
		agent_verdict_merge(v, more);
		verdict_free(more);
	}
	return v;
}

static struct verdict *by_gate(const void *g, const struct call *c)
{
	return gate_classify((struct gate *)g, c);
}

static struct verdict *by_opts(const void *o, const struct call *c)
{
	return classify_call(c, o);
}

struct verdict *agent_classify_calls(struct gate *g, struct call **calls)
{
	return classify_each(calls, by_gate, g);
}

struct verdict *agent_classify_calls_opts(const struct classify_opts *o, struct call **calls)
{
	return classify_each(calls, by_opts, o);
}
