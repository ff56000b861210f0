/* checkpoint.h - a loaded checkpoint's weights, for its model
 * (model_checkpoint.c). Internal to the core; poslab.h has the calls that
 * load one, and checkpoint_family.h the families they load by. */
#ifndef POSLAB_CHECKPOINT_H
#define POSLAB_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "poslab.h"

struct checkpoint_family;

/* One block's weights, float32 as stored (x @ W + b, W row-major k x m);
 * a family's tensor table says which tensor fills which field. */
typedef struct {
    const float *ln1_w, *ln1_b;     /* C, C */
    const float *attn_w, *attn_b;   /* C x 3C, 3C: q | k | v */
    const float *aproj_w, *aproj_b; /* C x C, C */
    const float *ln2_w, *ln2_b;     /* C, C */
    const float *fc_w, *fc_b;       /* C x 4C, 4C */
    const float *mproj_w, *mproj_b; /* 4C x C, C */
} checkpoint_block;

/* The sizes config.json gives (under each family's own key names) and the
 * weights. */
typedef struct {
    const struct checkpoint_family *family; /* the row config.json named */
    int n_embd, n_layer, n_head, n_positions, vocab_size;
    double eps;
    int trained_causal, trained_positions;
    const float *wte, *wpe;         /* V x C, P x C */
    const float *lnf_w, *lnf_b;     /* C, C */
    const checkpoint_block *blocks; /* n_layer */
} checkpoint_weights;

/* The steps a block of a checkpoint's pass goes in (model_checkpoint.c's
 * step): a whole block of GPT-2 small at 8 tokens held a page's thread
 * for ~50 ms. */
enum { CHECKPOINT_BLOCK_STEPS = 3 };

/* The weights of a finished checkpoint, or NULL. */
const checkpoint_weights *checkpoint_weights_of(const poslab_checkpoint *ck);

/* Token id's text for people: its bytes, with each byte that is not part
 * of valid UTF-8 as U+FFFD (as Hugging Face decodes with
 * errors="replace"), NUL-terminated in out; the length, or -1 if it does
 * not fit in cap bytes or the id is unknown. */
int checkpoint_piece_text(const poslab_checkpoint *ck, int id, char *out, size_t cap);

/* poslab_checkpoint_json's object into out (cap bytes, 512 is room for
 * any); its length, or -1 before config.json. */
int checkpoint_describe(const poslab_checkpoint *ck, char *out, size_t cap);

#endif
