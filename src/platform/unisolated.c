/* Where this port makes loopbench no less readable to its user's other processes, nor
 * hides its ancestors from a target (macOS, Windows): every target's run records
 * isolation "none", and the campaign warns that its target could read their
 * environments (docs/ci.md). */
#include "platform/platform.h"

void plat_harden(void)
{
}

const char *plat_target_isolation(const struct plat_target *t)
{
    (void)t;
    return "none";
}
