/* Package energy where this port reads no counter of it (macOS, Windows): the runs
 * record none, and the campaign says why once (src/measure/energy.c). */
#include "platform/platform.h"

int plat_energy_read(struct plat_energy_zone *out, struct lb_error *err)
{
    (void)out;
    return lb_fail(err, "no RAPL: package energy is not read on this platform (%s)",
                   plat_name());
}
