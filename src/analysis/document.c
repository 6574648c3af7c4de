#include "document.h"

#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "platform/files.h"
#include "results.h"
#include "summary.h"
#include "util.h"

static json_t *noise_json(const struct noise_run *nr)
{
    return json_pack("{s:b, s:b, s:b}", "steal", nr->steal, "other_processes", nr->others,
                     "outlier", nr->outlier);
}

json_t *results_to_json(const struct campaign *c)
{
    struct noise noise;
    noise_assess(c, &noise);
    struct results_run_analysis *runs = xcalloc(c->n_runs + 1, sizeof(*runs));
    for (size_t i = 0; i < c->n_runs; i++)
        runs[i] = (struct results_run_analysis){noise_json(&noise.runs[i]),
                                                noise.runs[i].saturated};
    struct results_analysis a = {runs, summary_json(c), &noise.warnings};
    json_t *doc = results_document(c, &a);
    for (size_t i = 0; i < c->n_runs; i++)
        json_decref(runs[i].noise);
    free(runs);
    json_decref(a.summary);
    noise_release(&noise);
    return doc;
}

char *results_text(const struct campaign *c)
{
    json_t *doc = results_to_json(c);
    char *text = results_document_text(doc);
    json_decref(doc);
    return text;
}

int results_write(struct campaign *c, struct lb_error *err)
{
    char *text = results_text(c);
    int rc = results_settle(c, text, err);
    free(text);
    if (rc < 0)
        return -1;
    /* Once settled, the summary is computed from the figures as written. */
    text = results_text(c);
    char *path = path_join(c->out_dir, "results.json");
    rc = write_file_atomic(path, text, strlen(text), 0644, err);
    free(text);
    free(path);
    return rc;
}
