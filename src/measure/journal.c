/* The journal of a config file loopbench edits; see journal.h and docs/reliability.md.
 *
 * Format (text header, then the original bytes verbatim):
 *   loopbench-journal 1
 *   mode 0644
 *   original HASH LENGTH
 *   ours HASH            (one line per version that is ours)
 *   <empty line>
 *   the original bytes, exactly LENGTH of them
 * HASH is FNV-1a 64 in 16 hex digits: it tells loopbench's own versions from an
 * operator's edit, it is not a defence against an adversary. */
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

#define JOURNAL_MAGIC "loopbench-journal 1\n"
#define JOURNAL_SUFFIX ".loopbench-journal"
#define LOCK_SUFFIX ".loopbench-lock"

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

/* The whole journal, header then original bytes, written atomically (synced, and the
 * directory synced, by write_file_atomic). Mode 0600: the original may hold secrets. */
static int journal_save(const struct journal *j, struct lb_error *err)
{
    char hash[17];
    hash_fnv1a64_hex(j->original, j->original_len, hash);
    char *head =
        xasprintf(JOURNAL_MAGIC "mode %04o\noriginal %s %zu\n", j->mode, hash, j->original_len);
    size_t head_len = strlen(head), len = head_len + 22 * j->n_known + 1 + j->original_len;
    char *buf = xmalloc(len);
    memcpy(buf, head, head_len);
    size_t at = head_len;
    for (size_t i = 0; i < j->n_known; i++) {
        memcpy(buf + at, "ours ", 5);
        memcpy(buf + at + 5, j->known[i], 16);
        buf[at + 21] = '\n';
        at += 22;
    }
    buf[at++] = '\n';
    memcpy(buf + at, j->original, j->original_len);
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

int journal_add(struct journal *j, const void *data, size_t len, struct lb_error *err)
{
    char hash[17];
    hash_fnv1a64_hex(data, len, hash);
    if (known(j, hash))
        return 0;
    j->known = xrealloc(j->known, (j->n_known + 1) * sizeof(*j->known));
    memcpy(j->known[j->n_known++], hash, 17);
    return journal_save(j, err);
}

static bool is_hash(const char *s)
{
    return strspn(s, "0123456789abcdef") == 16;
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
            if (strcmp(line, "loopbench-journal 1") != 0)
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
    if (read_file(path, &data, &len, err) < 0) {
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

int journal_recover(const char *file, bool *found, bool *restored, struct lb_error *err)
{
    struct journal j;
    *restored = false;
    if (journal_load(file, &j, found, err) < 0)
        return -1;
    if (!*found)
        return 0;
    int rc = -1;
    struct stat st;
    char *data = NULL;
    size_t len;
    if (stat(file, &st) < 0 || read_file(file, &data, &len, NULL) < 0) {
        lb_fail(err,
                "config '%s' is missing or unreadable, so it was not restored; its "
                "original is in journal '%s'",
                file, j.path);
        goto out;
    }
    if (!journal_is_ours(&j, data, len)) {
        lb_fail(err,
                "config '%s' was changed by someone else since loopbench edited it, so "
                "it was not overwritten; its original is in journal '%s'",
                file, j.path);
        goto out;
    }
    bool same = len == j.original_len && memcmp(data, j.original, len) == 0 &&
                (st.st_mode & 07777) == j.mode;
    if (!same) {
        if (journal_write_file(file, j.original, j.original_len, j.mode, err) < 0)
            goto out;
        *restored = true;
    }
    rc = journal_remove(&j, err);
out:
    free(data);
    journal_release(&j);
    return rc;
}

void journal_release(struct journal *j)
{
    free(j->path);
    free(j->file);
    free(j->original);
    free(j->known);
    memset(j, 0, sizeof(*j));
}
