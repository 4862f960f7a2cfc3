/*
 * policy_internal.h: the policy's body, shared by the files of policy/ only.
 * Every value carries the index of the layer it came from (origins[]), so
 * `airlock policy show` can say where it was set; layer 0 is the defaults.
 */
#ifndef AIRLOCK_POLICY_INTERNAL_H
#define AIRLOCK_POLICY_INTERNAL_H

#include <stdint.h>

#include "policy/policy.h"

#define POLICY_MAX_ERRORS 20      /* messages kept per load; the rest are counted */
#define POLICY_MAX_PER_MINUTE 10000
#define POLICY_MAX_TOOLS 64       /* distinct tools the per-minute breaker tracks */
#define POLICY_MAX_RULES 10000    /* rules per policy, all layers and the session */
#define POLICY_MAX_PATTERN 4096   /* bytes in one rule pattern */
#define POLICY_MAX_ENTRIES 100000 /* key = value lines over every layer */

/* What a rule pattern matches against. */
enum pattern_kind {
	PK_SHELL, /* verdict->commands */
	PK_READ,  /* verdict->reads */
	PK_EDIT,  /* verdict->writes (Edit and Write) */
	PK_HOST,  /* verdict->hosts */
	PK_SQL,   /* verdict->statements */
	PK_MCP,   /* call->name "mcp:server.tool" */
};
#define PK_COUNT 6

/* ask-critical: a critical call its rules cover asks instead of being
 * denied (kubectl delete under `allow = Shell(kubectl *)` became critical,
 * and nothing between deny and auto-run was left for it). */
enum rule_act { RA_ALLOW, RA_ASK, RA_DENY, RA_ALLOW_CRITICAL, RA_ASK_CRITICAL };
#define RA_COUNT 5
#define RA_BIT(a) (1u << (a))
/* The key that names the act in a policy file: "allow" ... "ask-critical". */
const char *rule_act_name(enum rule_act a);

/* One word of a Shell pattern. */
struct pword {
	char *glob;   /* fnmatch pattern (quoted parts escaped) */
	char *lit;    /* the literal text when the word has no glob characters */
	bool any;     /* a lone `*`: zero or more words */
};

/* A parsed rule pattern. */
struct pattern {
	enum pattern_kind kind;
	char *text;          /* as written; owned */
	bool all;            /* a bare tool name: every subject of this kind */
	struct pword *words; /* PK_SHELL */
	size_t nwords;
	bool prefix;         /* PK_SHELL: trailing `:*` */
	bool star_end;       /* PK_SHELL: the last word ends in a glued `*` (git push*) */
	char *span;          /* PK_SHELL: with a `*` elsewhere in a word (curl*evil*,
	                      * *--force*), the words' globs joined by spaces, for
	                      * deny and ask rules to match across words; or NULL */
	uint32_t head;       /* PK_SHELL: hash of a literal first word, 0 when a glob */
	size_t flag_at;      /* PK_SHELL: its first run of option words (rm -rf *: 1 to */
	size_t flag_end;     /* 2), after literal words only; 0 when none */
	char **segs;         /* PK_READ/PK_EDIT: absolute glob segments */
	bool *segglob;       /* per segment: holds glob characters (else strcmp) */
	size_t nsegs;
	char *glob;          /* PK_HOST/PK_SQL/PK_MCP */
	bool subdomains;     /* PK_HOST: `*.example.com` */
};

struct rule {
	enum rule_act act;
	struct pattern pat;
	int origin;
};

/* Rules grouped by kind, so a call only looks at rules that can match it;
 * Shell rules are also indexed by their first word's hash. */
#define SHELL_BUCKETS 64
struct rule_index {
	uint32_t *v; /* indexes into ruleset.v[PK_SHELL], ascending */
	size_t n;
};
struct ruleset {
	struct rule *v[PK_COUNT];
	size_t n[PK_COUNT];
	struct rule_index bucket[SHELL_BUCKETS]; /* by pattern.head */
	struct rule_index wild;                  /* head 0: any first word */
};

struct credential {
	char *name;        /* environment variable */
	struct ruleset rs; /* the `for` patterns, act RA_ALLOW */
	char *file;        /* bound read-only; NULL when none */
	int origin;
};

struct tier_conf {
	enum action action;
	char *profile;       /* a profile name; owned */
	long long timeout;   /* approval-timeout, seconds */
	int o_action, o_profile, o_timeout;
	/* Set by untrusted project files, checked in order when loading ends:
	 * the profile before the first of them, then the one each later file
	 * replaced (a nested file must not drop an outer file's choice). */
	char *steps[POLICY_MAX_PROJECT_FILES + 2];
	int o_steps[POLICY_MAX_PROJECT_FILES + 2];
	size_t nsteps;
};

/* Indexes into profile_origin.o[], one per profile key. */
enum profile_key {
	PKEY_NETWORK, PKEY_WORKDIR, PKEY_READ_ONLY, PKEY_READ_WRITE, PKEY_HOME, PKEY_ENV,
	PKEY_MEMORY, PKEY_CPU, PKEY_TIMEOUT, PKEY_PROCESSES, PKEY_FILE_SIZE, PKEY_OUTPUT,
	PKEY_TMP_SIZE, PKEY_SECRETS, PKEY_SECRETS_SKIP,
};
#define PKEY_COUNT 15

struct profile_entry {
	struct profile *prof;
	int o[PKEY_COUNT];
};

struct breaker_conf {
	long long per_minute, repeat, session_seconds;
	enum action action;
	int o_per_minute, o_repeat, o_session, o_action;
};

/* The breakers' session state (breaker.c). */
struct tool_window {
	char *tool;
	time_t *ring;      /* the last `cap` call times */
	size_t head, count, cap;
};
struct breaker_state {
	struct tool_window tools[POLICY_MAX_TOOLS + 1]; /* the last one is "other" */
	size_t ntools;
	uint64_t last_hash;
	long long same;       /* how many times in a row last_hash was seen */
	long long runtime_ms; /* auto-run wall time this session */
	policy_key_fn key;    /* policy_breaker_key(), or NULL */
	void *key_arg;
};

struct policy {
	char *workdir, *home;        /* anchors for path patterns; owned */
	char **origins;              /* "default", file paths, "session" */
	int user_layer, project_layer; /* origins[] index, -1 when absent */
	struct tier_conf tiers[TIER_COUNT];
	struct profile_entry *profiles;
	size_t nprofiles;
	struct ruleset rules;
	size_t nrules;
	struct credential *creds;
	size_t ncreds;
	struct breaker_conf breaker;
	bool trust_project;
	bool workdir_guessed;        /* policy_source.guessed: trust nothing of a project */
	enum tier unknown_program, unknown_tool;
	int o_trust, o_unknown_program, o_unknown_tool;
	int session_origin;          /* origins[] index of remembered rules */
	char **warnings;             /* loosening a project tried; owned */
	char **files;                /* the real paths of the files read (layers and
	                              * includes): writes to them are guarded; owned */
	struct breaker_state bs;
	bool no_reasons;             /* policy_set_reasons(false): plan.reason stays NULL */
	char digest[65];             /* computed on first use; "" until then */
};

/* defaults.c */
void policy_defaults_apply(struct policy *p);
struct profile_entry *policy_profile_entry(struct policy *p, const char *name, bool create);
/* Returns true when a is at most as permissive as b. */
bool profile_no_looser(const struct profile *a, const struct profile *b);
/* Formats a size for a policy file ("2g", "512m", "1000"); static buffer. */
const char *policy_size_text(long long v, char buf[32]);
int policy_origin_add(struct policy *p, const char *name);

/* rules.c */
int pattern_parse(const char *text, const char *workdir, const char *home,
                  struct pattern *out, char **errstr) AIRLOCK_MUST_CHECK;
void pattern_clear(struct pattern *pat);
/* Adds a rule; takes ownership of pat. Returns -1 past POLICY_MAX_RULES. */
int ruleset_add(struct ruleset *rs, enum rule_act act, struct pattern *pat, int origin);
void ruleset_clear(struct ruleset *rs);
/* The rules that bear on one call. */
struct rule_result {
	const struct rule *deny, *ask;   /* matched any subject */
	const struct rule *allow;        /* allow or allow-critical covered every subject */
	const struct rule *allow_critical; /* allow-critical covered every subject */
	const struct rule *ask_critical;   /* ask- or allow-critical covered every subject */
	const struct rule *allow_partial;  /* an allow matched, but not everything */
	const char *unexplained;           /* shell: a finding no command accounts for */
	const char *guarded, *guarded_why; /* a finding only allow-critical lowers, and why */
	bool policy_dir;                   /* writes into a .airlock directory: at least high */
};
/* Evaluates every rule against the call in one walk. */
void ruleset_decide(const struct ruleset *rs, const struct call *c, const struct verdict *v,
                    struct rule_result *out);
/* ruleset_decide() over the policy's rules, with writes to the files the
 * policy was read from guarded (policy.c). */
void policy_rules_decide(const struct policy *p, const struct call *c,
                         const struct verdict *v, struct rule_result *out);
/* Returns a rule with act in mask when such rules cover every subject the
 * call acts on (each command, path, host, statement), else NULL. */
const struct rule *ruleset_cover(const struct ruleset *rs, unsigned mask,
                                 const struct call *c, const struct verdict *v);
bool pattern_match_command(const struct pattern *pat, char *const *argv);
bool pattern_match_path(const struct pattern *pat, const char *path);
/* A Read or Edit pattern's absolute segments, each after a '/': the form
 * policy_globs_new() takes; a new string. */
char *pattern_path_text(const struct pattern *pat);
/* A SQL statement as Sql() rules see it: whitespace and comments collapsed
 * to one space, trimmed, without a trailing ';'. Returns a new string. */
char *pattern_sql_normalize(const char *s);
/* The kind's rule name, "Shell" ... "Mcp". */
const char *pattern_kind_name(enum pattern_kind k);

/* breaker.c */
enum breaker_trip { TRIP_NONE, TRIP_PER_MINUTE, TRIP_REPEAT, TRIP_SESSION };
/* Records the call; returns the breaker it trips, if any. */
enum breaker_trip breaker_record(struct policy *p, const struct call *c, time_t now);
/* Returns a new reason naming the tripped breaker (NULL for TRIP_NONE). */
char *breaker_reason(const struct policy *p, enum breaker_trip trip, const struct call *c);
void breaker_state_clear(struct breaker_state *bs);

/* load.c */
/* Checks a policy file's type, owner and mode; *exists false when absent
 * and !must_exist. Returns 0, or -1 with *errstr (caller frees). */
int policy_check_file_mode(const char *path, bool must_exist, bool *exists, char **errstr);

/* keys.c: one row per section and key; values checked, typed and merged. */
struct load_errors {
	char **msgs;
	size_t n, dropped; /* kept up to POLICY_MAX_ERRORS, the rest counted */
};
void load_error_add(struct load_errors *le, const char *fmt, ...) AIRLOCK_PRINTF(2, 3);
/* Returns the messages, one a line, as a new string; resets le. */
char *load_errors_take(struct load_errors *le);
/* An entry's value read as a boolean and as a number by libgit2, when the
 * entry is read (so applying it, from a kept reading too, needs none). */
struct entry_typed {
	int bool_rc, int_rc; /* 0, or -1: not one */
	int bool_v;          /* a key with no '=' is true */
	int64_t int_v;
};
struct load_ctx {
	struct policy *p;
	const struct entry_typed *typed; /* the entry's being applied */
	struct load_errors *le;
	const char *path;   /* the layer's file */
	const char *anchor; /* where its relative patterns start: a project file's
	                     * own directory, else the outermost project's */
	int origin;
	bool project;       /* a project file, outermost or nested */
	bool nested;        /* a project file inside another project's */
	bool untrusted;     /* a nested project file, or one without trust-project:
	                     * stricter only */
	const char *foreign; /* a project file that read this file outside the
	                      * project: its entries' names and values are not shown */
	int foreign_said;    /* the origin whose entries were last said so */
};
/* Applies one "section.sub.key" = value (value NULL: no '='). */
void load_apply_entry(struct load_ctx *cx, const char *name, const char *value);
/* Cross-key checks once every layer is in: tier profiles exist and an
 * untrusted project did not swap in a looser one. */
void load_finish(struct policy *p, struct load_errors *le);

/* show.c */
/* Renders the policy as a policy file; origins as comments when asked. */
char *policy_render(const struct policy *p, bool origins);

#endif
