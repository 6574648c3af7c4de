/* A chatty target for tests/e2e/logflood.sh: floods stdout with filler lines at
 * FLOOD_MBPS megabytes a second (in 10 ms slices) and writes a health line "loop: n=K"
 * every 100 ms between them; on SIGTERM it tells on stderr how many bytes and health
 * lines it wrote to stdout, so that the test can count them against what loopbench kept
 * and scraped. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLICE_NS 10000000L /* 10 ms */
#define HEALTH_EVERY 10    /* slices: 100 ms */
#define LINE 100

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static unsigned long long written;

static void out(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            exit(3);
        p += w;
        n -= (size_t)w;
        written += (unsigned long long)w;
    }
}

int main(void)
{
    const char *rate = getenv("FLOOD_MBPS");
    double mbps = rate ? atof(rate) : 0;
    size_t slice = (size_t)(mbps * 1e6 / 100) / LINE * LINE;
    char *filler = malloc(slice + 1);
    for (size_t i = 0; i < slice; i += LINE) {
        memset(filler + i, 'x', LINE - 1);
        memcpy(filler + i, "filler ", 7);
        filler[i + LINE - 1] = '\n';
    }
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    out("flooder: ready\n", 15);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    unsigned long long health = 0;
    for (unsigned long tick = 1; !stop; tick++) {
        out(filler, slice);
        if (tick % HEALTH_EVERY == 0) {
            char line[64];
            int n = snprintf(line, sizeof(line), "loop: n=%llu\n", ++health);
            out(line, (size_t)n);
        }
        next.tv_nsec += SLICE_NS;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    fprintf(stderr, "flooder: wrote %llu bytes and %llu health lines to stdout\n", written,
            health);
    free(filler);
    return 0;
}
