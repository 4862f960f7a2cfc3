/*
 * term.c: the terminal, and the only file in airlock that calls ncurses.
 * Rules it keeps:
 *  - the screen lives on /dev/tty (newterm), never on stdin/stdout, which
 *    belong to the agent's pipe;
 *  - every way out restores the terminal: term_close() on each return path,
 *    and SIGINT/SIGTERM/SIGHUP/SIGQUIT only set a flag (handlers installed
 *    before newterm, so ncurses does not install its own that exit the
 *    process); a fault (SIGSEGV, SIGABRT, ...) puts the terminal's modes
 *    back before airlock dies of it;
 *  - NO_COLOR turns colour off; attributes still mark what matters;
 *  - a paste is text, never keys: bracketed paste (xterm's mode 2004) is on
 *    while the screen is, so a pasted "a" cannot approve a call.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>

#include "core/util.h"
#include "tui/tui_internal.h"

#define EDIT_CAP (1u << 20) /* bytes an edited call may hold */

/* Bracketed paste: the terminal wraps pasted text in ESC [200~ ... ESC
 * [201~. Terminals without it ignore the mode and send the text as keys,
 * which the screen's one-second arming then meets as typing. */
#define PASTE_ON "\033[?2004h"
#define PASTE_OFF "\033[?2004l"
enum { KEY_PASTE_BEGIN = KEY_MAX + 1, KEY_PASTE_END };
#define PASTE_CAP 4096    /* code points of a paste kept; the rest is read and dropped */
#define PASTE_WAIT_MS 500 /* a paste that stops without its end marker ends here */

struct term {
	int fd;
	FILE *in, *out;
	SCREEN *scr;
	struct termios tio; /* the terminal's modes before curses */
	bool utf8;
	char *old_locale;
	attr_t attrs[TA_COUNT];
	uint32_t paste[PASTE_CAP]; /* the last paste read */
};

/* ---- signals ---------------------------------------------------------- */

static volatile sig_atomic_t caught;
/* SIGQUIT too: ctrl-\ is a key on the screen as ctrl-c is, and by default
 * it killed airlock there, leaving the terminal without echo, in the
 * alternate screen, and the call undecided in the log */
static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction saved[nitems(caught_signals)];
static bool catching;

static void on_signal(int sig)
{
	caught = sig;
}

void tui_signals_catch(void)
{
	struct sigaction sa;

	if (catching)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nitems(caught_signals); i++)
		sigaction(caught_signals[i], &sa, &saved[i]);
	catching = true;
}

void tui_signals_restore(void)
{
	if (!catching)
		return;
	for (size_t i = 0; i < nitems(caught_signals); i++)
		sigaction(caught_signals[i], &saved[i], NULL);
	catching = false;
}

int tui_signal_caught(void)
{
	return caught;
}

/* ---- a fault while a screen is up --------------------------------------- */

/* Dying of a fault with the screen up left the terminal without echo, in
 * the alternate screen, cursor hidden. The handler writes the sequences
 * that undo that and the modes from before curses (write and tcsetattr are
 * async-signal-safe; curses is not), then lets the signal do what it did. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static struct sigaction fatal_saved[nitems(fatal_signals)];
static struct {
	volatile sig_atomic_t armed;
	int fd;
	struct termios tio;
	char seq[256];
	size_t len;
} rescue;

static void on_fatal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (rescue.armed) {
		rescue.armed = 0;
		(void)!write(rescue.fd, rescue.seq, rescue.len);
		tcsetattr(rescue.fd, TCSANOW, &rescue.tio);
	}
	for (size_t i = 0; i < nitems(fatal_signals); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_saved[i], NULL);
	/* a fault happens again on return, under the previous handler (the
	 * default, or a sanitizer's report); a signal sent is sent again */
	if (si->si_code <= 0)
		raise(sig);
}

/* Appends terminfo capability cap to the rescue sequence, if it has one. */
static void rescue_cap(const char *cap)
{
	const char *v = tigetstr(cap);
	size_t n;

	if (v == NULL || v == (char *)-1 || (n = strlen(v)) > sizeof(rescue.seq) - rescue.len)
		return;
	memcpy(rescue.seq + rescue.len, v, n);
	rescue.len += n;
}

/* Arms the rescue for the terminal on fd, whose modes before curses are
 * tio. One screen is up at a time. */
static void rescue_arm(int fd, const struct termios *tio)
{
	struct sigaction sa;

	rescue.fd = fd;
	rescue.tio = *tio;
	rescue.len = 0;
	rescue_cap("sgr0");
	rescue_cap("cnorm");
	rescue_cap("rmcup");
	if (rescue.len + strlen(PASTE_OFF) <= sizeof(rescue.seq)) {
		memcpy(rescue.seq + rescue.len, PASTE_OFF, strlen(PASTE_OFF));
		rescue.len += strlen(PASTE_OFF);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nitems(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &fatal_saved[i]);
	rescue.armed = 1;
}

static void rescue_disarm(void)
{
	if (!rescue.armed)
		return;
	rescue.armed = 0;
	for (size_t i = 0; i < nitems(fatal_signals); i++)
		sigaction(fatal_signals[i], &fatal_saved[i], NULL);
}

/* ---- attributes ------------------------------------------------------- */

static const struct {
	enum tattr a;
	short fg, bg;      /* -1: the terminal's default */
	attr_t color_attr; /* with colour */
	attr_t mono_attr;  /* with NO_COLOR or a monochrome terminal */
} styles[] = {
	{TA_NORMAL, -1, -1, A_NORMAL, A_NORMAL},
	{TA_DIM, -1, -1, A_DIM, A_DIM},
	{TA_BOLD, -1, -1, A_BOLD, A_BOLD},
	{TA_TITLE, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
	{TA_MARK, COLOR_BLACK, COLOR_MAGENTA, A_BOLD, A_REVERSE | A_UNDERLINE},
	{TA_SPAN, COLOR_YELLOW, -1, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE},
	{TA_ADD, COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
	{TA_DEL, COLOR_RED, -1, A_NORMAL, A_NORMAL},
	{TA_HUNK, COLOR_CYAN, -1, A_NORMAL, A_DIM},
	{TA_FILE, -1, -1, A_BOLD, A_BOLD},
	{TA_MATCH, COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE},
	{TA_SELECT, -1, -1, A_REVERSE, A_REVERSE},
	{TA_KEY, COLOR_CYAN, -1, A_BOLD, A_BOLD},
	{TA_LOW, COLOR_GREEN, -1, A_BOLD, A_NORMAL},
	{TA_MEDIUM, COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	{TA_HIGH, COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	{TA_CRITICAL, COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
};

static void attrs_init(struct term *t)
{
	const char *nc = getenv("NO_COLOR");
	bool color = has_colors() && !(nc && *nc);

	if (color) {
		start_color();
		use_default_colors();
	}
	for (size_t i = 0; i < nitems(styles); i++) {
		attr_t a = color ? styles[i].color_attr : styles[i].mono_attr;
		if (color && (styles[i].fg >= 0 || styles[i].bg >= 0) && (short)(i + 1) < COLOR_PAIRS) {
			init_pair((short)(i + 1), styles[i].fg, styles[i].bg);
			a |= COLOR_PAIR((int)i + 1);
		}
		t->attrs[styles[i].a] = a;
	}
}

/* ---- open and close --------------------------------------------------- */

/* Takes the user's locale for characters; notes whether it is UTF-8. */
static void locale_enter(struct term *t)
{
	const char *cur = setlocale(LC_CTYPE, NULL);

	t->old_locale = xstrdup(cur ? cur : "C");
	if (setlocale(LC_CTYPE, "") == NULL)
		setlocale(LC_CTYPE, "C");
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

static int term_start(struct term *t, const char *path, char **errstr)
{
	const char *type = getenv("TERM");

	if (type == NULL || *type == '\0' || strcmp(type, "dumb") == 0) {
		*errstr = xasprintf("TERM is %s: the approval screen needs a terminal type "
		                    "(set TERM, e.g. TERM=xterm-256color)",
		                    type && *type ? type : "not set");
		return -1;
	}
	if ((t->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		*errstr = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (!isatty(t->fd) || tcgetattr(t->fd, &t->tio) < 0) {
		*errstr = xasprintf("%s is not a terminal", path);
		return -1;
	}
	t->in = fdopen(t->fd, "r");
	t->out = fdopen(dup(t->fd), "w");
	if (t->in == NULL || t->out == NULL) {
		*errstr = xasprintf("cannot use %s: %s", path, strerror(errno));
		return -1;
	}
	if ((t->scr = newterm(type, t->out, t->in)) == NULL) {
		*errstr = xasprintf("cannot start curses on %s (TERM=%s unknown?)", path, type);
		return -1;
	}
	return 0;
}

/* Written to the terminal beside curses' output: a mode, not a drawing. */
static void paste_mode(const struct term *t, bool on)
{
	(void)fd_write_all(t->fd, on ? PASTE_ON : PASTE_OFF, strlen(PASTE_ON));
}

int term_open(const char *path, struct term **out, char **errstr)
{
	struct term *t = xcalloc(1, sizeof(*t));

	t->fd = -1;
	*out = NULL;
	locale_enter(t);
	if (term_start(t, path ? path : "/dev/tty", errstr) < 0) {
		term_close(t);
		return -1;
	}
	set_term(t->scr);
	/* keys typed before the screen was shown (typeahead meant for the
	 * agent, or queued by a process injecting input) never answer it */
	flushinp();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	define_key("\033[200~", KEY_PASTE_BEGIN);
	define_key("\033[201~", KEY_PASTE_END);
	paste_mode(t, true);
	curs_set(0);
	attrs_init(t);
	rescue_arm(t->fd, &t->tio);
	*out = t;
	return 0;
}

void term_close(struct term *t)
{
	if (t == NULL)
		return;
	if (t->scr) {
		rescue_disarm();
		set_term(t->scr);
		paste_mode(t, false);
		curs_set(1);
		endwin();
		delscreen(t->scr);
	}
	if (t->in)
		fclose(t->in);
	else if (t->fd >= 0)
		close(t->fd);
	if (t->out)
		fclose(t->out);
	if (t->old_locale)
		setlocale(LC_CTYPE, t->old_locale);
	free(t->old_locale);
	free(t);
}

bool term_utf8(const struct term *t)
{
	return t->utf8;
}

void term_size(struct term *t, int *rows, int *cols)
{
	(void)t;
	getmaxyx(stdscr, *rows, *cols);
}

/* ---- drawing ---------------------------------------------------------- */

void term_draw(struct term *t, const struct trow **rows, int nrows, int cursor_row,
               int cursor_col)
{
	werase(stdscr);
	for (int i = 0; i < nrows; i++) {
		const struct trow *r = rows[i];
		if (r == NULL)
			continue;
		wmove(stdscr, i, 0);
		for (size_t k = 0; k < r->nruns; k++) {
			wattrset(stdscr, t->attrs[r->runs[k].attr]);
			waddnstr(stdscr, r->text + r->runs[k].off, (int)r->runs[k].len);
		}
	}
	wattrset(stdscr, A_NORMAL);
	if (cursor_row >= 0 && cursor_row < nrows) {
		wmove(stdscr, cursor_row, cursor_col);
		curs_set(1);
	} else {
		curs_set(0);
	}
	wrefresh(stdscr);
}

/* ---- keys ------------------------------------------------------------- */

static const struct {
	int curses;
	enum tkey_code code;
} special_keys[] = {
	{KEY_UP, TK_UP},         {KEY_DOWN, TK_DOWN},   {KEY_LEFT, TK_LEFT},
	{KEY_RIGHT, TK_RIGHT},   {KEY_PPAGE, TK_PGUP},  {KEY_NPAGE, TK_PGDN},
	{KEY_HOME, TK_HOME},     {KEY_END, TK_END},     {KEY_ENTER, TK_ENTER},
	{KEY_BACKSPACE, TK_BACKSPACE}, {KEY_RESIZE, TK_RESIZE},
};

/* Reads a paste up to its end marker into t->paste: the text a person
 * pasted, which must reach the screen as text, not as keys. */
static void paste_read(struct term *t, struct tkey *k)
{
	wint_t ch;
	int rc;

	*k = (struct tkey){.code = TK_PASTE, .text = t->paste};
	wtimeout(stdscr, PASTE_WAIT_MS);
	while (tui_signal_caught() == 0 && (rc = wget_wch(stdscr, &ch)) != ERR) {
		if (rc == KEY_CODE_YES && ch == KEY_PASTE_END)
			break;
		if (rc == KEY_CODE_YES) /* a key sequence inside the paste: text too */
			continue;
		if (k->ntext < PASTE_CAP)
			t->paste[k->ntext++] = (uint32_t)ch;
		else
			k->cut++;
	}
}

static bool tty_gone(const struct term *t)
{
	struct pollfd p = {.fd = t->fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

int term_read(struct term *t, int timeout_ms, struct tkey *k)
{
	wint_t ch;
	int rc;

	*k = (struct tkey){.code = TK_TIMEOUT};
	wtimeout(stdscr, timeout_ms);
	rc = wget_wch(stdscr, &ch);
	if (rc == ERR)
		return tty_gone(t) ? -1 : 0;
	if (rc == KEY_CODE_YES && ch == KEY_PASTE_BEGIN) {
		paste_read(t, k);
		return 0;
	}
	if (rc == KEY_CODE_YES) {
		k->code = TK_NONE;
		for (size_t i = 0; i < nitems(special_keys); i++)
			if (special_keys[i].curses == (int)ch)
				k->code = special_keys[i].code;
		return 0;
	}
	if (ch == '\r' || ch == '\n')
		k->code = TK_ENTER;
	else if (ch == 27)
		k->code = TK_ESC;
	else if (ch == 127 || ch == 8)
		k->code = TK_BACKSPACE;
	else
		k->code = TK_CHAR;
	k->ch = (uint32_t)ch;
	return 0;
}

/* ---- $EDITOR ------------------------------------------------------------ */

/* Runs the editor on path with the terminal as its stdio; returns its
 * wait status or -1. */
static int run_editor(struct term *t, const char *path)
{
	const char *ed = getenv("EDITOR");
	char *cmd = xasprintf("%s \"$1\"", ed && *ed ? ed : "vi");
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		dup2(t->fd, 0);
		dup2(t->fd, 1);
		dup2(t->fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static int read_back(const char *path, char **out, char **errstr)
{
	struct buf b;
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*errstr = xasprintf("cannot read the edited file %s: %s", path, strerror(errno));
		return -1;
	}
	buf_init(&b, EDIT_CAP);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && !b.truncated)
		buf_append(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0 || b.truncated) {
		*errstr = n < 0 ? xasprintf("cannot read the edited file: %s", strerror(errno))
		                : xasprintf("the edited call is larger than %u bytes", EDIT_CAP);
		buf_free(&b);
		return -1;
	}
	*out = buf_take(&b, NULL);
	return 0;
}

int term_edit(struct term *t, const char *text, const char *suffix, char **out,
              char **errstr)
{
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/airlock-edit-XXXXXX%s", tmp && *tmp ? tmp : "/tmp",
	                       suffix ? suffix : "");
	int fd = mkstemps(path, suffix ? (int)strlen(suffix) : 0), status, rc = -1;

	*out = NULL;
	if (fd < 0 || fd_write_all(fd, text, strlen(text)) < 0) {
		*errstr = xasprintf("cannot write a file for the editor in %s: %s",
		                    tmp && *tmp ? tmp : "/tmp", strerror(errno));
		goto out;
	}
	def_prog_mode();
	paste_mode(t, false);
	endwin();
	status = run_editor(t, path);
	reset_prog_mode();
	paste_mode(t, true); /* the editor may have turned it off on leaving */
	clearok(curscr, TRUE);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*errstr = xasprintf("the editor (%s) failed (status %d); the call was not changed",
		                    getenv("EDITOR") ? getenv("EDITOR") : "vi", status);
		goto out;
	}
	rc = read_back(path, out, errstr);
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(path);
	return rc;
}

static void io_size(void *arg, int *rows, int *cols)
{
	term_size(arg, rows, cols);
}

static void io_draw(void *arg, const struct trow **rows, int nrows, int cursor_row,
                    int cursor_col)
{
	term_draw(arg, rows, nrows, cursor_row, cursor_col);
}

static int io_read(void *arg, int timeout_ms, struct tkey *k)
{
	return term_read(arg, timeout_ms, k);
}

void term_screen_io(struct term *t, struct screen_io *io)
{
	*io = (struct screen_io){.arg = t, .size = io_size, .draw = io_draw, .read = io_read};
}
