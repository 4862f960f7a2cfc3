/*
 * redact.c: secrets are cut out of everything the audit log stores, before
 * it is hashed. Token shapes live in a table (one row per provider); private
 * key blocks, JWTs, passwords in URLs and exact granted values have matchers;
 * the classifier's classify_find_secret() runs after them, so everything the
 * classifier calls a secret is redacted too.
 * Rules it keeps: a match is replaced by "[REDACTED:kind]"; a private key
 * block with no END line is redacted to the end of the string (fail closed).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier.h"
#include "core/util.h"
#include "db/db_internal.h"

enum charset { CS_UPPER_DIGIT, CS_ALNUM, CS_WORD, CS_TOKEN, CS_CREDENTIAL };

/* A token: a literal prefix, then at least min characters of a class. */
struct token_shape {
	const char *kind, *prefix;
	enum charset cs;
	size_t min;
};

static const struct token_shape shapes[] = {
	{"aws-access-key", "AKIA", CS_UPPER_DIGIT, 16},
	{"aws-access-key", "ASIA", CS_UPPER_DIGIT, 16},
	{"github-token", "ghp_", CS_ALNUM, 30},
	{"github-token", "gho_", CS_ALNUM, 30},
	{"github-token", "ghu_", CS_ALNUM, 30},
	{"github-token", "ghs_", CS_ALNUM, 30},
	{"github-token", "ghr_", CS_ALNUM, 30},
	{"github-token", "github_pat_", CS_WORD, 30},
	{"anthropic-key", "sk-ant-", CS_TOKEN, 20}, /* before the OpenAI "sk-" row */
	{"openai-key", "sk-", CS_TOKEN, 20},
	{"slack-token", "xoxb-", CS_TOKEN, 10},
	{"slack-token", "xoxp-", CS_TOKEN, 10},
	{"slack-token", "xoxa-", CS_TOKEN, 10},
	{"slack-token", "xoxr-", CS_TOKEN, 10},
	{"slack-token", "xoxs-", CS_TOKEN, 10},
	{"slack-token", "xoxe-", CS_TOKEN, 10},
	{"slack-webhook", "https://hooks.slack.com/services/", CS_TOKEN, 20},
	{"stripe-key", "sk_live_", CS_ALNUM, 16},
	{"stripe-key", "sk_test_", CS_ALNUM, 16},
	{"stripe-key", "rk_live_", CS_ALNUM, 16},
	{"stripe-key", "rk_test_", CS_ALNUM, 16},
	{"stripe-key", "whsec_", CS_ALNUM, 24},
	{"slack-token", "xapp-", CS_TOKEN, 10},
	{"age-secret-key", "AGE-SECRET-KEY-1", CS_UPPER_DIGIT, 50},
	{"vault-token", "hvs.", CS_TOKEN, 24},
	{"vault-token", "hvb.", CS_TOKEN, 24},
	{"sendgrid-key", "SG.", CS_CREDENTIAL, 60}, /* SG.<22>.<43> */
	{"digitalocean-token", "dop_v1_", CS_ALNUM, 64},
	{"digitalocean-token", "doo_v1_", CS_ALNUM, 64},
	{"digitalocean-token", "dor_v1_", CS_ALNUM, 64},
	{"linear-key", "lin_api_", CS_ALNUM, 32},
	{"grafana-token", "glsa_", CS_WORD, 32},
	{"postman-key", "PMAK-", CS_TOKEN, 50},
};

/* Assignments whose value is a secret: NAME, separators, then the value. */
static const char *const secret_names[] = {
	"aws_secret_access_key",
	"aws_session_token",
};

static bool in_charset(unsigned char c, enum charset cs)
{
	switch (cs) {
	case CS_UPPER_DIGIT:
		return isupper(c) || isdigit(c);
	case CS_ALNUM:
		return isalnum(c);
	case CS_WORD:
		return isalnum(c) || c == '_';
	case CS_TOKEN:
		return isalnum(c) || c == '_' || c == '-';
	case CS_CREDENTIAL: /* RFC 7235 token68 */
		return isalnum(c) || (c && strchr("-._~+/=", c));
	}
	return false;
}

static size_t span_of(const char *s, size_t n, size_t i, enum charset cs)
{
	size_t j = i;

	while (j < n && in_charset((unsigned char)s[j], cs))
		j++;
	return j - i;
}

/* A match: [start, end) of s is replaced by [REDACTED:kind]. */
struct match {
	size_t start, end;
	const char *kind;
};

static bool boundary_before(const char *s, size_t i)
{
	return i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '-');
}

static bool match_shape(const char *s, size_t n, size_t i, struct match *m)
{
	if (!boundary_before(s, i))
		return false;
	for (size_t k = 0; k < nitems(shapes); k++) {
		size_t plen, run;
		/* the first byte before strlen(): this runs at every offset */
		if (s[i] != shapes[k].prefix[0] || n - i < (plen = strlen(shapes[k].prefix)) ||
		    memcmp(s + i, shapes[k].prefix, plen) != 0)
			continue;
		run = span_of(s, n, i + plen, shapes[k].cs);
		if (run < shapes[k].min)
			continue;
		*m = (struct match){i, i + plen + run, shapes[k].kind};
		return true;
	}
	return false;
}

/*
 * The next private key block at or after a position, as the classifier sees
 * one (shared, so the redactor never keeps a block classify_find_secret
 * reports). Found once and kept until the pass goes beyond its start: asking
 * again at every "-----BEGIN " made a text of many BEGIN lines quadratic
 * (minutes for a megabyte, hours for a 16 MiB line).
 */
struct key_block {
	size_t start, end; /* start == SIZE_MAX: none at or after `from` */
	size_t from;
	bool known;
};

static bool match_private_key(const char *s, size_t n, size_t i, struct key_block *kb,
                              struct match *m)
{
	struct span sp;

	if (!kb->known || (kb->start != SIZE_MAX && i > kb->start) || i < kb->from) {
		kb->known = true;
		kb->from = i;
		kb->start = SIZE_MAX;
		if (classify_find_private_key(s + i, n - i, &sp) != NULL) {
			kb->start = i + sp.off;
			kb->end = kb->start + sp.len;
		}
	}
	if (i != kb->start)
		return false;
	*m = (struct match){i, kb->end, "private-key"};
	return true;
}

/* ASCII ranges, not isupper(): in a Latin-1 locale those take bytes past
 * 0x7f for letters too. */
static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* A line break inside a wrapped base64 run (base64(1) wraps at 76): "\n",
 * "\r\n", or the two characters \n of an escaped string. Its length, or 0. */
static size_t base64_break(const char *s, size_t n, size_t j)
{
	size_t k = s[j] == '\r' ? j + 1 : j;

	if (k < n && s[k] == '\n')
		k++;
	else if (k + 1 < n && s[k] == '\\' && s[k + 1] == 'n')
		k += 2;
	else
		return 0;
	return k < n && base64_value((unsigned char)s[k]) >= 0 ? k - j : 0;
}

/*
 * A private key block in base64 (a Kubernetes secret's tls.key, `base64
 * id_rsa`): "LS0tLS1CRUdJTi" is "-----BEGIN " encoded, and the first line
 * decoded must name a PRIVATE KEY (a certificate is public). The whole
 * run goes, wrapped lines included.
 */
static bool match_base64_key(const char *s, size_t n, size_t i, struct match *m)
{
	static const char prefix[] = "LS0tLS1CRUdJTi";
	unsigned char head[64];
	size_t j = i, got = 0, brk;
	unsigned int acc = 0;
	int bits = 0, v;

	if (s[i] != 'L' || n - i < sizeof(prefix) - 1 || memcmp(s + i, prefix, sizeof(prefix) - 1) ||
	    !boundary_before(s, i))
		return false;
	for (;;) {
		while (j < n && ((v = base64_value((unsigned char)s[j])) >= 0 || s[j] == '=')) {
			if (v >= 0 && got < sizeof(head)) {
				acc = (acc << 6 | (unsigned int)v) & 0xffffff;
				if ((bits += 6) >= 8)
					head[got++] = (unsigned char)(acc >> (bits -= 8));
			}
			j++;
		}
		if (j >= n || (brk = base64_break(s, n, j)) == 0)
			break;
		j += brk;
	}
	if (memchr(head, '\n', got))
		got = (size_t)((unsigned char *)memchr(head, '\n', got) - head);
	if (memmem(head, got, "PRIVATE KEY", 11) == NULL)
		return false;
	*m = (struct match){i, j, "private-key"};
	return true;
}

/* eyJ<b64url>.eyJ<b64url>.<b64url>: a JWT (header and payload are JSON). */
static bool match_jwt(const char *s, size_t n, size_t i, struct match *m)
{
	size_t j = i, a, b, c;

	if (s[i] != 'e' || !boundary_before(s, i) || n - i < 3 || memcmp(s + i, "eyJ", 3))
		return false;
	a = span_of(s, n, j, CS_TOKEN);
	j += a;
	if (a < 10 || j >= n || s[j] != '.' || n - j < 4 || memcmp(s + j + 1, "eyJ", 3))
		return false;
	b = span_of(s, n, ++j, CS_TOKEN);
	j += b;
	if (b < 10 || j >= n || s[j] != '.')
		return false;
	c = span_of(s, n, ++j, CS_TOKEN);
	if (c < 10)
		return false;
	*m = (struct match){i, j + c, "jwt"};
	return true;
}

/*
 * scheme://user:PASSWORD@host: only the password goes. It ends at the last
 * '@' of the authority, not the first: an unencoded '@' in a password
 * (pip, requests and browsers read "u:p@ss@host" as password "p@ss") left
 * the part after it stored in clear.
 */
static bool match_url_password(const char *s, size_t n, size_t i, struct match *m)
{
	size_t j, colon = 0, at = 0;

	if (s[i] != ':' || n - i < 3 || s[i + 1] != '/' || s[i + 2] != '/')
		return false;
	for (j = i + 3; j < n; j++) {
		unsigned char c = (unsigned char)s[j];
		if (c == '/' || c == '?' || c == '#' || isspace(c) || c == '"' || c == '\'')
			break;
		/* [ and ] cannot be in userinfo (RFC 3986); they also keep an
		 * earlier "[REDACTED:kind]" from passing for a password. After
		 * an '@' they start an IPv6 host. */
		if (c == '[' || c == ']') {
			if (at == 0)
				return false;
			break;
		}
		if (c == '@')
			at = j;
		if (c == ':' && colon == 0)
			colon = j;
	}
	if (at == 0 || colon == 0 || colon > at || colon + 1 == at)
		return false;
	*m = (struct match){colon + 1, at, "password"};
	return true;
}

/* The length of name (lower case) when s (n bytes) starts with it in any
 * case, else 0. Not strlen() and strncasecmp(): the name matchers run at
 * every offset of every text the log stores, and most fail at once. */
static size_t name_at(const char *s, size_t n, const char *name)
{
	size_t k;

	for (k = 0; name[k]; k++) {
		unsigned char c = k < n ? (unsigned char)s[k] : 0;
		if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != (unsigned char)name[k])
			return 0;
	}
	return k;
}

/* aws_secret_access_key = VALUE (any case, quotes and separators skipped). */
static bool match_secret_name(const char *s, size_t n, size_t i, struct match *m)
{
	for (size_t k = 0; k < nitems(secret_names); k++) {
		size_t j = i + name_at(s + i, n - i, secret_names[k]), v;
		if (j == i || !boundary_before(s, i))
			continue;
		while (j < n && strchr(" \t\"':=", s[j]))
			j++;
		v = j;
		while (j < n && (isalnum((unsigned char)s[j]) || strchr("/+=_-", s[j])))
			j++;
		if (j - v < 16)
			continue;
		*m = (struct match){v, j, "aws-secret"};
		return true;
	}
	return false;
}

/* Names that end a password variable or option: PGPASSWORD, DB_PASSWORD,
 * --password, MYSQL_PWD ("pwd" only after '_': PWD and OLDPWD are the
 * shell's working directory). */
static const char *const password_names[] = {"password", "passwd", "_pwd", "smtppass"};

/* True when s[v, e) is a value to redact: something, not a $variable and
 * not a marker already (redacting twice changes nothing). */
static bool secret_value(const char *s, size_t v, size_t e)
{
	return e > v && s[v] != '$' && !(e - v >= 10 && memcmp(s + v, "[REDACTED:", 10) == 0);
}

/* Names that end a credential variable, key or header: API_TOKEN,
 * JWT_SECRET, SECRET_KEY, DATADOG_API_KEY, X-Api-Key, client_secret,
 * ?access_token=, --token, --api-key. Unlike a password name they are
 * words of prose and of ordinary settings too ("token: required",
 * "secret: true"), so their value must look like a credential. */
static const char *const credential_names[] = {
	/* longer first: SECRET_KEY= is not SECRET followed by _KEY */
	"secret_key", "secret-key", "access_key", "access-key", "private_key", "private-key",
	"apikey", "api_key", "api-key", "token", "secret",
	/* Azure's connection strings: AccountKey=, SharedAccessKey= */
	"accountkey", "accesskey",
};

static bool looks_random(const char *s, size_t n);

/* True when s[v, e) may be a credential: a value to redact of 8 bytes or
 * more that is not a plain word. */
static bool credential_value(const char *s, size_t v, size_t e)
{
	return e - v >= 8 && secret_value(s, v, e) && looks_random(s + v, e - v);
}

static size_t names_longest; /* of password_names and credential_names */

/* True when s[0, len) is one of names, in any case. */
static bool name_is(const char *s, size_t len, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (name_at(s, len, names[k]) == len)
			return true;
	return false;
}

/* True when the option name w[0, name) ends in a credential name. */
static bool credential_option(const char *w, size_t name)
{
	for (size_t k = 0; k < nitems(credential_names); k++) {
		size_t len = strlen(credential_names[k]);
		if (name >= len && strncasecmp(w + name - len, credential_names[k], len) == 0)
			return true;
	}
	return false;
}

/* The value at j, quoted (to its closing quote; a backslash ends a
 * double-quoted one, as in escaped JSON) or not (to white space or shell
 * syntax): its text is s[*v, *e). */
static void value_at(const char *s, size_t n, size_t j, size_t *v, size_t *e)
{
	char q = 0;

	if (j < n && s[j] == '\\' && j + 1 < n && s[j + 1] == '"')
		j++; /* \" in escaped JSON */
	if (j < n && (s[j] == '"' || s[j] == '\''))
		q = s[j++];
	*v = j;
	if (q)
		while (j < n && s[j] != q && s[j] != '\n' && !(q == '"' && s[j] == '\\'))
			j++;
	else
		while (j < n && !isspace((unsigned char)s[j]) && !strchr("\"'\\,;&|)}`", s[j]))
			j++;
	*e = j;
}

/* False when the value value_at() finds at j starts so that secret_value()
 * refuses it: a $variable or a marker. */
static bool secret_start(const char *s, size_t n, size_t j)
{
	if (j < n && s[j] == '\\' && j + 1 < n && s[j + 1] == '"')
		j++;
	if (j < n && (s[j] == '"' || s[j] == '\''))
		j++;
	return !(j < n && (s[j] == '$' || (n - j >= 10 && memcmp(s + j, "[REDACTED:", 10) == 0)));
}

/* The netrc keywords a `password VALUE` follows as `KEYWORD WORD`. */
static const char *const netrc_keys[] = {"login", "machine", "account"};

/* True when s[0, i) ends in `KEYWORD WORD ` of netrc_keys (blanks and
 * line breaks between): `machine h login u password p`, one line or
 * several, as curl, git and ftp read ~/.netrc. */
static bool netrc_before(const char *s, size_t i)
{
	size_t k = i, word;

	while (k > 0 && isspace((unsigned char)s[k - 1]))
		k--;
	word = k;
	while (k > 0 && !isspace((unsigned char)s[k - 1]))
		k--;
	if (k == word || k == i)
		return false;
	while (k > 0 && isspace((unsigned char)s[k - 1]))
		k--;
	for (size_t t = 0; t < nitems(netrc_keys); t++) {
		size_t len = strlen(netrc_keys[t]);
		if (k >= len && memcmp(s + k - len, netrc_keys[t], len) == 0 &&
		    (k == len || isspace((unsigned char)s[k - len - 1])))
			return true;
	}
	return false;
}

/*
 * Two shapes a password has beside NAME=VALUE: an XML element
 * (<password>VALUE</password>: Maven's settings.xml, a .NET config) and
 * a netrc entry (`login u password VALUE`). On c93eb52 both were stored
 * as they are. *v, *e: the value; false when s[i, w) is not one of them.
 */
static bool password_other(const char *s, size_t n, size_t i, size_t w, size_t *v, size_t *e)
{
	size_t j = w;

	if (i > 0 && s[i - 1] == '<' && w < n && s[w] == '>') {
		for (*v = ++j; j < n && s[j] != '<' && s[j] != '\n';)
			j++;
		*e = j;
		return j < n && s[j] == '<';
	}
	if (w - i != 8 || memcmp(s + i, "password", 8) != 0 || w >= n ||
	    (s[w] != ' ' && s[w] != '\t') || !netrc_before(s, i))
		return false;
	while (j < n && (s[j] == ' ' || s[j] == '\t'))
		j++;
	for (*v = j; j < n && !isspace((unsigned char)s[j]) && !strchr("\"'\\", s[j]);)
		j++;
	*e = j;
	return true;
}

/*
 * NAME=VALUE, NAME: VALUE (YAML) or "NAME": "VALUE" (JSON, escaped too)
 * for a password name: the value, quoted or not (and the two shapes of
 * password_other()). A value that is already a marker or a $variable is
 * left alone.
 */
static bool match_password(const char *s, size_t n, size_t i, struct match *m)
{
	struct match other;
	size_t w = i, j, v, e;
	bool credential;

	/* not a path's last part ("/etc/passwd: No such file"); after a dot,
	 * a file name before ':' ("users.passwd: No such file"), but a Java
	 * property's dotted key before '=' (spring.datasource.password=) */
	if (i > 0 && s[i - 1] == '/')
		return false;
	/* A name ends where its word does (a letter, digit, '_' or '-' after
	 * it is not the key's end), so the separator is looked for first:
	 * this runs at most offsets of every text the log stores, and the
	 * word is rarely a key. The key's closing quote (JSON), blanks (a git
	 * config's `smtpPass = x`, an INI file's), then one '=' or ':'. */
	while (w < n && w - i <= names_longest &&
	       (isalnum((unsigned char)s[w]) || s[w] == '_' || s[w] == '-'))
		w++;
	if (w - i > names_longest) /* no name is that long: and a long word, */
		return false;      /* scanned to its end at each offset, was quadratic */
	if (password_other(s, n, i, w, &v, &e)) {
		credential = !name_is(s + i, w - i, password_names, nitems(password_names));
		if ((credential && !name_is(s + i, w - i, credential_names,
		                            nitems(credential_names))) ||
		    (credential ? !credential_value(s, v, e) : !secret_value(s, v, e)) ||
		    (credential && (match_jwt(s, n, v, &other) || match_shape(s, n, v, &other))))
			return false;
		*m = (struct match){v, e, credential ? "credential" : "password"};
		return true;
	}
	for (j = w; j < n && (s[j] == '"' || s[j] == '\\' || s[j] == '\'');)
		j++;
	while (j < n && (s[j] == ' ' || s[j] == '\t'))
		j++;
	if (j >= n || (s[j] != '=' && s[j] != ':') || (i > 0 && s[i - 1] == '.' && s[j] == ':'))
		return false;
	credential = !name_is(s + i, w - i, password_names, nitems(password_names));
	if (credential && !name_is(s + i, w - i, credential_names, nitems(credential_names)))
		return false;
	for (j++; j < n && (s[j] == ' ' || s[j] == '\t');)
		j++;
	/* a value secret_value() refuses by its start is refused before it is
	 * scanned to its end: "password=$password=$..." scanned the whole
	 * rest at each name, 7 s for 100 KB of a call's output */
	if (!secret_start(s, n, j))
		return false;
	value_at(s, n, j, &v, &e);
	if (credential ? !credential_value(s, v, e) : !secret_value(s, v, e))
		return false;
	/* a known token there keeps its own, more telling, kind */
	if (credential && (match_jwt(s, n, v, &other) || match_shape(s, n, v, &other)))
		return false;
	*m = (struct match){v, e, credential ? "credential" : "password"};
	return true;
}

/*
 * Options whose value is a password for the programs that read them so:
 * -pSECRET is a password to mysql and "make parents" to mkdir, so the
 * program must be in the command. OS_ATTACHED: -pSECRET; OS_WORD: -p
 * SECRET; OS_EQUALS: --user=SECRET; OS_COLON: only what follows the
 * value's first ':' (curl -u user:SECRET, openssl -passin pass:SECRET);
 * OS_PERCENT: its first '%' (Samba's -U user%SECRET).
 */
enum { OS_ATTACHED = 1, OS_WORD = 2, OS_EQUALS = 4, OS_COLON = 8, OS_PERCENT = 16 };
static const struct opt_secret {
	const char *prog; /* a program's name; "mysql*": any name it starts */
	const char *opt;
	unsigned how;
} opt_secrets[] = {
	/* mysql -p SECRET prompts, and SECRET is the database */
	{"mysql*", "-p", OS_ATTACHED},
	{"mariadb*", "-p", OS_ATTACHED},
	{"sshpass", "-p", OS_ATTACHED | OS_WORD},
	{"redis-cli", "-a", OS_ATTACHED | OS_WORD},
	{"mongo*", "-p", OS_WORD},
	{"sqlcmd", "-P", OS_ATTACHED | OS_WORD},
	{"curl", "-u", OS_ATTACHED | OS_WORD | OS_COLON},
	{"curl", "-U", OS_ATTACHED | OS_WORD | OS_COLON},
	{"curl", "--user", OS_WORD | OS_EQUALS | OS_COLON},
	{"curl", "--proxy-user", OS_WORD | OS_EQUALS | OS_COLON},
	{"openssl", "-pass", OS_WORD | OS_COLON},
	{"openssl", "-passin", OS_WORD | OS_COLON},
	{"openssl", "-passout", OS_WORD | OS_COLON},
	{"openssl", "-k", OS_WORD}, /* enc -k PASSWORD */
	{"zip*", "-P", OS_WORD},
	{"unzip", "-P", OS_WORD},
	{"7z*", "-p", OS_ATTACHED},
	{"rar", "-p", OS_ATTACHED},
	{"unrar", "-p", OS_ATTACHED},
	{"ldap*", "-w", OS_WORD},
	{"ssh-keygen", "-N", OS_ATTACHED | OS_WORD}, /* the new passphrase */
	{"ssh-keygen", "-P", OS_ATTACHED | OS_WORD}, /* the old one */
	{"keytool", "-storepass", OS_WORD},
	{"keytool", "-keypass", OS_WORD},
	{"jarsigner", "-storepass", OS_WORD},
	{"jarsigner", "-keypass", OS_WORD},
	{"smbclient", "-U", OS_ATTACHED | OS_WORD | OS_PERCENT},
	{"smbclient", "--user", OS_WORD | OS_EQUALS | OS_PERCENT},
	{"rpcclient", "-U", OS_ATTACHED | OS_WORD | OS_PERCENT},
	{"net", "-U", OS_ATTACHED | OS_WORD | OS_PERCENT},
};

/* Option names ending so take a password in any program, as the next word
 * or after '=': --password SECRET, --db-password SECRET, gpg's
 * --passphrase SECRET (never --no-password, --password-stdin). */
static const char *const password_opts[] = {"password", "passwd", "passphrase"};

#define SEGMENT_BACK 1024 /* bytes searched back for the program, and */
#define ARGV_BACK 64       /* words: bounded, so many options stay linear */

/* Which programs the command holding an option runs (a text's command, or
 * an argv's words before it). */
struct runs {
	bool (*fn)(const struct runs *r, const char *prog);
	const char *s; /* the text, or NULL for an argv */
	size_t i;      /* the option's offset in s, or its index in argv */
	json_t *argv;
};

/* True when name (n bytes) is prog, or starts it when prog ends in '*'. */
static bool prog_is(const char *name, size_t n, const char *prog)
{
	size_t pl = strlen(prog);
	bool prefix = prog[pl - 1] == '*';

	pl -= prefix;
	return (prefix ? n >= pl : n == pl) && memcmp(name, prog, pl) == 0;
}

/* A text: a word of the command holding i (back to ; & | ( ` or a line
 * break) is prog, or a path to it: sudo mysql, docker exec db mysql,
 * /usr/bin/curl. */
static bool text_runs(const struct runs *r, const char *prog)
{
	/* what ends a command, NUL too: a table, as this runs for each
	 * option-like word of every stored text */
	static const bool stop_at[256] = {[0] = true, [';'] = true, ['&'] = true, ['|'] = true,
	                                  ['('] = true, ['`'] = true, ['\n'] = true};
	const char *s = r->s, *p;
	size_t b = r->i, stop = r->i > SEGMENT_BACK ? r->i - SEGMENT_BACK : 0;
	size_t pl = strlen(prog) - (prog[strlen(prog) - 1] == '*');

	while (b > stop && !stop_at[(unsigned char)s[b - 1]])
		b--;
	/* each word that starts with prog's name (memmem finds the few) */
	for (p = s + b; (p = memmem(p, r->i - (size_t)(p - s), prog, pl)) != NULL; p++) {
		size_t w = (size_t)(p - s), e = w;
		if (w > b && !isspace((unsigned char)s[w - 1]) && !strchr("/\"'", s[w - 1]))
			continue;
		while (e < r->i && !isspace((unsigned char)s[e]) && !strchr("/\"'", s[e]))
			e++;
		if ((e == r->i || s[e] != '/') && prog_is(s + w, e - w, prog))
			return true;
	}
	return false;
}

/* An argv: a word before index i is prog, or a path to it. */
static bool argv_runs(const struct runs *r, const char *prog)
{
	for (size_t k = r->i > ARGV_BACK ? r->i - ARGV_BACK : 0; k < r->i; k++) {
		const char *w = json_string_value(json_array_get(r->argv, k)), *base;
		if (w == NULL)
			continue;
		base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
		if (prog_is(base, strlen(base), prog))
			return true;
	}
	return false;
}

enum optval {
	OV_NONE,
	OV_HERE, /* in the option's word, from *at: -pSECRET, --password=SECRET */
	OV_NEXT, /* the next word: --password SECRET, sshpass -p SECRET */
};

/*
 * What the option word w does with a password: its name is the first
 * `name` bytes (letters, digits, '-', '_'); more: the word goes on after
 * it (a quote, '=' and a value). *sep: when not 0, only what follows
 * the value's first such byte (':' or '%') is the password.
 */
static enum optval option_value(const char *w, size_t name, bool more, const struct runs *r,
                                size_t *at, char *sep)
{
	size_t d = strspn(w, "-");

	*sep = 0;
	for (size_t k = 0; k < nitems(password_opts) && d < name; k++) {
		size_t len = strlen(password_opts[k]);
		if (name - d < len || strncasecmp(w + name - len, password_opts[k], len) != 0 ||
		    (name - d >= 3 && strncasecmp(w + d, "no-", 3) == 0))
			continue;
		*at = name + 1;
		return !more ? OV_NEXT : w[name] == '=' ? OV_HERE : OV_NONE;
	}
	/* --token VALUE, --api-key=VALUE: the caller checks the value's look */
	if (d < name && credential_option(w, name) &&
	    !(name - d >= 3 && strncasecmp(w + d, "no-", 3) == 0)) {
		*at = name + 1;
		return !more ? OV_NEXT : w[name] == '=' ? OV_HERE : OV_NONE;
	}
	for (size_t k = 0; k < nitems(opt_secrets); k++) {
		const struct opt_secret *o = &opt_secrets[k];
		size_t ol = strlen(o->opt);
		enum optval v = OV_NONE;
		if (name < ol || memcmp(w, o->opt, ol) != 0)
			continue;
		if ((name > ol || (more && w[ol] != '=')) && (o->how & OS_ATTACHED))
			v = OV_HERE, *at = ol;
		else if (name == ol && more && w[ol] == '=' && (o->how & OS_EQUALS))
			v = OV_HERE, *at = ol + 1;
		else if (name == ol && !more && (o->how & OS_WORD))
			v = OV_NEXT;
		if (v != OV_NONE && r->fn(r, o->prog)) {
			*sep = o->how & OS_COLON ? ':' : o->how & OS_PERCENT ? '%' : 0;
			return v;
		}
	}
	return OV_NONE;
}

/* The length of an option's name at w (n bytes): letters, digits, - and _. */
static size_t option_name(const char *w, size_t n)
{
	size_t o = 0;

	while (o < n && (isalnum((unsigned char)w[o]) || w[o] == '-' || w[o] == '_'))
		o++;
	return o;
}

/* The password in s[*v, *e) when sep says it follows the first sep. */
static bool after_sep(const char *s, size_t *v, size_t e, char sep)
{
	const char *c;

	if (!sep)
		return true;
	if ((c = memchr(s + *v, sep, e - *v)) == NULL)
		return false;
	*v = (size_t)(c - s) + 1;
	return true;
}

/*
 * A password given to an option as a separate word or attached to it
 * (--password SECRET, mysql -pSECRET, curl -u user:SECRET): the value.
 * Only at an option's start, after a blank or a quote.
 */
static bool match_option_password(const char *s, size_t n, size_t i, struct match *m)
{
	struct runs r = {text_runs, s, i, NULL};
	size_t o, v = 0, e = 0, at = 0;
	char sep;

	if (s[i] != '-' || (i > 0 && !isspace((unsigned char)s[i - 1]) && s[i - 1] != '\'' &&
	                    s[i - 1] != '"'))
		return false;
	o = i + option_name(s + i, n - i);
	switch (o - i < 2 ? OV_NONE
	                  : option_value(s + i, o - i, o < n && !isspace((unsigned char)s[o]), &r,
	                                 &at, &sep)) {
	case OV_NONE:
		return false;
	case OV_HERE:
		value_at(s, n, i + at, &v, &e);
		break;
	case OV_NEXT:
		for (v = o; v < n && (s[v] == ' ' || s[v] == '\t');)
			v++;
		if (v == o || v >= n || s[v] == '-')
			return false;
		value_at(s, n, v, &v, &e);
		break;
	}
	if (!after_sep(s, &v, e, sep) || !secret_value(s, v, e) ||
	    (credential_option(s + i, o - i) && !credential_value(s, v, e)))
		return false;
	*m = (struct match){v, e, "password"};
	return true;
}

/* Not a word: a digit, a symbol, or a capital after the first letter
 * ("required" and "Required" are prose; a random token has one of these). */
static bool looks_random(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalpha((unsigned char)s[i]) || (i > 0 && isupper((unsigned char)s[i])))
			return true;
	return false;
}

/*
 * An HTTP credential at j: an optional scheme word (Bearer, Basic, token,
 * ...) and a space, then a token68 run of at least 8 characters that is
 * not a plain word; only the run is a match. The run stops at spaces,
 * quotes and shell syntax, so redacting it can hide one opaque word, never
 * a command.
 */
static bool match_credential(const char *s, size_t n, size_t j, struct match *m)
{
	struct match other;
	size_t w = j, run;

	while (w < n && isalpha((unsigned char)s[w]))
		w++;
	if (w > j && w + 1 < n && s[w] == ' ' && span_of(s, n, w + 1, CS_CREDENTIAL) >= 8)
		j = w + 1;
	run = span_of(s, n, j, CS_CREDENTIAL);
	if (run < 8 || !looks_random(s + j, run))
		return false;
	*m = (struct match){j, j + run, "authorization"};
	/* a JWT or a known token there is left to its own, more telling, kind */
	return !match_jwt(s, n, j, &other) && !match_shape(s, n, j, &other);
}

static const char auth_header[] = "authorization";

/* Authorization: CREDENTIAL (also Proxy-Authorization, and the JSON or
 * assignment shapes "authorization": "...", authorization=...). */
static bool match_authorization(const char *s, size_t n, size_t i, struct match *m)
{
	size_t len = sizeof(auth_header) - 1, j = i + len, seps = 0;

	if ((s[i] | 0x20) != 'a' || n - i < len || strncasecmp(s + i, auth_header, len) != 0 ||
	    (i > 0 && isalnum((unsigned char)s[i - 1])))
		return false;
	/* backslashes too: the header inside escaped JSON ({\"Authorization\": ...}) */
	for (; j < n && s[j] && strchr(" \t\"':=\\", s[j]); j++)
		seps += s[j] == ':' || s[j] == '=';
	return seps > 0 && match_credential(s, n, j, m);
}

typedef bool (*matcher)(const char *s, size_t n, size_t i, struct match *m);

static bool match_at(const char *s, size_t n, size_t i, unsigned only, struct match *m);

/* What a decoded run is searched for: the shapes and named secrets. */
static const matcher decoded_matchers[] = {
	match_jwt, match_shape, match_url_password, match_secret_name, match_authorization,
	match_password,
};
static unsigned decoded_bits; /* decoded_matchers as bits of matchers[] */

#define ENCODED_MIN 28          /* base64 of 20 bytes: the shortest token */
#define ENCODED_MAX (64 * 1024) /* bytes of a run decoded: bounded work */

#define ENCODED_AROUND 64 /* decoded bytes beside the secret, at most */

/* True when d[0, n) beside the match m could be no more than a name and
 * separators: no shell syntax, no second line, a few bytes. A run is
 * redacted whole, so a script that only carries a token (`echo B64 |
 * base64 -d | sh`) must not disappear from the log with it. */
static bool only_secret(const unsigned char *d, size_t n, const struct match *m)
{
	size_t around = 0;

	while (n > m->end && isspace(d[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (i >= m->start && i < m->end)
			continue;
		if (++around > ENCODED_AROUND || d[i] < 0x20 || d[i] >= 0x7f ||
		    strchr(";|&$`()<>{}\\", d[i]))
			return false;
	}
	return true;
}

/* True when the decoded bytes d[0, n) are a secret (see only_secret). */
static bool decoded_secret(const unsigned char *d, size_t n)
{
	struct match m;

	for (size_t i = 0; i < n; i++)
		if (match_at((const char *)d, n, i, decoded_bits, &m))
			return only_secret(d, n, &m);
	return false;
}

/*
 * A secret in base64 or hex (`printf ghp_... | base64`, a Kubernetes
 * secret's data, `xxd -p`): a run of 28 or more base64 characters (or an
 * even run of hex digits) whose decoded bytes hold a shape or a named
 * secret; the whole run goes. Only at a run's start, so a long run is
 * decoded once.
 */
static bool match_encoded(const char *s, size_t n, size_t i, struct match *m)
{
	unsigned char *d;
	size_t j = i, got = 0, hex;
	unsigned int acc = 0;
	int bits = 0, v;
	bool found;

	if (base64_value((unsigned char)s[i]) < 0 ||
	    (i > 0 && (base64_value((unsigned char)s[i - 1]) >= 0 || s[i - 1] == '_' ||
	               s[i - 1] == '-')))
		return false;
	while (j < n && base64_value((unsigned char)s[j]) >= 0)
		j++;
	hex = j - i;
	for (size_t k = i; k < j && hex == j - i; k++)
		hex = hex_digit((unsigned char)s[k]) >= 0 ? hex : 0;
	while (j < n && s[j] == '=' && j - i < ENCODED_MAX)
		j++;
	if (j - i < ENCODED_MIN || (j < n && (s[j] == '_' || s[j] == '-')))
		return false;
	d = xmalloc(ENCODED_MAX);
	if (hex >= ENCODED_MIN && hex % 2 == 0) {
		for (size_t k = i; k + 1 < i + hex && got < ENCODED_MAX; k += 2)
			d[got++] = (unsigned char)(hex_digit((unsigned char)s[k]) * 16 +
			                           hex_digit((unsigned char)s[k + 1]));
	} else {
		for (size_t k = i; k < j && got < ENCODED_MAX; k++) {
			if ((v = base64_value((unsigned char)s[k])) < 0)
				break;
			acc = (acc << 6 | (unsigned int)v) & 0xffffff;
			if ((bits += 6) >= 8)
				d[got++] = (unsigned char)(acc >> (bits -= 8));
		}
	}
	found = decoded_secret(d, got);
	free(d);
	if (found)
		*m = (struct match){i, j, "encoded-secret"};
	return found;
}

/* The passes' matchers, each with the bytes a match can start at (NULL:
 * any; "": its names' first letters, see starts_init()). A pass tries at
 * each offset only those its byte allows: trying all nine made redaction
 * a few MB/s, and the log redacts every call's output, up to 1 MiB each. */
static const struct {
	matcher fn;
	const char *first;
} matchers[] = {
	{match_jwt, "e"},
	{match_shape, ""},
	{match_url_password, ":"},
	{match_secret_name, ""},
	{match_authorization, "aA"},
	{match_base64_key, "L"},
	{match_option_password, "-"},
	{match_password, ""},
	{match_encoded, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"},
};

static unsigned starts[256]; /* byte -> bit k: matchers[k] may start */
static pthread_once_t starts_once = PTHREAD_ONCE_INIT;

static unsigned bit_of(matcher fn)
{
	for (size_t k = 0; k < nitems(matchers); k++)
		if (matchers[k].fn == fn)
			return 1u << k;
	return 0;
}

static void starts_set(matcher fn, unsigned char c, bool any_case)
{
	starts[c] |= bit_of(fn);
	if (any_case)
		starts[toupper(c) & 0xff] |= bit_of(fn);
}

static void starts_names(matcher fn, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		starts_set(fn, (unsigned char)names[i][0], true);
}

static void starts_init(void)
{
	for (size_t k = 0; k < nitems(matchers); k++)
		for (unsigned c = 0; c < 256; c++)
			if (matchers[k].first == NULL ||
			    (c && strchr(matchers[k].first, (int)c) != NULL))
				starts[c] |= 1u << k;
	for (size_t i = 0; i < nitems(decoded_matchers); i++)
		decoded_bits |= bit_of(decoded_matchers[i]);
	for (size_t i = 0; i < nitems(shapes); i++)
		starts_set(match_shape, (unsigned char)shapes[i].prefix[0], false);
	starts_names(match_secret_name, secret_names, nitems(secret_names));
	starts_names(match_password, password_names, nitems(password_names));
	starts_names(match_password, credential_names, nitems(credential_names));
	for (size_t i = 0; i < nitems(password_names); i++)
		if (strlen(password_names[i]) > names_longest)
			names_longest = strlen(password_names[i]);
	for (size_t i = 0; i < nitems(credential_names); i++)
		if (strlen(credential_names[i]) > names_longest)
			names_longest = strlen(credential_names[i]);
}

/* Tries the matchers among only (bits of matchers[]) that may start at s[i]. */
static bool match_at(const char *s, size_t n, size_t i, unsigned only, struct match *m)
{
	unsigned bits = starts[(unsigned char)s[i]] & only;

	for (size_t k = 0; bits != 0; k++, bits >>= 1)
		if ((bits & 1) && matchers[k].fn(s, n, i, m))
			return true;
	return false;
}

static bool match_value(const char *s, size_t n, size_t i, char *const *values,
                        struct match *m)
{
	for (; values && *values; values++) {
		size_t len;
		if (s[i] == **values && n - i >= (len = strlen(*values)) &&
		    memcmp(s + i, *values, len) == 0) {
			*m = (struct match){i, i + len, "credential"};
			return true;
		}
	}
	return false;
}

/* One left-to-right pass of the matchers above; NULL when nothing matched. */
static char *redact_pass(const char *s, size_t n, char *const *values, size_t *outlen)
{
	struct key_block kb = {.known = false};
	struct buf out;
	struct match m;
	size_t i = 0, copied = 0;
	bool any = false;

	pthread_once(&starts_once, starts_init);
	buf_init(&out, 0);
	while (i < n) {
		bool hit = match_value(s, n, i, values, &m) || match_private_key(s, n, i, &kb, &m) ||
		           match_at(s, n, i, ~0u, &m);
		if (!hit) {
			i++;
			continue;
		}
		any = true;
		buf_append(&out, s + copied, m.start - copied);
		buf_printf(&out, "[REDACTED:%s]", m.kind);
		copied = i = m.end > i ? m.end : i + 1;
	}
	if (!any) {
		buf_free(&out);
		return NULL;
	}
	buf_append(&out, s + copied, n - copied);
	return buf_take(&out, outlen);
}

/*
 * One forward walk of a classifier finder: each match is replaced and the
 * search goes on after it, never from the start again (that made a text of
 * many tokens quadratic). NULL when nothing matched.
 */
static char *classifier_walk(const char *s, size_t n,
                             const char *(*find)(const char *, size_t, struct span *),
                             size_t *outlen)
{
	struct buf out;
	struct span w;
	const char *kind;
	size_t pos = 0;
	bool any = false;

	buf_init(&out, 0);
	while (pos < n && (kind = find(s + pos, n - pos, &w)) != NULL && w.len > 0 &&
	       w.off + w.len <= n - pos) {
		buf_append(&out, s + pos, w.off);
		buf_printf(&out, "[REDACTED:%s]", kind);
		pos += w.off + w.len;
		any = true;
	}
	if (!any) {
		buf_free(&out);
		return NULL;
	}
	buf_append(&out, s + pos, n - pos);
	return buf_take(&out, outlen);
}

/* The classifier's own finder (more shapes: Google, GitLab, npm, ...), so
 * nothing the classifier calls a secret is ever stored: its private key
 * blocks first, as classify_find_secret() ranks them, then its tokens. */
static char *classifier_pass(const char *s, size_t n, size_t *outlen)
{
	size_t len = n;
	char *keys = classifier_walk(s, n, classify_find_private_key, &len);
	char *tokens = classifier_walk(keys ? keys : s, len, classify_find_token, &len);

	*outlen = len;
	if (tokens == NULL)
		return keys;
	free(keys);
	return tokens;
}

/*
 * After the rounds: key blocks nested deeper than the rounds reach (each
 * round's walk uncovers one more level: "B B K E K E") would leave one the
 * classifier still sees. The first such block is cut to the end of the
 * text (fail closed), then the tokens left go. NULL when nothing is left.
 */
static char *classifier_rest(const char *s, size_t n, size_t *outlen)
{
	struct span w;
	char *cut = NULL, *tokens;
	size_t len = n;

	if (memchr(s, '\0', n) != NULL)
		return NULL;
	if (classify_find_private_key(s, n, &w) != NULL) {
		cut = xasprintf("%.*s[REDACTED:private-key]", (int)w.off, s);
		len = strlen(cut);
	}
	tokens = classifier_walk(cut ? cut : s, len, classify_find_token, &len);
	*outlen = len;
	if (tokens == NULL)
		return cut;
	free(cut);
	return tokens;
}

/* The printable ASCII character an escape at s[i] (n bytes) spells, JSON's
 * \uXXXX, \xHH and \NNN (octal) of a shell's printf or $'...' string, or a URL's
 * %HH, and its length in *len; 0 when none. */
static int escaped_char(const char *s, size_t n, size_t i, size_t *len)
{
	static const struct {
		char lead, kind;
		size_t digits;
		int base;
	} forms[] = {{'\\', 'u', 4, 16}, {'\\', 'x', 2, 16}, {'\\', 0, 3, 8}, {'%', 0, 2, 16}};
	int c = 0;

	for (size_t f = 0; f < nitems(forms); f++) {
		size_t at = i + 1 + (forms[f].kind != 0), k;
		if (s[i] != forms[f].lead || (forms[f].kind && (i + 1 >= n || s[i + 1] != forms[f].kind)) ||
		    n - at < forms[f].digits)
			continue;
		for (c = 0, k = 0; k < forms[f].digits; k++) {
			int h = hex_digit((unsigned char)s[at + k]);
			if (h < 0 || h >= forms[f].base)
				break;
			c = c * forms[f].base + h;
		}
		if (k < forms[f].digits)
			continue;
		*len = at - i + forms[f].digits;
		return c >= 0x20 && c < 0x7f ? c : 0;
	}
	return 0;
}

/* True when s holds an escape escaped_char() reads (the cheap test first:
 * most texts have no backslash or percent sign). */
static bool has_escape(const char *s, size_t n)
{
	size_t len;

	if (memchr(s, '\\', n) == NULL && memchr(s, '%', n) == NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((s[i] == '\\' || s[i] == '%') && escaped_char(s, n, i, &len) != 0)
			return true;
	return false;
}

/* A decoded pass's result: the text after the last match appended, or
 * NULL (and out freed) when nothing matched. */
static char *out_finish(struct buf *out, bool any, const char *s, size_t n, size_t copied,
                        size_t *outlen)
{
	if (!any) {
		buf_free(out);
		return NULL;
	}
	buf_append(out, s + copied, n - copied);
	return buf_take(out, outlen);
}

/*
 * Secrets spelled with escapes: "\u0041KIA..." in a JSON file's text,
 * printf '\x67hp_...' or $'\147hp_...' in a command, ?t=ghp%5F... in a
 * URL. The text is read with those escapes decoded and every match that
 * covers one is redacted in the original (a match with none is the plain
 * passes' business). NULL when nothing matched; a text with no backslash
 * or percent sign costs two memchr.
 */
static char *escaped_pass(const char *s, size_t n, char *const *values, size_t *outlen)
{
	struct buf out;
	struct match m;
	size_t *map, dn = 0, i = 0, copied = 0, len;
	char *d;
	bool any = false;
	int c;

	if (!has_escape(s, n))
		return NULL;
	d = xmalloc(n + 1);
	map = xcalloc(n + 1, sizeof(*map));
	while (i < n) {
		map[dn] = i;
		if ((c = escaped_char(s, n, i, &len)) != 0) {
			d[dn++] = (char)c;
			i += len;
		} else {
			d[dn++] = s[i++];
		}
	}
	map[dn] = n;
	d[dn] = '\0';
	buf_init(&out, 0);
	pthread_once(&starts_once, starts_init);
	for (i = 0; i < dn;) {
		bool hit = match_value(d, dn, i, values, &m) || match_at(d, dn, i, ~0u, &m);
		if (!hit || m.end <= m.start || map[m.end] - map[m.start] == m.end - m.start ||
		    map[m.start] < copied) {
			i++;
			continue;
		}
		any = true;
		buf_append(&out, s + copied, map[m.start] - copied);
		buf_printf(&out, "[REDACTED:%s]", m.kind);
		copied = map[m.end];
		i = m.end;
	}
	free(d);
	free(map);
	return out_finish(&out, any, s, n, copied, outlen);
}

/*
 * What a spliced text holds at d[i]: the classifier's next token (searched
 * once, then kept while it lies ahead: *c), a value the policy granted, or
 * any of this file's matchers. False when nothing starts there.
 */
struct token_cache {
	size_t at, end; /* the classifier's next token; at == SIZE_MAX: none */
	const char *kind;
	bool known;
};

static bool splice_match(const char *d, size_t n, size_t i, char *const *values,
                         struct token_cache *c, struct match *m)
{
	struct span w;

	if (!c->known || c->at < i) {
		c->kind = classify_find_token(d + i, n - i, &w);
		c->at = c->kind ? i + w.off : SIZE_MAX;
		c->end = c->kind ? c->at + w.len : SIZE_MAX;
		c->known = true;
	}
	if (c->at == i) {
		*m = (struct match){c->at, c->end, c->kind};
		return true;
	}
	return match_value(d, n, i, values, m) || match_at(d, n, i, ~0u, m);
}

/*
 * Secrets the shell splices from pieces: gh''p_..., gh"p_"..., gh\p_...,
 * a backslash-newline inside one, and a password or credential whose value
 * goes on past a quote (PGPASSWORD=pa'$$'word, hun''ter2, Bearer "ab"cd):
 * the plain passes cut such a value at its first quote and stored the
 * rest. The text is read with quotes and backslashes dropped (line
 * continuations whole), and each match there that crosses a dropped byte is
 * redacted in the original, from its first character to its last; a match
 * that crosses none is the plain passes' business. Runs before them in each
 * round (after them, the first piece was a marker already and the rest no
 * value). NULL when nothing matched; a text with no quote or backslash
 * costs three memchr.
 */
static char *splice_pass(const char *s, size_t n, char *const *values, size_t *outlen)
{
	struct token_cache cache = {.known = false};
	struct buf out;
	struct match m;
	size_t *map, dn = 0, copied = 0, i;
	char *d;
	bool any = false;

	if (memchr(s, '\'', n) == NULL && memchr(s, '"', n) == NULL && memchr(s, '\\', n) == NULL)
		return NULL;
	d = xmalloc(n + 1);
	map = xmalloc((n + 1) * sizeof(*map));
	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
			i++; /* a line continuation: both go */
		else if (s[i] != '\'' && s[i] != '"' && s[i] != '\\') {
			map[dn] = i;
			d[dn++] = s[i];
		}
	}
	d[dn] = '\0';
	buf_init(&out, 0);
	pthread_once(&starts_once, starts_init);
	for (i = 0; i < dn;) {
		/* spliced: the original span is longer than the match */
		if (!splice_match(d, dn, i, values, &cache, &m) || m.end <= m.start ||
		    map[m.end - 1] - map[m.start] == m.end - 1 - m.start || map[m.start] < copied) {
			i++;
			continue;
		}
		buf_append(&out, s + copied, map[m.start] - copied);
		buf_printf(&out, "[REDACTED:%s]", m.kind);
		copied = map[m.end - 1] + 1;
		any = true;
		i = m.end;
	}
	free(d);
	free(map);
	return out_finish(&out, any, s, n, copied, outlen);
}

char *redact_text(const char *s, size_t n, char *const *values, size_t *outlen)
{
	char *cur = escaped_pass(s, n, values, &n), *next;
	size_t len = n;

	/* To a fixed point: a replacement can make a word boundary that lets a
	 * shape after it match, and redacting twice must change nothing. */
	bool changed = true;

	for (int round = 0; round < 4 && changed; round++) {
		changed = false;
		/* first: a value the plain pass cuts at its first quote would
		 * then be a marker and a rest no matcher takes for a value */
		if (memchr(cur ? cur : s, '\0', len) == NULL &&
		    (next = splice_pass(cur ? cur : s, len, values, &len)) != NULL) {
			free(cur);
			cur = next;
			changed = true;
		}
		if ((next = redact_pass(cur ? cur : s, len, values, &len)) != NULL) {
			free(cur);
			cur = next;
			changed = true;
		}
		if (memchr(cur ? cur : s, '\0', len) == NULL &&
		    (next = classifier_pass(cur ? cur : s, len, &len)) != NULL) {
			free(cur);
			cur = next;
			changed = true;
		}
	}
	/* at a fixed point the last round's classifier pass found nothing, and
	 * classifier_rest() would search the same text for the same again */
	if (changed && (next = classifier_rest(cur ? cur : s, len, &len)) != NULL) {
		free(cur);
		cur = next;
	}
	if (cur && outlen)
		*outlen = len;
	return cur;
}

static json_t *redact_string(json_t *v, char *const *values)
{
	size_t n;
	char *r = redact_text(json_string_value(v), json_string_length(v), values, &n);
	json_t *out;

	if (r == NULL)
		return json_incref(v);
	out = json_stringn(r, n);
	free(r);
	return out ? out : json_string("[REDACTED:unencodable]");
}

/* A header object's key: Authorization or Proxy-Authorization, any case. */
static bool auth_key(const char *key)
{
	size_t n = strlen(key), len = sizeof(auth_header) - 1;

	return n >= len && strcasecmp(key + n - len, auth_header) == 0 &&
	       (n == len || strcasecmp(key, "proxy-authorization") == 0);
}

/* s (n bytes) with s[start, end) marked as a kind of secret, then
 * whatever else redact_text finds in it. */
static json_t *mark_redacted(const char *s, size_t n, size_t start, size_t end,
                             const char *kind, char *const *values)
{
	json_t *marked, *out;
	struct buf b;
	char *text;
	size_t len;

	buf_init(&b, 0);
	buf_append(&b, s, start);
	buf_printf(&b, "[REDACTED:%s]", kind);
	buf_append(&b, s + end, n - end);
	text = buf_take(&b, &len);
	marked = json_stringn(text, len);
	free(text);
	if (marked == NULL)
		return json_string("[REDACTED:unencodable]");
	out = redact_string(marked, values);
	json_decref(marked);
	return out;
}

/* An Authorization header's value ({"Authorization": "Bearer ..."}): its
 * credential, then whatever else the text holds. */
static json_t *redact_auth_value(json_t *v, char *const *values)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	struct match m;

	if (!match_credential(s, n, 0, &m))
		return redact_string(v, values);
	return mark_redacted(s, n, m.start, m.end, m.kind, values);
}

/* True when argv's word k follows `KEYWORD WORD password`, a netrc entry
 * in words (`echo machine h login bob password SECRET`). */
static bool argv_netrc(json_t *argv, size_t k)
{
	const char *key = k >= 3 ? json_string_value(json_array_get(argv, k - 3)) : NULL;
	const char *pw = k >= 1 ? json_string_value(json_array_get(argv, k - 1)) : NULL;

	if (key == NULL || pw == NULL || strcmp(pw, "password") != 0)
		return false;
	for (size_t t = 0; t < nitems(netrc_keys); t++)
		if (strcmp(key, netrc_keys[t]) == 0)
			return true;
	return false;
}

/* The offset in argv's word k of the password an option gives there
 * (["mysql", "-pSECRET"], ["curl", "-u", "bob:SECRET"]), with the words
 * before as the command; -1 when none. */
static long argv_password(json_t *argv, size_t k)
{
	json_t *w = json_array_get(argv, k);
	const char *s = json_string_value(w);
	const char *prev = k > 0 ? json_string_value(json_array_get(argv, k - 1)) : NULL;
	size_t n = json_string_length(w), v = 0, at = 0, o;
	struct runs r = {argv_runs, NULL, k, argv};
	bool hit = false;
	char sep = 0;
	const char *opt = s;

	if (argv_netrc(argv, k))
		return secret_value(s, 0, n) ? 0 : -1;
	if (s[0] == '-' && (o = option_name(s, n)) >= 2)
		hit = option_value(s, o, o < n, &r, &at, &sep) == OV_HERE;
	if (hit) {
		v = at;
	} else if (prev && prev[0] == '-' && s[0] != '-' &&
	           (o = option_name(prev, strlen(prev))) >= 2) {
		r.i = k - 1;
		opt = prev;
		hit = option_value(prev, o, prev[o] != '\0', &r, &at, &sep) == OV_NEXT;
	}
	if (!hit || !after_sep(s, &v, n, sep) || !secret_value(s, v, n) ||
	    (credential_option(opt, o) && !credential_value(s, v, n)))
		return -1;
	return (long)v;
}

/* A word of an argv: the password an option takes in it or as the word
 * after it; then what redact_text finds. */
static json_t *redact_argv_word(json_t *argv, size_t k, char *const *values)
{
	json_t *w = json_array_get(argv, k);
	long v = argv_password(argv, k);

	if (v < 0)
		return redact_string(w, values);
	return mark_redacted(json_string_value(w), json_string_length(w), (size_t)v,
	                     json_string_length(w), "password", values);
}

#define ARGV_SECRETS_MAX 64 /* option passwords gathered from one event */
#define ARGV_SECRET_MIN 4   /* shorter ones would blank ordinary text */

/* Appends to found (at most ARGV_SECRETS_MAX, NULL-terminated) the
 * passwords options give in v's argv words; returns the new count. */
static size_t argv_secrets(json_t *v, char **found, size_t n)
{
	json_t *item;
	const char *key;
	size_t i;
	long at;

	if (json_is_object(v))
		json_object_foreach(v, key, item) n = argv_secrets(item, found, n);
	else if (json_is_array(v))
		json_array_foreach(v, i, item) {
			if (!json_is_string(item)) {
				n = argv_secrets(item, found, n);
			} else if (n < ARGV_SECRETS_MAX && (at = argv_password(v, i)) >= 0 &&
			           json_string_length(item) - (size_t)at >= ARGV_SECRET_MIN) {
				found[n++] = xstrdup(json_string_value(item) + at);
				found[n] = NULL;
			}
		}
	return n;
}

/*
 * The key to store: *k (redacted, may be NULL) or key. Two keys redacted to
 * one ({"ghp_A...": "x", "ghp_B...": "y"}) kept only the last value, so
 * what the agent sent under the first never reached the log; a repeated
 * key gets "#2", "#3", ... (*k is replaced; caller frees it).
 */
static const char *unique_key(json_t *obj, char **k, const char *key)
{
	const char *base = *k ? *k : key;
	char *next;

	if (json_object_get(obj, base) == NULL)
		return base;
	for (int i = 2;; i++) {
		next = xasprintf("%s#%d", base, i);
		if (json_object_get(obj, next) == NULL)
			break;
		free(next);
	}
	free(*k);
	*k = next;
	return next;
}

static json_t *redact_json_walk(json_t *v, char *const *values)
{
	json_t *out, *item;
	const char *key;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return redact_string(v, values);
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach(v, i, item) json_array_append_new(
			out, json_is_string(item) ? redact_argv_word(v, i, values) : redact_json_walk(item, values));
		return out;
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach(v, key, item) {
			size_t n;
			char *k = redact_text(key, strlen(key), values, &n);
			json_object_set_new(out, unique_key(out, &k, key),
			                    auth_key(key) && json_is_string(item)
			                        ? redact_auth_value(item, values)
			                        : redact_json_walk(item, values));
			free(k);
		}
		return out;
	case JSON_INTEGER:
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		break;
	}
	return json_incref(v);
}

/*
 * The passwords options give in argv words (commands) are redacted from
 * every other string of the same body too: the classifier also lists
 * them as paths a command reads ("reads": ["/wd/SECRET"] for `tool
 * --password SECRET out.txt`), where no shape shows them.
 */
json_t *redact_json(json_t *v, char *const *values)
{
	char *found[ARGV_SECRETS_MAX + 1] = {NULL};
	char **all;
	size_t n = argv_secrets(v, found, 0), m = 0;
	json_t *out;

	if (n == 0)
		return redact_json_walk(v, values);
	while (values && values[m])
		m++;
	all = xcalloc(m + n + 1, sizeof(*all));
	for (size_t i = 0; i < m; i++)
		all[i] = values[i];
	for (size_t i = 0; i < n; i++)
		all[m + i] = found[i];
	out = redact_json_walk(v, all);
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	free(all);
	return out;
}
