/* One transformer block; see block.h. Each line below is one line of the
 * NumPy definitions in docs/experiment.md, with the products in the order
 * NumPy forms them (the kernels of attention.c), so the drawn blocks agree
 * with NumPy and a checkpoint's with its float64 reference. */
#include "block.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* LN(x): out (n x d) = each row of x made mean 0 and variance 1, (x - mean) /
 * sqrt(var + eps) with the population variance (np.var), then times gain
 * and plus shift where the model has them: an absent one is skipped, not
 * taken as 1 or 0 (adding 0 would turn -0 into +0). */
static void layer_norm(double *out, const double *x, tensor gain, tensor shift, double eps, int n, int d) {
    for (int i = 0; i < n; i++) {
        const double *row = x + (long)i * d;
        double *o = out + (long)i * d;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < d; c++) mean += row[c];
        mean /= d;
        for (int c = 0; c < d; c++) var += (row[c] - mean) * (row[c] - mean);
        var /= d;
        const double norm = sqrt(var + eps);
        for (int c = 0; c < d; c++) o[c] = (row[c] - mean) / norm;
        if (gain.data) gain.type->multiply(o, gain.data, d);
        add_vector(o, shift, d);
    }
}

static inline double tanh_exp(double u) { return 1 - 2 / (exp(2 * u) + 1); }

double block_tanh_exp(double u) { return tanh_exp(u); }

/* GPT-2's GELU in place: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 * with the tanh T. x^3 is v * v * v rather than NumPy's pow(v, 3): at most
 * a unit in the last place apart, 0.044715 times smaller once added to v,
 * and pow was 40% of a WebAssembly run at 16 words, d 64, 4 blocks. */
static inline __attribute__((always_inline)) void gelu_with(double *x, long count, double (*T)(double)) {
    const double c = sqrt(2.0 / M_PI);
    for (long i = 0; i < count; i++) {
        const double v = x[i];
        x[i] = 0.5 * v * (1 + T(c * (v + 0.044715 * (v * v * v))));
    }
}

/* GELU with the kind's tanh; block_tanh_exp is inlined into the loop,
 * since a call through the kind for every element cost a small model's
 * run a tenth of its time in WebAssembly. */
static void gelu(double *x, long count, double (*T)(double)) {
    if (T == block_tanh_exp) gelu_with(x, count, tanh_exp);
    else gelu_with(x, count, T);
}

/* h += delta: a residual connection. */
static void add_into(double *h, const double *delta, long count) {
    for (long i = 0; i < count; i++) h[i] += delta[i];
}

void block_begin(const block_pass *t) {
    const position_scheme *scheme = t->scheme;
    const int d = t->d, pairs = t->d / t->heads / 2;
    long row = 0;
    for (int i = 0; i < t->count; i++) {
        const block_sequence *sq = &t->seq[i];
        const long nd = (long)sq->n * d;
        double *h = t->h + row * d;
        if (scheme->enters == POSITIONS_ADDED) sq->p.type->add_scaled(h, sq->x, t->s, sq->p.data, (int)nd);
        else memcpy(h, sq->x, (size_t)nd * sizeof(double));
        if (scheme->enters == POSITIONS_ROTATED)
            scheme->angles(t->cosines + row * pairs, t->sines + row * pairs, sq->n, d / t->heads, sq->first, t->s);
        row += sq->n;
    }
}

/* h = h + attention(LN(h; ln1)) @ Wo + bo: every sequence's heads attend
 * within it, each with its d/H columns of q, k and v. */
static void attention_part(const block_pass *t, const block_weights *w) {
    const position_scheme *scheme = t->scheme;
    const int rows = t->rows, d = t->d, heads = t->heads, width = d / heads, pairs = width / 2;
    layer_norm(t->ln, t->h, w->ln1_gain, w->ln1_shift, t->kind->eps, rows, d);
    linear(t->q, t->ln, w->wq, w->bq, rows, d, d);
    linear(t->k, t->ln, w->wk, w->bk, rows, d, d);
    linear(t->v, t->ln, w->wv, w->bv, rows, d, d);
    long row = 0;
    for (int i = 0; i < t->count; i++) {
        const block_sequence *sq = &t->seq[i];
        const int n = sq->n;
        const long nn = (long)n * n;
        double *q = t->q + row * d, *k = t->k + row * d;
        for (int hd = 0; hd < heads; hd++) {
            if (scheme->enters == POSITIONS_ROTATED) {
                scheme->rotate(q + hd * width, n, width, d, t->cosines + row * pairs, t->sines + row * pairs);
                scheme->rotate(k + hd * width, n, width, d, t->cosines + row * pairs, t->sines + row * pairs);
            }
            double *a = sq->attn + hd * nn; /* every block's; the last one's stay */
            attention_scores(a, t->kt, q + hd * width, k + hd * width, n, width, d, t->causal);
            if (scheme->enters == POSITIONS_BIAS) scheme->bias(a, n, t->s, hd, heads, t->causal);
            if (sq->scores) memcpy(sq->scores + hd * nn, a, (size_t)nn * sizeof(double));
            attention_apply(t->att + row * d + hd * width, a, t->v + row * d + hd * width, n, width, d, t->causal);
        }
        row += n;
    }
    linear(t->proj, t->att, w->wo, w->bo, rows, d, d);
    add_into(t->h, t->proj, (long)rows * d);
}

void block_part(const block_pass *t, const block_weights *w, int b, int part) {
    const int rows = t->rows, d = t->d;
    if (part == 0) {
        attention_part(t, w);
    } else if (part == 1) { /* hid = gelu(LN(h; ln2) @ W1 + b1) */
        layer_norm(t->ln, t->h, w->ln2_gain, w->ln2_shift, t->kind->eps, rows, d);
        linear(t->hid, t->ln, w->w1, w->b1, rows, d, 4 * d);
        gelu(t->hid, (long)rows * 4 * d, t->kind->tanh);
    } else { /* h = h + hid @ W2 + b2 */
        linear(t->proj, t->hid, w->w2, w->b2, rows, 4 * d, d);
        add_into(t->h, t->proj, (long)rows * d);
        long row = 0;
        for (int i = 0; i < t->count; i++) {
            const block_sequence *sq = &t->seq[i];
            const size_t nd = (size_t)sq->n * d;
            if (sq->layers) memcpy(sq->layers + (size_t)b * nd, t->h + row * d, nd * sizeof(double));
            row += sq->n;
        }
    }
}

void block_forward(const block_pass *t, const block_weights *w, int b) {
    for (int part = 0; part < BLOCK_PARTS; part++) block_part(t, w, b, part);
}

void block_end(const block_pass *t, tensor gain, tensor shift) {
    long row = 0;
    for (int i = 0; i < t->count; i++) {
        const block_sequence *sq = &t->seq[i];
        layer_norm(sq->out, t->h + row * t->d, gain, shift, t->kind->eps, sq->n, t->d);
        row += sq->n;
    }
}
