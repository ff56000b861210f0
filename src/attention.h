/* attention.h - the numerical kernels: matrix products, positional
 * signals, masked softmax attention and the comparisons of np.allclose.
 * Each kernel takes its output first and reads like the formula in
 * docs/experiment.md; none allocates. */
#ifndef POSLAB_ATTENTION_H
#define POSLAB_ATTENTION_H

/* out (n x m) = x (n x k) @ w (k x m), all row-major. */
void matmul(double *out, const double *x, const double *w, int n, int k, int m);

/* out (n x m) = base + s * delta, elementwise; the additive schemes use it
 * to move along (X + sP) W = XW + s PW without a new product. */
void add_scaled(double *out, const double *base, double s, const double *delta, int count);

/* pe (n x d): sinusoidal encoding, PE[p, j] = sin or cos of
 * p / 10000^(2 floor(j/2) / d). */
void sinusoidal_encoding(double *pe, int n, int d);

/* Rotates column pairs (2i, 2i+1) of row p of x (n x d) in place by the
 * angle s * p * 10000^(-2i/d): rotary position embedding. */
void rope_rotate(double *x, int n, int d, double s);

/* scores (n x n) = q k^T / sqrt(d) for q, k (n x d); each entry sums
 * c = 0..d-1 in order. With causal only j <= i of row i is written (the rest
 * is masked). kt (d x n) is work space for k transposed. */
void attention_scores(double *scores, double *kt, const double *q, const double *k, int n, int d, int causal);

/* scores (count) = s0 + s s1 + s^2 s2, elementwise: the scores at scale s of
 * the additive schemes, where (XWq + s PWq)(XWk + s PWk)^T is a quadratic in
 * s whose three coefficient matrices a sweep forms once (see experiment.c). */
void quadratic_scores(double *scores, const double *s0, const double *s1, const double *s2, double s, int count);

/* out (n x d) = softmax(attn, masked if causal) @ v, for v (n x d): attn
 * (n x n) holds the scores on entry and the weights on return. */
void attention_apply(double *out, double *attn, const double *v, int n, int d, int causal);

/* out (n x d) = softmax(q k^T / sqrt(d), masked if causal) @ v, with the
 * weights (n x n) written to attn: attention_scores then attention_apply.
 * q, k, v are n x d; kt (d x n) is work space for k transposed. */
void attention_forward(double *out, double *attn, double *kt, const double *q, const double *k,
                       const double *v, int n, int d, int causal);

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
