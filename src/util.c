#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
    fputs("loopbench: out of memory\n", stderr);
    abort();
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
    char *p = strndup(s, n);
    if (!p)
        oom();
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

int parse_long(const char *s, long min, long max, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
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

static int fsync_dir_of(const char *path)
{
    char *dir = path_dirname(path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode,
                      struct lb_error *err)
{
    char *tmp = xasprintf("%s.lbtmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
    if (fd < 0) {
        lb_fail_errno(err, errno, "cannot create '%s'", tmp);
        free(tmp);
        return -1;
    }
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
    /* open() applies the umask; the original mode must come back exactly. */
    if (fchmod(fd, mode & 07777) < 0) {
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
    if (rename(tmp, path) < 0) {
        lb_fail_errno(err, errno, "cannot replace '%s'", path);
        goto fail;
    }
    fsync_dir_of(path);
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
        if (mkdir(copy, mode) < 0 && errno != EEXIST) {
            lb_fail_errno(err, errno, "cannot create directory '%s'", copy);
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = 0;
    if (mkdir(copy, mode) < 0 && errno != EEXIST)
        rc = lb_fail_errno(err, errno, "cannot create directory '%s'", copy);
    free(copy);
    return rc;
}

char *path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

char *path_join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !*dir)
        return xstrdup(rel);
    size_t dl = strlen(dir);
    if (dir[dl - 1] == '/')
        return xasprintf("%s%s", dir, rel);
    return xasprintf("%s/%s", dir, rel);
}

void hash_fnv1a64_hex(const void *data, size_t len, char out[17])
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void format_utc(uint64_t wall, bool compact, char *out, size_t outlen)
{
    time_t t = (time_t)(wall / NS_PER_SEC);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, outlen, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int parse_utc(const char *s, uint64_t *wall)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return -1;
    time_t t = timegm(&tm);
    if (t < 0)
        return -1;
    *wall = (uint64_t)t * NS_PER_SEC;
    return 0;
}

int lock_take(const char *path, const char *what, struct lb_error *err)
{
    for (;;) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            return lb_fail_errno(err, errno, "cannot create lock file '%s'", path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            int e = errno;
            char pid[32] = "";
            ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
            close(fd);
            if (e != EWOULDBLOCK)
                return lb_fail_errno(err, e, "cannot lock '%s'", path);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            return lb_fail(err, "%s is in use by another loopbench (pid %s, lock '%s'): one "
                                "at a time",
                           what, pid[0] ? pid : "unknown", path);
        }
        /* The holder before us may have removed the file between our open and our
         * lock: then the lock is on a dead inode, and we try again on the new one. */
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_ino == now.st_ino &&
            held.st_dev == now.st_dev) {
            char pid[32];
            int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                int e = errno;
                close(fd);
                return lb_fail_errno(err, e, "cannot write lock file '%s'", path);
            }
            return fd;
        }
        close(fd);
    }
}

void lock_drop(const char *path, int fd)
{
    if (fd < 0)
        return;
    unlink(path);
    close(fd);
}
