/* CPU pinning where this port has no affinity call (macOS has none; Windows' is not
 * wired): loopbench run --cpus and --order duet are refused there with this message. */
#include "platform/platform.h"

#include <string.h>

int plat_cpus_available(struct cpuset *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    return lb_fail(err, "pinning to CPUs is not supported on this platform (%s)", plat_name());
}

int plat_pin_self(const struct cpuset *s, struct lb_error *err)
{
    (void)s;
    return lb_fail(err, "pinning to CPUs is not supported on this platform (%s)", plat_name());
}

int plat_target_set_cpus(struct plat_target *t, const struct cpuset *s, struct lb_error *err)
{
    (void)t;
    (void)s;
    return lb_fail(err, "pinning to CPUs is not supported on this platform (%s)", plat_name());
}
