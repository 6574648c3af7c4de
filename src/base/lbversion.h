/* loopbench's own version: meson.build's, and the commit it was built from when built
 * from a git checkout. */
#ifndef LOOPBENCH_LBVERSION_H
#define LOOPBENCH_LBVERSION_H

#include <stdbool.h>
#include <stddef.h>

/* The commit loopbench was built from, abbreviated, with "-dirty" when its tree had
 * changes ("6cb843b-dirty"), into buf; false (buf empty) in a build from a tarball. */
bool lbversion_commit(char *buf, size_t size);

#endif
