/* The numerical kernels; see attention.h. Built with -ffp-contract=off and
 * without fast-math so that every operation rounds as NumPy's does. */
#include "attention.h"
#include "exp_wasm.h"
#include "scalar_loop.h"
#include "poslab.h"

#include <math.h>

/* Four doubles as one value: one AVX2 register, two SSE2 or WebAssembly
   SIMD registers, or four plain doubles without SIMD. Each lane rounds as a
   double does (no FMA: -ffp-contract=off), so the bits are the scalar
   code's. may_alias and aligned(8): it reads and writes rows of doubles. */
typedef double f64x4 __attribute__((vector_size(32), aligned(8), may_alias));

/* Natively (gcc, x86-64) the loops that nearly all the time goes to (the
   weighted sums below, and the products of floats) are also compiled for
   AVX2, one register per f64x4 instead of two, and the CPU picks the
   version when the program loads. Lanes round one by one as
   the scalar code does, and FMA stays off: the same bits on every machine. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_VECTORS
#endif

/* acc[c] += a0 r0[c] + a1 r1[c] + a2 r2[c] + a3 r3[c], added in that order,
   for every c < len. Four rows per pass keep acc[c] in a register instead
   of storing and reloading it after every term; the additions and their
   order are those of one pass per row, so the sums round as NumPy's do. */
static inline void add_four_rows(double *acc, double a0, const double *r0, double a1, const double *r1, double a2,
                                 const double *r2, double a3, const double *r3, int len) {
    for (int c = 0; c < len; c++) {
        double t = acc[c];
        t += a0 * r0[c];
        t += a1 * r1[c];
        t += a2 * r2[c];
        t += a3 * r3[c];
        acc[c] = t;
    }
}

/* Rows of 8, 16 or 24 columns are summed in registers. Other narrow widths
   (the score rows of a 17-word sentence) take the passes of four rows: with
   their last columns in a scalar loop, registers were slower (RoPE, 8 heads:
   1.08x the time in WebAssembly). */
#define NARROW 24

/* acc[c] += coef[p] * rows[p * stride + c] for p = index[0], index[1], ...,
   index[nrows-1] in that order, for every c < len. Narrow rows (a head's 8
   columns at d 64 with 8 heads) stay in registers, eight columns at a time,
   through all the rows: passes of four rows over acc in memory load and
   store it again every four rows, and that traffic with the loops' overhead
   was most of the weighted sums' time there (16 words, 8 heads:
   attention_apply 0.89x the time in WebAssembly). Wide rows (d 512) take
   the passes, which read each row straight through: eight columns at a
   time down rows 4 KB apart were slower there (1.1x). Each acc[c] sees the
   same additions in the same order either way. */
WIDE_VECTORS __attribute__((noinline))
static void accumulate(double *acc, const double *coef, const int *index, const double *rows, long stride, int nrows,
                       int len) {
    int c = 0, r = 0;
    if (len <= NARROW && len % 8 == 0) {
        for (; c + 8 <= len; c += 8) {
            f64x4 *out = (f64x4 *)(acc + c), lo = out[0], hi = out[1];
            for (int k = 0; k < nrows; k++) {
                const double w = coef[index[k]];
                const f64x4 *row = (const f64x4 *)(rows + index[k] * stride + c);
                lo += w * row[0];
                hi += w * row[1];
            }
            out[0] = lo, out[1] = hi;
        }
    } else {
        for (; r + 4 <= nrows; r += 4)
            add_four_rows(acc, coef[index[r]], rows + index[r] * stride, coef[index[r + 1]],
                          rows + index[r + 1] * stride, coef[index[r + 2]], rows + index[r + 2] * stride,
                          coef[index[r + 3]], rows + index[r + 3] * stride, len);
    }
    for (; r < nrows; r++) /* the last rows that passes of four leave */
        for (int t = c; t < len; t++) acc[t] += coef[index[r]] * rows[index[r] * stride + t];
}

/* Loops that only count 0, 1, 2, ... are SCALAR_LOOPs: clang vectorised
   and unrolled them into a kilobyte of the WebAssembly module, for a few
   dozen ints. */

/* Blocks of w for a product of doubles: BLOCK_DEPTH rows by BLOCK_WIDTH
   columns stay in the L2 cache while every row of x passes over them, so
   w is read from memory once, not once per row of x. */
#define BLOCK_DEPTH 64
#define BLOCK_WIDTH 512

/* out (n x m) = x @ w for w of doubles: for each block of w's rows and
   columns, every row of x passes over it; each out[i][j] still sums p in
   order, since the blocks of p come in order and each adds its terms in
   order to what the earlier ones left. */
void product_f64(double *out, const double *x, const void *weights, long ldw, int n, int k, int m) {
    const double *w = weights;
    for (long j = 0; j < (long)n * m; j++) out[j] = 0.0;
    int index[BLOCK_DEPTH];
    SCALAR_LOOP for (int r = 0; r < BLOCK_DEPTH; r++) index[r] = r;
    for (int p = 0; p < k; p += BLOCK_DEPTH) {
        const int depth = k - p < BLOCK_DEPTH ? k - p : BLOCK_DEPTH;
        for (int j = 0; j < m; j += BLOCK_WIDTH) {
            const int width = m - j < BLOCK_WIDTH ? m - j : BLOCK_WIDTH;
            for (int i = 0; i < n; i++)
                accumulate(out + (long)i * m + j, x + (long)i * k + p, index, w + p * ldw + j, ldw, depth, width);
        }
    }
}

/* Four floats as one value, widened to an f64x4 to be multiplied. */
typedef float f32x4 __attribute__((vector_size(16), aligned(4), may_alias));

/* out[i][j0..j0+7] = x @ w for the R rows from x (R <= 4, a constant where
   this is inlined): each of the 8 R sums stays in a register through all k
   terms, so a row of w is read, and widened to doubles, once for R rows
   instead of once per row, and out is written once. */
static inline __attribute__((always_inline)) void tile_f32(double *out, const double *x, const float *w, long ldw,
                                                            int R, int k, int m, int j0) {
    f64x4 lo[4] = {0}, hi[4] = {0};
    const float *wp = w + j0;
    for (int p = 0; p < k; p++, wp += ldw) {
        const f64x4 wl = __builtin_convertvector(*(const f32x4 *)wp, f64x4);
        const f64x4 wh = __builtin_convertvector(*(const f32x4 *)(wp + 4), f64x4);
        for (int r = 0; r < R; r++) {
            const double a = x[(long)r * k + p];
            lo[r] += a * wl;
            hi[r] += a * wh;
        }
    }
    for (int r = 0; r < R; r++) {
        *(f64x4 *)(out + (long)r * m + j0) = lo[r];
        *(f64x4 *)(out + (long)r * m + j0 + 4) = hi[r];
    }
}

/* out (n x m) = x @ w for w of floats: tiles of up to four rows by eight
   columns (tile_f32), then the last m % 8 columns a row at a time. A
   checkpoint's run is mostly widening its float weights, which the tiles
   do once for four rows. */
WIDE_VECTORS
void product_f32(double *out, const double *x, const void *weights, long ldw, int n, int k, int m) {
    const float *w = weights;
    const int wide = m - m % 8;
    for (int j0 = 0; j0 < wide; j0 += 8) {
        for (int i = 0; i < n; i += 4) {
            double *o = out + (long)i * m;
            const double *xi = x + (long)i * k;
            switch (n - i < 4 ? n - i : 4) {
            case 4: tile_f32(o, xi, w, ldw, 4, k, m, j0); break;
            case 3: tile_f32(o, xi, w, ldw, 3, k, m, j0); break;
            case 2: tile_f32(o, xi, w, ldw, 2, k, m, j0); break;
            default: tile_f32(o, xi, w, ldw, 1, k, m, j0); break;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = wide; j < m; j++) {
            double t = 0.0;
            for (int p = 0; p < k; p++) t += x[(long)i * k + p] * (double)w[p * ldw + j];
            out[(long)i * m + j] = t;
        }
}

void add_scaled(double *out, const double *base, double s, const double *delta, int count) {
    for (int i = 0; i < count; i++) out[i] = base[i] + s * delta[i];
}

void attention_scores(double *scores, double *kt, const double *q, const double *k, int n, int width, int ld,
                      int causal) {
    /* K^T, so that the score loop below runs over contiguous j and
       vectorises; each score still sums c = 0..width-1 in order */
    for (int j = 0; j < n; j++)
        for (int c = 0; c < width; c++) kt[(long)c * n + j] = k[(long)j * ld + c];
    int index[BLOCK_DEPTH];
    SCALAR_LOOP for (int r = 0; r < BLOCK_DEPTH; r++) index[r] = r;
    double norm = sqrt((double)width);
    for (int i = 0; i < n; i++) {
        double *row = scores + (long)i * n;
        const double *qi = q + (long)i * ld;
        int visible = causal ? i + 1 : n; /* the mask hides j > i */
        for (int j = 0; j < visible; j++) row[j] = 0.0;
        /* row[j] = sum over c of q[i][c] k[j][c], BLOCK_DEPTH terms at a time in order */
        for (int c = 0; c < width; c += BLOCK_DEPTH)
            accumulate(row, qi + c, index, kt + (long)c * n, n, width - c < BLOCK_DEPTH ? width - c : BLOCK_DEPTH,
                       visible);
        for (int j = 0; j < visible; j++) row[j] /= norm;
        for (int j = visible; j < n; j++) row[j] = -INFINITY;
    }
}

void quadratic_scores(double *scores, const double *s0, const double *s1, const double *s2, double s, int count) {
    double s_squared = s * s;
    for (int i = 0; i < count; i++) scores[i] = s0[i] + s * s1[i] + s_squared * s2[i];
}

/* Under -1075 ln 2 = -745.133..., e^x is below half the smallest
 * subnormal and exp() returns 0; a little margin keeps every x whose
 * result might round up to the smallest subnormal on libm's side. */
#define EXP_ZERO (-745.2)

void attention_apply(double *out, double *attn, const double *v, int n, int width, int ld, int causal) {
    for (int i = 0; i < n; i++) {
        double *row = attn + (long)i * n;
        int visible = causal ? i + 1 : n; /* the mask hides j > i */

        /* the maximum score, subtracted below so that exp cannot overflow */
        double maxval = -INFINITY;
        for (int j = 0; j < visible; j++)
            if (row[j] > maxval) maxval = row[j];
        /* exp and sum. Below EXP_ZERO exp() rounds to 0 anyway (e^x <
           2^-1075), but libm gets there through its slow underflow path,
           which at large magnitudes, where most scores lie far below the
           row's maximum, took half the time of a sweep: so those are set
           to 0 directly. A weight of 0 adds exactly nothing to the sum or
           to the weighted sum of values below, so only the others (`used`)
           are normalised and summed, in order of j: the same bits, less
           work. Masked entries (j >= visible) are 0 as exp(-inf) would be. */
        double sum = 0.0;
        int used[POSLAB_MAX_TOKENS], count = 0;
        for (int j = 0; j < visible; j++) {
            double x = row[j] - maxval;
            if (x < EXP_ZERO) {
                row[j] = 0.0;
                continue;
            }
            row[j] = softmax_exp(x);
            sum += row[j];
            used[count++] = j;
        }
        for (int j = visible; j < n; j++) row[j] = 0.0;
        /* normalise (in one vector loop when nothing underflowed), and
           o[c] = sum over j of row[j] v[j][c] */
        if (count == visible)
            for (int j = 0; j < visible; j++) row[j] /= sum;
        else
            for (int k = 0; k < count; k++) row[used[k]] /= sum;
        double *o = out + (long)i * ld;
        for (int c = 0; c < width; c++) o[c] = 0.0;
        accumulate(o, row, used, v, ld, count, width);
    }
}
