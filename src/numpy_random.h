/* numpy_random.h - NumPy's legacy generator: MT19937 + polar Gaussians.
 *
 * Reproduces `np.random.seed(n)` followed by `np.random.randn(...)` bit for
 * bit, which is what lets the lab show the module's own vectors:
 *
 *     >>> import numpy as np; np.random.seed(2)
 *     >>> np.random.randn(3)
 *     array([-0.41675785, -0.05626683, -2.1361961 ])
 *
 * that is -0.4167578474054706, -0.056266827226329474, -2.136196095668454
 * as repr() prints them; tests/test_core.c asserts exactly these values.
 *
 * seed() is MT19937's init_genrand (NumPy's path for an integer seed), and
 * randn() is the legacy Marsaglia polar method, which produces Gaussians in
 * pairs and caches the second one; the cache is part of the state, so the
 * draw order of docs/experiment.md must be followed exactly.
 */
#ifndef POSLAB_NUMPY_RANDOM_H
#define POSLAB_NUMPY_RANDOM_H

#include <stdint.h>

typedef struct {
    uint32_t mt[624];
    int index;
    int has_gauss;
    double gauss;
} numpy_random;

void numpy_random_seed(numpy_random *r, uint32_t seed);
uint32_t numpy_random_uint32(numpy_random *r);
double numpy_random_double(numpy_random *r); /* [0, 1), 53 bits */
double numpy_random_randn(numpy_random *r);
/* Fills out[0..n) as np.random.randn(n) would (any shape, C order). */
void numpy_random_fill_randn(numpy_random *r, double *out, int n);
/* Draws n Gaussians and drops them: the state moves on exactly as after
 * fill_randn(n), for a draw the script makes but nothing uses. */
void numpy_random_skip_randn(numpy_random *r, int n);

#endif
