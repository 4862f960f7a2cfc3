/* tdata.c: the loader for table-driven test data (see tdata.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdata.h"

static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 == n) {
			*o++ = s[i];
			continue;
		}
		switch (s[++i]) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'e': *o++ = '\033'; break;
		case '\\': *o++ = '\\'; break;
		case 'x':
			if (i + 2 < n) {
				char hex[3] = {s[i + 1], s[i + 2], 0};
				*o++ = (char)strtol(hex, NULL, 16);
				i += 2;
			}
			break;
		default: *o++ = '\\'; *o++ = s[i]; break;
		}
	}
	*o = '\0';
	return out;
}

size_t tdata_load(const char *path, struct tdata_row **rows)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, n = 0, lineno = 0;
	ssize_t len;

	if (f == NULL) {
		fprintf(stderr, "tdata: cannot open %s (run from the source tree)\n", path);
		exit(1);
	}
	*rows = NULL;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct tdata_row r = {.line = ++lineno, .file = path};
		char *p = line, *tab;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		while (r.nf < TDATA_MAXF) {
			tab = strchr(p, '\t');
			r.f[r.nf++] = unescape(p, tab ? (size_t)(tab - p) : strlen(p));
			if (tab == NULL)
				break;
			p = tab + 1;
			while (*p == '\t') /* several TABs align columns */
				p++;
		}
		*rows = realloc(*rows, (n + 1) * sizeof(**rows));
		(*rows)[n++] = r;
	}
	free(line);
	fclose(f);
	return n;
}

void tdata_free(struct tdata_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rows[i].nf; k++)
			free(rows[i].f[k]);
	free(rows);
}
