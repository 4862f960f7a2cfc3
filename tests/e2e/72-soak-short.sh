#!/bin/sh
# 72-soak-short.sh: the short soak of make test (issue 10): mixed calls
# through one `airlock gate`, every call in the log exactly once, under
# valgrind (leaks and memory errors fail), or, for a sanitizer build (make
# check), under LeakSanitizer. `make soak` runs the long one.
if ldd "$AIRLOCK" 2>/dev/null | grep -q 'libasan' ||
	nm "$AIRLOCK" 2>/dev/null | grep -q '__asan_init'; then
	exec sh tests/soak/soak.sh 300
fi
if ! command -v valgrind >/dev/null; then
	echo "skip: valgrind is not installed (make deps)"
	exec sh tests/soak/soak.sh 300
fi
VALGRIND=1 exec sh tests/soak/soak.sh 100
