/*
 * shell_unwrap.c: wrappers that run another command (sudo, env, timeout,
 * xargs, nohup, ...) are peeled off so the rules judge the real program;
 * shells and eval have their script re-parsed. One table row per wrapper.
 * A script whose text is only known at run time is exec.dynamic_command.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* ---- option helpers shared with the rules ---- */

static bool is_opt(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

bool opt_short(const struct cmdv *c, char letter, const char *argopts)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0)
			return false;
		if (!is_opt(a) || a[1] == '-')
			continue;
		for (size_t k = 1; a[k]; k++) {
			if (a[k] == letter)
				return true;
			if (argopts && strchr(argopts, a[k])) {
				if (a[k + 1] == '\0')
					i++;
				break;
			}
		}
	}
	return false;
}

/* Whole options that are also the start of a longer one: written out, they
 * are themselves, not an abbreviation (tar --checkpoint=10). */
static const char *const whole_longs[] = {"--checkpoint", "--export"};

bool opt_long_is(const char *a, const char *name, const char **val)
{
	size_t l = strcspn(a, "=");

	if (l < 3 || a[0] != '-' || a[1] != '-' || l > strlen(name) || strncmp(a, name, l) != 0)
		return false;
	for (size_t i = 0; i < nitems(whole_longs) && name[l]; i++)
		if (strlen(whole_longs[i]) == l && strncmp(a, whole_longs[i], l) == 0)
			return false;
	if (val)
		*val = a[l] == '=' ? a + l + 1 : NULL;
	return true;
}

bool opt_long(const struct cmdv *c, const char *name)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0)
			return false;
		if (opt_long_is(a, name, NULL))
			return true;
	}
	return false;
}

const struct word *opt_value_at(const struct cmdv *c, size_t *ip, char letter,
                                const char *lname, const char *argopts, const char **val)
{
	size_t i = *ip;
	const char *a = c->w[i].val, *eq;

	if (lname && opt_long_is(a, lname, &eq)) {
		if (eq) {
			*val = eq;
			return &c->w[i];
		}
		if (i + 1 >= c->n)
			return NULL;
		*ip = i + 1;
		*val = c->w[i + 1].val;
		return &c->w[i + 1];
	}
	if (!is_opt(a) || a[1] == '-')
		return NULL;
	for (size_t k = 1; a[k]; k++) {
		bool takes = argopts && strchr(argopts, a[k]);
		if (a[k] == letter && letter && (takes || !argopts)) {
			if (a[k + 1]) {
				*val = a + k + 1;
				return &c->w[i];
			}
			if (i + 1 >= c->n)
				return NULL;
			*ip = i + 1;
			*val = c->w[i + 1].val;
			return &c->w[i + 1];
		}
		if (takes) {
			if (a[k + 1] == '\0')
				*ip = i + 1;
			break;
		}
	}
	return NULL;
}

const struct word *opt_value(const struct cmdv *c, char letter, const char *lname,
                             const char *argopts, const char **val)
{
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w;
		if (strcmp(c->w[i].val, "--") == 0)
			break;
		if ((w = opt_value_at(c, &i, letter, lname, argopts, val)) != NULL)
			return w;
	}
	return NULL;
}

size_t opt_operands(const struct cmdv *c, size_t start, const char *argopts, size_t *idx,
                    size_t max)
{
	size_t n = 0;
	bool opts = true;

	for (size_t i = start; i < c->n && n < max; i++) {
		const char *a = c->w[i].val;
		if (opts && strcmp(a, "--") == 0) {
			opts = false;
			continue;
		}
		if (opts && is_opt(a)) {
			for (size_t k = 1; a[1] != '-' && argopts && a[k]; k++)
				if (strchr(argopts, a[k])) {
					if (a[k + 1] == '\0')
						i++;
					break;
				}
			continue;
		}
		idx[n++] = i;
	}
	return n;
}

const struct word *opt_first(const struct cmdv *c, const char *argopts, size_t *at)
{
	size_t idx;
	if (opt_operands(c, 1, argopts, &idx, 1) == 0)
		return NULL;
	if (at)
		*at = idx;
	return &c->w[idx];
}

/* ---- wrappers ---- */

/* Index of the first word after the options, or c->n. */
static size_t skip_opts(const struct cmdv *c, size_t i, const char *argopts,
                        const char *const *longargs)
{
	while (i < c->n) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0)
			return i + 1;
		if (!is_opt(a))
			return i;
		if (a[1] == '-') {
			for (size_t k = 0; longargs && longargs[k] && !strchr(a, '='); k++)
				if (opt_long_is(a, longargs[k], NULL)) {
					i++;
					break;
				}
			i++;
			continue;
		}
		for (size_t k = 1; a[k]; k++)
			if (argopts && strchr(argopts, a[k])) {
				if (a[k + 1] == '\0')
					i++;
				break;
			}
		i++;
	}
	return i;
}

typedef long (*wrap_fn)(struct cctx *x, struct cmdv *c, size_t at);

struct wrapper {
	const char *name;
	const char *sub;      /* required first argument ("run"), or NULL */
	const char *argopts;  /* short options that take a value */
	int operands;         /* operands before the command (timeout DURATION) */
	const char *rule;     /* finding for the wrapper itself, or NULL */
	const char *why;
	wrap_fn fn;           /* special handling after the options */
	const char *const *longargs; /* long options that take a separate value */
};

static long wrap_shell(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_eval(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_env(struct cctx *x, struct cmdv *c, size_t at);
static void wrapper_chdirs(struct cctx *x, const struct cmdv *c, const char *name,
                           const char *argopts, size_t at);
static long wrap_xargs(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_su(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_watch(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_command(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_time(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_jobs(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_flock(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_runuser(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_script(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_parallel(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_words(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_dashdash(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_bwrap(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_screen(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_trace(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_uv_run(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_npx(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_node_pm(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_project_env(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_dotenv(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_dotenvx(struct cctx *x, struct cmdv *c, size_t at);
static struct cmdv wrapper_head(const struct cmdv *c, size_t at);
static long wrap_entr(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_logs(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_perf(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_each(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_capsh(struct cctx *x, struct cmdv *c, size_t at);
static long wrap_vault(struct cctx *x, struct cmdv *c, size_t at);
static void script_of_words(struct cctx *x, struct cmdv *c, size_t at, const char *who);

static const char priv[] = "exec.privileged";

/* Long options whose value may be the next word (`--user root`): without
 * them the value would be taken for the wrapped program. */
static const char *const long_sudo[] = {"--user", "--group", "--prompt", "--close-from",
	"--chdir", "--role", "--type", "--other-user", "--host", "--chroot", "--command-timeout",
	NULL};
static const char *const long_env[] = {"--unset", "--chdir", "--split-string", NULL};
static const char *const long_flock[] = {"--wait", "--timeout", "--conflict-exit-code", NULL};
static const char *const long_ionice[] = {"--class", "--classdata", "--pid", "--pgid",
	"--uid", NULL};
static const char *const long_nice[] = {"--adjustment", NULL};
static const char *const long_runuser[] = {"--user", "--group", "--supp-group", "--shell",
	"--command", "--session-command", "--whitelist-environment", NULL};
static const char *const long_pkexec[] = {"--user", NULL};
static const char *const long_stdbuf[] = {"--input", "--output", "--error", NULL};
static const char *const long_time[] = {"--format", "--output", NULL};
static const char *const long_timeout[] = {"--signal", "--kill-after", NULL};
static const char *const long_conda[] = {"--name", "--prefix", "--cwd", NULL};
static const char *const long_fakeroot[] = {"--lib", "--faked", NULL};
#define PERF_ARGOPTS "epotCFcGrIumxD" /* perf's short options that take a value */
static const char *const long_perf[] = {"--event", "--pid", "--tid", "--output", "--cpu",
	"--freq", "--count", "--cgroup", "--repeat", "--interval-print", "--uid", "--mmap-pages",
	"--field-separator", "--delay", "--call-graph", NULL};
static const char *const long_numactl[] = {"--interleave", "--membind", "--cpunodebind",
	"--physcpubind", "--preferred", NULL};
static const char *const long_inhibit[] = {"--what", "--who", "--why", "--mode", NULL};
static const char *const long_watchexec[] = {"--exts", "--watch", "--ignore", "--shell",
	"--debounce", "--signal", "--filter", "--workdir", "--project-origin", "--env", NULL};
static const char *const long_hyperfine[] = {"--warmup", "--runs", "--min-runs", "--max-runs",
	"--prepare", "--setup", "--cleanup", "--conclude", "--parameter-scan",
	"--parameter-step-size", "--parameter-list", "--style", "--shell", "--export-json",
	"--export-csv", "--export-markdown", "--export-asciidoc", "--export-orgmode",
	"--time-unit", "--command-name", "--output", "--input", NULL};
static const char *const long_setpriv[] = {"--reuid", "--regid", "--ruid", "--rgid", "--euid",
	"--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits",
	"--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule",
	"--pdeathsig", NULL};
static const char *const long_xvfb[] = {"--error-file", "--auth-file", "--server-num",
	"--xauth-protocol", "--server-args", "--wait", NULL};
static const char *const long_npx[] = {"--package", "--call", "--workspace", NULL};
static const char *const long_xargs[] = {"--arg-file", "--delimiter", "--max-args",
	"--max-procs", "--max-lines", "--max-chars", "--process-slot-var", "--eof",
	"--replace", NULL};

static const char *const long_systemd_run[] = {"--unit", "--property", "--description",
	"--slice", "--uid", "--gid", "--nice", "--working-directory", "--setenv", "--machine",
	"--host", "--service-type", "--path-property", "--socket-property", "--timer-property",
	"--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive",
	"--on-calendar", NULL};
static const char *const long_run0[] = {"--user", "--group", "--chdir", "--nice", "--setenv",
	"--property", "--description", "--slice", "--unit", "--background", "--machine",
	"--shell-prompt-prefix", NULL};
static const char *const long_unshare[] = {"--root", "--wd", "--setuid", "--setgid",
	"--propagation", "--setgroups", "--map-user", "--map-group", "--map-users",
	"--map-groups", "--load-interp", "--monotonic", "--boottime", NULL};
static const char *const long_nsenter[] = {"--target", "--setuid", "--setgid", NULL};
static const char *const long_vault[] = {"--env-file", "--account", "--session", "--project",
	"--config", "--token", "--env", "--path", "--projectId", "--command", "--backend",
	"--duration", "--region", "--mfa-token", NULL};
static const char *const long_dotenvx[] = {"--env-file", "--env", "--env-keys-file",
	"--env-vault-file", "--convention", "--ignore", NULL};
static const char *const long_cpulimit[] = {"--limit", "--pid", "--exe", NULL};
static const char *const long_machinectl[] = {"--machine", "--host", "--setenv", "--property",
	"--uid", NULL};
static const char *const long_prlimit[] = {"--pid", "--output", NULL};
static const char *const long_systemd_cat[] = {"--identifier", "--priority",
	"--stderr-priority", NULL};

/* uv run's options that take a value; --with* install packages first. */
static const char *const long_uv_run[] = {"--with", "--with-requirements", "--with-editable",
	"--python", "--package", "--extra", "--group", "--env-file", "--directory", "--project",
	"--index", "--index-url", "--extra-index-url", "--default-index", "--find-links", "--from",
	NULL};

static const char strace_opts[] = "oepsuEIbSXP", ltrace_opts[] = "aAeFlnopsuwx";

static const struct wrapper wrappers[] = {
	{"asdf", "exec", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"ash", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"bun", "exec", "", 0, NULL, NULL, wrap_words, NULL}, /* bun exec 'SCRIPT' */
	{"bwrap", NULL, NULL, 0, NULL, NULL, wrap_bwrap, NULL},
	{"conda", "run", "np", 0, NULL, NULL, wrap_project_env, long_conda},
	{"cross-env", NULL, "", 0, NULL, NULL, wrap_env, NULL},
	{"cross-env-shell", NULL, "", 0, NULL, NULL, wrap_words, NULL},
	{"csh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"direnv", "exec", "", 1, NULL, NULL, wrap_project_env, NULL}, /* runs DIR/.envrc */
	{"dotenv", NULL, "evcp", 0, NULL, NULL, wrap_dotenv, NULL},
	{"dotenvx", "run", "fe", 0, NULL, NULL, wrap_dotenvx, long_dotenvx},
	{"fakeroot", NULL, "lsib", 0, NULL, NULL, NULL, long_fakeroot},
	{"faketime", NULL, "p", 1, NULL, NULL, NULL, NULL},
	{"fish", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"mamba", "run", "np", 0, NULL, NULL, wrap_project_env, long_conda},
	{"micromamba", "run", "np", 0, NULL, NULL, wrap_project_env, long_conda},
	{"mise", NULL, NULL, 0, NULL, NULL, wrap_dashdash, NULL}, /* mise exec|x TOOLS -- CMD */
	{"pdm", "run", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"pixi", "run", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"npm", NULL, NULL, 0, NULL, NULL, wrap_node_pm, NULL},  /* npm exec|x -c CMD */
	{"pnpm", NULL, NULL, 0, NULL, NULL, wrap_node_pm, NULL}, /* pnpm [-c] exec|dlx */
	{"proot", NULL, "rRbmwqkv", 0, NULL, NULL, NULL, NULL},
	{"rbash", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	/* systemd's sudo; systemd-run starts CMD as a service (root unless
	 * --user), unshare and nsenter in other namespaces (nsenter -t 1 -m:
	 * the host's) */
	{"run0", NULL, "ugD", 0, priv, "runs a command as root (run0)", NULL, long_run0},
	{"systemd-run", NULL, "upEHM", 0, "sys.service", "runs a command as a system service",
	 NULL, long_systemd_run},
	{"unshare", NULL, "RwSGl", 0, "sys.admin", "runs a command in new namespaces", NULL,
	 long_unshare},
	{"nsenter", NULL, "tSG", 0, "sys.admin", "runs a command in other namespaces", NULL,
	 long_nsenter},
	{"screen", NULL, "SceshptTX", 0, NULL, NULL, wrap_screen, NULL},
	{"setpriv", NULL, "", 0, NULL, NULL, NULL, long_setpriv},
	{"sg", NULL, NULL, 1, NULL, NULL, wrap_words, NULL}, /* sg GROUP [-c] CMD */
	{"ssh-agent", NULL, "aEPtO", 0, NULL, NULL, NULL, NULL},
	{"tcsh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"valgrind", NULL, "", 0, NULL, NULL, wrap_logs, NULL},
	{"perf", NULL, NULL, 0, NULL, NULL, wrap_perf, NULL},
	{"xvfb-run", NULL, "efnpsw", 0, NULL, NULL, NULL, long_xvfb},
	{"yarn", NULL, NULL, 0, NULL, NULL, wrap_node_pm, NULL}, /* yarn exec SCRIPT */
	{"yash", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	/* other shells whose -c SCRIPT runs commands as sh's does (Oils'
	 * osh and ysh, nushell, xonsh, elvish, ion, Plan 9's rc, es, murex):
	 * they were unknown programs, `nu -c 'rm -rf ~'` medium; what sh
	 * does not read is parse.uncertain */
	{"osh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"ysh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"nu", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"xonsh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"elvish", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"ion", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"rc", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"es", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"murex", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"bash", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"bunx", NULL, "p", 0, NULL, NULL, wrap_npx, long_npx},
	{"builtin", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"bundle", "exec", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"cgexec", NULL, "g", 0, NULL, NULL, NULL, NULL},
	{"chrt", NULL, "TPD", 1, NULL, NULL, NULL, NULL},
	{"busybox", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"toybox", NULL, "", 0, NULL, NULL, NULL, NULL}, /* Android's busybox */
	{"caffeinate", NULL, "t", 0, NULL, NULL, NULL, NULL},
	{"chroot", NULL, "", 1, priv, "runs a command inside a chroot as root", NULL, NULL},
	{"command", NULL, "", 0, NULL, NULL, wrap_command, NULL},
	{"coproc", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"dash", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"doas", NULL, "uC", 0, priv, "runs a command as another user (doas)", NULL, NULL},
	{"env", NULL, "uCS", 0, NULL, NULL, wrap_env, long_env},
	{"eval", NULL, NULL, 0, NULL, NULL, wrap_eval, NULL},
	{"exec", NULL, "a", 0, NULL, NULL, NULL, NULL},
	{"firejail", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"flock", NULL, "wEc", 0, NULL, NULL, wrap_flock, long_flock},
	{"ionice", NULL, "cnP", 0, NULL, NULL, NULL, long_ionice},
	{"jobs", NULL, "", 0, NULL, NULL, wrap_jobs, NULL}, /* jobs -x CMD */
	{"ksh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"ltrace", NULL, ltrace_opts, 0, NULL, NULL, wrap_trace, NULL},
	{"mksh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"nice", NULL, "n", 0, NULL, NULL, NULL, long_nice},
	{"nohup", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"noglob", NULL, "", 0, NULL, NULL, NULL, NULL},    /* zsh's precommand modifiers */
	{"nocorrect", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"npx", NULL, "pcw", 0, NULL, NULL, wrap_npx, long_npx},
	{"parallel", NULL, "jSdEIP", 0, NULL, NULL, wrap_parallel, NULL},
	{"pipenv", "run", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"pkexec", NULL, "u", 0, priv, "runs a command as root (pkexec)", NULL, long_pkexec},
	{"poetry", "run", "", 0, NULL, NULL, wrap_project_env, NULL},
	{"runuser", NULL, "ugG", 0, priv, "runs a command as another user (runuser)", wrap_runuser,
	 long_runuser},
	{"script", NULL, "cEIOBT", 0, NULL, NULL, wrap_script, NULL},
	{"setsid", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"sh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	{"stdbuf", NULL, "ioe", 0, NULL, NULL, NULL, long_stdbuf},
	{"strace", NULL, strace_opts, 0, NULL, NULL, wrap_trace, NULL},
	{"su", NULL, NULL, 0, priv, "switches user (su)", wrap_su, NULL},
	{"sudo", NULL, "ugpCDRTUrth", 0, priv, "runs a command as root (sudo)", NULL, long_sudo},
	{"taskset", NULL, "", 1, NULL, NULL, NULL, NULL},
	{"time", NULL, "fo", 0, NULL, NULL, wrap_time, long_time},
	{"timeout", NULL, "sk", 1, NULL, NULL, NULL, long_timeout},
	{"unbuffer", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"uv", "run", "pw", 0, NULL, NULL, wrap_uv_run, long_uv_run},
	{"watch", NULL, "nd", 0, NULL, NULL, wrap_watch, NULL},
	{"xargs", NULL, "IanPLdsE", 0, NULL, NULL, wrap_xargs, long_xargs},
	{"zsh", NULL, NULL, 0, NULL, NULL, wrap_shell, NULL},
	/* run their command as it is given (eatmydata CMD, tini -- CMD) */
	{"catchsegv", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"chpst", NULL, "uUe/nlLmdopfcrt", 0, NULL, NULL, NULL, NULL},
	{"chronic", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"daemonize", NULL, "ceEoplu", 0, NULL, NULL, NULL, NULL},
	{"dbus-run-session", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"dumb-init", NULL, "r", 0, NULL, NULL, NULL, NULL},
	{"eatmydata", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"flatpak-spawn", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"ifne", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"lckdo", NULL, "W", 1, NULL, NULL, NULL, NULL},
	{"linux32", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"linux64", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"nocache", NULL, "n", 0, NULL, NULL, NULL, NULL},
	{"numactl", NULL, "imNCpP", 0, NULL, NULL, NULL, long_numactl},
	{"proxychains", NULL, "f", 0, NULL, NULL, NULL, NULL},
	{"proxychains4", NULL, "f", 0, NULL, NULL, NULL, NULL},
	{"rlwrap", NULL, "bCDfgHlOpPqsStwz", 0, NULL, NULL, NULL, NULL},
	{"systemd-inhibit", NULL, "", 0, NULL, NULL, NULL, long_inhibit},
	{"tini", NULL, "pe", 0, NULL, NULL, NULL, NULL},
	{"torsocks", NULL, "uapP", 0, NULL, NULL, NULL, NULL},
	/* daemontools', s6's and util-linux's: softlimit and prlimit set
	 * limits, setlock FILE takes a lock, envdir DIR and envuidgid USER
	 * set variables, trickle and cpulimit throttle, systemd-cat logs the
	 * output (they were unknown: `prlimit -n10 rm -rf .` was medium) */
	{"cpulimit", NULL, "lpe", 0, NULL, NULL, NULL, long_cpulimit},
	{"dbus-launch", NULL, "", 0, NULL, NULL, NULL, NULL},
	{"envdir", NULL, "", 1, NULL, NULL, NULL, NULL},
	{"envuidgid", NULL, "", 1, NULL, NULL, NULL, NULL},
	{"prlimit", NULL, "po", 0, NULL, NULL, NULL, long_prlimit},
	{"s6-envdir", NULL, "c", 1, NULL, NULL, NULL, NULL},
	{"setlock", NULL, "", 1, NULL, NULL, NULL, NULL},
	{"softlimit", NULL, "madslfcoptr", 0, NULL, NULL, NULL, NULL},
	{"systemd-cat", NULL, "tp", 0, NULL, NULL, NULL, long_systemd_cat},
	{"trickle", NULL, "duwtlnL", 0, NULL, NULL, NULL, NULL},
	/* run a command as USER, as containers' entrypoints do (gosu USER CMD) */
	{"gosu", NULL, "", 1, priv, "runs a command as another user (gosu)", NULL, NULL},
	/* machinectl shell [USER@]MACHINE CMD: .host is this machine, as root */
	{"machinectl", "shell", "MHEp", 1, "sys.admin",
	 "runs a command in a container or on the host (machinectl shell)", NULL, long_machinectl},
	{"capsh", NULL, NULL, 0, NULL, NULL, wrap_capsh, NULL},
	{"su-exec", NULL, "", 1, priv, "runs a command as another user (su-exec)", NULL, NULL},
	{"setuidgid", NULL, "", 1, priv, "runs a command as another user (setuidgid)", NULL, NULL},
	{"s6-setuidgid", NULL, "", 1, priv, "runs a command as another user (s6-setuidgid)", NULL,
	 NULL},
	/* secret managers: CMD gets their secrets in its environment (op run
	 * [-- ] CMD, aws-vault exec PROFILE -- CMD, envchain NS CMD, sops
	 * exec-env FILE 'CMD'); they were unknown programs, or net.fetch with
	 * CMD unread (`op run -- rm -rf ~` was high) */
	{"op", "run", "", 0, "secrets.read", "hands the command secrets from 1Password (op run)",
	 wrap_vault, long_vault},
	{"doppler", "run", "pc", 0, "secrets.read", "hands the command secrets from Doppler",
	 wrap_vault, long_vault},
	{"infisical", "run", "", 0, "secrets.read", "hands the command secrets from Infisical",
	 wrap_vault, long_vault},
	{"aws-vault", "exec", "d", 1, "secrets.read", "hands the command AWS credentials (aws-vault)",
	 wrap_vault, long_vault},
	{"chamber", "exec", "", 0, "secrets.read", "hands the command secrets from chamber",
	 wrap_vault, long_vault},
	{"envchain", NULL, "", 1, "secrets.read", "hands the command secrets from the keychain",
	 NULL, NULL},
	{"sops", "exec-env", "", 1, "secrets.read", "hands the command secrets sops decrypts",
	 wrap_words, NULL},
	/* run shell text: entr -s TEXT, watchexec TEXT, each of hyperfine's
	 * and pee's operands, mispipe's two */
	{"entr", NULL, "", 0, NULL, NULL, wrap_entr, NULL},
	{"watchexec", NULL, "ewidsWEfF", 0, NULL, NULL, wrap_words, long_watchexec},
	{"hyperfine", NULL, "wrmMpcsLPSuinNo", 0, NULL, NULL, wrap_each, long_hyperfine},
	{"pee", NULL, "", 0, NULL, NULL, wrap_each, NULL},
	{"mispipe", NULL, "", 0, NULL, NULL, wrap_each, NULL},
};


/* The table by name, built once: rows can be added anywhere. */
static const char *wrapper_names[nitems(wrappers)];
static struct names *by_name;
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static void by_name_build(void)
{
	for (size_t i = 0; i < nitems(wrappers); i++)
		wrapper_names[i] = wrappers[i].name;
	by_name = names_new(wrapper_names, nitems(wrappers));
}

static const struct wrapper *wrapper_find(const char *name)
{
	size_t i;

	pthread_once(&by_name_once, by_name_build);
	i = names_find(by_name, name);
	return i == SIZE_MAX ? NULL : &wrappers[i];
}

static void record_self(struct cctx *x, const struct cmdv *c)
{
	char **argv = xcalloc(c->n + 1, sizeof(*argv));
	for (size_t i = 0; i < c->n; i++)
		argv[i] = xstrndup(c->w[i].val, c->w[i].len);
	cls_add_command(x, argv, shell_span_words(x, c->w, c->n));
}

/* The wrapped command starts at `at`; with none, the wrapper ran alone. */
static long rest_or_self(struct cctx *x, struct cmdv *c, size_t at)
{
	if (at >= c->n) {
		record_self(x, c);
		return -1;
	}
	return (long)at;
}

/* entr [-acdnprz] CMD ARGS runs CMD (at start and at each change of the
 * files its input lists); with -s its one operand is shell text. */
static long wrap_entr(struct cctx *x, struct cmdv *c, size_t at)
{
	struct cmdv h = wrapper_head(c, at);

	if (!opt_short(&h, 's', ""))
		return rest_or_self(x, c, at);
	record_self(x, c);
	script_of_words(x, c, at, "entr -s");
	return -1;
}

/* hyperfine, pee, mispipe: each operand is a command line for the shell,
 * and hyperfine's -p/-s/-c (--prepare, --setup, --cleanup, --conclude)
 * values too. */
static long wrap_each(struct cctx *x, struct cmdv *c, size_t at)
{
	static const char *const hooks[] = {"--prepare", "--setup", "--cleanup", "--conclude"};
	struct cmdv h = wrapper_head(c, at);
	const char *v;

	record_self(x, c);
	for (size_t i = 1; i < h.n; i++)
		for (size_t k = 0; k < nitems(hooks); k++) {
			size_t j = i;
			const struct word *w = opt_value_at(&h, &j, hooks[k][2], hooks[k], "pscC", &v);
			if (w && (w->flags & (W_DYNAMIC | W_GLOB)))
				cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
				        "%s runs text that is only known at run time", c->w[0].val);
			else if (w)
				shell_script_text(x, v, strlen(v), shell_span_word(x, w));
		}
	for (size_t i = at; i < c->n; i++) {
		struct cmdv one = *c;
		one.w = c->w + i;
		one.n = 1;
		script_of_words(x, &one, 0, c->w[0].val);
	}
	return -1;
}

/* valgrind --log-file=F, --xml-file=F; perf -o F (--output): written. */
static long wrap_logs(struct cctx *x, struct cmdv *c, size_t at)
{
	static const char *const logs[] = {"--log-file", "--xml-file", "--output"};
	struct cmdv h = wrapper_head(c, at);
	const char *v;

	for (size_t i = 0; i < nitems(logs); i++) {
		const struct word *w = opt_value(&h, logs[i][2] == 'o' ? 'o' : 0, logs[i],
		                                 PERF_ARGOPTS, &v);
		if (w)
			paths_write(x, w, v, shell_span_word(x, w));
	}
	return rest_or_self(x, c, at);
}

/* perf stat|record|trace|... [OPTS] [--] CMD runs CMD (record writes
 * perf.data here, or -o FILE); perf's other commands only read. */
static long wrap_perf(struct cctx *x, struct cmdv *c, size_t at)
{
	static const char *const runs[] = {"stat", "record", "trace", "c2c", "mem", "kvm"};
	struct word here = c->w[0];

	(void)at;
	for (size_t i = 0; c->n > 1 && i < nitems(runs); i++) {
		if (strcmp(c->w[1].val, runs[i]) != 0)
			continue;
		at = skip_opts(c, 2, PERF_ARGOPTS, long_perf);
		if (strcmp(runs[i], "record") == 0 && !opt_short(c, 'o', PERF_ARGOPTS) &&
		    !opt_long(c, "--output")) {
			here.val = "perf.data";
			paths_write(x, &here, here.val, shell_span_words(x, c->w, c->n));
		}
		return wrap_logs(x, c, at);
	}
	return 0;
}

/* sudo -l, -v, -k, -K, -V only ask or reset; they start nothing. */
static bool privileged_query(const struct cmdv *c, const char *name)
{
	static const char queries[] = "lvkKVh";

	if (strcmp(name, "sudo") != 0 || c->n < 2)
		return false;
	for (size_t i = 1; i < c->n; i++)
		if (c->w[i].val[0] != '-' || strspn(c->w[i].val + 1, queries) != c->w[i].len - 1)
			return false;
	return true;
}

long unwrap_step(struct cctx *x, struct cmdv *c, const char *name)
{
	char path[CLS_MAX_PATH];
	const struct wrapper *wr;
	size_t at = 1;

	name = rules_prog_name(name, path, sizeof(path));
	wr = wrapper_find(name);

	if (wr == NULL)
		return 0;
	if (wr->sub) {
		if (c->n < 2 || strcmp(c->w[1].val, wr->sub) != 0)
			return 0;
		at = 2;
	}
	if (wr->argopts && strcmp(wr->name, "busybox") != 0 && strcmp(wr->name, "toybox") != 0)
		at = skip_opts(c, at, wr->argopts, wr->longargs);
	for (int k = 0; k < wr->operands && at < c->n; k++)
		at++;
	wrapper_chdirs(x, c, wr->name, wr->argopts, at);
	if (wr->rule && (at < c->n || wr->fn || wr->rule != priv))
		cls_add(x, TIER_HIGH, wr->rule, shell_span_word(x, &c->w[0]), "%s", wr->why);
	if (wr->fn)
		return wr->fn(x, c, at);
	if (at >= c->n && wr->rule == priv && !privileged_query(c, name))
		cls_add(x, TIER_HIGH, priv, shell_span_word(x, &c->w[0]),
		        "starts a shell as another user");
	return rest_or_self(x, c, at);
}

/*
 * uv/poetry/pipenv/pdm/pixi/conda run, bundle exec, asdf exec, direnv
 * exec, mise exec: CMD runs in the project's environment, whose own bin
 * directories (.venv/bin, the env's bin) come first on PATH, and pdm,
 * pipenv and pixi run a script or task of CMD's name from the project's
 * files (direnv and mise first run .envrc or mise.toml's hooks): the
 * project's code, whatever CMD means elsewhere (`pdm run ls` is no
 * /bin/ls). Medium, as npm run is; the command is judged too.
 */
static long wrap_project_env(struct cctx *x, struct cmdv *c, size_t at)
{
	if (at < c->n)
		cls_add(x, TIER_MEDIUM, "exec.build", shell_span_words(x, c->w, at + 1),
		        "runs '%s' in the project's environment, where its own scripts and "
		        "programs come first",
		        c->w[at].val);
	return rest_or_self(x, c, at);
}

/* The file a --env-file option (or dotenv -e) of the wrapper's own words
 * [1, at) loads into the command's environment: a read, so `.env` is a
 * secret read. */
static void env_files(struct cctx *x, const struct cmdv *c, size_t at, char letter,
                      const char *argopts)
{
	struct cmdv h = wrapper_head(c, at);
	const char *v;

	for (size_t i = 1; i < h.n; i++) {
		const struct word *w = opt_value_at(&h, &i, letter, "--env-file", argopts, &v);
		if (w)
			paths_read(x, w, v);
	}
}

/* dotenv [-e FILE]... CMD: CMD gets FILE's variables (.env without -e),
 * the secrets it holds; -p NAME prints one. dotenvx run [-f FILE] -- CMD
 * likewise (it was an unknown program: `dotenvx run -- rm -rf .` medium). */
static long dotenv_run(struct cctx *x, struct cmdv *c, size_t at, char letter,
                       const char *argopts)
{
	struct cmdv h = wrapper_head(c, at);
	struct word env = c->w[0];

	if (opt_short(&h, letter, argopts) || opt_long(&h, "--env-file"))
		env_files(x, c, at, letter, argopts);
	else {
		env.val = ".env";
		env.len = 4;
		env.flags = 0;
		paths_read(x, &env, env.val);
	}
	return rest_or_self(x, c, at);
}

static long wrap_dotenv(struct cctx *x, struct cmdv *c, size_t at)
{
	return dotenv_run(x, c, at, 'e', "evcp");
}

static long wrap_dotenvx(struct cctx *x, struct cmdv *c, size_t at)
{
	return dotenv_run(x, c, at, 'f', "fe");
}

/* uv run --with PKG CMD installs PKG (from the index) before running CMD;
 * --env-file FILE hands CMD its variables. */
static long wrap_uv_run(struct cctx *x, struct cmdv *c, size_t at)
{
	static const char *const with[] = {"--with", "--with-requirements", "--with-editable"};

	for (size_t i = 0; i < nitems(with); i++)
		if (opt_long(c, with[i]) || opt_short(c, 'w', "pw")) {
			cls_add(x, TIER_HIGH, "pkg.install", shell_span_words(x, c->w, at),
			        "uv run --with installs packages before running the command");
			break;
		}
	env_files(x, c, at, '\0', "pw");
	return wrap_project_env(x, c, at);
}

/* Whether the project has name as node_modules/.bin/name, in the cwd or
 * a directory above it up to the workdir, leading to a program in the
 * workdir (an earlier call may have planted a link out of it). */
static bool npx_local(const struct cctx *x, const char *name)
{
	char dir[CLS_MAX_PATH], cand[CLS_MAX_PATH], abs[CLS_MAX_PATH];
	size_t wl = strlen(x->wd);

	if (x->cwd == NULL || (size_t)snprintf(dir, sizeof(dir), "%s", x->cwd) >= sizeof(dir))
		return false;
	while (strncmp(dir, x->wd, wl) == 0 && (dir[wl] == '\0' || dir[wl] == '/')) {
		if ((size_t)snprintf(cand, sizeof(cand), "%s/node_modules/.bin/%s", dir, name) <
		        sizeof(cand) &&
		    paths_resolve(x, cand, abs, sizeof(abs)) && paths_class(x, abs) == PC_WORKDIR &&
		    access(abs, X_OK) == 0)
			return true;
		if (dir[wl] == '\0' || !path_up(dir))
			break;
	}
	return false;
}

/* npx -c|--call CMD, npm exec -c CMD: CMD runs in a shell, with the
 * project's and the package's bins first on PATH. Options in [from, to). */
static void npx_call(struct cctx *x, struct cmdv *c, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const char *a = c->w[i].val, *v = NULL;
		const struct word *w = &c->w[i];
		if ((strcmp(a, "-c") == 0 || strcmp(a, "--call") == 0) && i + 1 < c->n)
			w = &c->w[++i];
		else if (strncmp(a, "--call=", 7) == 0)
			v = a + 7;
		else
			continue;
		if (w->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
			        "%s -c runs a command that is only known at run time", c->w[0].val);
		else if (v)
			shell_script_text(x, v, strlen(v), shell_span_word(x, w));
		else
			shell_script_word(x, w);
	}
}

/* A command a package manager finds in node_modules/.bin: the project's
 * own file, which any earlier call in the workdir may have written, so
 * not the program of that name the tables know (`npx ls` with a
 * node_modules/.bin/ls is no ls). Medium, as npm run is. */
static void npx_local_note(struct cctx *x, const struct cmdv *c, size_t at)
{
	if (at < c->n && !(c->w[at].flags & (W_DYNAMIC | W_GLOB)) && !strchr(c->w[at].val, '/') &&
	    npx_local(x, c->w[at].val))
		cls_add(x, TIER_MEDIUM, "exec.build", shell_span_word(x, &c->w[at]),
		        "runs the project's node_modules/.bin/%s, whatever '%s' means elsewhere",
		        c->w[at].val, c->w[at].val);
}

/* The package npx downloads for a plain NAME is the one that provides
 * the program NAME (npx prisma runs prisma), so its arguments are judged
 * as that program's too: `npx prisma migrate reset --force` was
 * pkg.install alone, high, where prisma's own is db.wipe; so is NAME@VERSION
 * (npx_bin). Only for a name the tables know (an unknown one adds nothing
 * to pkg.install); it only adds findings and commands, npx itself stays
 * recorded. */
static void npx_tool(struct cctx *x, const struct cmdv *c, size_t at, const char *bin)
{
	struct cmdv sub = *c;

	sub.w = arena_alloc(x->a, (c->n - at) * sizeof(*sub.w));
	memcpy(sub.w, c->w + at, (c->n - at) * sizeof(*sub.w));
	sub.n = c->n - at;
	sub.prog = NULL;
	if (strcmp(bin, sub.w[0].val) != 0) { /* prisma@5 is prisma, aws-cdk is cdk */
		sub.w[0].val = bin;
		sub.w[0].len = strlen(bin);
		sub.w[0].verbatim = false;
	}
	shell_exec_argv(x, &sub);
}

/* The program a registry package NAME[@VERSION] provides, when a table
 * knows it: the name itself, or for the few whose program has another
 * name, that one. NULL for a scoped, path or run-time name. */
static const char *npx_bin(struct cctx *x, const struct word *w)
{
	static const struct {
		const char *pkg, *bin;
	} bins[] = {{"aws-cdk", "cdk"}, {"sequelize-cli", "sequelize"}, {"@prisma/cli", "prisma"}};
	const char *at = strchr(w->val + 1, '@'), *name;

	if ((w->flags & (W_DYNAMIC | W_GLOB)) || (strchr(w->val, '/') && w->val[0] != '@'))
		return NULL;
	name = at ? arena_strndup(x->a, w->val, (size_t)(at - w->val)) : w->val;
	for (size_t i = 0; i < nitems(bins); i++)
		if (strcmp(name, bins[i].pkg) == 0)
			name = bins[i].bin;
	return name[0] != '@' && name[0] != '-' && rules_known_prog(name) ? name : NULL;
}

/* npx NAME (bunx NAME) runs the project's node_modules/.bin/NAME when it
 * has one, as `npm run` would: NAME is then the command. Else it downloads
 * the package NAME from the registry and runs it; so do -p/--package,
 * -c/--call, NAME@VERSION, a scoped or path NAME, or any option but
 * -y/--yes/--no/-q (a registry, a workspace). */
static long wrap_npx(struct cctx *x, struct cmdv *c, size_t at)
{
	static const char *const plain[] = {"-y", "--yes", "--no", "--no-install", "-q", "--quiet",
	                                    "--bun", "--"};
	const char *name = at < c->n ? c->w[at].val : NULL;
	bool local = name && !(c->w[at].flags & W_DYNAMIC) && name[0] != '.' && name[0] != '-' &&
	             strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	                 strlen(name);

	for (size_t i = 1; local && i < at; i++) {
		bool ok = false;
		for (size_t k = 0; k < nitems(plain) && !ok; k++)
			ok = strcmp(c->w[i].val, plain[k]) == 0;
		local = ok;
	}
	if (local && npx_local(x, name)) {
		npx_local_note(x, c, at);
		return (long)at;
	}
	cls_add(x, TIER_HIGH, "pkg.install", shell_span_words(x, c->w, at < c->n ? at + 1 : c->n),
	        "%s downloads and runs a package the project does not have in node_modules/.bin",
	        c->w[0].val);
	record_self(x, c);
	npx_call(x, c, 1, at);
	if (at < c->n && (name = npx_bin(x, &c->w[at])) != NULL)
		npx_tool(x, c, at, name);
	return -1;
}

/*
 * npm, pnpm and yarn by their verb (the first word that is no option):
 * `npm exec|x -c CMD` runs CMD in a shell (the rest of npm is judged by
 * its table); `pnpm exec` runs its command, in a shell with -c or
 * --shell-mode (before or after exec), as `pnpm dlx -c` does; `yarn exec`
 * (Yarn 2+) runs its words as a script in its shell. A command found in
 * node_modules/.bin is the project's own. Returns 0 to judge the command
 * by the tables.
 */
static long wrap_node_pm(struct cctx *x, struct cmdv *c, size_t at)
{
	/* global options with a value: pnpm --filter|-F, --dir|-C; npm
	 * --prefix, --workspace|-w; yarn --cwd; their --loglevel, --reporter */
	static const char *const longargs[] = {"--filter", "--filter-prod", "--dir",
		"--workspace-dir", "--reporter", "--loglevel", "--prefix", "--workspace", "--cwd",
		NULL};
	char path[CLS_MAX_PATH];
	const char *prog = rules_prog_name(c->w[0].val, path, sizeof(path)), *v, *bin_name;
	size_t verb = skip_opts(c, at, "FCw", longargs), cmd, bin;
	bool shell = false;

	if (verb >= c->n || verb == 0 || strcmp(c->w[verb - 1].val, "--") == 0)
		return 0;
	v = c->w[verb].val;
	cmd = skip_opts(c, verb + 1, "", NULL);
	for (size_t i = 1; i < cmd; i++)
		shell |= strcmp(c->w[i].val, "-c") == 0 || strcmp(c->w[i].val, "--shell-mode") == 0;
	if (strcmp(prog, "npm") == 0) {
		if (strcmp(v, "exec") == 0 || strcmp(v, "x") == 0)
			npx_call(x, c, verb + 1, c->n);
		return 0;
	}
	/* yarn node ARGS (and yarn|pnpm [run] node): node with those
	 * arguments, its -e code read as node's is; yarn's own finding stays */
	bin = strcmp(v, "run") == 0 && verb + 1 < c->n ? verb + 1 : verb;
	if (strcmp(c->w[bin].val, "node") == 0 && strcmp(prog, "npm") != 0) {
		rules_subcommand(x, c, bin, c->n);
		return 0;
	}
	if (strcmp(v, "dlx") == 0 && shell && strcmp(prog, "pnpm") == 0) {
		script_of_words(x, c, cmd, c->w[0].val);
		return 0; /* and the table's pkg.install */
	}
	if (strcmp(v, "dlx") == 0 && cmd < c->n && (bin_name = npx_bin(x, &c->w[cmd])) != NULL)
		npx_tool(x, c, cmd, bin_name); /* as npx NAME: pnpm dlx prisma is prisma */
	if (strcmp(v, "exec") != 0)
		return 0;
	npx_local_note(x, c, cmd);
	if (shell || strcmp(prog, "yarn") == 0) {
		record_self(x, c);
		script_of_words(x, c, cmd, c->w[0].val);
		return -1;
	}
	return rest_or_self(x, c, cmd);
}

/* Shell option parsing: returns the index of the first operand. */
static size_t shell_opts(const struct cmdv *c, bool *dash_c)
{
	static const char *const longargs[] = {"--rcfile", "--init-file", NULL};
	size_t i = 1;

	*dash_c = false;
	while (i < c->n) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0 || strcmp(a, "-") == 0)
			return i + 1;
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
			return i;
		if (a[1] == '-') {
			for (size_t k = 0; longargs[k]; k++)
				if (strcmp(a, longargs[k]) == 0)
					i++;
			i++;
			continue;
		}
		for (size_t k = 1; a[k]; k++) {
			if (a[k] == 'c')
				*dash_c = true;
			if ((a[k] == 'o' || a[k] == 'O') && a[k + 1] == '\0')
				i++;
		}
		i++;
	}
	/* a last -o or --rcfile with its value missing steps past the end:
	 * the callers read words [1, i), so never past c->n (`bash -o <<E`
	 * then read c->w[c->n] and crashed, fuzz_shell) */
	return i < c->n ? i : c->n;
}

/* Whether a shell's options [1, end) hold -s: it reads its script from
 * stdin, and the words after the options are its $1, $2... (`curl URL |
 * bash -s -- --yes`), not a script file. */
static bool shell_dash_s(const struct cmdv *c, size_t end)
{
	for (size_t i = 1; i < end; i++) {
		const char *a = c->w[i].val;
		if (a[0] != '-' || a[1] == '-' || a[1] == '\0')
			continue;
		for (size_t k = 1; a[k]; k++) {
			if (a[k] == 's')
				return true;
			if ((a[k] == 'o' || a[k] == 'O') && a[k + 1] == '\0')
				i++; /* -o NAME */
		}
	}
	return false;
}

void unwrap_stdin_script(struct cctx *x, struct cmdv *c, bool shell, const char *what)
{
	struct span sp = shell_span_word(x, &c->w[0]);

	switch (c->in) {
	case IN_PIPE:
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", sp,
		        "pipes data into %s, which runs it as code", what);
		if (shell && c->in_text)
			shell_script_text(x, c->in_text, c->in_len, c->in_span);
		else if (c->in_text) /* echo 'import os; ...' | python3 */
			code_scan(x, what, c->in_text, c->in_len, c->in_span);
		break;
	case IN_DOC:
		if (shell)
			shell_script_text(x, c->in_text, c->in_len, c->in_span);
		else
			code_scan(x, what, c->in_text, c->in_len, c->in_span);
		break;
	case IN_FILE:
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "%s runs a script from a file airlock cannot see", what);
		if (c->in_file) /* sh < x.sh after echo CMD > x.sh */
			shell_files_run(x, c->in_file, shell ? "sh" : what);
		break;
	case IN_NONE:
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "starts %s reading commands from the terminal", what);
		break;
	}
}

/* Whether a shell's options [1, end) make it expand history in what it
 * reads: -i (interactive: history and expansion on), or -H or -o
 * histexpand. */
static bool shell_histexpand(const struct cmdv *c, size_t end)
{
	for (size_t i = 1; i < end; i++) {
		const char *a = c->w[i].val;
		if (a[0] != '-' || a[1] == '-')
			continue;
		if (strchr(a, 'i') || strchr(a, 'H') ||
		    (strchr(a, 'o') && i + 1 < end && strcmp(c->w[i + 1].val, "histexpand") == 0))
			return true;
	}
	return false;
}

/* fish's command substitution is (CMD), unquoted, anywhere in a word:
 * `fish -c '(echo rm) -rf ~'` runs rm, where sh reads a subshell. The
 * script is read once more with each such ( written $( . */
static void fish_substs(struct cctx *x, const struct word *s)
{
	struct buf b;
	char q = 0;

	if (memchr(s->val, '(', s->len) == NULL)
		return;
	buf_init(&b, s->len + 16);
	for (size_t i = 0; i < s->len; i++) {
		char ch = s->val[i];
		if (q == 0 && ch == '\\' && i + 1 < s->len) {
			buf_append(&b, s->val + i++, 2);
			continue;
		}
		if (q == 0 && (ch == '\'' || ch == '"'))
			q = ch;
		else if (q == ch)
			q = 0;
		if (q == 0 && ch == '(' && (i == 0 || s->val[i - 1] != '$'))
			buf_append(&b, "$", 1);
		buf_append(&b, &ch, 1);
	}
	shell_script_text(x, b.data, b.len, shell_span_word(x, s));
	buf_free(&b);
}

static long wrap_shell(struct cctx *x, struct cmdv *c, size_t at)
{
	bool dash_c;
	size_t i = shell_opts(c, &dash_c);
	const struct word *s = i < c->n ? &c->w[i] : NULL;
	char pbuf[CLS_MAX_PATH];

	(void)at;
	record_self(x, c);
	if (dash_c && s == NULL) {
		cls_add(x, TIER_HIGH, "parse.uncertain", shell_span_words(x, c->w, c->n),
		        "%s -c without a script", c->w[0].val);
	} else if (dash_c && (s->flags & (W_DYNAMIC | W_GLOB))) {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, s),
		        "the script given to %s -c is only known at run time", c->w[0].val);
	} else if (dash_c) {
		if (i + 2 < c->n) /* sh -c SCRIPT NAME ARGS...: the script's $1... */
			shell_var_args(x, &c->w[i + 2], c->n - i - 2);
		shell_script_word(x, s);
		if (strcmp(rules_prog_name(c->w[0].val, pbuf, sizeof(pbuf)), "fish") == 0)
			fish_substs(x, s);
	} else if (s && shell_dash_s(c, i)) {
		/* bash -s ARGS: the script is stdin, ARGS its $1... */
		shell_var_args(x, s, c->n - i);
		unwrap_stdin_script(x, c, true, c->w[0].val);
	} else if (s && (s->flags & W_PROCSUB)) {
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, s),
		        "runs the output of another command as a script");
	} else if (s) {
		paths_read(x, s, s->val);
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, s),
		        "runs the script %s, which airlock cannot see", s->val);
		shell_files_run(x, s, "sh");
	} else {
		/* bash -i <<EOF: `!!`, `!:1` in the text become earlier lines */
		if (c->in == IN_DOC && memchr(c->in_text, '!', c->in_len) && shell_histexpand(c, i))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, &c->w[0]),
			        "%s expands history in its input: a `!` word runs earlier "
			        "command lines",
			        c->w[0].val);
		unwrap_stdin_script(x, c, true, c->w[0].val);
	}
	return -1;
}

/* Joins words [at, n) with spaces and classifies the text as a script. */
static void script_of_words(struct cctx *x, struct cmdv *c, size_t at, const char *who)
{
	for (size_t i = at; i < c->n; i++)
		if (c->w[i].flags & (W_DYNAMIC | W_GLOB)) {
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, &c->w[i]),
			        "%s runs text that is only known at run time", who);
			return;
		}
	shell_script_words(x, c, at);
}

void shell_script_words(struct cctx *x, const struct cmdv *c, size_t at)
{
	struct buf b;

	if (at >= c->n)
		return;
	if (at + 1 == c->n && !(c->w[at].flags & (W_DYNAMIC | W_GLOB))) {
		shell_script_word(x, &c->w[at]); /* its spans point into the command */
		return;
	}
	buf_init(&b, 0);
	for (size_t i = at; i < c->n; i++) {
		if (i > at)
			buf_puts(&b, " ");
		buf_append(&b, c->w[i].val, c->w[i].len);
	}
	shell_script_text(x, b.data ? b.data : "", b.len,
	                  shell_span_words(x, c->w + at, c->n - at));
	buf_free(&b);
}

/* The wrapper's own words, argv[0 .. at): its options end at the wrapped
 * command, whose argv is not the wrapper's (`env rm -rf / -S true`). */
static struct cmdv wrapper_head(const struct cmdv *c, size_t at)
{
	struct cmdv h = *c;

	h.n = at < c->n ? at : c->n;
	return h;
}

static long wrap_eval(struct cctx *x, struct cmdv *c, size_t at)
{
	(void)at;
	if (c->n > 1)
		script_of_words(x, c, 1, "eval");
	return -1;
}

static long wrap_watch(struct cctx *x, struct cmdv *c, size_t at)
{
	if (at < c->n)
		script_of_words(x, c, at, "watch");
	else
		record_self(x, c);
	return -1;
}

/* env -C DIR, sudo -D DIR: the command runs in DIR, so its relative paths
 * are read from there (env -C / rm -rf * is cd / && rm -rf *). The change
 * outlives the command: a stricter reading of what follows, never a laxer. */
static void wrapper_chdir(struct cctx *x, const struct cmdv *h, char letter, const char *longopt,
                          const char *argopts)
{
	char abs[CLS_MAX_PATH];
	const char *val;
	const struct word *w = opt_value(h, letter, longopt, argopts, &val);

	if (w == NULL)
		return;
	x->cwd = !(w->flags & W_DYNAMIC) && paths_resolve(x, val, abs, sizeof(abs))
	                 ? arena_strndup(x->a, abs, strlen(abs))
	                 : NULL; /* unknown: relative paths count as outside */
}

/* Wrappers with an option that sets the command's directory. */
static const struct {
	const char *name;
	char letter;
	const char *longopt;
} chdir_opts[] = {{"env", 'C', "--chdir"}, {"sudo", 'D', "--chdir"}};

static void wrapper_chdirs(struct cctx *x, const struct cmdv *c, const char *name,
                           const char *argopts, size_t at)
{
	for (size_t i = 0; i < nitems(chdir_opts); i++)
		if (strcmp(name, chdir_opts[i].name) == 0) {
			struct cmdv h = wrapper_head(c, at);
			wrapper_chdir(x, &h, chdir_opts[i].letter, chdir_opts[i].longopt, argopts);
		}
}

static long wrap_env(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;
	struct cmdv h = wrapper_head(c, at);
	const struct word *s = opt_value(&h, 'S', "--split-string", "uCS", &val);

	if (s) {
		record_self(x, c);
		if (s->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, s),
			        "env -S runs text that is only known at run time");
		else
			shell_script_text(x, val, strlen(val), shell_span_word(x, s));
		return -1;
	}
	if (at < c->n && strcmp(c->w[at].val, "-") == 0) /* `env -` is env -i */
		at++;
	while (at < c->n && strchr(c->w[at].val, '=') && c->w[at].val[0] != '=' &&
	       c->w[at].val[0] != '-') {
		struct word w = c->w[at];
		w.flags |= W_ASSIGN;
		{
			struct scmd fake;
			memset(&fake, 0, sizeof(fake));
			fake.w = &w;
			fake.nw = 1;
			shell_exec_command(x, &fake);
		}
		at++;
	}
	return rest_or_self(x, c, at);
}

static long wrap_command(struct cctx *x, struct cmdv *c, size_t at)
{
	struct cmdv h = wrapper_head(c, at);

	if (opt_short(&h, 'v', "") || opt_short(&h, 'V', "") || at >= c->n) {
		record_self(x, c);
		return -1;
	}
	return (long)at;
}

/* jobs -x CMD ARGS runs CMD (job specs in ARGS replaced by process group
 * ids); without -x jobs only lists, as the table's row says. */
static long wrap_jobs(struct cctx *x, struct cmdv *c, size_t at)
{
	struct cmdv h = wrapper_head(c, at);

	if (!opt_short(&h, 'x', ""))
		return 0;
	return rest_or_self(x, c, at);
}

static long wrap_time(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;
	struct cmdv h = wrapper_head(c, at);
	const struct word *o = opt_value(&h, 'o', "--output", "fo", &val);

	if (o)
		paths_write(x, o, val, shell_span_word(x, o));
	return rest_or_self(x, c, at);
}

/* strace|ltrace -o FILE writes the trace there. */
static long wrap_trace(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;
	struct cmdv h = wrapper_head(c, at);
	const char *base = strrchr(c->w[0].val, '/');
	const struct word *o;

	base = base ? base + 1 : c->w[0].val;
	o = opt_value(&h, 'o', "--output", base[0] == 'l' ? ltrace_opts : strace_opts, &val);
	if (o)
		paths_write(x, o, val, shell_span_word(x, o));
	return rest_or_self(x, c, at);
}

static long wrap_flock(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;
	struct cmdv h = wrapper_head(c, at);
	const struct word *s = opt_value(&h, 'c', "--command", "wEc", &val);

	/* flock [opts] FILE -c CMD: -c only right after the lock file */
	if (s == NULL && at + 2 < c->n &&
	    (strcmp(c->w[at + 1].val, "-c") == 0 || strcmp(c->w[at + 1].val, "--command") == 0))
		s = &c->w[at + 2];
	if (s) {
		record_self(x, c);
		shell_script_word(x, s);
		return -1;
	}
	return rest_or_self(x, c, at + 1); /* after the lock file */
}

/* The script given to -c / --command (su, runuser, script): judged as a
 * script. Returns false when there is none. */
static bool dash_c_script(struct cctx *x, const struct cmdv *c, const char *argopts)
{
	const char *val;
	const struct word *s = opt_value(c, 'c', "--command", argopts, &val);

	if (s == NULL)
		return false;
	if (s->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, s),
		        "%s -c runs text that is only known at run time", c->w[0].val);
	else if (strcmp(val, s->val) == 0)
		shell_script_word(x, s);
	else
		shell_script_text(x, val, strlen(val), shell_span_word(x, s));
	return true;
}

static long wrap_su(struct cctx *x, struct cmdv *c, size_t at)
{
	(void)at;
	record_self(x, c);
	dash_c_script(x, c, "cgGs");
	return -1;
}

/* capsh [OPTS] -- ARGS runs /bin/bash ARGS with the capabilities it set:
 * `capsh -- -c CMD` runs CMD (it was sys.admin alone). Without -- it
 * runs nothing of its own: the table's sys.admin. */
static long wrap_capsh(struct cctx *x, struct cmdv *c, size_t at)
{
	(void)at;
	for (size_t i = 1; i < c->n; i++) {
		struct cmdv t = *c;
		if (strcmp(c->w[i].val, "--") != 0)
			continue;
		t.w = c->w + i;
		t.n = c->n - i;
		record_self(x, c);
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_word(x, &c->w[0]),
		        "runs a shell with the capabilities it sets (capsh --)");
		if (!dash_c_script(x, &t, "c") && t.n > 1)
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &t.w[1]),
			        "runs the shell script %s, which airlock cannot see", t.w[1].val);
		return -1;
	}
	return 0;
}

/* runuser -l USER -c CMD is su; runuser -u USER CMD... wraps a command. */
static long wrap_runuser(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;

	if (opt_value(c, 'c', "--command", "ugGcs", &val) == NULL)
		return rest_or_self(x, c, at);
	record_self(x, c);
	dash_c_script(x, c, "ugGcs");
	return -1;
}

/* script -c CMD [FILE] runs CMD through the shell, recording a typescript. */
static long wrap_script(struct cctx *x, struct cmdv *c, size_t at)
{
	size_t idx;
	const char *v;

	(void)at;
	record_self(x, c);
	static const struct {
		char letter;
		const char *lname;
	} logs[] = {{'O', "--log-out"}, {'I', "--log-in"}, {'B', "--log-io"}, {'T', "--log-timing"}};

	/* the typescript FILE and the -O, -I, -B, -T logs are written */
	if (opt_operands(c, 1, "cEIOBT", &idx, 1))
		paths_write(x, &c->w[idx], c->w[idx].val, shell_span_word(x, &c->w[idx]));
	for (size_t i = 0; i < nitems(logs); i++) {
		const struct word *w = opt_value(c, logs[i].letter, logs[i].lname, "cEIOBT", &v);
		if (w)
			paths_write(x, w, v, shell_span_word(x, w));
	}
	if (!dash_c_script(x, c, "cEIOBT"))
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[0]),
		        "script starts a shell reading commands from the terminal");
	return -1;
}

/* parallel CMD ::: ARGS: CMD runs through the shell once per argument,
 * with {} replaced by it (or the argument appended). Without ::: the
 * arguments come from stdin, unknown, as with xargs. With no CMD the
 * arguments (`parallel ::: 'rm -rf ~'`), or stdin's lines, are the
 * commands. */
static long wrap_parallel(struct cctx *x, struct cmdv *c, size_t at)
{
	size_t sep = at, shown = 0;
	struct buf cmd;

	while (sep < c->n && strcmp(c->w[sep].val, ":::") != 0)
		sep++;
	if (sep == at && sep < c->n) {
		record_self(x, c);
		for (size_t i = sep + 1; i < c->n; i++) {
			struct cmdv one = *c;
			one.w = c->w + i;
			one.n = 1;
			script_of_words(x, &one, 0, "parallel");
		}
		return -1;
	}
	if (at >= c->n) {
		record_self(x, c);
		unwrap_stdin_script(x, c, true, "parallel");
		return -1;
	}
	if (sep == c->n) {
		c->dyn_tail = true;
		return rest_or_self(x, c, at);
	}
	record_self(x, c);
	buf_init(&cmd, 0);
	for (size_t i = at; i < sep; i++)
		buf_printf(&cmd, "%s%s", i > at ? " " : "", c->w[i].val);
	for (size_t i = sep + 1; i < c->n && shown < 16; i++, shown++) {
		struct buf one;
		const char *brace = strstr(cmd.data, "{}");
		buf_init(&one, 0);
		if (brace)
			buf_printf(&one, "%.*s%s%s", (int)(brace - cmd.data), cmd.data, c->w[i].val,
			           brace + 2);
		else
			buf_printf(&one, "%s %s", cmd.data, c->w[i].val);
		shell_script_text(x, one.data, one.len, shell_span_words(x, c->w + at, c->n - at));
		buf_free(&one);
	}
	buf_free(&cmd);
	return -1;
}

/* Appends s to b single-quoted, so the shell reads it as one literal word. */
static void put_quoted(struct buf *b, const char *s, size_t n)
{
	buf_puts(b, b->len ? " '" : "'");
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\'')
			buf_puts(b, "'\\''");
		else
			buf_append(b, s + i, 1);
	buf_puts(b, "'");
}

/* echo WORDS | xargs CMD: the arguments xargs will add are known, so CMD
 * is also judged with them (`echo / | xargs rm -rf` is rm -rf /). Only the
 * plain form: -I, -0, -d and -E change how the input becomes arguments. */
static void xargs_known_input(struct cctx *x, const struct cmdv *c, const struct cmdv *h,
                              size_t at)
{
	static const char *const ws = " \t\n";
	struct buf b;

	if ((c->in != IN_PIPE && c->in != IN_DOC) || !c->in_text || at >= c->n ||
	    opt_short(h, 'I', "IanPLdsE") ||
	    opt_short(h, 'i', "IanPLdsE") || opt_short(h, '0', "IanPLdsE") ||
	    opt_short(h, 'd', "IanPLdsE") || opt_short(h, 'E', "IanPLdsE") ||
	    opt_long(h, "--null") || opt_long(h, "--delimiter") || opt_long(h, "--replace"))
		return;
	buf_init(&b, CLS_MAX_INPUT);
	for (size_t i = at; i < c->n; i++)
		put_quoted(&b, c->w[i].val, c->w[i].len);
	for (const char *p = c->in_text + strspn(c->in_text, ws); *p; p += strspn(p, ws)) {
		size_t n = strcspn(p, ws);
		put_quoted(&b, p, n);
		p += n;
	}
	if (!b.truncated)
		shell_script_text(x, b.data, b.len, shell_span_words(x, c->w, c->n));
	buf_free(&b);
}

/* The lines of t (a last one without its newline counted); 0 for NULL. */
static size_t text_lines(const char *t)
{
	size_t n = 0;

	for (; t && *t; n++)
		t += strcspn(t, "\n") + (t[strcspn(t, "\n")] == '\n');
	return n;
}

/* xargs -I R CMD...: CMD runs once per input line, R in its words replaced
 * by the line (leading blanks dropped), as xargs does; the first 16 lines.
 * Returns false without -I; with it, and input not read whole, the words
 * holding R are marked known only at run time (`cat list | xargs -I{} cp
 * x {}` writes anywhere: it was a write of a file named {} here). */
static bool xargs_replace(struct cctx *x, struct cmdv *c, const struct cmdv *h, size_t at)
{
	const char *r = NULL, *p;
	size_t rl, lines = 0;
	bool known;

	if (at >= c->n ||
	    (!opt_value(h, 'I', "--replace", "IanPLdsE", &r) && !opt_value(h, 'i', NULL, "", &r)))
		return false;
	if (r == NULL || r[0] == '\0')
		r = "{}";
	known = (c->in == IN_PIPE || c->in == IN_DOC) && c->in_text;
	if (!known || text_lines(c->in_text) > 16)
		for (size_t i = at; i < c->n; i++)
			if (strstr(c->w[i].val, r))
				c->w[i].flags |= W_DYNAMIC;
	if (!known)
		return true;
	rl = strlen(r);
	for (p = c->in_text; *p && lines < 16; lines++) {
		size_t n = strcspn(p, "\n");
		const char *line = p + strspn(p, " \t");
		size_t ll = n - (size_t)(line - p);
		struct buf b;
		buf_init(&b, CLS_MAX_INPUT);
		for (size_t i = at; i < c->n; i++) {
			struct buf w;
			const char *v = c->w[i].val, *q;
			buf_init(&w, CLS_MAX_INPUT);
			while ((q = strstr(v, r)) != NULL) {
				buf_append(&w, v, (size_t)(q - v));
				buf_append(&w, line, ll);
				v = q + rl;
			}
			buf_puts(&w, v);
			put_quoted(&b, w.data ? w.data : "", w.len);
			buf_free(&w);
		}
		if (!b.truncated && ll)
			shell_script_text(x, b.data, b.len, shell_span_words(x, c->w, c->n));
		buf_free(&b);
		p += n + (p[n] == '\n');
	}
	return true;
}

static long wrap_xargs(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *val;
	struct cmdv h = wrapper_head(c, at);

	if (opt_value(&h, 'a', "--arg-file", "IanPLdsE", &val))
		paths_read(x, &c->w[0], val);
	xargs_known_input(x, c, &h, at);
	c->dyn_tail = !xargs_replace(x, c, &h, at); /* -I replaces, appends nothing */
	return rest_or_self(x, c, at);
}

/* Words [at, n) are one command line the tool runs through a shell (bun
 * exec, cross-env-shell, sg GROUP -c): judged as a script. */
static long wrap_words(struct cctx *x, struct cmdv *c, size_t at)
{
	record_self(x, c);
	if (at < c->n && strcmp(c->w[at].val, "-c") == 0)
		at++;
	if (at < c->n)
		script_of_words(x, c, at, c->w[0].val);
	return -1;
}

/* A secret manager's run: --command TEXT (doppler, infisical) is a
 * script; else the command follows a "--" (chamber exec SERVICE... --
 * CMD), or the options. */
static long wrap_vault(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *v;
	const struct word *w = opt_value(c, 0, "--command", NULL, &v);

	/* what net_rules said of them before they were wrappers: an approved
	 * call needs the network to reach the vault */
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, at),
	        "%s fetches the secrets over the network", c->w[0].val);
	if (w) {
		record_self(x, c);
		if (w->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
			        "%s --command runs text that is only known at run time", c->w[0].val);
		else
			shell_script_text(x, v, strlen(v), shell_span_word(x, w));
		return -1;
	}
	for (size_t i = 2; i < c->n; i++)
		if (strcmp(c->w[i].val, "--") == 0)
			return rest_or_self(x, c, i + 1);
	return rest_or_self(x, c, at);
}

/* mise exec|x [TOOL@VERSION...] -- CMD: the command follows the "--". */
static long wrap_dashdash(struct cctx *x, struct cmdv *c, size_t at)
{
	(void)at;
	if (c->n < 2 || (strcmp(c->w[1].val, "exec") != 0 && strcmp(c->w[1].val, "x") != 0))
		return 0;
	for (size_t i = 2; i < c->n; i++)
		if (strcmp(c->w[i].val, "--") == 0)
			return wrap_project_env(x, c, i + 1);
	return wrap_project_env(x, c, skip_opts(c, 2, "", NULL));
}

/* bwrap's options with two values; the flags take none; every other
 * option takes one. */
static const char *const bwrap_two[] = {"--setenv", "--bind", "--bind-try", "--dev-bind",
	"--dev-bind-try", "--ro-bind", "--ro-bind-try", "--file", "--bind-data",
	"--ro-bind-data", "--symlink", "--chmod", "--overlay-src", NULL};
static const char *const bwrap_flags[] = {"--unshare-all", "--share-net", "--unshare-user",
	"--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
	"--unshare-cgroup", "--unshare-cgroup-try", "--clearenv", "--new-session",
	"--die-with-parent", "--as-pid-1", "--disable-userns", "--assert-userns-disabled",
	"--level-prefix", NULL};

static bool word_in(const char *const *list, const char *a)
{
	for (size_t k = 0; list[k]; k++)
		if (strcmp(list[k], a) == 0)
			return true;
	return false;
}

static long wrap_bwrap(struct cctx *x, struct cmdv *c, size_t at)
{
	for (at = 1; at < c->n && strncmp(c->w[at].val, "--", 2) == 0; at++) {
		const char *a = c->w[at].val;
		if (a[2] == '\0')
			return rest_or_self(x, c, at + 1);
		if (!word_in(bwrap_flags, a))
			at += word_in(bwrap_two, a) ? 2 : 1;
	}
	return rest_or_self(x, c, at);
}

/* screen CMD runs CMD in a new session; without one it starts or attaches
 * a shell airlock cannot see, except -ls / -list, which only list. */
/* screen -X stuff TEXT types TEXT into a session's shell: its \n, \r,
 * ^M and ^J are Enter. */
static void screen_stuff(struct cctx *x, const struct word *w)
{
	char *t = arena_alloc(x->a, w->len + 1);
	size_t n = 0;

	for (const char *p = w->val; *p; p++) {
		if ((p[0] == '\\' && (p[1] == 'n' || p[1] == 'r')) ||
		    (p[0] == '^' && (p[1] == 'M' || p[1] == 'J'))) {
			t[n++] = '\n';
			p++;
		} else {
			t[n++] = *p;
		}
	}
	t[n] = '\0';
	if (w->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
		        "screen types text into a session that is only known at run time");
	else
		shell_script_text(x, t, n, shell_span_word(x, w));
}

static long wrap_screen(struct cctx *x, struct cmdv *c, size_t at)
{
	/* -X CMD ARGS drives a running session: stuff types into its shell,
	 * screen and exec start a program in it */
	for (size_t k = 1; k + 2 < c->n; k++) {
		if (strcmp(c->w[k].val, "-X") != 0)
			continue;
		record_self(x, c);
		cls_add(x, x->o->unknown_program, "exec.unknown_program",
		        shell_span_words(x, c->w, c->n), "screen -X drives a session airlock cannot see");
		if (strcmp(c->w[k + 1].val, "stuff") == 0)
			screen_stuff(x, &c->w[k + 2]);
		else if (strcmp(c->w[k + 1].val, "screen") == 0 || strcmp(c->w[k + 1].val, "exec") == 0)
			rules_subcommand(x, c, k + 2, c->n);
		return -1;
	}
	if (at < c->n)
		return (long)at;
	record_self(x, c);
	if (c->n != 2 || (strcmp(c->w[1].val, "-ls") != 0 && strcmp(c->w[1].val, "-list") != 0))
		cls_add(x, x->o->unknown_program, "exec.unknown_program",
		        shell_span_words(x, c->w, c->n),
		        "screen starts or attaches a shell session airlock cannot see");
	return -1;
}
