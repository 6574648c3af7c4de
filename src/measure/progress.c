#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "msg.h"
#include "util.h"

void progress_init(struct progress *p, size_t n_runs, double run_s, bool quiet)
{
    memset(p, 0, sizeof(*p));
    p->live = isatty(STDERR_FILENO);
    p->color = msg_color();
    p->quiet = quiet;
    p->n_runs = n_runs;
    p->run_s = run_s;
}

static void format_duration(double s, char *out, size_t len)
{
    if (s < 0)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, len, "%lu:%02lu", t / 60, t % 60);
}

void progress_phase(struct progress *p, size_t run, const char *label, const char *phase,
                    double phase_s)
{
    if (run != p->run || p->run_start_ns == 0)
        p->run_start_ns = mono_ns();
    p->run = run;
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->phase = phase;
    p->phase_s = phase_s;
    p->phase_start_ns = mono_ns();
    if (p->quiet)
        return;
    if (p->live) {
        progress_tick(p, 0.0);
        return;
    }
    if (phase_s > 0)
        msg_info("[%zu/%zu] %s: %s (%.0f s)", run + 1, p->n_runs, label, phase, phase_s);
    else
        msg_info("[%zu/%zu] %s: %s", run + 1, p->n_runs, label, phase);
}

void progress_tick(void *ctx, double done)
{
    struct progress *p = ctx;
    if (p->quiet || !p->live)
        return;
    enum { WIDTH = 20 };
    char bar[WIDTH + 1];
    if (done < 0)
        done = 0;
    if (done > 1)
        done = 1;
    size_t filled = (size_t)(done * WIDTH + 0.5);
    for (size_t i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[WIDTH] = '\0';
    double elapsed = (double)(mono_ns() - p->phase_start_ns) / 1e9;
    double left = p->phase_s > 0 ? p->phase_s - elapsed : 0;
    char left_s[32], eta_s[32];
    format_duration(left, left_s, sizeof(left_s));
    /* ETA: this run and the ones to come at their expected length, less what this run
     * has taken so far; never less than what is left of the phase. */
    double in_run = (double)(mono_ns() - p->run_start_ns) / 1e9;
    double eta = (double)(p->n_runs - p->run) * p->run_s - in_run;
    if (eta < left)
        eta = left;
    format_duration(eta, eta_s, sizeof(eta_s));
    const char *on = p->color ? "\033[1m" : "", *off = p->color ? "\033[0m" : "";
    fprintf(stderr, "\r\033[K%s[%zu/%zu]%s %s  %-8s [%s] %s left  ETA %s", on, p->run + 1,
            p->n_runs, off, p->label, p->phase ? p->phase : "", bar, left_s, eta_s);
    fflush(stderr);
}

void progress_clear(struct progress *p)
{
    if (!p->quiet && p->live) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
