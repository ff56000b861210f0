/* attention.h - the numerical kernels: matrix products and masked softmax
 * attention (attention.c), positional signals (positions.c) and the
 * comparisons of np.allclose (compare.c).
 * Each kernel takes its output first and reads like the formula in
 * docs/experiment.md; none allocates. */
#ifndef POSLAB_ATTENTION_H
#define POSLAB_ATTENTION_H

/* out (n x m) = x (n x k) @ w (k x m), all row-major. */
void matmul(double *out, const double *x, const double *w, int n, int k, int m);

/* out (n x m) = base + s * delta, elementwise; the additive schemes use it
 * to move along (X + sP) W = XW + s PW without a new product. */
void add_scaled(double *out, const double *base, double s, const double *delta, int count);

/* pe (n x d): rows first .. first+n-1 of the sinusoidal encoding,
 * PE[p, j] = sin or cos of p / 10000^(2 floor(j/2) / d). */
void sinusoidal_encoding(double *pe, int first, int n, int d);
/* Rotary position embedding's angles for rows that stand at positions
 * first .. first+n-1, for a head of `width` columns: row r, pair i gets
 * theta = s * position * 10000^(-2i/width); cosines and sines are
 * n x (width/2). Every head and both Q and K share them. */
void rope_angles(double *cosines, double *sines, int n, int width, int first, double s);
/* Rotates one head in place by the angles of rope_angles: x points at the
 * head's first column, rows are ld apart, and column pair (2i, 2i+1) of row
 * r turns by theta[r][i]; an odd last column stays. */
void rope_rotate(double *x, int n, int width, int ld, const double *cosines, const double *sines);
/* scores (n x n) = q k^T / sqrt(width) for one head: q and k point at the
 * head's first column, rows ld apart, width columns. Each entry sums
 * c = 0..width-1 in order. With causal, entries j > i are -inf (masked).
 * kt (width x n) is work space for k transposed. */
void attention_scores(double *scores, double *kt, const double *q, const double *k, int n, int width, int ld,
                      int causal);
/* ALiBi: scores[i][j] -= s * slope * |i - j| for every entry the mask
 * leaves (two words' distance does not depend on where the sentence starts). */
void alibi_bias(double *scores, int n, double s, double slope, int causal);
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
