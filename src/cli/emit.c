#include "emit.h"

#include <stdlib.h>

#include "msg.h"
#include "platform/platform.h"
#include "terminal.h"
#include "util.h"

void emit_json(json_t *doc, FILE *out)
{
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(doc);
}

int emit_text(markdown_writer markdown, const void *result, const void *opts, FILE *out,
              struct lb_error *err)
{
    /* through a scratch file: Windows has no open_memstream */
    FILE *mem = plat_scratch_file(err);
    if (!mem)
        return -1;
    int rc = markdown(result, opts, mem, err);
    size_t len;
    char *md = read_back(mem, &len, rc < 0 ? NULL : err);
    if (md)
        terminal_from_markdown(md, len, out);
    free(md);
    return rc < 0 || !md ? -1 : 0;
}

void emit_result(json_t *doc, enum cli_format format, markdown_writer markdown, const void *result,
                 const void *opts)
{
    struct lb_error err;
    if (format == CLI_JSON)
        emit_json(doc, stdout);
    else if ((format == CLI_TEXT ? emit_text(markdown, result, opts, stdout, &err)
                                 : markdown(result, opts, stdout, &err)) < 0)
        msg_warn("%s", err.msg);
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    if (!summary || !*summary)
        return;
    FILE *f = fopen(summary, "a");
    int rc = f ? markdown(result, opts, f, NULL) : -1;
    if ((f && fclose(f) != 0) || rc < 0)
        msg_warn("cannot append to '%s' ($GITHUB_STEP_SUMMARY)", summary);
}
