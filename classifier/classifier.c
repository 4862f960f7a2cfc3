/*
 * classifier.c: the public entry points. Sets up the per-call context,
 * dispatches by tool, and applies the rules that span a whole call
 * (secrets.exfiltrate). Fails closed: a missing field, an overlong or
 * binary command, an unknown tool is at least high (unknown tools take
 * opts->unknown_tool), never low.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

void classify_opts_init(struct classify_opts *opts, const char *workdir, const char *home)
{
	opts->workdir = workdir;
	opts->home = home;
	opts->state = NULL;
	opts->config_guarded = NULL;
	opts->config_unread = false;
	opts->unknown_program = TIER_MEDIUM;
	opts->unknown_tool = TIER_HIGH;
}

struct span cls_span(const struct cctx *x, size_t off, size_t len)
{
	struct span s;
	if (!x->f.exact)
		return x->f.outer;
	if (off > x->f.len)
		off = x->f.len;
	if (len > x->f.len - off)
		len = x->f.len - off;
	s.off = x->f.base + off;
	s.len = len;
	return s;
}

void cls_add(struct cctx *x, enum tier t, const char *rule, struct span sp, const char *fmt,
             ...)
{
	struct verdict *v = x->v;
	va_list ap;
	bool many = v->nfindings >= CLS_MAX_FINDINGS;

	/* past the cap, a rule is kept once per tier: the tier stays exact and
	 * the work stays linear in the input */
	for (size_t i = 0; i < v->nfindings; i++)
		if (strcmp(v->findings[i].rule, rule) == 0 && v->findings[i].tier >= t &&
		    (many || (v->findings[i].span.off == sp.off && v->findings[i].span.len == sp.len)))
			return;
	va_start(ap, fmt);
	verdict_addv(v, t, rule, sp, fmt, ap);
	va_end(ap);
}

/* True when v already lists argv at sp (a later reading of variables
 * meets the commands that do not depend on them again). */
static bool command_listed(const struct verdict *v, char *const *argv, struct span sp)
{
	for (size_t i = 0; i < v->ncommands; i++) {
		char *const *a = v->commands[i].argv;
		size_t k = 0;
		if (v->commands[i].span.off != sp.off || v->commands[i].span.len != sp.len)
			continue;
		while (a[k] && argv[k] && strcmp(a[k], argv[k]) == 0)
			k++;
		if (!a[k] && !argv[k])
			return true;
	}
	return false;
}

void cls_add_command(struct cctx *x, char **argv, struct span sp)
{
	struct verdict *v = x->v;

	if (x->reading > 0 && command_listed(v, argv, sp)) {
		strv_free(argv);
		return;
	}
	if (v->ncommands == x->capcmds) {
		x->capcmds = x->capcmds ? x->capcmds * 2 : 8;
		v->commands = xreallocarray(v->commands, x->capcmds, sizeof(*v->commands));
	}
	v->commands[v->ncommands].argv = argv;
	v->commands[v->ncommands].span = sp;
	v->ncommands++;
}

void cls_add_path(struct cctx *x, char ***vec, const char *abs)
{
	struct span all = {0, 0};

	if (strv_len(*vec) < CLS_MAX_PATHS) {
		verdict_add_path(vec, abs);
		return;
	}
	if (!strv_contains(*vec, abs))
		cls_add(x, TIER_HIGH, "parse.uncertain", all,
		        "more than %d paths or hosts: the rest are not listed for policy",
		        CLS_MAX_PATHS);
}

static void ctx_init(struct cctx *x, struct arena *a, struct verdict *v,
                     const struct classify_opts *o, const char *subject)
{
	memset(x, 0, sizeof(*x));
	arena_init(a);
	x->a = a;
	x->v = v;
	x->o = o;
	x->home = o->home ? o->home : "";
	x->wd = paths_workdir(a, o->workdir);
	x->cwd = x->wd;
	x->seen = paths_seen_new(a);
	x->f.text = subject ? subject : "";
	x->f.len = strlen(x->f.text);
	x->f.exact = true;
}

static struct span whole(const struct cctx *x)
{
	struct span s = {0, x->f.len};
	return s;
}

static bool has_prefix_rule(const struct verdict *v, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < v->nfindings; i++)
		if (strncmp(v->findings[i].rule, prefix, n) == 0)
			return true;
	return false;
}

/* The rules (prefixes) of a call that reaches the network, as the gate's
 * network_wanted() counts them: a push or an install reaches a remote too
 * (`git add -f .env && git commit -m x && git push` was secrets.read and
 * git.push with no secrets.exfiltrate), and so does inline code that
 * calls the network (`node -e "fetch(u, {body: readFileSync('.env')})"`). */
static const char *const network_rules[] = {"net.", "git.push", "pkg.install",
                                            "exec.inline_code.network"};

/* A secret read or written out in a call that also reaches the network. */
static void exfiltration(struct cctx *x, const char *text, size_t len)
{
	struct span sp;
	const char *kind;
	bool net = false;

	for (size_t i = 0; i < nitems(network_rules) && !net; i++)
		net = has_prefix_rule(x->v, network_rules[i]);
	if (!net)
		return;
	if (verdict_has(x->v, "secrets.read"))
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", whole(x),
		        "reads a secret and reaches the network in the same call");
	else if ((kind = classify_find_secret(text, len, &sp)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", sp,
		        "sends what looks like a secret (%s) over the network", kind);
}

/* Control bytes other than tab, newline and CR, or invalid UTF-8. */
static bool binary(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
			return true;
		if (c >= 0x80)
			return !utf8_valid(s, n);
	}
	return false;
}

/* Checks text before parsing: present, not overlong; flags binary bytes.
 * Returns false when it must not be parsed at all. */
static bool input_ok(struct cctx *x, const char *text, const char *what, size_t *n)
{
	if (text == NULL) {
		cls_add(x, TIER_HIGH, "parse.uncertain", whole(x), "the call has no %s", what);
		return false;
	}
	*n = strlen(text);
	if (*n > CLS_MAX_INPUT) {
		cls_add(x, TIER_HIGH, "parse.too_long", whole(x),
		        "the %s is %zu bytes, over the %d byte limit airlock reads", what, *n,
		        CLS_MAX_INPUT);
		return false;
	}
	if (binary(text, *n))
		cls_add(x, TIER_HIGH, "parse.binary", whole(x),
		        "the %s holds control bytes or invalid UTF-8", what);
	return true;
}

/* Cloud metadata services hand the machine's own credentials to whoever
 * asks from inside it. */
static const char *const metadata_hosts[] = {"169.254.169.254", "169.254.170.2",
                                             "100.100.100.200", "fd00:ec2::254",
                                             "metadata.google.internal", "metadata.goog"};

static void metadata(struct cctx *x)
{
	for (size_t i = 0; x->v->hosts && x->v->hosts[i]; i++)
		for (size_t k = 0; k < nitems(metadata_hosts); k++)
			if (strcasecmp(x->v->hosts[i], metadata_hosts[k]) == 0)
				cls_add(x, TIER_HIGH, "secrets.read", whole(x),
				        "asks the cloud metadata service %s, which hands out the "
				        "machine's credentials", x->v->hosts[i]);
}

static void shell_in(struct cctx *x, const char *cmd)
{
	size_t n;

	if (!input_ok(x, cmd, "command", &n))
		return;
	shell_script(x, &x->f);
	shell_var_readings(x);
	shell_files_late(x);
	metadata(x);
	exfiltration(x, cmd, n);
}

struct verdict *classify_shell(const char *cmd, const struct classify_opts *opts)
{
	struct verdict *v = verdict_new();
	struct arena a;
	struct cctx x;

	ctx_init(&x, &a, v, opts, cmd);
	shell_in(&x, cmd);
	arena_free(&a);
	return v;
}

static void sql_in(struct cctx *x, const char *sql)
{
	size_t n;

	if (input_ok(x, sql, "query", &n))
		sql_classify(x, sql, n, true, 0, whole(x));
}

struct verdict *classify_sql(const char *sql, const struct classify_opts *opts)
{
	struct verdict *v = verdict_new();
	struct arena a;
	struct cctx x;

	ctx_init(&x, &a, v, opts, sql);
	sql_in(&x, sql);
	arena_free(&a);
	return v;
}

static bool path_of(struct cctx *x, const char *p, char *abs, size_t n, const char *tool)
{
	if (p == NULL || p[0] == '\0') {
		cls_add(x, TIER_HIGH, "parse.uncertain", whole(x), "the %s call has no path", tool);
		return false;
	}
	if (!paths_resolve(x, p, abs, n)) {
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", whole(x),
		        "cannot resolve %s against the workdir", p);
		return false;
	}
	return true;
}

/* A file tool's relative path is judged against the call's cwd and, when
 * that differs, against the workdir too: airlock's own executor (gate/
 * tools.c) takes it from the workdir whatever the cwd, so `.claude/
 * settings.json` with the cwd in sub/ wrote the workdir's own settings
 * while it read as sub/.claude/settings.json. */
static void file_tool(struct cctx *x, const char *p, void (*judge)(struct cctx *, const char *))
{
	const char *cwd = x->cwd;

	judge(x, p);
	if (p == NULL || p[0] == '/' || p[0] == '~' || cwd == NULL || x->wd == NULL ||
	    strcmp(cwd, x->wd) == 0)
		return;
	x->cwd = x->wd;
	judge(x, p);
	x->cwd = cwd;
}

static void file_read(struct cctx *x, const char *p)
{
	char abs[CLS_MAX_PATH];
	const char *why;

	if (!path_of(x, p, abs, sizeof(abs), "read_file"))
		return;
	cls_add_path(x, &x->v->reads, abs);
	if ((why = secrets_path(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.read", whole(x), "reads %s (%s)", abs, why);
	else if (paths_holds_secrets(x, abs)) /* Grep, Glob, LS arrive as reads of a dir */
		cls_add(x, TIER_HIGH, "secrets.read", whole(x),
		        "reads %s, a tree that holds secrets (keys, tokens, shadow)", abs);
	else if (paths_class(x, abs) == PC_DISK) /* as cat /dev/sda from the shell */
		cls_add(x, TIER_HIGH, "secrets.read", whole(x), "reads the raw device %s: all it stores",
		        abs);
}

static void file_write(struct cctx *x, const char *p)
{
	char abs[CLS_MAX_PATH];

	if (path_of(x, p, abs, sizeof(abs), "write")) {
		paths_write_abs(x, abs, whole(x), abs);
		hooks_path_write(x, abs, whole(x));
	}
}

static const char *const read_methods[] = {"GET", "HEAD", "OPTIONS"};

/* Request headers ({"Name": "value"} or ["Name: value"]) that carry a
 * secret send it along. */
static void http_headers(struct cctx *x, const struct call *c)
{
	json_t *h = c->input ? json_object_get(c->input, "headers") : NULL, *v;
	const char *k, *kind = NULL;
	size_t i;

	json_object_foreach(h, k, v)
		if (kind == NULL && json_is_string(v))
			kind = classify_find_secret(json_string_value(v), json_string_length(v), NULL);
	json_array_foreach(h, i, v)
		if (kind == NULL && json_is_string(v))
			kind = classify_find_secret(json_string_value(v), json_string_length(v), NULL);
	if (kind)
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", whole(x),
		        "a request header carries a secret (%s)", kind);
}

/* file:[//[localhost]]/PATH with %XX decoded, as a fetcher reads it: a
 * read of PATH. Another host (file://server/share) is unanchored. */
static void file_url(struct cctx *x, const char *u)
{
	char path[CLS_MAX_PATH];
	struct word w = {0};
	size_t n = 0;

	if (strncmp(u, "//", 2) == 0) {
		size_t hl = strcspn(u + 2, "/");
		if (hl && strncasecmp(u + 2, "localhost", hl) != 0)
			net_add_host(x, u + 2, hl);
		u += 2 + hl;
	}
	for (; *u && *u != '?' && *u != '#' && n + 1 < sizeof(path); u++) {
		static const char hex[] = "0123456789abcdef";
		const char *hi, *lo;
		if (*u == '%' && u[1] && u[2] &&
		    (hi = strchr(hex, tolower((unsigned char)u[1]))) != NULL &&
		    (lo = strchr(hex, tolower((unsigned char)u[2]))) != NULL && (hi != hex || lo != hex)) {
			path[n++] = (char)((hi - hex) * 16 + (lo - hex));
			u += 2;
		} else {
			path[n++] = *u;
		}
	}
	path[n] = '\0';
	w.val = path[0] ? path : "/";
	paths_read(x, &w, w.val);
}

/* A secret shape in text as the server reads it: %XX decoded (and + as a
 * space, as a form decodes it), so AKIA%49OSFODNN7EXAMPLE in a query or
 * -----BEGIN%20RSA%20PRIVATE%20KEY----- in a form body is still found.
 * Only text with a % is decoded. */
static const char *secret_decoded(const char *text)
{
	static const char hex[] = "0123456789abcdef";
	const char *kind, *hi, *lo;
	char *d;
	size_t n = 0;

	if (strchr(text, '%') == NULL)
		return NULL;
	d = xmalloc(strlen(text) + 1);
	for (const char *u = text; *u; u++) {
		if (*u == '%' && u[1] && u[2] && (hi = strchr(hex, tolower((unsigned char)u[1]))) &&
		    (lo = strchr(hex, tolower((unsigned char)u[2])))) {
			d[n++] = (char)((hi - hex) * 16 + (lo - hex));
			u += 2;
		} else {
			d[n++] = *u == '+' ? ' ' : *u;
		}
	}
	kind = classify_find_secret(d, n, NULL);
	free(d);
	return kind;
}

static void http_in(struct cctx *x, const struct call *c)
{
	bool reads = c->method == NULL;
	const char *kind;
	struct span sp;

	if (c->url == NULL || c->url[0] == '\0') {
		cls_add(x, TIER_HIGH, "parse.uncertain", whole(x), "the http call has no url");
		return;
	}
	if (strncasecmp(c->url, "file:", 5) == 0) {
		file_url(x, c->url + 5);
		cls_add(x, TIER_HIGH, "net.fetch", whole(x), "fetches a local file through a URL");
		return;
	}
	net_add_fetch_url(x, c->url); /* curl fetches it */
	for (size_t i = 0; c->method && i < nitems(read_methods); i++)
		if (strcasecmp(c->method, read_methods[i]) == 0)
			reads = true;
	if (reads && (c->body == NULL || c->body[0] == '\0'))
		cls_add(x, TIER_HIGH, "net.fetch", whole(x), "fetches %s", c->url);
	else
		cls_add(x, TIER_HIGH, "net.upload", whole(x), "sends a %s request%s to %s",
		        c->method ? c->method : "GET", c->body && c->body[0] ? " with a body" : "",
		        c->url);
	if ((kind = classify_find_secret(c->url, strlen(c->url), &sp)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", sp, "the URL carries a secret (%s)",
		        kind);
	else if ((kind = secret_decoded(c->url)) != NULL)
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", whole(x),
		        "the URL carries a secret (%s), %%-encoded", kind);
	if (c->body && ((kind = classify_find_secret(c->body, strlen(c->body), NULL)) != NULL ||
	                (kind = secret_decoded(c->body)) != NULL))
		cls_add(x, TIER_HIGH, "secrets.exfiltrate", whole(x),
		        "the request body carries a secret (%s)", kind);
	http_headers(x, c);
	metadata(x);
}

static void sql_call(struct cctx *x, const struct call *c)
{
	char abs[CLS_MAX_PATH];

	sql_in(x, c->query);
	if (c->database == NULL || !paths_resolve(x, c->database, abs, sizeof(abs)))
		return;
	/* the database is read either way: a browser's cookies.sqlite or
	 * key4.db is a secret, as sqlite3 of it from the shell is */
	if (x->v->tier > TIER_LOW)
		paths_write_abs(x, abs, whole(x), abs);
	paths_read_abs(x, abs, whole(x));
}

struct verdict *classify_call(const struct call *c, const struct classify_opts *opts)
{
	struct verdict *v = verdict_new();
	struct arena a;
	struct cctx x;

	ctx_init(&x, &a, v, opts, call_subject(c));
	if (c->cwd && c->cwd[0] == '/')
		x.cwd = arena_strndup(&a, c->cwd, strlen(c->cwd));
	switch (c->tool) {
	case TOOL_SHELL: shell_in(&x, c->command); break;
	case TOOL_SQL: sql_call(&x, c); break;
	case TOOL_READ_FILE: file_tool(&x, c->path, file_read); break;
	case TOOL_WRITE_FILE:
	case TOOL_EDIT_FILE: file_tool(&x, c->path, file_write); break;
	case TOOL_HTTP: http_in(&x, c); break;
	case TOOL_OTHER:
		cls_add(&x, opts->unknown_tool, "tool.unknown", whole(&x),
		        "unknown tool %s: airlock cannot tell what it does", c->name ? c->name : "");
		break;
	}
	arena_free(&a);
	return v;
}
