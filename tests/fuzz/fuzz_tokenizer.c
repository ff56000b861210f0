/* A fuzz target for GPT-2's tokenizer (src/tokenizer.c): the two files a
 * checkpoint brings, vocab.json and merges.txt, and the text.
 *
 * Input: a flags byte, then
 * - flags & 0x80 clear: vocab.json, NUL, merges.txt, NUL, the text (any
 *   bytes, NUL included). Loading either works or refuses with one line;
 * - flags & 0x80 set: files the target writes itself, so that most inputs
 *   load: the 256 one-byte tokens (without those divisible by 7 if flags &
 *   0x40), then up to 63 merges of two tokens each picked by the next two
 *   bytes, in the order made or reversed (flags & 0x20: later merges then
 *   rank before the ones that made their symbols), tokens spelled with \u
 *   escapes if flags & 0x10; the text is what follows.
 * flags & 1 puts a space before the text. Whatever loads encodes the text,
 * and then: both merge loops give the same ids, the ids' pieces give back
 * the text, one id fewer room is refused, and a refusal is one line.
 * Built with libFuzzer (make fuzz-tokenizer) and, for replaying the corpus
 * in CTest, with replay_main.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer.h"

static void require(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_tokenizer: invariant broken: %s\n", what);
        abort();
    }
}

static void require_one_line(const char *msg) {
    size_t n = strlen(msg);
    require(n > 0 && n < POSLAB_MESSAGE_BYTES - 1 && !memchr(msg, '\n', n), "a refusal is one line");
}

/* ---- files written from the input ------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const void *bytes, size_t n) {
    if (!n) return;
    if (t->n + n > t->cap) {
        t->cap = 2 * (t->n + n) + 64;
        t->s = realloc(t->s, t->cap);
        require(t->s != NULL, "memory for the files");
    }
    memcpy(t->s + t->n, bytes, n);
    t->n += n;
}

static void put_str(text *t, const char *s) { put(t, s, strlen(s)); }

/* GPT-2's character for a byte: in merges.txt (json 0) as UTF-8; in
 * vocab.json as UTF-8 or as a \u escape (always for " and \, for every
 * character if escape). */
static void put_byte_char(text *t, unsigned char b, int json, int escape) {
    int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174, extra = 0;
    for (int k = 0; k < b; k++) extra += !((k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174);
    unsigned cp = printable ? b : 256u + (unsigned)extra;
    char buf[16];
    if (json && (escape || cp == '"' || cp == '\\')) {
        snprintf(buf, sizeof buf, "\\u%04x", cp);
        put_str(t, buf);
    } else if (cp < 0x80) {
        buf[0] = (char)cp;
        put(t, buf, 1);
    } else {
        buf[0] = (char)(0xc0 | cp >> 6);
        buf[1] = (char)(0x80 | (cp & 0x3f));
        put(t, buf, 2);
    }
}

enum { MAX_SYMBOLS = 256 + 63, MAX_SYMBOL_BYTES = 16 };

typedef struct {
    unsigned char bytes[MAX_SYMBOL_BYTES];
    int len;
} symbol;

static int find_symbol(const symbol *sym, int n, const unsigned char *b, int len) {
    for (int i = 0; i < n; i++)
        if (sym[i].len == len && !memcmp(sym[i].bytes, b, (size_t)len)) return i;
    return -1;
}

/* Writes vocab.json and merges.txt from the input; returns the bytes used. */
static size_t make_files(const uint8_t *data, size_t size, int flags, text *vocab, text *merges) {
    symbol sym[MAX_SYMBOLS];
    int n = 0, pairs[64][2], made = 0;
    for (int b = 0; b < 256; b++)
        if (!(flags & 0x40) || b % 7) sym[n].bytes[0] = (unsigned char)b, sym[n++].len = 1;
    size_t at = 0;
    int wanted = at < size ? data[at++] % 64 : 0;
    for (int k = 0; k < wanted && at + 2 <= size; k++, at += 2) {
        int a = data[at] % n, b = data[at + 1] % n;
        if (sym[a].len + sym[b].len > MAX_SYMBOL_BYTES) continue;
        unsigned char joined[MAX_SYMBOL_BYTES];
        memcpy(joined, sym[a].bytes, (size_t)sym[a].len);
        memcpy(joined + sym[a].len, sym[b].bytes, (size_t)sym[b].len);
        if (find_symbol(sym, n, joined, sym[a].len + sym[b].len) >= 0) continue; /* no merge twice */
        memcpy(sym[n].bytes, joined, (size_t)(sym[a].len + sym[b].len));
        sym[n++].len = sym[a].len + sym[b].len;
        pairs[made][0] = a;
        pairs[made++][1] = b;
    }
    put_str(vocab, "{");
    for (int i = 0; i < n; i++) {
        char id[16];
        put_str(vocab, i ? ", \"" : "\"");
        for (int j = 0; j < sym[i].len; j++) put_byte_char(vocab, sym[i].bytes[j], 1, flags & 0x10);
        snprintf(id, sizeof id, "\": %d", i);
        put_str(vocab, id);
    }
    put_str(vocab, "}");
    put_str(merges, "#version: 0.2\n");
    for (int k = 0; k < made; k++) {
        int *p = pairs[flags & 0x20 ? made - 1 - k : k];
        for (int j = 0; j < sym[p[0]].len; j++) put_byte_char(merges, sym[p[0]].bytes[j], 0, 0);
        put_str(merges, " ");
        for (int j = 0; j < sym[p[1]].len; j++) put_byte_char(merges, sym[p[1]].bytes[j], 0, 0);
        put_str(merges, "\n");
    }
    return at;
}

/* ---- the checks -------------------------------------------------------- */

static int valid_utf8(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        int k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (!k || i + (size_t)k > n) return 0;
        for (int j = 1; j < k; j++)
            if ((s[i + j] & 0xc0) != 0x80) return 0;
        if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0) || (c == 0xf0 && s[i + 1] < 0x90) ||
            (c == 0xf4 && s[i + 1] >= 0x90))
            return 0;
        i += (size_t)k;
    }
    return 1;
}

static void check_encoding(tokenizer *t, const char *s, size_t n, int prefix) {
    size_t room = n + 2;
    int *ids = malloc(room * sizeof *ids), *again = malloc(room * sizeof *again), count, count2;
    char msg[POSLAB_MESSAGE_BYTES];
    require(ids && again, "memory for the ids");
    tokenizer_set_long_piece(t, (size_t)-1);
    poslab_status st = tokenizer_encode(t, s, n, prefix, ids, (int)room, &count, msg, sizeof msg);
    require(valid_utf8((const unsigned char *)s, n) || (st == POSLAB_ERR_INPUT && !strncmp(msg, "not valid UTF-8", 15)),
            "text that is not UTF-8 is refused as such");
    if (st != POSLAB_OK) {
        require(st == POSLAB_ERR_INPUT && count == 0, "a refused text has no ids");
        require_one_line(msg);
    }
    tokenizer_set_long_piece(t, 0);
    poslab_status st2 = tokenizer_encode(t, s, n, prefix, again, (int)room, &count2, msg, sizeof msg);
    require(st2 == st, "both merge loops accept or refuse alike");
    if (st != POSLAB_OK) goto done;
    require(count2 == count && !memcmp(ids, again, (size_t)count * sizeof *ids), "both merge loops give the same ids");
    require(count >= (n > 0 || prefix), "a text gets at least one id");

    /* the pieces are the text, byte for byte */
    size_t whole = n + (prefix != 0), o = 0;
    char *spelled = malloc(whole + 1);
    require(spelled != NULL, "memory for the pieces");
    for (int i = 0; i < count; i++) {
        size_t len;
        const char *p = tokenizer_piece(t, ids[i], &len);
        require(p != NULL && len > 0 && o + len <= whole, "every id has a piece, within the text's length");
        memcpy(spelled + o, p, len);
        o += len;
    }
    require(o == whole && (!prefix || spelled[0] == ' ') && !memcmp(spelled + (prefix != 0), s, n),
            "the pieces spell the text");
    free(spelled);
    if (count > 0) {
        st = tokenizer_encode(t, s, n, prefix, again, count - 1, &count2, msg, sizeof msg);
        require(st == POSLAB_ERR_INPUT && count2 == 0 && !strncmp(msg, "more than ", 10),
                "one id less room than needed is refused");
    }
done:
    free(ids);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int flags = data[0];
    data++, size--;
    text vocab = {0}, merges = {0};
    const char *s;
    size_t n;
    if (flags & 0x80) {
        size_t used = make_files(data, size, flags, &vocab, &merges);
        s = (const char *)data + used;
        n = size - used;
    } else {
        const uint8_t *nul = memchr(data, 0, size);
        const uint8_t *nul2 = nul ? memchr(nul + 1, 0, size - (size_t)(nul + 1 - data)) : NULL;
        if (!nul2) return 0;
        put(&vocab, data, (size_t)(nul - data));
        put(&merges, nul + 1, (size_t)(nul2 - nul - 1));
        s = (const char *)nul2 + 1;
        n = size - (size_t)(nul2 + 1 - data);
    }
    tokenizer *t = (tokenizer *)&vocab;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_status st = tokenizer_load(&t, vocab.s ? vocab.s : "", vocab.n, merges.s ? merges.s : "", merges.n, msg,
                                      sizeof msg);
    if (st != POSLAB_OK) {
        require(t == NULL && (st == POSLAB_ERR_INPUT || st == POSLAB_ERR_NOMEM), "a refused file leaves nothing");
        require_one_line(msg);
        require(!strncmp(msg, "vocab.json", 10) || !strncmp(msg, "merges.txt", 10), "a refusal names its file");
        if (flags & 0x80) fprintf(stderr, "fuzz_tokenizer: %s\n", msg);
        require(!(flags & 0x80), "the files the target writes load");
    } else {
        require(tokenizer_vocab_count(t) > 0 && tokenizer_id_limit(t) >= tokenizer_vocab_count(t),
                "ids cover the vocabulary");
        check_encoding(t, s, n, flags & 1);
        tokenizer_free(t);
    }
    free(vocab.s);
    free(merges.s);
    return 0;
}
