/* checkpoint_family.h - the table of checkpoint families, Hugging Face's
 * CONFIG_MAPPING in small: how config.json names a family, its keys, its
 * tensors, its tokenizer, its block and its positions. Internal to the
 * core. The loader (checkpoint.c) and the model (model_checkpoint.c) ask a
 * checkpoint's row and never which family it is; a new family is a row
 * (family_gpt2.c shows one) and the pieces the row names. */
#ifndef POSLAB_CHECKPOINT_FAMILY_H
#define POSLAB_CHECKPOINT_FAMILY_H

#include <stddef.h>

#include "checkpoint.h"

/* How a family's tokenizer is stored, and so which files load it. */
typedef enum family_tokenizer_kind {
    FAMILY_TOKENIZER_BPE_FILES = 0 /* vocab.json and merges.txt: byte-level BPE (tokenizer.c) */
} family_tokenizer_kind;

/* How a family's block computes (model_checkpoint.c's forward pass). */
typedef enum family_block_kind {
    FAMILY_BLOCK_GPT2 = 0 /* LayerNorm first, fused q|k|v and biases, a 4C GELU MLP */
} family_block_kind;

/* ---- config.json's keys ---- */

typedef enum {
    KEY_INT,      /* a whole number from lo to hi: int */
    KEY_POSITIVE, /* a finite number above 0: double */
    KEY_BOOL,     /* true or false: int */
    KEY_WORD      /* one of `words`: checked, not kept */
} family_key_kind;

enum {
    KEY_REQUIRED = 1, /* a missing one is refused */
    KEY_FALLBACK = 2  /* read only when the row above's key is absent (n_ctx for n_positions) */
};

typedef struct {
    const char *name;
    family_key_kind kind;
    int flags;
    long field;                 /* offsetof(checkpoint_weights, ...); -1 for KEY_WORD */
    double lo, hi;              /* KEY_INT's limits */
    double absent;              /* the value of an optional key left out */
    const char *const *words;   /* KEY_WORD: the values allowed, NULL-ended */
    const char *expected;       /* KEY_WORD: what its message says is expected */
} family_key;

/* ---- the tensors ---- */

/* A tensor dimension: `times` one of config.json's sizes, the int field
 * at offset `size` of checkpoint_weights (-1: none, the cols of a vector). */
typedef struct family_extent {
    long size;
    int times;
} family_extent;

typedef struct {
    const char *name;           /* without the prefix, and a block's without "h.{i}." */
    long field;                 /* offsetof(checkpoint_weights or checkpoint_block, the pointer) */
    family_extent rows, cols;   /* cols.size -1: a vector of `rows` */
} family_tensor;

/* A name people type for --model that is a checkpoint of the family
 * (the page's links say model=gpt): refused with where to find it. */
typedef struct {
    const char *name;
    const char *what;           /* after "is a checkpoint" */
    const char *where;          /* after "or checkpoint with " */
} family_known;

typedef struct checkpoint_family {
    const char *name;                     /* its model_type */
    const char *const *architectures;     /* config.json's architectures it reads, NULL-ended */
    const family_key *keys;
    int key_count;
    const char *sizes;                    /* what a missing required key is said to be */
    /* Rules that tie keys (a divisor), after every key is read; NULL: none. */
    poslab_status (*check)(const checkpoint_weights *w, const char *file, char *message, size_t size);

    const char *prefix;                   /* a prefix names may carry ("transformer.") */
    const family_tensor *globals;
    int global_count;
    const char *block_prefix;             /* block i's tensors: block_prefix, i, ".", name */
    const family_tensor *block;
    int block_count;

    family_tokenizer_kind tokenizer;
    family_block_kind block_kind;
    poslab_scheme positions;              /* its positions as trained, the default scheme */
    const char *positions_off;            /* what scheme none does to it, for people */
    /* Said after the scheme when the checkpoint was trained without
       positions (poslab_trained_positions false), so the scheme adds nothing. */
    const char *untrained_note;
    const family_known *known;            /* NULL-name-ended */
} checkpoint_family;

/* The families, GPT-2 first. */
extern const checkpoint_family *const checkpoint_families[];
extern const int checkpoint_family_count;

/* The row config.json names: by model_type when it has one (NULL if no
 * row has it), else by the first of its architectures a row reads, else
 * the first row (files written before model_type was). */
const checkpoint_family *checkpoint_family_for(const char *model_type, const char *const *architectures,
                                                int architecture_count);

/* The name of the row's key that fills field `field` of checkpoint_weights
 * ("n_layer"), for messages; "?" if none does. */
const char *checkpoint_family_key(const checkpoint_family *f, long field);

/* File k (0, 1) of a tokenizer kind, as a checkpoint folder names it. */
const char *checkpoint_tokenizer_file(family_tokenizer_kind kind, int k);

#endif
