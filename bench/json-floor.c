/*
 * json-floor.c: jansson alone on airlock classify's input, for
 * bench/classify.sh: each line parsed (duplicate keys rejected, as the
 * gate does) and printed back compact. airlock classify does this much
 * JSON work and more (its output is larger), plus the classification.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char *line = NULL, out[65536];
	size_t cap = 0, k;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_t *j = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, NULL);
		if (j == NULL)
			continue;
		k = json_dumpb(j, out, sizeof(out) - 1, JSON_COMPACT);
		if (k < sizeof(out) - 1) {
			out[k++] = '\n';
			fwrite(out, 1, k, stdout);
		}
		json_decref(j);
	}
	free(line);
	return ferror(stdout) ? 1 : 0;
}
