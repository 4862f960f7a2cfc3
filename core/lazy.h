/*
 * lazy.h: the heavy libraries (libgit2, libcrypto, libpg_query) are loaded
 * with dlopen() on first use, so paths that start one process per call
 * (airlock exec, airlock hook) do not pay ~15 ms of dynamic loading for
 * libraries they never touch. Each table holds typed pointers taken from
 * the library's own header, so a call through it is checked like a direct one:
 *
 *	const struct lazy_git *g = lazy_git(&err);
 *	if (g == NULL) goto out;
 *	g->git_config_new(&cfg);
 *
 * To use another function, add it to the list below.
 */
#ifndef AIRLOCK_LAZY_H
#define AIRLOCK_LAZY_H

#include <git2.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pg_query.h>

#define LAZY_GIT_FUNCS(X)                                                      \
	X(git_libgit2_init)                                                    \
	X(git_error_last)                                                      \
	X(git_config_new)                                                      \
	X(git_config_free)                                                     \
	X(git_config_add_file_ondisk)                                          \
	X(git_config_open_ondisk)                                              \
	X(git_config_open_level)                                               \
	X(git_config_iterator_new)                                             \
	X(git_config_iterator_glob_new)                                        \
	X(git_config_next)                                                     \
	X(git_config_iterator_free)                                            \
	X(git_config_get_entry)                                                \
	X(git_config_entry_free)                                               \
	X(git_config_get_string_buf)                                           \
	X(git_config_get_path)                                                 \
	X(git_config_get_bool)                                                 \
	X(git_config_get_int64)                                                \
	X(git_config_parse_bool)                                               \
	X(git_config_parse_int64)                                              \
	X(git_config_set_string)                                               \
	X(git_config_set_multivar)                                             \
	X(git_config_multivar_iterator_new)                                    \
	X(git_buf_dispose)                                                     \
	X(git_repository_open_ext)                                             \
	X(git_config_open_default)                                             \
	X(git_repository_config_snapshot)                                      \
	X(git_repository_free)                                                 \
	X(git_patch_from_buffers)                                              \
	X(git_patch_print)                                                     \
	X(git_patch_to_buf)                                                    \
	X(git_patch_line_stats)                                                \
	X(git_patch_num_hunks)                                                 \
	X(git_patch_get_delta)                                                 \
	X(git_patch_free)                                                      \
	X(git_diff_buffers)                                                    \
	X(git_diff_options_init)

#define LAZY_CRYPTO_FUNCS(X)                                                   \
	X(OPENSSL_init_crypto)                                                 \
	X(EVP_MD_CTX_new)                                                      \
	X(EVP_MD_CTX_free)                                                     \
	X(EVP_DigestInit_ex)                                                   \
	X(EVP_DigestUpdate)                                                    \
	X(EVP_DigestFinal_ex)                                                  \
	X(EVP_sha1)                                                            \
	X(EVP_sha256)                                                          \
	X(EVP_DecodeBlock)

#define LAZY_PGQUERY_FUNCS(X)                                                  \
	X(pg_query_parse)                                                      \
	X(pg_query_free_parse_result)                                          \
	X(pg_query_split_with_scanner)                                         \
	X(pg_query_free_split_result)                                          \
	X(pg_query_parse_plpgsql)                                              \
	X(pg_query_free_plpgsql_parse_result)

#define LAZY_FIELD(f) __typeof__(f) *f;
struct lazy_git {
	LAZY_GIT_FUNCS(LAZY_FIELD)
};
struct lazy_crypto {
	LAZY_CRYPTO_FUNCS(LAZY_FIELD)
};
struct lazy_pgquery {
	LAZY_PGQUERY_FUNCS(LAZY_FIELD)
};
#undef LAZY_FIELD

/*
 * Each returns the loaded table (static storage, loaded once; libgit2 is
 * also initialised), or NULL with *errstr set to a new message the caller
 * frees, naming the library and the package that provides it.
 */
const struct lazy_git *lazy_git(char **errstr);
const struct lazy_crypto *lazy_crypto(char **errstr);
const struct lazy_pgquery *lazy_pgquery(char **errstr);
/* The file libgit2 was loaded from (a new string), NULL when it is not
 * loaded: what this process read with it is kept beside its stamp, so
 * that an upgraded libgit2 reads the files again. */
char *lazy_git_path(void);

#endif
