/* The result as JSON (docs/interfaces.md) and as the CLI's text. Both writers
 * read only poslab_result, whose model parts (token ids, next tokens, what a
 * model says of itself) the model fills in, so neither reaches into a model
 * and what the CLI prints cannot drift from what the wrapper parses. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "option.h"

void strbuf_free(strbuf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

static void put(strbuf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        if (b->fixed) { b->failed = 1; return; }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) { b->failed = 1; return; }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void puts_(strbuf *b, const char *s) { put(b, s, strlen(s)); }

/* Ends a table's line: its columns are padded for the next one, and a
 * line does not end in spaces. */
static void end_row(strbuf *b) {
    if (b->failed) return;
    while (b->len > 0 && b->data[b->len - 1] == ' ') b->data[--b->len] = 0;
    puts_(b, "\n");
}

/* Formats are checked as printf's; decimal.h lists the conversions there are. */
static void printf_(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(strbuf *b, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = decimal_vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void begin(strbuf *b) {
    b->len = 0;
    b->failed = 0;
    put(b, "", 0);
}

static const char *finish(strbuf *b) { return b->failed ? NULL : b->data; }

static const char *word(const poslab_sentence *s, int k) { return s->text + s->offset[k]; }

/* ---- JSON -------------------------------------------------------------- */

/* 16 significant digits when they read back to the same double, else 17
 * (which always do); %g drops trailing zeros, so 1e-05 stays 1e-05.
 * JSON has no NaN or infinity: those become null. */
static void json_number(strbuf *b, double x) {
    char tmp[DECIMAL_G_BYTES];
    if (!isfinite(x)) { puts_(b, "null"); return; }
    int n = decimal_g(tmp, x, 16);
    if (decimal_parse(tmp, NULL) != x) n = decimal_g(tmp, x, 17);
    put(b, tmp, (size_t)n);
}

static void json_bool(strbuf *b, int x) { puts_(b, x ? "true" : "false"); }

static void json_string(strbuf *b, const char *s) {
    puts_(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') { char e[2] = {'\\', (char)*p}; put(b, e, 2); }
        else if (*p < 0x20 || *p == 0x7f) printf_(b, "\\u%04x", *p);
        else put(b, (const char *)p, 1); /* tokens are valid UTF-8 */
    }
    puts_(b, "\"");
}

static void json_words(strbuf *b, const poslab_sentence *s) {
    puts_(b, "[");
    for (int k = 0; k < s->count; k++) {
        if (k) puts_(b, ",");
        json_string(b, word(s, k));
    }
    puts_(b, "]");
}

static void json_matrix(strbuf *b, const double *m, int rows, int cols) {
    puts_(b, "[");
    for (int i = 0; i < rows; i++) {
        puts_(b, i ? ",[" : "[");
        for (int j = 0; j < cols; j++) {
            if (j) puts_(b, ",");
            json_number(b, m[(size_t)i * cols + j]);
        }
        puts_(b, "]");
    }
    puts_(b, "]");
}

/* ,"name":[m0,m1,...]: `count` n x n matrices stored one after another. */
static void json_heads(strbuf *b, const char *name, const double *m, int count, int n) {
    printf_(b, ",\n\"%s\":[", name);
    for (int h = 0; h < count; h++) {
        if (h) puts_(b, ",");
        json_matrix(b, m + (size_t)h * n * n, n, n);
    }
    puts_(b, "]");
}

static void json_figures(strbuf *b, const poslab_pair *p) {
    puts_(b, "\"allclose\":");
    json_bool(b, p->allclose);
    puts_(b, ",\"max_abs_diff\":");
    json_number(b, p->max_abs_diff);
    puts_(b, ",\"cosine_distance\":");
    json_number(b, p->cosine_distance);
}

/* Row `row` of the sweep: row 0 is the mean, row 1 + i is pairs[i]. */
static void json_points(strbuf *b, const poslab_result *r, int row) {
    const double *cosine = r->sweep_cosine + (size_t)row * r->sweep_count;
    const unsigned char *close = r->sweep_allclose + (size_t)row * r->sweep_count;
    puts_(b, "[");
    for (int t = 0; t < r->sweep_count; t++) {
        puts_(b, t ? ",{\"cosine_distance\":" : "{\"cosine_distance\":");
        json_number(b, cosine[t]);
        puts_(b, ",\"allclose\":");
        json_bool(b, close[t]);
        puts_(b, "}");
    }
    puts_(b, "]");
}

/* The value of one option row in cfg, as JSON. */
static void json_option_value(strbuf *b, const poslab_option *o, const poslab_config *cfg) {
    switch (o->kind) {
    case POSLAB_KIND_TEXT: json_words(b, option_sentence(o, cfg)); break;
    case POSLAB_KIND_CHOICE: json_string(b, o->value((int)option_number(o, cfg))); break;
    case POSLAB_KIND_SWITCH: json_bool(b, option_number(o, cfg) != 0); break;
    case POSLAB_KIND_NAME: json_string(b, (const char *)cfg + o->offset); break;
    default: json_number(b, option_number(o, cfg)); break; /* integers print as %d does */
    }
}

/* The result's "config": every row flagged echo that the model reads, in
 * table order. */
static void json_config(strbuf *b, const poslab_config *c) {
    const poslab_option *o;
    int first = 1;
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        if (!poslab_option_for(o, c->model) || !o->echo) continue;
        puts_(b, first ? "\"" : ",\"");
        puts_(b, o->json);
        puts_(b, "\":");
        json_option_value(b, o, c);
        first = 0;
    }
}

/* ,"tokens_x":[{"id":..,"text":..},...] */
static void json_tokens(strbuf *b, const char *name, const int *ids, const poslab_sentence *words) {
    printf_(b, ",\n\"%s\":[", name);
    for (int k = 0; k < words->count; k++) {
        printf_(b, "%s{\"id\":%d,\"text\":", k ? "," : "", ids[k]);
        json_string(b, word(words, k));
        puts_(b, "}");
    }
    puts_(b, "]");
}

/* ,"next_x":[{"id":..,"text":..,"probability":..},...] */
static void json_next(strbuf *b, const char *name, const poslab_next_token *next) {
    printf_(b, ",\n\"%s\":[", name);
    for (int k = 0; k < POSLAB_NEXT_TOKENS; k++) {
        printf_(b, "%s{\"id\":%d,\"text\":", k ? "," : "", next[k].id);
        json_string(b, next[k].text);
        puts_(b, ",\"probability\":");
        json_number(b, next[k].probability);
        puts_(b, "}");
    }
    puts_(b, "]");
}

/* What a model of tokens adds to the JSON (docs/interfaces.md). */
static void json_model(strbuf *b, const poslab_result *r) {
    if (r->model_json) {
        puts_(b, ",\n\"checkpoint\":");
        puts_(b, r->model_json);
    }
    json_tokens(b, "tokens_a", r->ids_a, r->words_a);
    json_tokens(b, "tokens_b", r->ids_b, r->words_b);
    puts_(b, ",\n\"mean_cosine_similarity\":");
    json_number(b, r->mean_cosine_similarity);
    json_next(b, "next_a", r->next_a);
    json_next(b, "next_b", r->next_b);
}

const char *report_json(strbuf *b, const poslab_result *r, int flags) {
    const poslab_config *c = &r->config;
    begin(b);
    puts_(b, "{\"config\":{");
    json_config(b, c);
    puts_(b, "},\n\"pairs\":[");
    for (int i = 0; i < r->pair_count; i++) {
        const poslab_pair *p = &r->pairs[i];
        puts_(b, i ? ",\n{\"word\":" : "\n{\"word\":");
        json_string(b, word(r->words_a, p->index_a));
        if (r->ids_a) printf_(b, ",\"id\":%d", r->ids_a[p->index_a]);
        printf_(b, ",\"index_a\":%d,\"index_b\":", p->index_a);
        if (p->index_b < 0) puts_(b, "null");
        else {
            printf_(b, "%d,", p->index_b);
            json_figures(b, p);
        }
        puts_(b, "}");
    }
    puts_(b, "],\n\"unpaired_b\":[");
    for (int k = 0; k < r->unpaired_b_count; k++) printf_(b, k ? ",%d" : "%d", r->unpaired_b[k]);
    puts_(b, "],\n\"mean\":{");
    json_figures(b, &r->mean);
    puts_(b, "},\n\"baseline\":{");
    json_figures(b, &r->baseline);
    puts_(b, ",\"cosine_similarity\":");
    json_number(b, r->baseline_cosine_similarity);
    puts_(b, "},\n\"permutation\":");
    json_bool(b, r->permutation);
    if (r->ids_a) json_model(b, r);
    if (r->layer_count > 0) { /* the transformer's residual stream after each block */
        puts_(b, ",\n\"layers\":[");
        for (int l = 0; l < r->layer_count; l++) {
            puts_(b, l ? ",\n{\"mean\":{" : "\n{\"mean\":{");
            json_figures(b, &r->layer_means[l]);
            puts_(b, "},\"pairs\":[");
            for (int i = 0; i < r->pair_count; i++) {
                const poslab_pair *p = &r->layer_pairs[l * r->pair_count + i];
                if (i) puts_(b, ",");
                if (p->index_b < 0) puts_(b, "null");
                else {
                    puts_(b, "{");
                    json_figures(b, p);
                    puts_(b, "}");
                }
            }
            puts_(b, "]}");
        }
        puts_(b, "]");
    }
    if (r->sweep_count > 0 && !(flags & POSLAB_JSON_NO_SWEEP)) {
        puts_(b, ",\n\"sweep\":{\"scales\":[");
        for (int t = 0; t < r->sweep_count; t++) {
            if (t) puts_(b, ",");
            json_number(b, r->sweep_scales[t]);
        }
        puts_(b, "],\n\"mean\":");
        json_points(b, r, 0);
        puts_(b, ",\n\"pairs\":[");
        for (int i = 0; i < r->pair_count; i++) {
            puts_(b, i ? ",\n" : "\n");
            if (r->pairs[i].index_b < 0) puts_(b, "[]");
            else json_points(b, r, 1 + i);
        }
        puts_(b, "]}");
    }
    if (flags & POSLAB_JSON_FULL) {
        puts_(b, ",\n\"output_a\":");
        json_matrix(b, r->output_a, r->len_a, r->dim);
        puts_(b, ",\n\"output_b\":");
        json_matrix(b, r->output_b, r->len_b, r->dim);
        puts_(b, ",\n\"attention_a\":");
        json_matrix(b, r->attention_a, r->len_a, r->len_a);
        puts_(b, ",\n\"attention_b\":");
        json_matrix(b, r->attention_b, r->len_b, r->len_b);
        /* every head (head 0 again first), and the scores before the
           softmax, where a masked entry is -inf and so null */
        json_heads(b, "attention_heads_a", r->attention_a, r->heads, r->len_a);
        json_heads(b, "attention_heads_b", r->attention_b, r->heads, r->len_b);
        json_heads(b, "scores_heads_a", r->scores_a, r->heads, r->len_a);
        json_heads(b, "scores_heads_b", r->scores_b, r->heads, r->len_b);
    }
    puts_(b, "}\n");
    return finish(b);
}

/* ---- text -------------------------------------------------------------- */

/* Width on a terminal, counting each UTF-8 code point as one column. */
static int columns(const char *s) {
    int n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80) n++;
    return n;
}

static void pad(strbuf *b, const char *s, int width) {
    puts_(b, s);
    for (int k = columns(s); k < width; k++) puts_(b, " ");
}

static void pad_left(strbuf *b, const char *s, int width) {
    for (int k = columns(s); k < width; k++) puts_(b, " ");
    puts_(b, s);
}

static void sentence_line(strbuf *b, const char *label, const poslab_sentence *s) {
    puts_(b, label);
    for (int k = 0; k < s->count; k++) {
        puts_(b, k ? " " : "");
        puts_(b, word(s, k));
    }
    puts_(b, "\n");
}

static const char *truth(int x) { return x ? "True " : "False"; }

/* A zero vector's cosine distance is NaN (0/0); glibc prints a NaN with its
 * sign bit as "-nan", where NumPy and the JSON's null say nothing of a sign. */
static double shown(double x) { return isnan(x) ? fabs(x) : x; }

/* tokens X: 3290 " dog" | 26081 " bites" | 582 " man" */
static void text_tokens(strbuf *b, const char *label, const int *ids, const poslab_sentence *words) {
    puts_(b, label);
    for (int k = 0; k < words->count; k++) {
        printf_(b, "%s%d ", k ? " | " : "", ids[k]);
        json_string(b, word(words, k));
    }
    puts_(b, "\n");
}

/* Exercise 2's figure and each sentence's most likely next tokens. */
static void text_next(strbuf *b, const poslab_result *r) {
    printf_(b, "\ncosine similarity of the two sentences' mean last hidden states: %.6g\n",
            r->mean_cosine_similarity);
    const poslab_next_token *next[2] = {r->next_a, r->next_b};
    for (int w = 0; w < 2; w++) {
        printf_(b, "most likely next tokens after %s:", w ? "B" : "A");
        for (int k = 0; k < POSLAB_NEXT_TOKENS; k++) {
            puts_(b, k ? ", " : " ");
            json_string(b, next[w][k].text);
            printf_(b, " %.4g", next[w][k].probability);
        }
        puts_(b, "\n");
    }
}

const char *report_text(strbuf *b, const poslab_result *r) {
    const poslab_config *c = &r->config;
    int width = 4; /* "mean" */
    for (int i = 0; i < r->pair_count; i++) {
        int w = columns(word(r->words_a, i));
        if (w > width) width = w;
    }
    begin(b);
    sentence_line(b, "sentence A: ", &c->a);
    sentence_line(b, "sentence B: ", &c->b);
    if (r->ids_a) {
        text_tokens(b, "tokens A:   ", r->ids_a, r->words_a);
        text_tokens(b, "tokens B:   ", r->ids_b, r->words_b);
    }
    if (r->model_text) puts_(b, r->model_text);
    else printf_(b, "d %d, seed %u, ", c->dim, (unsigned)c->seed);
    if (c->model == POSLAB_MODEL_TRANSFORMER)
        printf_(b, "transformer of %d block%s (weight std %g), ", c->layers, c->layers > 1 ? "s" : "", c->weight_std);
    if (c->heads > 1) printf_(b, "%d heads, ", c->heads);
    if (c->scheme == POSLAB_SCHEME_NONE) puts_(b, "no positional information");
    else printf_(b, "%s positions at scale %.6g", poslab_scheme_name(c->scheme), c->scale);
    if (r->scheme_note) printf_(b, " (%s)", r->scheme_note);
    /* only when set, so that the module's runs print as they always have */
    if (c->offset_a || c->offset_b) printf_(b, ", A starts at position %d, B at %d", c->offset_a, c->offset_b);
    printf_(b, ", %s, rtol %g, atol %g\n\n", c->causal ? "causal mask" : "no mask", c->rtol, c->atol);

    for (int i = 0; i < r->pair_count; i++) {
        const poslab_pair *p = &r->pairs[i];
        pad(b, word(r->words_a, i), width + 2);
        if (p->index_b < 0) {
            printf_(b, "out_a[%d] has no partner: sentence B has this word fewer times\n", i);
            continue;
        }
        printf_(b, "np.allclose(out_a[%d], out_b[%d]) = %s   max|diff| %.4g   cosine distance %.4g\n",
                p->index_a, p->index_b, truth(p->allclose), p->max_abs_diff, shown(p->cosine_distance));
    }
    pad(b, "mean", width + 2);
    printf_(b, "np.allclose(out_a.mean(0), out_b.mean(0)) = %s   max|diff| %.4g   cosine distance %.4g\n",
            truth(r->mean.allclose), r->mean.max_abs_diff, shown(r->mean.cosine_distance));
    /* "words", not "bag": bag is also a model's name */
    pad(b, "words", width + 2);
    printf_(b, "cosine similarity of the mean raw word vectors %.6g (order-blind baseline)\n",
            shown(r->baseline_cosine_similarity));
    for (int k = 0; k < r->unpaired_b_count; k++) {
        puts_(b, "note: sentence B's ");
        puts_(b, word(r->words_b, r->unpaired_b[k]));
        printf_(b, " (out_b[%d]) has no partner in sentence A\n", r->unpaired_b[k]);
    }
    if (!r->permutation)
        puts_(b, "note: sentence B is not a reordering of sentence A, so equal outputs are not expected\n");
    if (r->next_a) text_next(b, r);

    if (r->sweep_count > 0) {
        puts_(b, "\ncosine distance by scale (* where np.allclose is True)\n");
        printf_(b, "%-12s %11s  ", "scale", "mean");
        for (int i = 0; i < r->pair_count; i++) {
            if (r->pairs[i].index_b < 0) continue;
            puts_(b, " ");
            pad_left(b, word(r->words_a, i), 11);
            puts_(b, "  ");
        }
        end_row(b);
        for (int t = 0; t < r->sweep_count; t++) {
            printf_(b, "%-12.4g %11.4g%s", r->sweep_scales[t], shown(r->sweep_cosine[t]),
                    r->sweep_allclose[t] ? " *" : "  ");
            for (int i = 0; i < r->pair_count; i++) {
                if (r->pairs[i].index_b < 0) continue;
                size_t at = (size_t)(1 + i) * r->sweep_count + t;
                printf_(b, " %11.4g%s", shown(r->sweep_cosine[at]), r->sweep_allclose[at] ? " *" : "  ");
            }
            end_row(b);
        }
    }
    return finish(b);
}

/* ---- the option table as JSON ------------------------------------------ */

static const char *const kind_names[] = {"text", "integer", "number", "choice", "switch", "sweep", "name"};

static void json_key(strbuf *b, const char *key) {
    puts_(b, ",\"");
    puts_(b, key);
    puts_(b, "\":");
}

static void json_string_or_null(strbuf *b, const char *s) {
    if (s) json_string(b, s);
    else puts_(b, "null");
}

static void json_option(strbuf *b, const poslab_option *o, const poslab_config *defaults) {
    puts_(b, "{\"name\":");
    json_string(b, o->name);
    json_key(b, "json");
    json_string(b, o->json);
    json_key(b, "kind");
    json_string(b, kind_names[o->kind]);
    if (o->kind != POSLAB_KIND_CHOICE && o->kind != POSLAB_KIND_SWITCH) {
        json_key(b, "min");
        json_number(b, o->min);
        json_key(b, "max");
        json_number(b, o->max); /* INFINITY: null, no bound */
    }
    if (o->kind == POSLAB_KIND_CHOICE) {
        json_key(b, "values");
        for (int k = 0; o->value(k); k++) {
            puts_(b, k ? "," : "[");
            json_string(b, o->value(k));
        }
        puts_(b, "]");
    }
    json_key(b, "default");
    if (!o->default_text) puts_(b, "null");
    else if (o->kind == POSLAB_KIND_TEXT) json_string(b, o->default_text);
    else json_option_value(b, o, defaults);
    json_key(b, "allowed");
    json_string(b, o->allowed);
    json_key(b, "metavar");
    json_string_or_null(b, o->metavar);
    json_key(b, "help");
    json_string(b, o->help);
    json_key(b, "echo");
    json_bool(b, o->echo);
    puts_(b, "}");
}

const char *poslab_options_json(void) {
    /* Built once: the table is constant. Static storage rather than the
       heap, so that nothing is left to free; test_core checks it fits. */
    static char text[8192];
    static int built;
    if (built) return text;
    strbuf b = {text, 0, sizeof text, 0, 1};
    poslab_config defaults;
    const poslab_option *o;
    poslab_config_default(&defaults);
    begin(&b);
    printf_(&b,
            "{\"limits\":{\"max_tokens\":%d,\"max_token_bytes\":%d,\"max_dim\":%d,\"max_sweep\":%d,"
            "\"max_offset\":%d,\"max_heads\":%d,\"max_position\":%d,\"max_scale\":",
            POSLAB_MAX_TOKENS, POSLAB_MAX_TOKEN_BYTES, POSLAB_MAX_DIM, POSLAB_MAX_SWEEP, POSLAB_MAX_OFFSET,
            POSLAB_MAX_HEADS, POSLAB_MAX_OFFSET + POSLAB_MAX_TOKENS - 1);
    json_number(&b, POSLAB_MAX_SCALE);
    puts_(&b, "},\n\"schemes\":[");
    for (int k = 0; k < scheme_count(); k++) {
        puts_(&b, k ? ",{\"name\":" : "{\"name\":");
        json_string(&b, poslab_scheme_name((poslab_scheme)k));
        puts_(&b, ",\"default_scale\":");
        json_number(&b, scheme_default_scale(k));
        puts_(&b, "}");
    }
    puts_(&b, "],\n\"options\":[");
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        puts_(&b, i ? ",\n" : "\n");
        json_option(&b, o, &defaults);
    }
    puts_(&b, "]}\n");
    if (b.failed) return NULL;
    built = 1;
    return text;
}
