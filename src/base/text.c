#include "text.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The code point that starts at s, its length in *len; -1 for a byte that does not
 * start valid UTF-8 (a stray continuation byte, an overlong form, a surrogate, a code
 * point past U+10FFFF, a sequence cut by the end of the string). */
static long utf8_next(const unsigned char *s, int *len)
{
    static const long least[] = {0, 0, 0x80, 0x800, 0x10000};
    unsigned c = s[0];
    int n = c < 0x80                ? 1
            : c >= 0xC2 && c < 0xE0 ? 2
            : c >= 0xE0 && c < 0xF0 ? 3
            : c >= 0xF0 && c < 0xF5 ? 4
                                    : 0;
    if (n == 0)
        return -1;
    long cp = n == 1 ? (long)c : (long)(c & (0x3Fu >> (n - 1)));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *len = n;
    return cp;
}

/* The length of the character at p, 0 when text_control refuses it. */
static int allowed(const unsigned char *p)
{
    int len = 1;
    long cp = utf8_next(p, &len);
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069))
        return 0;
    return len;
}

const char *text_control(const char *s)
{
    int len;
    for (const unsigned char *p = (const unsigned char *)s; *p; p += len)
        if ((len = allowed(p)) == 0)
            return (const char *)p;
    return NULL;
}

/* s with what text_control finds shown as \n, \r, \t or its bytes as \xNN; with
 * lines, newline and tab are kept as they are. */
static char *escape_controls(const char *s, bool lines)
{
    /* Every byte becomes at most 4: \xNN. */
    char *out = xmalloc(4 * strlen(s) + 1), *o = out;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int len = allowed(p);
        if (len || (lines && (*p == '\n' || *p == '\t'))) {
            len = len ? len : 1;
            memcpy(o, p, (size_t)len);
            o += len;
            p += len;
            continue;
        }
        /* a refused character: its bytes, to the next that starts a character */
        do {
            const char *named = *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : *p == '\t' ? "\\t" : NULL;
            o += named ? sprintf(o, "%s", named) : sprintf(o, "\\x%02x", *p);
            p++;
        } while ((*p & 0xC0) == 0x80);
    }
    *o = '\0';
    return out;
}

char *text_shown(const char *s)
{
    return escape_controls(s, false);
}

char *text_printable(const char *s)
{
    return escape_controls(s, true);
}

int text_error_shown(struct lb_error *err)
{
    if (!err)
        return -1;
    char *shown = text_shown(err->msg);
    snprintf(err->msg, sizeof(err->msg), "%s", shown);
    free(shown);
    return -1;
}

static bool is_control_byte(unsigned char c)
{
    return c < ' ' || c == 0x7f;
}

/* U+200D ZERO WIDTH JOINER, written between '@' and a letter or digit. GitHub links and notifies an
 * @mention only where a login (or org/team) follows the '@' directly: html-pipeline's
 * MentionFilter, whose pattern GitHub's rendering follows, matches `@` then
 * `[a-z0-9][a-z0-9-]*`. The joiner breaks that match and draws as nothing, so a reader
 * still sees "@octocat". */
#define MENTION_BREAK "\xE2\x80\x8D"

char *text_markdown(const char *s)
{
    /* Every byte becomes at most 4: '@' and its joiner. */
    char *out = xmalloc(4 * strlen(s) + 1), *o = out;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        /* CommonMark reads any backslash-escaped ASCII punctuation as the character
         * itself: "\<" can open no HTML tag, "\*" and "\_" no emphasis, "\[" no link,
         * "\`" no code span, and GitHub's tables end a cell at no "\|". */
        if (strchr("\\`*_[]<>|~#&!", c))
            *o++ = '\\';
        *o++ = is_control_byte(c) ? ' ' : (char)c;
        if (c == '@' && isalnum((unsigned char)p[1])) {
            memcpy(o, MENTION_BREAK, sizeof(MENTION_BREAK) - 1);
            o += sizeof(MENTION_BREAK) - 1;
        }
    }
    *o = '\0';
    return out;
}

/* The fence that line (len bytes) opens or closes, at its start: its character and run
 * length (CommonMark: three or more backticks or tildes; an info string after backticks
 * holds none), 0 when it is no fence. A closing fence is indented at most three spaces
 * and has nothing after it but blanks. */
static size_t fence_at(const char *line, size_t len, bool closing, char *ch)
{
    size_t at = 0;
    while (closing && at < 3 && at < len && line[at] == ' ')
        at++;
    if (at >= len || (line[at] != '`' && line[at] != '~'))
        return 0;
    size_t run = 0;
    while (at + run < len && line[at + run] == line[at])
        run++;
    if (run < 3)
        return 0;
    for (size_t i = at + run; i < len; i++)
        if ((closing && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ||
            (!closing && line[at] == '`' && line[i] == '`'))
            return 0;
    *ch = line[at];
    return run;
}

char *text_markdown_inert(const char *md, size_t *len)
{
    /* Every byte becomes at most 5: "&amp;", or '@' and its joiner. */
    char *out = xmalloc(5 * *len + 1), *o = out;
    char fence = 0; /* the open fence's character, 0 outside one */
    size_t fence_run = 0;
    for (size_t at = 0; at < *len;) {
        const char *line = md + at, *nl = memchr(line, '\n', *len - at);
        size_t n = nl ? (size_t)(nl - line) + 1 : *len - at;
        char ch = 0; /* fence_at sets it where it finds a fence */
        size_t run;
        bool code = fence != 0;
        /* Only a fence at the start of a line opens a block: one indented could be a list
         * item's, which ends earlier than a reader of lines would think. */
        if (fence && (run = fence_at(line, n - (nl != NULL), true, &ch)) >= fence_run &&
            ch == fence)
            fence = 0;
        else if (!fence && (run = fence_at(line, n - (nl != NULL), false, &ch)) > 0) {
            fence = ch;
            fence_run = run;
            code = true;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)line[i],
                          next = i + 1 < n ? (unsigned char)line[i + 1] : 0;
            if (code) {
                *o++ = (char)c;
                continue;
            }
            if (c == '\\' && ispunct(next) && next != '@') {
                *o++ = (char)c;
                *o++ = (char)next;
                i++;
                continue;
            }
            /* what can follow a '<' that opens a tag, a comment or an autolink */
            if (c == '<' && (isalpha(next) || next == '/' || next == '!' || next == '?'))
                o += sprintf(o, "&lt;");
            else if (c == '&' && (next == '#' || isalpha(next)))
                o += sprintf(o, "&amp;");
            else
                *o++ = (char)c;
            if (c == '@' && isalnum(next)) {
                memcpy(o, MENTION_BREAK, sizeof(MENTION_BREAK) - 1);
                o += sizeof(MENTION_BREAK) - 1;
            }
        }
        at += n;
    }
    *o = '\0';
    *len = (size_t)(o - out);
    return out;
}

void text_put_markdown(FILE *out, const char *s)
{
    char *m = text_markdown(s);
    fputs(m, out);
    free(m);
}

char *text_code(const char *s)
{
    /* The fence is one backtick longer than the longest run inside, and a space pads
     * content that starts or ends with a backtick or a space (CommonMark strips one
     * from each side); nothing is read inside a code span, and GitHub mentions no one
     * from it (html-pipeline skips <code>). */
    size_t run = 0, longest = 0, len = strlen(s);
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    bool pad = len && (strchr("` ", s[0]) || strchr("` ", s[len - 1]));
    char *out = xmalloc(2 * (longest + 1) + len + 3), *o = out;
    memset(o, '`', longest + 1);
    o += longest + 1;
    if (pad)
        *o++ = ' ';
    for (const char *p = s; *p; p++)
        *o++ = is_control_byte((unsigned char)*p) ? ' ' : *p;
    if (pad)
        *o++ = ' ';
    memset(o, '`', longest + 1);
    o[longest + 1] = '\0';
    return out;
}

/* Optimal string alignment distance, so that a swapped pair counts as one edit. Words
 * are short; anything long is simply "not close". */
static size_t edit_distance(const char *a, const char *b)
{
    enum { MAX = 40 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX || lb > MAX)
        return SIZE_MAX;
    size_t d[MAX + 1][MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *text_closest(const char *word, const char *const *known)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; known[i]; i++) {
        size_t limit = 1 + strlen(known[i]) / 4;
        size_t d = edit_distance(word, known[i]);
        if (d <= (limit < 3 ? limit : 3) && d < best_d) {
            best = known[i];
            best_d = d;
        }
    }
    return best;
}

void text_put_gnuplot(FILE *out, const char *s)
{
    /* In gnuplot's single quotes nothing is special but the quote, written twice; a
     * control character would end the line, and with it the string. */
    fputc('\'', out);
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            fputc('\'', out);
        fputc(is_control_byte((unsigned char)*p) ? ' ' : *p, out);
    }
    fputc('\'', out);
}

/* A decimal number as loopbench writes one: -?digits[.digits][e[+-]digits]. */
static bool plain_number(const char *s)
{
    const char *p = s + (*s == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (digits && (*p == 'e' || *p == 'E')) {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return false;
        p += exp;
    }
    return digits && *p == '\0';
}

void text_put_csv(FILE *out, const char *s)
{
    /* A spreadsheet runs a cell that starts with one of these as a formula (OWASP's CSV
     * injection list); a quote before it makes the cell text. */
    bool formula = *s && strchr("=+-@\t\r", *s) && !plain_number(s);
    bool quoted = strpbrk(s, ",\"\r\n") != NULL;
    if (quoted)
        fputc('"', out);
    if (formula)
        fputc('\'', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    if (quoted)
        fputc('"', out);
}
