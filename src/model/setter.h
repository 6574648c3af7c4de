/* A setter, how a value reaches the target, and what it makes of a value, computed
 * without touching anything: the config document with the value set at a key path, a
 * string with placeholders replaced. The profile (profile.h) holds its setters and
 * applies them in order (setter_at, setter_argv, setter_envp); confedit.h writes the
 * target's files. Nothing here knows a profile. */
#ifndef LOOPBENCH_SETTER_H
#define LOOPBENCH_SETTER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "msg.h"
#include "util.h"

/* How a value reaches the target. */
enum setter_kind {
    SETTER_CONFIG = 0, /* into a JSON config file at a key path */
    SETTER_ARGV,       /* into argv, replacing a placeholder */
    SETTER_ENV,        /* as an environment variable */
};

enum setter_type {
    SETTER_STRING = 0, /* written as a JSON string: "2" (ModernUO's settings) */
    SETTER_NUMBER,     /* written as a JSON number: 2 */
};

struct setter {
    enum setter_kind kind;
    /* SETTER_CONFIG */
    char *file;        /* absolute or relative to the process cwd, resolved */
    char **key_path;   /* segments: {"settings", "server.eventLoopIdleWaitMs"} */
    size_t key_depth;
    enum setter_type type;
    /* SETTER_ARGV: the placeholder, e.g. "{value}"; every occurrence in each argv
     * element is replaced. */
    char *placeholder;
    /* SETTER_ENV */
    char *env_name;
};

/* Set key_path to value in the JSON document text (other content and key order
 * kept; written with 2-space indentation and a final newline). SETTER_NUMBER values
 * must parse as a JSON number. Fails, naming the key path, when a parent along the
 * path is missing or not an object. *out is new, caller frees. */
int setter_set_json(const char *text, size_t len, char *const *key_path, size_t depth,
                    const char *value, enum setter_type type, char **out, size_t *out_len,
                    struct lb_error *err);

/* The object in doc that holds (or will hold) key_path's leaf, borrowed; or NULL with
 * *bad the index of the first parent segment that is missing (*missing true) or not an
 * object (*missing false). doc must be an object. */
json_t *setter_json_parent(json_t *doc, char *const *key_path, size_t depth, size_t *bad,
                           bool *missing);

/* The JSON value setter_set_json writes for value (new reference), or NULL when value is
 * not one of type (not a JSON number, not UTF-8). */
json_t *setter_json_value(const char *value, enum setter_type type);

/* Whether value is a JSON number ("2", "-0.5", "1e3"), as SETTER_NUMBER requires. */
bool setter_is_number(const char *value);

/* s with every occurrence of from[i] replaced by to[i] (i < n), in one left-to-right
 * pass: replaced text is never scanned again. Adds the occurrences of from[i] to
 * hits[i] (hits may be NULL). New string, caller frees. */
char *setter_subst(const char *s, const char *const *from, const char *const *to, size_t n,
                   size_t *hits);

#endif
