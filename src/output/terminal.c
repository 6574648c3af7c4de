#include "terminal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* One line of Markdown text as plain text (new string): "\X" as X, "**" gone. */
static char *plain(const char *s, size_t len)
{
    char *out = xmalloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len && strchr("\\`*_[]<>|~#&!", s[i + 1])) {
            *o++ = s[++i];
            continue;
        }
        if (s[i] == '*' && i + 1 < len && s[i + 1] == '*') {
            i++;
            continue;
        }
        *o++ = s[i];
    }
    *o = '\0';
    return out;
}

/* The cells of a table row "| a | b\|c |" (new strings into cells), each made plain. */
static void split_row(const char *line, size_t len, struct strv *cells)
{
    size_t i = line[0] == '|', start = i;
    for (; i < len; i++) {
        if (line[i] == '\\' && i + 1 < len) {
            i++;
            continue;
        }
        if (line[i] != '|')
            continue;
        size_t a = start, b = i;
        while (a < b && line[a] == ' ')
            a++;
        while (b > a && line[b - 1] == ' ')
            b--;
        strv_push_owned(cells, plain(line + a, b - a));
        start = i + 1;
    }
}

/* Display width of UTF-8 text: its characters (continuation bytes do not count). */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* A table's rows (the delimiter row among them, at index 1), padded. */
static void put_table(struct strv *rows, size_t n, FILE *out)
{
    size_t cols = 0;
    for (size_t r = 0; r < n; r++)
        cols = rows[r].n > cols ? rows[r].n : cols;
    size_t *w = xcalloc(cols + 1, sizeof(*w));
    bool *right = xcalloc(cols + 1, sizeof(*right));
    for (size_t c = 0; n > 1 && c < rows[1].n; c++) {
        size_t l = strlen(rows[1].v[c]);
        right[c] = l && rows[1].v[c][l - 1] == ':';
    }
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; r != 1 && c < rows[r].n; c++)
            w[c] = width(rows[r].v[c]) > w[c] ? width(rows[r].v[c]) : w[c];
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < cols; c++) {
            const char *cell = c < rows[r].n ? rows[r].v[c] : "";
            size_t pad = w[c] - (r == 1 ? 0 : width(cell));
            fputs(c ? " | " : "", out);
            if (r == 1) {
                for (size_t k = 0; k < w[c]; k++)
                    fputc('-', out);
                continue;
            }
            if (right[c])
                fprintf(out, "%*s%s", (int)pad, "", cell);
            else if (c + 1 < cols)
                fprintf(out, "%s%*s", cell, (int)pad, "");
            else
                fputs(cell, out);
        }
        fputc('\n', out);
        strv_release(&rows[r]);
    }
    free(w);
    free(right);
}

void terminal_from_markdown(const char *md, size_t len, FILE *out)
{
    struct strv *rows = NULL;
    size_t n_rows = 0;
    bool chart = false, legend = false;
    for (size_t at = 0; at < len;) {
        const char *line = md + at;
        size_t l = 0;
        while (at + l < len && line[l] != '\n')
            l++;
        at += l + (at + l < len);
        bool row = l > 0 && line[0] == '|';
        if (!row && n_rows) {
            put_table(rows, n_rows, out);
            free(rows);
            rows = NULL;
            n_rows = 0;
        }
        if (chart) { /* to the closing fence, then its legend to a blank line */
            chart = !(l == 3 && strncmp(line, "```", 3) == 0);
            legend = !chart;
            continue;
        }
        if (l >= 10 && strncmp(line, "```mermaid", 10) == 0) {
            chart = true;
            continue;
        }
        if (legend && l > 0)
            continue;
        if (legend) { /* the blank line after a chart: one is enough */
            legend = false;
            continue;
        }
        if (row) {
            rows = xrealloc(rows, (n_rows + 1) * sizeof(*rows));
            memset(&rows[n_rows], 0, sizeof(*rows));
            split_row(line, l, &rows[n_rows++]);
            continue;
        }
        static const char summary[] = "<details><summary>", summary_end[] = "</summary>";
        if (l >= sizeof(summary) - 1 && strncmp(line, summary, sizeof(summary) - 1) == 0) {
            const char *text = line + sizeof(summary) - 1, *end = strstr(text, summary_end);
            size_t tl = end && end < line + l ? (size_t)(end - text) : l - (sizeof(summary) - 1);
            char *p = plain(text, tl);
            fprintf(out, "%s:\n", p);
            free(p);
            continue;
        }
        if (l == 10 && strncmp(line, "</details>", 10) == 0)
            continue;
        size_t hashes = 0;
        while (hashes < l && line[hashes] == '#')
            hashes++;
        size_t skip = hashes && hashes < l && line[hashes] == ' ' ? hashes + 1 : 0;
        char *p = plain(line + skip, l - skip);
        fprintf(out, "%s\n", p);
        free(p);
    }
    if (n_rows)
        put_table(rows, n_rows, out);
    free(rows);
}
