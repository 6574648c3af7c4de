/* text.c: names refused when they hold control characters, and quoted for Markdown,
 * gnuplot and CSV so that nothing in them is read as syntax. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "text.h"

/* What put(s) writes (new string). */
static char *written(void (*put)(FILE *, const char *), const char *s)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    put(f, s);
    long len = ftell(f);
    char *text = calloc(1, (size_t)len + 1);
    rewind(f);
    ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return text;
}

START_TEST(control_characters_are_found)
{
    static const struct {
        const char *s;
        long at; /* -1: none */
    } cases[] = {
        {"2", -1},
        {"idle wait (ms) \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9F\xA6", -1}, /* é, €, a square */
        {"", -1},
        {"a\tb", 1},
        {"a\nb", 1},
        {"\x1b[31m", 0},
        {"ab\x7f", 2},
        {"a\xC2\23331m", 1},         /* U+009B, the C1 CSI (octal: \x9B3 would be one) */
        {"x\xE2\x80\xAEtxt.exe", 1}, /* U+202E RIGHT-TO-LEFT OVERRIDE */
        {"x\xE2\x81\xA6y", 1},       /* U+2066 LEFT-TO-RIGHT ISOLATE */
        {"a\xff", 1},                /* not UTF-8 */
        {"a\xC0\xAF", 1},            /* an overlong '/' */
        {"a\xED\xA0\x80", 1},        /* a surrogate */
        {"a\xE2\x82", 1},            /* cut short */
        {"a\x80", 1},                /* a stray continuation byte */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *bad = text_control(cases[i].s);
        ck_assert_msg(bad ? bad - cases[i].s == cases[i].at : cases[i].at == -1,
                      "case %zu: found at %ld, expected %ld", i,
                      bad ? (long)(bad - cases[i].s) : -1L, cases[i].at);
    }
}
END_TEST

START_TEST(refused_text_is_shown_on_one_line)
{
    char *s = text_shown("a\nb\tc\x1b[31m\xC2\233d \xC3\xA9\xE2\x80\xAE\xff");
    ck_assert_str_eq(s, "a\\nb\\tc\\x1b[31m\\xc2\\x9bd \xC3\xA9\\xe2\\x80\\xae\\xff");
    free(s);
}
END_TEST

START_TEST(markdown_is_read_as_text)
{
    static const char *const cases[][2] = {
        {"2", "2"},
        {"idle wait (ms)", "idle wait (ms)"},
        {"<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert(1)\\>"},
        {"a|b", "a\\|b"},
        {"```", "\\`\\`\\`"},
        {"**bold** _it_ [link](x) ~~s~~", "\\*\\*bold\\*\\* \\_it\\_ \\[link\\](x) \\~\\~s\\~\\~"},
        {"&amp; \\| !#", "\\&amp; \\\\\\| \\!\\#"},
        /* a joiner between '@' and the name: no mention, however it is written */
        {"@octocat", "@\xE2\x80\x8Doctocat"},
        {"hi @github/security-team!", "hi @\xE2\x80\x8Dgithub/security-team\\!"},
        {"CPU @ 2.20GHz, a@", "CPU @ 2.20GHz, a@"},
        {"a\nb\x7f", "a b "},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *m = text_markdown(cases[i][0]);
        ck_assert_str_eq(m, cases[i][1]);
        free(m);
        char *put = written(text_put_markdown, cases[i][0]);
        ck_assert_str_eq(put, cases[i][1]);
        free(put);
    }
}
END_TEST

/* A whole report made elsewhere, as publish posts it: its mentions and HTML are text,
 * outside fenced code; its tables, emphasis and backslash escapes are left alone. */
START_TEST(a_whole_document_is_made_inert)
{
#define ZWJ "\xE2\x80\x8D"
    static const char *const cases[][2] = {
        {"| a @octocat | **b** |\n", "| a @" ZWJ "octocat | **b** |\n"},
        {"<img src=x> <!-- m --> </b> <?x <!DOCTYPE",
         "&lt;img src=x> &lt;!-- m --> &lt;/b> &lt;?x &lt;!DOCTYPE"},
        {"p < 0.001, a <= b, <3", "p < 0.001, a <= b, <3"},
        {"&#64;eve &commat;bob &amp; & x", "&amp;#64;eve &amp;commat;bob &amp;amp; & x"},
        {"\\<b\\> \\@trudy \\& \\*", "\\<b\\> \\@" ZWJ "trudy \\& \\*"},
        /* a fence at the start of a line: what it holds is code, left as written */
        {"```\n<b> @x &#64;\n```\n<b>", "```\n<b> @x &#64;\n```\n&lt;b>"},
        {"~~~~ c\n~~~\n@x\n ~~~~  \n@y", "~~~~ c\n~~~\n@x\n ~~~~  \n@" ZWJ "y"},
        /* not fences: info string with a backtick, an indented opener (a list item's) */
        {"``` a`b\n@x", "``` a`b\n@" ZWJ "x"},
        {"- a\n  ```\n<b>\n", "- a\n  ```\n&lt;b>\n"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = strlen(cases[i][0]);
        char *m = text_markdown_inert(cases[i][0], &len);
        ck_assert_str_eq(m, cases[i][1]);
        ck_assert_uint_eq(len, strlen(cases[i][1]));
        free(m);
    }
#undef ZWJ
}
END_TEST

START_TEST(code_spans_hold_any_backticks)
{
    static const char *const cases[][2] = {
        {"cpu", "`cpu`"},
        {"a`b", "``a`b``"},
        {"``x```y", "```` ``x```y ````"},
        {"`", "`` ` ``"},
        {"x`", "`` x` ``"},
        {" a ", "`  a  `"},
        {"<b>|@octocat", "`<b>|@octocat`"},
        {"a\nb", "`a b`"},
        {"", "``"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *c = text_code(cases[i][0]);
        ck_assert_str_eq(c, cases[i][1]);
        free(c);
    }
}
END_TEST

START_TEST(gnuplot_strings_cannot_end_early)
{
    static const char *const cases[][2] = {
        {"idle wait (ms)", "'idle wait (ms)'"},
        {"x'; system(\"touch F\"); '", "'x''; system(\"touch F\"); '''"},
        {"a\\'b", "'a\\''b'"},
        {"a\nsystem('id')\r", "'a system(''id'') '"},
        {"", "''"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *g = written(text_put_gnuplot, cases[i][0]);
        ck_assert_str_eq(g, cases[i][1]);
        free(g);
    }
}
END_TEST

START_TEST(csv_cells_are_no_formulas)
{
    static const char *const cases[][2] = {
        {"2", "2"},
        {"-1", "-1"},
        {"-0.5", "-0.5"},
        {"-1.5e-3", "-1.5e-3"},
        {"head", "head"},
        {"=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
        {"+1", "'+1"},
        {"-1+1", "'-1+1"},
        {"-", "'-"},
        {"-e1", "'-e1"},
        {"@SUM(A1:A2)", "'@SUM(A1:A2)"},
        {"\tx", "'\tx"},
        {"\rx", "\"'\rx\""},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"a\nb", "\"a\nb\""},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *c = written(text_put_csv, cases[i][0]);
        ck_assert_str_eq(c, cases[i][1]);
        free(c);
    }
}
END_TEST

/* Target text for a terminal: what a terminal acts on escaped, valid UTF-8 kept. */
START_TEST(text_printable_escapes_what_a_terminal_acts_on)
{
    static const struct {
        const char *raw, *shown;
    } cases[] = {
        {"plain\ttext\nnext line", "plain\ttext\nnext line"},
        {"\033]0;title\007", "\\x1b]0;title\\x07"},             /* OSC, BEL */
        {"\033[31mred\033[0m", "\\x1b[31mred\\x1b[0m"},         /* CSI */
        {"a\rb\bc\177d", "a\\rb\\x08c\\x7fd"},                /* CR, BS, DEL */
        {"\233 2J", "\\x9b 2J"},                                   /* C1 CSI alone */
        {"\302\233 2J", "\\xc2\\x9b 2J"},                       /* C1 CSI as UTF-8 */
        {"caf\303\251 \342\202\254 \360\237\230\200", "caf\303\251 \342\202\254 \360\237\230\200"},
        {"\300\257", "\\xc0\\xaf"},                             /* overlong '/' */
        {"\355\240\200", "\\xed\\xa0\\x80"},                 /* a surrogate */
        {"cut \342\202", "cut \\xe2\\x82"},                     /* cut short */
        {"\342\200\256evil", "\\xe2\\x80\\xaeevil"},                 /* RLO */
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = text_printable(cases[i].raw);
        ck_assert_msg(strcmp(got, cases[i].shown) == 0, "case %zu: got '%s'", i, got);
        free(got);
    }
}
END_TEST

/* The typo hint of profile keys and options alike: a swap or a letter off, never a word
 * that is merely as long. */
START_TEST(closest_words_are_likely_typos)
{
    static const char *const keys[] = {"values", "label", "baseline", NULL};
    static const char *const options[] = {"json", "format", "output", "repeat", NULL};
    ck_assert_str_eq(text_closest("valuse", keys), "values");
    ck_assert_str_eq(text_closest("lable", keys), "label");
    ck_assert_str_eq(text_closest("jsno", options), "json");
    ck_assert_str_eq(text_closest("repet", options), "repeat");
    ck_assert_ptr_null(text_closest("verbose", options));
    ck_assert_ptr_null(text_closest("x", options));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, control_characters_are_found);
    tcase_add_test(tc, refused_text_is_shown_on_one_line);
    tcase_add_test(tc, markdown_is_read_as_text);
    tcase_add_test(tc, a_whole_document_is_made_inert);
    tcase_add_test(tc, code_spans_hold_any_backticks);
    tcase_add_test(tc, gnuplot_strings_cannot_end_early);
    tcase_add_test(tc, csv_cells_are_no_formulas);
    tcase_add_test(tc, text_printable_escapes_what_a_terminal_acts_on);
    tcase_add_test(tc, closest_words_are_likely_typos);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
