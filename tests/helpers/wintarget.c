/* wintarget: the Windows build's test target, a stand-in for an event-loop server.
 *
 *   wintarget [--share F] [--seconds S] [--config FILE] [--marker TEXT] [--pidfile FILE]
 *
 * Runs a loop of 10 ms periods and burns F of one core (default 0.2) in it: each period
 * it spins until its busy time has caught up with F of the time since the start, then
 * sleeps to the period's end. Busy time is measured on QueryPerformanceCounter, not on
 * the thread's CPU time, which wine does not account as Windows does.
 *
 * Once a second it prints a health line in the form loopbench scrapes
 * (docs/scraping.md), the marker first ("loop: " by default):
 *   loop: missed16ms=0 slots=0/100 tickLagPeak=1ms share=0.200
 * slots counts the periods whose wake-up came a whole period late, missed16ms those
 * more than 16 ms late, tickLagPeak the latest wake-up of the second.
 *
 * --config prints the file's content on one line at the start ("config: {...}"), so a
 * test sees which setting a run applied; --pidfile writes its process id there. It
 * exits 0 after S seconds (default: never) or at Ctrl+C or Ctrl+Break, which is how
 * loopbench asks a target to stop on Windows. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERIOD_NS 10000000ULL
#define REPORT_NS 1000000000ULL
#define LATE_NS 16000000ULL

static atomic_bool stop;

struct opts {
    double share;
    double seconds; /* 0: forever */
    const char *config;
    const char *marker;
    const char *pidfile;
};

static uint64_t now_ns(void)
{
    static LARGE_INTEGER freq;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    uint64_t f = (uint64_t)freq.QuadPart, v = (uint64_t)c.QuadPart;
    return v / f * 1000000000ULL + v % f * 1000000000ULL / f;
}

static BOOL WINAPI on_ctrl(DWORD type)
{
    if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
        return FALSE;
    atomic_store(&stop, true);
    return TRUE;
}

static double number_arg(const char *opt, const char *s, double max)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0 || v > max) {
        fprintf(stderr, "wintarget: bad value '%s' for %s\n", s, opt);
        exit(2);
    }
    return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.share = 0.2, .marker = "loop: "};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "wintarget: unknown or incomplete option '%s'\n", a);
            exit(2);
        }
        const char *v = argv[++i];
        if (strcmp(a, "--share") == 0)
            o->share = number_arg(a, v, 1);
        else if (strcmp(a, "--seconds") == 0)
            o->seconds = number_arg(a, v, 1e6);
        else if (strcmp(a, "--config") == 0)
            o->config = v;
        else if (strcmp(a, "--marker") == 0)
            o->marker = v;
        else if (strcmp(a, "--pidfile") == 0)
            o->pidfile = v;
        else {
            fprintf(stderr, "wintarget: unknown option '%s'\n", a);
            exit(2);
        }
    }
}

/* "config: " and the file's content with its line breaks made blanks. */
static int print_config(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "wintarget: cannot open config '%s'\n", path);
        return -1;
    }
    fputs("config: ", stdout);
    int c;
    while ((c = fgetc(f)) != EOF)
        if (c != '\r')
            putchar(c == '\n' ? ' ' : c);
    putchar('\n');
    fclose(f);
    fflush(stdout);
    return 0;
}

static int write_pidfile(const char *path)
{
    /* Written aside and moved into place, so a reader never sees half of it. */
    char tmp[MAX_PATH + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    fprintf(f, "%lu\n", (unsigned long)GetCurrentProcessId());
    if (fclose(f) != 0)
        return -1;
    return MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
}

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION /* Windows 10 1803; not in mingw's headers */
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* A high-resolution timer where the system has one: Sleep rounds up to the 15.6 ms
 * tick, which would make every period late. */
static void sleep_until(uint64_t when)
{
    static HANDLE timer;
    if (!timer)
        timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                       TIMER_ALL_ACCESS);
    uint64_t now = now_ns();
    if (when <= now)
        return;
    LARGE_INTEGER due;
    due.QuadPart = -(LONGLONG)((when - now + 99) / 100); /* relative, in 100 ns */
    if (timer && SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE))
        WaitForSingleObject(timer, INFINITE);
    else
        Sleep((DWORD)((when - now) / 1000000));
}

/* What one second of the loop saw. */
struct second {
    unsigned periods, late_slots, missed16;
    uint64_t lag_peak_ns;
};

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    SetConsoleCtrlHandler(on_ctrl, TRUE);
    if (o.config && print_config(o.config) < 0)
        return 1;
    if (o.pidfile && write_pidfile(o.pidfile) < 0) {
        fprintf(stderr, "wintarget: cannot write pid file '%s'\n", o.pidfile);
        return 1;
    }
    printf("wintarget: started, pid %lu, share %.3f\n", (unsigned long)GetCurrentProcessId(),
           o.share);
    fflush(stdout);

    uint64_t start = now_ns(), busy = 0;
    uint64_t end = o.seconds > 0 ? start + (uint64_t)(o.seconds * 1e9) : 0;
    uint64_t next_report = start + REPORT_NS;
    struct second sec = {0};
    for (uint64_t k = 1; !atomic_load(&stop); k++) {
        uint64_t period_end = start + k * PERIOD_NS;
        /* Spin until the busy time has caught up with share of the time up to the
         * period's end: a period cut short is made up in the next ones. */
        uint64_t t0 = now_ns(), t = t0;
        uint64_t owed = (uint64_t)(o.share * (double)(period_end - start));
        while (busy + (t - t0) < owed && t < period_end && !atomic_load(&stop))
            t = now_ns();
        busy += t - t0;
        sleep_until(period_end);
        uint64_t woke = now_ns(), lag = woke > period_end ? woke - period_end : 0;
        sec.periods++;
        sec.late_slots += lag >= PERIOD_NS;
        sec.missed16 += lag > LATE_NS;
        if (lag > sec.lag_peak_ns)
            sec.lag_peak_ns = lag;
        if (woke >= next_report) {
            printf("%smissed16ms=%u slots=%u/%u tickLagPeak=%llums share=%.3f\n", o.marker,
                   sec.missed16, sec.late_slots, sec.periods,
                   (unsigned long long)(sec.lag_peak_ns / 1000000),
                   woke > start ? (double)busy / (double)(woke - start) : 0.0);
            fflush(stdout);
            sec = (struct second){0};
            next_report += REPORT_NS;
        }
        if (end && woke >= end)
            break;
    }
    printf("wintarget: exiting after %.3f s\n", (double)(now_ns() - start) / 1e9);
    return 0;
}
