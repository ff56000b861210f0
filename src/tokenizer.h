/* tokenizer.h - GPT-2's byte-level BPE tokenizer (openai/gpt-2's
 * src/encoder.py), from a checkpoint's vocab.json and merges.txt.
 *
 *   tokenizer_load(&t, vocab, n, merges, m, msg, size)   parse both files
 *   tokenizer_encode(t, text, len, prefix_space, ids, max, &count, ..)
 *   tokenizer_piece(t, id, &len)                         a token's bytes
 *   tokenizer_free(t)
 *
 * Encoding is the reference's, step for step: the text's code points are
 * split by the pattern
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * as JavaScript's `u` regexes match it (\s is ECMAScript's, the classes come
 * from unicode_tables.c), each piece's UTF-8 bytes become one symbol each,
 * and the adjacent pair whose merge comes first in merges.txt is merged
 * everywhere, left to right, until no adjacent pair has a merge.
 *
 * Errors are values as in poslab.h: POSLAB_ERR_INPUT (or _NOMEM) and one
 * line in msg. Load errors name the file and where in it; encode errors do
 * not name the sentence (the caller knows which it was: "a: " + msg reads
 * well). Internal to the core: not part of poslab.h. */
#ifndef POSLAB_TOKENIZER_H
#define POSLAB_TOKENIZER_H

#include <stddef.h>

#include "poslab.h"

typedef struct tokenizer tokenizer;

/* Parses vocab.json (a JSON object: token text -> id, each id a distinct
 * integer 0 .. INT_MAX - 1, each text made of GPT-2's 256 byte characters)
 * and merges.txt (an optional "#version" first line, then one merge "a b"
 * a line, both symbols and their concatenation in vocab.json, no merge
 * twice; a merge's rank is its line order). The texts need not end in NUL.
 * On success *out owns copies of everything it needs; on failure *out is
 * NULL and nothing stays allocated. */
poslab_status tokenizer_load(tokenizer **out, const char *vocab_json, size_t vocab_len, const char *merges_txt,
                             size_t merges_len, char *msg, size_t msg_size);

/* The same in steps, so that a page's thread is never held for the whole
 * (GPT-2's 50,257 tokens and 50,000 merges take tens of milliseconds each
 * in WebAssembly): tokenizer_begin checks that vocab.json opens an object;
 * each tokenizer_step reads up to TOKENIZER_STEP_ITEMS more of its entries,
 * then two steps index them, then steps read as many lines of merges.txt
 * each. A step returns POSLAB_RUNNING while some are left,
 * POSLAB_OK when the tokenizer is complete, or the error tokenizer_load
 * would give (then free *out). Both texts must stay where they are until
 * the last step. */
enum { TOKENIZER_STEP_ITEMS = 8192 };
poslab_status tokenizer_begin(tokenizer **out, const char *vocab_json, size_t vocab_len, const char *merges_txt,
                              size_t merges_len, char *msg, size_t msg_size);
poslab_status tokenizer_step(tokenizer *t, char *msg, size_t msg_size);

void tokenizer_free(tokenizer *t);

/* Token ids of text (len bytes of UTF-8; NUL is a character like any
 * other), with one space put before it if prefix_space. Refuses text that
 * is not valid UTF-8, that needs more than max_ids tokens, or that has a
 * byte whose one-byte token is missing from vocab.json. *count is the
 * number of ids written (0 for empty text, which is not an error here). */
poslab_status tokenizer_encode(const tokenizer *t, const char *text, size_t len, int prefix_space, int *ids,
                               int max_ids, int *count, char *msg, size_t msg_size);

/* The bytes a token stands for (not NUL-terminated: a token may hold NUL
 * or part of a UTF-8 sequence), or NULL for an id vocab.json lacks. */
const char *tokenizer_piece(const tokenizer *t, int id, size_t *len);

/* vocab.json's number of entries, and its largest id plus one. */
int tokenizer_vocab_count(const tokenizer *t);
int tokenizer_id_limit(const tokenizer *t);
int tokenizer_merge_count(const tokenizer *t);

/* Pieces longer than this many bytes are merged with a priority queue
 * (O(n log n)), shorter ones by rescanning the pair list after each merge,
 * as encoder.py does, which is quicker for words. Both give the same ids;
 * the tests set 0 and SIZE_MAX to compare the two on any input. */
void tokenizer_set_long_piece(tokenizer *t, size_t bytes);

#endif
