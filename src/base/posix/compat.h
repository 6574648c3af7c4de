/* The C library names the core uses, from the POSIX headers that hold them. The
 * Windows sibling (src/base/windows/compat.h) supplies those mingw-w64 lacks;
 * meson puts the one for the host on the include path. */
#ifndef LOOPBENCH_COMPAT_H
#define LOOPBENCH_COMPAT_H

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#endif
