/* GPT-2's row of the family table (checkpoint_family.h), as Hugging Face's
 * GPT2Config and GPT2Model lay it out (docs/experiment.md, "Checkpoints").
 * The models trained here (models/gpt, nope, bag) are GPT-2 checkpoints
 * too, with two keys of poslab's own. */
#include "checkpoint_family.h"

#include "message.h"

#define W(f) ((long)offsetof(checkpoint_weights, f))
#define B(f) ((long)offsetof(checkpoint_block, f))

enum {
    MAX_EMBD = 65536,          /* far above any GPT-2, low enough that no size overflows */
    MAX_POSITIONS = 1 << 20,
    MAX_VOCAB = 1 << 24
};

static const char *const gelus[] = {"gelu_new", "gelu_pytorch_tanh", NULL};

static const family_key keys[] = {
    {"n_embd", KEY_INT, KEY_REQUIRED, W(n_embd), 1, MAX_EMBD, 0, NULL, NULL},
    {"n_layer", KEY_INT, KEY_REQUIRED, W(n_layer), 1, POSLAB_MAX_BLOCKS, 0, NULL, NULL},
    {"n_head", KEY_INT, KEY_REQUIRED, W(n_head), 1, MAX_EMBD, 0, NULL, NULL},
    {"n_positions", KEY_INT, KEY_REQUIRED, W(n_positions), 1, MAX_POSITIONS, 0, NULL, NULL},
    {"n_ctx", KEY_INT, KEY_FALLBACK, W(n_positions), 1, MAX_POSITIONS, 0, NULL, NULL}, /* older files */
    {"vocab_size", KEY_INT, KEY_REQUIRED, W(vocab_size), 1, MAX_VOCAB, 0, NULL, NULL},
    {"layer_norm_epsilon", KEY_POSITIVE, 0, W(eps), 0, 0, 1e-5, NULL, NULL},
    {"activation_function", KEY_WORD, 0, -1, 0, 0, 0, gelus, "gelu_new or gelu_pytorch_tanh (GPT-2's GELU)"},
    /* poslab's own keys (named "poslab_" and more): how a model trained here was trained */
    {"poslab_trained_causal", KEY_BOOL, 0, W(trained_causal), 0, 0, 1, NULL, NULL},
    {"poslab_trained_positions", KEY_BOOL, 0, W(trained_positions), 0, 0, 1, NULL, NULL},
};

static poslab_status check(const checkpoint_weights *w, const char *file, char *message, size_t size) {
    if (w->n_embd % w->n_head)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: n_head %d does not divide n_embd %d; expected a divisor",
                    file, w->n_head, w->n_embd);
    return POSLAB_OK;
}

#define C1 {W(n_embd), 1}
#define VECTOR {-1, 0}

static const family_tensor globals[] = {
    {"wte.weight", W(wte), {W(vocab_size), 1}, C1},
    {"wpe.weight", W(wpe), {W(n_positions), 1}, C1},
    {"ln_f.weight", W(lnf_w), C1, VECTOR},
    {"ln_f.bias", W(lnf_b), C1, VECTOR},
};

/* x @ W + b with W stored k x m (Conv1D), q | k | v side by side in c_attn. */
static const family_tensor block[] = {
    {"ln_1.weight", B(ln1_w), C1, VECTOR},
    {"ln_1.bias", B(ln1_b), C1, VECTOR},
    {"attn.c_attn.weight", B(attn_w), C1, {W(n_embd), 3}},
    {"attn.c_attn.bias", B(attn_b), {W(n_embd), 3}, VECTOR},
    {"attn.c_proj.weight", B(aproj_w), C1, C1},
    {"attn.c_proj.bias", B(aproj_b), C1, VECTOR},
    {"ln_2.weight", B(ln2_w), C1, VECTOR},
    {"ln_2.bias", B(ln2_b), C1, VECTOR},
    {"mlp.c_fc.weight", B(fc_w), C1, {W(n_embd), 4}},
    {"mlp.c_fc.bias", B(fc_b), {W(n_embd), 4}, VECTOR},
    {"mlp.c_proj.weight", B(mproj_w), {W(n_embd), 4}, C1},
    {"mlp.c_proj.bias", B(mproj_b), C1, VECTOR},
};

static const char *const architectures[] = {"GPT2LMHeadModel", "GPT2Model", NULL};

static const family_known known[] = {
    {"gpt", " trained here", "the folder models/gpt/"},
    {"nope", " trained here", "the folder models/nope/"},
    {"bag", " trained here", "the folder models/bag/"},
    {"gpt2", " (GPT-2's files, from Hugging Face's openai-community/gpt2)", "the folder of GPT-2's files"},
    {NULL, NULL, NULL},
};

const checkpoint_family family_gpt2 = {
    .name = "gpt2",
    .architectures = architectures,
    .keys = keys,
    .key_count = sizeof keys / sizeof keys[0],
    .sizes = "GPT-2's sizes",
    .check = check,
    .prefix = "transformer.",
    .globals = globals,
    .global_count = sizeof globals / sizeof globals[0],
    .block_prefix = "h.",
    .block = block,
    .block_count = sizeof block / sizeof block[0],
    .tokenizer = FAMILY_TOKENIZER_BPE_FILES,
    .block_kind = FAMILY_BLOCK_GPT2,
    .positions = POSLAB_SCHEME_LEARNED,
    .positions_off = "the learned table (wpe) is not added",
    .untrained_note = "trained without positions: the table is zeros",
    .known = known,
};
