/*
 * test_policy.c: policy files, layers and precedence, rule patterns, circuit
 * breakers with an injected clock, session memory and saving. Cases live in
 * the tests/data/policy tables; policy files are copied into a temp home and
 * workdir with safe modes, so the permission checks see what a user's would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/lazy.h"
#include "core/util.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"
#include "tdata.h"

#define DATA "tests/data/policy/"

/* libgit2 1.5's regexp matcher leaks its pcre2 match data when a value does
 * not match (git_config_set_multivar, used by policy_save_rule). Not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

/* A temp tree: ROOT/home (HOME), ROOT/work (the workdir). */
struct tree {
	char root[64];
	char *home, *work, *file;
	bool guessed; /* the layers spec said "guessed": policy_source.guessed */
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static char *read_all(const char *path)
{
	struct buf b;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");
	if (f == NULL)
		fail_msg("cannot read %s", path);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(&b, chunk, n);
	fclose(f);
	return b.data ? buf_take(&b, NULL) : xstrdup("");
}

static void tree_make(struct tree *t)
{
	char *cmd;
	snprintf(t->root, sizeof(t->root), "/tmp/airlock-policy-XXXXXX");
	if (mkdtemp(t->root) == NULL)
		fail_msg("mkdtemp");
	t->home = xasprintf("%s/home", t->root);
	t->work = xasprintf("%s/work", t->root);
	t->file = NULL;
	t->guessed = false;
	cmd = xasprintf("mkdir -p %s/.config/airlock %s/.airlock", t->home, t->work);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void tree_free(struct tree *t)
{
	char *cmd = xasprintf("rm -rf %s", t->root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(t->home);
	free(t->work);
	free(t->file);
}

/* "user=a.policy,project=b.policy,file=c.policy" -> files in the tree;
 * a "guessed" item loads them as for a project guessed from the cwd. */
static void tree_layers(struct tree *t, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL;
	for (char *it = strtok_r(copy, ",", &save); it && strcmp(it, "-");
	     it = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(it, '='), *src, *text, *dst;
		if (strcmp(it, "guessed") == 0) {
			t->guessed = true;
			continue;
		}
		assert_non_null(eq);
		*eq = '\0';
		src = xasprintf(DATA "files/%s", eq + 1);
		text = read_all(src);
		if (strcmp(it, "user") == 0)
			dst = xasprintf("%s/.config/airlock/policy", t->home);
		else if (strcmp(it, "project") == 0)
			dst = xasprintf("%s/.airlock/policy", t->work);
		else
			dst = t->file = xasprintf("%s/%s", t->root, eq + 1);
		write_file(dst, text, 0644);
		if (dst != t->file)
			free(dst);
		free(src);
		free(text);
	}
	free(copy);
}

static char *show_text(const struct policy *p, bool origins);

static struct policy *tree_load_once(struct tree *t, char **err)
{
	struct policy_source src = {.workdir = t->work, .home = t->home, .file = t->file,
	                            .guessed = t->guessed};
	struct policy *p = NULL;
	*err = NULL;
	if (policy_load(&src, &p, err) < 0)
		return NULL;
	return p;
}

/* Every load in these tests is made twice: the second from what the first
 * kept in the state directory (policy/load.c), which must give the same
 * policy, origins and all, or the same error. */
static struct policy *tree_load(struct tree *t, char **err)
{
	struct policy *p = tree_load_once(t, err), *q;
	char *err2, *a, *b;

	q = tree_load_once(t, &err2);
	if ((p == NULL) != (q == NULL) || (p == NULL && strcmp(*err, err2) != 0))
		fail_msg("a second load differs: [%s] then [%s]", p ? "loaded" : *err,
		         q ? "loaded" : err2);
	if (p) {
		a = show_text(p, true);
		b = show_text(q, true);
		if (strcmp(a, b) != 0)
			fail_msg("a second load shows another policy:\n%s\n---\n%s", a, b);
		free(a);
		free(b);
	}
	free(err2);
	policy_free(q);
	return p;
}

static struct policy *load_ok(struct tree *t, const char *spec, size_t line)
{
	char *err;
	struct policy *p;
	tree_layers(t, spec);
	p = tree_load(t, &err);
	if (p == NULL)
		fail_msg("line %zu: load failed: %s", line, err);
	return p;
}

/* /work/proj and /home/u in the data files stand for the tree's dirs. */
static char *subst(const struct tree *t, const char *s)
{
	if (strncmp(s, "/work/proj", 10) == 0)
		return xasprintf("%s%s", t->work, s + 10);
	if (strncmp(s, "/home/u", 7) == 0)
		return xasprintf("%s%s", t->home, s + 7);
	return xstrdup(s);
}

/* Replaces every /work/proj in s with the tree's workdir. */
static char *subst_all(const struct tree *t, const char *s)
{
	struct buf b;
	const char *m;
	buf_init(&b, 0);
	while ((m = strstr(s, "/work/proj")) != NULL) {
		buf_append(&b, s, (size_t)(m - s));
		buf_puts(&b, t->work);
		s = m + 10;
	}
	buf_puts(&b, s);
	return buf_take(&b, NULL);
}

static char **split_argv(const char *s)
{
	char **argv = NULL, *copy = xstrdup(s), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *word = xstrdup(w), *q;
		while ((q = strstr(word, "\\s")) != NULL) {
			*q = ' ';
			memmove(q + 1, q + 2, strlen(q + 2) + 1);
		}
		strv_push_owned(&argv, word);
	}
	free(copy);
	return argv;
}

static struct call *make_call(const char *tool)
{
	static const struct {
		const char *name;
		enum tool tool;
	} tools[] = {{"shell", TOOL_SHELL},         {"read_file", TOOL_READ_FILE},
	             {"write_file", TOOL_WRITE_FILE}, {"edit_file", TOOL_EDIT_FILE},
	             {"http", TOOL_HTTP},            {"sql", TOOL_SQL}};
	struct call *c = call_new();
	c->tool = TOOL_OTHER;
	if (strncmp(tool, "mcp:", 4) == 0)
		c->name = xstrdup(tool);
	else if (strncmp(tool, "other:", 6) == 0)
		c->name = xstrdup(tool + 6);
	else if (strncmp(tool, "unsandboxed:", 12) == 0) { /* a shell command its tool runs */
		c->name = xstrdup(tool + 12);
		c->tool = TOOL_SHELL;
		c->unsandboxed = true;
	}
	for (size_t i = 0; i < nitems(tools); i++)
		if (strcmp(tools[i].name, tool) == 0) {
			c->tool = tools[i].tool;
			c->name = xstrdup(tool);
		}
	return c;
}

/* A finding's rule id must outlive the verdict: a small static pool. */
static const char *intern(const char *s)
{
	static char pool[16][64];
	static size_t next;
	char *slot = pool[next++ % 16];
	snprintf(slot, 64, "%s", s);
	return slot;
}

/* "cmd:git push ; read:/x ; host:h ; sql:S ; write:/y" -> a verdict;
 * "cmd@5+12:rm -rf x" gives a command a span, "finding@0+4:high RULE" adds one. */
static struct verdict *make_verdict(const struct tree *t, const char *tier, const char *subj)
{
	struct verdict *v = verdict_new();
	char *copy = xstrdup(subj), *rest = copy;
	assert_int_equal(tier_from_name(tier, &v->tier), 0);
	while (rest && strcmp(rest, "-") != 0) {
		char *item = rest, *sep = strstr(rest, " ; "), *val, *at;
		struct span sp = {0, 0};
		if (sep) {
			*sep = '\0';
			rest = sep + 3;
		} else {
			rest = NULL;
		}
		val = strchr(item, ':');
		assert_non_null(val);
		*val++ = '\0';
		if ((at = strchr(item, '@')) != NULL) { /* kind@OFF+LEN: a span */
			*at++ = '\0';
			sp.off = strtoul(at, &at, 10);
			sp.len = strtoul(at + 1, NULL, 10);
		}
		if (strcmp(item, "cmd") == 0) {
			verdict_add_command(v, split_argv(val), sp);
		} else if (strcmp(item, "finding") == 0) { /* finding@SPAN:TIER RULE */
			enum tier ft;
			char *rule = strchr(val, ' ');
			assert_non_null(rule);
			*rule++ = '\0';
			assert_int_equal(tier_from_name(val, &ft), 0);
			verdict_add(v, ft, intern(rule), sp, "test finding");
		} else {
			char *s = subst(t, val);
			char ***vec = strcmp(item, "read") == 0    ? &v->reads
			              : strcmp(item, "write") == 0 ? &v->writes
			              : strcmp(item, "host") == 0  ? &v->hosts
			                                           : &v->statements;
			strv_push_owned(vec, s);
		}
	}
	free(copy);
	return v;
}

/* Runs fn on every row of a data file, which must hold at least min rows. */
static void table(const char *path, size_t min, void (*fn)(const struct tdata_row *r))
{
	struct tdata_row *rows;
	size_t n = tdata_load(path, &rows);
	assert_true(n >= min);
	for (size_t i = 0; i < n; i++)
		fn(&rows[i]);
	tdata_free(rows, n);
}

/* One case's world: a tree with its layers, the policy, a call and a verdict. */
struct fixture {
	struct tree t;
	struct policy *p;
	struct call *c;
	struct verdict *v;
};

static void fixture_open(struct fixture *fx, const struct tdata_row *r)
{
	tree_make(&fx->t);
	fx->p = load_ok(&fx->t, r->f[0], r->line);
	fx->c = make_call(r->f[1]);
	fx->v = make_verdict(&fx->t, r->f[2], r->f[3]);
}

static void fixture_close(struct fixture *fx)
{
	call_free(fx->c);
	verdict_free(fx->v);
	policy_free(fx->p);
	tree_free(&fx->t);
}

static void test_no_file_no_libgit2(void **state)
{
	pid_t pid;
	int status;
	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tree t;
		char *err, *maps;
		struct policy *p;
		tree_make(&t);
		p = tree_load(&t, &err);
		maps = read_all("/proc/self/maps");
		tree_free(&t);
		_exit(p == NULL ? 2 : strstr(maps, "libgit2") ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * The sandbox's matcher of a deny rule's glob (policy_globs_*(), over the
 * pattern as the profile carries it) says of path what the rule does
 * (want): it masks what the rule denies, no more. Its cheaper form for a
 * directory's entry agrees too, where the directory does not match.
 */
static void globs_agree(const struct tdata_row *r, const struct pattern *pat, const char *path,
                        bool want)
{
	char *text = pattern_path_text(pat), *pats[] = {text, NULL}, *buf = xstrdup(path);
	char *segs[256], *save = NULL;
	struct policy_globs *g = policy_globs_new(pats);
	size_t n = 0;

	if (g == NULL)
		fail_msg("line %zu: %s: the sandbox cannot take %s", r->line, r->f[0], text);
	for (char *t = strtok_r(buf, "/", &save); t && n < nitems(segs); t = strtok_r(NULL, "/", &save))
		segs[n++] = t;
	if (policy_globs_match(g, segs, n) != want)
		fail_msg("line %zu: %s vs %s: the sandbox's matcher (%s) disagrees with the rule",
		         r->line, r->f[0], path, text);
	if (n > 0 && !policy_globs_match(g, segs, n - 1) &&
	    policy_globs_match_entry(g, segs, n) != want)
		fail_msg("line %zu: %s vs %s: the matcher of an entry (%s) disagrees", r->line,
		         r->f[0], path, text);
	policy_globs_free(g);
	free(buf);
	free(text);
}

static void row_patterns(const struct tdata_row *r)
{
	struct ruleset rs = {0};
	struct pattern pat;
	struct rule_result rr;
	char *err = NULL;
	int rc = pattern_parse(r->f[0], "/work/proj", "/home/u", &pat, &err);
	if ((rc < 0) != (strcmp(r->f[3], "error") == 0))
		fail_msg("line %zu: %s: parse %s (%s)", r->line, r->f[0], rc ? "failed" : "ok",
		         err ? err : "");
	free(err);
	if (rc < 0)
		return;
	{
		static const char *const tool_for[PK_COUNT] = {"shell", "read_file", "edit_file",
		                                               "http", "sql", "mcp:"};
		struct tree t = {.work = (char *)"/work/proj", .home = (char *)"/home/u"};
		char *tool = pat.kind == PK_MCP ? xasprintf("mcp:%s", r->f[2])
		                                : xstrdup(tool_for[pat.kind]);
		const char *kind = pat.kind == PK_SHELL  ? "cmd"
		                   : pat.kind == PK_READ ? "read"
		                   : pat.kind == PK_EDIT ? "write"
		                   : pat.kind == PK_HOST ? "host"
		                   : pat.kind == PK_SQL  ? "sql"
		                                         : NULL;
		char *subj = kind ? xasprintf("%s:%s", kind, r->f[2]) : xstrdup("-");
		struct call *c = make_call(tool);
		struct verdict *v = make_verdict(&t, "high", subj);
		assert_int_equal(ruleset_add(&rs, RA_ALLOW, &pat, 0), 0);
		ruleset_decide(&rs, c, v, &rr);
		if ((rr.allow != NULL) != (strcmp(r->f[3], "match") == 0))
			fail_msg("line %zu: %s vs %s: want %s", r->line, r->f[0], r->f[2], r->f[3]);
		if (kind && strcmp(kind, "read") != 0 && strcmp(kind, "write") != 0)
			kind = NULL;
		for (size_t k = PK_READ; kind && k <= PK_EDIT; k++)
			if (rs.n[k] == 1 && !rs.v[k][0].pat.all)
				globs_agree(r, &rs.v[k][0].pat, r->f[2], strcmp(r->f[3], "match") == 0);
		ruleset_clear(&rs);
		call_free(c);
		verdict_free(v);
		free(subj);
		free(tool);
	}
}

static void test_patterns(void **state)
{
	(void)state;
	alarm(30); /* a matcher that backtracks without bound fails, not hangs */
	table(DATA "patterns.tsv", 60, row_patterns);
	alarm(0);
}

static void row_decide(const struct tdata_row *r)
{
	struct fixture fx;
	struct plan pl;
	fixture_open(&fx, r);
	policy_decide(fx.p, fx.c, fx.v, 1000, &pl);
	if (strcmp(action_name(pl.action), r->f[4]) != 0 || !strstr(pl.reason, r->f[5]))
		fail_msg("line %zu: got %s (%s), want %s (%s)", r->line, action_name(pl.action),
		         pl.reason, r->f[4], r->f[5]);
	if ((pl.action == ACTION_DENY) != (pl.profile == NULL))
		fail_msg("line %zu: profile %s with %s", r->line, pl.profile ? "set" : "unset",
		         action_name(pl.action));
	plan_clear(&pl);
	fixture_close(&fx);
}

static void test_decide(void **state)
{
	(void)state;
	table(DATA "decide.tsv", 30, row_decide);
}

/* A policy_breaker_key() as the log's redaction: a run of digits is one #. */
static char *key_mask_digits(const char *field, void *arg)
{
	char *k = xstrdup(field), *o = k;
	(void)arg;
	for (const char *s = field; *s; s++)
		if (!(*s >= '0' && *s <= '9'))
			*o++ = *s;
		else if (o == k || o[-1] != '#')
			*o++ = '#';
	*o = '\0';
	return k;
}

/* Runs one breaker row; returns the 1-based index of the first non-auto call. */
static long breaker_run(struct policy *p, const struct tdata_row *r, struct plan *first)
{
	long calls = strtol(r->f[2], NULL, 10), spacing = strtol(r->f[3], NULL, 10);
	long long runtime = strtoll(r->f[5], NULL, 10);
	bool same = strcmp(r->f[4], "same") == 0, mix = strcmp(r->f[1], "mix") == 0;
	struct verdict *v = verdict_new();
	long tripped = 0;

	if (strcmp(r->f[4], "keyed") == 0)
		policy_breaker_key(p, key_mask_digits, NULL);

	for (long i = 0; i < calls && tripped == 0; i++) {
		struct call *c = make_call(mix ? (i % 2 ? "http" : "shell") : r->f[1]);
		char *cmd = same ? xstrdup("curl https://api.example.com/charge")
		                 : xasprintf("curl https://api.example.com/charge?n=%ld", i);
		struct plan pl;
		if (c->tool == TOOL_OTHER) { /* an MCP tool: what differs is its input */
			if (c->input == NULL)
				c->input = json_object();
			json_object_set_new(c->input, "n", json_integer(same ? 0 : i));
		}
		else {
			c->command = cmd;
			c->url = cmd;
		}
		policy_decide(p, c, v, (time_t)(1000000 + i * spacing / 1000), &pl);
		if (pl.action != ACTION_AUTO) {
			tripped = i + 1;
			*first = pl;
		} else {
			policy_account_runtime(p, runtime);
			plan_clear(&pl);
		}
		call_free(c);
		free(cmd);
	}
	verdict_free(v);
	return tripped;
}

static void row_breakers(const struct tdata_row *r)
{
	struct tree t;
	struct plan pl = {0};
	struct policy *p;
	long want = strtol(r->f[6], NULL, 10), got;
	tree_make(&t);
	p = load_ok(&t, r->f[0], r->line);
	got = breaker_run(p, r, &pl);
	if (got != want)
		fail_msg("line %zu: first tripped call %ld, want %ld (%s)", r->line, got, want,
		         pl.reason ? pl.reason : "");
	if (got && (strncmp(action_name(pl.action), r->f[7], strcspn(r->f[7], " ")) ||
	            !strstr(pl.reason, r->f[7] + strcspn(r->f[7], " ") + 1)))
		fail_msg("line %zu: got %s (%s), want %s", r->line, action_name(pl.action),
		         pl.reason, r->f[7]);
	plan_clear(&pl);
	policy_free(p);
	tree_free(&t);
}

static void test_breakers(void **state)
{
	(void)state;
	table(DATA "breaker.tsv", 8, row_breakers);
}

/* After remembering, the same call runs automatically, named as a session rule. */
static void remembered_decides(struct policy *p, const struct call *c, const struct verdict *v,
                               size_t line, bool session)
{
	struct plan pl;
	policy_decide(p, c, v, 1000, &pl);
	if (pl.action != ACTION_AUTO || (session && !strstr(pl.reason, "(session)")))
		fail_msg("line %zu: after remembering: %s (%s)", line, action_name(pl.action),
		         pl.reason);
	plan_clear(&pl);
}

static void row_remember(const struct tdata_row *r)
{
	bool want_err = strncmp(r->f[4], "error:", 6) == 0;
	struct fixture fx;
	char *err = NULL, *sug, *pat = NULL, *want;
	fixture_open(&fx, r);
	want = want_err ? xstrdup(r->f[4] + 6) : subst_all(&fx.t, r->f[4]);
	sug = policy_suggest_pattern(fx.p, fx.c, fx.v, &err);
	if (want_err ? (sug || !strstr(err, want)) : (!sug || strcmp(sug, want)))
		fail_msg("line %zu: suggested [%s] error [%s], want [%s]", r->line,
		         sug ? sug : "", err ? err : "", r->f[4]);
	free(err);
	err = NULL;
	if (!want_err) {
		assert_int_equal(policy_remember(fx.p, fx.c, fx.v, &pat, &err), 0);
		assert_string_equal(pat, sug);
		remembered_decides(fx.p, fx.c, fx.v, r->line, strcmp(r->f[0], "-") == 0);
	}
	free(pat);
	free(sug);
	free(want);
	fixture_close(&fx);
}

static void test_remember(void **state)
{
	(void)state;
	table(DATA "remember.tsv", 25, row_remember);
}

/* A tree whose only layer is a --policy file holding text. */
static struct policy *load_text(struct tree *t, const char *text, char **err)
{
	tree_make(t);
	t->file = xasprintf("%s/policy", t->root);
	write_file(t->file, text, 0644);
	return tree_load(t, err);
}

static void row_bad_files(const struct tdata_row *r)
{
	struct tree t;
	char *err;
	struct policy *p = load_text(&t, r->f[0], &err);
	if (p != NULL || !strstr(err, r->f[1]) || !strstr(err, r->f[2]))
		fail_msg("line %zu: want an error with [%s] and [%s], got [%s]", r->line,
		         r->f[1], r->f[2], err ? err : "success");
	free(err);
	tree_free(&t);
}

static void test_bad_files(void **state)
{
	(void)state;
	table(DATA "bad.tsv", 30, row_bad_files);
}

/* Returns the text of [section ...] up to the next section, from show output. */
static char *section_text(const char *show, const char *section)
{
	const char *s = strstr(show, section), *e;
	if (s == NULL)
		return xstrdup("");
	e = strstr(s + 1, "\n[");
	return e ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
}

static char *show_text(const struct policy *p, bool origins)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(policy_show(p, f, origins), 0);
	fclose(f);
	return text;
}

static void row_keys(const struct tdata_row *r)
{
	struct tree t;
	struct policy *p;
	char *err, *text = xasprintf("%s\n\t%s\n", r->f[0], r->f[1]), *show, *sect;
	if ((p = load_text(&t, text, &err)) == NULL)
		fail_msg("line %zu: %s", r->line, err);
	show = show_text(p, true);
	sect = section_text(show, r->f[0]);
	if (!strstr(sect, r->f[2]) || !strstr(sect, t.file))
		fail_msg("line %zu: want [%s] from %s in:\n%s", r->line, r->f[2], t.file, sect);
	free(sect);
	free(show);
	free(text);
	policy_free(p);
	tree_free(&t);
}

static void test_keys(void **state)
{
	(void)state;
	table(DATA "keys.tsv", 30, row_keys);
}

static void expect_load_error(struct tree *t, const char *want)
{
	char *err;
	struct policy *p = tree_load(t, &err);
	if (p != NULL || strstr(err, want) == NULL)
		fail_msg("want an error with [%s], got [%s]", want, err ? err : "success");
	free(err);
}

static void test_permissions(void **state)
{
	struct tree t;
	char *user, *inc;
	(void)state;
	tree_make(&t);
	user = xasprintf("%s/.config/airlock/policy", t.home);
	write_file(user, "[rules]\n\tallow = Shell(ls)\n", 0664);
	expect_load_error(&t, "writable by group (chmod go-w");
	chmod(user, 0646);
	expect_load_error(&t, "writable by others");
	chmod(user, 0644);
	assert_int_equal(chown(user, 65534, 65534), 0);
	expect_load_error(&t, "unsafe owner uid 65534");
	assert_int_equal(chown(user, 0, 0), 0);
	inc = xasprintf("%s/inc.policy", t.root);
	write_file(inc, "[rules]\n\tallow = Shell(rm -rf /)\n", 0666);
	free(user);
	user = xasprintf("%s/.airlock/policy", t.work);
	write_file(user, "[include]\n\tpath = ../../inc.policy\n", 0644);
	expect_load_error(&t, "(included from");
	t.file = xasprintf("%s/missing.policy", t.root);
	expect_load_error(&t, "missing.policy: cannot read policy file");
	free(t.file);
	t.file = xstrdup(t.root);
	expect_load_error(&t, "not a regular file");
	free(user);
	free(inc);
	tree_free(&t);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *s = hay; (s = strstr(s, needle)) != NULL; s++)
		n++;
	return n;
}

#define TRICKY "Shell(echo 'a #b; \"c\"\\*')"

/* Includes are checked before libgit2 opens them: a FIFO would block its
 * open() for ever, and a nested include is relative to its own file. */
static void test_includes(void **state)
{
	static const struct {
		const char *text; /* the project file */
		const char *want;
	} cases[] = {
		{"[include]\n\tpath = sub/a\n", "sub/b: unsafe permissions 0666"},
		{"[include]\n\tpath = fifo\n", "fifo: not a regular file (included from"},
		{"[tier \"low\"]\n\taction = deny\n[INCLUDE ] PATH=fifo ; x\n", "fifo: not a regular"},
		{"[include]\n\tpath = /dev/stdin\n", "/dev/stdin: not a regular file"},
		/* where libgit2 reads an include the section scan did not see:
		 * after a header whose quoted name holds ']', and after a value
		 * continued onto a "[rules]" line (fifth policy review) */
		{"[rules \"a]b\"] [include] path = fifo\n", "fifo: not a regular file"},
		{"[include]\n\tx = a\\\n[rules]\n\tpath = fifo\n", "fifo: not a regular file"},
		{"[include]\n\tpath = \"fi\"fo\n", "without quotes or backslashes"},
		{"[include]\n\tpath = sub/deep\n", "nested deeper than 10"},
		/* 300 includes of one file: each read counts (50 a level, 10
		 * deep, was 50^10 reads, and every load hung) */
		{"[include]\n\tpath = sub/fan\n", "more than 256 policy files"},
	};
	struct tree t;
	char *proj, *path;
	FILE *f;
	(void)state;
	tree_make(&t);
	proj = xasprintf("%s/.airlock/policy", t.work);
	path = xasprintf("%s/.airlock/sub", t.work);
	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
	path = xasprintf("%s/.airlock/sub/a", t.work);
	write_file(path, "[include]\n\tpath = b\n", 0644);
	free(path);
	path = xasprintf("%s/.airlock/sub/b", t.work);
	write_file(path, "[policy]\n\ttrust-project = true\n", 0666);
	free(path);
	path = xasprintf("%s/.airlock/sub/deep", t.work); /* includes itself */
	write_file(path, "[include]\n\tpath = deep\n", 0644);
	free(path);
	path = xasprintf("%s/.airlock/sub/leaf", t.work);
	write_file(path, "", 0644);
	free(path);
	{
		struct buf fan;
		buf_init(&fan, 0);
		buf_puts(&fan, "[include]\n");
		for (int i = 0; i < 300; i++)
			buf_puts(&fan, "\tpath = leaf\n");
		path = xasprintf("%s/.airlock/sub/fan", t.work);
		write_file(path, fan.data, 0644);
		free(path);
		buf_free(&fan);
	}
	path = xasprintf("%s/.airlock/fifo", t.work);
	assert_int_equal(mkfifo(path, 0600), 0);
	free(path);
	alarm(20); /* a blocking open fails the test instead of hanging it */
	for (size_t i = 0; i < nitems(cases); i++) {
		write_file(proj, cases[i].text, 0644);
		expect_load_error(&t, cases[i].want);
	}
	f = fopen(proj, "w"); /* a NUL byte: libgit2 and a line scan would disagree */
	assert_non_null(f);
	fwrite("[tier \"low\"]\n\0[include]\n\tpath = fifo\n", 1, 37, f);
	fclose(f);
	expect_load_error(&t, "holds a NUL byte");
	alarm(0);
	free(proj);
	tree_free(&t);
}

static void test_save_rule(void **state)
{
	struct tree t;
	struct policy *p;
	struct stat st;
	char *err = NULL, *user, *text;
	mode_t old = umask(002);
	(void)state;
	tree_make(&t);
	user = xasprintf("%s/.config/airlock", t.home);
	rmdir(user); /* saving creates it */
	free(user);
	p = load_ok(&t, "-", 0);
	assert_int_equal(policy_save_rule(p, "Shell(make test)\nShell(cd build)", false, &err), 0);
	assert_int_equal(policy_save_rule(p, "Shell(make test)", false, &err), 0);
	if (policy_save_rule(p, TRICKY, false, &err) < 0)
		fail_msg("saving %s: %s", TRICKY, err);
	user = xasprintf("%s/.config/airlock/policy", t.home);
	text = read_all(user);
	assert_int_equal(count(text, "allow = Shell(make test)"), 1);
	assert_int_equal(count(text, "allow = Shell(cd build)"), 1);
	assert_int_equal(policy_save_rule(p, TRICKY, false, &err), 0);
	free(text);
	text = read_all(user);
	assert_int_equal(count(text, "allow = "), 3); /* saving again added nothing */
	assert_int_equal(stat(user, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* a project file cannot allow unless the user trusts projects */
	assert_int_equal(policy_save_rule(p, "Shell(make test)", true, &err), -1);
	assert_non_null(strstr(err, "trust-project"));
	free(err);
	err = NULL;
	assert_int_equal(policy_save_rule(p, "Nope(x)", false, &err), -1);
	assert_non_null(strstr(err, "bad pattern"));
	free(err);
	policy_free(p);
	/* the saved rules load back and decide */
	{
		struct call *c = make_call("shell");
		struct verdict *v = make_verdict(&t, "high", "cmd:make test ; cmd:cd build");
		struct verdict *w = make_verdict(&t, "high", "cmd:echo a\\s#b;\\s\"c\"\\*");
		struct plan pl;
		p = load_ok(&t, "-", 0);
		policy_decide(p, c, v, 1000, &pl);
		assert_int_equal(pl.action, ACTION_AUTO);
		assert_non_null(strstr(pl.reason, user));
		plan_clear(&pl);
		/* quotes, # ; and backslashes survive libgit2's writer and reader */
		policy_decide(p, c, w, 1000, &pl);
		if (pl.action != ACTION_AUTO || !strstr(pl.reason, TRICKY))
			fail_msg("tricky pattern: %s (%s)", action_name(pl.action), pl.reason);
		plan_clear(&pl);
		verdict_free(w);
		call_free(c);
		verdict_free(v);
		policy_free(p);
	}
	free(text);
	free(user);
	tree_free(&t);
	/* a trusted project, but one guessed from the cwd: its file allows nothing */
	tree_make(&t);
	p = load_ok(&t, "user=trust.policy", 0);
	assert_int_equal(policy_save_rule(p, "Shell(make test)", true, &err), 0);
	policy_free(p);
	p = load_ok(&t, "guessed", 0);
	assert_int_equal(policy_save_rule(p, "Shell(make test)", true, &err), -1);
	assert_non_null(strstr(err, "guessed"));
	free(err);
	policy_free(p);
	tree_free(&t);
	umask(old);
}

/* What show prints reads back as the same policy. */
static void roundtrip(const char *spec)
{
	struct tree t;
	struct policy *p, *q;
	char *a, *b, *err, *path;
	tree_make(&t);
	p = load_ok(&t, spec, 0);
	a = show_text(p, false);
	path = xasprintf("%s/shown.policy", t.root);
	write_file(path, a, 0644);
	{
		struct policy_source src = {.workdir = t.work, .home = t.home, .file = path};
		src.defaults_only = false;
		src.workdir = NULL;
		src.home = NULL;
		if (policy_load(&src, &q, &err) < 0)
			fail_msg("%s: reloading show output: %s\n%s", spec, err, a);
	}
	b = show_text(q, false);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(path);
	policy_free(p);
	policy_free(q);
	tree_free(&t);
}

static void test_show_roundtrip(void **state)
{
	(void)state;
	roundtrip("-");
	roundtrip("user=rules.policy");
	roundtrip("user=credentials.policy,file=stricter.policy");
	roundtrip("user=odd-names.policy");
}

/* The line of text starting with `line` names `origin` as its origin. */
static void expect_origin(const char *text, const char *line, const char *origin)
{
	const char *at = strstr(text, line), *end;

	if (at == NULL)
		fail_msg("no line %s in:\n%s", line, text);
	end = strchr(at, '\n');
	if (!memmem(at, end ? (size_t)(end - at) : strlen(at), origin, strlen(origin)))
		fail_msg("%.*s: origin is not %s", (int)(end ? end - at : (long)strlen(at)), at,
		         origin);
}

static void test_show_origins(void **state)
{
	struct tree t;
	struct policy *p;
	char *show, *tier;
	(void)state;
	tree_make(&t);
	p = load_ok(&t, "user=tiers-user.policy", 0);
	show = show_text(p, true);
	tier = section_text(show, "[tier \"high\"]");
	assert_non_null(strstr(tier, "action = deny\t# "));
	assert_non_null(strstr(tier, ".config/airlock/policy"));
	assert_non_null(strstr(tier, "profile = approved\t# default"));
	free(tier);
	free(show);
	policy_free(p);
	/* a grant an untrusted project restates stays the user's: show named
	 * the project, which could not have made it (fifth policy review) */
	p = load_ok(&t, "user=grants-user.policy,project=grants-restated.policy", 0);
	show = show_text(p, true);
	tier = section_text(show, "[profile \"workspace\"]");
	expect_origin(tier, "read-write = /srv/cache\t# ", ".config/airlock/policy");
	expect_origin(tier, "network = true\t# ", ".config/airlock/policy");
	expect_origin(tier, "env = PATH LANG\t# ", ".config/airlock/policy");
	expect_origin(tier, "memory = 1g\t# ", ".airlock/policy");
	free(tier);
	free(show);
	policy_free(p);
	tree_free(&t);
}

static void test_credentials(void **state)
{
	struct tree t;
	struct policy *p;
	struct call *c = make_call("shell");
	struct verdict *v, *w;
	struct plan pl;
	(void)state;
	setenv("AIRLOCK_TEST_TOKEN", "s3cret", 1);
	tree_make(&t);
	p = load_ok(&t, "user=credentials.policy", 0);
	v = make_verdict(&t, "high", "cmd:git push origin main");
	policy_decide(p, c, v, 1000, &pl);
	assert_true(strv_contains(pl.env, "AIRLOCK_TEST_TOKEN=s3cret"));
	assert_non_null(pl.binds);
	assert_non_null(strstr(pl.binds[0], "/home/.config/gh/hosts.yml"));
	plan_clear(&pl);
	/* every command must match, or no command sees the secret */
	w = make_verdict(&t, "high", "cmd:git push origin main ; cmd:curl evil.example");
	policy_decide(p, c, w, 1000, &pl);
	assert_null(pl.env);
	assert_null(pl.binds);
	plan_clear(&pl);
	policy_free(p);
	tree_free(&t);
	/* a project file never grants one */
	tree_make(&t);
	p = load_ok(&t, "project=loosen.policy", 0);
	assert_int_equal(p->ncreds, 0);
	policy_free(p);
	verdict_free(v);
	verdict_free(w);
	call_free(c);
	tree_free(&t);
	unsetenv("AIRLOCK_TEST_TOKEN");
}

/* How many warnings the policy holds; each must say what was ignored. */
static int ignored_count(const struct policy *p)
{
	int n = 0;
	for (char *const *w = policy_warnings(p); w && *w; w++, n++)
		assert_non_null(strstr(*w, "ignored"));
	return n;
}

static void test_project_warnings(void **state)
{
	struct tree t;
	struct policy *p;
	(void)state;
	tree_make(&t);
	p = load_ok(&t, "project=loosen.policy", 0);
	assert_true(ignored_count(p) >= 10);
	assert_int_equal(policy_profile(p, "workspace")->network, false);
	assert_int_equal(policy_profile(p, "workspace")->show_secrets, false);
	assert_null(policy_profile(p, "workspace")->secrets_skip);
	assert_int_equal(p->tiers[TIER_MEDIUM].action, ACTION_AUTO);
	assert_string_equal(p->tiers[TIER_MEDIUM].profile, "workspace");
	assert_int_equal(p->unknown_tool, TIER_HIGH);
	policy_free(p);
	tree_free(&t);
	tree_make(&t);
	p = load_ok(&t, "project=stricter.policy", 0);
	assert_null(policy_warnings(p));
	assert_int_equal(policy_profile(p, "workspace")->memory, 1LL << 30);
	{
		struct classify_opts o = {0};
		policy_classify_opts(p, &o);
		assert_int_equal(o.unknown_tool, TIER_CRITICAL);
		assert_int_equal(o.unknown_program, TIER_MEDIUM);
	}
	policy_free(p);
	tree_free(&t);
}

/* A read-only grant can keep a path inside a writable one read-only: a
 * project may neither clear it nor move a tier to a profile without it. */
static void test_project_read_only(void **state)
{
	struct tree t;
	struct policy *p;
	(void)state;
	tree_make(&t);
	p = load_ok(&t, "user=readonly-user.policy,project=readonly-project.policy", 0);
	assert_int_equal(ignored_count(p), 2);
	assert_true(strv_contains(policy_profile(p, "guarded")->read_only, "/srv/proj/vendor"));
	assert_string_equal(p->tiers[TIER_MEDIUM].profile, "guarded");
	policy_free(p);
	tree_free(&t);
}

/* --policy FILE is above the project files: its tier profile stands even
 * when a project chose one before it (it was dropped for "looser" than the
 * default, and medium ran under workspace, a writable workdir). */
static void test_file_tier_profile(void **state)
{
	struct tree t;
	struct policy *p;
	(void)state;
	tree_make(&t);
	p = load_ok(&t, "project=tier-readonly.policy,file=tier-mine.policy", 0);
	assert_string_equal(p->tiers[TIER_MEDIUM].profile, "mine");
	assert_null(policy_warnings(p));
	policy_free(p);
	tree_free(&t);
}

/* rel from a table ("./x": in the workdir, "~/x": in home, "-": none). */
static char *table_path(const struct tree *t, const char *rel)
{
	if (strncmp(rel, "./", 2) == 0)
		return xasprintf("%s/%s", t->work, rel + 2);
	if (strncmp(rel, "~/", 2) == 0)
		return xasprintf("%s/%s", t->home, rel + 2);
	return strcmp(rel, "-") == 0 ? NULL : xstrdup(rel);
}

/* True when v is exactly the one path want, or empty when want is NULL. */
static bool just(char *const *v, const char *want)
{
	return want ? v && v[0] && strcmp(v[0], want) == 0 && !v[1] : v == NULL;
}

/* The paths deny = Read(...) and Edit(...) rules name whole go into every
 * profile's hide and keep lists, for the sandbox to mask or keep
 * read-only (`grep -r x .` read a denied directory, `tar xf` wrote one). */
static void test_hide_table(void **state)
{
	static const char *const names[] = {"readonly", "workspace", "approved"};
	struct tdata_row *rows;
	size_t n = tdata_load(DATA "hide.tsv", &rows);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct tree t;
		char *err = NULL, *text = xasprintf("[rules]\n\t%s\n", rows[i].f[0]);
		struct policy *p = load_text(&t, text, &err);
		char *hide = table_path(&t, rows[i].f[1]), *keep = table_path(&t, rows[i].f[2]);
		char *hglob = table_path(&t, rows[i].f[3]), *kglob = table_path(&t, rows[i].f[4]);

		if (p == NULL)
			fail_msg("line %zu: load failed: %s", rows[i].line, err);
		for (size_t k = 0; k < nitems(names); k++) {
			const struct profile *pr = policy_profile(p, names[k]);
			if (!just(pr->hide, hide) || !just(pr->keep, keep))
				fail_msg("line %zu: %s: profile %s hides [%s] keeps [%s], want [%s] [%s]",
				         rows[i].line, rows[i].f[0], names[k],
				         pr->hide ? pr->hide[0] : "", pr->keep ? pr->keep[0] : "",
				         hide ? hide : "", keep ? keep : "");
			if (!just(pr->hide_globs, hglob) || !just(pr->keep_globs, kglob))
				fail_msg("line %zu: %s: profile %s hide glob [%s] keep glob [%s], want "
				         "[%s] [%s]",
				         rows[i].line, rows[i].f[0], names[k],
				         pr->hide_globs ? pr->hide_globs[0] : "",
				         pr->keep_globs ? pr->keep_globs[0] : "", hglob ? hglob : "",
				         kglob ? kglob : "");
		}
		free(hide);
		free(keep);
		free(hglob);
		free(kglob);
		free(text);
		policy_free(p);
		tree_free(&t);
	}
	tdata_free(rows, n);
}

/* A profile that differs from another only in case, and that no tier uses,
 * changes nothing: said, not silent. */
static void test_profile_case(void **state)
{
	struct tree t;
	char *err = NULL;
	struct policy *p;
	(void)state;
	p = load_text(&t, "[profile \"Approved\"]\n\tsecrets = hide\n", &err);
	assert_non_null(p);
	assert_non_null(policy_warnings(p));
	assert_non_null(strstr(policy_warnings(p)[0], "did you mean [profile \"approved\"]"));
	assert_true(policy_profile(p, "approved")->show_secrets);
	policy_free(p);
	tree_free(&t);
	p = load_text(&t, "[tier \"low\"]\n\tprofile = Quiet\n[profile \"Quiet\"]\n"
	              "\tmemory = 1g\n[profile \"quiet\"]\n\tmemory = 2g\n", &err);
	assert_non_null(p);
	assert_non_null(policy_warnings(p)); /* quiet: unused, and Quiet is the one used */
	assert_non_null(strstr(policy_warnings(p)[0], "[profile \"quiet\"] changes nothing"));
	assert_null(policy_warnings(p)[1]);
	policy_free(p);
	tree_free(&t);
	/* the built-in no file touched is not the one said to change nothing */
	p = load_text(&t, "[tier \"low\"]\n\tprofile = Readonly\n[profile \"Readonly\"]\n"
	              "\tmemory = 1g\n", &err);
	assert_non_null(p);
	assert_null(policy_warnings(p));
	policy_free(p);
	tree_free(&t);
}

/* A deny or ask path with one leading slash is anchored at the workdir, as
 * in Claude Code: said, since one meant for the absolute path denied
 * nothing while `policy check` said ok. Allow rules and //abs stay quiet. */
static void test_anchor_warn(void **state)
{
	struct tree t;
	char *err = NULL;
	struct policy *p;
	(void)state;
	p = load_text(&t, "[rules]\n\tdeny = Read(/etc/shadow)\n\task = Edit(/srv/**)\n", &err);
	assert_non_null(p);
	assert_non_null(policy_warnings(p));
	assert_non_null(strstr(policy_warnings(p)[0], "write Read(//etc/shadow) for the absolute"));
	assert_non_null(strstr(policy_warnings(p)[1], "or Edit(./srv/**) to say so"));
	assert_null(policy_warnings(p)[2]);
	policy_free(p);
	tree_free(&t);
	p = load_text(&t, "[rules]\n\tdeny = Read(//etc/shadow)\n\tdeny = Read(./a/b)\n"
	              "\tallow = Edit(/src/**)\n\tdeny = Shell(/bin/rm *)\n", &err);
	assert_non_null(p);
	assert_null(policy_warnings(p));
	policy_free(p);
	tree_free(&t);
}

/* Warnings of patterns that mean other than they read (warn.tsv). */
static void row_warn(const struct tdata_row *r)
{
	struct tree t;
	char *err = NULL;
	struct policy *p = load_text(&t, r->f[0], &err);
	char *const *w;
	bool found = false;

	if (p == NULL)
		fail_msg("line %zu: %s", r->line, err);
	w = policy_warnings(p);
	for (size_t i = 0; w && w[i]; i++)
		found = found || strstr(w[i], r->f[1]) != NULL;
	if (strcmp(r->f[1], "-") == 0 ? w != NULL : !found)
		fail_msg("line %zu: want a warning with [%s], got [%s]", r->line, r->f[1],
		         w && w[0] ? w[0] : "none");
	policy_free(p);
	tree_free(&t);
}

static void test_warn_table(void **state)
{
	(void)state;
	table(DATA "warn.tsv", 5, row_warn);
}

static void test_digest(void **state)
{
	struct tree t;
	struct policy *p, *q;
	char *pat = NULL, *err = NULL, *d;
	struct call *c = make_call("shell");
	struct verdict *v;
	(void)state;
	tree_make(&t);
	p = load_ok(&t, "-", 0);
	q = load_ok(&t, "user=rules.policy", 0);
	assert_int_equal(strlen(policy_digest(p)), 64);
	assert_string_not_equal(policy_digest(p), policy_digest(q));
	d = xstrdup(policy_digest(p));
	v = make_verdict(&t, "high", "cmd:make test");
	assert_int_equal(policy_remember(p, c, v, &pat, &err), 0);
	assert_string_not_equal(policy_digest(p), d);
	free(d);
	free(pat);
	verdict_free(v);
	call_free(c);
	policy_free(p);
	policy_free(q);
	tree_free(&t);
}

/* The one kept policy file in the suite's state directory, as a new
 * string (NULL: none). */
static char *kept_policy_file(void)
{
	char *cmd = xasprintf("ls %s/airlock/policy/* 2>/dev/null", getenv("XDG_STATE_HOME"));
	FILE *f = popen(cmd, "r");
	char line[512], *out = NULL;

	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		out = xstrdup(line);
	}
	if (f)
		pclose(f);
	free(cmd);
	return out;
}

static void kept_policy_clear(void)
{
	char *cmd = xasprintf("rm -rf %s/airlock/policy", getenv("XDG_STATE_HOME"));
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Loads in a new process (forked before anything loaded libgit2): 0 when
 * it loaded without libgit2, 1 with it, 2 when it failed. */
static int load_in_child(struct tree *t)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		char *err, *maps;
		struct policy *p = tree_load_once(t, &err);
		maps = read_all("/proc/self/maps");
		_exit(p == NULL ? 2 : strstr(maps, "libgit2") ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WEXITSTATUS(status);
}

static char *bytes_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;
	struct buf b;

	assert_non_null(f);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(&b, chunk, n);
	fclose(f);
	return buf_take(&b, len);
}

static void bytes_write(const char *path, const char *data, size_t len, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* A policy file read once is kept: the next process applies it without
 * libgit2. Run before anything in this process loads libgit2. */
static void test_kept_no_libgit2(void **state)
{
	struct tree t;
	char *user;

	(void)state;
	kept_policy_clear();
	tree_make(&t);
	user = xasprintf("%s/.config/airlock/policy", t.home);
	write_file(user, "[tier \"low\"]\n\taction = ask\n[include]\n\tpath = inc\n", 0600);
	free(user);
	user = xasprintf("%s/.config/airlock/inc", t.home);
	write_file(user, "[rules]\n\tdeny = Shell(ls)\n", 0600);
	free(user);
	assert_int_equal(load_in_child(&t), 1); /* read, and kept */
	assert_int_equal(load_in_child(&t), 0); /* from what was kept */
	tree_free(&t);
}

/* The tier low's action as the tree's files load now, one load. */
static char *low_action(struct tree *t)
{
	char *err = NULL, *show, *sect, *at;
	struct policy *p = tree_load_once(t, &err);

	if (p == NULL)
		fail_msg("load failed: %s", err);
	show = show_text(p, false);
	sect = section_text(show, "[tier \"low\"]");
	at = strstr(sect, "action = ");
	at = at ? xstrndup(at + 9, strcspn(at + 9, "\n")) : xstrdup("-");
	free(sect);
	free(show);
	policy_free(p);
	return at;
}

/* What was kept never stands in for other text: a file changed in place
 * with its times put back, an included file changed, and a kept file that
 * is not private or is cut short, each read afresh. */
static void test_kept_changes(void **state)
{
	struct tree t;
	struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
	char *user, *inc, *kept, *a;

	(void)state;
	kept_policy_clear();
	tree_make(&t);
	user = xasprintf("%s/.config/airlock/policy", t.home);
	inc = xasprintf("%s/.config/airlock/inc", t.home);
	write_file(user, "[tier \"low\"]\n\taction = deny\n", 0600);
	assert_int_equal(utimensat(AT_FDCWD, user, old, 0), 0);
	assert_string_equal(a = low_action(&t), "deny"), free(a);
	assert_non_null(kept = kept_policy_file());
	/* the same size and times, another value */
	write_file(user, "[tier \"low\"]\n\taction = auto\n", 0600);
	assert_int_equal(utimensat(AT_FDCWD, user, old, 0), 0);
	assert_string_equal(a = low_action(&t), "auto"), free(a);
	/* an included file */
	write_file(user, "[include]\n\tpath = inc\n", 0600);
	write_file(inc, "[tier \"low\"]\n\taction = deny\n", 0600);
	assert_string_equal(a = low_action(&t), "deny"), free(a);
	write_file(inc, "[tier \"low\"]\n\taction = auto\n", 0600);
	assert_string_equal(a = low_action(&t), "auto"), free(a);
	/* a kept file that says deny where the file says auto: the state
	 * directory is trusted as the file is (a private one is taken, which
	 * shows the forgery reaches the policy), and only when it is private
	 * and whole */
	{
		size_t len;
		char *data = bytes_read(kept, &len), *at = NULL;
		for (char *p = data; (p = memmem(p, len - (size_t)(p - data), "auto", 4)); p++)
			at = p; /* the entry's value: after the file's own text */
		assert_non_null(at);
		memcpy(at, "deny", 4);
		bytes_write(kept, data, len, 0600);
		assert_string_equal(a = low_action(&t), "deny"), free(a);
		bytes_write(kept, data, len, 0644);
		assert_string_equal(a = low_action(&t), "auto"), free(a);
		bytes_write(kept, data, len - 1, 0600);
		assert_string_equal(a = low_action(&t), "auto"), free(a);
		/* read by another libgit2: the file it was loaded from has
		 * another stamp (an upgrade), or $LD_LIBRARY_PATH may find
		 * another one */
		char *lib = lazy_git_path(), *at_lib, *was = getenv("LD_LIBRARY_PATH");
		assert_non_null(lib);
		at_lib = memmem(data, len, lib, strlen(lib) + 1);
		assert_non_null(at_lib);
		was = was ? xstrdup(was) : NULL;
		bytes_write(kept, data, len, 0600);
		assert_int_equal(setenv("LD_LIBRARY_PATH", "/nonexistent", 1), 0);
		assert_string_equal(a = low_action(&t), "auto"), free(a);
		assert_int_equal(was ? setenv("LD_LIBRARY_PATH", was, 1) : unsetenv("LD_LIBRARY_PATH"), 0);
		free(was);
		bytes_write(kept, data, len, 0600);
		assert_string_equal(a = low_action(&t), "deny"), free(a);
		at_lib[strlen(lib) + 1 + 8] ^= 1; /* the inode */
		bytes_write(kept, data, len, 0600);
		assert_string_equal(a = low_action(&t), "auto"), free(a);
		free(lib);
		free(data);
	}
	free(kept);
	free(user);
	free(inc);
	tree_free(&t);
}

/* What the loads keep goes to the suite's own state directory. */
static char state_home[] = "/tmp/airlock-policy-state-XXXXXX";

static int state_setup(void **state)
{
	(void)state;
	return mkdtemp(state_home) && setenv("XDG_STATE_HOME", state_home, 1) == 0 ? 0 : -1;
}

static int state_teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", state_home);
	int rc = system(cmd);

	(void)state;
	free(cmd);
	return rc == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_file_no_libgit2), /* first: nothing loaded yet */
		cmocka_unit_test(test_kept_no_libgit2),    /* likewise */
		cmocka_unit_test(test_kept_changes),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_breakers),
		cmocka_unit_test(test_remember),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_permissions),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_save_rule),
		cmocka_unit_test(test_show_roundtrip),
		cmocka_unit_test(test_show_origins),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_project_warnings),
		cmocka_unit_test(test_project_read_only),
		cmocka_unit_test(test_file_tier_profile),
		cmocka_unit_test(test_profile_case),
		cmocka_unit_test(test_anchor_warn),
		cmocka_unit_test(test_warn_table),
		cmocka_unit_test(test_hide_table),
		cmocka_unit_test(test_digest),
	};
	return cmocka_run_group_tests(tests, state_setup, state_teardown);
}
