/* The transformer block (src/block.h) on several sequences stacked as rows:
 * each sequence's outputs, attention, scores and residual stream must be
 * those of its pass alone, to the bit, for both kinds of blocks (doubles
 * without biases, as drawn; floats with biases, LayerNorm gain and shift
 * and a fused q|k|v matrix, as a checkpoint's) and for a scheme of each
 * entry (added, rotated, a bias, none), with and without the mask.
 * Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"

enum { D = 24, HEADS = 3, LAYERS = 2, MAX_N = 9, SEQS = 3 };
static const int lengths[SEQS] = {5, 9, 2}, firsts[SEQS] = {0, 3, 40};

static int failures, checks;

/* A fixed uniform stream in [-1, 1): the values only need to be varied. */
static unsigned long long state = 88172645463325252ull;
static double uniform(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (double)(state >> 11) * 0x1p-52 - 1.0;
}

/* Weights for both kinds, as one model keeps them. */
static double w64[LAYERS][12 * D * D];
static float w32[LAYERS][12 * D * D], b32[LAYERS][9 * D], ln32[LAYERS][4 * D], final32[2 * D], table32[64 * D];
static double table64[64 * D], x[SEQS][MAX_N * D];

static block_weights weights_of(int kind, int b) {
    if (kind == 0) {
        const double *w = w64[b];
        const int dd = D * D;
        return (block_weights){.wq = tensor_f64(w, D), .wk = tensor_f64(w + dd, D), .wv = tensor_f64(w + 2 * dd, D),
                               .wo = tensor_f64(w + 3 * dd, D), .w1 = tensor_f64(w + 4 * dd, 4 * D),
                               .w2 = tensor_f64(w + 8 * dd, D)};
    }
    const float *w = w32[b], *bias = b32[b], *ln = ln32[b];
    const tensor qkv = tensor_f32(w, 3 * D), qkv_b = tensor_f32(bias, 0);
    return (block_weights){
        .ln1_gain = tensor_f32(ln, 0), .ln1_shift = tensor_f32(ln + D, 0),
        .wq = qkv, .wk = tensor_from(qkv, D), .wv = tensor_from(qkv, 2 * D),
        .bq = qkv_b, .bk = tensor_from(qkv_b, D), .bv = tensor_from(qkv_b, 2 * D),
        .wo = tensor_f32(w + 3 * D * D, D), .bo = tensor_f32(bias + 3 * D, 0),
        .ln2_gain = tensor_f32(ln + 2 * D, 0), .ln2_shift = tensor_f32(ln + 3 * D, 0),
        .w1 = tensor_f32(w + 4 * D * D, 4 * D), .b1 = tensor_f32(bias + 4 * D, 0),
        .w2 = tensor_f32(w + 8 * D * D, D), .b2 = tensor_f32(bias + 8 * D, 0),
    };
}

typedef struct { /* one sequence's outputs */
    double out[MAX_N * D], attn[HEADS * MAX_N * MAX_N], scores[HEADS * MAX_N * MAX_N], layers[LAYERS * MAX_N * D];
} outputs;

/* Sequences from..from+count-1 through every block, stacked. */
static void run(int kind, poslab_scheme scheme, int causal, int from, int count, outputs *o) {
    enum { ROWS = 5 + 9 + 2 };
    static double h[ROWS * D], ln[ROWS * D], q[ROWS * D], k[ROWS * D], v[ROWS * D], att[ROWS * D], proj[ROWS * D],
        hid[ROWS * 4 * D], kt[D * MAX_N], cosines[ROWS * D / 2], sines[ROWS * D / 2];
    const block_kind kinds[2] = {{.eps = 1e-5, .tanh = block_tanh_exp}, {.eps = 1e-5, .tanh = tanh}};
    block_sequence seq[SEQS];
    int rows = 0;
    for (int i = 0; i < count; i++) {
        const int s = from + i;
        const tensor p = kind == 0 ? tensor_f64(table64 + firsts[s] * D, D) : tensor_f32(table32 + firsts[s] * D, D);
        seq[i] = (block_sequence){.n = lengths[s], .first = firsts[s], .x = x[s], .p = p, .attn = o[i].attn,
                                  .scores = o[i].scores, .layers = o[i].layers, .out = o[i].out};
        rows += lengths[s];
    }
    const block_pass t = {.kind = &kinds[kind], .d = D, .heads = HEADS, .causal = causal,
                          .scheme = position_scheme_of(scheme), .s = 0.75, .count = count, .rows = rows, .seq = seq,
                          .h = h, .ln = ln, .q = q, .k = k, .v = v, .att = att, .proj = proj, .hid = hid, .kt = kt,
                          .cosines = cosines, .sines = sines};
    block_begin(&t);
    for (int b = 0; b < LAYERS; b++) {
        const block_weights w = weights_of(kind, b);
        if (kind == 0) block_forward(&t, &w, b);
        else
            for (int part = 0; part < BLOCK_PARTS; part++) block_part(&t, &w, b, part);
    }
    if (kind == 0) block_end(&t, (tensor){0}, (tensor){0});
    else block_end(&t, tensor_f32(final32, 0), tensor_f32(final32 + D, 0));
}

static int same_bits(const double *a, const double *b, size_t count) { return !memcmp(a, b, count * sizeof *a); }

int main(void) {
    for (int b = 0; b < LAYERS; b++) {
        for (int i = 0; i < 12 * D * D; i++) w64[b][i] = 0.3 * uniform(), w32[b][i] = (float)(0.3 * uniform());
        for (int i = 0; i < 9 * D; i++) b32[b][i] = (float)(0.1 * uniform());
        for (int i = 0; i < 4 * D; i++) ln32[b][i] = (float)(i % (2 * D) < D ? 1 + 0.1 * uniform() : 0.1 * uniform());
    }
    for (int i = 0; i < 2 * D; i++) final32[i] = (float)(i < D ? 1 + 0.1 * uniform() : 0.1 * uniform());
    for (int i = 0; i < 64 * D; i++) table64[i] = uniform(), table32[i] = (float)uniform();
    for (int s = 0; s < SEQS; s++)
        for (int i = 0; i < lengths[s] * D; i++) x[s][i] = uniform();

    const poslab_scheme schemes[] = {POSLAB_SCHEME_NONE, POSLAB_SCHEME_RANDOM, POSLAB_SCHEME_ROPE,
                                     POSLAB_SCHEME_ALIBI};
    static outputs alone[SEQS], stacked[SEQS];
    for (int kind = 0; kind < 2; kind++)
        for (size_t m = 0; m < sizeof schemes / sizeof schemes[0]; m++)
            for (int causal = 0; causal < 2; causal++) {
                memset(alone, 0, sizeof alone), memset(stacked, 0, sizeof stacked);
                for (int s = 0; s < SEQS; s++) run(kind, schemes[m], causal, s, 1, &alone[s]);
                run(kind, schemes[m], causal, 0, SEQS, stacked);
                for (int s = 0; s < SEQS; s++) {
                    const size_t n = (size_t)lengths[s];
                    checks++;
                    if (!same_bits(alone[s].out, stacked[s].out, n * D) ||
                        !same_bits(alone[s].attn, stacked[s].attn, HEADS * n * n) ||
                        !same_bits(alone[s].scores, stacked[s].scores, HEADS * n * n) ||
                        !same_bits(alone[s].layers, stacked[s].layers, LAYERS * n * D)) {
                        failures++;
                        printf("not ok: kind %d, scheme %d, causal %d: sequence %d stacked differs from alone\n",
                               kind, (int)schemes[m], causal, s);
                    }
                }
            }
    printf("%d of %d stacked sequences equal their passes alone\n", checks - failures, checks);
    return failures != 0;
}
