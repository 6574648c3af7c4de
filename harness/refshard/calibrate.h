/* Start-up calibration of the idle wait: can this host honour a short wait at all?
 *
 * Some hosts have no high-resolution wait (a coarse timer, a hypervisor that rounds waits up
 * to its own tick). There every sleep returns a tick or more late, so sleeping would cost
 * timer slots on every idle iteration; the server detects that once and spins instead. */
#ifndef REFSHARD_CALIBRATE_H
#define REFSHARD_CALIBRATE_H

#include <stdint.h>

#include "error.h"
#include "waitset.h"

#define CALIBRATE_WAITS 25

/* Time CALIBRATE_WAITS empty waits of wait_ms on ws and give their median in *median_ns.
 * A termination signal ends it early: *signo is then the signal, else 0. */
int calibrate_idle_wait(struct waitset *ws, int wait_ms, int64_t *median_ns, int *signo,
                        struct rs_error *err);

#endif
