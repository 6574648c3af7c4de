/* The target's stdout and stderr through pipes read by a thread of loopbench (capture.h).
 * POSIX: pipes and poll(2). The Windows build keeps the files the target writes itself
 * (capture_file.c, docs/platforms.md). */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Bytes read at a time: a pipe's whole buffer on Linux, so one read empties it. */
#define CHUNK 65536
/* Bytes of a line the readiness pattern is tested on (as when it followed the file). */
#define READY_LINE_MAX 4096

struct stream {
    int rd, wr, file;          /* -1 when closed */
    const char *path;          /* borrowed */
    bool eof;
    uint64_t head;             /* bytes written to the file */
    char last_head_byte;
    /* The most recent bytes past the head, a ring of tail_cap bytes allocated when the
     * head is full (most runs never need it); tail_total bytes went into it. */
    char *tail;
    uint64_t tail_total;
    int write_errno;           /* the file's first write error, 0 if none */
    struct scrape_stream scrape;
    /* The window as known so far (scrape.so_far points here) and as finally known;
     * both under the capture's lock. */
    struct scrape_window_filter so_far, window;
};

struct capture {
    struct stream s[CAPTURE_STREAMS];
    uint64_t head_max, tail_cap;
    int wake[2];               /* capture_finish tells the thread to drain and stop */
    pthread_t thread;
    bool running;
    /* The window's marks and the scrapers are shared with the main thread. */
    pthread_mutex_t lock;
    const struct plat_regex *ready;
    bool ready_seen;
    char ready_line[READY_LINE_MAX];
    char *chunk;
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Close-on-exec, so that no other child inherits them: a write end held elsewhere would
 * keep the stream from ending. */
static int pipe_cloexec(int fds[2])
{
    if (pipe(fds) < 0)
        return -1;
    for (int i = 0; i < 2; i++)
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Called by the scraper with each complete line, under the lock. */
static void ready_hook(void *ctx, const char *line, size_t len)
{
    struct capture *cap = ctx;
    if (cap->ready_seen || !cap->ready)
        return;
    size_t n = len < READY_LINE_MAX - 1 ? len : READY_LINE_MAX - 1;
    memcpy(cap->ready_line, line, n);
    cap->ready_line[n] = '\0';
    cap->ready_seen = plat_regex_match(cap->ready, cap->ready_line);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void file_write(struct stream *s, const char *p, size_t n)
{
    if (n && !s->write_errno && write_all(s->file, p, n) < 0)
        s->write_errno = errno;
}

/* Keep bytes of the stream: into the file up to the head's budget, then into the tail. */
static void keep(struct capture *cap, struct stream *s, const char *p, size_t n)
{
    if (s->head < cap->head_max) {
        size_t take = (size_t)(cap->head_max - s->head) < n ? (size_t)(cap->head_max - s->head)
                                                             : n;
        file_write(s, p, take);
        s->head += take;
        s->last_head_byte = take ? p[take - 1] : s->last_head_byte;
        p += take;
        n -= take;
    }
    if (n == 0)
        return;
    if (!s->tail)
        s->tail = xmalloc((size_t)cap->tail_cap);
    size_t cap_n = (size_t)cap->tail_cap;
    if (n >= cap_n) { /* only the last cap_n bytes can stay */
        s->tail_total += n - cap_n;
        p += n - cap_n;
        n = cap_n;
    }
    size_t at = (size_t)(s->tail_total % cap->tail_cap);
    size_t first = cap_n - at < n ? cap_n - at : n;
    memcpy(s->tail + at, p, first);
    memcpy(s->tail, p + first, n - first);
    s->tail_total += n;
}

/* One read of a stream: the bytes' count, 0 when none were ready or it ended. */
static size_t read_once(struct capture *cap, struct stream *s)
{
    ssize_t n;
    do
        n = read(s->rd, cap->chunk, CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0) {
        s->eof = true;
        return 0;
    }
    pthread_mutex_lock(&cap->lock);
    scrape_stream_feed(&s->scrape, cap->chunk, (size_t)n);
    pthread_mutex_unlock(&cap->lock);
    keep(cap, s, cap->chunk, (size_t)n);
    return (size_t)n;
}

/* The capture thread: read whichever stream has bytes until both end, or until told to
 * stop, then read what is left. It takes no signals (plat_thread_start). */
static void *capture_thread(void *arg)
{
    struct capture *cap = arg;
    bool stopping = false;
    while (!stopping && !(cap->s[0].eof && cap->s[1].eof)) {
        struct pollfd p[CAPTURE_STREAMS + 1];
        for (size_t i = 0; i < CAPTURE_STREAMS; i++)
            p[i] = (struct pollfd){.fd = cap->s[i].eof ? -1 : cap->s[i].rd, .events = POLLIN};
        p[CAPTURE_STREAMS] = (struct pollfd){.fd = cap->wake[0], .events = POLLIN};
        if (poll(p, CAPTURE_STREAMS + 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < CAPTURE_STREAMS; i++)
            if (p[i].revents)
                read_once(cap, &cap->s[i]);
        stopping = p[CAPTURE_STREAMS].revents != 0;
    }
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        while (!cap->s[i].eof && read_once(cap, &cap->s[i]) > 0)
            ;
    return NULL;
}

int capture_open(const struct capture_opts *o, struct capture **out, struct lb_error *err)
{
    struct capture *cap = xcalloc(1, sizeof(*cap));
    cap->head_max = o->limit / 2;
    cap->tail_cap = o->limit - cap->head_max;
    cap->ready = o->ready;
    cap->wake[0] = cap->wake[1] = -1;
    pthread_mutex_init(&cap->lock, NULL);
    cap->chunk = xmalloc(CHUNK);
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        cap->s[i].rd = cap->s[i].wr = cap->s[i].file = -1;
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        struct stream *s = &cap->s[i];
        int fds[2] = {-1, -1};
        s->path = o->paths[i];
        s->file = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        bool piped = s->file >= 0 && pipe_cloexec(fds) == 0;
        s->rd = fds[0];
        s->wr = fds[1];
        scrape_stream_init(&s->scrape, o->marker);
        /* Nothing is in the window until it opens. */
        s->so_far = (struct scrape_window_filter){.tod_start = 0, .tod_end = 86399,
                                                  .off_start = UINT64_MAX,
                                                  .off_end = UINT64_MAX,
                                                  .written_in_window = true};
        s->scrape.so_far = &s->so_far;
        s->scrape.line_hook = ready_hook;
        s->scrape.hook_ctx = cap;
        if (!piped) {
            lb_fail_errno(err, errno, "cannot capture the target's output in '%s'", s->path);
            capture_free(cap);
            return -1;
        }
        /* The thread drains without blocking once told to stop. */
        fcntl(s->rd, F_SETFL, O_NONBLOCK);
    }
    if (pipe_cloexec(cap->wake) < 0) {
        lb_fail_errno(err, errno, "cannot capture the target's output");
        capture_free(cap);
        return -1;
    }
    *out = cap;
    return 0;
}

void capture_spawn_opts(struct capture *cap, struct plat_spawn_opts *so)
{
    so->piped = true;
    so->pipe_fds[0] = cap->s[CAPTURE_STDOUT].wr;
    so->pipe_fds[1] = cap->s[CAPTURE_STDERR].wr;
}

int capture_started(struct capture *cap, struct lb_error *err)
{
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        close_fd(&cap->s[i].wr);
    int e = plat_thread_start(&cap->thread, capture_thread, cap);
    if (e != 0)
        return lb_fail_errno(err, e, "cannot start the thread that reads the target's output");
    cap->running = true;
    return 0;
}

bool capture_ready(struct capture *cap)
{
    pthread_mutex_lock(&cap->lock);
    bool seen = cap->ready_seen;
    pthread_mutex_unlock(&cap->lock);
    return seen;
}

/* A line is in the window by where it starts in its stream: the offsets of the bytes
 * that had arrived when the window opened and closed. Bytes still in a pipe then (a
 * pipe's buffer, read within microseconds unless the disk stalls) count as later. */
void capture_window_open(struct capture *cap)
{
    pthread_mutex_lock(&cap->lock);
    for (size_t i = 0; i < CAPTURE_STREAMS; i++)
        cap->s[i].so_far.off_start = cap->s[i].scrape.pos;
    pthread_mutex_unlock(&cap->lock);
}

void capture_window_close(struct capture *cap, uint64_t start_wall_ns, uint64_t end_wall_ns)
{
    pthread_mutex_lock(&cap->lock);
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        struct stream *s = &cap->s[i];
        s->so_far.off_end = s->scrape.pos;
        s->window = s->so_far;
        scrape_window_set_times(&s->window, start_wall_ns, end_wall_ns);
        /* A line that arrives from here on is placed at once (a stamped one by its time),
         * not kept in a class the window's edge would cut. */
        s->so_far = s->window;
    }
    pthread_mutex_unlock(&cap->lock);
}

static void thread_stop(struct capture *cap)
{
    if (!cap->running)
        return;
    ssize_t w;
    do
        w = write(cap->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(cap->thread, NULL);
    cap->running = false;
}

/* The tail after the head, behind a line that says what was dropped between. */
static void write_tail(struct capture *cap, struct stream *s, struct capture_log *log)
{
    uint64_t in_tail = s->tail_total < cap->tail_cap ? s->tail_total : cap->tail_cap;
    log->bytes = s->head + s->tail_total;
    log->kept = s->head + in_tail;
    log->dropped = log->bytes - log->kept;
    if (log->dropped > 0) {
        char line[160];
        int n = snprintf(line, sizeof(line),
                         "%s[loopbench: %" PRIu64 " bytes dropped here: the log limit keeps "
                         "the first and the last %" PRIu64 " bytes]\n",
                         s->last_head_byte == '\n' ? "" : "\n", log->dropped, cap->head_max);
        file_write(s, line, (size_t)n);
    }
    if (in_tail == 0)
        return;
    if (s->tail_total <= cap->tail_cap) {
        file_write(s, s->tail, (size_t)in_tail);
        return;
    }
    /* The ring went round: its oldest byte is where the next would go. */
    size_t at = (size_t)(s->tail_total % cap->tail_cap);
    file_write(s, s->tail + at, (size_t)cap->tail_cap - at);
    file_write(s, s->tail, at);
}

int capture_finish(struct capture *cap, struct scrape_run *scrape,
                   struct capture_log logs[CAPTURE_STREAMS], struct lb_error *err)
{
    thread_stop(cap);
    int rc = 0;
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        struct stream *s = &cap->s[i];
        write_tail(cap, s, &logs[i]);
        if (close(s->file) < 0 && !s->write_errno)
            s->write_errno = errno;
        s->file = -1;
        if (s->write_errno && rc == 0)
            rc = lb_fail_errno(err, s->write_errno, "cannot write '%s'", s->path);
        if (scrape)
            scrape_stream_finish(&s->scrape, &s->window, scrape);
    }
    return rc;
}

void capture_free(struct capture *cap)
{
    if (!cap)
        return;
    thread_stop(cap);
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        struct stream *s = &cap->s[i];
        close_fd(&s->rd);
        close_fd(&s->wr);
        close_fd(&s->file);
        scrape_stream_release(&s->scrape);
        free(s->tail);
    }
    close_fd(&cap->wake[0]);
    close_fd(&cap->wake[1]);
    pthread_mutex_destroy(&cap->lock);
    free(cap->chunk);
    free(cap);
}
