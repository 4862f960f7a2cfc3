/*
 * shell_code.c: inline code given to interpreters (python -c, node -e,
 * perl -e, awk programs, here-docs into python). The code itself is not
 * parsed: running it is exec.inline_code (medium) and calls that delete,
 * reach the network or start programs raise it to high. Substring tables,
 * so a new API is a new row; a miss stays at least medium, never low. A
 * literal command line given to a shell call (system("..."), backquotes)
 * is judged as a script as well.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

struct marker {
	const char *text;
	const char *rule;
	const char *what;
};

/* Calls that destroy a whole database: critical, as DROP DATABASE is. */
static const struct marker wipes[] = {
	{"dropDatabase(", "db.wipe", "drops the whole MongoDB database"},
	{"flushall(", "db.wipe", "deletes every Redis key"},
	{"flushAll(", "db.wipe", "deletes every Redis key"},
};

/* Everything else that is found: high. */
static const struct marker markers[] = {
	{"rmtree", "exec.inline_code.delete", "deletes directory trees"},
	{"os.remove", "exec.inline_code.delete", "deletes files"},
	{"os.unlink", "exec.inline_code.delete", "deletes files"},
	{"os.rmdir", "exec.inline_code.delete", "deletes directories"},
	{".unlink(", "exec.inline_code.delete", "deletes files"},
	{"unlinkSync", "exec.inline_code.delete", "deletes files"},
	{"Deno.remove", "exec.inline_code.delete", "deletes files"},
	{"rmSync", "exec.inline_code.delete", "deletes files"},
	{"rmdirSync", "exec.inline_code.delete", "deletes directories"},
	{"fs.rm(", "exec.inline_code.delete", "deletes files"},
	{".rm(", "exec.inline_code.delete", "deletes files"},
	{".rmdir(", "exec.inline_code.delete", "deletes directories"},
	{"unlink ", "exec.inline_code.delete", "deletes files"},
	{"unlink(", "exec.inline_code.delete", "deletes files"},
	{"File.delete", "exec.inline_code.delete", "deletes files"},
	{"FileUtils.rm", "exec.inline_code.delete", "deletes files"},
	{"remove_dir", "exec.inline_code.delete", "deletes directories"},
	{"Remove-Item", "exec.inline_code.delete", "deletes files"},
	{"truncate(", "exec.inline_code.delete", "truncates files"},
	{"deleteMany(", "exec.inline_code.delete", "deletes documents"},
	{"deleteOne(", "exec.inline_code.delete", "deletes a document"},
	{"dropCollection(", "exec.inline_code.delete", "drops a collection"},
	{".drop()", "exec.inline_code.delete", "drops a collection"},
	{"urllib", "exec.inline_code.network", "reaches the network"},
	{"requests.", "exec.inline_code.network", "reaches the network"},
	{"http.client", "exec.inline_code.network", "reaches the network"},
	{"httplib", "exec.inline_code.network", "reaches the network"},
	{"httpx", "exec.inline_code.network", "reaches the network"},
	{"aiohttp", "exec.inline_code.network", "reaches the network"},
	{"socket", "exec.inline_code.network", "opens sockets"},
	{"fetch(", "exec.inline_code.network", "reaches the network"},
	{"http.get", "exec.inline_code.network", "reaches the network"},
	{"https.get", "exec.inline_code.network", "reaches the network"},
	{"http.request", "exec.inline_code.network", "reaches the network"},
	{"https.request", "exec.inline_code.network", "reaches the network"},
	{"net.connect", "exec.inline_code.network", "opens sockets"},
	{"XMLHttpRequest", "exec.inline_code.network", "reaches the network"},
	{"LWP::", "exec.inline_code.network", "reaches the network"},
	{"IO::Socket", "exec.inline_code.network", "opens sockets"},
	{"Net::HTTP", "exec.inline_code.network", "reaches the network"},
	{"open-uri", "exec.inline_code.network", "reaches the network"},
	{"curl_exec", "exec.inline_code.network", "reaches the network"},
	{"Invoke-WebRequest", "exec.inline_code.network", "reaches the network"},
	{"paramiko", "exec.inline_code.network", "opens ssh connections"},
	{"import requests", "exec.inline_code.network", "reaches the network"},
	{"from requests", "exec.inline_code.network", "reaches the network"},
	{"require(\"http", "exec.inline_code.network", "reaches the network"},
	{"require('http", "exec.inline_code.network", "reaches the network"},
	{"require(\"net\")", "exec.inline_code.network", "opens sockets"},
	{"require('net')", "exec.inline_code.network", "opens sockets"},
	{"require(\"dgram", "exec.inline_code.network", "opens sockets"},
	{"require('dgram", "exec.inline_code.network", "opens sockets"},
	{"require(\"tls", "exec.inline_code.network", "opens sockets"},
	{"require('tls", "exec.inline_code.network", "opens sockets"},
	{"node:http", "exec.inline_code.network", "reaches the network"},
	{"node:net", "exec.inline_code.network", "opens sockets"},
	{"ftplib", "exec.inline_code.network", "reaches the network"},
	{"smtplib", "exec.inline_code.network", "sends mail"},
	{"subprocess", "exec.inline_code.spawn", "starts other programs"},
	{"os.system", "exec.inline_code.spawn", "starts other programs"},
	{"os.popen", "exec.inline_code.spawn", "starts other programs"},
	{"os.exec", "exec.inline_code.spawn", "replaces itself with another program"},
	{"os.spawn", "exec.inline_code.spawn", "starts other programs"},
	{"posix_spawn", "exec.inline_code.spawn", "starts other programs"},
	{"spawn(", "exec.inline_code.spawn", "starts other programs"},
	{"spawn \"", "exec.inline_code.spawn", "starts other programs"},
	{"exec \"", "exec.inline_code.spawn", "replaces itself with another program"},
	{"exec '", "exec.inline_code.spawn", "replaces itself with another program"},
	{"exec {", "exec.inline_code.spawn", "replaces itself with another program"},
	{"qx{", "exec.inline_code.spawn", "runs shell commands (qx)"},
	{"qx(", "exec.inline_code.spawn", "runs shell commands (qx)"},
	{"qx[", "exec.inline_code.spawn", "runs shell commands (qx)"},
	{"qx/", "exec.inline_code.spawn", "runs shell commands (qx)"},
	{"%x(", "exec.inline_code.spawn", "runs shell commands (%x)"},
	{"%x{", "exec.inline_code.spawn", "runs shell commands (%x)"},
	{"%x[", "exec.inline_code.spawn", "runs shell commands (%x)"},
	{"fork(", "exec.inline_code.spawn", "starts copies of itself"},
	{"fork ", "exec.inline_code.spawn", "starts copies of itself"},
	{"fork;", "exec.inline_code.spawn", "starts copies of itself"},
	{"pty.spawn", "exec.inline_code.spawn", "starts a terminal program"},
	{"child_process", "exec.inline_code.spawn", "starts other programs"},
	{"Deno.Command", "exec.inline_code.spawn", "starts other programs"},
	{"Deno.run", "exec.inline_code.spawn", "starts other programs"},
	{"exec qw", "exec.inline_code.spawn", "replaces itself with another program"},
	{"execSync", "exec.inline_code.spawn", "starts other programs"},
	{"spawnSync", "exec.inline_code.spawn", "starts other programs"},
	{"system(", "exec.inline_code.spawn", "starts other programs"},
	{"system ", "exec.inline_code.spawn", "starts other programs"},
	{"popen", "exec.inline_code.spawn", "starts other programs"},
	{"exec(", "exec.inline_code.spawn", "runs code built at run time"},
	{"eval(", "exec.inline_code.spawn", "runs code built at run time"},
	{"__import__", "exec.inline_code.spawn", "imports modules by name at run time"},
	/* python's os and builtins reached by a name built at run time:
	 * getattr(os, 'sys'+'tem') is os.system */
	{"getattr(os", "exec.inline_code.spawn", "looks up os functions by a run-time name"},
	{"getattr(subprocess", "exec.inline_code.spawn", "looks up subprocess by a run-time name"},
	{"getattr(builtins", "exec.inline_code.spawn", "looks up builtins by a run-time name"},
	{"__builtins__", "exec.inline_code.spawn", "reaches the builtins (exec, __import__)"},
	{"vars(os)", "exec.inline_code.spawn", "looks up os functions by a run-time name"},
	{"os.__dict__", "exec.inline_code.spawn", "looks up os functions by a run-time name"},
	{"__getattribute__(", "exec.inline_code.spawn", "looks up attributes by a run-time name"},
	{"import_module(", "exec.inline_code.spawn", "imports modules by name at run time"},
	{"pickle.loads", "exec.inline_code.spawn", "runs what a pickle names"},
	{"marshal.loads", "exec.inline_code.spawn", "loads code objects"},
	{"runpy.", "exec.inline_code.spawn", "runs a module or file airlock cannot see"},
	{"`", "exec.inline_code.spawn", "runs shell commands (backquotes)"},
	{"IO.popen", "exec.inline_code.spawn", "starts other programs"},
	{"Process.spawn", "exec.inline_code.spawn", "starts other programs"},
	{"shell_exec", "exec.inline_code.spawn", "starts other programs"},
	{"passthru", "exec.inline_code.spawn", "starts other programs"},
	{"proc_open", "exec.inline_code.spawn", "starts other programs"},
	{"Start-Process", "exec.inline_code.spawn", "starts other programs"},
	{"do shell script", "exec.inline_code.spawn", "starts other programs"},
	{"process.binding(", "exec.inline_code.spawn", "reaches node's internals (spawn_sync)"},
	{"internalBinding(", "exec.inline_code.spawn", "reaches node's internals (spawn_sync)"},
	{"ctypes", "exec.inline_code.spawn", "calls C functions (system, execve) directly"},
	{"shell-command", "exec.inline_code.spawn", "starts other programs"},
	{"call-process", "exec.inline_code.spawn", "starts other programs"},
	{"start-process", "exec.inline_code.spawn", "starts other programs"},
	{"make-process", "exec.inline_code.spawn", "starts other programs"},
	{"delete-directory", "exec.inline_code.delete", "deletes directories"},
	{"delete-file", "exec.inline_code.delete", "deletes files"},
	{"url-retrieve", "exec.inline_code.network", "reaches the network"},
	{"network-stream", "exec.inline_code.network", "opens sockets"},
	{"make-network-process", "exec.inline_code.network", "opens sockets"},
	/* the Lisps', Haskell's, the BEAM's, Prolog's and the JVM's process
	 * and file calls (their -e code was an unknown program's argument) */
	{"run-program", "exec.inline_code.spawn", "starts other programs"},
	{"ext:shell", "exec.inline_code.spawn", "starts other programs"},
	{"callCommand", "exec.inline_code.spawn", "starts other programs"},
	{"System.Process", "exec.inline_code.spawn", "starts other programs"},
	{"readProcess", "exec.inline_code.spawn", "starts other programs"},
	{"System.cmd", "exec.inline_code.spawn", "starts other programs"},
	{"os:cmd", "exec.inline_code.spawn", "starts other programs"},
	{"open_port", "exec.inline_code.spawn", "starts other programs"},
	{"shell(", "exec.inline_code.spawn", "starts other programs"},
	{"sys.process", "exec.inline_code.spawn", "starts other programs"},
	{"Runtime.getRuntime", "exec.inline_code.spawn", "starts other programs"},
	{"ProcessBuilder", "exec.inline_code.spawn", "starts other programs"},
	{"delete_file", "exec.inline_code.delete", "deletes files"},
	{"delete_directory", "exec.inline_code.delete", "deletes directories"},
	{"File.rm", "exec.inline_code.delete", "deletes files"},
	{"file:delete", "exec.inline_code.delete", "deletes files"},
	{"removeFile", "exec.inline_code.delete", "deletes files"},
	{"removeDirectory", "exec.inline_code.delete", "deletes directories"},
	{"Files.delete", "exec.inline_code.delete", "deletes files"},
	{"deleteRecursively", "exec.inline_code.delete", "deletes directory trees"},
	{"rmdir(", "exec.inline_code.delete", "deletes directories"},
	{"httpc:", "exec.inline_code.network", "reaches the network"},
	{"gen_tcp", "exec.inline_code.network", "opens sockets"},
	{"java.net.", "exec.inline_code.network", "reaches the network"},
	{"webread", "exec.inline_code.network", "reaches the network"},
	{"urlread", "exec.inline_code.network", "reaches the network"},
	{"http_open", "exec.inline_code.network", "reaches the network"},
	{"Network.HTTP", "exec.inline_code.network", "reaches the network"},
	{".ssh/", "secrets.read", "reads SSH keys"},
	{"id_rsa", "secrets.read", "reads an SSH private key"},
	{"id_ed25519", "secrets.read", "reads an SSH private key"},
	{".aws/credentials", "secrets.read", "reads AWS credentials"},
	{"/etc/shadow", "secrets.read", "reads password hashes"},
	{".netrc", "secrets.read", "reads login passwords"},
	{".git-credentials", "secrets.read", "reads git credentials"},
	{".kube/config", "secrets.read", "reads Kubernetes credentials"},
	{".docker/config.json", "secrets.read", "reads registry credentials"},
};

/* Calls whose string argument is a shell command line, in the languages
 * where it is one (NULL: any; python's exec() runs Python). */
static const struct {
	const char *call, *langs;
} shell_calls[] = {
	{"system(", NULL}, {"system ", NULL}, {"popen(", NULL}, {"execSync(", NULL},
	{"check_output(", NULL}, {"check_call(", NULL}, {"Popen(", NULL},
	{"subprocess.run(", NULL}, {"subprocess.call(", NULL}, {"shell_exec(", NULL},
	{"passthru(", NULL}, {"spawn(", NULL}, {"spawn ", "ruby perl"}, {"os.execute(", NULL},
	{"exec(", "ruby perl js php"}, {"exec ", "ruby perl"}, {"(shell-command ", "elisp"},
	{"(shell-command-to-string ", "elisp"}, {"(async-shell-command ", "elisp"},
	{"os:cmd(", NULL}, {"shell(", "prolog"}, {"(ext:shell ", "lisp"},
	{"callCommand ", "haskell"}, {"callCommand(", "haskell"},
	{"do shell script ", "applescript"},
};

/* PowerShell's aliases of deleting, evaluating and fetching cmdlets, as
 * words (rm, del, iex, iwr ...): `pwsh -c 'rm -r -fo ~'` was medium. */
static const struct marker ps_markers[] = {
	{"rm", "exec.inline_code.delete", "deletes files (rm, Remove-Item)"},
	{"del", "exec.inline_code.delete", "deletes files (del, Remove-Item)"},
	{"ri", "exec.inline_code.delete", "deletes files (ri, Remove-Item)"},
	{"rd", "exec.inline_code.delete", "deletes directories (rd, Remove-Item)"},
	{"rmdir", "exec.inline_code.delete", "deletes directories (rmdir, Remove-Item)"},
	{"erase", "exec.inline_code.delete", "deletes files (erase, Remove-Item)"},
	{"iex", "exec.inline_code.spawn", "runs code built at run time (Invoke-Expression)"},
	{"Invoke-Expression", "exec.inline_code.spawn", "runs code built at run time"},
	{"iwr", "exec.inline_code.network", "reaches the network (Invoke-WebRequest)"},
	{"irm", "exec.inline_code.network", "reaches the network (Invoke-RestMethod)"},
	{"Invoke-RestMethod", "exec.inline_code.network", "reaches the network"},
	{"curl", "exec.inline_code.network", "reaches the network (Invoke-WebRequest)"},
	{"wget", "exec.inline_code.network", "reaches the network (Invoke-WebRequest)"},
	{"Net.WebClient", "exec.inline_code.network", "reaches the network"},
};

/* Quote-like operators whose text is a shell command line: perl qx{...},
 * ruby %x(...). */
static const struct {
	const char *op, *lang;
} shell_quotes[] = {{"qx", "perl"}, {"%x", "ruby"}};

static bool lang_in(const char *langs, const char *lang)
{
	return langs == NULL || word_listed(langs, lang);
}

/* Judges the literal command line in code at p (after a shell call's '('
 * or at a backquote) as a script: os.system('rm -rf /') is rm -rf /. */
static void shell_string(struct cctx *x, const char *p, const char *end, struct span sp)
{
	char q;
	const char *e;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || (*p != '\'' && *p != '"' && *p != '`'))
		return; /* a variable or a list of arguments: not a command line */
	q = *p++;
	for (e = p; e < end && *e != q; e++)
		if (*e == '\\' && e + 1 < end)
			e++;
	if (e < end && e > p)
		shell_script_text(x, p, (size_t)(e - p), sp);
}

/* qx{CMD}, %x(CMD): p at the opening bracket or delimiter. */
static void shell_quoted(struct cctx *x, const char *p, const char *end, struct span sp)
{
	static const char opens[] = "({[<", closes[] = ")}]>";
	const char *o = strchr(opens, *p), *e;
	char close = o && *p ? closes[o - opens] : *p;

	if (p >= end || *p == '\0' || *p == ' ' || *p == '=' || *p == ',' || *p == ';')
		return;
	e = memchr(p + 1, close, (size_t)(end - p - 1));
	if (e && e > p + 1)
		shell_script_text(x, p + 1, (size_t)(e - p - 1), sp);
}

/* perl's open(F, "|CMD") and open(F, "CMD|") run CMD with a pipe. */
static void perl_pipe_opens(struct cctx *x, const char *code, const char *end, struct span sp)
{
	for (const char *p = code; (p = strstr(p, "open")) != NULL && p < end; p++) {
		const char *q = memchr(p, '"', (size_t)(end - p)), *e;
		size_t stmt = strcspn(p, ";");
		if (q == NULL || q > p + stmt)
			continue;
		e = memchr(q + 1, '"', (size_t)(end - q - 1));
		if (e == NULL || e == q + 1 || (q[1] != '|' && e[-1] != '|'))
			continue;
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp,
		        "the inline perl code opens a pipe to a command");
		q += q[1] == '|';
		e -= e[-1] == '|';
		if (e > q + 1)
			shell_script_text(x, q + 1, (size_t)(e - q - 1), sp);
	}
}

static void shell_strings(struct cctx *x, const char *lang, const char *code, size_t len,
                          struct span sp)
{
	const char *end = code + len;

	for (size_t i = 0; i < nitems(shell_calls); i++) {
		if (!lang_in(shell_calls[i].langs, lang))
			continue;
		for (const char *p = code; (p = strstr(p, shell_calls[i].call)) != NULL && p < end; p++)
			shell_string(x, p + strlen(shell_calls[i].call), end, sp);
	}
	for (size_t i = 0; i < nitems(shell_quotes); i++)
		for (const char *p = code; strcmp(lang, shell_quotes[i].lang) == 0 &&
		                           (p = strstr(p, shell_quotes[i].op)) != NULL && p < end; p++)
			if (p == code || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
			                   (p[-1] >= 'A' && p[-1] <= 'Z')))
				shell_quoted(x, p + 2, end, sp);
	if (strcmp(lang, "perl") == 0)
		perl_pipe_opens(x, code, end, sp);
	for (const char *p = code; (p = memchr(p, '`', (size_t)(end - p))) != NULL; p++) {
		const char *e = memchr(p + 1, '`', (size_t)(end - p - 1));
		if (!e)
			break;
		shell_string(x, p, end, sp); /* perl and ruby run backquotes in a shell */
		p = e;
	}
}

/* awk. The program's statements are split at ; { } and newlines outside
 * strings. In a print or printf statement, > "FILE" and >> "FILE" write
 * FILE, | "CMD" runs CMD, and a target that is not a literal is only known
 * at run time; "CMD" | getline and |& run commands; system (CMD) with or
 * without a space; gawk's /inet/ files reach the network. */

/* Past the string literal whose opening quote is at p. */
static const char *awk_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\' && p + 1 < end)
			p++;
	return p;
}

/* The file a print writes: FILE is the literal's text. */
static void awk_file(struct cctx *x, const char *f, size_t n, struct span sp)
{
	char abs[CLS_MAX_PATH];
	const char *path = arena_strndup(x->a, f, n);

	if (strncmp(path, "/inet", 5) == 0) {
		const char *h = strchr(path + 6, '/');
		h = h ? strchr(h + 1, '/') : NULL;
		if (h)
			net_add_host(x, h + 1, strcspn(h + 1, "/"));
		cls_add(x, TIER_HIGH, "net.fetch", sp, "the awk program opens %s, a network connection",
		        path);
	} else if (strcmp(path, "/dev/stdout") != 0 && strcmp(path, "/dev/stderr") != 0 &&
	           strcmp(path, "-") != 0) {
		if (paths_resolve(x, path, abs, sizeof(abs)))
			paths_write_abs(x, abs, sp, abs);
	}
}

/* The target after > >> or | in a print statement, at p. */
static void awk_target(struct cctx *x, const char *p, const char *end, char op, struct span sp)
{
	const char *e;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '"') {
		e = awk_string(p, end);
		if (op == '|')
			shell_script_text(x, p + 1, (size_t)(e - p - 1), sp);
		else
			awk_file(x, p + 1, (size_t)(e - p - 1), sp);
	} else if (op == '|') {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
		        "the awk program prints into a command only known at run time");
	} else {
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "the awk program writes a file named only at run time");
	}
}

/* One statement [p, end): redirections of print and printf. */
static void awk_statement(struct cctx *x, const char *p, const char *end, struct span sp)
{
	int depth = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 5 || strncmp(p, "print", 5) != 0)
		return;
	for (p += 5; p < end; p++) {
		if (*p == '"')
			p = awk_string(p, end);
		else if (*p == '(' || *p == ')')
			depth += *p == '(' ? 1 : -1;
		else if (depth == 0 && (*p == '>' || (*p == '|' && p[1] != '|'))) {
			char op = *p;
			/* >> appends; gawk's |& "CMD" starts CMD as a coprocess */
			p += p + 1 < end && ((op == '>' && p[1] == '>') || (op == '|' && p[1] == '&'));
			awk_target(x, p + 1, end, op, sp);
			return;
		}
	}
}

/* system (CMD): the literal command line, with or without a space. */
static void awk_system(struct cctx *x, const char *code, const char *end, struct span sp)
{
	for (const char *p = code; (p = strstr(p, "system")) != NULL && p < end; p++) {
		const char *q = p + 6;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= end || *q != '(')
			continue;
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp,
		        "the awk program runs commands with system()");
		shell_string(x, q + 1, end, sp);
	}
}

/* "CMD" | getline and "CMD" |& ...: the literal before the pipe (its
 * quotes at p and e) runs as a command. */
static void awk_getline(struct cctx *x, const char *p, const char *e, const char *end,
                        struct span sp)
{
	const char *q = e + 1;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= end || *q != '|' || (q + 1 < end && q[1] == '|'))
		return;
	/* "CMD" |& getline reads from the coprocess CMD; in print "x" |&
	 * "CMD" the command is the target (awk_statement), not "x" */
	for (q += q + 1 < end && q[1] == '&', q++; q < end && (*q == ' ' || *q == '\t'); q++)
		;
	if ((size_t)(end - q) >= 7 && strncmp(q, "getline", 7) == 0)
		shell_script_text(x, p + 1, (size_t)(e - p - 1), sp);
}

/* The literal [p, e] after `getline <` is a file read (a secret one is
 * secrets.read); after gawk's @include or @load it is more program (a
 * source file, or a shared object: native code), unseen. */
static void awk_source(struct cctx *x, const char *code, const char *p, const char *e,
                       struct span sp)
{
	char abs[CLS_MAX_PATH];
	const char *b = p, *f;

	while (b > code && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if ((b - code >= 8 && strncmp(b - 8, "@include", 8) == 0) ||
	    (b - code >= 5 && strncmp(b - 5, "@load", 5) == 0))
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "the awk program loads %.*s, code airlock cannot see", (int)(e - p + 1), p);
	else if (b == code || b[-1] != '<' || (b - code >= 2 && b[-2] == '<'))
		return;
	f = arena_strndup(x->a, p + 1, (size_t)(e - p - 1));
	if (strncmp(f, "/inet", 5) != 0 && paths_resolve(x, f, abs, sizeof(abs)))
		paths_read_abs(x, abs, sp);
}

static void awk_scan(struct cctx *x, const char *code, size_t len, struct span sp)
{
	const char *end = code + len, *st = code;

	for (const char *p = code; p <= end; p++) {
		if (p < end && *p == '"') {
			const char *e = awk_string(p, end);
			if (e - p > 6 && strncmp(p + 1, "/inet", 5) == 0) /* getline < "/inet/..." */
				awk_file(x, p + 1, (size_t)(e - p - 1), sp);
			if (e < end) {
				awk_getline(x, p, e, end, sp);
				awk_source(x, code, p, e, sp);
			}
			p = e;
			continue;
		}
		if (p < end && !strchr(";{}\n", *p))
			continue;
		awk_statement(x, st, p, sp);
		st = p + 1;
	}
	if (strstr(code, "|&") || strstr(code, "| getline") || strstr(code, "|getline"))
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp,
		        "the awk program pipes to or from a command");
	if (strstr(code, "| \"") || strstr(code, "|\""))
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp, "the awk program pipes to a command");
	awk_system(x, code, end, sp);
}

/* Signs that code writes a file: open modes, write calls, perl's > opens. */
static const char *const write_signs[] = {
	"\"w\"", "'w'", "\"a\"", "'a'", "\"w+\"", "'w+'", "\"a+\"", "'a+'", "\"wb\"", "'wb'",
	"\"ab\"", "'ab'", "write_text", "write_bytes", "writeFile", "appendFile", "WriteAll",
	"File.write", "IO.write", "file_put_contents", "\">", "'>", "copyfile", "shutil.copy",
	"shutil.move", "os.replace", "os.rename", "symlink", "createWriteStream",
};

static bool code_writes(const char *code)
{
	for (size_t i = 0; i < nitems(write_signs); i++)
		if (strstr(code, write_signs[i]))
			return true;
	return false;
}

/* A literal absolute or ~ path in code that writes files: counted as
 * written, the strictest reading (~/.bashrc is fs.write.persistence). */
static void code_write_path(struct cctx *x, const char *text, struct span sp)
{
	char abs[CLS_MAX_PATH];
	const char *p = text + (text[0] == '>' ? 1 + (text[1] == '>') : 0);

	p += strspn(p, " ");
	if ((p[0] != '/' && strncmp(p, "~/", 2) != 0) || strchr(p, ' ') || strchr(p, '\n'))
		return;
	if (paths_resolve(x, paths_tilde(x, p), abs, sizeof(abs)))
		paths_write_abs(x, abs, sp, abs);
}

/* A string literal in the code that names a secret file, or a credential
 * variable the code reads from its environment. */
static void code_literal(struct cctx *x, const char *lit, size_t n, bool env, bool writes,
                         struct span sp)
{
	char text[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	const char *why;

	if (n == 0 || n >= sizeof(text))
		return;
	memcpy(text, lit, n);
	text[n] = '\0';
	if (writes)
		code_write_path(x, text, sp);
	if (env && secrets_env_name(text, n)) {
		cls_add(x, TIER_HIGH, "secrets.read", sp,
		        "the inline code reads %s, an environment variable that holds a credential",
		        text);
		return;
	}
	if (!secrets_maybe_path(text) || !paths_resolve(x, text, abs, sizeof(abs)) ||
	    (why = secrets_path(x, abs)) == NULL)
		return;
	cls_add_path(x, &x->v->reads, abs);
	cls_add(x, TIER_HIGH, "secrets.read", sp, "the inline code names %s (%s)", abs, why);
}

/* Every '...' and "..." literal of the code, and process.env.NAME. */
static void code_literals(struct cctx *x, const char *code, size_t len, struct span sp)
{
	const char *end = code + len, *p;
	bool env = strstr(code, "environ") || strstr(code, "getenv") || strstr(code, "ENV");
	bool writes = code_writes(code);

	for (p = code; p < end; p++) {
		const char *e;
		if (*p != '\'' && *p != '"')
			continue;
		for (e = p + 1; e < end && *e != *p && *e != '\n'; e++)
			if (*e == '\\' && e + 1 < end)
				e++;
		if (e >= end || *e != *p)
			break;
		code_literal(x, p + 1, (size_t)(e - p - 1), env, writes, sp);
		p = e;
	}
	for (p = code; (p = strstr(p, "process.env.")) != NULL; p++) {
		size_t n = strspn(p + 12, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		code_literal(x, p + 12, n, true, false, sp);
	}
}

/* Tcl and expect: `exec CMD ARGS` and `spawn CMD ARGS` run a program; the
 * words up to the end of the command (newline, ';' or ']') are judged as
 * one. */
static void tcl_commands(struct cctx *x, const char *code, size_t len, struct span sp)
{
	static const char *const runs[] = {"exec ", "spawn "};
	const char *end = code + len;

	for (size_t i = 0; i < nitems(runs); i++)
		for (const char *p = code; (p = strstr(p, runs[i])) != NULL && p < end; p++) {
			const char *s = p + strlen(runs[i]);
			if (p > code && strchr(" \t\n;[{", p[-1]) == NULL)
				continue;
			cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp,
			        "the inline tcl code starts other programs (%s)", runs[i]);
			shell_script_text(x, s, strcspn(s, "\n;]"), sp);
		}
}

/* Calls that delete a whole tree, and whether the code must also ask for
 * it (recursive: true) for the call to recurse. */
static const struct {
	const char *name;
	bool needs_recursive;
} tree_deletes[] = {
	{"rmtree", false},      {"remove_tree", false}, {"rm_rf", false},
	{"rm_r", false},        {"remove_dir", false},  {"remove_entry", false},
	{"rimraf", false},      {"rimraf.sync", false}, {"rimrafSync", false},
	{"rmSync", true},       {"rmdirSync", true},
	{"fs.rm", true},        {"fsPromises.rm", true}, {"Deno.remove", true},
};

/* Ways inline code names the home directory. */
static const char *const home_exprs[] = {
	"Path.home()", "pathlib.Path.home()", "os.homedir()", "require('os').homedir()",
	"require(\"os\").homedir()", "Dir.home", "os.environ['HOME']", "os.environ[\"HOME\"]",
	"os.getenv('HOME')", "os.getenv(\"HOME\")", "process.env.HOME", "ENV['HOME']",
	"ENV[\"HOME\"]", "$ENV{HOME}", "$ENV{'HOME'}", "Deno.env.get('HOME')",
	"Deno.env.get(\"HOME\")",
};

/* Calls that only wrap or expand the path literal they are given. */
static const char *const path_wraps[] = {
	"Path(", "pathlib.Path(", "os.path.expanduser(", "File.expand_path(",
};

/* Past blanks; past one call of path_wraps (its literal is the path). */
static const char *arg_start(const char *a, const char *end, bool *wrapped)
{
	while (a < end && (*a == ' ' || *a == '\t'))
		a++;
	*wrapped = false;
	for (size_t i = 0; i < nitems(path_wraps); i++) {
		size_t n = strlen(path_wraps[i]);
		if ((size_t)(end - a) > n && strncmp(a, path_wraps[i], n) == 0) {
			*wrapped = true;
			return a + n;
		}
	}
	return a;
}

/* True when the argument ends at a: nothing is added to the path. */
static bool arg_ends(const char *a, const char *end, bool wrapped)
{
	while (a < end && (*a == ' ' || *a == '\t'))
		a++;
	if (wrapped && a < end && *a == ')')
		a++;
	while (a < end && (*a == ' ' || *a == '\t'))
		a++;
	return a >= end || *a == ')' || *a == ',' || *a == ';' || *a == '\n';
}

/* The path a tree delete's first argument names, when it is a whole
 * literal or the home directory; false otherwise. */
static bool tree_delete_arg(const struct cctx *x, const char *a, const char *end, char *out,
                            size_t cap)
{
	bool wrapped;

	a = arg_start(a, end, &wrapped);
	if (a < end && (*a == '\'' || *a == '"')) {
		const char *e = memchr(a + 1, *a, (size_t)(end - a - 1));
		if (e == NULL || (size_t)(e - a - 1) >= cap || !arg_ends(e + 1, end, wrapped))
			return false;
		memcpy(out, a + 1, (size_t)(e - a - 1));
		out[e - a - 1] = '\0';
		return true;
	}
	for (size_t i = 0; i < nitems(home_exprs) && x->home[0]; i++) {
		size_t n = strlen(home_exprs[i]);
		if ((size_t)(end - a) >= n && strncmp(a, home_exprs[i], n) == 0 &&
		    arg_ends(a + n, end, wrapped)) {
			snprintf(out, cap, "%s", x->home);
			return true;
		}
	}
	return false;
}

/* True when p is inside a '...' or "..." literal of the code (as far as a
 * scan of plain quotes can tell: a miss leaves the call high, not lower). */
static bool in_literal(const char *code, const char *p)
{
	char q = 0;

	for (const char *c = code; c < p; c++) {
		if (q && *c == '\\' && c + 1 < p)
			c++;
		else if (q ? *c == q : (*c == '\'' || *c == '"'))
			q = q ? 0 : *c;
		else if (q && *c == '\n')
			q = 0;
	}
	return q != 0;
}

/* shutil.rmtree('/'), FileUtils.rm_rf(Dir.home), fs.rmSync(os.homedir(),
 * {recursive: true}): a tree delete of what rm -rf may not delete. */
static void code_tree_deletes(struct cctx *x, const char *code, size_t len, struct span sp)
{
	const char *end = code + len;
	char path[CLS_MAX_PATH], abs[CLS_MAX_PATH];

	for (size_t i = 0; i < nitems(tree_deletes); i++) {
		size_t n = strlen(tree_deletes[i].name);
		if (tree_deletes[i].needs_recursive && !strstr(code, "recursive"))
			continue;
		for (const char *p = code; (p = strstr(p, tree_deletes[i].name)) != NULL; p += n) {
			const char *a = p + n;
			while (a < end && (*a == ' ' || *a == '\t'))
				a++;
			a += a < end && *a == '(';
			if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue; /* inside a longer name: form_reader */
			if (!in_literal(code, p) && tree_delete_arg(x, a, end, path, sizeof(path)) &&
			    paths_resolve(x, paths_tilde(x, path), abs, sizeof(abs)) &&
			    paths_critical(x, abs))
				cls_add(x, TIER_CRITICAL, "fs.delete.root", sp,
				        "the inline code deletes the tree %s (%s): the whole filesystem, "
				        "the home directory or a system directory",
				        abs, tree_deletes[i].name);
		}
	}
}

/* Loops that only start copies of the program, as written without blanks:
 * perl's fork while fork, python's while True: os.fork(). */
static const char *const fork_loops[] = {
	"forkwhilefork", "forkwhile1", "forkwhile(1)", "1whilefork", "forkuntil0",
	"while(1){fork", "while(true){fork", "while1:os.fork", "whileTrue:os.fork",
	"whileTrue:__import__(\"os\").fork", "whileTrue:__import__('os').fork",
	"loop{fork", "loop{Process.fork", "for(;;)fork", "for(;;){fork",
	"while(1){pcntl_fork", "while(true){pcntl_fork",
};

static void code_fork_bomb(struct cctx *x, const char *code, size_t len, struct span sp)
{
	char flat[4096];
	size_t n = 0;

	if (strstr(code, "fork") == NULL)
		return;
	for (size_t i = 0; i < len && n + 1 < sizeof(flat); i++)
		if (code[i] != ' ' && code[i] != '\t' && code[i] != '\n')
			flat[n++] = code[i];
	flat[n] = '\0';
	for (size_t i = 0; i < nitems(fork_loops); i++)
		if (strstr(flat, fork_loops[i])) {
			cls_add(x, TIER_CRITICAL, "sys.fork_bomb", sp,
			        "the inline code starts copies of itself in a loop: a fork bomb");
			return;
		}
}

/* ps_markers as commands: a word at the start of the code or after a
 * blank, ; | { ( or a newline, and ending at a blank, ; ) } or the end
 * (PowerShell names are case-insensitive). */
static void ps_commands(struct cctx *x, const char *code, size_t len, struct span sp)
{
	for (size_t i = 0; i < nitems(ps_markers); i++) {
		size_t n = strlen(ps_markers[i].text);
		for (size_t k = 0; k + n <= len; k++) {
			char after = k + n < len ? code[k + n] : ' ';
			if ((k > 0 && !strchr(" \t\n;|{(", code[k - 1])) ||
			    strncasecmp(code + k, ps_markers[i].text, n) != 0 || !strchr(" \t\n;)}", after))
				continue;
			cls_add(x, TIER_HIGH, ps_markers[i].rule, sp, "the inline powershell code %s",
			        ps_markers[i].what);
			break;
		}
	}
}

void code_scan(struct cctx *x, const char *lang, const char *code, size_t len, struct span sp)
{
	if (strcmp(lang, "awk") == 0) {
		awk_scan(x, code, len, sp);
		return;
	}
	cls_add(x, TIER_MEDIUM, "exec.inline_code", sp, "runs inline %s code", lang);
	for (size_t i = 0; i < nitems(markers); i++)
		if (strstr(code, markers[i].text))
			cls_add(x, TIER_HIGH, markers[i].rule, sp, "the inline %s code %s (%s)", lang,
			        markers[i].what, markers[i].text);
	for (size_t i = 0; i < nitems(wipes); i++)
		if (strstr(code, wipes[i].text))
			cls_add(x, TIER_CRITICAL, wipes[i].rule, sp, "the inline %s code %s (%s)", lang,
			        wipes[i].what, wipes[i].text);
	if (strcmp(lang, "tcl") == 0)
		tcl_commands(x, code, len, sp);
	if (strcmp(lang, "powershell") == 0)
		ps_commands(x, code, len, sp);
	shell_strings(x, lang, code, len, sp);
	code_literals(x, code, len, sp);
	code_tree_deletes(x, code, len, sp);
	code_fork_bomb(x, code, len, sp);
}
