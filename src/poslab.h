/* poslab.h - the attention core of poslab, a lab on why transformers need
 * positional information.
 *
 * The core runs one experiment: two sentences go through a model (the
 * course module's attention head, one or several heads wide; random
 * transformer blocks; or a trained checkpoint read from files), with word
 * vectors and weights drawn exactly as NumPy's legacy `np.random.seed` /
 * `np.random.randn` draw them or loaded, with or without a positional
 * signal, and the outputs of the same word in both sentences are compared
 * the way `np.allclose` compares them. docs/experiment.md defines every
 * number; this header is the only public interface, shared by the native CLI,
 * the tests and the WebAssembly module.
 *
 * API at a glance
 *
 *   poslab_config_default(cfg)            fill a config with the defaults
 *   poslab_config_new() / _free()         a config on the heap (for FFI callers)
 *   poslab_config_set(cfg, key, value)    parse and validate one option from text
 *   poslab_config_check(cfg, ..)          validate a config filled in by hand
 *   poslab_option_at(index)               the option table: one row per option
 *   poslab_choice_word(row, k, ..)        a choice's words, described for --help
 *   poslab_options_json()                 the same table as JSON, for JavaScript
 *   poslab_create() / poslab_destroy()    a lab: owns all working memory
 *   poslab_run(lab, cfg)                  run the experiment (and sweep)
 *   poslab_run_begin() / _step()          the same run in bounded steps
 *   poslab_result_of(lab)                 the numbers of the last run
 *   poslab_json(lab, flags)               the last run as the CLI's JSON
 *   poslab_result_array(lab, which)       one array of it, for FFI callers
 *   poslab_text(lab)                      the last run as the CLI's text
 *   poslab_threshold(lab, cfg, pair, ..)  largest scale at which allclose holds
 *   poslab_threshold_begin() / _step()    the same search in bounded steps
 *   poslab_status_text(status)            a status code in words
 *
 * Errors are values: every call that can fail returns a poslab_status and, when
 * given a buffer, writes one line naming the input, the value and what is
 * allowed. Nothing here exits, prints or keeps global state; a lab may be
 * reused for any number of runs, and separate labs are independent.
 */
#ifndef POSLAB_H
#define POSLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    POSLAB_MAX_TOKENS = 64,      /* tokens per sentence */
    POSLAB_MAX_TOKEN_BYTES = 64, /* bytes per token (UTF-8) */
    POSLAB_MAX_DIM = 512,
    POSLAB_MAX_SWEEP = 1001,     /* points in a sweep */
    POSLAB_MAX_OFFSET = 1024,    /* position of a sentence's first word */
    POSLAB_MAX_HEADS = 8,
    POSLAB_MAX_LAYERS = 12,      /* transformer blocks */
    POSLAB_MAX_BLOCKS = 64,      /* a checkpoint's blocks (n_layer) */
    POSLAB_MAX_LAYER_PAIRS = POSLAB_MAX_BLOCKS * POSLAB_MAX_TOKENS,
    POSLAB_NEXT_TOKENS = 5,      /* most likely next tokens reported */
    POSLAB_MAX_PATH = 256,       /* bytes of a checkpoint's name, NUL included */
    POSLAB_MESSAGE_BYTES = 320   /* room for any error line, NUL included */
};

#define POSLAB_MAX_SCALE 1e6

typedef enum {
    POSLAB_OK = 0,
    POSLAB_ERR_INPUT,   /* an option or sentence is outside its valid range */
    POSLAB_ERR_KEY,     /* an option name that does not exist */
    POSLAB_ERR_NOMEM,   /* working memory could not be allocated */
    POSLAB_ERR_STATE,   /* a call that needs a successful run came before one */
    POSLAB_RUNNING      /* not an error: poslab_run_step or _threshold_step has steps left */
} poslab_status;

/* The model: the course module's attention head, GPT-2-style transformer
 * blocks, or a checkpoint (docs/experiment.md). A build without the
 * checkpoint sources (the page's main WebAssembly module) refuses the
 * last. */
typedef enum {
    POSLAB_MODEL_HEAD = 0,
    POSLAB_MODEL_TRANSFORMER,
    POSLAB_MODEL_CHECKPOINT     /* weights from files: poslab_use_checkpoint */
} poslab_model;

typedef enum {
    POSLAB_SCHEME_NONE = 0,
    POSLAB_SCHEME_RANDOM,
    POSLAB_SCHEME_SINUSOIDAL,
    POSLAB_SCHEME_ROPE,
    POSLAB_SCHEME_ALIBI,
    POSLAB_SCHEME_LEARNED       /* a checkpoint's own position table */
} poslab_scheme;

/* One sentence, tokenised: token k is text + offset[k], NUL-terminated. */
typedef struct {
    int count;
    uint16_t offset[POSLAB_MAX_TOKENS];
    char text[POSLAB_MAX_TOKENS * (POSLAB_MAX_TOKEN_BYTES + 1)];
} poslab_sentence;

/* Everything that defines a run. A plain value: copy it freely. */
typedef struct {
    poslab_sentence a, b;
    int dim;
    uint32_t seed;
    poslab_scheme scheme;
    int scheme_given;    /* else a checkpoint runs its own table */
    double scale;        /* used when scale_given; else the scheme's default */
    int scale_given;
    int causal;
    int causal_given;    /* else a checkpoint runs as it was trained */
    double rtol, atol;
    int offset_a, offset_b; /* position of each sentence's first word */
    poslab_model model;
    int heads;           /* attention heads; must divide dim */
    int layers;          /* transformer blocks (model transformer only) */
    double weight_std;   /* the transformer's weight scale (GPT-2: 0.02) */
    int sweep_count;     /* 0: no sweep */
    double sweep_lo, sweep_hi;
    /* Model checkpoint: a space before each sentence before tokenizing, and
       the checkpoint's name as the caller calls it (echoed, not opened). */
    int prefix_space;
    char checkpoint[POSLAB_MAX_PATH];
} poslab_config;

typedef struct {
    int index_a, index_b;     /* index_b is -1 when the word has no partner */
    int allclose;             /* np.allclose(out_a[index_a], out_b[index_b]) */
    double max_abs_diff;
    double cosine_distance;   /* as computed: may be a tiny negative number */
} poslab_pair;

/* One of a checkpoint's most likely next tokens. */
typedef struct {
    int id;
    double probability;
    const char *text;         /* its text (bytes that are not UTF-8 as U+FFFD) */
} poslab_next_token;

typedef struct poslab_checkpoint poslab_checkpoint;

/* The numbers of one run. All pointers point into the lab's memory and stay
 * valid until the next poslab_run or poslab_destroy on that lab. */
typedef struct {
    poslab_config config;     /* with the effective scale filled in */
    int len_a, len_b, dim;
    int pair_count;           /* == len_a: one entry per word of sentence A */
    const poslab_pair *pairs;
    poslab_pair mean;         /* index_a = index_b = -1 */
    /* The order-blind baseline: the mean of each sentence's raw word vectors
     * (no positions, no attention), compared like the outputs. */
    poslab_pair baseline;
    double baseline_cosine_similarity;
    int permutation;          /* B is a reordering of A */
    int unpaired_b_count;
    const int *unpaired_b;    /* indices into B with no partner in A */
    const double *output_a;   /* len_a x dim, row-major */
    const double *output_b;   /* len_b x dim */
    int heads;
    /* Per head, head 0 first: heads x len_a x len_a (and len_b for B). The
     * weights after the softmax, and the scores before it (-inf where the
     * mask hides a word). */
    const double *attention_a;
    const double *attention_b;
    const double *scores_a;
    const double *scores_b;
    /* Model transformer: the residual stream after each block, compared like
     * the outputs. layer_pairs is layer_count x pair_count, row-major
     * (entries of words without a partner are left unset); 0 layers for the
     * head model. The attention and scores above are the last block's. */
    int layer_count;
    const poslab_pair *layer_pairs;
    const poslab_pair *layer_means;
    int sweep_count;
    const double *sweep_scales;          /* sweep_count */
    /* (1 + pair_count) x sweep_count, row-major: row 0 is the sentence mean,
     * row 1 + i is pairs[i] (left unfilled for a word without a partner). */
    const double *sweep_cosine;
    const unsigned char *sweep_allclose; /* 0 or 1, same layout */
    /* What pairs and reports name each token by: the config's words, or a
       checkpoint's tokens as text (bytes that are not UTF-8 as U+FFFD). */
    const poslab_sentence *words_a, *words_b;
    /* Model checkpoint only (else NULL): the checkpoint, the token ids, the
       cosine similarity of the output means (1 - mean.cosine_distance) and
       each sentence's POSLAB_NEXT_TOKENS most likely next tokens. */
    const poslab_checkpoint *checkpoint;
    const int *ids_a, *ids_b;
    double mean_cosine_similarity;
    const poslab_next_token *next_a, *next_b;
    /* What a model says of itself, for the reports (NULL where it says
     * nothing: the drawn models): a JSON object (a checkpoint's sizes,
     * the JSON's "checkpoint"), the text report's words for its settings,
     * and a note after the scheme's (a checkpoint trained without
     * positions). */
    const char *model_json, *model_text, *scheme_note;
} poslab_result;

/* The result's arrays by name, for callers that copy them out of memory they
 * cannot read as a struct (the WebAssembly wrapper). */
typedef enum {
    POSLAB_OUTPUT_A = 0,     /* double, len_a x dim */
    POSLAB_OUTPUT_B,         /* double, len_b x dim */
    POSLAB_ATTENTION_A,      /* double, heads x len_a x len_a */
    POSLAB_ATTENTION_B,      /* double, heads x len_b x len_b */
    POSLAB_SWEEP_SCALES,     /* double, sweep_count */
    POSLAB_SWEEP_COSINE,     /* double, (1 + pair_count) x sweep_count */
    POSLAB_SWEEP_ALLCLOSE,   /* unsigned char, same layout */
    POSLAB_SCORES_A,         /* double, heads x len_a x len_a */
    POSLAB_SCORES_B          /* double, heads x len_b x len_b */
} poslab_array;

/* What poslab_json writes: FULL adds the outputs and attention matrices;
 * NO_SWEEP leaves the sweep out even when the run made one. */
enum { POSLAB_JSON_FULL = 1, POSLAB_JSON_NO_SWEEP = 2 };

typedef struct poslab_lab poslab_lab;

/* Fills cfg with the defaults of docs/experiment.md: "dog bites man" /
 * "man bites dog", d 6, seed 2, scheme random at 0.5, no mask, NumPy's
 * tolerances, no sweep. */
void poslab_config_default(poslab_config *cfg);

/* A config with the defaults on the heap, for callers that cannot know
 * sizeof(poslab_config) (the WebAssembly wrapper); NULL when out of memory. */
poslab_config *poslab_config_new(void);
void poslab_config_free(poslab_config *cfg);

/* Parses `value` for option `key` and stores it in cfg. Keys are the option
 * table's names (poslab_option_at: the CLI's option names without dashes,
 * such as dim, offset-a or sweep, "LO:HI:COUNT" or "" for none) or its JSON
 * config names (sentence_a, offset_a). Checks that involve two options (heads must divide dim) wait
 * for poslab_config_check, since options may come in any order. On error cfg is
 * left unchanged and `message` (if not NULL) receives one line such as
 * `dim: "513" is out of range; allowed: an integer from 1 to 512`, saying
 * what is wrong: "is not a number", "is not a finite number" (nan, inf),
 * "is not an integer" (1.5), and "is out of range" only for a number of
 * the right sort outside the row's limits; a sweep says the same of its
 * part in brackets: `"1:0.5:3" is not a valid sweep (LO is above HI)`. */
poslab_status poslab_config_set(poslab_config *cfg, const char *key,
                                const char *value, char *message,
                                size_t message_size);

/* Checks every option of a config that may have been filled in by hand
 * rather than through poslab_config_set, with the same words as its
 * messages, so that no input reaches the kernels out of range. poslab_run
 * and poslab_threshold call it first. */
poslab_status poslab_config_check(const poslab_config *cfg, char *message,
                                  size_t message_size);

/* ---- the option table ----------------------------------------------------
 * Every option is one row: parsing, checking, the CLI's usage and option
 * list, the JSON config echo and poslab_options_json all walk these rows. */
typedef enum {
    POSLAB_KIND_TEXT,    /* a sentence: poslab_sentence, min..max words */
    POSLAB_KIND_INTEGER, /* decimal digits: int, or uint32_t when max > INT_MAX */
    POSLAB_KIND_NUMBER,  /* a finite decimal number: double */
    POSLAB_KIND_CHOICE,  /* one of the words of `value`: an enum, their index */
    POSLAB_KIND_SWITCH,  /* true/1 or false/0: int; on the CLI a bare --name
                            is true, and --name=VALUE takes those words */
    POSLAB_KIND_SWEEP,   /* LO:HI:COUNT (or "" for none): sweep_lo, sweep_hi,
                            sweep_count; min..max bound COUNT */
    POSLAB_KIND_NAME     /* any text up to max bytes: char[] */
} poslab_kind;

typedef struct {
    const char *name;      /* the CLI's name without dashes: "a", "dim" */
    const char *json;      /* the key in the JSON config: "sentence_a", "dim" */
    poslab_kind kind;
    double min, max;       /* see poslab_kind; max INFINITY: no upper bound */
    const char *default_text; /* poslab_config_default parses it; NULL: unset */
    const char *(*value)(int k); /* CHOICE: word k, NULL past the last */
    const char *allowed;   /* what messages say after "allowed: " */
    const char *metavar;   /* the value in usage text; NULL for a switch */
    const char *help;      /* one line for --help */
    int echo;              /* written in the JSON result's config */
    size_t offset;         /* offsetof(poslab_config, field) */
    int given;             /* offsetof an int set to 1 when the option is set;
                              -1 if there is none */
    unsigned models;       /* bit 1 << poslab_model for each model it is for;
                              0: every model */
} poslab_option;

/* Whether option row o is one that model m reads (a caller refuses it given
 * for another model; the JSON config echoes only those). */
int poslab_option_for(const poslab_option *o, poslab_model m);

/* Row `index` of the option table (0, 1, ...), NULL past the last. */
const poslab_option *poslab_option_at(int index);

/* Word k of a CHOICE row (NULL past the last, or for another kind), its
 * one-line description for --help written to `help` (size bytes; "" if it
 * has none) and, if `example` is not NULL, the arguments of a command line
 * that shows it at work ("--model head --scheme none"), or NULL. */
const char *poslab_choice_word(const poslab_option *o, int k, char *help, size_t size,
                               const char **example);

/* The option table, the scheme table and the limits as one JSON object,
 * for JavaScript: {"limits":{...},"schemes":[{"name","default_scale"}...],
 * "options":[{"name","json","kind","min","max","values","default","allowed",
 * "metavar","help","echo"}...]} (min/max for text, integer, number and
 * sweep; values for a choice; a null default is unset, a null max no bound).
 * Built on the first call into static storage and never freed, so the
 * first call must not race another; NULL only if the table outgrew it. */
const char *poslab_options_json(void);

/* The scale a run of cfg uses: the given one, or the scheme's default
 * (none and random 0.5, the others 1). */
double poslab_config_scale(const poslab_config *cfg);

const char *poslab_scheme_name(poslab_scheme scheme);

/* ALiBi's slope for head `head` (0-based) of `heads`: Press et al.'s
 * get_slopes, 2^(-8(h+1)/heads) for a power of two (docs/experiment.md);
 * NAN outside 1 <= heads <= POSLAB_MAX_HEADS, 0 <= head < heads. */
double poslab_alibi_slope(int head, int heads);

/* Rows first .. first+count-1 of the sinusoidal table for width dim into
 * out (count x dim): PE[p, j] = sin or cos of p / 10000^(2 floor(j/2) / dim).
 * The page draws why the scheme works from it. POSLAB_ERR_INPUT unless
 * 0 <= first, 1 <= count, first + count <= POSLAB_MAX_OFFSET + POSLAB_MAX_TOKENS
 * and 1 <= dim <= POSLAB_MAX_DIM. */
poslab_status poslab_sinusoidal_table(int first, int count, int dim, double *out);

/* A lab owns the working memory of runs; NULL when out of memory. */
poslab_lab *poslab_create(void);
void poslab_destroy(poslab_lab *lab);

/* Runs the experiment of cfg (and its sweep). Draws and projections are kept
 * between runs and reused when only the scale, mask, tolerances or sweep
 * change, so moving a slider costs O(words^2 x d), not O(words x d^2). */
poslab_status poslab_run(poslab_lab *lab, const poslab_config *cfg,
                         char *message, size_t message_size);

/* The same run in steps, for a caller that must stay responsive while it
 * computes: a browser's worker, which reads a newer request only between
 * calls, and at 64 words, d 512 and 12 blocks a run takes a second.
 * poslab_run_begin checks cfg, makes the draws it needs (the unbounded
 * part, as in poslab_run) and copies cfg; each poslab_run_step then does one
 * bounded piece: the head model for one sentence, one block of one
 * sentence of the transformer, or a third of one of a checkpoint's (its
 * attention; LayerNorm, c_fc and GELU; the MLP's c_proj), each for the run or for a
 * point of its sweep (a point is a pass of both sentences). It returns POSLAB_RUNNING while steps
 * are left and POSLAB_OK with the last, when the result is there, equal to
 * poslab_run's to the bit (poslab_run is these calls). A caller drops a
 * run by not stepping it: the next poslab_run_begin, poslab_run or
 * poslab_threshold ends it, keeping its draws for a run that shares them.
 * poslab_run_step without a run begun: POSLAB_ERR_STATE. */
poslab_status poslab_run_begin(poslab_lab *lab, const poslab_config *cfg,
                               char *message, size_t message_size);
poslab_status poslab_run_step(poslab_lab *lab, char *message, size_t message_size);

/* Makes the lab's later runs compute only the sweep points t with
 * t % shares == share, leaving the others as they were, so that `shares`
 * labs, on as many threads, compute one sweep between them (the page's two
 * sweep workers). A point is the same whichever lab computes it, so the
 * points gathered from the shares equal poslab_run's sweep to the bit.
 * Without positions (scheme none) every point is a copy of the first and
 * each share has them all. Share 0 of 1, the default, computes every
 * point. POSLAB_ERR_INPUT unless 0 <= share < shares. */
poslab_status poslab_share_sweep(poslab_lab *lab, int share, int shares);

/* Which of a sweep's points the lab's later runs compute: all of them
 * (POSLAB_PASS_ALL, the default), only every stride-th from the first
 * (POSLAB_PASS_COARSE: t % stride == 0) or only the others
 * (POSLAB_PASS_REST). A coarse first curve taken from the sweep itself and
 * then the rest compute each point once, where a coarse sweep of its own
 * and then the whole sweep computed the coarse points twice (the page's
 * chart at 64 words, d 512). Shares (poslab_share_sweep) split the points
 * of the pass: its k-th point (k = 0, 1, ...) goes to share k % shares.
 * Without positions every point is computed, as with shares.
 * POSLAB_ERR_INPUT for another pass or a stride under 2. */
typedef enum { POSLAB_PASS_ALL = 0, POSLAB_PASS_COARSE = 1, POSLAB_PASS_REST = 2 } poslab_pass;
poslab_status poslab_sweep_pass(poslab_lab *lab, int pass, int stride);

/* The last successful run, or NULL if there was none. */
const poslab_result *poslab_result_of(const poslab_lab *lab);

/* The last run as the CLI's JSON object (docs/interfaces.md), NUL-terminated and
 * owned by the lab until its next call. `flags`: POSLAB_JSON_* bits.
 * NULL if there was no successful run or memory ran out. */
const char *poslab_json(poslab_lab *lab, int flags);

/* One array of the last run (see poslab_array), valid until the next run;
 * NULL if there was no successful run or `which` is unknown. */
const void *poslab_result_array(const poslab_lab *lab, poslab_array which);

/* The last run as the CLI's human-readable text, like poslab_json. */
const char *poslab_text(poslab_lab *lab);

/* Where allclose stops holding for pair `pair` (an index into the last
 * run's pairs, or -1 for the mean) with the draws of cfg: the scale s in
 * [lo, hi] at which allclose is True on a log grid from lo up to s and
 * False just above s. It walks up the grid (8 points per decade) to the
 * first False, then bisects that step on log(scale) to a relative width of
 * `rel_tol`. Writes 0 if allclose is False already at lo, and hi if it
 * never fails. */
poslab_status poslab_threshold(poslab_lab *lab, const poslab_config *cfg,
                               int pair, double lo, double hi, double rel_tol,
                               double *scale, char *message,
                               size_t message_size);

/* The same search in steps, for a caller that must stay responsive: each
 * probe is a pass of both sentences, and on a checkpoint the size of
 * GPT-2 small one pass takes a third of a second. poslab_threshold_begin
 * checks its arguments as poslab_threshold does and makes the draws it
 * needs; each poslab_threshold_step then does one bounded piece (as
 * poslab_run_step does) and returns
 * POSLAB_RUNNING while steps are left, POSLAB_OK with *scale set with the
 * last. *scale is poslab_threshold's to the bit (poslab_threshold is these
 * calls). A search and a run in steps share the lab's state: beginning
 * either, poslab_run or poslab_threshold ends the other, as it ends a
 * search dropped part way. poslab_threshold_step without a search begun:
 * POSLAB_ERR_STATE. */
poslab_status poslab_threshold_begin(poslab_lab *lab, const poslab_config *cfg,
                                     int pair, double lo, double hi,
                                     double rel_tol, char *message,
                                     size_t message_size);
poslab_status poslab_threshold_step(poslab_lab *lab, double *scale,
                                    char *message, size_t message_size);

/* ---- checkpoints (model checkpoint; docs/experiment.md "Checkpoints") ------
 * A checkpoint in Hugging Face's layout, of a family the core reads (its
 * config.json's model_type; GPT-2's today), read from bytes the caller
 * hands over, so that the native CLI (fread) and the browser
 * (Blob.slice, a fetch stream) share one path and no file is held twice:
 *
 *   poslab_checkpoint_create(&ck)
 *   poslab_checkpoint_config(ck, "config.json", text, len)     sizes
 *   poslab_checkpoint_tokenizer(ck, vocab, .., merges, ..)     vocab.json, merges.txt
 *   poslab_checkpoint_shards(ck, "model.safetensors.index.json", text, len)
 *                                                              (sharded only)
 *   per safetensors file, in any order:
 *     poslab_safetensors_header_bytes(first 8 bytes, file size) how much to read
 *     poslab_checkpoint_add_file(ck, name, file size, header)  its tensors
 *   poslab_checkpoint_plan(ck, &bytes)      every tensor found and checked;
 *                                           the memory the weights will take
 *   poslab_checkpoint_allocate(ck)          that memory, once
 *   poslab_checkpoint_feed(ck, file, at, bytes, len)   each file's bytes after
 *                                           its header, in file order, in
 *                                           chunks of any size
 *   poslab_checkpoint_finish(ck)            every tensor complete
 *   poslab_use_checkpoint(lab, ck)          runs of model checkpoint use it
 *   poslab_checkpoint_free(ck)
 *
 * A file that is not what it should be gives POSLAB_ERR_INPUT and one line
 * naming the file, the tensor or key, what was found and what was expected;
 * POSLAB_ERR_NOMEM when memory runs out. After an error the checkpoint
 * holds no weights (only poslab_checkpoint_free is left to call). A
 * checkpoint with a tokenizer and nothing else can already tokenize. */
poslab_status poslab_checkpoint_create(poslab_checkpoint **out);
void poslab_checkpoint_free(poslab_checkpoint *ck);

/* config.json: its model_type (or architectures) names the family, whose
 * keys are read (GPT-2: n_embd, n_layer, n_head, n_positions or n_ctx,
 * vocab_size, layer_norm_epsilon, activation_function,
 * poslab_trained_causal and poslab_trained_positions). `file` names it in
 * messages. */
poslab_status poslab_checkpoint_config(poslab_checkpoint *ck, const char *file, const char *json, size_t len,
                                       char *message, size_t size);

/* vocab.json and merges.txt. */
poslab_status poslab_checkpoint_tokenizer(poslab_checkpoint *ck, const char *vocab_file, const char *vocab,
                                          size_t vocab_len, const char *merges_file, const char *merges,
                                          size_t merges_len, char *message, size_t size);
/* The same in bounded steps (GPT-2's 50,257 tokens and 50,000 merges are
 * tens of milliseconds each in WebAssembly, too long for one task of a
 * page): each
 * _step reads up to 8192 entries of vocab.json, then up to 8192 lines of
 * merges.txt, and returns POSLAB_RUNNING while some are left, then
 * POSLAB_OK or poslab_checkpoint_tokenizer's error. Both texts must stay in
 * place until the last step. */
poslab_status poslab_checkpoint_tokenizer_begin(poslab_checkpoint *ck, const char *vocab_file, const char *vocab,
                                                size_t vocab_len, const char *merges_file, const char *merges,
                                                size_t merges_len, char *message, size_t size);
poslab_status poslab_checkpoint_tokenizer_step(poslab_checkpoint *ck, char *message, size_t size);

/* model.safetensors.index.json: which file holds each tensor. Afterwards
 * poslab_checkpoint_shard(ck, k) names the k-th file to add (NULL past the
 * last), in order of first mention. */
poslab_status poslab_checkpoint_shards(poslab_checkpoint *ck, const char *file, const char *json, size_t len,
                                       char *message, size_t size);
const char *poslab_checkpoint_shard(const poslab_checkpoint *ck, int k);

/* From a safetensors file's first 8 bytes and its size: how many bytes from
 * its start hold its header (8 + N), refused when N is over 100 MB or the
 * file is shorter than that. */
poslab_status poslab_safetensors_header_bytes(const char *file, const unsigned char first[8], uint64_t file_size,
                                              uint64_t *header_bytes, char *message, size_t size);

/* One safetensors file's header (the first header_bytes bytes of it);
 * `*index` gets the number poslab_checkpoint_feed knows the file by. */
poslab_status poslab_checkpoint_add_file(poslab_checkpoint *ck, const char *file, uint64_t file_size,
                                         const unsigned char *header, size_t header_bytes, int *index,
                                         char *message, size_t size);

/* Checks that every tensor config.json implies is there once with its
 * shape, that none overlaps another or leaves its file, and writes the
 * bytes that poslab_checkpoint_allocate will take. Nothing large is
 * allocated before this. */
poslab_status poslab_checkpoint_plan(poslab_checkpoint *ck, uint64_t *bytes, char *message, size_t size);
poslab_status poslab_checkpoint_allocate(poslab_checkpoint *ck, char *message, size_t size);

/* Bytes at..at+len-1 of file `index` (counted from the file's start); each
 * call starts where the last one of that file ended, the first at its
 * header's end. */
poslab_status poslab_checkpoint_feed(poslab_checkpoint *ck, int index, uint64_t at, const unsigned char *bytes,
                                     size_t len, char *message, size_t size);
/* Where file `index`'s next feed starts, and where its last needed byte
 * ends (a caller may stop reading there). */
uint64_t poslab_checkpoint_file_next(const poslab_checkpoint *ck, int index);
uint64_t poslab_checkpoint_file_end(const poslab_checkpoint *ck, int index);
poslab_status poslab_checkpoint_finish(poslab_checkpoint *ck, char *message, size_t size);

/* The checkpoint as JSON: {"n_embd":..,"n_layer":..,"n_head":..,
 * "n_positions":..,"vocab_size":..,"dtype":"F32","parameters":..,
 * "trained_causal":..,"trained_positions":..}; owned by ck. NULL before
 * config.json (or out of memory). */
const char *poslab_checkpoint_json(poslab_checkpoint *ck);

/* The lab's runs of model checkpoint use ck (borrowed: keep it until the
 * lab is destroyed or given another; NULL detaches). ck must be finished. */
poslab_status poslab_use_checkpoint(poslab_lab *lab, const poslab_checkpoint *ck, char *message, size_t size);

/* A sentence's words joined by single spaces, the text a run tokenizes:
 * out has room for sizeof s->text bytes (every word at its longest, each
 * with a space or the NUL after it). Returns its length. */
size_t poslab_sentence_join(const poslab_sentence *s, char *out);

/* The checkpoint tokenizer's tokens of text (len bytes), with one space
 * before it when prefix_space: ids[0..*count-1] (at most max). */
poslab_status poslab_checkpoint_tokenize(const poslab_checkpoint *ck, const char *text, size_t len,
                                         int prefix_space, int *ids, int max, int *count, char *message,
                                         size_t size);
/* The bytes of token id (*len of them, not NUL-terminated); NULL for an
 * id outside the vocabulary. */
const char *poslab_checkpoint_piece(const poslab_checkpoint *ck, int id, size_t *len);
/* {"tokens":[{"id":3290,"text":" dog"},...]} for text; owned by ck until
 * its next call. NULL on error (message says why). */
const char *poslab_checkpoint_tokens_json(poslab_checkpoint *ck, const char *text, size_t len, int prefix_space,
                                          char *message, size_t size);

const char *poslab_status_text(poslab_status status);

#ifdef __cplusplus
}
#endif
#endif /* POSLAB_H */
