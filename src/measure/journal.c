/* The journal of a config file loopbench edits; see journal.h and docs/reliability.md.
 *
 * Format (text header, then the original bytes verbatim):
 *   loopbench-journal 2
 *   mode 0644
 *   original HASH LENGTH
 *   ours HASH            (one line per version that is ours)
 *   written [PATH,VALUE] (one line per value loopbench wrote at a key path: compact
 *                         JSON, the key path an array of keys)
 *   <empty line>
 *   the original bytes, exactly LENGTH of them
 * Version 1, which older loopbench versions wrote, has no written lines; it is read all
 * the same. HASH is FNV-1a 64 in 16 hex digits: it tells loopbench's own versions from
 * an operator's edit, it is not a defence against an adversary. */
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "util.h"

#define JOURNAL_MAGIC "loopbench-journal 2\n"
#define JOURNAL_SUFFIX ".loopbench-journal"
#define LOCK_SUFFIX ".loopbench-lock"
#define KEPT_INFIX ".loopbench-kept-"
/* Names tried for a kept file in one second, before giving up. */
#define KEPT_TRIES 100

/* DIR/.NAME<suffix> for file DIR/NAME. */
static char *hidden_beside(const char *file, const char *suffix)
{
    const char *base = path_basename(file);
    return xasprintf("%.*s.%s%s", (int)(base - file), file, base, suffix);
}

/* The name file's lock and journal go by: its real path, so that every link to one
 * file finds the same ones; for a file that is missing, the real path of its
 * directory joined with its name (new string). */
static char *real_key(const char *file)
{
    char *real = plat_realpath(file);
    if (real)
        return real;
    char *dir = path_dirname(file), *real_dir = plat_realpath(dir);
    char *key = real_dir ? path_join(real_dir, path_basename(file)) : xstrdup(file);
    free(real_dir);
    free(dir);
    return key;
}

static char *keyed_beside(const char *file, const char *suffix)
{
    char *key = real_key(file);
    char *path = hidden_beside(key, suffix);
    free(key);
    return path;
}

char *journal_path_for(const char *file)
{
    return keyed_beside(file, JOURNAL_SUFFIX);
}

int journal_lock(const char *file, char **lock_path, struct lb_error *err)
{
    *lock_path = keyed_beside(file, LOCK_SUFFIX);
    char *what = xasprintf("config '%s'", file);
    int fd = lock_take(*lock_path, what, err);
    free(what);
    return fd;
}

void journal_unlock(const char *lock_path, int fd)
{
    lock_drop(lock_path, fd);
}

char *journal_file_for(const char *dir, const char *name)
{
    size_t n = strlen(name), sl = strlen(JOURNAL_SUFFIX);
    if (n <= 1 + sl || name[0] != '.' || strcmp(name + n - sl, JOURNAL_SUFFIX) != 0)
        return NULL;
    char *base = xstrndup(name + 1, n - 1 - sl);
    char *file = path_join(dir, base);
    free(base);
    return file;
}

int journal_write_file(const char *file, const void *data, size_t len, unsigned mode,
                       struct lb_error *err)
{
    char *real = plat_realpath(file);
    int rc = write_file_atomic(real ? real : file, data, len, mode, err);
    free(real);
    return rc;
}

/* head with line (and a newline) appended: head is freed, the result is new. */
static char *add_line(char *head, const char *key, const char *value)
{
    char *next = xasprintf("%s%s %s\n", head, key, value);
    free(head);
    return next;
}

/* The whole journal, header then original bytes, written atomically (synced, and the
 * directory synced, by write_file_atomic). Mode 0600: the original may hold secrets. */
static int journal_save(const struct journal *j, struct lb_error *err)
{
    char hash[17];
    hash_fnv1a64_hex(j->original, j->original_len, hash);
    char *head =
        xasprintf(JOURNAL_MAGIC "mode %04o\noriginal %s %zu\n", j->mode, hash, j->original_len);
    for (size_t i = 0; i < j->n_known; i++)
        head = add_line(head, "ours", j->known[i]);
    size_t i;
    json_t *pair;
    json_array_foreach(j->written, i, pair) {
        char *text = json_dumps(pair, JSON_COMPACT | JSON_ENSURE_ASCII);
        head = add_line(head, "written", text);
        free(text);
    }
    size_t head_len = strlen(head), len = head_len + 1 + j->original_len;
    char *buf = xmalloc(len);
    memcpy(buf, head, head_len);
    buf[head_len] = '\n';
    memcpy(buf + head_len + 1, j->original, j->original_len);
    int rc = write_file_atomic(j->path, buf, len, 0600, err);
    free(buf);
    free(head);
    return rc;
}

int journal_create(struct journal *j, const char *file, const char *original, size_t len,
                   unsigned mode, struct lb_error *err)
{
    *j = (struct journal){
        .path = journal_path_for(file),
        .file = xstrdup(file),
        .original = xmalloc(len + 1),
        .original_len = len,
        .mode = mode & 07777,
        .written = json_array(),
    };
    memcpy(j->original, original, len);
    j->original[len] = '\0';
    if (journal_save(j, err) < 0) {
        journal_release(j);
        return -1;
    }
    return 0;
}

static bool known(const struct journal *j, const char hash[17])
{
    for (size_t i = 0; i < j->n_known; i++)
        if (memcmp(j->known[i], hash, 16) == 0)
            return true;
    return false;
}

bool journal_is_ours(const struct journal *j, const void *data, size_t len)
{
    if (len == j->original_len && memcmp(data, j->original, len) == 0)
        return true;
    char hash[17];
    hash_fnv1a64_hex(data, len, hash);
    return known(j, hash);
}

/* Whether pair ([key path, value]) is one of j's written pairs. */
static bool written_has(const struct journal *j, const json_t *pair)
{
    size_t i;
    json_t *p;
    json_array_foreach(j->written, i, p) {
        if (json_equal(p, pair))
            return true;
    }
    return false;
}

int journal_add(struct journal *j, const void *data, size_t len, const json_t *written,
                struct lb_error *err)
{
    char hash[17];
    hash_fnv1a64_hex(data, len, hash);
    bool changed = !known(j, hash);
    if (changed) {
        j->known = xrealloc(j->known, (j->n_known + 1) * sizeof(*j->known));
        memcpy(j->known[j->n_known++], hash, 17);
    }
    size_t i;
    json_t *pair;
    json_array_foreach(written, i, pair) {
        if (written_has(j, pair))
            continue;
        if (!j->written)
            j->written = json_array();
        json_array_append(j->written, pair);
        changed = true;
    }
    return changed ? journal_save(j, err) : 0;
}

static bool is_hash(const char *s)
{
    return strspn(s, "0123456789abcdef") == 16;
}

/* A [key path, value] pair as confedit writes them: a non-empty array of keys, and a
 * string or a number. */
static bool is_pair(const json_t *pair)
{
    const json_t *path = json_array_get(pair, 0), *value = json_array_get(pair, 1);
    if (json_array_size(pair) != 2 || json_array_size(path) == 0 ||
        !(json_is_string(value) || json_is_number(value)))
        return false;
    size_t i;
    const json_t *key;
    json_array_foreach(path, i, key) {
        if (!json_is_string(key))
            return false;
    }
    return true;
}

/* Parse the header at text (NUL-terminated where the blank line was) into j. */
static int parse_header(struct journal *j, char *text, char *hash, size_t *len)
{
    char *save = NULL;
    bool first = true;
    for (char *line = text; line; line = save) {
        save = strchr(line, '\n');
        if (save)
            *save++ = '\0';
        char *end;
        if (first) {
            if (strcmp(line, "loopbench-journal 2") == 0)
                j->written = json_array();
            else if (strcmp(line, "loopbench-journal 1") != 0)
                return -1;
            first = false;
        } else if (strncmp(line, "mode ", 5) == 0) {
            unsigned long m = strtoul(line + 5, &end, 8);
            if (*end || end == line + 5 || m > 07777)
                return -1;
            j->mode = (unsigned)m;
        } else if (strncmp(line, "original ", 9) == 0 && is_hash(line + 9) && line[25] == ' ') {
            memcpy(hash, line + 9, 16);
            hash[16] = '\0';
            errno = 0;
            unsigned long long n = strtoull(line + 26, &end, 10);
            if (*end || end == line + 26 || errno)
                return -1;
            *len = (size_t)n;
        } else if (strncmp(line, "ours ", 5) == 0 && is_hash(line + 5) && !line[21]) {
            j->known = xrealloc(j->known, (j->n_known + 1) * sizeof(*j->known));
            memcpy(j->known[j->n_known], line + 5, 16);
            j->known[j->n_known++][16] = '\0';
        } else if (strncmp(line, "written ", 8) == 0 && j->written) {
            json_t *pair = json_loads(line + 8, 0, NULL);
            bool ok = is_pair(pair);
            if (ok)
                json_array_append(j->written, pair);
            json_decref(pair);
            if (!ok)
                return -1;
        } else {
            return -1;
        }
    }
    return first ? -1 : 0;
}

/* The journal of file that exists (new string): the one keyed to its real path, else
 * one beside the path as given, where a loopbench before 0.x named it (a config reached
 * through a link had its journal beside the link); NULL when there is neither. */
static char *existing_journal(const char *file)
{
    char *path = journal_path_for(file);
    if (access(path, F_OK) == 0 || errno != ENOENT)
        return path;
    free(path);
    path = hidden_beside(file, JOURNAL_SUFFIX);
    if (access(path, F_OK) == 0 || errno != ENOENT)
        return path;
    free(path);
    return NULL;
}

int journal_load(const char *file, struct journal *j, bool *found, struct lb_error *err)
{
    char *path = existing_journal(file);
    char *data;
    size_t len;
    *found = false;
    if (!path)
        return 0;
    if (read_file_bounded(path, "journal", JOURNAL_SIZE_MAX, &data, &len, err) < 0) {
        free(path);
        return -1;
    }
    struct journal t = {.path = path, .file = xstrdup(file)};
    char hash[17] = "", check[17];
    size_t orig_len = (size_t)-1;
    char *blank = strstr(data, "\n\n");
    int rc = -1;
    if (blank) {
        blank[0] = '\0';
        blank += 2;
        size_t body = len - (size_t)(blank - data);
        if (parse_header(&t, data, hash, &orig_len) == 0 && orig_len == body) {
            hash_fnv1a64_hex(blank, body, check);
            if (strcmp(check, hash) == 0) {
                t.original = xmalloc(body + 1);
                memcpy(t.original, blank, body);
                t.original[body] = '\0';
                t.original_len = body;
                rc = 0;
            }
        }
    }
    free(data);
    if (rc < 0) {
        lb_fail(err, "journal '%s' is damaged; the config '%s' was left as it is", path, file);
        journal_release(&t);
        return -1;
    }
    *j = t;
    *found = true;
    return 0;
}

int journal_remove(const struct journal *j, struct lb_error *err)
{
    if (unlink(j->path) < 0 && errno != ENOENT)
        return lb_fail_errno(err, errno, "cannot remove journal '%s'", j->path);
    return 0;
}

/* The object in doc holding the last key of path, or NULL. */
static json_t *parent_at(json_t *doc, const json_t *path)
{
    size_t n = json_array_size(path);
    for (size_t i = 0; doc && i + 1 < n; i++)
        doc = json_object_get(doc, json_string_value(json_array_get(path, i)));
    return json_is_object(doc) ? doc : NULL;
}

static const char *last_key(const json_t *path)
{
    return json_string_value(json_array_get(path, json_array_size(path) - 1));
}

/* Whether doc holds at path one of the values j says loopbench wrote there. */
static bool holds_written(const struct journal *j, json_t *doc, const json_t *path)
{
    json_t *value = json_object_get(parent_at(doc, path), last_key(path));
    size_t i;
    json_t *pair;
    json_array_foreach(j->written, i, pair) {
        if (value && json_equal(json_array_get(pair, 0), path) &&
            json_equal(json_array_get(pair, 1), value))
            return true;
    }
    return false;
}

/* Whether every value of original is in doc unchanged: doc may have more keys, in any
 * object. */
static bool kept_all(json_t *original, json_t *doc)
{
    if (!json_is_object(original) || !json_is_object(doc))
        return json_equal(original, doc);
    const char *key;
    json_t *value;
    json_object_foreach(original, key, value) {
        json_t *there = json_object_get(doc, key);
        if (!there || !kept_all(value, there))
            return false;
    }
    return true;
}

/* Whether doc is what a target makes when it loads a version loopbench wrote and saves
 * it again (as ModernUO adds every setting it misses with its default): every key path
 * loopbench wrote holds a value loopbench wrote there, and every other value of the
 * original is there unchanged; the formatting and the order of keys may differ. */
static bool saved_from_ours(const struct journal *j, json_t *original, json_t *doc)
{
    if (json_array_size(j->written) == 0 || !json_is_object(doc))
        return false;
    json_t *orig_rest = json_deep_copy(original), *doc_rest = json_deep_copy(doc);
    bool ok = true;
    size_t i;
    json_t *pair;
    json_array_foreach(j->written, i, pair) {
        const json_t *path = json_array_get(pair, 0);
        ok = ok && holds_written(j, doc, path);
        json_object_del(parent_at(orig_rest, path), last_key(path));
        json_object_del(parent_at(doc_rest, path), last_key(path));
    }
    ok = ok && kept_all(orig_rest, doc_rest);
    json_decref(orig_rest);
    json_decref(doc_rest);
    return ok;
}

/* What data, the file's content, is to its journal. A file that is not JSON although
 * loopbench edited it as JSON (its original is JSON) is a save cut short: a prefix, or
 * empty after the truncation. */
static enum journal_held judge(const struct journal *j, const char *data, size_t len)
{
    if (len == j->original_len && memcmp(data, j->original, len) == 0)
        return JOURNAL_HELD_ORIGINAL;
    if (journal_is_ours(j, data, len))
        return JOURNAL_HELD_OURS;
    json_t *original = json_loadb(j->original, j->original_len, 0, NULL);
    json_t *doc = original ? json_loadb(data, len, 0, NULL) : NULL;
    enum journal_held held = !original                           ? JOURNAL_HELD_FOREIGN
                             : !doc                              ? JOURNAL_HELD_CUT
                             : saved_from_ours(j, original, doc) ? JOURNAL_HELD_OURS
                                                                 : JOURNAL_HELD_FOREIGN;
    json_decref(doc);
    json_decref(original);
    return held;
}

/* Keep data beside file's real path as NAME.loopbench-kept-TIME (-2, -3... when taken):
 * a new file of mode 0600, synced, never written through a link or over a file.
 * *kept is its path (new string). */
static int keep_beside(const char *file, const char *data, size_t len, char **kept,
                       struct lb_error *err)
{
    char stamp[32];
    format_utc(wall_ns(), true, stamp, sizeof(stamp));
    char *real = real_key(file);
    int rc = 1;
    for (int i = 1; i <= KEPT_TRIES && rc == 1; i++) {
        *kept = i == 1 ? xasprintf("%s" KEPT_INFIX "%s", real, stamp)
                       : xasprintf("%s" KEPT_INFIX "%s-%d", real, stamp, i);
        rc = write_file_new(*kept, data, len, 0600, err);
        if (rc != 0) {
            free(*kept);
            *kept = NULL;
        }
    }
    if (rc == 1)
        lb_fail(err, "cannot keep config '%s' beside it: %d names " KEPT_INFIX "%s were taken",
                file, KEPT_TRIES, stamp);
    free(real);
    return rc == 0 ? 0 : -1;
}

/* file's bytes, read at its real path: an operator's link to the config is followed, a
 * FIFO or a huge file a target left in its place is not read. 0, or -1. */
static int read_config(const char *file, char **data, size_t *len)
{
    char *real = plat_realpath(file);
    int rc = real ? read_file_bounded(real, "config file", CONFIG_SIZE_MAX, data, len, NULL) : -1;
    free(real);
    return rc;
}

int journal_recover(const char *file, bool force, struct journal_recovery *r, struct lb_error *err)
{
    struct journal j;
    *r = (struct journal_recovery){0};
    if (journal_load(file, &j, &r->found, err) < 0)
        return -1;
    if (!r->found)
        return 0;
    int rc = -1;
    struct stat st;
    char *data = NULL;
    size_t len = 0;
    bool gone = stat(file, &st) < 0;
    if (gone && errno == ENOENT) {
        r->held = JOURNAL_HELD_MISSING;
    } else if (gone || read_config(file, &data, &len) < 0) {
        lb_fail(err,
                "config '%s' cannot be read, so it was not restored; its original is in "
                "journal '%s'",
                file, j.path);
        goto out;
    } else {
        r->held = judge(&j, data, len);
    }
    if (!force && r->held == JOURNAL_HELD_MISSING) {
        lb_fail(err,
                "config '%s' is missing, so it was not restored; its original is in "
                "journal '%s'; to put it back: loopbench restore --force '%s'",
                file, j.path, file);
        goto out;
    }
    if (!force && r->held == JOURNAL_HELD_FOREIGN) {
        lb_fail(err,
                "config '%s' was changed by someone else since loopbench edited it, so "
                "it was not overwritten; its original is in journal '%s'; to put it back, "
                "keeping this content beside it: loopbench restore --force '%s'",
                file, j.path, file);
        goto out;
    }
    if ((r->held == JOURNAL_HELD_CUT || r->held == JOURNAL_HELD_FOREIGN) && len > 0 &&
        keep_beside(file, data, len, &r->kept, err) < 0)
        goto out;
    if (r->held != JOURNAL_HELD_ORIGINAL || (st.st_mode & 07777) != j.mode) {
        if (journal_write_file(file, j.original, j.original_len, j.mode, err) < 0)
            goto out;
        r->restored = true;
    }
    rc = journal_remove(&j, err);
out:
    free(data);
    journal_release(&j);
    return rc;
}

void journal_recovery_release(struct journal_recovery *r)
{
    free(r->kept);
    r->kept = NULL;
}

void journal_release(struct journal *j)
{
    free(j->path);
    free(j->file);
    free(j->original);
    free(j->known);
    json_decref(j->written);
    memset(j, 0, sizeof(*j));
}
