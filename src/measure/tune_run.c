#include "tune_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tune_run_init(struct tune_run *tr, struct tune_ask *ask, const struct runner *rn,
                  struct lb_error *err)
{
    memset(tr, 0, sizeof(*tr));
    tr->ask = ask;
    tr->stop = TUNE_RUN;
    tr->rounds = (struct runner_rounds){tune_run_next, tr};
    const struct campaign *c = &rn->c;
    struct tune_spec spec = tune_ask_spec(ask);
    if (ask->max_time_s > 0) {
        double run_s = c->spec.warmup_s + c->spec.sample_s + 1.0;
        long runs = (long)floor(ask->max_time_s / run_s);
        if (spec.max_runs == 0 || runs < spec.max_runs)
            spec.max_runs = runs > 0 ? runs : 1;
    }
    return tune_init(&tr->t, &spec, err);
}

/* "2, 4, 8" of the settings next[] runs (new string). */
static char *round_names(const struct campaign *c, const bool *next)
{
    char *s = xstrdup("");
    for (size_t i = 0; i < c->spec.values.n; i++) {
        if (!next[i])
            continue;
        char *longer = xasprintf("%s%s%s", s, *s ? ", " : "", c->spec.values.v[i]);
        free(s);
        s = longer;
    }
    return s;
}

int tune_run_next(void *ctx, struct runner *rn, struct lb_error *err)
{
    struct tune_run *tr = ctx;
    struct campaign *c = &rn->c;
    tune_result_release(&tr->result);
    if (tune_ask_analyse(tr->ask, &tr->t, c, &tr->result, err) < 0)
        return -1;
    bool *next = xcalloc(c->spec.values.n + 1, sizeof(bool));
    tr->stop = tune_next(&tr->t, &tr->result, next);
    tune_advise(&tr->t, &tr->result);
    json_t *answer = tune_ask_answer(tr->ask, c, &tr->result);
    json_object_update(c->tune, answer);
    json_decref(answer);
    json_object_set_new(c->tune, "stopped",
                        tr->stop == TUNE_RUN ? json_null() : json_string(tune_stop_name(tr->stop)));
    int more = 0;
    if (tr->stop == TUNE_RUN) {
        long round = c->spec.repeat + 1;
        char *names = round_names(c, next);
        msg_info("round %ld: %s", round, names);
        free(names);
        runner_plan_round(rn, next, round);
        more = 1;
    } else {
        msg_info("after %ld round%s: %s", c->spec.repeat, c->spec.repeat == 1 ? "" : "s",
                 tune_stop_name(tr->stop));
    }
    free(next);
    return more;
}

void tune_run_release(struct tune_run *tr)
{
    tune_result_release(&tr->result);
    tune_release(&tr->t);
    memset(tr, 0, sizeof(*tr));
}
