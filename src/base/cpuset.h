/* Sets of CPUs, as the operator writes them ("0-3,6") and as the platform pins a
 * process tree to them (plat_spawn_opts.cpus, plat_pin_self). */
#ifndef LOOPBENCH_CPUSET_H
#define LOOPBENCH_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define CPUSET_MAX 1024 /* CPUs 0..CPUSET_MAX-1, as glibc's cpu_set_t */

struct cpuset {
    uint64_t bits[CPUSET_MAX / 64];
};

/* "0-3,6" (ranges and single CPUs, separated by commas) into *out; -1 with err naming
 * the text when it is not such a list, is empty, or names a CPU past CPUSET_MAX. */
int cpuset_parse(const char *text, struct cpuset *out, struct lb_error *err);
/* The set as cpuset_parse reads it, ranges folded ("0-3,6"; "" when empty), into buf. */
void cpuset_format(const struct cpuset *s, char *buf, size_t size);

void cpuset_add(struct cpuset *s, int cpu);
bool cpuset_has(const struct cpuset *s, int cpu);
size_t cpuset_count(const struct cpuset *s);
/* a \ b into out (out may be a). */
void cpuset_minus(const struct cpuset *a, const struct cpuset *b, struct cpuset *out);
/* Whether every CPU of a is in b. */
bool cpuset_within(const struct cpuset *a, const struct cpuset *b);
/* The k-th of `parts` slices of s, its CPUs in order, as equal as they go (the first
 * ones get one more when they do not divide). Empty when parts > the CPUs of s. */
void cpuset_slice(const struct cpuset *s, size_t parts, size_t k, struct cpuset *out);

#endif
