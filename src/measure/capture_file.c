/* The capture contract (capture.h) where loopbench cannot read a target's output as it
 * arrives yet (Windows: docs/platforms.md): the target writes stdout.log and stderr.log
 * itself, whole (no limit applies), the readiness rule follows the files, and the
 * window's health lines are scraped from them afterwards, by the window's file offsets. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "util.h"

/* Follows a growing log file line by line, for the readiness pattern. */
struct log_follow {
    int fd;
    char buf[4096];
    size_t len;
};

struct capture {
    struct capture_opts o;
    struct log_follow follow[CAPTURE_STREAMS];
    struct scrape_window_filter window[CAPTURE_STREAMS];
    bool ready_seen;
};

/* Read what the log gained and test each complete line (or a full buffer) against re. */
static bool follow_matches(struct log_follow *f, const struct plat_regex *re)
{
    if (f->fd < 0)
        return false;
    for (;;) {
        ssize_t n = read(f->fd, f->buf + f->len, sizeof(f->buf) - 1 - f->len);
        if (n <= 0)
            return false;
        f->len += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < f->len; i++) {
            if (f->buf[i] != '\n')
                continue;
            f->buf[i] = '\0';
            if (plat_regex_match(re, f->buf + start))
                return true;
            start = i + 1;
        }
        if (start == 0 && f->len == sizeof(f->buf) - 1) {
            /* A line longer than the buffer: test what we have and drop it. */
            f->buf[f->len] = '\0';
            if (plat_regex_match(re, f->buf))
                return true;
            f->len = 0;
            continue;
        }
        memmove(f->buf, f->buf + start, f->len - start);
        f->len -= start;
    }
}

int capture_open(const struct capture_opts *o, struct capture **out, struct lb_error *err)
{
    (void)err;
    struct capture *cap = xcalloc(1, sizeof(*cap));
    cap->o = *o;
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        cap->follow[i].fd = -1;
    *out = cap;
    return 0;
}

void capture_spawn_opts(struct capture *cap, struct plat_spawn_opts *so)
{
    (void)cap;
    so->piped = false;
}

int capture_started(struct capture *cap, struct lb_error *err)
{
    (void)err;
    if (cap->o.ready)
        for (size_t i = 0; i < CAPTURE_STREAMS; i++)
            cap->follow[i].fd = open(cap->o.paths[i], O_RDONLY | O_CLOEXEC);
    return 0;
}

bool capture_ready(struct capture *cap)
{
    for (size_t i = 0; i < CAPTURE_STREAMS && cap->o.ready && !cap->ready_seen; i++)
        cap->ready_seen = follow_matches(&cap->follow[i], cap->o.ready);
    return cap->ready_seen;
}

void capture_window_open(struct capture *cap)
{
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        scrape_window_mark_start(&cap->window[i], cap->o.paths[i]);
}

void capture_window_close(struct capture *cap, uint64_t start_wall_ns, uint64_t end_wall_ns)
{
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        scrape_window_mark_end(&cap->window[i], cap->o.paths[i], start_wall_ns, end_wall_ns);
}

int capture_finish(struct capture *cap, struct scrape_run *scrape,
                   struct capture_log logs[CAPTURE_STREAMS], struct lb_error *err)
{
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        struct stat st;
        uint64_t size = stat(cap->o.paths[i], &st) == 0 ? (uint64_t)st.st_size : 0;
        logs[i] = (struct capture_log){size, size, 0};
        if (scrape &&
            scrape_file(cap->o.paths[i], cap->o.marker, &cap->window[i], scrape, err) < 0)
            return -1;
    }
    return 0;
}

void capture_free(struct capture *cap)
{
    if (!cap)
        return;
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        if (cap->follow[i].fd >= 0)
            close(cap->follow[i].fd);
    free(cap);
}
