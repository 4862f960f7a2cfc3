/*
 * rules.c: rule patterns in Claude Code's permission syntax, parsed once and
 * matched against what the classifier found. Rules MUST match every command
 * of a shell call to allow it (`safe && other` is not `safe`); a deny or ask
 * rule fires when it matches any command, path, host, statement or tool.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "policy/policy_internal.h"

#define MAX_WORDS 64
#define MAX_SEGS 128

/*
 * The forms, and Claude Code's other file tools as the reads and writes
 * airlock judges them by (the hook maps Grep, Glob and LS to reads of their
 * paths, NotebookEdit and MultiEdit to writes): a pasted `deny =
 * Grep(./secret)` stopped the gate as a bad pattern. Those take paths
 * only: bare, `allow = Grep` would be `allow = Read`, every path read.
 */
static const struct {
	const char *name;
	enum pattern_kind kind;
	bool needs_inner;
} tool_forms[] = {
	{"Shell", PK_SHELL, false}, {"Bash", PK_SHELL, false},  {"Read", PK_READ, false},
	{"Edit", PK_EDIT, false},   {"Write", PK_EDIT, false},  {"WebFetch", PK_HOST, false},
	{"Sql", PK_SQL, false},     {"Mcp", PK_MCP, false},     {"Glob", PK_READ, true},
	{"Grep", PK_READ, true},    {"LS", PK_READ, true},      {"NotebookEdit", PK_EDIT, true},
	{"MultiEdit", PK_EDIT, true},
};

/* Claude Code tools with no subject here: they reach airlock as unknown
 * tools (tier high). A rule naming one is an error that says so, never a
 * rule dropped in silence. */
static const char *const subjectless_tools[] = {"WebSearch", "Task", "TodoWrite",
                                                "ExitPlanMode", "BashOutput", "KillShell",
                                                "SlashCommand", "Agent"};

static const char *const kind_names[PK_COUNT] = {"Shell", "Read", "Edit", "WebFetch", "Sql",
                                                 "Mcp"};

const char *pattern_kind_name(enum pattern_kind k)
{
	return (unsigned)k < PK_COUNT ? kind_names[k] : "?";
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* A cheap filter: most Shell rules name a program, most commands differ. */
static uint32_t word_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h | 1;
}

/* Appends one character of a word, escaped for fnmatch when it was quoted. */
static void word_put(struct buf *glob, struct buf *lit, char ch, bool quoted)
{
	if (quoted && strchr("*?[\\", ch))
		buf_append(glob, "\\", 1);
	buf_append(glob, &ch, 1);
	buf_append(lit, &ch, 1);
}

/* Reads one shell-like word at *sp into w; returns 0, 1 at the end, -1 on error. */
static int word_next(const char **sp, struct pword *w, bool *prefix, char **errstr)
{
	const char *s = *sp;
	struct buf glob, lit;
	char quote = 0;
	bool quoted_any = false;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return 1;
	buf_init(&glob, POLICY_MAX_PATTERN);
	buf_init(&lit, POLICY_MAX_PATTERN);
	for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '\'' || *s == '"')) {
			quote = *s;
			quoted_any = true;
		} else if (*s == '\\' && s[1] && quote != '\'') {
			word_put(&glob, &lit, *++s, true);
		} else {
			word_put(&glob, &lit, *s, quote != 0);
		}
	}
	*sp = s;
	if (quote) {
		*errstr = xasprintf("unterminated %c quote", quote);
		buf_free(&glob);
		buf_free(&lit);
		return -1;
	}
	if (!quoted_any && glob.len >= 2 && *s == '\0' &&
	    strcmp(glob.data + glob.len - 2, ":*") == 0) {
		*prefix = true;
		glob.data[glob.len -= 2] = '\0';
		lit.data[lit.len -= 2] = '\0';
	}
	w->any = !quoted_any && strcmp(glob.data ? glob.data : "", "*") == 0;
	w->glob = buf_take(&glob, NULL);
	if (w->glob == NULL)
		w->glob = xstrdup("");
	w->lit = has_glob(w->glob) ? NULL : xstrdup(w->glob);
	buf_free(&lit);
	return 0;
}

/* An option word as a pattern or a command writes it: -x, -rf, --name. */
static bool option_word(const char *w)
{
	return w && w[0] == '-' && w[1] != '\0' && strcmp(w, "--") != 0;
}

/* Finds the pattern's first run of literal option words after literal words
 * (git reset --hard *, rm -rf *), for flags_match. */
static void flags_find(struct pattern *pat)
{
	size_t i = 1;

	while (i < pat->nwords && pat->words[i].lit && !option_word(pat->words[i].lit))
		i++;
	if (i == pat->nwords || !option_word(pat->words[i].lit))
		return;
	pat->flag_at = i;
	for (pat->flag_end = i; pat->flag_end < pat->nwords; pat->flag_end++)
		if (!option_word(pat->words[pat->flag_end].lit))
			break;
}

/* Whether a word ends in an unquoted `*` glued to other text ("push*",
 * not a lone "*", not "'push*'"): an even run of backslashes before it. */
static bool star_end(const struct pword *w)
{
	size_t n = strlen(w->glob), k = 0;

	if (w->any || w->lit || n < 2 || w->glob[n - 1] != '*')
		return false;
	while (k + 1 < n && w->glob[n - 2 - k] == '\\')
		k++;
	return k % 2 == 0;
}

/* The end of the bracket expression opening at g[i] ('['), past its ']';
 * or i + 1 when it has none (a lone '[' is itself, as to fnmatch). */
static size_t bracket_end(const char *g, size_t i)
{
	size_t k = i + 1;

	if (g[k] == '!' || g[k] == '^')
		k++;
	if (g[k] == ']')
		k++;
	for (const char *cls; g[k] && g[k] != ']'; k++)
		if (g[k] == '[' && g[k + 1] == ':' && (cls = strstr(g + k + 2, ":]")) != NULL)
			k = (size_t)(cls - g) + 1; /* [:alpha:]: its ] closes the class only */
	return g[k] == ']' ? k + 1 : i + 1;
}

/* The length of the glob token at g[i]: "\x", "[...]" or one byte. */
static size_t glob_token(const char *g, size_t i)
{
	if (g[i] == '\\' && g[i + 1])
		return 2;
	return g[i] == '[' ? bracket_end(g, i) - i : 1;
}

/* Whether a word's glob holds a `*` that Claude Code would let span words
 * and words_match() keeps in its word: any but a last word's final one. */
static bool star_inside(const struct pword *w, bool last)
{
	size_t n = strlen(w->glob);

	if (w->any || w->lit)
		return false;
	for (size_t i = 0; i < n; i += glob_token(w->glob, i))
		if (w->glob[i] == '*' && !(last && i == n - 1))
			return true;
	return false;
}

/* Sets pat->span when a word holds such a `*` (see struct pattern). */
static void span_find(struct pattern *pat)
{
	struct buf b;
	bool inside = false;

	for (size_t i = 0; i < pat->nwords; i++)
		inside |= star_inside(&pat->words[i], i + 1 == pat->nwords);
	if (!inside)
		return;
	buf_init(&b, 0);
	for (size_t i = 0; i < pat->nwords; i++)
		buf_printf(&b, "%s%s", i ? " " : "", pat->words[i].glob);
	if (pat->prefix)
		buf_puts(&b, "*");
	pat->span = buf_take(&b, NULL);
}

static int parse_shell(const char *in, struct pattern *pat, char **errstr)
{
	const char *s = in;
	struct pword w;
	int r;

	for (;;) {
		memset(&w, 0, sizeof(w));
		r = word_next(&s, &w, &pat->prefix, errstr);
		if (r != 0)
			break;
		if (w.glob[0] == '\0' && w.lit && pat->prefix) {
			free(w.glob);
			free(w.lit);
			continue; /* a lone ":*" after the last word */
		}
		if (pat->nwords == MAX_WORDS) {
			free(w.glob);
			free(w.lit);
			*errstr = xasprintf("more than %d words", MAX_WORDS);
			return -1;
		}
		pat->words = xreallocarray(pat->words, pat->nwords + 1, sizeof(*pat->words));
		pat->words[pat->nwords++] = w;
	}
	if (r < 0)
		return -1;
	if (pat->nwords == 0) {
		*errstr = xstrdup("no command in the pattern");
		return -1;
	}
	if (pat->words[0].lit && !pat->words[0].any)
		pat->head = word_hash(pat->words[0].lit);
	pat->star_end = !pat->prefix && star_end(&pat->words[pat->nwords - 1]);
	flags_find(pat);
	span_find(pat);
	return 0;
}

/* Splits "a/b/c" onto segs, resolving "." and ".."; returns -1 past MAX_SEGS. */
static int segs_push_path(struct pattern *pat, const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0) {
			if (pat->nsegs > 0)
				free(pat->segs[--pat->nsegs]);
			continue;
		}
		if (pat->nsegs == MAX_SEGS) {
			rc = -1;
			break;
		}
		pat->segs = xreallocarray(pat->segs, pat->nsegs + 1, sizeof(*pat->segs));
		pat->segs[pat->nsegs++] = xstrdup(t);
	}
	free(copy);
	return rc;
}

/* gitignore-style anchoring: //abs, ~/home, ./ or a slash: the workdir,
 * a bare name: any depth under the workdir. */
static int parse_path(const char *in, const char *workdir, const char *home,
                      struct pattern *pat, char **errstr)
{
	const char *rest = in;
	int rc = 0;

	if (strncmp(in, "//", 2) == 0) {
		rest = in + 2;
	} else if (strcmp(in, "~") == 0 || strncmp(in, "~/", 2) == 0) {
		rc = segs_push_path(pat, home);
		rest = in + 1;
	} else {
		size_t n = strlen(in);
		bool slash = memchr(in, '/', n && in[n - 1] == '/' ? n - 1 : n) != NULL;
		rc = segs_push_path(pat, workdir);
		if (rc == 0 && !slash)
			rc = segs_push_path(pat, "**");
	}
	if (rc < 0 || segs_push_path(pat, rest) < 0) {
		*errstr = xasprintf("more than %d path segments", MAX_SEGS);
		return -1;
	}
	pat->segglob = xcalloc(pat->nsegs + 1, sizeof(*pat->segglob));
	for (size_t i = 0; i < pat->nsegs; i++)
		pat->segglob[i] = has_glob(pat->segs[i]);
	return 0;
}

/*
 * An address in any spelling curl accepts (2130706433, 0x7f.1, 127.1,
 * ::ffff:127.0.0.1, 0:0::1) -> its canonical text, in place, so a rule for
 * 169.254.169.254 holds however the agent writes it.
 */
static void host_canonical_ip(char *h, size_t size)
{
	struct in_addr a4;
	struct in6_addr a6;
	char out[INET6_ADDRSTRLEN];

	if (strchr(h, ':') == NULL) {
		if (inet_aton(h, &a4) == 0 || inet_ntop(AF_INET, &a4, out, sizeof(out)) == NULL)
			return;
	} else if (inet_pton(AF_INET6, h, &a6) != 1 ||
	           inet_ntop(IN6_IS_ADDR_V4MAPPED(&a6) ? AF_INET : AF_INET6,
	                     IN6_IS_ADDR_V4MAPPED(&a6) ? (void *)&a6.s6_addr[12] : (void *)&a6,
	                     out, sizeof(out)) == NULL) {
		return;
	}
	if (strlen(out) < size)
		memcpy(h, out, strlen(out) + 1);
}

static int parse_host(const char *in, struct pattern *pat, char **errstr)
{
	if (strncmp(in, "domain:", 7) != 0 || in[7] == '\0') {
		*errstr = xstrdup("WebFetch takes domain:HOST");
		return -1;
	}
	in += 7;
	if (strncmp(in, "*.", 2) == 0) {
		pat->subdomains = true;
		in += 2;
	}
	pat->glob = in[0] == '[' ? xstrndup(in + 1, strcspn(in + 1, "]")) : xstrdup(in);
	for (char *q = pat->glob; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	for (size_t n = strlen(pat->glob); n > 1 && pat->glob[n - 1] == '.';)
		pat->glob[--n] = '\0'; /* example.com. is example.com */
	if (strlen(pat->glob) < INET6_ADDRSTRLEN) {
		char ip[INET6_ADDRSTRLEN];
		memcpy(ip, pat->glob, strlen(pat->glob) + 1);
		host_canonical_ip(ip, sizeof(ip));
		free(pat->glob);
		pat->glob = xstrdup(ip);
	}
	/* hosts are compared whole: a port, user, scheme or path would never
	 * match, and a deny rule that never matches must not load quietly */
	if (strspn(pat->glob, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != strlen(pat->glob) &&
	    inet_pton(AF_INET6, pat->glob, &(struct in6_addr){0}) != 1) {
		*errstr = xasprintf("WebFetch takes domain:HOST, and \"%s\" is not a host name "
		                    "(no scheme, user, port, path or glob but a leading *.; an "
		                    "international name in its xn-- form)", in);
		return -1;
	}
	return 0;
}

/* A byte of an unquoted name or keyword (a '$' ends one here: $$BEGIN). */
static bool sql_ident(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || (unsigned char)ch >= 0x80;
}

/* Length of the opening of a string literal at s ('...', E'...' with
 * backslash escapes, U&'...' with escapes of its own), or 0; *esc: E'. */
static size_t sql_string_open(const char *s, bool *esc)
{
	*esc = (s[0] == 'E' || s[0] == 'e') && s[1] == '\'';
	if (s[0] == '\'')
		return 1;
	if (*esc)
		return 2;
	return (s[0] == 'U' || s[0] == 'u') && s[1] == '&' && s[2] == '\'' ? 3 : 0;
}

/* Length of a dollar quote's tag at s ($$, $tag$: a name's bytes, not a
 * digit first), or 0. */
static size_t sql_dollar_tag(const char *s)
{
	size_t w = 0;

	if (s[0] != '$' || isdigit((unsigned char)s[1]))
		return 0;
	while (w < 64 && s[1 + w] != '$' && sql_ident(s[1 + w]))
		w++;
	return s[1 + w] == '$' ? w + 2 : 0;
}

/* Length of the text of the dollar quote at s (its tag tag bytes long): up
 * to the closing tag, or to the end. */
static size_t sql_dollar_len(const char *s, size_t tag)
{
	const char *t = s + tag;

	while (*t && strncmp(t, s, tag) != 0)
		t++;
	return (size_t)(t - s) - tag;
}

/* Length of a comment at s (-- to the line's end, or slash-star to its close), or 0. */
static size_t sql_comment(const char *s)
{
	const char *end;

	if (s[0] == '-' && s[1] == '-')
		return strcspn(s, "\n\r"); /* PostgreSQL ends it at either */
	if (s[0] != '/' || s[1] != '*')
		return 0;
	end = strstr(s + 2, "*/");
	return end ? (size_t)(end + 2 - s) : strlen(s);
}

/* Collapses whitespace, and comments outside quotes, to one space (in a
 * quote, whitespace with a line break to one line break: the quote may be
 * code whose own -- comments end there), trims them and a trailing ';': a
 * comment must not hide a DELETE from a rule. Caller frees. */
char *pattern_sql_normalize(const char *s)
{
	struct buf b;
	bool space = false, esc = false, line = false;
	char quote = 0;
	const char *tag = NULL; /* in a dollar quote: its opening */
	size_t tagn = 0;

	buf_init(&b, 0);
	for (; *s; s++) {
		size_t n = quote || tag ? 0 : sql_comment(s), q;
		if (isspace((unsigned char)*s) || n > 0) { /* in quotes too, as before */
			s += n ? n - 1 : 0;
			space = b.len > 0;
			/* a code string's own -- comments end there */
			line = line || ((tag || quote) && (*s == '\n' || *s == '\r'));
			continue;
		}
		if (space)
			buf_append(&b, line ? "\n" : " ", 1);
		space = line = false;
		if (tag) { /* $q$--$q$ is a string, not a comment hiding the rest */
			n = strncmp(s, tag, tagn) == 0 ? tagn : 1;
			tag = n == tagn ? NULL : tag;
			buf_append(&b, s, n);
			s += n - 1;
			continue;
		}
		if ((n = sql_dollar_tag(s)) != 0 && (b.len == 0 || !sql_ident(b.data[b.len - 1]))) {
			tag = s;
			tagn = n;
			buf_append(&b, s, n);
			s += n - 1;
			continue;
		}
		if (quote) { /* E'\'' holds a quote, so does 'it''s' (read as two) */
			n = esc && *s == '\\' && s[1] ? 2 : 1;
			quote = n == 1 && *s == quote ? 0 : quote;
			buf_append(&b, s, n);
			s += n - 1;
			continue;
		}
		q = sql_string_open(s, &esc);
		if (q > 1 && b.len > 0 && sql_ident(b.data[b.len - 1]))
			q = 0; /* the E of a name */
		esc = esc && q;
		quote = q ? '\'' : strchr("\"`", *s) ? *s : 0;
		buf_append(&b, s, q ? q : 1);
		s += q ? q - 1 : 0;
	}
	while (b.len > 0 && (b.data[b.len - 1] == ';' || b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	return b.data ? buf_take(&b, NULL) : xstrdup("");
}

static int parse_mcp(const char *in, struct pattern *pat)
{
	pat->glob = strchr(in, '.') ? xstrdup(in) : xasprintf("%s.*", in);
	return 0;
}

/* mcp__server__tool (Claude Code's MCP form) -> Mcp(server.tool). */
static char *mcp_form(const char *text)
{
	const char *sep;

	if (strncmp(text, "mcp__", 5) != 0 || text[5] == '\0')
		return NULL;
	text += 5;
	sep = strstr(text, "__");
	if (sep == NULL)
		return xasprintf("%s.*", text);
	return xasprintf("%.*s.%s", (int)(sep - text), text, sep + 2);
}

static int parse_inner(const char *inner, const char *workdir, const char *home,
                       struct pattern *pat, char **errstr)
{
	switch (pat->kind) {
	case PK_SHELL: return parse_shell(inner, pat, errstr);
	case PK_READ:
	case PK_EDIT: return parse_path(inner, workdir, home, pat, errstr);
	case PK_HOST: return parse_host(inner, pat, errstr);
	case PK_SQL: pat->glob = pattern_sql_normalize(inner); return 0;
	case PK_MCP: return parse_mcp(inner, pat);
	}
	return -1; /* fail safe */
}

/* Splits "Tool(inner)" into the kind and a new copy of inner (NULL when bare). */
static int split_form(const char *text, enum pattern_kind *kind, char **inner)
{
	size_t n = strcspn(text, "("), len = strlen(text);

	for (size_t i = 0; i < nitems(tool_forms); i++) {
		if (strlen(tool_forms[i].name) != n || strncmp(tool_forms[i].name, text, n) != 0)
			continue;
		*kind = tool_forms[i].kind;
		if (text[n] == '\0')
			return tool_forms[i].needs_inner ? -1 : 0;
		if (text[len - 1] != ')' || len - n < 3)
			return -1;
		*inner = xstrndup(text + n + 1, len - n - 2);
		return 0;
	}
	return -1;
}

/*
 * True when the parentheses of a pattern's inner text pair up (outside
 * quotes for Shell and Sql; a backslash escapes in Shell). A typo such as
 * `deny = Bash(rm -rf:*))` loaded as a rule for the word "-rf:*)" and
 * denied nothing; `Read(a (1).txt)` and `Sql(SELECT count(*) FROM t)` pair.
 */
static bool parens_pair(const char *s, enum pattern_kind kind)
{
	bool quotes = kind == PK_SHELL || kind == PK_SQL;
	long depth = 0;
	char q = 0;

	for (; *s && depth >= 0; s++) {
		if (q) {
			if (*s == q)
				q = 0;
			else if (*s == '\\' && q == '"' && kind == PK_SHELL && s[1])
				s++;
		} else if (quotes && (*s == '\'' || *s == '"')) {
			q = *s;
		} else if (*s == '\\' && kind == PK_SHELL && s[1]) {
			s++;
		} else {
			depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
		}
	}
	return depth == 0;
}

/* Why a rule naming a tool airlock has no subject for cannot be loaded
 * (a new string), or NULL. */
static char *subjectless_why(const char *text)
{
	size_t n = strcspn(text, "(");

	for (size_t i = 0; i < nitems(subjectless_tools); i++)
		if (strlen(subjectless_tools[i]) == n && strncmp(text, subjectless_tools[i], n) == 0)
			return xasprintf("airlock has no rule form for Claude Code's %s: it reaches "
			                 "the gate as an unknown tool, tier high, asked about by "
			                 "default; leave the line out",
			                 subjectless_tools[i]);
	return NULL;
}

int pattern_parse(const char *text, const char *workdir, const char *home,
                  struct pattern *out, char **errstr)
{
	char *inner = NULL, *mcp = NULL, *why = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	while (isspace((unsigned char)*text))
		text++;
	out->text = xstrdup(text);
	for (size_t n = strlen(out->text); n > 0 && isspace((unsigned char)out->text[n - 1]);)
		out->text[--n] = '\0';
	if (strlen(out->text) > POLICY_MAX_PATTERN) {
		why = xasprintf("longer than %d bytes", POLICY_MAX_PATTERN);
	} else if ((mcp = mcp_form(out->text)) != NULL) {
		out->kind = PK_MCP;
		out->glob = mcp;
		mcp = NULL;
		rc = 0;
	} else if ((why = subjectless_why(out->text)) != NULL) {
		/* said why */
	} else if (split_form(out->text, &out->kind, &inner) < 0) {
		why = xstrdup("expected Shell(...), Bash(...), Read(...), Edit(...), Write(...), "
		              "WebFetch(domain:...), Sql(...) or Mcp(server.tool); Glob(path), "
		              "Grep(path) and LS(path) as Read, NotebookEdit(path) and "
		              "MultiEdit(path) as Edit (bare, they would name every path)");
	} else if (inner == NULL) {
		out->all = true;
		rc = 0;
	} else if (!parens_pair(inner, out->kind)) {
		why = xstrdup("its parentheses do not pair (one ) too many at the end?)");
	} else {
		rc = parse_inner(inner, workdir ? workdir : "/", home ? home : "/", out, &why);
	}
	if (rc < 0) {
		*errstr = xasprintf("bad pattern \"%s\": %s", out->text, why ? why : "invalid");
		pattern_clear(out);
	}
	free(why);
	free(inner);
	return rc;
}

void pattern_clear(struct pattern *pat)
{
	for (size_t i = 0; i < pat->nwords; i++) {
		free(pat->words[i].glob);
		free(pat->words[i].lit);
	}
	for (size_t i = 0; i < pat->nsegs; i++)
		free(pat->segs[i]);
	free(pat->words);
	free(pat->segs);
	free(pat->segglob);
	free(pat->glob);
	free(pat->span);
	free(pat->text);
	memset(pat, 0, sizeof(*pat));
}

int ruleset_add(struct ruleset *rs, enum rule_act act, struct pattern *pat, int origin)
{
	size_t total = 0;
	struct rule *r;

	for (int k = 0; k < PK_COUNT; k++)
		total += rs->n[k];
	if (total >= POLICY_MAX_RULES)
		return -1;
	rs->v[pat->kind] = xreallocarray(rs->v[pat->kind], rs->n[pat->kind] + 1, sizeof(*r));
	if (pat->kind == PK_SHELL) {
		struct rule_index *ix = pat->head ? &rs->bucket[pat->head % SHELL_BUCKETS] : &rs->wild;
		ix->v = xreallocarray(ix->v, ix->n + 1, sizeof(*ix->v));
		ix->v[ix->n++] = (uint32_t)rs->n[PK_SHELL];
	}
	r = &rs->v[pat->kind][rs->n[pat->kind]++];
	r->act = act;
	r->pat = *pat;
	r->origin = origin;
	memset(pat, 0, sizeof(*pat));
	return 0;
}

void ruleset_clear(struct ruleset *rs)
{
	for (int k = 0; k < PK_COUNT; k++) {
		for (size_t i = 0; i < rs->n[k]; i++)
			pattern_clear(&rs->v[k][i].pat);
		free(rs->v[k]);
	}
	for (size_t b = 0; b < SHELL_BUCKETS; b++)
		free(rs->bucket[b].v);
	free(rs->wild.v);
	memset(rs, 0, sizeof(*rs));
}

/* Matching ---------------------------------------------------------------- */

/*
 * Matches a sequence where "any" elements (a lone `*` word, a `**` segment)
 * take zero or more items and the others exactly one: greedy, going back to
 * the last "any" on a mismatch, so at most n * m comparisons. (Recursion on
 * every "any" took minutes for a pattern of 24 `*` words on a 40-word
 * command, and a project file may add deny rules.) open_end: the pattern
 * may stop before the items do (a prefix rule, a directory).
 */
struct seq {
	size_t n;
	bool open_end;
	bool (*any)(const struct pattern *pat, size_t i);
	bool (*one)(const struct pattern *pat, size_t i, const char *item);
};

static bool seq_any(const struct seq *q, const struct pattern *pat, size_t i)
{
	return i == q->n ? q->open_end : q->any(pat, i);
}

static bool seq_match(const struct seq *q, const struct pattern *pat, char *const *items,
                      size_t count)
{
	size_t m = q->n + (q->open_end ? 1 : 0), i = 0, j = 0, star = SIZE_MAX, mark = 0;

	while (j < count) {
		if (i < m && seq_any(q, pat, i)) {
			star = i++;
			mark = j;
		} else if (i < q->n && q->one(pat, i, items[j])) {
			i++;
			j++;
		} else if (star != SIZE_MAX) {
			i = star + 1;
			j = ++mark;
		} else {
			return false;
		}
	}
	while (i < m && seq_any(q, pat, i))
		i++;
	return i == m;
}

static bool word_any(const struct pattern *pat, size_t i)
{
	return pat->words[i].any;
}

static bool word_one(const struct pattern *pat, size_t i, const char *item)
{
	const struct pword *w = &pat->words[i];
	return w->lit ? strcmp(w->lit, item) == 0 : fnmatch(w->glob, item, 0) == 0;
}

/* open: the pattern may stop before the command's words do, as after `:*` */
static bool words_match(const struct pattern *pat, char *const *argv, bool open)
{
	const struct seq q = {pat->nwords, pat->prefix || open, word_any, word_one};
	return seq_match(&q, pat, argv, strv_len(argv));
}

/* Whether one option of a pattern (-x, one letter of a cluster, or
 * --name) is among the command's option words v[0..n). */
static bool flag_given(const char *flag, char letter, char *const *v, size_t n)
{
	size_t len = strlen(flag);

	for (size_t i = 0; i < n; i++) {
		if (!option_word(v[i]))
			continue;
		if (letter && v[i][1] != '-' && strchr(v[i] + 1, letter))
			return true;
		if (!letter && strncmp(v[i], flag, len) == 0 &&
		    (v[i][len] == '\0' || v[i][len] == '='))
			return true;
	}
	return false;
}

/*
 * For deny and ask rules: a run of options in the pattern (rm -rf *, git
 * reset --hard *) matches the command's options as a set, wherever they
 * stand before a "--" and however short ones are clustered: rm -fr x, rm
 * -r -f x, rm -rfv x and rm x -rf are all rm -rf x to it, and git reset -q
 * --hard HEAD is git reset --hard HEAD. The words before the run must be
 * the command's first words; the words after it meet the command's other
 * words (an option's value may stand among them, so a literal there can
 * fail to meet: a miss, never a wider allow). A longer word with one dash
 * (find's -delete) is matched whole, not as letters (-maxdepth and -ls
 * hold d, e, l, t). Spellings of the same option (-f, --force) are the
 * program's business and are not matched.
 */
static bool flags_match(const struct pattern *pat, char *const *argv)
{
	size_t n = strv_len(argv), dash, k = 0;
	struct pattern tail = *pat;
	char **rest;
	bool m = true;

	if (pat->flag_at == 0 || n < pat->flag_at)
		return false;
	for (size_t i = 0; i < pat->flag_at; i++)
		if (!word_one(pat, i, argv[i]))
			return false;
	for (dash = pat->flag_at; dash < n && strcmp(argv[dash], "--") != 0; dash++)
		;
	for (size_t i = pat->flag_at; i < pat->flag_end && m; i++) {
		const char *f = pat->words[i].lit;
		bool cluster = f[1] != '-' && strlen(f) <= 3; /* -rf; not find's -delete */
		if (!cluster)
			m = flag_given(f, 0, argv + pat->flag_at, dash - pat->flag_at);
		for (const char *c = f + 1; cluster && *c && m; c++)
			m = flag_given(f, *c, argv + pat->flag_at, dash - pat->flag_at);
	}
	if (!m)
		return false;
	rest = xcalloc(n + 1, sizeof(*rest));
	for (size_t i = pat->flag_at; i < n; i++)
		if (i > dash || (i < dash && !option_word(argv[i])))
			rest[k++] = argv[i];
	tail.words = pat->words + pat->flag_end;
	tail.nwords = pat->nwords - pat->flag_end;
	m = tail.nwords == 0 ? pat->prefix || k == 0 : words_match(&tail, rest, tail.star_end);
	free(rest);
	return m;
}

/* Whether the glob token g[0..len) (see glob_token) matches the byte c. */
static bool token_match(const char *g, size_t len, char c)
{
	char one[2] = {c, '\0'}, *tok;
	bool m;

	if (len == 1)
		return g[0] == '?' || g[0] == c;
	if (g[0] == '\\')
		return g[1] == c;
	tok = xstrndup(g, len); /* a bracket expression: fnmatch reads its classes */
	m = fnmatch(tok, one, 0) == 0;
	free(tok);
	return m;
}

/* Whether the star-free piece g[0..glen) matches t from its start; each
 * token takes one byte, so *ntok is the length it takes. */
static bool piece_at(const char *g, size_t glen, const char *t, size_t *ntok)
{
	size_t k = 0;

	for (size_t j = 0; j < glen; j += glob_token(g, j), k++)
		if (t[k] == '\0' || !token_match(g + j, glob_token(g, j), t[k]))
			return false;
	*ntok = k;
	return true;
}

/* The number of tokens in the piece g[0..glen): the bytes it takes. */
static size_t piece_len(const char *g, size_t glen)
{
	size_t k = 0;

	for (size_t j = 0; j < glen; j += glob_token(g, j))
		k++;
	return k;
}

/*
 * Whether t matches the glob g, where `*` spans any bytes, spaces too.
 * Each piece between stars is taken at its leftmost place (the greedy walk
 * is exact for `*`, and linear in t per piece), where fnmatch() backtracks
 * over every star: a project's deny rule of many stars must not hold a
 * call for minutes. `?` and a bracket take one byte, not one character.
 */
static bool span_match(const char *g, const char *t)
{
	size_t n = strlen(g), tn = strlen(t), at = 0, i = 0, took;
	bool first = true;

	for (;;) {
		size_t end = i, len;
		while (end < n && g[end] != '*')
			end += glob_token(g, end);
		len = piece_len(g + i, end - i);
		if (end == n && first)
			return len == tn && piece_at(g + i, end - i, t, &took);
		if (end == n) /* the last piece ends the text */
			return tn - at >= len && piece_at(g + i, end - i, t + tn - len, &took);
		if (first && !piece_at(g + i, end - i, t, &took))
			return false;
		if (!first) {
			size_t p = at;
			while (p + len <= tn && !piece_at(g + i, end - i, t + p, &took))
				p++;
			if (p + len > tn)
				return false;
			at = p;
		}
		at += len;
		first = false;
		i = end + 1;
	}
}

/* span_match() over the command's words joined by single spaces. */
static bool span_match_argv(const char *g, char *const *argv)
{
	struct buf b;
	bool m;

	buf_init(&b, 0);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
	buf_puts(&b, "");
	m = span_match(g, b.data);
	buf_free(&b);
	return m;
}

bool pattern_match_command(const struct pattern *pat, char *const *argv)
{
	if (pat->kind != PK_SHELL || argv == NULL || argv[0] == NULL)
		return false;
	return pat->all || words_match(pat, argv, false);
}

static bool seg_any(const struct pattern *pat, size_t i)
{
	return pat->segglob[i] && strcmp(pat->segs[i], "**") == 0;
}

static bool seg_one(const struct pattern *pat, size_t i, const char *item)
{
	return pat->segglob[i] ? fnmatch(pat->segs[i], item, 0) == 0
	                       : strcmp(pat->segs[i], item) == 0;
}

/*
 * A segment of a path the shell has yet to expand (cat .e*): a deny or ask
 * rule meets it when the glob could expand to the rule's segment, as bash
 * expands it (no leading dot unless written); two globs are assumed to meet.
 */
static bool seg_one_unexpanded(const struct pattern *pat, size_t i, const char *item)
{
	if (!has_glob(item))
		return seg_one(pat, i, item);
	return pat->segglob[i] || fnmatch(item, pat->segs[i], FNM_PERIOD) == 0;
}

/* The pattern matches the path or one of its parents (a directory rule
 * covers what is inside it); expand: the path's globs may expand (above). */
static bool segs_match(const struct pattern *pat, char *const *segs, size_t n, bool expand)
{
	const struct seq q = {pat->nsegs, true, seg_any,
	                      expand ? seg_one_unexpanded : seg_one};
	return seq_match(&q, pat, segs, n);
}

/* A path split in place into segments. */
struct split {
	char *buf;
	char *segs[MAX_SEGS];
	size_t n;
	bool ok; /* false: too deep to match safely */
};

static void split_path(const char *path, struct split *sp)
{
	char *save = NULL;

	sp->buf = xstrdup(path);
	sp->n = 0;
	sp->ok = path[0] == '/';
	for (char *t = strtok_r(sp->buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (sp->n == MAX_SEGS) {
			sp->ok = false;
			break;
		}
		sp->segs[sp->n++] = t;
	}
}

bool pattern_match_path(const struct pattern *pat, const char *path)
{
	struct split sp;
	bool m;

	if ((pat->kind != PK_READ && pat->kind != PK_EDIT) || path == NULL)
		return false;
	if (pat->all)
		return true;
	split_path(path, &sp);
	m = sp.ok && segs_match(pat, sp.segs, sp.n, false);
	free(sp.buf);
	return m;
}

/*
 * "Host:port" or "[v6]:port" -> the host curl connects to, into out: percent-
 * escapes decoded (curl decodes evil%2ecom), lower case, trailing dots gone.
 * Returns false when it cannot be compared with certainty: a byte that no
 * host name holds, non-ASCII above all (curl maps non-ASCII hosts through
 * IDNA, so fullwidth letters are plain ones), or a host too long to hold.
 */
static bool host_clean(const char *h, char *out, size_t size)
{
	const char *end;
	size_t n, k = 0;
	bool sure = true;

	if (h[0] == '[') {
		h++;
		end = strchr(h, ']');
	} else {
		end = strchr(h, ':');
		if (end && strchr(end + 1, ':'))
			end = NULL; /* a bare IPv6 address */
	}
	n = end ? (size_t)(end - h) : strlen(h);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)h[i];
		if (ch == '%' && i + 2 < n && hex_digit((unsigned char)h[i + 1]) >= 0 &&
		    hex_digit((unsigned char)h[i + 2]) >= 0) {
			ch = (unsigned char)(hex_digit((unsigned char)h[i + 1]) * 16 +
			                     hex_digit((unsigned char)h[i + 2]));
			i += 2;
		}
		sure = sure && ch && (isalnum(ch) || strchr(".-_:%", ch)) && k + 1 < size;
		if (k + 1 < size)
			out[k++] = (char)tolower(ch);
	}
	while (k > 1 && out[k - 1] == '.')
		k--;
	out[k] = '\0';
	host_canonical_ip(out, size);
	return sure;
}

static bool host_match(const struct pattern *pat, const char *host)
{
	size_t hl = strlen(host), gl = strlen(pat->glob);

	if (pat->all || strcmp(host, pat->glob) == 0)
		return true;
	return pat->subdomains && hl > gl && host[hl - gl - 1] == '.' &&
	       strcmp(host + hl - gl, pat->glob) == 0;
}

/* One subject, prepared once and matched against every rule of its kind. */
struct subject {
	enum pattern_kind kind;
	char *const *argv;   /* PK_SHELL */
	uint32_t head;       /* PK_SHELL: word_hash(argv[0]) */
	struct split path;   /* PK_READ, PK_EDIT */
	const char *text;    /* host, statement, mcp name */
	bool unsure;         /* cannot be compared with certainty (see rule_match) */
	bool globbed;        /* a path with glob characters the shell may expand */
};

/* A subject that cannot be compared with certainty (a path too deep to
 * split, a host curl may map through IDNA) meets every deny and ask rule
 * of its kind and no allow rule but a bare one: fail closed. */
static bool rule_match(const struct rule *r, const struct subject *s)
{
	const struct pattern *pat = &r->pat;

	if (pat->all)
		return true;
	if (s->unsure)
		return r->act == RA_DENY || r->act == RA_ASK;
	switch (s->kind) {
	case PK_SHELL: /* Claude Code's `*` spans words: deny = Bash(git push*)
	                * loaded, and git push origin main met no word glob; nor
	                * did deny = Bash(curl*evil*) meet curl https://evil.test */
		if (r->act != RA_DENY && r->act != RA_ASK)
			return words_match(pat, s->argv, false);
		return words_match(pat, s->argv, pat->star_end) || flags_match(pat, s->argv) ||
		       (pat->span && span_match_argv(pat->span, s->argv));
	case PK_READ:
	case PK_EDIT: return segs_match(pat, s->path.segs, s->path.n,
	                                s->globbed && (r->act == RA_DENY || r->act == RA_ASK));
	case PK_HOST: return host_match(pat, s->text);
	case PK_SQL: return fnmatch(pat->glob, s->text, FNM_CASEFOLD) == 0;
	case PK_MCP: return fnmatch(pat->glob, s->text, 0) == 0;
	}
	return false;
}

/* What a walk over the subjects found. */
struct evaluation {
	const struct rule *any[RA_COUNT]; /* first rule of each act matching any subject */
	const struct rule *cover;         /* allow|allow-critical over every primary subject */
	const struct rule *cover_crit;    /* allow-critical over every primary subject */
	const struct rule *cover_ask;     /* ask-|allow-critical over every primary subject */
	bool cover_ok, crit_ok, ask_ok;   /* still possible */
	size_t nprimary;
	unsigned mask;
	const struct finding *unexplained; /* shell: a finding outside every command */
};

/* Matches one rule unless an earlier one of its act already matched. */
static void eval_rule(const struct rule *r, const struct subject *s, unsigned mask,
                      unsigned *seen, const struct rule **first)
{
	if (!(mask & RA_BIT(r->act)) || (*seen & RA_BIT(r->act)) ||
	    (r->pat.head && r->pat.head != s->head) || !rule_match(r, s))
		return;
	*seen |= RA_BIT(r->act);
	first[r->act] = r;
}

/* Shell rules: the command's bucket and the wildcard rules, in file order. */
static void eval_shell(const struct ruleset *rs, const struct subject *s, unsigned mask,
                       unsigned *seen, const struct rule **first)
{
	const struct rule_index *b = &rs->bucket[s->head % SHELL_BUCKETS], *w = &rs->wild;
	size_t i = 0, j = 0;

	while (i < b->n || j < w->n) {
		uint32_t k = j == w->n || (i < b->n && b->v[i] < w->v[j]) ? b->v[i++] : w->v[j++];
		eval_rule(&rs->v[PK_SHELL][k], s, mask, seen, first);
	}
}

static void eval_subject(const struct ruleset *rs, const struct subject *s, bool primary,
                         struct evaluation *ev)
{
	const struct rule *first[RA_COUNT] = {0};
	unsigned seen = 0;

	if (s->kind == PK_SHELL)
		eval_shell(rs, s, ev->mask, &seen, first);
	else
		for (size_t i = 0; i < rs->n[s->kind]; i++)
			eval_rule(&rs->v[s->kind][i], s, ev->mask, &seen, first);
	for (int a = 0; a < RA_COUNT; a++)
		if (ev->any[a] == NULL)
			ev->any[a] = first[a];
	if (!primary)
		return;
	ev->nprimary++;
	if (!(seen & (RA_BIT(RA_ALLOW) | RA_BIT(RA_ALLOW_CRITICAL))))
		ev->cover_ok = false;
	else if (ev->cover == NULL)
		ev->cover = first[RA_ALLOW] ? first[RA_ALLOW] : first[RA_ALLOW_CRITICAL];
	if (!(seen & RA_BIT(RA_ALLOW_CRITICAL)))
		ev->crit_ok = false;
	else if (ev->cover_crit == NULL)
		ev->cover_crit = first[RA_ALLOW_CRITICAL];
	if (!(seen & (RA_BIT(RA_ASK_CRITICAL) | RA_BIT(RA_ALLOW_CRITICAL))))
		ev->ask_ok = false;
	else if (ev->cover_ask == NULL) /* none when allow-critical covers all: it decides */
		ev->cover_ask = first[RA_ASK_CRITICAL];
}

/* Evaluates a second form of a subject against the deny and ask rules only
 * (a rule that stops a call must see through a spelling; allow must not). */
static void eval_stop_only(const struct ruleset *rs, const struct subject *s,
                           struct evaluation *ev)
{
	const unsigned mask = ev->mask;

	ev->mask = mask & (RA_BIT(RA_DENY) | RA_BIT(RA_ASK));
	if (ev->mask)
		eval_subject(rs, s, false, ev);
	ev->mask = mask;
}

/* Offset of the quote closing a string literal whose text starts at s ('' is
 * a quote inside it, so is \' when esc), or of the end of s. */
static size_t sql_string_close(const char *s, bool esc)
{
	size_t i = 0;

	for (; s[i]; i++) {
		if (esc && s[i] == '\\' && s[i + 1])
			i++;
		else if (s[i] == '\'' && s[i + 1] == '\'')
			i++;
		else if (s[i] == '\'')
			break;
	}
	return i;
}

static bool sql_word_is(const char *s, const char *const *words, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t w = strlen(words[k]);
		if (strncasecmp(s, words[k], w) == 0 && !sql_ident(s[w]))
			return true;
	}
	return false;
}

/*
 * True when what EXECUTE runs at s is one literal (a string or a dollar
 * quote, maybe in parentheses, followed by the statement's end, ")", USING,
 * INTO or LOOP) or no string at all (EXECUTE FUNCTION, GRANT EXECUTE ON). Else
 * it is SQL built at run time ('DR' || 'OP ...', format(...), a variable).
 */
static bool sql_exec_known(const char *s)
{
	static const char *const after[] = {"USING", "INTO", "LOOP"};
	static const char *const none[] = {"IMMEDIATE", "FUNCTION", "PROCEDURE", "ON"};
	size_t q, tag;
	bool esc;

	if (sql_word_is(s, none, nitems(none)))
		return true;
	if (*s == '(')
		s += 1 + (s[1] == ' ');
	if ((q = sql_string_open(s, &esc)) != 0) {
		s += q + sql_string_close(s + q, esc);
		s += *s != '\0';
	} else if ((tag = sql_dollar_tag(s)) != 0) {
		s += tag + sql_dollar_len(s, tag);
		s += *s ? tag : 0;
	} else {
		return false;
	}
	s += *s == ' ';
	return *s == '\0' || *s == ';' || *s == ')' || sql_word_is(s, after, nitems(after));
}

/* Where a statement holds more SQL (sql_scan). */
struct sql_inner {
	size_t *at, n, cap;  /* offsets where SQL may start */
	size_t (*str)[3];    /* code strings: offset of the text, its length, the
	                      * length of its opening (sql_string_open; 0: $$) */
	size_t nstr, capstr;
	bool dynamic;        /* an EXECUTE of SQL built at run time */
};

static void sql_inner_start(struct sql_inner *in, size_t at)
{
	if (in->n == in->cap)
		in->at = xreallocarray(in->at, in->cap = in->cap ? in->cap * 2 : 16,
		                       sizeof(*in->at));
	in->at[in->n++] = at;
}

static void sql_inner_string(struct sql_inner *in, size_t off, size_t len, size_t open)
{
	if (in->nstr == in->capstr)
		in->str = xreallocarray(in->str, in->capstr = in->capstr ? in->capstr * 2 : 4,
		                        sizeof(*in->str));
	in->str[in->nstr][0] = off;
	in->str[in->nstr][1] = len;
	in->str[in->nstr++][2] = open;
}

/*
 * Where SQL may start inside a statement: after "(" and ")", after ";"
 * (inside a body), after the words that lead into another statement
 * (PREPARE x AS, EXPLAIN ANALYZE, a rule's DO INSTEAD, plpgsql's BEGIN,
 * THEN, ELSE, LOOP, BEGIN ATOMIC). Listed for the caller to read as SQL of
 * their own: dollar quotes ($$, $f1$: a function's or DO block's body, or
 * a string a function runs) and code strings: what EXECUTE runs, a body
 * after AS ('DROP TABLE t' LANGUAGE sql) and every string of a DO statement
 * (DO 'BEGIN ... END'), E'' and U&'' too. Other strings are data ('delete
 * me' is no DELETE); identifiers in double quotes and backticks are
 * skipped. in_body: s is code run later (a string, not the call).
 */
static void sql_scan(const char *s, bool in_body, struct sql_inner *in)
{
	static const char *const leads[] = {"INSTEAD", "ALSO", "EXPLAIN", "ANALYZE",
	                                    "VERBOSE", "BEGIN", "ATOMIC", "THEN", "ELSE",
	                                    "LOOP", /* last, those a code string may follow: */
	                                    "AS", "DO", "EXECUTE", "IMMEDIATE"};
	bool do_stmt = strncasecmp(s, "DO ", 3) == 0; /* until its $$ body */
	size_t code_at = SIZE_MAX;

	for (size_t i = 0; s[i]; i++) {
		size_t at = 0, q, w;
		bool esc;
		q = sql_string_open(s + i, &esc);
		if (q > 1 && i > 0 && sql_ident(s[i - 1]))
			q = 0; /* the E of a name */
		if (q != 0) {
			size_t len = sql_string_close(s + i + q, esc);
			if (do_stmt || i == code_at)
				sql_inner_string(in, i + q, len, q);
			i += q + len - (s[i + q + len] == '\0');
			continue;
		}
		if (s[i] == '"' || s[i] == '`') {
			const char *close = strchr(s + i + 1, s[i]);
			i = close ? (size_t)(close - s) : strlen(s) - 1;
			continue;
		}
		if (strchr("();", s[i])) {
			at = i + 1;
		} else if ((i == 0 || !sql_ident(s[i - 1])) && (w = sql_dollar_tag(s + i)) != 0) {
			size_t len = sql_dollar_len(s + i, w); /* a body, or a string */
			sql_inner_string(in, i + w, len, 0);
			i += w + len + (s[i + w + len] ? w : 0) - 1;
			do_stmt = false;
			continue;
		} else if ((i == 0 || !sql_ident(s[i - 1])) && isalpha((unsigned char)s[i])) {
			for (w = 0; sql_ident(s[i + w]); w++)
				;
			for (size_t k = 0; k < nitems(leads) && !sql_ident(s[i + w]); k++) {
				if (strlen(leads[k]) != w || strncasecmp(s + i, leads[k], w) != 0)
					continue;
				at = i + w;
				if (k < nitems(leads) - 4)
					continue;
				code_at = at + (s[at] == ' ');
				code_at += s[code_at] == '(' ? 1 + (s[code_at + 1] == ' ') : 0;
				if (k >= nitems(leads) - 2 && in_body && i > 0 &&
				    !sql_exec_known(s + at + (s[at] == ' ')))
					in->dynamic = true; /* EXECUTE q, EXECUTE 'DR' || 'OP' */
			}
			i += w - 1;
		}
		if (at == 0)
			continue;
		sql_inner_start(in, at + (s[at] == ' '));
	}
}

/*
 * The SQL a code string holds: '' is a quote, and in E'' the escapes that
 * stand for a character or a space. NULL when it cannot be read with
 * certainty here: another escape (E'\x44ROP' is DROP), a U&'' string.
 * Caller frees.
 */
static char *sql_code_text(const char *s, size_t len, size_t open)
{
	static const char plain[] = "\\'", space[] = "tbf", line[] = "nr";
	struct buf b;

	if (open == 3)
		return NULL;
	if (open == 0) /* a dollar quote holds its text as it is */
		return xstrndup(s, len);
	buf_init(&b, 0);
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		bool next = i + 1 < len && s[i + 1] != '\0';
		if (ch == '\'' || (open == 2 && ch == '\\' && next && strchr(plain, s[i + 1])))
			ch = s[++i];
		else if (open == 2 && ch == '\\' && next && strchr(space, s[i + 1]))
			ch = ' ', i++;
		else if (open == 2 && ch == '\\' && next && strchr(line, s[i + 1]))
			ch = '\n', i++; /* ends a -- comment */
		else if (open == 2 && ch == '\\') {
			buf_free(&b);
			return NULL;
		}
		buf_append(&b, &ch, 1);
	}
	return b.data ? buf_take(&b, NULL) : xstrdup("");
}

/* Whether a deny or ask rule on SQL is still unmatched (else there is
 * nothing to look for); meet: SQL that cannot be read with certainty, so
 * every such rule meets it. */
static bool sql_stop_left(const struct ruleset *rs, struct evaluation *ev, bool meet)
{
	bool left = false;

	for (size_t i = 0; i < rs->n[PK_SQL] && (meet || !left); i++) {
		const struct rule *r = &rs->v[PK_SQL][i];
		if ((r->act != RA_DENY && r->act != RA_ASK) || !(ev->mask & RA_BIT(r->act)) ||
		    ev->any[r->act] != NULL)
			continue;
		left = true;
		if (meet)
			ev->any[r->act] = r;
	}
	return left;
}

#define SQL_NEST_MAX 4

/*
 * A deny or ask rule also meets the SQL a statement holds, so `deny =
 * Sql(DELETE *)` stops `WITH d AS (DELETE FROM t RETURNING *) SELECT 1`,
 * `EXPLAIN ANALYZE DELETE FROM t`, `PREPARE p AS DELETE ...`, a DO block,
 * `dblink_exec($$DELETE ...$$)` and `EXECUTE 'DELETE ...'`. A rule that
 * starts with * meets the whole statement already; one that starts with a
 * literal is tried only where a start begins with it, so the cost stays
 * linear in the statement. A code string is read as a statement of its own
 * (depth: how deep in strings norm is); SQL built at run time, or nested
 * deeper than SQL_NEST_MAX, meets every rule.
 */
static void eval_sql_inner(const struct ruleset *rs, const char *norm, int depth,
                           struct evaluation *ev)
{
	struct sql_inner in = {0};

	if (depth > SQL_NEST_MAX) {
		sql_stop_left(rs, ev, true);
		return;
	}
	if (!sql_stop_left(rs, ev, false))
		return;
	sql_scan(norm, depth > 0, &in);
	if (in.dynamic) {
		sql_stop_left(rs, ev, true);
		goto out;
	}
	if (depth > 0)
		sql_inner_start(&in, 0);
	for (size_t i = 0; i < rs->n[PK_SQL]; i++) {
		const struct rule *r = &rs->v[PK_SQL][i];
		size_t lit = r->pat.glob ? strcspn(r->pat.glob, "*?[\\") : 0;
		if ((r->act != RA_DENY && r->act != RA_ASK) || !(ev->mask & RA_BIT(r->act)) ||
		    ev->any[r->act] != NULL || r->pat.all || (r->pat.glob[0] == '*' && depth == 0))
			continue;
		if (r->pat.glob[0] == '*') { /* a code string: a statement of its own */
			ev->any[r->act] = fnmatch(r->pat.glob, norm, FNM_CASEFOLD) == 0 ? r : NULL;
			continue;
		}
		for (size_t k = 0; k < in.n && ev->any[r->act] == NULL; k++)
			if ((lit == 0 || strncasecmp(norm + in.at[k], r->pat.glob, lit) == 0) &&
			    fnmatch(r->pat.glob, norm + in.at[k], FNM_CASEFOLD) == 0)
				ev->any[r->act] = r;
	}
	for (size_t k = 0; k < in.nstr; k++) {
		char *text = sql_code_text(norm + in.str[k][0], in.str[k][1], in.str[k][2]), *inner;
		if (text == NULL) {
			sql_stop_left(rs, ev, true);
			continue;
		}
		inner = pattern_sql_normalize(text);
		eval_sql_inner(rs, inner, depth + 1, ev);
		free(inner);
		free(text);
	}
out:
	free(in.at);
	free(in.str);
}

static void eval_strings(const struct ruleset *rs, enum pattern_kind k, char *const *v,
                         bool primary, struct evaluation *ev)
{
	char host[256];

	if (rs->n[k] == 0) { /* nothing to match: a primary subject stays uncovered */
		size_t n = strv_len(v);
		ev->nprimary += primary ? n : 0;
		if (primary && n)
			ev->cover_ok = ev->crit_ok = ev->ask_ok = false;
		return;
	}
	for (; v && *v; v++) {
		struct subject s = {.kind = k};
		char *norm = NULL;
		if (k == PK_READ || k == PK_EDIT) {
			split_path(*v, &s.path);
			s.unsure = !s.path.ok;
			s.globbed = has_glob(*v);
		} else if (k == PK_HOST) {
			s.unsure = !host_clean(*v, host, sizeof(host));
			s.text = host;
		} else {
			s.text = norm = pattern_sql_normalize(*v);
		}
		eval_subject(rs, &s, primary, ev);
		if (k == PK_SQL)
			eval_sql_inner(rs, norm, 0, ev);
		free(s.path.buf);
		free(norm);
	}
}

/* A span holds another; length 0 is the whole call. */
static bool span_holds(struct span outer, struct span in)
{
	if (outer.len == 0)
		return true;
	return in.len != 0 && in.off >= outer.off && in.off + in.len <= outer.off + outer.len;
}

/*
 * An allow rule vouches for what its commands do, nothing else: a finding
 * above low outside every command (sudo around it, a redirection, something
 * spanning several commands) keeps the call from being allowed.
 */
static const struct finding *unexplained(const struct verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++) {
		bool held = false;
		if (v->findings[i].tier == TIER_LOW)
			continue;
		for (size_t k = 0; k < v->ncommands && !held; k++)
			held = span_holds(v->commands[k].span, v->findings[i].span);
		if (!held)
			return &v->findings[i];
	}
	return NULL;
}

/*
 * A program run by its path (/usr/bin/git, ./../../usr/bin/git) is still
 * that program to a deny or ask rule, so they also see the command under
 * its basename. Allow rules do not: a ./git in the workdir is not git.
 */
static void eval_by_name(const struct ruleset *rs, const struct subject *s,
                         struct evaluation *ev)
{
	const char *slash = strrchr(s->argv[0], '/');
	size_t n = strv_len(s->argv);
	struct subject b = *s;
	char **argv;

	if (slash == NULL || slash[1] == '\0')
		return;
	argv = xcalloc(n + 1, sizeof(*argv));
	memcpy(argv, s->argv, n * sizeof(*argv));
	argv[0] = (char *)slash + 1;
	b.argv = argv;
	b.head = word_hash(argv[0]);
	eval_stop_only(rs, &b, ev);
	free(argv);
}

/*
 * Options before the first operand are seen through by deny and ask rules:
 * `git -C . push` and `git --no-pager -c x=y push` are `git push` to
 * `deny = Shell(git push *)`, and `rm -f db` is `rm db`. Which option
 * takes a value is the program's business, so every cut of the run is a
 * form: after each option word, and after the word that follows an
 * option without "=" (its value, if it takes one). Extra forms can only
 * make a deny or ask match; allow rules never see them. A run longer than
 * OPTION_RUN_MAX words is not cut (git -c a=1 ... -c e=5 push hid the push
 * past 8): the command meets every deny and ask rule for its program.
 */
#define OPTION_RUN_MAX 32

static void eval_past_options(const struct ruleset *rs, const struct subject *s,
                              struct evaluation *ev)
{
	char *const *v = s->argv;
	const char *slash = strrchr(v[0], '/');
	struct subject b = *s;

	if (v[1] == NULL || v[1][0] != '-')
		return;
	b.head = slash && slash[1] ? word_hash(slash + 1) : s->head;
	if (rs->bucket[b.head % SHELL_BUCKETS].n == 0 && rs->wild.n == 0)
		return; /* no rule could meet a form: the common case, made free */
	for (size_t i = 1; v[i]; i++) {
		bool option = v[i][0] == '-' && v[i][1] != '\0';
		bool value = !option && v[i - 1][0] == '-' && !strchr(v[i - 1], '=');
		size_t n;
		char **form;

		if (!option && !value)
			break;
		if (i > OPTION_RUN_MAX) { /* too long to cut: fail closed */
			b.argv = v;
			b.unsure = true;
			eval_stop_only(rs, &b, ev);
			return;
		}
		if (v[i + 1] == NULL)
			continue;
		n = strv_len(v + i + 1);
		form = xcalloc(n + 2, sizeof(*form));
		form[0] = slash && slash[1] ? (char *)slash + 1 : v[0];
		memcpy(form + 1, v + i + 1, n * sizeof(*form));
		b.argv = form;
		eval_stop_only(rs, &b, ev);
		free(form);
		if (strcmp(v[i], "--") == 0) /* what follows is an operand */
			break;
	}
}

/*
 * A whole MCP tool (its arguments are not one known call: a path and
 * another argument) is what an Mcp(...) rule vouches for, not what its
 * arguments reach: with `allow = Mcp(fake.lookup)`, lookup of
 * ~/.ssh/id_rsa was refused (mapped to read_file, its path the subject)
 * but lookup of it with one more argument was allowed (fourth
 * integrations review). A finding at high or above other than the tool's
 * own (tool.unknown, the server's mcp.*) makes its paths and hosts
 * subjects a rule must cover too, as for read_file.
 */
static bool mcp_args_risky(const struct call *c, const struct verdict *v)
{
	if (c->tool != TOOL_OTHER || !c->name || strncmp(c->name, "mcp:", 4) != 0)
		return false;
	for (size_t i = 0; i < v->nfindings; i++) {
		const char *r = v->findings[i].rule;
		if (v->findings[i].tier >= TIER_HIGH && r && strcmp(r, "tool.unknown") != 0 &&
		    strncmp(r, "mcp.", 4) != 0)
			return true;
	}
	return false;
}

static void ruleset_eval(const struct ruleset *rs, unsigned mask, const struct call *c,
                         const struct verdict *v, struct evaluation *ev)
{
	enum tool t = c->tool;
	bool args = mcp_args_risky(c, v);

	memset(ev, 0, sizeof(*ev));
	ev->mask = mask;
	ev->cover_ok = ev->crit_ok = ev->ask_ok = true;
	for (size_t i = 0; i < v->ncommands; i++) {
		struct subject s = {.kind = PK_SHELL, .argv = v->commands[i].argv};
		if (s.argv && s.argv[0]) {
			s.head = word_hash(s.argv[0]);
			eval_subject(rs, &s, t == TOOL_SHELL, ev);
			eval_by_name(rs, &s, ev);
			eval_past_options(rs, &s, ev);
		}
	}
	eval_strings(rs, PK_READ, v->reads, t == TOOL_READ_FILE || args, ev);
	eval_strings(rs, PK_EDIT, v->writes, t == TOOL_WRITE_FILE || t == TOOL_EDIT_FILE || args, ev);
	eval_strings(rs, PK_HOST, v->hosts, t == TOOL_HTTP || args, ev);
	eval_strings(rs, PK_SQL, v->statements, t == TOOL_SQL, ev);
	if (c->name && strncmp(c->name, "mcp:", 4) == 0) {
		struct subject s = {.kind = PK_MCP, .text = c->name + 4};
		eval_subject(rs, &s, t == TOOL_OTHER, ev);
	}
	if (t == TOOL_SHELL && (ev->unexplained = unexplained(v)) != NULL)
		ev->cover_ok = ev->crit_ok = ev->ask_ok = false;
}

const struct rule *ruleset_cover(const struct ruleset *rs, unsigned mask,
                                 const struct call *c, const struct verdict *v)
{
	struct evaluation ev;

	ruleset_eval(rs, mask, c, v, &ev);
	if (ev.nprimary == 0)
		return NULL;
	if (mask == RA_BIT(RA_ALLOW_CRITICAL))
		return ev.crit_ok ? ev.cover_crit : NULL;
	return ev.cover_ok ? ev.cover : NULL;
}

/*
 * Findings an allow rule does not vouch for, like a critical tier: a call
 * that rewrites airlock's policy or log (or the agent's hook settings)
 * would turn any allow that covers its path (Edit(**)) into every allow,
 * and git hooks, git config and rc files run code outside the sandbox
 * later. Only allow-critical lowers them.
 */
static const struct {
	const char *rule, *why;
} guarded_rules[] = {
	{"fs.write.gate_config", "it changes how calls are gated"},
	{"fs.write.git_config", "git runs it outside the sandbox"},
	{"fs.write.persistence", "it runs outside the sandbox later"},
};

/*
 * True when a path written is in a directory named .airlock: the hook takes
 * its workdir from each call's cwd, so <dir>/.airlock/policy is a project
 * policy wherever the agent's cwd can go, not only in this workdir (where
 * the classifier already says fs.write.gate_config).
 */
static bool writes_policy_dir(const struct verdict *v)
{
	for (char *const *w = v->writes; w && *w; w++)
		for (const char *s = strstr(*w, "/.airlock"); s; s = strstr(s + 1, "/.airlock"))
			if (s[9] == '/' || s[9] == '\0')
				return true;
	return false;
}

static void guarded(const struct verdict *v, struct rule_result *out)
{
	out->guarded = out->guarded_why = NULL;
	for (size_t i = 0; i < v->nfindings && !out->guarded; i++)
		for (size_t k = 0; k < nitems(guarded_rules) && !out->guarded; k++)
			if (v->findings[i].rule &&
			    strcmp(v->findings[i].rule, guarded_rules[k].rule) == 0) {
				out->guarded = guarded_rules[k].rule;
				out->guarded_why = guarded_rules[k].why;
			}
	out->policy_dir = writes_policy_dir(v);
	if (out->policy_dir && !out->guarded) {
		out->guarded = "a write into .airlock";
		out->guarded_why = "airlock reads .airlock/policy wherever it starts";
	}
}

void ruleset_decide(const struct ruleset *rs, const struct call *c, const struct verdict *v,
                    struct rule_result *out)
{
	struct evaluation ev;

	ruleset_eval(rs, ~0u, c, v, &ev);
	guarded(v, out);
	out->deny = ev.any[RA_DENY];
	out->ask = ev.any[RA_ASK];
	out->allow = ev.nprimary && ev.cover_ok && !out->guarded ? ev.cover : NULL;
	out->allow_critical = ev.nprimary && ev.crit_ok ? ev.cover_crit : NULL;
	out->ask_critical = ev.nprimary && ev.ask_ok ? ev.cover_ask : NULL;
	out->allow_partial = ev.any[RA_ALLOW] ? ev.any[RA_ALLOW] : ev.any[RA_ALLOW_CRITICAL];
	out->unexplained = ev.unexplained ? ev.unexplained->rule : NULL;
}

/* ---- the deny rules' path globs, as the sandbox holds them ---------------- */

struct policy_globs {
	struct pattern *v;
	const char **tail; /* per pattern: the text after a last segment's lone
	                    * leading `*` with no glob after it (*.sql: ".sql"),
	                    * or NULL */
	size_t n;
};

char *pattern_path_text(const struct pattern *pat)
{
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < pat->nsegs; i++)
		buf_printf(&b, "/%s", pat->segs[i]);
	return buf_take(&b, NULL);
}

struct policy_globs *policy_globs_new(char *const *patterns)
{
	struct policy_globs *g = xcalloc(1, sizeof(*g));

	g->v = xcalloc(strv_len(patterns) + 1, sizeof(*g->v));
	g->tail = xcalloc(strv_len(patterns) + 1, sizeof(*g->tail));
	for (char *const *t = patterns; t && *t; t++) {
		struct pattern *pat = &g->v[g->n];
		const char *last;
		pat->kind = PK_READ;
		pat->text = xstrdup(*t);
		/* the text pattern_path_text() made: its segments come back as they
		 * were, as none is empty, "." or ".." */
		if ((*t)[0] != '/' || segs_push_path(pat, *t) < 0) {
			policy_globs_free(g);
			return NULL;
		}
		pat->segglob = xcalloc(pat->nsegs + 1, sizeof(*pat->segglob));
		for (size_t i = 0; i < pat->nsegs; i++)
			pat->segglob[i] = has_glob(pat->segs[i]);
		last = pat->nsegs ? pat->segs[pat->nsegs - 1] : "";
		if (last[0] == '*' && last[1] && !has_glob(last + 1))
			g->tail[g->n] = last + 1;
		g->n++;
	}
	return g;
}

void policy_globs_free(struct policy_globs *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++)
		pattern_clear(&g->v[i]);
	free(g->v);
	free(g->tail);
	free(g);
}

bool policy_globs_match(const struct policy_globs *g, char *const *segs, size_t n)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (segs_match(&g->v[i], segs, n, false))
			return true;
	return false;
}

/* True when name ends with tail: what fnmatch("*" tail, name, 0) says
 * for a name without '/' and a tail without glob characters. */
static bool tail_meets(const char *tail, const char *name)
{
	size_t t = strlen(tail), k = strlen(name);
	return k >= t && memcmp(name + k - t, tail, t) == 0;
}

/* When no pattern matches the directory (nor so a parent of it), one that
 * matches an entry in it matches the whole path, so its last segment meets
 * the entry's name unless it is `**`: one fnmatch() (a compare for `*.sql`)
 * turns most entries away before the walk along the segments. */
bool policy_globs_match_entry(const struct policy_globs *g, char *const *segs, size_t n)
{
	for (size_t i = 0; g && n > 0 && i < g->n; i++) {
		const struct pattern *pat = &g->v[i];
		size_t last = pat->nsegs - 1;
		if (g->tail[i] ? !tail_meets(g->tail[i], segs[n - 1])
		               : pat->nsegs > 0 && !seg_any(pat, last) &&
		                     !seg_one(pat, last, segs[n - 1]))
			continue;
		if (segs_match(pat, segs, n, false))
			return true;
	}
	return false;
}
