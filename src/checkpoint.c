/* Loading a checkpoint (poslab.h, "checkpoints"), llm.c's way: read the
 * headers, size every tensor from config.json in one table, check the
 * headers against it, allocate once, point each tensor at its slice, then
 * convert the data as it streams past. Nothing large is allocated before
 * every header has been checked, and after an error nothing is kept but
 * the small bookkeeping poslab_checkpoint_free releases.
 *
 * The data comes in file order in chunks of any size (fread natively,
 * Blob.slice or a fetch stream in the browser): each file keeps its used
 * tensors sorted by offset and a cursor into them, and an element cut by a
 * chunk's end waits in a few bytes of carry. So no file is ever held whole. */
#include "checkpoint.h"
#include "checkpoint_family.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "json_read.h"
#include "message.h"
#include "tokenizer.h"

#define MAX_HEADER_BYTES 100000000ull /* the safetensors header (N), as the format's own readers cap it */
enum {
    MAX_FILES = 256,       /* safetensors shards */
    MAX_NAME = 256,        /* bytes of a tensor's name */
    MAX_RANK = 8,
    MAX_KEYS = 32,         /* config.json keys a family reads */
    MAX_ARCHITECTURES = 8  /* config.json's architectures looked at */
};

typedef enum { DT_F32, DT_F16, DT_BF16, DT_OTHER } dtype;

/* The dtypes safetensors defines, with their bytes per element. */
static const struct { const char *name; int bytes; } dtypes[] = {
    {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}, {"I64", 8}, {"U64", 8}, {"I32", 4}, {"U32", 4},
    {"I16", 2}, {"U16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
};
enum { DTYPE_COUNT = sizeof dtypes / sizeof dtypes[0] };

typedef struct {
    char *name;
    int file;
    int dtype;               /* index into dtypes */
    uint64_t begin, end;     /* bytes from the file's start */
    int rank;
    uint64_t shape[MAX_RANK];
    int slot;                /* the weight it is, or -1: ignored */
} tensor;

typedef struct {
    char *name;
    uint64_t size, header_bytes;
    uint64_t next;           /* where the next feed starts */
    int *order;              /* its used tensors, by offset */
    int order_count, cursor;
    unsigned char carry[8];  /* an element cut by a chunk's end */
} file;

struct poslab_checkpoint {
    int have_config;
    checkpoint_weights w;    /* w.family: config.json's row of the family table */
    tokenizer *tok;
    tokenizer *tok_loading; /* between poslab_checkpoint_tokenizer_begin and its last step */
    char **shards;
    int shard_count;
    file files[MAX_FILES];
    int file_count;
    tensor *tensors;
    int tensor_count, tensor_cap;
    int *slot_tensor;        /* slot -> tensor index, -1 while missing */
    size_t *slot_floats, *slot_at; /* the sizes table and each slot's place */
    int slots;
    float *memory;
    checkpoint_block *blocks;
    uint64_t floats;
    int planned, finished, failed;
    char *text;              /* poslab_checkpoint_json and _tokens_json */
    size_t text_cap;
};

/* ---- small helpers ------------------------------------------------------ */

static char *copy_of(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* Names in a message come from the files: a tensor named with "\n" (the
 * fuzzer's find) must not break the one line. Every message of this file
 * goes through fail() below, which turns control characters into '?'. */
static poslab_status one_line(poslab_status st, char *message) {
    if (message)
        for (char *c = message; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return st;
}
#define fail(message, size, status, ...) one_line(fail(message, size, status, __VA_ARGS__), message)

/* A 64-bit count as text: decimal.h has no %llu. */
static const char *u64_text(char *buf, uint64_t x) {
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + x % 10); while (x /= 10);
    for (int k = 0; k < n; k++) buf[k] = tmp[n - 1 - k];
    buf[n] = 0;
    return buf;
}
#define U64(x) u64_text((char[24]){0}, (x))

/* Slots: the family's globals, then block i's k-th tensor at
 * global_count + i * block_count + k. */
static int slot_count(const checkpoint_family *f, int layers) { return f->global_count + f->block_count * layers; }

static const family_tensor *slot_row(const checkpoint_family *f, int slot) {
    return slot < f->global_count ? &f->globals[slot] : &f->block[(slot - f->global_count) % f->block_count];
}

/* A dimension of a tensor, from config.json's sizes. */
static uint64_t extent(const checkpoint_weights *w, family_extent e) {
    const int size = e.size < 0 ? 0 : *(const int *)((const char *)w + e.size);
    return (uint64_t)size * (uint64_t)e.times;
}

/* The expected shape of a slot, from config.json. */
static int slot_shape(const checkpoint_weights *w, int slot, uint64_t shape[2]) {
    const family_tensor *t = slot_row(w->family, slot);
    shape[0] = extent(w, t->rows);
    if (t->cols.size < 0) return 1;
    shape[1] = extent(w, t->cols);
    return 2;
}

/* One sizes table: every slot's floats and its place in the one
 * allocation. Returns the total. */
static uint64_t fill_in_sizes(poslab_checkpoint *ck) {
    uint64_t total = 0;
    for (int s = 0; s < ck->slots; s++) {
        uint64_t shape[2];
        int rank = slot_shape(&ck->w, s, shape);
        uint64_t n = rank == 2 ? shape[0] * shape[1] : shape[0];
        ck->slot_floats[s] = (size_t)n;
        ck->slot_at[s] = (size_t)total;
        total += n;
    }
    return total;
}

static void shape_text(char *out, size_t cap, const uint64_t *shape, int rank) {
    size_t at = 0;
    at += (size_t)decimal_snprintf(out, cap, "[");
    for (int k = 0; k < rank && at < cap; k++)
        at += (size_t)decimal_snprintf(out + at, cap - at, k ? ", %s" : "%s", U64(shape[k]));
    if (at < cap) decimal_snprintf(out + at, cap - at, "]");
}

/* A tensor's name, without the family's prefix, as its slot; -1 for a
 * tensor to ignore (GPT-2's mask buffers, the tied lm_head, anything
 * unknown); -2 for a block past n_layer (*block gets its number). Whole
 * names only: "attn.c_attn.bias" is a weight, "attn.bias" a buffer. */
static int slot_of(const checkpoint_family *f, const char *name, int layers, long *block) {
    const size_t prefix = strlen(f->prefix), block_prefix = strlen(f->block_prefix);
    if (!strncmp(name, f->prefix, prefix)) name += prefix;
    for (int g = 0; g < f->global_count; g++)
        if (!strcmp(name, f->globals[g].name)) return g;
    if (strncmp(name, f->block_prefix, block_prefix)) return -1;
    const char *p = name + block_prefix;
    if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9')) return -1;
    long i = 0;
    while (*p >= '0' && *p <= '9') {
        if (i > 1000000) return -1;
        i = i * 10 + (*p++ - '0');
    }
    if (*p++ != '.') return -1;
    int k = 0;
    while (k < f->block_count && strcmp(p, f->block[k].name)) k++;
    if (k == f->block_count) return -1;
    if (i >= layers) {
        *block = i;
        return -2;
    }
    return f->global_count + (int)i * f->block_count + k;
}

/* Drops the weights and marks the checkpoint failed: after an error
 * nothing half-loaded stays. */
static poslab_status failed(poslab_checkpoint *ck, poslab_status st) {
    if (st != POSLAB_OK && ck->planned) {
        free(ck->memory);
        ck->memory = NULL;
        free(ck->blocks);
        ck->blocks = NULL;
        ck->failed = 1;
    }
    return st;
}

/* ---- creating and freeing ------------------------------------------------ */

poslab_status poslab_checkpoint_create(poslab_checkpoint **out) {
    if (!out) return POSLAB_ERR_INPUT;
    *out = calloc(1, sizeof **out);
    return *out ? POSLAB_OK : POSLAB_ERR_NOMEM;
}

void poslab_checkpoint_free(poslab_checkpoint *ck) {
    if (!ck) return;
    tokenizer_free(ck->tok);
    tokenizer_free(ck->tok_loading);
    for (int k = 0; k < ck->shard_count; k++) free(ck->shards[k]);
    free(ck->shards);
    for (int f = 0; f < ck->file_count; f++) {
        free(ck->files[f].name);
        free(ck->files[f].order);
    }
    for (int t = 0; t < ck->tensor_count; t++) free(ck->tensors[t].name);
    free(ck->tensors);
    free(ck->slot_tensor);
    free(ck->slot_floats);
    free(ck->slot_at);
    free(ck->memory);
    free(ck->blocks);
    free(ck->text);
    free(ck);
}

/* ---- config.json --------------------------------------------------------- */

static poslab_status json_error(const char *file, const char *what, const json_cursor *c, char *message,
                                size_t size) {
    return fail(message, size, POSLAB_ERR_INPUT, "%s: %sbyte %zu: %s; expected JSON as Hugging Face writes it",
                file, what, c->error_at, c->error ? c->error : "unreadable");
}

/* A whole number in [lo, hi] for key; 0 (with the message) if not. */
static int config_int(json_cursor *c, const char *file, const char *key, long lo, long hi, int *out,
                      char *message, size_t size) {
    double x;
    if (json_peek(c) != JSON_NUMBER || !json_number(c, &x) || x != floor(x) || x < lo || x > hi) {
        if (!c->error) c->error = "";
        fail(message, size, POSLAB_ERR_INPUT, "%s: %s is not a whole number from %d to %d; expected one", file,
             key, (int)lo, (int)hi);
        return 0;
    }
    *out = (int)x;
    return 1;
}

/* One key of the family's table at the cursor, into *out; 0 (with the
 * message, or the cursor's error) if it is not what the row allows. */
static int read_key(json_cursor *c, const char *file, const family_key *k, double *out, char *message,
                    size_t size) {
    int x;
    switch (k->kind) {
    case KEY_INT:
        if (!config_int(c, file, k->name, (long)k->lo, (long)k->hi, &x, message, size)) return 0;
        *out = x;
        return 1;
    case KEY_POSITIVE:
        if (!json_number(c, out) || !(*out > 0) || !isfinite(*out)) {
            c->error = "";
            fail(message, size, POSLAB_ERR_INPUT, "%s: %s is not a number above 0; expected one", file, k->name);
            return 0;
        }
        return 1;
    case KEY_BOOL:
        if (!json_bool(c, &x)) return 0;
        *out = x;
        return 1;
    case KEY_WORD: {
        char word[40];
        int ok = json_string(c, word, sizeof word, NULL), w = 0;
        while (ok && k->words[w] && strcmp(word, k->words[w])) w++;
        if (ok && k->words[w]) return 1;
        if (c->error && *c->error) return 0;
        c->error = "";
        fail(message, size, POSLAB_ERR_INPUT, "%s: %s \"%.39s\"; expected %s", file, k->name, word, k->expected);
        return 0;
    }
    }
    return 0;
}

/* The family config.json names, from its model_type and architectures
 * alone (NULL: a model_type no row has, written to model_type). A file
 * this walk cannot read is refused by the walk after it, word for word. */
static const checkpoint_family *family_of(const char *text, size_t len, char *model_type, size_t cap) {
    json_cursor c;
    char key[64], names[MAX_ARCHITECTURES][64];
    const char *architectures[MAX_ARCHITECTURES];
    int count = 0, typed = 0;
    json_begin(&c, text, len);
    if (json_object_begin(&c))
        while (json_object_next(&c, key, sizeof key, NULL)) {
            if (!strcmp(key, "model_type") && json_peek(&c) == JSON_STRING) {
                json_string(&c, model_type, cap, NULL); /* a longer one is cut, and names no row */
                typed = 1;
            } else if (!strcmp(key, "architectures") && json_peek(&c) == JSON_ARRAY) {
                if (!json_array_begin(&c)) break;
                while (json_array_next(&c)) {
                    if (count < MAX_ARCHITECTURES && json_peek(&c) == JSON_STRING &&
                        json_string(&c, names[count], sizeof names[count], NULL)) {
                        architectures[count] = names[count];
                        count++;
                    } else if (!json_skip(&c)) break;
                }
            } else if (!json_skip(&c)) break;
            if (c.error) break;
        }
    return checkpoint_family_for(typed ? model_type : NULL, architectures, count);
}

static void store_key(checkpoint_weights *w, const family_key *k, double x) {
    char *field = (char *)w + k->field;
    if (k->kind == KEY_POSITIVE) *(double *)field = x;
    else *(int *)field = (int)x;
}

poslab_status poslab_checkpoint_config(poslab_checkpoint *ck, const char *file, const char *text, size_t len,
                                       char *message, size_t size) {
    if (!ck || !text) return fail(message, size, POSLAB_ERR_INPUT, "config.json: missing");
    if (!file) file = "config.json";
    if (ck->planned || ck->have_config)
        return fail(message, size, POSLAB_ERR_STATE, "%s: a checkpoint takes one config.json, before planning", file);
    char model_type[64];
    const checkpoint_family *f = family_of(text, len, model_type, sizeof model_type);
    if (!f) {
        char names[128];
        size_t at = 0;
        for (int k = 0; k < checkpoint_family_count; k++)
            at += (size_t)decimal_snprintf(names + at, sizeof names - at, k ? ", %s" : "%s", checkpoint_families[k]->name);
        return fail(message, size, POSLAB_ERR_INPUT, "%s: model_type \"%.40s\"; expected one poslab reads: %s", file,
                    model_type, names);
    }
    /* every key is read before any is kept: a fallback (n_ctx) counts only
       where its key is absent, whatever the order */
    double value[MAX_KEYS];
    int given[MAX_KEYS] = {0};
    json_cursor c;
    char key[64];
    json_begin(&c, text, len);
    if (!json_object_begin(&c)) return json_error(file, "", &c, message, size);
    while (json_object_next(&c, key, sizeof key, NULL)) {
        int r = 0;
        while (r < f->key_count && strcmp(key, f->keys[r].name)) r++;
        const family_key *k = r < f->key_count ? &f->keys[r] : NULL;
        if (k ? !read_key(&c, file, k, &value[r], message, size) : !json_skip(&c)) {
            if (c.error && !*c.error) return POSLAB_ERR_INPUT; /* the message is written */
            if (c.error && k && k->kind == KEY_BOOL)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: %s is not true or false; expected one", file, key);
            return json_error(file, "", &c, message, size);
        }
        if (k) given[r] = 1;
    }
    if (c.error || !json_end(&c)) return json_error(file, "", &c, message, size);
    checkpoint_weights w;
    memset(&w, 0, sizeof w);
    w.family = f;
    for (int r = 0; r < f->key_count; r++) {
        const family_key *k = &f->keys[r];
        const int fallback = r + 1 < f->key_count && (f->keys[r + 1].flags & KEY_FALLBACK) && given[r + 1];
        if ((k->flags & KEY_REQUIRED) && !given[r] && !fallback)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: no %s; expected %s", file, k->name, f->sizes);
        if (k->field >= 0 && !(k->flags & KEY_FALLBACK))
            store_key(&w, k, given[r] ? value[r] : fallback ? value[r + 1] : k->absent);
    }
    poslab_status st = f->check ? f->check(&w, file, message, size) : POSLAB_OK;
    if (st != POSLAB_OK) return st;
    /* a token id past the embedding's rows is a broken checkpoint, said when
       both files are in rather than at the sentence that first uses it */
    if (ck->tok && tokenizer_id_limit(ck->tok) > w.vocab_size)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: %s %d; expected more than %s's largest id %d", file,
                    checkpoint_family_key(f, (long)offsetof(checkpoint_weights, vocab_size)), w.vocab_size,
                    checkpoint_tokenizer_file(f->tokenizer, 0), tokenizer_id_limit(ck->tok) - 1);
    ck->w = w;
    ck->slots = slot_count(f, w.n_layer);
    ck->slot_tensor = malloc((size_t)ck->slots * sizeof *ck->slot_tensor);
    ck->slot_floats = malloc((size_t)ck->slots * sizeof *ck->slot_floats);
    ck->slot_at = malloc((size_t)ck->slots * sizeof *ck->slot_at);
    if (!ck->slot_tensor || !ck->slot_floats || !ck->slot_at) return POSLAB_ERR_NOMEM;
    for (int s = 0; s < ck->slots; s++) ck->slot_tensor[s] = -1;
    ck->have_config = 1;
    return POSLAB_OK;
}

/* ---- the tokenizer's files ---------------------------------------------- */

poslab_status poslab_checkpoint_tokenizer(poslab_checkpoint *ck, const char *vocab_file, const char *vocab,
                                          size_t vocab_len, const char *merges_file, const char *merges,
                                          size_t merges_len, char *message, size_t size) {
    poslab_status st = poslab_checkpoint_tokenizer_begin(ck, vocab_file, vocab, vocab_len, merges_file, merges,
                                                         merges_len, message, size);
    if (st == POSLAB_OK) do st = poslab_checkpoint_tokenizer_step(ck, message, size); while (st == POSLAB_RUNNING);
    return st;
}

poslab_status poslab_checkpoint_tokenizer_begin(poslab_checkpoint *ck, const char *vocab_file, const char *vocab,
                                                size_t vocab_len, const char *merges_file, const char *merges,
                                                size_t merges_len, char *message, size_t size) {
    (void)vocab_file, (void)merges_file; /* tokenizer.c names them */
    if (!ck || !vocab || !merges) return fail(message, size, POSLAB_ERR_INPUT, "tokenizer: missing files");
    if (ck->tok || ck->tok_loading) return fail(message, size, POSLAB_ERR_STATE, "tokenizer: loaded already");
    return tokenizer_begin(&ck->tok_loading, vocab, vocab_len, merges, merges_len, message, size);
}

poslab_status poslab_checkpoint_tokenizer_step(poslab_checkpoint *ck, char *message, size_t size) {
    if (!ck || !ck->tok_loading)
        return fail(message, size, POSLAB_ERR_STATE, "tokenizer: no poslab_checkpoint_tokenizer_begin before it");
    poslab_status st = tokenizer_step(ck->tok_loading, message, size);
    if (st == POSLAB_RUNNING) return st;
    if (st == POSLAB_OK && ck->have_config && tokenizer_id_limit(ck->tok_loading) > ck->w.vocab_size)
        st = fail(message, size, POSLAB_ERR_INPUT, "%s: id %d; expected ids below config.json's %s %d",
                  checkpoint_tokenizer_file(ck->w.family->tokenizer, 0), tokenizer_id_limit(ck->tok_loading) - 1,
                  checkpoint_family_key(ck->w.family, (long)offsetof(checkpoint_weights, vocab_size)),
                  ck->w.vocab_size);
    if (st == POSLAB_OK) ck->tok = ck->tok_loading;
    else tokenizer_free(ck->tok_loading);
    ck->tok_loading = NULL;
    return st;
}

/* ---- the shards' index --------------------------------------------------- */

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A shard must lie beside the index: a bare file name. */
static int plain_file_name(const char *s) {
    return *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/') && !strchr(s, '\\');
}

poslab_status poslab_checkpoint_shards(poslab_checkpoint *ck, const char *file, const char *text, size_t len,
                                       char *message, size_t size) {
    if (!ck || !text) return fail(message, size, POSLAB_ERR_INPUT, "index: missing");
    if (!file) file = "model.safetensors.index.json";
    if (ck->shard_count || ck->file_count)
        return fail(message, size, POSLAB_ERR_STATE, "%s: the index comes once, before the shards", file);
    json_cursor c;
    char key[MAX_NAME], shard[MAX_NAME];
    int have_map = 0;
    json_begin(&c, text, len);
    if (!json_object_begin(&c)) return json_error(file, "", &c, message, size);
    while (json_object_next(&c, key, sizeof key, NULL)) {
        if (strcmp(key, "weight_map")) {
            if (!json_skip(&c)) break;
            continue;
        }
        have_map = 1;
        if (!json_object_begin(&c)) break;
        size_t name_len, shard_len;
        while (json_object_next(&c, key, sizeof key, &name_len)) {
            if (json_peek(&c) != JSON_STRING)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: weight_map[\"%.60s\"] is not a file name; expected one",
                            file, key);
            if (!json_string(&c, shard, sizeof shard, &shard_len)) break;
            if (!plain_file_name(shard))
                return fail(message, size, POSLAB_ERR_INPUT,
                            "%s: weight_map[\"%.60s\"] is \"%.60s\"; expected a file name beside the index", file,
                            key, shard);
            int k = 0;
            while (k < ck->shard_count && strcmp(ck->shards[k], shard)) k++;
            if (k < ck->shard_count) continue;
            if (ck->shard_count == MAX_FILES)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: more than %d shards; expected fewer", file, MAX_FILES);
            char **grown = realloc(ck->shards, (size_t)(ck->shard_count + 1) * sizeof *grown);
            if (!grown) return POSLAB_ERR_NOMEM;
            ck->shards = grown;
            if (!(ck->shards[ck->shard_count] = copy_of(shard))) return POSLAB_ERR_NOMEM;
            ck->shard_count++;
        }
    }
    if (c.error || !json_end(&c)) return json_error(file, "", &c, message, size);
    if (!have_map || !ck->shard_count)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: no weight_map naming the shards; expected one", file);
    return POSLAB_OK;
}

const char *poslab_checkpoint_shard(const poslab_checkpoint *ck, int k) {
    return ck && k >= 0 && k < ck->shard_count ? ck->shards[k] : NULL;
}

/* ---- safetensors headers -------------------------------------------------- */

poslab_status poslab_safetensors_header_bytes(const char *name, const unsigned char first[8], uint64_t file_size,
                                              uint64_t *header_bytes, char *message, size_t size) {
    if (!name) name = "model.safetensors";
    if (file_size < 8 || !first)
        return fail(message, size, POSLAB_ERR_INPUT,
                    "%s: %s bytes; expected at least 8 (a safetensors file starts with its header's length)", name,
                    U64(file_size));
    uint64_t n = 0;
    for (int k = 7; k >= 0; k--) n = n << 8 | first[k];
    if (n > MAX_HEADER_BYTES)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: header of %s bytes; expected at most 100 MB", name,
                    U64(n));
    if (n > file_size - 8)
        return fail(message, size, POSLAB_ERR_INPUT,
                    "%s: header of %s bytes in a file of %s; expected the header to fit in the file", name,
                    U64(n), U64(file_size));
    *header_bytes = 8 + n;
    return POSLAB_OK;
}

static int add_tensor(poslab_checkpoint *ck, tensor *t) {
    if (ck->tensor_count == ck->tensor_cap) {
        int cap = ck->tensor_cap ? 2 * ck->tensor_cap : 64;
        tensor *grown = realloc(ck->tensors, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        ck->tensors = grown;
        ck->tensor_cap = cap;
    }
    ck->tensors[ck->tensor_count++] = *t;
    return 1;
}

/* One tensor's entry {"dtype", "shape", "data_offsets"} into t. */
static poslab_status read_entry(json_cursor *c, const char *file, tensor *t, char *message, size_t size) {
    char key[32], dt[16];
    int have = 0;
    if (!json_object_begin(c)) return json_error(file, "header ", c, message, size);
    while (json_object_next(c, key, sizeof key, NULL)) {
        if (!strcmp(key, "dtype")) {
            size_t len;
            if (!json_string(c, dt, sizeof dt, &len)) {
                if (c->error) break;
                len = sizeof dt; /* too long to be one */
            }
            t->dtype = 0;
            while (t->dtype < DTYPE_COUNT && (len >= sizeof dt || strcmp(dt, dtypes[t->dtype].name))) t->dtype++;
            if (t->dtype == DTYPE_COUNT)
                return fail(message, size, POSLAB_ERR_INPUT,
                            "%s: tensor %s: dtype \"%.15s\" is unknown; expected F32, F16 or BF16", file, t->name, dt);
            have |= 1;
        } else if (!strcmp(key, "shape")) {
            t->rank = 0;
            if (!json_array_begin(c)) break;
            while (json_array_next(c)) {
                if (t->rank == MAX_RANK)
                    return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: more than %d dimensions; expected 1 or 2",
                                file, t->name, MAX_RANK);
                if (!json_uint64(c, &t->shape[t->rank])) break;
                if (t->shape[t->rank] > (1ull << 40))
                    return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: a dimension of %s; expected one below 2^40",
                                file, t->name, U64(t->shape[t->rank]));
                t->rank++;
            }
            have |= 2;
        } else if (!strcmp(key, "data_offsets")) {
            int k = 0;
            uint64_t off[2] = {0, 0};
            if (!json_array_begin(c)) break;
            while (json_array_next(c)) {
                if (k == 2 || !json_uint64(c, &off[k])) {
                    if (!c->error) json_fail(c, "data_offsets holds more than two numbers");
                    break;
                }
                k++;
            }
            if (c->error) break;
            if (k != 2)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: data_offsets has %d numbers; expected 2",
                            file, t->name, k);
            t->begin = off[0], t->end = off[1];
            have |= 4;
        } else if (!json_skip(c)) break;
        if (c->error) break;
    }
    if (c->error) return json_error(file, "header ", c, message, size);
    if (have != 7)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: no %s; expected dtype, shape and data_offsets",
                    file, t->name, !(have & 1) ? "dtype" : !(have & 2) ? "shape" : "data_offsets");
    return POSLAB_OK;
}

static poslab_status read_metadata(json_cursor *c, const char *file, char *message, size_t size) {
    if (!json_object_begin(c)) return json_error(file, "header ", c, message, size);
    char key[64];
    while (json_object_next(c, key, sizeof key, NULL)) {
        if (json_peek(c) != JSON_STRING)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: __metadata__[\"%.40s\"] is not a string; expected strings",
                        file, key);
        if (!json_skip(c)) break;
    }
    return c->error ? json_error(file, "header ", c, message, size) : POSLAB_OK;
}

static int size_overflows(const tensor *t, uint64_t *bytes) {
    uint64_t n = 1;
    for (int k = 0; k < t->rank; k++) {
        if (t->shape[k] && n > (1ull << 62) / t->shape[k]) return 1;
        n *= t->shape[k];
    }
    if (n > (1ull << 60)) return 1;
    *bytes = n * (uint64_t)dtypes[t->dtype].bytes;
    return 0;
}

poslab_status poslab_checkpoint_add_file(poslab_checkpoint *ck, const char *name, uint64_t file_size,
                                         const unsigned char *header, size_t header_bytes, int *index,
                                         char *message, size_t size) {
    if (!name) name = "model.safetensors";
    if (!ck || !header) return fail(message, size, POSLAB_ERR_INPUT, "%s: missing", name);
    if (!ck->have_config)
        return fail(message, size, POSLAB_ERR_STATE, "%s: config.json must come before the weights", name);
    if (ck->planned) return fail(message, size, POSLAB_ERR_STATE, "%s: the checkpoint is planned already", name);
    if (ck->file_count == MAX_FILES)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: more than %d files; expected fewer", name, MAX_FILES);
    uint64_t want;
    poslab_status st = poslab_safetensors_header_bytes(name, header, file_size, &want, message, size);
    if (st != POSLAB_OK) return st;
    if (header_bytes != want)
        return fail(message, size, POSLAB_ERR_INPUT, "%s: %zu header bytes given; expected %s", name, header_bytes,
                    U64(want));
    const int f = ck->file_count;
    file *fl = &ck->files[f];
    memset(fl, 0, sizeof *fl);
    if (!(fl->name = copy_of(name))) return POSLAB_ERR_NOMEM;
    ck->file_count++;
    fl->size = file_size;
    fl->header_bytes = header_bytes;
    fl->next = header_bytes;
    const uint64_t data = file_size - header_bytes;

    json_cursor c;
    char key[MAX_NAME];
    size_t key_len;
    json_begin(&c, (const char *)header + 8, header_bytes - 8);
    if (!json_object_begin(&c)) return json_error(name, "header ", &c, message, size);
    while (json_object_next(&c, key, sizeof key, &key_len)) {
        if (key_len >= sizeof key)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: a tensor name of %zu bytes; expected at most %d", name,
                        key_len, MAX_NAME - 1);
        if (!strcmp(key, "__metadata__")) {
            if ((st = read_metadata(&c, name, message, size)) != POSLAB_OK) return st;
            continue;
        }
        tensor t;
        memset(&t, 0, sizeof t);
        t.name = key;
        t.file = f;
        if ((st = read_entry(&c, name, &t, message, size)) != POSLAB_OK) return st;
        uint64_t bytes;
        if (t.begin > t.end || t.end > data)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: tensor %s: data_offsets [%s, %s] leave the data's %s bytes; expected 0 <= begin <= "
                        "end <= %s", name, key, U64(t.begin), U64(t.end),
                        U64(data), U64(data));
        if (size_overflows(&t, &bytes) || bytes != t.end - t.begin) {
            char sh[96];
            shape_text(sh, sizeof sh, t.shape, t.rank);
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: tensor %s: data_offsets span %s bytes; expected %s x %d bytes (%s)", name, key,
                        U64(t.end - t.begin), sh, dtypes[t.dtype].bytes, dtypes[t.dtype].name);
        }
        t.begin += header_bytes;
        t.end += header_bytes;
        long block = 0;
        t.slot = slot_of(ck->w.family, key, ck->w.n_layer, &block);
        if (t.slot == -2)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: tensor %s: block %d; expected blocks 0 to %d (config.json's %s is %d)", name, key,
                        (int)block, ck->w.n_layer - 1,
                        checkpoint_family_key(ck->w.family, (long)offsetof(checkpoint_weights, n_layer)), ck->w.n_layer);
        if (t.slot >= 0) {
            if (t.dtype > DT_BF16)
                return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: dtype %s; expected F32, F16 or BF16",
                            name, key, dtypes[t.dtype].name);
            if (ck->slot_tensor[t.slot] >= 0) {
                const tensor *o = &ck->tensors[ck->slot_tensor[t.slot]];
                return fail(message, size, POSLAB_ERR_INPUT, "%s: tensor %s: also in %s as %s; expected it once",
                            name, key, ck->files[o->file].name, o->name);
            }
            uint64_t want_shape[2];
            int rank = slot_shape(&ck->w, t.slot, want_shape);
            if (rank != t.rank || want_shape[0] != t.shape[0] || (rank == 2 && want_shape[1] != t.shape[1])) {
                char found[96], expected[96];
                shape_text(found, sizeof found, t.shape, t.rank);
                shape_text(expected, sizeof expected, want_shape, rank);
                return fail(message, size, POSLAB_ERR_INPUT,
                            "%s: tensor %s: shape %s; expected %s from config.json", name, key, found, expected);
            }
        }
        if (!(t.name = copy_of(key))) return POSLAB_ERR_NOMEM;
        if (!add_tensor(ck, &t)) {
            free(t.name);
            return POSLAB_ERR_NOMEM;
        }
        if (t.slot >= 0) ck->slot_tensor[t.slot] = ck->tensor_count - 1;
    }
    if (c.error || !json_end(&c)) return json_error(name, "header ", &c, message, size);
    if (index) *index = f;
    return POSLAB_OK;
}

/* ---- planning and allocating ----------------------------------------- */

static int by_begin(const void *x, const void *y, const tensor *ts) {
    const tensor *a = &ts[*(const int *)x], *b = &ts[*(const int *)y];
    return a->begin < b->begin ? -1 : a->begin > b->begin ? 1 : a->end < b->end ? -1 : a->end > b->end;
}

/* qsort without a context argument: insertion sort on the indices (a
 * file holds a few hundred tensors, and the headers come sorted). */
static void sort_by_begin(int *idx, int n, const tensor *ts) {
    for (int i = 1; i < n; i++) {
        int v = idx[i], j = i;
        while (j > 0 && by_begin(&idx[j - 1], &v, ts) > 0) idx[j] = idx[j - 1], j--;
        idx[j] = v;
    }
}

poslab_status poslab_checkpoint_plan(poslab_checkpoint *ck, uint64_t *bytes, char *message, size_t size) {
    if (!ck || !ck->have_config) return fail(message, size, POSLAB_ERR_STATE, "checkpoint: no config.json yet");
    if (ck->planned) return fail(message, size, POSLAB_ERR_STATE, "checkpoint: planned already");
    if (!ck->file_count)
        return fail(message, size, POSLAB_ERR_INPUT, "checkpoint: no safetensors file; expected model.safetensors");
    for (int k = 0; k < ck->shard_count; k++) {
        int f = 0; /* files are added by path: the index names them bare */
        while (f < ck->file_count && strcmp(base_name(ck->files[f].name), ck->shards[k])) f++;
        if (f == ck->file_count)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: not added; expected every shard the index names",
                        ck->shards[k]);
    }
    for (int s = 0; s < ck->slots; s++) {
        if (ck->slot_tensor[s] >= 0) continue;
        const checkpoint_family *fam = ck->w.family;
        if (s < fam->global_count)
            return fail(message, size, POSLAB_ERR_INPUT, "%s: no tensor %s; expected it (or %s%s)", ck->files[0].name,
                        fam->globals[s].name, fam->prefix, fam->globals[s].name);
        return fail(message, size, POSLAB_ERR_INPUT, "%s: no tensor %s%d.%s; expected it for each of the %d blocks",
                    ck->files[0].name, fam->block_prefix, (s - fam->global_count) / fam->block_count,
                    slot_row(fam, s)->name, ck->w.n_layer);
    }
    /* no two tensors of a file share a byte, ignored ones included */
    for (int f = 0; f < ck->file_count; f++) {
        file *fl = &ck->files[f];
        int n = 0, used = 0;
        for (int t = 0; t < ck->tensor_count; t++) if (ck->tensors[t].file == f) n++;
        int *all = malloc((size_t)(n ? n : 1) * sizeof *all);
        if (!all) return POSLAB_ERR_NOMEM;
        n = 0;
        for (int t = 0; t < ck->tensor_count; t++) if (ck->tensors[t].file == f) all[n++] = t;
        sort_by_begin(all, n, ck->tensors);
        /* by offset, each non-empty tensor must start where the furthest
           reaching one before it has ended (an empty one in between, or a
           short one inside a long one, must not hide an overlap) */
        const tensor *a = NULL; /* the furthest reaching so far */
        for (int k = 0; k < n; k++) {
            const tensor *b = &ck->tensors[all[k]];
            if (b->end == b->begin) continue;
            if (a && a->end > b->begin) {
                poslab_status st = fail(message, size, POSLAB_ERR_INPUT,
                                        "%s: tensors %s and %s overlap (bytes %s to %s and %s to %s of the "
                                        "data); expected each byte in one tensor", fl->name, a->name, b->name,
                                        U64(a->begin - fl->header_bytes),
                                        U64(a->end - fl->header_bytes),
                                        U64(b->begin - fl->header_bytes),
                                        U64(b->end - fl->header_bytes));
                free(all);
                return st;
            }
            if (!a || b->end > a->end) a = b;
        }
        for (int k = 0; k < n; k++) if (ck->tensors[all[k]].slot >= 0) all[used++] = all[k];
        fl->order = all;
        fl->order_count = used;
    }
    ck->floats = fill_in_sizes(ck);
    ck->planned = 1;
    if (bytes) *bytes = ck->floats * sizeof(float) + (uint64_t)ck->w.n_layer * sizeof(checkpoint_block);
    return POSLAB_OK;
}

poslab_status poslab_checkpoint_allocate(poslab_checkpoint *ck, char *message, size_t size) {
    if (!ck || !ck->planned || ck->memory || ck->failed)
        return fail(message, size, POSLAB_ERR_STATE, "checkpoint: allocate comes once, after plan");
    if (ck->floats > SIZE_MAX / sizeof(float)) return failed(ck, POSLAB_ERR_NOMEM);
    ck->memory = malloc((size_t)ck->floats * sizeof(float));
    ck->blocks = malloc((size_t)ck->w.n_layer * sizeof *ck->blocks);
    if (!ck->memory || !ck->blocks)
        return failed(ck, fail(message, size, POSLAB_ERR_NOMEM, "checkpoint: out of memory for %s bytes of weights",
                               U64(ck->floats * sizeof(float))));
    /* point every weight at its slice of the one allocation, through the
       family's table of which field each tensor is */
    const checkpoint_family *f = ck->w.family;
    memset(ck->blocks, 0, (size_t)ck->w.n_layer * sizeof *ck->blocks);
    for (int s = 0; s < ck->slots; s++) {
        const int b = (s - f->global_count) / f->block_count;
        char *holder = s < f->global_count ? (char *)&ck->w : (char *)&ck->blocks[b];
        *(const float **)(holder + slot_row(f, s)->field) = ck->memory + ck->slot_at[s];
    }
    ck->w.blocks = ck->blocks;
    return POSLAB_OK;
}

/* ---- the data ------------------------------------------------------------ */

/* IEEE half to float: exact (every half is a float). */
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = h >> 10 & 31, m = h & 1023, bits;
    if (e == 31) bits = sign | 0x7f800000u | m << 13;            /* inf, NaN */
    else if (e) bits = sign | (e + 112) << 23 | m << 13;         /* normal */
    else if (!m) bits = sign;                                    /* zero */
    else {                                                       /* subnormal: normalise */
        e = 113;
        while (!(m & 1024)) m <<= 1, e--;
        bits = sign | e << 23 | (m & 1023) << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* n elements of dtype dt from little-endian bytes into dst. */
static void convert(float *dst, const unsigned char *src, size_t n, int dt) {
    switch (dt) {
    case DT_F32:
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(dst, src, n * 4); /* the file's order already (x86, WebAssembly) */
        break;
#endif
        for (size_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 | (uint32_t)src[4 * i + 2] << 16 |
                         (uint32_t)src[4 * i + 3] << 24;
            memcpy(&dst[i], &u, 4);
        }
        break;
    case DT_F16:
        for (size_t i = 0; i < n; i++) dst[i] = half_to_float((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
        break;
    default: /* BF16: the top half of a float */
        for (size_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)(src[2 * i] | src[2 * i + 1] << 8) << 16;
            memcpy(&dst[i], &u, 4);
        }
        break;
    }
}

/* Bytes [o, o+len) of tensor t, o counted from its first byte. */
static void take(poslab_checkpoint *ck, file *fl, const tensor *t, uint64_t o, const unsigned char *src, size_t len) {
    const size_t es = (size_t)dtypes[t->dtype].bytes;
    float *dst = ck->memory + ck->slot_at[t->slot];
    while (len > 0) {
        size_t part = (size_t)(o % es);
        if (part || len < es) { /* an element split between chunks */
            size_t k = es - part < len ? es - part : len;
            memcpy(fl->carry + part, src, k);
            o += k, src += k, len -= k;
            if (o % es == 0) convert(dst + o / es - 1, fl->carry, 1, t->dtype);
            continue;
        }
        size_t n = len / es;
        convert(dst + o / es, src, n, t->dtype);
        o += n * es, src += n * es, len -= n * es;
    }
}

poslab_status poslab_checkpoint_feed(poslab_checkpoint *ck, int index, uint64_t at, const unsigned char *bytes,
                                     size_t len, char *message, size_t size) {
    if (!ck || !ck->memory || ck->failed || index < 0 || index >= ck->file_count || (len && !bytes))
        return fail(message, size, POSLAB_ERR_STATE, "checkpoint: feed comes after allocate, for a file added");
    file *fl = &ck->files[index];
    if (at != fl->next)
        return failed(ck, fail(message, size, POSLAB_ERR_STATE, "%s: bytes from %s given; expected them from %s",
                               fl->name, U64(at), U64(fl->next)));
    if (len > fl->size - at)
        return failed(ck, fail(message, size, POSLAB_ERR_INPUT, "%s: bytes to %s given; expected the file's %s",
                               fl->name, U64(at + len), U64(fl->size)));
    fl->next = at + len;
    while (len > 0 && fl->cursor < fl->order_count) {
        const tensor *t = &ck->tensors[fl->order[fl->cursor]];
        if (at < t->begin) { /* a gap, or a tensor that is ignored */
            uint64_t skip = t->begin - at < len ? t->begin - at : len;
            at += skip, bytes += skip, len -= (size_t)skip;
            continue;
        }
        size_t k = t->end - at < len ? (size_t)(t->end - at) : len;
        take(ck, fl, t, at - t->begin, bytes, k);
        at += k, bytes += k, len -= k;
        if (at == t->end) fl->cursor++;
    }
    return POSLAB_OK;
}

uint64_t poslab_checkpoint_file_next(const poslab_checkpoint *ck, int index) {
    return ck && index >= 0 && index < ck->file_count ? ck->files[index].next : 0;
}

uint64_t poslab_checkpoint_file_end(const poslab_checkpoint *ck, int index) {
    if (!ck || index < 0 || index >= ck->file_count) return 0;
    const file *fl = &ck->files[index];
    if (!fl->order_count) return fl->header_bytes;
    uint64_t end = 0;
    for (int k = 0; k < fl->order_count; k++)
        if (ck->tensors[fl->order[k]].end > end) end = ck->tensors[fl->order[k]].end;
    return end;
}

poslab_status poslab_checkpoint_finish(poslab_checkpoint *ck, char *message, size_t size) {
    if (!ck || !ck->memory || ck->failed)
        return fail(message, size, POSLAB_ERR_STATE, "checkpoint: finish comes after the data");
    for (int f = 0; f < ck->file_count; f++) {
        const file *fl = &ck->files[f];
        if (fl->cursor < fl->order_count) {
            const tensor *t = &ck->tensors[fl->order[fl->cursor]];
            return failed(ck, fail(message, size, POSLAB_ERR_INPUT,
                                   "%s: ended at byte %s, inside tensor %s; expected its bytes to %s", fl->name,
                                   U64(fl->next), t->name, U64(t->end)));
        }
    }
    ck->finished = 1;
    return POSLAB_OK;
}

const checkpoint_weights *checkpoint_weights_of(const poslab_checkpoint *ck) {
    return ck && ck->finished && !ck->failed ? &ck->w : NULL;
}

/* ---- reporting ------------------------------------------------------------- */

static int grow_text(poslab_checkpoint *ck, size_t need) {
    if (need <= ck->text_cap) return 1;
    size_t cap = ck->text_cap ? ck->text_cap : 1024;
    while (cap < need) cap *= 2;
    char *grown = realloc(ck->text, cap);
    if (!grown) return 0;
    ck->text = grown;
    ck->text_cap = cap;
    return 1;
}

int checkpoint_describe(const poslab_checkpoint *ck, char *out, size_t cap) {
    const char *dtype = "";
    uint64_t parameters = 0;
    if (!ck || !ck->have_config) return -1;
    for (int s = 0; s < ck->slots; s++) {
        int t = ck->slot_tensor[s];
        if (t < 0) continue;
        const char *d = dtypes[ck->tensors[t].dtype].name;
        dtype = !*dtype || !strcmp(dtype, d) ? d : "mixed";
        uint64_t n = 1;
        for (int k = 0; k < ck->tensors[t].rank; k++) n *= ck->tensors[t].shape[k];
        parameters += n;
    }
    const checkpoint_weights *w = &ck->w;
    /* as report.c writes every number: 16 digits when they read back */
    char eps[DECIMAL_G_BYTES];
    decimal_g(eps, w->eps, 16);
    if (decimal_parse(eps, NULL) != w->eps) decimal_g(eps, w->eps, 17);
    return decimal_snprintf(out, cap,
                            "{\"n_embd\":%d,\"n_layer\":%d,\"n_head\":%d,\"n_positions\":%d,\"vocab_size\":%d,"
                            "\"layer_norm_epsilon\":%s,\"dtype\":\"%s\",\"parameters\":%s,\"trained_causal\":%s,"
                            "\"trained_positions\":%s}",
                            w->n_embd, w->n_layer, w->n_head, w->n_positions, w->vocab_size, eps, dtype,
                            U64(parameters), w->trained_causal ? "true" : "false",
                            w->trained_positions ? "true" : "false");
}

const char *poslab_checkpoint_json(poslab_checkpoint *ck) {
    if (!ck || !ck->have_config || !grow_text(ck, 512)) return NULL;
    return checkpoint_describe(ck, ck->text, ck->text_cap) < 0 ? NULL : ck->text;
}

/* ---- tokens ------------------------------------------------------------- */

poslab_status poslab_checkpoint_tokenize(const poslab_checkpoint *ck, const char *text, size_t len, int prefix_space,
                                         int *ids, int max, int *count, char *message, size_t size) {
    if (!ck || !ck->tok)
        return fail(message, size, POSLAB_ERR_STATE, "checkpoint: no tokenizer (vocab.json and merges.txt) loaded");
    /* every id is below vocab_size: checked when the second of the two files came in */
    return tokenizer_encode(ck->tok, text, len, prefix_space, ids, max, count, message, size);
}

const char *poslab_checkpoint_piece(const poslab_checkpoint *ck, int id, size_t *len) {
    return ck && ck->tok ? tokenizer_piece(ck->tok, id, len) : NULL;
}

int checkpoint_piece_text(const poslab_checkpoint *ck, int id, char *out, size_t cap) {
    size_t n, o = 0;
    const unsigned char *p = (const unsigned char *)poslab_checkpoint_piece(ck, id, &n);
    if (!p) return -1;
    for (size_t i = 0; i < n;) {
        /* the longest valid sequence at i, else one byte as U+FFFD */
        unsigned c0 = p[i];
        int k = c0 < 0x80 ? 1 : c0 >= 0xc2 && c0 <= 0xdf ? 2 : c0 >= 0xe0 && c0 <= 0xef ? 3 : c0 >= 0xf0 && c0 <= 0xf4 ? 4 : 0;
        int ok = k > 0 && (size_t)k <= n - i && c0 != 0;
        for (int j = 1; ok && j < k; j++) ok = (p[i + j] & 0xc0) == 0x80;
        if (ok && k == 3) ok = !(c0 == 0xe0 && p[i + 1] < 0xa0) && !(c0 == 0xed && p[i + 1] >= 0xa0);
        if (ok && k == 4) ok = !(c0 == 0xf0 && p[i + 1] < 0x90) && !(c0 == 0xf4 && p[i + 1] >= 0x90);
        const unsigned char *src = ok ? p + i : (const unsigned char *)"\xef\xbf\xbd";
        size_t m = ok ? (size_t)k : 3;
        if (o + m + 1 > cap) return -1;
        memcpy(out + o, src, m);
        o += m;
        i += ok ? (size_t)k : 1;
    }
    out[o] = 0;
    return (int)o;
}

/* text as a JSON string's contents into ck->text at *at. */
static int put_json_text(poslab_checkpoint *ck, size_t *at, const char *s) {
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (!grow_text(ck, *at + 8)) return 0;
        if (ch == '"' || ch == '\\') ck->text[(*at)++] = '\\', ck->text[(*at)++] = (char)ch;
        else if (ch < 0x20 || ch == 0x7f) *at += (size_t)decimal_snprintf(ck->text + *at, 8, "\\u%04x", ch);
        else ck->text[(*at)++] = (char)ch;
    }
    return 1;
}

const char *poslab_checkpoint_tokens_json(poslab_checkpoint *ck, const char *text, size_t len, int prefix_space,
                                          char *message, size_t size) {
    int ids[POSLAB_MAX_TOKENS * 64], count;
    if (poslab_checkpoint_tokenize(ck, text, len, prefix_space, ids, (int)(sizeof ids / sizeof ids[0]), &count,
                                   message, size) != POSLAB_OK)
        return NULL;
    size_t at = 0;
    char piece[1024];
    if (!grow_text(ck, 64)) return NULL;
    at += (size_t)decimal_snprintf(ck->text, ck->text_cap, "{\"tokens\":[");
    for (int k = 0; k < count; k++) {
        if (checkpoint_piece_text(ck, ids[k], piece, sizeof piece) < 0) piece[0] = 0;
        if (!grow_text(ck, at + 48)) return NULL;
        at += (size_t)decimal_snprintf(ck->text + at, 48, "%s{\"id\":%d,\"text\":\"", k ? "," : "", ids[k]);
        if (!put_json_text(ck, &at, piece) || !grow_text(ck, at + 8)) return NULL;
        memcpy(ck->text + at, "\"}", 3);
        at += 2;
    }
    if (!grow_text(ck, at + 4)) return NULL;
    memcpy(ck->text + at, "]}\n", 4);
    return ck->text;
}
