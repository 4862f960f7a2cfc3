/*
 * classifier_internal.h: what the classifier's files share and nobody else
 * includes: the per-call context, the arena, shell words and commands.
 * Rules: every finding's rule id is a string literal listed in rules.c;
 * spans always index call_subject(); a frame that is not verbatim maps to
 * the span of the word that held it.
 */
#ifndef AIRLOCK_CLASSIFIER_INTERNAL_H
#define AIRLOCK_CLASSIFIER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "classifier/classifier.h"

#define CLS_MAX_INPUT CLASSIFY_MAX_INPUT
#define CLS_MAX_DEPTH 12          /* nested -c / eval / $( ) levels */
#define CLS_MAX_FILE_RUNS 256     /* readings of written scripts per call */
#define CLS_MAX_PATH 4096
#define CLS_MAX_FINDINGS 256      /* past it, one finding per rule and tier */
#define CLS_MAX_PATHS 1024        /* reads[]/writes[] entries; more is parse.uncertain */

/* A bump allocator: one inline block, then heap blocks; freed at once. */
struct arena_blk;
struct arena {
	char *cur, *end;
	struct arena_blk *blocks;
	char first[8192];
};
void arena_init(struct arena *a);
void arena_free(struct arena *a);
/* Returns n bytes aligned for any type; lives until arena_free(). */
void *arena_alloc(struct arena *a, size_t n);
/* Returns a NUL-terminated arena copy of s[0..n). */
char *arena_strndup(struct arena *a, const char *s, size_t n);

/* The text being parsed and how its offsets map back to call_subject(). */
struct frame {
	const char *text;
	size_t len;
	size_t base;       /* offset of text[0] in the subject when exact */
	bool exact;        /* text is a verbatim slice of the subject */
	struct span outer; /* used when not exact */
};

#define CLS_MAX_VARS 16
#define CLS_MAX_FILES 8 /* scripts written in one call, remembered */

/* Per-call state shared by every file. */
struct cctx {
	struct verdict *v;
	const struct classify_opts *o;
	struct arena *a;
	const char *wd;   /* workdir with symlinks resolved */
	const char *home; /* may be "" */
	const char *cwd;  /* current directory for relative paths; NULL unknown */
	struct paths_seen *seen; /* this call's lstat() answers (paths.c) */
	int depth;
	struct frame f;
	const char **funcs;    /* functions defined so far (arena; bodies judged) */
	size_t nfuncs, capfuncs;
	size_t capcmds;        /* v->commands grows by doubling, not by one */
	/* Which function calls which, from inside function bodies, for fork
	 * bombs through other functions (shell_exec.c). */
	struct cls_call {
		const char *from, *to;
		bool spawn; /* in a pipe or the background: copies run at once */
	} *calls;
	size_t ncalls, capcalls;
	const char *in_func; /* the function whose body is read or run, or NULL */
	const struct cmdv *cur; /* the command being judged: its stdin and fds */
	bool procsub_out;       /* the next parse is a >( ) body: stdin is a pipe */
	/* hash -p PATH NAME: NAME runs PATH (path NULL: unknown) (shell_eval.c) */
	struct cls_hash {
		const char *name, *path;
	} *hashes;
	size_t nhashes, caphashes;
	bool hashing;
	/* alias NAME=VALUE: a later command NAME ARGS runs VALUE ARGS; busy
	 * while its expansion is read, as bash does not expand it again
	 * there (shell_eval.c) */
	struct cls_alias {
		const char *name, *val;
		bool busy;
	} *aliases;
	size_t naliases, capaliases;
	/* Literal values holding $( ) or ` `: code once bash evaluates values
	 * as arithmetic or names (shell_vars.c). */
	struct cls_code {
		const char *text;
		size_t len;
		struct span sp;
		bool run;
	} *codes;
	size_t ncodes, capcodes;
	bool evaluates; /* the script evaluates values: codes run */
	bool renames; /* alias, enable or a run-time program name seen: a
	               * builtin's name may run something else (shell_exec.c) */
	/* Literal values the script gives its variables (assignments, export,
	 * for lists), noted on every pass; from the second pass on, $NAME reads
	 * as its reading-th value (shell_vars.c). */
	struct cls_var {
		const char *name, *val; /* arena */
	} vars[CLS_MAX_VARS];
	size_t nvars;
	/* git --work-tree DIR or GIT_WORK_TREE=DIR of the git command being
	 * judged: NULL none, "" known only at run time (shell_rules_git.c) */
	const char *git_tree;
	bool substs; /* holds $(echo WORDS)-like substitutions with known output */
	bool defaults; /* holds ${NAME:-WORD} of a NAME it gives no value: WORD may be it */
	int reading; /* 0: variables stay unknown (the first pass) */
	int sql_body; /* reading SQL inside a function body or DO block (sql.c) */
	/* the client the SQL goes to, when a shell call names it: mysql
	 * and mariadb take --x for no comment, and only psql reads $$ as
	 * quotes (sqlite, MySQL: $q$ is a name or parameter) */
	enum sql_dialect { SQL_ANY, SQL_PG, SQL_MYSQL } sql_dialect;
	/* Files the call writes with content it shows (shell_files.c). */
	struct cls_file {
		const char *path, *text; /* arena; path absolute */
		size_t len;
	} files[CLS_MAX_FILES];
	size_t nfiles;
	bool files_over; /* more were written than fit */
	size_t file_runs; /* readings of them so far, at most CLS_MAX_FILE_RUNS */
	/* Files run before any write to them was seen (the writer in the
	 * background, or a fifo: sh p & echo CMD > p): a write to one of them
	 * later sets files_late, and the script is read once more. */
	const char *missed[CLS_MAX_FILES];
	size_t nmissed;
	bool missed_over; /* more missed than fit: any later write counts */
	bool files_late;
	/* judging the command of `find DIR... -exec CMD {} +` whose every DIR
	 * is in the workdir (no -L): its {} names files there; and when the
	 * expression only matches build outputs (-name __pycache__) and CMD
	 * is rm, {} is a build output (shell_rules_fs.c) */
	bool find_in_workdir, find_artifacts;
};

/* Maps an offset range of the current frame to a subject span. */
struct span cls_span(const struct cctx *x, size_t off, size_t len);
/* Records a command that would run; takes ownership of argv. */
void cls_add_command(struct cctx *x, char **argv, struct span sp);
/* Adds abs to vec (reads, writes or hosts) unless there; past CLS_MAX_PATHS
 * it records parse.uncertain instead (policy could not see every path). */
void cls_add_path(struct cctx *x, char ***vec, const char *abs);
/* verdict_add() unless this rule already fired on the same span. */
void cls_add(struct cctx *x, enum tier t, const char *rule, struct span sp,
             const char *fmt, ...) AIRLOCK_PRINTF(5, 6);

/* ---- shell words and commands (shell_lex.c, shell_parse.c) ---- */

enum {
	W_QUOTED = 1 << 0,  /* some part was quoted or escaped */
	W_DYNAMIC = 1 << 1, /* holds $var, $( ), ` `, $(( )): value unknown */
	W_GLOB = 1 << 2,    /* unquoted * ? [ or brace expansion */
	W_ASSIGN = 1 << 3,  /* NAME=value in assignment position */
	W_PROCSUB = 1 << 4, /* <( ) or >( ) */
	W_SUBST = 1 << 5,   /* holds a command substitution */
};

struct word {
	const char *val; /* decoded, NUL-terminated (arena) */
	size_t len;
	size_t off, rawlen; /* raw extent in the frame text */
	size_t voff;        /* offset of the value in the frame when verbatim */
	unsigned flags;
	bool verbatim;      /* val == text[voff .. voff+len) */
};

enum redir_kind {
	R_IN, R_OUT, R_APPEND, R_CLOBBER, R_RW, R_OUT_ALL, R_APPEND_ALL,
	R_DUP_IN, R_DUP_OUT, R_HEREDOC, R_HERESTR,
};

struct redir {
	enum redir_kind kind;
	int fd;              /* -1 when not given */
	struct word target;  /* file, fd, delimiter or here-string */
	const char *body;    /* here-doc body; NULL until read */
	size_t bodylen;
	bool strip_tabs, quoted_delim;
	size_t off;          /* operator offset in the frame */
};

struct scmd {
	struct word *w;
	size_t nw, capw;
	struct redir **r;
	size_t nr, capr;
	struct scmd *pipe_from; /* its stdout feeds this command's stdin */
	bool pipe_to;           /* its stdout goes into a pipe */
	bool bg;                /* run in the background (&) */
	bool in_pipe;           /* in a >( ) body: stdin is what is written there */
	const char *func;       /* the function whose body it is in, or NULL */
	size_t off, end;        /* frame extent */
};

struct lexer;
struct buf;

/* Returns true when name is a function the script defined. */
bool shell_is_function(const struct cctx *x, const char *name);
/* Grows an arena array of n items of size bytes to hold one more. */
void *shell_grow(struct arena *a, void *old, size_t n, size_t *cap, size_t size);
/* Parses and classifies a whole script in frame f (recursion entry). */
void shell_script(struct cctx *x, const struct frame *f);
/* Classifies the text of a word as a script (bash -c, eval, su -c). */
void shell_script_word(struct cctx *x, const struct word *w);
/* Classifies script text that does not come verbatim from the subject. */
void shell_script_text(struct cctx *x, const char *text, size_t len, struct span sp);
/* Runs the $( ) and ` ` of text bash evaluates as arithmetic, a name with
 * a subscript or a prompt (judged as commands; the rest is data). */
void shell_expand_word(struct cctx *x, const struct word *w);
void shell_expand_text(struct cctx *x, const char *text, size_t len, struct span sp);

/* ---- variables (shell_vars.c) ---- */

/* Notes "NAME=value" (w) when its value is literal. */
void shell_var_assign(struct cctx *x, const struct word *w);
/* Notes that NAME (a literal word) may hold the literal word val. */
void shell_var_value(struct cctx *x, const struct word *name, const struct word *val);
/* An element of an array literal (a=(.env ~/.ssh/id_*)), whose value is
 * unknown to later expansions: one naming a secret is read there. */
void shell_var_element(struct cctx *x, const struct word *w);
/* Notes the literal words w[0..n) as the positional parameters: $1..$9 one
 * each, $@ and $* all of them joined by spaces. */
void shell_var_args(struct cctx *x, const struct word *w, size_t n);
/* $(BODY) or `BODY` whose output is known: `echo WORDS` or `printf WORD`
 * of plain literal words. In the first pass, notes that the script has
 * one and returns false; in a later reading, appends the output to out
 * and returns true. */
bool shell_var_subst(struct cctx *x, const char *body, size_t n, struct buf *out);
/* In a later reading, the value $NAME stands for, or NULL. */
const char *shell_var_lookup(const struct cctx *x, const char *name, size_t n);
/* Bash evaluates values as code here (arithmetic, declare -n, ${!x},
 * ${x@P}): every literal value holding $( ) or ` ` is judged, now and
 * when noted later. */
void shell_var_evaluated(struct cctx *x);
/* Classifies the script again with each set of values its variables may
 * hold, so `D=/; rm -rf $D` is read as `rm -rf /` too; the strictest
 * reading wins because findings only add up. */
void shell_var_readings(struct cctx *x);

/* ---- lexer (shell_lex.c) ---- */
enum tok_kind { TOK_EOF, TOK_WORD, TOK_OP, TOK_REDIR, TOK_ERR };
enum op {
	OP_SEMI, OP_AND, OP_OR, OP_PIPE, OP_PIPE_ERR, OP_BG, OP_NL,
	OP_LPAREN, OP_RPAREN, OP_DSEMI,
};
#define CLS_MAX_SPLIT 16 /* field splits one word may carry */
struct token {
	enum tok_kind kind;
	enum op op;
	struct word w;
	struct redir *r;
	size_t off;
	struct word *alts; /* the words a brace expansion of w makes (arena) */
	size_t nalts;
	/* Where the shell splits w into fields: offsets in w.val of IFS bytes
	 * that came from unquoted expansions of known values. */
	unsigned split[CLS_MAX_SPLIT];
	size_t nsplit;
};
struct lexer {
	struct cctx *x;
	const char *s;
	size_t n, pos;
	bool cmdpos;          /* next word is in command position */
	struct redir *pending[16];
	int npending;
	const char *err;      /* static message when TOK_ERR */
	size_t errpos;
	char *sb;             /* scratch for word values: arena, then heap */
	size_t sblen, sbcap;
	bool sbheap;
	int in_dq;            /* inside "...": expansions are not split */
	unsigned split[CLS_MAX_SPLIT]; /* the current word's, as in struct token */
	size_t nsplit;
	bool split_over;      /* more splits than fit: the word is unknown */
	bool brace;           /* the current word has a brace expansion */
	bool no_brace;        /* expanding one: do not expand its words again */
	bool decl;            /* after declare/local/...: NAME=value is an assignment */
};
void lex_init(struct lexer *lx, struct cctx *x, const char *s, size_t n, size_t pos);
void lex_fini(struct lexer *lx);
void lex_next(struct lexer *lx, struct token *t);
/* Runs the $( ), ` ` and ${ } of s[from, to) as the shell expands a
 * here-document body (arithmetic, unquoted here-documents); lx->pos and
 * the current word are kept. */
void lex_expansions(struct lexer *lx, size_t from, size_t to);
/* The fields word token t splits into (arena words in *out); 1 and t's own
 * word when it does not split. */
size_t lex_fields(struct cctx *x, const struct token *t, struct word **out);
/* Reads a $( ) body by parsing it; returns the offset of its ')' or -1. */
long shell_parse_subst(struct cctx *x, const char *s, size_t n, size_t pos);

/* ---- commands after parsing (shell_exec.c, shell_rules.c) ---- */

enum in_kind { IN_NONE, IN_PIPE, IN_DOC, IN_FILE };
/* A command view: argv words after unwrapping, plus where stdin comes from. */
struct cmdv {
	struct word *w;
	size_t n;
	const struct scmd *sc;
	enum in_kind in;
	const char *in_text; /* IN_DOC, or literal text piped from echo/printf */
	size_t in_len;
	struct span in_span;
	const struct word *in_file; /* IN_FILE: the < redirection's target */
	bool dyn_tail;       /* more arguments appear at run time (xargs) */
	int hops;            /* wrapper levels removed */
	/* the program as the tables name it, set by rules_apply() for the row's
	 * function: /usr/bin/pip -> pip, python3.11 -> python3; w[0] keeps
	 * what was written */
	const char *prog;
};

/* ---- builtins that evaluate text (shell_eval.c) ---- */

/* trap, mapfile -C, hash -p, let, declare -i/-n, test -v, printf -v, read. */
void shell_eval_builtin(struct cctx *x, const struct cmdv *c, const char *name);
/* Notes hash -p PATH NAME (pw: the word holding path). */
void shell_hash_note(struct cctx *x, const struct word *name, const struct word *pw,
                     const char *path);
/* Notes alias NAME=VALUE (NAME n bytes of name; every value given is
 * kept, as any may be in effect). */
void shell_alias_note(struct cctx *x, const char *name, size_t n, const char *val);
/* A command whose unquoted name is an alias the script defined is judged
 * once more as the alias's VALUE followed by its arguments. */
void shell_alias_run(struct cctx *x, const struct cmdv *c);
/* Judges c once more as the program hash -p gave its name, if any. */
void shell_hash_run(struct cctx *x, const struct cmdv *c, const char *name);

/* exec.env_inject when w assigns LD_PRELOAD, PATH, BASH_ENV, ...; prefix:
 * w stands before a command, whose environment alone it sets. */
void shell_check_assign(struct cctx *x, const struct word *w, bool prefix);
/* Classifies one parsed simple command (redirections, then argv). */
void shell_exec_command(struct cctx *x, const struct scmd *sc);
/* Classifies an argv view: unwraps wrappers, records it, applies rules. */
void shell_exec_argv(struct cctx *x, struct cmdv *c);
/* Span of words w[i..j) (frame-mapped). */
struct span shell_span_words(const struct cctx *x, const struct word *w, size_t n);
struct span shell_span_word(const struct cctx *x, const struct word *w);

/* One row of a program table; the rows live beside their handlers. */
enum {
	P_READ = 1 << 0,  /* non-option operands are files it reads */
	P_SKIP1 = 1 << 1, /* ... except the first (a pattern or a program) */
	P_WRITE = 1 << 2, /* non-option operands are files it writes */
	P_CWD = 1 << 3,   /* without operands it reads the current directory */
	P_HOST = 1 << 4,  /* non-option operands are hosts or URLs (ping, dig) */
};
typedef void (*prog_fn)(struct cctx *x, struct cmdv *c);
struct prog {
	const char *name;
	unsigned flags;
	const char *argopts; /* short options that take a value */
	enum tier tier;      /* with rule: a finding every run adds */
	const char *rule;
	const char *why;
	prog_fn fn;          /* extra handling, after flags and rule */
};
extern const struct prog rules_fs[], rules_net[], rules_dev[], rules_sys[], rules_git[],
	rules_text[], rules_cloud_tab[];
extern const size_t rules_fs_n, rules_net_n, rules_dev_n, rules_sys_n, rules_git_n, rules_text_n,
	rules_cloud_tab_n;
/* A cloud, cluster, deploy or database-migration CLI (kubectl, terraform,
 * aws, gh, prisma ...) by subcommand: net.fetch (exec.build for a
 * project's database tool), plus cloud.change, cloud.delete,
 * cloud.destroy, db.wipe ... for what it does there. Returns false when
 * c->prog is none of them (shell_rules_cloud.c). */
bool rules_cloud(struct cctx *x, const struct cmdv *c);
/* The subcommands of cloud CLIs and secret managers that print secrets
 * (aws secretsmanager get-secret-value, gh auth token): secrets.read
 * (shell_rules_net.c). Returns whether one matched. */
bool rules_secret_verb(struct cctx *x, const struct cmdv *c);
/* export NAME=VALUE (w, NAME n bytes) of a variable that points every
 * later git command at other configuration, a repository or work tree
 * (shell_rules_git.c). */
void rules_git_export(struct cctx *x, const struct word *w, size_t n);
/* export NAME=VALUE (w) whose VALUE holds $(shell CMD): every later make
 * imports it as a variable and runs CMD where it is expanded, MAKEFLAGS's
 * --eval at once (shell_rules_dev.c). */
void rules_make_export(struct cctx *x, const struct word *w, const char *v);

/* A file server (c: its words, the server's name or module first) that
 * serves its -ROOT/--directory/--root/--dir, else (operand) its first
 * operand that is no port, else the current directory: secrets.read when
 * that tree holds secrets (`cd ~ && python3 -m http.server`). argopts:
 * its short options that take a value. */
void rules_serves(struct cctx *x, const struct cmdv *c, const char *argopts, char root,
                  bool operand);
/* secrets.read for each word of c from `from` on that names a tree that
 * holds secrets (/, the home, ~/.config ...): a copy of it takes them. */
void rules_tree_operands(struct cctx *x, const struct cmdv *c, size_t from);
/* Applies the generic part of a row (paths by flags, fixed finding). */
void rules_generic(struct cctx *x, struct cmdv *c, const struct prog *p);
/* Classifies words [at, n) of c as a command of their own, run as they
 * are, its input not c's (kubectl exec -- CMD, docker exec CTR CMD). */
void rules_argv_run(struct cctx *x, const struct cmdv *c, size_t at);
/* secrets.read when words [at, n) of c print the whole environment (env,
 * printenv, export -p) where it runs: a container, pod or remote host
 * (where: its name), whose environment no sandbox scrubbed. */
void rules_remote_env(struct cctx *x, const struct cmdv *c, size_t at, const char *where);
/* Classifies argv words [at, n) of c as their own command (find -exec). */
void rules_subcommand(struct cctx *x, struct cmdv *c, size_t at, size_t end);
/* What a shell or interpreter reads from stdin (pipe, here-doc, file). */
void unwrap_stdin_script(struct cctx *x, struct cmdv *c, bool shell, const char *what);
/* Classifies words [at, n) of c, joined with spaces as a shell joins
 * them (ssh's remote command, eval, watch), as a script. */
void shell_script_words(struct cctx *x, const struct cmdv *c, size_t at);
/* Returns the operand after skipping options, or NULL. */
const struct word *opt_first(const struct cmdv *c, const char *argopts, size_t *at);
/* Whether w (not empty) is one of the space-separated words of list:
 * the rule tables' "put mput send" lists. */
bool word_listed(const char *list, const char *w);

/* An option value that is a command line the tool runs (ssh -o
 * ProxyCommand=CMD, tar --to-command=CMD, sed's e CMD): exec.hook_program
 * at word w, and CMD (n bytes) judged as a script when w is literal. */
void rules_hook(struct cctx *x, const struct word *w, const char *cmd, size_t n,
                const char *why);
/* The name the tables know a program by: an absolute path the kernel folds
 * into a standard bin directory (/bin//rm, /usr/bin/../bin/rm,
 * /proc/self/root/bin/rm) gives its last component (in buf); any other
 * name is returned as it is. */
const char *rules_prog_name(const char *name, char *buf, size_t sz);
/* The assignments this command's environment gets from the words before
 * it (NAME=v CMD, env NAME=v CMD, sudo NAME=v CMD): the next one from *i
 * on (start at 0), *namelen the length of its NAME; NULL after the last. */
const struct word *rules_env_next(const struct cmdv *c, size_t *i, size_t *namelen);
/* NAME=VALUE (w, NAME n bytes) sets a variable whose value is a command
 * line programs run (EDITOR, PAGER, GIT_SSH_COMMAND, LESSOPEN, ...): the
 * value is judged as a script. */
void rules_env_command(struct cctx *x, const struct word *w, size_t n);
/* less's +CMD text a (from its '+') of word w: `!CMD` and `|mCMD` run
 * CMD, judged as a hook (shell_rules_fs.c). */
void rules_less_cmds(struct cctx *x, const struct word *w, const char *a);
/* A writer whose file operands come at run time (xargs CMD): they may
 * name anything, so fs.write.outside_workdir, unless they are find
 * DIR -exec's {} in the workdir (x->find_in_workdir). what: "writes". */
void rules_dyn_writes(struct cctx *x, const struct cmdv *c, const char *what);
/* go's -exec, -toolexec and -vettool (one dash or two): the value in the
 * word a after '=', or "" with *next set when it is the next word; NULL
 * for any other word. rules_go_hook_text judges such a value (of word w,
 * for the span) as the command line go runs (shell_rules.c). */
const char *rules_go_hook(const char *a, bool *next);
void rules_go_hook_text(struct cctx *x, const struct word *w, const char *v);
/* The value the last such assignment gives name, or NULL; *wp its word. */
const char *rules_env(const struct cmdv *c, const char *name, const struct word **wp);
/* A program run by a path the tables do not fold (bin/rails, ./manage.py,
 * node_modules/.bin/prisma): the project's own file, an unknown program,
 * and for the framework and cloud tools projects keep a copy of, judged
 * as that program too, or as `python manage.py CMD` and `php artisan CMD`
 * would be (shell_rules.c). */
void rules_binstub(struct cctx *x, struct cmdv *c);
/* python manage.py flush, php artisan migrate:fresh: the framework
 * command at c->w[i], c->w[i + 1] empties the database (db.wipe);
 * returns whether it did (shell_rules_dev.c). */
bool rules_script_db_wipe(struct cctx *x, const struct cmdv *c, size_t i);
/* Whether a table has a row for the program name (no wrapper). */
bool rules_known_prog(const char *name);
/* The program table: returns true when the program is known and handled. */
bool rules_apply(struct cctx *x, struct cmdv *c, const char *name);
/* Wrapper table: returns the index of the wrapped command's name in c->w,
 * 0 when argv[0] is not a wrapper, or -1 when handled entirely. */
long unwrap_step(struct cctx *x, struct cmdv *c, const char *name);

/* Option helpers for argv views. */
bool opt_short(const struct cmdv *c, char letter, const char *argopts);
bool opt_long(const struct cmdv *c, const char *name);
/* True when the word a is the long option name (with its "--"), whole or
 * abbreviated as getopt_long and git accept (`--rec` for --recursive),
 * alone or with =VALUE; *val, when val is given, gets VALUE or NULL. An
 * abbreviation that may also start another option counts: the strictest
 * reading. */
bool opt_long_is(const char *a, const char *name, const char **val);
/* Returns the value of -X VAL, -XVAL, --name=VAL or --name VAL, or NULL. */
const struct word *opt_value(const struct cmdv *c, char letter, const char *lname,
                             const char *argopts, const char **val);
/* opt_value for word *ip alone: moves *ip past a value word it takes
 * (this option's or another's), so a caller can walk every occurrence. */
const struct word *opt_value_at(const struct cmdv *c, size_t *ip, char letter,
                                const char *lname, const char *argopts, const char **val);
/* Non-option operands after index start; argopts names short options that
 * take an argument. Fills idx (max) and returns the count. */
size_t opt_operands(const struct cmdv *c, size_t start, const char *argopts,
                    size_t *idx, size_t max);

/* ---- paths (paths.c) ---- */

enum path_class {
	PC_WORKDIR, PC_TMP, PC_DEVNULL, PC_DISK, PC_NET, PC_OUTSIDE, PC_UNKNOWN,
};
/* Resolves p (relative to x->cwd; ~ already expanded) into out, following
 * symlinks; returns false when it cannot (dynamic or cwd unknown). */
bool paths_resolve(const struct cctx *x, const char *p, char *out, size_t outsz);
enum path_class paths_class(const struct cctx *x, const char *abs);
/* The length of a leading /proc/X/root (X self, thread-self or a pid)
 * followed by '/' or the end, or 0. */
size_t paths_proc_root(const char *p);
/* Records a read of word w; raises secrets.read for secret paths. */
void paths_read(struct cctx *x, const struct word *w, const char *p);
/* Records a write: fs.write, fs.write.tmp, fs.write.outside_workdir,
 * fs.write.persistence, fs.write.git_config, sys.disk, net. */
void paths_write(struct cctx *x, const struct word *w, const char *p, struct span sp);
/* Records a read of one absolute path (span sp); secrets.read, net, disks. */
void paths_read_abs(struct cctx *x, const char *abs, struct span sp);
/* Classifies one absolute path as written (shared with the file tools). */
void paths_write_abs(struct cctx *x, const char *abs, struct span sp, const char *shown);
/* A file tool's write of abs into a path the caller's git configs make
 * hooks or config (classify_opts.config_guarded): fs.write.git_config
 * (hooks_path.c). */
void hooks_path_write(struct cctx *x, const char *abs, struct span sp);
/* True when abs is a tree that holds secrets: /, the home or one of its
 * ancestors, /etc, /root, and any directory above a secret path
 * (~/.config, ~/.local, /run: secrets_holds_dir()). Reading all of it
 * reads the keys and tokens. */
bool paths_holds_secrets(const struct cctx *x, const char *abs);
/* True when deleting the tree at abs is catastrophic: /, $HOME or above
 * (or all of its entries), /usr and other depth-1 directories, ancestors of
 * the workdir. */
bool paths_critical(const struct cctx *x, const char *abs);
/* The rule a write to abs raises for what git or the gate reads later
 * ("fs.write.git_config", "fs.write.gate_config"), or NULL. */
const char *paths_protected(const struct cctx *x, const char *abs);
/* Expands a leading ~ or ~user; returns p or an arena copy. */
const char *paths_tilde(const struct cctx *x, const char *p);
/* Returns the realpath of the workdir (cached). */
const char *paths_workdir(struct arena *a, const char *wd);
/* Returns an empty memory of lstat() answers for one call, in a. */
struct paths_seen *paths_seen_new(struct arena *a);

/* ---- name lookup (names.c) ---- */
struct names;
/* Returns an index of names[0..n), which must outlive it (never freed:
 * built once per table). A name given twice finds its first index. */
struct names *names_new(const char *const *names, size_t n);
/* Returns i where names[i] is s, or SIZE_MAX. */
size_t names_find(const struct names *ix, const char *s);

/* ---- secrets (secrets.c) ---- */
/* Returns a static description when abs is a secret path, else NULL. */
const char *secrets_path(const struct cctx *x, const char *abs);
/* True when the directory abs holds a secret path below it (~/.config holds
 * ~/.config/gcloud, /run holds /run/secrets): copying or archiving all of it
 * takes the secret along. */
bool secrets_holds_dir(const struct cctx *x, const char *abs);
/* Quick filter: true when the text may name a secret path. */
bool secrets_maybe_path(const char *s);
/* True when word expands $NAME or ${NAME} of a variable whose name says it
 * holds a credential (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD);
 * *name, *len: that name, inside word. */
bool secrets_env_ref(const char *word, const char **name, size_t *len);
/* True when the variable name NAME (n, len) says it holds a credential. */
bool secrets_env_name(const char *n, size_t len);

/* ---- network (net.c) ---- */
/* Adds the host of a URL or user@host:path or host to hosts[]. */
bool net_add_url(struct cctx *x, const char *s);
/* net_add_url, or for a URL without a scheme (curl evil.com), its host. */
void net_add_fetch_url(struct cctx *x, const char *s);
/* An operand of a program whose operands are hosts or URLs (P_HOST): dig's
 * @SERVER too; numbers, key=value items, +options and an httpie METHOD are
 * not hosts. */
void net_add_operand(struct cctx *x, const struct word *w);
void net_add_host(struct cctx *x, const char *host, size_t n);

/* ---- SQL (sql.c) ---- */
/* Classifies SQL into x->v; base is where sql starts in the frame, or
 * exact false when it is not verbatim (spans fall back to sp). */
void sql_classify(struct cctx *x, const char *sql, size_t len, bool exact, size_t base,
                  struct span sp);
/* SQL that another statement runs (a function body, a string it
 * executes): classified, not listed among the call's statements; past 4
 * such levels it is parse.too_deep (sql.c). */
void sql_classify_inner(struct cctx *x, const char *sql, size_t len, struct span sp);
/* SQL clients' own commands (sqlite3 dot-commands, psql backslash
 * commands, mysql client commands): judged, then blanked out of sql
 * (sql_fallback.c). */
void sql_dot_commands(struct cctx *x, char *sql, size_t len, bool exact, size_t base,
                      struct span sp);
/* A client's output option (psql -o FILE|'|CMD'): |CMD is judged as a
 * command fed the query's output, FILE as a write (sql_fallback.c). */
void sql_client_output(struct cctx *x, const struct word *w, const char *v, struct span sp);
/* The keyword fallback (sql_fallback.c); record: list its statements
 * (false when the grammar's reading already did). */
void sql_fallback(struct cctx *x, const char *sql, size_t len, bool exact, size_t base,
                  struct span sp, bool record);
/* Whether the text reads otherwise in the dialect than in PostgreSQL's
 * grammar: a -- MySQL takes for no comment (`SELECT 1 --1; DROP ...`
 * runs the DROP there), or a $$ or $tag$ quote that only PostgreSQL has. */
bool sql_reads_otherwise(const struct cctx *x, const char *sql, size_t len);
/* Text the grammar read, read once more by keywords as that dialect
 * does (sql_reads_otherwise): findings only, no statements listed. */
void sql_fallback_otherwise(struct cctx *x, const char *sql, size_t len, bool exact,
                            size_t base, struct span sp);
/* What calling a function does, by its name [name, name+n) in any case
 * (sql.c's table, read by the grammar's walk and by the fallback), or
 * NULL for one that only reads; sql_fn_runs_sql: whether it runs the SQL
 * text of an argument (query_to_xml). */
/* Why setting NAME (n bytes) switches off consistency checks or the
 * binary log (sql.admin), or NULL (sql.c; the fallback reads SET too). */
const char *sql_unsafe_setting(const char *name, size_t n);
struct sql_fn {
	const char *name, *rule, *why;
	enum tier tier;
};
const struct sql_fn *sql_fn_find(const char *name, size_t n);
/* Whether [schema, schema+sn) . [rel, rel+rn) is a catalog of credentials
 * (pg_authid, pg_shadow, pg_user_mappings, mysql.user); schema NULL: as
 * the search path finds it. */
bool sql_credential_table(const char *schema, size_t sn, const char *rel, size_t rn);
bool sql_fn_runs_sql(const char *name, size_t n);

/* ---- scripts the call writes, then runs (shell_files.c) ---- */
/* Notes the file(s) c writes when it shows their content: cat or tee of a
 * here-document, echo or printf of literal words, into > FILE or tee FILE. */
void shell_files_note(struct cctx *x, const struct cmdv *c);
/* w names a file about to run as a script in lang ("sh", "python", ...; NULL:
 * by its #! line): any content the call wrote there is read as that script. */
void shell_files_run(struct cctx *x, const struct word *w, const char *lang);
/* w names a file a program reads as a script in a language of its own
 * (m4, gnuplot, SQL, make): each content the call wrote there is handed
 * to fn with w, as shell_files_run reads a shell script (stdin and
 * /dev/fd names are the caller's). */
typedef void (*shell_files_fn)(struct cctx *x, const struct word *w, const char *text,
                               size_t len);
void shell_files_each(struct cctx *x, const struct word *w, shell_files_fn fn);
/* True when the file name v is "-" or names stdin (/dev/stdin, /dev/fd/0,
 * /proc/self/fd/0). */
bool shell_files_is_stdin(const char *v);
/* The script text a program reads for the script file v (of word w) names
 * when v is "-" or its stdin (/dev/stdin, /dev/fd/0): awk -f -, sed -f -.
 * Returns the here-document, here-string or known piped text, NUL-ended in
 * the arena (its length in len), or NULL; unknown piped text is
 * exec.pipe_to_shell. */
const char *shell_files_stdin_text(struct cctx *x, const struct word *w, const char *v,
                                   size_t *len);
/* w, a program name without a '/', may be found through a PATH that holds
 * '.' or the directory of a file the call wrote with that name: that
 * file's content is read as the script (by its #! line). */
void shell_files_run_name(struct cctx *x, const struct word *w);
/* After the script was read: when a file it ran was written only later
 * in the text (sh p & echo CMD > p), reads the script once more, now
 * knowing what was written there. */
void shell_files_late(struct cctx *x);
/* What the command w[0..n) writes to stdout when the call shows it, given
 * its stdin text (in, NULL when unknown): cat and tee of stdin, base64 -d
 * of stdin, echo and printf of literal words. Appends to out; false when
 * the output is not known. */
bool shell_cmd_output(struct cctx *x, const struct word *w, size_t n, const char *in,
                      size_t inlen, struct buf *out);

/* ---- package names (pkg_names.c) ---- */
/* The popular package (static) that the requirement spec is one edit away
 * from, in eco ("python", "npm", "cargo", "gem"), or NULL. */
const char *pkg_typosquat(const char *eco, const char *spec);

/* ---- inline code of interpreters (shell_code.c) ---- */
void code_scan(struct cctx *x, const char *lang, const char *code, size_t len, struct span sp);

/* ---- rule catalogue (rules.c) ---- */
bool rules_known(const char *id);

#endif
