/* GPT-2's byte-level BPE: reading vocab.json and merges.txt, splitting text
 * with GPT-2's pattern, merging by rank. tokenizer.h says what each call
 * does; docs/tokenizer.md defines the steps.
 *
 * Tokens are kept as the bytes they stand for, not as the byte characters
 * vocab.json spells them with, so merging two symbols is concatenating
 * bytes and a token's piece needs no decoding. Symbols are vocab ids
 * throughout: every merge's two symbols and its result must be tokens
 * (checked at load), so a merge is one hash lookup of an id pair. */
#include "tokenizer.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "message.h"
#include "unicode_tables.h"

enum {
    BYTE_CHARS = 324,   /* GPT-2's byte characters are all below U+0144 */
    SHORT_PIECE = 64,   /* default: longer pieces go through the priority queue */
    QUOTE_BYTES = 64    /* a token or line quoted in a message */
};

typedef struct {
    uint32_t offset, len; /* bytes in pool */
    int id;
} entry;

typedef struct {
    uint64_t pair; /* left id << 32 | right id; EMPTY_PAIR if unused */
    int rank, result;
} merge;

#define EMPTY_PAIR UINT64_MAX

struct tokenizer {
    char *pool;               /* every token's bytes */
    entry *entries;           /* in vocab.json's order */
    int count, entries_cap;
    int *slots;               /* entry index or -1, by hash of the bytes */
    size_t slot_mask;
    entry *by_id;             /* the entries sorted by id */
    int id_limit;
    merge *merges;            /* by hash of the pair */
    size_t merge_mask;
    int merge_count;
    int byte_id[256];         /* the one-byte tokens, -1 if missing */
    uint16_t byte_char[256];  /* GPT-2's bytes_to_unicode */
    int16_t char_byte[BYTE_CHARS];
    size_t long_piece;
    /* what tokenizer_step does next */
    enum { READ_TOKENS, INDEX_TOKENS, INDEX_IDS, READ_MERGES, COMPLETE } phase;
    /* vocab.json while tokenizer_step reads it: the caller's text, where
       the next entry starts, and the pool's bytes used */
    const unsigned char *v_text;
    size_t v_len, v_at;
    uint32_t v_used;
    /* merges.txt while tokenizer_step reads it: the caller's text, where the
       next line starts, its number, the first merge's, and a line's bytes */
    const unsigned char *m_text;
    size_t m_len, m_at;
    int m_line, m_first_line;
    unsigned char *m_buf;
};

/* ---- text helpers --------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (shortest form, no surrogates,
 * at most U+10FFFF), or 0. */
static int utf8_length(const unsigned char *s, size_t left) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n || left < (size_t)n) return 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0; /* surrogate */
    if (c == 0xf0 && s[1] < 0x90) return 0; /* overlong */
    if (c == 0xf4 && s[1] >= 0x90) return 0; /* past U+10FFFF */
    return n;
}

/* The code point of a valid sequence of n bytes. */
static uint32_t utf8_decode(const unsigned char *s, int n) {
    if (n == 1) return s[0];
    uint32_t cp = s[0] & (0x7f >> n);
    for (int k = 1; k < n; k++) cp = cp << 6 | (s[k] & 0x3f);
    return cp;
}

static int utf8_encode(unsigned char out[4], uint32_t cp) {
    if (cp < 0x80) { out[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { out[0] = (unsigned char)(0xc0 | cp >> 6); out[1] = (unsigned char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* "U+00E9": the hex digits printf's %04X would give. */
static void code_point_name(char out[12], uint32_t cp) {
    static const char hex[] = "0123456789ABCDEF";
    int digits = cp > 0xfffff ? 6 : cp > 0xffff ? 5 : 4, o = 0;
    out[o++] = 'U';
    out[o++] = '+';
    for (int k = digits - 1; k >= 0; k--) out[o++] = hex[cp >> (4 * k) & 0xf];
    out[o] = 0;
}

/* Quotes bytes for a message: valid UTF-8 and printable ASCII as they are,
 * other bytes as \xNN, cut with "..." after about 40 bytes. */
static void quote(char out[QUOTE_BYTES], const unsigned char *s, size_t len) {
    size_t o = 0, i = 0;
    out[o++] = '"';
    while (i < len) {
        int n = s[i] >= 0x80 ? utf8_length(s + i, len - i) : 1;
        if (i >= 40 || o + 8 + (size_t)n >= QUOTE_BYTES) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (n > 1 || (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')) {
            memcpy(out + o, s + i, (size_t)n);
            o += (size_t)n;
            i += (size_t)n;
        } else {
            o += (size_t)decimal_snprintf(out + o, QUOTE_BYTES - o, "\\x%02x", s[i]);
            i++;
        }
    }
    out[o++] = '"';
    out[o] = 0;
}

/* A token quoted as vocab.json spells it (its bytes as byte characters). */
static void quote_token(char out[QUOTE_BYTES], const tokenizer *t, const unsigned char *bytes, size_t len) {
    unsigned char spelled[48];
    size_t o = 0;
    for (size_t i = 0; i < len && o + 2 <= sizeof spelled; i++) /* byte characters take 1 or 2 bytes */
        o += (size_t)utf8_encode(spelled + o, t->byte_char[bytes[i]]);
    quote(out, spelled, o);
}

/* ---- hash tables -------------------------------------------------------- */

static uint64_t hash_bytes(const unsigned char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3u;
    return h ^ h >> 29;
}

static uint64_t hash_pair(uint64_t x) { /* MurmurHash3's finaliser */
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    return x ^ x >> 33;
}

static size_t table_size(size_t items) {
    size_t n = 16;
    while (n < 2 * items) n *= 2;
    return n;
}

/* The slot of these bytes: the entry's, or the empty one it would take. */
static size_t find_slot(const tokenizer *t, const unsigned char *s, size_t n) {
    size_t i = (size_t)hash_bytes(s, n) & t->slot_mask;
    for (;; i = (i + 1) & t->slot_mask) {
        int e = t->slots[i];
        if (e < 0) return i;
        const entry *x = &t->entries[e];
        if (x->len == n && !memcmp(t->pool + x->offset, s, n)) return i;
    }
}

static int token_id(const tokenizer *t, const unsigned char *s, size_t n) {
    int e = t->slots[find_slot(t, s, n)];
    return e < 0 ? -1 : t->entries[e].id;
}

static uint64_t pair_key(int a, int b) { return (uint64_t)(uint32_t)a << 32 | (uint32_t)b; }

static merge *find_merge(const tokenizer *t, uint64_t key) {
    size_t i = (size_t)hash_pair(key) & t->merge_mask;
    for (;; i = (i + 1) & t->merge_mask)
        if (t->merges[i].pair == key || t->merges[i].pair == EMPTY_PAIR) return &t->merges[i];
}

/* The merge of two adjacent symbols, or NULL (a missing byte is -1). */
static const merge *merge_of(const tokenizer *t, int a, int b) {
    if (a < 0 || b < 0) return NULL;
    const merge *m = find_merge(t, pair_key(a, b));
    return m->pair == EMPTY_PAIR ? NULL : m;
}

/* ---- vocab.json ----------------------------------------------------------- */

typedef struct {
    const unsigned char *s;
    size_t n, at;
} reader;

static void skip_space(reader *r) {
    while (r->at < r->n && (r->s[r->at] == ' ' || r->s[r->at] == '\t' || r->s[r->at] == '\n' || r->s[r->at] == '\r'))
        r->at++;
}

/* What stands at the reader, for "expected X, found Y". */
static void found(char out[QUOTE_BYTES], const reader *r) {
    if (r->at >= r->n) {
        strcpy(out, "the end of the file");
        return;
    }
    int len = r->s[r->at] >= 0x80 ? utf8_length(r->s + r->at, r->n - r->at) : 1;
    quote(out, r->s + r->at, (size_t)(len ? len : 1));
}

static poslab_status expected(const reader *r, const char *what, char *msg, size_t size) {
    char f[QUOTE_BYTES];
    found(f, r);
    return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: expected %s, found %s", r->at, what, f);
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits after "\u" at r->at, or -1. */
static int read_hex4(reader *r) {
    if (r->n - r->at < 4) return -1;
    int v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_value(r->s[r->at + k]);
        if (d < 0) return -1;
        v = v << 4 | d;
    }
    r->at += 4;
    return v;
}

/* One JSON string at r->at (its opening quote), as the bytes its byte
 * characters stand for, appended to the pool at *len. */
static poslab_status read_token(tokenizer *t, reader *r, char *out, uint32_t *len, char *msg, size_t size) {
    if (r->at >= r->n || r->s[r->at] != '"') return expected(r, "a string", msg, size);
    r->at++;
    uint32_t o = 0;
    for (;;) {
        if (r->at >= r->n) return expected(r, "the string's closing '\"'", msg, size);
        size_t start = r->at;
        unsigned c = r->s[r->at];
        uint32_t cp;
        if (c == '"') {
            r->at++;
            break;
        } else if (c < 0x20) {
            return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: control character 0x%02x in a string",
                        r->at, c);
        } else if (c == '\\') {
            if (++r->at >= r->n) return expected(r, "the string's closing '\"'", msg, size);
            unsigned e = r->s[r->at++];
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u': {
                int v = read_hex4(r);
                if (v < 0) return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: \\u needs four hex digits", start);
                cp = (uint32_t)v;
                if (cp >= 0xdc00 && cp <= 0xdfff)
                    return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: a low surrogate without a high one",
                                start);
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    int low = -1;
                    if (r->n - r->at >= 2 && r->s[r->at] == '\\' && r->s[r->at + 1] == 'u') {
                        r->at += 2;
                        low = read_hex4(r);
                    }
                    if (low < 0xdc00 || low > 0xdfff)
                        return fail(msg, size, POSLAB_ERR_INPUT,
                                    "vocab.json: byte %zu: a high surrogate without a low one after it", start);
                    cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)low - 0xdc00);
                }
                break;
            }
            default:
                r->at = start;
                return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: unknown escape in a string", start);
            }
        } else {
            int n = utf8_length(r->s + r->at, r->n - r->at);
            if (!n)
                return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: not valid UTF-8 (byte 0x%02x)", r->at,
                            c);
            cp = utf8_decode(r->s + r->at, n);
            r->at += (size_t)n;
        }
        if (cp >= BYTE_CHARS || t->char_byte[cp] < 0) {
            char name[12];
            code_point_name(name, cp);
            return fail(msg, size, POSLAB_ERR_INPUT,
                        "vocab.json: byte %zu: %s is not one of the 256 characters GPT-2 writes bytes with", start,
                        name);
        }
        out[o++] = (char)t->char_byte[cp];
    }
    *len = o;
    return POSLAB_OK;
}

/* A JSON number that is a non-negative int below INT_MAX. */
static poslab_status read_id(reader *r, int *id, char *msg, size_t size) {
    size_t start = r->at;
    if (r->at < r->n && r->s[r->at] == '-')
        return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: a negative id; ids are 0 or more", start);
    if (r->at >= r->n || r->s[r->at] < '0' || r->s[r->at] > '9') return expected(r, "an id (a number)", msg, size);
    long long v = 0;
    while (r->at < r->n && r->s[r->at] >= '0' && r->s[r->at] <= '9') {
        v = v * 10 + (r->s[r->at++] - '0');
        if (v >= INT_MAX)
            return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: id too large; ids are below %d", start,
                        INT_MAX);
    }
    if (r->s[start] == '0' && r->at - start > 1)
        return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: a number with a leading zero", start);
    if (r->at < r->n && (r->s[r->at] == '.' || r->s[r->at] == 'e' || r->s[r->at] == 'E'))
        return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: id is not a whole number", start);
    *id = (int)v;
    return POSLAB_OK;
}

static poslab_status add_entry(tokenizer *t) {
    if (t->count < t->entries_cap) return POSLAB_OK;
    int cap = t->entries_cap ? 2 * t->entries_cap : 1024;
    entry *e = realloc(t->entries, (size_t)cap * sizeof *e);
    if (!e) return POSLAB_ERR_NOMEM;
    t->entries = e;
    t->entries_cap = cap;
    return POSLAB_OK;
}

/* Inserts every entry into the byte table; the first token spelled twice
 * is an error. */
static poslab_status index_entries(tokenizer *t, char *msg, size_t size) {
    size_t n = table_size((size_t)t->count);
    t->slots = malloc(n * sizeof *t->slots);
    if (!t->slots) return fail(msg, size, POSLAB_ERR_NOMEM, "vocab.json: out of memory for %d tokens", t->count);
    memset(t->slots, 0xff, n * sizeof *t->slots);
    t->slot_mask = n - 1;
    for (int e = 0; e < t->count; e++) {
        const entry *x = &t->entries[e];
        const unsigned char *s = (const unsigned char *)t->pool + x->offset;
        size_t slot = find_slot(t, s, x->len);
        if (t->slots[slot] >= 0) {
            char q[QUOTE_BYTES];
            quote_token(q, t, s, x->len);
            return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: the token %s appears twice (ids %d and %d)", q,
                        t->entries[t->slots[slot]].id, x->id);
        }
        t->slots[slot] = e;
    }
    return POSLAB_OK;
}

static int by_id_compare(const void *x, const void *y) {
    const entry *a = x, *b = y; /* ties in file order, for the message */
    if (a->id != b->id) return (a->id > b->id) - (a->id < b->id);
    return (a->offset > b->offset) - (a->offset < b->offset);
}

static poslab_status index_ids(tokenizer *t, char *msg, size_t size) {
    t->by_id = malloc((size_t)t->count * sizeof *t->by_id);
    if (!t->by_id) return fail(msg, size, POSLAB_ERR_NOMEM, "vocab.json: out of memory for %d tokens", t->count);
    memcpy(t->by_id, t->entries, (size_t)t->count * sizeof *t->by_id);
    qsort(t->by_id, (size_t)t->count, sizeof *t->by_id, by_id_compare);
    for (int k = 1; k < t->count; k++) {
        const entry *a = &t->by_id[k - 1], *b = &t->by_id[k];
        if (a->id == b->id) {
            char qa[QUOTE_BYTES], qb[QUOTE_BYTES];
            quote_token(qa, t, (const unsigned char *)t->pool + a->offset, a->len);
            quote_token(qb, t, (const unsigned char *)t->pool + b->offset, b->len);
            return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: id %d is given to both %s and %s", a->id, qa, qb);
        }
    }
    t->id_limit = t->by_id[t->count - 1].id + 1;
    return POSLAB_OK;
}

/* vocab.json's opening brace; vocab_step then reads its entries. */
static poslab_status vocab_begin(tokenizer *t, const char *text, size_t len, char *msg, size_t size) {
    reader r = {(const unsigned char *)text, len, 0};
    skip_space(&r);
    if (r.at >= r.n || r.s[r.at] != '{') {
        char f[QUOTE_BYTES];
        found(f, &r);
        return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json is not a JSON object (it starts with %s, not '{')", f);
    }
    r.at++;
    if (len > UINT32_MAX) return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: larger than 4 GiB");
    /* No token is longer in bytes than its text in the file. */
    t->pool = malloc(len ? len : 1);
    if (!t->pool) return fail(msg, size, POSLAB_ERR_NOMEM, "vocab.json: out of memory for %zu bytes", len);
    skip_space(&r);
    if (r.at < r.n && r.s[r.at] == '}') return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: the object is empty");
    t->v_text = r.s, t->v_len = len, t->v_at = r.at, t->v_used = 0;
    t->phase = READ_TOKENS;
    return POSLAB_OK;
}

/* Up to `count` more entries of vocab.json, and at the object's end that
 * nothing follows it. */
static poslab_status vocab_step(tokenizer *t, int count, char *msg, size_t size) {
    reader r = {t->v_text, t->v_len, t->v_at};
    for (int k = 0; k < count; k++) {
        skip_space(&r);
        if (add_entry(t) != POSLAB_OK) return fail(msg, size, POSLAB_ERR_NOMEM, "vocab.json: out of memory");
        entry *e = &t->entries[t->count];
        size_t start = r.at;
        e->offset = t->v_used;
        poslab_status st = read_token(t, &r, t->pool + t->v_used, &e->len, msg, size);
        if (st != POSLAB_OK) return st;
        if (e->len == 0) return fail(msg, size, POSLAB_ERR_INPUT, "vocab.json: byte %zu: an empty token", start);
        t->v_used += e->len;
        skip_space(&r);
        if (r.at >= r.n || r.s[r.at] != ':') return expected(&r, "':' after the token", msg, size);
        r.at++;
        skip_space(&r);
        if ((st = read_id(&r, &e->id, msg, size)) != POSLAB_OK) return st;
        t->count++;
        skip_space(&r);
        if (r.at < r.n && r.s[r.at] == ',') {
            r.at++;
            continue;
        }
        if (r.at < r.n && r.s[r.at] == '}') {
            r.at++;
            skip_space(&r);
            if (r.at < r.n) return expected(&r, "nothing after the object", msg, size);
            t->phase = INDEX_TOKENS;
            return POSLAB_OK;
        }
        return expected(&r, "',' or '}' after an id", msg, size);
    }
    t->v_at = r.at;
    return POSLAB_OK;
}

/* The ids' index, and the one-byte tokens. */
static poslab_status index_bytes(tokenizer *t, char *msg, size_t size) {
    poslab_status st = index_ids(t, msg, size);
    if (st != POSLAB_OK) return st;
    for (int b = 0; b < 256; b++) {
        unsigned char byte = (unsigned char)b;
        t->byte_id[b] = token_id(t, &byte, 1);
    }
    return POSLAB_OK;
}

/* ---- merges.txt ----------------------------------------------------------- */

/* A merges.txt symbol (valid UTF-8 byte characters) as bytes in out (room
 * for len bytes); 0 on success, else the byte offset + 1 of the problem. */
static size_t symbol_bytes(const tokenizer *t, const unsigned char *s, size_t len, unsigned char *out, size_t *n) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        int k = utf8_length(s + i, len - i);
        uint32_t cp = k ? utf8_decode(s + i, k) : BYTE_CHARS;
        if (cp >= BYTE_CHARS || t->char_byte[cp] < 0) return i + 1;
        out[o++] = (unsigned char)t->char_byte[cp];
        i += (size_t)k;
    }
    *n = o;
    return 0;
}

static poslab_status bad_symbol(int line, const unsigned char *s, size_t len, size_t at, char *msg,
                                size_t size) {
    char q[QUOTE_BYTES];
    quote(q, s, len);
    int k = utf8_length(s + at, len - at);
    if (!k)
        return fail(msg, size, POSLAB_ERR_INPUT, "merges.txt line %d: %s is not valid UTF-8 (byte 0x%02x)", line, q,
                    s[at]);
    char name[12];
    code_point_name(name, utf8_decode(s + at, k));
    return fail(msg, size, POSLAB_ERR_INPUT,
                "merges.txt line %d: %s has %s, which is not one of the 256 characters GPT-2 writes bytes with", line, q,
                name);
}

/* merges.txt's table and first line (its text is t->m_text, set by
 * tokenizer_begin). */
static poslab_status merges_begin(tokenizer *t, char *msg, size_t size) {
    const unsigned char *s = t->m_text;
    const size_t len = t->m_len;
    /* Rank r is line first_line + r; counting lines first sizes the table. */
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += s[i] == '\n';
    size_t n = table_size(lines);
    t->merges = malloc(n * sizeof *t->merges);
    t->m_buf = malloc(len + 1);
    if (!t->merges || !t->m_buf) return fail(msg, size, POSLAB_ERR_NOMEM, "merges.txt: out of memory for %zu lines", lines);
    for (size_t i = 0; i < n; i++) t->merges[i].pair = EMPTY_PAIR;
    t->merge_mask = n - 1;
    t->m_at = 0;
    t->m_line = t->m_first_line = 1;
    if (len >= 8 && !memcmp(s, "#version", 8)) {
        const unsigned char *nl = memchr(s, '\n', len);
        t->m_at = nl ? (size_t)(nl - s) + 1 : len;
        t->m_line = t->m_first_line = 2;
    }
    return POSLAB_OK;
}

/* Up to `count` more lines of merges.txt; POSLAB_RUNNING while some are left. */
static poslab_status merges_step(tokenizer *t, int count, char *msg, size_t size) {
    const unsigned char *s = t->m_text;
    const size_t len = t->m_len;
    unsigned char *buf = t->m_buf;
    size_t at = t->m_at;
    int line = t->m_line;
    const int first_line = t->m_first_line, last = line + count;
    poslab_status st = POSLAB_OK;
    for (; at < len && st == POSLAB_OK && line < last; line++) {
        const unsigned char *nl = memchr(s + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - s) : len, next = nl ? end + 1 : len;
        size_t stop = end > at && s[end - 1] == '\r' ? end - 1 : end;
        if (stop == at) { /* empty lines are allowed only at the end of the file */
            size_t k = next;
            while (k < len && (s[k] == '\n' || s[k] == '\r')) k++;
            if (k < len) {
                st = fail(msg, size, POSLAB_ERR_INPUT, "merges.txt line %d: an empty line before more merges", line);
                break;
            }
            next = len; /* only empty lines are left: the file is read */
            at = next;
            break;
        }
        const unsigned char *space = memchr(s + at, ' ', stop - at);
        size_t a_len = space ? (size_t)(space - (s + at)) : 0, b_at = at + a_len + 1;
        if (!space || a_len == 0 || b_at >= stop || memchr(s + b_at, ' ', stop - b_at)) {
            char q[QUOTE_BYTES];
            quote(q, s + at, stop - at);
            st = fail(msg, size, POSLAB_ERR_INPUT,
                      "merges.txt line %d: %s is not two symbols separated by one space", line, q);
            break;
        }
        size_t b_len = stop - b_at, na, nb, bad;
        if ((bad = symbol_bytes(t, s + at, a_len, buf, &na))) {
            st = bad_symbol(line, s + at, a_len, bad - 1, msg, size);
            break;
        }
        if ((bad = symbol_bytes(t, s + b_at, b_len, buf + na, &nb))) {
            st = bad_symbol(line, s + b_at, b_len, bad - 1, msg, size);
            break;
        }
        int a = token_id(t, buf, na), b = token_id(t, buf + na, nb), ab = token_id(t, buf, na + nb);
        if (a < 0 || b < 0) {
            char q[QUOTE_BYTES];
            quote(q, a < 0 ? s + at : s + b_at, a < 0 ? a_len : b_len);
            st = fail(msg, size, POSLAB_ERR_INPUT, "merges.txt line %d: %s is not in vocab.json", line, q);
            break;
        }
        if (ab < 0) {
            char q[QUOTE_BYTES], qab[QUOTE_BYTES];
            quote(q, s + at, stop - at);
            quote_token(qab, t, buf, na + nb);
            st = fail(msg, size, POSLAB_ERR_INPUT, "merges.txt line %d: %s makes %s, which is not in vocab.json", line,
                      q, qab);
            break;
        }
        merge *m = find_merge(t, pair_key(a, b));
        if (m->pair != EMPTY_PAIR) {
            char q[QUOTE_BYTES];
            quote(q, s + at, stop - at);
            st = fail(msg, size, POSLAB_ERR_INPUT, "merges.txt line %d: %s is already line %d", line, q,
                      m->rank + first_line);
            break;
        }
        m->pair = pair_key(a, b);
        m->rank = t->merge_count++;
        m->result = ab;
        at = next;
    }
    t->m_at = at, t->m_line = line;
    if (st == POSLAB_OK && at < len && line == last) {
        /* (an empty line ends the file: the loop breaks there, leaving at < len) */
        return POSLAB_RUNNING;
    }
    free(t->m_buf);
    t->m_buf = NULL;
    t->m_text = NULL;
    return st;
}

/* ---- loading ---------------------------------------------------------- */

static void bytes_to_unicode(tokenizer *t) {
    int extra = 0;
    for (int c = 0; c < BYTE_CHARS; c++) t->char_byte[c] = -1;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
        int c = printable ? b : 256 + extra++;
        t->byte_char[b] = (uint16_t)c;
        t->char_byte[c] = (int16_t)b;
    }
}

poslab_status tokenizer_begin(tokenizer **out, const char *vocab_json, size_t vocab_len, const char *merges_txt,
                              size_t merges_len, char *msg, size_t msg_size) {
    *out = NULL;
    tokenizer *t = calloc(1, sizeof *t);
    if (!t) return fail(msg, msg_size, POSLAB_ERR_NOMEM, "out of memory for the tokenizer");
    bytes_to_unicode(t);
    t->long_piece = SHORT_PIECE;
    poslab_status st = vocab_begin(t, vocab_json, vocab_len, msg, msg_size);
    if (st != POSLAB_OK) {
        tokenizer_free(t);
        return st;
    }
    /* merges.txt is read once vocab.json is (its symbols are looked up there) */
    t->m_text = (const unsigned char *)merges_txt, t->m_len = merges_len;
    *out = t;
    return POSLAB_OK;
}

/* One phase's step: the tokens TOKENIZER_STEP_ITEMS at a time, then each of
 * their two indexes in a step of its own, then the merges. */
poslab_status tokenizer_step(tokenizer *t, char *msg, size_t msg_size) {
    poslab_status st = POSLAB_OK;
    switch (t->phase) {
    case READ_TOKENS:
        st = vocab_step(t, TOKENIZER_STEP_ITEMS, msg, msg_size);
        break;
    case INDEX_TOKENS:
        if ((st = index_entries(t, msg, msg_size)) == POSLAB_OK) t->phase = INDEX_IDS;
        break;
    case INDEX_IDS:
        if ((st = index_bytes(t, msg, msg_size)) == POSLAB_OK)
            st = merges_begin(t, msg, msg_size);
        if (st == POSLAB_OK) t->phase = READ_MERGES;
        break;
    case READ_MERGES:
        st = merges_step(t, TOKENIZER_STEP_ITEMS, msg, msg_size);
        if (st == POSLAB_OK) t->phase = COMPLETE;
        return st;
    case COMPLETE:
        return POSLAB_OK;
    }
    return st == POSLAB_OK ? POSLAB_RUNNING : st;
}

poslab_status tokenizer_load(tokenizer **out, const char *vocab_json, size_t vocab_len, const char *merges_txt,
                             size_t merges_len, char *msg, size_t msg_size) {
    poslab_status st = tokenizer_begin(out, vocab_json, vocab_len, merges_txt, merges_len, msg, msg_size);
    if (st == POSLAB_OK) do st = tokenizer_step(*out, msg, msg_size); while (st == POSLAB_RUNNING);
    if (st != POSLAB_OK && *out) {
        tokenizer_free(*out);
        *out = NULL;
    }
    return st;
}

void tokenizer_free(tokenizer *t) {
    if (!t) return;
    free(t->m_buf);
    free(t->pool);
    free(t->entries);
    free(t->slots);
    free(t->by_id);
    free(t->merges);
    free(t);
}

const char *tokenizer_piece(const tokenizer *t, int id, size_t *len) {
    int lo = 0, hi = t->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const entry *e = &t->by_id[mid];
        if (e->id == id) {
            *len = e->len;
            return t->pool + e->offset;
        }
        if (e->id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    *len = 0;
    return NULL;
}

int tokenizer_vocab_count(const tokenizer *t) { return t->count; }
int tokenizer_id_limit(const tokenizer *t) { return t->id_limit; }
int tokenizer_merge_count(const tokenizer *t) { return t->merge_count; }
void tokenizer_set_long_piece(tokenizer *t, size_t bytes) { t->long_piece = bytes; }

/* ---- splitting text --------------------------------------------------- */

static enum unicode_class class_at(const unsigned char *s, size_t n, size_t i, int *len) {
    unsigned c = s[i];
    if (c < 0x80) {
        *len = 1;
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return UNICODE_LETTER;
        if (c >= '0' && c <= '9') return UNICODE_NUMBER;
        if (c == ' ' || (c >= 9 && c <= 13)) return UNICODE_SPACE;
        return UNICODE_OTHER;
    }
    *len = utf8_length(s + i, n - i); /* the text was checked: never 0 */
    return unicode_class_of(utf8_decode(s + i, *len));
}

/* The end of the pattern's match at i (text already checked to be UTF-8):
 * the first alternative that matches there, as a backtracking engine
 * finds it. */
static size_t piece_end(const unsigned char *s, size_t n, size_t i) {
    int len;
    if (s[i] == '\'' && i + 1 < n) { /* 's 't 're 've 'm 'll 'd, lower case only */
        unsigned c = s[i + 1], d = i + 2 < n ? s[i + 2] : 0;
        if (c == 's' || c == 't' || c == 'm' || c == 'd') return i + 2;
        if ((c == 'r' && d == 'e') || (c == 'v' && d == 'e') || (c == 'l' && d == 'l')) return i + 3;
    }
    size_t k = i + (s[i] == ' ' && i + 1 < n); /* " ?" takes the space if a run follows it */
    enum unicode_class run = class_at(s, n, k, &len);
    if (run != UNICODE_SPACE) { /*  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+ */
        size_t j = k + (size_t)len;
        while (j < n && class_at(s, n, j, &len) == run) j += (size_t)len;
        return j;
    }
    /* \s+(?!\S): the whole run at the end of the text, else the run less its
       last character, so that character can start the next piece (" ?");
       \s+: a single space character before a non-space. */
    size_t j = i, last = i;
    while (j < n && class_at(s, n, j, &len) == UNICODE_SPACE) {
        last = j;
        j += (size_t)len;
    }
    return j == n || last == i ? j : last;
}

/* ---- merging --------------------------------------------------------- */

/* encoder.py's loop: find the adjacent pair of lowest rank, merge every
 * occurrence left to right, again until no pair has a merge. sym holds
 * n <= SHORT_PIECE symbols; returns how many are left. Each pair's rank is
 * kept beside it and looked up again only where a merge changed a
 * neighbour; a rank names one pair, so equal ranks are the pair merged. */
static int merge_by_rescanning(const tokenizer *t, int *sym, int n) {
    int rank[SHORT_PIECE], made[SHORT_PIECE];
    unsigned char fresh[SHORT_PIECE];
    for (int i = 0; i + 1 < n; i++) {
        const merge *m = merge_of(t, sym[i], sym[i + 1]);
        rank[i] = m ? m->rank : INT_MAX;
        made[i] = m ? m->result : -1;
    }
    if (n > 0) rank[n - 1] = INT_MAX, made[n - 1] = -1; /* no pair: copied, never read as one */
    while (n > 1) {
        int best = INT_MAX, result = -1, o = 0;
        for (int i = 0; i + 1 < n; i++)
            if (rank[i] < best) best = rank[i], result = made[i];
        if (best == INT_MAX) break;
        for (int i = 0; i < n; i++, o++) {
            if (i + 1 < n && rank[i] == best) {
                sym[o] = result;
                fresh[o] = 1;
                i++;
            } else {
                sym[o] = sym[i];
                rank[o] = rank[i];
                made[o] = made[i];
                fresh[o] = 0;
            }
        }
        n = o;
        for (int i = 0; i + 1 < n; i++)
            if (fresh[i] || fresh[i + 1]) {
                const merge *m = merge_of(t, sym[i], sym[i + 1]);
                rank[i] = m ? m->rank : INT_MAX;
                made[i] = m ? m->result : -1;
            }
    }
    return n;
}

/* Working memory for long pieces, grown as needed within one encode. */
typedef struct {
    int *sym, *next, *prev;
    uint64_t *heap, *pending;
    size_t cap;
} scratch;

static int grow(scratch *w, size_t n) {
    if (n <= w->cap) return 1;
    size_t cap = n > 2 * w->cap ? n : 2 * w->cap;
    int *sym = realloc(w->sym, cap * sizeof *sym);
    if (sym) w->sym = sym;
    int *next = realloc(w->next, cap * sizeof *next);
    if (next) w->next = next;
    int *prev = realloc(w->prev, cap * sizeof *prev);
    if (prev) w->prev = prev;
    uint64_t *heap = realloc(w->heap, 3 * cap * sizeof *heap);
    if (heap) w->heap = heap;
    uint64_t *pending = realloc(w->pending, 2 * cap * sizeof *pending);
    if (pending) w->pending = pending;
    if (!sym || !next || !prev || !heap || !pending) return 0;
    w->cap = cap;
    return 1;
}

static void scratch_free(scratch *w) {
    free(w->sym);
    free(w->next);
    free(w->prev);
    free(w->heap);
    free(w->pending);
}

/* A binary min-heap of rank << 32 | position. */
static void heap_push(uint64_t *h, size_t *n, uint64_t x) {
    size_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > x) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static uint64_t heap_pop(uint64_t *h, size_t *n) {
    uint64_t top = h[0], x = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) c++;
        if (h[c] >= x) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
    return top;
}

enum { KILLED = -2 };

/* The merge at node p if it is still the one of rank `rank` there. */
static const merge *merge_at(const tokenizer *t, const scratch *w, int p, int rank) {
    if (w->sym[p] == KILLED || w->next[p] < 0) return NULL;
    const merge *m = merge_of(t, w->sym[p], w->sym[w->next[p]]);
    return m && m->rank == rank ? m : NULL;
}

static void note_pair(const tokenizer *t, const scratch *w, int p, size_t *pending) {
    const merge *m = merge_of(t, w->sym[p], w->sym[w->next[p]]);
    if (m) w->pending[(*pending)++] = (uint64_t)m->rank << 32 | (uint32_t)p;
}

/* The same result in O(n log n): symbols are a linked list, every adjacent
 * pair with a merge waits in a heap by (rank, position). A round takes the
 * lowest rank and merges its pairs in position order, skipping those an
 * earlier merge of the round broke, which is encoder.py's left-to-right
 * pass; pairs the round makes wait until it ends, as they wait for
 * encoder.py's next scan. n symbols in w->sym; returns how many are left,
 * at the front of w->sym. */
static int merge_with_heap(const tokenizer *t, scratch *w, int n) {
    size_t size = 0;
    for (int i = 0; i < n; i++) {
        w->next[i] = i + 1 < n ? i + 1 : -1;
        w->prev[i] = i - 1;
    }
    for (int i = 0; i + 1 < n; i++) {
        const merge *m = merge_of(t, w->sym[i], w->sym[i + 1]);
        if (m) heap_push(w->heap, &size, (uint64_t)m->rank << 32 | (uint32_t)i);
    }
    while (size > 0) {
        int rank = (int)(w->heap[0] >> 32);
        size_t pending = 0;
        while (size > 0 && (int)(w->heap[0] >> 32) == rank) {
            int p = (int)(uint32_t)heap_pop(w->heap, &size);
            const merge *m = merge_at(t, w, p, rank);
            if (!m) continue;
            int q = w->next[p];
            w->sym[p] = m->result;
            w->sym[q] = KILLED;
            w->next[p] = w->next[q];
            if (w->next[p] >= 0) w->prev[w->next[p]] = p;
            if (w->prev[p] >= 0) note_pair(t, w, w->prev[p], &pending);
            if (w->next[p] >= 0) note_pair(t, w, p, &pending);
        }
        for (size_t k = 0; k < pending; k++) heap_push(w->heap, &size, w->pending[k]);
    }
    int o = 0;
    for (int p = 0; p >= 0; p = w->next[p]) w->sym[o++] = w->sym[p];
    return o;
}

poslab_status tokenizer_encode(const tokenizer *t, const char *text, size_t len, int prefix_space, int *ids,
                               int max_ids, int *count, char *msg, size_t msg_size) {
    const unsigned char *u = (const unsigned char *)text;
    *count = 0;
    for (size_t i = 0; i < len;) {
        int k = utf8_length(u + i, len - i);
        if (!k)
            return fail(msg, msg_size, POSLAB_ERR_INPUT, "not valid UTF-8: byte 0x%02x at byte %zu of the text", u[i], i);
        i += (size_t)k;
    }
    if (len > INT_MAX - 1) return fail(msg, msg_size, POSLAB_ERR_INPUT, "the text is longer than 2 GiB");
    unsigned char *copy = NULL;
    if (prefix_space) {
        copy = malloc(len + 1);
        if (!copy) return fail(msg, msg_size, POSLAB_ERR_NOMEM, "out of memory for %zu bytes of text", len + 1);
        copy[0] = ' ';
        if (len) memcpy(copy + 1, u, len);
        u = copy;
        len++;
    }
    scratch w = {0};
    poslab_status st = POSLAB_OK;
    int n = 0;
    for (size_t at = 0; at < len && st == POSLAB_OK;) {
        size_t end = piece_end(u, len, at), m = end - at;
        int short_sym[SHORT_PIECE], *sym = short_sym, left;
        if (m <= SHORT_PIECE && m <= t->long_piece) {
            for (size_t i = 0; i < m; i++) sym[i] = t->byte_id[u[at + i]];
            left = merge_by_rescanning(t, sym, (int)m);
        } else if (grow(&w, m)) {
            sym = w.sym;
            for (size_t i = 0; i < m; i++) sym[i] = t->byte_id[u[at + i]];
            left = merge_with_heap(t, &w, (int)m);
        } else {
            st = fail(msg, msg_size, POSLAB_ERR_NOMEM, "out of memory for a piece of %zu bytes", m);
            break;
        }
        for (int i = 0; i < left; i++) {
            if (sym[i] < 0) { /* a byte no merge took in, with no token of its own */
                size_t b = at;
                while (t->byte_id[u[b]] >= 0) b++;
                st = fail(msg, msg_size, POSLAB_ERR_INPUT, "byte 0x%02x is not in vocab.json", u[b]);
                break;
            }
            if (n == max_ids) {
                st = fail(msg, msg_size, POSLAB_ERR_INPUT, "more than %d tokens", max_ids);
                break;
            }
            ids[n++] = sym[i];
        }
        at = end;
    }
    scratch_free(&w);
    free(copy);
    *count = st == POSLAB_OK ? n : 0;
    return st;
}
