/* The parts of the platform contract that are the same on every system: built with
 * each back-end. */
#include "platform/platform.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

const char *cpu_source_name(enum cpu_source_kind kind)
{
    static const char *const names[] = {[CPU_SOURCE_AUTO] = "auto",
                                        [CPU_SOURCE_PERF] = "perf-task-clock",
                                        [CPU_SOURCE_TREE] = plat_tree_source_name,
                                        [CPU_SOURCE_PROCESS] = "process-times"};
    return name_of(names, ARRAY_SIZE(names), (size_t)kind);
}

/* "perf" is known everywhere, so that asking for it where there is none fails at the
 * start with the reason, rather than as an unknown word. */
int cpu_source_parse(const char *s, enum cpu_source_kind *out)
{
    static const struct {
        const char *name;
        enum cpu_source_kind kind;
    } names[] = {
        {"auto", CPU_SOURCE_AUTO},
        {"perf", CPU_SOURCE_PERF},
        {"tree", CPU_SOURCE_TREE},
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].kind;
            return 0;
        }
    }
    return -1;
}

enum cpu_source_kind cpu_source_named(const char *s)
{
    for (int k = CPU_SOURCE_AUTO; s && k <= CPU_SOURCE_PROCESS; k++)
        if (strcmp(s, cpu_source_name((enum cpu_source_kind)k)) == 0)
            return (enum cpu_source_kind)k;
    return CPU_SOURCE_AUTO;
}

/* A runner's name from the environment; the job's environment is the user's, so it is
 * held to what a name may be before it reaches a report. */
static char *runner_name(const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v || strlen(v) > PLAT_RUNNER_NAME_MAX || text_control(v))
        return NULL;
    return xstrdup(v);
}

void plat_host_facts_common(struct plat_host_facts *f)
{
    f->cpuidle_driver = plat_cpuidle_driver();
    f->runner_image_os = runner_name("ImageOS");
    f->runner_image_version = runner_name("ImageVersion");
    f->runner_name = runner_name("RUNNER_NAME");
}

void plat_host_facts_release(struct plat_host_facts *f)
{
    FREE_ALL(f->hostname, f->os, f->kernel, f->arch, f->cpu_model, f->clocksource, f->governor,
             f->virtualization, f->cpuidle_driver, f->runner_image_os, f->runner_image_version,
             f->runner_name);
    memset(f, 0, sizeof(*f));
}

bool path_is_within(const char *rel)
{
    if (!*rel || plat_path_root_len(rel) > 0)
        return false;
    for (const char *c = rel; *c;) {
        size_t len = 0;
        while (c[len] && !plat_path_is_separator(c[len]))
            len++;
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return false;
        c += len;
        while (*c && plat_path_is_separator(*c))
            c++;
    }
    return true;
}

const char *path_basename(const char *path)
{
    const char *base = path + plat_path_root_len(path);
    for (const char *c = base; *c; c++)
        if (plat_path_is_separator(*c))
            base = c + 1;
    return base;
}

char *path_dirname(const char *path)
{
    size_t root = plat_path_root_len(path);
    const char *base = path_basename(path);
    if (base == path)
        return xstrdup(".");
    if (base == path + root)
        return xstrndup(path, root);
    return xstrndup(path, (size_t)(base - 1 - path));
}

char *path_join(const char *dir, const char *rel)
{
    if (plat_path_root_len(rel) > 0 || !dir || !*dir)
        return xstrdup(rel);
    size_t dl = strlen(dir);
    if (plat_path_is_separator(dir[dl - 1]))
        return xasprintf("%s%s", dir, rel);
    return xasprintf("%s/%s", dir, rel);
}
