/*
 * shell_rules_fs.c: programs that read, change or delete files: read-only
 * tools (low unless a secret is among their arguments), rm and friends,
 * find's actions, mv/cp targets, chmod/chown, sed -i, awk, tar.
 * Deleting /, ~, a top-level system directory or an ancestor of the
 * workdir is critical; any other deletion is high.
 */
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* One path p (of word w) that a command deletes: recorded as written,
 * fs.delete.root when it is / or the home (recursive, or a glob). */
static void delete_path(struct cctx *x, const struct word *w, const char *p, bool recursive,
                        const char *verb)
{
	char abs[CLS_MAX_PATH];
	struct span sp = shell_span_word(x, w);

	if (!paths_resolve(x, p, abs, sizeof(abs))) {
		cls_add(x, TIER_HIGH, "fs.delete", sp, "%s %s, a path only known at run time", verb, p);
		return;
	}
	cls_add_path(x, &x->v->writes, abs);
	if ((recursive || strstr(abs, "*")) && paths_critical(x, abs))
		cls_add(x, TIER_CRITICAL, "fs.delete.root", sp,
		        "%s %s: the whole filesystem, the home directory or a system directory", verb,
		        abs);
	if (paths_class(x, abs) == PC_DISK)
		cls_add(x, TIER_CRITICAL, "sys.disk", sp, "%s the device %s", verb, abs);
}

static void delete_targets(struct cctx *x, struct cmdv *c, const char *argopts,
                           bool recursive, const char *verb)
{
	size_t idx[64], n = opt_operands(c, 1, argopts, idx, nitems(idx));

	for (size_t i = 0; i < n; i++)
		delete_path(x, &c->w[idx[i]], c->w[idx[i]].val, recursive, verb);
	if (n == 0 && c->dyn_tail)
		cls_add(x, TIER_HIGH, "fs.delete", shell_span_word(x, &c->w[0]),
		        "%s files named only at run time", verb);
}

/* What a build or test run makes again: deleting it destroys no work.
 * Names that mean nothing else count at any depth; the generic ones
 * (build, dist, ...) only right under the workdir or the directory the
 * command runs in, since src/build/ may well be source. */
static const struct {
	const char *name;
	bool anywhere;
} artifact_dirs[] = {
	{"__pycache__", true}, {"node_modules", true}, {".pytest_cache", true},
	{".mypy_cache", true}, {".ruff_cache", true},  {".tox", true},
	{".nox", true},        {".nyc_output", true},  {".next", true},
	{".turbo", true},      {".parcel-cache", true}, {"CMakeFiles", true},
	{"htmlcov", true},     {"build", false},       {"dist", false},
	{"out", false},        {"target", false},      {"coverage", false},
	{"_build", false},     {"builddir", false},
};

/* Object files, bytecode and coverage data a compiler writes. */
static const char *const artifact_exts[] = {
	".o", ".obj", ".pyc", ".pyo", ".class", ".gcda", ".gcno",
};

/* Whether component [p, p+n) is *.egg-info or cmake-build-*. */
static bool artifact_affix(const char *p, size_t n)
{
	return (n > 9 && memcmp(p + n - 9, ".egg-info", 9) == 0) ||
	       (n > 12 && memcmp(p, "cmake-build-", 12) == 0);
}

/* Whether component [p, p+n) names a build output directory. */
static bool artifact_dir(const char *p, size_t n, bool first)
{
	for (size_t i = 0; i < nitems(artifact_dirs); i++)
		if ((first || artifact_dirs[i].anywhere) && strlen(artifact_dirs[i].name) == n &&
		    memcmp(artifact_dirs[i].name, p, n) == 0)
			return true;
	return artifact_affix(p, n);
}

/* Whether the last component [p, p+n) is an object file, a.out or
 * .DS_Store (the Finder's folder view, which it writes again: `find .
 * -name .DS_Store -delete` asked as if it were data). */
static bool artifact_file(const char *p, size_t n)
{
	if ((n == 5 && memcmp(p, "a.out", 5) == 0) || (n == 9 && memcmp(p, ".DS_Store", 9) == 0))
		return true;
	for (size_t i = 0; i < nitems(artifact_exts); i++) {
		size_t k = strlen(artifact_exts[i]);
		if (n > k && memcmp(p + n - k, artifact_exts[i], k) == 0)
			return true;
	}
	return false;
}

/* rel, a path below a directory: a build output is in it. A glob may
 * stand only in the last component and not start it with a dot (`.*`
 * matches `..` in older bash); its literal suffix must then say so. */
static bool artifact_rel(const char *rel, bool first)
{
	const char *last = strrchr(rel, '/');
	const char *p = rel;

	last = last ? last + 1 : rel;
	if (strpbrk(rel, "*?[") && (strpbrk(rel, "*?[") < last || last[0] == '.'))
		return false;
	for (const char *e; p < last; p = e + 1, first = false) {
		e = strchr(p, '/');
		if (artifact_dir(p, (size_t)(e - p), first))
			return true;
	}
	if (artifact_file(last, strlen(last)))
		return true;
	if (!strpbrk(last, "*?["))
		return artifact_dir(last, strlen(last), first);
	/* *.egg-info, cmake-build-*: the literal part says what matches */
	return artifact_affix(last, strlen(last));
}

/* The part of abs below dir, or NULL when abs is not strictly below it. */
static const char *path_below(const char *abs, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	if (n == 0 || strncmp(abs, dir, n) != 0 || (abs[n] != '/' && dir[n - 1] != '/'))
		return NULL;
	abs += n + (abs[n] == '/');
	return *abs ? abs : NULL;
}

/* Files that make a directory a project of its own, whose build, dist or
 * target below it is that project's output as the workdir's is its own. */
static const char *const manifests[] = {
	"package.json", "Cargo.toml",   "pyproject.toml", "setup.py",         "go.mod",
	"CMakeLists.txt", "meson.build", "pom.xml",       "build.gradle",     "build.gradle.kts",
	"composer.json",  "Gemfile",
};

/* Whether directory [dir, dir+n) holds a manifest (a stat per name, as
 * resolving a link is: the tree as it stands when the call arrives). */
static bool project_dir(const char *dir, size_t n)
{
	char p[CLS_MAX_PATH];
	struct stat st;

	for (size_t i = 0; i < nitems(manifests); i++)
		if ((size_t)snprintf(p, sizeof(p), "%.*s/%s", (int)n, dir, manifests[i]) < sizeof(p) &&
		    stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	return false;
}

/* rel below the workdir abs: a build output right under a subproject
 * (`rm -rf web/dist` with a web/package.json is `cd web && rm -rf dist`;
 * it asked while that auto-ran). src/build with no manifest beside it
 * still asks: it may be source. */
static bool artifact_in_subproject(const char *abs, const char *rel)
{
	for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/'))
		if (project_dir(abs, (size_t)(s - abs)) && artifact_rel(s + 1, true))
			return true;
	return false;
}

/* An operand of rm that names a build output in the workdir (after
 * symlinks), neither a secret nor something git or the gate reads. */
static bool delete_is_artifact(struct cctx *x, const struct word *w)
{
	char abs[CLS_MAX_PATH];
	const char *rel;

	if (x->find_artifacts && strcmp(w->val, "{}") == 0)
		return true;
	if (!paths_resolve(x, w->val, abs, sizeof(abs)) || paths_class(x, abs) != PC_WORKDIR ||
	    paths_protected(x, abs) || secrets_path(x, abs) || strstr(abs, "/.git/") ||
	    (strlen(abs) >= 5 && strcmp(abs + strlen(abs) - 5, "/.git") == 0) ||
	    (rel = path_below(abs, x->wd)) == NULL)
		return false;
	if (artifact_rel(rel, true) || artifact_in_subproject(abs, rel))
		return true;
	rel = path_below(abs, x->cwd);
	return rel && artifact_rel(rel, true);
}

/* rm whose every operand is a build output (rm -rf build, rm -f *.o). */
static bool delete_artifacts_only(struct cctx *x, const struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "", idx, nitems(idx));

	if (n == 0 || n == nitems(idx) || (c->dyn_tail && !x->find_artifacts) ||
	    opt_long(c, "--no-preserve-root"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!delete_is_artifact(x, &c->w[idx[i]]))
			return false;
	return true;
}

static void rm_like(struct cctx *x, struct cmdv *c, bool rec)
{
	struct span sp = shell_span_words(x, c->w, c->n);

	if (delete_artifacts_only(x, c)) {
		cls_add(x, TIER_MEDIUM, "fs.delete.build_output", sp,
		        "deletes build outputs or caches in the workdir, which a build makes again");
		delete_targets(x, c, "", rec, "deletes");
		return;
	}
	cls_add(x, TIER_HIGH, "fs.delete", sp, "deletes files");
	if (rec)
		cls_add(x, TIER_HIGH, "fs.delete.recursive", sp, "deletes directory trees");
	if (opt_long(c, "--no-preserve-root"))
		cls_add(x, TIER_CRITICAL, "fs.delete.root", sp, "rm with --no-preserve-root");
	delete_targets(x, c, "", rec, "deletes");
}

static void rule_rm(struct cctx *x, struct cmdv *c)
{
	rm_like(x, c, opt_short(c, 'r', "") || opt_short(c, 'R', "") || opt_long(c, "--recursive"));
}

/* rimraf PATH... and del-cli PATH...: node's rm -rf (on PATH from a
 * global install or a package script). They were unknown programs:
 * `rimraf src` was medium, run with the workdir writable. Build outputs
 * are medium, as for rm -rf. */
static void rule_rimraf(struct cctx *x, struct cmdv *c)
{
	rm_like(x, c, true);
}

/* shred, srm, wipe, truncate, unlink: srm -r and wipe -r destroy trees. */
static void rule_delete(struct cctx *x, struct cmdv *c)
{
	bool trunc = strcmp(c->prog, "truncate") == 0;
	const char *ao = trunc ? "sr" : "nsu";
	bool rec = !trunc && (opt_short(c, 'r', ao) || opt_short(c, 'R', ao) ||
	                      opt_long(c, "--recursive"));

	cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n), "%s destroys file data",
	        c->w[0].val);
	if (rec)
		cls_add(x, TIER_HIGH, "fs.delete.recursive", shell_span_words(x, c->w, c->n),
		        "destroys directory trees");
	delete_targets(x, c, ao, rec, "destroys");
}

/* Trash tools move whole trees out of the way, as mv does: trash ~ takes
 * the home directory. gio remove|trash FILE is the same from GLib. */
static void rule_trash(struct cctx *x, struct cmdv *c)
{
	struct cmdv sub = *c;

	if (strcmp(c->prog, "gio") == 0) {
		if (c->n > 1 && (strcmp(c->w[1].val, "open") == 0 || strcmp(c->w[1].val, "launch") == 0)) {
			cls_add(x, TIER_HIGH, "exec.daemon", shell_span_words(x, c->w, c->n),
			        "gio %s hands a file to the desktop session, which opens it outside "
			        "the sandbox (a .desktop file's Exec line runs)", c->w[1].val);
			return;
		}
		if (c->n < 2 || (strcmp(c->w[1].val, "remove") != 0 && strcmp(c->w[1].val, "rm") != 0 &&
		                 strcmp(c->w[1].val, "trash") != 0)) {
			cls_add(x, x->o->unknown_program, "exec.unknown_program",
			        shell_span_words(x, c->w, c->n), "runs gio, whose other commands "
			        "airlock does not judge");
			return;
		}
		sub.w++;
		sub.n--;
	}
	cls_add(x, TIER_HIGH, "fs.delete.recursive", shell_span_words(x, c->w, c->n),
	        "removes files and directory trees");
	delete_targets(x, &sub, "", true, "removes");
}

/* Tests that narrow what find matches (-type alone does not: every file
 * of a tree is still every file). */
static const char *const find_filters[] = {
	"-name",  "-iname",  "-path",  "-ipath", "-wholename", "-iwholename", "-regex",
	"-iregex", "-lname", "-ilname", "-mtime", "-mmin",     "-atime",      "-amin",
	"-ctime",  "-cmin",  "-newer",  "-size",  "-user",     "-group",      "-perm",
	"-empty",  "-links", "-inum",  "-samefile",
};

/* What separates alternatives of a find expression. */
static const char *const find_alts[] = {"-o", "-or", ","};

static bool find_word(const struct cmdv *c, size_t i, const char *const *set, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(c->w[i].val, set[k]) == 0)
			return true;
	return false;
}

/* Whether every alternative of the expression c->w[from, to) (split at
 * -o and ',' outside parentheses) holds a test that narrows it: a filter
 * not negated and not matching everything (-name '*'), or a group whose
 * own alternatives all do. */
static bool find_narrows(const struct cmdv *c, size_t from, size_t to)
{
	static const char *const nots[] = {"!", "-not"};
	bool narrowed = false, negated = false;

	for (size_t i = from; i < to; i++) {
		if (find_word(c, i, find_alts, nitems(find_alts))) {
			if (!narrowed)
				return false;
			narrowed = false;
		} else if (find_word(c, i, nots, nitems(nots))) {
			negated = !negated;
			continue;
		} else if (strcmp(c->w[i].val, "(") == 0) {
			size_t e = i + 1;
			for (int depth = 1; e < to; e++) {
				depth += strcmp(c->w[e].val, "(") == 0;
				depth -= strcmp(c->w[e].val, ")") == 0;
				if (depth == 0)
					break;
			}
			narrowed |= !negated && e < to && find_narrows(c, i + 1, e);
			i = e;
		} else if (find_word(c, i, find_filters, nitems(find_filters))) {
			const char *v = i + 1 < to ? c->w[i + 1].val : "*";
			narrowed |= !negated && strcmp(v, "*") != 0 && strcmp(v, ".*") != 0;
		}
		negated = false;
	}
	return narrowed;
}

/* find -delete (at c->w[act]) under / or the home directory with nothing
 * narrowing it: as rm -rf of that directory. Only tests before the action
 * narrow it, and only on every path to it: `-delete -name x` deletes
 * everything, as does `-name x -o -delete` or `! -name x -delete`. */
static void find_delete_roots(struct cctx *x, const struct cmdv *c, size_t nstart, size_t act)
{
	char abs[CLS_MAX_PATH];
	size_t from = nstart;
	int depth = 0;

	for (size_t i = nstart; i < act; i++) { /* the action's own alternative */
		depth += strcmp(c->w[i].val, "(") == 0;
		depth -= strcmp(c->w[i].val, ")") == 0;
		if (depth == 0 && find_word(c, i, find_alts, nitems(find_alts)))
			from = i + 1;
	}
	/* an action inside parentheses: its alternative is not read */
	if (depth == 0 && find_narrows(c, from, act))
		return;
	for (size_t k = 1; k < nstart; k++)
		if (paths_resolve(x, c->w[k].val, abs, sizeof(abs)) && paths_critical(x, abs))
			cls_add(x, TIER_CRITICAL, "fs.delete.root", shell_span_word(x, &c->w[k]),
			        "find -delete under %s: the whole filesystem, the home directory or "
			        "a system directory",
			        abs);
}

/* Whether every start point of find (c->w[1, nstart)) is in the workdir
 * after symlinks and none is followed below them (no -L, -H, -follow):
 * then every file it names is there. */
static bool find_roots_in_workdir(struct cctx *x, const struct cmdv *c, size_t nstart)
{
	char abs[CLS_MAX_PATH];

	if (nstart < 2)
		return false; /* none given, or options first (-L) */
	for (size_t k = 1; k < nstart; k++)
		if (!paths_resolve(x, c->w[k].val, abs, sizeof(abs)) ||
		    paths_class(x, abs) != PC_WORKDIR || strstr(abs, "/.git"))
			return false;
	for (size_t i = nstart; i < c->n; i++)
		if (strcmp(c->w[i].val, "-follow") == 0)
			return false;
	return true;
}

/* Whether c->w[i] is `-name PATTERN` (or -iname) of build outputs: a name
 * that means nothing else (__pycache__, node_modules) or object files
 * (*.o, *.pyc). find lists no `..`, so a leading `*` is safe here. */
static bool find_artifact_name(const struct cmdv *c, size_t i)
{
	const char *p;

	if (i + 1 >= c->n || (strcmp(c->w[i].val, "-name") != 0 && strcmp(c->w[i].val, "-iname") != 0))
		return false;
	p = c->w[i + 1].val;
	if (c->w[i + 1].flags & W_DYNAMIC)
		return false;
	if (artifact_file(p, strlen(p)))
		return true; /* the literal suffix says what every match is */
	return !strpbrk(p, "*?[") && artifact_dir(p, strlen(p), false);
}

/* find DIR... [-maxdepth N] -name BUILD_OUTPUT [-type d|f] [-prune] then
 * -delete or -exec rm [-rf] {} + (at c->w[act]), with every DIR in the
 * workdir and no -L: it deletes only build outputs there. Anything else
 * in the expression (-o, !, -path, -follow) and it is not read so. */
static bool find_deletes_artifacts(const struct cmdv *c, size_t nstart, size_t act)
{
	size_t names = 0;

	for (size_t i = nstart; i < act; i++) {
		const char *a = c->w[i].val;
		if (find_artifact_name(c, i)) {
			names++;
			i++;
		} else if ((strcmp(a, "-type") == 0 || strcmp(a, "-maxdepth") == 0 ||
		            strcmp(a, "-mindepth") == 0) && i + 1 < act &&
		           strspn(c->w[i + 1].val, "0123456789df") == c->w[i + 1].len) {
			i++;
		} else if (strcmp(a, "-prune") != 0) {
			return false;
		}
	}
	return names == 1;
}

/* -exec rm [-r -f ...] {} + (or ;) at c->w[i], ending at c->w[e]. */
static bool find_exec_rm_only(const struct cmdv *c, size_t i, size_t e)
{
	if (i + 2 >= e || strcmp(c->w[i + 1].val, "rm") != 0 || e + 1 != c->n)
		return false;
	for (size_t k = i + 2; k < e; k++)
		if (strcmp(c->w[k].val, "{}") != 0 && c->w[k].val[0] != '-')
			return false;
	return strcmp(c->w[e - 1].val, "{}") == 0;
}

/* find: -delete, -exec CMD ;, -fprint FILE; the rest only reads. */
static void rule_find(struct cctx *x, struct cmdv *c)
{
	static const char *const execs[] = {"-exec", "-execdir", "-ok", "-okdir"};
	static const char *const prints[] = {"-fprint", "-fprint0", "-fprintf", "-fls"};
	size_t i = 1, nstart;
	bool in_wd;

	for (; i < c->n && c->w[i].val[0] != '-' && strcmp(c->w[i].val, "(") != 0 &&
	       strcmp(c->w[i].val, "!") != 0;
	     i++)
		paths_read(x, &c->w[i], c->w[i].val);
	nstart = i;
	in_wd = find_roots_in_workdir(x, c, nstart);
	for (; i < c->n; i++) {
		const char *a = c->w[i].val;
		if (strcmp(a, "-delete") == 0 && i + 1 == c->n && in_wd &&
		    find_deletes_artifacts(c, nstart, i)) {
			cls_add(x, TIER_MEDIUM, "fs.delete.build_output", shell_span_word(x, &c->w[i]),
			        "find -delete of build outputs or caches in the workdir");
		} else if (strcmp(a, "-delete") == 0) {
			cls_add(x, TIER_HIGH, "fs.delete.recursive", shell_span_word(x, &c->w[i]),
			        "find -delete deletes every file it matches");
			find_delete_roots(x, c, nstart, i);
		}
		for (size_t k = 0; k < nitems(prints); k++)
			if (strcmp(a, prints[k]) == 0 && i + 1 < c->n) {
				paths_write(x, &c->w[i + 1], c->w[i + 1].val,
				            shell_span_words(x, &c->w[i], 2));
				i++;
			}
		for (size_t k = 0; k < nitems(execs); k++) {
			size_t e = i + 1;
			if (strcmp(a, execs[k]) != 0)
				continue;
			while (e < c->n && strcmp(c->w[e].val, ";") != 0 && strcmp(c->w[e].val, "+") != 0)
				e++;
			if (i + 1 < e && strcmp(c->w[i + 1].val, "rm") == 0)
				find_delete_roots(x, c, nstart, i); /* as -delete */
			x->find_in_workdir = in_wd;
			x->find_artifacts = in_wd && find_exec_rm_only(c, i, e) &&
			                    find_deletes_artifacts(c, nstart, i);
			rules_subcommand(x, c, i + 1, e);
			x->find_in_workdir = x->find_artifacts = false;
			i = e;
			break;
		}
	}
}

/* Whether a is fd's -x|--exec or -X|--exec-batch, also at the end of a
 * cluster of flags (-Hx). */
static bool fd_exec(const char *a)
{
	size_t n = strlen(a);

	if (strcmp(a, "--exec") == 0 || strcmp(a, "--exec-batch") == 0)
		return true;
	return n >= 2 && a[0] == '-' && a[1] != '-' && (a[n - 1] == 'x' || a[n - 1] == 'X') &&
	       strspn(a + 1, "HIusigFalLp01qxX") == n - 1;
}

/* fd (fdfind on Debian) only lists what it finds, but -x|--exec CMD and
 * -X|--exec-batch CMD run CMD on each result (the words after it, up to a
 * `;`), as find -exec does: `fd -X rm -rf` deletes every file it finds.
 * fd was an unknown program: that was medium, and `fd main` medium too. */
static void rule_fd(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		size_t e = i + 1;
		if (!fd_exec(c->w[i].val))
			continue;
		while (e < c->n && strcmp(c->w[e].val, ";") != 0)
			e++;
		rules_subcommand(x, c, i + 1, e);
		i = e;
	}
}

/* ln TARGET LINK: writes through LINK land on TARGET, so a target outside
 * the workdir counts as a write there. */
static void link_target(struct cctx *x, const struct word *w)
{
	char abs[CLS_MAX_PATH];
	enum path_class pc;

	const char *rule;

	if (!paths_resolve(x, w->val, abs, sizeof(abs)))
		return;
	pc = paths_class(x, abs);
	if (pc == PC_OUTSIDE || pc == PC_DISK)
		cls_add(x, pc == PC_DISK ? TIER_CRITICAL : TIER_HIGH,
		        pc == PC_DISK ? "sys.disk" : "fs.write.outside_workdir", shell_span_word(x, w),
		        "links to %s: writes through the link land outside the workdir", abs);
	/* ln -s ~ h (or ~/.config): the next call reads h/.ssh/id_rsa as a
	 * workdir file, as after ln -s ~/.ssh/id_rsa k */
	if (paths_holds_secrets(x, abs))
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, w),
		        "links to %s, a tree that holds secrets: later calls read them "
		        "through the link",
		        abs);
	/* ln -s .git/hooks h, then a write to h/pre-commit: the write is a
	 * plain workdir file to every later reading */
	if ((rule = paths_protected(x, abs)) != NULL)
		cls_add(x, TIER_HIGH, rule, shell_span_word(x, w),
		        "links to %s: writes through the link land in what git or the gate "
		        "reads later",
		        abs);
}

/* mv's source leaves its path: moving /, the home directory or a system
 * directory away breaks the machine as surely as deleting it. */
static void move_source(struct cctx *x, const struct word *w)
{
	char abs[CLS_MAX_PATH];

	paths_write(x, w, w->val, shell_span_word(x, w));
	if (paths_resolve(x, w->val, abs, sizeof(abs)) && paths_critical(x, abs))
		cls_add(x, TIER_CRITICAL, "fs.delete.root", shell_span_word(x, w),
		        "moves %s away: the whole filesystem, the home directory or a system "
		        "directory",
		        abs);
}

/* u+s, g=s, 4755, 04755, 7755, 2755: a mode that sets setuid or setgid
 * (06000 of an octal mode, whatever its length). */
static bool setuid_mode(const char *m)
{
	unsigned long v = 0;
	size_t n = strspn(m, "01234567");

	if (strchr(m, 's') && (m[0] == '+' || m[0] == 'u' || m[0] == 'g' || m[0] == 'a' ||
	                       strchr(m, '+') || strchr(m, '=')))
		return true;
	if (n == 0 || m[n] != '\0' || n > 6)
		return false;
	for (size_t i = 0; i < n; i++)
		v = v * 8 + (unsigned long)(m[i] - '0');
	return (v & 06000) != 0;
}

/* A source copied, moved or linked into the target directory lands at
 * DIR/NAME: reported too, so `deny = Edit(*.lock)` sees `cp -t . x.lock`
 * and `cp x.lock dir/` (when the target is a file, the extra path is one
 * nothing writes: the strictest reading). */
static void copy_landing(struct cctx *x, const struct word *tw, const char *dir,
                         const struct word *src)
{
	char path[CLS_MAX_PATH];
	const char *base;
	size_t n = strlen(src->val);
	struct word in = *tw;

	while (n > 1 && src->val[n - 1] == '/')
		n--;
	base = memrchr(src->val, '/', n);
	base = base ? base + 1 : src->val;
	n -= (size_t)(base - src->val);
	if ((src->flags & W_DYNAMIC) || n == 0 ||
	    snprintf(path, sizeof(path), "%s/%.*s", dir, (int)n, base) >= (int)sizeof(path))
		return;
	in.val = path;
	paths_write(x, &in, path, shell_span_word(x, tw));
}

/* mv of workdir files to a target outside it (/tmp above all, which a
 * sandboxed run throws away): gone from the workdir, as rm would make
 * them. */
static void move_out(struct cctx *x, const struct cmdv *c, const struct word *tw,
                     const char *t, const size_t *idx, size_t nsrc)
{
	char abs[CLS_MAX_PATH];

	if ((tw->flags & (W_DYNAMIC | W_GLOB)) || !paths_resolve(x, t, abs, sizeof(abs)) ||
	    paths_class(x, abs) == PC_WORKDIR || paths_class(x, abs) == PC_DEVNULL)
		return;
	if (c->dyn_tail) { /* ls | xargs mv -t /tmp */
		cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n),
		        "moves files named at run time to %s, out of the workdir", t);
		return;
	}
	for (size_t i = 0; i < nsrc; i++) {
		const struct word *w = &c->w[idx[i]];
		if ((w->flags & W_DYNAMIC) || !paths_resolve(x, w->val, abs, sizeof(abs)) ||
		    paths_class(x, abs) != PC_WORKDIR)
			continue;
		if (!delete_is_artifact(x, w)) {
			cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n),
			        "moves %s out of the workdir to %s: gone from it (a sandboxed "
			        "run's /tmp is thrown away)",
			        w->val, t);
			return;
		}
		/* mv build /tmp/: as rm -rf build */
		cls_add(x, TIER_MEDIUM, "fs.delete.build_output", shell_span_word(x, w),
		        "moves the build output %s out of the workdir", w->val);
	}
}

/* mv/cp/ln/install: -t DIR or the last operand is the target. */
static void rule_copy(struct cctx *x, struct cmdv *c)
{
	const char *t, *name = c->prog;
	const char *ao = strcmp(name, "install") == 0 ? "tSbmgo" : "tSb"; /* install -m MODE */
	size_t idx[64], n = opt_operands(c, 1, ao, idx, nitems(idx));
	const struct word *tw = opt_value(c, 't', "--target-directory", ao, &t);
	bool mv = strcmp(name, "mv") == 0;
	size_t nsrc = tw ? n : (n ? n - 1 : 0);

	if (tw)
		paths_write(x, tw, t, shell_span_word(x, tw));
	else if (n)
		paths_write(x, &c->w[idx[n - 1]], c->w[idx[n - 1]].val,
		            shell_span_word(x, &c->w[idx[n - 1]]));
	if (!tw) /* xargs cp x: the target is the input's last word */
		rules_dyn_writes(x, c, "copies or moves onto");
	if (strcmp(name, "install") == 0 && opt_value(c, 'm', "--mode", ao, &t) &&
	    setuid_mode(t))
		cls_add(x, TIER_HIGH, "fs.chmod.setuid", shell_span_words(x, c->w, c->n),
		        "install -m %s sets the setuid or setgid bit", t);
	if (!tw && n && strcmp(c->w[idx[n - 1]].val, "/dev/null") == 0 && mv)
		cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n),
		        "moves files onto /dev/null, which destroys them");
	else if (mv && (tw || n > 1))
		move_out(x, c, tw ? tw : &c->w[idx[n - 1]], tw ? t : c->w[idx[n - 1]].val, idx,
		         nsrc);
	for (size_t i = 0; i < nsrc; i++) {
		const struct word *w = &c->w[idx[i]];
		if (tw)
			copy_landing(x, tw, t, w);
		else if (!(strcmp(name, "ln") == 0 && n == 1))
			copy_landing(x, &c->w[idx[n - 1]], c->w[idx[n - 1]].val, w);
		if (strcmp(name, "ln") == 0)
			link_target(x, w);
		if (mv)
			move_source(x, w);
		else
			paths_read(x, w, w->val);
	}
}

static void rule_chmod(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "", idx, nitems(idx));
	bool rec = opt_short(c, 'R', "") || opt_long(c, "--recursive");
	char abs[CLS_MAX_PATH];
	bool ref = opt_long(c, "--reference");

	cls_add(x, TIER_MEDIUM, "fs.chmod", shell_span_words(x, c->w, c->n),
	        "changes file permissions or owners");
	rules_dyn_writes(x, c, "changes the permissions or owners of");
	if (n && !ref && strcmp(c->prog, "chmod") == 0 && setuid_mode(c->w[idx[0]].val))
		cls_add(x, TIER_HIGH, "fs.chmod.setuid", shell_span_word(x, &c->w[idx[0]]),
		        "sets the setuid or setgid bit");
	for (size_t i = ref ? 0 : 1; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		if (rec && paths_resolve(x, w->val, abs, sizeof(abs)) && paths_critical(x, abs))
			cls_add(x, TIER_CRITICAL, "fs.chmod.root", shell_span_word(x, w),
			        "changes permissions of every file under %s", abs);
		paths_write(x, w, w->val, shell_span_word(x, w));
	}
}

/* dd if=X of=Y */
static void rule_dd(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		if (strncmp(w->val, "of=", 3) == 0)
			paths_write(x, w, w->val + 3, shell_span_word(x, w));
		else if (strncmp(w->val, "if=", 3) == 0)
			paths_read(x, w, w->val + 3);
	}
}

/* sed: -i writes its files; in the script, e CMD and s///e run commands,
 * w FILE (and s///w FILE) write one, r FILE reads one. */

/* Past a regex or s/// part that starts after the delimiter at p. */
static const char *sed_delim(const char *p, char d)
{
	for (p++; *p && *p != d && *p != '\n'; p++)
		if (*p == '\\' && p[1])
			p++;
	return p;
}

/* Past one address: N, $, first~step, /re/ or \cREc with I/M flags. */
static const char *sed_addr(const char *p)
{
	if (*p == '/' || (*p == '\\' && p[1])) {
		p = sed_delim(p + (*p == '\\'), *p == '\\' ? p[1] : '/');
		p += *p != '\0';
		return p + strspn(p, "IM");
	}
	return p + strspn(p, "0123456789$~+");
}

/* The argument of e, w, r, a, i, c: the rest of the line. */
static size_t sed_line(const char *p)
{
	return strcspn(p, "\n");
}

/* A file named in the script: written (w) or read (r). */
static void sed_file(struct cctx *x, const struct word *w, const char *p, size_t n, bool wr)
{
	char *f;

	p += strspn(p, " \t");
	n = sed_line(p) < n ? sed_line(p) : n;
	if (n == 0 || strncmp(p, "/dev/stdout", n) == 0 || strncmp(p, "/dev/stderr", n) == 0)
		return;
	f = arena_strndup(x->a, p, n);
	if (wr)
		paths_write(x, w, f, shell_span_word(x, w));
	else
		paths_read(x, w, f);
}

/* s/RE/REPL/FLAGS: e runs the result (REPL when it is the whole line),
 * w FILE writes. Returns the end of the command. */
static const char *sed_subst(struct cctx *x, const struct word *w, const char *p)
{
	char d = p[1];
	const char *re, *repl, *end;

	if (d == '\0' || d == '\n')
		return p + 1;
	re = sed_delim(p + 1, d);
	if (*re != d)
		return re;
	repl = sed_delim(re, d);
	if (*repl != d)
		return repl;
	end = repl + 1 + strcspn(repl + 1, ";}\nw");
	if (memchr(repl + 1, 'e', (size_t)(end - repl - 1)))
		rules_hook(x, w, re + 1, (size_t)(repl - re - 1), "s///e runs the result as a command");
	if (*end == 'w') {
		sed_file(x, w, end + 1, sed_line(end + 1), true);
		end += 1 + sed_line(end + 1);
	}
	return end;
}

/* y/SRC/DST/: at its closing delimiter, or where the line or script ends
 * (an unterminated y, which sed refuses, is never walked past its end). */
static const char *sed_translit(const char *p)
{
	char d = p[1];

	if (d == '\0' || d == '\n')
		return p + 1;
	p = sed_delim(p + 1, d);
	return *p == d ? sed_delim(p, d) : p;
}

static void sed_script(struct cctx *x, const struct word *w, const char *s)
{
	const char *p = s;

	while (*p) {
		p += strspn(p, " \t\n;{}");
		p = sed_addr(p);
		if (*p == ',')
			p = sed_addr(p + 1);
		p += strspn(p, " \t!");
		switch (*p) {
		case 's':
			p = sed_subst(x, w, p);
			continue;
		case 'y':
			p = sed_translit(p);
			break;
		case 'e':
			rules_hook(x, w, p + 1 + strspn(p + 1, " \t"), sed_line(p + 1 + strspn(p + 1, " \t")),
			        "the sed script runs commands (e)");
			p += sed_line(p);
			continue;
		case 'w': case 'W': case 'r': case 'R':
			sed_file(x, w, p + 1, sed_line(p + 1), *p == 'w' || *p == 'W');
			p += sed_line(p);
			continue;
		case 'a': case 'i': case 'c': case ':': case 'b': case 't': case 'T':
			p += sed_line(p);
			continue;
		case '\0':
			return;
		default:
			break;
		}
		p += *p != '\0';
	}
}

/* The file operands c->w[idx[0..n)] of sed or awk: written in place
 * (sed -i, gawk -i inplace) or read. */
static void inplace_files(struct cctx *x, const struct cmdv *c, const size_t *idx, size_t n,
                          bool inplace)
{
	for (size_t i = 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		if (inplace)
			paths_write(x, w, w->val, shell_span_word(x, w));
		else
			paths_read(x, w, w->val);
	}
	/* xargs sed -i: the files it edits are its input's words, which may
	 * name anything (cat list | xargs sed -i ...); find DIR -exec's are
	 * under DIR */
	if (inplace)
		rules_dyn_writes(x, c, "edits in place");
}

static void sed_file_text(struct cctx *x, const struct word *w, const char *text, size_t len)
{
	(void)len; /* the arena's copy ends with a NUL */
	sed_script(x, w, text);
}

static void rule_sed(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "efl", idx, nitems(idx));
	bool inplace = opt_short(c, 'i', "efl") || opt_long(c, "--in-place"), given = false;
	const char *val;

	/* every -e SCRIPT; -f FILE is a script airlock cannot see */
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		size_t j = i;
		const struct word *e = opt_value_at(c, &j, 'e', "--expression", "efl", &val);
		const struct word *f = e ? NULL : opt_value_at(c, &i, 'f', "--file", "efl", &val);
		if (e)
			sed_script(x, e, val);
		if (f) {
			size_t len;
			const char *text = shell_files_stdin_text(x, f, val, &len);
			paths_read(x, f, val);
			cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, f),
			        "sed runs a script file airlock cannot see (its e and w commands "
			        "run programs and write files)");
			if (text) { /* -f - or /dev/stdin: its here-document or piped text */
				sed_script(x, f, text);
			} else { /* a script file the call wrote */
				struct word fw = *f;
				fw.val = val;
				fw.len = strlen(val);
				shell_files_each(x, &fw, sed_file_text);
			}
		}
		given |= e || f;
		i = j > i ? j : i;
	}
	if (!given && n)
		sed_script(x, &c->w[idx[0]], c->w[idx[0]].val);
	inplace_files(x, c, idx + !given, n - (n && !given), inplace);
}

#define AWK_ARGOPTS "fvFEeil" /* awk's and gawk's short options that take a value */

/* gawk options that bring in code: a program file (-f, -E), program text
 * (-e), a source library (-i; -i inplace makes every file operand a write)
 * or a compiled extension (-l). */
enum awk_src { AWK_FILE, AWK_TEXT, AWK_INCLUDE, AWK_LOAD };
static const struct {
	char letter;
	const char *lname;
	enum awk_src src;
} awk_srcs[] = {{'f', "--file", AWK_FILE}, {'E', "--exec", AWK_FILE},
	{'e', "--source", AWK_TEXT}, {'i', "--include", AWK_INCLUDE}, {'l', "--load", AWK_LOAD}};

/* One code option's value v (word w); true when its program stands in for
 * the first operand. */
static bool awk_src(struct cctx *x, enum awk_src src, const struct word *w, const char *v,
                    bool *inplace)
{
	struct span sp = shell_span_word(x, w);
	const char *text;
	size_t len;

	switch (src) {
	case AWK_TEXT:
		code_scan(x, "awk", v, strlen(v), sp);
		return true;
	case AWK_FILE:
		cls_add(x, x->o->unknown_program, "exec.script", sp,
		        "runs an awk program from a file airlock cannot see");
		if (strcmp(v, "-") != 0)
			shell_files_run(x, w, "awk");
		else if ((text = shell_files_stdin_text(x, w, v, &len)) != NULL)
			code_scan(x, "awk", text, len, sp); /* -f -: stdin, its here-document */
		return true;
	case AWK_INCLUDE:
		if (strcmp(v, "inplace") == 0 || strcmp(v, "inplace.awk") == 0) {
			*inplace = true;
			return false;
		}
		break;
	case AWK_LOAD:
		break;
	}
	cls_add(x, x->o->unknown_program, "exec.script", sp,
	        "loads awk code or a compiled extension airlock cannot see");
	return false;
}

static void rule_awk(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, AWK_ARGOPTS, idx, nitems(idx));
	bool given = false, inplace = false;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		size_t at = i;
		for (size_t k = 0; k < nitems(awk_srcs); k++) {
			const char *v;
			const struct word *w;
			at = i;
			w = opt_value_at(c, &at, awk_srcs[k].letter, awk_srcs[k].lname, AWK_ARGOPTS, &v);
			if (w) {
				given |= awk_src(x, awk_srcs[k].src, w, v, &inplace);
				break;
			}
		}
		i = at;
	}
	if (!given && n)
		code_scan(x, "awk", c->w[idx[0]].val, c->w[idx[0]].len,
		          shell_span_word(x, &c->w[idx[0]]));
	inplace_files(x, c, idx + !given, n - (n && !given), inplace);
}

/* TAR_OPTIONS, which tar reads as options before its own: does a word of
 * it name the long option? */
static bool tar_env_opt(const char *opts, const char *name)
{
	char word[64];

	for (const char *p = opts + strspn(opts, " \t"); *p; p += strspn(p, " \t")) {
		size_t n = strcspn(p, " \t");
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (opt_long_is(word, name, NULL))
			return true;
		p += n;
	}
	return false;
}

#define TAR_ARGOPTS "fCTXbIgKLNVFH" /* tar's short options that take a value */

/* tar -I VALUE: a known compressor with options alone (tar -I 'zstd -19
 * -T0') is as routine as tar --zstd, not a hook to ask about. */
static bool tar_plain_compressor(const struct word *w, const char *v)
{
	static const char *const known[] = {"bzip2", "brotli", "gzip",  "lbzip2", "lz4",
	                                    "lzip",  "lzma",   "lzop",  "pbzip2", "pigz",
	                                    "pixz",  "plzip",  "xz",    "zstd",   "zstdmt"};
	size_t n = strcspn(v, " ");

	if ((w->flags & (W_DYNAMIC | W_GLOB)) ||
	    v[n + strspn(v + n, " -=.,abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")])
		return false;
	for (size_t i = 0; i < nitems(known); i++)
		if (strlen(known[i]) == n && strncmp(v, known[i], n) == 0)
			return true;
	return false;
}

/* A compressor or other program tar runs: judged as a script. */
static void tar_hook(struct cctx *x, const struct word *w, const char *v, const char *why)
{
	if (tar_plain_compressor(w, v))
		shell_script_text(x, v, strlen(v), shell_span_word(x, w));
	else
		rules_hook(x, w, v, strlen(v), why);
}

/* tar options that run programs, given or in TAR_OPTIONS: the command
 * line each names is judged as a script. */
static void tar_hooks(struct cctx *x, const struct cmdv *c)
{
	static const char *const hooks[] = {"--to-command", "--use-compress-program",
	                                    "--checkpoint-action", "--info-script",
	                                    "--new-volume-script", "--rsh-command"};
	const struct word *env;
	const char *opts = rules_env(c, "TAR_OPTIONS", &env);

	for (size_t i = 0; i < nitems(hooks); i++) {
		const char *v;
		const struct word *w = opt_value(c, 0, hooks[i], TAR_ARGOPTS, &v);
		if (w) {
			if (strcmp(hooks[i], "--checkpoint-action") == 0) /* exec=CMD; others print */
				v = strncmp(v, "exec=", 5) == 0 ? v + 5 : "";
			tar_hook(x, w, v, "tar runs another program");
		} else if (opt_long(c, hooks[i]))
			cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
			        "tar %s runs another program", hooks[i]);
		if (opts && tar_env_opt(opts, hooks[i]))
			cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_word(x, env),
			        "TAR_OPTIONS holds %s, which runs another program", hooks[i]);
	}
}

/*
 * What tar c, r or u reads: its member operands from word start on (past
 * an old-style cluster's values), below -C's directory when one is given,
 * so a deny rule on the path of a secrets folder stops `tar czf x.tgz
 * secrets`. archive is the -f word, written, not read.
 */
/* An archiver that deletes what it packs (tar --remove-files, zip -m,
 * 7z -sdel): the archive may be /dev/null, so it is rm -r of them. */
static void archive_deletes(struct cctx *x, const struct cmdv *c, const char *how)
{
	cls_add(x, TIER_HIGH, "fs.delete.recursive", shell_span_words(x, c->w, c->n),
	        "%s deletes the files and directories it packs", how);
}

static void tar_members(struct cctx *x, const struct cmdv *c, size_t start,
                        const struct word *archive)
{
	char path[CLS_MAX_PATH];
	const char *dir = NULL;
	size_t idx[64], n;

	bool remove = opt_long(c, "--remove-files");

	opt_value(c, 'C', "--directory", TAR_ARGOPTS, &dir);
	n = opt_operands(c, start, TAR_ARGOPTS, idx, nitems(idx));
	if (remove)
		archive_deletes(x, c, "tar --remove-files");
	for (size_t i = 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		struct word in = *w;
		if (w == archive)
			continue;
		if (dir && w->val[0] != '/' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, w->val) < (int)sizeof(path))
			in.val = path;
		paths_read(x, &in, in.val);
		if (remove)
			delete_path(x, w, in.val, true, "tar --remove-files deletes");
	}
}

/* tar's files besides the archive that it writes: the -g snapshot
 * (--listed-incremental), --index-file and --volno-file, also abbreviated
 * down to 7 characters (--list itself is another option). */
static void tar_outputs(struct cctx *x, const struct cmdv *c)
{
	static const char *const outs[] = {"--listed-incremental", "--index-file", "--volno-file"};
	const char *v;
	const struct word *w = opt_value(c, 'g', NULL, TAR_ARGOPTS, &v);

	if (w)
		paths_write(x, w, v, shell_span_word(x, w));
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		for (size_t k = 0; k < nitems(outs); k++) {
			const char *a = c->w[i].val;
			size_t l = strcspn(a, "=");
			if (l < 7 || l > strlen(outs[k]) || strncmp(a, outs[k], l) != 0)
				continue;
			w = a[l] == '=' ? &c->w[i] : i + 1 < c->n ? &c->w[++i] : NULL;
			if (w)
				paths_write(x, w, a[l] == '=' ? a + l + 1 : w->val, shell_span_word(x, w));
			break;
		}
}

/* tar: the mode decides; some options run programs. */
static void rule_tar(struct cctx *x, struct cmdv *c)
{
	/* old style: the first word is the letters of the options (tar czf);
	 * otherwise any option word may hold them (tar -C / -xf x.tar) */
	const char *mode = c->n > 1 && c->w[1].val[0] != '-' ? c->w[1].val : "", *val;
	const struct word *f;
	size_t start = *mode ? 2 : 1; /* where operands may begin */
	bool create = strpbrk(mode, "cru") || opt_short(c, 'c', TAR_ARGOPTS) ||
	              opt_short(c, 'r', TAR_ARGOPTS) || opt_short(c, 'u', TAR_ARGOPTS) ||
	              opt_long(c, "--create") || opt_long(c, "--append") || opt_long(c, "--update");
	bool extract = strchr(mode, 'x') || opt_short(c, 'x', TAR_ARGOPTS) ||
	               opt_long(c, "--extract") || opt_long(c, "--get");
	bool absolute = strchr(mode, 'P') || opt_short(c, 'P', TAR_ARGOPTS) ||
	                opt_long(c, "--absolute-names");

	tar_hooks(x, c);
	tar_outputs(x, c);
	/* -I: the compressor; -F: the --info-script run at each volume's end */
	if ((f = opt_value(c, 'I', NULL, TAR_ARGOPTS, &val)) != NULL)
		tar_hook(x, f, val, "tar -I runs another program");
	if ((f = opt_value(c, 'F', NULL, TAR_ARGOPTS, &val)) != NULL)
		rules_hook(x, f, val, strlen(val), "tar -F runs another program");
	f = opt_value(c, 'f', "--file", TAR_ARGOPTS, &val);
	/* old style: the cluster's values follow it in its letters' order
	 * (tar cbf 20 ARCHIVE, tar cIf CMD ARCHIVE); start is the first word
	 * past them */
	for (const char *m = mode; *m; m++) {
		if (!strchr(TAR_ARGOPTS, *m))
			continue;
		if (*m == 'f' && f == NULL && start < c->n) {
			f = &c->w[start];
			val = f->val;
		} else if ((*m == 'I' || *m == 'F') && start < c->n) {
			tar_hook(x, &c->w[start], c->w[start].val, "tar runs another program");
		}
		start++;
	}
	if (create)
		tar_members(x, c, start, f);
	if (f && create && strcmp(val, "-") != 0)
		paths_write(x, f, val, shell_span_word(x, f));
	else if (f && strcmp(val, "-") != 0)
		paths_read(x, f, val);
	if (extract) {
		const struct word *d = opt_value(c, 'C', "--directory", TAR_ARGOPTS, &val);
		struct word here = c->w[0];
		if (d == NULL)
			here.val = ".";
		paths_write(x, d ? d : &here, d ? val : ".", shell_span_words(x, c->w, c->n));
		if (absolute)
			cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
			        "tar -P extracts members with absolute names anywhere on the machine");
	}
}

/* 7z -sdel, zip -m|--move: the operands after the archive (from index
 * start on) are deleted once packed. */
static void archive_members_delete(struct cctx *x, const struct cmdv *c, const char *how,
                                   size_t start, const char *argopts)
{
	size_t idx[64], n;

	archive_deletes(x, c, how);
	n = opt_operands(c, start, argopts, idx, nitems(idx));
	for (size_t i = 1; i < n; i++)
		delete_path(x, &c->w[idx[i]], c->w[idx[i]].val, true, how);
}

/* 7z x|e ARCHIVE [-oDIR]: extracts into DIR (or here); a|u|d change the
 * archive; l|t only look. */
static void rule_7z(struct cctx *x, struct cmdv *c)
{
	const char *cmd = c->n > 1 ? c->w[1].val : "";
	size_t idx;
	struct word here = c->w[0];

	if (strcmp(cmd, "x") == 0 || strcmp(cmd, "e") == 0) {
		for (size_t i = 2; i < c->n; i++)
			if (strncmp(c->w[i].val, "-o", 2) == 0 && c->w[i].val[2]) {
				paths_write(x, &c->w[i], c->w[i].val + 2, shell_span_word(x, &c->w[i]));
				return;
			}
		here.val = ".";
		paths_write(x, &here, ".", shell_span_words(x, c->w, c->n));
	} else if (strcmp(cmd, "l") != 0 && strcmp(cmd, "t") != 0 && strcmp(cmd, "i") != 0 &&
	           opt_operands(c, 2, "", &idx, 1)) {
		paths_write(x, &c->w[idx], c->w[idx].val, shell_span_word(x, &c->w[idx]));
		for (size_t i = 2; i < c->n; i++)
			if (strcmp(c->w[i].val, "-sdel") == 0) {
				archive_members_delete(x, c, "7z -sdel", 2, "");
				break;
			}
	}
}

/* cpio -i extracts into the current directory (anywhere with
 * --absolute-filenames); -p DIR copies into DIR; -o writes its stdout. */
static void rule_cpio(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "CEFHIMORDe";
	struct word here = c->w[0];
	const char *v;
	const struct word *d = opt_value(c, 'D', "--directory", ao, &v);
	size_t idx;

	here.val = ".";
	if (opt_short(c, 'i', ao) || opt_long(c, "--extract"))
		paths_write(x, d ? d : &here, d ? v : ".", shell_span_words(x, c->w, c->n));
	else if ((opt_short(c, 'p', ao) || opt_long(c, "--pass-through")) &&
	         opt_operands(c, 1, ao, &idx, 1))
		paths_write(x, &c->w[idx], c->w[idx].val, shell_span_word(x, &c->w[idx]));
	if (opt_long(c, "--absolute-filenames"))
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
		        "cpio --absolute-filenames writes members anywhere on the machine");
}

/* yq -i EXPR FILE... rewrites its files in place; --split-exp EXPR
 * writes each document to a file EXPR names from the data (../ and all).
 * Its short -s is not read: Debian's yq (the jq wrapper) takes -s for
 * --slurp. */
static void rule_yq(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "", idx, nitems(idx));
	const char *v;
	const struct word *s = opt_value(c, 0, "--split-exp", "", &v);

	if (s)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_word(x, s),
		        "yq --split-exp writes files whose names come from the data, known only "
		        "at run time");

	if (opt_short(c, 'i', "") || opt_long(c, "--inplace"))
		for (size_t i = 1; i < n; i++)
			paths_write(x, &c->w[idx[i]], c->w[idx[i]].val, shell_span_word(x, &c->w[idx[i]]));
}

/* unzip [-d DIR]; zip ARCHIVE files; gzip and friends work in place. */
static void rule_unzip(struct cctx *x, struct cmdv *c)
{
	const struct word *a;
	const char *val;
	const struct word *d = opt_value(c, 'd', NULL, "dxP", &val);
	struct word here = c->w[0];

	if ((a = opt_first(c, "dxP", NULL)) != NULL)
		paths_read(x, a, a->val); /* the archive, whatever the mode */
	if (opt_short(c, 'l', "dxP") || opt_short(c, 't', "dxP") || opt_short(c, 'p', "dxP") ||
	    opt_short(c, 'c', "dxP"))
		return; /* lists, tests or prints: writes nothing */
	here.val = ".";
	paths_write(x, d ? d : &here, d ? val : ".", shell_span_words(x, c->w, c->n));
}

static void rule_zip(struct cctx *x, struct cmdv *c)
{
	const struct word *a = opt_first(c, "bnt", NULL), *w;
	const char *v;

	/* -TT CMD / --unzip-command CMD: the command line is judged */
	if ((w = opt_value(c, 0, "--unzip-command", NULL, &v)) != NULL)
		rules_hook(x, w, v, strlen(v), "zip --unzip-command runs a test program");
	for (size_t i = 1; w == NULL && i + 1 < c->n; i++)
		if (strcmp(c->w[i].val, "-TT") == 0) {
			w = &c->w[i + 1];
			rules_hook(x, w, w->val, strlen(w->val), "zip -TT runs a test program");
		}
	if (w == NULL && opt_short(c, 'T', "bnt"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "zip -T/-TT runs a test program");
	if (a == NULL)
		return;
	paths_write(x, a, a->val, shell_span_word(x, a));
	/* the files it packs are read (zip -r x.zip secrets) */
	size_t idx[64], n = opt_operands(c, 1, "bnt", idx, nitems(idx));
	for (size_t i = 1; i < n; i++)
		paths_read(x, &c->w[idx[i]], c->w[idx[i]].val);
	if (opt_short(c, 'm', "bnt") || opt_long(c, "--move"))
		archive_members_delete(x, c, "zip -m", 1, "bnt");
}

static void rule_inplace(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "S", idx, nitems(idx));
	bool out = opt_short(c, 'c', "S") || opt_long(c, "--stdout") || opt_short(c, 'l', "S") ||
	           opt_short(c, 't', "S");

	for (size_t i = 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		if (out)
			paths_read(x, w, w->val);
		else
			paths_write(x, w, w->val, shell_span_word(x, w));
	}
	if (!out) /* ls | xargs gzip: files named at run time replaced */
		rules_dyn_writes(x, c, "replaces");
}

/* sort -o FILE, patch -o FILE: write what they name; sort
 * --compress-program runs a program. */
/* sort, shuf and info -o FILE / --output=FILE write FILE. */
static void rule_outfile(struct cctx *x, struct cmdv *c)
{
	const char *val, *ao = strcmp(c->prog, "sort") == 0 ? "otTkS"
	                       : strcmp(c->prog, "shuf") == 0 ? "inoR" : "dfnoO";
	const struct word *o = opt_value(c, 'o', "--output", ao, &val);

	if (o)
		paths_write(x, o, val, shell_span_word(x, o));
	if (strcmp(c->prog, "sort") == 0 && opt_long(c, "--compress-program"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "sort --compress-program runs another program");
}

/* Programs whose second operand is the file they write (uniq IN OUT, xxd
 * [-r] IN OUT), and their options that take a value. */
static const struct {
	const char *prog, *argopts;
} in_out[] = {{"uniq", "fsw"}, {"xxd", "clogsn"}};

static void rule_in_out(struct cctx *x, struct cmdv *c)
{
	size_t idx[2];

	for (size_t i = 0; i < nitems(in_out); i++)
		if (strcmp(c->prog, in_out[i].prog) == 0 &&
		    opt_operands(c, 1, in_out[i].argopts, idx, 2) == 2)
			paths_write(x, &c->w[idx[1]], c->w[idx[1]].val,
			            shell_span_word(x, &c->w[idx[1]]));
}

/* iconv -o FILE / --output=FILE */
static void rule_iconv(struct cctx *x, struct cmdv *c)
{
	const char *val;
	const struct word *o = opt_value(c, 'o', "--output", "fto", &val);

	if (o)
		paths_write(x, o, val, shell_span_word(x, o));
}

/* history -w|-a FILE writes the history there; -r|-n FILE reads it. */
static void rule_history(struct cctx *x, struct cmdv *c)
{
	const struct word *f = opt_first(c, "", NULL);

	if (f && (opt_short(c, 'w', "") || opt_short(c, 'a', "")))
		paths_write(x, f, f->val, shell_span_word(x, f));
	else if (opt_short(c, 'w', "") || opt_short(c, 'a', ""))
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
		        "history -w|-a writes $HISTFILE (~/.bash_history, or any file the script "
		        "named, ~/.bashrc too), known only at run time");
	else if (f && (opt_short(c, 'r', "") || opt_short(c, 'n', "")))
		paths_read(x, f, f->val);
}

/* cowsay|cowthink -f FILE: a cow file is Perl that cowsay runs. */
static void rule_cowsay(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 'f', NULL, "efTW", &v);

	if (w && strchr(v, '/'))
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
		        "%s -f runs the cow file %s, Perl code airlock cannot see", c->w[0].val, v);
}

/* csplit -f PREFIX writes PREFIX00, PREFIX01, ... (xx00 without -f). */
/* split [FILE [PREFIX]]: reads FILE, writes PREFIXaa... (xaa by default);
 * --filter=CMD runs CMD (through $SHELL -c) for each part instead. */
static void rule_split(struct cctx *x, struct cmdv *c)
{
	size_t idx[2], n = opt_operands(c, 1, "albnt", idx, nitems(idx));
	char out[CLS_MAX_PATH];
	const char *v;
	const struct word *f = opt_value(c, 0, "--filter", "albnt", &v);

	if (f)
		rules_hook(x, f, v, strlen(v), "split --filter runs a command for each part");

	if (n > 0 && strcmp(c->w[idx[0]].val, "-") != 0)
		paths_read(x, &c->w[idx[0]], c->w[idx[0]].val);
	if (n > 1 && snprintf(out, sizeof(out), "%saa", c->w[idx[1]].val) < (int)sizeof(out))
		paths_write(x, &c->w[idx[1]], out, shell_span_word(x, &c->w[idx[1]]));
	else if (n < 2)
		paths_write(x, &c->w[0], "xaa", shell_span_words(x, c->w, c->n));
}

static void rule_csplit(struct cctx *x, struct cmdv *c)
{
	const char *val;
	const struct word *f = opt_value(c, 'f', "--prefix", "fbn", &val);
	size_t idx;
	char out[CLS_MAX_PATH];

	if (opt_operands(c, 1, "fbn", &idx, 1))
		paths_read(x, &c->w[idx], c->w[idx].val);
	if (f && snprintf(out, sizeof(out), "%s00", val) < (int)sizeof(out))
		paths_write(x, f, out, shell_span_word(x, f));
	else
		paths_write(x, &c->w[0], "xx00", shell_span_words(x, c->w, c->n));
}

/* mktemp -p DIR, --tmpdir=DIR or a TEMPLATE with a directory create a file
 * there; the default ($TMPDIR or /tmp) is left unrecorded. */
static void rule_mktemp(struct cctx *x, struct cmdv *c)
{
	const char *dir = NULL;
	const struct word *p = opt_value(c, 'p', "--tmpdir", "p", &dir);
	const struct word *t = opt_first(c, "p", NULL);
	char out[CLS_MAX_PATH];

	const struct word *ew;
	const char *env = rules_env(c, "TMPDIR", &ew); /* where -t, --tmpdir or no TEMPLATE go */

	if (p && dir[0] && snprintf(out, sizeof(out), "%s/tmp.XXXXXXXXXX", dir) < (int)sizeof(out))
		paths_write(x, p, out, shell_span_word(x, p));
	else if (t && strchr(t->val, '/'))
		paths_write(x, t, t->val, shell_span_word(x, t));
	else if (env && env[0] && (t == NULL || p || opt_short(c, 't', "p")) &&
	         snprintf(out, sizeof(out), "%s/tmp.XXXXXXXXXX", env) < (int)sizeof(out))
		paths_write(x, ew, out, shell_span_word(x, ew));
}

/* patch [ORIGFILE [PATCHFILE]]: ORIGFILE is the file it rewrites (the
 * diff's names are not), -d DIR where the diff's files are. */
static void rule_patch(struct cctx *x, struct cmdv *c)
{
	static const char ao[] = "dpioBrDFgVYz";
	const char *val;
	const struct word *d = opt_value(c, 'd', "--directory", ao, &val);
	struct word here = c->w[0];
	size_t idx[2], n = opt_operands(c, 1, ao, idx, 2);

	rule_outfile(x, c);
	if (n > 1)
		paths_read(x, &c->w[idx[1]], c->w[idx[1]].val);
	if (opt_long(c, "--dry-run"))
		return;
	if (n) {
		paths_write(x, &c->w[idx[0]], c->w[idx[0]].val, shell_span_word(x, &c->w[idx[0]]));
		return;
	}
	here.val = ".";
	paths_write(x, d ? d : &here, d ? val : ".", shell_span_words(x, c->w, c->n));
}

/* cd changes where later relative paths point; unknown targets make the
 * directory unknown, so later relative writes count as outside. */
static void rule_cd(struct cctx *x, struct cmdv *c)
{
	const struct word *d = opt_first(c, "", NULL);
	char abs[CLS_MAX_PATH];

	if (strcmp(c->prog, "popd") == 0 || (d && strcmp(d->val, "-") == 0) ||
	    (d && (d->flags & (W_DYNAMIC | W_GLOB)))) {
		x->cwd = NULL;
		return;
	}
	if (d == NULL) {
		x->cwd = x->home[0] ? x->home : NULL;
		return;
	}
	x->cwd = paths_resolve(x, d->val, abs, sizeof(abs)) ? arena_strndup(x->a, abs, strlen(abs))
	                                                    : NULL;
}

static void rule_source(struct cctx *x, struct cmdv *c)
{
	const struct word *f = opt_first(c, "", NULL);

	if (f && (f->flags & W_PROCSUB)) {
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, f),
		        "sources the output of another command as a script");
		return;
	}
	if (f && (strcmp(f->val, "/dev/stdin") == 0 || strcmp(f->val, "/dev/fd/0") == 0 ||
	          strcmp(f->val, "/proc/self/fd/0") == 0)) {
		unwrap_stdin_script(x, c, true, c->w[0].val); /* . /dev/stdin <<< "..." */
		return;
	}
	if (f)
		paths_read(x, f, f->val);
	cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
	        "runs a script (%s) in the current shell", f ? f->val : "stdin");
	if (f)
		shell_files_run(x, f, "sh");
}

/* Text an editor command or a pager option runs through the shell: what
 * follows the first '!' (vim -c ':!rm -rf /', +'r !curl ...'); man -P CMD
 * runs CMD whole. */
static void shell_text_of(struct cctx *x, const struct word *w, const char *cmd, bool bang)
{
	const char *p = bang ? strchr(cmd, '!') : cmd;
	struct buf b;
	int k = 0;

	if (p == NULL || (bang && p[1] == '\0'))
		return; /* :q! and :wq! run nothing */
	if (w->flags & (W_DYNAMIC | W_GLOB)) {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
		        "%s runs a command that is only known at run time", cmd);
		return;
	}
	if (!bang) {
		shell_script_text(x, p, strlen(p), shell_span_word(x, w));
		return;
	}
	/* every '!' may start the shell text (sil! !CMD, e! | !CMD, r!CMD),
	 * which may read the buffer (w !sh, %!sh): each judged as `cat | CMD` */
	buf_init(&b, 0);
	for (; p && p[1] && k < 8; p = strchr(p + 1, '!'), k++) {
		b.len = 0;
		buf_puts(&b, "cat | ");
		buf_puts(&b, p + 1);
		shell_script_text(x, b.data, b.len, shell_span_word(x, w));
	}
	buf_free(&b);
}

/* ed and ex command lines from stdin: each line's text after a '!' (!CMD,
 * r !CMD, w !CMD) runs through the shell. Known text is read line by
 * line; unknown piped text may hold any command. */
static void ex_stdin(struct cctx *x, const struct cmdv *c)
{
	const char *p = c->in_text, *end = p ? p + c->in_len : NULL;

	if (c->in == IN_PIPE && p == NULL)
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, &c->w[0]),
		        "pipes commands into %s, whose ! lines run in a shell", c->w[0].val);
	if (c->in == IN_FILE)
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[0]),
		        "%s runs commands from a file airlock cannot see", c->w[0].val);
	for (; p && p < end; p++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *bang;
		nl = nl ? nl : end;
		bang = memchr(p, '!', (size_t)(nl - p));
		if (bang && bang + 1 < nl)
			shell_script_text(x, bang + 1, (size_t)(nl - bang - 1), c->in_span);
		p = nl;
	}
}

/* vim -c CMD, --cmd CMD, +CMD: ex commands, of which :!CMD runs a shell;
 * ex, and vim -e/-E/-es, read more of them from stdin. */
/* Vim commands that run code other than !CMD, or write a file it names
 * (:w FILE, :saveas FILE): the script interfaces
 * (:py3, :lua, ...: that language's code), :terminal CMD, and calls of
 * system(), systemlist(), job_start(), jobstart(), termopen() (their
 * literal command line is judged, as in inline code). */
static void vim_code(struct cctx *x, const struct word *w, const char *cmd)
{
	static const struct {
		const char *cmd, *lang;
	} ifaces[] = {{"py3 ", "python"}, {"python3 ", "python"}, {"py ", "python"},
		{"python ", "python"}, {"pyx ", "python"}, {"py3do ", "python"}, {"lua ", "lua"},
		{"luado ", "lua"}, {"perl ", "perl"}, {"perldo ", "perl"}, {"ruby ", "ruby"},
		{"rubydo ", "ruby"}};
	static const char *const calls[] = {"system(", "systemlist(", "job_start(", "jobstart(",
	                                    "termopen("};
	static const char *const writes[] = {"w ", "w! ", "write ", "write! ", "wq ", "wq! ",
	                                     "x ", "sav ", "saveas ", "up ", "update "};
	struct span sp = shell_span_word(x, w);

	if (w->flags & (W_DYNAMIC | W_GLOB))
		return; /* shell_text_of says so */
	cmd += strspn(cmd, ": \t");
	for (size_t i = 0; i < nitems(ifaces); i++)
		if (strncmp(cmd, ifaces[i].cmd, strlen(ifaces[i].cmd)) == 0) {
			cmd += strlen(ifaces[i].cmd);
			code_scan(x, ifaces[i].lang, cmd, strlen(cmd), sp);
			return;
		}
	for (size_t i = 0; i < nitems(writes); i++) {
		size_t l = strlen(writes[i]);
		const char *f;
		if (strncmp(cmd, writes[i], l) != 0)
			continue; /* cmd may be shorter than l: nothing past it is read */
		f = cmd + l + strspn(cmd + l, " \t");
		if (*f && *f != '!') {
			f = arena_strndup(x->a, f, strcspn(f, " \t|"));
			paths_write(x, w, f, sp); /* :w FILE, :saveas FILE */
			return;
		}
	}
	if (strncmp(cmd, "terminal ", 9) == 0 || strncmp(cmd, "ter ", 4) == 0) {
		cmd = strchr(cmd, ' ') + 1;
		shell_script_text(x, cmd, strlen(cmd), sp);
		return;
	}
	for (size_t i = 0; i < nitems(calls); i++) {
		const char *p = strstr(cmd, calls[i]), *e;
		if (p == NULL)
			continue;
		cls_add(x, TIER_HIGH, "exec.inline_code.spawn", sp, "the vim command starts a "
		        "program (%s)", calls[i]);
		p += strlen(calls[i]);
		p += strspn(p, " ");
		if ((*p == '"' || *p == '\'') && (e = strchr(p + 1, *p)) != NULL && e > p + 1)
			shell_script_text(x, p + 1, (size_t)(e - p - 1), sp);
	}
}

/* vim --remote-send KEYS and --remote-expr EXPR (nvim --server ADDR too)
 * hand them to a vim already running, outside the sandbox: typed keys run
 * as its commands (`:!CMD<CR>`), an expression may call system(). */
static bool vim_remote(struct cctx *x, const struct cmdv *c, size_t i)
{
	const struct word *w = &c->w[i + 1];
	bool keys = strcmp(c->w[i].val, "--remote-send") == 0;
	const char *v = w->val, *end = v;

	if (!keys && strcmp(c->w[i].val, "--remote-expr") != 0)
		return false;
	cls_add(x, TIER_HIGH, "exec.daemon", shell_span_words(x, c->w + i, 2),
	        "%s hands commands to a running vim, which runs them outside the sandbox",
	        c->w[i].val);
	if (!keys) {
		vim_code(x, w, v);
		return true;
	}
	/* each typed line: up to <CR> (or <Enter>, <NL>) */
	for (; *end; v = end) {
		for (end = v; *end; end++)
			if (*end == '<' && (strncasecmp(end, "<cr>", 4) == 0 ||
			                    strncasecmp(end, "<enter>", 7) == 0 ||
			                    strncasecmp(end, "<nl>", 4) == 0))
				break;
		const char *line = arena_strndup(x->a, v, (size_t)(end - v));
		shell_text_of(x, w, line, true);
		vim_code(x, w, line);
		if (*end)
			end = strchr(end, '>') + 1;
	}
	return true;
}

/* vim -u VIMRC, -S SESSION, nvim -l SCRIPT, and :source, :luafile,
 * :pyfile ... in a -c command: a script file airlock cannot see. */
static void editor_script(struct cctx *x, const struct word *w, const char *file)
{
	static const char *const none[] = {"NONE", "NORC", "DEFAULTS"};

	for (size_t i = 0; i < nitems(none); i++)
		if (strcmp(file, none[i]) == 0)
			return;
	cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, w),
	        "runs the vim script %s, which airlock cannot see", file);
}

static void editor_source(struct cctx *x, const struct word *w, const char *cmd)
{
	static const char *const srcs[] = {"so ", "source ", "luafile ", "pyfile ", "py3file ",
	                                   "pyxfile ", "rubyfile ", "perlfile ", "runtime "};

	cmd += strspn(cmd, ": \t");
	for (size_t i = 0; i < nitems(srcs); i++)
		if (strncmp(cmd, srcs[i], strlen(srcs[i])) == 0)
			editor_script(x, w, cmd + strlen(srcs[i]));
}

static void rule_editor(struct cctx *x, struct cmdv *c)
{
	bool ex = strcmp(c->prog, "ex") == 0;

	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0)
			break;
		if (i + 1 < c->n && vim_remote(x, c, i)) {
			i++;
			continue;
		}
		size_t al = strlen(a);
		/* -c CMD, also at the end of a cluster (ex -sc CMD) */
		bool dash_c = strcmp(a, "--cmd") == 0 ||
		              (a[0] == '-' && al > 1 && a[1] != '-' && a[al - 1] == 'c' &&
		               strspn(a + 1, "bcdeEhlmMnNRrsZ") == al - 1);
		if (dash_c && i + 1 < c->n) {
			shell_text_of(x, &c->w[i + 1], c->w[i + 1].val, true);
			vim_code(x, &c->w[i + 1], c->w[i + 1].val);
			editor_source(x, &c->w[i + 1], c->w[i + 1].val);
		} else if (a[0] == '+' && a[1]) {
			shell_text_of(x, &c->w[i], a + 1, true);
			vim_code(x, &c->w[i], a + 1);
			editor_source(x, &c->w[i], a + 1);
		} else if ((strcmp(a, "-u") == 0 || strcmp(a, "-S") == 0 ||
		            (strcmp(a, "-l") == 0 && strcmp(c->prog, "nvim") == 0)) &&
		           i + 1 < c->n && c->w[i + 1].val[0] != '-') {
			editor_script(x, &c->w[i + 1], c->w[i + 1].val);
		}
		else if (a[0] == '-' && a[1] != '-' && strpbrk(a + 1, "eE") &&
		         strspn(a + 1, "eEsnRZMl") == strlen(a + 1))
			ex = true;
	}
	if (ex && c->in != IN_NONE)
		ex_stdin(x, c);
}

/* emacs --eval EXPR runs Emacs Lisp (scanned as elisp code); -l, --load,
 * --script and -x FILE run a file airlock cannot see. emacsclient -e
 * hands its operands, each an expression, to an emacs already running,
 * outside the sandbox (exec.daemon). */
/* emacs -f|--funcall FUNC calls FUNC, Lisp as (FUNC) is: it was low,
 * whatever it named. The package manager's commands (package-install,
 * package-refresh-contents, package-upgrade-all, package-vc-install ...)
 * fetch from the archives and install into the user's emacs.d. */
static void emacs_funcall(struct cctx *x, const struct word *w, const char *f)
{
	char code[128];
	struct span sp = shell_span_word(x, w);

	if (w->flags & (W_DYNAMIC | W_GLOB))
		cls_add(x, TIER_HIGH, "exec.dynamic_command", sp,
		        "emacs calls a function known only at run time");
	snprintf(code, sizeof(code), "(%s)", f);
	code_scan(x, "elisp", code, strlen(code), sp);
	if (strncmp(f, "package-", 8) == 0 && strcmp(f, "package-initialize") != 0)
		cls_add(x, TIER_HIGH, "pkg.install", sp,
		        "emacs %s fetches or installs packages from the archives", f);
}

static void rule_emacs(struct cctx *x, struct cmdv *c)
{
	static const char *const loads[] = {"-l", "--load", "-load", "--script", "-script", "-x"};
	bool client = strcmp(c->prog, "emacsclient") == 0;
	bool eval = client && (opt_short(c, 'e', "asfTdF") || opt_long(c, "--eval"));
	size_t idx[16], n;

	if (eval)
		cls_add(x, TIER_HIGH, "exec.daemon", shell_span_words(x, c->w, c->n),
		        "emacsclient -e hands Lisp to an emacs already running, which runs it "
		        "outside the sandbox");
	for (size_t i = 1; i < c->n && !client; i++) {
		const char *a = c->w[i].val, *v = NULL;
		if ((opt_long_is(a, "--eval", &v) || strcmp(a, "-eval") == 0 ||
		     opt_long_is(a, "--execute", &v)) && (v || i + 1 < c->n)) {
			i += v == NULL;
			v = v ? v : c->w[i].val;
			code_scan(x, "elisp", v, strlen(v), shell_span_word(x, &c->w[i]));
			continue;
		}
		if ((strcmp(a, "-f") == 0 || strcmp(a, "-funcall") == 0 ||
		     opt_long_is(a, "--funcall", &v)) && (v || i + 1 < c->n)) {
			i += v == NULL;
			emacs_funcall(x, &c->w[i], v ? v : c->w[i].val);
			continue;
		}
		for (size_t k = 0; k < nitems(loads); k++)
			if (strcmp(a, loads[k]) == 0 || (strncmp(a, loads[k], strlen(loads[k])) == 0 &&
			                                 a[strlen(loads[k])] == '=' && a[1] == '-'))
				cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[i]),
				        "emacs %s runs Lisp from a file airlock cannot see", a);
	}
	n = client ? opt_operands(c, 1, "asfTdF", idx, nitems(idx)) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		if (eval)
			code_scan(x, "elisp", w->val, strlen(w->val), shell_span_word(x, w));
		else /* FILE: visited in the running emacs, to be changed */
			paths_write(x, w, w->val, shell_span_word(x, w));
	}
}

static void rule_ed(struct cctx *x, struct cmdv *c)
{
	ex_stdin(x, c);
}

/* man -P CMD / --pager=CMD, and -HCMD / --html=CMD (the browser; its
 * value is optional, so only an attached one counts): CMD is run. */
static void rule_man(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 'P', "--pager", "PMSmLrEICR", &v);

	if (w)
		shell_text_of(x, w, v, false);
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const char *a = c->w[i].val;
		if (strncmp(a, "-H", 2) == 0 && a[2])
			shell_text_of(x, &c->w[i], a + 2, false);
		else if (opt_long_is(a, "--html", &v) && v)
			shell_text_of(x, &c->w[i], v, false);
	}
}

#define LESS_ARGOPTS "bhjpPtxyzkoO" /* less's short options that take a value */

/* less +CMD (and +CMD in $LESS) runs CMD as if typed: `!CMD` and `|mCMD`
 * run CMD through the shell. A lesskey file (-k, LESSKEY...) can set
 * LESSOPEN, a command less runs, and is not read. */
void rules_less_cmds(struct cctx *x, const struct word *w, const char *a)
{
	const char *p = strpbrk(a, "!|");

	if (p == NULL || a[1] == '/' || a[1] == '?')
		return; /* +/pattern searches: the rest is the pattern */
	p += *p == '|' && p[1] ? 2 : 1; /* |m: pipe to CMD from mark m */
	rules_hook(x, w, p, strlen(p), "less runs a shell command given with +");
}

static void rule_less(struct cctx *x, struct cmdv *c)
{
	static const char *const keyenv[] = {"LESSKEY", "LESSKEYIN", "LESSKEY_SRC",
	                                     "LESSKEY_CONTENT"};
	const struct word *env;
	const char *v;

	/* LESS=+!CMD set for it is judged with every command's variables
	 * (rules_env_command): git log, man and the like start less too */
	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		if (c->w[i].val[0] == '+')
			rules_less_cmds(x, &c->w[i], c->w[i].val);
	for (size_t i = 0; i < nitems(keyenv); i++)
		if (rules_env(c, keyenv[i], &env))
			cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_word(x, env),
			        "%s names a lesskey file, which can set commands less runs", keyenv[i]);
	if (opt_value(c, 'k', "--lesskey-file", LESS_ARGOPTS, &v) ||
	    opt_long(c, "--lesskey-src") || opt_long(c, "--lesskey-content"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "a lesskey file can set commands less runs");
	for (size_t i = 1; i < c->n; i++) { /* -o, -O, --log-file FILE: a copy of its input */
		size_t j = i;
		const struct word *w = opt_value_at(c, &j, 'o', "--log-file", LESS_ARGOPTS, &v);
		if (w == NULL) {
			j = i; /* both from the same word: the first may have moved past it */
			w = opt_value_at(c, &j, 'O', "--LOG-FILE", LESS_ARGOPTS, &v);
		}
		if (w)
			paths_write(x, w, v, shell_span_word(x, w));
		i = j;
	}
}

/* tree -o FILE writes the listing there. */
static void rule_tree(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *o = opt_value(c, 'o', NULL, "LPIHoT", &v);

	if (o)
		paths_write(x, o, v, shell_span_word(x, o));
}

/* bat --pager CMD (and BAT_PAGER) runs CMD on its output when it pages. */
static void rule_bat(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *p = opt_value(c, '\0', "--pager", "lLrmp", &v);

	if (p)
		rules_hook(x, p, v, strlen(v), "bat --pager runs another program");
}

/* rename (Debian's, File::Rename) [-e|-E CODE]... CODE FILES: CODE is Perl
 * run on each name (it may call system()), and FILES are renamed: writes.
 * util-linux's rename FROM TO FILES reads the same way, FROM as code. */
static void rule_rename(struct cctx *x, struct cmdv *c)
{
	size_t idx[64], n = opt_operands(c, 1, "eEm", idx, nitems(idx)), first = 1;
	bool dry = opt_short(c, 'n', "eEm") || opt_long(c, "--nono") || opt_long(c, "--no-act");
	const char *v;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		size_t j = i;
		const struct word *w = opt_value_at(c, &j, 'e', NULL, "eEm", &v);
		if (w == NULL) /* the first call stepped past -E's value: start again */
			w = opt_value_at(c, &i, 'E', NULL, "eEm", &v);
		else
			i = j;
		if (w) {
			code_scan(x, "perl", v, strlen(v), shell_span_word(x, w));
			first = 0;
		}
	}
	if (first && n)
		code_scan(x, "perl", c->w[idx[0]].val, c->w[idx[0]].len, shell_span_word(x, &c->w[idx[0]]));
	for (size_t i = first; i < n && !dry; i++)
		paths_write(x, &c->w[idx[i]], c->w[idx[i]].val, shell_span_word(x, &c->w[idx[i]]));
}

/* dc text: `!` outside a [string] runs the rest of its line through the
 * shell (GNU dc; `!<`, `!>` and `!=` are comparisons). */
static void dc_text(struct cctx *x, const struct word *w, const char *t, size_t len)
{
	int depth = 0;

	for (const char *p = t, *end = t + len; p < end; p++) {
		depth += *p == '[';
		depth -= *p == ']' && depth > 0;
		if (*p != '!' || depth || (p + 1 < end && strchr("<>=", p[1])))
			continue;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		rules_hook(x, w, p + 1, (size_t)(nl - p - 1), "dc's ! runs a shell command");
		p = nl;
	}
}

/* dc -e|--expression TEXT, a here-document or known piped text are read
 * for `!`; a program file (-f, an operand) or unknown piped text may hold
 * any command. */
static void rule_dc(struct cctx *x, struct cmdv *c)
{
	size_t idx[1];
	const char *v;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++) {
		const struct word *w = opt_value_at(c, &i, 'e', "--expression", "ef", &v);
		if (w && (w->flags & (W_DYNAMIC | W_GLOB)))
			rules_hook(x, w, v, 0, "dc runs text known only at run time, whose ! runs "
			           "a shell command");
		else if (w)
			dc_text(x, w, v, strlen(v));
	}
	if (opt_value(c, 'f', "--file", "ef", &v) || opt_operands(c, 1, "ef", idx, 1))
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_words(x, c->w, c->n),
		        "dc runs a program file airlock cannot see (its ! runs shell commands)");
	if (c->in_text)
		dc_text(x, &c->w[0], c->in_text, c->in_len);
	else if (c->in == IN_PIPE)
		cls_add(x, TIER_HIGH, "exec.pipe_to_shell", shell_span_word(x, &c->w[0]),
		        "pipes text into dc, whose ! runs shell commands");
	else if (c->in == IN_FILE)
		cls_add(x, x->o->unknown_program, "exec.script", shell_span_word(x, &c->w[0]),
		        "dc runs a program file airlock cannot see (its ! runs shell commands)");
}

/* date -s|--set changes the system clock (certificates, tokens, make). */
static void rule_date(struct cctx *x, struct cmdv *c)
{
	const char *v;

	if (opt_value(c, 's', "--set", "dfIRsr", &v))
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
		        "sets the system clock");
}

/* printenv NAME: the value of a credential variable. */
static void rule_printenv(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (secrets_env_name(c->w[i].val, c->w[i].len))
			cls_add(x, TIER_HIGH, "secrets.read", shell_span_word(x, &c->w[i]),
			        "prints %s, an environment variable that holds a credential",
			        c->w[i].val);
}

/* alias NAME=VALUE: VALUE runs wherever NAME is used (interactive shells,
 * zsh, expand_aliases), so it is judged as a script now. */
static void rule_alias(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *eq = strchr(c->w[i].val, '=');
		if (eq)
			shell_script_text(x, eq + 1, strlen(eq + 1), shell_span_word(x, &c->w[i]));
		if (eq && !(c->w[i].flags & (W_DYNAMIC | W_GLOB)))
			shell_alias_note(x, c->w[i].val, (size_t)(eq - c->w[i].val), eq + 1);
	}
}

/* gpg: exporting secret keys or decrypting prints secrets; macOS security
 * find-*-password -w/-g prints a stored password. Other uses stay what
 * an unknown program is. */
/* True when this gpg or security word makes the program print a secret. */
static bool key_leak(const struct cmdv *c, bool gpg, const char *a)
{
	if (gpg)
		return opt_long_is(a, "--export-secret-keys", NULL) ||
		       opt_long_is(a, "--export-secret-subkeys", NULL) ||
		       opt_long_is(a, "--decrypt", NULL) ||
		       strcmp(a, "-d") == 0;
	return strcmp(a, "dump-keychain") == 0 ||
	       (strstr(a, "-password") && (opt_short(c, 'w', "") || opt_short(c, 'g', "")));
}

/* gpg options that reach a key server or fetch a key by URL. */
static bool gpg_keyserver(const struct cmdv *c)
{
	static const char *const net[] = {"--recv-keys", "--receive-keys", "--refresh-keys",
		"--send-keys", "--search-keys", "--fetch-keys", "--locate-keys", "--locate-external-keys",
		"--auto-key-locate"};

	for (size_t i = 0; i < nitems(net); i++)
		if (opt_long(c, net[i]))
			return true;
	return false;
}

/* gpg --delete-*-keys destroys keys (a private key is gone for good);
 * -o|--output FILE writes FILE; --photo-viewer CMD runs CMD. Returns true
 * when one of them was found. */
static bool gpg_effects(struct cctx *x, const struct cmdv *c)
{
	static const char *const dels[] = {"--delete-keys", "--delete-key", "--delete-secret-keys",
		"--delete-secret-key", "--delete-secret-and-public-keys",
		"--delete-secret-and-public-key"};
	const char *v;
	const struct word *w = opt_value(c, 'o', "--output", "ourf", &v);
	bool found = w != NULL;

	if (w)
		paths_write(x, w, v, shell_span_word(x, w));
	for (size_t i = 0; i < nitems(dels); i++)
		if (opt_long(c, dels[i])) {
			cls_add(x, TIER_HIGH, "fs.delete", shell_span_words(x, c->w, c->n),
			        "%s deletes keys from the keyring", dels[i]);
			found = true;
			break;
		}
	if ((w = opt_value(c, 0, "--photo-viewer", NULL, &v)) != NULL) {
		rules_hook(x, w, v, strlen(v), "gpg --photo-viewer runs a command");
		found = true;
	}
	return found;
}

static void rule_keys(struct cctx *x, struct cmdv *c)
{
	bool gpg = strncmp(c->prog, "gpg", 3) == 0, leak = false;
	bool seen = gpg && gpg_effects(x, c);

	for (size_t i = 1; i < c->n && !leak; i++)
		leak = key_leak(c, gpg, c->w[i].val);
	if (leak)
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
		        "%s prints secret keys or passwords", c->w[0].val);
	else if (gpg && gpg_keyserver(c))
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
		        "%s talks to a key server", c->w[0].val);
	else if (!seen)
		cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_word(x, &c->w[0]),
		        "runs '%s', whose other uses airlock does not judge", c->w[0].val);
}

/* set [-+OPTIONS] [-o NAME] [--] ARGS: ARGS become $1, $2... Options end at
 * the first word that is not one, after --, or after a lone - (which also
 * turns -x and -v off). */
static void rule_set(struct cctx *x, struct cmdv *c)
{
	size_t i = 1;

	for (; i < c->n && (c->w[i].val[0] == '-' || c->w[i].val[0] == '+'); i++) {
		const char *v = c->w[i].val;
		if (strcmp(v, "--") == 0 || strcmp(v, "-") == 0) {
			i++;
			break;
		}
		if (strchr(v, 'o') && i + 1 < c->n) /* -o NAME, -euo NAME */
			i++;
	}
	if (i < c->n)
		shell_var_args(x, c->w + i, c->n - i);
}

/* export/declare/local/readonly NAME=VALUE; an exported editor, pager or
 * ssh command runs in later commands, and GIT_CONFIG_*, GIT_DIR and
 * GIT_WORK_TREE point every later git elsewhere. */
static void rule_export(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *eq = strchr(c->w[i].val, '=');
		if (eq == NULL)
			continue;
		shell_check_assign(x, &c->w[i], false);
		shell_var_assign(x, &c->w[i]);
		rules_env_command(x, &c->w[i], (size_t)(eq - c->w[i].val));
		rules_git_export(x, &c->w[i], (size_t)(eq - c->w[i].val));
		rules_make_export(x, &c->w[i], eq + 1);
	}
}

/* hostname NAME sets the host name; without one it only prints. */
static void rule_hostname(struct cctx *x, struct cmdv *c)
{
	const struct word *w = opt_first(c, "F", NULL);

	if (w || opt_short(c, 'F', "F") || opt_long(c, "--file"))
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
		        "changes the host name");
}

/*
 * grep, rg and friends: -f FILE reads patterns from FILE, and with -e or
 * -f given the first operand is a file to search, not the pattern the
 * table skips (grep -e x secrets/a reads secrets/a).
 */
static void rule_grep(struct cctx *x, struct cmdv *c)
{
	const char *argopts = strcmp(c->prog, "rg") == 0 ? "efgmABCtTMjE" : "efmABCdD", *v;
	const struct word *f = opt_value(c, 'f', "--file", argopts, &v);
	size_t idx;

	if (f && strcmp(v, "-") != 0)
		paths_read(x, f, v);
	if ((f || opt_value(c, 'e', "--regexp", argopts, &v)) &&
	    opt_operands(c, 1, argopts, &idx, 1) == 1)
		paths_read(x, &c->w[idx], c->w[idx].val);
}

static void rule_rg(struct cctx *x, struct cmdv *c)
{
	rule_grep(x, c);
	if (opt_long(c, "--pre"))
		cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_words(x, c->w, c->n),
		        "rg --pre runs a program on every file it searches");
}

/* ack --pager=CMD and ag --pager CMD pipe their output into CMD. */
static void rule_pager(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 0, "--pager", NULL, &v);

	if (w)
		rules_hook(x, w, v, strlen(v), "--pager runs a command on the output");
}

#define RO(n, ao) {n, P_READ, ao, TIER_LOW, NULL, NULL, NULL}
#define ROF(n, ao, fn) {n, P_READ, ao, TIER_LOW, NULL, NULL, fn}
#define RO1(n, ao, fn) {n, P_READ | P_SKIP1, ao, TIER_LOW, NULL, NULL, fn}
#define NP(n) {n, 0, NULL, TIER_LOW, NULL, NULL, NULL}
#define WR(n, ao) {n, P_WRITE, ao, TIER_LOW, NULL, NULL, NULL}
#define FN(n, fn) {n, 0, NULL, TIER_LOW, NULL, NULL, fn}

const struct prog rules_fs[] = {
	RO("cat", ""), RO("tac", ""), RO("head", "nc"), RO("tail", "ncs"), ROF("less", LESS_ARGOPTS, rule_less),
	RO("more", "n"), RO("nl", "bdfhilnsvw"), RO("wc", ""), {"sort", P_READ, "otTkS", TIER_LOW, NULL, NULL, rule_outfile},
	{"uniq", P_READ, "fsw", TIER_LOW, NULL, NULL, rule_in_out}, RO("diff", "CDFILSUWx"), RO("cmp", "in"), RO("comm", ""),
	RO("stat", "cf"), RO("du", "BdtX"), RO("df", "Bt"), RO("file", "emfFP"),
	{"tree", P_READ | P_CWD, "LPIHoT", TIER_LOW, NULL, NULL, rule_tree}, RO("od", "AjNtw"), RO("hexdump", "enfsC"), {"xxd", P_READ, "clogsn", TIER_LOW, NULL, NULL, rule_in_out},
	RO("strings", "ntTe"), RO("md5sum", ""), RO("sha1sum", ""), RO("sha256sum", ""),
	RO("sha512sum", ""), RO("b2sum", ""), RO("cksum", ""), RO("base64", "w"),
	RO("zcat", ""), RO("bzcat", ""), RO("xzcat", ""), RO("zless", ""), RO("cut", "bcdf"),
	RO("tr", ""), RO("fold", "w"), RO("expand", "t"), RO("paste", "d"), RO("column", "cstnoR"),
	{"ls", P_READ | P_CWD, "ITw", TIER_LOW, NULL, NULL, NULL},
	{"dir", P_READ | P_CWD, "ITw", TIER_LOW, NULL, NULL, NULL}, RO("realpath", ""), RO("readlink", ""),
	RO("basename", ""), RO("dirname", ""), RO("lsof", ""), {"iconv", P_READ, "fto", TIER_LOW, NULL, NULL, rule_iconv},
	{"view", P_READ, "cSTtquiwWU", TIER_LOW, NULL, NULL, rule_editor},
	{"ex", P_WRITE, "cSTtquiwWU", TIER_LOW, NULL, NULL, rule_editor}, ROF("bat", "lLrmp", rule_bat), RO("fmt", "w"), RO("pr", ""), RO("rev", ""),
	RO("look", ""), RO("namei", ""), RO("getfacl", ""), RO("lsattr", ""), RO("sum", ""),
	RO1("grep", "efmABCdD", rule_grep), RO1("egrep", "efmABCdD", rule_grep),
	RO1("fgrep", "efmABCdD", rule_grep), RO1("rg", "efgmABCtTMjE", rule_rg),
	RO1("ag", "ABCGgm", rule_pager), RO1("ack", "ABC", rule_pager), RO1("jq", "f", NULL),
	RO1("yq", "", rule_yq), FN("csplit", rule_csplit),
	/* test and [ only stat their operands, as [[ ]] does: `[ -f .env ]`
	 * reads no secret (it was secrets.read, high, while [[ -f .env ]] was low) */
	NP("test"), NP("["),
	NP("echo"), NP("printf"), NP("true"), NP("false"), NP(":"), NP("pwd"), NP("sleep"),
	FN("date", rule_date), NP("seq"), NP("yes"), NP("expr"), NP("which"), NP("whereis"), NP("type"),
	NP("whoami"), NP("id"), NP("groups"), NP("uname"), FN("hostname", rule_hostname), NP("uptime"),
	NP("nproc"), NP("free"), NP("ps"), NP("pgrep"), NP("top"), NP("htop"), NP("env"),
	FN("printenv", rule_printenv), NP("locale"), NP("getconf"), NP("tput"), NP("clear"), NP("reset"),
	FN("gpg", rule_keys), FN("gpg2", rule_keys), FN("security", rule_keys),
	FN("history", rule_history), NP("fc"), FN("alias", rule_alias), NP("unalias"), FN("set", rule_set), NP("shopt"), NP("unset"),
	NP("read"), NP("mapfile"), NP("readarray"), NP("wait"), NP("jobs"), NP("fg"), NP("bg"), NP("hash"), NP("help"), NP("compgen"),
	FN("man", rule_man), FN("info", rule_outfile), NP("apropos"), NP("whatis"), NP("lscpu"), NP("lsblk"),
	NP("lsusb"), NP("lspci"), NP("arch"), NP("tty"), NP("stty"), NP("logname"), NP("users"),
	NP("who"), NP("w"), NP("last"), NP("cal"), NP("bc"), FN("dc", rule_dc), NP("factor"),
	NP("numfmt"), {"shuf", P_READ, "inoR", TIER_LOW, NULL, NULL, rule_outfile}, NP("tsort"), FN("export", rule_export), FN("declare", rule_export),
	FN("local", rule_export), FN("readonly", rule_export), FN("typeset", rule_export), NP("let"), NP("return"), NP("exit"), NP("break"),
	NP("continue"), NP("shift"), NP("trap"), NP("umask"), NP("ulimit"), NP("getopts"),
	NP("times"), NP("caller"), NP("disown"), NP("dirs"), FN("mktemp", rule_mktemp), WR("tee", ""),
	NP("vmstat"), NP("iostat"), NP("pidof"), NP("netstat"),
	FN("cowsay", rule_cowsay), FN("cowthink", rule_cowsay), NP("pstree"), NP("uuidgen"),
	{"rm", 0, NULL, TIER_LOW, NULL, NULL, rule_rm},
	{"rmdir", P_WRITE, "", TIER_LOW, NULL, NULL, NULL},
	{"unlink", 0, NULL, TIER_LOW, NULL, NULL, rule_delete},
	{"shred", 0, NULL, TIER_LOW, NULL, NULL, rule_delete},
	{"truncate", 0, NULL, TIER_LOW, NULL, NULL, rule_delete},
	{"srm", 0, NULL, TIER_LOW, NULL, NULL, rule_delete},
	{"wipe", 0, NULL, TIER_LOW, NULL, NULL, rule_delete}, FN("trash", rule_trash),
	FN("trash-put", rule_trash), FN("rmtrash", rule_trash), FN("gio", rule_trash),
	FN("gvfs-trash", rule_trash), FN("rimraf", rule_rimraf), FN("del-cli", rule_rimraf),
	FN("fd", rule_fd), FN("fdfind", rule_fd),
	{"trash-empty", 0, NULL, TIER_HIGH, "fs.delete", "empties the trash for good", NULL},
	FN("find", rule_find), FN("mv", rule_copy), FN("cp", rule_copy), FN("ln", rule_copy),
	FN("install", rule_copy), FN("cd", rule_cd), FN("pushd", rule_cd), FN("popd", rule_cd),
	FN("source", rule_source), FN(".", rule_source),
	WR("touch", "dtr"), WR("mkdir", "m"), WR("mkfifo", "m"), WR("sponge", ""), WR("setfacl", "mMxX"), {"vim", P_WRITE, "cSTtquiwWU", TIER_LOW, NULL, NULL, rule_editor},
	{"vi", P_WRITE, "cSTtquiwWU", TIER_LOW, NULL, NULL, rule_editor},
	{"nvim", P_WRITE, "cSTtquiwWU", TIER_LOW, NULL, NULL, rule_editor}, WR("nano", ""), {"emacs", P_WRITE, "lLfx", TIER_LOW, NULL, NULL, rule_emacs},
	{"emacsclient", 0, NULL, TIER_LOW, NULL, NULL, rule_emacs}, {"ed", P_WRITE, "p", TIER_LOW, NULL, NULL, rule_ed},
	{"red", P_WRITE, "p", TIER_LOW, NULL, NULL, rule_ed}, FN("split", rule_split),
	FN("chmod", rule_chmod), FN("chown", rule_chmod), FN("chgrp", rule_chmod),
	FN("dd", rule_dd), FN("sed", rule_sed), FN("bsdtar", rule_tar), FN("7z", rule_7z),
	FN("7za", rule_7z), FN("7zz", rule_7z), FN("7zr", rule_7z), FN("cpio", rule_cpio), FN("awk", rule_awk), FN("gawk", rule_awk),
	FN("mawk", rule_awk), FN("nawk", rule_awk), FN("tar", rule_tar), FN("unzip", rule_unzip),
	FN("zip", rule_zip), FN("gzip", rule_inplace), FN("gunzip", rule_inplace),
	FN("bzip2", rule_inplace), FN("bunzip2", rule_inplace), FN("xz", rule_inplace),
	FN("unxz", rule_inplace), FN("zstd", rule_inplace), FN("unzstd", rule_inplace),
	FN("patch", rule_patch), FN("rename", rule_rename),
};
const size_t rules_fs_n = nitems(rules_fs);
