/* The two models whose weights are drawn (docs/experiment.md "Draws"): the
 * course module's one attention head and GPT-2-style transformer blocks.
 * Both make the draws of np.random.seed / randn in the documented order; the
 * head then forms the products XW (and PW for the additive schemes) once,
 * and forward() produces one scale's outputs from those in O(n^2 d), using
 * (X + sP) W = XW + s PW, rotating XWq and XWk for RoPE, or adding ALiBi's
 * bias to the scores. A slider move or a sweep point is only forward().
 *
 * A sweep goes further where the scores are a polynomial in s: for the
 * additive schemes (XWq + s PWq)(XWk + s PWk)^T / sqrt(d/H) is a quadratic,
 * for ALiBi QK^T / sqrt(d/H) - s m |i - j| is linear. prepare_polynomial
 * forms their coefficient matrices once and each point costs n^2 for the
 * scores instead of n^2 d. The softmax and its product with V(s) are
 * unchanged. Single runs and the threshold keep the direct path, so their
 * figures do not depend on whether a sweep ran; a sweep point may differ
 * from a single run at the same scale in the last bits. */
#include "lab.h"

#include <math.h>
#include <string.h>

#include "attention.h"
#include "block.h"
#include "numpy_random.h"
#include "positions.h"

static const char *token(const poslab_sentence *s, int k) { return s->text + s->offset[k]; }

/* Maps tokens to vocabulary indices in order of first appearance in A, then
 * B: the order in which the word vectors are drawn. Returns the count. */
static int build_vocabulary(const poslab_config *c, int *ids_a, int *ids_b, const char **words) {
    int count = 0;
    const poslab_sentence *s[2] = {&c->a, &c->b};
    int *ids[2] = {ids_a, ids_b};
    for (int w = 0; w < 2; w++) {
        for (int k = 0; k < s[w]->count; k++) {
            const char *t = token(s[w], k);
            int id = 0;
            while (id < count && strcmp(words[id], t)) id++;
            if (id == count) words[count++] = t;
            ids[w][k] = id;
        }
    }
    return count;
}

/* Words to vocabulary indices: the drawn models' tokens. */
static poslab_status drawn_tokens(poslab_lab *lab, const poslab_config *c, int *vocab, char *message,
                                  size_t size) {
    (void)message, (void)size;
    const char *words[2 * POSLAB_MAX_TOKENS];
    *vocab = build_vocabulary(c, lab->a.ids, lab->b.ids, words);
    lab->a.n = c->a.count;
    lab->b.n = c->b.count;
    return POSLAB_OK;
}

/* Both sentences' positions share one table of rows: a sentence's rows are
 * offset .. offset+n-1, so when both start at the same position one set of
 * rows serves both (the longer sentence's), and otherwise B's follow A's. */
static int position_rows(const poslab_config *c) {
    int na = c->a.count, nb = c->b.count;
    return c->offset_a == c->offset_b ? (na > nb ? na : nb) : na + nb;
}

static int side_first_row(const poslab_config *c, int w) {
    return w == 0 || c->offset_a == c->offset_b ? 0 : c->a.count;
}

/* One block's weights, in the order they are drawn: Wq, Wk, Wv, Wo (d x d),
 * W1 (d x 4d), W2 (4d x d), one after another. */
#define BLOCK_WEIGHTS(d) ((size_t)12 * (d) * (d))

/* The buffers of the head (no blocks) or of `blocks` drawn blocks. */
static void drawn_sizes(const poslab_config *c, int n, int vocab, int blocks, size_t sizes[BUFFERS], int *width,
                        int *head_count) {
    const int d = c->dim, heads = c->heads, rows = position_rows(c);
    const size_t nd = (size_t)n * d, nn = (size_t)n * n, layers = (size_t)blocks;
    for (int w = 0; w < 2; w++) {
        size_t *s = sizes + w * SIDE_BUFFERS;
        s[SIDE_XQ] = s[SIDE_XK] = s[SIDE_XV] = s[SIDE_OUT] = s[SIDE_TMP_OUT] = s[SIDE_X] = nd;
        s[SIDE_ATTN] = s[SIDE_SCORES] = s[SIDE_TMP_ATTN] = s[SIDE_S0] = s[SIDE_S1] = s[SIDE_S2] = heads * nn;
        s[SIDE_CROSS] = nn;
        s[SIDE_MEAN] = s[SIDE_TMP_MEAN] = s[SIDE_BAG] = (size_t)d;
        s[SIDE_LAYERS] = layers * nd;
    }
    sizes[BUF_Q] = sizes[BUF_K] = sizes[BUF_V] = sizes[BUF_KT] = nd;
    sizes[BUF_COS] = sizes[BUF_SIN] = (size_t)n * (d / 2);
    sizes[BUF_POS] = sizes[BUF_PWQ] = sizes[BUF_PWK] = sizes[BUF_PWV] = (size_t)rows * d;
    sizes[BUF_VECTORS] = sizes[BUF_VWQ] = sizes[BUF_VWK] = sizes[BUF_VWV] = (size_t)vocab * d;
    sizes[BUF_WQ] = sizes[BUF_WK] = sizes[BUF_WV] = (size_t)d * d;
    sizes[BUF_BLOCKS] = layers * BLOCK_WEIGHTS(d);
    sizes[BUF_H] = sizes[BUF_LN] = sizes[BUF_ATT] = sizes[BUF_PROJ] = layers ? nd : 0;
    sizes[BUF_HID] = layers ? 4 * nd : 0;
    sizes[BUF_LOGITS] = 0;
    *width = d;
    *head_count = heads;
}

static int additive(poslab_scheme scheme) { return position_scheme_of(scheme)->enters == POSITIONS_ADDED; }


/* The random table is randn(offset + n, d) for the further-reaching
 * sentence; its rows are drawn in order and kept where a sentence stands,
 * so a sentence starting at 1000 costs draws, not memory. */
static void draw_table(poslab_lab *lab, const poslab_config *c, numpy_random *rng, int d) {
    const int first[2] = {c->offset_a, c->offset_b}, count[2] = {c->a.count, c->b.count};
    int end = first[0] + count[0] > first[1] + count[1] ? first[0] + count[0] : first[1] + count[1];
    for (int p = 0; p < end; p++) {
        double *row = NULL;
        for (int w = 0; w < 2; w++) {
            if (p < first[w] || p >= first[w] + count[w]) continue;
            double *dest = lab->pos + (size_t)(side_first_row(c, w) + p - first[w]) * d;
            if (!row) numpy_random_fill_randn(rng, row = dest, d);
            else if (dest != row) memcpy(dest, row, (size_t)d * sizeof(double));
        }
        if (!row) numpy_random_skip_randn(rng, d); /* a position no sentence uses */
    }
}

/* count draws of randn() * std / divisor, as NumPy evaluates the
 * expression: left to right. */
static void draw_scaled(numpy_random *rng, double *w, size_t count, double std, double divisor) {
    for (size_t i = 0; i < count; i++) {
        w[i] = numpy_random_randn(rng) * std;
        if (divisor != 1) w[i] /= divisor;
    }
}

/* The draw order of docs/experiment.md: word vectors; Wq, Wk, Wv (the
 * head model) or each block's Wq, Wk, Wv, Wo, W1, W2 at GPT-2's scales
 * (the transformer); the table. */
static void draw(poslab_lab *lab, const poslab_config *c, int d, int vocab, int blocks) {
    numpy_random rng;
    numpy_random_seed(&rng, c->seed);
    numpy_random_fill_randn(&rng, lab->vectors, vocab * d);
    if (blocks) {
        const double std = c->weight_std, deep = sqrt(2.0 * c->layers); /* np.sqrt(2 * L) */
        const size_t dd = (size_t)d * d;
        for (int b = 0; b < c->layers; b++) {
            double *w = lab->blocks + (size_t)b * BLOCK_WEIGHTS(d);
            draw_scaled(&rng, w, 3 * dd, std, 1);        /* Wq, Wk, Wv */
            draw_scaled(&rng, w + 3 * dd, dd, std, deep); /* Wo */
            draw_scaled(&rng, w + 4 * dd, 4 * dd, std, 1); /* W1 */
            draw_scaled(&rng, w + 8 * dd, 4 * dd, std, deep); /* W2 */
        }
    } else {
        numpy_random_fill_randn(&rng, lab->wq, d * d);
        numpy_random_fill_randn(&rng, lab->wk, d * d);
        numpy_random_fill_randn(&rng, lab->wv, d * d);
    }
    const position_scheme *scheme = position_scheme_of(c->scheme);
    if (scheme->table == TABLE_DRAWN) draw_table(lab, c, &rng, d);
    else if (scheme->table == TABLE_FORMULA) {
        if (side_first_row(c, 1) == 0) {
            scheme->formula(lab->pos, c->offset_a, position_rows(c), d);
        } else {
            scheme->formula(lab->pos, c->offset_a, c->a.count, d);
            scheme->formula(lab->pos + (size_t)c->a.count * d, c->offset_b, c->b.count, d);
        }
    }
}

/* Row i of X W is (vector of word i) W, and sentences that start at the
 * same position share their table's rows: so each product is formed once
 * per vocabulary word and once per table row, then shared. */
static void project(poslab_lab *lab, const poslab_config *c, int d, int vocab) {
    product_f64(lab->vwq, lab->vectors, lab->wq, d, vocab, d, d);
    product_f64(lab->vwk, lab->vectors, lab->wk, d, vocab, d, d);
    product_f64(lab->vwv, lab->vectors, lab->wv, d, vocab, d, d);
    if (additive(c->scheme)) {
        int rows = position_rows(c);
        product_f64(lab->pwq, lab->pos, lab->wq, d, rows, d, d);
        product_f64(lab->pwk, lab->pos, lab->wk, d, rows, d, d);
        product_f64(lab->pwv, lab->pos, lab->wv, d, rows, d, d);
    }
}

/* Each sentence's X in its word order (with `projected`, the head's, its
 * rows of the products too), and the order-blind baseline, the mean word
 * vector: all that new words of the same draws need (the model's `place`). */
static void gather(poslab_lab *lab, const poslab_config *c, int projected) {
    const int d = c->dim;
    const size_t row = (size_t)d * sizeof(double);
    side *sides[2] = {&lab->a, &lab->b};
    for (int w = 0; w < 2; w++) {
        side *s = sides[w];
        for (int i = 0; i < s->n; i++) {
            size_t from = (size_t)s->ids[i] * d, to = (size_t)i * d;
            if (projected) {
                memcpy(s->xq + to, lab->vwq + from, row);
                memcpy(s->xk + to, lab->vwk + from, row);
                memcpy(s->xv + to, lab->vwv + from, row);
            }
            memcpy(s->x + to, lab->vectors + from, row);
        }
        size_t first = (size_t)side_first_row(c, w) * d;
        s->pq = lab->pwq + first;
        s->pk = lab->pwk + first;
        s->pv = lab->pwv + first;
        s->p = lab->pos + first;
        column_mean(s->bag, s->x, s->n, d);
    }
}

/* The head: its draws, their products, each sentence's rows of them. */
static void head_load(poslab_lab *lab, const poslab_config *c, int vocab) {
    draw(lab, c, c->dim, vocab, 0);
    project(lab, c, c->dim, vocab);
    gather(lab, c, 1);
}

static void head_place(poslab_lab *lab, const poslab_config *c) { gather(lab, c, 1); }

static void head_sizes(const poslab_lab *lab, const poslab_config *c, int n, int vocab, size_t sizes[BUFFERS],
                       int *width, int *heads) {
    (void)lab;
    drawn_sizes(c, n, vocab, 0, sizes, width, heads);
}

/* The blocks: their draws (their products change with every block). */
static void transformer_load(poslab_lab *lab, const poslab_config *c, int vocab) {
    draw(lab, c, c->dim, vocab, c->layers);
    gather(lab, c, 0);
}

static void transformer_place(poslab_lab *lab, const poslab_config *c) { gather(lab, c, 0); }

static void transformer_sizes(const poslab_lab *lab, const poslab_config *c, int n, int vocab, size_t sizes[BUFFERS],
                              int *width, int *heads) {
    (void)lab;
    drawn_sizes(c, n, vocab, c->layers, sizes, width, heads);
}

static int polynomial(poslab_scheme scheme) { return position_scheme_of(scheme)->score_degree > 0; }


/* The coefficients s0, s1, s2 of one sentence's scores per head (an added
 * table: quadratic; a bias: linear), from the prepared products: for an
 * added table four n x n x d/H products per head, once per sweep. They are formed
 * unmasked so that every entry polynomial_scores reads is set; the mask is
 * applied in attention_apply as in a single run. */
static void prepare_polynomial(poslab_lab *lab, side *sd, poslab_scheme which) {
    const position_scheme *scheme = position_scheme_of(which);
    const int n = sd->n, d = lab->d, heads = lab->heads, width = d / heads;
    const size_t nn = (size_t)n * n;
    for (int h = 0; h < heads; h++) {
        double *s0 = sd->s0 + h * nn, *s1 = sd->s1 + h * nn, *s2 = sd->s2 + h * nn;
        const int at = h * width;
        attention_scores(s0, lab->kt, sd->xq + at, sd->xk + at, n, width, d, 0);
        if (scheme->enters == POSITIONS_BIAS) {
            memset(s1, 0, nn * sizeof(double));
            scheme->bias(s1, n, 1.0, h, heads, 0);
            memset(s2, 0, nn * sizeof(double));
            continue;
        }
        attention_scores(s1, lab->kt, sd->xq + at, sd->pk + at, n, width, d, 0);
        attention_scores(sd->cross, lab->kt, sd->pq + at, sd->xk + at, n, width, d, 0);
        for (size_t i = 0; i < nn; i++) s1[i] += sd->cross[i];
        attention_scores(s2, lab->kt, sd->pq + at, sd->pk + at, n, width, d, 0);
    }
}

static void drawn_begin_sweep(poslab_lab *lab, const poslab_config *c) {
    if (!polynomial(c->scheme)) return;
    prepare_polynomial(lab, &lab->a, c->scheme);
    prepare_polynomial(lab, &lab->b, c->scheme);
}

/* One sentence's outputs at scale s, from the prepared products: each head
 * attends with its own d/H columns of Q, K and V and writes its columns of
 * out. With `polynomial` (a sweep, after prepare_polynomial) the scores come
 * from their polynomial in s instead of from Q(s) K(s)^T. `scores`, when
 * not NULL, keeps each head's scores before the softmax. */
static void forward(poslab_lab *lab, const side *sd, poslab_scheme which, double s, int causal, int polynomial,
                    double *out, double *attn, double *scores, double *mean) {
    const position_scheme *scheme = position_scheme_of(which);
    const int n = sd->n, d = lab->d, heads = lab->heads, width = d / heads;
    const size_t nn = (size_t)n * n;
    const double *q = sd->xq, *k = sd->xk, *v = sd->xv;
    if (scheme->enters == POSITIONS_ADDED) {
        if (!polynomial) {
            add_scaled(lab->q, sd->xq, s, sd->pq, n * d);
            add_scaled(lab->k, sd->xk, s, sd->pk, n * d);
            q = lab->q, k = lab->k;
        }
        add_scaled(lab->v, sd->xv, s, sd->pv, n * d);
        v = lab->v;
    } else if (scheme->enters == POSITIONS_ROTATED) {
        memcpy(lab->q, sd->xq, (size_t)n * d * sizeof(double));
        memcpy(lab->k, sd->xk, (size_t)n * d * sizeof(double));
        /* both sentences usually start at the same position: B reuses A's angles */
        if (!(lab->angles.valid && lab->angles.first == sd->offset && lab->angles.rows >= n &&
              lab->angles.width == width && lab->angles.s == s)) {
            int rows = lab->a.n > lab->b.n ? lab->a.n : lab->b.n;
            scheme->angles(lab->cosines, lab->sines, rows, width, sd->offset, s);
            lab->angles.valid = 1, lab->angles.first = sd->offset, lab->angles.rows = rows;
            lab->angles.width = width, lab->angles.s = s;
        }
        for (int h = 0; h < heads; h++) {
            scheme->rotate(lab->q + h * width, n, width, d, lab->cosines, lab->sines);
            scheme->rotate(lab->k + h * width, n, width, d, lab->cosines, lab->sines);
        }
        q = lab->q, k = lab->k;
    }
    for (int h = 0; h < heads; h++) {
        double *a = attn + h * nn;
        const int at = h * width;
        if (polynomial) {
            quadratic_scores(a, sd->s0 + h * nn, sd->s1 + h * nn, sd->s2 + h * nn, s, (int)nn);
        } else {
            attention_scores(a, lab->kt, q + at, k + at, n, width, d, causal);
            if (scheme->enters == POSITIONS_BIAS) scheme->bias(a, n, s, h, heads, causal);
        }
        if (scores) memcpy(scores + h * nn, a, nn * sizeof(double));
        attention_apply(out + at, a, v + at, n, width, d, causal);
    }
    column_mean(mean, out, n, d);
}

/* The drawn blocks: GPT-2's without biases or LayerNorm gain and shift. */
static const block_kind drawn_block = {.eps = 1e-5, .tanh = block_tanh_exp};

/* One sentence's pass through the drawn blocks at scale s, on the lab's
 * scratch. Its angles take the scratch the head model's memo names. */
static block_pass transformer_of(poslab_lab *lab, const block_sequence *sq, const poslab_config *c, double s) {
    lab->angles.valid = 0;
    return (block_pass){
        .kind = &drawn_block, .d = lab->d, .heads = lab->heads, .causal = c->causal,
        .scheme = position_scheme_of(c->scheme), .s = s, .count = 1, .rows = sq->n, .seq = sq,
        .h = lab->h, .ln = lab->ln, .q = lab->q, .k = lab->k, .v = lab->v, .att = lab->att, .proj = lab->proj,
        .hid = lab->hid, .kt = lab->kt, .cosines = lab->cosines, .sines = lab->sines,
    };
}

/* Block b's weights as drawn (see draw). */
static block_weights drawn_weights(const poslab_lab *lab, int b) {
    const int d = lab->d;
    const double *wq = lab->blocks + (size_t)b * BLOCK_WEIGHTS(d);
    const size_t dd = (size_t)d * d;
    return (block_weights){
        .wq = tensor_f64(wq, d), .wk = tensor_f64(wq + dd, d), .wv = tensor_f64(wq + 2 * dd, d),
        .wo = tensor_f64(wq + 3 * dd, d), .w1 = tensor_f64(wq + 4 * dd, 4 * d), .w2 = tensor_f64(wq + 8 * dd, d),
    };
}

static void head_forward(poslab_lab *lab, const side *sd, const poslab_config *c, double s, int polynomial,
                         double *out, double *attn, double *scores, double *mean, double *layers) {
    (void)layers;
    forward(lab, sd, c->scheme, s, c->causal, polynomial, out, attn, scores, mean);
}


/* The head model in one step. */
static int head_step(poslab_lab *lab, side *sd, const poslab_config *c, double s, int block) {
    (void)block;
    forward(lab, sd, c->scheme, s, c->causal, 0, sd->out, sd->attn, sd->scores, sd->mean);
    return 1;
}

/* The transformer a block a step (its input added before the first, the
 * final LayerNorm after the last). */
static int transformer_step(poslab_lab *lab, side *sd, const poslab_config *c, double s, int block) {
    const block_sequence sq = {.n = sd->n, .first = sd->offset, .x = sd->x, .p = tensor_f64(sd->p, lab->d),
                               .attn = sd->attn, .scores = sd->scores, .layers = sd->layers, .out = sd->out};
    const block_pass t = transformer_of(lab, &sq, c, s);
    const block_weights w = drawn_weights(lab, block);
    if (block == 0) block_begin(&t);
    block_forward(&t, &w, block);
    if (block < c->layers - 1) return 0;
    block_end(&t, (tensor){0}, (tensor){0});
    column_mean(sd->mean, sd->out, sd->n, lab->d);
    return 1;
}

static int no_layers(const poslab_lab *lab, const poslab_config *c) { (void)lab, (void)c; return 0; }
static int drawn_layers(const poslab_lab *lab, const poslab_config *c) { (void)lab; return c->layers; }

const model model_head = {
    .tokens = drawn_tokens, .sizes = head_sizes, .load = head_load, .place = head_place, .layer_count = no_layers,
    .polynomial_sweep = 1, .begin_sweep = drawn_begin_sweep, .forward = head_forward, .step = head_step,
};

const model model_transformer = {
    .tokens = drawn_tokens, .sizes = transformer_sizes, .load = transformer_load, .place = transformer_place,
    .layer_count = drawn_layers,
    .step = transformer_step,
};
