/* Model checkpoint's row of the model table (model_table.h): its option
 * rows, its scheme (the one a family was trained with, as the family table
 * says), and its rules, which read the family table so that they name
 * what each family runs. */
#include <stddef.h>
#include <string.h>

#include "checkpoint_family.h"
#include "decimal.h"
#include "message.h"
#include "model_table.h"

extern const model_row model_checkpoint_row;

#define FIELD(f) offsetof(poslab_config, f)

static const poslab_option options[] = {
    {"checkpoint", "checkpoint", POSLAB_KIND_NAME, 1, POSLAB_MAX_PATH - 1, NULL, NULL,
     "a path of 1 to 255 bytes", "PATH",
     "a checkpoint folder, or a .safetensors file with config.json, vocab.json and merges.txt beside it", 1,
     FIELD(checkpoint), -1, 1u << POSLAB_MODEL_CHECKPOINT},
    {"prefix-space", "prefix_space", POSLAB_KIND_SWITCH, 0, 1, "true", NULL, "true, false, 1 or 0", NULL,
     "put a space before each sentence before tokenizing, so a word is the same token anywhere", 1,
     FIELD(prefix_space), -1, 1u << POSLAB_MODEL_CHECKPOINT},
};

/* Whether some family runs scheme s, as trained. */
static int a_family_runs(poslab_scheme s) {
    for (int k = 0; k < checkpoint_family_count; k++)
        if (checkpoint_families[k]->positions == s) return 1;
    return 0;
}

/* A scheme given must be one a family was trained with, or none (a
 * checkpoint's own positions taken away); which one the checkpoint at hand
 * runs is its model's to say (model_checkpoint.c's settle). dim, heads and
 * layers are the checkpoint's. */
static poslab_status check(const poslab_config *c, char *message, size_t size) {
    if (!c->scheme_given || c->scheme == POSLAB_SCHEME_NONE || a_family_runs(c->scheme)) return POSLAB_OK;
    char allowed[96];
    size_t at = 0;
    for (int s = 0; s <= POSLAB_SCHEME_LEARNED; s++) /* each scheme once, in table order */
        if (s != POSLAB_SCHEME_NONE && a_family_runs((poslab_scheme)s))
            at += (size_t)decimal_snprintf(allowed + at, sizeof allowed - at, "%s, ", poslab_scheme_name((poslab_scheme)s));
    return fail(message, size, POSLAB_ERR_INPUT, "scheme: \"%s\" is not a scheme of model %s; allowed: %snone",
                poslab_scheme_name(c->scheme), model_checkpoint_row.name, allowed);
}

/* The families' known checkpoints typed where a model is asked for (the
 * page's links say model=gpt): said as what they are. */
static poslab_status not_a_model(const char *key, const char *quoted, const char *value, char *message,
                                 size_t size) {
    for (int k = 0; k < checkpoint_family_count; k++)
        for (const family_known *n = checkpoint_families[k]->known; n && n->name; n++) {
            if (strcmp(value, n->name)) continue;
            char models[96];
            size_t at = 0;
            const model_row *m;
            for (int i = 0; (m = model_row_at(i)) && m != &model_checkpoint_row; i++)
                at += (size_t)decimal_snprintf(models + at, sizeof models - at, "%s, ", m->name);
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: %s is a checkpoint%s, not a model of its own; allowed: %sor %s with %s", key, quoted,
                        n->what, models, model_checkpoint_row.name, n->where);
        }
    return POSLAB_OK;
}

const model_row model_checkpoint_row = {
    .name = "checkpoint",
    .help = "a trained GPT-2 checkpoint's blocks and weights, read from --checkpoint's folder",
    .example = "--model checkpoint --checkpoint PATH",
    .verbs = &model_checkpoint,
    .options = options,
    .option_count = sizeof options / sizeof options[0],
    .scheme = "learned",
    .scheme_help = "the checkpoint's own table of positions, as trained (model checkpoint)",
    .scheme_scale = 1,
    .scheme_is = "a checkpoint's own table",
    .check = check,
    .not_a_model = not_a_model,
};
