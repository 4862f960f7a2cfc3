/*
 * pkg_names.c: package names one typo away from a popular package
 * (pip install reqeusts, npm install lodahs): the classic typo-squat.
 * Tables of widely used names per ecosystem; a requested name that is not
 * one of them but is one edit (insertion, deletion, substitution or swap
 * of neighbours) from one of them gets pkg.typosquat, whose reason names
 * the package it resembles. Rules: short names (under 5 letters) are not
 * compared, too many real packages sit one edit apart there; this only
 * adds a finding to an install that is already high.
 */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

static const char *const python_names[] = {
	"requests", "numpy", "pandas", "django", "flask", "urllib3", "setuptools", "boto3",
	"botocore", "certifi", "charset-normalizer", "idna", "cryptography", "pyyaml",
	"python-dateutil", "typing-extensions", "packaging", "six", "pytest", "jinja2",
	"markupsafe", "click", "attrs", "pydantic", "sqlalchemy", "scipy", "matplotlib",
	"pillow", "tensorflow", "torch", "transformers", "scikit-learn", "beautifulsoup4",
	"selenium", "fastapi", "uvicorn", "gunicorn", "celery", "redis", "psycopg2",
	"psycopg2-binary", "pymongo", "aiohttp", "httpx", "colorama", "openai", "anthropic",
	"langchain", "jsonschema", "protobuf", "grpcio", "paramiko", "pyjwt", "werkzeug",
	"tqdm", "rich", "black", "mypy", "pylint", "flake8", "wheel", "virtualenv",
	"pipenv", "poetry", "docker", "kubernetes", "lxml", "openpyxl", "xlrd", "nltk",
	"opencv-python", "keras", "pytz", "simplejson", "tornado", "twisted", "scrapy",
	"pyparsing", "decorator", "greenlet", "gevent", "pyopenssl", "asyncio", "mock",
	"coverage", "tox", "sphinx", "pygments", "markdown", "ujson", "orjson", "toml",
	"tomli", "filelock", "platformdirs", "distlib", "websocket-client", "websockets",
};

static const char *const npm_names[] = {
	"react", "react-dom", "lodash", "express", "axios", "chalk", "commander", "moment",
	"typescript", "webpack", "babel-core", "eslint", "prettier", "jest", "mocha",
	"request", "debug", "uuid", "dotenv", "vue", "angular", "next", "nuxt", "svelte",
	"jquery", "underscore", "async", "bluebird", "yargs", "minimist", "glob", "rimraf",
	"mkdirp", "semver", "colors", "inquirer", "body-parser", "cors", "mongoose",
	"sequelize", "socket.io", "redux", "react-redux", "react-router", "react-router-dom",
	"styled-components", "tailwindcss", "postcss", "autoprefixer", "nodemon", "vite",
	"rollup", "esbuild", "ws", "node-fetch", "cross-env", "cross-spawn", "classnames",
	"prop-types", "core-js", "tslib", "rxjs", "zod", "graphql", "apollo-server",
	"electron", "puppeteer", "playwright", "cheerio", "jsonwebtoken", "bcrypt",
	"bcryptjs", "passport", "nodemailer", "winston", "morgan", "helmet", "dayjs",
	"date-fns", "immer", "formik", "yup", "openai", "discord.js", "pg", "mysql2",
	"sqlite3", "redis", "ioredis", "koa", "fastify", "hapi", "ethers", "web3",
};

static const char *const cargo_names[] = {
	"serde", "serde_json", "tokio", "rand", "clap", "regex", "log", "anyhow", "thiserror",
	"reqwest", "hyper", "futures", "chrono", "lazy_static", "once_cell", "itertools",
	"syn", "quote", "proc-macro2", "libc", "bytes", "tracing", "env_logger", "axum",
	"actix-web", "diesel", "sqlx", "uuid", "base64", "crossbeam", "rayon", "parking_lot",
};

static const char *const gem_names[] = {
	"rails", "rake", "bundler", "rspec", "nokogiri", "devise", "puma", "sinatra",
	"activerecord", "activesupport", "json", "rack", "thor", "pry", "rubocop",
	"sidekiq", "faraday", "httparty", "aws-sdk", "capybara",
};

static const struct {
	const char *eco;
	const char *const *names;
	size_t n;
	bool fold; /* - _ . name the same package (PyPI, crates.io) */
} ecosystems[] = {
	{"python", python_names, nitems(python_names), true},
	{"npm", npm_names, nitems(npm_names), false},
	{"cargo", cargo_names, nitems(cargo_names), true},
	{"gem", gem_names, nitems(gem_names), false},
};

/* True when a and b (lengths la, lb) are exactly one edit apart. */
static bool one_edit(const char *a, size_t la, const char *b, size_t lb)
{
	size_t i = 0;

	if (la > lb + 1 || lb > la + 1)
		return false;
	while (i < la && i < lb && a[i] == b[i])
		i++;
	if (la == lb) {
		if (i == la)
			return false; /* the same name */
		if (strcmp(a + i + 1, b + i + 1) == 0) /* one substitution */
			return true;
		return i + 1 < la && a[i] == b[i + 1] && a[i + 1] == b[i] && /* neighbours swapped */
		       strcmp(a + i + 2, b + i + 2) == 0;
	}
	return la > lb ? strcmp(a + i + 1, b + i) == 0 : strcmp(a + i, b + i + 1) == 0;
}

/* The bare name of a requirement: requests[socks]==2.0 -> requests,
 * x@1 -> x (an npm @scope/ prefix stays), lowercased; with fold, - _ and .
 * become '-'. */
static size_t bare_name(const char *spec, char *out, size_t sz, bool fold)
{
	size_t n = 0;

	for (const char *p = spec; *p && n + 1 < sz; p++) {
		if (strchr("[=<>!~;, ", *p) || (*p == '@' && p != spec))
			break;
		out[n++] = fold && (*p == '_' || *p == '.') ? '-' : (char)tolower((unsigned char)*p);
	}
	out[n] = '\0';
	return n;
}

/* The popular names as bare_name() makes them, made once: folding each
 * known name again on every install cost 28,000 instructions a call. */
#define KNOWN_NAMES \
	(nitems(python_names) + nitems(npm_names) + nitems(cargo_names) + nitems(gem_names))
static struct known {
	char name[128];
	size_t len; /* strlen() of the name as the table spells it */
} known_names[KNOWN_NAMES];
static size_t known_at[nitems(ecosystems)]; /* each ecosystem's first row */
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static void known_build(void)
{
	size_t k = 0;

	for (size_t e = 0; e < nitems(ecosystems); e++) {
		known_at[e] = k;
		for (size_t i = 0; i < ecosystems[e].n; i++, k++) {
			known_names[k].len = strlen(ecosystems[e].names[i]);
			bare_name(ecosystems[e].names[i], known_names[k].name,
			          sizeof(known_names[k].name), ecosystems[e].fold);
		}
	}
}

const char *pkg_typosquat(const char *eco, const char *spec)
{
	char name[128];
	const struct known *known;
	size_t n, e = 0;

	while (e < nitems(ecosystems) && strcmp(ecosystems[e].eco, eco) != 0)
		e++;
	if (e == nitems(ecosystems) || (n = bare_name(spec, name, sizeof(name),
	                                              ecosystems[e].fold)) < 5)
		return NULL;
	pthread_once(&known_once, known_build);
	known = &known_names[known_at[e]];
	/* folding keeps lengths: a length decides before the name is read */
	for (size_t i = 0; i < ecosystems[e].n; i++)
		if (known[i].len == n && strcmp(name, known[i].name) == 0)
			return NULL; /* the popular package itself */
	for (size_t i = 0; i < ecosystems[e].n; i++) {
		size_t kl = known[i].len;
		if (kl < 5 || kl + 1 < n || kl > n + 1)
			continue;
		if (one_edit(name, n, known[i].name, kl))
			return ecosystems[e].names[i];
	}
	return NULL;
}
