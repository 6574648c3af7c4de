#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *fmt_number(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
    else if (v == 0 || fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else {
        int decimals = (int)fmax(0, 2 - floor(log10(fabs(v))));
        snprintf(buf, len, "%.*f", decimals, v);
        /* 9.9999 rounds up to "10.00": one decimal fewer keeps three significant digits */
        if (decimals > 0 && fabs(strtod(buf, NULL)) >= pow(10, 3 - decimals))
            snprintf(buf, len, "%.*f", decimals - 1, v);
    }
    return buf;
}

const char *fmt_change(double f, char *buf, size_t len)
{
    char n[32];
    if (isnan(f))
        snprintf(buf, len, "-");
    else if (isinf(f))
        snprintf(buf, len, "%s", f > 0 ? "+inf" : "-inf");
    else
        snprintf(buf, len, "%s%s%%", f >= 0 ? "+" : "", fmt_number(f * 100.0, n, sizeof(n)));
    return buf;
}

const char *fmt_p(double p, char *buf, size_t len)
{
    char n[32];
    if (isnan(p))
        snprintf(buf, len, "-");
    else if (p < 0.001)
        snprintf(buf, len, "< 0.001");
    else
        snprintf(buf, len, "%s", fmt_number(p, n, sizeof(n)));
    return buf;
}
