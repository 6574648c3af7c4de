/* Applying a setting's value to a target: config file, argv or environment.
 *
 * The operator's config files are sacred: their bytes and mode are read once, every
 * run's file is rebuilt from those bytes, and restore puts them back exactly. */
#include "confedit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"

/* Settings in the order they are applied: the fixed ones, then the knob (i ==
 * p->n_fixed). *value is the value that setting writes. */
static const struct setter *setting_at(const struct profile *p, size_t i, const char *knob_value,
                                       const char **value)
{
    if (i < p->n_fixed) {
        *value = p->fixed[i].value;
        return &p->fixed[i].set;
    }
    *value = knob_value;
    return &p->knob.set;
}

/* "settings/server.eventLoopIdleWaitMs": keys hold dots, so slashes separate them. */
static char *key_path_string(char *const *key_path, size_t depth)
{
    size_t len = 1;
    for (size_t i = 0; i < depth; i++)
        len += strlen(key_path[i]) + 1;
    char *s = xmalloc(len);
    size_t at = 0;
    for (size_t i = 0; i < depth; i++) {
        size_t n = strlen(key_path[i]);
        if (i > 0)
            s[at++] = '/';
        memcpy(s + at, key_path[i], n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

json_t *confedit_parent(json_t *doc, char *const *key_path, size_t depth, size_t *bad,
                        bool *missing)
{
    json_t *o = doc;
    for (size_t i = 0; i + 1 < depth; i++) {
        json_t *next = json_object_get(o, key_path[i]);
        if (!json_is_object(next)) {
            *bad = i;
            *missing = next == NULL;
            return NULL;
        }
        o = next;
    }
    return o;
}

/* value as a new JSON number, or NULL if it is not exactly one. */
static json_t *number_new(const char *value)
{
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    if (v && !json_is_number(v)) {
        json_decref(v);
        return NULL;
    }
    return v;
}

bool confedit_is_number(const char *value)
{
    json_t *v = number_new(value);
    json_decref(v);
    return v != NULL;
}

/* jansson prints reals with 17 significant digits, which turns 0.1 into
 * 0.10000000000000001; the fewest digits from 15 that give back every real in the
 * document exactly keep the file as the operator would write it. 0: no reals. */
static int real_precision(json_t *v)
{
    int prec = 0;
    if (json_is_real(v)) {
        double x = json_real_value(v);
        char buf[40];
        for (prec = 15; prec < 17; prec++) {
            snprintf(buf, sizeof(buf), "%.*g", prec, x);
            if (strtod(buf, NULL) == x)
                break;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            int p = real_precision(e);
            prec = p > prec ? p : prec;
        }
    } else if (json_is_object(v)) {
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e) {
            int p = real_precision(e);
            prec = p > prec ? p : prec;
        }
    }
    return prec;
}

int confedit_set_json(const char *text, size_t len, char *const *key_path, size_t depth,
                      const char *value, enum setter_type type, char **out, size_t *out_len,
                      struct lb_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (!doc)
        return lb_fail(err, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
    char *kp = key_path_string(key_path, depth);
    int rc = -1;
    size_t bad;
    bool missing;
    json_t *parent, *v;
    char *dumped;
    if (!json_is_object(doc)) {
        lb_fail(err, "not a JSON object");
        goto out;
    }
    if (depth == 0) {
        lb_fail(err, "empty key path");
        goto out;
    }
    parent = confedit_parent(doc, key_path, depth, &bad, &missing);
    if (!parent) {
        if (missing)
            lb_fail(err, "missing parent '%s' of key path '%s'", key_path[bad], kp);
        else
            lb_fail(err, "parent '%s' of key path '%s' is not an object", key_path[bad], kp);
        goto out;
    }
    v = type == SETTER_NUMBER ? number_new(value) : json_string(value);
    if (!v) {
        lb_fail(err, "value '%s' for key path '%s' is not %s", value, kp,
                type == SETTER_NUMBER ? "a JSON number" : "valid UTF-8");
        goto out;
    }
    if (json_object_set_new(parent, key_path[depth - 1], v) < 0) {
        lb_fail(err, "key path '%s' is not valid UTF-8", kp);
        goto out;
    }
    dumped = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(real_precision(doc)));
    if (!dumped) {
        lb_fail(err, "cannot encode the document with key path '%s'", kp);
        goto out;
    }
    *out = xasprintf("%s\n", dumped);
    *out_len = strlen(*out);
    free(dumped);
    rc = 0;
out:
    free(kp);
    json_decref(doc);
    return rc;
}

char *confedit_subst(const char *s, const char *const *from, const char *const *to, size_t n,
                     size_t *hits)
{
    size_t cap = strlen(s) + 1, len = 0;
    char *out = xmalloc(cap);
    while (*s) {
        const char *piece = s;
        size_t piece_len = 1, skip = 1;
        for (size_t i = 0; i < n; i++) {
            size_t fl = strlen(from[i]);
            if (fl > 0 && strncmp(s, from[i], fl) == 0) {
                piece = to[i];
                piece_len = strlen(to[i]);
                skip = fl;
                if (hits)
                    hits[i]++;
                break;
            }
        }
        if (len + piece_len + 1 > cap) {
            cap = 2 * (len + piece_len + 1);
            out = xrealloc(out, cap);
        }
        memcpy(out + len, piece, piece_len);
        len += piece_len;
        s += skip;
    }
    out[len] = '\0';
    return out;
}

static struct confedit_file *find_file(struct confedit *ce, const char *path)
{
    for (size_t i = 0; i < ce->n_files; i++)
        if (strcmp(ce->files[i].path, path) == 0)
            return &ce->files[i];
    return NULL;
}

/* Lock path, put back what a loopbench that died left edited, then read the original
 * (the file's bytes and mode now). */
static int add_file(struct confedit *ce, const char *path, struct strv *notes,
                    struct lb_error *err)
{
    char *lock_path;
    int lock = journal_lock(path, &lock_path, err);
    if (lock < 0) {
        free(lock_path);
        return -1;
    }
    ce->files = xrealloc(ce->files, (ce->n_files + 1) * sizeof(*ce->files));
    struct confedit_file *cf = &ce->files[ce->n_files++];
    *cf = (struct confedit_file){.path = xstrdup(path), .lock_path = lock_path, .lock_fd = lock};

    bool found, restored;
    if (journal_recover(path, &found, &restored, err) < 0)
        return -1;
    if (found && notes) {
        char *jp = journal_path_for(path);
        strv_push_owned(notes, restored
                                   ? xasprintf("config '%s' restored from journal '%s' left by a "
                                               "loopbench that did not finish",
                                               path, jp)
                                   : xasprintf("removed journal '%s' left by a loopbench that did "
                                               "not finish; config '%s' was already its original",
                                               jp, path));
        free(jp);
    }
    struct stat st;
    if (stat(path, &st) < 0)
        return lb_fail_errno(err, errno, "cannot access '%s'", path);
    if (read_file(path, &cf->original, &cf->original_len, err) < 0)
        return -1;
    cf->mode = st.st_mode & 07777;
    return 0;
}

int confedit_begin(struct confedit *ce, const struct profile *p, struct strv *notes,
                   struct lb_error *err)
{
    memset(ce, 0, sizeof(*ce));
    for (size_t i = 0; i <= p->n_fixed; i++) {
        const char *unused;
        const struct setter *s = setting_at(p, i, NULL, &unused);
        if (s->kind != SETTER_CONFIG || find_file(ce, s->file))
            continue;
        if (add_file(ce, s->file, notes, err) < 0) {
            confedit_release(ce);
            return -1;
        }
    }
    return 0;
}

/* Journal data as a version of cf that is ours, creating the journal (with the
 * original) first if this is the first edit; then write it, through symlinks. */
static int write_version(struct confedit_file *cf, const char *data, size_t len,
                         struct lb_error *err)
{
    if (!cf->journal.path &&
        journal_create(&cf->journal, cf->path, cf->original, cf->original_len, cf->mode, err) < 0)
        return -1;
    if (journal_add(&cf->journal, data, len, err) < 0 ||
        journal_write_file(cf->path, data, len, cf->mode, err) < 0)
        return -1;
    cf->written = true;
    return 0;
}

int confedit_apply(struct confedit *ce, const struct profile *p, const char *value,
                   struct lb_error *err)
{
    for (size_t f = 0; f < ce->n_files; f++) {
        struct confedit_file *cf = &ce->files[f];
        /* From the original bytes every time: the target may have rewritten the file. */
        size_t len = cf->original_len;
        char *doc = xmalloc(len + 1);
        memcpy(doc, cf->original, len + 1);
        for (size_t i = 0; i <= p->n_fixed; i++) {
            const char *v;
            const struct setter *s = setting_at(p, i, value, &v);
            if (s->kind != SETTER_CONFIG || strcmp(s->file, cf->path) != 0)
                continue;
            char *next;
            size_t next_len;
            struct lb_error e;
            int rc = confedit_set_json(doc, len, s->key_path, s->key_depth, v, s->type, &next,
                                       &next_len, &e);
            free(doc);
            if (rc < 0)
                return lb_fail(err, "config '%s': %s", cf->path, e.msg);
            doc = next;
            len = next_len;
        }
        int rc = write_version(cf, doc, len, err);
        free(doc);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int confedit_note_target(struct confedit *ce, struct lb_error *err)
{
    for (size_t f = 0; f < ce->n_files; f++) {
        struct confedit_file *cf = &ce->files[f];
        char *data;
        size_t len;
        if (!cf->journal.path || read_file(cf->path, &data, &len, NULL) < 0)
            continue; /* a file that cannot be read now is judged at recovery */
        int rc = journal_add(&cf->journal, data, len, err);
        free(data);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Restore rewrites only files that differ, so an untouched file keeps its inode and
 * times. */
static bool unchanged(const struct confedit_file *cf)
{
    struct stat st;
    char *data;
    size_t len;
    if (stat(cf->path, &st) < 0 || (st.st_mode & 07777) != cf->mode ||
        (size_t)st.st_size != cf->original_len || read_file(cf->path, &data, &len, NULL) < 0)
        return false;
    bool same = len == cf->original_len && memcmp(data, cf->original, len) == 0;
    free(data);
    return same;
}

int confedit_restore(struct confedit *ce, struct lb_error *err)
{
    int rc = 0;
    for (size_t f = 0; f < ce->n_files; f++) {
        struct confedit_file *cf = &ce->files[f];
        if (!cf->journal.path)
            continue;
        struct lb_error e;
        /* The journal goes only once the original is back. */
        if (((cf->written && !unchanged(cf) &&
              journal_write_file(cf->path, cf->original, cf->original_len, cf->mode, &e) < 0) ||
             journal_remove(&cf->journal, &e) < 0) &&
            rc == 0) {
            rc = -1;
            if (err)
                *err = e;
        }
    }
    return rc;
}

void confedit_release(struct confedit *ce)
{
    for (size_t i = 0; i < ce->n_files; i++) {
        journal_unlock(ce->files[i].lock_path, ce->files[i].lock_fd);
        free(ce->files[i].lock_path);
        free(ce->files[i].path);
        free(ce->files[i].original);
        journal_release(&ce->files[i].journal);
    }
    free(ce->files);
    memset(ce, 0, sizeof(*ce));
}

int confedit_argv(const struct profile *p, const char *value, struct strv *argv,
                  struct lb_error *err)
{
    size_t cap = p->n_fixed + 1, n = 0;
    const char **from = xcalloc(cap, sizeof(*from));
    const char **to = xcalloc(cap, sizeof(*to));
    size_t *owner = xcalloc(cap, sizeof(*owner));
    size_t *hits = xcalloc(cap, sizeof(*hits));
    for (size_t i = 0; i < cap; i++) {
        const char *v;
        const struct setter *s = setting_at(p, i, value, &v);
        if (s->kind != SETTER_ARGV)
            continue;
        from[n] = s->placeholder;
        to[n] = v;
        owner[n++] = i;
    }
    memset(argv, 0, sizeof(*argv));
    /* One pass over each element: a value that looks like a placeholder stays as is. */
    for (size_t i = 0; i < p->command.n; i++)
        strv_push_owned(argv, confedit_subst(p->command.v[i], from, to, n, hits));
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (hits[k])
            continue;
        if (owner[k] == p->n_fixed)
            rc = lb_fail(err, "knob.argv.placeholder: '%s' occurs in no element of command",
                         from[k]);
        else
            rc = lb_fail(err, "fixed[%zu].argv.placeholder: '%s' occurs in no element of command",
                         owner[k], from[k]);
    }
    if (rc < 0)
        strv_release(argv);
    free(from);
    free(to);
    free(owner);
    free(hits);
    return rc;
}

/* Add NAME=VALUE, replacing an entry of the same name where it stands. Steals entry. */
static void env_put(struct strv *envp, char *entry)
{
    size_t nl = strcspn(entry, "=");
    for (size_t i = 0; i < envp->n; i++) {
        char *e = envp->v[i];
        if (strncmp(e, entry, nl) == 0 && (e[nl] == '=' || e[nl] == '\0')) {
            free(e);
            envp->v[i] = entry;
            return;
        }
    }
    strv_push_owned(envp, entry);
}

void confedit_envp(const struct profile *p, const char *value, char *const *base, struct strv *envp)
{
    memset(envp, 0, sizeof(*envp));
    for (size_t i = 0; base && base[i]; i++)
        env_put(envp, xstrdup(base[i]));
    for (size_t i = 0; i < p->env.n; i++)
        env_put(envp, xstrdup(p->env.v[i]));
    for (size_t i = 0; i <= p->n_fixed; i++) {
        const char *v;
        const struct setter *s = setting_at(p, i, value, &v);
        if (s->kind == SETTER_ENV)
            env_put(envp, xasprintf("%s=%s", s->env_name, v));
    }
    /* execve() wants an array even when it is empty. */
    if (!envp->v) {
        envp->v = xcalloc(1, sizeof(*envp->v));
        envp->cap = 1;
    }
}
