/* The position schemes' table and their arithmetic (positions.h): the
 * sinusoidal table, RoPE's angles and rotation, ALiBi's slopes and bias.
 * Not where a run's time goes, so the WebAssembly build compiles this file
 * for size (CMakeLists.txt), as it does compare.c. */
#define _GNU_SOURCE /* sincos */
#include "positions.h"

#include <math.h>

static const position_scheme schemes[] = {
    [POSLAB_SCHEME_NONE] = {.enters = POSITIONS_NOT},
    [POSLAB_SCHEME_RANDOM] = {.enters = POSITIONS_ADDED, .table = TABLE_DRAWN, .score_degree = 2},
    [POSLAB_SCHEME_SINUSOIDAL] = {.enters = POSITIONS_ADDED, .table = TABLE_FORMULA, .formula = sinusoidal_encoding,
                                  .score_degree = 2},
    [POSLAB_SCHEME_ROPE] = {.enters = POSITIONS_ROTATED, .angles = rope_angles, .rotate = rope_rotate},
    [POSLAB_SCHEME_ALIBI] = {.enters = POSITIONS_BIAS, .bias = alibi_bias, .score_degree = 1},
    [POSLAB_SCHEME_LEARNED] = {.enters = POSITIONS_ADDED, .table = TABLE_MODEL},
};
_Static_assert(sizeof schemes / sizeof schemes[0] == POSLAB_SCHEME_LEARNED + 1, "a row for every scheme");

const position_scheme *position_scheme_of(poslab_scheme scheme) { return &schemes[scheme]; }

void sinusoidal_encoding(double *pe, int first, int n, int d) {
    for (int j = 0; j < d; j++) {
        double freq = pow(10000.0, (double)(2 * (j / 2)) / d);
        for (int i = 0; i < n; i++) {
            double angle = (double)(first + i) / freq, sine, cosine;
            sincos(angle, &sine, &cosine);
            pe[(long)i * d + j] = (j % 2 == 0) ? sine : cosine;
        }
    }
}

void rope_angles(double *cosines, double *sines, int n, int width, int first, double s) {
    const int pairs = width / 2;
    for (int i = 0; i < pairs; i++) {
        double inv_freq = pow(10000.0, -(double)(2 * i) / width);
        for (int r = 0; r < n; r++) {
            double theta = (s * (first + r)) * inv_freq;
            sincos(theta, &sines[(long)r * pairs + i], &cosines[(long)r * pairs + i]);
        }
    }
}

void rope_rotate(double *x, int n, int width, int ld, const double *cosines, const double *sines) {
    const int pairs = width / 2;
    for (int r = 0; r < n; r++) {
        double *row = x + (long)r * ld;
        const double *c = cosines + (long)r * pairs, *sn = sines + (long)r * pairs;
        for (int i = 0; i < pairs; i++) {
            double a = row[2 * i], b = row[2 * i + 1];
            row[2 * i] = a * c[i] - b * sn[i];
            row[2 * i + 1] = a * sn[i] + b * c[i];
        }
    }
}

void alibi_bias(double *scores, int n, double s, int head, int heads, int causal) {
    const double slope = poslab_alibi_slope(head, heads);
    for (int i = 0; i < n; i++) {
        int visible = causal ? i + 1 : n;
        for (int j = 0; j < visible; j++) scores[(long)i * n + j] -= s * slope * fabs((double)(i - j));
    }
}

/* Press et al.'s get_slopes: for a power of two c, slope h (1-based) is
 * 2^(-8h/c); other counts take the slopes of the largest power of two
 * below and then every other slope of twice that. Every slope for up to
 * eight heads is a power of two, so pow() gives it exactly. */
double poslab_alibi_slope(int head, int heads) {
    if (heads < 1 || heads > POSLAB_MAX_HEADS || head < 0 || head >= heads) return NAN;
    int c = 1;
    while (c * 2 <= heads) c *= 2;
    if (head < c) return pow(2.0, -8.0 * (head + 1) / c);
    return pow(2.0, -8.0 * (2 * (head - c) + 1) / (2 * c)); /* get_slopes(2c)[0::2] */
}

poslab_status poslab_sinusoidal_table(int first, int count, int dim, double *out) {
    /* count against the room left after first: first + count could pass
       INT_MAX (undefined) and wrap into the allowed range */
    if (!out || first < 0 || count < 1 || count > POSLAB_MAX_OFFSET + POSLAB_MAX_TOKENS - first || dim < 1 ||
        dim > POSLAB_MAX_DIM)
        return POSLAB_ERR_INPUT;
    sinusoidal_encoding(out, first, count, dim);
    return POSLAB_OK;
}
