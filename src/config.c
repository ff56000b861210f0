/* Options: defaults, parsing from text, and the one-line error messages.
 *
 * The CLI and the WebAssembly wrapper both hand every option to
 * poslab_config_set as text, so both reject bad input with the same words
 * and nothing is validated in two places. */
#include "poslab.h"
#include "message.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

static const char *const scheme_names[] = {"none", "random", "sinusoidal", "rope"};

const char *poslab_scheme_name(poslab_scheme scheme) {
    if ((unsigned)scheme >= sizeof scheme_names / sizeof scheme_names[0]) return "?";
    return scheme_names[scheme];
}

/* A sentence from literal tokens, for the defaults. */
static void sentence_of(poslab_sentence *s, const char *const *words, int n) {
    size_t at = 0;
    s->count = n;
    for (int k = 0; k < n; k++) {
        size_t len = strlen(words[k]);
        s->offset[k] = (uint16_t)at;
        memcpy(s->text + at, words[k], len + 1);
        at += len + 1;
    }
}

void poslab_config_default(poslab_config *cfg) {
    static const char *const a[] = {"dog", "bites", "man"};
    static const char *const b[] = {"man", "bites", "dog"};
    memset(cfg, 0, sizeof *cfg);
    sentence_of(&cfg->a, a, 3);
    sentence_of(&cfg->b, b, 3);
    cfg->dim = 6;
    cfg->seed = 2;
    cfg->scheme = POSLAB_SCHEME_RANDOM;
    cfg->scale = 0.5;
    cfg->scale_given = 0;
    cfg->causal = 0;
    cfg->rtol = 1e-5;
    cfg->atol = 1e-8;
}

poslab_config *poslab_config_new(void) {
    poslab_config *cfg = malloc(sizeof *cfg);
    if (cfg) poslab_config_default(cfg);
    return cfg;
}

void poslab_config_free(poslab_config *cfg) { free(cfg); }

double poslab_config_scale(const poslab_config *cfg) {
    if (cfg->scale_given) return cfg->scale;
    /* the module's stand-in is randn * 0.5; the real schemes are used at 1 */
    return (cfg->scheme == POSLAB_SCHEME_SINUSOIDAL || cfg->scheme == POSLAB_SCHEME_ROPE) ? 1.0 : 0.5;
}

/* ---- messages ---------------------------------------------------------- */

static int utf8_sequence(const unsigned char *s, size_t left);

/* Quotes user text for a message: printable ASCII and valid UTF-8 as is,
 * other bytes as \xNN, cut with "..." after about 40 bytes so that a 1 MB
 * input still gives one short line. */
static void quote(char *out, size_t size, const char *value) {
    const unsigned char *v = (const unsigned char *)value;
    size_t left = strlen(value), o = 0, i = 0;
    if (size < 16) { if (size) out[0] = 0; return; }
    out[o++] = '"';
    while (i < left) {
        int n = v[i] >= 0x80 ? utf8_sequence(v + i, left - i) : 1;
        if (i >= 40 || o + 8 + (size_t)n >= size) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (n > 1 || (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '"' && v[i] != '\\')) {
            memcpy(out + o, v + i, (size_t)n);
            o += (size_t)n;
            i += (size_t)n;
        } else {
            o += (size_t)decimal_snprintf(out + o, size - o, "\\x%02x", v[i]);
            i++;
        }
    }
    out[o++] = '"';
    out[o] = 0;
}

poslab_status fail(char *message, size_t size, poslab_status status, const char *fmt, ...) {
    if (message && size) {
        va_list ap;
        va_start(ap, fmt);
        decimal_vsnprintf(message, size, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---- sentences --------------------------------------------------------- */

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the valid UTF-8 sequence at s (at most `left` bytes), or 0 if
 * it is not one: overlong forms, surrogates and code points past U+10FFFF
 * are rejected, as a strict decoder does. */
static int utf8_sequence(const unsigned char *s, size_t left) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else return 0;
    if ((size_t)n > left) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf) return 0;
    return n;
}

static poslab_status parse_sentence(poslab_sentence *out, const char *key, const char *value,
                                    char *message, size_t size) {
    const unsigned char *v = (const unsigned char *)value;
    size_t len = strlen(value);
    poslab_sentence s;
    size_t at = 0;
    int words = 0;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < len;) {
        if (is_space(v[i])) { i++; continue; }
        size_t start = i;
        while (i < len && !is_space(v[i])) {
            int n = utf8_sequence(v + i, len - i);
            if (n == 0)
                return fail(message, size, POSLAB_ERR_INPUT,
                            "%s: word %d is not valid UTF-8 (byte 0x%02x at byte %zu of the text); "
                            "allowed: UTF-8 text", key, words + 1, v[i], i);
            i += (size_t)n;
        }
        size_t bytes = i - start;
        words++;
        if (bytes > POSLAB_MAX_TOKEN_BYTES) {
            char q[64];
            char word[POSLAB_MAX_TOKEN_BYTES + 1];
            memcpy(word, value + start, 41); /* quote() cuts it at 40 with "..." */
            word[41] = 0;
            quote(q, sizeof q, word);
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: word %d (%s) is %zu bytes long; allowed: 1 to %d bytes per word",
                        key, words, q, bytes, POSLAB_MAX_TOKEN_BYTES);
        }
        if (words <= POSLAB_MAX_TOKENS) {
            s.offset[words - 1] = (uint16_t)at;
            memcpy(s.text + at, value + start, bytes);
            s.text[at + bytes] = 0;
            at += bytes + 1;
        }
    }
    if (words == 0) {
        char q[64];
        quote(q, sizeof q, value);
        return fail(message, size, POSLAB_ERR_INPUT,
                    "%s: %s has no words; allowed: 1 to %d words separated by spaces", key, q,
                    POSLAB_MAX_TOKENS);
    }
    if (words > POSLAB_MAX_TOKENS)
        return fail(message, size, POSLAB_ERR_INPUT,
                    "%s: %d words given; allowed: 1 to %d words", key, words, POSLAB_MAX_TOKENS);
    s.count = words;
    *out = s;
    return POSLAB_OK;
}

/* ---- numbers ----------------------------------------------------------- */

/* A decimal integer with no sign, spaces or exponent; false past 2^32-1. */
static int parse_uint32(const char *v, uint32_t *out) {
    uint64_t x = 0;
    if (!*v) return 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9') return 0;
        x = x * 10 + (uint64_t)(*v - '0');
        if (x > 0xffffffffULL) return 0;
    }
    *out = (uint32_t)x;
    return 1;
}

/* A finite decimal number as people and JSON write it:
 * [+-]digits[.digits][e[+-]digits], with digits on at least one side of the
 * point, and nothing else (no hex floats, "inf", "nan" or spaces, which
 * strtod would take). Correctly rounded, as strtod reads it. */
static int parse_finite(const char *v, double *out) {
    const char *end;
    double x = decimal_parse(v, &end);
    if (end == v || *end || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

static int parse_sweep(const char *v, double *lo, double *hi, int *count) {
    char buf[128];
    size_t len = strlen(v);
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, v, len + 1);
    char *c1 = strchr(buf, ':');
    if (!c1) return 0;
    char *c2 = strchr(c1 + 1, ':');
    if (!c2 || strchr(c2 + 1, ':')) return 0;
    *c1 = *c2 = 0;
    uint32_t n;
    if (!parse_finite(buf, lo) || !parse_finite(c1 + 1, hi) || !parse_uint32(c2 + 1, &n)) return 0;
    if (n > POSLAB_MAX_SWEEP) return 0;
    *count = (int)n;
    return 1;
}

poslab_status poslab_config_set(poslab_config *cfg, const char *key, const char *value,
                                char *message, size_t size) {
    char q[64];
    if (!key) key = "(null)";
    if (!value) value = "";
    quote(q, sizeof q, value);

    if (!strcmp(key, "a") || !strcmp(key, "sentence_a"))
        return parse_sentence(&cfg->a, key, value, message, size);
    if (!strcmp(key, "b") || !strcmp(key, "sentence_b"))
        return parse_sentence(&cfg->b, key, value, message, size);
    if (!strcmp(key, "dim")) {
        uint32_t d;
        if (!parse_uint32(value, &d) || d < 1 || d > POSLAB_MAX_DIM)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "dim: %s is out of range; allowed: an integer from 1 to %d", q, POSLAB_MAX_DIM);
        cfg->dim = (int)d;
        return POSLAB_OK;
    }
    if (!strcmp(key, "seed")) {
        uint32_t s;
        if (!parse_uint32(value, &s))
            return fail(message, size, POSLAB_ERR_INPUT,
                        "seed: %s is out of range; allowed: an integer from 0 to 4294967295", q);
        cfg->seed = s;
        return POSLAB_OK;
    }
    if (!strcmp(key, "scheme")) {
        for (int k = 0; k < 4; k++) {
            if (!strcmp(value, scheme_names[k])) {
                cfg->scheme = (poslab_scheme)k;
                return POSLAB_OK;
            }
        }
        return fail(message, size, POSLAB_ERR_INPUT,
                    "scheme: %s is not a scheme; allowed: none, random, sinusoidal, rope", q);
    }
    if (!strcmp(key, "scale")) {
        double x;
        if (!parse_finite(value, &x) || x < 0 || x > POSLAB_MAX_SCALE)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "scale: %s is out of range; allowed: a finite number from 0 to 1e6", q);
        cfg->scale = x;
        cfg->scale_given = 1;
        return POSLAB_OK;
    }
    if (!strcmp(key, "causal")) {
        if (!strcmp(value, "true") || !strcmp(value, "1")) cfg->causal = 1;
        else if (!strcmp(value, "false") || !strcmp(value, "0")) cfg->causal = 0;
        else
            return fail(message, size, POSLAB_ERR_INPUT,
                        "causal: %s is not a switch value; allowed: true or false", q);
        return POSLAB_OK;
    }
    if (!strcmp(key, "rtol") || !strcmp(key, "atol")) {
        double x;
        if (!parse_finite(value, &x) || x < 0)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "%s: %s is out of range; allowed: a finite number >= 0", key, q);
        if (key[0] == 'r') cfg->rtol = x; else cfg->atol = x;
        return POSLAB_OK;
    }
    if (!strcmp(key, "sweep")) {
        double lo, hi;
        int count;
        if (!*value) {
            cfg->sweep_count = 0;
            return POSLAB_OK;
        }
        if (!parse_sweep(value, &lo, &hi, &count) || !(lo > 0) || hi < lo || hi > POSLAB_MAX_SCALE ||
            count < 1)
            return fail(message, size, POSLAB_ERR_INPUT,
                        "sweep: %s is not a valid sweep; allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 "
                        "and COUNT an integer from 1 to %d", q, POSLAB_MAX_SWEEP);
        cfg->sweep_lo = lo;
        cfg->sweep_hi = hi;
        cfg->sweep_count = count;
        return POSLAB_OK;
    }
    quote(q, sizeof q, key);
    return fail(message, size, POSLAB_ERR_KEY,
                "%s is not an option; allowed: a, b, dim, seed, scheme, scale, causal, rtol, atol, sweep", q);
}

const char *poslab_status_text(poslab_status status) {
    switch (status) {
    case POSLAB_OK: return "ok";
    case POSLAB_ERR_INPUT: return "an input is outside its valid range";
    case POSLAB_ERR_KEY: return "unknown option";
    case POSLAB_ERR_NOMEM: return "out of memory";
    case POSLAB_ERR_STATE: return "no successful run yet";
    }
    return "unknown status";
}
