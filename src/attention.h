/* attention.h - the numerical kernels: matrix products and masked softmax
 * attention (attention.c) and the comparisons of np.allclose (compare.c);
 * the positional schemes' are in positions.h.
 * Each kernel takes its output first and reads like the formula in
 * docs/experiment.md; none allocates. */
#ifndef POSLAB_ATTENTION_H
#define POSLAB_ATTENTION_H

#include "tensor.h"

/* out (n x m) = x (n x k) @ w (k x m, rows ldw apart; doubles or floats,
 * as a model keeps its weights), x and out row-major: each out[i][j] sums
 * p = 0..k-1 in order from 0. The products of tensor.h's element types. */
void product_f64(double *out, const double *x, const void *w, long ldw, int n, int k, int m);
void product_f32(double *out, const double *x, const void *w, long ldw, int n, int k, int m);

/* out (n x m) = base + s * delta, elementwise; the additive schemes use it
 * to move along (X + sP) W = XW + s PW without a new product. */
void add_scaled(double *out, const double *base, double s, const double *delta, int count);

/* scores (n x n) = q k^T / sqrt(width) for one head: q and k point at the
 * head's first column, rows ld apart, width columns. Each entry sums
 * c = 0..width-1 in order. With causal, entries j > i are -inf (masked).
 * kt (width x n) is work space for k transposed. */
void attention_scores(double *scores, double *kt, const double *q, const double *k, int n, int width, int ld,
                      int causal);
/* scores (count) = s0 + s s1 + s^2 s2, elementwise: the scores at scale s
 * when they are a polynomial in s whose coefficients a sweep forms once
 * (see experiment.c): quadratic for the additive schemes, linear for ALiBi. */
void quadratic_scores(double *scores, const double *s0, const double *s1, const double *s2, double s, int count);
/* One head: out = softmax(attn, masked if causal) @ v, where attn (n x n)
 * holds the scores on entry and the weights on return, and out and v point
 * at the head's first column, rows ld apart, width columns. */
void attention_apply(double *out, double *attn, const double *v, int n, int width, int ld, int causal);
/* np.allclose(a, b, rtol, atol) for vectors of length n: all
 * |a - b| <= atol + rtol * |b| (b is the second argument), NaN never close. */
int allclose(const double *a, const double *b, int n, double rtol, double atol);

/* max |a - b|, NaN if any difference is NaN (as np.max propagates it). */
double max_abs_diff(const double *a, const double *b, int n);

/* a.b / (|a| |b|): NaN for a zero vector. */
double cosine_similarity(const double *a, const double *b, int n);

/* 1 - cosine_similarity(a, b), as computed: can be a tiny negative number. */
double cosine_distance(const double *a, const double *b, int n);

/* mean (d) = x (n x d).mean(axis=0) */
void column_mean(double *mean, const double *x, int n, int d);

#endif
