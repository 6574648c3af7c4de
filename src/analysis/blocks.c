/* The intra-block analysis of an incomplete block design: blocks_fit (blocks.h). */
#include "blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct run_at {
    long round;
    size_t i;
};

/* By round alone: the order of a round's runs changes no sum the fit takes. */
static int cmp_round(const void *a, const void *b)
{
    long x = ((const struct run_at *)a)->round, y = ((const struct run_at *)b)->round;
    return (x > y) - (x < y);
}

static size_t root_of(size_t *parent, size_t s)
{
    while (parent[s] != s)
        s = parent[s] = parent[parent[s]];
    return s;
}

/* a = L L' in place (lower triangle); a is positive definite by construction. */
static void cholesky(double *a, size_t m)
{
    for (size_t j = 0; j < m; j++) {
        double d = a[j * m + j];
        for (size_t k = 0; k < j; k++)
            d -= a[j * m + k] * a[j * m + k];
        a[j * m + j] = sqrt(d > 0 ? d : 1e-300);
        for (size_t i = j + 1; i < m; i++) {
            double v = a[i * m + j];
            for (size_t k = 0; k < j; k++)
                v -= a[i * m + k] * a[j * m + k];
            a[i * m + j] = v / a[j * m + j];
        }
        for (size_t i = 0; i < j; i++)
            a[i * m + j] = 0;
    }
}

/* x = (L L')^-1 x */
static void chol_solve(const double *l, size_t m, double *x)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t k = 0; k < i; k++)
            x[i] -= l[i * m + k] * x[k];
        x[i] /= l[i * m + i];
    }
    for (size_t i = m; i-- > 0;) {
        for (size_t k = i + 1; k < m; k++)
            x[i] -= l[k * m + i] * x[k];
        x[i] /= l[i * m + i];
    }
}

void blocks_fit(const size_t *setting, const long *round, const double *y, size_t n, size_t m,
                struct blocks_fit *f)
{
    memset(f, 0, sizeof(*f));
    f->m = m;
    f->effect = xcalloc(m + 1, sizeof(double));
    f->chol = xcalloc(m * m + 1, sizeof(double));
    f->part = xcalloc(m + 1, sizeof(size_t));
    struct run_at *by = xcalloc(n + 1, sizeof(*by));
    bool *linked = xcalloc(m + 1, sizeof(bool));
    double *q = f->effect, *c = f->chol;
    for (size_t i = 0; i < n; i++)
        by[i] = (struct run_at){round[i], i};
    qsort(by, n, sizeof(*by), cmp_round);
    for (size_t s = 0; s < m; s++)
        f->part[s] = s;
    /* C = sum over rounds of diag(runs) - runs runs' / k; Q = each run less its round's mean */
    size_t used = 0, rounds = 0;
    for (size_t a = 0, b; a < n; a = b) {
        double mean = 0;
        for (b = a; b < n && by[b].round == by[a].round; b++)
            mean += y[by[b].i];
        size_t k = b - a;
        if (k < 2)
            continue;
        mean /= (double)k;
        used += k;
        rounds++;
        for (size_t i = a; i < b; i++) {
            size_t s = setting[by[i].i];
            linked[s] = true;
            q[s] += y[by[i].i] - mean;
            c[s * m + s] += 1;
            for (size_t j = a; j < b; j++)
                c[s * m + setting[by[j].i]] -= 1.0 / (double)k;
            size_t r0 = root_of(f->part, s), r1 = root_of(f->part, setting[by[a].i]);
            f->part[r0] = r1;
        }
    }
    size_t parts = 0;
    for (size_t s = 0; s < m; s++) {
        f->part[s] = root_of(f->part, s);
        parts += linked[s] && f->part[s] == s;
    }
    /* C is singular along each connected set's ones: add them, which leaves every
     * contrast within a set as it was; a setting in no round with another stands alone */
    for (size_t s = 0; s < m; s++)
        for (size_t t = 0; t < m; t++)
            if (linked[s] && linked[t] && f->part[s] == f->part[t])
                c[s * m + t] += 1;
            else if (s == t && !linked[s])
                c[s * m + t] = 1;
    cholesky(c, m);
    chol_solve(c, m, q);
    /* the residuals: each round's effect is its runs' mean less their settings' */
    double rss = 0;
    for (size_t a = 0, b; a < n; a = b) {
        double mean = 0;
        for (b = a; b < n && by[b].round == by[a].round; b++)
            mean += y[by[b].i] - q[setting[by[b].i]];
        if (b - a < 2)
            continue;
        mean /= (double)(b - a);
        for (size_t i = a; i < b; i++) {
            double e = y[by[i].i] - q[setting[by[i].i]] - mean;
            rss += e * e;
        }
    }
    size_t settings = 0;
    for (size_t s = 0; s < m; s++) {
        settings += linked[s];
        if (!linked[s])
            q[s] = NAN;
    }
    double df = (double)used - (double)settings - (double)rounds + (double)parts;
    f->df = df > 0 ? df : 0;
    f->sigma2 = df > 0 ? rss / df : NAN;
    free(by);
    free(linked);
}

bool blocks_contrast(const struct blocks_fit *f, size_t a, size_t b, double *est, double *se)
{
    *est = *se = NAN;
    if (a >= f->m || b >= f->m || isnan(f->effect[a]) || isnan(f->effect[b]) ||
        f->part[a] != f->part[b] || !(f->df > 0))
        return false;
    *est = f->effect[a] - f->effect[b];
    if (a == b) {
        *se = 0;
        return true;
    }
    double *x = xcalloc(f->m, sizeof(double));
    x[a] = 1;
    x[b] = -1;
    chol_solve(f->chol, f->m, x);
    double v = x[a] - x[b];
    free(x);
    *se = sqrt(f->sigma2 * (v > 0 ? v : 0));
    return true;
}

void blocks_release(struct blocks_fit *f)
{
    free(f->effect);
    free(f->chol);
    free(f->part);
    memset(f, 0, sizeof(*f));
}
