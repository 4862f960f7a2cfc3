/*
 * tools.c: executes a call the gate allowed, one executor per tool (a table).
 * Rules it keeps:
 *  - shell and http run only through exec_run() under the plan's profile;
 *  - file tools run in-process; a write opens its directory once without
 *    following any symlink (beneath the workdir for an auto-run write,
 *    checked again here after the classifier), never follows or replaces
 *    a final link when auto-run, and is atomic (temp file + renameat);
 *  - anything that cannot run says why and runs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "diff/diff.h"
#include "exec/exec.h"
#include "gate/pipeline.h"

#define FILE_CAP (64LL << 20) /* largest file read_file/edit_file will load */

static long long output_cap(const struct plan *pl)
{
	return pl->profile && pl->profile->output > 0 ? pl->profile->output : 1 << 20;
}

/* Returns a new absolute path for p (relative to the workdir, ~ expanded). */
static char *resolve_path(struct gate *g, const char *p)
{
	const char *home = getenv("HOME");
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home)
		return xasprintf("%s%s", home, p + 1);
	if (p[0] == '/')
		return xstrdup(p);
	return xasprintf("%s/%s", gate_workdir(g), p);
}

/* True when the path's directory resolves inside the workdir and the final
 * component is not a symlink (so a write cannot be carried outside). */
static bool inside_workdir(struct gate *g, const char *abs)
{
	char *copy = xstrdup(abs), *dir = dirname(copy), *real = realpath(dir, NULL);
	struct stat st;
	bool ok = real && path_contains(gate_workdir(g), real) &&
	          !(lstat(abs, &st) == 0 && S_ISLNK(st.st_mode));
	free(real);
	free(copy);
	return ok;
}

/* read_file, edit_file and sql run in airlock's own process: a FIFO, a
 * device, or airlock's own stdin (/dev/stdin) would block the gate or eat
 * its input. They open regular files only. */
static int not_regular(const char *path, char **errstr)
{
	*errstr = xasprintf("%s is not a regular file (a directory, FIFO, device or socket); "
	                    "airlock opens only regular files",
	                    path);
	return -1;
}

static int read_whole(const char *path, long long cap, char **data, size_t *len,
                      bool *truncated, char **errstr)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	struct buf b;
	char chunk[65536];
	ssize_t n;

	if (fd < 0) {
		*errstr = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, errstr);
	}
	buf_init(&b, (size_t)cap);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && !b.truncated)
		buf_append(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0) {
		*errstr = xasprintf("cannot read %s: %s", path, strerror(errno));
		buf_free(&b);
		return -1;
	}
	*truncated = b.truncated;
	*data = buf_take(&b, len);
	return 0;
}

static int run_read(struct gate *g, const struct call *c, const struct plan *pl,
                    struct outcome *o, char **errstr)
{
	char *path = resolve_path(g, c->path);
	int rc = read_whole(path, output_cap(pl), &o->out, &o->outlen, &o->truncated, errstr);
	free(path);
	return rc;
}

/* The edits of an edit_file call: the rules live in diff/ so the preview
 * shows exactly what this executor does. */
static int apply_edits(const struct call *c, const char *text, size_t textlen, struct buf *out,
                       char **errstr)
{
	char *res = NULL;
	size_t len = 0;

	if (diff_apply_edits(c, text, textlen, &res, &len, errstr) < 0)
		return -1;
	buf_append(out, res, len);
	free(res);
	return 0;
}

/* The file's permissions for the new one, as the preview says: a regular
 * file's, never its setuid or setgid bit (through a link to /usr/bin/su
 * the new file would have been setuid); else 0644. */
static mode_t kept_mode(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, 0) == 0 && S_ISREG(st.st_mode) ? st.st_mode & 0777 : 0644;
}

/* Reads the file to edit at dirfd/name; follow: through a final link. */
static int read_at(int dirfd, const char *name, bool follow, const char *shown, struct buf *b,
                   char **errstr)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	struct stat st;
	char chunk[65536];
	ssize_t n;

	if (fd < 0) {
		*errstr = errno == ELOOP ? xasprintf("%s is a symlink; an auto-run edit does not "
		                                     "follow it", shown)
		                         : xasprintf("cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(shown, errstr);
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && !b->truncated)
		buf_append(b, chunk, (size_t)n);
	close(fd);
	if (n < 0 || b->truncated) {
		*errstr = n < 0 ? xasprintf("cannot read %s: %s", shown, strerror(errno))
		                : xasprintf("%s is larger than %lld bytes; not edited", shown, FILE_CAP);
		return -1;
	}
	return 0;
}

/* A write the gate did not apply from a preview (an auto-run one; an
 * approved one runs in diff_run_file). Its directory is opened once,
 * without following any symlink (beneath the workdir for an auto-run
 * write), and the file is read and replaced through that descriptor:
 * checked by name and then written by name, a link swapped in between
 * carried the write elsewhere. */
static int run_write(struct gate *g, const struct call *c, const struct plan *pl,
                     struct outcome *o, char **errstr)
{
	char *path = resolve_path(g, c->path), *copy = xstrdup(path), *name = basename(copy);
	bool auto_run = pl->action == ACTION_AUTO;
	struct buf old, nb;
	struct stat st;
	int dfd = -1, rc = -1;

	buf_init(&old, (size_t)FILE_CAP);
	buf_init(&nb, 0);
	if ((dfd = diff_open_dir(gate_workdir(g), path, auto_run, NULL, errstr)) < 0)
		goto out;
	if (auto_run && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		*errstr = xasprintf("%s is a symlink; an auto-run write may only land inside the "
		                    "workdir, and does not replace or follow a link", path);
		goto out;
	}
	if (c->tool == TOOL_WRITE_FILE) {
		buf_puts(&nb, c->content);
	} else if (read_at(dfd, name, !auto_run, path, &old, errstr) < 0 ||
	           apply_edits(c, old.data ? old.data : "", old.len, &nb, errstr) < 0) {
		goto out;
	}
	if (diff_replace_at(dfd, name, nb.data ? nb.data : "", nb.len, kept_mode(dfd, name)) < 0) {
		*errstr = xasprintf("cannot replace %s: %s", path, strerror(errno));
		goto out;
	}
	o->out = xasprintf("wrote %zu bytes to %s\n", nb.len, c->path);
	o->outlen = strlen(o->out);
	rc = 0;
out:
	if (dfd >= 0)
		close(dfd);
	buf_free(&nb);
	buf_free(&old);
	free(copy);
	free(path);
	return rc;
}

static int sql_row(void *arg, int n, char **vals, char **cols)
{
	struct buf *b = arg;
	if (b->len == 0)
		for (int i = 0; i < n; i++)
			buf_printf(b, "%s%s", i ? "|" : "", cols[i]);
	if (b->len && n)
		buf_puts(b, "\n");
	for (int i = 0; i < n; i++)
		buf_printf(b, "%s%s", i ? "|" : "", vals[i] ? vals[i] : "NULL");
	return b->truncated; /* stop once the cap is hit */
}

static int run_sql(struct gate *g, const struct call *c, const struct plan *pl,
                   struct outcome *o, char **errstr)
{
	bool ro = pl->profile && !pl->profile->workdir_rw;
	char *path, *msg = NULL;
	sqlite3 *db = NULL;
	struct stat st;
	struct buf b;
	int rc = -1;

	if (c->database == NULL) {
		*errstr = xstrdup("sql: no input.database; airlock runs SQL only against a SQLite "
		                  "file in the workdir");
		return -1;
	}
	path = resolve_path(g, c->database);
	buf_init(&b, (size_t)output_cap(pl));
	/* SQL runs in-process, not in the sandbox: an auto-run write must stay
	 * inside the workdir (the sandbox's private /tmp does not apply here) */
	if (!ro && pl->action == ACTION_AUTO && !inside_workdir(g, path)) {
		*errstr = xasprintf("database %s is outside the workdir (or a symlink); an auto-run "
		                    "write may only land inside it", c->database);
		goto out;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		not_regular(c->database, errstr);
		goto out;
	}
	/* The SQL runs in the gate's own process. Debian's SQLite is built
	 * with SQLITE_ENABLE_FTS3_TOKENIZER: the two-argument fts3_tokenizer()
	 * takes a blob as the address of a tokenizer's functions, and an
	 * auto-run call naming 0x4141414141414141 made the gate jump there
	 * (SIGSEGV; code the agent chose, outside any sandbox). Off before
	 * the first statement, or the call does not run. */
	if (sqlite3_open_v2(path, &db, ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, NULL) !=
	            SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)NULL) !=
	            SQLITE_OK) {
		*errstr = xasprintf("cannot open database %s: %s", c->database, sqlite3_errmsg(db));
		goto out;
	}
	o->ran = true;
	if (sqlite3_exec(db, c->query, sql_row, &b, &msg) != SQLITE_OK && !b.truncated) {
		o->err = xasprintf("%s\n", msg ? msg : sqlite3_errmsg(db));
		o->errlen = strlen(o->err);
		o->exit_code = 1;
	} else
		o->exit_code = 0;
	if (b.len)
		buf_puts(&b, "\n");
	o->truncated = b.truncated;
	o->out = buf_take(&b, &o->outlen);
	rc = 0;
out:
	sqlite3_free(msg);
	sqlite3_close(db);
	buf_free(&b);
	free(path);
	return rc;
}

/* The agent may ask for less time than the profile gives, never more (a
 * day at most when the profile sets none). */
static long long call_timeout_ms(const struct call *c, const struct profile *p)
{
	long long cap = p && p->timeout > 0 ? p->timeout * 1000LL : 86400000LL;
	if (c->timeout_ms <= 0)
		return 0; /* the profile's */
	return c->timeout_ms < cap ? c->timeout_ms : cap;
}

/* Appends note (taken) to the call's stderr, on a line of its own. */
static void err_note(struct outcome *o, char *note)
{
	size_t n = strlen(note), nl = o->errlen && o->err[o->errlen - 1] != '\n';

	o->err = xrealloc(o->err, o->errlen + nl + n + 1);
	if (nl)
		o->err[o->errlen++] = '\n';
	memcpy(o->err + o->errlen, note, n + 1);
	o->errlen += n;
	free(note);
}

/* Runs argv through the sandbox under the plan's profile. */
static int run_sandboxed(struct gate *g, const struct call *c, const struct plan *pl,
                         char *const *argv, const struct profile *prof, struct outcome *o,
                         char **errstr)
{
	char **binds = NULL, **env = gate_call_env(g, pl, &binds);
	struct exec_spec spec = {
		.argv = argv,
		.workdir = gate_workdir(g),
		.profile = prof,
		.env = env,
		.binds = binds,
		.timeout_ms = call_timeout_ms(c, prof),
		.capture = true,
		/* an http call's body, which curl reads with --data-binary @- */
		.stdin_data = c->tool == TOOL_HTTP ? c->body : NULL,
		.stdin_len = c->tool == TOOL_HTTP && c->body ? strlen(c->body) : 0,
	};
	struct exec_result r;
	int rc = exec_run(&spec, &r, errstr);

	strv_free(env);
	strv_free(binds);
	if (rc < 0)
		return -1;
	o->ran = true;
	o->exit_code = r.exit_code;
	o->signal = r.signal;
	o->timed_out = r.timed_out;
	o->truncated = r.truncated;
	o->out = r.out, o->outlen = r.outlen;
	o->err = r.err, o->errlen = r.errlen;
	o->cpu_ms = r.cpu_ms;
	o->peak_kb = r.peak_kb;
	r.out = r.err = NULL;
	if (r.recovered)
		err_note(o, xasprintf("airlock: removed %s, left in the workdir by an earlier "
		                      "sandboxed run whose airlock was killed before it checked\n",
		                      r.recovered));
	if (r.removed) /* the agent and the audit log both see it */
		err_note(o, xasprintf("airlock: removed %s, which the call made: a sandboxed call "
		                      "may not plant git hooks or config, or set up the gate or the "
		                      "agent\n",
		                      r.removed));
	if (r.hidden_path) { /* exit 127: perhaps why */
		char *hint = exec_hidden_path_hint(r.hidden_path);
		err_note(o, xasprintf("airlock: %s\n", hint));
		free(hint);
	}
	if (r.masked && (r.exit_code != 0 || r.signal)) /* perhaps why it failed */
		err_note(o, xasprintf("airlock: this sandbox hides %s (secret files, sockets and "
		                      "FIFOs in the workdir, and what the policy's deny = Read "
		                      "rules name); a call that needs a secret file must be "
		                      "approved, and no call reads what a deny rule names\n",
		                      r.masked));
	if (pl->net_wanted && !prof->network && (r.exit_code != 0 || r.signal))
		err_note(o, xasprintf("airlock: this call reaches the network, and its sandbox "
		                      "(profile %s) has none; a policy gives that profile the "
		                      "network with [profile \"%s\"] network = true\n",
		                      prof->name, prof->name));
	exec_result_clear(&r);
	return 0;
}

static int run_shell(struct gate *g, const struct call *c, const struct plan *pl,
                     struct outcome *o, char **errstr)
{
	char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)c->command, NULL};
	return run_sandboxed(g, c, pl, argv, pl->profile, o, errstr);
}

/* http runs curl in the sandbox; an approved call gets the network. */
/* One request header as curl's -H word, or NULL when curl would read it
 * another way than the classifier did: a leading @ names a file of
 * headers, a line break starts another header. */
static char *header_word(const char *name, const char *value)
{
	char *w = name ? xasprintf("%s: %s", name, value) : xstrdup(value);

	if (w[0] == '@' || strpbrk(w, "\r\n") || strchr(w, ':') == NULL ||
	    (name && (name[0] == '\0' || strchr(name, ':')))) {
		free(w);
		return NULL;
	}
	return w;
}

/* curl's argv for the call: its method, headers ({"Name": "value"} or
 * ["Name: value"]) and, with a body, --data-binary @- (the body on stdin:
 * as an argument one over 128 KiB would not exec, and one starting with @
 * would name a file). NULL with *errstr when a header cannot be sent as
 * given. The request is sent as it was judged, or not at all. */
static char **http_argv(const struct call *c, char **errstr)
{
	json_t *h = json_object_get(c->input, "headers"), *v;
	char **argv = NULL, *w;
	const char *k;
	size_t i;

	strv_push(&argv, "curl");
	strv_push(&argv, "-sS");
	strv_push(&argv, "-X");
	strv_push(&argv, c->method ? c->method : "GET");
	strv_push(&argv, "--max-redirs");
	strv_push(&argv, "0");
	if (h && !json_is_object(h) && !json_is_array(h))
		goto bad;
	json_object_foreach(h, k, v) {
		if (!json_is_string(v) || (w = header_word(k, json_string_value(v))) == NULL)
			goto bad;
		strv_push(&argv, "-H");
		strv_push_owned(&argv, w);
	}
	json_array_foreach(h, i, v) {
		if (!json_is_string(v) || (w = header_word(NULL, json_string_value(v))) == NULL)
			goto bad;
		strv_push(&argv, "-H");
		strv_push_owned(&argv, w);
	}
	if (c->body) {
		strv_push(&argv, "--data-binary");
		strv_push(&argv, "@-");
	}
	strv_push(&argv, "--");
	strv_push(&argv, c->url);
	return argv;
bad:
	strv_free(argv);
	*errstr = xstrdup("http: headers must be {\"Name\": \"value\"} or [\"Name: value\"] "
	                  "strings with no line break and no leading @; not sent");
	return NULL;
}

static int run_http(struct gate *g, const struct call *c, const struct plan *pl,
                    struct outcome *o, char **errstr)
{
	char **argv;
	struct profile *prof;
	int rc;

	if (pl->action == ACTION_AUTO && !pl->profile->network) {
		*errstr = xasprintf("profile %s has no network; http calls need network = true",
		                    pl->profile->name);
		return -1;
	}
	if ((argv = http_argv(c, errstr)) == NULL)
		return -1;
	prof = profile_dup(pl->profile);
	prof->network = true;
	rc = run_sandboxed(g, c, pl, argv, prof, o, errstr);
	profile_free(prof);
	strv_free(argv);
	return rc;
}

typedef int (*tool_fn)(struct gate *, const struct call *, const struct plan *,
                       struct outcome *, char **);

static const tool_fn executors[] = {
	[TOOL_SHELL] = run_shell,       [TOOL_SQL] = run_sql,
	[TOOL_READ_FILE] = run_read,    [TOOL_WRITE_FILE] = run_write,
	[TOOL_EDIT_FILE] = run_write,   [TOOL_HTTP] = run_http,
	[TOOL_OTHER] = NULL,
};

int tools_run(struct gate *g, const struct call *c, const struct plan *pl, struct outcome *o)
{
	long long start = clock_ns();
	char *err = NULL;
	int rc;

	if (pl->profile == NULL) { /* fail safe: policy gave no sandbox to run in */
		outcome_set_reason(o, "no sandbox profile for this call; not run");
		return -1;
	}
	if (executors[c->tool] == NULL) {
		o->applied = NULL;
		outcome_set_reason(o, "airlock has no executor for tool %s: the decision is "
		                      "returned and the caller runs it", c->name);
		return 0;
	}
	rc = executors[c->tool](g, c, pl, o, &err);
	o->duration_ms = (clock_ns() - start) / 1000000;
	if (rc < 0) {
		outcome_set_reason(o, "%s", err ? err : "could not run");
		free(err);
		return -1;
	}
	if (c->tool != TOOL_SQL && c->tool != TOOL_SHELL && c->tool != TOOL_HTTP) {
		o->ran = true;
		o->exit_code = 0;
	}
	o->applied = "run";
	return 0;
}
