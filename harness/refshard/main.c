/* refshard: loopbench's reference event-loop server.
 *
 * A small single-threaded server that behaves like ModernUO's event loop (timer wheel, idle
 * sleeping, late-wake backoff, loop: health lines), so that loopbench has a true target to
 * measure on any machine. See docs/refshard.md. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "clock.h"
#include "error.h"
#include "log.h"
#include "loop.h"
#include "net.h"
#include "post.h"
#include "settings.h"
#include "waitset.h"
#include "wheel.h"
#include "worker.h"
#include "world.h"

enum exit_code {
    RS_EXIT_OK = 0,      /* stopped by SIGTERM or SIGINT */
    RS_EXIT_FAILURE = 1, /* bad config, unusable port, or a failure while running */
    RS_EXIT_USAGE = 2,   /* bad command line */
};

static const char usage[] =
    "usage: refshard [--config FILE]\n"
    "\n"
    "loopbench's reference event-loop server: an idle world of timers on an 8 ms wheel with\n"
    "ModernUO's idle sleeping, late-wake backoff and loop: health lines, plus a line echo\n"
    "service on its TCP listeners. FILE is a ModernUO-shaped JSON config; missing settings\n"
    "are added to it with their defaults. Logs go to stdout; SIGTERM or SIGINT stops it.\n"
    "\n"
    "  --config FILE   the configuration file (rewritten when settings are missing);\n"
    "                  default Configuration/modernuo.json, as a ModernUO shard started\n"
    "                  from its Distribution/ directory reads it\n"
    "  --help          print this help and exit\n"
    "\n"
    "Settings (under \"settings\", every value a JSON string) and defaults:\n"
    "  server.eventLoopIdleWaitMs \"2\"       longest idle sleep; 0 never sleeps (spins)\n"
    "  server.loopStatsIntervalSeconds \"0\"  period of the loop: line; 0 is off\n"
    "  server.lateWakeThreshold \"1\"         late wakes per second always tolerated\n"
    "  server.lateWakePercent \"10\"          share of sleeps that may wake late\n"
    "  server.autoDetectIdleWait \"True\"     check at start-up that waits are honoured\n"
    "  refshard.timers \"200\"                synthetic timers on the wheel\n"
    "  refshard.timerMinMs \"100\"            shortest timer cadence\n"
    "  refshard.timerMaxMs \"5000\"           longest timer cadence\n"
    "  refshard.workPerTickUs \"0\"           busy CPU per wheel turn\n"
    "  refshard.workPerTimerUs \"0\"          busy CPU per timer firing\n"
    "  refshard.postsPerSecond \"10\"         work posted to the loop by a worker thread\n"
    "Listeners: top-level \"listeners\": [\"127.0.0.1:2593\"]; port 0 picks a free port.\n";

/* 1: --help was asked for; 0: *config is set; -1: a bad command line. */
static int parse_args(int argc, char **argv, const char **config, struct rs_error *err)
{
    *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            *config = argv[++i];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            *config = argv[i] + 9;
        else
            return rs_fail(err, "unknown argument '%s' (try 'refshard --help')", argv[i]);
    }
    /* ModernUO's own layout, so refshard can stand in for a shard under its profile. */
    if (!*config)
        *config = "Configuration/modernuo.json";
    return 0;
}

/* The idle wait the loop will use: the configured one, unless the host cannot honour it.
 * *signo is set when a termination signal cut the calibration short. */
static int choose_idle_wait(const struct settings *s, struct waitset *ws, int *idle_wait,
                            int *signo, struct rs_error *err)
{
    *idle_wait = (int)s->idle_wait_ms;
    *signo = 0;
    if (*idle_wait == 0 || !s->auto_detect_idle_wait)
        return 0;
    /* The loop never sleeps past the next tick, so calibrate the longest wait it will ask for.
     * A wait under a tick must come back within the tick; a whole tick's wait must at least
     * not come back a tick late (a late wake by the backoff's rule). */
    int wait_ms = *idle_wait < WHEEL_TICK_MS ? *idle_wait : WHEEL_TICK_MS;
    int64_t limit_ms = wait_ms < WHEEL_TICK_MS ? WHEEL_TICK_MS : 2 * WHEEL_TICK_MS;
    int64_t median;
    if (calibrate_idle_wait(ws, wait_ms, &median, signo, err) < 0)
        return -1;
    if (*signo)
        return 0;
    if (median < limit_ms * NS_PER_MS) {
        log_line(LOG_DBG, LOG_SRC_CORE,
                 "Idle wait calibration: median %.2fms over %d waits of %dms",
                 (double)median / NS_PER_MS, CALIBRATE_WAITS, wait_ms);
        return 0;
    }
    log_line(LOG_WRN, LOG_SRC_CORE,
             "This host returned %dms idle waits after a median %.2fms (%d waits), %lldms or "
             "more; idle sleeping is disabled and the loop will spin",
             wait_ms, (double)median / NS_PER_MS, CALIBRATE_WAITS, (long long)limit_ms);
    *idle_wait = 0;
    return 0;
}

static int open_listeners(const struct settings *s, struct net *net, struct rs_error *err)
{
    for (unsigned i = 0; i < s->n_listeners; i++) {
        char bound[64];
        if (net_listen(net, &s->listeners[i], bound, sizeof(bound), err) < 0)
            return -1;
        log_line(LOG_INF, LOG_SRC_NET, "Listening: %s", bound);
    }
    return 0;
}

static void log_signal(int signo)
{
    if (signo == SIGINT)
        log_line(LOG_INF, LOG_SRC_CORE, "Detected CTRL+C pressed.");
    log_line(LOG_INF, LOG_SRC_CORE, "Shutting down");
}

/* Everything from the wait set on; returns the exit code. */
static int serve(const struct settings *s, struct rs_error *err)
{
    struct waitset *ws;
    if (waitset_open(&ws, err) < 0)
        return RS_EXIT_FAILURE;

    int rc = RS_EXIT_FAILURE;
    struct net net;
    struct post_queue posts;
    struct world world = {0};
    struct worker worker;
    bool worker_running = false;
    struct loop loop;
    int idle_wait, signo;

    net_init(&net, ws);
    if (open_listeners(s, &net, err) < 0 || choose_idle_wait(s, ws, &idle_wait, &signo, err) < 0)
        goto out;
    if (signo) {
        log_signal(signo);
        rc = RS_EXIT_OK;
        goto out;
    }

    post_init(&posts, ws);
    loop_init(&loop, s, ws, &net, &posts, idle_wait);
    if (world_init(&world, &loop.wheel, s, err) < 0)
        goto out;
    log_line(LOG_INF, LOG_SRC_CORE,
             "World: %ld timers every %ld-%ldms, %ldus of work per turn and %ldus per timer, "
             "%ld posts/s; %s wait set, idle wait %dms",
             s->timers, s->timer_min_ms, s->timer_max_ms, s->work_per_tick_us, s->work_per_timer_us,
             s->posts_per_second, waitset_backend(), idle_wait);
    if (s->stats_interval_s > 0)
        loop_start_reporting(&loop, s->stats_interval_s);
    if (s->posts_per_second > 0) {
        if (worker_start(&worker, &posts, s->posts_per_second, err) < 0)
            goto out;
        worker_running = true;
    }

    if (loop_run(&loop, &signo, err) == 0) {
        log_signal(signo);
        rc = RS_EXIT_OK;
    }
out:
    if (worker_running)
        worker_stop(&worker);
    world_release(&world);
    net_release(&net);
    waitset_close(ws);
    return rc;
}

int main(int argc, char **argv)
{
    struct rs_error err;
    const char *config;
    int r = parse_args(argc, argv, &config, &err);
    if (r > 0) {
        fputs(usage, stdout);
        return RS_EXIT_OK;
    }
    if (r < 0) {
        fprintf(stderr, "refshard: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }

    /* A client that vanishes mid-write must not kill the server. */
    signal(SIGPIPE, SIG_IGN);

    if (!isatty(STDIN_FILENO))
        log_line(LOG_INF, LOG_SRC_CORE,
                 "Headless mode detected (stdin is not a TTY); interactive console input is "
                 "disabled.");

    struct settings s;
    unsigned added;
    if (settings_load(&s, config, &added, &err) < 0) {
        fprintf(stderr, "refshard: %s\n", err.msg);
        return RS_EXIT_FAILURE;
    }
    if (added > 0)
        log_line(LOG_INF, LOG_SRC_CORE, "Configuration: added %u missing setting(s) to '%s'", added,
                 config);

    int rc = serve(&s, &err);
    if (rc != RS_EXIT_OK)
        fprintf(stderr, "refshard: %s\n", err.msg);
    return rc;
}
