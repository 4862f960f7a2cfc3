/*
 * render.c: a preview as text (git's unified format, with colour for a
 * terminal) or as JSON. Plain text keeps git's line prefixes ('-', '+',
 * ' ') so tools and people read it the same way; the text is capped and a
 * cut is stated at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/encode.h"
#include "diff/diff_internal.h"

#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_OFF "\033[m"

#define OUTPUT_LINES 20 /* dry run output lines shown per stream */

struct sum {
	size_t added, modified, deleted, renamed;
	size_t dirs[3]; /* directories, by enum diff_op */
	long long adds, dels;
};

/* A file's bytes, to pair exact renames. */
struct rkey {
	const char *data;
	size_t len;
	mode_t type;
	size_t i;
	bool del;
};

static int rkey_bytes_cmp(const struct rkey *x, const struct rkey *y)
{
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->data, y->data, x->len);
}

/* Same bytes, then deletions before additions, then walk order. */
static int rkey_cmp(const void *a, const void *b)
{
	const struct rkey *x = a, *y = b;
	int c = rkey_bytes_cmp(x, y);

	if (c)
		return c;
	if (x->del != y->del)
		return x->del ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The key of a file or link deleted or added with some bytes, or false. */
static bool rename_key(const struct diff_entry *e, size_t i, struct rkey *k)
{
	bool del = e->op == DIFF_OP_DELETE;
	mode_t m = del ? e->old_mode : e->new_mode;

	if (e->op == DIFF_OP_MODIFY || !(S_ISREG(m) || S_ISLNK(m)) || e->unread)
		return false;
	*k = (struct rkey){del ? e->old_data : e->new_data, del ? e->old_len : e->new_len,
	                   m & (S_IFMT | 07777), i, del};
	return k->len > 0 && k->data != NULL; /* git pairs no empty files either */
}

/*
 * Exact renames, as git finds them (100% similar): a file or link deleted
 * and one added with the same bytes and mode, each paired once. `mv
 * big.txt renamed.txt` read as 2,000 lines deleted and 2,000 added, the
 * person left to compare them; it is one line now, and its diff none. A
 * mode change is no rename here (git's would be): `mv notes.txt run.sh;
 * chmod +x run.sh` shows what now runs, line by line. Applying is
 * unchanged (the deletion and the addition). Returns a new array:
 * twin[i] is j + 1 when entry i pairs with j, else 0.
 */
static size_t *find_renames(const struct diff *d)
{
	struct rkey *k = xcalloc(d->n + 1, sizeof(*k));
	size_t *twin = xcalloc(d->n + 1, sizeof(*twin)), n = 0, a, b, dl, ad;

	for (size_t i = 0; i < d->n; i++)
		n += rename_key(&d->entries[i], i, &k[n]);
	if (n > 1)
		qsort(k, n, sizeof(*k), rkey_cmp);
	for (a = 0; a < n; a = b) {
		for (b = a + 1; b < n && rkey_bytes_cmp(&k[a], &k[b]) == 0; b++)
			;
		for (ad = a; ad < b && k[ad].del; ad++)
			;
		for (dl = a; dl < b && k[dl].del && ad < b; dl++, ad++) {
			twin[k[dl].i] = k[ad].i + 1;
			twin[k[ad].i] = k[dl].i + 1;
		}
	}
	free(k);
	return twin;
}

static void summarize(const struct diff *d, const size_t *twin, struct sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_entry *e = &d->entries[i];
		if (S_ISDIR(e->old_mode) || S_ISDIR(e->new_mode)) {
			s->dirs[e->op]++;
			continue;
		}
		if (twin[i]) { /* counted once, at its addition; no lines change */
			s->renamed += e->op == DIFF_OP_ADD;
			continue;
		}
		*(e->op == DIFF_OP_ADD ? &s->added : e->op == DIFF_OP_DELETE ? &s->deleted
		                                                           : &s->modified) += 1;
		s->adds += e->adds;
		s->dels += e->dels;
	}
}

/* git's mode words: 100644, 100755, 120000, 040755. */
static const char *mode_word(mode_t m, char *tmp, size_t n)
{
	if (S_ISLNK(m))
		return "120000";
	/* git's words are the octal st_mode; a FIFO a write replaces is 010644 */
	snprintf(tmp, n, "%06o", (unsigned)(m & (S_IFMT | 07777)));
	return tmp;
}

static void line(struct buf *b, bool color, const char *col, const char *fmt, ...)
	AIRLOCK_PRINTF(4, 5);
static void line(struct buf *b, bool color, const char *col, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (color && col)
		buf_printf(b, "%s%s" C_OFF "\n", col, s);
	else
		buf_printf(b, "%s\n", s);
	free(s);
}

/* The hunks, coloured by their first character. */
static void hunks(struct buf *b, const struct diff_entry *e, bool color)
{
	const char *p = e->patch, *end = e->patch + e->patch_len;

	if (!color) {
		buf_append(b, e->patch, e->patch_len);
		return;
	}
	while (p < end && !b->truncated) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *col = *p == '+' ? C_GREEN : *p == '-' ? C_RED : *p == '@' ? C_CYAN : NULL;
		if (col)
			buf_puts(b, col);
		buf_append(b, p, n);
		buf_puts(b, col ? C_OFF "\n" : "\n");
		p += n + 1;
	}
}

/* In headers: outside the workdir without its leading slash (a/tmp/x). */
static char *shown_path(const struct diff_entry *e)
{
	return diff_shown(e->path + (e->path[0] == '/'));
}

static void entry_header(struct buf *b, const struct diff_entry *e, const char *p, bool color)
{
	char t1[16], t2[16];

	line(b, color, C_BOLD, "diff --git a/%s b/%s", p, p);
	if (e->op == DIFF_OP_ADD)
		line(b, color, C_BOLD, "new %s mode %s", S_ISDIR(e->new_mode) ? "directory" : "file",
		     mode_word(e->new_mode, t1, sizeof(t1)));
	else if (e->op == DIFF_OP_DELETE)
		line(b, color, C_BOLD, "deleted %s mode %s",
		     S_ISDIR(e->old_mode) ? "directory" : "file", mode_word(e->old_mode, t1, sizeof(t1)));
	else if (e->old_mode != e->new_mode) {
		line(b, color, C_BOLD, "old mode %s", mode_word(e->old_mode, t1, sizeof(t1)));
		line(b, color, C_BOLD, "new mode %s", mode_word(e->new_mode, t2, sizeof(t2)));
	}
}

#define RUNS_SHOWN 20   /* text runs listed of a binary file */
#define RUN_MIN 4       /* printable bytes in a row that make one, as strings(1) */
#define RUN_CUT 100     /* bytes of a run shown */

/*
 * The text runs in a binary file's new content, as strings(1) finds them.
 * Whether a file is binary is a guess from its bytes (git's NUL rule, a
 * share of control bytes), and a guess can be padded past: a Makefile
 * followed by 2,000 NULs read "Binary files differ", and make ran its
 * lines. Its text shows here; a real binary's few names and messages cost
 * a few lines.
 */
static void text_runs(struct buf *b, bool color, const struct diff_entry *e)
{
	size_t shown = 0, more = 0, i = 0, n = e->op == DIFF_OP_DELETE ? 0 : e->new_len;
	const unsigned char *p = (const unsigned char *)e->new_data;

	while (p && i < n) {
		size_t start = i;
		while (i < n && ((p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\t'))
			i++;
		if (i - start >= RUN_MIN) {
			if (shown == 0)
				line(b, color, C_YELLOW, "text in it (runs of %d or more printable ASCII bytes):",
				     RUN_MIN);
			if (shown < RUNS_SHOWN) {
				size_t len = i - start < RUN_CUT ? i - start : RUN_CUT;
				buf_puts(b, "  | ");
				diff_escape(b, (const char *)p + start, len, false);
				buf_puts(b, len < i - start ? "...\n" : "\n");
				shown++;
			} else
				more++;
		}
		i++;
	}
	if (more)
		line(b, color, C_YELLOW, "  ... and %zu more runs", more);
}

/* git's rename header: the bytes and mode are the same, so no hunks follow. */
static void rename_header(struct buf *b, const struct diff_entry *from,
                          const struct diff_entry *to, bool color)
{
	char *p = shown_path(from), *q = shown_path(to);

	line(b, color, C_BOLD, "diff --git a/%s b/%s", p, q);
	line(b, color, C_BOLD, "similarity index 100%%");
	line(b, color, C_BOLD, "rename from %s", p);
	line(b, color, C_BOLD, "rename to %s", q);
	free(p);
	free(q);
}

/* The '+' and '-' lines a (cut) patch holds. */
static size_t patch_changes(const struct diff_entry *e)
{
	size_t n = 0;

	for (const char *l = e->patch, *end = e->patch + e->patch_len; l && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		n += *l == '+' || *l == '-';
		l = nl ? nl + 1 : end;
	}
	return n;
}

static void render_entry(struct buf *b, const struct diff *d, size_t i, const size_t *twin,
                         bool color)
{
	const struct diff_entry *e = &d->entries[i];
	char *p;

	if (twin[i]) { /* a rename: shown once, at its addition */
		if (e->op == DIFF_OP_ADD)
			rename_header(b, &d->entries[twin[i] - 1], e, color);
		return;
	}
	p = shown_path(e);
	entry_header(b, e, p, color);
	if (S_ISDIR(e->old_mode) || S_ISDIR(e->new_mode))
		goto out;
	if (e->binary) {
		line(b, color, NULL, "Binary files %s%s and %s%s differ (%zu -> %zu bytes)",
		     e->op == DIFF_OP_ADD ? "" : "a/", e->op == DIFF_OP_ADD ? "/dev/null" : p,
		     e->op == DIFF_OP_DELETE ? "" : "b/", e->op == DIFF_OP_DELETE ? "/dev/null" : p,
		     e->old_len, e->new_len);
		text_runs(b, color, e);
		goto out;
	}
	if (e->patch == NULL)
		goto out;
	line(b, color, C_BOLD, "--- %s%s", e->op == DIFF_OP_ADD ? "" : "a/",
	     e->op == DIFF_OP_ADD ? "/dev/null" : p);
	line(b, color, C_BOLD, "+++ %s%s", e->op == DIFF_OP_DELETE ? "" : "b/",
	     e->op == DIFF_OP_DELETE ? "/dev/null" : p);
	hunks(b, e, color);
	if (e->patch_truncated && !color && e->patch_len && e->patch[e->patch_len - 1] != '\n')
		buf_puts(b, "\n"); /* the notice on a line of its own */
	if (e->patch_truncated) {
		line(b, color, C_YELLOW, "[diff of %s cut at %u KiB]", p, (1u << 20) >> 10);
		/* the cut read as the end of the change: the rest lands too */
		line(b, color, C_YELLOW, "[%zu of %d changed lines shown above; the change holds all "
		                         "of them]", patch_changes(e), e->adds + e->dels);
	}
out:
	free(p);
}

/* What a stat line cannot say with line counts: a directory made, deleted
 * or whose mode changed, a link's target, a file's mode change. Every
 * entry gets a line, so a change past a cut in the diffs below (8 MiB of
 * text) is still named before anyone approves it. */
static void stat_extra(struct buf *b, const struct diff_entry *e)
{
	char t1[16], t2[16], *target;

	if (e->op == DIFF_OP_ADD && S_ISDIR(e->new_mode))
		buf_printf(b, "new directory, mode %s", mode_word(e->new_mode, t1, sizeof(t1)));
	else if (e->op == DIFF_OP_DELETE && S_ISDIR(e->old_mode))
		buf_puts(b, "deleted directory");
	else if (e->op != DIFF_OP_DELETE && S_ISLNK(e->new_mode)) {
		target = diff_shown(e->new_data ? e->new_data : "");
		buf_printf(b, ", link -> %s", target);
		free(target);
	}
	if (e->op == DIFF_OP_MODIFY && e->old_mode != e->new_mode)
		buf_printf(b, "%smode %s -> %s", S_ISDIR(e->new_mode) ? "" : ", ",
		           mode_word(e->old_mode, t1, sizeof(t1)), mode_word(e->new_mode, t2, sizeof(t2)));
	/* a new file that runs (or is setuid, setgid, sticky): its "new file
	 * mode" header may lie past the cut, as a modified file's mode did */
	else if (e->op == DIFF_OP_ADD && S_ISREG(e->new_mode) && (e->new_mode & 07111))
		buf_printf(b, ", mode %s", mode_word(e->new_mode, t1, sizeof(t1)));
	/* past the read cap: "-0" must not read as an empty file replaced */
	if (e->unread && S_ISREG(e->old_mode))
		buf_printf(b, ", replacing %zu bytes not shown", e->old_len);
	else if (e->unread)
		buf_puts(b, ", replacing a special file");
}

/* What the walk saw but could not list (a file past the read cap, a
 * FIFO): "no changes" under "cannot read what the dry run wrote to sp"
 * read as a command that changes nothing. */
static void unlisted_line(struct buf *b, const struct diff *d, bool color)
{
	if (d->unlisted)
		line(b, color, C_YELLOW, " %s%zu change%s the dry run made %s not listed (%s could not "
		                         "be read: see above)", d->n ? "and " : "no changes listed; ",
		     d->unlisted, d->unlisted == 1 ? "" : "s", d->unlisted == 1 ? "is" : "are",
		     d->unlisted == 1 ? "it" : "they");
}

/* The totals: files as git counts them, then directories, which git does
 * not have: "rm -rf emptydir; chmod 777 zz" read "0 files changed". */
static void render_total(struct buf *b, const struct diff *d, const size_t *twin, bool color)
{
	size_t files, dirs;
	struct sum s;
	char *dir = NULL, ren[48] = "";

	summarize(d, twin, &s);
	files = s.added + s.modified + s.deleted + s.renamed;
	if (s.renamed)
		snprintf(ren, sizeof(ren), ", %zu renamed", s.renamed);
	dirs = s.dirs[DIFF_OP_ADD] + s.dirs[DIFF_OP_MODIFY] + s.dirs[DIFF_OP_DELETE];
	if (dirs)
		dir = xasprintf("; %zu director%s (%zu added, %zu mode changed, %zu deleted)", dirs,
		                dirs == 1 ? "y" : "ies", s.dirs[DIFF_OP_ADD], s.dirs[DIFF_OP_MODIFY],
		                s.dirs[DIFF_OP_DELETE]);
	line(b, color, C_BOLD, " %zu file%s changed (%zu added, %zu modified, %zu deleted%s), +%lld -%lld%s",
	     files, files == 1 ? "" : "s", s.added, s.modified, s.deleted, ren, s.adds, s.dels,
	     dir ? dir : "");
	free(dir);
	unlisted_line(b, d, color);
}

/* The totals, then `git diff --stat` lines: the totals first, so the first
 * screen says how many deletions follow past 50 harmless additions. */
/* A rename's stat line, at its addition: where from, and a link's target,
 * or the mode of a file that runs (or is setuid, setgid, sticky). */
static void stat_rename(struct buf *b, const struct diff_entry *from,
                        const struct diff_entry *to)
{
	char *p = diff_shown(from->path), t1[16];

	buf_printf(b, "0, renamed from %s", p);
	free(p);
	if (S_ISREG(to->new_mode) && (to->new_mode & 07111))
		buf_printf(b, ", mode %s", mode_word(to->new_mode, t1, sizeof(t1)));
	if (S_ISLNK(to->new_mode)) {
		p = diff_shown(to->new_data);
		buf_printf(b, ", link -> %s", p);
		free(p);
	}
}

static void render_stat(struct buf *b, const struct diff *d, const size_t *twin, bool color)
{
	size_t w = 0, i;
	char *p;

	render_total(b, d, twin, color);
	for (i = 0; i < d->n; i++)
		if (strlen(d->entries[i].path) > w)
			w = strlen(d->entries[i].path);
	w = w > 60 ? 60 : w;
	for (i = 0; i < d->n && !b->truncated; i++) {
		const struct diff_entry *e = &d->entries[i];
		bool dir = S_ISDIR(e->old_mode) || S_ISDIR(e->new_mode);
		if (twin[i] && e->op == DIFF_OP_DELETE)
			continue; /* named on its addition's line */
		p = diff_shown(e->path);
		if (twin[i]) {
			buf_printf(b, " %-*s | ", (int)w, p);
			stat_rename(b, &d->entries[twin[i] - 1], e);
			buf_puts(b, "\n");
			free(p);
			continue;
		}
		if (dir)
			buf_printf(b, " %-*s | ", (int)w, p);
		else if (e->binary)
			buf_printf(b, " %-*s | Bin %zu -> %zu bytes", (int)w, p, e->old_len,
			           e->new_len);
		else if (color)
			buf_printf(b, " %-*s | %d " C_GREEN "+%d" C_OFF " " C_RED "-%d" C_OFF, (int)w, p,
			           e->adds + e->dels, e->adds, e->dels);
		else
			buf_printf(b, " %-*s | %d +%d -%d", (int)w, p, e->adds + e->dels, e->adds,
			           e->dels);
		stat_extra(b, e);
		buf_puts(b, "\n");
		free(p);
	}
	if (i < d->n) {
		char *nl = b->len ? memrchr(b->data, '\n', b->len) : NULL;
		if (i > 0 && b->len && b->data[b->len - 1] != '\n') { /* a path half shown */
			b->len = nl ? (size_t)(nl - b->data) + 1 : 0;
			b->data[b->len] = '\0';
			i--;
		}
		b->cap = 0; /* room for the notice itself */
		buf_printf(b, "[%zu more changes not listed: the preview is cut at %u MiB]\n",
		           d->n - i, DIFF_TEXT_CAP >> 20);
	}
}

/* The dry run's output, first lines only, each behind "> ". */
static void render_output(struct buf *b, const char *name, const char *p, size_t n)
{
	size_t lines = 0;
	const char *end = p + n;
	char *safe;

	if (n == 0)
		return;
	buf_printf(b, "dry run %s:\n", name);
	while (p < end && lines++ < OUTPUT_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
		safe = utf8_repair(p, k > 200 ? 200 : k);
		buf_puts(b, "> ");
		diff_escape(b, safe, strlen(safe), false);
		buf_puts(b, k > 200 ? "...\n" : "\n");
		free(safe);
		p += k + 1;
	}
	if (p < end)
		buf_printf(b, "> [... %zu more bytes]\n", (size_t)(end - p));
}

/* One head line: text from outside (a command, SQLite's error echoing the
 * query) has its control bytes escaped, so the terminal never gets them. */
static void head_line(struct buf *b, bool color, const char *c, const char *label,
                      const char *text)
{
	char *safe = diff_shown(text);

	line(b, color, c, "%s%s", label, safe);
	free(safe);
}

#define TITLE_SHOWN 4096 /* bytes of the title (a command) shown; JSON keeps it whole */

/*
 * The title, cut: it repeats the command, and one of 9 MiB filled the
 * text's 8 MiB cap by itself, so the lines after it, "not applied from
 * the preview" or "error:", were cut away. The approval screen and
 * --approve-with's "applies" read what approval does from those lines:
 * they said the preview would be applied while the call ran.
 */
static void title_line(struct buf *b, const struct diff *d, bool color)
{
	const char *t = d->title ? d->title : tool_name(d->tool);
	size_t n = strlen(t), k = TITLE_SHOWN;
	char *cut, *safe;

	if (n <= TITLE_SHOWN) {
		head_line(b, color, C_BOLD, "preview: ", t);
		return;
	}
	while (k > 0 && ((unsigned char)t[k] & 0xc0) == 0x80)
		k--; /* never half a character */
	cut = xstrndup(t, k);
	safe = diff_shown(cut);
	line(b, color, C_BOLD, "preview: %s... [%zu more bytes]", safe, n - k);
	free(safe);
	free(cut);
}

/* Title, failure, why it cannot be applied, notes, dry run status (its
 * output comes after the stat block). */
static void render_head(struct buf *b, const struct diff *d, bool color)
{
	title_line(b, d, color);
	if (d->error)
		head_line(b, color, C_RED, "error: ", d->error);
	if (d->incomplete && !d->error) {
		head_line(b, color, C_YELLOW, "not applied from the preview: ", d->incomplete);
		/* "what it changed until then is shown" read as a part of what
		 * approval does; a command that tells the dry run (its overlay
		 * in /proc/self/mountinfo) wrote notes.txt there, slept past the
		 * limit, and the approved run deleted src/ */
		line(b, color, C_YELLOW, "on approval the call itself runs, not this preview: what it "
		                         "does may differ from anything shown here");
	}
	for (size_t i = 0; d->notes && d->notes[i]; i++)
		head_line(b, color, C_YELLOW, "note: ", d->notes[i]);
	if (d->notes_more)
		line(b, color, C_YELLOW, "note: ... and %zu more notes (not listed)", d->notes_more);
	if (d->tool == TOOL_SHELL && d->ran)
		line(b, color, NULL, "dry run: %s %d%s in %lld ms",
		     d->timed_out ? "timed out; exit" : "exit", d->exit_code,
		     d->exit_code < 0 ? " (killed)" : "", d->wall_ms);
}

char *diff_render(const struct diff *d, enum diff_format f, size_t *len)
{
	bool color = f == DIFF_FORMAT_COLOR;
	size_t *twin = find_renames(d);
	struct buf b;

	buf_init(&b, DIFF_TEXT_CAP);
	render_head(&b, d, color);
	if (d->sql)
		changeset_render(d->sql, &b, color, d->error != NULL);
	if (d->n && !d->error)
		render_stat(&b, d, twin, color);
	else if (d->tool == TOOL_SHELL && !d->ran && !d->error)
		/* "no changes" read as a harmless command, when none ran: on
		 * approval it runs unpreviewed */
		buf_puts(&b, " the dry run did not run: what the command changes is not known\n");
	else if (d->unlisted && !d->error)
		unlisted_line(&b, d, color);
	else if (d->tool != TOOL_SQL && !d->error)
		buf_puts(&b, " no changes\n");
	/* the command's own words after what it changes: 20 lines of "ok:
	 * nothing to change" before the stat block pushed "src | deleted
	 * directory" below the first screen, which need not be scrolled */
	if (d->tool == TOOL_SHELL && d->ran) {
		render_output(&b, "stdout", d->out, d->outlen);
		render_output(&b, "stderr", d->err, d->errlen);
	}
	for (size_t i = 0; i < d->n && !b.truncated && !d->error; i++)
		render_entry(&b, d, i, twin, color);
	if (b.truncated) {
		buf_drop_cut_word(&b);
		b.cap = 0; /* room for the notice itself */
		buf_printf(&b, "\n[preview cut at %u MiB]\n", DIFF_TEXT_CAP >> 20);
	}
	free(twin);
	return buf_take(&b, len);
}

static const char *op_name(enum diff_op op)
{
	static const char *const names[] = {
		[DIFF_OP_ADD] = "added", [DIFF_OP_MODIFY] = "modified", [DIFF_OP_DELETE] = "deleted"};
	return names[op];
}

static json_t *entry_json(const struct diff *d, size_t i, const size_t *twin)
{
	const struct diff_entry *e = &d->entries[i];
	json_t *j = json_object();
	char t[16];

	json_object_set_new(j, "path", encode_bytes(e->path, strlen(e->path)));
	json_object_set_new(j, "change", json_string(op_name(e->op)));
	json_object_set_new(j, "kind", json_string(S_ISDIR(e->old_mode) || S_ISDIR(e->new_mode)
	                                               ? "directory"
	                                           : S_ISLNK(e->new_mode ? e->new_mode : e->old_mode)
	                                               ? "symlink"
	                                               : "file"));
	if (e->old_mode)
		json_object_set_new(j, "old_mode", json_string(mode_word(e->old_mode, t, sizeof(t))));
	if (e->new_mode && e->op != DIFF_OP_DELETE)
		json_object_set_new(j, "new_mode", json_string(mode_word(e->new_mode, t, sizeof(t))));
	json_object_set_new(j, "binary", json_boolean(e->binary));
	json_object_set_new(j, "old_size", json_integer((json_int_t)e->old_len));
	json_object_set_new(j, "new_size", json_integer((json_int_t)e->new_len));
	json_object_set_new(j, "insertions", json_integer(e->adds));
	json_object_set_new(j, "deletions", json_integer(e->dels));
	if (e->patch)
		json_object_set_new(j, "patch", encode_bytes(e->patch, e->patch_len));
	if (e->patch_truncated)
		json_object_set_new(j, "patch_truncated", json_true());
	if (twin[i]) {
		const char *o = d->entries[twin[i] - 1].path;
		json_object_set_new(j, e->op == DIFF_OP_ADD ? "renamed_from" : "renamed_to",
		                    encode_bytes(o, strlen(o)));
	}
	return j;
}

json_t *diff_to_json(const struct diff *d)
{
	json_t *j = json_object(), *files = json_array(), *notes = json_array();
	size_t *twin = find_renames(d);
	struct sum s;

	json_object_set_new(j, "tool", json_string(tool_name(d->tool)));
	if (d->title)
		json_object_set_new(j, "title", encode_bytes(d->title, strlen(d->title)));
	json_object_set_new(j, "complete", json_boolean(d->incomplete == NULL));
	if (d->incomplete)
		json_object_set_new(j, "incomplete", encode_bytes(d->incomplete, strlen(d->incomplete)));
	if (d->error)
		json_object_set_new(j, "error", encode_bytes(d->error, strlen(d->error)));
	for (size_t i = 0; d->notes && d->notes[i]; i++)
		json_array_append_new(notes, encode_bytes(d->notes[i], strlen(d->notes[i])));
	json_object_set_new(j, "notes", notes);
	if (d->notes_more)
		json_object_set_new(j, "notes_more", json_integer((json_int_t)d->notes_more));
	summarize(d, twin, &s);
	json_object_set_new(j, "summary",
	                    json_pack("{sI sI sI sI sI sI}", "added", (json_int_t)s.added, "modified",
	                              (json_int_t)s.modified, "deleted", (json_int_t)s.deleted,
	                              "renamed", (json_int_t)s.renamed, "insertions",
	                              (json_int_t)s.adds, "deletions", (json_int_t)s.dels));
	for (size_t i = 0; i < d->n; i++)
		json_array_append_new(files, entry_json(d, i, twin));
	free(twin);
	json_object_set_new(j, "files", files);
	if (d->tool == TOOL_SHELL && d->ran)
		json_object_set_new(j, "dry_run",
		                    json_pack("{si sb sI so so}", "exit_code", d->exit_code, "timed_out",
		                              d->timed_out, "wall_ms", (json_int_t)d->wall_ms, "stdout",
		                              encode_bytes(d->out, d->outlen), "stderr",
		                              encode_bytes(d->err, d->errlen)));
	if (d->sql)
		json_object_set_new(j, "sql", changeset_to_json(d->sql));
	return j;
}
