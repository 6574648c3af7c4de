/* Where `loopbench run` with no profile finds the built-in one (src/measure/default_profile.c):
 * beside the executable in a build tree, or a user's copy of the installed files, kept in
 * step with them unless a run's journal says the copy is being (or was left) edited. */
#ifndef LOOPBENCH_DEFAULT_PROFILE_H
#define LOOPBENCH_DEFAULT_PROFILE_H

#include "msg.h"

/* Path of the built-in reference profile (new string): profiles/refshard.json beside
 * the executable in a build tree; once installed (PREFIX/share/loopbench/profiles), a
 * copy of it and its config file in ${XDG_STATE_HOME:-~/.local/state}/loopbench, made
 * or refreshed from the installed ones, so that a run edits a file of the user's and
 * never the installed one. */
char *profile_default_path(struct lb_error *err);

#endif
