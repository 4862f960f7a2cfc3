/*
 * secrets.c: which paths hold credentials, and which byte strings look like
 * credentials (classify_find_secret(), shared with the audit redactor).
 * Rules: a false positive costs one approval; a miss leaks a key, so the
 * lists err towards matching (globs such as ~/.ssh/STAR match too).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* A path (or part of one) that holds secrets, and what they are. */
struct secret_row {
	const char *match;
	const char *why;
};

/* Under $HOME (or /root). */
static const struct secret_row home_secrets[] = {
	{".ssh", "SSH keys"},
	{".aws", "AWS credentials"},
	{".config/gcloud", "Google Cloud credentials"},
	{".kube", "Kubernetes credentials"},
	{".docker/config.json", "Docker registry credentials"},
	{".netrc", "login passwords"},
	{".git-credentials", "git credentials"},
	{".gnupg", "GnuPG keys"},
	{".pgpass", "PostgreSQL passwords"},
	{".pypirc", "PyPI tokens"},
	{".config/gh", "GitHub CLI tokens"},
	{".vault-token", "a Vault token"},
	{".azure", "Azure credentials"},
	{".password-store", "a password store"},
	{".my.cnf", "MySQL passwords"},
	{".npmrc", "npm registry tokens"},
	{".yarnrc.yml", "yarn registry tokens"},
	{".cargo/credentials", "crates.io tokens"},
	{".cargo/credentials.toml", "crates.io tokens"},
	{".gem/credentials", "RubyGems tokens"},
	{".m2/settings.xml", "Maven repository passwords"},
	{".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"},
	{".config/hub", "GitHub tokens"},
	{".config/rclone/rclone.conf", "cloud storage credentials"},
	{".bash_history", "shell history, which holds typed secrets"},
	{".zsh_history", "shell history, which holds typed secrets"},
	{".local/share/fish/fish_history", "shell history, which holds typed secrets"},
	{".psql_history", "psql history, which holds passwords set in SQL"},
	{".mysql_history", "mysql history, which holds passwords set in SQL"},
	{".claude/.credentials.json", "Claude Code's login token"},
	{".codex/auth.json", "Codex's login token"},
	{".config/github-copilot", "GitHub Copilot tokens"},
	{".cache/huggingface/token", "a Hugging Face token"},
	{".huggingface/token", "a Hugging Face token"},
	{".s3cfg", "S3 credentials"},
	{".boto", "cloud storage credentials"},
	{".terraformrc", "Terraform tokens"},
	{".config/op", "1Password CLI sessions"},
	{".local/share/keyrings", "the desktop keyring"},
	{".mozilla", "browser cookies and saved passwords"},
	{".config/google-chrome", "browser cookies and saved passwords"},
	{".config/chromium", "browser cookies and saved passwords"},
	{".config/BraveSoftware", "browser cookies and saved passwords"},
	{".python_history", "Python REPL history, which holds typed secrets"},
	{".node_repl_history", "Node REPL history, which holds typed secrets"},
	{".gradle/gradle.properties", "Gradle repository and signing passwords"},
	{".nuget/NuGet/NuGet.Config", "NuGet API keys"},
	{".config/composer/auth.json", "Composer registry tokens"},
	{".composer/auth.json", "Composer registry tokens"},
	{".config/pypoetry/auth.toml", "Poetry registry tokens"},
	{".config/pip/pip.conf", "package index URLs, which carry passwords"},
	{".pip/pip.conf", "package index URLs, which carry passwords"},
	{".sentryclirc", "Sentry auth tokens"},
	{".config/doctl", "DigitalOcean tokens"},
	{".oci", "Oracle Cloud keys"},
	{".netlify/config.json", "Netlify tokens"},
	{".vercel", "Vercel tokens"},
	{".local/share/com.vercel.cli", "Vercel tokens"},
	{".config/configstore/firebase-tools.json", "Firebase tokens"},
	{".wrangler/config", "Cloudflare tokens"},
	{".config/.wrangler/config", "Cloudflare tokens"},
	{".fly/config.yml", "Fly.io tokens"},
	{".ngrok2/ngrok.yml", "an ngrok token"},
	{".config/ngrok", "an ngrok token"},
	{".config/containers/auth.json", "container registry logins (podman, buildah)"},
	{".config/glab-cli", "GitLab CLI tokens"},
	{".config/sops/age", "age keys that decrypt SOPS files"},
	{".config/stripe", "Stripe API keys"},
	{".config/hcloud", "Hetzner Cloud tokens"},
	{".config/helm/repositories.yaml", "Helm repository passwords"},
	{".config/atuin/key", "the key of atuin's synced shell history"},
	{".local/share/atuin", "shell history, which holds typed secrets"},
	{".config/fish/fish_variables", "fish universal variables, exported tokens among them"},
	{".config/jfrog", "JFrog tokens"},
	{".jfrog", "JFrog tokens"},
	{".config/supabase", "Supabase tokens"},
	{".supabase", "Supabase tokens"},
	{".railway", "Railway tokens"},
	{".circleci/cli.yml", "CircleCI tokens"},
	{".databrickscfg", "Databricks tokens"},
	{".dbt/profiles.yml", "database passwords (dbt profiles)"},
	{".snowflake", "Snowflake connections and passwords"},
	{".m2/settings-security.xml", "Maven's master password"},
	{".ivy2/.credentials", "Ivy repository passwords"},
	{".sbt/.credentials", "sbt repository passwords"},
	{".gemini/oauth_creds.json", "Gemini CLI's login token"},
	{".tsh", "Teleport keys and certificates"},
	{".config/microsoft-edge", "browser cookies and saved passwords"},
	{".config/vivaldi", "browser cookies and saved passwords"},
	{".config/opera", "browser cookies and saved passwords"},
	/* review 14: read_file of each was low, auto-run outside the sandbox */
	{".authinfo", "login passwords (auth-source)"},
	{".authinfo.gpg", "login passwords (auth-source)"},
	{".msmtprc", "mail account passwords"},
	{".fetchmailrc", "mail account passwords"},
	{".mylogin.cnf", "MySQL login paths and passwords"},
	{".rediscli_history", "redis-cli history, which holds AUTH passwords"},
	{".config/Slack", "Slack session cookies"},
	{".config/discord", "Discord session tokens"},
	{".config/netlify", "Netlify tokens"},
	{".config/scw", "Scaleway API keys"},
	{".config/linode-cli", "Linode tokens"},
	{".config/twilio-cli", "Twilio API keys"},
	{".config/exoscale", "Exoscale API keys"},
	{".aliyun", "Alibaba Cloud access keys"},
	{".bluemix", "IBM Cloud tokens"},
	{".cf/config.json", "Cloud Foundry tokens"},
	{".okta", "Okta tokens"},
	{".tccli", "Tencent Cloud keys"},
	{".electrum", "cryptocurrency wallets"},
	{".ethereum/keystore", "cryptocurrency wallet keys"},
	/* coding agents' own settings: API keys, and MCP servers' env tokens */
	{".claude.json", "Claude Code's settings, API key and MCP servers' tokens"},
	{".config/Claude", "Claude Desktop's MCP servers' tokens"},
	{".cursor/mcp.json", "Cursor's MCP servers' tokens"},
	{".codeium/windsurf/mcp_config.json", "Windsurf's MCP servers' tokens"},
	{".codex/config.toml", "Codex's MCP servers' tokens"},
	{".gemini/settings.json", "Gemini CLI's API key and MCP servers' tokens"},
	{".aider.conf.yml", "aider's API keys"},
	{".continue/config.json", "Continue's API keys"},
	{".continue/config.yaml", "Continue's API keys"},
};

static const struct secret_row abs_secrets[] = {
	{"/etc/shadow", "password hashes"},
	{"/etc/gshadow", "group password hashes"},
	{"/etc/sudoers", "sudo rules"},
	{"/etc/ssh/ssh_host_", "SSH host keys"},
	{"/etc/ssl/private", "TLS private keys"},
	{"/root/.ssh", "root's SSH keys"},
	{"/var/run/secrets/", "mounted service secrets (Kubernetes, Docker)"},
	{"/run/secrets/", "mounted service secrets (Kubernetes, Docker)"},
	{"/etc/krb5.keytab", "Kerberos service keys"},
	{"/tmp/krb5cc_", "a Kerberos ticket cache"},
};

/* Basename prefixes and suffixes. */
static const char *const key_prefixes[] = {"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"};
static const char *const key_suffixes[] = {".pem", ".key", ".p12", ".pfx", ".jks",
                                           ".keystore", ".ppk", ".keytab", ".p8"};
/* Whole basenames that hold secrets wherever they are. */
static const struct secret_row secret_files[] = {
	{"secrets.yml", "application secrets"},
	{"secrets.yaml", "application secrets"},
	{"master.key", "a Rails master key"},
	{"credentials.yml.enc", "encrypted Rails credentials"},
	{"terraform.tfstate", "Terraform state, which holds secrets"},
	{"terraform.tfstate.backup", "Terraform state, which holds secrets"},
	{".htpasswd", "password hashes"},
	{".pgpass", "PostgreSQL passwords"},
	{".my.cnf", "MySQL passwords"},
	{".npmrc", "npm registry tokens"},
	{".envrc", "direnv exports, which hold secrets"},
	/* a project's own copy holds what the home's does */
	{".netrc", "machine logins and passwords (.netrc)"},
	{".git-credentials", "git credentials in plain text"},
	{".pypirc", "package index upload tokens"},
	{".vault-token", "a HashiCorp Vault token"},
	{".s3cfg", "S3 access keys"},
	{".dev.vars", "local Cloudflare Workers secrets"},
	{"kubeconfig", "a Kubernetes cluster's credentials"},
	{".dockercfg", "container registry logins"},
	{"secrets.json", "application secrets"},
	{".secrets", "secrets for local CI runs (act)"},
	{"wp-config.php", "WordPress database passwords and keys"},
	{"logins.json", "saved browser passwords"},
	{"key4.db", "the browser's password key"},
	{"cookies.sqlite", "browser cookies"},
	/* review 14: names the table did not know (cat of each was low, and
	 * the sandbox showed them) */
	{".authinfo", "login passwords (auth-source)"},
	{".authinfo.gpg", "login passwords (auth-source)"},
	{".mylogin.cnf", "MySQL login paths and passwords"},
	{".secrets.toml", "application secrets (Dynaconf)"},
	{"local.settings.json", "Azure Functions' local secrets and connection strings"},
	{"application_default_credentials.json", "Google Cloud credentials"},
	{"kubeconfig.yaml", "a Kubernetes cluster's credentials"},
	{"kubeconfig.yml", "a Kubernetes cluster's credentials"},
	{"wallet.dat", "a cryptocurrency wallet"},
	{"private_key", "a private key"},
	{"private_key.txt", "a private key"},
	{"private_key.json", "a private key"},
	{"privkey", "a private key"},
	{"privkey.txt", "a private key"},
};
/* The last part of an environment file's name (after its last . - or _),
 * or the first of NAME.env, that makes it a template of the keys, which
 * projects commit: .env.example, .env.production.sample, .env-example,
 * example.env. (Only .env.example, .sample, .template and .dist were: an
 * agent asked to start from .env.local.example had to ask, and the sandbox
 * hid it.) */
static const char *const env_benign[] = {"example", "sample", "template", "dist",
                                         "tpl",     "defaults", "schema"};

static bool env_template(const char *base, size_t bl)
{
	const char *last = base + bl;
	size_t n;

	while (last > base + 4 && !strchr(".-_", last[-1]))
		last--;
	n = strcspn(base, ".");
	for (size_t i = 0; i < nitems(env_benign); i++)
		if ((last > base + 4 && strcmp(last, env_benign[i]) == 0) ||
		    (n && n == strlen(env_benign[i]) && strncmp(base, env_benign[i], n) == 0))
			return true;
	return false;
}

static bool dir_match(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* The bytes a secret basename can start or end with: those of the
 * tables above, and of the literal checks in basename_secret() (".env*",
 * "credentials", "client_secret*", "service-account*", "gha-creds-*"; "*.env",
 * "*.tfvars", "*.tfstate", "*.kdbx", "*accessKeys.csv"),
 * which must name theirs here. A name that starts and ends with neither,
 * most of a source tree, is answered without a comparison: the sandbox's
 * search asks for every entry of the workdir (a quarter of its time on a
 * tree of 22,000 files). */
static const char anchor_first[] = ".csg", anchor_last[] = "vsxe";
static bool may_first[256], may_last[256];
static pthread_once_t anchors_once = PTHREAD_ONCE_INIT;

static void anchors_build(void)
{
	for (const char *a = anchor_first; *a; a++)
		may_first[(unsigned char)*a] = true;
	for (const char *a = anchor_last; *a; a++)
		may_last[(unsigned char)*a] = true;
	for (size_t i = 0; i < nitems(secret_files); i++)
		may_first[(unsigned char)secret_files[i].match[0]] = true;
	for (size_t i = 0; i < nitems(key_prefixes); i++)
		may_first[(unsigned char)key_prefixes[i][0]] = true;
	for (size_t i = 0; i < nitems(key_suffixes); i++)
		may_last[(unsigned char)key_suffixes[i][strlen(key_suffixes[i]) - 1]] = true;
}

static const char *basename_secret(const char *base)
{
	size_t bl = strlen(base);

	pthread_once(&anchors_once, anchors_build);
	if (bl == 0 || (!may_first[(unsigned char)base[0]] && !may_last[(unsigned char)base[bl - 1]]))
		return NULL;

	/* .env, .env.prod, .env-prod, .env_local, an editor's .env~; prod.env */
	if ((strncmp(base, ".env", 4) == 0 && strchr(".-_~*", base[4])) ||
	    (bl > 4 && strcmp(base + bl - 4, ".env") == 0 &&
	     strspn(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	             bl)) {
		if (env_template(base, bl))
			return NULL;
		return "an environment file with secrets";
	}
	for (size_t i = 0; i < nitems(secret_files); i++)
		if (strcmp(base, secret_files[i].match) == 0)
			return secret_files[i].why;
	for (size_t i = 0; i < nitems(key_prefixes); i++)
		if (strncmp(base, key_prefixes[i], strlen(key_prefixes[i])) == 0)
			return "an SSH private key";
	for (size_t i = 0; i < nitems(key_suffixes); i++) {
		size_t sl = strlen(key_suffixes[i]);
		if (bl > sl && strcmp(base + bl - sl, key_suffixes[i]) == 0)
			return "a key or certificate file";
	}
	if (strcmp(base, "credentials") == 0 || strcmp(base, "credentials.json") == 0 ||
	    strcmp(base, "credentials.csv") == 0)
		return "a credentials file";
	/* Google's OAuth client download: client_secret_ID.apps.googleusercontent.com.json */
	if (strncmp(base, "client_secret", 13) == 0 && bl > 5 && strcmp(base + bl - 5, ".json") == 0)
		return "an OAuth client secret";
	/* the AWS console's access key download: NAME_accessKeys.csv */
	if (bl >= 14 && strcmp(base + bl - 14, "accessKeys.csv") == 0)
		return "AWS access keys";
	if (bl > 7 && strcmp(base + bl - 7, ".tfvars") == 0)
		return "Terraform variables, which often hold secrets";
	/* any state file's name (-state=prod.tfstate, terragrunt's copies):
	 * resources' passwords and keys in plain text */
	if (bl > 8 && strcmp(base + bl - 8, ".tfstate") == 0)
		return "Terraform state, which holds secrets";
	if (bl > 5 && strcmp(base + bl - 5, ".kdbx") == 0)
		return "a KeePass password database";
	if (strncmp(base, "service-account", 15) == 0 && bl > 5 && strcmp(base + bl - 5, ".json") == 0)
		return "a cloud service account key";
	/* Streamlit's .streamlit/secrets.toml (a suffix test, as a literal of
	 * that name reads as a rule id to tests/e2e/140-docs-journey.sh) */
	if (strncmp(base, "secrets.", 8) == 0 && strcmp(base + 8, "toml") == 0)
		return "application secrets (Streamlit)";
	/* google-github-actions/auth writes its key into the workspace */
	if (strncmp(base, "gha-creds-", 10) == 0 && bl > 5 && strcmp(base + bl - 5, ".json") == 0)
		return "a cloud service account key (GitHub Actions)";
	return NULL;
}

/* Secret names a glob's last component is tried against (a file of each
 * suffix stands for the suffix). */
static const char *const glob_names[] = {
	".env", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "secrets.yml", "secrets.yaml",
	"master.key", "credentials", "credentials.json", ".htpasswd", ".pgpass", ".npmrc",
	".my.cnf", "client_secret.json",
	".envrc", "terraform.tfstate", "x.pem", "x.key", "x.p12", "x.pfx", "x.jks", "x.ppk",
};

/* True when the first components of the glob pat match every component of
 * path, as the shell would expand them (a leading dot must be literal). */
static bool glob_reaches(const char *pat, const char *path)
{
	char pc[256], sc[256];

	while (*path == '/' && *pat == '/') {
		size_t pn = strcspn(++pat, "/"), sn = strcspn(++path, "/");
		if (pn >= sizeof(pc) || sn >= sizeof(sc))
			return false;
		memcpy(pc, pat, pn), pc[pn] = '\0';
		memcpy(sc, path, sn), sc[sn] = '\0';
		if (fnmatch(pc, sc, FNM_PERIOD) != 0)
			return false;
		pat += pn, path += sn;
	}
	return *path == '\0';
}

/* The characters of a glob component that match only themselves. */
static size_t glob_literals(const char *g)
{
	size_t n = 0;
	bool in_class = false;

	for (; *g; g++) {
		if (*g == '[')
			in_class = true;
		else if (*g == ']')
			in_class = false;
		else if (!in_class && *g != '*' && *g != '?')
			n++;
	}
	return n;
}

const char *classify_secret_name(const char *base)
{
	return basename_secret(base);
}

/* A glob (~/.ss?/id_*, /etc/shado?, .en?) that can expand to a secret: its
 * directories reach a secret directory or file, or its last component, with
 * at least two literal characters (so not a bare *), matches a secret name. */
static const char *glob_secret(const struct cctx *x, const char *pat)
{
	char cand[CLS_MAX_PATH];
	const char *base = strrchr(pat, '/');
	size_t lit;

	for (size_t i = 0; i < nitems(home_secrets); i++) {
		snprintf(cand, sizeof(cand), "%s/%s", x->home, home_secrets[i].match);
		if (glob_reaches(pat, cand))
			return home_secrets[i].why;
	}
	for (size_t i = 0; i < nitems(abs_secrets); i++)
		if (glob_reaches(pat, abs_secrets[i].match))
			return abs_secrets[i].why;
	base = base ? base + 1 : pat;
	lit = glob_literals(base);
	for (size_t i = 0; lit >= 2 && i < nitems(glob_names); i++)
		if (fnmatch(base, glob_names[i], FNM_PERIOD) == 0)
			return basename_secret(glob_names[i]);
	return NULL;
}

/* The part of abs below /root/ or /home/USER/, or NULL. */
static const char *other_home(const char *abs)
{
	const char *s;

	if (strncmp(abs, "/root/", 6) == 0)
		return abs + 6;
	if (strncmp(abs, "/home/", 6) != 0 || (s = strchr(abs + 6, '/')) == NULL || s == abs + 6)
		return NULL;
	return s + 1;
}

const char *secrets_path(const struct cctx *x, const char *abs)
{
	size_t hl = strlen(x->home);
	const char *base = strrchr(abs, '/'), *rel;

	if (strpbrk(abs, "*?[") && (base = glob_secret(x, abs)) != NULL)
		return base;
	base = strrchr(abs, '/');
	if (!secrets_maybe_path(abs)) /* every pattern below holds a hint */
		return NULL;
	if (hl > 1 && strncmp(abs, x->home, hl) == 0 && abs[hl] == '/')
		for (size_t i = 0; i < nitems(home_secrets); i++)
			if (dir_match(abs + hl + 1, home_secrets[i].match))
				return home_secrets[i].why;
	if ((rel = other_home(abs)) != NULL) /* root's or another user's home */
		for (size_t i = 0; i < nitems(home_secrets); i++)
			if (dir_match(rel, home_secrets[i].match))
				return home_secrets[i].why;
	for (size_t i = 0; i < nitems(abs_secrets); i++)
		if (strncmp(abs, abs_secrets[i].match, strlen(abs_secrets[i].match)) == 0)
			return abs_secrets[i].why;
	if (strstr(abs, "/.ssh/") || strstr(abs, "/.aws/") || strstr(abs, "/.gnupg/"))
		return "another user's keys";
	if (strncmp(abs, "/proc/", 6) == 0 && strstr(abs, "/environ"))
		return "a process environment";
	if (strcmp(abs, "/proc/kcore") == 0 ||
	    (strncmp(abs, "/proc/", 6) == 0 && strlen(abs) > 10 && strcmp(abs + strlen(abs) - 4, "/mem") == 0))
		return "a process's or the kernel's memory";
	return base ? basename_secret(base + 1) : NULL;
}

/* True when rel (a path relative to a home, no trailing /) is a proper
 * ancestor of a row's match: rel/ starts it. */
static bool rows_below(const struct secret_row *rows, size_t n, const char *rel)
{
	size_t rl = strlen(rel);

	for (size_t i = 0; i < n; i++)
		if (strncmp(rows[i].match, rel, rl) == 0 && rows[i].match[rl] == '/')
			return true;
	return false;
}

bool secrets_holds_dir(const struct cctx *x, const char *abs)
{
	size_t hl = strlen(x->home);
	const char *rel = NULL;

	if (hl > 1 && strncmp(abs, x->home, hl) == 0 && abs[hl] == '/')
		rel = abs + hl + 1;
	else if (strcmp(abs, "/home") == 0 || (strncmp(abs, "/home/", 6) == 0 && abs[6] &&
	                                       strchr(abs + 6, '/') == NULL))
		return true; /* the homes, or another user's: their ~/.ssh */
	else
		rel = other_home(abs);
	if (rel && *rel && rows_below(home_secrets, nitems(home_secrets), rel))
		return true;
	/* /run, /var/run, /var, /etc/ssl, /etc/ssh; not /tmp (krb5cc_ is a
	 * prefix, and every build reads /tmp) */
	if (strcmp(abs, "/tmp") == 0)
		return false;
	for (size_t i = 0; i < nitems(abs_secrets); i++) {
		size_t al = strlen(abs);
		if (al > 1 && strncmp(abs_secrets[i].match, abs, al) == 0 &&
		    abs_secrets[i].match[al] == '/')
			return true;
	}
	return false;
}

/* Hints after a '.', by their first byte, as other_hints below. */
static const char *const *const dot_hints[256] = {
	['a'] = (const char *const[]){"aws", "azure", "authinfo", "aliyun", "aider.conf", NULL},
	['b'] = (const char *const[]){"bash_history", "boto", "bluemix", NULL},
	['c'] = (const char *const[]){"cargo/credentials", "codex/auth", "cache/huggingface",
	                              "composer", "circleci", "cf/config.json", "claude.json",
	                              "cursor/mcp", "codeium/windsurf", "codex/config",
	                              "continue/config", NULL},
	['d'] = (const char *const[]){"docker", "dev.vars", "dockercfg", "databrickscfg", "dbt/",
	                              NULL},
	['e'] = (const char *const[]){"env", "electrum", "ethereum/keystore", NULL},
	['f'] = (const char *const[]){"fly/", "fetchmailrc", NULL},
	['g'] = (const char *const[]){"gnupg", "git-credentials", "gem/credentials",
	                              "gradle/gradle.properties", "gemini/", NULL},
	['i'] = (const char *const[]){"ivy2/", NULL},
	['h'] = (const char *const[]){"htpasswd", "huggingface", NULL},
	['j'] = (const char *const[]){"jks", "jfrog", NULL},
	['k'] = (const char *const[]){"kube", "key", "keystore", "kdbx", NULL},
	['l'] = (const char *const[]){"local/share/keyrings", "local/share/fish",
	                              "local/share/com.vercel", "local/share/atuin", NULL},
	['m'] = (const char *const[]){"my.cnf", "m2/settings", "mysql_history", "mozilla",
	                              "msmtprc", "mylogin.cnf", NULL},
	['n'] = (const char *const[]){"netrc", "npmrc", "node_repl_history", "nuget", "netlify",
	                              "ngrok2", NULL},
	['o'] = (const char *const[]){"oci", "okta", NULL},
	['p'] = (const char *const[]){"pem", "pgpass", "pypirc", "p12", "pfx", "password-store", "p8",
	                              "pip/pip.conf",
	                              "ppk", "psql_history", "python_history", NULL},
	['r'] = (const char *const[]){"railway", "rediscli_history", NULL},
	['s'] = (const char *const[]){"ssh", "s3cfg", "secrets", "supabase", "snowflake", "sbt/",
	                              "sentryclirc",
	                              NULL},
	['t'] = (const char *const[]){"terraform.d", "tfstate", "terraformrc", "tfvars", "tsh",
	                              "tccli", NULL},
	['v'] = (const char *const[]){"vault-token", "vercel", NULL},
	['w'] = (const char *const[]){"wrangler", NULL},
	['y'] = (const char *const[]){"yarnrc", NULL},
	['z'] = (const char *const[]){"zsh_history", NULL},
};
/* Hints after ".config/" (~/.config/NAME), looked at only past that
 * prefix: ".com" and ".conf" are everywhere. */
static const char *const config_hints[] = {
	"gh", "gcloud", "hub", "rclone", "github-copilot", "op", "google-chrome", "chromium",
	"BraveSoftware", "composer", "pypoetry", "doctl", "configstore", ".wrangler", "ngrok",
	"containers", "glab-cli", "sops", "stripe", "hcloud", "helm", "atuin", "fish", "jfrog",
	"supabase", "microsoft-edge", "vivaldi", "opera", "pip/pip.conf", "Slack", "discord",
	"netlify", "scw", "linode-cli", "twilio-cli", "exoscale", "Claude",
};

/* Hints that start elsewhere, by their first byte: a byte that starts none
 * costs one load. */
static const char *const *const other_hints[256] = {
	['/'] = (const char *const[]){"/etc/ssl", "/etc/ssh/ssh_host", "/var/run/secrets/",
	                              "/run/secrets/", "/mem", NULL},
	['a'] = (const char *const[]){"accessKeys.csv", "application_default_credentials", NULL},
	['c'] = (const char *const[]){"credentials", "cookies.sqlite", "client_secret", NULL},
	['e'] = (const char *const[]){"environ", NULL},
	['g'] = (const char *const[]){"gcloud", "gha-creds-", NULL},
	['i'] = (const char *const[]){"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", NULL},
	['k'] = (const char *const[]){"key4.db", "kcore", "krb5cc_", "kubeconfig", NULL},
	['l'] = (const char *const[]){"logins.json", "local.settings.json", NULL},
	['m'] = (const char *const[]){"master.key", NULL},
	['p'] = (const char *const[]){"private_key", "privkey", NULL},
	['s'] = (const char *const[]){"shadow", "sudoers", "secrets.", "service-account", NULL},
	['w'] = (const char *const[]){"wp-config.php", "wallet.dat", NULL},
};

/* One pass over s; compares only where a hint could start. */
bool secrets_maybe_path(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '.') {
			for (const char *const *h = dot_hints[(unsigned char)p[1]]; h && *h; h++)
				if ((*h)[1] == p[2] && strncmp(p + 1, *h, strlen(*h)) == 0) /* 3+ */
					return true;
			if (p[1] == 'c' && strncmp(p + 1, "config/", 7) == 0)
				for (size_t i = 0; i < nitems(config_hints); i++)
					if (config_hints[i][0] == p[8] &&
					    strncmp(p + 8, config_hints[i], strlen(config_hints[i])) == 0)
						return true;
			continue;
		}
		for (const char *const *h = other_hints[(unsigned char)*p]; h && *h; h++)
			if ((*h)[1] == p[1] && strncmp(p, *h, strlen(*h)) == 0) /* each 2+ bytes */
				return true;
	}
	return false;
}

/* ---- environment variables that hold credentials ---- */

static const char *const env_words[] = {"TOKEN",       "SECRET",     "PASS",  "CREDENTIAL",
                                        "APIKEY",      "API_KEY",    "PRIVATE_KEY", "ACCESS_KEY",
                                        "DATABASE_URL", "_DSN"};
/* Names that point at a credential rather than hold it. */
static const char *const env_pointers[] = {"_FILE", "_PATH", "_DIR", "_SOCK",
                                           "APPLICATION_CREDENTIALS"};

bool secrets_env_name(const char *n, size_t len)
{
	char name[128];

	if (len == 0 || len >= sizeof(name))
		return false;
	memcpy(name, n, len);
	name[len] = '\0';
	for (size_t i = 0; i < nitems(env_pointers); i++) {
		size_t pl = strlen(env_pointers[i]);
		if (len > pl && strcmp(name + len - pl, env_pointers[i]) == 0)
			return false;
	}
	for (size_t i = 0; i < nitems(env_words); i++)
		if (strstr(name, env_words[i]))
			return true;
	return (len > 4 && strcmp(name + len - 4, "_KEY") == 0) ||
	       (len > 4 && strcmp(name + len - 4, "_PAT") == 0) ||
	       (len > 4 && strcmp(name + len - 4, "_PWD") == 0); /* MYSQL_PWD, not OLDPWD */
}

bool secrets_env_ref(const char *word, const char **name, size_t *len)
{
	for (const char *p = strchr(word, '$'); p; p = strchr(p + 1, '$')) {
		const char *n = p + 1 + (p[1] == '{');
		size_t l = 0;
		while ((n[l] >= 'A' && n[l] <= 'Z') || (n[l] >= '0' && n[l] <= '9') || n[l] == '_')
			l++;
		if (secrets_env_name(n, l)) {
			*name = n;
			*len = l;
			return true;
		}
	}
	return false;
}

/* ---- secret shapes in text ---- */

struct secret_shape {
	const char *prefix;
	const char *name;
	size_t min;        /* characters of the token body after the prefix */
	const char *chars; /* extra body characters beyond [A-Za-z0-9] */
	bool upper_only;
};

static const struct secret_shape shapes[] = {
	{"AKIA", "aws-access-key", 16, "", true},
	{"ASIA", "aws-access-key", 16, "", true},
	{"ghp_", "github-token", 36, "", false},
	{"gho_", "github-token", 36, "", false},
	{"ghu_", "github-token", 36, "", false},
	{"ghs_", "github-token", 36, "", false},
	{"ghr_", "github-token", 36, "", false},
	{"github_pat_", "github-token", 22, "_", false},
	{"sk-ant-", "anthropic-key", 32, "-_", false},
	{"sk-proj-", "openai-key", 32, "-_", false},
	{"sk-", "openai-key", 32, "-_", false},
	{"xoxb-", "slack-token", 10, "-", false},
	{"xoxp-", "slack-token", 10, "-", false},
	{"xoxa-", "slack-token", 10, "-", false},
	{"xoxs-", "slack-token", 10, "-", false},
	{"xapp-", "slack-token", 10, "-", false},
	{"hooks.slack.com/services/", "slack-webhook", 20, "/", false},
	{"AIza", "google-api-key", 35, "-_", false},
	{"sk_live_", "stripe-key", 20, "", false},
	{"rk_live_", "stripe-key", 20, "", false},
	{"glpat-", "gitlab-token", 20, "-_", false},
	{"npm_", "npm-token", 36, "", false},
	{"glrt-", "gitlab-token", 20, "-_", false},  /* runner */
	{"gldt-", "gitlab-token", 20, "-_", false},  /* deploy */
	{"glptt-", "gitlab-token", 20, "-_", false}, /* pipeline trigger */
	{"pypi-AgE", "pypi-token", 50, "-_", false}, /* a macaroon: pypi.org's and test's */
	{"dckr_pat_", "docker-token", 24, "-_", false},
	{"hf_", "huggingface-token", 30, "", false},
	{"shpat_", "shopify-token", 32, "", false},
	{"shpss_", "shopify-token", 32, "", false},
	{"ya29.", "google-oauth-token", 30, "-_.", false},
	/* the shapes the audit log's redactor learnt in its fourth review:
	 * each body at least as long as the redactor's, in its characters */
	{"AGE-SECRET-KEY-1", "age-secret-key", 50, "", true},
	{"hvs.", "vault-token", 24, "-_", false},
	{"hvb.", "vault-token", 24, "-_", false},
	{"SG.", "sendgrid-key", 60, "-_.", false},
	{"dop_v1_", "digitalocean-token", 64, "", false},
	{"doo_v1_", "digitalocean-token", 64, "", false},
	{"dor_v1_", "digitalocean-token", 64, "", false},
	{"lin_api_", "linear-key", 32, "", false},
	{"glsa_", "grafana-token", 32, "_", false},
	{"PMAK-", "postman-key", 50, "-", false},
};

/* shapes[] by a prefix's first byte, in table order ("sk-ant-" before
 * "sk-"): index + 1, 0 ending a list. The search runs at every offset of
 * every text the audit log redacts, and most bytes start no shape. */
static unsigned char shape_head[256], shape_next[nitems(shapes)];
_Static_assert(nitems(shapes) < 255, "shape indexes are bytes");
static pthread_once_t shapes_once = PTHREAD_ONCE_INIT;

static void shapes_index(void)
{
	for (size_t s = nitems(shapes); s-- > 0;) {
		unsigned char c = (unsigned char)shapes[s].prefix[0];
		shape_next[s] = shape_head[c];
		shape_head[c] = (unsigned char)(s + 1);
	}
}

static size_t body_len(const char *p, size_t n, const struct secret_shape *s)
{
	size_t i = 0;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (s->upper_only ? (isupper(c) || isdigit(c)) : (isalnum(c) || strchr(s->chars, c)))
			continue;
		break;
	}
	return i;
}

static bool word_start(const char *text, size_t i)
{
	return i == 0 || !isalnum((unsigned char)text[i - 1]);
}

/* A private key block: "PRIVATE KEY-----" after a "-----BEGIN ", on its
 * line or (BEGIN line damaged) on the END line. Not line-based, so the text
 * JSON-escaped (newlines as \n) gives the same answer as the raw text. */
const char *classify_find_private_key(const char *text, size_t len, struct span *where)
{
	const char *b = text ? memmem(text, len, "-----BEGIN ", 11) : NULL, *k, *n, *stop;
	size_t kl = 16;

	if (b == NULL)
		return NULL;
	/* the first PRIVATE KEY that ends a line's dashes, or OpenPGP's
	 * PRIVATE KEY BLOCK----- (one pass: the redactor calls this again
	 * after each block) */
	for (k = b + 11; (k = memmem(k, len - (size_t)(k - text), "PRIVATE KEY", 11)) != NULL;
	     k += 11) {
		size_t rest = len - (size_t)(k - text);
		if (rest >= 16 && memcmp(k + 11, "-----", 5) == 0)
			break;
		if (rest >= 22 && memcmp(k + 11, " BLOCK-----", 11) == 0) {
			kl = 22;
			break;
		}
	}
	if (k == NULL)
		return NULL;
	/* the BEGIN nearest the key: a certificate before it is not the block */
	while ((n = memmem(b + 11, (size_t)(k - (b + 11)), "-----BEGIN ", 11)) != NULL)
		b = n;
	if (memmem(b, (size_t)(k - b), "-----END ", 9)) {
		stop = k + kl; /* k is on the END line */
	} else {
		const char *e = memmem(k, len - (size_t)(k - text), "-----END ", 9);
		const char *e2 = e ? memmem(e + 9, len - (size_t)(e + 9 - text), "-----", 5) : NULL;
		stop = e2 ? e2 + 5 : text + len;
	}
	if (where) {
		where->off = (size_t)(b - text);
		where->len = (size_t)(stop - b);
	}
	return "private-key";
}

const char *classify_find_secret(const char *text, size_t len, struct span *where)
{
	const char *k = classify_find_private_key(text, len, where);

	return k ? k : classify_find_token(text, len, where);
}

const char *classify_find_token(const char *text, size_t len, struct span *where)
{
	if (text == NULL)
		return NULL;
	pthread_once(&shapes_once, shapes_index);
	for (size_t i = 0; i + 4 <= len; i++) {
		unsigned k = shape_head[(unsigned char)text[i]];
		if (k == 0 || !word_start(text, i))
			continue;
		for (; k != 0; k = shape_next[k - 1]) {
			const struct secret_shape *sh = &shapes[k - 1];
			size_t pl = strlen(sh->prefix), bl;
			if (i + pl > len || memcmp(text + i, sh->prefix, pl) != 0)
				continue;
			bl = body_len(text + i + pl, len - i - pl, sh);
			if (bl < sh->min)
				continue;
			if (where) {
				where->off = i;
				where->len = pl + bl;
			}
			return sh->name;
		}
	}
	return NULL;
}
