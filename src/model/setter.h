/* What a profile's setters make of a value, computed without touching anything: the
 * config document with the value set at a key path, the target's argv with placeholders
 * replaced, its environment (the three setter kinds: profile.h). Applied to the target's
 * files by measure/confedit.h; used by the profile's checks at load. */
#ifndef LOOPBENCH_SETTER_H
#define LOOPBENCH_SETTER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "msg.h"
#include "profile.h"
#include "util.h"

/* Settings in the order they are applied: the fixed ones, then the knob (i ==
 * p->n_fixed). *value is the value that setting writes. */
const struct setter *setter_at(const struct profile *p, size_t i, const char *knob_value,
                               const char **value);

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

/* The target's argv for this value: the profile's command with the knob's placeholder
 * (and each fixed argv setting's) replaced. argv is new, caller releases. */
int setter_argv(const struct profile *p, const char *value, struct strv *argv,
                struct lb_error *err);

/* The target's complete environment: base (e.g. environ), then the profile's env
 * additions, then env setters (knob and fixed). A later entry replaces an earlier one
 * of the same name. envp is new, caller releases. */
void setter_envp(const struct profile *p, const char *value, char *const *base, struct strv *envp);

#endif
