#include "calibrate.h"

#include <stdlib.h>

#include "clock.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int calibrate_idle_wait(struct waitset *ws, int wait_ms, int64_t *median_ns, int *signo,
                        struct rs_error *err)
{
    int64_t took[CALIBRATE_WAITS];
    struct waitset_event ev[8];
    *signo = 0;
    /* Socket events stay pending (level-triggered) for the loop; a wait they cut short only
     * flatters the host, which a client connecting this early can afford. */
    for (int i = 0; i < CALIBRATE_WAITS; i++) {
        int64_t start = clock_mono_ns();
        int n = waitset_wait(ws, wait_ms, ev, 8, err);
        if (n < 0)
            return -1;
        took[i] = clock_mono_ns() - start;
        for (int j = 0; j < n; j++) {
            if (ev[j].kind == WAITSET_SIGNAL) {
                *signo = ev[j].signo;
                return 0;
            }
        }
    }
    qsort(took, CALIBRATE_WAITS, sizeof(took[0]), cmp_i64);
    *median_ns = took[CALIBRATE_WAITS / 2];
    return 0;
}
