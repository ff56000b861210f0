/* The lab: runs, comparisons, the sweep and the threshold, for whichever
 * model the config names (lab.h: the models' one face).
 *
 * A run splits into two stages. prepare() depends only on what the model's
 * tokens, draws or weights depend on (the words, d, the seed, the scheme,
 * the offsets, the heads, the checkpoint): the model tokenizes, sizes its
 * work space in the one arena and draws or loads. The model's forward
 * pass then produces one scale's outputs, which are paired by token and
 * compared here. A slider move or a sweep point is only a forward pass. */
#include "poslab.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "lab.h"
#include "message.h"
#include "model_table.h"
#include "positions.h"
#include "report.h"

/* The config's model, from the model table (a config is checked first, so
 * its model is a row of this build's). */
static const model *model_of(const poslab_config *c) { return model_row_at((int)c->model)->verbs; }

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

/* Where each buffer's pointer lives in the lab: a table of offsets rather
 * than code that takes each address (a quarter of the bytes in the
 * WebAssembly module). */
#define SIDE_SLOTS(w, s)                                                                                          \
    [w * SIDE_BUFFERS + SIDE_XQ] = offsetof(poslab_lab, s.xq), [w * SIDE_BUFFERS + SIDE_XK] = offsetof(poslab_lab, s.xk), \
    [w * SIDE_BUFFERS + SIDE_XV] = offsetof(poslab_lab, s.xv), [w * SIDE_BUFFERS + SIDE_OUT] = offsetof(poslab_lab, s.out), \
    [w * SIDE_BUFFERS + SIDE_TMP_OUT] = offsetof(poslab_lab, s.tmp_out),                                          \
    [w * SIDE_BUFFERS + SIDE_X] = offsetof(poslab_lab, s.x), [w * SIDE_BUFFERS + SIDE_ATTN] = offsetof(poslab_lab, s.attn), \
    [w * SIDE_BUFFERS + SIDE_SCORES] = offsetof(poslab_lab, s.scores),                                            \
    [w * SIDE_BUFFERS + SIDE_TMP_ATTN] = offsetof(poslab_lab, s.tmp_attn),                                        \
    [w * SIDE_BUFFERS + SIDE_S0] = offsetof(poslab_lab, s.s0), [w * SIDE_BUFFERS + SIDE_S1] = offsetof(poslab_lab, s.s1), \
    [w * SIDE_BUFFERS + SIDE_S2] = offsetof(poslab_lab, s.s2), [w * SIDE_BUFFERS + SIDE_CROSS] = offsetof(poslab_lab, s.cross), \
    [w * SIDE_BUFFERS + SIDE_MEAN] = offsetof(poslab_lab, s.mean),                                                \
    [w * SIDE_BUFFERS + SIDE_TMP_MEAN] = offsetof(poslab_lab, s.tmp_mean),                                        \
    [w * SIDE_BUFFERS + SIDE_BAG] = offsetof(poslab_lab, s.bag), [w * SIDE_BUFFERS + SIDE_LAYERS] = offsetof(poslab_lab, s.layers)
static const unsigned short buffer_slots[BUFFERS] = {
    SIDE_SLOTS(0, a), SIDE_SLOTS(1, b),
    [BUF_Q] = offsetof(poslab_lab, q), [BUF_K] = offsetof(poslab_lab, k), [BUF_V] = offsetof(poslab_lab, v),
    [BUF_KT] = offsetof(poslab_lab, kt), [BUF_COS] = offsetof(poslab_lab, cosines),
    [BUF_SIN] = offsetof(poslab_lab, sines), [BUF_POS] = offsetof(poslab_lab, pos),
    [BUF_PWQ] = offsetof(poslab_lab, pwq), [BUF_PWK] = offsetof(poslab_lab, pwk), [BUF_PWV] = offsetof(poslab_lab, pwv),
    [BUF_VECTORS] = offsetof(poslab_lab, vectors), [BUF_VWQ] = offsetof(poslab_lab, vwq),
    [BUF_VWK] = offsetof(poslab_lab, vwk), [BUF_VWV] = offsetof(poslab_lab, vwv), [BUF_WQ] = offsetof(poslab_lab, wq),
    [BUF_WK] = offsetof(poslab_lab, wk), [BUF_WV] = offsetof(poslab_lab, wv), [BUF_BLOCKS] = offsetof(poslab_lab, blocks),
    [BUF_H] = offsetof(poslab_lab, h), [BUF_LN] = offsetof(poslab_lab, ln), [BUF_ATT] = offsetof(poslab_lab, att),
    [BUF_PROJ] = offsetof(poslab_lab, proj), [BUF_HID] = offsetof(poslab_lab, hid),
    [BUF_LOGITS] = offsetof(poslab_lab, logits),
};
_Static_assert(offsetof(poslab_lab, logits) < 65536, "buffer offsets fit buffer_slots");

/* Grows the arena to the sum of the sizes and points every buffer at its
 * slice of it. */
static poslab_status point_buffers(poslab_lab *lab, const poslab_config *c, int n, int vocab) {
    size_t sizes[BUFFERS], need = 0;
    model_of(c)->sizes(lab, c, n, vocab, sizes, &lab->d, &lab->heads);
    for (int i = 0; i < BUFFERS; i++) need += sizes[i];
    if (need > lab->arena_size) {
        double *grown = realloc(lab->arena, need * sizeof(double));
        if (!grown) return POSLAB_ERR_NOMEM;
        lab->arena = grown;
        lab->arena_size = need;
    }
    double *at = lab->arena;
    for (int i = 0; i < BUFFERS; i++) {
        assert(buffer_slots[i]); /* every buffer has a slot */
        *(double **)((char *)lab + buffer_slots[i]) = at;
        at += sizes[i];
    }
    return POSLAB_OK;
}


/* Whether the lab's draws or weights are c's, for sentences c's shape
 * (its words aside): they depend only on d, the seed, the scheme, the
 * offsets, the heads (which size the per-head buffers), the model with its
 * blocks and weight scale, and for a checkpoint the leading space and
 * which checkpoint it is. */
static int same_model(const poslab_lab *lab, const poslab_config *c) {
    const poslab_config *p = &lab->drawn;
    return lab->prepared && p->dim == c->dim && p->seed == c->seed && p->scheme == c->scheme &&
           p->offset_a == c->offset_a && p->offset_b == c->offset_b && p->heads == c->heads &&
           p->model == c->model && p->layers == c->layers && p->weight_std == c->weight_std &&
           p->prefix_space == c->prefix_space && lab->drawn_serial == lab->checkpoint_serial;
}

/* Whether the lab holds the draws and products of c already. */
static int is_prepared(const poslab_lab *lab, const poslab_config *c) {
    return same_model(lab, c) && same_sentence(&lab->drawn.a, &c->a) && same_sentence(&lab->drawn.b, &c->b);
}

/* Whether c's draws are the lab's, though its words are not: a drawn
 * model's draws depend on the words only through how many distinct ones
 * there are and how long the sentences are (docs/experiment.md, "Draws"),
 * so new words in that mould (a word retyped or copied, B shuffled) need
 * only place(), not the draws and products again (at 64 words and d 512
 * in WebAssembly, 7 ms against 31). Asked once c's tokens are in the sides. */
static int same_draws(const poslab_lab *lab, const poslab_config *c, int vocab) {
    return same_model(lab, c) && model_of(c)->place && vocab == lab->drawn_vocab &&
           lab->drawn.a.count == c->a.count && lab->drawn.b.count == c->b.count;
}

/* Tokens, work space, then the model's draws or weights. */
static poslab_status prepare(poslab_lab *lab, const poslab_config *c, char *message, size_t size) {
    if (is_prepared(lab, c)) return POSLAB_OK;
    lab->have_result = 0; /* the arena is about to be reused */
    lab->angles.valid = 0;

    const model *m = model_of(c);
    int vocab = 0;
    poslab_status st = m->tokens(lab, c, &vocab, message, size);
    if (st == POSLAB_OK && same_draws(lab, c, vocab)) {
        m->place(lab, c);
    } else {
        lab->prepared = 0;
        if (st != POSLAB_OK) return st;
        const int na = lab->a.n, nb = lab->b.n;
        st = point_buffers(lab, c, na > nb ? na : nb, vocab);
        if (st != POSLAB_OK) return fail(message, size, st, "%s", poslab_status_text(st));
        lab->a.offset = c->offset_a;
        lab->b.offset = c->offset_b;
        m->load(lab, c, vocab);
        lab->drawn_vocab = vocab;
        lab->drawn_serial = lab->checkpoint_serial;
        lab->prepared = 1;
    }
    pair_words(lab);
    lab->drawn = *c;
    return POSLAB_OK;
}

/* Whether c's sweep takes its scores from the polynomial: where the
 * scheme makes them one, and not through blocks, since LayerNorm is not
 * linear. */
static int sweep_is_polynomial(const poslab_config *c) {
    return model_of(c)->polynomial_sweep && position_scheme_of(c->scheme)->score_degree > 0;
}

/* Whether c's outputs depend on the scale: not without positions. */
static int scale_matters(const poslab_config *c) { return position_scheme_of(c->scheme)->enters != POSITIONS_NOT; }

static void compare(poslab_pair *p, const double *a, const double *b, int d, const poslab_config *c) {
    p->allclose = allclose(a, b, d, c->rtol, c->atol);
    p->max_abs_diff = max_abs_diff(a, b, d);
    p->cosine_distance = cosine_distance(a, b, d);
}

/* Step `block` of sentence `sentence`'s (0: A, 1: B) pass at scale s into
 * its tmp buffers, where the passes of sweep points and threshold probes go
 * (a run's result stays on show); returns whether the pass is done. Sweep
 * points and probes go in the steps a run goes in: a block of one sentence
 * for the transformer, a third of one for a checkpoint. */
static int tmp_step(poslab_lab *lab, const poslab_config *c, double s, int sentence, int block) {
    side sd = sentence ? lab->b : lab->a;
    sd.out = sd.tmp_out, sd.attn = sd.tmp_attn, sd.mean = sd.tmp_mean;
    sd.scores = sd.layers = NULL;
    return model_of(c)->step(lab, &sd, c, s, block);
}

/* Both sentences at scale s into the tmp buffers. */
static void forward_both_tmp(poslab_lab *lab, const poslab_config *c, double s) {
    for (int k = 0; k < 2; k++)
        for (int block = 0; !tmp_step(lab, c, s, k, block); block++) {}
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
    if (sweep_is_polynomial(c)) model_of(c)->begin_sweep(lab, c);
    return POSLAB_OK;
}

/* The next step of point t of c's sweep (log-spaced, both ends exact);
 * returns whether the point is done. A point is a pass of each sentence,
 * and a pass through blocks (the transformer's, a checkpoint's) goes a
 * block a step, as a run's does: whole, at 64 words, d 512 and 12 blocks
 * it is most of a second, which a worker computing the chart could not
 * give way to a slider step's run in. One step per sentence where the
 * sweep takes the head's scores from the polynomial. */
static int sweep_step(poslab_lab *lab, const poslab_config *c, int t) {
    const int count = c->sweep_count, d = lab->d;
    double l0 = log10(c->sweep_lo), l1 = log10(c->sweep_hi);
    double s = t == 0 ? c->sweep_lo
             : t == count - 1 ? c->sweep_hi
             : pow(10.0, l0 + t * ((l1 - l0) / (count - 1)));
    lab->sweep_scales[t] = s;
    /* without positions nothing depends on the scale: one point serves all */
    if (!scale_matters(c) && t > 0) {
        for (int row = 0; row <= lab->a.n; row++) {
            size_t at = (size_t)row * count;
            lab->sweep_cosine[at + t] = lab->sweep_cosine[at];
            lab->sweep_allclose[at + t] = lab->sweep_allclose[at];
        }
        return 1;
    }
    side *sd = lab->run.sentence ? &lab->b : &lab->a;
    if (sweep_is_polynomial(c)) model_of(c)->forward(lab, sd, c, s, 1, sd->tmp_out, sd->tmp_attn, NULL, sd->tmp_mean, NULL);
    else if (!tmp_step(lab, c, s, lab->run.sentence, lab->run.block++)) return 0;
    lab->run.block = 0;
    if (!lab->run.sentence++) return 0; /* B's pass comes next */
    lab->run.sentence = 0;
    record(lab, 0, t, lab->a.tmp_mean, lab->b.tmp_mean, c);
    for (int i = 0; i < lab->a.n; i++) {
        int j = lab->pairs[i].index_b;
        if (j >= 0) record(lab, 1 + i, t, lab->a.tmp_out + (size_t)i * d, lab->b.tmp_out + (size_t)j * d, c);
    }
    return 1;
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

/* The comparisons of a finished run, into lab->result. */
static void finish_run(poslab_lab *lab, const poslab_config *c, double s) {
    const int d = lab->d;
    for (int i = 0; i < lab->a.n; i++) {
        poslab_pair *p = &lab->pairs[i];
        if (p->index_b >= 0)
            compare(p, lab->a.out + (size_t)i * d, lab->b.out + (size_t)p->index_b * d, d, c);
    }
    const int layer_count = model_of(c)->layer_count(lab, c);
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
    r->words_a = &r->config.a;
    r->words_b = &r->config.b;
    if (model_of(c)->finish) model_of(c)->finish(lab, c, r);
    lab->have_result = 1;
}

/* c checked, with the model's own defaults in it, into *settled. */
static poslab_status settle(const poslab_lab *lab, const poslab_config *c, poslab_config *settled, char *message,
                            size_t size) {
    poslab_status st = poslab_config_check(c, message, size);
    if (st != POSLAB_OK) return st;
    *settled = *c;
    const model *m = model_of(c);
    return m->settle ? m->settle(lab, settled, message, size) : POSLAB_OK;
}

/* Whether the lab computes point t of a sweep: in its pass
 * (poslab_sweep_pass), and then in its share of the pass's points. */
static int computes_point(const poslab_lab *lab, int t) {
    const int stride = lab->sweep_stride, coarse = stride > 0 && t % stride == 0;
    int k = t; /* t's place among the pass's points */
    if (lab->sweep_pass == POSLAB_PASS_COARSE) {
        if (!coarse) return 0;
        k = t / stride;
    } else if (lab->sweep_pass == POSLAB_PASS_REST) {
        if (coarse) return 0;
        k = t - t / stride - 1;
    }
    return lab->sweep_shares < 2 || k % lab->sweep_shares == lab->sweep_share;
}

/* Moves the run past the sweep points the lab leaves out (its pass and
 * share), so that they take no step, and on to sentence A after the last.
 * Without positions every point copies the first: each share computes
 * them all. */
static void skip_points(poslab_lab *lab, const poslab_config *c) {
    while (lab->run.at < c->sweep_count && scale_matters(c) && !computes_point(lab, lab->run.at))
        lab->run.at++;
    if (lab->run.at == c->sweep_count) lab->run.phase = RUN_SIDE_A, lab->run.at = 0;
}

poslab_status poslab_run_begin(poslab_lab *lab, const poslab_config *c, char *message, size_t size) {
    if (!lab || !c) return fail(message, size, POSLAB_ERR_INPUT, "poslab_run: no lab or no config");
    lab->run.phase = RUN_IDLE;
    poslab_config settled;
    poslab_status st = settle(lab, c, &settled, message, size);
    if (st != POSLAB_OK) return st;
    c = &settled;
    lab->have_result = 0;
    st = prepare(lab, c, message, size);
    if (st != POSLAB_OK) return st;
    if (c->sweep_count > 0 && (st = begin_sweep(lab, c)) != POSLAB_OK)
        return fail(message, size, st, "%s", poslab_status_text(st));
    lab->run.c = *c;
    lab->run.s = poslab_config_scale(c);
    lab->run.at = lab->run.block = lab->run.sentence = 0;
    lab->run.phase = c->sweep_count > 0 ? RUN_SWEEP : RUN_SIDE_A;
    if (lab->run.phase == RUN_SWEEP) skip_points(lab, c);
    return POSLAB_OK;
}

poslab_status poslab_run_step(poslab_lab *lab, char *message, size_t size) {
    if (!lab || lab->run.phase <= RUN_SEARCH)
        return fail(message, size, POSLAB_ERR_STATE, "poslab_run_step: no poslab_run_begin before it");
    const poslab_config *c = &lab->run.c;
    switch (lab->run.phase) {
    case RUN_SWEEP:
        if (!sweep_step(lab, c, lab->run.at)) return POSLAB_RUNNING;
        lab->run.at++;
        skip_points(lab, c);
        return POSLAB_RUNNING;
    case RUN_SIDE_A:
        if (model_of(c)->step(lab, &lab->a, c, lab->run.s, lab->run.at++)) lab->run.phase = RUN_SIDE_B, lab->run.at = 0;
        return POSLAB_RUNNING;
    case RUN_SIDE_B:
    default:
        if (!model_of(c)->step(lab, &lab->b, c, lab->run.s, lab->run.at++)) return POSLAB_RUNNING;
        if (model_of(c)->finish_step) {
            lab->run.phase = RUN_FINISH, lab->run.at = 0;
            return POSLAB_RUNNING;
        }
        break;
    case RUN_FINISH:
        if (!model_of(c)->finish_step(lab, c, lab->run.at++)) return POSLAB_RUNNING;
        break;
    }
    finish_run(lab, c, lab->run.s);
    lab->run.phase = RUN_IDLE;
    return POSLAB_OK;
}

poslab_status poslab_run(poslab_lab *lab, const poslab_config *c, char *message, size_t size) {
    poslab_status st = poslab_run_begin(lab, c, message, size);
    if (st != POSLAB_OK) return st;
    while ((st = poslab_run_step(lab, message, size)) == POSLAB_RUNNING) {}
    return st;
}

poslab_status poslab_share_sweep(poslab_lab *lab, int share, int shares) {
    if (!lab || shares < 1 || share < 0 || share >= shares) return POSLAB_ERR_INPUT;
    lab->sweep_share = share;
    lab->sweep_shares = shares;
    return POSLAB_OK;
}

poslab_status poslab_sweep_pass(poslab_lab *lab, int pass, int stride) {
    if (!lab || pass < POSLAB_PASS_ALL || pass > POSLAB_PASS_REST || (pass != POSLAB_PASS_ALL && stride < 2))
        return POSLAB_ERR_INPUT;
    lab->sweep_pass = pass;
    lab->sweep_stride = pass == POSLAB_PASS_ALL ? 0 : stride;
    return POSLAB_OK;
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

/* allclose for pair i (or the mean when i < 0) of the pass in the tmp buffers. */
static inline __attribute__((always_inline)) int close_now(const poslab_lab *lab, const poslab_config *c, int i) {
    const int d = lab->d;
    if (i < 0) return allclose(lab->a.tmp_mean, lab->b.tmp_mean, d, c->rtol, c->atol);
    return allclose(lab->a.tmp_out + (size_t)i * d, lab->b.tmp_out + (size_t)lab->pairs[i].index_b * d, d,
                    c->rtol, c->atol);
}

/* Whether allclose holds at scale s for pair i (or the mean when i < 0). */
typedef int verdict_at(poslab_lab *lab, const poslab_config *c, int i, double s);

/* Both sentences' passes at s, at once. */
static int close_at(poslab_lab *lab, const poslab_config *c, int i, double s) {
    forward_both_tmp(lab, c, s);
    return close_now(lab, c, i);
}

/* The threshold search (poslab.h), asking `close` at each scale it probes.
 * Inlined (as the next two), so that the main WebAssembly module, which
 * has no search in steps, keeps the size it had with one function. */
static inline __attribute__((always_inline)) double search(poslab_lab *lab, const poslab_config *c, int pair,
                                                           double lo, double hi, double rel_tol, verdict_at *close) {
    if (!close(lab, c, pair, lo)) return 0;
    /* allclose need not be monotone in the scale (a saturated softmax can
       make far-apart outputs close again), so first walk up a log grid to
       the first scale where it fails, then bisect only that step */
    const double step = pow(10.0, 1.0 / 8);
    double below = lo, above = lo;
    for (;;) {
        /* (the smallest subnormal times the step rounds back to itself:
           the grid moves on by one subnormal there) */
        const double next = below * step > below ? below * step : below + 0x1p-1074;
        above = next < hi ? next : hi;
        if (!close(lab, c, pair, above)) break;
        if (above >= hi) return hi;
        below = above;
    }
    /* invariant: close at `below`, not close at `above` */
    lo = below;
    hi = above;
    while (hi / lo > 1 + rel_tol) {
        double mid = sqrt(lo * hi);
        if (mid <= lo || mid >= hi) break;
        if (close(lab, c, pair, mid)) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* poslab_threshold's arguments checked (`out`: whether it was given a
 * place for the result), c settled into *settled and its draws made. */
static inline __attribute__((always_inline)) poslab_status threshold_ready(poslab_lab *lab, const poslab_config *c,
                                                                           poslab_config *settled, int pair, double lo,
                                                                           double hi, double rel_tol, int out,
                                                                           char *message, size_t size) {
    if (!lab || !c || !out) return fail(message, size, POSLAB_ERR_INPUT, "poslab_threshold: missing argument");
    lab->run.phase = RUN_IDLE; /* it works in the scratch an unfinished run keeps its state in */
    poslab_status st = settle(lab, c, settled, message, size);
    if (st != POSLAB_OK) return st;
    if (!(lo > 0 && hi >= lo && hi <= POSLAB_MAX_SCALE && rel_tol > 0 && isfinite(rel_tol)))
        return fail(message, size, POSLAB_ERR_INPUT,
                    "threshold: range %g to %g with tolerance %g; allowed: 0 < lo <= hi <= 1e6, tolerance > 0",
                    lo, hi, rel_tol);
    st = prepare(lab, settled, message, size);
    if (st != POSLAB_OK) return st;
    if (pair < -1 || pair >= lab->a.n || (pair >= 0 && lab->pairs[pair].index_b < 0))
        return fail(message, size, POSLAB_ERR_INPUT,
                    "pair: %d is not a paired word; allowed: -1 (the mean) or the index in A of a word with a "
                    "partner", pair);
    return POSLAB_OK;
}

poslab_status poslab_threshold(poslab_lab *lab, const poslab_config *c, int pair, double lo, double hi,
                               double rel_tol, double *scale, char *message, size_t size) {
    poslab_config settled;
    poslab_status st = threshold_ready(lab, c, &settled, pair, lo, hi, rel_tol, scale != NULL, message, size);
    if (st != POSLAB_OK) return st;
    *scale = search(lab, &settled, pair, lo, hi, rel_tol, close_at);
    return POSLAB_OK;
}

/* The same search in steps replays it: search() runs again after each
 * probe, answered from the verdicts of the probes done so far (no pass),
 * and the first scale it asks about without a verdict is the next probe,
 * whose passes then go a model step at a time. (Past that scale the replay
 * is told False, and its end is not used.) One search, so the scale is
 * poslab_threshold's to the bit. */
static int replayed(poslab_lab *lab, const poslab_config *c, int i, double s) {
    (void)c, (void)i;
    struct search *t = &lab->search;
    if (t->asked < t->known) {
        const int k = t->asked++;
        return t->verdicts[k / 8] >> (k % 8) & 1;
    }
    if (!t->probing) t->probing = 1, lab->run.s = s;
    return 0;
}

poslab_status poslab_threshold_begin(poslab_lab *lab, const poslab_config *c, int pair, double lo, double hi,
                                     double rel_tol, char *message, size_t size) {
    poslab_status st = threshold_ready(lab, c, &lab->run.c, pair, lo, hi, rel_tol, 1, message, size);
    if (st != POSLAB_OK) return st;
    lab->search = (struct search){.pair = pair, .lo = lo, .hi = hi, .rel_tol = rel_tol};
    lab->run.phase = RUN_SEARCH;
    return POSLAB_OK;
}

poslab_status poslab_threshold_step(poslab_lab *lab, double *scale, char *message, size_t size) {
    if (!lab || !scale || lab->run.phase != RUN_SEARCH)
        return fail(message, size, POSLAB_ERR_STATE, "poslab_threshold_step: no search begun (poslab_threshold_begin)");
    struct search *t = &lab->search;
    const poslab_config *c = &lab->run.c;
    if (!t->probing) { /* the search so far, to its next probe or its end */
        t->asked = 0;
        const double found = search(lab, c, t->pair, t->lo, t->hi, t->rel_tol, replayed);
        if (!t->probing) {
            lab->run.phase = RUN_IDLE;
            *scale = found;
            return POSLAB_OK;
        }
        if (t->known == (int)sizeof t->verdicts * 8)
            return fail(message, size, POSLAB_ERR_INPUT, "threshold: more than %d probes", t->known);
        t->sentence = 0;
        lab->run.at = 0;
    }
    if (!tmp_step(lab, c, lab->run.s, t->sentence, lab->run.at++)) return POSLAB_RUNNING;
    lab->run.at = 0;
    if (!t->sentence++) return POSLAB_RUNNING; /* B's pass comes next */
    const int k = t->known++;
    if (close_now(lab, c, t->pair)) t->verdicts[k / 8] |= (unsigned char)(1u << (k % 8));
    t->probing = 0;
    return POSLAB_RUNNING;
}
