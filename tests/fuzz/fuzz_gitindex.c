/*
 * fuzz_gitindex.c: the index reader of the guard (exec/gitindex.c), which
 * reads a file a sandboxed run wrote, on arbitrary bytes. Invariants: no
 * read past the buffer (ASan), and every gitlink found is a non-empty
 * path shorter than PATH_MAX; a parse that fails finds nothing.
 */
#include <limits.h>
#include <string.h>

#include "core/util.h"
#include "exec/exec_internal.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char **links = NULL;
	int rc = gitindex_parse(data, size, &links);

	if (rc < 0 && links != NULL)
		fuzz_fail("a failed parse found gitlinks", "", "%s", links[0]);
	for (char **l = links; l && *l; l++)
		if ((*l)[0] == '\0' || strlen(*l) >= PATH_MAX)
			fuzz_fail("a gitlink's path is empty or too long", "", "%zu bytes", strlen(*l));
	strv_free(links);
	return 0;
}
