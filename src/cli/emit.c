#include "emit.h"

#include <stdlib.h>

#include "msg.h"

void emit_json(json_t *doc, FILE *out)
{
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(doc);
}

void emit_result(json_t *doc, markdown_writer markdown, const void *result, const void *opts)
{
    struct lb_error err;
    if (doc)
        emit_json(doc, stdout);
    else if (markdown(result, opts, stdout, &err) < 0)
        msg_warn("%s", err.msg);
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    if (!summary || !*summary)
        return;
    FILE *f = fopen(summary, "a");
    int rc = f ? markdown(result, opts, f, NULL) : -1;
    if ((f && fclose(f) != 0) || rc < 0)
        msg_warn("cannot append to '%s' ($GITHUB_STEP_SUMMARY)", summary);
}
