/* GPT-2-style blocks; see transformer.h. Each line below is one line of the
 * NumPy definition in docs/experiment.md, with the products in the order
 * NumPy forms them (the kernels of attention.c). */
#include "transformer.h"

#include <math.h>
#include <string.h>

#include "attention.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* out (n x d) = each row of x made mean 0 and variance 1: (x - mean) /
 * sqrt(var + 1e-5), population variance as np.var, no gain or shift. */
static void layer_norm(double *out, const double *x, int n, int d) {
    for (int i = 0; i < n; i++) {
        const double *row = x + (long)i * d;
        double *o = out + (long)i * d;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < d; c++) mean += row[c];
        mean /= d;
        for (int c = 0; c < d; c++) var += (row[c] - mean) * (row[c] - mean);
        var /= d;
        double norm = sqrt(var + 1e-5);
        for (int c = 0; c < d; c++) o[c] = (row[c] - mean) / norm;
    }
}

/* GPT-2's GELU in place: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 * tanh(u) is written 1 - 2 / (e^(2u) + 1): only 1 + tanh(u) is used, whose
 * error stays at rounding level this way, and it keeps libm's tanh (about
 * a kilobyte) out of the WebAssembly module. x^3 is v * v * v rather than
 * NumPy's pow(v, 3): at most a unit in the last place apart, 0.044715 times
 * smaller once added to v, and pow was 40% of a WebAssembly run at 16 words,
 * d 64, 4 blocks. */
static void gelu(double *x, int count) {
    const double c = sqrt(2.0 / M_PI);
    for (int i = 0; i < count; i++) {
        double v = x[i];
        double u = c * (v + 0.044715 * (v * v * v));
        x[i] = 0.5 * v * (1 + (1 - 2 / (exp(2 * u) + 1)));
    }
}

/* h += delta: a residual connection. */
static void add_into(double *h, const double *delta, int count) {
    for (int i = 0; i < count; i++) h[i] += delta[i];
}

/* h = X, plus s P for the additive schemes (before the first block, as
 * GPT-2 adds its position table); RoPE and ALiBi act in every block. */
void transformer_begin(const transformer_pass *t) {
    const size_t nd = (size_t)t->n * t->d;
    if (t->scheme == POSLAB_SCHEME_RANDOM || t->scheme == POSLAB_SCHEME_SINUSOIDAL)
        add_scaled(t->h, t->x, t->s, t->p, (int)nd);
    else
        memcpy(t->h, t->x, nd * sizeof(double));
    if (t->scheme == POSLAB_SCHEME_ROPE) rope_angles(t->cosines, t->sines, t->n, t->d / t->heads, t->offset, t->s);
}

void transformer_block(const transformer_pass *t, int b, double *attn, double *scores, double *layers) {
    const int n = t->n, d = t->d, heads = t->heads, width = d / heads;
    const size_t nd = (size_t)n * d, nn = (size_t)n * n;
    double *h = t->h, *ln = t->ln, *q = t->q, *k = t->k, *v = t->v, *att = t->att, *proj = t->proj;
    const double *wq = t->blocks + (size_t)b * TRANSFORMER_BLOCK_WEIGHTS(d);
    const double *wk = wq + (size_t)d * d, *wv = wk + (size_t)d * d, *wo = wv + (size_t)d * d;
    const double *w1 = wo + (size_t)d * d, *w2 = w1 + (size_t)d * 4 * d;

    /* h = h + attention(LN(h)) @ Wo */
    layer_norm(ln, h, n, d);
    matmul(q, ln, wq, n, d, d);
    matmul(k, ln, wk, n, d, d);
    matmul(v, ln, wv, n, d, d);
    for (int hd = 0; hd < heads; hd++) {
        if (t->scheme == POSLAB_SCHEME_ROPE) {
            rope_rotate(q + hd * width, n, width, d, t->cosines, t->sines);
            rope_rotate(k + hd * width, n, width, d, t->cosines, t->sines);
        }
        double *a = attn + hd * nn; /* every block's; the last one's stay */
        attention_scores(a, t->kt, q + hd * width, k + hd * width, n, width, d, t->causal);
        if (t->scheme == POSLAB_SCHEME_ALIBI) alibi_bias(a, n, t->s, poslab_alibi_slope(hd, heads), t->causal);
        if (scores) memcpy(scores + hd * nn, a, nn * sizeof(double));
        attention_apply(att + hd * width, a, v + hd * width, n, width, d, t->causal);
    }
    matmul(proj, att, wo, n, d, d);
    add_into(h, proj, (int)nd);

    /* h = h + gelu(LN(h) @ W1) @ W2 */
    layer_norm(ln, h, n, d);
    matmul(t->hid, ln, w1, n, d, 4 * d);
    gelu(t->hid, (int)(nd * 4));
    matmul(proj, t->hid, w2, n, 4 * d, d);
    add_into(h, proj, (int)nd);

    if (layers) memcpy(layers + (size_t)b * nd, h, nd * sizeof(double));
}

void transformer_end(const transformer_pass *t, double *out) {
    layer_norm(out, t->h, t->n, t->d); /* out = LN(h) */
}

void transformer_forward(const transformer_pass *t, double *out, double *attn, double *scores, double *layers) {
    transformer_begin(t);
    for (int b = 0; b < t->layers; b++) transformer_block(t, b, attn, scores, layers);
    transformer_end(t, out);
}
