/* The checkpoint model: a GPT-2-family checkpoint's forward pass, as Hugging
 * Face's GPT2Model computes it in eval mode (docs/experiment.md,
 * "Checkpoints"), behind the same face as the drawn models (lab.h).
 *
 * Weights stay float32 as loaded (exact for F32, F16 and BF16); every
 * product, sum and activation is computed in double from them, so a
 * NumPy float64 script that reads the same files gives the same numbers
 * to rounding. Each kernel's comment gives its shapes; C is n_embd, H
 * n_head, n the sentence's tokens. */
#include "lab.h"

#include <math.h>
#include <string.h>

#include "attention.h"
#include "checkpoint.h"
#include "checkpoint_family.h"
#include "decimal.h"
#include "message.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- kernels ---------------------------------------------------------------- */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_VECTORS
#endif

/* Four doubles as one value, and four floats: each lane rounds as a scalar
 * does (-ffp-contract=off), so the sums below are the scalar loop's. */
typedef double f64x4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef float f32x4 __attribute__((vector_size(16), aligned(4), may_alias));

/* out[i][j0..j0+7] for the R rows from x (R <= 4, a constant where this is
 * inlined): each of the 8 R sums stays in a register through all k terms,
 * so a row of w is read, and widened to doubles, once for R rows instead of
 * once per row, and out is written once instead of every four terms. */
static inline __attribute__((always_inline)) void linear_tile(double *out, const double *x, const float *w, const float *b,
                                                              int R, int k, int m, int j0) {
    f64x4 lo[4] = {0}, hi[4] = {0};
    const float *wp = w + j0;
    for (int p = 0; p < k; p++, wp += m) {
        const f64x4 wl = __builtin_convertvector(*(const f32x4 *)wp, f64x4);
        const f64x4 wh = __builtin_convertvector(*(const f32x4 *)(wp + 4), f64x4);
        for (int r = 0; r < R; r++) {
            const double a = x[(size_t)r * k + p];
            lo[r] += a * wl;
            hi[r] += a * wh;
        }
    }
    const f64x4 bl = __builtin_convertvector(*(const f32x4 *)(b + j0), f64x4);
    const f64x4 bh = __builtin_convertvector(*(const f32x4 *)(b + j0 + 4), f64x4);
    for (int r = 0; r < R; r++) {
        *(f64x4 *)(out + (size_t)r * m + j0) = lo[r] + bl;
        *(f64x4 *)(out + (size_t)r * m + j0 + 4) = hi[r] + bh;
    }
}

/* out (n x m) = x (n x k) @ w (k x m, float) + b (m, float), each out[i][j]
 * summing p = 0..k-1 in order from 0 before the bias is added (as NumPy's
 * `x @ W + b`, up to the order BLAS sums in): in tiles of up to four rows
 * by eight columns (linear_tile), and the last m % 8 columns a row at a
 * time. The same additions in the same order as a row-by-row loop, so the
 * same bits. In WebAssembly, where each widened row of w was the cost, a
 * run of both sentences through GPT-2 small's shapes went from 233-240 to
 * 192-218 ms of CPU at 3 tokens, and from 1.27-1.80 to 1.10-1.42 s at 38
 * (2.1 GHz EPYC, Node, best of 3, alternating); natively (AVX2) it is
 * unchanged, at 146-153 ms. */
WIDE_VECTORS
static void linear(double *out, const double *x, const float *w, const float *b, int n, int k, int m) {
    const int wide = m - m % 8;
    for (int j0 = 0; j0 < wide; j0 += 8) {
        for (int i = 0; i < n; i += 4) {
            double *o = out + (size_t)i * m;
            const double *xi = x + (size_t)i * k;
            switch (n - i < 4 ? n - i : 4) {
            case 4: linear_tile(o, xi, w, b, 4, k, m, j0); break;
            case 3: linear_tile(o, xi, w, b, 3, k, m, j0); break;
            case 2: linear_tile(o, xi, w, b, 2, k, m, j0); break;
            default: linear_tile(o, xi, w, b, 1, k, m, j0); break;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = wide; j < m; j++) {
            double t = 0.0;
            for (int p = 0; p < k; p++) t += x[(size_t)i * k + p] * (double)w[(size_t)p * m + j];
            out[(size_t)i * m + j] = t + (double)b[j];
        }
}

/* out (n x C) = (x - mean) / sqrt(var + eps) * g + b over each row
 * (population variance, as np.var). */
static void layer_norm(double *out, const double *x, const float *g, const float *b, double eps, int n, int C) {
    for (int i = 0; i < n; i++) {
        const double *row = x + (size_t)i * C;
        double *o = out + (size_t)i * C;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < C; c++) mean += row[c];
        mean /= C;
        for (int c = 0; c < C; c++) var += (row[c] - mean) * (row[c] - mean);
        var /= C;
        const double norm = sqrt(var + eps);
        for (int c = 0; c < C; c++) o[c] = (row[c] - mean) / norm * (double)g[c] + (double)b[c];
    }
}

/* GPT-2's GELU in place: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
static void gelu(double *x, size_t count) {
    const double c = sqrt(2.0 / M_PI);
    for (size_t i = 0; i < count; i++) {
        const double v = x[i];
        x[i] = 0.5 * v * (1 + tanh(c * (v + 0.044715 * (v * v * v))));
    }
}

/* ---- the model's verbs -------------------------------------------------------- */

static const checkpoint_weights *weights(const poslab_lab *lab) { return checkpoint_weights_of(lab->checkpoint); }

/* The positions its family was trained with (the family table) at scale 1
 * unless a scheme is given, and the mask it was trained with unless one is
 * given; its sizes are the run's. */
static poslab_status settle(const poslab_lab *lab, poslab_config *c, char *message, size_t size) {
    const checkpoint_weights *w = weights(lab);
    if (!w)
        return fail(message, size, POSLAB_ERR_STATE,
                    "model: checkpoint needs a loaded checkpoint (--checkpoint PATH; poslab_use_checkpoint)");
    if (!c->scheme_given) c->scheme = w->family->positions;
    else if (c->scheme != POSLAB_SCHEME_NONE && c->scheme != w->family->positions)
        return fail(message, size, POSLAB_ERR_INPUT, "scheme: \"%s\" is not this checkpoint's (%s); allowed: %s, none",
                    poslab_scheme_name(c->scheme), w->family->name, poslab_scheme_name(w->family->positions));
    if (!c->causal_given) c->causal = w->trained_causal;
    c->dim = w->n_embd;
    c->heads = w->n_head;
    c->layers = w->n_layer;
    return POSLAB_OK;
}

/* Each sentence's words, joined by single spaces, through the
 * checkpoint's tokenizer; pieces keep each token's text for the report. */
static poslab_status tokens(poslab_lab *lab, const poslab_config *c, int *vocab, char *message, size_t size) {
    const checkpoint_weights *w = weights(lab);
    const poslab_sentence *s[2] = {&c->a, &c->b};
    const char *names[2] = {"a", "b"};
    const int offsets[2] = {c->offset_a, c->offset_b};
    side *sides[2] = {&lab->a, &lab->b};
    char text[sizeof s[0]->text];
    *vocab = 0;
    for (int k = 0; k < 2; k++) {
        size_t len = poslab_sentence_join(s[k], text);
        /* room for every token a sentence can make (its bytes, at worst),
           so that a long one is told its count against the limit that
           stops it, the positions or the lab's 64 */
        int ids[POSLAB_MAX_TOKENS * 64], count = 0;
        char why[POSLAB_MESSAGE_BYTES];
        if (poslab_checkpoint_tokenize(lab->checkpoint, text, len, c->prefix_space, ids,
                                       (int)(sizeof ids / sizeof ids[0]), &count, why, sizeof why) != POSLAB_OK)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: %s", names[k], why);
        if (count < 1)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: no tokens; allowed: 1 to %d tokens", names[k],
                        POSLAB_MAX_TOKENS);
        /* (the limit in words, not an option's name: the CLI calls the start
           --offset-a, the wrapper offset_a) */
        if (offsets[k] + count > w->n_positions && offsets[k] < w->n_positions)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: %d tokens from position %d pass the checkpoint's %d positions; allowed: at most %d tokens "
                        "from position %d",
                        names[k], count, offsets[k], w->n_positions, w->n_positions - offsets[k], offsets[k]);
        if (offsets[k] + count > w->n_positions)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: %d tokens from position %d pass the checkpoint's %d positions; allowed: a first position "
                        "below %d",
                        names[k], count, offsets[k], w->n_positions, w->n_positions);
        if (count > POSLAB_MAX_TOKENS)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: %d tokens; allowed: 1 to %d tokens", names[k], count,
                        POSLAB_MAX_TOKENS);
        poslab_sentence *p = &lab->pieces[k];
        size_t at = 0;
        for (int t = 0; t < count; t++) {
            int n = checkpoint_piece_text(lab->checkpoint, ids[t], p->text + at, sizeof p->text - at);
            if (n < 0)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: the tokens' text is longer than %zu bytes", names[k],
                            sizeof p->text);
            p->offset[t] = (uint16_t)at;
            at += (size_t)n + 1;
            sides[k]->ids[t] = ids[t];
        }
        p->count = count;
        sides[k]->n = count;
    }
    return POSLAB_OK;
}

static void sizes(const poslab_lab *lab, const poslab_config *c, int n, int vocab, size_t s[BUFFERS], int *d,
                  int *heads) {
    (void)c, (void)vocab;
    const checkpoint_weights *w = weights(lab);
    const size_t C = (size_t)w->n_embd, H = (size_t)w->n_head, nd = (size_t)n * C, nn = (size_t)n * n;
    memset(s, 0, BUFFERS * sizeof *s);
    for (int k = 0; k < 2; k++) {
        size_t *sd = s + k * SIDE_BUFFERS;
        sd[SIDE_OUT] = sd[SIDE_TMP_OUT] = sd[SIDE_X] = nd;
        sd[SIDE_ATTN] = sd[SIDE_SCORES] = sd[SIDE_TMP_ATTN] = H * nn;
        sd[SIDE_MEAN] = sd[SIDE_TMP_MEAN] = sd[SIDE_BAG] = C;
        sd[SIDE_LAYERS] = (size_t)w->n_layer * nd;
    }
    s[BUF_Q] = s[BUF_K] = s[BUF_V] = s[BUF_KT] = nd;
    s[BUF_H] = s[BUF_LN] = s[BUF_ATT] = s[BUF_PROJ] = nd;
    s[BUF_HID] = 4 * nd;
    s[BUF_QKV] = 3 * nd;
    s[BUF_LOGITS] = (size_t)w->vocab_size;
    *d = w->n_embd;
    *heads = w->n_head;
}

/* Each sentence's X: its tokens' rows of wte, and their mean (the
 * order-blind baseline). */
static void load(poslab_lab *lab, const poslab_config *c, int vocab) {
    (void)c, (void)vocab;
    const checkpoint_weights *w = weights(lab);
    const int C = w->n_embd;
    side *sides[2] = {&lab->a, &lab->b};
    for (int k = 0; k < 2; k++) {
        side *sd = sides[k];
        for (int i = 0; i < sd->n; i++)
            for (int j = 0; j < C; j++) sd->x[(size_t)i * C + j] = (double)w->wte[(size_t)sd->ids[i] * C + j];
        column_mean(sd->bag, sd->x, sd->n, C);
    }
}

static int layer_count(const poslab_lab *lab, const poslab_config *c) {
    (void)c;
    return weights(lab)->n_layer;
}

/* h (n x C) = X + s * wpe[offset + i] (scheme learned) or X (none). */
static void begin(poslab_lab *lab, const side *sd, const poslab_config *c, double s) {
    const checkpoint_weights *w = weights(lab);
    const int C = w->n_embd;
    const size_t nd = (size_t)sd->n * C;
    if (c->scheme != POSLAB_SCHEME_LEARNED) {
        memcpy(lab->h, sd->x, nd * sizeof(double));
        return;
    }
    const float *p = w->wpe + (size_t)sd->offset * C;
    for (size_t i = 0; i < nd; i++) lab->h[i] = sd->x[i] + s * (double)p[i];
}

/* Block b of GPT-2 on lab->h (n x C), in CHECKPOINT_BLOCK_STEPS parts of
 * about 4 C^2 multiply-adds a token each, one a step:
 *   0: h = h + (softmax(q k^T / sqrt(C/H), masked) v per head) @ c_proj + b,
 *      with q | k | v = LN(h; ln_1) @ c_attn + b;
 *   1: hid = gelu(LN(h; ln_2) @ c_fc + b);
 *   2: h = h + hid @ mlp.c_proj + b.
 * Part 0 gets attn and scores (H x n x n) of this block; part 2 layers, h
 * after it, when given. */
static void block_attention(poslab_lab *lab, const side *sd, const poslab_config *c, int b, double *attn,
                            double *scores) {
    const checkpoint_weights *w = weights(lab);
    const checkpoint_block *bl = &w->blocks[b];
    const int n = sd->n, C = w->n_embd, H = w->n_head, width = C / H;
    const size_t nd = (size_t)n * C, nn = (size_t)n * n;
    double *h = lab->h, *ln = lab->ln, *q = lab->q, *k = lab->k, *v = lab->v;

    layer_norm(ln, h, bl->ln1_w, bl->ln1_b, w->eps, n, C);
    linear(lab->qkv, ln, bl->attn_w, bl->attn_b, n, C, 3 * C);
    for (int i = 0; i < n; i++) { /* columns 0..C-1 are q, C..2C-1 k, 2C..3C-1 v */
        const double *row = lab->qkv + (size_t)i * 3 * C;
        memcpy(q + (size_t)i * C, row, (size_t)C * sizeof(double));
        memcpy(k + (size_t)i * C, row + C, (size_t)C * sizeof(double));
        memcpy(v + (size_t)i * C, row + 2 * C, (size_t)C * sizeof(double));
    }
    for (int hd = 0; hd < H; hd++) {
        double *a = attn + hd * nn;
        attention_scores(a, lab->kt, q + hd * width, k + hd * width, n, width, C, c->causal);
        if (scores) memcpy(scores + hd * nn, a, nn * sizeof(double));
        attention_apply(lab->att + hd * width, a, v + hd * width, n, width, C, c->causal);
    }
    linear(lab->proj, lab->att, bl->aproj_w, bl->aproj_b, n, C, C);
    for (size_t i = 0; i < nd; i++) h[i] += lab->proj[i];
}

static void block_mlp_in(poslab_lab *lab, const side *sd, int b) {
    const checkpoint_weights *w = weights(lab);
    const checkpoint_block *bl = &w->blocks[b];
    const int n = sd->n, C = w->n_embd;
    layer_norm(lab->ln, lab->h, bl->ln2_w, bl->ln2_b, w->eps, n, C);
    linear(lab->hid, lab->ln, bl->fc_w, bl->fc_b, n, C, 4 * C);
    gelu(lab->hid, 4 * (size_t)n * C);
}

static void block_mlp_out(poslab_lab *lab, const side *sd, int b, double *layers) {
    const checkpoint_weights *w = weights(lab);
    const checkpoint_block *bl = &w->blocks[b];
    const int n = sd->n, C = w->n_embd;
    const size_t nd = (size_t)n * C;
    linear(lab->proj, lab->hid, bl->mproj_w, bl->mproj_b, n, 4 * C, C);
    for (size_t i = 0; i < nd; i++) lab->h[i] += lab->proj[i];
    if (layers) memcpy(layers + (size_t)b * nd, lab->h, nd * sizeof(double));
}

/* out = LN(h; ln_f): Hugging Face's last_hidden_state. */
static void end(poslab_lab *lab, const side *sd, double *out, double *mean) {
    const checkpoint_weights *w = weights(lab);
    layer_norm(out, lab->h, w->lnf_w, w->lnf_b, w->eps, sd->n, w->n_embd);
    column_mean(mean, out, sd->n, w->n_embd);
}

_Static_assert(CHECKPOINT_BLOCK_STEPS == 3, "a block's three parts, one a step");

/* Step k: part k % CHECKPOINT_BLOCK_STEPS of block k / CHECKPOINT_BLOCK_STEPS. */
static int step(poslab_lab *lab, side *sd, const poslab_config *c, double s, int k) {
    const int b = k / CHECKPOINT_BLOCK_STEPS, part = k % CHECKPOINT_BLOCK_STEPS;
    if (k == 0) begin(lab, sd, c, s);
    if (part == 0) block_attention(lab, sd, c, b, sd->attn, sd->scores);
    else if (part == 1) block_mlp_in(lab, sd, b);
    else block_mlp_out(lab, sd, b, sd->layers);
    if (part < CHECKPOINT_BLOCK_STEPS - 1 || b < weights(lab)->n_layer - 1) return 0;
    end(lab, sd, sd->out, sd->mean);
    return 1;
}

/* The POSLAB_NEXT_TOKENS most likely tokens after the last one:
 * softmax(out[n-1] @ wte^T), its maximum subtracted first; ties go to the
 * lower id, since ids are visited in order and only a larger logit
 * overtakes. The logits go NEXT_ROWS rows of wte a step (each is its own
 * dot product, so the steps change no bit); the step after the last rows
 * of a sentence ranks them. */
enum { NEXT_ROWS = 4096 };

static void next_logits(poslab_lab *lab, const side *sd, int from, int to) {
    const checkpoint_weights *w = weights(lab);
    const int C = w->n_embd;
    const double *last = sd->out + (size_t)(sd->n - 1) * C;
    /* Eight rows at a time: each dot product is a chain of additions in
       order of j, one waiting for the last, and eight chains side by side
       keep the adders busy where one left them idle most of the time (the
       same additions in the same order: the same bits). */
    int t = from;
    for (; t + 8 <= to; t += 8) {
        const float *row = w->wte + (size_t)t * C;
        double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0, d4 = 0.0, d5 = 0.0, d6 = 0.0, d7 = 0.0;
        for (int j = 0; j < C; j++) {
            const double a = last[j];
            d0 += a * (double)row[j];
            d1 += a * (double)row[C + j];
            d2 += a * (double)row[2 * C + j];
            d3 += a * (double)row[3 * C + j];
            d4 += a * (double)row[4 * C + j];
            d5 += a * (double)row[5 * C + j];
            d6 += a * (double)row[6 * C + j];
            d7 += a * (double)row[7 * C + j];
        }
        double *out = lab->logits + t;
        out[0] = d0, out[1] = d1, out[2] = d2, out[3] = d3, out[4] = d4, out[5] = d5, out[6] = d6, out[7] = d7;
    }
    for (; t < to; t++) {
        const float *row = w->wte + (size_t)t * C;
        double dot = 0.0;
        for (int j = 0; j < C; j++) dot += last[j] * (double)row[j];
        lab->logits[t] = dot;
    }
}

static void rank_next(poslab_lab *lab, poslab_next_token *top) {
    const int V = weights(lab)->vocab_size;
    const double *logits = lab->logits;
    double max = -INFINITY, sum = 0.0;
    for (int t = 0; t < V; t++)
        if (logits[t] > max) max = logits[t];
    for (int t = 0; t < V; t++) sum += exp(logits[t] - max);
    int count = 0;
    for (int t = 0; t < V; t++) {
        int at = count < POSLAB_NEXT_TOKENS ? count : POSLAB_NEXT_TOKENS;
        while (at > 0 && logits[t] > logits[top[at - 1].id]) at--;
        if (at >= POSLAB_NEXT_TOKENS) continue;
        int last_kept = count < POSLAB_NEXT_TOKENS ? count : POSLAB_NEXT_TOKENS - 1;
        memmove(top + at + 1, top + at, (size_t)(last_kept - at) * sizeof *top);
        top[at].id = t;
        if (count < POSLAB_NEXT_TOKENS) count++;
    }
    for (int r = 0; r < count; r++) top[r].probability = exp(logits[top[r].id] - max) / sum;
}

/* Steps 0 .. chunks-1: sentence A's logits; chunks: its ranking; then B's. */
static int finish_step(poslab_lab *lab, const poslab_config *c, int k) {
    (void)c;
    const int V = weights(lab)->vocab_size, chunks = (V + NEXT_ROWS - 1) / NEXT_ROWS;
    const int sentence = k / (chunks + 1), at = k % (chunks + 1);
    const side *sd = sentence == 0 ? &lab->a : &lab->b;
    if (at < chunks) {
        next_logits(lab, sd, at * NEXT_ROWS, at == chunks - 1 ? V : (at + 1) * NEXT_ROWS);
        return 0;
    }
    rank_next(lab, lab->next[sentence]);
    return sentence == 1;
}

/* The result's checkpoint parts: its tokens, exercise 2's figure, the next
 * tokens with their text, and what the checkpoint says of itself. */
static void finish(poslab_lab *lab, const poslab_config *c, poslab_result *r) {
    const checkpoint_weights *w = weights(lab);
    r->words_a = &lab->pieces[0];
    r->words_b = &lab->pieces[1];
    r->checkpoint = lab->checkpoint;
    r->ids_a = lab->a.ids;
    r->ids_b = lab->b.ids;
    r->mean_cosine_similarity = 1 - r->mean.cosine_distance;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < POSLAB_NEXT_TOKENS; k++) {
            char *text = lab->next_text[s][k];
            if (checkpoint_piece_text(lab->checkpoint, lab->next[s][k].id, text, sizeof lab->next_text[s][k]) < 0)
                text[0] = 0;
            lab->next[s][k].text = text;
        }
    r->next_a = lab->next[0];
    r->next_b = lab->next[1];
    if (checkpoint_describe(lab->checkpoint, lab->model_json, sizeof lab->model_json) > 0) r->model_json = lab->model_json;
    decimal_snprintf(lab->model_text, sizeof lab->model_text, "checkpoint %s: %d block%s, n_embd %d, %s, ",
                     c->checkpoint, c->layers, c->layers > 1 ? "s" : "", c->dim,
                     c->prefix_space ? "a space put before each sentence" : "sentences tokenized as written");
    r->model_text = lab->model_text;
    /* a table of zeros (nope, bag) adds nothing at any scale */
    if (c->scheme != POSLAB_SCHEME_NONE && !w->trained_positions) r->scheme_note = w->family->untrained_note;
}

const model model_checkpoint = {
    .settle = settle, .tokens = tokens, .sizes = sizes, .load = load, .layer_count = layer_count,
    .step = step, .finish_step = finish_step, .finish = finish,
};

poslab_status poslab_use_checkpoint(poslab_lab *lab, const poslab_checkpoint *ck, char *message, size_t size) {
    if (!lab) return fail(message, size, POSLAB_ERR_INPUT, "poslab_use_checkpoint: no lab");
    if (ck && !checkpoint_weights_of(ck))
        return fail(message, size, POSLAB_ERR_STATE, "checkpoint: not loaded to the end (poslab_checkpoint_finish)");
    lab->run.phase = RUN_IDLE;
    lab->checkpoint = ck;
    lab->checkpoint_serial++;
    lab->have_result = 0;
    return POSLAB_OK;
}
