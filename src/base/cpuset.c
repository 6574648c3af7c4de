#include "cpuset.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

void cpuset_add(struct cpuset *s, int cpu)
{
    if (cpu >= 0 && cpu < CPUSET_MAX)
        s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

bool cpuset_has(const struct cpuset *s, int cpu)
{
    return cpu >= 0 && cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

size_t cpuset_count(const struct cpuset *s)
{
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
        n += (size_t)__builtin_popcountll(s->bits[i]);
    return n;
}

void cpuset_minus(const struct cpuset *a, const struct cpuset *b, struct cpuset *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(a->bits); i++)
        out->bits[i] = a->bits[i] & ~b->bits[i];
}

bool cpuset_within(const struct cpuset *a, const struct cpuset *b)
{
    for (size_t i = 0; i < ARRAY_SIZE(a->bits); i++)
        if (a->bits[i] & ~b->bits[i])
            return false;
    return true;
}

void cpuset_slice(const struct cpuset *s, size_t parts, size_t k, struct cpuset *out)
{
    memset(out, 0, sizeof(*out));
    size_t n = cpuset_count(s);
    if (parts == 0 || parts > n || k >= parts)
        return;
    size_t base = n / parts, extra = n % parts;
    size_t from = k * base + (k < extra ? k : extra), len = base + (k < extra);
    size_t seen = 0;
    for (int cpu = 0; cpu < CPUSET_MAX && seen < from + len; cpu++) {
        if (!cpuset_has(s, cpu))
            continue;
        if (seen >= from)
            cpuset_add(out, cpu);
        seen++;
    }
}

/* A CPU number at *p, advancing it; -1 when there is none or it is out of range. */
static int cpu_number(const char **p)
{
    if (**p < '0' || **p > '9')
        return -1;
    long n = 0;
    while (**p >= '0' && **p <= '9') {
        n = n * 10 + (**p - '0');
        if (n >= CPUSET_MAX)
            return -1;
        (*p)++;
    }
    return (int)n;
}

int cpuset_parse(const char *text, struct cpuset *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    for (;;) {
        int lo = cpu_number(&p), hi = lo;
        if (lo >= 0 && *p == '-') {
            p++;
            hi = cpu_number(&p);
        }
        if (lo < 0 || hi < lo || (*p != '\0' && *p != ','))
            return lb_fail(err, "'%s': expected CPUs as numbers from 0 to %d and ranges, "
                                "separated by commas (e.g. 1 or 0-3,6)", text, CPUSET_MAX - 1);
        for (int c = lo; c <= hi; c++)
            cpuset_add(out, c);
        if (*p++ == '\0')
            return 0;
    }
}

void cpuset_format(const struct cpuset *s, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++) {
        if (!cpuset_has(s, cpu))
            continue;
        int end = cpu;
        while (cpuset_has(s, end + 1))
            end++;
        int w = end > cpu ? snprintf(buf + len, size > len ? size - len : 0, "%s%d-%d",
                                     len ? "," : "", cpu, end)
                          : snprintf(buf + len, size > len ? size - len : 0, "%s%d",
                                     len ? "," : "", cpu);
        len += w > 0 ? (size_t)w : 0;
        cpu = end;
    }
}
