/*
 * shell_rules_sys.c: programs that act on the machine rather than on
 * files: disks (sys.disk, critical), processes (sys.kill), power, services,
 * cron and administration. Read-only forms (fdisk -l, systemctl status,
 * crontab -l) stay low.
 */
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static void rule_fdisk(struct cctx *x, struct cmdv *c)
{
	if (opt_short(c, 'l', "") || opt_long(c, "--list") || (c->n > 2 && strcmp(c->w[c->n - 1].val, "print") == 0))
		return;
	cls_add(x, TIER_CRITICAL, "sys.disk", shell_span_words(x, c->w, c->n),
	        "changes the partition table of a disk");
}

/* The pid a kill operand names as the shell's kill reads it: blanks, a
 * sign and decimal digits, leading zeros allowed (-01 is -1). False when it
 * is not a number (a job, %1). */
static bool kill_pid(const char *a, long *pid)
{
	bool neg;
	long v = 0;

	a += strspn(a, " \t");
	neg = *a == '-';
	a += *a == '-' || *a == '+';
	if (*a < '0' || *a > '9')
		return false;
	for (; *a >= '0' && *a <= '9' && v < 100000000; a++)
		v = v * 10 + (*a - '0');
	*pid = neg ? -v : v;
	return *(a + strspn(a, " \t")) == '\0';
}

static void rule_kill(struct cctx *x, struct cmdv *c)
{
	size_t i = 1;
	struct span sp = shell_span_words(x, c->w, c->n);

	if (i < c->n && (strcmp(c->w[i].val, "-s") == 0 || strcmp(c->w[i].val, "-n") == 0))
		i += 2;
	else if (i < c->n && c->w[i].val[0] == '-' && strcmp(c->w[i].val, "--") != 0)
		i++;
	for (; i < c->n; i++) {
		const char *a = c->w[i].val;
		long pid;
		if (strcmp(a, "--") == 0)
			continue;
		if (kill_pid(a, &pid) && (pid == -1 || pid == 1)) {
			cls_add(x, TIER_CRITICAL, "sys.kill.all", sp,
			        "kills every process it may signal, or init");
			return;
		}
	}
	cls_add(x, TIER_MEDIUM, "sys.kill", sp, "signals a process");
}

static void rule_systemctl(struct cctx *x, struct cmdv *c)
{
	static const char ro[] = " status show cat list-units list-unit-files list-timers "
	                         "list-sockets list-dependencies is-active is-enabled is-failed "
	                         "help --version get-default ";
	static const char power[] = " reboot poweroff halt kexec suspend hibernate rescue emergency ";
	const struct word *w = opt_first(c, "HMnopst", NULL);
	char key[64];

	snprintf(key, sizeof(key), " %s ", w ? w->val : "list-units");
	if (strstr(ro, key))
		return;
	if (strstr(power, key))
		cls_add(x, TIER_HIGH, "sys.power", shell_span_words(x, c->w, c->n),
		        "reboots, halts or suspends the machine");
	else
		cls_add(x, TIER_HIGH, "sys.service", shell_span_words(x, c->w, c->n),
		        "starts, stops or changes system services");
}

static void rule_service(struct cctx *x, struct cmdv *c)
{
	if (c->n >= 3 && strcmp(c->w[2].val, "status") == 0)
		return;
	if (c->n == 2 && strcmp(c->w[1].val, "--status-all") == 0)
		return;
	cls_add(x, TIER_HIGH, "sys.service", shell_span_words(x, c->w, c->n),
	        "starts, stops or changes system services");
}

/* A crontab's text: each entry's command, after the five time fields or
 * an @reboot-like one, is judged; cron runs it with sh, outside any
 * sandbox (`echo '* * * * * rm -rf ~' | crontab -` was sys.cron alone,
 * high). Comments and NAME=value lines set nothing that runs. */
static void crontab_text(struct cctx *x, const char *t, size_t n, struct span sp)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) : n, p = i, w;
		int fields = 5;
		while (p < e && (t[p] == ' ' || t[p] == '\t'))
			p++;
		w = p;
		while (w < e && t[w] != ' ' && t[w] != '\t' && t[w] != '=')
			w++;
		if (p == e || t[p] == '#' || (w < e && t[w] == '=')) {
			i = e + 1;
			continue;
		}
		if (t[p] == '@')
			fields = 1;
		for (int f = 0; f < fields && p < e; f++) {
			while (p < e && t[p] != ' ' && t[p] != '\t')
				p++;
			while (p < e && (t[p] == ' ' || t[p] == '\t'))
				p++;
		}
		if (p < e)
			shell_script_text(x, arena_strndup(x->a, t + p, e - p), e - p, sp);
		i = e + 1;
	}
}

static void rule_crontab(struct cctx *x, struct cmdv *c)
{
	const struct word *f = opt_first(c, "u", NULL);

	if (opt_short(c, 'l', "u"))
		return;
	cls_add(x, TIER_HIGH, "sys.cron", shell_span_words(x, c->w, c->n),
	        opt_short(c, 'r', "u") ? "deletes the crontab" : "installs scheduled commands");
	if ((f == NULL || strcmp(f->val, "-") == 0) && c->in_text &&
	    (c->in == IN_DOC || c->in == IN_PIPE))
		crontab_text(x, c->in_text, c->in_len, c->in_span);
}

static void rule_init(struct cctx *x, struct cmdv *c)
{
	if (c->n > 1 && strspn(c->w[1].val, "0123456sS") == c->w[1].len)
		cls_add(x, TIER_HIGH, "sys.power", shell_span_words(x, c->w, c->n),
		        "changes the runlevel (0 halts, 6 reboots)");
}

static void rule_sysctl(struct cctx *x, struct cmdv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (strchr(c->w[i].val, '=') || strcmp(c->w[i].val, "-w") == 0 ||
		    strcmp(c->w[i].val, "-p") == 0) {
			cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
			        "changes kernel parameters");
			return;
		}
}

/* ip's own options (one dash, abbreviated as ip matches them) that take a
 * value, and the commands that change state. A command word is matched
 * as ip matches it, by prefix, and an abbreviation of a changing command
 * counts as it (`ip l s` is link set); later words must be whole (`ip
 * xfrm state deleteall`, `ip mptcp endpoint add`). */
static const char *const ip_valopts[] = {"-family", "-netns", "-batch", "-loops", "-rcvbuf"};
static const char *const ip_writes[] = {"add", "append", "prepend", "change", "chg", "replace",
	"set", "delete", "deleteall", "flush", "restore", "attach", "update", "allocspi",
	"expire", "reset"};

static bool ip_prefix(const char *w, const char *const *list, size_t n, bool abbrev)
{
	size_t l = strlen(w);

	for (size_t i = 0; l && i < n; i++)
		if (abbrev ? strncmp(list[i], w, l) == 0 : strcmp(list[i], w) == 0)
			return true;
	return false;
}

/* ip [OPTIONS] OBJECT [COMMAND ...]: no command is show. `netns exec NAME
 * CMD` and `vrf exec NAME CMD` run CMD (with -all, netns exec has no
 * NAME); -batch FILE runs the ip commands in FILE, unseen. */
static void rule_ip(struct cctx *x, struct cmdv *c)
{
	struct span sp = shell_span_words(x, c->w, c->n);
	bool all = false;
	size_t i = 1;

	for (; i < c->n && c->w[i].val[0] == '-' && c->w[i].len > 1; i++) {
		const char *a = c->w[i].val;
		all |= strcmp(a, "-all") == 0 || strcmp(a, "-a") == 0;
		if (strncmp(a, "-b", 2) == 0 && strncmp("-batch", a, c->w[i].len) == 0) {
			cls_add(x, TIER_HIGH, "sys.admin", sp,
			        "runs the ip commands of a file it cannot see");
			return;
		}
		if (strcmp(a, "-r") != 0 && ip_prefix(a, ip_valopts, nitems(ip_valopts), true))
			i++;
	}
	for (size_t k = i + 1; k < c->n; k++) {
		if (strcmp(c->w[k].val, "exec") == 0) {
			cls_add(x, TIER_HIGH, "sys.admin", sp,
			        "runs a command in another network namespace or VRF");
			rules_subcommand(x, c, k + (all ? 1 : 2), c->n);
			return;
		}
		if (ip_prefix(c->w[k].val, ip_writes, nitems(ip_writes), k == i + 1)) {
			cls_add(x, TIER_HIGH, "sys.admin", sp, "changes network configuration");
			return;
		}
	}
}

/* at and batch run the commands of their stdin later: a here-document or
 * text piped in is judged as the script it is. */
static void rule_at(struct cctx *x, struct cmdv *c)
{
	if (c->in == IN_DOC || c->in == IN_PIPE)
		unwrap_stdin_script(x, c, true, c->prog);
}

/* D-Bus calls on the system bus reach services running as root (logind's
 * Reboot, systemd's StartUnit): busctl uses it unless --user, dbus-send
 * and gdbus with --system. On the session bus they reach the user's
 * services, outside the sandbox. Listing and introspection only look. */
static void rule_dbus(struct cctx *x, struct cmdv *c)
{
	static const char *const looks[] = {"list", "status", "tree", "introspect", "monitor",
	                                    "capture", "help", "--version", "--help", "wait"};
	bool busctl = strcmp(c->prog, "busctl") == 0;
	bool sys = busctl ? !opt_long(c, "--user") : opt_long(c, "--system");
	const struct word *v = opt_first(c, "", NULL);

	for (size_t i = 0; busctl && v && i < nitems(looks); i++)
		if (strcmp(v->val, looks[i]) == 0)
			return;
	if (strcmp(c->prog, "gdbus") == 0 && v && strcmp(v->val, "call") != 0 &&
	    strcmp(v->val, "emit") != 0)
		return;
	if (sys)
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
		        "calls a system service over D-Bus (it runs as root)");
	else /* the user's systemd (StartTransientUnit), gnome-shell's Eval, ... */
		cls_add(x, TIER_HIGH, "exec.daemon", shell_span_words(x, c->w, c->n),
		        "calls a session service over D-Bus, which acts outside the sandbox (the "
		        "user's systemd starts units, the desktop shell evaluates code)");
}

/* ss -K|--kill closes the sockets it lists (every one without a filter:
 * ssh sessions, databases); -D|--diag=FILE writes FILE. */
static void rule_ss(struct cctx *x, struct cmdv *c)
{
	const char *v;
	const struct word *w = opt_value(c, 'D', "--diag", "fFDANs", &v);

	if (opt_short(c, 'K', "fFDANs") || opt_long(c, "--kill"))
		cls_add(x, TIER_HIGH, "sys.kill", shell_span_words(x, c->w, c->n),
		        "ss -K closes the sockets of other processes");
	if (w)
		paths_write(x, w, v, shell_span_word(x, w));
}

static void rule_mount(struct cctx *x, struct cmdv *c)
{
	if (c->n > 1 && strcmp(c->prog, "mount") == 0 && !(c->n == 2 && c->w[1].val[0] == '-' &&
	                                                        strcmp(c->w[1].val, "-a") != 0))
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
		        "mounts or unmounts filesystems");
	else if (strcmp(c->prog, "mount") != 0)
		cls_add(x, TIER_HIGH, "sys.admin", shell_span_words(x, c->w, c->n),
		        "mounts or unmounts filesystems");
}

/* fuser -k kills every process using the files; on / (every process has
 * it as its root directory) or with -m on its filesystem, all of them. */
static void rule_fuser(struct cctx *x, struct cmdv *c)
{
	size_t idx[16], n = opt_operands(c, 1, "", idx, nitems(idx));
	struct span sp = shell_span_words(x, c->w, c->n);
	char abs[CLS_MAX_PATH];

	if (!opt_short(c, 'k', "") && !opt_long(c, "--kill"))
		return;
	for (size_t i = 0; i < n; i++)
		if (paths_resolve(x, c->w[idx[i]].val, abs, sizeof(abs)) && strcmp(abs, "/") == 0) {
			cls_add(x, TIER_CRITICAL, "sys.kill.all", sp,
			        "fuser -k / kills every process on the machine");
			return;
		}
	cls_add(x, TIER_HIGH, "sys.kill", sp, "kills the processes using the files");
}

/* Verb tables for tools whose subcommand decides: one row per (tool,
 * verbs); a verb in no row is low. */
static const struct {
	const char *prog, *verbs; /* space-separated, each matched as a word */
	enum tier tier;
	const char *rule, *why;
} sys_verbs[] = {
	{"zfs", "destroy rollback", TIER_CRITICAL, "sys.disk", "destroys ZFS datasets or snapshots"},
	{"zfs", "create set inherit rename snapshot clone promote receive recv send mount unmount "
	        "umount share unshare allow unallow upgrade load-key change-key",
	 TIER_HIGH, "sys.admin", "changes ZFS datasets"},
	{"nvme", "format sanitize delete-ns detach-ns write-zeroes write-uncor",
	 TIER_CRITICAL, "sys.disk", "erases an NVMe namespace"},
	{"nvme", "create-ns attach-ns set-feature fw-download fw-commit reset subsystem-reset",
	 TIER_HIGH, "sys.admin", "changes an NVMe device"},
	{"mdadm", "--zero-superblock --create -C", TIER_CRITICAL, "sys.disk",
	 "erases or creates RAID metadata on devices"},
	{"mdadm", "--stop -S --remove -r --fail -f --add -a --grow -G --assemble -A --manage",
	 TIER_HIGH, "sys.admin", "changes RAID arrays"},
	{"efibootmgr", "-B --delete-bootnum -c --create -o --bootorder -n --bootnext -a --active "
	               "-A --inactive -O --delete-bootorder -N --delete-bootnext",
	 TIER_HIGH, "sys.admin", "changes the firmware's boot entries"},
	{"btrfs", "delete", TIER_HIGH, "fs.delete.recursive", "deletes btrfs subvolumes"},
	{"btrfs", "create snapshot set-default balance resize add remove replace rescue restore "
	          "defragment defrag --repair --init-csum-tree --init-extent-tree set",
	 TIER_HIGH, "sys.admin", "changes btrfs filesystems"},
	{"tc", "add del delete change replace link", TIER_HIGH, "sys.admin",
	 "changes traffic control (can cut the network)"},
	{"ethtool", "-s --change -K --features --offload -A --pause -C --coalesce -G --set-ring "
	            "-L --set-channels -E --change-eeprom -f --flash -r --negotiate -W --set-dump "
	            "--reset -X --set-rxfh-indir --set-priv-flags",
	 TIER_HIGH, "sys.admin", "changes network device settings or firmware"},
	{"nmcli", "up down delete add modify edit connect disconnect reload off on",
	 TIER_HIGH, "sys.admin", "changes network connections"},
	{"wg-quick", "up down", TIER_HIGH, "sys.admin", "brings a VPN tunnel up or down"},
	{"wg", "set setconf addconf syncconf", TIER_HIGH, "sys.admin", "changes a VPN tunnel"},
	{"loginctl", "terminate-user terminate-session terminate-seat kill-user kill-session",
	 TIER_HIGH, "sys.kill", "ends user sessions and their processes"},
	{"loginctl", "enable-linger disable-linger lock-session lock-sessions attach flush-devices",
	 TIER_HIGH, "sys.admin", "changes login sessions"},
	{"journalctl", "--vacuum-time --vacuum-size --vacuum-files --rotate --flush "
	               "--relinquish-var --setup-keys",
	 TIER_HIGH, "fs.delete", "rotates or deletes the system journal"},
	{"machinectl", "shell login start stop reboot poweroff terminate kill remove clean "
	               "copy-to bind enable disable import-tar import-raw import-fs pull-tar "
	               "pull-raw set-limit",
	 TIER_HIGH, "sys.admin", "runs commands in or changes local containers"},
	{"flashrom", "-w --write -E --erase", TIER_CRITICAL, "sys.disk", "rewrites a firmware chip"},
	{"flashrom", "-r --read", TIER_MEDIUM, "fs.write", "saves a firmware chip to a file"},
	{"mysqladmin", "drop", TIER_CRITICAL, "db.wipe", "drops a whole MySQL database"},
	{"mysqladmin", "shutdown kill password flush-privileges flush-hosts reload refresh create "
	               "start-replica stop-replica start-slave stop-slave",
	 TIER_HIGH, "sys.admin", "changes or stops the MySQL server"},
};

/* w, up to an '=' (--vacuum-time=1d), is a word of list. */
static bool verb_word(const char *list, const char *w)
{
	size_t n = strcspn(w, "=");

	for (const char *p = list; n && *p; p += strspn(p, " ")) {
		size_t l = strcspn(p, " ");
		if (l == n && strncmp(p, w, n) == 0)
			return true;
		p += l;
	}
	return false;
}

/* The strictest row any word of the command matches (options included:
 * mdadm --zero-superblock is its verb). */
static void rule_sys_verbs(struct cctx *x, struct cmdv *c)
{
	size_t best = nitems(sys_verbs);

	for (size_t i = 1; i < c->n; i++)
		for (size_t k = 0; k < nitems(sys_verbs); k++)
			if (strcmp(sys_verbs[k].prog, c->prog) == 0 && verb_word(sys_verbs[k].verbs, c->w[i].val) &&
			    (best == nitems(sys_verbs) || sys_verbs[k].tier > sys_verbs[best].tier))
				best = k;
	if (best < nitems(sys_verbs))
		cls_add(x, sys_verbs[best].tier, sys_verbs[best].rule, shell_span_words(x, c->w, c->n),
		        "%s", sys_verbs[best].why);
}

#define DISK(n, why) {n, 0, NULL, TIER_CRITICAL, "sys.disk", why, NULL}
#define POWER(n) {n, 0, NULL, TIER_HIGH, "sys.power", "shuts down or reboots the machine", NULL}
#define ADMIN(n, why) {n, 0, NULL, TIER_HIGH, "sys.admin", why, NULL}
#define FN(n, fn) {n, 0, NULL, TIER_LOW, NULL, NULL, fn}

/* tmux commands whose last words are a shell command (or, for send-keys,
 * keys typed into a shell), and their options that take a value. */
static const struct {
	const char *cmd, *argopts;
} tmux_cmds[] = {
	{"new-session", "cefFnstxy"}, {"new", "cefFnstxy"}, {"new-window", "ceFnt"},
	{"neww", "ceFnt"}, {"split-window", "celtF"}, {"splitw", "celtF"},
	{"respawn-pane", "cet"}, {"respawnp", "cet"}, {"respawn-window", "cet"},
	{"respawnw", "cet"}, {"run-shell", "cdt"}, {"run", "cdt"}, {"send-keys", "cNt"},
	{"send", "cNt"},
};

/* tmux commands that only show state. */
static const char *const tmux_ro[] = {"ls", "list-sessions", "list-windows", "lsw",
	"list-panes", "lsp", "has-session", "has", "display-message", "display",
	"capture-pane", "capturep", "show-options", "show", "list-keys", "lsk", NULL};

static bool has_word(const char *const *list, const char *w)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], w) == 0)
			return true;
	return false;
}

/* Key names send-keys turns into keys rather than text. */
static bool tmux_key(const char *k)
{
	return strcmp(k, "Enter") == 0 || strcmp(k, "C-m") == 0 || strcmp(k, "KPEnter") == 0 ||
	       strcmp(k, "C-j") == 0;
}

/* tmux [-c CMD] COMMAND [options] [shell-command]: the command runs in a
 * new pane (or is typed into one by send-keys), so it is judged as a
 * script. */
static void rule_tmux(struct cctx *x, struct cmdv *c)
{
	size_t at = 0, end;
	const char *v;
	const struct word *w = opt_value(c, 'c', NULL, "LSfcT", &v);
	struct cmdv sub = *c;

	if (w)
		shell_script_word(x, w); /* tmux -c CMD, as sh -c */
	if (opt_first(c, "LSfcT", &at) == NULL || has_word(tmux_ro, c->w[at].val))
		return;
	for (size_t i = 0; i < nitems(tmux_cmds); i++) {
		if (strcmp(c->w[at].val, tmux_cmds[i].cmd) != 0)
			continue;
		sub.w = c->w + at;
		sub.n = c->n - at;
		if (opt_first(&sub, tmux_cmds[i].argopts, &at) == NULL)
			return;
		end = sub.n;
		while (end > at && tmux_key(sub.w[end - 1].val))
			end--;
		sub.n = end;
		shell_script_words(x, &sub, at);
		return;
	}
	cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_words(x, c->w, c->n),
	        "tmux %s is not a command airlock judges", c->w[at].val);
}

/* The index of the first word "--" from at on, or c->n. */
static size_t dashdash(const struct cmdv *c, size_t at)
{
	while (at < c->n && strcmp(c->w[at].val, "--") != 0)
		at++;
	return at;
}

static void daemon_add(struct cctx *x, const struct cmdv *c, const char *what)
{
	cls_add(x, TIER_HIGH, "exec.daemon", shell_span_words(x, c->w, c->n),
	        "%s hands a command to a daemon already running, which runs it outside "
	        "the sandbox",
	        what);
}

/*
 * Programs that hand a command to a server already running, which runs it
 * outside the sandbox (exec.daemon), the command judged when it is shown.
 * Their other commands only look or manage queued tasks: unknown.
 */
static void daemon_other(struct cctx *x, const struct cmdv *c)
{
	cls_add(x, x->o->unknown_program, "exec.unknown_program", shell_span_words(x, c->w, c->n),
	        "runs %s, whose other commands airlock does not judge", c->prog);
}

/* watchman [-- ]trigger ROOT NAME PATTERN... -- CMD...: CMD at every
 * change; -j reads such a command as JSON from stdin. */
static void rule_watchman(struct cctx *x, struct cmdv *c)
{
	size_t at = 1;

	while (at < c->n && strcmp(c->w[at].val, "trigger") != 0)
		at++;
	if (at == c->n && !opt_short(c, 'j', "") && !opt_long(c, "--json-command"))
		return; /* watch, watch-list, watch-del-all, since, find... */
	daemon_add(x, c, "watchman trigger");
	rules_subcommand(x, c, dashdash(c, at) + 1, c->n);
}

/* pueue add [OPTS] [--] CMD...: the words joined, run by sh -c; restart
 * and edit run a queued command again, maybe edited. */
static void rule_pueue(struct cctx *x, struct cmdv *c)
{
	static const char *const looks[] = {"status", "log", "follow", "help", "--help",
	                                    "--version", NULL};
	size_t at = 0;
	const struct word *v = opt_first(c, "", &at);
	struct cmdv sub = *c;

	if (v == NULL || has_word(looks, v->val))
		return;
	if (strcmp(v->val, "add") != 0 && strcmp(v->val, "restart") != 0 &&
	    strcmp(v->val, "edit") != 0) {
		daemon_other(x, c);
		return;
	}
	daemon_add(x, c, "pueue");
	sub.w += at;
	sub.n -= at;
	if (strcmp(v->val, "add") == 0 && opt_first(&sub, "wdgaol", &at))
		shell_script_words(x, &sub, at + (strcmp(sub.w[at].val, "--") == 0));
}

/* tsp [OPTS] CMD...: task-spooler queues CMD; options alone manage it. */
static void rule_tsp(struct cctx *x, struct cmdv *c)
{
	size_t at = 0;

	if (opt_first(c, "LDNWSrtcpiuUkKC", &at) == NULL)
		return;
	daemon_add(x, c, "tsp");
	rules_subcommand(x, c, at, c->n);
}

/* wezterm cli spawn|split-pane|send-text, zellij run|action, kitty @
 * (launch, send-text, ...): a command run or typed in the terminal's
 * server; what follows -- is the command. */
static void rule_terminal(struct cctx *x, struct cmdv *c)
{
	static const char *const runs[] = {"cli spawn", "cli split-pane", "cli send-text",
	                                   "run", "r", "action", "ac", "@", NULL};
	size_t at = 0;
	const struct word *v = opt_first(c, "", &at);
	char verb[64];

	if (v == NULL) {
		daemon_other(x, c);
		return;
	}
	if (strcmp(v->val, "cli") == 0 && at + 1 < c->n)
		snprintf(verb, sizeof(verb), "cli %s", c->w[at + 1].val);
	else
		snprintf(verb, sizeof(verb), "%s", v->val);
	if (!has_word(runs, verb)) {
		daemon_other(x, c);
		return;
	}
	daemon_add(x, c, c->prog);
	rules_subcommand(x, c, dashdash(c, at) + 1, c->n);
}

/* xdg-mime default|install and xdg-settings set change which program the
 * desktop runs for a file type or URL from now on; query, get and check
 * only look. */
static void rule_handlers(struct cctx *x, struct cmdv *c)
{
	const struct word *v = opt_first(c, "", NULL);

	if (v && (strcmp(v->val, "default") == 0 || strcmp(v->val, "install") == 0 ||
	          strcmp(v->val, "set") == 0 || strcmp(v->val, "uninstall") == 0))
		cls_add(x, TIER_HIGH, "fs.write.persistence", shell_span_words(x, c->w, c->n),
		        "%s %s changes which program the desktop runs from now on", c->prog, v->val);
}

#define DESKTOP(n) {n, 0, NULL, TIER_HIGH, "exec.daemon", "hands a file or URL to the desktop " \
	"session, which opens it outside the sandbox (a .desktop file's Exec line runs)", NULL}

const struct prog rules_sys[] = {
	DESKTOP("xdg-open"), DESKTOP("gtk-launch"), DESKTOP("kioclient"), DESKTOP("kioclient5"),
	DESKTOP("dex"), DESKTOP("sensible-browser"), DESKTOP("x-www-browser"), DESKTOP("exo-open"),
	DESKTOP("kde-open"), DESKTOP("kde-open5"), FN("xdg-mime", rule_handlers),
	FN("xdg-settings", rule_handlers),
	DISK("mkfs", "creates a filesystem, erasing the device"),
	DISK("mke2fs", "creates a filesystem, erasing the device"),
	DISK("mkswap", "formats a device as swap"), DISK("wipefs", "erases filesystem signatures"),
	DISK("blkdiscard", "discards every block of a device"),
	DISK("badblocks", "can overwrite a whole device"), DISK("cryptsetup", "changes disk encryption"),
	DISK("pvcreate", "changes LVM volumes"), DISK("lvremove", "deletes LVM volumes"),
	DISK("vgremove", "deletes LVM volume groups"), DISK("zpool", "changes ZFS pools"),
	DISK("hdparm", "changes or erases disk settings"),
	DISK("pvremove", "erases LVM labels from devices"),
	DISK("lvreduce", "shrinks an LVM volume, cutting off the data past the new end"),
	FN("flashrom", rule_sys_verbs),
	ADMIN("fsck", "repairs filesystems, which can lose data"),
	ADMIN("e2fsck", "repairs filesystems, which can lose data"),
	ADMIN("xfs_repair", "repairs filesystems, which can lose data"),
	ADMIN("debugfs", "edits filesystem structures directly"),
	ADMIN("tune2fs", "changes filesystem settings"), ADMIN("resize2fs", "resizes a filesystem"),
	ADMIN("xfs_growfs", "resizes a filesystem"), ADMIN("e2label", "relabels a filesystem"),
	ADMIN("lvcreate", "changes LVM volumes"), ADMIN("lvextend", "changes LVM volumes"),
	ADMIN("lvresize", "changes LVM volumes"), ADMIN("lvchange", "changes LVM volumes"),
	ADMIN("vgcreate", "changes LVM volume groups"), ADMIN("vgextend", "changes LVM volume groups"),
	ADMIN("vgreduce", "changes LVM volume groups"), ADMIN("vgchange", "changes LVM volume groups"),
	ADMIN("pvmove", "moves LVM data between devices"),
	ADMIN("grub-install", "changes the boot loader"), ADMIN("update-grub", "changes the boot loader"),
	ADMIN("grub-mkconfig", "changes the boot loader"),
	ADMIN("update-initramfs", "rebuilds the boot image"), ADMIN("dracut", "rebuilds the boot image"),
	ADMIN("logrotate", "rotates and deletes logs"),
	ADMIN("systemd-tmpfiles", "creates and deletes files by system rules"),
	ADMIN("pivot_root", "changes the root filesystem"), ADMIN("switch_root", "changes the root filesystem"),
	{"kexec", 0, NULL, TIER_HIGH, "sys.power", "loads or boots into another kernel", NULL},
	FN("btrfs", rule_sys_verbs), FN("tc", rule_sys_verbs), FN("ethtool", rule_sys_verbs),
	FN("nmcli", rule_sys_verbs), FN("wg-quick", rule_sys_verbs), FN("wg", rule_sys_verbs),
	FN("loginctl", rule_sys_verbs), FN("journalctl", rule_sys_verbs),
	FN("machinectl", rule_sys_verbs),
	FN("fdisk", rule_fdisk), FN("sfdisk", rule_fdisk), FN("gdisk", rule_fdisk),
	FN("sgdisk", rule_fdisk), FN("parted", rule_fdisk), FN("cfdisk", rule_fdisk),
	FN("kill", rule_kill), FN("tmux", rule_tmux), FN("fuser", rule_fuser),
	FN("zfs", rule_sys_verbs), FN("nvme", rule_sys_verbs), FN("mdadm", rule_sys_verbs),
	FN("efibootmgr", rule_sys_verbs), FN("mysqladmin", rule_sys_verbs),
	DISK("mkdosfs", "creates a filesystem, erasing the device"),
	DISK("mkntfs", "creates a filesystem, erasing the device"),
	DISK("mkexfatfs", "creates a filesystem, erasing the device"),
	{"pkill", 0, NULL, TIER_HIGH, "sys.kill", "kills processes by name", NULL},
	{"killall", 0, NULL, TIER_HIGH, "sys.kill", "kills processes by name", NULL},
	{"killall5", 0, NULL, TIER_CRITICAL, "sys.kill.all", "kills every process", NULL},
	{"skill", 0, NULL, TIER_HIGH, "sys.kill", "kills processes by name", NULL},
	POWER("shutdown"), POWER("reboot"), POWER("halt"), POWER("poweroff"),
	FN("init", rule_init), FN("telinit", rule_init),
	FN("systemctl", rule_systemctl), FN("service", rule_service),
	{"launchctl", 0, NULL, TIER_HIGH, "sys.service", "loads or changes macOS services", NULL},
	FN("crontab", rule_crontab),
	{"at", 0, NULL, TIER_HIGH, "sys.cron", "schedules a command", rule_at},
	{"batch", 0, NULL, TIER_HIGH, "sys.cron", "schedules a command", rule_at},
	FN("mount", rule_mount), FN("umount", rule_mount),
	ADMIN("swapon", "changes swap devices"), ADMIN("swapoff", "changes swap devices"),
	ADMIN("useradd", "changes user accounts"), ADMIN("userdel", "deletes user accounts"),
	ADMIN("usermod", "changes user accounts"), ADMIN("groupadd", "changes groups"),
	ADMIN("groupdel", "deletes groups"), ADMIN("adduser", "changes user accounts"),
	ADMIN("deluser", "deletes user accounts"), ADMIN("passwd", "changes passwords"),
	ADMIN("chpasswd", "changes passwords"), ADMIN("visudo", "edits sudo rules"),
	ADMIN("iptables", "changes the firewall"), ADMIN("ip6tables", "changes the firewall"),
	ADMIN("nft", "changes the firewall"), ADMIN("ufw", "changes the firewall"),
	ADMIN("modprobe", "loads kernel modules"), ADMIN("insmod", "loads kernel modules"),
	ADMIN("rmmod", "unloads kernel modules"), ADMIN("setenforce", "changes SELinux mode"),
	ADMIN("chattr", "changes file attributes"), ADMIN("setcap", "grants file capabilities"),
	ADMIN("ldconfig", "changes the shared library cache"),
	ADMIN("update-alternatives", "changes system programs"),
	ADMIN("hostnamectl", "changes the host name"), ADMIN("timedatectl", "changes the clock"),
	ADMIN("capsh", "changes capabilities"),
	ADMIN("losetup", "attaches loop devices"), ADMIN("dmsetup", "changes device mappings"),
	FN("sysctl", rule_sysctl), FN("ip", rule_ip), FN("busctl", rule_dbus),
	FN("gdbus", rule_dbus), FN("dbus-send", rule_dbus), FN("watchman", rule_watchman), FN("ss", rule_ss),
	FN("pueue", rule_pueue), FN("tsp", rule_tsp), FN("wezterm", rule_terminal),
	FN("zellij", rule_terminal), FN("kitty", rule_terminal),
};
const size_t rules_sys_n = nitems(rules_sys);
