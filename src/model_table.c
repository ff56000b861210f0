/* The model table (model_table.h): the drawn models' rows, and a
 * checkpoint's where the build holds one.
 *
 * The one place the build boundary shows in the C: the main WebAssembly
 * module is linked without the checkpoint sources (CMakeLists.txt's
 * POSLAB_CHECKPOINT_SOURCES, which define model_checkpoint_row), and the
 * builds that link them define POSLAB_CHECKPOINT. Everything else asks
 * the rows. */
#include "model_table.h"

static const model_row model_head_row = {
    .name = "head",
    .help = "the course module's one attention head (several heads side by side with --heads)",
    .example = "--model head --scheme none",
    .verbs = &model_head,
};

static const model_row model_transformer_row = {
    .name = "transformer",
    .help = "GPT-2-style blocks: LayerNorm, attention with an output projection, a GELU MLP, residuals",
    .example = "--model transformer --layers 4 --dim 16 --scheme none --causal",
    .verbs = &model_transformer,
};

#ifdef POSLAB_CHECKPOINT
extern const model_row model_checkpoint_row;
static const model_row *const rows[] = {&model_head_row, &model_transformer_row, &model_checkpoint_row};

const char model_table_schemes[] = "none, random, sinusoidal, rope, alibi, learned",
           model_table_scheme_metavar[] = "none|random|sinusoidal|rope|alibi|learned",
           model_table_scheme_help[] = "the positional signal; with --model checkpoint, learned (the default there) or none",
           model_table_models[] = "head, transformer, checkpoint",
           model_table_model_metavar[] = "head|transformer|checkpoint",
           model_table_model_help[] =
               "the module's one attention head, GPT-2-style transformer blocks, or a checkpoint's (--checkpoint)",
           model_table_causal_help[] = "mask later words: each word attends to itself and earlier ones; with --model "
                                       "checkpoint, as it was trained unless given";
#else
static const model_row *const rows[] = {&model_head_row, &model_transformer_row};

const char model_table_schemes[] = "none, random, sinusoidal, rope, alibi",
           model_table_scheme_metavar[] = "none|random|sinusoidal|rope|alibi",
           model_table_scheme_help[] = "the positional signal",
           model_table_models[] = "head, transformer",
           model_table_model_metavar[] = "head|transformer",
           model_table_model_help[] = "the module's one attention head, or GPT-2-style transformer blocks",
           model_table_causal_help[] = "mask later words (each word attends to itself and earlier ones)";
#endif

const model_row *model_row_at(int k) {
    return k >= 0 && k < (int)(sizeof rows / sizeof rows[0]) ? rows[k] : NULL;
}
