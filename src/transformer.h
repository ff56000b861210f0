/* transformer.h - GPT-2-style blocks (docs/experiment.md, "The transformer
 * model"): one sentence through pre-LayerNorm blocks of multi-head attention
 * with an output projection and a GELU MLP, residual connections and a
 * final LayerNorm. Internal to the core; experiment.c owns the memory. */
#ifndef POSLAB_TRANSFORMER_H
#define POSLAB_TRANSFORMER_H

#include "poslab.h"

/* One block's weights, in the order they are drawn: Wq, Wk, Wv, Wo (d x d),
 * W1 (d x 4d), W2 (4d x d), one after another. */
#define TRANSFORMER_BLOCK_WEIGHTS(d) ((size_t)12 * (d) * (d))

typedef struct {
    int n, d, heads, layers, causal;
    int offset;             /* the position of word 0 */
    poslab_scheme scheme;
    double s;               /* the positional scale */
    const double *x;        /* n x d: the word vectors */
    const double *p;        /* n x d: the positions' rows (additive schemes) */
    const double *blocks;   /* layers x TRANSFORMER_BLOCK_WEIGHTS(d) */
    /* work space: h, ln, q, k, v, att, proj n x d; hid n x 4d; kt d x n;
       cosines and sines n x d/2 */
    double *h, *ln, *q, *k, *v, *att, *proj, *hid, *kt, *cosines, *sines;
} transformer_pass;

/* out (n x d) = LN(h) after every block; attn and scores (heads x n x n)
 * get the last block's weights and scores (scores may be NULL); layers
 * (layers x n x d, may be NULL) gets the residual stream after each block. */
void transformer_forward(const transformer_pass *t, double *out, double *attn, double *scores, double *layers);

/* The same pass in pieces, for a run in steps (poslab_run_step): begin
 * (h = the input), block b = 0, 1, ... in order (as forward's arguments,
 * for block b alone), end (out = LN(h)). The pass's scratch holds h in
 * between, so nothing else may use it until end. */
void transformer_begin(const transformer_pass *t);
void transformer_block(const transformer_pass *t, int b, double *attn, double *scores, double *layers);
void transformer_end(const transformer_pass *t, double *out);

#endif
