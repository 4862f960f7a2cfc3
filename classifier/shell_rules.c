/*
 * shell_rules.c: the program table: one row per program, gathered from the
 * per-concern tables (shell_rules_fs.c, _net.c, _dev.c, _sys.c, _git.c,
 * _text.c, _cloud.c), sorted
 * once, looked up by name hash (names.c). A program in no table is unknown and
 * takes opts->unknown_program; a new program is a new row.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static const struct prog **table;
static size_t ntable;
/* Each distinct name of the table, and the row a binary search of the
 * sorted table finds for it: the one kept for a name given twice. */
static const char **row_names;
static const struct prog **named_rows;
static struct names *by_name;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static int row_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct prog *const *)a)->name, (*(const struct prog *const *)b)->name);
}

static int key_cmp(const void *k, const void *e)
{
	return strcmp(k, (*(const struct prog *const *)e)->name);
}

static void table_build(void)
{
	const struct {
		const struct prog *rows;
		const size_t *n;
	} parts[] = {
		{rules_fs, &rules_fs_n}, {rules_net, &rules_net_n},
		{rules_dev, &rules_dev_n}, {rules_sys, &rules_sys_n}, {rules_git, &rules_git_n},
		{rules_text, &rules_text_n}, {rules_cloud_tab, &rules_cloud_tab_n},
	};
	size_t k = 0;

	for (size_t i = 0; i < nitems(parts); i++)
		ntable += *parts[i].n;
	table = xcalloc(ntable, sizeof(*table));
	for (size_t i = 0; i < nitems(parts); i++)
		for (size_t j = 0; j < *parts[i].n; j++)
			table[k++] = &parts[i].rows[j];
	qsort(table, ntable, sizeof(*table), row_cmp);
	row_names = xcalloc(ntable, sizeof(*row_names));
	named_rows = xcalloc(ntable, sizeof(*named_rows));
	k = 0;
	for (size_t i = 0; i < ntable; i++) {
		if (i > 0 && strcmp(table[i - 1]->name, table[i]->name) == 0)
			continue;
		row_names[k] = table[i]->name;
		named_rows[k++] = *(const struct prog *const *)bsearch(table[i]->name, table, ntable,
		                                                        sizeof(*table), key_cmp);
	}
	by_name = names_new(row_names, k);
}

static const struct prog *row_find(const char *name)
{
	size_t i = names_find(by_name, name);

	return i == SIZE_MAX ? NULL : named_rows[i];
}

bool rules_known_prog(const char *name)
{
	pthread_once(&table_once, table_build);
	return row_find(name) != NULL;
}

/* Versioned names: python3.11 -> python3, mkfs.ext4 -> mkfs, pip3.12 -> pip3. */
static const char *normalize(const char *name, char *buf, size_t sz)
{
	static const char *const stems[] = {"python3", "python2", "pip3", "pypy3", "ruby",
	                                    "perl", "php", "lua", "node", "gcc", "g++",
	                                    "clang", "mkfs", "fsck"};
	for (size_t i = 0; i < nitems(stems); i++) {
		size_t n = strlen(stems[i]);
		if (strncmp(name, stems[i], n) == 0 && (name[n] == '.' || name[n] == '-') &&
		    name[n + 1]) {
			snprintf(buf, sz, "%s", stems[i]);
			return buf;
		}
	}
	return name;
}

/* Directories whose programs are the ones the tables describe. */
static const char *const bin_dirs[] = {
	"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin",
};

/* Folds an absolute path as the kernel walks it: empty and "." components
 * dropped, ".." takes one back, and a leading /proc/self/root (or
 * /proc/PID/root, /proc/thread-self/root: the same root) dropped. Returns
 * false when it does not fit. */
static bool path_fold(const char *p, char *out, size_t sz)
{
	size_t n = 0;

	while (*p) {
		size_t l;
		p += strspn(p, "/");
		l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			while (n > 0 && out[--n] != '/')
				;
		else if (l && !(l == 1 && p[0] == '.')) {
			if (n + l + 2 > sz)
				return false;
			out[n++] = '/';
			memcpy(out + n, p, l);
			n += l;
		}
		p += l;
	}
	out[n] = '\0';
	return true;
}

void rules_hook(struct cctx *x, const struct word *w, const char *cmd, size_t n,
                const char *why)
{
	struct span sp = shell_span_word(x, w);

	cls_add(x, TIER_HIGH, "exec.hook_program", sp, "%s", why);
	if (n && !(w->flags & (W_DYNAMIC | W_GLOB)))
		shell_script_text(x, cmd, n, sp);
}

const char *rules_prog_name(const char *name, char *buf, size_t sz)
{
	const char *p, *slash;
	size_t skip;

	/* zsh expands =NAME to the path of NAME (its EQUALS option, on by
	 * default): `zsh -c '=rm -rf ~'` runs rm; bash finds no =rm */
	if (name[0] == '=' && name[1] != '\0' && strchr(name, '/') == NULL)
		return name + 1;
	if (name[0] != '/' || !path_fold(name, buf, sz))
		return name;
	for (p = buf; (skip = paths_proc_root(p)) != 0 && p[skip] == '/';)
		p += skip;
	/* the executable of the process that runs it: the shell itself */
	if (strcmp(p, "/proc/self/exe") == 0 || strcmp(p, "/proc/thread-self/exe") == 0)
		return "sh";
	slash = strrchr(p, '/');
	for (size_t i = 0; i < nitems(bin_dirs); i++)
		if ((size_t)(slash - p) == strlen(bin_dirs[i]) &&
		    strncmp(p, bin_dirs[i], strlen(bin_dirs[i])) == 0)
			return slash + 1;
	return name;
}

void rules_dyn_writes(struct cctx *x, const struct cmdv *c, const char *what)
{
	if (c->dyn_tail && !x->find_in_workdir)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_word(x, &c->w[0]),
		        "%s %s files named only at run time", c->w[0].val, what);
}

void rules_generic(struct cctx *x, struct cmdv *c, const struct prog *p)
{
	size_t idx[64], n;

	if (p->rule)
		cls_add(x, p->tier, p->rule, shell_span_word(x, &c->w[0]), "%s", p->why);
	if (!(p->flags & (P_READ | P_WRITE | P_HOST)))
		return;
	n = opt_operands(c, 1, p->argopts, idx, nitems(idx));
	if (n == 0 && (p->flags & P_CWD)) {
		struct word here = c->w[0];
		here.val = ".";
		here.flags = 0;
		paths_read(x, &here, ".");
	}
	if (p->flags & P_WRITE) /* xargs tee, xargs touch */
		rules_dyn_writes(x, c, "writes");
	for (size_t i = (p->flags & P_SKIP1) ? 1 : 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		if (p->flags & P_HOST)
			net_add_operand(x, w);
		else if (p->flags & P_WRITE)
			paths_write(x, w, w->val, shell_span_word(x, w));
		else
			paths_read(x, w, w->val);
	}
}

/* The NAME of an assignment word NAME=value, or 0 when w is not one. */
static size_t assign_name(const struct word *w)
{
	size_t n = strspn(w->val, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

	return n && w->val[n] == '=' && !(w->val[0] >= '0' && w->val[0] <= '9') ? n : 0;
}

const struct word *rules_env_next(const struct cmdv *c, size_t *i, size_t *namelen)
{
	const struct scmd *sc = c->sc;
	size_t end;

	if (sc == NULL || c->w < sc->w || c->w >= sc->w + sc->nw)
		return NULL;
	end = (size_t)(c->w - sc->w);
	for (; *i < end; (*i)++)
		if ((*namelen = assign_name(&sc->w[*i])) != 0)
			return &sc->w[(*i)++];
	return NULL;
}

const char *rules_env(const struct cmdv *c, const char *name, const struct word **wp)
{
	const struct word *w, *found = NULL;
	size_t i = 0, n, l = strlen(name);

	while ((w = rules_env_next(c, &i, &n)) != NULL)
		if (n == l && strncmp(w->val, name, l) == 0)
			found = w;
	if (wp)
		*wp = found;
	return found ? found->val + l + 1 : NULL;
}

/* Variables whose value is a command line that the program (or one it
 * starts: git's editor, man's pager, less's preprocessor) runs through the
 * shell. */
static const char *const cmd_vars[] = {
	"EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "PAGER", "GIT_PAGER",
	"MANPAGER", "SYSTEMD_PAGER", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS",
	"GIT_EXTERNAL_DIFF", "LESSOPEN", "LESSCLOSE", "RSYNC_RSH", "CVS_RSH", "BROWSER",
	"SUDO_ASKPASS", "FCEDIT", "GIT_PROXY_COMMAND", "BAT_PAGER", "ACK_PAGER",
	"ACK_PAGER_COLOR", "PSQL_PAGER", "PSQL_EDITOR",
	/* other tools' pagers, editors and command hooks */
	"GH_PAGER", "GH_EDITOR", "GH_BROWSER", "GLAB_PAGER", "KUBE_EDITOR", "AWS_PAGER",
	"HGEDITOR", "SVN_EDITOR", "SUDO_EDITOR", "SYSTEMD_EDITOR", "TIG_EDITOR", "PERLDOC_PAGER",
	"DELTA_PAGER", "DIFFPROG", "RSYNC_CONNECT_PROG", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER",
	"CARGO_BUILD_RUSTC_WRAPPER", "CCACHE_PREFIX", "CMAKE_C_COMPILER_LAUNCHER",
	"CMAKE_CXX_COMPILER_LAUNCHER",
};

const char *rules_go_hook(const char *a, bool *next)
{
	static const char *const hooks[] = {"exec", "toolexec", "vettool"};

	*next = false;
	if (a[0] != '-')
		return NULL;
	a += 1 + (a[1] == '-');
	for (size_t k = 0; k < nitems(hooks); k++) {
		size_t l = strlen(hooks[k]);
		if (strncmp(a, hooks[k], l) != 0 || (a[l] != '\0' && a[l] != '='))
			continue;
		*next = a[l] == '\0';
		return a[l] ? a + l + 1 : a + l;
	}
	return NULL;
}

void rules_go_hook_text(struct cctx *x, const struct word *w, const char *v)
{
	struct span sp = shell_span_word(x, w);

	cls_add(x, TIER_HIGH, "exec.hook_program", sp,
	        "go's -exec, -toolexec or -vettool makes it run another program");
	if (w->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
		        "go runs a program that is only known at run time");
	else if (*v)
		shell_script_text(x, v, strlen(v), sp);
}

/* GOFLAGS=-toolexec=CMD (fields -flag=value) hands CMD to every go command. */
static void goflags(struct cctx *x, const struct word *w, const char *v)
{
	while (*v) {
		size_t l = strcspn(v, " \t");
		bool next;
		char *f = arena_strndup(x->a, v, l);
		const char *h = rules_go_hook(f, &next);
		if (h && !next)
			rules_go_hook_text(x, w, h);
		v += l + strspn(v + l, " \t");
	}
}

/* cargo's CARGO_TARGET_<TRIPLE>_RUNNER and _LINKER: the runner is the
 * command line `cargo run` and `cargo test` start the program with
 * (CARGO_TARGET_..._RUNNER='rm -rf .' cargo run was medium). */
static bool cargo_target_var(const char *name, size_t n)
{
	return n > 20 && strncmp(name, "CARGO_TARGET_", 13) == 0 &&
	       (strncmp(name + n - 7, "_RUNNER", 7) == 0 || strncmp(name + n - 7, "_LINKER", 7) == 0);
}

void rules_env_command(struct cctx *x, const struct word *w, size_t n)
{
	const char *v = w->val + n + 1;
	bool cmd = cargo_target_var(w->val, n);

	if (n == 7 && strncmp(w->val, "GOFLAGS", 7) == 0)
		goflags(x, w, v);
	/* LESS=+!CMD: whatever starts less (less itself, git's or man's
	 * pager) runs CMD; `LESS='+!rm -rf ~' git log` was low on 2da832f */
	if (n == 4 && strncmp(w->val, "LESS", 4) == 0 && strchr(v, '+'))
		rules_less_cmds(x, w, strchr(v, '+'));
	for (size_t k = 0; k < nitems(cmd_vars) && !cmd; k++)
		cmd = strlen(cmd_vars[k]) == n && strncmp(w->val, cmd_vars[k], n) == 0;
	if (!cmd)
		return;
	v += strspn(v, "|-"); /* LESSOPEN's | or || only says how less reads it */
	if (w->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
		        "%.*s holds a command that is only known at run time", (int)n, w->val);
	else if (*v)
		shell_script_text(x, v, strlen(v), shell_span_word(x, w));
}

/* The command-line variables set for this command. */
static void env_commands(struct cctx *x, const struct cmdv *c)
{
	const struct word *w;
	size_t i = 0, n;

	while ((w = rules_env_next(c, &i, &n)) != NULL)
		rules_env_command(x, w, n);
}

/*
 * Programs that read every file under a directory operand, and what makes
 * them recurse ("": always). An operand that is a tree holding secrets
 * (grep -r X ~, find ~ -exec cat, tar czf x ~, cp -r ~ x) reads the keys
 * and tokens in it; `ls ~` lists names and is not here.
 */
static const struct {
	const char *name, *shorts, *longopt;
	bool bare; /* the first word may be a dashless cluster (tar czf) */
} tree_readers[] = {
	{"grep", "rR", "--recursive", false}, {"egrep", "rR", "--recursive", false},
	{"fgrep", "rR", "--recursive", false}, {"rg", "", NULL, false}, {"ag", "", NULL, false},
	{"ack", "", NULL, false}, {"find", "", NULL, false}, {"tar", "c", "--create", true},
	{"zip", "r", "--recurse-paths", false}, {"cp", "rRa", "--recursive", false},
	{"rsync", "ra", "--recursive", false}, {"scp", "r", NULL, false},
	{"bsdtar", "c", "--create", true}, {"7z", "", NULL, false}, {"7za", "", NULL, false},
	{"7zz", "", NULL, false}, {"7zr", "", NULL, false}, {"diff", "r", "--recursive", false},
	{"git", NULL, "--no-index", false}, /* git grep|diff --no-index DIR */
	/* review 14: what copies a tree off the machine (aws s3 sync ~,
	 * rclone copy ~/.config r:, croc send ~: net.fetch alone before); a
	 * tree among their operands is sent whole. docker and kubectl cp and
	 * docker build call rules_tree_operands() for their verbs alone */
	{"aws", "", NULL, false}, {"gsutil", "", NULL, false}, {"gcloud", "", NULL, false},
	{"az", "", NULL, false}, {"rclone", "", NULL, false}, {"croc", "", NULL, false},
	{"wormhole", "", NULL, false}, {"s3cmd", "", NULL, false}, {"azcopy", "", NULL, false},
};

/* Whether c recurses: one of its short options (NULL: none), or its long
 * option. */
static bool recurses(const struct cmdv *c, const char *shorts, const char *longopt, bool bare)
{
	if (shorts && *shorts == '\0')
		return true;
	for (const char *s = shorts; s && *s; s++)
		if (opt_short(c, *s, "") ||
		    (bare && c->n > 1 && c->w[1].val[0] != '-' && strchr(c->w[1].val, *s)))
			return true;
	return longopt && opt_long(c, longopt);
}

/* Only these can name /, the home or an ancestor of it, /etc or /root:
 * an absolute or ~ path, or one made of . and .. alone (a pattern like
 * 'fn main' is never looked up). */
static bool may_be_tree(const char *v)
{
	return v[0] == '/' || v[0] == '~' || (v[0] == '.' && strspn(v, "./") == strlen(v));
}

void rules_tree_operands(struct cctx *x, const struct cmdv *c, size_t from)
{
	char abs[CLS_MAX_PATH];

	for (size_t k = from; k < c->n; k++) {
		const struct word *w = &c->w[k];
		if (!may_be_tree(w->val) || (w->flags & W_DYNAMIC) ||
		    !paths_resolve(x, w->val, abs, sizeof(abs)) || !paths_holds_secrets(x, abs))
			continue;
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, w),
		        "reads every file under %s, keys and tokens included", abs);
	}
}

static void tree_reads(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 0; i < nitems(tree_readers); i++) {
		if (tree_readers[i].name[0] != c->prog[0] ||
		    strcmp(c->prog, tree_readers[i].name) != 0 ||
		    !recurses(c, tree_readers[i].shorts, tree_readers[i].longopt,
		              tree_readers[i].bare))
			continue;
		rules_tree_operands(x, c, 1);
		return;
	}
}

void rules_serves(struct cctx *x, const struct cmdv *c, const char *argopts, char root,
                  bool operand)
{
	static const char *const dirs[] = {"--directory", "--root", "--dir"};
	char abs[CLS_MAX_PATH];
	const struct word *w = NULL;
	const char *v = ".";
	size_t idx[16], n;

	for (size_t i = 0; i < nitems(dirs) && w == NULL; i++)
		w = opt_value(c, i == 0 ? root : 0, dirs[i], argopts, &v);
	/* else the first operand that is no port (http.server's 8000) */
	n = w || !operand ? 0 : opt_operands(c, 1, argopts, idx, nitems(idx));
	for (size_t i = 0; i < n && w == NULL; i++)
		if (strspn(c->w[idx[i]].val, "0123456789") != c->w[idx[i]].len)
			w = &c->w[idx[i]], v = w->val;
	if (w && (w->flags & W_DYNAMIC))
		return;
	if (paths_resolve(x, v, abs, sizeof(abs)) &&
	    (paths_holds_secrets(x, abs) || secrets_path(x, abs) != NULL))
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
		        "serves %s, which holds secrets, to whoever connects", abs);
}

/* Credential helpers are programs by prefix, one per store: docker's
 * (docker-credential-desktop|pass|osxkeychain|secretservice|ecr-login ...)
 * and git's standalone ones (git-credential-manager). `get` and `list` print
 * what they hold; they were unknown programs (medium). */
static bool credential_helper(struct cctx *x, const struct cmdv *c, const char *name)
{
	static const char *const prefixes[] = {"docker-credential-", "git-credential-"};

	for (size_t i = 0; i < nitems(prefixes); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0 && name[strlen(prefixes[i])]) {
			cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
			        "%s is a credential helper: it prints or stores credentials", name);
			return true;
		}
	return false;
}

bool rules_apply(struct cctx *x, struct cmdv *c, const char *name)
{
	char buf[32], path[CLS_MAX_PATH];
	const struct prog *row;

	pthread_once(&table_once, table_build);
	env_commands(x, c);
	name = rules_prog_name(name, path, sizeof(path));
	if (name[0] == 'd' || name[0] == 'g') /* one byte before the prefixes */
		if (credential_helper(x, c, name))
			return true;
	/* a row of the exact name first: clang-format is no clang-14 */
	row = row_find(name);
	if (row == NULL)
		row = row_find(normalize(name, buf, sizeof(buf)));
	if (row == NULL)
		return false;
	rules_generic(x, c, row);
	c->prog = row->name; /* a program at a path is the table's program */
	if (row->fn)
		row->fn(x, c);
	tree_reads(x, c);
	return true;
}

/* bin/rails db:drop and ./manage.py flush were unknown programs (medium,
 * auto-run with the workdir writable: a SQLite database there dropped)
 * where `rails db:drop` and `python manage.py flush` are db.wipe. Only the
 * tools projects ship a copy of (binstubs, node_modules/.bin, a
 * virtualenv's bin): a file named rm is no rm (`./rm -rf /` stays an
 * unknown program). */
void rules_binstub(struct cctx *x, struct cmdv *c)
{
	static const char *const stubs[] = {
		"rails", "rake", "prisma", "sequelize", "sequelize-cli", "knex", "alembic",
		"drizzle-kit", "supabase", "django-admin", "terraform", "tofu", "terragrunt", "pulumi",
		"cdk", "kubectl", "helm", "vercel", "flyctl", "fly", "doctl", "aws", "gcloud", "az",
	};
	const char *base = strrchr(c->w[0].val, '/') + 1;

	if ((c->w[0].flags & (W_DYNAMIC | W_GLOB)) || rules_script_db_wipe(x, c, 0))
		return;
	for (size_t i = 0; i < nitems(stubs); i++)
		if (strcmp(base, stubs[i]) == 0) {
			rules_apply(x, c, base);
			return;
		}
}

bool word_listed(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; n && (p = strstr(p, w)) != NULL; p++)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void rules_subcommand(struct cctx *x, struct cmdv *c, size_t at, size_t end)
{
	struct cmdv sub;

	if (at >= end)
		return;
	memset(&sub, 0, sizeof(sub));
	sub.w = c->w + at;
	sub.n = end - at;
	sub.sc = c->sc;
	sub.in = IN_NONE;
	sub.dyn_tail = true;
	shell_exec_argv(x, &sub);
}
