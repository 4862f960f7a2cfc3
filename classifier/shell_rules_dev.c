/*
 * shell_rules_dev.c: developer tools: package managers (pkg.install is
 * high: it downloads and runs code), build and test tools (exec.build,
 * medium), interpreters with inline code, containers, and SQL clients whose
 * SQL goes through the SQL classifier. One table row per (program, verb).
 */
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* ---- package managers ---- */

struct verb {
	const char *prog, *verbs; /* verbs: space-separated; "" = no verb given */
	enum tier tier;
	const char *rule, *why;
};

#define INST TIER_HIGH, "pkg.install", "installs packages (downloads and runs their code)"
#define RMV TIER_HIGH, "pkg.remove", "removes installed packages"
#define BLD TIER_MEDIUM, "exec.build", "runs a build, test or project script"
#define LOW TIER_LOW, NULL, NULL
#define NETF TIER_HIGH, "net.fetch", "fetches package indexes or sources"
#define PUB TIER_HIGH, "net.upload", "publishes a package"
#define DFLT TIER_HIGH, "pkg.config", "changes the default runtime version for every later command"
#define PIN TIER_MEDIUM, "fs.write", "writes the project's version file"

static const struct verb verbs[] = {
	{"pip", "install wheel", INST}, {"pip", "uninstall", RMV}, {"pip", "download", NETF},
	{"pip", "index search", NETF},
	{"pip", "list show freeze check help config cache debug inspect hash --version", LOW},
	{"npm", "install i add ci update up upgrade isntall in create init exec x link ln", INST},
	{"npm", "uninstall remove rm un r unlink", RMV}, {"npm", "publish", PUB},
	{"npm", "run run-script test t start build restart stop rebuild pack", BLD},
	{"npm", "view v info show outdated audit doctor search s find ping dist-tag owner "
	        "access team deprecate", NETF},
	{"npm", "ls list help why config --version -v prefix root bin", LOW},
	/* npm token list|create prints registry tokens (it was unknown: medium) */
	{"npm", "token", TIER_HIGH, "secrets.read", "prints or creates registry tokens (npm token)"},
	{"yarn", " install add upgrade up dlx create import global link", INST},
	{"yarn", "remove", RMV},
	{"yarn", "publish npm", PUB}, {"yarn", "info outdated audit", NETF},
	{"yarn", "list why --version help config", LOW},
	{"pnpm", "install i add update up dlx create import link ln", INST}, {"pnpm", "remove rm un uninstall", RMV},
	{"pnpm", "publish", PUB}, {"pnpm", "run test t start build exec", BLD},
	{"pnpm", "outdated audit view info", NETF}, {"pnpm", "ls list why --version help config", LOW},
	{"bun", "install i add update create x link", INST}, {"bun", "remove rm", RMV},
	{"bun", "run test build", BLD},
	{"cargo", "install add", INST}, {"cargo", "uninstall remove", RMV}, {"cargo", "publish", PUB},
	{"cargo", "build b test t run r check c clippy fmt bench doc clean fix tree", BLD},
	{"cargo", "search fetch update login owner yank vendor", NETF},
	{"cargo", "metadata --version version help", LOW},
	{"go", "install get", INST}, {"go", "build test run vet fmt generate mod work clean tool fix", BLD},
	{"go", "version env list doc help", LOW},
	{"gem", "install update", INST}, {"gem", "uninstall", RMV}, {"gem", "search fetch", NETF},
	{"gem", "list info", LOW},
	{"bundle", " install update add", INST}, {"bundle", "remove", RMV},
	{"apt", "install reinstall upgrade dist-upgrade full-upgrade build-dep source", INST},
	{"apt", "remove purge autoremove", RMV}, {"apt", "update", NETF},
	{"apt", "list show search policy depends rdepends changelog", LOW},
	{"apt-get", "install reinstall upgrade dist-upgrade build-dep source", INST},
	{"apt-get", "remove purge autoremove", RMV}, {"apt-get", "update", NETF},
	{"aptitude", "install reinstall upgrade", INST}, {"aptitude", "remove purge", RMV},
	{"dnf", "install in update up upgrade reinstall groupinstall", INST},
	{"dnf", "remove erase rm autoremove", RMV}, {"dnf", "list info search repolist provides", LOW},
	{"dnf", "makecache check-update", NETF},
	{"yum", "install update upgrade reinstall groupinstall", INST}, {"yum", "remove erase", RMV},
	{"yum", "list info search repolist provides", LOW},
	{"zypper", "install in update up", INST}, {"zypper", "remove rm", RMV},
	{"apk", "add", INST}, {"apk", "del", RMV}, {"apk", "update", NETF}, {"apk", "info search list", LOW},
	{"brew", "install upgrade reinstall tap", INST}, {"brew", "uninstall remove rm untap", RMV},
	{"brew", "update", NETF}, {"brew", "list info search doctor --version", LOW},
	{"conda", "install create update", INST}, {"mamba", "remove uninstall", RMV}, {"conda", "remove uninstall", RMV},
	{"conda", "search", NETF}, {"conda", "list info env", LOW}, {"mamba", "install create update", INST},
	{"micromamba", "install create update", INST}, {"micromamba", "remove uninstall", RMV},
	{"micromamba", "list info search env", LOW},
	{"pixi", "add install global update upgrade", INST}, {"pixi", "remove rm", RMV},
	{"pixi", "build", BLD}, {"pixi", "list tree search info --version", LOW},
	{"snap", "install refresh", INST}, {"snap", "remove", RMV}, {"snap", "info find", NETF},
	{"snap", "list", LOW},
	{"flatpak", "install update", INST}, {"flatpak", "uninstall", RMV}, {"flatpak", "list info", LOW},
	{"pipx", "install inject run upgrade upgrade-all reinstall reinstall-all", INST},
	{"pipx", "uninstall uninstall-all uninject", RMV}, {"pipx", "list", LOW},
	{"uv", "add sync lock install run", INST}, /* run: uv tool run, as uvx */ {"uv", "remove uninstall", RMV},
	{"uv", "venv build", BLD}, {"uv", "publish", PUB}, {"uv", "--version version help", LOW},
	{"flit", "install", INST}, {"flit", "publish", PUB}, {"flit", "build init", BLD},
	{"poetry", "add install update lock", INST}, {"poetry", "remove", RMV},
	{"poetry", "build check", BLD}, {"poetry", "show --version", LOW}, {"poetry", "publish", PUB},
	{"composer", "require install update", INST}, {"composer", "remove", RMV},
	{"dotnet", "add restore tool", INST}, {"dotnet", "build test run publish pack clean format", BLD},
	{"pdm", "add install update sync lock", INST}, {"pdm", "remove", RMV},
	{"pdm", "run build", BLD}, {"pdm", "list show info --version", LOW}, {"pdm", "publish", PUB},
	{"hatch", "run shell env test", INST}, {"hatch", "build clean", BLD},
	{"hatch", "publish", PUB}, {"hatch", "version status --version", LOW},
	{"rustup", "install toolchain update target component default self", INST},
	{"rustup", "show which --version help", LOW},
	{"nix", "run shell profile develop", INST}, {"nix", "build flake", BLD},
	{"nix", "search eval log why-depends --version", LOW},
	{"make", "install", INST},
	/* language version managers download and install runtimes */
	{"nvm", "install reinstall-packages", INST}, {"nvm", "uninstall", RMV},
	{"nvm", "ls list current which version --version use", LOW}, {"nvm", "alias", DFLT},
	{"pyenv", "install update", INST}, {"pyenv", "uninstall", RMV},
	{"pyenv", "versions version which shell --version", LOW}, {"pyenv", "global", DFLT},
	{"pyenv", "local", PIN},
	{"volta", "install fetch pin", INST}, {"volta", "uninstall", RMV}, {"volta", "list which", LOW},
	{"sdk", "install update upgrade selfupdate", INST}, {"sdk", "uninstall", RMV},
	{"sdk", "list current version use", LOW}, {"sdk", "default", DFLT},
	{"corepack", "enable install prepare use up", INST},
	{"apt", "download", NETF}, {"apt-get", "download", NETF}, {"snap", "download", NETF},
	{"brew", "bundle", INST},
	{"twine", "upload register", PUB}, {"twine", "check --version", LOW},
};

/* PROG VERB SUBVERB, looked up by "PROG VERB": a query under a verb that
 * otherwise installs (rustup target list, yarn global list), or a fetch
 * under one that otherwise builds (go mod download, as cargo fetch). */
static const struct verb subverbs[] = {
	{"rustup target", "list", LOW}, {"rustup component", "list", LOW},
	{"rustup toolchain", "list", LOW}, {"go mod", "download", NETF},
	{"yarn global", "list bin dir", LOW}, {"yarn global", "remove", RMV},
};

static bool has_verb(const char *list, const char *v)
{
	return *v ? word_listed(list, v) : list[0] == ' '; /* " ...": no verb is one */
}

/* Which registry a package manager installs from. */
static const struct {
	const char *prog, *eco;
} registries[] = {
	{"pip", "python"}, {"uv", "python"}, {"poetry", "python"}, {"pipx", "python"},
	{"pdm", "python"}, {"npm", "npm"}, {"yarn", "npm"}, {"pnpm", "npm"}, {"bun", "npm"},
	{"cargo", "cargo"}, {"gem", "gem"},
};

/* Names one typo away from a popular package among the operands from `from`. */
static void typosquats(struct cctx *x, const struct cmdv *c, const char *prog, size_t from)
{
	const char *eco = NULL, *like;

	for (size_t i = 0; i < nitems(registries); i++)
		if (strcmp(registries[i].prog, prog) == 0)
			eco = registries[i].eco;
	for (size_t i = from; eco && i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (w->val[0] == '-' || (w->flags & (W_DYNAMIC | W_GLOB)) || strchr(w->val, '/'))
			continue; /* options, and paths or URLs rather than registry names */
		if ((like = pkg_typosquat(eco, w->val)) != NULL)
			cls_add(x, TIER_HIGH, "pkg.typosquat", shell_span_word(x, w),
			        "%s is one letter away from the popular package %s: a common "
			        "typo-squat", w->val, like);
	}
}

/* `npm config set registry ...`, `pip config set global.index-url ...`:
 * every later install trusts where these point. */
static bool pkg_config_write(struct cctx *x, const struct cmdv *c, size_t at, struct span sp)
{
	static const char writes[] = "set delete rm unset edit fix";
	const char *v = at + 1 < c->n ? c->w[at + 1].val : "";

	if (!has_verb(writes, v) && !(c->w[at + 1 < c->n ? at + 1 : at].flags & W_DYNAMIC))
		return false;
	cls_add(x, TIER_HIGH, "pkg.config", sp,
	        "changes %s's configuration (registries, indexes, install scripts), "
	        "which later installs trust", c->w[0].val);
	return true;
}

/* `go run PKG@VERSION` downloads the module first; the package is the
 * first word after run's flags, the rest are the program's arguments. */
static bool go_run_remote(const struct cmdv *c, size_t at)
{
	for (size_t i = at + 1; i < c->n; i++)
		if (c->w[i].val[0] != '-')
			return strchr(c->w[i].val, '@') != NULL;
	return false;
}

static void rule_interp(struct cctx *x, struct cmdv *c);

static bool known_verb(const char *prog, const char *v)
{
	for (size_t i = 0; i < nitems(verbs); i++)
		if (verbs[i].prog[0] == prog[0] && strcmp(verbs[i].prog, prog) == 0 &&
		    has_verb(verbs[i].verbs, v))
			return true;
	return false;
}

/* The verb: the first operand, except that a word right after an option
 * may be its value (npm --prefix DIR install, pip --timeout 60 install,
 * apt-get -t RELEASE install), so a known verb further on wins; with none,
 * the first operand. */
static const struct word *pkg_verb(const struct cmdv *c, const char *prog, size_t *at)
{
	size_t first = 0;

	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val, *prev = c->w[i - 1].val;
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] == '-')
			continue;
		if (known_verb(prog, a)) {
			first = i;
			break;
		}
		if (first == 0)
			first = i;
		if (i == 1 || prev[0] != '-' || strchr(prev, '='))
			break; /* an operand no option can own */
	}
	if (first)
		*at = first;
	return first ? &c->w[first] : NULL;
}

/* npm|pnpm|yarn set KEY VALUE is npm config set. */
static bool npm_set(const char *prog, const char *v)
{
	return (strcmp(prog, "npm") == 0 || strcmp(prog, "pnpm") == 0 ||
	        strcmp(prog, "yarn") == 0) &&
	       (strcmp(v, "set") == 0 || strcmp(v, "delete") == 0);
}

static void rule_compiler(struct cctx *x, struct cmdv *c);
static void rule_tool_files(struct cctx *x, struct cmdv *c);
static void venv_dirs(struct cctx *x, const struct cmdv *c, size_t at, const char *argopts);
static bool tool_opt(const char *list, const char *a, const char **val);

/* The subverbs row for the words after the verb at c->w[at]: its finding
 * added (none for a query); false when no row names them. */
static bool pkg_subverb(struct cctx *x, const struct cmdv *c, const char *prog, size_t at,
                        struct span sp)
{
	char key[64];
	const char *sub = at + 1 < c->n ? c->w[at + 1].val : "";

	if (snprintf(key, sizeof(key), "%s %s", prog, c->w[at].val) >= (int)sizeof(key) ||
	    (c->w[at].flags & (W_DYNAMIC | W_GLOB)) || (at + 1 < c->n &&
	                                              (c->w[at + 1].flags & (W_DYNAMIC | W_GLOB))))
		return false;
	for (size_t i = 0; i < nitems(subverbs); i++) {
		if (strcmp(subverbs[i].prog, key) != 0 || !has_verb(subverbs[i].verbs, sub))
			continue;
		if (subverbs[i].rule)
			cls_add(x, subverbs[i].tier, subverbs[i].rule, sp, "%s", subverbs[i].why);
		return true;
	}
	return false;
}

/* go test -exec XPROG, go build -toolexec CMD, go vet -vettool PROG: go
 * runs that command line (the test binary or each tool under it). */
static void go_hooks(struct cctx *x, const struct cmdv *c, size_t from)
{
	for (size_t i = from; i < c->n; i++) {
		bool next;
		const char *v = rules_go_hook(c->w[i].val, &next);
		if (v == NULL)
			continue;
		if (next && i + 1 < c->n)
			v = c->w[++i].val;
		rules_go_hook_text(x, &c->w[i], v);
	}
}

/* go env -w NAME=VALUE... (or -u NAME) writes go's own settings file
 * ($GOENV, under the home): every later go command reads them, a GOPROXY
 * or a GOFLAGS=-toolexec=CMD included. */
static bool go_env_write(struct cctx *x, const struct cmdv *c, size_t at, struct span sp)
{
	bool write = false;

	for (size_t i = at + 1; i < c->n; i++)
		write |= strcmp(c->w[i].val, "-w") == 0 || strcmp(c->w[i].val, "-u") == 0;
	if (!write)
		return false;
	cls_add(x, TIER_HIGH, "pkg.config", sp,
	        "go env -w changes the settings every later go command uses");
	for (size_t i = at + 1; i < c->n; i++) {
		const char *eq = strchr(c->w[i].val, '=');
		if (eq && c->w[i].val[0] != '-')
			rules_env_command(x, &c->w[i], (size_t)(eq - c->w[i].val));
	}
	return true;
}

/* Maven goals and phases, Gradle tasks that publish what the build made
 * (the last part of PLUGIN:GOAL or :project:task). */
static const char *const jvm_uploads[] = {
	"deploy", "deploy-file", "site-deploy", "stage-deploy", "perform", "upload",
	"upload-single", "sign-and-deploy-file", "push", "build", /* jib:build pushes */
};

/* Whether Maven or Gradle word a names a publishing goal or task. */
static bool jvm_upload(const char *prog, const char *a)
{
	const char *goal = strrchr(a, ':');
	bool mvn = strcmp(prog, "mvn") == 0;

	if (a[0] == '-')
		return false;
	if (!mvn) /* gradle publish, publishToMavenCentral, uploadArchives */
		return strncmp(goal ? goal + 1 : a, "publish", 7) == 0 ||
		       strncmp(goal ? goal + 1 : a, "upload", 6) == 0;
	if (goal == NULL) /* a phase: deploy, site-deploy */
		return strcmp(a, "deploy") == 0 || strcmp(a, "site-deploy") == 0;
	if (strcmp(goal + 1, "build") == 0 && strncmp(a, "jib:", 4) != 0)
		return false;
	for (size_t i = 0; i < nitems(jvm_uploads); i++)
		if (strcmp(goal + 1, jvm_uploads[i]) == 0)
			return true;
	return false;
}

/* mvn exec:exec -Dexec.executable=PROG [-Dexec.args=ARGS]: runs PROG ARGS. */
static void mvn_exec(struct cctx *x, const struct cmdv *c)
{
	const struct word *prog = NULL, *args = NULL;
	struct buf b;

	for (size_t i = 1; i < c->n; i++) {
		if (strncmp(c->w[i].val, "-Dexec.executable=", 18) == 0)
			prog = &c->w[i];
		else if (strncmp(c->w[i].val, "-Dexec.args=", 12) == 0)
			args = &c->w[i];
	}
	if (prog == NULL)
		return;
	if ((prog->flags | (args ? args->flags : 0)) & (W_DYNAMIC | W_GLOB)) {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, prog),
		        "mvn exec runs a program that is only known at run time");
		return;
	}
	buf_init(&b, 0);
	buf_puts(&b, prog->val + 18);
	if (args) {
		buf_puts(&b, " ");
		buf_puts(&b, args->val + 12);
	}
	shell_script_text(x, b.data, b.len, shell_span_word(x, prog));
	buf_free(&b);
}

/* mvn and gradle build and test (medium); deploy, release:perform and
 * publish* send the artifacts away, as npm publish does; exec:exec runs
 * the program its properties name. */
static void rule_jvm(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (!(c->w[i].flags & (W_DYNAMIC | W_GLOB)) && jvm_upload(c->prog, c->w[i].val)) {
			cls_add(x, TIER_HIGH, "net.upload", shell_span_word(x, &c->w[i]),
			        "%s %s publishes the build's artifacts", c->prog, c->w[i].val);
			break;
		}
	if (strcmp(c->prog, "mvn") == 0)
		mvn_exec(x, c);
}

/* Queries that ask the registry with an option: `pip list --outdated`,
 * `gem list --remote`, `poetry show --latest`, `go list -m -u|-versions`. */
static const struct {
	const char *prog, *verb, *opts;
} remote_queries[] = {
	{"pip", "list", "-o --outdated -u --uptodate"},
	{"gem", "list", "-r --remote -b --both"},
	{"gem", "info", "-r --remote -b --both"},
	{"poetry", "show", "-o --outdated -l --latest"},
	{"go", "list", "-u -versions -retracted"},
};

/* Whether c (verb at c->w[at]) is a remote_queries row's query. */
static bool remote_query(const struct cmdv *c, const char *prog, size_t at)
{
	for (size_t k = 0; k < nitems(remote_queries); k++) {
		if (strcmp(prog, remote_queries[k].prog) != 0 ||
		    strcmp(c->w[at].val, remote_queries[k].verb) != 0)
			continue;
		for (size_t i = at + 1; i < c->n; i++) {
			const char *a = c->w[i].val, *v;
			if (a[0] == '-' && tool_opt(remote_queries[k].opts, a, &v))
				return true;
		}
	}
	return false;
}

/* npm's configuration given as flags (`npm run build --script-shell=CMD`;
 * pnpm's --config.KEY=VALUE), as the npm_config_* variables give it: the
 * shell scripts run in is a command line, node-options what node loads,
 * userconfig and globalconfig a file of such settings. */
static void npm_flags(struct cctx *x, const struct cmdv *c)
{
	static const char *const injects[] = {"--node-options", "--userconfig", "--globalconfig"};

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const struct word *w = &c->w[i];
		const char *a = w->val, *v = NULL;
		char flag[64];
		if (strncmp(a, "--config.", 9) == 0 &&
		    (size_t)snprintf(flag, sizeof(flag), "--%s", a + 9) < sizeof(flag))
			a = flag;
		if (opt_long_is(a, "--script-shell", &v)) {
			if (v == NULL && i + 1 < c->n)
				v = (w = &c->w[++i])->val;
			rules_hook(x, w, v ? v : "", v ? strlen(v) : 0,
			           "--script-shell names the shell package scripts run in");
			continue;
		}
		for (size_t k = 0; k < nitems(injects); k++)
			if (opt_long_is(a, injects[k], NULL))
				cls_add(x, TIER_HIGH, "exec.env_inject", shell_span_word(x, w),
				        "%s changes what the package scripts load or run", injects[k]);
	}
}

/* cargo watch's -x|--exec CARGO_CMD (a cargo command) and -s|--shell
 * CMD (shell text) in word i: the text in *v, true for -x. NULL when word
 * i is neither; *i moves past a separate value. */
static const struct word *cargo_watch_cmd(const struct cmdv *c, size_t *i, const char **v,
                                          bool *cargo)
{
	const char *a = c->w[*i].val;

	if (a[0] != '-' || a[1] == '\0')
		return NULL;
	*cargo = a[1] == 'x' || strncmp(a, "--exec", 6) == 0;
	if (strcmp(a, "-x") == 0 || strcmp(a, "-s") == 0 || strcmp(a, "--exec") == 0 ||
	    strcmp(a, "--shell") == 0) {
		if (*i + 1 >= c->n)
			return NULL;
		*v = c->w[++*i].val;
		return &c->w[*i];
	}
	if ((strncmp(a, "-x", 2) == 0 || strncmp(a, "-s", 2) == 0) && a[2])
		*v = a + 2;
	else if (strncmp(a, "--exec=", 7) == 0 || strncmp(a, "--shell=", 8) == 0)
		*v = strchr(a, '=') + 1;
	else
		return NULL;
	return &c->w[*i];
}

/* The hosts of a package manager's URLs (--registry URL, --index-url=URL,
 * git+https://host/x): `npm publish --registry https://evil/` sends the
 * package and the registry's token there, and named no host. */
static void url_hosts(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *v = c->w[i].val, *eq = strchr(v, '=');
		if (v[0] == '-' && eq)
			v = eq + 1;
		if (strstr(v, "://") && !(c->w[i].flags & W_DYNAMIC))
			net_add_url(x, v + (strncmp(v, "git+", 4) == 0 ? 4 : 0));
	}
}

/* cargo watch [-x CARGO_CMD] [-s|--shell CMD] [-- CMD...]: runs each at
 * start and at every change of the sources. */
static void cargo_watch(struct cctx *x, struct cmdv *c, size_t at)
{
	char buf[4096];

	cls_add(x, TIER_MEDIUM, "exec.build", shell_span_words(x, c->w, c->n),
	        "runs a build, test or project script");
	for (size_t i = at + 1; i < c->n; i++) {
		const char *v = NULL;
		bool cargo;
		const struct word *w;
		int n;
		if (strcmp(c->w[i].val, "--") == 0) {
			rules_subcommand(x, c, i + 1, c->n);
			return;
		}
		if ((w = cargo_watch_cmd(c, &i, &v, &cargo)) == NULL)
			continue;
		n = snprintf(buf, sizeof(buf), "%s%s", cargo ? "cargo " : "", v);
		if (w->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
			        "cargo watch runs a command that is only known at run time");
		else if (n > 0 && (size_t)n < sizeof(buf))
			shell_script_text(x, arena_strndup(x->a, buf, (size_t)n), (size_t)n,
			                  shell_span_word(x, w));
	}
}

static void rule_pkg(struct cctx *x, struct cmdv *c)
{
	size_t at = 0;
	const struct word *w;
	const char *prog = c->prog, *v;
	struct span sp = shell_span_words(x, c->w, c->n);

	if (strcmp(prog, "bun") == 0 && (opt_short(c, 'e', "") || opt_short(c, 'p', "") ||
	                                 opt_long(c, "--eval") || opt_long(c, "--print"))) {
		rule_interp(x, c); /* bun -e CODE */
		return;
	}
	if (strcmp(prog, "pip3") == 0 || strcmp(prog, "pip2") == 0)
		prog = "pip";
	if (strcmp(prog, "npm") == 0 || strcmp(prog, "pnpm") == 0 || strcmp(prog, "yarn") == 0)
		npm_flags(x, c);
	w = pkg_verb(c, prog, &at);
	v = w ? w->val : "";
	if (npm_set(prog, v) && pkg_config_write(x, c, at - 1, sp))
		return;
	if (w && ((strcmp(prog, "uv") == 0 && (strcmp(v, "pip") == 0 || strcmp(v, "tool") == 0)) ||
	          (strcmp(v, "env") == 0 && (strcmp(prog, "conda") == 0 || strcmp(prog, "mamba") == 0 ||
	                                     strcmp(prog, "micromamba") == 0)))) {
		/* uv pip|tool VERB, conda env VERB: the verb is the next word */
		const struct word *n = at + 1 < c->n ? &c->w[at + 1] : NULL;
		v = n ? n->val : "";
	}
	if (w && strcmp(v, "config") == 0 && pkg_config_write(x, c, at, sp))
		return;
	if (strcmp(prog, "go") == 0 && strcmp(v, "run") == 0 && go_run_remote(c, at))
		v = "install";
	if (strcmp(prog, "go") == 0 && (strcmp(v, "build") == 0 || strcmp(v, "test") == 0))
		rule_compiler(x, c); /* go build -o FILE */
	if (strcmp(prog, "go") == 0)
		go_hooks(x, c, w ? at + 1 : c->n);
	if (strcmp(prog, "go") == 0 || strcmp(prog, "cargo") == 0)
		rule_tool_files(x, c); /* go test -coverprofile FILE, cargo --target-dir DIR */
	if (strcmp(prog, "go") == 0 && strcmp(v, "env") == 0 && go_env_write(x, c, at, sp))
		return;
	if (w && remote_query(c, prog, at)) {
		cls_add(x, TIER_HIGH, "net.fetch", sp, "asks the package index for newer versions");
		return;
	}
	if (w && pkg_subverb(x, c, prog, at, sp))
		return;
	if ((strcmp(prog, "uv") == 0 && strcmp(v, "venv") == 0) || strcmp(prog, "virtualenv") == 0) {
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "makes a virtual environment");
		venv_dirs(x, c, strcmp(prog, "uv") == 0 ? at + 1 : 1, "p");
		return;
	}
	if (strcmp(prog, "cargo") == 0 && strcmp(v, "watch") == 0) {
		cargo_watch(x, c, at);
		return;
	}
	for (size_t i = 0; i < nitems(verbs); i++) {
		if (verbs[i].prog[0] != prog[0] || strcmp(verbs[i].prog, prog) != 0 ||
		    !has_verb(verbs[i].verbs, v))
			continue;
		if (verbs[i].rule)
			cls_add(x, verbs[i].tier, verbs[i].rule, sp, "%s", verbs[i].why);
		if (verbs[i].rule && strcmp(verbs[i].rule, "pkg.install") == 0)
			typosquats(x, c, prog, w ? at + 1 : c->n);
		if (verbs[i].tier >= TIER_HIGH)
			url_hosts(x, c);
		return;
	}
	if (strcmp(prog, "make") == 0 || strcmp(prog, "yarn") == 0)
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a build, test or project script");
	else if (strcmp(prog, "dotnet") == 0 && strcmp(v, "ef") == 0)
		rules_cloud(x, c); /* dotnet ef database drop: shell_rules_cloud.c */
	else
		cls_add(x, x->o->unknown_program, "exec.unknown_program", sp,
		        "%s %s is not a command airlock knows", c->w[0].val, v);
}

/* The text of a make function call at p ("$(shell " or "${shell "): up to
 * its closing bracket, nested ones counted; *n its length. */
static const char *make_call(const char *p, size_t *n)
{
	char open = p[1], close = open == '(' ? ')' : '}';
	const char *s = p + 8, *e = s;
	int depth = 1;

	for (; *e && depth; e++)
		depth += (*e == open) - (*e == close);
	*n = (size_t)(e - s) - (depth == 0);
	return s;
}

/* One line [p, e) of makefile text: a recipe line (after a tab, or after
 * the ';' of a rule line `target: prereqs ; recipe`) runs through the
 * shell, its @, - and + prefixes aside. $(VAR) in it is only known at run
 * time, so the shell reading fails closed on it. */
static void make_recipe(struct cctx *x, const char *p, const char *e, struct span sp)
{
	const char *colon = memchr(p, ':', (size_t)(e - p)), *semi;

	if (*p == '\t') {
		p++;
	} else if (colon && colon[1] != '=' && !memchr(p, '=', (size_t)(colon - p)) &&
	           (semi = memchr(colon, ';', (size_t)(e - colon))) != NULL) {
		p = semi + 1;
	} else {
		return;
	}
	while (p < e && (*p == ' ' || *p == '\t' || *p == '@' || *p == '-' || *p == '+'))
		p++;
	if (p < e)
		shell_script_text(x, p, (size_t)(e - p), sp);
}

/* Makefile text make reads (--eval, or a makefile on stdin): $(shell CMD)
 * and VAR != CMD run CMD while make reads it, recipe lines when a target
 * is made (the first rule's by default). */
static void make_text(struct cctx *x, const char *v, size_t len, struct span sp)
{
	const char *p, *end = v + len;
	size_t n;

	for (p = v; (p = memmem(p, (size_t)(end - p), "shell ", 6)) != NULL; p++)
		if (p >= v + 2 && (p[-1] == '(' || p[-1] == '{') && p[-2] == '$') {
			const char *cmd = make_call(p - 2, &n);
			shell_script_text(x, cmd, n, sp);
		}
	for (p = v; p < end; p++) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *ne;
		e = e ? e : end;
		if ((ne = memmem(p, (size_t)(e - p), "!=", 2)) != NULL)
			shell_script_text(x, ne + 2, (size_t)(e - ne - 2), sp);
		make_recipe(x, p, e, sp);
		p = e;
	}
}

/* make --eval TEXT / -E TEXT, and -f - (or /dev/stdin) with the makefile
 * in a here-document or piped: its text is read as above. A makefile the
 * call writes is not: every recipe line counts (clean's rm -f too, and
 * $(CC) as a program known only at run time), so the routine `cat >
 * Makefile <<EOF ... make` would ask a person; it stays exec.build, as a
 * project's own Makefile does. */
static void make_eval(struct cctx *x, const struct cmdv *c)
{
	const char *v;
	const struct word *w;

	for (size_t i = 1; i < c->n; i++) {
		if ((w = opt_value_at(c, &i, 'E', "--eval", "CEfIjlLoOW", &v)) == NULL)
			continue;
		make_text(x, v, strlen(v), shell_span_word(x, w));
	}
	for (size_t i = 1; i < c->n; i++) {
		size_t at = i;
		if ((w = opt_value_at(c, &at, 'f', "--file", "CEfIjlLoOW", &v)) == NULL) {
			at = i; /* the first call may have stepped past another's value */
			w = opt_value_at(c, &at, 0, "--makefile", "CEfIjlLoOW", &v);
		}
		i = at;
		if (w == NULL)
			continue;
		if (!shell_files_is_stdin(v)) /* -, /dev/stdin, /dev/fd/0 */
			continue;
		if (c->in_text && (c->in == IN_DOC || c->in == IN_PIPE)) /* make_call wants a NUL */
			make_text(x, arena_strndup(x->a, c->in_text, c->in_len), c->in_len, c->in_span);
		else if (c->in == IN_PIPE)
			cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, w),
			        "make reads a makefile piped from another command");
	}
}

/* VALUE of one VAR=VALUE make is given: make expands its $(shell CMD),
 * and pastes it into recipe lines, so shell syntax in it (CC='cc; rm -rf
 * ~') runs there. */
static void make_value(struct cctx *x, const struct word *w, const char *v)
{
	struct span sp = shell_span_word(x, w);

	if (w->flags & (W_DYNAMIC | W_GLOB))
		return; /* its substitutions ran as it was read */
	make_text(x, v, strlen(v), sp);
	if (strpbrk(v, ";|&`<>\n"))
		shell_script_text(x, v, strlen(v), sp);
}

void rules_make_export(struct cctx *x, const struct word *w, const char *v)
{
	if (!(w->flags & (W_DYNAMIC | W_GLOB)) && (strstr(v, "$(shell ") || strstr(v, "${shell ")))
		make_text(x, v, strlen(v), shell_span_word(x, w));
}

/* Variables whose value recipes run as a command line: SHELL runs every
 * recipe, and the implicit rules run $(CC), $(RM) and the like. */
static const char *const make_cmd_vars[] = {"SHELL", "CC", "CXX", "CPP", "LD", "AR", "AS",
	"FC", "CCLD", "LEX", "YACC", "INSTALL", "MAKE", "NM", "RANLIB", "STRIP", "OBJCOPY",
	"PKG_CONFIG", "RM"};

/* make NAME=VALUE on the command line (a): a command variable's literal
 * value is judged as a script, as the recipe that runs it (make CC='rm
 * -rf ~' runs `rm -rf ~ -c x.c`). */
static void make_cmd_value(struct cctx *x, const struct word *w, const char *a, const char *eq)
{
	for (size_t k = 0; k < nitems(make_cmd_vars); k++)
		if (strlen(make_cmd_vars[k]) == (size_t)(eq - a) &&
		    strncmp(a, make_cmd_vars[k], (size_t)(eq - a)) == 0 &&
		    !(w->flags & (W_DYNAMIC | W_GLOB)) && eq[1] && !strpbrk(eq + 1, ";|&`<>\n"))
			shell_script_text(x, eq + 1, strlen(eq + 1), shell_span_word(x, w));
}

/* make VAR=VALUE arguments and VAR=VALUE in its environment. */
static void make_vars(struct cctx *x, const struct cmdv *c)
{
	const struct word *w;
	size_t i = 0, n;

	while ((w = rules_env_next(c, &i, &n)) != NULL)
		make_value(x, w, w->val + n + 1);
	for (i = 1; i < c->n; i++) {
		const char *a = c->w[i].val, *eq = strchr(a, '=');
		if (a[0] != '-' && eq && eq > a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
		                                             "nopqrstuvwxyz0123456789_") == (size_t)(eq - a)) {
			make_value(x, &c->w[i], eq + 1);
			make_cmd_value(x, &c->w[i], a, eq);
		}
	}
}

/* Whether value v of word w is an absolute directory in the workdir, as
 * DESTDIR and PREFIX must be to keep an install there (a relative one
 * lands wherever each recursive make runs). */
static bool install_dir_local(struct cctx *x, const struct word *w, const char *v)
{
	char abs[CLS_MAX_PATH];

	return v[0] == '/' && !(w->flags & (W_DYNAMIC | W_GLOB)) &&
	       paths_resolve(x, v, abs, sizeof(abs)) && paths_class(x, abs) == PC_WORKDIR;
}

/* make's options whose value is the next word (`make -f install`). */
static bool make_takes_value(const char *o)
{
	static const char *const opts[] = {"-f", "-C", "-I", "-o", "-W", "--file", "--makefile",
	                                   "--directory", "--include-dir", "--old-file",
	                                   "--assume-old", "--what-if", "--new-file",
	                                   "--assume-new"};

	for (size_t i = 0; i < nitems(opts); i++)
		if (strcmp(o, opts[i]) == 0)
			return true;
	return false;
}

/* make ... install (or install-strip, install-data ...): pkg.install
 * into the system prefix, wherever the target stands among the
 * arguments (`make V=1 install`, `make DESTDIR=/ install` and `make
 * install-strip` were exec.build alone). With DESTDIR=DIR, or else
 * PREFIX=DIR or prefix=DIR, an absolute directory in the workdir, it is
 * a write there (`make install DESTDIR=$PWD/stage` asked while `cmake
 * --install build --prefix $PWD/dist` did not). False: no install. */
static bool make_install(struct cctx *x, const struct cmdv *c)
{
	static const char *const prefixes[] = {"DESTDIR=", "PREFIX=", "prefix="};
	const struct word *dirs[nitems(prefixes)] = {NULL};
	const struct word *target = NULL, *dir = NULL;
	struct span sp = shell_span_words(x, c->w, c->n);

	for (size_t i = 1; i < c->n; i++) {
		const char *v = c->w[i].val;
		for (size_t k = 0; k < nitems(prefixes); k++)
			if (strncmp(v, prefixes[k], strlen(prefixes[k])) == 0)
				dirs[k] = &c->w[i];
		if ((strcmp(v, "install") == 0 || strncmp(v, "install-", 8) == 0) &&
		    !make_takes_value(c->w[i - 1].val))
			target = &c->w[i];
	}
	if (target == NULL)
		return false;
	for (size_t k = 0; k < nitems(prefixes) && dir == NULL; k++)
		dir = dirs[k];
	if (dir && install_dir_local(x, dir, strchr(dir->val, '=') + 1)) {
		paths_write(x, dir, strchr(dir->val, '=') + 1, shell_span_word(x, dir));
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "installs into %s, in the workdir",
		        strchr(dir->val, '=') + 1);
	} else
		cls_add(x, TIER_HIGH, "pkg.install", sp, "make install copies the build into the "
		        "install prefix");
	return true;
}

static void rule_make(struct cctx *x, struct cmdv *c)
{
	make_eval(x, c);
	make_vars(x, c);
	if (!make_install(x, c))
		rule_pkg(x, c);
}

/* cmake -E TOOL ARGS: the portable tools, each the program it stands for
 * (remove_directory is rm -r). */
static const struct {
	const char *tool, *prog, *flag;
} cmake_tools[] = {
	{"rm", "rm", NULL}, {"remove", "rm", NULL}, {"remove_directory", "rm", "-r"},
	{"copy", "cp", NULL}, {"copy_if_different", "cp", NULL}, {"copy_directory", "cp", "-r"},
	{"copy_directory_if_different", "cp", "-r"}, {"rename", "mv", NULL},
	{"make_directory", "mkdir", NULL}, {"create_symlink", "ln", "-s"},
	{"create_hardlink", "ln", NULL}, {"touch", "touch", NULL}, {"touch_nocreate", "touch", NULL},
	{"tar", "tar", NULL}, {"env", "env", NULL}, {"time", "time", NULL}, {"cat", "cat", NULL},
	{"echo", "echo", NULL}, {"echo_append", "echo", NULL}, {"true", "true", NULL},
	{"false", "false", NULL}, {"sleep", "sleep", NULL}, {"md5sum", "md5sum", NULL},
	{"sha256sum", "sha256sum", NULL}, {"compare_files", "cmp", NULL},
};

/* Runs argv words [at, n) of c as the command prog [flag] ARGS. */
static void run_as(struct cctx *x, const struct cmdv *c, size_t at, const char *prog,
                   const char *flag)
{
	size_t m = c->n - at + (flag != NULL), k = 0;
	struct word *w = arena_alloc(x->a, m * sizeof(*w));
	struct cmdv sub = *c;

	w[k] = c->w[at];
	w[k].val = prog;
	w[k].len = strlen(prog);
	w[k++].verbatim = false;
	if (flag) {
		w[k] = w[0];
		w[k].val = flag;
		w[k++].len = strlen(flag);
	}
	memcpy(w + k, c->w + at + 1, (c->n - at - 1) * sizeof(*w));
	sub.w = w;
	sub.n = m;
	shell_exec_argv(x, &sub);
}

/* cmake -B DIR writes the build tree there; --install with --prefix DIR
 * installs into DIR (without it, into the project's install prefix,
 * /usr/local by default). */
static void cmake_dirs(struct cctx *x, const struct cmdv *c)
{
	const char *v;
	const struct word *w;

	if ((w = opt_value(c, 'B', NULL, "BSGTACDUP", &v)) != NULL)
		paths_write(x, w, v, shell_span_word(x, w));
	if (!opt_long(c, "--install"))
		return;
	if ((w = opt_value(c, 0, "--prefix", NULL, &v)) != NULL)
		paths_write(x, w, v, shell_span_word(x, w));
	else
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
		        "cmake --install copies into the install prefix (/usr/local by default)");
}

/* cmake -D of a variable whose value is a program the build runs around
 * each compile or link (CMAKE_<LANG>_COMPILER_LAUNCHER, _LINKER_LAUNCHER,
 * _CLANG_TIDY, _CPPCHECK, _CPPLINT, _INCLUDE_WHAT_YOU_USE,
 * CMAKE_CROSSCOMPILING_EMULATOR): the environment's
 * CMAKE_C_COMPILER_LAUNCHER was judged, `-DCMAKE_C_COMPILER_LAUNCHER=CMD`
 * was exec.build alone. The value is a ;-list, joined with spaces, and
 * judged as the environment's is: `-DCMAKE_C_COMPILER_LAUNCHER=ccache`
 * stays routine. */
static const char *const cmake_launchers[] = {
	"_COMPILER_LAUNCHER", "_LINKER_LAUNCHER", "_CLANG_TIDY", "_CPPCHECK",
	"_CPPLINT", "_INCLUDE_WHAT_YOU_USE", "CMAKE_CROSSCOMPILING_EMULATOR",
};

static void cmake_launcher(struct cctx *x, const struct word *w, const char *def)
{
	size_t n = strcspn(def, ":="), l;
	const char *v = strchr(def, '=');
	char *cmd;

	if (v == NULL || strncmp(def, "CMAKE_", 6) != 0)
		return;
	for (size_t k = 0; k < nitems(cmake_launchers); k++) {
		l = strlen(cmake_launchers[k]);
		if (n < l || strncmp(def + n - l, cmake_launchers[k], l) != 0)
			continue;
		cmd = arena_strndup(x->a, v + 1, strlen(v + 1));
		for (char *p = cmd; (p = strchr(p, ';')) != NULL;)
			*p = ' ';
		if (w->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
			        "cmake runs a launcher that is only known at run time");
		else
			shell_script_text(x, cmd, strlen(cmd), shell_span_word(x, w));
		return;
	}
}

static void rule_cmake(struct cctx *x, struct cmdv *c)
{
	const char *tool = c->n > 2 && strcmp(c->w[1].val, "-E") == 0 ? c->w[2].val : NULL;

	if (tool && strcmp(tool, "chdir") == 0 && c->n > 4) {
		rules_subcommand(x, c, 4, c->n);
		return;
	}
	for (size_t i = 0; tool && i < nitems(cmake_tools); i++)
		if (strcmp(tool, cmake_tools[i].tool) == 0) {
			run_as(x, c, 2, cmake_tools[i].prog, cmake_tools[i].flag);
			return;
		}
	cmake_dirs(x, c);
	for (size_t i = 1; i < c->n; i++) {
		const char *v;
		const struct word *w = opt_value_at(c, &i, 'D', NULL, "BSGTACDUP", &v);
		if (w)
			cmake_launcher(x, w, v);
	}
	cls_add(x, TIER_MEDIUM, "exec.build", shell_span_words(x, c->w, c->n),
	        "runs a build or test tool");
}

/* gdb -ex CMD: `shell CMD` / `!CMD` run a shell command, `python CODE`
 * Python; --args PROG ARGS runs PROG. gdb takes long options with one or
 * two dashes. */
static void gdb_command(struct cctx *x, const struct word *w, const char *cmd)
{
	struct span sp = shell_span_word(x, w);

	cmd += strspn(cmd, " \t");
	if (strncmp(cmd, "platform shell ", 15) == 0) /* lldb */
		cmd += 9;
	if (strncmp(cmd, "script ", 7) == 0) /* lldb's python */
		code_scan(x, "python", cmd + 7, strlen(cmd + 7), sp);
	else if (strncmp(cmd, "shell ", 6) == 0 || cmd[0] == '!')
		shell_script_text(x, cmd + (cmd[0] == '!' ? 1 : 6),
		                  strlen(cmd + (cmd[0] == '!' ? 1 : 6)), sp);
	else if (strncmp(cmd, "python ", 7) == 0 || strncmp(cmd, "pi ", 3) == 0 ||
	         strncmp(cmd, "py ", 3) == 0)
		code_scan(x, "python", strchr(cmd, ' ') + 1, strlen(strchr(cmd, ' ') + 1), sp);
}

/* gdb -x - (or /dev/stdin) with its commands in a here-document or piped:
 * each line is a gdb command, a python ... end block Python. */
static void gdb_script(struct cctx *x, const struct word *w, const char *v)
{
	size_t len, n;
	const char *text = shell_files_stdin_text(x, w, v, &len), *p, *e, *code = NULL;

	for (p = text; p && p < text + len; p = e + (e < text + len)) {
		e = memchr(p, '\n', (size_t)(text + len - p));
		e = e ? e : text + len;
		n = (size_t)(e - p);
		if (code && n == 3 && memcmp(p, "end", 3) == 0) {
			code_scan(x, "python", code, (size_t)(p - code), shell_span_word(x, w));
			code = NULL;
		} else if (!code && ((n == 6 && memcmp(p, "python", 6) == 0) ||
		                     (n == 2 && (memcmp(p, "py", 2) == 0 || memcmp(p, "pi", 2) == 0)))) {
			code = e + (e < text + len);
		} else if (!code) {
			gdb_command(x, w, arena_strndup(x->a, p, n));
		}
	}
	if (code) /* no end: gdb runs it to the end of the input */
		code_scan(x, "python", code, (size_t)(text + len - code), shell_span_word(x, w));
}

/* gdb reads long options with one dash too (getopt_long_only). */
static bool gdb_long(const char *a, const char *name, const char **eq)
{
	char buf[48];
	size_t l = strcspn(a, "=");

	if (a[0] != '-' || l + 2 > sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s%.*s", a[1] == '-' ? "" : "-", (int)l, a);
	if (!opt_long_is(buf, name, NULL))
		return false;
	*eq = a[l] == '=' ? a + l + 1 : NULL;
	return true;
}

/* When c->w[*i] is one of names (a name with two dashes as gdb_long()
 * reads it, one with one dash exactly): the word holding its value, its
 * text in *v, and *i moved onto that word when it is the next one. NULL
 * otherwise, and for an option with no word left for its value. */
static const struct word *gdb_value(const struct cmdv *c, size_t *i, const char *const *names,
                                    size_t n, const char **v)
{
	const char *eq = NULL;

	for (size_t k = 0; k < n; k++) {
		if (names[k][1] == '-' ? !gdb_long(c->w[*i].val, names[k], &eq)
		                       : strcmp(c->w[*i].val, names[k]) != 0)
			continue;
		if (eq) {
			*v = eq;
			return &c->w[*i];
		}
		if (*i + 1 >= c->n)
			return NULL;
		*v = c->w[++*i].val;
		return &c->w[*i];
	}
	return NULL;
}

static void rule_gdb(struct cctx *x, struct cmdv *c)
{
	static const char *const ex[] = {"--ex", "--eval-command", "--iex", "--init-eval-command"};
	static const char *const files[] = {"-x", "-ix", "--command", "--init-command"};
	const struct word *w;
	const char *v;

	for (size_t i = 1; i < c->n; i++) {
		if (gdb_long(c->w[i].val, "--args", &v)) {
			struct cmdv sub = *c;
			sub.w = c->w + i + 1;
			sub.n = c->n - i - 1;
			shell_exec_argv(x, &sub);
			return;
		}
		/* one option a word: a value is never read as an option too
		 * (an -ex that ended the command made it read past the end) */
		if ((w = gdb_value(c, &i, ex, nitems(ex), &v)) != NULL)
			gdb_command(x, w, v);
		else if ((w = gdb_value(c, &i, files, nitems(files), &v)) != NULL)
			gdb_script(x, w, v);
	}
}

/* lldb -o CMD (-O, -k, -K: before the file, on a crash): gdb's commands
 * plus `platform shell CMD` and `script CODE`; -s FILE runs commands
 * airlock cannot see; the program after -- (or --file) is what it runs. */
static void rule_lldb(struct cctx *x, struct cmdv *c)
{
	static const struct {
		char letter;
		const char *lname;
	} cmds[] = {{'o', "--one-line"}, {'O', "--one-line-before-file"},
		{'k', "--one-line-on-crash"}, {'K', "--source-on-crash"}, {'s', "--source"},
		{'S', "--source-before-file"}};

	for (size_t i = 1; i < c->n; i++) {
		size_t at = i;
		if (strcmp(c->w[i].val, "--") == 0) {
			rules_subcommand(x, c, i + 1, c->n);
			return;
		}
		for (size_t k = 0; k < nitems(cmds); k++) {
			const char *v;
			const struct word *w;
			at = i;
			w = opt_value_at(c, &at, cmds[k].letter, cmds[k].lname, "oOkKsSfaOpnc", &v);
			if (w && strchr("sSK", cmds[k].letter))
				cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
				        "lldb runs commands from a file airlock cannot see");
			else if (w)
				gdb_command(x, w, v);
			if (w)
				break;
		}
		i = at;
	}
}

/* pacman -S/-U install (not -Ss, -Si, -Sl, -Sg, -Sp, which only look),
 * -R removes, -Q queries; the operation may come after other options
 * (pacman --noconfirm -S). yay and paru with no operation upgrade or
 * install interactively. */
static const struct {
	const char *name;
	char op; /* operation letter; 0: a -S modifier that only looks */
} pacman_longs[] = {
	{"--sync", 'S'}, {"--upgrade", 'U'}, {"--remove", 'R'}, {"--query", 'Q'},
	{"--database", 'D'}, {"--files", 'F'}, {"--deptest", 'T'}, {"--search", 0},
	{"--info", 0}, {"--list", 0}, {"--groups", 0}, {"--print", 0},
};

static char pacman_op(const struct cmdv *c, bool *look)
{
	char op = 0;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const char *a = c->w[i].val;
		for (size_t k = 0; a[0] == '-' && a[1] == '-' && k < nitems(pacman_longs); k++)
			if (opt_long_is(a, pacman_longs[k].name, NULL)) {
				*look |= pacman_longs[k].op == 0;
				op = pacman_longs[k].op ? pacman_longs[k].op : op;
			}
		for (size_t k = 1; a[0] == '-' && a[1] != '-' && a[k]; k++) {
			if (a[k] >= 'A' && a[k] <= 'Z')
				op = a[k];
			else if (strchr("silgp", a[k]))
				*look = true;
		}
	}
	return op;
}

static void rule_pacman(struct cctx *x, struct cmdv *c)
{
	bool look = false;
	char op = pacman_op(c, &look);
	struct span sp = shell_span_words(x, c->w, c->n);

	if ((op == 'S' && !look) || op == 'U' || (op == 0 && strcmp(c->prog, "pacman") != 0))
		cls_add(x, TIER_HIGH, "pkg.install", sp, "installs packages");
	else if (op == 'R')
		cls_add(x, TIER_HIGH, "pkg.remove", sp, "removes installed packages");
}

/* makepkg builds a package by running its PKGBUILD; -i / -s install it or
 * its dependencies. */
static void rule_makepkg(struct cctx *x, struct cmdv *c)
{
	struct span sp = shell_span_words(x, c->w, c->n);

	if (opt_short(c, 'i', "p") || opt_short(c, 's', "p") || opt_long(c, "--install") ||
	    opt_long(c, "--syncdeps"))
		cls_add(x, TIER_HIGH, "pkg.install", sp, "installs the package or its dependencies");
	else
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a PKGBUILD to build a package");
}

/* ---- nix ---- */

/* nix eval and nix search read as queries (low), but an installable from
 * a registry or a URL (nixpkgs#hello, github:o/r) is fetched first, and
 * an --expr is Nix code: builtins.readFile of an unquoted path prints the
 * file (`nix eval --expr 'builtins.readFile /h/u/.ssh/id_rsa'` was low),
 * the fetchers reach the network, builtins.exec runs a program. Likewise
 * nix-instantiate --eval -E (an unknown program). */
static const char *const nix_fetchers[] = {
	"fetchurl", "fetchGit", "fetchTarball", "fetchTree", "fetchClosure", "fetchMercurial",
	"getFlake",
};

static void nix_expr(struct cctx *x, const struct word *w, const char *e)
{
	struct span sp = shell_span_word(x, w);

	if (w->flags & (W_DYNAMIC | W_GLOB)) {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
		        "the Nix expression is only known at run time");
		return;
	}
	code_scan(x, "nix", e, strlen(e), sp);
	for (size_t i = 0; i < nitems(nix_fetchers); i++)
		if (strstr(e, nix_fetchers[i]))
			cls_add(x, TIER_HIGH, "exec.inline_code.network", sp,
			        "the Nix expression fetches from the network (%s)", nix_fetchers[i]);
	if (strstr(e, "builtins.exec") || strstr(e, "importNative"))
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp,
		        "the Nix expression runs a program (builtins.exec)");
	/* unquoted paths are path literals the evaluator reads */
	for (const char *p = e; *p; p++) {
		size_t n;
		if (!(p[0] == '/' || (p[0] == '~' && p[1] == '/')) ||
		    (p > e && !strchr(" \t\n([{=:", p[-1])))
			continue;
		n = strspn(p + (p[0] == '~'), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		           "0123456789._/+-") + (p[0] == '~');
		if (n > 1)
			paths_read(x, w, paths_tilde(x, arena_strndup(x->a, p, n)));
		p += n - 1;
	}
}

/* An installable that names no local path: the registry's (nixpkgs,
 * nixpkgs#hello) or a URL's flake, fetched before it is evaluated. */
static bool nix_remote_ref(const char *a)
{
	return !(a[0] == '.' || a[0] == '/' || a[0] == '~' || strncmp(a, "path:", 5) == 0);
}

static void rule_pkg(struct cctx *x, struct cmdv *c);

/* nix's options that take one value (two for the pairs): Nix code, the
 * file the operands are attribute paths of, a file written, or a value. */
enum nix_val { NV_VALUE, NV_CODE, NV_FILE, NV_WRITE };
static const struct {
	const char *opt;
	size_t nvals;
	enum nix_val kind;
} nix_opts[] = {
	{"--expr", 1, NV_CODE}, {"-E", 1, NV_CODE}, {"--apply", 1, NV_CODE},
	{"--arg", 2, NV_CODE}, {"--argstr", 2, NV_VALUE}, {"--file", 1, NV_FILE},
	{"-f", 1, NV_FILE}, {"-I", 1, NV_VALUE}, {"--include", 1, NV_VALUE},
	{"--override-input", 2, NV_VALUE}, {"--write-to", 1, NV_WRITE},
	{"--option", 2, NV_VALUE}, {"--attr", 1, NV_VALUE}, {"-A", 1, NV_VALUE},
};

static size_t nix_opt(const char *a)
{
	size_t k = 0;

	while (k < nitems(nix_opts) && strcmp(a, nix_opts[k].opt) != 0)
		k++;
	return k;
}

/* A Nix file evaluated outside a flake, impure: it may read any file. */
static void nix_file(struct cctx *x, const struct word *w)
{
	paths_read(x, w, w->val);
	cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
	        "evaluates the Nix file %s, which airlock cannot see", w->val);
}

static void rule_nix(struct cctx *x, struct cmdv *c)
{
	bool inst = strcmp(c->prog, "nix-instantiate") == 0, attrs = inst;
	const char *verb = !inst && c->n > 1 ? c->w[1].val : "";
	bool search = strcmp(verb, "search") == 0;

	if (inst)
		cls_add(x, TIER_MEDIUM, "exec.build", shell_span_words(x, c->w, c->n),
		        "nix-instantiate evaluates Nix expressions into derivations");
	else
		rule_pkg(x, c);
	if (!inst && !search && strcmp(verb, "eval") != 0)
		return;
	for (size_t i = 1; i < c->n; i++) {
		size_t k = nix_opt(c->w[i].val);
		attrs |= k < nitems(nix_opts) && (nix_opts[k].kind == NV_FILE ||
		                                   (nix_opts[k].kind == NV_CODE && nix_opts[k].nvals == 1));
	}
	for (size_t i = inst ? 1 : 2; i < c->n; i++) {
		const char *a = c->w[i].val;
		size_t k = nix_opt(a);
		if (k < nitems(nix_opts) && i + nix_opts[k].nvals < c->n) {
			const struct word *v = &c->w[i + nix_opts[k].nvals];
			if (nix_opts[k].kind == NV_CODE)
				nix_expr(x, v, v->val);
			else if (nix_opts[k].kind == NV_WRITE)
				paths_write(x, v, v->val, shell_span_word(x, v));
			else if (nix_opts[k].kind == NV_FILE)
				nix_file(x, v);
			if (strcmp(a, "--option") == 0 &&
			    strcmp(c->w[i + 1].val, "allow-unsafe-native-code-during-evaluation") == 0)
				cls_add(x, TIER_HIGH, "exec.inline_code.spawn", shell_span_word(x, &c->w[i]),
				        "lets the Nix expression run programs (builtins.exec)");
			i += nix_opts[k].nvals;
		} else if (a[0] != '-' && inst) {
			nix_file(x, &c->w[i]);
		} else if (a[0] != '-') {
			if (!attrs && nix_remote_ref(a))
				cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, &c->w[i]),
				        "nix %s fetches the flake %s first", verb, a);
			if (search)
				break; /* the rest are search terms */
		}
	}
}

/* ---- interpreters ---- */

struct interp {
	const char *name, *lang;
	const char *flags; /* space-separated words whose value is code; long ones
	                    * also as --eval=CODE or abbreviated */
	const char *code;  /* letters whose value is code, also clustered (-Bc, -lne)
	                    * or attached (-c'...') */
	const char *vals;  /* letters that take a value, attached or the next word */
	const char *rest;  /* letters whose value is the rest of their word only */
	const char *lvals; /* space-separated words whose value is the next word */
};

static const struct interp interps[] = {
	{"python", "python", "", "c", "WXQ", "", "--check-hash-based-pycs"},
	{"python3", "python", "", "c", "WXQ", "", "--check-hash-based-pycs"},
	{"python2", "python", "", "c", "WXQ", "", ""},
	{"pypy", "python", "", "c", "WXQ", "", ""}, {"pypy3", "python", "", "c", "WXQ", "", ""},
	{"node", "js", "--eval --print", "ep", "rC", "",
	 "--require --import --loader --experimental-loader --conditions --input-type --title"},
	{"nodejs", "js", "--eval --print", "ep", "rC", "",
	 "--require --import --loader --experimental-loader --conditions --input-type --title"},
	{"perl", "perl", "", "eE", "I", "MmxdDFVC", ""},
	{"ruby", "ruby", "", "e", "rICE", "FKTWx", ""},
	{"php", "php", "", "r", "cdzt", "", ""},
	{"lua", "lua", "", "e", "l", "", ""}, {"luajit", "lua", "", "e", "l", "", ""},
	{"Rscript", "r", "-e", "", "", "", ""}, {"R", "r", "-e", "", "", "", ""}, {"julia", "julia", "--eval", "e", "", "", ""},
	{"pwsh", "powershell", "-c -Command -command", "", "", "", ""},
	{"powershell", "powershell", "-c -Command -command", "", "", "", ""},
	{"osascript", "applescript", "", "e", "", "", ""},
	{"tclsh", "tcl", "", "", "", "", ""}, {"irb", "ruby", "", "", "", "", ""},
	{"deno", "js", "eval", "", "", "", ""}, {"bun", "js", "--eval --print", "ep", "r", "", ""},
	{"ts-node", "js", "--eval --print", "ep", "rO", "", "--require --compiler --project"},
	{"tsx", "js", "--eval --print", "ep", "r", "", "--require --import --tsconfig"},
	{"expect", "tcl", "", "c", "", "", ""}, {"mongosh", "js", "--eval", "", "", "", ""},
	{"mongo", "js", "--eval", "", "", "", ""},
	/* ipython -c CODE (also python -m IPython): it was an unknown program */
	{"ipython", "python", "", "c", "m", "", ""}, {"ipython3", "python", "", "c", "m", "", ""},
	{"IPython", "python", "", "c", "m", "", ""},
	/* Lisps, Haskell, Octave, the BEAM, Prolog and the JVM's script
	 * runners: their code was an unknown program's argument, medium with
	 * (system "rm -rf ~") in it */
	{"guile", "scheme", "", "c", "lLxeC", "", ""},
	{"racket", "scheme", "--eval", "e", "ftrlpkSIW", "", ""},
	{"sbcl", "lisp", "--eval", "", "", "", "--core --dynamic-space-size --control-stack-size"},
	{"clisp", "lisp", "", "x", "BKMEmpL", "", ""},
	{"ghc", "haskell", "", "e", "o", "", ""}, {"ghci", "haskell", "", "e", "", "", ""},
	{"octave", "octave", "--eval", "", "", "", ""},
	{"elixir", "elixir", "--eval", "e", "r", "", ""},
	{"erl", "erlang", "-eval", "", "", "", ""},
	{"swipl", "prolog", "", "gt", "fFsxpl", "", ""},
	{"scala", "scala", "", "e", "", "", ""}, {"kotlin", "kotlin", "", "e", "", "", ""},
	{"jshell", "java", "", "", "", "", ""},
	/* Tk's wish is tclsh with a window; PARI/GP's and Maxima's system("CMD") */
	{"wish", "tcl", "", "", "", "", ""}, {"gp", "gp", "", "", "sDp", "", ""},
	{"maxima", "maxima", "--batch-string --run-string", "r", "bpl", "", "--batch"},
};

/* python -m MODULE */
/* What python -m MODULE does, by module. */
enum pymod {
	PM_PIP, PM_LISTEN, PM_NET, PM_CODE, PM_EXTRACT, PM_OUTFILE, PM_QUIET, PM_BUILD,
	PM_PROG,    /* the module is the program of its name (python -m twine): its rules */
	PM_COMPILE, /* compileall: writes .pyc into the directories named, sys.path without */
	PM_PYBUILD, /* build: installs the build requirements first, unless -n */
	PM_PROFILE, /* cProfile, profile: -o FILE written */
	PM_DOC,     /* pydoc: -p PORT and -b serve documentation */
	PM_VENV,    /* venv DIR...: writes each DIR */
	PM_SQLITE,  /* sqlite3 DB SQL: judged as the sqlite3 shell, and a module it may be */
};
static const struct {
	const char *name;
	enum pymod what;
} pymods[] = {
	{"pip", PM_PIP}, {"ensurepip", PM_PIP}, {"http.server", PM_LISTEN},
	{"SimpleHTTPServer", PM_LISTEN}, {"smtpd", PM_LISTEN}, {"ftplib", PM_NET},
	{"urllib.request", PM_NET}, {"smtplib", PM_NET}, {"telnetlib", PM_NET}, {"poplib", PM_NET},
	{"imaplib", PM_NET}, {"nntplib", PM_NET}, {"xmlrpc.client", PM_NET}, {"webbrowser", PM_NET},
	{"timeit", PM_CODE}, {"IPython", PM_PROG}, {"zipfile", PM_EXTRACT}, {"tarfile", PM_EXTRACT},
	{"json.tool", PM_OUTFILE}, {"this", PM_QUIET}, {"site", PM_QUIET}, {"venv", PM_VENV},
	{"pytest", PM_PROG}, {"unittest", PM_BUILD}, {"black", PM_PROG}, {"mypy", PM_PROG},
	{"ruff", PM_PROG}, {"flake8", PM_PROG}, {"pylint", PM_PROG}, {"isort", PM_PROG},
	{"build", PM_PYBUILD}, {"compileall", PM_COMPILE}, {"py_compile", PM_BUILD},
	{"coverage", PM_BUILD}, {"tox", PM_PROG}, {"nox", PM_PROG}, {"doctest", PM_BUILD},
	{"uv", PM_PROG}, {"twine", PM_PROG}, {"poetry", PM_PROG}, {"pdm", PM_PROG},
	{"hatch", PM_PROG}, {"pipx", PM_PROG}, {"cProfile", PM_PROFILE}, {"profile", PM_PROFILE},
	{"pydoc", PM_DOC}, {"sqlite3", PM_SQLITE}, {"alembic", PM_PROG},
};

/* The directories python -m venv, uv venv and virtualenv make (from word
 * at on; argopts: short options that take a value; --prompt and
 * --python take one too): each is written. */
static void venv_dirs(struct cctx *x, const struct cmdv *c, size_t at, const char *argopts)
{
	for (size_t i = at; i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (strcmp(w->val, "--prompt") == 0 || strcmp(w->val, "--python") == 0 ||
		    (w->val[0] == '-' && w->val[1] && w->val[1] != '-' && w->val[2] == '\0' &&
		     strchr(argopts, w->val[1]))) {
			i++;
			continue;
		}
		if (w->val[0] != '-')
			paths_write(x, w, w->val, shell_span_word(x, w));
	}
}

/* python -m compileall [DIR|FILE...]: the .pyc files land beside them
 * (in __pycache__); with none, in every directory of sys.path. */
static void python_compileall(struct cctx *x, const struct cmdv *c, size_t at)
{
	size_t idx[64], n = opt_operands(c, at + 1, "rdspxijoe", idx, nitems(idx));

	for (size_t i = 0; i < n; i++)
		paths_write(x, &c->w[idx[i]], c->w[idx[i]].val, shell_span_word(x, &c->w[idx[i]]));
	if (n == 0)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
		        "compileall writes .pyc files into every directory of sys.path");
	rules_dyn_writes(x, c, "compiles");
}

/* python -m timeit [-s SETUP] STMT...: SETUP and STMT are Python it runs. */
static void python_timeit(struct cctx *x, const struct cmdv *c, size_t at)
{
	for (size_t i = at + 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (strcmp(w->val, "-s") == 0 || strcmp(w->val, "--setup") == 0) {
			if (++i < c->n)
				code_scan(x, "python", c->w[i].val, c->w[i].len, shell_span_word(x, &c->w[i]));
		} else if (strcmp(w->val, "-n") == 0 || strcmp(w->val, "-r") == 0 ||
		           strcmp(w->val, "-u") == 0) {
			i++;
		} else if (w->val[0] != '-') {
			code_scan(x, "python", w->val, w->len, shell_span_word(x, w));
		}
	}
}

/* zipfile|tarfile -e ARCHIVE [DIR] extracts into DIR (-c ARCHIVE FILES
 * creates ARCHIVE); json.tool IN OUT writes OUT: the last of at least two
 * operands after the module. */
static void python_outfile(struct cctx *x, const struct cmdv *c, size_t at, bool extract)
{
	size_t idx[4], n = opt_operands(c, at + 1, "", idx, nitems(idx));
	struct word here = c->w[at];

	if (extract && n && (opt_short(c, 'c', "") || opt_long(c, "--create"))) {
		paths_write(x, &c->w[idx[0]], c->w[idx[0]].val, shell_span_word(x, &c->w[idx[0]]));
		return;
	}
	if (extract && !opt_short(c, 'e', "") && !opt_long(c, "--extract"))
		return;
	if (n >= 2)
		paths_write(x, &c->w[idx[n - 1]], c->w[idx[n - 1]].val, shell_span_word(x, &c->w[idx[n - 1]]));
	else if (extract) {
		here.val = ".";
		paths_write(x, &here, ".", shell_span_words(x, c->w, c->n));
	}
}

static void python_module(struct cctx *x, struct cmdv *c, size_t at)
{
	const char *m = c->w[at].val;
	struct cmdv sub = *c; /* the module's words, as a program's */
	struct span sp = shell_span_words(x, c->w, c->n);

	sub.w = c->w + at;
	sub.n = c->n - at;
	for (size_t i = 0; i < nitems(pymods); i++) {
		if (strcmp(m, pymods[i].name) != 0)
			continue;
		switch (pymods[i].what) {
		case PM_PIP:
			rules_apply(x, &sub, "pip");
			return;
		case PM_LISTEN:
			cls_add(x, TIER_HIGH, "net.listen", sp, "serves files on the network");
			if (strcmp(m, "smtpd") != 0)
				rules_serves(x, &sub, "db", 'd', false);
			return;
		case PM_NET:
			cls_add(x, TIER_HIGH, "net.fetch", sp, "python -m %s reaches the network", m);
			return;
		case PM_CODE:
			python_timeit(x, c, at);
			return;
		case PM_EXTRACT:
		case PM_OUTFILE:
			python_outfile(x, c, at, pymods[i].what == PM_EXTRACT);
			return;
		case PM_QUIET:
			return;
		case PM_BUILD:
			cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a build or test tool");
			return;
		case PM_PROG: /* python -m twine upload: twine's rules */
			if (!rules_apply(x, &sub, m))
				cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a build or test tool");
			return;
		case PM_COMPILE:
			cls_add(x, TIER_MEDIUM, "exec.build", sp, "compiles Python files");
			python_compileall(x, c, at);
			return;
		case PM_PYBUILD:
			if (opt_short(c, 'n', "o") || opt_long(c, "--no-isolation"))
				cls_add(x, TIER_MEDIUM, "exec.build", sp, "builds the package");
			else
				cls_add(x, TIER_HIGH, "pkg.install", sp,
				        "python -m build installs the build requirements from the "
				        "index first (-n, --no-isolation: it does not)");
			return;
		case PM_SQLITE: /* a sqlite3.py here would run instead: not low */
			cls_add(x, x->o->unknown_program, "exec.script", sp, "runs the Python module %s", m);
			rules_apply(x, &sub, "sqlite3");
			return;
		case PM_VENV:
			cls_add(x, TIER_MEDIUM, "exec.build", sp, "makes a virtual environment");
			venv_dirs(x, c, at + 1, "");
			return;
		case PM_DOC: /* imports the modules it documents: their code runs */
			if (opt_short(c, 'p', "pn") || opt_short(c, 'b', "pn"))
				cls_add(x, TIER_HIGH, "net.listen", sp, "pydoc -p|-b serves on the network");
			cls_add(x, x->o->unknown_program, "exec.script", sp,
			        "pydoc imports the modules it documents");
			return;
		case PM_PROFILE: {
			const char *v;
			const struct word *o = opt_value(c, 'o', NULL, "os", &v);
			if (o)
				paths_write(x, o, v, shell_span_word(x, o));
			cls_add(x, x->o->unknown_program, "exec.script", sp, "profiles a Python program");
			return;
		}
		}
	}
	cls_add(x, x->o->unknown_program, "exec.script", sp, "runs the Python module %s", m);
}

/* A long option of the space-separated list, whole, abbreviated or with
 * =VALUE (*eq). */
static bool long_in(const char *list, const char *a, const char **eq)
{
	char name[48];

	for (const char *p = list; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		if (n < sizeof(name) && p[0] == '-' && p[1] == '-') {
			memcpy(name, p, n);
			name[n] = '\0';
			if (opt_long_is(a, name, eq))
				return true;
		}
		p += n;
	}
	return false;
}

enum iopt { IO_OPERAND, IO_FLAG, IO_VALUE, IO_CODE };

/* What word i of an interpreter's argv is: code (IO_CODE; *cw, *code: the
 * word holding it and the code, NULL when missing), an option whose value
 * is the next word, another option, or an operand (the script). */
static enum iopt interp_opt(const struct interp *ip, const struct cmdv *c, size_t i,
                            const struct word **cw, const char **code)
{
	const char *a = c->w[i].val, *eq = NULL;

	*cw = i + 1 < c->n ? &c->w[i + 1] : NULL;
	*code = *cw ? (*cw)->val : NULL;
	if (a[0] != '-' || a[1] == '\0')
		return has_verb(ip->flags, a) ? IO_CODE : IO_OPERAND; /* deno eval */
	if (has_verb(ip->flags, a))
		return IO_CODE;
	if (long_in(ip->flags, a, &eq)) {
		if (eq) {
			*cw = &c->w[i];
			*code = eq;
		}
		return IO_CODE;
	}
	if (has_verb(ip->lvals, a))
		return IO_VALUE;
	for (size_t k = 1; a[1] != '-' && a[k]; k++) {
		if (strchr(ip->code, a[k])) {
			if (a[k + 1]) {
				*cw = &c->w[i];
				*code = a + k + 1;
			}
			return IO_CODE;
		}
		if (strchr(ip->vals, a[k]))
			return a[k + 1] ? IO_FLAG : IO_VALUE;
		if (strchr(ip->rest, a[k]))
			break;
	}
	return IO_FLAG;
}

static size_t first_arg(const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->w[i].val[0] != '-')
			return i;
	return c->n;
}

/* deno VERB: install and build verbs settle the call (true); run, serve
 * and eval are followed by the script or code, read as for any
 * interpreter (false). */
static bool deno_verb(struct cctx *x, const struct cmdv *c, const char *v)
{
	static const char inst[] = "install add upgrade uninstall",
	                  build[] = "fmt lint check doc info task test bench compile coverage";
	struct span sp = shell_span_words(x, c->w, c->n);

	if (has_verb(inst, v))
		cls_add(x, TIER_HIGH, "pkg.install", sp, "installs packages (downloads and runs their code)");
	else if (has_verb(build, v))
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a build, test or project script");
	else
		return false;
	return true;
}

/* A script given as a URL (deno run https://..., php http://...) is code
 * fetched from the network. */
static bool remote_script(struct cctx *x, const struct cmdv *c, size_t i)
{
	const char *a = c->w[i].val;

	if (strncmp(a, "http://", 7) != 0 && strncmp(a, "https://", 8) != 0)
		return false;
	net_add_url(x, a);
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, &c->w[i]),
	        "runs code fetched from %s", a);
	return true;
}

/* Framework commands run by an interpreter's script that empty a whole
 * database: python manage.py flush, php artisan migrate:fresh. */
static const struct {
	const char *script, *cmd;
} db_wipes[] = {
	{"manage.py", "flush"}, {"manage.py", "reset_db"}, {"artisan", "migrate:fresh"},
	{"artisan", "migrate:reset"}, {"artisan", "migrate:refresh"}, {"artisan", "db:wipe"},
};

bool rules_script_db_wipe(struct cctx *x, const struct cmdv *c, size_t i)
{
	const char *a = c->w[i].val, *base = strrchr(a, '/');

	base = base ? base + 1 : a;
	for (size_t k = 0; i + 1 < c->n && k < nitems(db_wipes); k++)
		if (strcmp(base, db_wipes[k].script) == 0 && strcmp(c->w[i + 1].val, db_wipes[k].cmd) == 0) {
			cls_add(x, TIER_CRITICAL, "db.wipe", shell_span_words(x, c->w, c->n),
			        "%s %s empties the whole database", base, db_wipes[k].cmd);
			return true;
		}
	return false;
}

/* pre-commit install|uninstall writes .git/hooks (its hook then runs
 * .pre-commit-config.yaml at every commit, outside any sandbox), and
 * init-templatedir DIR the hooks of every later clone; autoupdate and
 * try-repo fetch. husky sets core.hooksPath to .husky, whatever it is
 * asked. */
static void rule_hooks(struct cctx *x, struct cmdv *c)
{
	const struct word *v = opt_first(c, "ct", NULL);
	struct word hooks = c->w[0];

	if (strcmp(c->prog, "husky") == 0) {
		if (!opt_long(c, "--version") && !opt_long(c, "--help"))
			cls_add(x, TIER_HIGH, "git.config", shell_span_words(x, c->w, c->n),
			        "husky points git's core.hooksPath at the project's hook scripts");
		return;
	}
	if (v && (strcmp(v->val, "install") == 0 || strcmp(v->val, "uninstall") == 0)) {
		hooks.val = ".git/hooks/pre-commit";
		paths_write(x, &hooks, hooks.val, shell_span_words(x, c->w, c->n));
	} else if (v && strcmp(v->val, "init-templatedir") == 0) {
		size_t idx[2];
		if (opt_operands(c, 1, "ct", idx, 2) == 2)
			paths_write(x, &c->w[idx[1]], c->w[idx[1]].val, shell_span_word(x, &c->w[idx[1]]));
	} else if (v && (strcmp(v->val, "autoupdate") == 0 || strcmp(v->val, "try-repo") == 0)) {
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
		        "fetches the hooks' repositories");
	}
}

/* direnv allow|permit|grant and mise trust make the directory's .envrc
 * (mise.toml's env and hooks) run in every shell that enters it, outside
 * any sandbox: an rc file of the project's. mise install|use installs
 * tools. direnv exec and mise exec are wrappers (shell_unwrap.c). */
static void rule_envrc(struct cctx *x, struct cmdv *c)
{
	static const char *const trusts[] = {"allow", "permit", "grant", "trust", "edit"};
	static const char *const looks[] = {"status", "version", "help", "--version", "--help",
	                                    "deny", "revoke", "block", "ls", "list", "current",
	                                    "which", "where", "doctor", "env", "hook"};
	const struct word *v = opt_first(c, "", NULL);
	struct span sp = shell_span_words(x, c->w, c->n);

	for (size_t i = 0; v && i < nitems(trusts); i++)
		if (strcmp(v->val, trusts[i]) == 0) {
			cls_add(x, TIER_HIGH, "fs.write.persistence", sp,
			        "%s %s makes the project's environment file run in every shell that "
			        "enters the directory", c->prog, v->val);
			return;
		}
	for (size_t i = 0; v && i < nitems(looks); i++)
		if (strcmp(v->val, looks[i]) == 0)
			return;
	if (v && strcmp(c->prog, "mise") == 0 &&
	    (strcmp(v->val, "install") == 0 || strcmp(v->val, "use") == 0 ||
	     strcmp(v->val, "upgrade") == 0 || strcmp(v->val, "i") == 0 || strcmp(v->val, "u") == 0))
		cls_add(x, TIER_HIGH, "pkg.install", sp, "installs tools (downloads and runs them)");
	else
		cls_add(x, x->o->unknown_program, "exec.unknown_program", sp,
		        "runs %s, whose other commands airlock does not judge", c->prog);
}

/* nodemon -x|--exec CMD runs CMD through the shell at start and at each
 * change (its script runs with node otherwise). */
static void rule_nodemon(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 'x', "--exec", "xwerdVeIsP", &v);

	if (w && (w->flags & (W_DYNAMIC | W_GLOB)))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
		        "nodemon runs a command that is only known at run time");
	else if (w)
		shell_script_text(x, v, strlen(v), shell_span_word(x, w));
}

/* rails|rake db:drop, db:reset, db:purge drop the database. */
static const struct {
	char letter;
	const char *lname;
} rake_code[] = {{'e', "--execute"}, {'p', "--execute-print"}, {'E', "--execute-continue"}};

static void rule_rails(struct cctx *x, struct cmdv *c)
{
	static const char wipes[] = "db:drop db:drop:all db:reset db:purge db:purge:all "
	                            "db:schema:load db:structure:load";
	struct span sp = shell_span_words(x, c->w, c->n);

	for (size_t i = 1; i < c->n; i++)
		if (has_verb(wipes, c->w[i].val)) {
			cls_add(x, TIER_CRITICAL, "db.wipe", sp, "%s %s drops the database", c->prog,
			        c->w[i].val);
			return;
		}
	cls_add(x, TIER_MEDIUM, "exec.build", sp, "runs a build, test or project task");
	/* rake -e|-p|-E CODE (--execute, --execute-print, --execute-continue)
	 * runs CODE as Ruby: `rake -e 'system("rm -rf ~")'` was medium */
	for (size_t k = 0; strcmp(c->prog, "rake") == 0 && k < nitems(rake_code); k++) {
		const char *v;
		const struct word *w = opt_value(c, rake_code[k].letter, rake_code[k].lname,
		                                 "epEfIRrjgCN", &v);
		if (w)
			code_scan(x, "ruby", v, strlen(v), shell_span_word(x, w));
	}
}

/* python setup.py install|develop puts the package into site-packages;
 * upload and register publish it, as twine upload does. */
static bool setup_py_install(struct cctx *x, const struct cmdv *c, size_t i)
{
	const char *a = c->w[i].val, *base = strrchr(a, '/');

	base = base ? base + 1 : a;
	if (strcmp(base, "setup.py") != 0)
		return false;
	for (size_t k = i + 1; k < c->n; k++) {
		const char *v = c->w[k].val;
		if (strcmp(v, "install") == 0 || strcmp(v, "develop") == 0) {
			paths_read(x, &c->w[i], a);
			cls_add(x, TIER_HIGH, "pkg.install", shell_span_words(x, c->w, c->n),
			        "installs the package (runs its setup.py)");
			return true;
		}
		if (strcmp(v, "upload") == 0 || strcmp(v, "register") == 0) {
			paths_read(x, &c->w[i], a);
			cls_add(x, TIER_HIGH, "net.upload", shell_span_words(x, c->w, c->n),
			        "publishes the package to an index");
			return true;
		}
	}
	return false;
}

/* perl -i / -pi.bak and ruby -i edit the files after the code in place. */
static void inplace_files(struct cctx *x, const struct cmdv *c, size_t from)
{
	bool inplace = false;

	if (strcmp(c->prog, "perl") != 0 && strcmp(c->prog, "ruby") != 0)
		return;
	for (size_t i = 1; i < from - 1 && !inplace; i++) {
		const char *a = c->w[i].val;
		/* -i in a cluster, before a letter whose value is the rest (-Mstrict) */
		for (size_t k = 1; a[0] == '-' && a[1] != '-' && a[k] && !inplace; k++) {
			if (strchr("MmIeExC0l", a[k]))
				break;
			inplace = a[k] == 'i';
		}
	}
	for (size_t i = from; inplace && i < c->n; i++)
		if (c->w[i].val[0] != '-')
			paths_write(x, &c->w[i], c->w[i].val, shell_span_word(x, &c->w[i]));
	if (inplace) /* xargs perl -pi: its input names the files */
		rules_dyn_writes(x, c, "edits in place");
}

/* ruby -run -e CMD [--] ARGS (the un library): CMD is a FileUtils
 * command run on ARGS, judged as that program (rm_rf as rm -rf); httpd
 * serves files. Returns true when un is loaded and CMD is one of them. */
static bool ruby_un(struct cctx *x, const struct cmdv *c, const struct word *cw,
                    const char *code)
{
	static const struct {
		const char *fn, *prog, *flags;
	} uns[] = {{"rm", "rm", NULL}, {"rm_f", "rm", "-f"}, {"rm_r", "rm", "-r"},
		{"rm_rf", "rm", "-rf"}, {"cp", "cp", NULL}, {"mv", "mv", NULL}, {"ln", "ln", NULL},
		{"mkdir", "mkdir", NULL}, {"rmdir", "rmdir", NULL}, {"install", "install", NULL},
		{"chmod", "chmod", NULL}, {"touch", "touch", NULL}};
	bool un = false;
	size_t at = (size_t)(cw - c->w) + 1, k = 0;
	struct word *w;
	struct cmdv sub;

	for (size_t i = 1; i < c->n && !un; i++)
		un = strcmp(c->w[i].val, "-run") == 0 ||
		     (strcmp(c->w[i].val, "-r") == 0 && i + 1 < c->n && strcmp(c->w[i + 1].val, "un") == 0);
	if (!un)
		return false;
	if (strcmp(code, "httpd") == 0) {
		cls_add(x, TIER_HIGH, "net.listen", shell_span_words(x, c->w, c->n),
		        "ruby -run -e httpd serves files on the network");
		sub = *c; /* httpd [DIR] [-p PORT]: its own words */
		sub.w = c->w + at - 1;
		sub.n = c->n - at + 1;
		rules_serves(x, &sub, "pb", 0, true);
		return true;
	}
	for (; k < nitems(uns) && strcmp(code, uns[k].fn) != 0; k++)
		;
	if (k == nitems(uns))
		return false;
	at += at < c->n && strcmp(c->w[at].val, "--") == 0;
	w = arena_alloc(x->a, (c->n - at + 2) * sizeof(*w));
	memset(&sub, 0, sizeof(sub));
	sub.w = w;
	w[sub.n] = *cw;
	w[sub.n].val = uns[k].prog;
	w[sub.n].len = strlen(uns[k].prog);
	w[sub.n++].verbatim = false;
	if (uns[k].flags) {
		w[sub.n] = w[0];
		w[sub.n].val = uns[k].flags;
		w[sub.n++].len = strlen(uns[k].flags);
	}
	for (size_t i = at; i < c->n; i++)
		w[sub.n++] = c->w[i];
	sub.sc = c->sc;
	sub.in = IN_NONE;
	shell_exec_argv(x, &sub);
	return true;
}

/* Modules loaded by an option (perl -MLWP::Simple, ruby -rnet/http) that
 * reach the network or start programs: the code that uses them need not
 * name them again. */
static void interp_modules(struct cctx *x, const struct interp *ip, const struct cmdv *c)
{
	static const struct {
		const char *lang, *prefix, *rule;
	} mods[] = {{"perl", "LWP", "exec.inline_code.network"},
		{"perl", "HTTP::", "exec.inline_code.network"},
		{"perl", "IO::Socket", "exec.inline_code.network"},
		{"perl", "Net::", "exec.inline_code.network"},
		{"perl", "Socket", "exec.inline_code.network"},
		{"perl", "WWW::", "exec.inline_code.network"},
		{"perl", "Mojo::UserAgent", "exec.inline_code.network"},
		{"perl", "IPC::", "exec.inline_code.spawn"},
		{"ruby", "socket", "exec.inline_code.network"},
		{"ruby", "net/", "exec.inline_code.network"},
		{"ruby", "open-uri", "exec.inline_code.network"},
		{"ruby", "open3", "exec.inline_code.spawn"}, {"ruby", "pty", "exec.inline_code.spawn"}};
	bool perl = strcmp(ip->lang, "perl") == 0;

	if (!perl && strcmp(ip->lang, "ruby") != 0)
		return;
	for (size_t i = 1; i < c->n && c->w[i].val[0] == '-'; i++) {
		const char *a = c->w[i].val, *m = NULL;
		if (perl && (a[1] == 'M' || a[1] == 'm'))
			m = a + 2 + (a[2] == '-');
		else if (!perl && a[1] == 'r')
			m = a[2] ? a + 2 : i + 1 < c->n ? c->w[i + 1].val : "";
		for (size_t k = 0; m && k < nitems(mods); k++)
			if (strcmp(mods[k].lang, ip->lang) == 0 &&
			    strncmp(m, mods[k].prefix, strlen(mods[k].prefix)) == 0)
				cls_add(x, TIER_HIGH, mods[k].rule, shell_span_word(x, &c->w[i]),
				        "%s loads %s, which reaches the network or starts programs",
				        c->w[0].val, m);
	}
}

static void rule_interp(struct cctx *x, struct cmdv *c)
{
	const struct interp *ip = NULL;
	const char *name = c->prog;

	for (size_t i = 0; i < nitems(interps); i++)
		if (strncmp(name, interps[i].name, strlen(interps[i].name)) == 0)
			ip = &interps[i];
	if (c->n == 2 && (strcmp(c->w[1].val, "--version") == 0 || strcmp(c->w[1].val, "-V") == 0 ||
	                  strcmp(c->w[1].val, "-v") == 0 || strcmp(c->w[1].val, "--help") == 0))
		return; /* prints a version or usage and exits */
	if (ip)
		interp_modules(x, ip, c);
	for (size_t i = 1; ip && strcmp(ip->lang, "js") == 0 && i < c->n && c->w[i].val[0] == '-';
	     i++)
		if (strncmp(c->w[i].val, "--inspect", 9) == 0) { /* --inspect[-brk|-wait][=H:P] */
			cls_add(x, TIER_HIGH, "net.listen", shell_span_word(x, &c->w[i]),
			        "%s opens a debugger port: whoever connects runs code", c->w[i].val);
			break;
		}
	for (size_t i = 1; ip && i < c->n; i++) {
		const char *a = c->w[i].val, *code;
		const struct word *cw;
		if (strcmp(a, "--") == 0 || strcmp(a, "-") == 0)
			break;
		if (strcmp(ip->lang, "python") == 0 && strcmp(a, "-m") == 0 && i + 1 < c->n) {
			python_module(x, c, i + 1);
			return;
		}
		if (strcmp(ip->lang, "php") == 0 && strcmp(a, "-S") == 0) {
			cls_add(x, TIER_HIGH, "net.listen", shell_span_words(x, c->w, c->n),
			        "php -S serves files on the network");
			rules_serves(x, c, "Stcdz", 't', false); /* -t DOCROOT, else here */
			return;
		}
		switch (interp_opt(ip, c, i, &cw, &code)) {
		case IO_CODE:
			if (cw && (cw->flags & (W_DYNAMIC | W_GLOB)))
				cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, cw),
				        "the %s code is only known at run time", ip->lang);
			if (cw)
				code_scan(x, ip->lang, code, strlen(code), shell_span_word(x, cw));
			if (cw && strcmp(ip->lang, "ruby") == 0 && ruby_un(x, c, cw, code))
				return;
			inplace_files(x, c, cw == &c->w[i] ? i + 1 : i + 2);
			return;
		case IO_VALUE:
			i++;
			continue;
		case IO_FLAG:
			continue;
		case IO_OPERAND:
			break;
		}
		if (strcmp(name, "deno") == 0 && i == first_arg(c) && deno_verb(x, c, a))
			return;
		if ((strcmp(name, "deno") == 0 && i == first_arg(c)) ||
		    (strncmp(name, "mongo", 5) == 0 && opt_long(c, "--eval")))
			continue; /* deno run SCRIPT; mongosh DB --eval CODE */
		rules_script_db_wipe(x, c, i);
		if (remote_script(x, c, i) || setup_py_install(x, c, i))
			return;
		if (c->w[i].flags & W_PROCSUB) {
			cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, &c->w[i]),
			        "runs the output of another command as code");
			return;
		}
		paths_read(x, &c->w[i], a);
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[i]),
		        "runs the script %s, which airlock cannot see", a);
		shell_files_run(x, &c->w[i], ip->lang);
		return;
	}
	unwrap_stdin_script(x, c, false, ip->lang); /* the language, not node or tclsh */
}

/* ---- containers ---- */

static const char *const host_mounts[] = {"/", "/etc", "/root", "/home", "/var/run/docker.sock",
                                          "/run/docker.sock", "/proc", "/sys", "/dev", "/boot",
                                          "/usr", "/var", "/bin", "/lib", "/sbin"};

static bool escape_mount(const struct cctx *x, const char *spec)
{
	const char *src = strncmp(spec, "type=", 5) == 0 ? strstr(spec, "source=") : spec;
	size_t n;

	if (src == NULL)
		src = strstr(spec, "src=");
	if (src == NULL)
		return false;
	src += strncmp(src, "source=", 7) == 0 ? 7 : strncmp(src, "src=", 4) == 0 ? 4 : 0;
	n = strcspn(src, ":,");
	if (n > 1 && src[n - 1] == '/')
		n--;
	if (x->home[0] && strlen(x->home) == n && strncmp(src, x->home, n) == 0)
		return true;
	for (size_t i = 0; i < nitems(host_mounts); i++)
		if (strlen(host_mounts[i]) == n && strncmp(src, host_mounts[i], n) == 0)
			return true;
	return n >= 1 && src[0] == '~';
}

static void container_escape(struct cctx *x, struct cmdv *c)
{
	static const char *const flags[] = {"--privileged", "--pid=host", "--net=host",
	                                    "--network=host", "--ipc=host", "--userns=host",
	                                    "--uts=host", "--cap-add", "--device",
	                                    "--security-opt"};
	/* the same namespaces with the value as the next word (--pid host) */
	static const char host_ns[] = "--pid --net --network --ipc --userns --uts --cgroupns";
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val, *m = NULL;
		for (size_t k = 0; k < nitems(flags); k++)
			if (strncmp(a, flags[k], strlen(flags[k])) == 0)
				cls_add(x, TIER_HIGH, "exec.container.escape", shell_span_word(x, &c->w[i]),
				        "%s gives the container power over the host", a);
		if (has_verb(host_ns, a) && i + 1 < c->n && strcmp(c->w[i + 1].val, "host") == 0)
			cls_add(x, TIER_HIGH, "exec.container.escape", shell_span_words(x, &c->w[i], 2),
			        "%s host gives the container the host's namespace", a);
		if ((strcmp(a, "-v") == 0 || strcmp(a, "--volume") == 0 || strcmp(a, "--mount") == 0) &&
		    i + 1 < c->n)
			m = c->w[i + 1].val;
		else if (strncmp(a, "--volume=", 9) == 0 || strncmp(a, "--mount=", 8) == 0)
			m = strchr(a, '=') + 1;
		else if (strncmp(a, "-v", 2) == 0 && a[2])
			m = a + 2;
		if (m && escape_mount(x, m))
			cls_add(x, TIER_HIGH, "exec.container.escape", shell_span_word(x, &c->w[i]),
			        "mounts a host system directory (%s) into the container", m);
	}
}

/* docker|podman [container] exec CTR CMD, compose exec|run SERVICE CMD:
 * CMD runs in the container as it stands, judged like a local command, as
 * kubectl exec's is (a database container's `psql -c 'DROP DATABASE'`, an
 * `rm -rf` of a bind-mounted workdir); it was not judged at all. at: the
 * verb's index; the options after it that take a value are skipped. */
static void container_command(struct cctx *x, const struct cmdv *c, size_t at)
{
	static const char shorts[] = "euwvpl";
	static const char longs[] = "--env --env-file --user --workdir --detach-keys --index "
	                            "--volume --publish --label --name --entrypoint --cap-add "
	                            "--cap-drop --network --platform --pull";
	size_t i = at + 1;

	for (; i < c->n && c->w[i].val[0] == '-'; i++) {
		const char *a = c->w[i].val;
		size_t l = strlen(a);
		if (strcmp(a, "--") == 0)
			break;
		if (a[1] == '-' ? strchr(a, '=') == NULL && has_verb(longs, a)
		                : l == 2 && strchr(shorts, a[1]))
			i++;
	}
	if (i + 1 < c->n) /* the container may be named at run time, its command not */
		rules_argv_run(x, c, i + 1);
}

/* -e NAME, --env NAME, --build-arg NAME (no =VALUE: the value is this
 * environment's) and --secret id=x,env=NAME of a credential variable hand
 * it to the container or the build, which may reach the network: `docker
 * run -e GITHUB_TOKEN img` was exec.container alone, while `-e
 * GITHUB_TOKEN=$GITHUB_TOKEN` was secrets.read. */
static void container_env(struct cctx *x, const struct cmdv *c)
{
	static const char *const longs[] = {"--env", "--build-arg"};

	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val, *v = NULL, *e;
		if (strcmp(a, "-e") == 0 && i + 1 < c->n)
			v = c->w[i + 1].val;
		else if (strncmp(a, "-e", 2) == 0 && a[2] && a[1] != '-')
			v = a + 2;
		for (size_t k = 0; k < nitems(longs) && v == NULL; k++) {
			size_t l = strlen(longs[k]);
			if (strncmp(a, longs[k], l) == 0 && a[l] == '=')
				v = a + l + 1;
			else if (strcmp(a, longs[k]) == 0 && i + 1 < c->n)
				v = c->w[i + 1].val;
		}
		if (v == NULL && strncmp(a, "--secret", 8) == 0 && (e = strstr(a, "env=")) != NULL)
			v = e + 4; /* --secret=id=x,env=NAME */
		else if (v == NULL && strcmp(a, "--secret") == 0 && i + 1 < c->n &&
		         (e = strstr(c->w[i + 1].val, "env=")) != NULL)
			v = e + 4;
		if (v && !strchr(v, '=') && secrets_env_name(v, strcspn(v, ",")))
			cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, &c->w[i]),
			        "hands $%.*s from this environment to the container or build",
			        (int)strcspn(v, ","), v);
	}
}

/* docker compose / docker-compose VERB that only shows state. */
static bool compose_read_only(const struct cmdv *c)
{
	static const char ro[] = "ps logs config ls images top version port events";
	const struct word *v = opt_first(c, "fp", NULL);

	return v == NULL || has_verb(ro, v->val);
}

/* What compose (c: from its verb's caller, words after compose) and
 * docker inspect show of secrets: `config` prints the compose file with
 * .env's values (or --env-file's) filled in, and inspect a container's
 * environment, where credentials usually are. */
static void container_secrets(struct cctx *x, const struct cmdv *c, const char *verb)
{
	static const char *const lists[] = {"--services", "--volumes", "--profiles", "--images",
	                                    "--networks", "-q", "--quiet", "--hash"};
	const char *v;
	const struct word *f = opt_value(c, '\0', "--env-file", "fp", &v);

	if (f)
		paths_read(x, f, v);
	if (strcmp(verb, "inspect") == 0)
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
		        "prints containers' environment, where their credentials usually are");
	if (strcmp(verb, "config") != 0)
		return;
	for (size_t i = 0; i < nitems(lists); i++)
		if (opt_long(c, lists[i]) || (lists[i][1] != '-' && opt_short(c, lists[i][1], "fp")))
			return;
	cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
	        "prints the compose file with .env's values filled in");
}

static void rule_compose(struct cctx *x, struct cmdv *c)
{
	const struct word *v = opt_first(c, "fp", NULL);

	container_secrets(x, c, v ? v->val : "");
	if (!compose_read_only(c))
		cls_add(x, TIER_HIGH, "exec.container", shell_span_words(x, c->w, c->n),
		        "runs or changes containers");
	if (v && (strcmp(v->val, "exec") == 0 || strcmp(v->val, "run") == 0))
		container_command(x, c, (size_t)(v - c->w));
	container_env(x, c);
}

/* docker -H/--host HOST, --context NAME or DOCKER_HOST / DOCKER_CONTEXT:
 * the daemon may be on another machine; search asks the registry. */
static void container_remote(struct cctx *x, const struct cmdv *c, const char *verb)
{
	const struct word *w;
	const char *v;

	if ((w = opt_value(c, 'H', "--host", "Hc", &v)) != NULL ||
	    (w = opt_value(c, 'c', "--context", "Hc", &v)) != NULL ||
	    rules_env(c, "DOCKER_HOST", &w) || rules_env(c, "DOCKER_CONTEXT", &w) ||
	    rules_env(c, "CONTAINER_HOST", &w))
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, w),
		        "talks to a container daemon that may be on another machine");
	if (strcmp(verb, "search") == 0)
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
		        "searches an image registry");
}

/* docker NOUN ls|df|...: the management commands' listings read, as
 * docker ps and docker images do (`docker volume ls`, `docker system df`
 * were high, exec.container); inspect stays with container_secrets. */
static bool container_listing(const struct cmdv *c, const char *v, size_t at)
{
	static const char nouns[] = "container image network volume context buildx plugin node "
	                            "service stack secret config system builder manifest";
	static const char lists[] = "ls list df info history top port diff logs stats ps";
	struct cmdv sub = *c;
	const struct word *sv;

	if (!has_verb(nouns, v))
		return false;
	sub.w = c->w + at;
	sub.n = c->n - at;
	sv = opt_first(&sub, "f", NULL);
	return sv && has_verb(lists, sv->val);
}

static void rule_container(struct cctx *x, struct cmdv *c)
{
	static const char ro[] = "ps images logs inspect version info stats top events history port "
	                         "diff search --version help";
	size_t at = 0;
	const struct word *w = opt_first(c, "Hc", &at);
	const char *v = w ? w->val : "";

	container_remote(x, c, v);
	if (strcmp(v, "inspect") == 0 ||
	    (strcmp(v, "container") == 0 && at + 1 < c->n && strcmp(c->w[at + 1].val, "inspect") == 0))
		container_secrets(x, c, "inspect");
	if (has_verb(ro, v) || w == NULL || container_listing(c, v, at))
		return;
	if (strcmp(v, "compose") == 0) { /* docker compose VERB */
		struct cmdv sub = *c;
		const struct word *cv;
		size_t k = 0;
		sub.w = c->w + at;
		sub.n = c->n - at;
		cv = opt_first(&sub, "fp", &k);
		container_secrets(x, &sub, cv ? cv->val : "");
		if (compose_read_only(&sub))
			return;
		if (cv && (strcmp(cv->val, "exec") == 0 || strcmp(cv->val, "run") == 0))
			container_command(x, c, at + k);
	} else if (strcmp(v, "exec") == 0)
		container_command(x, c, at);
	else if (strcmp(v, "container") == 0 && at + 1 < c->n && strcmp(c->w[at + 1].val, "exec") == 0)
		container_command(x, c, at + 1);
	cls_add(x, TIER_HIGH, "exec.container", shell_span_words(x, c->w, c->n),
	        "%s %s runs or changes containers and images (and may pull from the network)",
	        c->w[0].val, v);
	container_escape(x, c);
	container_env(x, c);
	/* docker cp ~/.config c:/x, docker build ~ (the context goes to the
	 * daemon whole): a tree that holds secrets is copied */
	if (strcmp(v, "cp") == 0 || strcmp(v, "build") == 0 ||
	    (strcmp(v, "container") == 0 && at + 1 < c->n && strcmp(c->w[at + 1].val, "cp") == 0) ||
	    (strcmp(v, "buildx") == 0 && at + 1 < c->n && strcmp(c->w[at + 1].val, "build") == 0))
		rules_tree_operands(x, c, at + 1);
}

/* ---- SQL clients ---- */

/*
 * Whether a word the shell expands (W_DYNAMIC) holds a positional or
 * special parameter ($1, $@, $*, $#, $?, $!, $$) or a backquote: the
 * shell fills them in at run time. sql_classify() finds $NAME and $(...)
 * in the text, but not these: the text alone cannot tell the shell's $1
 * from SQL's own, which a single-quoted word keeps (no W_DYNAMIC).
 */
static bool word_runtime_params(const struct word *w)
{
	if (!(w->flags & W_DYNAMIC))
		return false;
	for (const char *p = w->val; *p; p++)
		if (*p == '`' || (p[0] == '$' && p[1] && strchr("0123456789@*#?!$-", p[1])))
			return true;
	return false;
}

/* `psql -c "DELETE FROM t WHERE id = $1"` was low, and $1 may hold
 * `1; DROP TABLE t`. */
static void sql_word(struct cctx *x, const struct word *w, const char *val)
{
	bool verbatim = w->verbatim && val == w->val;

	if (val == w->val && word_runtime_params(w))
		cls_add(x, TIER_HIGH, "sql.exec", shell_span_word(x, w),
		        "the SQL holds $1 or `...` that the shell fills in at run time: it can be "
		        "any SQL");
	sql_classify(x, val, strlen(val), verbatim, w->voff, shell_span_word(x, w));
}

/* SQL (and the client's commands) from a file the call wrote: `printf
 * 'DROP DATABASE prod;' > x.sql; psql -f x.sql` was exec.script alone. */
static void sql_file_text(struct cctx *x, const struct word *w, const char *text, size_t len)
{
	sql_classify(x, text, len, false, 0, shell_span_word(x, w));
}

/* The file an option's value (v, in word w) names, read as written SQL. */
static void sql_file_value(struct cctx *x, const struct word *w, const char *v)
{
	struct word fw = *w;

	fw.val = v;
	fw.len = strlen(v);
	shell_files_each(x, &fw, sql_file_text);
}

static void sql_stdin(struct cctx *x, struct cmdv *c)
{
	struct span sp = shell_span_word(x, &c->w[0]);

	switch (c->in) {
	case IN_DOC:
		sql_classify(x, c->in_text, c->in_len, false, 0, c->in_span);
		break;
	case IN_PIPE:
		if (c->in_text)
			sql_classify(x, c->in_text, c->in_len, false, 0, c->in_span);
		else
			cls_add(x, TIER_HIGH, "exec.pipe_to_shell", sp,
			        "pipes data into %s, which runs it as SQL", c->w[0].val);
		break;
	case IN_FILE:
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "runs SQL from a file airlock cannot see");
		if (c->in_file)
			shell_files_each(x, c->in_file, sql_file_text);
		break;
	case IN_NONE:
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "opens an interactive SQL session");
		break;
	}
}

static const char *const local_hosts[] = {"localhost", "127.0.0.1", "::1", ""};

static void sql_host(struct cctx *x, const struct cmdv *c, const char *h, const struct word *w)
{
	for (size_t i = 0; i < nitems(local_hosts); i++)
		if (strcmp(h, local_hosts[i]) == 0 || h[0] == '/')
			return;
	net_add_host(x, h, strlen(h));
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, w ? w : &c->w[0]),
	        "connects to the database server %s", h);
}

/* SQL clients: the options that carry SQL, and those that take a value. */
static const struct sqlclient {
	const char *prog, *code, *lcode, *args;
} sqlclients[] = {
	{"psql", "-c", "--command", "cfhpUdvPoTLF"},
	/* mysql -p takes its password attached only: -p -e SQL is two options */
	{"mysql", "-e", "--execute", "eDhPuSo"},
	{"mariadb", "-e", "--execute", "eDhPuSo"},
	{"clickhouse-client", "-q", "--query", "qhudp"},
	{"cqlsh", "-e", "--execute", "ekuf"},
};

static const char *const mysql_optfiles[] = {"--defaults-file", "--defaults-extra-file"};

static void rule_sqlclient(struct cctx *x, struct cmdv *c)
{
	const struct sqlclient *sc = &sqlclients[0];
	bool pg = strcmp(c->prog, "psql") == 0, ran = false;
	enum sql_dialect was = x->sql_dialect;
	const char *cwd = x->cwd; /* \cd moves the client, not the shell */
	const char *v;
	const struct word *w;

	x->sql_dialect = pg ? SQL_PG
	                 : strcmp(c->prog, "mysql") == 0 || strcmp(c->prog, "mariadb") == 0 ? SQL_MYSQL
	                                                                                     : SQL_ANY;

	for (size_t i = 0; i < nitems(sqlclients); i++)
		if (strcmp(c->prog, sqlclients[i].prog) == 0)
			sc = &sqlclients[i];
	if ((w = opt_value(c, 'h', "--host", sc->args, &v)) != NULL)
		sql_host(x, c, v, w);
	/* every -c SQL, also in a cluster (-tAc), attached (-c'...') or as
	 * --command=SQL or an abbreviation of it */
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		if ((w = opt_value_at(c, &i, sc->code[1], sc->lcode, sc->args, &v)) != NULL) {
			sql_word(x, w, v);
			ran = true;
		} else if (strstr(a, "://")) {
			net_add_url(x, a);
		}
	}
	if (pg && (w = opt_value(c, 'f', "--file", sc->args, &v)) != NULL && strcmp(v, "-") != 0) {
		paths_read(x, w, v);
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
		        "runs SQL from %s, which airlock cannot see", v);
		sql_file_value(x, w, v);
		ran = true;
	}
	/* psql -o|--output FILE takes |CMD as \\o does; -L|--log-file is a file */
	if (pg && (w = opt_value(c, 'o', "--output", sc->args, &v)) != NULL)
		sql_client_output(x, w, v, shell_span_word(x, w));
	if (pg && (w = opt_value(c, 'L', "--log-file", sc->args, &v)) != NULL)
		paths_write(x, w, v, shell_span_word(x, w));
	/* mysql --defaults-file|--defaults-extra-file FILE reads options from
	 * FILE: init-command is SQL run at connect, host a server elsewhere
	 * (`mysql --defaults-extra-file=./my.cnf -e 'SELECT 1'` was low); not a
	 * secret read: mysql reads ~/.my.cnf's password itself, unrated */
	for (size_t k = 0; !pg && k < nitems(mysql_optfiles); k++)
		if ((w = opt_value(c, 0, mysql_optfiles[k], NULL, &v)) != NULL)
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
			        "reads options from %s, which may hold SQL (init-command) airlock "
			        "cannot see", v);
	/* psql -l lists the databases and exits: no session on stdin */
	ran |= pg && (opt_short(c, 'l', sc->args) || opt_long(c, "--list"));
	if (!ran)
		sql_stdin(x, c);
	x->sql_dialect = was;
	x->cwd = cwd;
}

/* pg_restore -c / --clean drops each object before it restores it. */
static void rule_pg_restore(struct cctx *x, struct cmdv *c)
{
	struct span sp = shell_span_words(x, c->w, c->n);

	if (opt_short(c, 'c', "dfFhIjLnNpPsStTUW") || opt_long(c, "--clean"))
		cls_add(x, TIER_HIGH, "sql.drop", sp, "pg_restore --clean drops objects first");
	else
		cls_add(x, TIER_MEDIUM, "sql.insert", sp, "pg_restore loads a dump into a database");
}

/* sqlite3 [OPTIONS] DB [SQL...]; options with a value are long-ish. */
/* Options count anywhere, as the shell parses them (sqlite3 db -header
 * SQL); *ran is set by duckdb's -c SQL and -f FILE, which run it and exit
 * without reading stdin. */
static size_t sqlite_operands(struct cctx *x, struct cmdv *c, size_t *idx, size_t max,
                              bool *ran)
{
	static const char with_value[] = " -cmd --cmd -init --init -separator -nullvalue -newline "
	                                 "-vfs -maxsize -mmap -pagecache -lookaside -heap -escape "
	                                 "-c -f ";
	size_t n = 0;
	char key[32];

	for (size_t i = 1; i < c->n && n < max; i++) {
		const char *a = c->w[i].val;
		if (a[0] != '-') {
			idx[n++] = i;
			continue;
		}
		snprintf(key, sizeof(key), " %s ", a);
		if (strstr(with_value, key) == NULL || i + 1 >= c->n)
			continue;
		*ran |= strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0;
		if (strcmp(a, "-cmd") == 0 || strcmp(a, "--cmd") == 0 || strcmp(a, "-c") == 0)
			sql_word(x, &c->w[i + 1], c->w[i + 1].val);
		else if (strstr(a, "init") || strcmp(a, "-f") == 0) {
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[i + 1]),
			        "runs SQL from %s, which airlock cannot see", c->w[i + 1].val);
			sql_file_value(x, &c->w[i + 1], c->w[i + 1].val);
		}
		i++;
	}
	return n;
}

static void rule_sqlite(struct cctx *x, struct cmdv *c)
{
	const char *cwd = x->cwd; /* .cd moves the client, not the shell */
	bool ran = false;
	size_t idx[16], first = x->v->nfindings, n = sqlite_operands(x, c, idx, nitems(idx), &ran);
	const struct word *db = n ? &c->w[idx[0]] : NULL;

	for (size_t i = 1; i < n; i++)
		sql_word(x, &c->w[idx[i]], c->w[idx[i]].val);
	if (n < 2 && !ran)
		sql_stdin(x, c);
	x->cwd = cwd;
	if (db == NULL)
		return;
	for (size_t i = first; i < x->v->nfindings; i++)
		if (x->v->findings[i].tier > TIER_LOW && strncmp(x->v->findings[i].rule, "sql.", 4) == 0) {
			paths_write(x, db, db->val, shell_span_word(x, db));
			return;
		}
	paths_read(x, db, db->val);
}

/* A compiler's or linker's -o FILE (or -oFILE): the file it writes. */
/* Build and format tools that write files: a formatter's operands when
 * it rewrites them in place (writes: the options that make it, "" for
 * always, unless one of checks is given), and the values of options
 * that name an output file or directory (outs). sub: the first operand
 * is a subcommand (ruff format, ruff check --fix). */
static const struct {
	const char *prog, *writes, *checks, *outs;
	bool sub;
} tool_files[] = {
	{"gofmt", "-w", NULL, NULL, false},
	{"black", "", "--check --diff", NULL, false},
	{"isort", "", "--check-only --check -c --diff --show-diff", NULL, false},
	{"prettier", "--write -w", NULL, NULL, false},
	{"clang-format", "-i", NULL, NULL, false},
	{"rustfmt", "", "--check", NULL, false},
	{"eslint", "--fix", NULL, "-o --output-file --cache-location", false},
	{"ruff", "format --fix", "--check --diff", "--cache-dir -o --output-file", true},
	{"tsc", NULL, NULL, "--outDir --outFile --out --declarationDir --tsBuildInfoFile", false},
	{"pytest", NULL, NULL, "--junitxml --junit-xml --basetemp --html --report-log", false},
	{"mypy", NULL, NULL, "--cache-dir --junit-xml --html-report --txt-report", false},
	{"cargo", NULL, NULL, "--target-dir --artifact-dir --manifest-path", true},
	{"go", NULL, NULL, "-coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile "
	                   "-trace -outputdir", true},
};

/* Whether word a is one of the space-separated options in list, alone
 * (*val NULL: the value is the next word) or as OPT=VALUE. */
static bool tool_opt(const char *list, const char *a, const char **val)
{
	size_t n = strcspn(a, "=");

	*val = a[n] ? a + n + 1 : NULL;
	for (const char *p = list; p && *p; p += strcspn(p, " "), p += *p == ' ') {
		size_t l = strcspn(p, " ");
		if (l == n && strncmp(p, a, n) == 0)
			return true;
	}
	return false;
}

static void tool_writes(struct cctx *x, struct cmdv *c, size_t row)
{
	bool inplace = tool_files[row].writes && tool_files[row].writes[0] == '\0';
	const char *v;

	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (tool_opt(tool_files[row].outs, w->val, &v)) {
			if (v == NULL && i + 1 < c->n)
				v = (w = &c->w[++i])->val;
			if (v)
				paths_write(x, w, v, shell_span_word(x, w));
			continue;
		}
		inplace |= tool_opt(tool_files[row].writes, w->val, &v) && w->val[0] != '\0';
		if (tool_opt(tool_files[row].checks, w->val, &v))
			return;
	}
	if (!inplace)
		return;
	for (size_t i = 1 + tool_files[row].sub; i < c->n; i++)
		if (c->w[i].val[0] != '-')
			paths_write(x, &c->w[i], c->w[i].val, shell_span_word(x, &c->w[i]));
	rules_dyn_writes(x, c, "rewrites"); /* xargs gofmt -w */
}

/* The files a build or format tool of tool_files writes: `gofmt -w
 * /etc/x.go`, `prettier --write ~/.bashrc` and `tsc --outDir /etc` write
 * there, which exec.build alone did not say. */
static void rule_tool_files(struct cctx *x, struct cmdv *c)
{
	for (size_t k = 0; k < nitems(tool_files); k++)
		if (strcmp(c->prog, tool_files[k].prog) == 0)
			tool_writes(x, c, k);
}

/* ninja install, meson install: into the configured prefix (/usr/local),
 * as make install; `meson install --destdir DIR` with DIR an absolute
 * directory in the workdir writes there, as make's DESTDIR does. */
static void rule_install_target(struct cctx *x, struct cmdv *c)
{
	const struct word *w;
	const char *v;

	if (strcmp(c->prog, "meson") == 0 && c->n > 1 && strcmp(c->w[1].val, "install") == 0 &&
	    (w = opt_value(c, 0, "--destdir", NULL, &v)) != NULL && install_dir_local(x, w, v)) {
		paths_write(x, w, v, shell_span_word(x, w));
		return;
	}
	for (size_t i = 1; i < c->n; i++)
		if (strcmp(c->w[i].val, "install") == 0) {
			cls_add(x, TIER_HIGH, "pkg.install", shell_span_words(x, c->w, c->n),
			        "%s install copies the build into the install prefix", c->w[0].val);
			return;
		}
}

/* meson devenv [-C DIR] [-w DIR] CMD ARGS runs CMD in the build's
 * environment: judged as a command (it was exec.build alone). Its
 * subprojects and wrap commands that ask WrapDB or clone: net.fetch. */
static const struct {
	const char *cmd, *verbs;
} meson_fetch[] = {
	{"subprojects", "download update"},
	{"wrap", "install update search list info status update-db"},
};

static void rule_meson(struct cctx *x, struct cmdv *c)
{
	static const char valued[] = " -C -w --workdir --dump-format ";

	rule_install_target(x, c);
	for (size_t k = 0; c->n > 2 && k < nitems(meson_fetch); k++)
		if (strcmp(c->w[1].val, meson_fetch[k].cmd) == 0 &&
		    has_verb(meson_fetch[k].verbs, c->w[2].val))
			cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
			        "meson %s %s fetches from the network", c->w[1].val, c->w[2].val);
	/* devenv's options, long ones with their value too (--workdir DIR):
	 * the first other word is the command */
	for (size_t i = 2; c->n > 2 && strcmp(c->w[1].val, "devenv") == 0 && i < c->n; i++) {
		char key[32];
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0) {
			if (i + 1 < c->n)
				rules_subcommand(x, c, i + 1, c->n);
			return;
		}
		if (a[0] != '-') {
			rules_subcommand(x, c, i, c->n);
			return;
		}
		snprintf(key, sizeof(key), " %s ", a);
		i += strstr(valued, key) != NULL;
	}
}

/* tox exec [-e ENV] -- CMD ARGS runs CMD in the environment, and -x|--override
 * KEY=VALUE of a commands key replaces what tox.ini runs: both judged (they
 * were exec.build alone). tox run -- ARGS hands ARGS to tox.ini's commands
 * as {posargs}, arguments rather than a command. */
static void rule_tox(struct cctx *x, struct cmdv *c)
{
	bool exec = c->n > 1 && strcmp(c->w[1].val, "exec") == 0;

	for (size_t i = 1; i < c->n; i++) {
		const char *v, *key_end;
		const struct word *w;
		if (strcmp(c->w[i].val, "--") == 0) {
			if (exec && i + 1 < c->n)
				rules_subcommand(x, c, i + 1, c->n);
			break;
		}
		w = opt_value_at(c, &i, 'x', "--override", "xecm", &v);
		key_end = w ? strchr(v, '=') : NULL;
		if (key_end && key_end - v >= 8 &&
		    (memmem(v, (size_t)(key_end - v), "commands", 8) != NULL))
			rules_hook(x, w, key_end + 1, strlen(key_end + 1),
			           "tox runs the commands an override sets");
	}
}

static void rule_compiler(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (strcmp(w->val, "-o") == 0 && i + 1 < c->n) {
			w = &c->w[++i];
			paths_write(x, w, w->val, shell_span_word(x, w));
		} else if (strncmp(w->val, "-o", 2) == 0 && w->val[2]) {
			paths_write(x, w, w->val + 2, shell_span_word(x, w));
		}
	}
}

#define PKG(n) {n, 0, NULL, TIER_LOW, NULL, NULL, rule_pkg}
#define CC(n) {n, 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_compiler}
#define BUILD(n) {n, 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", NULL}
#define JVM(n) {n, 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_jvm}
#define INSTALLS(n) {n, 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_install_target}
#define TOOL(n) {n, 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_tool_files}
#define INTERP(n) {n, 0, NULL, TIER_LOW, NULL, NULL, rule_interp}
#define INSTALLER(n) {n, 0, NULL, TIER_HIGH, "pkg.install", "downloads and runs a package", NULL}

const struct prog rules_dev[] = {
	PKG("pip"), PKG("pip3"), PKG("pip2"), PKG("npm"), PKG("yarn"), PKG("pnpm"), PKG("bun"),
	PKG("cargo"), PKG("go"), PKG("gem"), PKG("bundle"), PKG("apt"), PKG("apt-get"),
	PKG("aptitude"), PKG("dnf"), PKG("yum"), PKG("zypper"), PKG("apk"), PKG("brew"),
	PKG("conda"), PKG("mamba"), PKG("nvm"), PKG("pyenv"), PKG("volta"), PKG("sdk"),
	PKG("corepack"), PKG("snap"), PKG("flatpak"), PKG("pipx"), PKG("uv"),
	PKG("poetry"), PKG("composer"), PKG("dotnet"), PKG("twine"), PKG("pdm"), PKG("virtualenv"),
	{"make", 0, NULL, TIER_LOW, NULL, NULL, rule_make},
	{"cmake", 0, NULL, TIER_LOW, NULL, NULL, rule_cmake},
	{"gdb", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_gdb},
	{"lldb", 0, NULL, TIER_MEDIUM, "exec.build", "runs a debugger", rule_lldb},
	PKG("hatch"), PKG("rustup"), {"nix", 0, NULL, TIER_LOW, NULL, NULL, rule_nix},
	{"nix-instantiate", 0, NULL, TIER_LOW, NULL, NULL, rule_nix}, PKG("flit"),
	{"pacman", 0, NULL, TIER_LOW, NULL, NULL, rule_pacman},
	{"yay", 0, NULL, TIER_LOW, NULL, NULL, rule_pacman},
	{"paru", 0, NULL, TIER_LOW, NULL, NULL, rule_pacman},
	{"makepkg", 0, NULL, TIER_LOW, NULL, NULL, rule_makepkg}, PKG("micromamba"), PKG("pixi"),
	INSTALLER("cpanm"), INSTALLER("cpan"),
	{"rails", 0, NULL, TIER_LOW, NULL, NULL, rule_rails},
	{"rake", 0, NULL, TIER_LOW, NULL, NULL, rule_rails},
	INSTALLER("pnpx"), INSTALLER("uvx"), /* npx, bunx: wrap_npx in shell_unwrap.c */
	INSTALLER("dpkg"), INSTALLER("rpm"), INSTALLER("easy_install"), INSTALLER("nix-env"),
	INSTALLER("nix-shell"),
	INSTALLS("ninja"), {"meson", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_meson}, CC("gcc"), CC("g++"), CC("cc"),
	CC("c++"), CC("clang"), CC("clang++"), CC("ld"), CC("as"), BUILD("ar"),
	CC("rustc"), BUILD("javac"), BUILD("java"), JVM("mvn"), JVM("gradle"),
	BUILD("ant"), TOOL("pytest"), {"tox", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_tox}, BUILD("nox"), TOOL("ruff"), TOOL("black"),
	TOOL("isort"), TOOL("mypy"), BUILD("flake8"), BUILD("pylint"), TOOL("eslint"),
	TOOL("prettier"), TOOL("tsc"), BUILD("jest"), BUILD("vitest"), BUILD("mocha"),
	BUILD("webpack"), BUILD("vite"), BUILD("esbuild"), BUILD("rollup"), BUILD("swift"),
	BUILD("swiftc"), BUILD("zig"), BUILD("autoreconf"), BUILD("autoconf"),
	BUILD("automake"), BUILD("bazel"), BUILD("scons"), BUILD("ctest"), TOOL("gofmt"),
	TOOL("rustfmt"), TOOL("clang-format"),
	{"pre-commit", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_hooks},
	{"husky", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool", rule_hooks},
	BUILD("just"), {"nodemon", 0, NULL, TIER_MEDIUM, "exec.build", "runs a build or test tool",
	                 rule_nodemon}, {"direnv", 0, NULL, TIER_LOW, NULL, NULL, rule_envrc},
	{"mise", 0, NULL, TIER_LOW, NULL, NULL, rule_envrc},
	BUILD("shellcheck"), BUILD("pkg-config"),
	BUILD("bmake"), BUILD("gmake"), BUILD("cargo-fmt"), BUILD("golangci-lint"),
	INTERP("python"), INTERP("python3"), INTERP("python2"), INTERP("pypy"), INTERP("pypy3"),
	INTERP("node"), INTERP("nodejs"), INTERP("perl"), INTERP("ruby"), INTERP("php"),
	INTERP("lua"), INTERP("luajit"), INTERP("Rscript"), INTERP("R"), INTERP("julia"), INTERP("pwsh"),
	INTERP("powershell"), INTERP("osascript"), INTERP("tclsh"), INTERP("irb"),
	INTERP("guile"), INTERP("racket"), INTERP("sbcl"), INTERP("clisp"), INTERP("ghc"),
	INTERP("ghci"), INTERP("octave"), INTERP("elixir"), INTERP("erl"), INTERP("swipl"),
	INTERP("scala"), INTERP("kotlin"), INTERP("jshell"), INTERP("wish"), INTERP("gp"),
	INTERP("maxima"),
	INTERP("deno"), INTERP("mongosh"), INTERP("mongo"), INTERP("ts-node"), INTERP("tsx"),
	INTERP("expect"), INTERP("ipython"), INTERP("ipython3"), INTERP("IPython"),
	{"docker", 0, NULL, TIER_LOW, NULL, NULL, rule_container},
	{"podman", 0, NULL, TIER_LOW, NULL, NULL, rule_container},
	{"nerdctl", 0, NULL, TIER_LOW, NULL, NULL, rule_container},
	{"docker-compose", 0, NULL, TIER_LOW, NULL, NULL, rule_compose},
	{"qemu-system-x86_64", 0, NULL, TIER_HIGH, "exec.container", "runs a virtual machine", NULL},
	{"qemu-system-aarch64", 0, NULL, TIER_HIGH, "exec.container", "runs a virtual machine", NULL},
	{"virsh", 0, NULL, TIER_HIGH, "exec.container", "manages virtual machines", NULL},
	{"vagrant", 0, NULL, TIER_HIGH, "exec.container", "manages virtual machines", NULL},
	{"lxc", 0, NULL, TIER_HIGH, "exec.container", "manages containers", NULL},
	{"firecracker", 0, NULL, TIER_HIGH, "exec.container", "runs a virtual machine", NULL},
	{"psql", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"mysql", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"mariadb", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"clickhouse-client", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"cqlsh", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"dropdb", 0, NULL, TIER_CRITICAL, "db.wipe", "drops a whole PostgreSQL database", NULL},
	{"pg_restore", 0, NULL, TIER_LOW, NULL, NULL, rule_pg_restore},
	{"mariadb", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlclient},
	{"sqlite3", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlite},
	{"sqlite", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlite},
	{"duckdb", 0, NULL, TIER_LOW, NULL, NULL, rule_sqlite},
};
const size_t rules_dev_n = nitems(rules_dev);
