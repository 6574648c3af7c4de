#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "platform/platform.h"
#include "util.h"

/* Tries at a fresh name before giving up: a clash among 2^64 names means that
 * something is creating them on purpose. */
#define TMP_NAME_TRIES 16

/* Make something new beside path, named PATH.lbtmp.<16 random hex digits>: a name
 * nobody can plant a link or a file at in advance. make(name, arg) creates it, failing
 * with EEXIST where the name is taken; its result (>= 0), *tmp the name (new string), or
 * -1 with err. */
static int make_beside(const char *path, int (*make)(const char *name, const void *arg),
                       const void *arg, char **tmp, struct lb_error *err)
{
    for (int i = 0; i < TMP_NAME_TRIES; i++) {
        uint64_t r;
        if (plat_random(&r, sizeof(r)) < 0)
            return lb_fail_errno(err, errno, "cannot draw a temporary name for '%s'", path);
        *tmp = xasprintf("%s.lbtmp.%016llx", path, (unsigned long long)r);
        int made = make(*tmp, arg);
        if (made >= 0)
            return made;
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

static int make_file(const char *name, const void *unused)
{
    (void)unused;
    return plat_create_exclusive(name);
}

static int make_link(const char *name, const void *text)
{
    return symlink(text, name);
}

/* Write data to fd, the new file name, give it mode (on the descriptor: a path could by
 * now lead elsewhere; created 0600, it is nobody else's to read until it has its mode),
 * sync and close it: fd is closed either way. */
static int fill_file(int fd, const char *name, const void *data, size_t len, unsigned mode,
                     struct lb_error *err)
{
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            lb_fail_errno(err, errno, "cannot write '%s'", name);
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (plat_set_mode(fd, mode) < 0) {
        lb_fail_errno(err, errno, "cannot set the mode of '%s'", name);
        goto fail;
    }
    if (fsync(fd) < 0) {
        lb_fail_errno(err, errno, "cannot sync '%s'", name);
        goto fail;
    }
    if (close(fd) < 0)
        return lb_fail_errno(err, errno, "cannot close '%s'", name);
    return 0;
fail:
    close(fd);
    return -1;
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode,
                      struct lb_error *err)
{
    char *tmp = NULL;
    int fd = make_beside(path, make_file, NULL, &tmp, err);
    if (fd < 0)
        return -1;
    if (fill_file(fd, tmp, data, len, mode, err) < 0)
        goto fail;
    if (plat_replace_file(tmp, path) < 0) {
        lb_fail_errno(err, errno, "cannot replace '%s'", path);
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    unlink(tmp);
    free(tmp);
    return -1;
}

int write_file_new(const char *path, const void *data, size_t len, unsigned mode,
                   struct lb_error *err)
{
    int fd = plat_create_exclusive(path);
    if (fd < 0)
        return errno == EEXIST ? 1 : lb_fail_errno(err, errno, "cannot create '%s'", path);
    if (fill_file(fd, path, data, len, mode, err) < 0) {
        unlink(path);
        return -1;
    }
    plat_sync_dir_of(path);
    return 0;
}

int link_atomic(const char *path, const char *text, struct lb_error *err)
{
    char *tmp = NULL;
    if (make_beside(path, make_link, text, &tmp, err) < 0)
        return -1;
    if (plat_replace_file(tmp, path) < 0) {
        lb_fail_errno(err, errno, "cannot replace '%s' with a link", path);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
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

/* What read_back_file read so far in this process. */
static uint64_t read_back_total;

/* The regular file at path, opened for reading without following a link at path nor
 * waiting on a FIFO; its size in *size. -1 with err. */
static int open_regular(const char *path, const char *what, uint64_t *size, struct lb_error *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP)
        return lb_fail(err,
                       "'%s' is a symbolic link: expected the %s itself (loopbench "
                       "follows no link to what it reads back)",
                       path, what);
    if (fd < 0) {
        int e = errno;
        lb_fail_errno(err, e, "cannot read '%s'", path);
        errno = e; /* a caller may take a missing file for an empty one */
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return lb_fail_errno(err, e, "cannot read '%s'", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return lb_fail(err,
                       "'%s' is not a regular file (a directory, a FIFO, a socket or a "
                       "device): expected a %s",
                       path, what);
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

static int read_capped(const char *path, const char *what, size_t cap, uint64_t *budget_used,
                       char **data, size_t *len, struct lb_error *err)
{
    uint64_t size = 0; /* set by open_regular; a compiler cannot tell */
    int fd = open_regular(path, what, &size, err);
    if (fd < 0)
        return -1;
    if (size > cap) {
        close(fd);
        return lb_fail(err, "'%s': %llu bytes, expected a %s of at most %llu MiB", path,
                       (unsigned long long)size, what, (unsigned long long)(cap >> 20));
    }
    if (budget_used && size > READ_BACK_TOTAL_MAX - *budget_used) {
        close(fd);
        return lb_fail(err,
                       "'%s': its %llu bytes would make more than the %llu MiB one command "
                       "reads of campaigns (%llu MiB read before it): expected fewer or "
                       "smaller ones",
                       path, (unsigned long long)size,
                       (unsigned long long)(READ_BACK_TOTAL_MAX >> 20),
                       (unsigned long long)(*budget_used >> 20));
    }
    /* One byte past what fstat said, to tell a file that grew meanwhile. */
    char *buf;
    size_t n;
    int rc = read_fd(fd, path, (size_t)size + 1, &buf, &n, err);
    close(fd);
    if (rc < 0)
        return -1;
    if (n > size) {
        free(buf);
        return lb_fail(err, "'%s' grew while it was read: expected a %s that is complete", path,
                       what);
    }
    if (budget_used)
        *budget_used += n;
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

int read_file_bounded(const char *path, const char *what, size_t cap, char **data, size_t *len,
                      struct lb_error *err)
{
    return read_capped(path, what, cap, NULL, data, len, err);
}

int read_back_file(const char *path, const char *what, size_t cap, char **data, size_t *len,
                   struct lb_error *err)
{
    return read_capped(path, what, cap, &read_back_total, data, len, err);
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
