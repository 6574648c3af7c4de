/* Progress of a campaign on stderr, printed while the campaign runs: the one printer
 * besides the commands' messages (msg.h says why).
 *
 * On a terminal: one live line (run i of N, setting, phase, a bar with the time left in
 * the phase, and an ETA for the campaign), redrawn at most once per sampling interval.
 * Not a terminal: one plain line per phase change (msg_info). Quiet: nothing. */
#ifndef LOOPBENCH_PROGRESS_H
#define LOOPBENCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct progress {
    bool live;              /* stderr is a terminal */
    bool quiet;
    bool color;
    size_t n_runs;
    double run_s;           /* expected seconds per run, for the ETA */
    size_t run;             /* 0-based index of the current run */
    uint64_t run_start_ns;  /* when the current run began */
    char label[128];        /* "idle wait (ms) = 2, #1" */
    const char *phase;
    double phase_s;
    uint64_t phase_start_ns;
};

void progress_init(struct progress *p, size_t n_runs, double run_s, bool quiet);
/* A new phase of run `run` begins (phase_s 0: of unknown length). */
void progress_phase(struct progress *p, size_t run, const char *label, const char *phase,
                    double phase_s);
/* Redraw the live line; done is the fraction of the phase (sampler_tick_fn shape). */
void progress_tick(void *p, double done);
/* Clear the live line before other output. */
void progress_clear(struct progress *p);

#endif
