/*
 * shell_rules_net.c: programs that reach the network. Every one is at
 * least high (net.fetch); sending local data (curl -d @file, -T, scp to a
 * remote, rsync to a remote) is net.upload; listening is net.listen; the
 * hosts they name go into hosts[].
 */
#include <string.h>
#include <strings.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void fetch(struct cctx *x, const struct cmdv *c, const char *what)
{
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n), "%s", what);
}

static void upload(struct cctx *x, const struct word *w, const char *what)
{
	cls_add(x, TIER_HIGH, "net.upload", shell_span_word(x, w), "%s", what);
}

/* A data argument: @file and <file read a file, as does name@file of
 * --data-urlencode (urlencode); anything else is data. */
static void data_arg(struct cctx *x, const struct word *w, const char *v, bool urlencode)
{
	const char *at = strchr(v, '@');

	if (v[0] == '@' && strcmp(v, "@-") != 0)
		paths_read(x, w, v + 1);
	else if (at && strchr(v, '=') && strchr(v, '=') < at)
		paths_read(x, w, at + 1); /* -F name=@file */
	else if (urlencode && at && !strchr(v, '=') && at[1] && strcmp(at + 1, "-") != 0)
		paths_read(x, w, at + 1);
	else if ((at = strchr(v, '<')) != NULL && strchr(v, '=') && strchr(v, '=') < at)
		paths_read(x, w, at + 1);
	upload(x, w, "sends data to a remote host");
}

static const char curl_args[] = "dFTXoHuAbceEhKrwxYyzCmQtUD";

/* curl's files besides -o: what it writes (the cookie jar, a header dump,
 * trace and error logs, the --libcurl program, an etag, HSTS and alt-svc
 * cache) and what it reads (-b FILE, a client key or certificate, a netrc:
 * credentials). Every occurrence counts, as -o's: `curl -o a URL -o
 * ~/.bashrc URL` writes both. They were not recorded: `curl -c ~/.bashrc
 * URL` was net.fetch alone, which a host allow rule lets through. */
static const struct {
	char letter;
	const char *lname;
	bool write;
} curl_files[] = {
	{'o', "--output", true}, {'c', "--cookie-jar", true}, {'D', "--dump-header", true},
	{0, "--trace", true}, {0, "--trace-ascii", true}, {0, "--libcurl", true},
	{0, "--stderr", true}, {0, "--etag-save", true}, {0, "--hsts", true},
	{0, "--alt-svc", true}, {0, "--output-dir", true}, {'b', "--cookie", false},
	{'E', "--cert", false}, {0, "--key", false}, {0, "--netrc-file", false},
	{0, "--etag-compare", false}, {0, "--cacert", false},
};

static void curl_file_opts(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		for (size_t k = 0; k < nitems(curl_files); k++) {
			size_t j = i;
			const char *v;
			const struct word *w = opt_value_at(c, &j, curl_files[k].letter,
			                                    curl_files[k].lname, curl_args, &v);
			if (w == NULL)
				continue;
			if (curl_files[k].write && strcmp(v, "-") != 0 && strcmp(v, "%") != 0)
				paths_write(x, w, v, shell_span_word(x, w));
			else if (!curl_files[k].write && !(curl_files[k].letter == 'b' && strchr(v, '=')))
				paths_read(x, w, v); /* -b NAME=VALUE is a cookie, not a file */
			i = j;
			break;
		}
}

/* curl --variable NAME@FILE reads FILE, --variable %NAME imports an
 * environment variable, for --expand-data, --expand-url ... to send (curl
 * 8.3): `curl --variable x@.env --expand-data '{{x}}' URL` was net.fetch
 * alone. Every occurrence counts. */
static void curl_variables(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const char *v, *at;
		const struct word *w = opt_value_at(c, &i, 0, "--variable", curl_args, &v);
		if (w == NULL)
			continue;
		if (v[0] == '%' && secrets_env_name(v + 1, strcspn(v + 1, "=")))
			cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, w),
			        "imports $%.*s, an environment variable that holds a credential",
			        (int)strcspn(v + 1, "="), v + 1);
		else if ((at = strchr(v, '@')) != NULL && (!strchr(v, '=') || strchr(v, '=') > at) &&
		         at[1] && strcmp(at + 1, "-") != 0)
			paths_read(x, w, at + 1);
	}
}

static void rule_curl(struct cctx *x, struct cmdv *c)
{
	static const char *const datas[] = {"--data", "--data-binary", "--data-raw",
	                                    "--data-ascii", "--data-urlencode", "--form",
	                                    "--form-string", "--json", "--upload-file"};
	size_t idx[32], n = opt_operands(c, 1, curl_args, idx, nitems(idx));
	const char *v;
	const struct word *w;

	for (size_t i = 0; i < n; i++)
		net_add_fetch_url(x, c->w[idx[i]].val);
	if (opt_value(c, 0, "--url", NULL, &v) != NULL) /* --url=URL, not an operand */
		net_add_fetch_url(x, v);
	if ((w = opt_value(c, 'd', NULL, curl_args, &v)) || (w = opt_value(c, 'F', NULL, curl_args, &v)))
		data_arg(x, w, v, false);
	if ((w = opt_value(c, 'T', NULL, curl_args, &v)) != NULL) {
		paths_read(x, w, v);
		upload(x, w, "uploads a local file");
	}
	for (size_t i = 0; i < nitems(datas); i++)
		if ((w = opt_value(c, 0, datas[i], NULL, &v)) != NULL)
			data_arg(x, w, v, strcmp(datas[i], "--data-urlencode") == 0);
	if ((w = opt_value(c, 'X', "--request", curl_args, &v)) != NULL &&
	    strcmp(v, "GET") != 0 && strcmp(v, "HEAD") != 0)
		upload(x, w, "sends a request that changes remote state");
	curl_file_opts(x, c);
	if ((w = opt_value(c, 'K', "--config", curl_args, &v)) != NULL)
		paths_read(x, w, v);
	curl_variables(x, c);
	/* where the bytes go: a proxy, or --connect-to HOST:PORT:TO:PORT */
	if ((w = opt_value(c, 'x', "--proxy", curl_args, &v)) != NULL ||
	    (w = opt_value(c, 0, "--preproxy", NULL, &v)) != NULL)
		net_add_fetch_url(x, v);
	if ((w = opt_value(c, 0, "--connect-to", NULL, &v)) != NULL && strchr(v, ':') &&
	    strchr(strchr(v, ':') + 1, ':')) {
		const char *to = strchr(strchr(v, ':') + 1, ':') + 1;
		net_add_host(x, to, strcspn(to, ":"));
	}
	if (opt_short(c, 'O', curl_args) || opt_long(c, "--remote-name")) {
		struct word here = c->w[0];
		here.val = ".";
		paths_write(x, &here, ".", shell_span_words(x, c->w, c->n));
	}
	fetch(x, c, "fetches from the network");
}

/* wget's log and cookie files (-o, -a, --save-cookies, --warc-file ...:
 * written; --load-cookies read), and the wgetrc commands of -e that name
 * one (`-e output_document=FILE`): they were not recorded. */
static const struct {
	char letter;
	const char *lname, *rc;
	bool write;
} wget_files[] = {
	{'o', "--output-file", "logfile", true}, {'a', "--append-output", NULL, true},
	{0, "--save-cookies", "save_cookies", true}, {0, "--warc-file", "warc_file", true},
	{0, "--rejected-log", "rejected_log", true}, {0, "--hsts-file", "hsts_file", true},
	{0, "--load-cookies", "load_cookies", false}, {0, NULL, "output_document", true},
	{0, NULL, "dir_prefix", true}, {0, NULL, "post_file", false},
};

static void wget_rc(struct cctx *x, const struct word *w, const char *cmd)
{
	size_t n = strcspn(cmd, " \t=");
	const char *v = cmd + n;

	v += strspn(v, " \t");
	if (*v != '=')
		return;
	v += 1 + strspn(v + 1, " \t");
	for (size_t k = 0; k < nitems(wget_files); k++) {
		const char *rc = wget_files[k].rc;
		if (rc == NULL || strlen(rc) != n || strncasecmp(cmd, rc, n) != 0 || !*v)
			continue;
		if (wget_files[k].write && strcmp(v, "-") != 0)
			paths_write(x, w, v, shell_span_word(x, w));
		else if (!wget_files[k].write)
			paths_read(x, w, v);
	}
}

static void wget_file_opts(struct cctx *x, const struct cmdv *c, const char *args)
{
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		size_t j = i;
		const char *v;
		const struct word *w = opt_value_at(c, &j, 'e', "--execute", args, &v);
		if (w) {
			wget_rc(x, w, v);
			i = j;
			continue;
		}
		for (size_t k = 0; k < nitems(wget_files); k++) {
			if (wget_files[k].lname == NULL && wget_files[k].letter == 0)
				continue;
			j = i;
			w = opt_value_at(c, &j, wget_files[k].letter, wget_files[k].lname, args, &v);
			if (w == NULL)
				continue;
			if (wget_files[k].write)
				paths_write(x, w, v, shell_span_word(x, w));
			else
				paths_read(x, w, v);
			i = j;
			break;
		}
	}
}

static void rule_wget(struct cctx *x, struct cmdv *c)
{
	static const char args[] = "OoaPiBeTtUwQlAR";
	size_t idx[32], n = opt_operands(c, 1, args, idx, nitems(idx));
	const char *v;
	const struct word *w;
	struct word here = c->w[0];

	for (size_t i = 0; i < n; i++)
		net_add_fetch_url(x, c->w[idx[i]].val);
	if ((w = opt_value(c, 0, "--post-file", NULL, &v)) ||
	    (w = opt_value(c, 0, "--body-file", NULL, &v))) {
		paths_read(x, w, v);
		upload(x, w, "uploads a local file");
	}
	if ((w = opt_value(c, 0, "--post-data", NULL, &v)) || (w = opt_value(c, 0, "--body-data", NULL, &v)))
		upload(x, w, "sends data to a remote host");
	if ((w = opt_value(c, 'i', "--input-file", args, &v)) != NULL)
		paths_read(x, w, v);
	if ((w = opt_value(c, 0, "--use-askpass", NULL, &v)) != NULL && *v)
		rules_hook(x, w, v, strlen(v), "wget runs the --use-askpass program");
	wget_file_opts(x, c, args);
	if ((w = opt_value(c, 'O', "--output-document", args, &v)) != NULL) {
		if (strcmp(v, "-") != 0)
			paths_write(x, w, v, shell_span_word(x, w));
	} else if ((w = opt_value(c, 'P', "--directory-prefix", args, &v)) != NULL) {
		paths_write(x, w, v, shell_span_word(x, w));
	} else if (!opt_long(c, "--spider")) {
		here.val = ".";
		paths_write(x, &here, ".", shell_span_words(x, c->w, c->n));
	}
	fetch(x, c, "fetches from the network");
}

/* One request item of httpie or xh (`http [METHOD] URL ITEM...`): name@file
 * uploads a file, name=@file and name:=@file send one as a field, and
 * name:@file reads a header from one; name=value and name:=json are a
 * body too (a POST). name==value (a query) and Name:value (a header)
 * send nothing of the machine's. The files were not read (f@.env was
 * net.fetch alone), nor a body an upload. */
static void httpie_item(struct cctx *x, const struct word *w)
{
	char path[CLS_MAX_PATH];
	const char *v = w->val, *s = v + strcspn(v, "=:@"), *file = NULL;
	bool body = true;

	if (*s == '\0' || (s[0] == '=' && s[1] == '='))
		return;
	if (s[0] == '@') /* name@file;type=MIME, or a bare @file body */
		file = s + 1;
	else if (s[0] == '=' && s[1] == '@')
		file = s + 2;
	else if (s[0] == ':' && s[1] == '=' && s[2] == '@')
		file = s + 3;
	else if (s[0] == ':' && s[1] == '@')
		file = s + 2, body = false;
	else if (s[0] == ':' && s[1] != '=')
		return;
	if (file && *file) {
		size_t n = s[0] == '@' ? strcspn(file, ";") : strlen(file);
		if (n < sizeof(path)) {
			memcpy(path, file, n);
			path[n] = '\0';
			paths_read(x, w, path);
		}
	}
	if (body)
		upload(x, w, file ? "uploads a local file" : "sends data to a remote host");
}

static void rule_httpie(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "aAbcjsv", idx, nitems(idx)), i = 0;
	const char *m = n ? c->w[idx[0]].val : "";

	if (n && *m && strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(m))
		i++; /* METHOD */
	if (i < n) /* the URL; the items are no hosts (f@.env was one) */
		net_add_operand(x, &c->w[idx[i]]);
	for (i++; i < n; i++)
		httpie_item(x, &c->w[idx[i]]);
	if ((c->in == IN_FILE || c->in == IN_PIPE) && !opt_long(c, "--ignore-stdin") &&
	    !opt_short(c, 'I', "aAbcjsv"))
		upload(x, &c->w[0], "sends its input as the request body");
}

/* A connection's program fed a file or a pipe sends it to the other end:
 * `nc host 80 < f` and `cat f | nc host 80` upload f (they were net.fetch,
 * as for a connection that only reads). */
static void sends_input(struct cctx *x, const struct cmdv *c)
{
	if (c->in == IN_FILE || c->in == IN_PIPE)
		upload(x, &c->w[0], "sends its input (a file or a pipe) to the remote host");
}

/* ftp, sftp, lftp, tftp commands given as input (`sftp h <<< 'put .env'`,
 * `printf 'put .env' | ftp h`): put, mput, reput, send and append upload,
 * and a word that names a secret is a read of it. They were net.fetch
 * alone. */
static void transfer_commands(struct cctx *x, const struct cmdv *c)
{
	static const char puts_[] = "put mput reput send append";
	char tok[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	const char *p = c->in_text, *end = p ? p + c->in_len : NULL;
	bool put = false;

	if (p == NULL || (c->in != IN_DOC && c->in != IN_PIPE))
		return;
	while (p < end) {
		size_t n = 0;
		while (p < end && strchr(" \t\n;", *p))
			p++;
		while (p + n < end && !strchr(" \t\n;", p[n]))
			n++;
		if (n && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			put |= word_listed(puts_, tok);
			if (paths_resolve(x, tok, abs, sizeof(abs)) && secrets_path(x, abs))
				paths_read(x, &c->w[0], tok);
		}
		p += n;
	}
	if (put)
		upload(x, &c->w[0], "uploads files named in its commands");
}

/* dig $(cmd).x.test, ping -p $(xxd -p f) x: a name or a pattern made at
 * run time sends what the substitution prints to the resolver or host
 * (`dig $(whoami).x.test` was net.fetch, as a lookup of a fixed name). */
static void rule_probe_data(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->w[i].flags & W_SUBST) {
			upload(x, &c->w[i], "sends what a command prints inside a host name or probe "
			                    "(DNS or ICMP as a channel out)");
			return;
		}
}

/* serve, http-server, miniserve ... DIR (or the current directory):
 * `serve ~` hands the home's keys to whoever connects. Their short options
 * that take a value, most of them: port, listen address, config, index. */
static void rule_file_server(struct cctx *x, struct cmdv *c)
{
	rules_serves(x, c, "lpaci", 'd', true);
}

/* busybox httpd -h HOME (else the current directory) */
static void rule_httpd(struct cctx *x, struct cmdv *c)
{
	rules_serves(x, c, "pchruM", 'h', false);
}

/* aria2c --on-download-complete=PROG (and the other events) runs PROG
 * with the download's path: it was net.fetch alone. */
static void rule_aria2c(struct cctx *x, struct cmdv *c)
{
	static const char *const hooks[] = {"--on-download-complete", "--on-download-start",
	                                    "--on-download-error", "--on-download-pause",
	                                    "--on-download-stop", "--on-bt-download-complete"};
	const struct word *w;
	const char *v;

	for (size_t i = 0; i < nitems(hooks); i++)
		if ((w = opt_value(c, 0, hooks[i], NULL, &v)) != NULL && *v)
			rules_hook(x, w, v, strlen(v), "aria2c runs a program when a download ends");
}

/* nc/ncat/netcat/telnet/ftp HOST [PORT] */
static void rule_nc(struct cctx *x, struct cmdv *c)
{
	static const char args[] = "eciIOpPqsTvwWxXmM";
	size_t idx;
	const char *v;

	if (opt_short(c, 'l', args) || opt_long(c, "--listen"))
		cls_add(x, TIER_HIGH, "net.listen", shell_span_words(x, c->w, c->n),
		        "listens for network connections");
	const struct word *w;

	if ((w = opt_value(c, 'e', "--exec", args, &v)) != NULL ||
	    (w = opt_value(c, 'c', "--sh-exec", args, &v)) != NULL)
		rules_hook(x, w, v, strlen(v), "connects a program to a network socket (a remote shell)");
	else if (opt_long(c, "--lua-exec"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "connects a program to a network socket (a remote shell)");
	if (opt_operands(c, 1, args, &idx, 1) == 1 && strspn(c->w[idx].val, "0123456789") != c->w[idx].len)
		net_add_host(x, c->w[idx].val, c->w[idx].len);
	fetch(x, c, "opens a network connection");
	sends_input(x, c);
	transfer_commands(x, c);
}

/* socat's file addresses (FILE:, OPEN:, GOPEN:, each ,OPTIONS after the
 * path): a read of the path, which the relay sends on (`socat FILE:f
 * TCP:h:80` was net.fetch with f unrecorded). */
static void socat_file(struct cctx *x, const struct word *w, const char *a)
{
	static const char *const kinds[] = {"FILE:", "OPEN:", "GOPEN:"};
	char path[CLS_MAX_PATH];

	for (size_t k = 0; k < nitems(kinds); k++) {
		size_t l = strlen(kinds[k]), n;
		if (strncasecmp(a, kinds[k], l) != 0) /* first: a shorter word ends before a + l */
			continue;
		n = strcspn(a + l, ",");
		if (n == 0 || n >= sizeof(path))
			continue;
		memcpy(path, a + l, n);
		path[n] = '\0';
		paths_read(x, w, path);
		upload(x, w, "relays a local file over the network");
	}
}

static void rule_socat(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		const char *colon = strchr(a, ':');
		socat_file(x, &c->w[i], a);
		if (strncasecmp(a, "EXEC:", 5) == 0 || strncasecmp(a, "SYSTEM:", 7) == 0)
			rules_hook(x, &c->w[i], colon + 1, strcspn(colon + 1, ","), /* ,OPTIONS */
			           "connects a program to a socket");
		if (strcasestr(a, "LISTEN"))
			cls_add(x, TIER_HIGH, "net.listen", shell_span_word(x, &c->w[i]),
			        "listens for network connections");
		else if (colon && strncasecmp(a, "TCP", 3) == 0) {
			const char *h = colon + 1, *e = strchr(h, ':');
			net_add_host(x, h, e ? (size_t)(e - h) : strlen(h));
		}
	}
	fetch(x, c, "relays data over the network");
	sends_input(x, c);
}

static const char ssh_args[] = "bcDEeFIiJLlmOopQRSWw";

/* ssh -o KEY=VALUE (or "KEY VALUE") options before the host whose value
 * is a command line ssh runs: locally (ProxyCommand, LocalCommand,
 * KnownHostsCommand) or on the host (RemoteCommand, judged like ssh HOST
 * CMD). scp and sftp pass their -o to ssh (argopts: the caller's short
 * options that take a value). */
static void ssh_hooks(struct cctx *x, const struct cmdv *c, size_t end, const char *argopts)
{
	static const char *const keys[] = {"ProxyCommand", "LocalCommand", "KnownHostsCommand",
	                                   "RemoteCommand"};
	const struct word *w;
	const char *v;

	for (size_t i = 1; i < end; i++) {
		if ((w = opt_value_at(c, &i, 'o', NULL, argopts, &v)) == NULL)
			continue;
		for (size_t k = 0; k < nitems(keys); k++) {
			size_t l = strlen(keys[k]);
			if (strncasecmp(v, keys[k], l) == 0 && strchr("= \t", v[l]) && v[l]) {
				v += l + strspn(v + l, "= \t");
				rules_hook(x, w, v, strlen(v), "an ssh option runs a command");
			}
		}
	}
}

/* -o ForwardAgent=yes (or "ForwardAgent yes", any case) before the host. */
static bool ssh_forwards_agent(const struct cmdv *c, size_t end)
{
	for (size_t i = 1; i < end; i++) {
		const char *v;
		if (opt_value_at(c, &i, 'o', NULL, ssh_args, &v) == NULL ||
		    strncasecmp(v, "ForwardAgent", 12) != 0)
			continue;
		v += 12 + strspn(v + 12, "= \t");
		if (strncasecmp(v, "no", 2) != 0)
			return true;
	}
	return false;
}

/* ssh HOST CMD...: the remote shell joins the words and runs them; what
 * it would do there is judged like a local script (a remote rm -rf / is
 * no less catastrophic). */
static void rule_ssh(struct cctx *x, struct cmdv *c)
{
	size_t at;
	const struct word *h = opt_first(c, ssh_args, &at);

	ssh_hooks(x, c, h ? at : c->n, ssh_args);
	/* -E FILE appends ssh's log to FILE (it was not recorded) */
	for (size_t i = 1; i < (h ? at : c->n); i++) {
		const char *v;
		size_t j = i;
		const struct word *w = opt_value_at(c, &i, 'E', NULL, ssh_args, &v);
		if (w)
			paths_write(x, w, v, shell_span_word(x, w));
		else if ((w = opt_value_at(c, &j, 'R', NULL, ssh_args, &v)) != NULL)
			cls_add(x, TIER_HIGH, "net.listen", shell_span_word(x, w),
			        "ssh -R %s opens a port on the remote host that leads to this machine",
			        v);
	}
	/* -A (or ForwardAgent=yes) lends the agent's keys to the remote host:
	 * whoever is root there signs with them while the session lasts */
	if (opt_short(c, 'A', ssh_args) || ssh_forwards_agent(c, h ? at : c->n))
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, h ? at : c->n),
		        "ssh forwards the agent: the remote host can use this machine's keys");
	if (h) {
		const char *s = strchr(h->val, '@');
		s = s ? s + 1 : h->val;
		net_add_host(x, s, strcspn(s, ":"));
	}
	fetch(x, c, h && at + 1 < c->n ? "runs a command on a remote host over ssh"
	                               : "opens an ssh session to a remote host");
	if (h && at + 1 < c->n) {
		rules_remote_env(x, c, at + 1, "remote host");
		shell_script_words(x, c, at + 1);
	}
}

/* rsync --delete (any of its forms) deletes what the source lacks from
 * the target: an empty source over ~ empties the home, as rm -rf of it. */
static void rsync_deletes(struct cctx *x, const struct cmdv *c, const struct word *target)
{
	static const char *const dels[] = {"--delete", "--delete-before", "--delete-during",
		"--delete-delay", "--delete-after", "--delete-excluded", "--delete-missing-args",
		"--remove-source-files"};
	char abs[CLS_MAX_PATH];

	for (size_t i = 0; i < nitems(dels); i++) {
		if (!opt_long(c, dels[i]))
			continue;
		cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n),
		        "deletes files that are not in the source");
		if (i < nitems(dels) - 1 && target && !strchr(target->val, ':') &&
		    paths_resolve(x, target->val, abs, sizeof(abs)) && paths_critical(x, abs))
			cls_add(x, TIER_CRITICAL, "fs.delete.root", shell_span_word(x, target),
			        "deletes everything in %s that the source lacks", abs);
		return;
	}
}

/* scp/rsync/sftp: remote operands are host:path; the last is the target. */
static void rule_copy_remote(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "cFiloPSJefTB", idx, nitems(idx));
	bool remote_src = false;
	const struct word *w;
	const char *v;

	/* the program that carries the copy: rsync -e/--rsh, scp/sftp -S;
	 * rsync --rsync-path runs on the remote, judged like ssh HOST CMD */
	if ((w = opt_value(c, strcmp(c->prog, "rsync") == 0 ? 'e' : 'S', "--rsh", "cFiloPSJefTB",
	                   &v)) != NULL)
		rules_hook(x, w, v, strlen(v), "runs another program to reach the remote host");
	if ((w = opt_value(c, 0, "--rsync-path", NULL, &v)) != NULL)
		rules_hook(x, w, v, strlen(v), "runs a command on the remote host");
	if (strcmp(c->prog, "rsync") != 0)
		ssh_hooks(x, c, c->n, "cFiloPSJefTB"); /* scp|sftp -o ProxyCommand=CMD */
	for (size_t i = 0; i < n; i++) {
		w = &c->w[idx[i]];
		bool remote = net_add_url(x, w->val);
		if (i + 1 < n)
			remote_src |= remote;
		if (i + 1 == n && remote && n > 1)
			upload(x, w, "copies local files to a remote host");
		else if (i + 1 == n && n > 1)
			paths_write(x, w, w->val, shell_span_word(x, w));
		else if (!remote)
			paths_read(x, w, w->val);
	}
	rsync_deletes(x, c, n ? &c->w[idx[n - 1]] : NULL);
	if (remote_src || strcmp(c->prog, "sftp") == 0 || n <= 1)
		fetch(x, c, "copies files over the network");
	if (strcmp(c->prog, "sftp") == 0)
		transfer_commands(x, c);
}

/* redis-cli [OPTIONS] COMMAND ...: FLUSHALL and FLUSHDB empty databases. */
static void rule_redis(struct cctx *x, struct cmdv *c)
{
	const struct word *w = opt_first(c, "hpasnurdic", NULL);

	if (w && (strcasecmp(w->val, "FLUSHALL") == 0 || strcasecmp(w->val, "FLUSHDB") == 0))
		cls_add(x, TIER_CRITICAL, "db.wipe", shell_span_words(x, c->w, c->n),
		        "%s deletes every key of the Redis database%s", w->val,
		        strcasecmp(w->val, "FLUSHALL") == 0 ? "s" : "");
}

/* Subcommands of cloud CLIs and secret managers that print secrets. */
static const struct {
	const char *prog, *words; /* words: the subcommand, space-separated */
} secret_verbs[] = {
	{"aws", "secretsmanager get-secret-value"}, {"aws", "ssm get-parameter"},
	{"aws", "ssm get-parameters"}, {"aws", "configure get"},
	{"aws", "configure export-credentials"}, {"aws", "sts get-session-token"},
	{"aws", "sts assume-role"}, {"gcloud", "secrets versions access"},
	{"gcloud", "auth print-access-token"}, {"gcloud", "auth print-identity-token"},
	{"az", "keyvault secret show"}, {"az", "account get-access-token"},
	{"kubectl", "get secret"}, {"kubectl", "get secrets"}, {"gh", "auth token"},
	{"heroku", "config"}, {"vault", "read"}, {"vault", "kv get"}, {"op", "read"},
	{"op", "item get"}, {"op", "inject"}, {"bw", "get"}, {"bw", "export"},
	{"doppler", "secrets"}, {"aws", "ecr get-login-password"},
	{"gcloud", "auth application-default print-access-token"}, {"bw", "list"},
	{"heroku", "auth:token"}, {"vault", "print token"},
	/* local stores: the desktop keyring, the kernel's, LastPass */
	{"secret-tool", "lookup"}, {"secret-tool", "search"}, {"keyctl", "print"},
	{"keyctl", "read"}, {"keyctl", "pipe"}, {"lpass", "show"}, {"lpass", "export"},
	/* review 14: tokens, keys and state with secrets in it (net.fetch alone);
	 * a sequence matches anywhere: az's `keys list` is storage's,
	 * cosmosdb's, servicebus's */
	{"aws", "get-authorization-token"}, {"gh", "auth git-credential"},
	{"terraform", "state pull"}, {"tofu", "state pull"}, {"pulumi", "config get"},
	{"aws", "secretsmanager batch-get-secret-value"}, {"aws", "kms decrypt"},
	{"aws", "iam create-access-key"}, {"aws", "sso get-role-credentials"},
	{"aws", "rds generate-db-auth-token"}, {"gcloud", "kms decrypt"},
	{"gcloud", "keys create"}, {"gcloud", "sql generate-login-token"},
	{"az", "keyvault secret download"}, {"az", "keys list"}, {"az", "list-keys"},
	{"az", "show-connection-string"}, {"az", "acr credential show"},
	{"az", "ad sp create-for-rbac"}, {"az", "ad sp credential reset"},
	{"az", "list-publishing-profiles"}, {"kubectl", "view-secret"}, {"oc", "extract"},
	{"helm", "get values"}, {"vault", "token create"}, {"glab", "config get token"},
};

/* The same when one of opts (space-separated) is given too: `terraform
 * output` hides sensitive values unless -json or -raw shows them (review
 * 14: these were net.fetch alone). */
static const struct {
	const char *prog, *words, *opts;
} secret_shows[] = {
	{"az", "acr login", "--expose-token -t"}, {"terraform", "output", "-json -raw"},
	{"glab", "auth status", "-t --show-token"},
	{"tofu", "output", "-json -raw"}, {"terraform", "show", "-json"}, {"tofu", "show", "-json"},
	{"pulumi", "stack output", "--show-secrets"}, {"pulumi", "config", "--show-secrets"},
	{"pulumi", "stack export", "--show-secrets"},
};

/* Whether c has one of the space-separated options (or OPT=VALUE). */
static bool has_any_opt(const struct cmdv *c, const char *opts)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		size_t n = strcspn(a, "=");
		for (const char *o = opts; *o; o += strcspn(o, " "), o += *o == ' ')
			if (strcspn(o, " ") == n && strncmp(o, a, n) == 0)
				return true;
	}
	return false;
}

/* True when the words of `seq` follow in order among c's non-option words,
 * starting where the first one appears (options and their values between
 * them are skipped: kubectl -n prod get secret x). */
static bool has_subcommand(const struct cmdv *c, const char *seq)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *q = seq;
		size_t k = i;
		while (*q && k < c->n) {
			size_t n = strcspn(q, " ");
			if (c->w[k].val[0] == '-' && k > i) {
				k++;
				continue;
			}
			if (strlen(c->w[k].val) != n || strncmp(c->w[k].val, q, n) != 0)
				break;
			q += n + (q[n] == ' ');
			k++;
		}
		if (*q == '\0')
			return true;
	}
	return false;
}

static bool secret_verb(struct cctx *x, const struct cmdv *c)
{
	const char *words = NULL;

	for (size_t i = 0; i < nitems(secret_verbs) && !words; i++)
		if (strcmp(secret_verbs[i].prog, c->prog) == 0 && has_subcommand(c, secret_verbs[i].words))
			words = secret_verbs[i].words;
	for (size_t i = 0; i < nitems(secret_shows) && !words; i++)
		if (strcmp(secret_shows[i].prog, c->prog) == 0 && has_subcommand(c, secret_shows[i].words) &&
		    has_any_opt(c, secret_shows[i].opts))
			words = secret_shows[i].words;
	if (words)
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
		        "%s %s prints stored secrets or credentials", c->prog, words);
	return words != NULL;
}

bool rules_secret_verb(struct cctx *x, const struct cmdv *c)
{
	return secret_verb(x, c);
}

static void rule_secret_cli(struct cctx *x, struct cmdv *c)
{
	secret_verb(x, c);
}

/* Tools airlock knows only by the verb (first word after the options) or
 * option that makes them print or write out secrets: decryptors (`sops
 * -d secrets.enc.yaml`, `ansible-vault view vault.yml`, `age -d -i key
 * x.age` turn a committed, encrypted file into the secrets in it) and
 * deploy CLIs' environment dumps (`netlify env:list`, `infisical export`),
 * clipboard readers.
 * They were unknown programs (medium, auto-run); their other forms stay as
 * unknown as they were. */
static const struct {
	const char *prog, *verbs, *opts; /* space-separated */
	const char *why;
} verb_secrets[] = {
	{"sops", "decrypt exec-file", "-d --decrypt", "decrypts secrets and shows or writes them out"},
	{"ansible-vault", "view decrypt edit", "", "decrypts secrets and shows or writes them out"},
	{"age", "", "-d --decrypt", "decrypts secrets and shows or writes them out"},
	{"rage", "", "-d --decrypt", "decrypts secrets and shows or writes them out"},
	{"git-crypt", "unlock export-key", "", "decrypts secrets and shows or writes them out"},
	{"kubeseal", "", "--recovery-unseal", "decrypts secrets and shows or writes them out"},
	{"netlify", "env:list env:get", "", "prints the site's environment variables"},
	{"railway", "variables", "", "prints the service's environment variables"},
	{"firebase", "functions:config:get", "", "prints the functions' config secrets"},
	{"infisical", "secrets export", "", "prints stored secrets"},
	{"chamber", "read export env", "", "prints stored secrets"},
	/* the clipboard, where password managers copy to (no verb, no option:
	 * every form reads it); the sandbox has no display, an approval may */
	{"pbpaste", "", "", "prints the clipboard, where passwords are copied to"},
	{"wl-paste", "", "", "prints the clipboard, where passwords are copied to"},
	{"xclip", "", "-o -out", "prints the clipboard, where passwords are copied to"},
	{"xsel", "", "-o --output", "prints the clipboard, where passwords are copied to"},
	/* the desktop keyring through its command-line clients */
	{"keyring", "get", "", "prints a password from the desktop keyring"},
	{"kwallet-query", "", "-r --read-password", "prints a password from KWallet"},
};

static void rule_verb_secrets(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "", idx, nitems(idx));
	const struct word *v = n ? &c->w[idx[0]] : NULL;

	/* the files, as an unknown program's operands are: path rules see them */
	for (size_t i = 0; i < n; i++)
		if (strchr(c->w[idx[i]].val, '/') || strchr(c->w[idx[i]].val, '.'))
			paths_read(x, &c->w[idx[i]], c->w[idx[i]].val);
	for (size_t i = 0; i < nitems(verb_secrets); i++) {
		if (strcmp(c->prog, verb_secrets[i].prog) != 0)
			continue;
		if ((v && word_listed(verb_secrets[i].verbs, v->val)) ||
		    (verb_secrets[i].opts[0] && has_any_opt(c, verb_secrets[i].opts)) ||
		    (!verb_secrets[i].verbs[0] && !verb_secrets[i].opts[0])) {
			cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
			        "%s %s", c->prog, verb_secrets[i].why);
			return;
		}
	}
	cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_word(x, &c->w[0]),
	        "%s: only the forms that print secrets are known", c->prog);
}

/* Cluster clients' probes that stay on this machine: the client's own
 * version and the kubeconfig's context names (what it prints holds no
 * credential; `kubectl config view`, which may, is not among them). Each
 * exactly so, the verb first, with only these options after it; every
 * other command talks to the cluster. */
static const struct {
	const char *prog, *verb, *sub; /* sub NULL: none */
	const char *opts;              /* allowed after it, space-separated */
} kube_local[] = {
	{"kubectl", "version", NULL, "--client --client=true -o json yaml -ojson -oyaml "
	                             "--output=json --output=yaml"},
	{"kubectl", "config", "current-context", ""},
	{"kubectl", "config", "get-contexts", "-o name -oname --output=name"},
	{"kubectl", "completion", NULL, "bash zsh fish powershell"},
	{"helm", "version", NULL, "--short"},
	{"helm", "completion", NULL, "bash zsh fish powershell"},
};

/* Whether w is one of the space-separated words of list. */

/* Whether c is one of kube_local: a literal verb, and only the words
 * listed after it (`kubectl version` without --client asks the server). */
static bool kube_probe(const struct cmdv *c)
{
	for (size_t i = 0; i < nitems(kube_local); i++) {
		size_t k = 2;
		bool client = strcmp(kube_local[i].verb, "version") != 0 ||
		              strcmp(kube_local[i].prog, "helm") == 0;
		if (strcmp(c->prog, kube_local[i].prog) != 0 || c->n < 2 ||
		    strcmp(c->w[1].val, kube_local[i].verb) != 0)
			continue;
		if (kube_local[i].sub && (c->n < 3 || strcmp(c->w[2].val, kube_local[i].sub) != 0))
			continue;
		k += kube_local[i].sub != NULL;
		for (; k < c->n; k++) {
			if (c->w[k].flags & (W_DYNAMIC | W_GLOB) || !word_listed(kube_local[i].opts, c->w[k].val))
				return false;
			client |= strncmp(c->w[k].val, "--client", 8) == 0;
		}
		return client;
	}
	return false;
}

/* kubectl, helm: talk to a cluster, but for kube_probe's; what they do
 * there by subcommand (shell_rules_cloud.c). helm --post-renderer PROG
 * runs PROG on the rendered manifests, `helm template` too: it was not
 * judged (`--post-renderer ./x.sh` was net.fetch alone). */
static void rule_kube(struct cctx *x, struct cmdv *c)
{
	const struct word *w;
	const char *v;

	for (size_t i = 1; strcmp(c->prog, "helm") == 0 && i < c->n; i++)
		if ((w = opt_value_at(c, &i, 0, "--post-renderer", "", &v)) != NULL)
			rules_hook(x, w, v, strlen(v), "helm runs the --post-renderer program");
	if (kube_probe(c))
		return;
	rules_cloud(x, c);
	secret_verb(x, c);
	if (strcmp(c->prog, "kubectl") == 0 && has_subcommand(c, "cp")) /* kubectl cp ~/.config p:/x */
		rules_tree_operands(x, c, 1);
}

/* File senders: VERB FILE... sends the files to another machine (croc
 * send, magic-wormhole's send, s3cmd put|sync, tailscale file cp, b2
 * upload-file, azcopy copy|sync, ffsend upload): net.upload, each local
 * operand read, so a secret among them is secrets.exfiltrate. Any other
 * verb receives or lists: net.fetch. They were unknown programs (medium;
 * `croc send .env` was secrets.read alone). "" sends whatever the verb. */
static const struct {
	const char *prog, *sends, *why;
} senders[] = {
	{"croc", "send", "sends files to another machine (croc)"},
	{"wormhole", "send", "sends files to another machine (magic-wormhole)"},
	{"s3cmd", "put sync cp mv", "uploads to S3"},
	{"tailscale", "file", "sends files over the tailnet"},
	{"b2", "upload-file upload_file sync", "uploads to Backblaze B2"},
	{"azcopy", "copy cp sync", "copies files to Azure storage"},
	{"ffsend", "upload u", "uploads a file to a share link"},
	{"pastebinit", "", "posts a file to a pastebin"},
};

static void rule_sender(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "", idx, nitems(idx));

	for (size_t k = 0; k < nitems(senders); k++) {
		bool any = senders[k].sends[0] == '\0';
		if (strcmp(c->prog, senders[k].prog) != 0)
			continue;
		if (!any && (n == 0 || !word_listed(senders[k].sends, c->w[idx[0]].val))) {
			fetch(x, c, "talks to a remote service");
			return;
		}
		for (size_t i = any ? 0 : 1; i < n; i++)
			if (strstr(c->w[idx[i]].val, "://") == NULL)
				paths_read(x, &c->w[idx[i]], c->w[idx[i]].val);
		cls_add(x, TIER_HIGH, "net.upload", shell_span_words(x, c->w, c->n), "%s",
		        senders[k].why);
		return;
	}
}

/* tailscale funnel|serve PORT publishes a local port (funnel: to the
 * internet); file cp sends files; the rest stays an unknown program, as
 * it was (tailscale status talks to the local daemon). */
static void rule_tailscale(struct cctx *x, struct cmdv *c)
{
	const struct word *v = opt_first(c, "", NULL);

	if (v && (strcmp(v->val, "funnel") == 0 || strcmp(v->val, "serve") == 0))
		cls_add(x, TIER_HIGH, "net.listen", shell_span_words(x, c->w, c->n),
		        "tailscale %s exposes a local port to the network", v->val);
	else if (v && strcmp(v->val, "file") == 0)
		rule_sender(x, c);
	else
		cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_word(x, &c->w[0]),
		        "tailscale: only funnel, serve and file are known");
}

/* ssh-keygen: -R HOST rewrites known_hosts (~/.ssh's, or -f FILE); -l,
 * -y, -F, -B and -L only read; anything else (a new key, -p, -c) writes
 * -f FILE (and FILE.pub), or a key under ~/.ssh without one. */
static void rule_ssh_keygen(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "abCDEfFGIJjKmMnNOPrRsStTVwzZ";
	const char *v, *def = "~/.ssh/id_ed25519";
	const struct word *f = opt_value(c, 'f', NULL, ao, &v);
	struct word k = c->w[0];

	if (opt_short(c, 'F', ao) && f == NULL) { /* searches ~/.ssh/known_hosts */
		k.val = paths_tilde(x, "~/.ssh/known_hosts");
		paths_read(x, &k, k.val);
		return;
	}
	if (opt_short(c, 'l', ao) || opt_short(c, 'y', ao) || opt_short(c, 'F', ao) ||
	    opt_short(c, 'B', ao) || opt_short(c, 'L', ao) || opt_short(c, 'Q', ao))
		return; /* the -f file was read by the argument scan */
	if (opt_short(c, 'R', ao))
		def = "~/.ssh/known_hosts";
	if (f) {
		paths_write(x, f, v, shell_span_word(x, f));
		return;
	}
	k.val = paths_tilde(x, def);
	paths_write(x, &k, k.val, shell_span_words(x, c->w, c->n));
}

/* A local secret store (secret-tool, keyctl, lpass): its reading verbs
 * are secrets.read, the others (store, clear, link) unknown. */
static void rule_secret_store(struct cctx *x, struct cmdv *c)
{
	if (!secret_verb(x, c))
		cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_words(x, c->w, c->n),
		        "%s changes or lists a secret store in ways airlock does not judge", c->prog);
}

/* terraform and tofu plan, apply, init and import reach providers and
 * state over the network; fmt and validate work on the files here:
 * fmt -check reads them, fmt rewrites them in place, validate runs the
 * providers init installed. A global option first (-chdir=DIR) and it is
 * not read so. */
static void rule_iac(struct cctx *x, struct cmdv *c)
{
	static const char *const checks[] = {"-check", "--check", "-write=false", "--write=false"};
	const char *v = c->n > 1 && !(c->w[1].flags & (W_DYNAMIC | W_GLOB)) ? c->w[1].val : "";
	struct span sp = shell_span_words(x, c->w, c->n);
	bool check = false, any = false;

	if (strcmp(v, "validate") == 0) {
		cls_add(x, TIER_MEDIUM, "exec.build", sp,
		        "checks the configuration with the providers init installed");
		return;
	}
	if (strcmp(v, "fmt") != 0) {
		rules_cloud(x, c); /* by subcommand: plan reads, destroy destroys */
		secret_verb(x, c);
		return;
	}
	for (size_t i = 2; i < c->n; i++)
		for (size_t k = 0; k < nitems(checks); k++)
			check |= strcmp(c->w[i].val, checks[k]) == 0;
	for (size_t i = 2; i < c->n; i++) {
		if (c->w[i].val[0] == '-')
			continue;
		any = true;
		if (check)
			paths_read(x, &c->w[i], c->w[i].val);
		else
			paths_write(x, &c->w[i], c->w[i].val, shell_span_word(x, &c->w[i]));
	}
	if (!check && !any) {
		struct word here = c->w[0];
		here.val = ".";
		here.flags = 0;
		paths_write(x, &here, ".", sp);
	}
}

/* openssl s_client connects, s_server listens; the rest work on files. */
/* openssl's -out and -keyout FILE are written, -in, -inkey and -key read. */
static void openssl_files(struct cctx *x, const struct cmdv *c)
{
	static const char *const outs[] = {"-out", "-keyout"}, *const ins[] = {"-in", "-inkey", "-key"};

	for (size_t i = 1; i + 1 < c->n; i++) {
		const struct word *f = &c->w[i + 1];
		for (size_t k = 0; k < nitems(outs); k++)
			if (strcmp(c->w[i].val, outs[k]) == 0)
				paths_write(x, f, f->val, shell_span_word(x, f));
		for (size_t k = 0; k < nitems(ins); k++)
			if (strcmp(c->w[i].val, ins[k]) == 0)
				paths_read(x, f, f->val);
	}
}

static void rule_openssl(struct cctx *x, struct cmdv *c)
{
	const char *v = c->n > 1 ? c->w[1].val : "";
	struct span sp = shell_span_words(x, c->w, c->n);

	if (strcmp(v, "s_client") == 0 || strcmp(v, "ocsp") == 0) {
		cls_add(x, TIER_HIGH, "net.fetch", sp, "openssl %s connects to a remote host", v);
		sends_input(x, c); /* s_client < f sends f */
	}
	else if (strcmp(v, "s_server") == 0)
		cls_add(x, TIER_HIGH, "net.listen", sp, "openssl s_server listens for connections");
	else if (strcmp(v, "version") != 0 && strcmp(v, "help") != 0 && strcmp(v, "x509") != 0)
		cls_add(x, x->o->unknown_program, "exec.unknown_program", sp,
		        "openssl %s reads and writes files airlock does not follow", v);
	openssl_files(x, c);
}

/* pass NAME shows NAME (show is the default verb); these verbs do not. */
static void rule_pass(struct cctx *x, struct cmdv *c)
{
	static const char quiet[] = " ls list find search init help version git rm mv cp ";
	const struct word *w = opt_first(c, "", NULL);
	char key[40];

	if (w == NULL)
		return; /* lists the store */
	snprintf(key, sizeof(key), " %s ", w->val);
	if (strlen(w->val) < sizeof(key) - 2 && strstr(quiet, key))
		return;
	cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
	        "%s %s prints passwords from the store", c->prog, w->val);
}

/* ansible HOSTS -a CMD runs CMD on every host (the command module, or
 * shell and raw): judged as a local script, as ssh's is. */
static void rule_ansible(struct cctx *x, struct cmdv *c)
{
	static const char *const runs[] = {"command", "shell", "raw", "ansible.builtin.command",
	                                   "ansible.builtin.shell", "ansible.builtin.raw"};
	const char *mod = "command", *args;
	const struct word *a = opt_value(c, 'a', "--args", "aimuefMkKtTlBP", &args);
	bool cmd = false;

	opt_value(c, 'm', "--module-name", "aimuefMkKtTlBP", &mod);
	for (size_t i = 0; i < nitems(runs); i++)
		cmd |= strcmp(mod, runs[i]) == 0;
	if (a == NULL || !cmd)
		return;
	if (a->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, a),
		        "ansible runs a command only known at run time");
	else
		shell_script_text(x, args, strlen(args), shell_span_word(x, a));
}

#define NET(n, why) {n, 0, NULL, TIER_HIGH, "net.fetch", why, NULL}
/* operands are hosts or URLs (P_HOST); ao: the options that take a value */
#define NETO(n, ao, why) {n, P_HOST, ao, TIER_HIGH, "net.fetch", why, NULL}
/* a host name or a ping pattern made by a command substitution carries its
 * output out (DNS exfiltration): net.upload */
#define PROBE(n, ao, why) {n, P_HOST, ao, TIER_HIGH, "net.fetch", why, rule_probe_data}
#define HTTPIE(n, why) {n, 0, NULL, TIER_HIGH, "net.fetch", why, rule_httpie}
#define TUNNEL(n) {n, 0, NULL, TIER_HIGH, "net.listen", "exposes a local port to the internet", NULL}
#define LISTEN(n) {n, 0, NULL, TIER_HIGH, "net.listen", "serves on the network", NULL}
/* a file server: what it serves is judged too (rule_file_server) */
#define FILES(n) {n, 0, NULL, TIER_HIGH, "net.listen", "serves files on the network", rule_file_server}
#define MAIL(n) {n, 0, NULL, TIER_HIGH, "net.upload", "sends mail", NULL}
#define NETS(n, why) {n, 0, NULL, TIER_HIGH, "net.fetch", why, rule_secret_cli}
#define FN(n, fn) {n, 0, NULL, TIER_LOW, NULL, NULL, fn}
#define VERBS(n) FN(n, rule_verb_secrets) /* verb_secrets[] has its forms */

const struct prog rules_net[] = {
	FN("curl", rule_curl), FN("wget", rule_wget), FN("nc", rule_nc), FN("ncat", rule_nc),
	FN("netcat", rule_nc), FN("telnet", rule_nc), FN("ftp", rule_nc), FN("tftp", rule_nc),
	FN("lftp", rule_nc), FN("socat", rule_socat), FN("ssh", rule_ssh),
	FN("scp", rule_copy_remote), FN("sftp", rule_copy_remote), FN("rsync", rule_copy_remote),
	PROBE("ping", "cfiIlmMpQsStTwW", "sends network probes"),
	PROBE("ping6", "cfiIlmMpQsStTwW", "sends network probes"),
	PROBE("traceroute", "fgimNpqstwzAF", "sends network probes"),
	PROBE("mtr", "aBcfGimPQsuYZ", "sends network probes"),
	PROBE("dig", "bcfkpqtxy", "queries DNS over the network"),
	PROBE("nslookup", "", "queries DNS over the network"),
	PROBE("host", "cNRtW", "queries DNS over the network"),
	NETO("whois", "hpgiTs", "queries a whois server"),
	HTTPIE("http", "sends an HTTP request (httpie)"),
	HTTPIE("https", "sends an HTTP request (httpie)"), HTTPIE("xh", "sends an HTTP request"),
	HTTPIE("xhs", "sends an HTTP request"),
	{"aria2c", P_HOST, "diojsxk", TIER_HIGH, "net.fetch", "downloads files", rule_aria2c},
	FN("kubectl", rule_kube), FN("helm", rule_kube),
	FN("terraform", rule_iac), FN("tofu", rule_iac),
	{"ansible", 0, NULL, TIER_HIGH, "net.fetch", "runs a module on remote hosts", rule_ansible},
	NET("ansible-playbook", "runs a playbook on remote hosts"),
	NETS("glab", "calls the GitLab API"),
	NET("nmap", "scans network hosts"),
	{"redis-cli", 0, NULL, TIER_HIGH, "net.fetch", "sends commands to a Redis server", rule_redis},
	NETS("vault", "talks to a Vault server"),
	NETS("op", "talks to 1Password"), NETS("bw", "talks to Bitwarden"),
	NETS("doppler", "talks to Doppler"),
	{"pass", 0, NULL, TIER_LOW, NULL, NULL, rule_pass},
	{"gopass", 0, NULL, TIER_LOW, NULL, NULL, rule_pass},
	NET("mosh", "opens a remote shell"),
	{"ssh-copy-id", 0, NULL, TIER_HIGH, "net.upload",
	 "installs an ssh public key on a remote host", NULL},
	TUNNEL("ngrok"), TUNNEL("cloudflared"), TUNNEL("lt"), TUNNEL("localtunnel"), TUNNEL("bore"),
	MAIL("mail"),
	MAIL("mailx"), MAIL("mutt"), MAIL("sendmail"), MAIL("msmtp"), MAIL("swaks"),
	{"openssl", 0, NULL, TIER_LOW, NULL, NULL, rule_openssl}, NET("sshpass", "opens an ssh session"),
	/* servers (busybox's applets among them): telnetd -l /bin/sh is a remote shell */
	{"httpd", 0, NULL, TIER_HIGH, "net.listen", "serves on the network", rule_httpd},
	LISTEN("telnetd"), LISTEN("ftpd"), LISTEN("tcpsvd"), LISTEN("udpsvd"),
	LISTEN("inetd"), FILES("serve"), FILES("http-server"), FILES("live-server"),
	FILES("miniserve"), FILES("darkhttpd"), FILES("static-web-server"), TUNNEL("zrok"),
	TUNNEL("chisel"), TUNNEL("frpc"),
	FN("croc", rule_sender), FN("wormhole", rule_sender), FN("s3cmd", rule_sender),
	FN("b2", rule_sender), FN("azcopy", rule_sender), FN("ffsend", rule_sender),
	FN("pastebinit", rule_sender), FN("tailscale", rule_tailscale),
	VERBS("sops"), VERBS("ansible-vault"), VERBS("age"), VERBS("rage"), VERBS("git-crypt"),
	VERBS("kubeseal"), VERBS("netlify"), VERBS("railway"), VERBS("firebase"),
	VERBS("infisical"), VERBS("chamber"), VERBS("pbpaste"), VERBS("wl-paste"), VERBS("xclip"),
	VERBS("xsel"), VERBS("keyring"), VERBS("kwallet-query"), FN("ssh-keygen", rule_ssh_keygen),
	FN("secret-tool", rule_secret_store),
	FN("keyctl", rule_secret_store),
	{"lpass", 0, NULL, TIER_HIGH, "net.fetch", "talks to LastPass", rule_secret_store},
};
const size_t rules_net_n = nitems(rules_net);
