/* Settings compared through rounds that each run only some of them (an incomplete block
 * design): the additive model value = setting + round + noise, fitted by least squares
 * (the intra-block analysis). Two settings are then compared through every round that
 * links them, directly or through others, not only through the rounds they shared: what
 * tune needs when the lowest of a flat stretch changes hands from look to look. */
#ifndef LOOPBENCH_BLOCKS_H
#define LOOPBENCH_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

struct blocks_fit {
    size_t m;       /* settings */
    double *effect; /* [m]: each setting's effect, NaN for one in no round with another */
    double *chol;   /* [m * m]: the lower Cholesky factor of the information matrix made
                     * invertible (a ones matrix added on each connected set) */
    size_t *part;   /* [m]: which connected set (settings linked through shared rounds) */
    double sigma2;  /* the noise's variance per run, from the residuals */
    double df;      /* its degrees of freedom; 0: nothing to estimate it from */
};

/* Fit runs i < n: setting[i] < m, round[i] any label, value y[i] (finite). A round with
 * a single run tells nothing about settings and is left out. A setting should run at
 * most once a round. Allocates f (blocks_release). */
void blocks_fit(const size_t *setting, const long *round, const double *y, size_t n, size_t m,
                struct blocks_fit *f);
/* Setting a's effect less setting b's and its standard error; false when they are not
 * linked or the noise has no degrees of freedom. */
bool blocks_contrast(const struct blocks_fit *f, size_t a, size_t b, double *est, double *se);
void blocks_release(struct blocks_fit *f);

#endif
