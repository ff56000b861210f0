/* model_table.h - the models a build holds, one row each, and what each
 * adds to the lab's tables: its --model word and --help line, its verbs
 * (lab.h), option rows only it reads, a scheme of its own and its rules
 * between options. Internal to the core. config.c, experiment.c and the
 * CLI ask these rows and never which model they hold. */
#ifndef POSLAB_MODEL_TABLE_H
#define POSLAB_MODEL_TABLE_H

#include <stddef.h>

#include "lab.h"
#include "poslab.h"

typedef struct {
    const char *name;              /* --model's word, in poslab_model order */
    const char *help, *example;    /* its --help line, and its example's arguments */
    const model *verbs;
    const poslab_option *options;  /* rows only it reads, after the common rows */
    int option_count;
    /* A scheme of its own, numbered after the common ones (NULL: none):
       its word, --help line, default scale, and what it is when another
       model is given it. */
    const char *scheme, *scheme_help;
    double scheme_scale;
    const char *scheme_is;
    /* Its rules between options, after each row's own check (NULL: heads
       divide dim). */
    poslab_status (*check)(const poslab_config *c, char *message, size_t size);
    /* A word given for --model that is not a model but names a thing of
       this model's kind (--model gpt): its message, or POSLAB_OK if value
       is no such word. `key` and `quoted` as config.c's messages write
       them. May be NULL. */
    poslab_status (*not_a_model)(const char *key, const char *quoted, const char *value, char *message,
                                 size_t size);
} model_row;

/* Row k (a poslab_model), NULL past the last. */
const model_row *model_row_at(int k);

/* The common rows' texts that list what the build holds (the scheme, model
 * and causal rows'); model_table.c writes them for each build, and
 * test_core checks that they list the table's words. */
extern const char model_table_schemes[], model_table_scheme_metavar[], model_table_scheme_help[],
    model_table_models[], model_table_model_metavar[], model_table_model_help[], model_table_causal_help[];

#endif
