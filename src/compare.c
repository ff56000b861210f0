/* The comparisons of np.allclose, max |diff| and the cosine distance, and
 * column means (docs/experiment.md, "Comparisons"). */
#include "attention.h"

#include <math.h>

int allclose(const double *a, const double *b, int n, double rtol, double atol) {
    for (int i = 0; i < n; i++) {
        if (isinf(a[i]) || isinf(b[i])) { /* np.isclose: equal infinities are close */
            if (a[i] != b[i]) return 0;
            continue;
        }
        if (!(fabs(a[i] - b[i]) <= atol + rtol * fabs(b[i]))) return 0; /* NaN fails too */
    }
    return 1;
}

double max_abs_diff(const double *a, const double *b, int n) {
    double m = -INFINITY;
    for (int i = 0; i < n; i++) {
        double diff = fabs(a[i] - b[i]);
        if (isnan(diff)) return NAN;
        if (diff > m) m = diff;
    }
    return m;
}

double cosine_similarity(const double *a, const double *b, int n) {
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (int i = 0; i < n; i++) {
        ab += a[i] * b[i];
        aa += a[i] * a[i];
        bb += b[i] * b[i];
    }
    return ab / (sqrt(aa) * sqrt(bb));
}

double cosine_distance(const double *a, const double *b, int n) { return 1.0 - cosine_similarity(a, b, n); }

void column_mean(double *mean, const double *x, int n, int d) {
    for (int c = 0; c < d; c++) mean[c] = 0.0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++) mean[c] += x[(long)i * d + c];
    for (int c = 0; c < d; c++) mean[c] /= n;
}
