/* A host's fingerprint: the facts recorded by run that change what a target costs
 * (docs/results.md, host.fingerprint), hashed into a short id and named for tables, so
 * that campaigns of different hosts are told apart (report groups by it, compare warns
 * across it). Always computed from the facts, never read from a file. */
#ifndef LOOPBENCH_FINGERPRINT_H
#define LOOPBENCH_FINGERPRINT_H

#include <jansson.h>
#include <stddef.h>

#include "platform/platform.h"

#define FINGERPRINT_SHORT_MAX 64

struct host_fingerprint {
    char id[9];                            /* 8 lowercase hex digits */
    char short_name[FINGERPRINT_SHORT_MAX]; /* "EPYC 7B13 x2, 6.18, kvm" */
};

/* The fields hashed, in the order hashed: "cpu_model", "logical_cpus", "kernel",
 * "virtualization", "runner_image". */
extern const char *const fingerprint_fields[];
#define FINGERPRINT_FIELDS 5

/* FNV-1a 64 of "field=value\n" for each field (an unknown one empty), folded to 32 bits
 * (high half xor low half); the short name from the same fields, bounded. */
void fingerprint_compute(const struct plat_host_facts *h, struct host_fingerprint *out);
/* Field f's value as hashed, into buf: "" when unknown. */
void fingerprint_value(const struct plat_host_facts *h, size_t f, char *buf, size_t size);
/* The index of the first field whose values differ between a and b, -1 when none. */
int fingerprint_first_difference(const struct plat_host_facts *a,
                                 const struct plat_host_facts *b);
/* host.fingerprint: {"id", "short", "fields"}. */
json_t *fingerprint_json(const struct host_fingerprint *fp);

#endif
