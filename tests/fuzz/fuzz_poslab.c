/* A fuzz target over everything the core takes from outside: option text
 * (tokenising arbitrary bytes, number, switch and sweep parsing), the whole
 * experiment with whatever config survives validation, the sweep, the
 * threshold search and both writers.
 *
 * Input: NUL-separated "key=value" records, e.g. "a=dog bites\0dim=7\0".
 * Values may hold any bytes but NUL, so invalid UTF-8, control characters
 * and huge numbers all reach the parser. A record without "=" whose first
 * byte is 'H', 'A' or 'B' sets heads, offset A or offset B from the bytes
 * after it, each standing for its value minus one since a record holds no
 * NUL ("H\x06": 5 heads, "A\x01\x05": position 4 * 256 = 1024), so that the
 * fuzzer reaches every head count, including those that do not divide dim,
 * and offsets up to and past the largest without having to spell them.
 * Built with libFuzzer (make fuzz) and, for replaying the corpus and
 * regressions in CTest, with replay_main.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_min.h"
#include "poslab.h"

/* Invariants that hold for every valid config; a violation aborts so the
 * fuzzer records the input. */
static void require(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_poslab: invariant broken: %s\n", what);
        abort();
    }
}

/* np.isclose's rule, component by component, from the outputs themselves:
 * |a_k - b_k| <= atol + rtol * |b_k| for every k (outputs are finite here). */
static int allclose_rule(const double *a, const double *b, int n, double rtol, double atol) {
    for (int k = 0; k < n; k++)
        if (!(fabs(a[k] - b[k]) <= atol + rtol * fabs(b[k]))) return 0;
    return 1;
}

static double largest_difference(const double *a, const double *b, int n) {
    double m = 0;
    for (int k = 0; k < n; k++) m = fmax(m, fabs(a[k] - b[k]));
    return m;
}

/* The column mean as experiment.md defines it: rows summed in order, then
 * divided by the row count (the order the core adds them in, so the same
 * doubles). */
static void column_mean_of(double *mean, const double *x, int rows, int d) {
    for (int c = 0; c < d; c++) mean[c] = 0;
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < d; c++) mean[c] += x[(size_t)i * d + c];
    for (int c = 0; c < d; c++) mean[c] /= rows;
}

/* A pair's verdict and max|diff| against its two vectors. */
static void check_pair(const poslab_pair *p, const double *a, const double *b, int d, const poslab_config *c,
                       const char *which) {
    char what[96];
    int close = allclose_rule(a, b, d, c->rtol, c->atol);
    if (p->allclose != close) {
        snprintf(what, sizeof what, "%s: allclose is %s but |a-b| <= atol + rtol*|b| %s", which,
                 p->allclose ? "True" : "False", close ? "holds for every component" : "fails for a component");
        require(0, what);
    }
    snprintf(what, sizeof what, "%s: max|diff| is the largest |a_k - b_k|", which);
    require(p->max_abs_diff == largest_difference(a, b, d), what);
}

/* Every head's weights: rows in [0, 1] summing to 1, zero where the mask
 * hides a word; its scores -inf there and finite elsewhere. */
static void check_heads(const double *attention, const double *scores, int heads, int n, int causal) {
    for (int h = 0; h < heads; h++)
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int j = 0; j < n; j++) {
                size_t at = ((size_t)h * n + i) * n + j;
                double w = attention[at];
                require(w >= 0 && w <= 1, "attention weights lie in [0, 1]");
                if (causal && j > i) {
                    require(w == 0, "the causal mask hides later words");
                    require(isinf(scores[at]) && scores[at] < 0, "a masked score is -inf");
                } else {
                    require(isfinite(scores[at]), "a visible score is finite");
                }
                sum += w;
            }
            require(fabs(sum - 1) < 1e-9, "attention rows sum to 1");
        }
}

static int same_words(const poslab_sentence *x, const poslab_sentence *y) {
    if (x->count != y->count) return 0;
    for (int k = 0; k < x->count; k++)
        if (strcmp(x->text + x->offset[k], y->text + y->offset[k])) return 0;
    return 1;
}

static void check_result(const poslab_result *r) {
    const poslab_config *c = &r->config;
    for (int i = 0; i < r->len_a * r->dim; i++) require(isfinite(r->output_a[i]), "outputs of A are finite");
    for (int i = 0; i < r->len_b * r->dim; i++) require(isfinite(r->output_b[i]), "outputs of B are finite");
    require(r->heads == c->heads && r->dim % r->heads == 0, "the run has the config's heads");
    check_heads(r->attention_a, r->scores_a, r->heads, r->len_a, c->causal);
    check_heads(r->attention_b, r->scores_b, r->heads, r->len_b, c->causal);
    /* One sentence twice is the same arithmetic on the same numbers when
       both copies stand at the same positions, or at any positions when
       the scheme never reads them (none; ALiBi reads only distances). */
    if (same_words(&c->a, &c->b) &&
        (c->offset_a == c->offset_b || c->scheme == POSLAB_SCHEME_NONE || c->scheme == POSLAB_SCHEME_ALIBI))
        require(!memcmp(r->output_a, r->output_b, (size_t)r->len_a * r->dim * sizeof(double)),
                "a sentence and its copy at the same or unread positions give the same outputs");
    for (int i = 0; i < r->pair_count; i++) {
        const poslab_pair *p = &r->pairs[i];
        if (p->index_b < 0) continue;
        require(p->index_a == i && p->index_b < r->len_b, "a pair's indices lie in their sentences");
        require(p->max_abs_diff >= 0, "max|diff| is not negative");
        check_pair(p, r->output_a + (size_t)i * r->dim, r->output_b + (size_t)p->index_b * r->dim, r->dim,
                   &r->config, "pair");
    }
    double *mean_a = malloc((size_t)r->dim * sizeof *mean_a), *mean_b = malloc((size_t)r->dim * sizeof *mean_b);
    require(mean_a && mean_b, "memory for the means");
    column_mean_of(mean_a, r->output_a, r->len_a, r->dim);
    column_mean_of(mean_b, r->output_b, r->len_b, r->dim);
    check_pair(&r->mean, mean_a, mean_b, r->dim, &r->config, "mean");
    free(mean_a);
    free(mean_b);
}

/* ALiBi's scores minus those of the same run at scale 0 are
 * -s m_h |i - j| for every visible entry (the lab keeps the draws and
 * only redoes the forward pass). */
static void check_alibi_bias(poslab_lab *lab, const poslab_config *cfg) {
    const poslab_result *r = poslab_result_of(lab);
    const int n = r->len_a, heads = r->heads;
    const double s = r->config.scale;
    const size_t count = (size_t)heads * n * n;
    double *biased = malloc(count * sizeof *biased);
    require(biased != NULL, "memory for the scores");
    memcpy(biased, r->scores_a, count * sizeof *biased);
    poslab_config zero = *cfg;
    zero.scale = 0;
    zero.scale_given = 1;
    zero.sweep_count = 0;
    char message[POSLAB_MESSAGE_BYTES];
    require(poslab_run(lab, &zero, message, sizeof message) == POSLAB_OK, "the run at scale 0");
    r = poslab_result_of(lab);
    for (int h = 0; h < heads; h++) {
        double m = poslab_alibi_slope(h, heads);
        require(m > 0 && m <= 0.5, "a head's slope lies in (0, 1/2]");
        for (int i = 0; i < n; i++)
            for (int j = 0; j < (cfg->causal ? i + 1 : n); j++) {
                size_t at = ((size_t)h * n + i) * n + j;
                double x = r->scores_a[at], want = -s * m * fabs((double)(i - j));
                require(fabs((biased[at] - x) - want) <= 4 * 2.220446049250313e-16 * (fabs(x) + fabs(want)),
                        "ALiBi adds -s m_h |i - j| to the scores");
            }
    }
    free(biased);
}

/* A record "H<byte>", "A<low><high>" or "B<low><high>": heads 0 .. 254 or
 * an offset 0 .. 65278, as text for poslab_config_set, which judges it. */
static void binary_record(poslab_config *cfg, const char *record, size_t len, char *message, size_t size) {
    char value[16];
    const unsigned char *r = (const unsigned char *)record;
    const char *key = r[0] == 'H' ? "heads" : r[0] == 'A' ? "offset-a" : r[0] == 'B' ? "offset-b" : NULL;
    if (!key || len < 2) return;
    unsigned number = r[1] - 1u + (r[0] != 'H' && len > 2 ? (r[2] - 1u) * 256 : 0);
    snprintf(value, sizeof value, "%u", number);
    poslab_status st = poslab_config_set(cfg, key, value, message, size);
    int allowed = r[0] == 'H' ? number >= 1 && number <= POSLAB_MAX_HEADS : number <= POSLAB_MAX_OFFSET;
    require((st == POSLAB_OK) == allowed, "heads 1 to 8 and offsets 0 to 1024 are taken, nothing else");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;

    poslab_config cfg;
    char message[POSLAB_MESSAGE_BYTES];
    poslab_config_default(&cfg);
    for (size_t at = 0; at < size;) {
        char *record = text + at;
        size_t len = strlen(record);
        at += len + 1;
        char *eq = strchr(record, '=');
        if (!eq) {
            binary_record(&cfg, record, len, message, sizeof message);
            continue;
        }
        *eq = 0;
        poslab_status st = poslab_config_set(&cfg, record, eq + 1, message, sizeof message);
        if (st != POSLAB_OK) {
            size_t mlen = strlen(message);
            require(mlen > 0 && mlen < sizeof message - 1 && !strchr(message, '\n'), "an error is one line");
        }
    }

    /* keep single executions quick: the largest sizes are exercised by the
       extreme-case tests instead */
    if ((long)cfg.dim * (cfg.a.count + cfg.b.count) <= 4096) {
        poslab_lab *lab = poslab_create();
        /* every option was checked as it was set; only the rule that ties
           two of them (heads divide dim) is left for the run to enforce */
        poslab_status st = lab ? poslab_run(lab, &cfg, message, sizeof message) : POSLAB_ERR_NOMEM;
        if (lab && cfg.dim % cfg.heads != 0)
            require(st == POSLAB_ERR_INPUT && !strncmp(message, "heads: ", 7),
                    "heads that do not divide dim are refused, by name");
        else if (lab)
            require(st == POSLAB_OK || st == POSLAB_ERR_NOMEM, "a config whose options were all taken runs");
        if (st == POSLAB_OK) {
            const poslab_result *r = poslab_result_of(lab);
            check_result(r);
            const char *json = poslab_json(lab, POSLAB_JSON_FULL);
            jvalue v;
            require(json && json_parse(json, &v) == 0, "the JSON output parses");
            json_free(&v);
            /* a run in steps dropped part way leaves nothing behind: the
               same config again prints the same JSON */
            char *first = malloc(strlen(json) + 1);
            if (first) {
                strcpy(first, json);
                poslab_config other = cfg;
                other.scale = poslab_config_scale(&cfg) / 2;
                other.scale_given = 1;
                if (poslab_run_begin(lab, &other, message, sizeof message) == POSLAB_OK)
                    for (size_t k = 0; k < size % 9; k++)
                        if (poslab_run_step(lab, message, sizeof message) != POSLAB_RUNNING) break;
                require(poslab_run(lab, &cfg, message, sizeof message) == POSLAB_OK &&
                            !strcmp(poslab_json(lab, POSLAB_JSON_FULL), first),
                        "a run after a dropped one prints what the first printed");
                free(first);
            }
            require(poslab_text(lab) != NULL, "the text output exists");
            double t;
            require(poslab_threshold(lab, &cfg, -1, 1e-9, 1e3, 1e-2, &t, message, sizeof message) == POSLAB_OK,
                    "the mean's threshold can be searched");
            require(t == 0 || (t >= 1e-9 && t <= 1e3), "the threshold lies in its range");
            if (cfg.scheme == POSLAB_SCHEME_ALIBI) check_alibi_bias(lab, &cfg);
        }
        poslab_destroy(lab);
    }
    free(text);
    return 0;
}
