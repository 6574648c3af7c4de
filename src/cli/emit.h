/* How compare, compare --pool and history hand their result to the user: JSON, Markdown or
 * (for a person at a terminal) plain text on stdout, and the Markdown appended to
 * $GITHUB_STEP_SUMMARY when that is set. */
#ifndef LOOPBENCH_EMIT_H
#define LOOPBENCH_EMIT_H

#include <jansson.h>
#include <stdio.h>

#include "msg.h"
#include "options.h"

/* What a command whose result emit_result prints says of its output in its usage text:
 * the formats, --json, --help, and the step summary. */
#define EMIT_USAGE                                                                                 \
    "  -f, --format md|text|json  Markdown, plain text or JSON (default: text on a\n"              \
    "                             terminal, else Markdown)\n"                                      \
    "      --json                 the same as --format json\n"                                     \
    "  -h, --help                 show this help\n"                                                \
    "\n"                                                                                           \
    "The Markdown is also appended to $GITHUB_STEP_SUMMARY when that is set.\n"

/* Writes a result's Markdown, as opts ask, to out; -1 on failure, with err filled when not
 * NULL. */
typedef int (*markdown_writer)(const void *result, const void *opts, FILE *out,
                               struct lb_error *err);

/* doc (taken) printed to out as indented JSON, 6 significant digits, and a newline. */
void emit_json(json_t *doc, FILE *out);

/* Markdown as plain text (src/output/terminal.c) on out: what markdown writes, made in
 * memory first. -1 with err when it cannot be. */
int emit_text(markdown_writer markdown, const void *result, const void *opts, FILE *out,
              struct lb_error *err);

/* doc on stdout when format is CLI_JSON (else doc is NULL), else result's Markdown, or as
 * text with CLI_TEXT; then the Markdown appended to $GITHUB_STEP_SUMMARY when set (GitHub
 * shows that file on the run's page). A failure is a warning: the result is already
 * decided. */
void emit_result(json_t *doc, enum cli_format format, markdown_writer markdown, const void *result,
                 const void *opts);

#endif
