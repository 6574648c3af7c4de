#include "lbversion.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "version.h"

bool lbversion_commit(char *buf, size_t size)
{
    /* describe gives "6cb843b[-dirty]", or with a tag "v0.1.0-3-g6cb843b[-dirty]", or
     * the tag alone on a tagged commit; a tarball's fallback is the version itself */
    const char *d = LOOPBENCH_DESCRIBE;
    buf[0] = '\0';
    if (strcmp(d, LOOPBENCH_VERSION) == 0)
        return false;
    const char *g = strstr(d, "-g");
    snprintf(buf, size, "%s", g ? g + 2 : d);
    return true;
}
