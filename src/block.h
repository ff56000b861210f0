/* block.h - one transformer block over a view of its weights, for the
 * drawn GPT-2-style blocks and checkpoints alike (docs/experiment.md, "The
 * transformer model" and "Checkpoints"): pre-LayerNorm multi-head attention
 * with an output projection, then a GELU MLP, each added to the residual
 * stream h. Any number of sequences stacked as rows: the linear layers go
 * over all rows at once, attention over each sequence, so that passes of
 * several sentences or scales can share one product. The positions enter
 * as their scheme's row says (positions.h). Internal to the core; the
 * caller owns the memory. */
#ifndef POSLAB_BLOCK_H
#define POSLAB_BLOCK_H

#include "attention.h"
#include "positions.h"

/* One block's weights, as views (no copies): a tensor absent is no bias,
 * no LayerNorm gain or no shift. q, k and v may be column slices of one
 * fused d x 3d matrix (its ld 3d). */
typedef struct {
    tensor ln1_gain, ln1_shift;   /* d */
    tensor wq, wk, wv;            /* d x d */
    tensor bq, bk, bv;            /* d */
    tensor wo, bo;                /* d x d, d: the attention's output projection */
    tensor ln2_gain, ln2_shift;   /* d */
    tensor w1, b1;                /* d x 4d, 4d */
    tensor w2, b2;                /* 4d x d, d */
} block_weights;

/* What differs between models' blocks besides their weights. */
typedef struct {
    double eps;                   /* LayerNorm's: x / sqrt(var + eps) */
    /* GELU's tanh: how a model's recorded numbers computed it (the drawn
       blocks' as 1 - 2 / (e^(2u) + 1), block_tanh_exp; checkpoints' libm's) */
    double (*tanh)(double);
} block_kind;

/* tanh(u) as 1 - 2 / (e^(2u) + 1): only 1 + tanh(u) is used, whose error
 * stays at rounding level this way, and it keeps libm's tanh out of the
 * main WebAssembly module. */
double block_tanh_exp(double u);

/* One sequence of a pass: its place in the stack and its outputs. */
typedef struct {
    int n, first;                 /* its rows, and the position of the first */
    const double *x;              /* n x d: its word vectors */
    tensor p;                     /* n x d: its rows of an added scheme's table */
    double *attn, *scores;        /* H x n x n: the block's weights and scores (scores may be NULL) */
    double *layers;               /* L x n x d: h after each block (may be NULL) */
    double *out;                  /* n x d: the final LayerNorm of h */
} block_sequence;

/* A pass of `count` sequences, stacked in order (`rows` in all), through
 * the blocks of one model at positional scale s. */
typedef struct {
    const block_kind *kind;
    int d, heads, causal;
    const position_scheme *scheme;
    double s;
    int count, rows;
    const block_sequence *seq;
    /* work space: h, ln, q, k, v, att, proj rows x d; hid rows x 4d;
       kt d x the longest n; cosines and sines rows x d/2 */
    double *h, *ln, *q, *k, *v, *att, *proj, *hid, *kt, *cosines, *sines;
} block_pass;

/* h = each sequence's X, plus s P where the scheme adds a table (as GPT-2
 * adds its position table, before the first block), and a rotating
 * scheme's angles for every row. */
void block_begin(const block_pass *t);

/* Block b on h in BLOCK_PARTS parts of about 4 d^2 multiply-adds a row
 * each, for runs in steps:
 *   0: h = h + (softmax(q k^T / sqrt(d/H), masked) v per head) @ Wo + bo,
 *      with q, k, v = LN(h; ln1) @ Wq + bq, ... (attn and scores);
 *   1: hid = gelu(LN(h; ln2) @ W1 + b1);
 *   2: h = h + hid @ W2 + b2 (layers[b], when given).
 * h, and hid between parts 1 and 2, stay in the pass's work space, so
 * nothing else may use it until block_end. */
enum { BLOCK_PARTS = 3 };
void block_part(const block_pass *t, const block_weights *w, int b, int part);
/* The three parts of block b. */
void block_forward(const block_pass *t, const block_weights *w, int b);

/* Each sequence's out = LN(h; gain, shift) (either may be absent). */
void block_end(const block_pass *t, tensor gain, tensor shift);

#endif
