/* Options: one table of rows, and the parsing, checking and messages that
 * walk it.
 *
 * The CLI and the WebAssembly wrapper both hand every option to
 * poslab_config_set as text, and poslab_run checks a config filled in by
 * hand with poslab_config_check: both say what is wrong through the same
 * formatter per kind, so no message is written twice. The CLI's usage and
 * option list, the JSON config echo (report.c) and poslab_options_json
 * (for the page) are made from the same rows. */
#include "poslab.h"
#include "message.h"
#include "model_table.h"
#include "option.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

/* ---- the scheme table ---------------------------------------------------- */

/* The schemes every model may run, in poslab_scheme order; a model's own
 * scheme (a checkpoint's learned table) follows, from the model table. The
 * module's stand-in (random) is randn * 0.5; the real schemes are used at
 * 1. A new scheme is a row here, a POSLAB_SCHEME_* value, its line in
 * scheme_help, its words in model_table.c's texts (test_core checks they
 * list these names) and its math in positions.c. */
static const struct {
    const char *name;
    double default_scale;
} schemes[] = {
    {"none", 0.5},
    {"random", 0.5},
    {"sinusoidal", 1},
    {"rope", 1},
    {"alibi", 1},
};
enum { COMMON_SCHEMES = sizeof schemes / sizeof schemes[0] };

/* The model whose own scheme is scheme k (>= COMMON_SCHEMES), or NULL. */
static const model_row *scheme_owner(int k) {
    const model_row *m;
    for (int i = 0, own = COMMON_SCHEMES; (m = model_row_at(i)); i++)
        if (m->scheme && own++ == k) return m;
    return NULL;
}

int scheme_count(void) {
    int k = COMMON_SCHEMES;
    while (scheme_owner(k)) k++;
    return k;
}

double scheme_default_scale(int scheme) {
    if (scheme >= 0 && scheme < COMMON_SCHEMES) return schemes[scheme].default_scale;
    const model_row *m = scheme_owner(scheme);
    return m ? m->scheme_scale : NAN;
}

static const char *scheme_value(int k) {
    if (k >= 0 && k < COMMON_SCHEMES) return schemes[k].name;
    const model_row *m = scheme_owner(k);
    return m ? m->scheme : NULL;
}

/* In poslab_model order. */
static const char *model_value(int k) {
    const model_row *m = model_row_at(k);
    return m ? m->name : NULL;
}

/* ---- the choices' words described, for --help ------------------------------
 * Reached only from poslab_choice_word, which the WebAssembly module does
 * not export, so its linker leaves these lines out. Indexed like the
 * tables; test_core checks that every word has its line. */

static const char *const scheme_help[] = {
    "no positional information: attention alone (the scale is not used)",
    "the module's stand-in: a random vector per position, times the scale",
    "Vaswani et al.'s sines and cosines, times the scale",
    "rotary embedding: queries and keys turned by angles times the scale",
    "each head's scores lowered by scale x its slope x the distance",
};

const char *poslab_choice_word(const poslab_option *o, int k, char *help, size_t size, const char **example) {
    const char *word = o && o->kind == POSLAB_KIND_CHOICE ? o->value(k) : NULL;
    const char *line = NULL, *shown = NULL;
    if (word && o->value == scheme_value)
        line = k < COMMON_SCHEMES ? scheme_help[k] : scheme_owner(k)->scheme_help;
    if (word && o->value == model_value) line = model_row_at(k)->help, shown = model_row_at(k)->example;
    if (help && size) {
        if (!line) help[0] = 0;
        else if (o->value == scheme_value && k != POSLAB_SCHEME_NONE)
            decimal_snprintf(help, size, "%s (default scale %g)", line, scheme_default_scale(k));
        else decimal_snprintf(help, size, "%s", line);
    }
    if (example) *example = shown;
    return word;
}

const char *poslab_scheme_name(poslab_scheme scheme) {
    const char *name = scheme_value((int)scheme);
    return name ? name : "?";
}

/* ---- the option table ---------------------------------------------------- */

#define FIELD(f) offsetof(poslab_config, f)
#define NO_FLAG (-1)
/* Which models read an option (poslab_option.models); 0: every model. */
#define ALL_MODELS 0u
/* The smallest double above 0: a limit that refuses 0 itself (weight-std,
 * and a sweep's LO and HI). */
#define ABOVE_ZERO 4.9406564584124654e-324
#define DRAWN ((1u << POSLAB_MODEL_HEAD) | (1u << POSLAB_MODEL_TRANSFORMER))
/* Only a model that sets these itself asks whether they were given. */
#define GIVEN(f) (int)FIELD(f)

/* One row per option, in the order of the CLI's usage and of the JSON
 * config; the rows only one model reads are its row's (model_table.h), and
 * follow these. To add an option: add its field to poslab_config (an int for an
 * INTEGER up to INT_MAX or a SWITCH, an enum for a CHOICE, a double for a
 * NUMBER), add its row here with the `allowed` words its messages should
 * use, and write the code that reads the field. Parsing, checking, the
 * CLI, the JSON echo (when `echo`) and poslab_options_json follow. A CHOICE
 * takes its words from a function like scheme_value. */
static const poslab_option options[] = {
    {"a", "sentence_a", POSLAB_KIND_TEXT, 1, POSLAB_MAX_TOKENS, "dog bites man", NULL,
     "1 to 64 words separated by spaces", "TEXT", "sentence A", 1, FIELD(a), NO_FLAG, ALL_MODELS},
    {"b", "sentence_b", POSLAB_KIND_TEXT, 1, POSLAB_MAX_TOKENS, "man bites dog", NULL,
     "1 to 64 words separated by spaces", "TEXT", "sentence B", 1, FIELD(b), NO_FLAG, ALL_MODELS},
    {"dim", "dim", POSLAB_KIND_INTEGER, 1, POSLAB_MAX_DIM, "6", NULL,
     "an integer from 1 to 512", "N", "d, the size of word vectors and of the head", 1, FIELD(dim), NO_FLAG, DRAWN},
    {"seed", "seed", POSLAB_KIND_INTEGER, 0, 4294967295.0, "2", NULL,
     "an integer from 0 to 4294967295", "N", "np.random.seed for the draws", 1, FIELD(seed), NO_FLAG, DRAWN},
    {"scheme", "scheme", POSLAB_KIND_CHOICE, 0, 0, "random", scheme_value,
     model_table_schemes, model_table_scheme_metavar, model_table_scheme_help, 1,
     FIELD(scheme), GIVEN(scheme_given), ALL_MODELS},
    {"scale", "scale", POSLAB_KIND_NUMBER, 0, POSLAB_MAX_SCALE, NULL, NULL,
     "a finite number from 0 to 1e6", "X",
     "the positional signal's scale (default: the scheme's, see --scheme)", 1,
     FIELD(scale), (int)FIELD(scale_given), ALL_MODELS},
    {"causal", "causal", POSLAB_KIND_SWITCH, 0, 1, "false", NULL,
     "true, false, 1 or 0", NULL,
     model_table_causal_help, 1,
     FIELD(causal), GIVEN(causal_given), ALL_MODELS},
    {"rtol", "rtol", POSLAB_KIND_NUMBER, 0, INFINITY, "1e-5", NULL,
     "a finite number >= 0", "X", "np.allclose's relative tolerance", 1, FIELD(rtol), NO_FLAG, ALL_MODELS},
    {"atol", "atol", POSLAB_KIND_NUMBER, 0, INFINITY, "1e-8", NULL,
     "a finite number >= 0", "X", "np.allclose's absolute tolerance", 1, FIELD(atol), NO_FLAG, ALL_MODELS},
    {"offset-a", "offset_a", POSLAB_KIND_INTEGER, 0, POSLAB_MAX_OFFSET, "0", NULL,
     "an integer from 0 to 1024", "N", "the position of sentence A's first word", 1, FIELD(offset_a), NO_FLAG, ALL_MODELS},
    {"offset-b", "offset_b", POSLAB_KIND_INTEGER, 0, POSLAB_MAX_OFFSET, "0", NULL,
     "an integer from 0 to 1024", "N", "the position of sentence B's first word", 1, FIELD(offset_b), NO_FLAG, ALL_MODELS},
    {"model", "model", POSLAB_KIND_CHOICE, 0, 0, "head", model_value, model_table_models,
     model_table_model_metavar, model_table_model_help, 1, FIELD(model), NO_FLAG, ALL_MODELS},
    {"heads", "heads", POSLAB_KIND_INTEGER, 1, POSLAB_MAX_HEADS, "1", NULL,
     "an integer from 1 to 8 that divides dim", "N", "attention heads, each with dim/heads columns", 1,
     FIELD(heads), NO_FLAG, DRAWN},
    {"layers", "layers", POSLAB_KIND_INTEGER, 1, POSLAB_MAX_LAYERS, "2", NULL,
     "an integer from 1 to 12", "N", "transformer blocks (model transformer)", 1, FIELD(layers), NO_FLAG, DRAWN},
    {"weight-std", "weight_std", POSLAB_KIND_NUMBER, ABOVE_ZERO, 10, "0.02", NULL,
     "a finite number above 0, up to 10", "X",
     "standard deviation of the transformer's weights, as in GPT-2", 1, FIELD(weight_std), NO_FLAG, DRAWN},
    {"sweep", "sweep", POSLAB_KIND_SWEEP, 1, POSLAB_MAX_SWEEP, NULL, NULL,
     "LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001", "LO:HI:COUNT",
     "also compare at COUNT scales spaced evenly in log from LO to HI", 0, FIELD(sweep_count), NO_FLAG, ALL_MODELS},
};
enum { COMMON_OPTIONS = sizeof options / sizeof options[0] };

int poslab_option_for(const poslab_option *o, poslab_model m) {
    return o && (o->models == ALL_MODELS || (o->models >> m & 1u));
}

const poslab_option *poslab_option_at(int index) {
    if (index < 0) return NULL;
    if (index < COMMON_OPTIONS) return &options[index];
    index -= COMMON_OPTIONS;
    const model_row *m;
    for (int k = 0; (m = model_row_at(k)); index -= m->option_count, k++)
        if (index < m->option_count) return &m->options[index];
    return NULL;
}

static void *field(const poslab_option *o, poslab_config *cfg) { return (char *)cfg + o->offset; }
static const void *field_c(const poslab_option *o, const poslab_config *cfg) {
    return (const char *)cfg + o->offset;
}

/* An INTEGER field holds its whole range: int, or uint32_t past INT_MAX. */
static int is_uint32(const poslab_option *o) { return o->max > INT_MAX; }

double option_number(const poslab_option *o, const poslab_config *cfg) {
    const void *f = field_c(o, cfg);
    switch (o->kind) {
    case POSLAB_KIND_INTEGER: return is_uint32(o) ? (double)*(const uint32_t *)f : (double)*(const int *)f;
    case POSLAB_KIND_NUMBER: return *(const double *)f;
    case POSLAB_KIND_CHOICE: return (double)*(const int *)f; /* an enum: int-sized, numbered from 0 */
    case POSLAB_KIND_SWITCH: return (double)*(const int *)f;
    default: return NAN;
    }
}

const poslab_sentence *option_sentence(const poslab_option *o, const poslab_config *cfg) {
    return (const poslab_sentence *)field_c(o, cfg);
}

static int choice_count(const poslab_option *o) {
    int k = 0;
    while (o->value(k)) k++;
    return k;
}

/* ---- defaults ------------------------------------------------------------ */

void poslab_config_default(poslab_config *cfg) {
    const poslab_option *o;
    memset(cfg, 0, sizeof *cfg); /* an unset option: no scale given, no sweep */
    for (int i = 0; (o = poslab_option_at(i)); i++)
        if (o->default_text) poslab_config_set(cfg, o->name, o->default_text, NULL, 0);
    cfg->scheme_given = cfg->causal_given = 0; /* a default is not given */
}

poslab_config *poslab_config_new(void) {
    poslab_config *cfg = malloc(sizeof *cfg);
    if (cfg) poslab_config_default(cfg);
    return cfg;
}

void poslab_config_free(poslab_config *cfg) { free(cfg); }

double poslab_config_scale(const poslab_config *cfg) {
    if (cfg->scale_given) return cfg->scale;
    return scheme_default_scale((int)cfg->scheme);
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

/* The formatters: each kind's ways of being wrong, shared by parsing
 * (which shows the text given, quoted) and checking (which shows the
 * value found, formatted), so both say the same thing. */

/* What is wrong with a value, said the same way by every kind. Only a
 * number of the right sort outside the row's limits is "out of range". */
static const char NOT_A_NUMBER[] = "is not a number", NOT_FINITE[] = "is not a finite number",
                  NOT_AN_INTEGER[] = "is not an integer", OUT_OF_RANGE[] = "is out of range",
                  NOT_A_SWEEP[] = "is not a valid sweep",
                  USUAL[] = ""; /* the kind's usual reason */

/* A value the row does not allow: `what` says why (NULL or "": the kind's
 * usual reason, from `usual`). */
static poslab_status refuse(char *message, size_t size, const poslab_option *o, const char *key,
                            const char *shown, const char *what) {
    static const char *const usual[] = {
        [POSLAB_KIND_TEXT] = "has no words",          [POSLAB_KIND_INTEGER] = OUT_OF_RANGE,
        [POSLAB_KIND_NUMBER] = OUT_OF_RANGE,          [POSLAB_KIND_CHOICE] = "is not a", /* ... scheme */
        [POSLAB_KIND_SWITCH] = "is not a switch value", [POSLAB_KIND_SWEEP] = NOT_A_SWEEP,
        [POSLAB_KIND_NAME] = "is not a valid name",
    };
    unsigned kind = (unsigned)o->kind;
    int choice = kind == POSLAB_KIND_CHOICE;
    if (!what || !*what) what = kind < sizeof usual / sizeof usual[0] ? usual[kind] : OUT_OF_RANGE;
    return fail(message, size, POSLAB_ERR_INPUT, "%s: %s %s%s%s; allowed: %s", key, shown, what, choice ? " " : "",
                choice ? o->name : "", o->allowed);
}

static poslab_status reject_word_count(char *message, size_t size, const poslab_option *o, const char *key,
                                       int words) {
    return fail(message, size, POSLAB_ERR_INPUT, "%s: %d words given; allowed: %d to %d words", key, words,
                (int)o->min, (int)o->max);
}

/* `word` is the word's text, cut to 41 bytes for quote() to shorten. */
static poslab_status reject_word_bytes(char *message, size_t size, const char *key, int index, const char *word,
                                       size_t bytes) {
    char q[64];
    quote(q, sizeof q, word);
    return fail(message, size, POSLAB_ERR_INPUT, "%s: word %d (%s) is %zu bytes long; allowed: 1 to %d bytes per word",
                key, index, q, bytes, POSLAB_MAX_TOKEN_BYTES);
}

static poslab_status reject_utf8(char *message, size_t size, const char *key, int index, unsigned char byte,
                                 size_t at) {
    return fail(message, size, POSLAB_ERR_INPUT,
                "%s: word %d is not valid UTF-8 (byte 0x%02x at byte %zu of the text); allowed: UTF-8 text", key,
                index, byte, at);
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

static poslab_status parse_sentence(poslab_sentence *out, const poslab_option *o, const char *key,
                                    const char *value, char *message, size_t size) {
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
            if (n == 0) return reject_utf8(message, size, key, words + 1, v[i], i);
            i += (size_t)n;
        }
        size_t bytes = i - start;
        words++;
        if (bytes > POSLAB_MAX_TOKEN_BYTES) {
            char word[42];
            memcpy(word, value + start, 41);
            word[41] = 0;
            return reject_word_bytes(message, size, key, words, word, bytes);
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
        return refuse(message, size, o, key, q, NULL);
    }
    if (words > o->max) return reject_word_count(message, size, o, key, words);
    s.count = words;
    *out = s;
    return POSLAB_OK;
}

size_t poslab_sentence_join(const poslab_sentence *s, char *out) {
    size_t len = 0;
    for (int t = 0; t < s->count; t++) {
        const char *word = s->text + s->offset[t];
        size_t n = strlen(word);
        if (t) out[len++] = ' ';
        memcpy(out + len, word, n);
        len += n;
    }
    out[len] = 0;
    return len;
}

/* A hand-filled sentence: a word count in range, and words that lie in the
 * text, hold 1 to POSLAB_MAX_TOKEN_BYTES bytes and are valid UTF-8. */
static poslab_status check_sentence(const poslab_sentence *s, const poslab_option *o, char *message,
                                    size_t size) {
    if (s->count < o->min || s->count > o->max) return reject_word_count(message, size, o, o->name, s->count);
    for (int k = 0; k < s->count; k++) {
        size_t from = s->offset[k], room = sizeof s->text - from;
        if (from >= sizeof s->text)
            return reject_word_bytes(message, size, o->name, k + 1, "", 0);
        const char *w = s->text + from;
        size_t len = strnlen(w, room);
        if (len < 1 || len > POSLAB_MAX_TOKEN_BYTES || len == room) {
            char word[42];
            size_t shown = len < 41 ? len : 41;
            memcpy(word, w, shown);
            word[shown] = 0;
            return reject_word_bytes(message, size, o->name, k + 1, word, len);
        }
        for (size_t i = 0; i < len;) {
            int n = utf8_sequence((const unsigned char *)w + i, len - i);
            if (n == 0)
                return reject_utf8(message, size, o->name, k + 1, (unsigned char)w[i], from + i);
            i += (size_t)n;
        }
    }
    return POSLAB_OK;
}

/* ---- numbers ----------------------------------------------------------- */

/* A decimal integer with no sign, spaces or exponent: 1 when it fits in
 * 32 bits (in *out), TOO_LONG for digits past 2^32-1, 0 for anything else. */
enum { TOO_LONG = 2 };
static int parse_uint32(const char *v, uint32_t *out) {
    uint64_t x = 0;
    if (!*v) return 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9') return 0;
        if (x <= 0xffffffffULL) x = x * 10 + (uint64_t)(*v - '0'); /* then stays past 2^32-1 */
    }
    if (x > 0xffffffffULL) return TOO_LONG;
    *out = (uint32_t)x;
    return 1;
}

/* What is wrong with the text from v up to `stop` as a number from min to
 * max, NULL if nothing (then in *x). NaN and infinity, as C and JavaScript
 * print them ("nan", "-inf", "Infinity"), are numbers that are not finite,
 * and so is a decimal past the largest double; anything else that is not a
 * decimal as people and JSON write it (decimal.c's: no hex floats or
 * spaces, which strtod would take) is not a number. */
static const char *number_fault(const char *v, const char *stop, double min, double max, double *x) {
    const char *end;
    size_t n = 0;
    *x = decimal_parse(v, &end);
    if (end != v && end == stop) return !isfinite(*x) ? NOT_FINITE : *x < min || *x > max ? OUT_OF_RANGE : NULL;
    v += *v == '+' || *v == '-';
    const char *word = (*v | 0x20) == 'n' ? "nan" : "infinity";
    while (v + n < stop && (v[n] | 0x20) == word[n]) n++;
    return v + n == stop && (n == 3 || n == 8) ? NOT_FINITE : NOT_A_NUMBER; /* nan, inf, infinity */
}

/* What is wrong with an integer for row o, NULL if nothing (then in *x).
 * Digits past 2^32-1, or a minus sign before digits other than zeros, are
 * an integer outside every such row's limits (none goes below 0); "-0" is
 * 0 and "+8" is 8, as strtol and Python's int() read them. */
static const char *integer_fault(const char *v, const poslab_option *o, uint32_t *x) {
    int read = parse_uint32(v + (*v == '-' || *v == '+'), x);
    if (!read) return NOT_AN_INTEGER;
    if (read == TOO_LONG || (*v == '-' && *x) || *x < o->min || *x > o->max) return OUT_OF_RANGE;
    return NULL;
}

/* LO:HI:COUNT, read in place (a number may be written with as many digits
 * as the caller likes). NULL when it is a sweep the row allows (then in x
 * and *count); else what is wrong, written in why (64 bytes) with the part
 * it is wrong in, so that "1:0.5:3" says LO is above HI, not only that it
 * is not a sweep. */
static const char *sweep_fault(char *why, const char *v, const poslab_option *o, double *x, uint32_t *count) {
    static const char *const parts[] = {"LO", "HI", "COUNT"};
    const char *c[] = {v, strchr(v, ':'), NULL}, *fault = NOT_A_SWEEP;
    int i = 0;
    if (!c[1] || !(c[2] = strchr(c[1] + 1, ':')) || strchr(c[2] + 1, ':')) return fault; /* not three parts */
    for (; i < 2; i++) /* 0 < LO, HI <= 1e6 */
        if ((fault = number_fault(c[i] + (i > 0), c[i + 1], ABOVE_ZERO, POSLAB_MAX_SCALE, &x[i]))) break;
    if (i == 2 && !(fault = integer_fault(c[2] + 1, o, count)) && x[1] < x[0]) i = 0, fault = "is above HI";
    if (!fault) return NULL;
    decimal_snprintf(why, 64, "%s (%s %s)", NOT_A_SWEEP, parts[i], fault);
    return why;
}

/* A word that is not a model but names a thing a model reads (--model
 * gpt: a checkpoint), as that model's row says it; POSLAB_OK: not one. */
static poslab_status refuse_not_a_model(char *message, size_t size, const char *key, const char *q,
                                        const char *value) {
    const model_row *m;
    for (int k = 0; (m = model_row_at(k)); k++) {
        poslab_status st = m->not_a_model ? m->not_a_model(key, q, value, message, size) : POSLAB_OK;
        if (st != POSLAB_OK) return st;
    }
    return POSLAB_OK;
}

/* Parses value into a copy of the row's field(s), so that cfg is
 * untouched on error. */
static poslab_status parse(poslab_config *cfg, const poslab_option *o, const char *key, const char *value,
                           char *message, size_t size) {
    char q[64], why[64];
    const char *what = NULL; /* why value is refused; USUAL: for the kind's usual reason */
    void *f = field(o, cfg);
    quote(q, sizeof q, value);
    switch (o->kind) {
    case POSLAB_KIND_TEXT:
        return parse_sentence((poslab_sentence *)f, o, key, value, message, size);
    case POSLAB_KIND_INTEGER: {
        uint32_t x;
        what = integer_fault(value, o, &x);
        if (what) break;
        if (is_uint32(o)) *(uint32_t *)f = x;
        else *(int *)f = (int)x;
        break;
    }
    case POSLAB_KIND_NUMBER: {
        double x;
        what = number_fault(value, strchr(value, 0), o->min, o->max, &x);
        if (!what) *(double *)f = x == 0 ? 0.0 : x; /* -0 is 0: echoed "-0" looked like a sign that mattered */
        break;
    }
    case POSLAB_KIND_CHOICE: {
        int k = 0;
        while (o->value(k) && strcmp(value, o->value(k))) k++;
        if (!o->value(k) && o->value == model_value) {
            poslab_status named = refuse_not_a_model(message, size, key, q, value);
            if (named != POSLAB_OK) return named;
        }
        if (!o->value(k)) what = USUAL;
        else *(int *)f = k; /* an enum: int-sized, numbered from 0 */
        break;
    }
    case POSLAB_KIND_SWITCH:
        if (!strcmp(value, "true") || !strcmp(value, "1")) *(int *)f = 1;
        else if (!strcmp(value, "false") || !strcmp(value, "0")) *(int *)f = 0;
        else what = USUAL;
        break;
    case POSLAB_KIND_NAME: {
        size_t len = strlen(value);
        if (len < o->min || len > o->max) return refuse(message, size, o, key, q, NULL);
        memcpy(f, value, len + 1);
        break;
    }
    case POSLAB_KIND_SWEEP: {
        double x[2];
        uint32_t count;
        if (!*value) { /* no sweep */
            cfg->sweep_count = 0;
            break;
        }
        what = sweep_fault(why, value, o, x, &count);
        if (what) break;
        cfg->sweep_lo = x[0];
        cfg->sweep_hi = x[1];
        cfg->sweep_count = (int)count;
        break;
    }
    }
    if (what) return refuse(message, size, o, key, q, what);
    if (o->given >= 0) *(int *)((char *)cfg + o->given) = 1;
    return POSLAB_OK;
}

poslab_status poslab_config_set(poslab_config *cfg, const char *key, const char *value,
                                char *message, size_t size) {
    const poslab_option *o;
    if (!key) key = "(null)";
    if (!value) value = "";
    for (int i = 0; (o = poslab_option_at(i)); i++)
        if (!strcmp(key, o->name) || !strcmp(key, o->json)) return parse(cfg, o, key, value, message, size);

    char q[64], names[256];
    size_t at = 0;
    quote(q, sizeof q, key);
    for (int i = 0; (o = poslab_option_at(i)); i++)
        at += (size_t)decimal_snprintf(names + at, sizeof names - at, i ? ", %s" : "%s", o->name);
    return fail(message, size, POSLAB_ERR_KEY, "%s is not an option; allowed: %s", q, names);
}

/* One row of a config that may have been filled in by hand. */
static poslab_status check(const poslab_config *cfg, const poslab_option *o, char *message, size_t size) {
    char shown[80], why[64];
    const char *what = NULL;
    double x = option_number(o, cfg);
    switch (o->kind) {
    case POSLAB_KIND_TEXT:
        return check_sentence(option_sentence(o, cfg), o, message, size);
    case POSLAB_KIND_INTEGER:
        if (x >= o->min && x <= o->max) return POSLAB_OK;
        decimal_snprintf(shown, sizeof shown, "%.10g", x); /* any int or uint32_t, every digit */
        break;
    case POSLAB_KIND_NUMBER:
        if (o->given >= 0 && !*(const int *)((const char *)cfg + o->given)) return POSLAB_OK; /* unset */
        if (x >= o->min && x <= o->max && isfinite(x)) return POSLAB_OK;
        decimal_snprintf(shown, sizeof shown, "%g", x);
        if (!isfinite(x)) what = NOT_FINITE;
        break;
    case POSLAB_KIND_CHOICE:
    case POSLAB_KIND_SWITCH:
        if (x >= 0 && x < (o->kind == POSLAB_KIND_SWITCH ? 2 : choice_count(o))) return POSLAB_OK;
        decimal_snprintf(shown, sizeof shown, "%.10g", x);
        break;
    case POSLAB_KIND_NAME: { /* unset (empty) or NUL-terminated in its field */
        size_t len = strnlen((const char *)field_c(o, cfg), (size_t)o->max + 1);
        if (len <= o->max) return POSLAB_OK;
        decimal_snprintf(shown, sizeof shown, "%zu bytes", len);
        break;
    }
    case POSLAB_KIND_SWEEP: { /* said as if typed: every digit, so read back as it is */
        double x[2];
        uint32_t count;
        if (cfg->sweep_count == 0) return POSLAB_OK;
        decimal_snprintf(shown, sizeof shown, "%.17g:%.17g:%d", cfg->sweep_lo, cfg->sweep_hi, cfg->sweep_count);
        if (!(what = sweep_fault(why, shown, o, x, &count))) return POSLAB_OK;
        break;
    }
    }
    return refuse(message, size, o, o->name, shown, what);
}

/* The one rule that ties two rows: each head takes dim/heads columns. The
 * message lists the head counts this dim allows, so a student knows what to
 * pick instead. */
static poslab_status check_heads_divide_dim(const poslab_config *cfg, char *message, size_t size) {
    if (cfg->dim % cfg->heads == 0) return POSLAB_OK;
    char fits[64];
    size_t at = 0;
    for (int h = 1; h <= POSLAB_MAX_HEADS; h++)
        if (cfg->dim % h == 0) at += (size_t)decimal_snprintf(fits + at, sizeof fits - at, at ? ", %d" : "%d", h);
    return fail(message, size, POSLAB_ERR_INPUT,
                "heads: \"%d\" does not divide dim %d; allowed: an integer from 1 to 8 that divides dim (%s)",
                cfg->heads, cfg->dim, fits);
}

/* The rules between rows, by the model: a model's own scheme is for it
 * alone; then the model's rules, or where it has none (the drawn models),
 * heads that divide dim. */
static poslab_status check_model(const poslab_config *cfg, char *message, size_t size) {
    const model_row *m = model_row_at((int)cfg->model), *owner = scheme_owner((int)cfg->scheme);
    if (owner && owner != m) {
        char common[96];
        size_t at = 0;
        for (int k = 0; k < COMMON_SCHEMES; k++)
            at += (size_t)decimal_snprintf(common + at, sizeof common - at, k ? ", %s" : "%s", schemes[k].name);
        return fail(message, size, POSLAB_ERR_INPUT, "scheme: \"%s\" is %s, for model %s only; allowed with model %s: %s",
                    owner->scheme, owner->scheme_is, owner->name, m->name, common);
    }
    return m->check ? m->check(cfg, message, size) : check_heads_divide_dim(cfg, message, size);
}

poslab_status poslab_config_check(const poslab_config *cfg, char *message, size_t size) {
    const poslab_option *o;
    if (!cfg) return fail(message, size, POSLAB_ERR_INPUT, "config: missing");
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        poslab_status st = check(cfg, o, message, size);
        if (st != POSLAB_OK) return st;
    }
    return check_model(cfg, message, size);
}

const char *poslab_status_text(poslab_status status) {
    switch (status) {
    case POSLAB_OK: return "ok";
    case POSLAB_ERR_INPUT: return "an input is outside its valid range";
    case POSLAB_ERR_KEY: return "unknown option";
    case POSLAB_ERR_NOMEM: return "out of memory";
    case POSLAB_ERR_STATE: return "no successful run yet";
    case POSLAB_RUNNING: return "running: steps are left";
    }
    return "unknown status";
}
