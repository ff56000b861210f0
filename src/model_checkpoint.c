/* The checkpoint model: a GPT-2-family checkpoint's forward pass, as Hugging
 * Face's GPT2Model computes it in eval mode (docs/experiment.md,
 * "Checkpoints"), behind the same face as the drawn models (lab.h).
 *
 * Weights stay float32 as loaded (exact for F32, F16 and BF16) and the
 * blocks (block.h) read them where they lie; every product, sum and
 * activation is computed in double from them, so a NumPy float64 script
 * that reads the same files gives the same numbers to rounding. C is
 * n_embd, H n_head, n the sentence's tokens. */
#include "lab.h"

#include <math.h>
#include <string.h>

#include "attention.h"
#include "block.h"
#include "checkpoint.h"
#include "checkpoint_family.h"
#include "decimal.h"
#include "message.h"

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

/* A checkpoint's blocks: LayerNorm's eps from its config, and libm's tanh
 * in GELU, as PyTorch's tanh GELU and the recorded bits have it. */
static block_kind kind_of(const checkpoint_weights *w) { return (block_kind){.eps = w->eps, .tanh = tanh}; }

/* Block b's weights where they lie: q, k and v are column slices of the
 * fused c_attn (C x 3C, columns q | k | v) and its bias. */
static block_weights block_of(const checkpoint_weights *w, int b) {
    const checkpoint_block *bl = &w->blocks[b];
    const int C = w->n_embd;
    const tensor attn = tensor_f32(bl->attn_w, 3 * C), attn_b = tensor_f32(bl->attn_b, 0);
    return (block_weights){
        .ln1_gain = tensor_f32(bl->ln1_w, 0), .ln1_shift = tensor_f32(bl->ln1_b, 0),
        .wq = attn, .wk = tensor_from(attn, C), .wv = tensor_from(attn, 2 * C),
        .bq = attn_b, .bk = tensor_from(attn_b, C), .bv = tensor_from(attn_b, 2 * C),
        .wo = tensor_f32(bl->aproj_w, C), .bo = tensor_f32(bl->aproj_b, 0),
        .ln2_gain = tensor_f32(bl->ln2_w, 0), .ln2_shift = tensor_f32(bl->ln2_b, 0),
        .w1 = tensor_f32(bl->fc_w, 4 * C), .b1 = tensor_f32(bl->fc_b, 0),
        .w2 = tensor_f32(bl->mproj_w, C), .b2 = tensor_f32(bl->mproj_b, 0),
    };
}

_Static_assert((int)CHECKPOINT_BLOCK_STEPS == (int)BLOCK_PARTS, "a block's parts, one a step");

/* Step k of one sentence's pass on the lab's scratch: part k % BLOCK_PARTS
 * of block k / BLOCK_PARTS (block.h), h = X + s * wpe[offset + i] (the
 * checkpoint's table) or X first, and out = LN(h; ln_f), Hugging Face's
 * last_hidden_state, after the last. */
static int step(poslab_lab *lab, side *sd, const poslab_config *c, double s, int k) {
    const checkpoint_weights *w = weights(lab);
    const int b = k / BLOCK_PARTS, part = k % BLOCK_PARTS, C = w->n_embd;
    const block_kind kind = kind_of(w);
    const block_sequence sq = {.n = sd->n, .first = sd->offset, .x = sd->x,
                               .p = tensor_f32(w->wpe + (size_t)sd->offset * C, C), .attn = sd->attn,
                               .scores = sd->scores, .layers = sd->layers, .out = sd->out};
    const block_pass t = {
        .kind = &kind, .d = C, .heads = w->n_head, .causal = c->causal, .scheme = position_scheme_of(c->scheme),
        .s = s, .count = 1, .rows = sd->n, .seq = &sq,
        .h = lab->h, .ln = lab->ln, .q = lab->q, .k = lab->k, .v = lab->v, .att = lab->att, .proj = lab->proj,
        .hid = lab->hid, .kt = lab->kt, .cosines = lab->cosines, .sines = lab->sines,
    };
    const block_weights bw = block_of(w, b);
    if (k == 0) block_begin(&t);
    block_part(&t, &bw, b, part);
    if (part < BLOCK_PARTS - 1 || b < w->n_layer - 1) return 0;
    block_end(&t, tensor_f32(w->lnf_w, 0), tensor_f32(w->lnf_b, 0));
    column_mean(sd->mean, sd->out, sd->n, C);
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
