#include "commit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "platform/platform.h"
#include "text.h"
#include "util.h"

#define SHA_LEN 40

static const char *const sources[] = {"git", "option", "env"};

/* 40 hex digits, lowercased into out (room for 41); false when s is not that. */
static bool sha_valid(const char *s, size_t len, char *out)
{
    if (len != SHA_LEN)
        return false;
    for (size_t i = 0; i < SHA_LEN; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return false;
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[SHA_LEN] = '\0';
    return true;
}

int commit_parse(const char *arg, const char *source, struct campaign_commit *out,
                 struct lb_error *err)
{
    char sha[SHA_LEN + 1];
    size_t len = strcspn(arg, ",");
    const char *rest = arg[len] ? arg + len + 1 : NULL;
    if (!sha_valid(arg, len, sha) || (rest && strcmp(rest, "dirty") != 0)) {
        char *shown = text_shown(arg);
        lb_fail(err, "'%s': expected a commit of 40 hex digits, with ',dirty' when its tree "
                     "had changes", shown);
        free(shown);
        return -1;
    }
    *out = (struct campaign_commit){xstrdup(sha), rest != NULL, source};
    return 0;
}

/* The filter drivers a repository's configuration names, at most this many (a config
 * with more is not asked about its work tree). */
#define FILTERS_MAX 16

/* git's answer to one question about dir's work tree: its output (new string), NULL
 * when it failed. The repository is a stranger's (a pull request's checkout, a build's
 * output, an unpacked artifact): neither its configuration nor the caller's environment
 * may make git run anything, take a lock or ask for anything. Each filter driver named in
 * filters (its own configuration's: a clean filter is a command, run by `git status` on
 * a changed file) is made to run nothing. */
static char *git_output(const char *dir, const char *const *question, const struct strv *filters)
{
    const char *path = getenv("PATH");
    char *path_var = xasprintf("PATH=%s", path && *path ? path : "/usr/bin:/bin");
    char *envp[] = {path_var, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                    "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", NULL};
    static const char *const safe[] = {"core.fsmonitor=false", "core.hooksPath=/dev/null",
                                       "core.untrackedCache=false", "diff.external="};
    struct strv argv = {0};
    strv_push(&argv, "git");
    strv_push(&argv, "-C");
    strv_push(&argv, dir);
    for (size_t i = 0; i < ARRAY_SIZE(safe); i++) {
        strv_push(&argv, "-c");
        strv_push(&argv, safe[i]);
    }
    static const char *const inert[] = {"clean=", "smudge=", "process=", "required=false"};
    for (size_t i = 0; filters && i < filters->n; i++)
        for (size_t k = 0; k < ARRAY_SIZE(inert); k++) {
            strv_push(&argv, "-c");
            strv_push_owned(&argv, xasprintf("filter.%s.%s", filters->v[i], inert[k]));
        }
    for (size_t i = 0; question[i]; i++)
        strv_push(&argv, question[i]);
    char *out = NULL;
    int status = 0;
    struct lb_error e;
    int rc = plat_run_output(argv.v, envp, COMMIT_GIT_OUTPUT_MAX, COMMIT_GIT_TIMEOUT_MS, &out,
                             &status, &e);
    strv_release(&argv);
    free(path_var);
    if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The names of the filter drivers dir's configuration defines (filter.NAME.KEY), into
 * names: false when it cannot tell, or they are more than FILTERS_MAX. Reading the
 * configuration runs nothing. */
static bool filter_names(const char *dir, struct strv *names)
{
    static const char *const list[] = {"config",       "--null",     "--name-only",
                                       "--get-regexp", "^filter\\.", NULL};
    char *keys = git_output(dir, list, NULL);
    if (!keys) /* none: git config exits 1 */
        return true;
    bool ok = true;
    for (const char *k = keys; *k && ok; k += strlen(k) + 1) {
        const char *first = strchr(k, '.'), *last = strrchr(k, '.');
        if (!first || last <= first)
            continue;
        char *name = xstrndup(first + 1, (size_t)(last - first - 1));
        bool seen = false;
        for (size_t i = 0; i < names->n && !seen; i++)
            seen = strcmp(names->v[i], name) == 0;
        ok = seen || names->n < FILTERS_MAX;
        if (!seen && ok)
            strv_push_owned(names, name);
        else
            free(name);
    }
    free(keys);
    return ok;
}

int commit_from_git(const char *dir, struct campaign_commit *out)
{
    memset(out, 0, sizeof(*out));
    static const char *const head[] = {"rev-parse", "--verify", "--quiet", "HEAD", NULL};
    static const char *const status[] = {"status", "--porcelain", "--untracked-files=no",
                                         "--ignore-submodules=all", NULL};
    char *sha = git_output(dir, head, NULL), valid[SHA_LEN + 1];
    bool ok = sha && sha_valid(sha, strcspn(sha, "\n"), valid);
    free(sha);
    struct strv filters = {0};
    char *changes = ok && filter_names(dir, &filters) ? git_output(dir, status, &filters) : NULL;
    strv_release(&filters);
    if (!changes)
        return -1;
    *out = (struct campaign_commit){xstrdup(valid), *changes != '\0', "git"};
    free(changes);
    return 0;
}

int commit_from_env(struct campaign_commit *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *vars[] = {"LOOPBENCH_COMMIT", "GITHUB_SHA"};
    for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
        const char *v = getenv(vars[i]);
        struct lb_error e;
        if (!v || !*v)
            continue;
        if (commit_parse(v, "env", out, &e) < 0)
            return lb_fail(err, "$%s %s", vars[i], e.msg);
        return 0;
    }
    return 0;
}

void commit_release(struct campaign_commit *c)
{
    free(c->sha);
    memset(c, 0, sizeof(*c));
}

json_t *commit_json(const struct campaign_commit *c)
{
    if (!c->sha)
        return json_null();
    return json_pack("{s:s, s:b, s:s}", "sha", c->sha, "dirty", c->dirty, "source", c->source);
}

int commit_from_json(json_t *o, const char *where, const char *key, struct campaign_commit *out,
                     struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!o || json_is_null(o))
        return 0;
    json_t *sha = json_object_get(o, "sha"), *dirty = json_object_get(o, "dirty");
    const char *source = json_string_value(json_object_get(o, "source"));
    int si = source ? name_index(sources, ARRAY_SIZE(sources), source) : -1;
    char valid[SHA_LEN + 1];
    if (!json_is_string(sha) || !json_is_boolean(dirty) || si < 0 ||
        !sha_valid(json_string_value(sha), json_string_length(sha), valid))
        return lb_fail(err, "%s: %s: expected null or {\"sha\": 40 hex digits, \"dirty\": true "
                            "or false, \"source\": \"git\", \"option\" or \"env\"}", where, key);
    *out = (struct campaign_commit){xstrdup(valid), json_is_true(dirty), sources[si]};
    return 0;
}
