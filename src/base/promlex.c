/* The lexical rules of Prometheus' text format (promlex.h). */
#include "promlex.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static bool is_letter_or_underscore(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool prom_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool prom_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

const char *prom_skip_blanks(const char *p, const char *end)
{
    while (p < end && prom_is_blank(*p))
        p++;
    return p;
}

const char *prom_lex_name(const char *p, const char *end, bool colons)
{
    const char *q = p;
    while (q < end &&
           (is_letter_or_underscore(*q) || (colons && *q == ':') || (q > p && prom_is_digit(*q))))
        q++;
    return q;
}

bool prom_whole_name(const char *s, bool colons)
{
    const char *end = s + strlen(s);
    return *s && prom_lex_name(s, end, colons) == end;
}

const char *prom_lex_labels(const char *p, const char *end, struct prom_label_spans *spans,
                            const char **problem, const char **where)
{
    for (;;) {
        p = prom_skip_blanks(p, end);
        if (p < end && *p == '}')
            return p + 1;
        const char *name = p;
        p = prom_lex_name(p, end, false);
        if (p == name) {
            *problem = "a label name or '}'";
            break;
        }
        size_t name_len = (size_t)(p - name);
        p = prom_skip_blanks(p, end);
        if (p == end || *p != '=') {
            *problem = "'=' after a label name";
            break;
        }
        p = prom_skip_blanks(p + 1, end);
        if (p == end || *p != '"') {
            *problem = "a quoted label value";
            break;
        }
        const char *raw = ++p;
        while (p < end && *p != '"') {
            if (*p == '\\') {
                if (end - p < 2 || (p[1] != '\\' && p[1] != '"' && p[1] != 'n')) {
                    *problem = "an escape \\\\, \\\" or \\n";
                    *where = p;
                    return NULL;
                }
                p++;
            }
            p++;
        }
        if (p == end) {
            *problem = "the label value's closing quote";
            break;
        }
        if (spans) {
            if (spans->n == spans->cap) {
                spans->cap = spans->cap ? spans->cap * 2 : 16;
                spans->v = xrealloc(spans->v, spans->cap * sizeof(*spans->v));
            }
            spans->v[spans->n++] = (struct prom_label_span){name, name_len, raw, (size_t)(p - raw)};
        }
        p = prom_skip_blanks(p + 1, end);
        if (p < end && *p == ',')
            p++;
        else if (p == end || *p != '}') {
            *problem = "',' or '}' after a label value";
            break;
        }
    }
    *where = p;
    return NULL;
}

bool prom_raw_equals(const char *raw, size_t len, const char *plain)
{
    for (size_t i = 0; i < len; i++, plain++) {
        char c = raw[i];
        if (c == '\\')
            c = raw[++i] == 'n' ? '\n' : raw[i];
        if (*plain == '\0' || c != *plain)
            return false;
    }
    return *plain == '\0';
}

char *prom_unescape(const char *raw, size_t len)
{
    char *out = xmalloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        char c = raw[i];
        if (c == '\\')
            c = raw[++i] == 'n' ? '\n' : raw[i];
        *o++ = c;
    }
    *o = '\0';
    return out;
}

char *prom_escape(const char *value)
{
    char *out = xmalloc(2 * strlen(value) + 1), *o = out;
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"' || *p == '\n')
            *o++ = '\\';
        *o++ = *p == '\n' ? 'n' : *p;
    }
    *o = '\0';
    return out;
}
