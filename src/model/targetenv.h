/* The environment a target starts with: not loopbench's, which in a CI job holds the
 * job's tokens and the files that steer the job (GITHUB_OUTPUT...), but a short base
 * every server may need (targetenv_base), what the profile's pass_env and run
 * --pass-env name on purpose, and then the profile's own env and env setters
 * (setter_envp). A name that looks like a credential or a CI control file
 * (targetenv_refused) is never taken from loopbench's environment, even when asked
 * for: a profile's own env may still set one, that being its author's explicit value.
 * docs/profiles.md has the lists. Rules over names only, kept with the model: a profile's
 * pass_env and results.json's environment are checked by them when read. */
#ifndef LOOPBENCH_TARGETENV_H
#define LOOPBENCH_TARGETENV_H

#include <stdbool.h>
#include <stddef.h>

#include "msg.h"
#include "util.h"

/* Whether s is a variable name a profile or --pass-env may give: a letter or '_', then
 * letters, digits and '_'. */
bool targetenv_name_valid(const char *s);

/* Whether loopbench's variable `name` goes to every target: PATH, HOME, the locale... */
bool targetenv_base(const char *name);

/* Why `name` is never handed to a target ("GitHub Actions' file for a step's outputs",
 * "a name with TOKEN in it"...), static text; NULL when it may be. Case-insensitive. */
const char *targetenv_refused(const char *name);

/* A name asked for by `what` ("--pass-env", "pass_env[1]"): -1 with err naming it when
 * it is no valid name or is refused. */
int targetenv_check(const char *name, const char *what, struct lb_error *err);

/* The entries of base (NULL-terminated "NAME=value", loopbench's environ) a target
 * gets: a base name or one in pass (may be NULL), and never a refused one. Into env
 * (new strings, base's order; an empty array when none), their names into passed (the
 * same order); *withheld counts the others. Caller releases env and passed. */
void targetenv_select(char *const *base, const struct strv *pass, struct strv *env,
                      struct strv *passed, size_t *withheld);

#endif
