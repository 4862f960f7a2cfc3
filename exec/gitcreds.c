/*
 * gitcreds.c: the credentials a repository's config holds, kept out of the
 * sandbox. A remote's URL with a token in it (`git clone
 * https://x-access-token:TOKEN@github.com/o/r`, an Azure DevOps PAT as the
 * user name), the Authorization header actions/checkout leaves in
 * http.extraheader, an inline credential helper that prints a password: a
 * call that ran `cat .git/config` handed them to the agent, whose calls
 * have no network, so git in the sandbox has no use for them.
 * Rules:
 *  - the sandbox sees a copy of such a file (mounts.c binds it read-only
 *    over the real one); a file with nothing to cut is bound as it is;
 *  - what is cut is found by shape, not by parsing the file: the user
 *    information of every URL (`scheme://USER[:PASSWORD]@`), whole, since
 *    a token passed as the user name has no shape of its own, then
 *    whatever the audit log's redactor cuts (db_redact_text(): token
 *    shapes, Authorization credentials, URL and assigned passwords,
 *    private keys); and the value of every extraheader, whatever header it
 *    sends (`X-Api-Key: plainword` has no shape either), and of every
 *    credential helper (an inline script prints a password in any
 *    spelling), to the end of its line and of each line a trailing
 *    backslash continues it onto. A
 *    shape is found wherever it lies (a section name, a
 *    comment, an include's path), so the copy may lose more than a
 *    credential, never less;
 *  - a file whose text the cut cannot be sure of (a NUL byte, which git
 *    stops reading at) is covered by a note alone; so is a copy from
 *    which git still reads a credential (libgit2 reads it: quotes inside
 *    a value, `https://u:"tok"@h`, or a backslash continuing its line
 *    hide user information from the shapes), or one libgit2 cannot read
 *    (its includes disarmed first: the files they name are covered on
 *    their own).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/lazy.h"
#include "core/util.h"
#include "db/db.h"
#include "exec/exec_internal.h"

static const char userinfo_mark[] = "REDACTED";
static const char nul_note[] = "# airlock: this repository config holds a NUL byte; "
                               "the sandbox is shown none of it\n";
static const char unsure_note[] = "# airlock: this repository config holds credentials that "
                                  "could not be cut for sure; the sandbox is shown none of "
                                  "it\n";

/* The end of the user information of a URL whose "://" ends at s[i]
 * (the index of its last '@' in the authority, which ends at '/', '?',
 * '#', white space or a quote; not at a backslash, which the file uses to
 * escape one in the value), or 0 when it has none. */
static size_t userinfo_end(const char *s, size_t n, size_t i)
{
	size_t at = 0;

	for (size_t j = i; j < n; j++) {
		unsigned char c = (unsigned char)s[j];
		if (c == '/' || c == '?' || c == '#' || isspace(c) || c == '"' || c == '\'')
			break;
		if (c == '@')
			at = j;
	}
	return at;
}

/* text (n bytes) with every URL's user information replaced, into b;
 * true when one was. */
static bool userinfo_cut(const char *text, size_t n, struct buf *b)
{
	const char *p = text, *end = text + n, *sep;
	bool cut = false;

	while ((sep = memmem(p, (size_t)(end - p), "://", 3)) != NULL) {
		size_t from = (size_t)(sep - text) + 3, at = userinfo_end(text, n, from);
		buf_append(b, p, from - (size_t)(p - text));
		if (at > from) {
			buf_append(b, userinfo_mark, sizeof(userinfo_mark) - 1);
			cut = true;
			from = at;
		}
		p = text + from;
	}
	buf_append(b, p, (size_t)(end - p));
	return cut;
}

/* The end of the logical line holding s[i]: its newline, past each one
 * a backslash escapes (git's continuation; before a CRLF too, which git
 * reads as a newline), or n. */
static size_t line_end(const char *s, size_t n, size_t i)
{
	const char *nl;

	while ((nl = memchr(s + i, '\n', n - i)) != NULL) {
		size_t at = (size_t)(nl - s), bs = 0, eol = at > 0 && s[at - 1] == '\r' ? at - 1 : at;
		while (bs < eol && s[eol - 1 - bs] == '\\')
			bs++;
		if (bs % 2 == 0)
			return at;
		i = at + 1;
	}
	return n;
}

/* Keys whose every value is cut, whatever it holds, and the mark put in
 * its place (as the audit log marks what it cuts, which it then leaves
 * alone): an extraheader (`X-Api-Key: plainword` has no shape), a
 * credential helper (an inline one, `!f() { echo password=...; }; f`,
 * prints the password in any spelling; the sandbox has no network for
 * any helper), and any key whose name holds "token" or "secret". */
static const struct whole_key {
	const char *key, *mark;
	bool inside; /* the key a name holds anywhere in its last part */
} whole_keys[] = {
	{"extraheader", "[REDACTED:extraheader]", false},
	{"helper", "[REDACTED:credential-helper]", false},
	/* what tools keep under such a name in the repository's config has no
	 * shape of its own: Git Town's git-town.gitea-token, forgejo-token,
	 * github.token, hub.oauthtoken (forty hex digits were shown uncut) */
	{"token", "[REDACTED:token]", true},
	{"secret", "[REDACTED:secret]", true},
};

/* The whole_keys[] row whose key s (left bytes) starts with, or NULL. */
static const struct whole_key *whole_key_at(const char *s, size_t left)
{
	for (size_t i = 0; i < nitems(whole_keys); i++) {
		const char *key = whole_keys[i].key;
		size_t len = strlen(key);
		if ((s[0] | 0x20) == key[0] && len <= left && strncasecmp(s, key, len) == 0)
			return &whole_keys[i];
	}
	return NULL;
}

/* The whole_keys[] row of a config entry's name (its last part), or NULL. */
static const struct whole_key *whole_key_of(const char *name)
{
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; dot && i < nitems(whole_keys); i++)
		if (whole_keys[i].inside ? strcasestr(dot + 1, whole_keys[i].key) != NULL
		                         : strcasecmp(dot + 1, whole_keys[i].key) == 0)
			return &whole_keys[i];
	return NULL;
}

/* text with the value of each whole_keys[] key (after the first '=' on its
 * line) cut, into b; true when one was. */
static bool header_cut(const char *text, size_t n, struct buf *b)
{
	const struct whole_key *wk;
	size_t from = 0, k, eq, end;
	bool cut = false;

	for (k = 0; k < n; k++) {
		if ((wk = whole_key_at(text + k, n - k)) == NULL)
			continue;
		end = line_end(text, n, k);
		for (eq = k; eq < end && text[eq] != '=' && text[eq] != '\n'; eq++)
			;
		if (eq >= end || text[eq] != '=')
			continue;
		buf_append(b, text + from, eq + 1 - from);
		buf_append(b, " ", 1);
		buf_append(b, wk->mark, strlen(wk->mark));
		from = k = end;
		cut = true;
	}
	buf_append(b, text + from, n - from);
	return cut;
}

char *gitcreds_cut(const char *text, size_t n)
{
	struct buf h, u;
	char *red;
	size_t len;
	bool cut;

	if (memchr(text, '\0', n))
		return xstrdup(nul_note);
	buf_init(&h, 0);
	buf_init(&u, 0);
	cut = header_cut(text, n, &h);
	/* the redactor's marks can join two authorities into one (a password
	 * it cuts held the '/' between them): the user information goes last */
	if ((red = db_redact_text(h.data, h.len, &len)) != NULL) {
		buf_free(&h);
		h.data = red;
		h.len = len;
		cut = true;
	}
	cut = userinfo_cut(h.data, h.len, &u) || cut;
	free(h.data);
	if (!cut) {
		buf_free(&u);
		return NULL;
	}
	return buf_take(&u, NULL);
}

/* True when s, a name or value as git reads it, holds what the cut takes:
 * a URL's user information other than the cut's mark, or a shape the
 * audit log's redactor cuts; or, for a whole_keys[] key's value (wk), any
 * value but its mark. */
static bool entry_uncut(const char *s, const struct whole_key *wk)
{
	struct buf b;
	size_t n = strlen(s), len;
	char *red;
	bool same;

	if (wk)
		return n > 0 && strcmp(s, wk->mark) != 0;
	if ((red = db_redact_text(s, n, &len)) != NULL) {
		free(red);
		return true;
	}
	buf_init(&b, 0);
	userinfo_cut(s, n, &b);
	same = b.len == n && memcmp(b.data, s, n) == 0;
	buf_free(&b);
	return !same;
}

/* Makes each section that may be an include or includeIf
 * (guard_include_next()) an ordinary one in t (n bytes): libgit2 then
 * reads its path as a value, and opens no file (a FIFO there would hang
 * the plan). */
static void includes_disarm(char *t, size_t n)
{
	for (char *q = t; (q = guard_include_next(q, t + n)) != NULL; q++)
		*q = 'x';
}

/* True when git reads no credential from the config text (n bytes): each
 * entry libgit2 reads of it, its includes disarmed (includes_disarm(); the
 * files they name are covered on their own), from a memfd (no file is
 * made), passes entry_uncut(). False when it cannot be read. */
static bool cut_sure(const char *text, size_t n)
{
	char *err = NULL, *path = NULL, *t = xmalloc(n + 1);
	const struct lazy_git *g = NULL;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	bool sure = false;
	int fd = -1, rc;

	memcpy(t, text, n);
	includes_disarm(t, n);
	if ((g = lazy_git(&err)) == NULL)
		goto out;
	if ((fd = memfd_create("airlock-gitcreds", MFD_CLOEXEC)) < 0 ||
	    write(fd, t, n) != (ssize_t)n)
		goto out;
	path = xasprintf("/proc/self/fd/%d", fd);
	if (g->git_config_open_ondisk(&cfg, path) < 0 || g->git_config_iterator_new(&it, cfg) < 0)
		goto out;
	while ((rc = g->git_config_next(&e, it)) == 0) {
		if (entry_uncut(e->name, NULL) ||
		    (e->value && entry_uncut(e->value, whole_key_of(e->name))))
			goto out;
	}
	sure = rc == GIT_ITEROVER;
out:
	if (it)
		g->git_config_iterator_free(it);
	if (cfg)
		g->git_config_free(cfg);
	if (fd >= 0)
		close(fd);
	free(path);
	free(err);
	free(t);
	return sure;
}

/* True when git may read a value of text (n bytes) otherwise than it lies
 * there, so that the shapes of the text are not those of what git reads: a
 * backslash (an escape, a line continued) anywhere, or a quote on a line
 * holding a '=' (a value's; a section name's are on its own line). */
static bool value_may_differ(const char *text, size_t n)
{
	const char *p = text, *end = text + n, *nl;

	if (memchr(text, '\\', n))
		return true;
	for (; p < end; p = nl + 1) {
		size_t len;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (memchr(p, '=', len) && memchr(p, '"', len))
			return true;
	}
	return false;
}

char *gitcreds_shown(const char *text, size_t n)
{
	char *cut = gitcreds_cut(text, n);

	if ((cut && strcmp(cut, nul_note) == 0) || !value_may_differ(text, n) ||
	    cut_sure(cut ? cut : text, cut ? strlen(cut) : n))
		return cut;
	free(cut);
	return xstrdup(unsure_note);
}
