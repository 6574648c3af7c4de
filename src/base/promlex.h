/* The lexical rules of Prometheus' text format (exposition format 0.0.4), shared by the
 * exposition parser (prometheus.c) and the selectors a profile writes (endpoint_spec.c):
 * names, label sets and the escapes of label values. Text only: p..end need not be
 * NUL-terminated. */
#ifndef LOOPBENCH_PROMLEX_H
#define LOOPBENCH_PROMLEX_H

#include <stdbool.h>
#include <stddef.h>

bool prom_is_digit(char c);
bool prom_is_blank(char c); /* space or tab */
const char *prom_skip_blanks(const char *p, const char *end);

/* The end of a series name ([a-zA-Z_:][a-zA-Z0-9_:]*) or label name ([a-zA-Z_][a-zA-Z0-9_]*)
 * starting at p; p itself when there is none. */
const char *prom_lex_name(const char *p, const char *end, bool colons);
/* s (NUL-terminated) is one whole such name. */
bool prom_whole_name(const char *s, bool colons);

/* One label of a sample or selector: its name and its value as written (escaped). */
struct prom_label_span {
    const char *name;
    size_t name_len;
    const char *raw;
    size_t raw_len;
};

struct prom_label_spans {
    struct prom_label_span *v;
    size_t n, cap;
};

/* Lex a label set starting at p, just after its '{'. Returns where it ends (after the
 * '}') or NULL, with *problem saying what was expected at *where. Records the labels in
 * spans when spans is not NULL (otherwise only checks them: nothing is allocated). */
const char *prom_lex_labels(const char *p, const char *end, struct prom_label_spans *spans,
                            const char **problem, const char **where);

/* Label values are written with \\, \" and \n escaped. */
/* The escaped value raw[0..len) unescaped is plain. */
bool prom_raw_equals(const char *raw, size_t len, const char *plain);
/* raw[0..len) unescaped (new string). */
char *prom_unescape(const char *raw, size_t len);
/* value escaped, as written in a selector (new string). */
char *prom_escape(const char *value);

#endif
