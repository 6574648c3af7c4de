/* rtt.c: the open-loop round-trip probe, against a small line server run in a thread of
 * the test (127.0.0.1, a port the kernel picks). The server is one thread polling every
 * client, as an event loop is, so a stall in it stalls every connection.
 *
 * The machine is shared and noisy: counts are checked against rate x duration with a
 * wide margin, and latencies only against generous bounds. */
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtt.h"
#include "testlib.h"
#include "util.h"

#define MS 1000000ULL

enum server_mode {
    SERVE_ECHO,   /* each line back */
    SERVE_STALL,  /* each line back, but the whole server sleeps before one reply */
    SERVE_SILENT, /* reads, never replies */
    SERVE_PONG,   /* "PONG\n" for each line */
};

#define STALL_AT_LINE 50
#define STALL_MS 200
#define MAX_CLIENTS 64

struct server {
    enum server_mode mode;
    int listen_fd;
    int port;
    int stop_pipe[2];
    pthread_t thread;
    long lines;
};

struct client {
    int fd;
    char line[256];
    size_t len;
};

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / NS_PER_SEC), (long)(ns % NS_PER_SEC)};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

static void write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = send(fd, data, len, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the probe went away: nothing to answer */
        data += w;
        len -= (size_t)w;
    }
}

static void serve_line(struct server *s, int fd, const char *line, size_t len)
{
    s->lines++;
    switch (s->mode) {
    case SERVE_STALL:
        if (s->lines == STALL_AT_LINE)
            sleep_ns(STALL_MS * MS);
        write_all(fd, line, len);
        break;
    case SERVE_ECHO:
        write_all(fd, line, len);
        break;
    case SERVE_SILENT:
        break;
    case SERVE_PONG:
        write_all(fd, "PONG\n", 5);
        break;
    }
}

static void serve_bytes(struct server *s, struct client *c, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (c->len < sizeof(c->line))
            c->line[c->len++] = buf[i];
        if (buf[i] == '\n') {
            serve_line(s, c->fd, c->line, c->len);
            c->len = 0;
        }
    }
}

static void *server_main(void *arg)
{
    struct server *s = arg;
    struct client clients[MAX_CLIENTS];
    for (size_t i = 0; i < MAX_CLIENTS; i++)
        clients[i].fd = -1;
    for (;;) {
        struct pollfd pfds[2 + MAX_CLIENTS] = {{.fd = s->stop_pipe[0], .events = POLLIN},
                                               {.fd = s->listen_fd, .events = POLLIN}};
        for (size_t i = 0; i < MAX_CLIENTS; i++)
            pfds[2 + i] = (struct pollfd){.fd = clients[i].fd, .events = POLLIN};
        if (poll(pfds, 2 + MAX_CLIENTS, -1) < 0)
            continue;
        if (pfds[0].revents)
            break;
        if (pfds[1].revents) {
            int fd = accept(s->listen_fd, NULL, NULL);
            size_t i = 0;
            while (i < MAX_CLIENTS && clients[i].fd >= 0)
                i++;
            if (i < MAX_CLIENTS)
                clients[i] = (struct client){.fd = fd};
            else if (fd >= 0)
                close(fd);
        }
        for (size_t i = 0; i < MAX_CLIENTS; i++) {
            if (!pfds[2 + i].revents || clients[i].fd < 0)
                continue;
            char buf[512];
            ssize_t n = recv(clients[i].fd, buf, sizeof(buf), 0);
            if (n <= 0) {
                close(clients[i].fd);
                clients[i].fd = -1;
                continue;
            }
            serve_bytes(s, &clients[i], buf, (size_t)n);
        }
    }
    for (size_t i = 0; i < MAX_CLIENTS; i++)
        if (clients[i].fd >= 0)
            close(clients[i].fd);
    return NULL;
}

/* A listening socket on 127.0.0.1 and the port it got. */
static int listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    ck_assert_int_eq(listen(fd, 64), 0);
    socklen_t len = sizeof(sin);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    *port = ntohs(sin.sin_port);
    return fd;
}

static void server_start(struct server *s, enum server_mode mode)
{
    memset(s, 0, sizeof(*s));
    s->mode = mode;
    s->listen_fd = listen_loopback(&s->port);
    ck_assert_int_eq(pipe(s->stop_pipe), 0);
    ck_assert_int_eq(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void server_stop(struct server *s)
{
    ck_assert_int_eq(write(s->stop_pipe[1], "", 1), 1);
    pthread_join(s->thread, NULL);
    close(s->listen_fd);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
}

static struct rtt_opts line_opts(int port, double rate, int connections)
{
    return (struct rtt_opts){.host = "127.0.0.1",
                             .port = port,
                             .send = "ping loopbench\n",
                             .send_len = strlen("ping loopbench\n"),
                             .rate_per_s = rate,
                             .connections = connections,
                             .timeout_s = 2};
}

/* Run the probe for `seconds` against the server; *r to be released by the caller. */
static void probe_for(const struct rtt_opts *o, double seconds, struct rtt_result *r)
{
    struct rtt_probe *p;
    struct lb_error err;
    ck_assert_msg(rtt_start(o, &p, &err) == 0, "%s", err.msg);
    sleep_ns((uint64_t)(seconds * 1e9));
    rtt_stop(p, r);
}

/* A server of this mode probed for `seconds`, 200 requests a second over 2 connections,
 * and stopped. */
static void probe_server(enum server_mode mode, double seconds, struct rtt_result *r)
{
    struct server s;
    server_start(&s, mode);
    struct rtt_opts o = line_opts(s.port, 200, 2);
    probe_for(&o, seconds, r);
    server_stop(&s);
}

/* Each request that came due ended exactly one way. */
static void assert_accounted(const struct rtt_counts *c, const struct histogram *h)
{
    ck_assert_uint_eq(c->scheduled, c->completed + c->errors + c->timeouts + c->unfinished);
    ck_assert_uint_le(c->completed, c->sent);
    ck_assert_uint_eq(histogram_count(h), c->completed);
}

/* scheduled is close to rate x the probe's duration: well within 80 % .. 100 % + 2 even
 * if the probe thread was kept off the CPU for a while. */
static void assert_rate_kept(const struct rtt_result *r, double rate)
{
    double expected = rate * (double)r->duration_ns / 1e9;
    ck_assert_msg((double)r->requests.scheduled >= 0.8 * expected &&
                      (double)r->requests.scheduled <= expected + 2,
                  "%llu requests scheduled, %.1f expected",
                  (unsigned long long)r->requests.scheduled, expected);
}

START_TEST(steady_echo)
{
    struct rtt_result r;
    probe_server(SERVE_ECHO, 1.0, &r);

    ck_assert_uint_ge(r.duration_ns, 1000 * MS);
    assert_rate_kept(&r, 200);
    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_eq(r.requests.errors, 0);
    ck_assert_uint_eq(r.requests.timeouts, 0);
    ck_assert_uint_eq(r.connection_failures, 0);
    ck_assert_uint_le(r.requests.unfinished, 2);
    ck_assert_uint_eq(histogram_count(&r.lag), r.requests.sent);
    /* loopback round trips are well under a millisecond; 50 ms allows a noisy host */
    ck_assert_uint_lt(histogram_percentile(&r.rtt, 50), 50 * MS);
    ck_assert_uint_gt(histogram_min(&r.rtt), 0);
    ck_assert_uint_gt(r.probe_cpu_ns, 0);
    ck_assert_uint_lt(r.probe_cpu_ns, r.duration_ns);
    ck_assert_uint_eq(r.setups.scheduled, 0);
    ck_assert_uint_eq(histogram_count(&r.setup), 0);
    rtt_result_release(&r);
}
END_TEST

START_TEST(stall_measured_from_schedule)
{
    /* The server sleeps 200 ms before answering line 50. Open loop, the probe keeps
     * writing through the stall, and each request due during it is measured from its due
     * time: about 40 requests wait, half of them 100 ms or more. A closed-loop probe,
     * which waits for a reply before its next request, would show one slow request per
     * connection, and the stall's 40 requests would simply not have been sent. */
    struct rtt_result r;
    probe_server(SERVE_STALL, 1.0, &r);

    assert_rate_kept(&r, 200);
    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_eq(r.requests.errors + r.requests.timeouts, 0);
    uint64_t n = histogram_count(&r.rtt);
    ck_assert_uint_gt(n, 100);
    ck_assert_uint_ge(histogram_max(&r.rtt), 190 * MS);
    ck_assert_uint_ge(histogram_percentile(&r.rtt, 99), 100 * MS);
    /* the 10th slowest round trip (rank n - 9) still took 100 ms or more */
    ck_assert_uint_ge(histogram_percentile(&r.rtt, 100.0 * (double)(n - 9) / (double)n), 100 * MS);
    ck_assert_uint_lt(histogram_percentile(&r.rtt, 50), 50 * MS);
    /* the writes themselves were not held up by the stall */
    ck_assert_uint_lt(histogram_percentile(&r.lag, 90), 50 * MS);
    rtt_result_release(&r);
}
END_TEST

/* The window closes inside the server's stall (line 50, due about 0.25 s in, held 200
 * ms): the requests due since are unfinished, not lost, and all came due within the
 * oldest one's wait, which unfinished_oldest_ns reports (at 200 a second, at most 200 a
 * second of it and one). */
START_TEST(stall_at_the_stop)
{
    struct rtt_result r;
    probe_server(SERVE_STALL, 0.35, &r);

    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_eq(r.requests.errors + r.requests.timeouts, 0);
    ck_assert_uint_ge(r.requests.unfinished, 5);
    ck_assert_uint_ge(r.requests.unfinished_oldest_ns, 20 * MS);
    ck_assert_uint_le(r.requests.unfinished_oldest_ns, r.duration_ns);
    ck_assert_uint_le(r.requests.unfinished, 1 + 200 * r.requests.unfinished_oldest_ns / MS / 1000);
    ck_assert_uint_eq(r.setups.unfinished_oldest_ns, 0);
    rtt_result_release(&r);
}
END_TEST

START_TEST(silent_server_times_out)
{
    struct server s;
    server_start(&s, SERVE_SILENT);
    struct rtt_opts o = line_opts(s.port, 50, 1);
    o.timeout_s = 0.2;
    struct rtt_result r;
    probe_for(&o, 0.8, &r);
    server_stop(&s);

    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_eq(r.requests.completed, 0);
    ck_assert_uint_eq(r.requests.errors, 0);
    /* everything due in the first 0.6 s (about 30) has run out of time */
    ck_assert_uint_ge(r.requests.timeouts, 20);
    ck_assert_uint_eq(r.connection_failures, 0); /* a timeout is not a failure */

    rtt_result_release(&r);
}
END_TEST

START_TEST(expected_reply)
{
    struct server s;
    server_start(&s, SERVE_PONG);
    /* the reply it expects */
    struct rtt_opts o = line_opts(s.port, 100, 1);
    o.send = "PING\n";
    o.send_len = 5;
    o.expect = "PONG\n";
    o.expect_len = 5;
    struct rtt_result r;
    probe_for(&o, 0.3, &r);
    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_ge(r.requests.completed, 20);
    ck_assert_uint_eq(r.requests.errors + r.requests.timeouts + r.connection_failures, 0);
    rtt_result_release(&r);

    /* an echo expected, PONG received: each connection fails on its first reply */
    o.expect = NULL;
    o.expect_len = 0;
    probe_for(&o, 0.5, &r);
    server_stop(&s);
    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_eq(r.requests.completed, 0);
    ck_assert_uint_ge(r.requests.errors, 2);
    ck_assert_uint_ge(r.connection_failures, 2); /* reopened after RTT_RETRY_MS */
    ck_assert_uint_le(r.connection_failures, 1 + 500 / RTT_RETRY_MS);
    rtt_result_release(&r);
}
END_TEST

START_TEST(binary_request)
{
    /* requests are bytes, not strings: the NULs are sent and expected back */
    struct server s;
    server_start(&s, SERVE_ECHO);
    struct rtt_opts o = line_opts(s.port, 100, 1);
    o.send = "\0bin\0\n";
    o.send_len = 6;
    struct rtt_result r;
    probe_for(&o, 0.3, &r);
    server_stop(&s);
    assert_accounted(&r.requests, &r.rtt);
    ck_assert_uint_ge(r.requests.completed, 20);
    ck_assert_uint_eq(r.requests.errors + r.requests.timeouts + r.connection_failures, 0);
    rtt_result_release(&r);
}
END_TEST

START_TEST(connection_setup_timing)
{
    struct server s;
    server_start(&s, SERVE_ECHO);
    struct rtt_opts o = line_opts(s.port, 100, 1);
    o.connect_rate_per_s = 10;
    struct rtt_result r;
    probe_for(&o, 1.0, &r);
    server_stop(&s);

    assert_accounted(&r.requests, &r.rtt);
    assert_accounted(&r.setups, &r.setup);
    /* due at 0.05 s, 0.15 s, ... */
    ck_assert_uint_ge(r.setups.scheduled, 8);
    ck_assert_uint_le(r.setups.scheduled, 11);
    ck_assert_uint_ge(r.setups.completed, r.setups.scheduled - 1);
    ck_assert_uint_eq(r.setups.errors + r.setups.timeouts, 0);
    ck_assert_uint_lt(histogram_percentile(&r.setup, 50), 50 * MS);
    ck_assert_uint_eq(r.requests.errors + r.requests.timeouts, 0);
    rtt_result_release(&r);
}
END_TEST

START_TEST(refused_and_bad_options)
{
    int port;
    close(listen_loopback(&port)); /* a port nobody listens on */
    struct rtt_opts o = line_opts(port, 100, 2);
    struct rtt_probe *p = NULL;
    struct lb_error err;
    char want[128];
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    snprintf(want, sizeof(want), "rtt: cannot connect to 127.0.0.1:%d: Connection refused", port);
    ck_assert_str_eq(err.msg, want);
    o.host = "::1";
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "rtt: cannot connect to [::1]:"));

    o = line_opts(port, 0, 2);
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: rate must be in (0, 1000000] requests per second, not 0");
    o = line_opts(port, 100, 0);
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: connections must be in 1..1024, not 0");
    o = line_opts(0, 100, 1);
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: port must be in 1..65535, not 0");
    o = line_opts(port, 100, 1);
    o.timeout_s = 0;
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: timeout must be in (0, 60] seconds, not 0");
    o = line_opts(port, 100, 1);
    o.send_len = 0;
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: the request to send is empty");
    o = line_opts(port, 100, 1);
    o.connect_rate_per_s = 1000;
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg,
                     "rtt: the connection-setup rate must be in [0, 100] per second, not 1000");
    o = line_opts(port, 1000000, 1);
    o.timeout_s = 60;
    ck_assert_int_eq(rtt_start(&o, &p, &err), -1);
    ck_assert_str_eq(err.msg, "rtt: rate x timeout (6e+07 requests in flight) exceeds "
                              "1000000: lower one of them");
    ck_assert_ptr_null(p);
}
END_TEST

/* The threads of this process (ids from /proc/self/task); returns how many. */
static size_t list_threads(long *tids, size_t max)
{
    DIR *d = opendir("/proc/self/task");
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max)
        if (e->d_name[0] != '.')
            tids[n++] = atol(e->d_name);
    closedir(d);
    return n;
}

/* The signals a thread blocks, from its SigBlk line. */
static unsigned long long blocked_by(long tid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    unsigned long long mask = 0;
    while (fgets(line, sizeof(line), f))
        sscanf(line, "SigBlk: %llx", &mask);
    fclose(f);
    return mask;
}

static bool has_signal(unsigned long long mask, int sig)
{
    return mask & (1ULL << (sig - 1));
}

START_TEST(probe_thread_blocks_signals)
{
    struct server s;
    server_start(&s, SERVE_ECHO);
    long before[8], after[8];
    size_t n_before = list_threads(before, ARRAY_SIZE(before));
    struct rtt_opts o = line_opts(s.port, 100, 1);
    struct rtt_probe *p;
    struct lb_error err;
    ck_assert_msg(rtt_start(&o, &p, &err) == 0, "%s", err.msg);
    size_t n_after = list_threads(after, ARRAY_SIZE(after));
    ck_assert_uint_eq(n_after, n_before + 1);
    /* the probe's thread is the new one: it blocks every signal a signalfd would take */
    long probe = 0;
    for (size_t i = 0; i < n_after; i++) {
        bool known = false;
        for (size_t k = 0; k < n_before; k++)
            known |= after[i] == before[k];
        if (!known)
            probe = after[i];
    }
    unsigned long long mask = blocked_by(probe);
    ck_assert(has_signal(mask, SIGINT) && has_signal(mask, SIGTERM) && has_signal(mask, SIGHUP) &&
              has_signal(mask, SIGCHLD));
    /* the caller's own mask is as it was */
    ck_assert(!has_signal(blocked_by(getpid()), SIGINT));
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    ck_assert(!sigismember(&now, SIGINT) && !sigismember(&now, SIGTERM));
    struct rtt_result r;
    rtt_stop(p, &r);
    server_stop(&s);
    rtt_result_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rtt");
    TCase *tc = tcase_create("rtt");
    tcase_add_test(tc, steady_echo);
    tcase_add_test(tc, stall_measured_from_schedule);
    tcase_add_test(tc, stall_at_the_stop);
    tcase_add_test(tc, silent_server_times_out);
    tcase_add_test(tc, expected_reply);
    tcase_add_test(tc, binary_request);
    tcase_add_test(tc, connection_setup_timing);
    tcase_add_test(tc, refused_and_bad_options);
    tcase_add_test(tc, probe_thread_blocks_signals);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
