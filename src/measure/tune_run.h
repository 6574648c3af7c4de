/* loopbench tune's campaign: an ordinary one (run.c) whose next round tune_next chooses
 * from what the rounds so far measured, until the boundary is located, the budget spent
 * or what is left undecided has run its cap. */
#ifndef LOOPBENCH_TUNE_RUN_H
#define LOOPBENCH_TUNE_RUN_H

#include "run.h"
#include "tune_ask.h"

struct tune_run {
    struct tune_ask *ask; /* borrowed; bound to the campaign */
    struct tune t;
    struct tune_result result; /* of the runs so far, advised */
    enum tune_stop stop;
    struct runner_rounds rounds; /* run_opts.rounds: tune_run_next over this */
};

/* tr over ask for runner rn's campaign (set up, its settings ask's values): the budget
 * in runs is the smaller of --max-runs and --max-time over a run's expected length. -1
 * with err. */
int tune_run_init(struct tune_run *tr, struct tune_ask *ask, const struct runner *rn,
                  struct lb_error *err);
/* runner_rounds.next: the runs so far analysed, the answer written into campaign.tune,
 * and the next round planned (1) or the campaign ended (0, tr->stop says why). */
int tune_run_next(void *ctx, struct runner *rn, struct lb_error *err);
void tune_run_release(struct tune_run *tr);

#endif
