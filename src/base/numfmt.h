/* Numbers as every table and sentence of loopbench writes them: a figure to three
 * significant digits, a change, a p. Each writes into buf and returns it. */
#ifndef LOOPBENCH_NUMFMT_H
#define LOOPBENCH_NUMFMT_H

#include <stddef.h>

/* "0.872", "99.5", "1234"; "-" for NaN, "inf", "-inf". */
const char *fmt_number(double v, char *buf, size_t len);
/* A change fraction as "+12.3%"; "-" for NaN, "+inf", "-inf". */
const char *fmt_change(double f, char *buf, size_t len);
/* A p as "0.031" or "< 0.001"; "-" for NaN. */
const char *fmt_p(double p, char *buf, size_t len);

#endif
