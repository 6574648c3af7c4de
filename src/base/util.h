/* Small helpers shared by every module.
 *
 * Out-of-memory policy: allocation failure is fatal (x* functions print one line and
 * abort the process), as in htop's xMalloc; nothing else in loopbench checks for NULL
 * from an allocator. */
#ifndef LOOPBENCH_UTIL_H
#define LOOPBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "msg.h"

/* jansson's json_t, declared here (C11 allows the typedef twice) so that modules using
 * the helpers below need not include jansson.h. */
typedef struct json_t json_t;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NS_PER_SEC 1000000000ULL

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* New string, caller frees. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) LB_PRINTF(1, 2);
/* p, or the same fatal exit when a library's allocator (curl, jansson) returned NULL. */
void *xcheck(void *p);
/* free() each of the pointers given (any may be NULL): a release function's many owned
 * fields in one statement rather than a line each. */
#define FREE_ALL(...) free_all((void *[]){__VA_ARGS__}, ARRAY_SIZE(((void *[]){__VA_ARGS__})))
void free_all(void *const *p, size_t n);

/* A NULL-terminated, growable array of owned strings (argv/envp shaped). */
struct strv {
    char **v;
    size_t n;
    size_t cap;
};
void strv_push(struct strv *sv, const char *s);      /* copies s */
void strv_push_owned(struct strv *sv, char *s);      /* steals s */
void strv_release(struct strv *sv);

/* Monotonic and wall clocks in nanoseconds. */
uint64_t mono_ns(void);
uint64_t wall_ns(void);

/* Strict number parsing: the whole string must be a number in range. */
int parse_double(const char *s, double *out);
int parse_long(const char *s, long min, long max, long *out);
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out);

/* Read a whole file (new buffer, NUL-terminated, caller frees). */
int read_file(const char *path, char **data, size_t *len, struct lb_error *err);
/* Read fd (open on path, named in err) to its end, or max bytes, whichever comes first
 * (new buffer, NUL-terminated, caller frees); fd stays open. */
int read_fd(int fd, const char *path, size_t max, char **data, size_t *len, struct lb_error *err);
/* Everything written to the stream f so far (a plat_scratch_file: new string,
 * NUL-terminated); f is closed either way. NULL with err. */
char *read_back(FILE *f, size_t *len, struct lb_error *err);
/* "host:port", or "[host]:port" for an IPv6 address (new string): the form profiles
 * use. */
char *format_hostport(const char *host, int port);

/* FNV-1a 64-bit: continued from h (FNV1A64_OFFSET to start), or written as 16 hex
 * digits into out[17]. */
#define FNV1A64_OFFSET 0xcbf29ce484222325ULL
uint64_t hash_fnv1a64(const void *data, size_t len, uint64_t h);
void hash_fnv1a64_hex(const void *data, size_t len, char out[17]);

/* Strings to indices, looked up in a time that does not grow with how many there are
 * (a campaign made elsewhere may hold 100,000 runs): open addressing on the strings'
 * FNV-1a hash. The table borrows its keys, which must outlive it. */
struct str_table {
    const char **keys;
    size_t *values;
    size_t mask;
};
/* Room for n keys. */
void str_table_init(struct str_table *t, size_t n);
/* key's value; a key added again keeps its first value, which is returned. */
size_t str_table_add(struct str_table *t, const char *key, size_t value);
/* key's value, or -1 when it is not in t. */
long str_table_find(const struct str_table *t, const char *key);
void str_table_release(struct str_table *t);

/* An enum's words in one table of n names, indexed by value (NULL for a gap): the name
 * of value i ("unknown" out of the table, static), and the value of a name (-1 when it
 * is none of them). The *_name and *_parse functions of each module are built on them,
 * so each enum's words are written once. */
const char *name_of(const char *const *names, size_t n, size_t i);
int name_index(const char *const *names, size_t n, const char *name);

/* Defines the two functions of an enum whose words are the table `names`:
 * `const char *name_fn(type)` (name_of) and `int parse_fn(const char *, type *)` (0, or
 * -1 for a word that is not one of them). */
#define ENUM_WORDS(type, names, name_fn, parse_fn)                                          \
    const char *name_fn(type v)                                                            \
    {                                                                                      \
        return name_of(names, ARRAY_SIZE(names), (size_t)v);                               \
    }                                                                                      \
    int parse_fn(const char *s, type *out)                                                 \
    {                                                                                      \
        int i = name_index(names, ARRAY_SIZE(names), s);                                   \
        if (i < 0)                                                                         \
            return -1;                                                                     \
        *out = (type)i;                                                                    \
        return 0;                                                                          \
    }

/* A figure as JSON (new reference): a number, or null when it is undefined (NaN) or
 * infinite, which JSON cannot hold. */
json_t *json_num_or_null(double v);
/* The strings of sv as a JSON array (new reference). */
json_t *strv_json(const struct strv *sv);

/* UTC timestamp "2026-12-02T14:38:57Z" (ISO 8601) or compact "20261202T143857Z". */
void format_utc(uint64_t wall, bool compact, char *out, size_t outlen);
/* Parse format_utc's non-compact form, "2026-12-02T17:26:01Z", into *wall (ns). */
int parse_utc(const char *s, uint64_t *wall);

#endif
