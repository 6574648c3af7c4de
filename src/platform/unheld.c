/* Idle states where this port has no request that holds them and no counters of them
 * (macOS, Windows): loopbench run --hold-idle is refused there with this message, and
 * the windows record no per-CPU figures. */
#include "platform/platform.h"

int plat_idle_hold(struct lb_error *err)
{
    return lb_fail(err, "holding the CPUs out of idle states is not supported on this "
                        "platform (%s)", plat_name());
}

void plat_idle_release(int handle)
{
    (void)handle;
}

char *plat_cpuidle_driver(void)
{
    return NULL;
}

int plat_cpu_counters(const struct cpuset *s, struct plat_cpu_counters *out,
                      struct lb_error *err)
{
    (void)s;
    (void)out;
    return lb_fail(err, "per-CPU counters are not read on this platform (%s)", plat_name());
}
