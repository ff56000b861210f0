/* A fuzz target over everything the core takes from outside: option text
 * (tokenising arbitrary bytes, number, switch and sweep parsing), the whole
 * experiment with whatever config survives validation, the sweep, the
 * threshold search and both writers.
 *
 * Input: NUL-separated "key=value" records, e.g. "a=dog bites\0dim=7\0".
 * Values may hold any bytes but NUL, so invalid UTF-8, control characters
 * and huge numbers all reach the parser. Built with libFuzzer (make fuzz)
 * and, for replaying the corpus and regressions in CTest, with replay_main.c.
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

static void check_result(const poslab_result *r) {
    for (int i = 0; i < r->len_a * r->dim; i++) require(isfinite(r->output_a[i]), "outputs of A are finite");
    for (int i = 0; i < r->len_b * r->dim; i++) require(isfinite(r->output_b[i]), "outputs of B are finite");
    for (int i = 0; i < r->len_a; i++) {
        double sum = 0;
        for (int j = 0; j < r->len_a; j++) {
            double w = r->attention_a[i * r->len_a + j];
            require(w >= 0 && w <= 1, "attention weights lie in [0, 1]");
            if (r->config.causal && j > i) require(w == 0, "the causal mask hides later words");
            sum += w;
        }
        require(fabs(sum - 1) < 1e-9, "attention rows sum to 1");
    }
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
        if (!eq) continue;
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
        if (lab && poslab_run(lab, &cfg, message, sizeof message) == POSLAB_OK) {
            const poslab_result *r = poslab_result_of(lab);
            check_result(r);
            const char *json = poslab_json(lab, POSLAB_JSON_FULL);
            jvalue v;
            require(json && json_parse(json, &v) == 0, "the JSON output parses");
            json_free(&v);
            require(poslab_text(lab) != NULL, "the text output exists");
            double t;
            require(poslab_threshold(lab, &cfg, -1, 1e-9, 1e3, 1e-2, &t, message, sizeof message) == POSLAB_OK,
                    "the mean's threshold can be searched");
            require(t == 0 || (t >= 1e-9 && t <= 1e3), "the threshold lies in its range");
        }
        poslab_destroy(lab);
    }
    free(text);
    return 0;
}
