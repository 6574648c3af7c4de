#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compat.h"
#include "platform/platform.h"

static void oom(void)
{
    fputs("loopbench: out of memory\n", stderr);
    abort();
}

void *xcheck(void *p)
{
    if (!p)
        oom();
    return p;
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        oom();
    return p;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    const char *nul = memchr(s, '\0', n);
    size_t len = nul ? (size_t)(nul - s) : n;
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    return p;
}

void strv_push_owned(struct strv *sv, char *s)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 8;
        sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
    strv_push_owned(sv, xstrdup(s));
}

void strv_release(struct strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t mono_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t wall_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

int parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int parse_long(const char *s, long min, long max, long *out)
{
    int64_t v;
    if (parse_int64(s, min, max, &v) < 0)
        return -1;
    *out = (long)v;
    return 0;
}

int read_file(const char *path, char **data, size_t *len, struct lb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "cannot open '%s'", path);
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            free(buf);
            return lb_fail_errno(err, e, "cannot read '%s'", path);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

char *read_back(FILE *f, size_t *len, struct lb_error *err)
{
    long size = ftell(f);
    char *text = size >= 0 ? xmalloc((size_t)size + 1) : NULL;
    if (!text || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0 ||
        fread(text, 1, (size_t)size, f) != (size_t)size) {
        lb_fail_errno(err, errno, "cannot read back a temporary file");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    text[size] = '\0';
    if (len)
        *len = (size_t)size;
    return text;
}

/* Tries at a fresh name before giving up: a clash among 2^64 names means that
 * something is creating them on purpose. */
#define TMP_NAME_TRIES 16

/* A new temporary file beside path, named PATH.lbtmp.<16 random hex digits>: a name
 * nobody can plant a link or a file at in advance, created exclusively (and never
 * through a link). Its descriptor, *tmp its name (new string), or -1 with err. */
static int create_beside(const char *path, char **tmp, struct lb_error *err)
{
    for (int i = 0; i < TMP_NAME_TRIES; i++) {
        uint64_t r;
        if (plat_random(&r, sizeof(r)) < 0)
            return lb_fail_errno(err, errno, "cannot draw a temporary name for '%s'", path);
        *tmp = xasprintf("%s.lbtmp.%016llx", path, (unsigned long long)r);
        int fd = plat_create_exclusive(*tmp);
        if (fd >= 0)
            return fd;
        int e = errno;
        if (e != EEXIST) {
            lb_fail_errno(err, e, "cannot create '%s'", *tmp);
            free(*tmp);
            return -1;
        }
        free(*tmp);
    }
    return lb_fail(err, "cannot create a temporary file beside '%s': %d random names were "
                   "all taken", path, TMP_NAME_TRIES);
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode,
                      struct lb_error *err)
{
    char *tmp = NULL;
    int fd = create_beside(path, &tmp, err);
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            lb_fail_errno(err, errno, "cannot write '%s'", tmp);
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    /* On the descriptor: a path could by now lead elsewhere. Created 0600, so the file
     * is nobody else's to read until it has its mode, exactly the original one. */
    if (plat_set_mode(fd, mode) < 0) {
        lb_fail_errno(err, errno, "cannot set the mode of '%s'", tmp);
        goto fail;
    }
    if (fsync(fd) < 0) {
        lb_fail_errno(err, errno, "cannot sync '%s'", tmp);
        goto fail;
    }
    if (close(fd) < 0) {
        fd = -1;
        lb_fail_errno(err, errno, "cannot close '%s'", tmp);
        goto fail;
    }
    fd = -1;
    if (plat_replace_file(tmp, path) < 0) {
        lb_fail_errno(err, errno, "cannot replace '%s'", path);
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return -1;
}

int mkdir_p(const char *path, unsigned mode, struct lb_error *err)
{
    char *copy = xstrdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (plat_mkdir(copy, mode) < 0 && errno != EEXIST) {
            lb_fail_errno(err, errno, "cannot create directory '%s'", copy);
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = 0;
    if (plat_mkdir(copy, mode) < 0 && errno != EEXIST)
        rc = lb_fail_errno(err, errno, "cannot create directory '%s'", copy);
    free(copy);
    return rc;
}

bool path_is_within(const char *rel)
{
    if (!*rel || plat_path_root_len(rel) > 0)
        return false;
    for (const char *c = rel; *c;) {
        size_t len = 0;
        while (c[len] && !plat_path_is_separator(c[len]))
            len++;
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return false;
        c += len;
        while (*c && plat_path_is_separator(*c))
            c++;
    }
    return true;
}

const char *path_basename(const char *path)
{
    const char *base = path + plat_path_root_len(path);
    for (const char *c = base; *c; c++)
        if (plat_path_is_separator(*c))
            base = c + 1;
    return base;
}

char *path_dirname(const char *path)
{
    size_t root = plat_path_root_len(path);
    const char *base = path_basename(path);
    if (base == path)
        return xstrdup(".");
    if (base == path + root)
        return xstrndup(path, root);
    return xstrndup(path, (size_t)(base - 1 - path));
}

char *path_join(const char *dir, const char *rel)
{
    if (plat_path_root_len(rel) > 0 || !dir || !*dir)
        return xstrdup(rel);
    size_t dl = strlen(dir);
    if (plat_path_is_separator(dir[dl - 1]))
        return xasprintf("%s%s", dir, rel);
    return xasprintf("%s/%s", dir, rel);
}

char *format_hostport(const char *host, int port)
{
    return xasprintf(strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

uint64_t hash_fnv1a64(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void hash_fnv1a64_hex(const void *data, size_t len, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)hash_fnv1a64(data, len, FNV1A64_OFFSET));
}

const char *name_of(const char *const *names, size_t n, size_t i)
{
    return i < n && names[i] ? names[i] : "unknown";
}

int name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

json_t *json_num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void format_utc(uint64_t wall, bool compact, char *out, size_t outlen)
{
    time_t t = (time_t)(wall / NS_PER_SEC);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, outlen, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil), so parsing needs neither strptime nor timegm, which Windows lacks. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int parse_utc(const char *s, uint64_t *wall)
{
    static const unsigned month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned y, mo, d, h, mi, sec;
    int end = 0;
    if (strlen(s) != 20 || sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2uZ%n", &y, &mo, &d, &h, &mi, &sec, &end) != 6 ||
        end != 20)
        return -1;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] ||
        (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || sec > 60)
        return -1;
    int64_t days = days_from_civil(y, mo, d);
    *wall = ((uint64_t)days * 86400 + h * 3600ULL + mi * 60ULL + sec) * NS_PER_SEC;
    return 0;
}

/* Tries at opening a lock file that its holder keeps removing under us. */
#define LOCK_OPEN_TRIES 100

/* The lock file at path, opened for writing its pid: created (mode 0600) when missing,
 * else the one there, but never through a symbolic link nor one that is not a regular
 * file of its own (a hard link): the pid written into it would land in a victim file.
 * -1 with err. */
static int lock_open(const char *path, struct lb_error *err)
{
    for (int i = 0; i < LOCK_OPEN_TRIES; i++) {
        int fd = plat_create_exclusive(path);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return lb_fail_errno(err, errno, "cannot create lock file '%s'", path);
        fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue; /* its holder removed it since: create it */
        if (fd < 0 && errno == ELOOP)
            return lb_fail(err, "lock file '%s' is a symbolic link: loopbench does not "
                           "follow it; remove it if no loopbench is running", path);
        if (fd < 0)
            return lb_fail_errno(err, errno, "cannot open lock file '%s'", path);
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
            close(fd);
            return lb_fail(err, "lock file '%s' is not a regular file of its own (a device, "
                           "a FIFO or a hard link): remove it if no loopbench is running", path);
        }
        return fd;
    }
    return lb_fail(err, "cannot open lock file '%s': it kept disappearing", path);
}

int lock_take(const char *path, const char *what, struct lb_error *err)
{
    for (int i = 0; i < LOCK_OPEN_TRIES; i++) {
        int fd = lock_open(path, err);
        if (fd < 0)
            return -1;
        if (plat_lock_try(fd, path) < 0) {
            int e = errno;
            if (e == ESTALE) { /* the holder before us removed it: try the new file */
                close(fd);
                continue;
            }
            char pid[32] = "";
            ssize_t n = read(fd, pid, sizeof(pid) - 1);
            close(fd);
            if (e != EWOULDBLOCK)
                return lb_fail_errno(err, e, "cannot lock '%s'", path);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            return lb_fail(err, "%s is in use by another loopbench (pid %s, lock '%s'): one "
                                "at a time",
                           what, pid[0] ? pid : "unknown", path);
        }
        char pid[32];
        int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) < 0 || write(fd, pid, (size_t)n) != n) {
            int e = errno;
            close(fd);
            return lb_fail_errno(err, e, "cannot write lock file '%s'", path);
        }
        return fd;
    }
    return lb_fail(err, "cannot lock '%s': it kept disappearing", path);
}

void lock_drop(const char *path, int fd)
{
    if (fd < 0)
        return;
    plat_lock_release(path, fd);
}
