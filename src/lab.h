/* lab.h - the lab's insides, shared by experiment.c (which runs and compares)
 * and the models (which produce what is compared). Internal to the core.
 *
 * Several models, one face: the course module's one head and the random
 * transformer (models_drawn.c) and a checkpoint read from files
 * (model_checkpoint.c) each fill in a `model`: which tokens the sentences
 * are, the work space they need, their weights (drawn or loaded), and a
 * forward pass that writes each sentence's outputs, per-block states and
 * attention into the side's buffers. experiment.c only pairs, compares and
 * sweeps what a model gives it and never asks which model it is. */
#ifndef POSLAB_LAB_H
#define POSLAB_LAB_H

#include "poslab.h"
#include "report.h"

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
       for a sweep, where the scheme's row gives them a degree
       (positions.h). An added table: s0 = XWq XWk^T, s1 = XWq PWk^T +
       PWq XWk^T, s2 = PWq PWk^T (head h's columns), each / sqrt(d/H). A
       bias: s0 = XWq XWk^T / sqrt(d/H), s1 = the bias at s = 1 (ALiBi's
       -m_h |i - j|), s2 = 0. */
    double *s0, *s1, *s2;
    double *cross;                  /* PWq XWk^T, on its way into s1 (n x n) */
    double *x;                      /* X: the sentence's word vectors (n x d) */
    const double *p;                /* its rows of the position table (n x d), for the transformer */
    double *layers;                 /* the residual stream after each block (L x n x d) */
    double *bag;                    /* X.mean(axis=0): the baseline (d) */
} side;

/* The working memory, llm.c style: one list of buffers, whose sizes the
 * model's `sizes` computes from n, d and the vocabulary, and which
 * point_buffers sums for the arena and walks to point each buffer at its
 * slice. A new buffer is a name here, a size in the model and a slot in
 * buffer_slots, so the sizes and the carving cannot disagree. */
enum { /* one sentence's buffers; sentence B's follow A's */
    SIDE_XQ, SIDE_XK, SIDE_XV, SIDE_OUT, SIDE_TMP_OUT, SIDE_X,             /* n x d */
    SIDE_ATTN, SIDE_SCORES, SIDE_TMP_ATTN, SIDE_S0, SIDE_S1, SIDE_S2,     /* H x n x n */
    SIDE_CROSS,                                                            /* n x n */
    SIDE_MEAN, SIDE_TMP_MEAN, SIDE_BAG,                                    /* d */
    SIDE_LAYERS,                                                           /* L x n x d */
    SIDE_BUFFERS
};
enum { /* the shared buffers, after both sentences' */
    BUF_Q = 2 * SIDE_BUFFERS, BUF_K, BUF_V, BUF_KT,                        /* n x d: one pass's scratch */
    BUF_COS, BUF_SIN,                                                      /* n x d/2: a rotating scheme's angles */
    BUF_POS, BUF_PWQ, BUF_PWK, BUF_PWV,                                    /* rows x d: positions and P W */
    BUF_VECTORS, BUF_VWQ, BUF_VWK, BUF_VWV,                                /* vocab x d: one row per word */
    BUF_WQ, BUF_WK, BUF_WV,                                                /* d x d */
    BUF_BLOCKS,                                                            /* the drawn blocks' weights: L x 12 d^2 */
    BUF_H, BUF_LN, BUF_ATT, BUF_PROJ, BUF_HID,                             /* a pass through blocks (block.h): n x d, n x 4d */
    BUF_LOGITS,                                                            /* checkpoint: vocab */
    BUFFERS
};

struct poslab_lab;

/* A model: the verbs experiment.c calls. Each takes the lab and the run's
 * config (with the model's defaults already in it: see `settle`). */
typedef struct {
    /* The config as this model runs it: its default scheme and mask where
       none was given, and what it cannot run refused (may be NULL). */
    poslab_status (*settle)(const struct poslab_lab *lab, poslab_config *c, char *message, size_t size);
    /* Each sentence's tokens into a.ids/b.ids and a.n/b.n; the number of
       distinct ids to draw vectors for (the drawn models), or 0. */
    poslab_status (*tokens)(struct poslab_lab *lab, const poslab_config *c, int *vocab, char *message,
                            size_t size);
    /* The sizes of every buffer (see the enums above) and the width d and
       heads H of the sentences' buffers. */
    void (*sizes)(const struct poslab_lab *lab, const poslab_config *c, int n, int vocab, size_t sizes[BUFFERS],
                  int *d, int *heads);
    /* Draw or load: weights, each sentence's X and baseline, products. */
    void (*load)(struct poslab_lab *lab, const poslab_config *c, int vocab);
    /* Only each sentence's X, baseline and rows of the products, for new
       tokens when load's draws would be the same as the last ones (as many
       distinct words, sentences as long: see same_draws). May be NULL:
       load again. */
    void (*place)(struct poslab_lab *lab, const poslab_config *c);
    /* Blocks whose residual stream is compared (0: none). */
    int (*layer_count)(const struct poslab_lab *lab, const poslab_config *c);
    /* A sweep may use the scores' polynomial in s (the head model), where
       the scheme's row gives them one. */
    int polynomial_sweep;
    /* Before a sweep that uses the polynomial: its coefficients (may be NULL). */
    void (*begin_sweep)(struct poslab_lab *lab, const poslab_config *c);
    /* A whole pass of one sentence at scale s with the scores from their
       polynomial (sweep points; a model with polynomial_sweep only). Other
       passes go in `step`s. */
    void (*forward)(struct poslab_lab *lab, const side *sd, const poslab_config *c, double s, int polynomial,
                    double *out, double *attn, double *scores, double *mean, double *layers);
    /* Step `block` of the same pass into the side's own buffers; returns
       whether the sentence is done. */
    int (*step)(struct poslab_lab *lab, side *sd, const poslab_config *c, double s, int block);
    /* After both sentences and before `finish`, work of the model's own in
       bounded steps (may be NULL): step k; returns whether it is done. A
       checkpoint's next tokens read the whole embedding table (GPT-2
       small: 38.6 million multiply-adds a sentence), too long for one step
       of a page's thread. */
    int (*finish_step)(struct poslab_lab *lab, const poslab_config *c, int k);
    /* After both sentences: the model's own part of the result (may be NULL). */
    void (*finish)(struct poslab_lab *lab, const poslab_config *c, poslab_result *r);
} model;

/* The models' verbs; model_table.c lists the ones a build holds. */
extern const model model_head, model_transformer, model_checkpoint;

struct poslab_lab {
    int prepared;                   /* draws and products match `drawn` */
    poslab_config drawn;
    int drawn_vocab;                /* the distinct words `drawn` drew vectors for */
    int d, heads;
    int position_rows;              /* rows of pos and P W: see position_rows() */
    side a, b;
    double *q, *k, *v, *kt;         /* scratch for one forward pass */
    double *cosines, *sines;        /* a rotating scheme's angles for one forward pass */
    struct { int valid, first, rows, width; double s; } angles; /* what they hold */
    double *pos, *pwq, *pwk, *pwv;  /* the position table and its products */
    double *vectors, *vwq, *vwk, *vwv; /* the word vectors and theirs */
    double *wq, *wk, *wv;
    double *blocks;                 /* the transformer's weights, block after block */
    double *h, *ln, *att, *proj, *hid; /* scratch for one pass through blocks */
    double *logits;                 /* the checkpoint's next-token scores */
    double *arena;
    size_t arena_size;              /* in doubles */

    const poslab_checkpoint *checkpoint; /* borrowed: poslab_use_checkpoint */
    int checkpoint_serial;          /* changes with every poslab_use_checkpoint */
    int drawn_serial;               /* checkpoint_serial of `drawn` */
    poslab_sentence pieces[2];      /* a checkpoint's tokens as text */
    poslab_next_token next[2][POSLAB_NEXT_TOKENS];
    char next_text[2][POSLAB_NEXT_TOKENS][1024]; /* each next token's text */
    char model_json[512], model_text[POSLAB_MAX_PATH + 128]; /* poslab_result's */

    poslab_pair pairs[POSLAB_MAX_TOKENS];
    poslab_pair layer_pairs[POSLAB_MAX_LAYER_PAIRS];
    poslab_pair layer_means[POSLAB_MAX_BLOCKS];
    int unpaired_b[POSLAB_MAX_TOKENS];
    int unpaired_b_count, permutation;

    double *sweep_scales, *sweep_cosine;
    unsigned char *sweep_allclose;
    int sweep_capacity;
    int sweep_share, sweep_shares; /* poslab_share_sweep's; 0 shares: every point */
    int sweep_pass, sweep_stride;  /* poslab_sweep_pass's; POSLAB_PASS_ALL: every point */

    /* A run in steps (poslab_run_begin): its config, where it has got to
       (the sweep's points, then each sentence's model, a step at a time;
       a point's passes too, `block` and `sentence` below) and
       the scale of its single run. A threshold search in steps
       (poslab_threshold_begin) is phase RUN_SEARCH: its config, the block
       `at` of the probe at scale `s`, and `search` below. One state for
       both, so that beginning either ends the other: they share the tmp
       buffers and the prepared draws. */
    struct {
        enum { RUN_IDLE, RUN_SEARCH, RUN_SWEEP, RUN_SIDE_A, RUN_SIDE_B, RUN_FINISH } phase; /* no run: up to RUN_SEARCH */
        int at;
        int block, sentence;        /* a sweep point's passes in steps: the next block, and whose (0: A, 1: B) */
        double s;
        poslab_config c;
    } run;

    int have_result;
    poslab_result result;
    strbuf report;

    /* A threshold search in steps (poslab_threshold_begin; run.phase RUN_SEARCH). */
    struct search {
        int pair;                   /* whose allclose (-1: the mean) */
        double lo, hi, rel_tol;     /* poslab_threshold_begin's range */
        int probing, sentence;      /* a probe's passes under way at run.s; whose (0: A, 1: B) */
        int known, asked;           /* probes done; verdicts replayed so far */
        /* each probe's allclose, a bit each. A search probes at most
           2,698 scales: lo, a grid of at most 2,633 steps from lo >=
           4.9e-324 up to 1e6 (8 a decade, one subnormal a step where that
           rounds back), and under 64 bisections of one of its steps on
           doubles. Full, the search in steps stops with an error. */
        unsigned char verdicts[2720 / 8];
    } search;
};

#endif
