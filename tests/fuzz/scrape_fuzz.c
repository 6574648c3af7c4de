/* libFuzzer entry point for the health-line parser: any bytes, with the real marker.
 *
 * Besides the sanitizers' checks, it asserts what callers rely on: every value has a
 * non-empty NUL-terminated key, a known type and finite numbers, and a line holds at
 * most SCRAPE_VALUES_MAX values. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct scrape_line l;
    scrape_parse_line((const char *)data, size, "loop: ", &l);
    if (l.n_values > SCRAPE_VALUES_MAX || (l.n_values && !l.is_marker))
        abort();
    if (l.has_time && (l.seconds_of_day < 0 || l.seconds_of_day >= 86400 || l.level < 0))
        abort();
    for (size_t i = 0; i < l.n_values; i++) {
        const struct scrape_value *v = &l.values[i];
        size_t kn = strnlen(v->key, SCRAPE_KEY_MAX);
        if (kn == 0 || kn == SCRAPE_KEY_MAX || v->type > SCRAPE_FLAG || !isfinite(v->value))
            abort();
        if (v->type == SCRAPE_RATIO && !isfinite(v->total))
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(l.values[j].key, v->key) == 0)
                abort(); /* duplicate keys: the last one must have replaced the first */
    }
    scrape_line_release(&l);
    return 0;
}
