/*
 * memory.c: "always for this session" and "save": the narrowest pattern
 * that covers an approved call, kept in memory or appended to a policy file
 * with libgit2's config writer. Rules it keeps: never a bare interpreter,
 * shell or wrapper (python, bash -c, env, sudo, xargs, git on its own);
 * never a critical call; every suggested pattern is parsed back and must
 * match the call it came from, or nothing is remembered.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lazy.h"
#include "core/util.h"
#include "policy/policy_internal.h"

enum risk {
	RISK_WRAPPER, /* runs another command from its arguments or stdin: never */
	RISK_INTERP,  /* runs code: only with a script or code argument, exactly */
	RISK_BARE,    /* a multi-tool: only with a subcommand */
};

static const struct {
	const char *prog;
	enum risk risk;
} risky[] = {
	{"sudo", RISK_WRAPPER},    {"doas", RISK_WRAPPER},    {"su", RISK_WRAPPER},
	{"runuser", RISK_WRAPPER}, {"env", RISK_WRAPPER},     {"xargs", RISK_WRAPPER},
	{"nice", RISK_WRAPPER},    {"ionice", RISK_WRAPPER},  {"nohup", RISK_WRAPPER},
	{"timeout", RISK_WRAPPER}, {"stdbuf", RISK_WRAPPER},  {"time", RISK_WRAPPER},
	{"command", RISK_WRAPPER}, {"exec", RISK_WRAPPER},    {"eval", RISK_WRAPPER},
	{"builtin", RISK_WRAPPER}, {"watch", RISK_WRAPPER},   {"parallel", RISK_WRAPPER},
	{"setsid", RISK_WRAPPER},  {"chroot", RISK_WRAPPER},  {"unshare", RISK_WRAPPER},
	{"nsenter", RISK_WRAPPER}, {"strace", RISK_WRAPPER},  {"ltrace", RISK_WRAPPER},
	{"taskset", RISK_WRAPPER}, {"flock", RISK_WRAPPER},   {"busybox", RISK_WRAPPER},
	{"script", RISK_WRAPPER},  {"find", RISK_BARE},       {"python", RISK_INTERP},
	{"python2", RISK_INTERP},  {"python3", RISK_INTERP},  {"pypy", RISK_INTERP},
	{"pypy3", RISK_INTERP},    {"node", RISK_INTERP},     {"nodejs", RISK_INTERP},
	{"deno", RISK_INTERP},     {"bun", RISK_INTERP},      {"perl", RISK_INTERP},
	{"ruby", RISK_INTERP},     {"php", RISK_INTERP},      {"lua", RISK_INTERP},
	{"tclsh", RISK_INTERP},    {"Rscript", RISK_INTERP},  {"pwsh", RISK_INTERP},
	{"awk", RISK_INTERP},      {"gawk", RISK_INTERP},     {"bash", RISK_INTERP},
	{"sh", RISK_INTERP},       {"dash", RISK_INTERP},     {"zsh", RISK_INTERP},
	{"ksh", RISK_INTERP},      {"fish", RISK_INTERP},     {"csh", RISK_INTERP},
	{"tcsh", RISK_INTERP},     {"git", RISK_BARE},        {"npm", RISK_BARE},
	{"npx", RISK_BARE},        {"pnpm", RISK_BARE},       {"yarn", RISK_BARE},
	{"cargo", RISK_BARE},      {"go", RISK_BARE},         {"docker", RISK_BARE},
	{"podman", RISK_BARE},     {"kubectl", RISK_BARE},    {"pip", RISK_BARE},
	{"pip3", RISK_BARE},       {"make", RISK_BARE},       {"systemctl", RISK_BARE},
};

/* Looks a program up by basename, ignoring a version suffix (python3.11). */
static int risk_of(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	size_t n;

	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < nitems(risky); i++) {
		n = strlen(risky[i].prog);
		if (strncmp(base, risky[i].prog, n) == 0 &&
		    strspn(base + n, "0123456789.") == strlen(base + n))
			return (int)risky[i].risk;
	}
	return -1;
}

/* Refuses what must not be remembered; returns a new reason or NULL. */
static char *shell_refusal(char *const *argv)
{
	int risk = risk_of(argv[0]);
	bool operand = false;

	for (char *const *a = argv + 1; *a; a++)
		operand |= (*a)[0] != '-';
	if (risk == RISK_WRAPPER)
		return xasprintf("%s runs another command: approve the command it runs", argv[0]);
	if (risk == RISK_INTERP && !operand && argv[1] == NULL)
		return xasprintf("%s on its own is an interpreter reading code from its input",
		                 argv[0]);
	if (risk == RISK_INTERP && !operand)
		return xasprintf("%s without a script or code argument would allow any code",
		                 argv[0]);
	if (risk == RISK_BARE && argv[1] == NULL)
		return xasprintf("%s on its own is too broad to remember", argv[0]);
	return NULL;
}

/* A word for a Shell pattern: plain, or single-quoted (so globs are literal). */
static void put_word(struct buf *b, const char *w)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                            "0123456789._/=,+@%^-:";

	if (*w && strspn(w, plain) == strlen(w)) {
		buf_puts(b, w);
		return;
	}
	buf_append(b, "'", 1);
	for (; *w; w++)
		buf_puts(b, *w == '\'' ? "'\\''" : (char[]){*w, 0});
	buf_append(b, "'", 1);
}

/* Escapes glob characters for Read/Edit/Sql/Mcp patterns. */
static void put_literal(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (strchr("*?[\\", *s))
			buf_append(b, "\\", 1);
		buf_append(b, s, 1);
	}
}

/* True when an allow rule of the policy already covers this command. */
static bool command_allowed(const struct policy *p, char *const *argv)
{
	for (size_t i = 0; i < p->rules.n[PK_SHELL]; i++) {
		const struct rule *r = &p->rules.v[PK_SHELL][i];
		if ((r->act == RA_ALLOW || r->act == RA_ALLOW_CRITICAL) &&
		    pattern_match_command(&r->pat, argv))
			return true;
	}
	return false;
}

static int suggest_shell(const struct policy *p, const struct verdict *v, struct buf *b,
                         char **errstr)
{
	for (size_t i = 0; i < v->ncommands; i++) {
		char *const *argv = v->commands[i].argv;
		char *why;
		if (argv == NULL || argv[0] == NULL || command_allowed(p, argv))
			continue;
		if ((why = shell_refusal(argv)) != NULL) {
			*errstr = xasprintf("cannot remember this call: %s", why);
			free(why);
			return -1;
		}
		buf_puts(b, b->len ? "\nShell(" : "Shell(");
		for (char *const *a = argv; *a; a++) {
			if (a != argv)
				buf_append(b, " ", 1);
			put_word(b, *a);
		}
		buf_append(b, ")", 1);
	}
	return 0;
}

enum subject_form { FORM_PATH, FORM_HOST, FORM_SQL };

/* One pattern per string: Read(//abs), WebFetch(domain:host), Sql(text). */
static void suggest_each(char *const *v, const char *open, enum subject_form form,
                         struct buf *b)
{
	for (; v && *v; v++) {
		char *sql = form == FORM_SQL ? pattern_sql_normalize(*v) : NULL; /* as rules see it */
		const char *s = sql ? sql : *v;
		buf_printf(b, "%s%s", b->len ? "\n" : "", open);
		if (form == FORM_HOST) {
			size_t n = s[0] == '[' ? strcspn(s, "]") + 1 : strcspn(s, ":/");
			for (size_t i = 0; i < n && s[i]; i++)
				buf_printf(b, "%c", (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]));
		} else {
			for (; *s; s++) {
				if (strchr("*?[\\", *s))
					buf_append(b, "\\", 1);
				buf_append(b, s, 1);
			}
		}
		free(sql);
		buf_append(b, ")", 1);
	}
}

/* True when a string holds a control character: a line break would split
 * the suggestion (and the saved line) into several rules. */
static bool strv_has_control(char *const *v)
{
	for (; v && *v; v++)
		for (const char *s = *v; *s; s++)
			if ((unsigned char)*s < ' ' || *s == 0x7f)
				return true;
	return false;
}

/* The strings a suggestion is built from; SQL as pattern_sql_normalize()
 * gives it, which keeps a line break in a dollar quote (a body's -- comment
 * ends there). */
static bool subjects_have_control(const struct call *c, const struct verdict *v)
{
	bool found = strv_has_control(v->reads) || strv_has_control(v->writes) ||
	             strv_has_control(v->hosts);

	for (size_t i = 0; i < v->ncommands && !found; i++)
		found = strv_has_control(v->commands[i].argv);
	for (char *const *q = v->statements; q && *q && !found; q++) {
		char *sql = pattern_sql_normalize(*q); /* as suggest_each writes it */
		found = strv_has_control((char *[]){sql, NULL});
		free(sql);
	}
	if (c->name && strncmp(c->name, "mcp:", 4) == 0)
		found = found || strv_has_control((char *[]){c->name, NULL});
	return found;
}

/*
 * Subjects whose rule would cover more than the call: a host that is not a
 * plain name (*.example.com would become every subdomain), a path that is a
 * directory (a rule for it covers everything inside). Returns a new reason.
 */
static char *broader_subject(const struct call *c, const struct verdict *v)
{
	static const char host_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                 "0123456789.-_:[]";
	char *const *paths = c->tool == TOOL_READ_FILE ? v->reads
	                     : c->tool == TOOL_WRITE_FILE || c->tool == TOOL_EDIT_FILE ? v->writes
	                                                                                 : NULL;
	struct stat st;

	for (char *const *h = c->tool == TOOL_HTTP ? v->hosts : NULL; h && *h; h++)
		if (strspn(*h, host_chars) != strlen(*h))
			return xasprintf("%s is not a plain host name, and its rule would cover "
			                 "others", *h);
	for (; paths && *paths; paths++)
		if (stat(*paths, &st) == 0 && S_ISDIR(st.st_mode))
			return xasprintf("%s is a directory, and its rule would cover everything "
			                 "inside it", *paths);
	return NULL;
}

static int suggest_by_tool(const struct policy *p, const struct call *c,
                           const struct verdict *v, struct buf *b, char **errstr)
{
	char *why;

	if (subjects_have_control(c, v)) {
		*errstr = xstrdup("cannot remember this call: it holds a line break or another "
		                  "control character, which would split the pattern into other "
		                  "rules");
		return -1;
	}
	if ((why = broader_subject(c, v)) != NULL) {
		*errstr = xasprintf("cannot remember this call: %s", why);
		free(why);
		return -1;
	}
	switch (c->tool) {
	case TOOL_SHELL: return suggest_shell(p, v, b, errstr);
	case TOOL_READ_FILE: suggest_each(v->reads, "Read(/", FORM_PATH, b); break;
	case TOOL_WRITE_FILE:
	case TOOL_EDIT_FILE: suggest_each(v->writes, "Edit(/", FORM_PATH, b); break;
	case TOOL_HTTP: suggest_each(v->hosts, "WebFetch(domain:", FORM_HOST, b); break;
	case TOOL_SQL: suggest_each(v->statements, "Sql(", FORM_SQL, b); break;
	case TOOL_OTHER:
		if (c->name && strncmp(c->name, "mcp:", 4) == 0) {
			buf_puts(b, "Mcp(");
			put_literal(b, c->name + 4);
			buf_append(b, ")", 1);
		}
		break;
	}
	return 0;
}

/* Parses the suggested patterns into rs and checks they cover the call. */
static int verify(const struct policy *p, const char *text, const struct call *c,
                  const struct verdict *v, struct ruleset *rs, char **errstr)
{
	char *copy = xstrdup(text), *save = NULL;
	int rc = -1;

	for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		struct pattern pat;
		if (pattern_parse(t, p->workdir, p->home, &pat, errstr) < 0)
			goto out;
		if (ruleset_add(rs, RA_ALLOW, &pat, p->session_origin) < 0) {
			pattern_clear(&pat);
			*errstr = xasprintf("more than %d rules", POLICY_MAX_RULES);
			goto out;
		}
	}
	for (size_t i = 0; c->tool == TOOL_SHELL && i < v->ncommands; i++) {
		struct verdict one = {.commands = &v->commands[i], .ncommands = 1};
		if (!command_allowed(p, v->commands[i].argv) &&
		    ruleset_cover(rs, RA_BIT(RA_ALLOW), c, &one) == NULL)
			goto mismatch;
	}
	if (c->tool != TOOL_SHELL && ruleset_cover(rs, RA_BIT(RA_ALLOW), c, v) == NULL)
		goto mismatch;
	rc = 0;
	goto out;
mismatch:
	*errstr = xasprintf("the suggested pattern does not match the call: %s (a bug: "
	                    "nothing was remembered)", text);
out:
	free(copy);
	return rc;
}

/* Builds the suggestion and parses it into rs; returns it or NULL. */
static char *suggest(const struct policy *p, const struct call *c, const struct verdict *v,
                     struct ruleset *rs, char **errstr)
{
	struct rule_result rr;
	struct buf b;
	char *text = NULL;

	if (v->tier == TIER_CRITICAL) {
		*errstr = xstrdup("cannot remember a critical call: it is approved one at a time "
		                  "(an allow-critical rule in a policy file is the only way)");
		return NULL;
	}
	policy_rules_decide(p, c, v, &rr);
	if (rr.deny || rr.ask) {
		const struct rule *r = rr.deny ? rr.deny : rr.ask;
		*errstr = xasprintf("cannot remember this call: rule %s = %s decides it, and an "
		                    "allow rule would not change that",
		                    r->act == RA_DENY ? "deny" : "ask", r->pat.text);
		return NULL;
	}
	if (rr.guarded) {
		*errstr = xasprintf("cannot remember this call: %s (%s), and only an "
		                    "allow-critical rule in a policy file lowers that",
		                    rr.guarded_why, rr.guarded);
		return NULL;
	}
	if (c->tool == TOOL_SHELL && rr.unexplained) {
		*errstr = xasprintf("cannot remember this call: %s is outside its commands (a "
		                    "wrapper like sudo, or a redirection), and a rule for the "
		                    "commands would not cover it", rr.unexplained);
		return NULL;
	}
	buf_init(&b, 64 * 1024);
	if (suggest_by_tool(p, c, v, &b, errstr) < 0)
		goto out;
	if (b.len == 0 || b.truncated) {
		*errstr = b.truncated ? xstrdup("cannot remember this call: the pattern would be "
		                                "longer than 64 KiB")
		                      : xasprintf("cannot remember this call: no %s rule form covers "
		                                  "it", c->name ? c->name : tool_name(c->tool));
		goto out;
	}
	text = buf_take(&b, NULL);
	if (verify(p, text, c, v, rs, errstr) < 0) {
		free(text);
		text = NULL;
	}
out:
	buf_free(&b);
	return text;
}

char *policy_suggest_pattern(const struct policy *p, const struct call *c,
                             const struct verdict *v, char **errstr)
{
	struct ruleset rs = {0};
	char *text = suggest(p, c, v, &rs, errstr);

	ruleset_clear(&rs);
	return text;
}

/* Moves every rule of from into to. */
static int ruleset_merge(struct policy *p, struct ruleset *from, int origin)
{
	for (int k = 0; k < PK_COUNT; k++) {
		for (size_t i = 0; i < from->n[k]; i++) {
			if (ruleset_add(&p->rules, from->v[k][i].act, &from->v[k][i].pat, origin) < 0)
				return -1;
			p->nrules++;
		}
	}
	return 0;
}

int policy_remember(struct policy *p, const struct call *c, const struct verdict *v,
                    char **pattern_out, char **errstr)
{
	struct ruleset rs = {0};
	char *text = suggest(p, c, v, &rs, errstr);
	int rc = -1;

	*pattern_out = NULL;
	if (text == NULL)
		goto out;
	if (ruleset_merge(p, &rs, p->session_origin) < 0) {
		*errstr = xasprintf("cannot remember: more than %d rules", POLICY_MAX_RULES);
		free(text);
		goto out;
	}
	p->digest[0] = '\0';
	*pattern_out = text;
	rc = 0;
out:
	ruleset_clear(&rs);
	return rc;
}

/* "^<text as a literal>$" for git_config_set_multivar: an existing equal
 * rule is replaced by itself, so saving twice writes one line. */
static char *regex_literal(const char *s)
{
	struct buf b;

	buf_init(&b, 0);
	buf_append(&b, "^", 1);
	for (; *s; s++) {
		if (strchr(".[]{}()\\*+?^$|", *s))
			buf_append(&b, "\\", 1);
		buf_append(&b, s, 1);
	}
	buf_append(&b, "$", 1);
	return buf_take(&b, NULL);
}

/* libgit2 1.5 writes a value as given (quoting it only for # and ;), so
 * backslashes and quotes are escaped here or the file would not read back. */
static char *config_escape(const char *s)
{
	struct buf b;

	buf_init(&b, 0);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_append(&b, "\\", 1);
		buf_append(&b, s, 1);
	}
	return b.data ? buf_take(&b, NULL) : xstrdup("");
}

/* mkdir -p for the file's directory, then creates the file 0644 if absent. */
static int file_prepare(const char *path, char **errstr)
{
	char *dir = xstrdup(path);
	int fd, rc = -1;

	for (char *s = dir + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			*errstr = xasprintf("cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno != EEXIST) {
		*errstr = xasprintf("cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	if (fd >= 0) {
		if (fchmod(fd, 0644) < 0) { /* whatever the umask said */
			*errstr = xasprintf("cannot chmod %s: %s", path, strerror(errno));
			close(fd);
			goto out;
		}
		close(fd);
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/* Appends each line of text as rules.allow through libgit2's writer. */
static int file_append(const char *path, const char *text, char **errstr)
{
	const struct lazy_git *g = NULL;
	git_config *cfg = NULL;
	char *copy = xstrdup(text), *save = NULL;
	struct stat st;
	bool exists;
	int rc = -1;

	if (file_prepare(path, errstr) < 0 ||
	    policy_check_file_mode(path, true, &exists, errstr) < 0 || stat(path, &st) < 0 ||
	    (g = lazy_git(errstr)) == NULL)
		goto out;
	if (g->git_config_open_ondisk(&cfg, path) < 0)
		goto gitfail;
	for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		char *re = regex_literal(t), *val = config_escape(t);
		int r = g->git_config_set_multivar(cfg, "rules.allow", re, val);
		free(re);
		free(val);
		if (r < 0)
			goto gitfail;
	}
	/* libgit2 writes a new file and renames it: keep the safe mode we checked */
	if (chmod(path, st.st_mode & 0755) < 0) {
		*errstr = xasprintf("cannot chmod %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
	goto out;
gitfail:
	*errstr = xasprintf("cannot write %s: %s", path,
	                    g->git_error_last() ? g->git_error_last()->message : "libgit2 failed");
out:
	if (cfg)
		g->git_config_free(cfg);
	free(copy);
	return rc;
}

int policy_save_rule(struct policy *p, const char *pattern, bool project, char **errstr)
{
	struct ruleset rs = {0};
	char *path = NULL, *copy = xstrdup(pattern), *save = NULL;
	int rc = -1, origin;

	if (project && !p->trust_project) {
		*errstr = xstrdup(p->workdir_guessed
		                      ? "the project was guessed from the agent's cwd, so its file "
		                        "cannot allow anything: save to the user file"
		                      : "a project file cannot allow anything unless the user file "
		                        "sets trust-project = true under [policy]: save to the user "
		                        "file");
		goto out;
	}
	for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		struct pattern pat;
		if (pattern_parse(t, p->workdir, p->home, &pat, errstr) < 0)
			goto out;
		if (ruleset_add(&rs, RA_ALLOW, &pat, 0) < 0) {
			pattern_clear(&pat);
			*errstr = xasprintf("more than %d rules", POLICY_MAX_RULES);
			goto out;
		}
	}
	path = project ? xasprintf("%s/.airlock/policy", p->workdir)
	               : xasprintf("%s/.config/airlock/policy", p->home);
	if (file_append(path, pattern, errstr) < 0)
		goto out;
	origin = project ? p->project_layer : p->user_layer;
	if (origin < 0) {
		origin = policy_origin_add(p, path);
		*(project ? &p->project_layer : &p->user_layer) = origin;
	}
	if (ruleset_merge(p, &rs, origin) < 0) {
		*errstr = xasprintf("saved, but cannot apply: more than %d rules", POLICY_MAX_RULES);
		goto out;
	}
	p->digest[0] = '\0';
	rc = 0;
out:
	ruleset_clear(&rs);
	free(path);
	free(copy);
	return rc;
}
