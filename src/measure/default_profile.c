/* The built-in profile's path (default_profile.h). */
#include "default_profile.h"

#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "journal.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "util.h"

/* The built-in profile's files: the profile names its config file relative to its own
 * directory, so they are copied together. */
static const char *const builtin_profile_files[] = {"refshard.json", "refshard.config.json"};

/* ${XDG_STATE_HOME:-$HOME/.local/state}/loopbench (new string); the XDG directory is
 * ignored when relative, as its specification says. */
static char *user_state_dir(struct lb_error *err)
{
    const char *state = getenv("XDG_STATE_HOME");
    if (state && plat_path_root_len(state) > 0)
        return path_join(state, "loopbench");
    const char *home = getenv("HOME");
    if (!home || !*home) {
        lb_fail(err, "cannot place the copy of the built-in profile: neither XDG_STATE_HOME nor "
                "HOME is set");
        return NULL;
    }
    return path_join(home, ".local/state/loopbench");
}

/* Bring the user's copy of one installed file up to date: copied when missing or when it
 * differs from the installed one (which changed), unless a journal says a run edits it
 * now or left it edited (restore puts it back). */
static int refresh_copy(const char *installed, const char *copy, struct lb_error *err)
{
    char *want = NULL, *have = NULL, *journal = journal_path_for(copy);
    size_t want_len, have_len;
    int rc = read_file(installed, &want, &want_len, err);
    if (rc == 0 && access(journal, F_OK) != 0 &&
        (read_file(copy, &have, &have_len, NULL) < 0 || have_len != want_len ||
         memcmp(have, want, want_len) != 0))
        rc = write_file_atomic(copy, want, want_len, 0644, err);
    free(want);
    free(have);
    free(journal);
    return rc;
}

/* An installed built-in profile (in dir) runs from a copy in the user's state
 * directory: the config file a run edits must be the user's to write, and the installed
 * files are the package's, never edited. The copy's path (new string). */
static char *installed_profile_copy(const char *dir, struct lb_error *err)
{
    char *state = user_state_dir(err);
    if (!state || mkdir_p(state, 0777, err) < 0) {
        free(state);
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_SIZE(builtin_profile_files); i++) {
        char *installed = path_join(dir, builtin_profile_files[i]);
        char *copy = path_join(state, builtin_profile_files[i]);
        int rc = refresh_copy(installed, copy, err);
        free(installed);
        free(copy);
        if (rc < 0) {
            free(state);
            return NULL;
        }
    }
    char *profile = path_join(state, builtin_profile_files[0]);
    free(state);
    return profile;
}

char *profile_default_path(struct lb_error *err)
{
    char *exe_dir = plat_exe_dir(err);
    if (!exe_dir)
        return NULL;
    /* The build tree first (meson copies profiles/ there, for the build's own use), then
     * the install layout, run from the user's copy. */
    char *build = path_join(exe_dir, "profiles/refshard.json");
    char *installed_dir = path_join(exe_dir, "../share/loopbench/profiles");
    char *installed = path_join(installed_dir, "refshard.json");
    free(exe_dir);
    char *found = NULL;
    if (access(build, F_OK) == 0) {
        found = build;
        build = NULL;
    } else if (access(installed, F_OK) == 0) {
        found = installed_profile_copy(installed_dir, err);
    } else {
        lb_fail(err, "cannot find the built-in profile: neither '%s' nor '%s' exists", build,
                installed);
    }
    free(build);
    free(installed_dir);
    free(installed);
    return found;
}
