/*
 * shell_code.c: inline code given to interpreters (python -c, node -e,
 * perl -e, awk programs, here-docs into python). The code itself is not
 * parsed: running it is exec.inline_code (medium) and calls that delete,
 * reach the network or start programs raise it to high. Substring tables,
 * so a new API is a new row; a miss stays at least medium, never low. A
 * literal command line given to a shell call (system("..."), backquotes)
 * is judged as a script as well.
 */
#include <string.h>

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
	{"rmSync", "exec.inline_code.delete", "deletes files"},
	{"rmdirSync", "exec.inline_code.delete", "deletes directories"},
	{"fs.rm(", "exec.inline_code.delete", "deletes files"},
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
	{"ftplib", "exec.inline_code.network", "reaches the network"},
	{"smtplib", "exec.inline_code.network", "sends mail"},
	{"subprocess", "exec.inline_code.spawn", "starts other programs"},
	{"os.system", "exec.inline_code.spawn", "starts other programs"},
	{"os.popen", "exec.inline_code.spawn", "starts other programs"},
	{"os.exec", "exec.inline_code.spawn", "replaces itself with another program"},
	{"os.spawn", "exec.inline_code.spawn", "starts other programs"},
	{"pty.spawn", "exec.inline_code.spawn", "starts a terminal program"},
	{"child_process", "exec.inline_code.spawn", "starts other programs"},
	{"execSync", "exec.inline_code.spawn", "starts other programs"},
	{"spawnSync", "exec.inline_code.spawn", "starts other programs"},
	{"system(", "exec.inline_code.spawn", "starts other programs"},
	{"system ", "exec.inline_code.spawn", "starts other programs"},
	{"popen", "exec.inline_code.spawn", "starts other programs"},
	{"exec(", "exec.inline_code.spawn", "runs code built at run time"},
	{"eval(", "exec.inline_code.spawn", "runs code built at run time"},
	{"__import__", "exec.inline_code.spawn", "imports modules by name at run time"},
	{"`", "exec.inline_code.spawn", "runs shell commands (backquotes)"},
	{"IO.popen", "exec.inline_code.spawn", "starts other programs"},
	{"Process.spawn", "exec.inline_code.spawn", "starts other programs"},
	{"shell_exec", "exec.inline_code.spawn", "starts other programs"},
	{"passthru", "exec.inline_code.spawn", "starts other programs"},
	{"proc_open", "exec.inline_code.spawn", "starts other programs"},
	{"Start-Process", "exec.inline_code.spawn", "starts other programs"},
	{"do shell script", "exec.inline_code.spawn", "starts other programs"},
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

/* Calls whose string argument is a shell command line. */
static const char *const shell_calls[] = {
	"system(", "popen(", "execSync(", "check_output(", "check_call(", "Popen(",
	"subprocess.run(", "subprocess.call(", "shell_exec(", "passthru(",
};

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

static void shell_strings(struct cctx *x, const char *code, size_t len, struct span sp)
{
	const char *end = code + len;

	for (size_t i = 0; i < nitems(shell_calls); i++)
		for (const char *p = code; (p = strstr(p, shell_calls[i])) != NULL && p < end; p++)
			shell_string(x, p + strlen(shell_calls[i]), end, sp);
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
		else if (depth == 0 && (*p == '>' || (*p == '|' && p[1] != '|' && p[1] != '&'))) {
			char op = *p;
			p += op == '>' && p + 1 < end && p[1] == '>';
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

static void awk_scan(struct cctx *x, const char *code, size_t len, struct span sp)
{
	const char *end = code + len, *st = code;

	for (const char *p = code; p <= end; p++) {
		if (p < end && *p == '"') {
			const char *e = awk_string(p, end);
			if (e - p > 6 && strncmp(p + 1, "/inet", 5) == 0) /* getline < "/inet/..." */
				awk_file(x, p + 1, (size_t)(e - p - 1), sp);
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

/* A string literal in the code that names a secret file, or a credential
 * variable the code reads from its environment. */
static void code_literal(struct cctx *x, const char *lit, size_t n, bool env, struct span sp)
{
	char text[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	const char *why;

	if (n == 0 || n >= sizeof(text))
		return;
	memcpy(text, lit, n);
	text[n] = '\0';
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

	for (p = code; p < end; p++) {
		const char *e;
		if (*p != '\'' && *p != '"')
			continue;
		for (e = p + 1; e < end && *e != *p && *e != '\n'; e++)
			if (*e == '\\' && e + 1 < end)
				e++;
		if (e >= end || *e != *p)
			break;
		code_literal(x, p + 1, (size_t)(e - p - 1), env, sp);
		p = e;
	}
	for (p = code; (p = strstr(p, "process.env.")) != NULL; p++) {
		size_t n = strspn(p + 12, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		code_literal(x, p + 12, n, true, sp);
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
	shell_strings(x, code, len, sp);
	code_literals(x, code, len, sp);
}
