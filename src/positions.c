/* The positional schemes' arithmetic (docs/experiment.md): the sinusoidal
 * table, RoPE's angles and rotation, ALiBi's slopes and bias; declared in
 * attention.h (the slopes, which the page shows, in poslab.h).
 * Not where a run's time goes, so the WebAssembly build compiles this file
 * for size (CMakeLists.txt), as it does compare.c. */
#define _GNU_SOURCE /* sincos */
#include "attention.h"
#include "poslab.h"

#include <math.h>

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

void alibi_bias(double *scores, int n, double s, double slope, int causal) {
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
