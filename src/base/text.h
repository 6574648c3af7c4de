/* Names from profiles, command lines and results.json files made elsewhere (setting
 * values, variant names, labels, hosts), made safe for where loopbench writes them.
 *
 * A name is refused where it enters (run, and reading a results.json) when it holds a
 * control character (text_control); where it is written, it is quoted by the rules of
 * the output: Markdown text and table cells, Markdown code spans, gnuplot strings, CSV
 * fields. Each writer also replaces control characters, so a caller that skipped the
 * check still cannot end a line or a string early. */
#ifndef LOOPBENCH_TEXT_H
#define LOOPBENCH_TEXT_H

#include <stdio.h>

#include "msg.h"

/* The first character of s that a name may not hold: C0 controls (tab and newline
 * included), DEL, C1 controls (U+0080-U+009F), the bidirectional overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069, which reorder what a reviewer reads), or a
 * byte that is not part of valid UTF-8. NULL when there is none. */
const char *text_control(const char *s);
/* s for a one-line message (new string): what text_control finds is shown as \n, \r,
 * \t or its bytes as \xNN, the rest as it is. */
char *text_shown(const char *s);
/* Text a target wrote, for a terminal or a report (new string): as text_shown, but its
 * lines and tabs kept. What a terminal acts on never gets through: ESC (which starts CSI
 * and OSC sequences), the other C0 controls, DEL, the C1 controls (0x9b alone is a CSI)
 * and bytes that are not valid UTF-8. */
char *text_printable(const char *s);
/* err's message as text_shown shows it, in place (cut where the buffer ends): for an
 * error that quotes what a file made elsewhere holds. Returns -1, for
 * `return text_error_shown(err)`; err may be NULL. */
int text_error_shown(struct lb_error *err);

/* s as Markdown text, in a line or a table cell (new string): read as the characters
 * themselves, never as emphasis, a link, HTML, a code span or a cell's end, and an
 * @mention that notifies no one. text_put_markdown writes the same to out. */
char *text_markdown(const char *s);
void text_put_markdown(FILE *out, const char *s);
/* A whole Markdown document made elsewhere (a report to publish), *len bytes, as GitHub
 * would show it but inert (new string, its length into *len). Outside fenced code blocks
 * (a fence at the start of a line): a '<' that could open a tag, a comment or an autolink
 * is "&lt;" (no HTML), an '&' that could start an entity is "&amp;" (no "&#64;" for an
 * '@'), and an '@' before a letter or digit gets text_markdown's joiner (it notifies no
 * one); what CommonMark already escapes with a backslash is left as it is. Tables,
 * emphasis and links stay. */
char *text_markdown_inert(const char *md, size_t *len);
/* s as a Markdown code span, whatever backticks it holds (new string). */
char *text_code(const char *s);

/* The word of known[] (NULL-terminated) closest to word when close enough to be a likely
 * typo of it ('valuse' for 'values', '--jsno' for '--json'): one edit for short words, up
 * to three for long ones, a swapped pair one edit. NULL when none is. */
const char *text_closest(const char *word, const char *const *known);

/* s as a gnuplot single-quoted string, its quotes included. */
void text_put_gnuplot(FILE *out, const char *s);
/* s as a CSV field (RFC 4180), a text that a spreadsheet would read as a formula
 * prefixed with a single quote (OWASP's rule); a plain number stays a number. */
void text_put_csv(FILE *out, const char *s);

#endif
