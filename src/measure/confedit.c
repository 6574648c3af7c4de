/* Applying a setting's value to a target's config files (what the value makes of the
 * document, argv and environment: model/setter.c).
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
#include "platform/files.h"
#include "platform/platform.h"
#include "setter.h"

/* A write the target makes to its config has settled once two reads SETTLE_GAP_NS apart
 * agree; a file still changing after SETTLE_LIMIT_NS is left for the next look. */
#define SETTLE_GAP_NS (50ULL * 1000 * 1000)
#define SETTLE_LIMIT_NS (2ULL * 1000 * 1000 * 1000)

static struct confedit_file *find_file(struct confedit *ce, const char *path)
{
    for (size_t i = 0; i < ce->n_files; i++)
        if (strcmp(ce->files[i].path, path) == 0)
            return &ce->files[i];
    return NULL;
}

/* Lock path, put back what a loopbench that died left edited, then read the original
 * (the file's bytes and mode now). */
static int add_file(struct confedit *ce, const char *path, struct strv *notes, struct lb_error *err)
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

    struct journal_recovery rec;
    int rc = journal_recover(path, false, &rec, err);
    if (rc == 0 && rec.found && notes) {
        char *jp = journal_path_for(path);
        char *kept =
            rec.kept
                ? xasprintf("; what it held, not JSON (a save cut short), kept as '%s'", rec.kept)
                : xstrdup("");
        strv_push_owned(notes, rec.restored
                                   ? xasprintf("config '%s' restored from journal '%s' left by a "
                                               "loopbench that did not finish%s",
                                               path, jp, kept)
                                   : xasprintf("removed journal '%s' left by a loopbench that did "
                                               "not finish; config '%s' was already its original",
                                               jp, path));
        free(kept);
        free(jp);
    }
    journal_recovery_release(&rec);
    if (rc < 0)
        return -1;
    struct stat st;
    if (stat(path, &st) < 0)
        return lb_fail_errno(err, errno, "cannot access '%s'", path);
    cf->mode = st.st_mode & 07777;
    cf->link = plat_link_text(path);
    if (!(cf->real = plat_realpath(path)))
        return lb_fail_errno(err, errno, "cannot resolve '%s'", path);
    /* at its real path: the operator's link is followed, once, here */
    return read_file_bounded(cf->real, "config file", CONFIG_SIZE_MAX, &cf->original,
                             &cf->original_len, err);
}

int confedit_begin(struct confedit *ce, const struct profile *p, struct strv *notes,
                   struct lb_error *err)
{
    memset(ce, 0, sizeof(*ce));
    for (size_t i = 0; i <= p->n_fixed; i++) {
        const char *unused;
        const struct setter *s = setter_at(p, i, NULL, &unused);
        if (s->kind != SETTER_CONFIG || find_file(ce, s->file))
            continue;
        if (add_file(ce, s->file, notes, err) < 0) {
            confedit_release(ce);
            return -1;
        }
    }
    return 0;
}

/* A target that saves its config by renaming a new file over it (refshard does, when
 * settings are missing) replaces the link the operator had there with a file: put the
 * link back, so that what is written next goes where it went at the start, and the
 * target reads it there. */
static int relink(const struct confedit_file *cf, struct lb_error *err)
{
    if (!cf->link)
        return 0;
    char *now = plat_link_text(cf->path);
    bool same = now && strcmp(now, cf->link) == 0;
    free(now);
    return same ? 0 : link_atomic(cf->path, cf->link, err);
}

/* Journal data as a version of cf that is ours, with the [key path, value] pairs written
 * makes of the original, creating the journal (with the original) first if this is the
 * first edit; then write it where the config was at the start, replacing whatever the
 * target left there (a link it planted included). */
static int write_version(struct confedit_file *cf, const char *data, size_t len,
                         const json_t *written, struct lb_error *err)
{
    if (!cf->journal.path &&
        journal_create(&cf->journal, cf->path, cf->original, cf->original_len, cf->mode, err) < 0)
        return -1;
    if (journal_add(&cf->journal, data, len, written, err) < 0 || relink(cf, err) < 0 ||
        write_file_atomic(cf->real, data, len, cf->mode, err) < 0)
        return -1;
    cf->written = true;
    cf->seen = (struct plat_file_stamp){0}; /* the target's versions are to be looked at */
    return 0;
}

/* [key path, value]: what s writes for value, as the journal records it. */
static json_t *written_pair(const struct setter *s, const char *value)
{
    json_t *path = json_array();
    for (size_t k = 0; k < s->key_depth; k++)
        json_array_append_new(path, json_string(s->key_path[k]));
    json_t *pair = json_array();
    json_array_append_new(pair, path);
    json_array_append_new(pair, setter_json_value(value, s->type));
    return pair;
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
        json_t *written = json_array();
        for (size_t i = 0; i <= p->n_fixed; i++) {
            const char *v;
            const struct setter *s = setter_at(p, i, value, &v);
            if (s->kind != SETTER_CONFIG || strcmp(s->file, cf->path) != 0)
                continue;
            char *next;
            size_t next_len;
            struct lb_error e;
            int rc = setter_set_json(doc, len, s->key_path, s->key_depth, v, s->type, &next,
                                     &next_len, &e);
            free(doc);
            if (rc < 0) {
                json_decref(written);
                return lb_fail(err, "config '%s': %s", cf->path, e.msg);
            }
            doc = next;
            len = next_len;
            json_array_append_new(written, written_pair(s, v));
        }
        int rc = write_version(cf, doc, len, written, err);
        json_decref(written);
        free(doc);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static bool same_stamp(const struct plat_file_stamp *a, const struct plat_file_stamp *b)
{
    return a->regular == b->regular && a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->ino == b->ino;
}

/* One read of path that nothing changed while it lasted (the stamps before and after
 * agree): 1 with its bytes (new, caller frees) and *stamp; 0 when it changed under the
 * read; -1 when there is no regular file at path (a link the target left is not
 * followed). */
static int read_still(const char *path, char **data, size_t *len, struct plat_file_stamp *stamp)
{
    struct plat_file_stamp after;
    if (plat_file_stamp(path, stamp) < 0 || !stamp->regular)
        return -1;
    if (read_file_bounded(path, "config file", CONFIG_SIZE_MAX, data, len, NULL) < 0)
        return 0;
    if (plat_file_stamp(path, &after) == 0 && same_stamp(stamp, &after) && *len == after.size)
        return 1;
    free(*data);
    return 0;
}

/* path's bytes once a write to it has settled: two still reads SETTLE_GAP_NS apart that
 * agree (*stamp the second's). false when they did not within SETTLE_LIMIT_NS, or path
 * is no regular file: then nothing is known of it. */
static bool read_settled(const char *path, char **data, size_t *len, struct plat_file_stamp *stamp)
{
    uint64_t give_up = mono_ns() + SETTLE_LIMIT_NS;
    char *prev = NULL;
    size_t prev_len = 0;
    for (;;) {
        char *cur;
        size_t cur_len;
        int still = read_still(path, &cur, &cur_len, stamp);
        if (still == 1 && prev && prev_len == cur_len && memcmp(prev, cur, cur_len) == 0) {
            free(prev);
            *data = cur;
            *len = cur_len;
            return true;
        }
        free(prev);
        prev = still == 1 ? cur : NULL;
        prev_len = still == 1 ? cur_len : 0;
        if (still < 0 || mono_ns() + SETTLE_GAP_NS > give_up) {
            free(prev);
            return false;
        }
        plat_sleep(SETTLE_GAP_NS);
    }
}

/* A version loopbench may count as the target's: JSON, as loopbench wrote it. Anything
 * else is a save still under way (truncated, half written), never the target's. */
static bool complete(const char *data, size_t len)
{
    json_t *doc = json_loadb(data, len, 0, NULL);
    json_decref(doc);
    return doc != NULL;
}

int confedit_note_target(struct confedit *ce, bool if_changed, struct lb_error *err)
{
    for (size_t f = 0; f < ce->n_files; f++) {
        struct confedit_file *cf = &ce->files[f];
        struct plat_file_stamp now;
        char *data;
        size_t len;
        if (!cf->journal.path ||
            (if_changed && cf->seen.regular && plat_file_stamp(cf->real, &now) == 0 &&
             same_stamp(&now, &cf->seen)))
            continue;
        if (!read_settled(cf->real, &data, &len, &cf->seen)) {
            cf->seen = (struct plat_file_stamp){0};
            continue; /* judged at recovery, or replaced at the next write */
        }
        int rc = complete(data, len) ? journal_add(&cf->journal, data, len, NULL, err) : 0;
        free(data);
        /* The link back now rather than at the next write: a loopbench killed from here
         * on leaves the operator's link, and a journal that recovers what it leads to. */
        if (rc < 0 || relink(cf, err) < 0)
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
    if (lstat(cf->real, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 07777) != cf->mode ||
        (size_t)st.st_size != cf->original_len ||
        read_file_bounded(cf->real, "config file", CONFIG_SIZE_MAX, &data, &len, NULL) < 0)
        return false;
    bool same = len == cf->original_len && memcmp(data, cf->original, len) == 0;
    free(data);
    return same;
}

/* cf as it was at the start: its link, then its original bytes and mode where they
 * differ. */
static int put_back(const struct confedit_file *cf, struct lb_error *err)
{
    if (relink(cf, err) < 0)
        return -1;
    return unchanged(cf)
               ? 0
               : write_file_atomic(cf->real, cf->original, cf->original_len, cf->mode, err);
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
        if (((cf->written && put_back(cf, &e) < 0) || journal_remove(&cf->journal, &e) < 0) &&
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
        free(ce->files[i].real);
        free(ce->files[i].link);
        free(ce->files[i].original);
        journal_release(&ce->files[i].journal);
    }
    free(ce->files);
    memset(ce, 0, sizeof(*ce));
}
