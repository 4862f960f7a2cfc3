/*
 * fuzz_diff.c: the preview renderer (diff_buffers, diff_preview_call of a
 * write_file or edit_file call) and the SQL changeset renderer (an sql call
 * previewed on a fixture database). The first byte picks the mode; the rest
 * is split at the first NUL into two texts. Invariants: rendering is
 * deterministic; plain output holds no control byte but newline and tab
 * (a preview must not drive the approver's terminal); a text diffed with
 * itself shows no change; a preview never changes the real files.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "diff/diff.h"
#include "gate/protocol.h"
#include "tests/fuzz/fuzz.h"

static char wd[] = "/tmp/airlock-fuzz-diff.XXXXXX";
static char *dbpath, *filepath, *dbcopy, *filecopy;
static size_t dblen, filelen;

static char *slurp(const char *path, size_t *len)
{
	struct buf b;
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	buf_init(&b, 0);
	while (fd >= 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_append(&b, chunk, (size_t)n);
	if (fd >= 0)
		close(fd);
	return buf_take(&b, len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *cmd;

	(void)argc;
	(void)argv;
	if (mkdtemp(wd) == NULL)
		abort();
	dbpath = xasprintf("%s/app.db", wd);
	filepath = xasprintf("%s/notes.txt", wd);
	cmd = xasprintf("sqlite3 %s \"CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, v);"
	                " INSERT INTO users(name, v) VALUES ('ada', 1), ('gr' || char(27) || '[2J', x'00ff'),"
	                " ('linus', 3.5); CREATE TABLE log(msg);\"", dbpath);
	if (system(cmd) != 0)
		abort();
	free(cmd);
	cmd = xasprintf("printf 'one\\ntwo\\nthree\\n' > %s", filepath);
	if (system(cmd) != 0)
		abort();
	free(cmd);
	dbcopy = slurp(dbpath, &dblen);
	filecopy = slurp(filepath, &filelen);
	return 0;
}

static void check_plain(const char *text, size_t len, const char *input, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];
		if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
			fuzz_fail(what, input, "control byte 0x%02x at %zu of:\n%s", ch, i, text);
	}
}

static void mode_buffers(const char *a, size_t alen, const char *b, size_t blen, const char *in)
{
	char *err = NULL, *r1 = diff_buffers("f.txt", a, alen, b, blen, DIFF_FORMAT_PLAIN, &err);
	char *r2 = diff_buffers("f.txt", a, alen, b, blen, DIFF_FORMAT_PLAIN, &err);
	char *same = diff_buffers("f.txt", a, alen, a, alen, DIFF_FORMAT_PLAIN, &err);
	char *color = diff_buffers("f.txt", a, alen, b, blen, DIFF_FORMAT_COLOR, &err);

	if ((r1 == NULL) != (r2 == NULL) || (r1 && strcmp(r1, r2) != 0))
		fuzz_fail("deterministic diff", in, "two renders differ");
	if (r1)
		check_plain(r1, strlen(r1), in, "plain diff has no control bytes");
	for (const char *p = same; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		if ((*p == '+' && strncmp(p, "+++ ", 4) != 0) || (*p == '-' && strncmp(p, "--- ", 4) != 0))
			fuzz_fail("a text diffed with itself shows no change", in, "%s", same);
	free(r1), free(r2), free(same), free(color), free(err);
}

static void mode_call(json_t *input, const char *tool, const char *in)
{
	json_t *root = json_pack("{s:s,s:s,s:o}", "id", "f", "tool", tool, "input", input);
	struct diff_opts o = {.workdir = wd};
	struct call *c = NULL;
	json_t *id = NULL;
	char *err = NULL, *text, *now;
	struct diff *d;
	size_t len;

	if (root == NULL || protocol_decode_json(root, 1, &c, &id, &err) < 0)
		goto out;
	if ((d = diff_preview_call(c, &o)) != NULL) {
		text = diff_render(d, DIFF_FORMAT_PLAIN, &len);
		check_plain(text, len, in, "plain preview has no control bytes");
		free(text);
		json_decref(diff_to_json(d));
		diff_free(d);
	}
	now = slurp(dbpath, &len);
	if (len != dblen || memcmp(now, dbcopy, len) != 0)
		fuzz_fail("a preview never changes the database", in, "app.db changed");
	free(now);
	now = slurp(filepath, &len);
	if (len != filelen || memcmp(now, filecopy, len) != 0)
		fuzz_fail("a preview never changes a file", in, "notes.txt changed");
	free(now);
out:
	call_free(c);
	json_decref(id);
	json_decref(root);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *a, *b;
	size_t alen, blen;
	char *in;
	const uint8_t *nul;

	if (size < 1 || size > 8192)
		return 0;
	a = (const char *)data + 1;
	nul = memchr(a, 0, size - 1);
	alen = nul ? (size_t)(nul - (const uint8_t *)a) : size - 1;
	b = nul ? (const char *)nul + 1 : "";
	blen = nul ? size - 1 - alen - 1 : 0;
	in = fuzz_cstr((const uint8_t *)a, alen);
	switch (data[0] % 4) {
	case 0:
		mode_buffers(a, alen, b, blen, in);
		break;
	case 1:
		mode_call(json_pack("{s:s,s:s#}", "query", in, "database", "app.db", 6), "sql", in);
		break;
	case 2:
		mode_call(json_pack("{s:s,s:s%}", "path", "notes.txt", "content", b, blen), "write_file",
		          in);
		break;
	default:
		mode_call(json_pack("{s:s,s:s,s:s%}", "path", "notes.txt", "old", in, "new", b, blen),
		          "edit_file", in);
		break;
	}
	free(in);
	return 0;
}
