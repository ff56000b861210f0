/* The lab: draws, projections, the experiment, its sweep and threshold.
 *
 * A run splits into two stages. prepare() depends only on the words, d, the
 * seed, the scheme, the offsets and the heads: it makes the draws of
 * docs/experiment.md and the products XW (and PW for the additive schemes).
 * forward() then produces one scale's outputs from those in O(n^2 d), using
 * (X + sP) W = XW + s PW, rotating XWq and XWk for RoPE, or adding ALiBi's
 * bias to the scores. A slider move or a sweep point is only forward().
 *
 * A sweep goes further where the scores are a polynomial in s: for the
 * additive schemes (XWq + s PWq)(XWk + s PWk)^T / sqrt(d/H) is a quadratic,
 * for ALiBi QK^T / sqrt(d/H) - s m |i - j| is linear. It forms their
 * coefficient matrices once (prepare_polynomial) and each point costs n^2
 * for the scores instead of n^2 d. The softmax and its product with V(s) are
 * unchanged. Single runs and the threshold keep the direct path, so
 * their figures do not depend on whether a sweep ran; a sweep point may differ
 * from a single run at the same scale in the last bits. */
#include "poslab.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "message.h"
#include "numpy_random.h"
#include "report.h"
#include "transformer.h"

typedef struct { /* one sentence's share of the working memory */
    int n;
    int offset;                     /* the position of word 0 */
    int ids[POSLAB_MAX_TOKENS];     /* vocabulary index of each token */
    double *xq, *xk, *xv;           /* X Wq, X Wk, X Wv        (n x d) */
    const double *pq, *pk, *pv;     /* P Wq, P Wk, P Wv: this sentence's rows of the shared products */
    double *out;                    /* the run at the chosen scale (n x d) */
    double *attn, *scores;          /* its weights and scores, per head (H x n x n) */
    double *mean;                   /* out.mean(axis=0)        (d) */
    double *tmp_out, *tmp_attn, *tmp_mean; /* sweep and bisection points */
    /* The scores of head h at scale s are s0 + s s1 + s^2 s2 (H x n x n),
       for a sweep. Additive schemes: s0 = XWq XWk^T, s1 = XWq PWk^T +
       PWq XWk^T, s2 = PWq PWk^T (head h's columns), each / sqrt(d/H).
       ALiBi: s0 = XWq XWk^T / sqrt(d/H), s1 = -m_h |i - j|, s2 = 0. */
    double *s0, *s1, *s2;
    double *cross;                  /* PWq XWk^T, on its way into s1 (n x n) */
    double *x;                      /* X: the sentence's word vectors (n x d) */
    const double *p;                /* its rows of the position table (n x d), for the transformer */
    double *layers;                 /* the transformer's residual stream after each block (L x n x d) */
    double *bag;                    /* X.mean(axis=0): the baseline (d) */
} side;

/* The working memory, llm.c style: one list of buffers, whose sizes
 * fill_in_sizes computes from n, d and the vocabulary, and which
 * point_buffers sums for the arena and walks to point each buffer at its
 * slice. A new buffer is a name here, a size there and a slot in
 * buffer_slots, so the sizes and the carving cannot disagree. */
enum { /* one sentence's buffers; sentence B's follow A's */
    SIDE_XQ, SIDE_XK, SIDE_XV, SIDE_OUT, SIDE_TMP_OUT, SIDE_X,             /* n x d */
    SIDE_ATTN, SIDE_SCORES, SIDE_TMP_ATTN, SIDE_S0, SIDE_S1, SIDE_S2,     /* H x n x n */
    SIDE_CROSS,                                                            /* n x n */
    SIDE_MEAN, SIDE_TMP_MEAN, SIDE_BAG,                                    /* d */
    SIDE_LAYERS,                                                           /* transformer: L x n x d */
    SIDE_BUFFERS
};
enum { /* the shared buffers, after both sentences' */
    BUF_Q = 2 * SIDE_BUFFERS, BUF_K, BUF_V, BUF_KT,                        /* n x d: one pass's scratch */
    BUF_COS, BUF_SIN,                                                      /* n x d/2: RoPE's angles */
    BUF_POS, BUF_PWQ, BUF_PWK, BUF_PWV,                                    /* rows x d: positions and P W */
    BUF_VECTORS, BUF_VWQ, BUF_VWK, BUF_VWV,                                /* vocab x d: one row per word */
    BUF_WQ, BUF_WK, BUF_WV,                                                /* d x d */
    BUF_BLOCKS,                                                            /* transformer: L x 12 d^2 */
    BUF_H, BUF_LN, BUF_ATT, BUF_PROJ, BUF_HID,                             /* transformer: n x d, n x 4d */
    BUFFERS
};

struct poslab_lab {
    int prepared;                   /* draws and products match `drawn` */
    poslab_config drawn;
    int d, heads;
    int position_rows;              /* rows of pos and P W: see position_rows() */
    side a, b;
    double *q, *k, *v, *kt;         /* scratch for one forward pass */
    double *cosines, *sines;        /* RoPE's angles for one forward pass */
    struct { int valid, first, rows, width; double s; } angles; /* what they hold */
    double *pos, *pwq, *pwk, *pwv;  /* the position table and its products */
    double *vectors, *vwq, *vwk, *vwv; /* the word vectors and theirs */
    double *wq, *wk, *wv;
    double *blocks;                 /* the transformer's weights, block after block */
    double *h, *ln, *att, *proj, *hid; /* scratch for one transformer pass */
    double *arena;
    size_t arena_size;              /* in doubles */

    poslab_pair pairs[POSLAB_MAX_TOKENS];
    poslab_pair layer_pairs[POSLAB_MAX_LAYERS * POSLAB_MAX_TOKENS];
    poslab_pair layer_means[POSLAB_MAX_LAYERS];
    int unpaired_b[POSLAB_MAX_TOKENS];
    int unpaired_b_count, permutation;

    double *sweep_scales, *sweep_cosine;
    unsigned char *sweep_allclose;
    int sweep_capacity;

    /* A run in steps (poslab_run_begin): its config, where it has got to
       (the sweep's points, then each sentence's model, a transformer block
       a step) and the scale of its single run. */
    struct {
        enum { RUN_IDLE, RUN_SWEEP, RUN_SIDE_A, RUN_SIDE_B } phase;
        int at;
        double s;
        poslab_config c;
    } run;

    int have_result;
    poslab_result result;
    strbuf report;
};

static const char *token(const poslab_sentence *s, int k) { return s->text + s->offset[k]; }

static int same_sentence(const poslab_sentence *x, const poslab_sentence *y) {
    if (x->count != y->count) return 0;
    for (int k = 0; k < x->count; k++)
        if (strcmp(token(x, k), token(y, k))) return 0;
    return 1;
}

poslab_lab *poslab_create(void) { return calloc(1, sizeof(poslab_lab)); }

void poslab_destroy(poslab_lab *lab) {
    if (!lab) return;
    free(lab->arena);
    free(lab->sweep_scales);
    free(lab->sweep_cosine);
    free(lab->sweep_allclose);
    strbuf_free(&lab->report);
    free(lab);
}

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

/* The k-th occurrence of a word in A pairs with its k-th occurrence in B. */
static void pair_words(poslab_lab *lab) {
    int used[POSLAB_MAX_TOKENS] = {0};
    side *a = &lab->a, *b = &lab->b;
    for (int i = 0; i < a->n; i++) {
        poslab_pair *p = &lab->pairs[i];
        memset(p, 0, sizeof *p);
        p->index_a = i;
        p->index_b = -1;
        for (int j = 0; j < b->n; j++) {
            if (!used[j] && b->ids[j] == a->ids[i]) {
                used[j] = 1;
                p->index_b = j;
                break;
            }
        }
    }
    lab->unpaired_b_count = 0;
    for (int j = 0; j < b->n; j++)
        if (!used[j]) lab->unpaired_b[lab->unpaired_b_count++] = j;
    lab->permutation = a->n == b->n && lab->unpaired_b_count == 0;
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

static int is_transformer(const poslab_config *c) { return c->model == POSLAB_MODEL_TRANSFORMER; }

static void fill_in_sizes(size_t sizes[BUFFERS], const poslab_config *c, int n, int vocab) {
    const int d = c->dim, heads = c->heads, rows = position_rows(c);
    const size_t nd = (size_t)n * d, nn = (size_t)n * n;
    const size_t layers = is_transformer(c) ? (size_t)c->layers : 0; /* 0: no transformer buffers */
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
    sizes[BUF_BLOCKS] = layers * TRANSFORMER_BLOCK_WEIGHTS(d);
    sizes[BUF_H] = sizes[BUF_LN] = sizes[BUF_ATT] = sizes[BUF_PROJ] = layers ? nd : 0;
    sizes[BUF_HID] = layers ? 4 * nd : 0;
}

/* Where each buffer's pointer lives. */
static void buffer_slots(poslab_lab *lab, double **slot[BUFFERS]) {
    side *sides[2] = {&lab->a, &lab->b};
    for (int w = 0; w < 2; w++) {
        side *sd = sides[w];
        double ***s = slot + w * SIDE_BUFFERS;
        s[SIDE_XQ] = &sd->xq, s[SIDE_XK] = &sd->xk, s[SIDE_XV] = &sd->xv;
        s[SIDE_OUT] = &sd->out, s[SIDE_TMP_OUT] = &sd->tmp_out, s[SIDE_X] = &sd->x;
        s[SIDE_ATTN] = &sd->attn, s[SIDE_SCORES] = &sd->scores, s[SIDE_TMP_ATTN] = &sd->tmp_attn;
        s[SIDE_S0] = &sd->s0, s[SIDE_S1] = &sd->s1, s[SIDE_S2] = &sd->s2, s[SIDE_CROSS] = &sd->cross;
        s[SIDE_MEAN] = &sd->mean, s[SIDE_TMP_MEAN] = &sd->tmp_mean, s[SIDE_BAG] = &sd->bag;
        s[SIDE_LAYERS] = &sd->layers;
    }
    slot[BUF_Q] = &lab->q, slot[BUF_K] = &lab->k, slot[BUF_V] = &lab->v, slot[BUF_KT] = &lab->kt;
    slot[BUF_COS] = &lab->cosines, slot[BUF_SIN] = &lab->sines;
    slot[BUF_POS] = &lab->pos, slot[BUF_PWQ] = &lab->pwq, slot[BUF_PWK] = &lab->pwk, slot[BUF_PWV] = &lab->pwv;
    slot[BUF_VECTORS] = &lab->vectors, slot[BUF_VWQ] = &lab->vwq, slot[BUF_VWK] = &lab->vwk, slot[BUF_VWV] = &lab->vwv;
    slot[BUF_WQ] = &lab->wq, slot[BUF_WK] = &lab->wk, slot[BUF_WV] = &lab->wv;
    slot[BUF_BLOCKS] = &lab->blocks;
    slot[BUF_H] = &lab->h, slot[BUF_LN] = &lab->ln, slot[BUF_ATT] = &lab->att, slot[BUF_PROJ] = &lab->proj;
    slot[BUF_HID] = &lab->hid;
}

/* Grows the arena to the sum of the sizes and points every buffer at its
 * slice of it. */
static poslab_status point_buffers(poslab_lab *lab, const poslab_config *c, int n, int vocab) {
    size_t sizes[BUFFERS], need = 0;
    double **slot[BUFFERS] = {0};
    fill_in_sizes(sizes, c, n, vocab);
    for (int i = 0; i < BUFFERS; i++) need += sizes[i];
    if (need > lab->arena_size) {
        double *grown = realloc(lab->arena, need * sizeof(double));
        if (!grown) return POSLAB_ERR_NOMEM;
        lab->arena = grown;
        lab->arena_size = need;
    }
    buffer_slots(lab, slot);
    double *at = lab->arena;
    for (int i = 0; i < BUFFERS; i++) {
        assert(slot[i]); /* every buffer has a slot */
        *slot[i] = at;
        at += sizes[i];
    }
    return POSLAB_OK;
}

/* Whether the lab holds the draws and products of c already: they depend
 * only on the words, d, the seed, the scheme, the offsets, the heads (which
 * size the per-head buffers) and the model with its blocks and weight scale. */
static int is_prepared(const poslab_lab *lab, const poslab_config *c) {
    const poslab_config *p = &lab->drawn;
    return lab->prepared && p->dim == c->dim && p->seed == c->seed && p->scheme == c->scheme &&
           p->offset_a == c->offset_a && p->offset_b == c->offset_b && p->heads == c->heads &&
           p->model == c->model && p->layers == c->layers && p->weight_std == c->weight_std &&
           same_sentence(&p->a, &c->a) && same_sentence(&p->b, &c->b);
}

static int additive(poslab_scheme scheme) {
    return scheme == POSLAB_SCHEME_RANDOM || scheme == POSLAB_SCHEME_SINUSOIDAL;
}

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
        if (!row) numpy_random_fill_randn(rng, lab->q, d); /* a position no sentence uses */
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
static void draw(poslab_lab *lab, const poslab_config *c, int d, int vocab) {
    numpy_random rng;
    numpy_random_seed(&rng, c->seed);
    numpy_random_fill_randn(&rng, lab->vectors, vocab * d);
    if (is_transformer(c)) {
        const double std = c->weight_std, deep = sqrt(2.0 * c->layers); /* np.sqrt(2 * L) */
        const size_t dd = (size_t)d * d;
        for (int b = 0; b < c->layers; b++) {
            double *w = lab->blocks + (size_t)b * TRANSFORMER_BLOCK_WEIGHTS(d);
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
    if (c->scheme == POSLAB_SCHEME_RANDOM) draw_table(lab, c, &rng, d);
    else if (c->scheme == POSLAB_SCHEME_SINUSOIDAL) {
        if (side_first_row(c, 1) == 0) {
            sinusoidal_encoding(lab->pos, c->offset_a, position_rows(c), d);
        } else {
            sinusoidal_encoding(lab->pos, c->offset_a, c->a.count, d);
            sinusoidal_encoding(lab->pos + (size_t)c->a.count * d, c->offset_b, c->b.count, d);
        }
    }
}

/* Row i of X W is (vector of word i) W, and sentences that start at the
 * same position share their table's rows: so each product is formed once
 * per vocabulary word and once per table row, then shared. */
static void project(poslab_lab *lab, const poslab_config *c, int d, int vocab) {
    if (is_transformer(c)) return; /* its products change with every block */
    matmul(lab->vwq, lab->vectors, lab->wq, vocab, d, d);
    matmul(lab->vwk, lab->vectors, lab->wk, vocab, d, d);
    matmul(lab->vwv, lab->vectors, lab->wv, vocab, d, d);
    if (additive(c->scheme)) {
        int rows = position_rows(c);
        matmul(lab->pwq, lab->pos, lab->wq, rows, d, d);
        matmul(lab->pwk, lab->pos, lab->wk, rows, d, d);
        matmul(lab->pwv, lab->pos, lab->wv, rows, d, d);
    }
}

/* Each sentence's rows of the products, in its word order, and its X for
 * the order-blind baseline with that baseline, the mean word vector. */
static void gather(poslab_lab *lab, const poslab_config *c, int d) {
    const size_t row = (size_t)d * sizeof(double);
    side *sides[2] = {&lab->a, &lab->b};
    for (int w = 0; w < 2; w++) {
        side *s = sides[w];
        for (int i = 0; i < s->n; i++) {
            size_t from = (size_t)s->ids[i] * d, to = (size_t)i * d;
            if (!is_transformer(c)) {
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

/* Draws the vectors and weights of c and forms the products XW (and PW). */
static poslab_status prepare(poslab_lab *lab, const poslab_config *c) {
    if (is_prepared(lab, c)) return POSLAB_OK;
    lab->prepared = 0;
    lab->have_result = 0; /* the arena is about to be reused */
    lab->angles.valid = 0;

    const int d = c->dim, na = c->a.count, nb = c->b.count;
    const int n = na > nb ? na : nb;
    const char *words[2 * POSLAB_MAX_TOKENS];
    int vocab = build_vocabulary(c, lab->a.ids, lab->b.ids, words);
    poslab_status st = point_buffers(lab, c, n, vocab);
    if (st != POSLAB_OK) return st;
    lab->a.n = na;
    lab->b.n = nb;
    lab->a.offset = c->offset_a;
    lab->b.offset = c->offset_b;
    draw(lab, c, d, vocab);
    project(lab, c, d, vocab);
    gather(lab, c, d);
    lab->d = d;
    lab->heads = c->heads;
    pair_words(lab);
    lab->drawn = *c;
    lab->prepared = 1;
    return POSLAB_OK;
}

static int polynomial(poslab_scheme scheme) { return additive(scheme) || scheme == POSLAB_SCHEME_ALIBI; }

/* Whether c's sweep takes its scores from the polynomial: not through the
 * transformer's blocks, since LayerNorm is not linear. */
static int sweep_is_polynomial(const poslab_config *c) { return polynomial(c->scheme) && !is_transformer(c); }

/* The coefficients s0, s1, s2 of one sentence's scores per head (additive
 * schemes and ALiBi), from the prepared products: for the additive schemes
 * four n x n x d/H products per head, once per sweep. They are formed
 * unmasked so that every entry polynomial_scores reads is set; the mask is
 * applied in attention_apply as in a single run. */
static void prepare_polynomial(poslab_lab *lab, side *sd, poslab_scheme scheme) {
    const int n = sd->n, d = lab->d, heads = lab->heads, width = d / heads;
    const size_t nn = (size_t)n * n;
    for (int h = 0; h < heads; h++) {
        double *s0 = sd->s0 + h * nn, *s1 = sd->s1 + h * nn, *s2 = sd->s2 + h * nn;
        const int at = h * width;
        attention_scores(s0, lab->kt, sd->xq + at, sd->xk + at, n, width, d, 0);
        if (scheme == POSLAB_SCHEME_ALIBI) {
            memset(s1, 0, nn * sizeof(double));
            alibi_bias(s1, n, 1.0, poslab_alibi_slope(h, heads), 0);
            memset(s2, 0, nn * sizeof(double));
            continue;
        }
        attention_scores(s1, lab->kt, sd->xq + at, sd->pk + at, n, width, d, 0);
        attention_scores(sd->cross, lab->kt, sd->pq + at, sd->xk + at, n, width, d, 0);
        for (size_t i = 0; i < nn; i++) s1[i] += sd->cross[i];
        attention_scores(s2, lab->kt, sd->pq + at, sd->pk + at, n, width, d, 0);
    }
}

/* One sentence's outputs at scale s, from the prepared products: each head
 * attends with its own d/H columns of Q, K and V and writes its columns of
 * out. With `polynomial` (a sweep, after prepare_polynomial) the scores come
 * from their polynomial in s instead of from Q(s) K(s)^T. `scores`, when
 * not NULL, keeps each head's scores before the softmax. */
static void forward(poslab_lab *lab, const side *sd, poslab_scheme scheme, double s, int causal, int polynomial,
                    double *out, double *attn, double *scores, double *mean) {
    const int n = sd->n, d = lab->d, heads = lab->heads, width = d / heads;
    const size_t nn = (size_t)n * n;
    const double *q = sd->xq, *k = sd->xk, *v = sd->xv;
    if (additive(scheme)) {
        if (!polynomial) {
            add_scaled(lab->q, sd->xq, s, sd->pq, n * d);
            add_scaled(lab->k, sd->xk, s, sd->pk, n * d);
            q = lab->q, k = lab->k;
        }
        add_scaled(lab->v, sd->xv, s, sd->pv, n * d);
        v = lab->v;
    } else if (scheme == POSLAB_SCHEME_ROPE) {
        memcpy(lab->q, sd->xq, (size_t)n * d * sizeof(double));
        memcpy(lab->k, sd->xk, (size_t)n * d * sizeof(double));
        /* both sentences usually start at the same position: B reuses A's angles */
        if (!(lab->angles.valid && lab->angles.first == sd->offset && lab->angles.rows >= n &&
              lab->angles.width == width && lab->angles.s == s)) {
            int rows = lab->a.n > lab->b.n ? lab->a.n : lab->b.n;
            rope_angles(lab->cosines, lab->sines, rows, width, sd->offset, s);
            lab->angles.valid = 1, lab->angles.first = sd->offset, lab->angles.rows = rows;
            lab->angles.width = width, lab->angles.s = s;
        }
        for (int h = 0; h < heads; h++) {
            rope_rotate(lab->q + h * width, n, width, d, lab->cosines, lab->sines);
            rope_rotate(lab->k + h * width, n, width, d, lab->cosines, lab->sines);
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
            if (scheme == POSLAB_SCHEME_ALIBI) alibi_bias(a, n, s, poslab_alibi_slope(h, heads), causal);
        }
        if (scores) memcpy(scores + h * nn, a, nn * sizeof(double));
        attention_apply(out + at, a, v + at, n, width, d, causal);
    }
    column_mean(mean, out, n, d);
}

/* One sentence's transformer pass at scale s, on the lab's scratch (see
 * transformer.h). Its angles take the scratch the head model's memo names. */
static transformer_pass transformer_of(poslab_lab *lab, const side *sd, const poslab_config *c, double s) {
    lab->angles.valid = 0;
    return (transformer_pass){
        .n = sd->n, .d = lab->d, .heads = lab->heads, .layers = c->layers, .causal = c->causal,
        .offset = sd->offset, .scheme = c->scheme, .s = s, .x = sd->x, .p = sd->p, .blocks = lab->blocks,
        .h = lab->h, .ln = lab->ln, .q = lab->q, .k = lab->k, .v = lab->v, .att = lab->att, .proj = lab->proj,
        .hid = lab->hid, .kt = lab->kt, .cosines = lab->cosines, .sines = lab->sines,
    };
}

/* One sentence through the transformer at scale s. */
static void transformer(poslab_lab *lab, const side *sd, const poslab_config *c, double s, double *out,
                        double *attn, double *scores, double *mean, double *layers) {
    const transformer_pass t = transformer_of(lab, sd, c, s);
    transformer_forward(&t, out, attn, scores, layers);
    column_mean(mean, out, sd->n, lab->d);
}

/* One sentence at scale s through c's model. */
static void run_model(poslab_lab *lab, const side *sd, const poslab_config *c, double s, int polynomial,
                      double *out, double *attn, double *scores, double *mean, double *layers) {
    if (is_transformer(c)) transformer(lab, sd, c, s, out, attn, scores, mean, layers);
    else forward(lab, sd, c->scheme, s, c->causal, polynomial, out, attn, scores, mean);
}

static void compare(poslab_pair *p, const double *a, const double *b, int d, const poslab_config *c) {
    p->allclose = allclose(a, b, d, c->rtol, c->atol);
    p->max_abs_diff = max_abs_diff(a, b, d);
    p->cosine_distance = cosine_distance(a, b, d);
}

/* Both sentences at scale s into the tmp buffers. */
static void forward_both_tmp(poslab_lab *lab, const poslab_config *c, double s, int polynomial) {
    run_model(lab, &lab->a, c, s, polynomial, lab->a.tmp_out, lab->a.tmp_attn, NULL, lab->a.tmp_mean, NULL);
    run_model(lab, &lab->b, c, s, polynomial, lab->b.tmp_out, lab->b.tmp_attn, NULL, lab->b.tmp_mean, NULL);
}

/* One sweep point: row 0 of the sweep arrays is the mean, row 1 + i pair i. */
static void record(poslab_lab *lab, int row, int t, const double *a, const double *b, const poslab_config *c) {
    size_t at = (size_t)row * c->sweep_count + t;
    lab->sweep_allclose[at] = (unsigned char)allclose(a, b, lab->d, c->rtol, c->atol);
    lab->sweep_cosine[at] = cosine_distance(a, b, lab->d);
}

/* Room for c's sweep, and the polynomial's coefficients where it uses them. */
static poslab_status begin_sweep(poslab_lab *lab, const poslab_config *c) {
    const int count = c->sweep_count;
    const size_t rows = 1 + POSLAB_MAX_TOKENS; /* room for the mean and any pairs */
    if (count > lab->sweep_capacity) {
        int cap = count > 121 ? count : 121;
        double *scales = realloc(lab->sweep_scales, (size_t)cap * sizeof *scales);
        if (scales) lab->sweep_scales = scales;
        double *cosine = realloc(lab->sweep_cosine, rows * cap * sizeof *cosine);
        if (cosine) lab->sweep_cosine = cosine;
        unsigned char *close = realloc(lab->sweep_allclose, rows * cap);
        if (close) lab->sweep_allclose = close;
        if (!scales || !cosine || !close) return POSLAB_ERR_NOMEM;
        lab->sweep_capacity = cap;
    }
    if (sweep_is_polynomial(c)) {
        prepare_polynomial(lab, &lab->a, c->scheme);
        prepare_polynomial(lab, &lab->b, c->scheme);
    }
    return POSLAB_OK;
}

/* Point t of c's sweep, log-spaced with both ends exact. */
static void sweep_point(poslab_lab *lab, const poslab_config *c, int t) {
    const int count = c->sweep_count, d = lab->d;
    double l0 = log10(c->sweep_lo), l1 = log10(c->sweep_hi);
    double s = t == 0 ? c->sweep_lo
             : t == count - 1 ? c->sweep_hi
             : pow(10.0, l0 + t * ((l1 - l0) / (count - 1)));
    lab->sweep_scales[t] = s;
    /* without positions nothing depends on the scale: one point serves all */
    if (c->scheme == POSLAB_SCHEME_NONE && t > 0) {
        for (int row = 0; row <= lab->a.n; row++) {
            size_t at = (size_t)row * count;
            lab->sweep_cosine[at + t] = lab->sweep_cosine[at];
            lab->sweep_allclose[at + t] = lab->sweep_allclose[at];
        }
        return;
    }
    forward_both_tmp(lab, c, s, sweep_is_polynomial(c));
    record(lab, 0, t, lab->a.tmp_mean, lab->b.tmp_mean, c);
    for (int i = 0; i < lab->a.n; i++) {
        int j = lab->pairs[i].index_b;
        if (j >= 0) record(lab, 1 + i, t, lab->a.tmp_out + (size_t)i * d, lab->b.tmp_out + (size_t)j * d, c);
    }
}

/* The residual stream after each block, compared like the outputs: its
 * words pair as the outputs' do, and its means are the means of its rows. */
static void compare_layers(poslab_lab *lab, const poslab_config *c, int layer_count) {
    const int d = lab->d, na = lab->a.n, nb = lab->b.n;
    for (int l = 0; l < layer_count; l++) {
        const double *ha = lab->a.layers + (size_t)l * na * d, *hb = lab->b.layers + (size_t)l * nb * d;
        for (int i = 0; i < na; i++) {
            poslab_pair *p = &lab->layer_pairs[l * na + i];
            *p = lab->pairs[i];
            if (p->index_b >= 0) compare(p, ha + (size_t)i * d, hb + (size_t)p->index_b * d, d, c);
        }
        poslab_pair *m = &lab->layer_means[l];
        m->index_a = m->index_b = -1;
        column_mean(lab->a.tmp_mean, ha, na, d);
        column_mean(lab->b.tmp_mean, hb, nb, d);
        compare(m, lab->a.tmp_mean, lab->b.tmp_mean, d, c);
    }
}

/* One step of sentence sd's run at the chosen scale: the head model whole,
 * the transformer one block (its input added before the first, the final
 * LayerNorm after the last). Returns whether the sentence is done. */
static int side_step(poslab_lab *lab, side *sd, const poslab_config *c, double s, int block) {
    if (!is_transformer(c)) {
        forward(lab, sd, c->scheme, s, c->causal, 0, sd->out, sd->attn, sd->scores, sd->mean);
        return 1;
    }
    const transformer_pass t = transformer_of(lab, sd, c, s);
    if (block == 0) transformer_begin(&t);
    transformer_block(&t, block, sd->attn, sd->scores, sd->layers);
    if (block < c->layers - 1) return 0;
    transformer_end(&t, sd->out);
    column_mean(sd->mean, sd->out, sd->n, lab->d);
    return 1;
}

/* The comparisons of a finished run, into lab->result. */
static void finish_run(poslab_lab *lab, const poslab_config *c, double s) {
    const int d = lab->d;
    for (int i = 0; i < lab->a.n; i++) {
        poslab_pair *p = &lab->pairs[i];
        if (p->index_b >= 0)
            compare(p, lab->a.out + (size_t)i * d, lab->b.out + (size_t)p->index_b * d, d, c);
    }
    const int layer_count = is_transformer(c) ? c->layers : 0;
    compare_layers(lab, c, layer_count);

    poslab_result *r = &lab->result;
    memset(r, 0, sizeof *r);
    r->config = *c;
    r->config.scale = s;
    r->config.scale_given = 1;
    r->len_a = lab->a.n;
    r->len_b = lab->b.n;
    r->dim = d;
    r->pair_count = lab->a.n;
    r->pairs = lab->pairs;
    r->mean.index_a = r->mean.index_b = -1;
    compare(&r->mean, lab->a.mean, lab->b.mean, d, c);
    r->baseline.index_a = r->baseline.index_b = -1;
    compare(&r->baseline, lab->a.bag, lab->b.bag, d, c);
    r->baseline_cosine_similarity = cosine_similarity(lab->a.bag, lab->b.bag, d);
    r->permutation = lab->permutation;
    r->unpaired_b_count = lab->unpaired_b_count;
    r->unpaired_b = lab->unpaired_b;
    r->output_a = lab->a.out;
    r->output_b = lab->b.out;
    r->heads = lab->heads;
    r->attention_a = lab->a.attn;
    r->attention_b = lab->b.attn;
    r->scores_a = lab->a.scores;
    r->scores_b = lab->b.scores;
    r->layer_count = layer_count;
    r->layer_pairs = lab->layer_pairs;
    r->layer_means = lab->layer_means;
    r->sweep_count = c->sweep_count;
    r->sweep_scales = lab->sweep_scales;
    r->sweep_cosine = lab->sweep_cosine;
    r->sweep_allclose = lab->sweep_allclose;
    lab->have_result = 1;
}

poslab_status poslab_run_begin(poslab_lab *lab, const poslab_config *c, char *message, size_t size) {
    if (!lab || !c) return fail(message, size, POSLAB_ERR_INPUT, "poslab_run: no lab or no config");
    lab->run.phase = RUN_IDLE;
    poslab_status st = poslab_config_check(c, message, size);
    if (st != POSLAB_OK) return st;
    lab->have_result = 0;
    st = prepare(lab, c);
    if (st == POSLAB_OK && c->sweep_count > 0) st = begin_sweep(lab, c);
    if (st != POSLAB_OK) return fail(message, size, st, "%s", poslab_status_text(st));
    lab->run.c = *c;
    lab->run.s = poslab_config_scale(c);
    lab->run.at = 0;
    lab->run.phase = c->sweep_count > 0 ? RUN_SWEEP : RUN_SIDE_A;
    return POSLAB_OK;
}

poslab_status poslab_run_step(poslab_lab *lab, char *message, size_t size) {
    if (!lab || lab->run.phase == RUN_IDLE)
        return fail(message, size, POSLAB_ERR_STATE, "poslab_run_step: no run begun (poslab_run_begin)");
    const poslab_config *c = &lab->run.c;
    switch (lab->run.phase) {
    case RUN_SWEEP:
        sweep_point(lab, c, lab->run.at++);
        if (lab->run.at == c->sweep_count) lab->run.phase = RUN_SIDE_A, lab->run.at = 0;
        return POSLAB_RUNNING;
    case RUN_SIDE_A:
        if (side_step(lab, &lab->a, c, lab->run.s, lab->run.at++)) lab->run.phase = RUN_SIDE_B, lab->run.at = 0;
        return POSLAB_RUNNING;
    case RUN_SIDE_B:
    default:
        if (!side_step(lab, &lab->b, c, lab->run.s, lab->run.at++)) return POSLAB_RUNNING;
        finish_run(lab, c, lab->run.s);
        lab->run.phase = RUN_IDLE;
        return POSLAB_OK;
    }
}

poslab_status poslab_run(poslab_lab *lab, const poslab_config *c, char *message, size_t size) {
    poslab_status st = poslab_run_begin(lab, c, message, size);
    if (st != POSLAB_OK) return st;
    while ((st = poslab_run_step(lab, message, size)) == POSLAB_RUNNING) {}
    return st;
}

const poslab_result *poslab_result_of(const poslab_lab *lab) {
    return lab && lab->have_result ? &lab->result : NULL;
}

const char *poslab_json(poslab_lab *lab, int flags) {
    if (!lab || !lab->have_result) return NULL;
    return report_json(&lab->report, &lab->result, flags);
}

const void *poslab_result_array(const poslab_lab *lab, poslab_array which) {
    const poslab_result *r = poslab_result_of(lab);
    if (!r) return NULL;
    switch (which) {
    case POSLAB_OUTPUT_A: return r->output_a;
    case POSLAB_OUTPUT_B: return r->output_b;
    case POSLAB_ATTENTION_A: return r->attention_a;
    case POSLAB_ATTENTION_B: return r->attention_b;
    case POSLAB_SWEEP_SCALES: return r->sweep_scales;
    case POSLAB_SWEEP_COSINE: return r->sweep_cosine;
    case POSLAB_SWEEP_ALLCLOSE: return r->sweep_allclose;
    case POSLAB_SCORES_A: return r->scores_a;
    case POSLAB_SCORES_B: return r->scores_b;
    }
    return NULL;
}

const char *poslab_text(poslab_lab *lab) {
    if (!lab || !lab->have_result) return NULL;
    return report_text(&lab->report, &lab->result);
}

/* allclose at scale s for pair i (or the mean when i < 0). */
static int close_at(poslab_lab *lab, const poslab_config *c, int i, double s) {
    const int d = lab->d;
    forward_both_tmp(lab, c, s, 0);
    if (i < 0) return allclose(lab->a.tmp_mean, lab->b.tmp_mean, d, c->rtol, c->atol);
    return allclose(lab->a.tmp_out + (size_t)i * d, lab->b.tmp_out + (size_t)lab->pairs[i].index_b * d, d,
                    c->rtol, c->atol);
}

poslab_status poslab_threshold(poslab_lab *lab, const poslab_config *c, int pair, double lo, double hi,
                               double rel_tol, double *scale, char *message, size_t size) {
    if (!lab || !c || !scale) return fail(message, size, POSLAB_ERR_INPUT, "poslab_threshold: missing argument");
    lab->run.phase = RUN_IDLE; /* it works in the scratch an unfinished run keeps its state in */
    poslab_status st = poslab_config_check(c, message, size);
    if (st != POSLAB_OK) return st;
    if (!(lo > 0 && hi >= lo && hi <= POSLAB_MAX_SCALE && rel_tol > 0 && isfinite(rel_tol)))
        return fail(message, size, POSLAB_ERR_INPUT,
                    "threshold: range %g to %g with tolerance %g; allowed: 0 < lo <= hi <= 1e6, tolerance > 0",
                    lo, hi, rel_tol);
    st = prepare(lab, c);
    if (st != POSLAB_OK) return fail(message, size, st, "%s", poslab_status_text(st));
    if (pair < -1 || pair >= lab->a.n || (pair >= 0 && lab->pairs[pair].index_b < 0))
        return fail(message, size, POSLAB_ERR_INPUT,
                    "pair: %d is not a paired word; allowed: -1 (the mean) or the index in sentence A of a word "
                    "with a partner", pair);
    if (!close_at(lab, c, pair, lo)) { *scale = 0; return POSLAB_OK; }
    /* allclose need not be monotone in the scale (a saturated softmax can
       make far-apart outputs close again), so first walk up a log grid to
       the first scale where it fails, then bisect only that step */
    const double step = pow(10.0, 1.0 / 8);
    double below = lo, above = lo;
    for (;;) {
        above = below * step < hi ? below * step : hi;
        if (!close_at(lab, c, pair, above)) break;
        if (above >= hi) { *scale = hi; return POSLAB_OK; }
        below = above;
    }
    /* invariant: close at `below`, not close at `above` */
    lo = below;
    hi = above;
    while (hi / lo > 1 + rel_tol) {
        double mid = sqrt(lo * hi);
        if (mid <= lo || mid >= hi) break;
        if (close_at(lab, c, pair, mid)) lo = mid;
        else hi = mid;
    }
    *scale = lo;
    return POSLAB_OK;
}

poslab_status poslab_sinusoidal_table(int first, int count, int dim, double *out) {
    /* count against the room left after first: first + count could pass
       INT_MAX (undefined) and wrap into the allowed range */
    if (!out || first < 0 || count < 1 || count > POSLAB_MAX_OFFSET + POSLAB_MAX_TOKENS - first || dim < 1 ||
        dim > POSLAB_MAX_DIM)
        return POSLAB_ERR_INPUT;
    sinusoidal_encoding(out, first, count, dim);
    return POSLAB_OK;
}
