/* roundtrip FILE...: each results.json read with loopbench's reader and written again
 * with its writer must give the same bytes. The end-to-end tests run it over every
 * campaign they made (tests/e2e/lib.sh). Exit 0 when all do, 1 naming each that does
 * not (and the first line that differs), 2 when one cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"
#include "results.h"
#include "util.h"

/* The 1-based number of the first line where a and b differ. */
static size_t first_difference(const char *a, const char *b)
{
    size_t line = 1;
    for (; *a && *a == *b; a++, b++)
        line += *a == '\n';
    return line;
}

int main(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        struct campaign c;
        struct lb_error err;
        char *text = NULL;
        size_t len;
        if (read_file(argv[i], &text, &len, &err) < 0 || results_load(argv[i], &c, &err) < 0) {
            fprintf(stderr, "roundtrip: %s\n", err.msg);
            free(text);
            campaign_release(&c);
            return 2;
        }
        char *again = results_text(&c);
        if (strcmp(again, text) != 0) {
            fprintf(stderr, "roundtrip: '%s' read and written again differs from line %zu\n",
                    argv[i], first_difference(again, text));
            status = 1;
        }
        free(again);
        free(text);
        campaign_release(&c);
    }
    return status;
}
