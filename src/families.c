/* The family table (checkpoint_family.h): its rows, and finding the row a
 * config.json names. */
#include "checkpoint_family.h"

#include <string.h>

extern const checkpoint_family family_gpt2;

const checkpoint_family *const checkpoint_families[] = {&family_gpt2};
const int checkpoint_family_count = sizeof checkpoint_families / sizeof checkpoint_families[0];

static int listed(const char *const *names, const char *name) {
    for (; names && *names; names++)
        if (!strcmp(*names, name)) return 1;
    return 0;
}

const checkpoint_family *checkpoint_family_for(const char *model_type, const char *const *architectures,
                                                int architecture_count) {
    for (int k = 0; model_type && k < checkpoint_family_count; k++)
        if (!strcmp(checkpoint_families[k]->name, model_type)) return checkpoint_families[k];
    if (model_type) return NULL;
    for (int a = 0; a < architecture_count; a++)
        for (int k = 0; k < checkpoint_family_count; k++)
            if (listed(checkpoint_families[k]->architectures, architectures[a])) return checkpoint_families[k];
    return checkpoint_families[0];
}

const char *checkpoint_family_key(const checkpoint_family *f, long field) {
    for (int k = 0; k < f->key_count; k++)
        if (f->keys[k].field == field) return f->keys[k].name;
    return "?";
}

/* In family_tokenizer_kind order. */
static const char *const tokenizer_files[][2] = {
    {"vocab.json", "merges.txt"},
};

const char *checkpoint_tokenizer_file(family_tokenizer_kind kind, int k) { return tokenizer_files[kind][k]; }
