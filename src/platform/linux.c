/* Linux back-end of the platform contract (platform.h). */
#include "platform/platform.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "util.h"

const char *plat_name(void)
{
    return "linux";
}

char *plat_exe_dir(struct lb_error *err)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n < 0) {
        lb_fail_errno(err, errno, "cannot find the loopbench executable (/proc/self/exe)");
        return NULL;
    }
    buf[n] = '\0';
    return path_dirname(buf);
}
