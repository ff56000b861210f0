/* Native tests of the core: the generator against NumPy, the module's
 * verified results, and every fixture written by tests/reference.py
 * compared with what the core prints as JSON.
 *
 * usage: test_core tests/fixtures/cases.json RESULTS.json CHECKPOINT_FOLDER
 * Exits non-zero on any failure. The fixture cases are run here and their
 * JSON written to RESULTS.json; tests/compare.py (CTest: core_vs_numpy)
 * compares them with NumPy's, by the one rule the WebAssembly tests use too. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "cli_checkpoint.h"
#include "json_min.h"
#include "numpy_random.h"
#include "poslab.h"

/* docs/experiment.md: implementations agree to 1e-9 relative or 1e-12 absolute */
#define RTOL_IMPL 1e-9
#define ATOL_IMPL 1e-12

static int failures, checks;

#define CHECK(cond, ...)                                           \
    do {                                                           \
        checks++;                                                  \
        if (!(cond)) {                                             \
            failures++;                                            \
            printf("not ok: %s:%d: ", __FILE__, __LINE__);         \
            printf(__VA_ARGS__);                                   \
            printf("\n");                                          \
        }                                                          \
    } while (0)

/* ---- generator --------------------------------------------------------- */

static void test_numpy_random_header_values(void) {
    /* the values shown in numpy_random.h, which NumPy prints for seed 2 */
    numpy_random r;
    numpy_random_seed(&r, 2);
    const double want[3] = {-0.4167578474054706, -0.056266827226329474, -2.136196095668454};
    for (int i = 0; i < 3; i++) {
        double got = numpy_random_randn(&r);
        CHECK(got == want[i], "seed 2 draw %d: got %.17g, NumPy gives %.17g", i, got, want[i]);
    }
    /* A skipped draw moves the state as a kept one would, the cached second
       half of a pair included: skipping 1 leaves a Gaussian cached, 2 none. */
    for (int skip = 1; skip <= 2; skip++) {
        numpy_random_seed(&r, 2);
        numpy_random_skip_randn(&r, skip);
        double got = numpy_random_randn(&r);
        CHECK(got == want[skip], "seed 2 after skipping %d: got %.17g, NumPy gives %.17g", skip, got, want[skip]);
    }
}

static void test_numpy_random_fixtures(const jvalue *rng) {
    for (int c = 0; rng && c < rng->count; c++) {
        const jvalue *e = &rng->items[c];
        uint32_t seed = (uint32_t)json_get(e, "seed")->number;
        const jvalue *want = json_get(e, "randn");
        numpy_random r;
        numpy_random_seed(&r, seed);
        for (int i = 0; i < want->count; i++) {
            double got = numpy_random_randn(&r);
            CHECK(got == want->items[i].number, "seed %u draw %d: got %.17g, NumPy gives %.17g", seed, i, got,
                  want->items[i].number);
        }
    }
}

/* ---- the module's verified results -------------------------------------- */

static const poslab_result *run(poslab_lab *lab, const char *const *options) {
    poslab_config cfg;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_config_default(&cfg);
    for (int i = 0; options[i]; i += 2) {
        if (poslab_config_set(&cfg, options[i], options[i + 1], msg, sizeof msg) != POSLAB_OK) {
            CHECK(0, "option %s=%s rejected: %s", options[i], options[i + 1], msg);
            return NULL;
        }
    }
    if (poslab_run(lab, &cfg, msg, sizeof msg) != POSLAB_OK) {
        CHECK(0, "run failed: %s", msg);
        return NULL;
    }
    return poslab_result_of(lab);
}

static int near(double got, double want) { return fabs(got - want) <= ATOL_IMPL + RTOL_IMPL * fabs(want); }

static void test_module_results(poslab_lab *lab) {
    const char *none[] = {"scheme", "none", NULL};
    const poslab_result *r = run(lab, none);
    if (!r) return;
    /* "man" is row 2 of "dog bites man" and row 0 of "man bites dog" */
    CHECK(r->pairs[2].index_b == 0, "man pairs with out_b[%d], expected 0", r->pairs[2].index_b);
    CHECK(r->pairs[2].allclose == 1, "without positions, man must be allclose (module: True)");
    CHECK(r->mean.allclose == 1, "without positions, the sentence means must be allclose");
    CHECK(r->permutation == 1, "B is a reordering of A");

    const char *with_positions[] = {NULL}; /* the defaults: random stand-in at 0.5 */
    r = run(lab, with_positions);
    if (!r) return;
    CHECK(r->config.scheme == POSLAB_SCHEME_RANDOM && r->config.scale == 0.5, "defaults are random at 0.5");
    CHECK(r->pairs[2].allclose == 0, "with positions, man must differ (module: False)");
    CHECK(r->mean.allclose == 0, "with positions, the means must differ (module: False)");
    CHECK(near(r->pairs[2].max_abs_diff, 12.536657700122994), "man max|diff| %.17g", r->pairs[2].max_abs_diff);
    CHECK(near(r->pairs[2].cosine_distance, 0.9415675654775886), "man cosine %.17g", r->pairs[2].cosine_distance);
    CHECK(near(r->mean.cosine_distance, 0.535138300649038), "mean cosine %.17g", r->mean.cosine_distance);

    const char *small[] = {"scale", "0.001", NULL}; /* the module's exercise 3 */
    r = run(lab, small);
    if (!r) return;
    CHECK(r->pairs[2].allclose == 0, "at scale 0.001 man is still not allclose");
    CHECK(near(r->pairs[2].cosine_distance, 3.2350096464073275e-05), "man cosine at 0.001: %.17g",
          r->pairs[2].cosine_distance);
}

/* A sweep point and a single run at the same scale agree. */
static void test_sweep_matches_runs(poslab_lab *lab) {
    /* RoPE sweeps take the single run's path: the same numbers. The additive
     * schemes' sweeps write the scores as a quadratic in the scale (one
     * n x n x d product per coefficient instead of one per point), so their
     * points may differ from a run in the last bits: within the fixtures'
     * tolerance, and with the same np.allclose verdicts. */
    const char *schemes[] = {"rope", "random", "sinusoidal"};
    for (int k = 0; k < 3; k++) {
        const int exact = k == 0;
        const char *sweep[] = {"scheme", schemes[k], "sweep", "1e-3:10:5", "causal", "true", NULL};
        const poslab_result *r = run(lab, sweep);
        if (!r) return;
        int count = r->sweep_count;
        double scales[8], mean[8], man[8];
        int mean_close[8], man_close[8];
        for (int t = 0; t < count; t++) {
            scales[t] = r->sweep_scales[t];
            mean[t] = r->sweep_cosine[t];
            mean_close[t] = r->sweep_allclose[t];
            man[t] = r->sweep_cosine[3 * count + t]; /* row 1 + pair 2 */
            man_close[t] = r->sweep_allclose[3 * count + t];
        }
        CHECK(count == 5 && scales[0] == 1e-3 && scales[4] == 10.0, "%s: sweep ends are exact", schemes[k]);
        for (int t = 0; t < count; t++) {
            char s[40];
            snprintf(s, sizeof s, "%.17g", scales[t]);
            const char *one[] = {"scheme", schemes[k], "scale", s, "causal", "true", NULL};
            const poslab_result *q = run(lab, one);
            if (!q) return;
            double dm = fabs(q->mean.cosine_distance - mean[t]), dw = fabs(q->pairs[2].cosine_distance - man[t]);
            double tm = exact ? 0 : 1e-9 * fabs(mean[t]) + 1e-12, tw = exact ? 0 : 1e-9 * fabs(man[t]) + 1e-12;
            CHECK(dm <= tm && q->mean.allclose == mean_close[t],
                  "%s sweep point %d (mean) differs from a run at scale %s by %.3g", schemes[k], t, s, dm);
            CHECK(dw <= tw && q->pairs[2].allclose == man_close[t],
                  "%s sweep point %d (man) differs from a run at scale %s by %.3g", schemes[k], t, s, dw);
        }
    }
}

/* The threshold lies where a dense sweep turns from True to False. */
static void test_threshold(poslab_lab *lab) {
    poslab_config cfg;
    char msg[POSLAB_MESSAGE_BYTES];
    double t = -1;
    poslab_config_default(&cfg);
    CHECK(poslab_threshold(lab, &cfg, 2, 1e-12, 10, 1e-6, &t, msg, sizeof msg) == POSLAB_OK, "threshold: %s", msg);
    CHECK(t > 1e-12 && t < 1e-3, "man's threshold %.3g lies between 1e-12 and 1e-3", t);
    const char *below[] = {"scale", "", NULL}, *above[] = {"scale", "", NULL};
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, "%.17g", t);
    snprintf(hi, sizeof hi, "%.17g", t * (1 + 1e-5));
    below[1] = lo;
    above[1] = hi;
    const poslab_result *r = run(lab, below);
    CHECK(r && r->pairs[2].allclose == 1, "allclose holds at the threshold %s", lo);
    r = run(lab, above);
    CHECK(r && r->pairs[2].allclose == 0, "allclose fails just above the threshold %s", hi);
}

/* ---- extremes ----------------------------------------------------------- */

static void check_sane(const poslab_result *r, const char *what) {
    int finite = 1, rows = 1;
    for (int i = 0; i < r->len_a * r->dim; i++) finite &= isfinite(r->output_a[i]) != 0;
    for (int i = 0; i < r->len_b * r->dim; i++) finite &= isfinite(r->output_b[i]) != 0;
    for (int i = 0; i < r->len_a; i++) {
        double sum = 0;
        for (int j = 0; j < r->len_a; j++) sum += r->attention_a[i * r->len_a + j];
        rows &= fabs(sum - 1) < 1e-12;
    }
    CHECK(finite, "%s: every output is finite", what);
    CHECK(rows, "%s: every attention row sums to 1", what);
    CHECK(isfinite(r->mean.cosine_distance) && isfinite(r->mean.max_abs_diff), "%s: the mean's figures are finite", what);
}

static void test_extremes(poslab_lab *lab) {
    /* the largest input: 64 words, d 512, B reversed */
    static char a[64 * 8], b[64 * 8];
    size_t la = 0, lb = 0;
    for (int i = 0; i < 64; i++) {
        la += (size_t)sprintf(a + la, "w%d ", i);
        lb += (size_t)sprintf(b + lb, "w%d ", 63 - i);
    }
    const char *none[] = {"a", a, "b", b, "dim", "512", "scheme", "none", NULL};
    const poslab_result *r = run(lab, none);
    if (r) {
        check_sane(r, "64 words, d 512, no positions");
        int all = 1;
        for (int i = 0; i < 64; i++) all &= r->pairs[i].allclose && r->pairs[i].index_b == 63 - i;
        CHECK(all, "64 words, d 512: without positions every word is allclose to its partner");
    }
    const char *rope[] = {"a", a, "b", b, "dim", "512", "scheme", "rope", "sweep", "1e-9:1e3:121", NULL};
    r = run(lab, rope);
    if (r) {
        check_sane(r, "64 words, d 512, rope with a sweep");
        CHECK(r->pairs[0].allclose == 0 && r->sweep_count == 121, "64 words, d 512, rope: w0 differs");
    }

    /* scale 1e6 saturates the softmax: one-hot rows, never NaN */
    const char *schemes[] = {"random", "sinusoidal", "rope"};
    for (int k = 0; k < 3; k++) {
        const char *huge[] = {"scheme", schemes[k], "scale", "1e6", "causal", k == 1 ? "true" : "false", NULL};
        r = run(lab, huge);
        if (r) check_sane(r, schemes[k]);
    }

    /* the same sentence twice: same words at the same positions, always equal */
    const char *same[] = {"a", "a a a a", "b", "a a a a", "scheme", "random", "scale", "10", NULL};
    r = run(lab, same);
    if (r) {
        check_sane(r, "all-identical words");
        int all = r->mean.allclose;
        for (int i = 0; i < 4; i++) all &= r->pairs[i].allclose && r->pairs[i].index_b == i;
        CHECK(all && r->permutation, "identical sentences are allclose everywhere, even with positions");
    }
    const char *one[] = {"a", "x", "b", "x", "scheme", "rope", "dim", "1", NULL};
    r = run(lab, one);
    if (r) CHECK(r->pairs[0].allclose && r->attention_a[0] == 1.0, "one word: attends to itself only");

    /* word length limits count bytes, with multi-byte UTF-8 at the limit */
    char w64[65], e32[65 + 1], dog16[65];
    memset(w64, 'x', 64);
    w64[64] = 0;
    for (int i = 0; i < 32; i++) memcpy(e32 + 2 * i, "\xc3\xa9", 2); /* é */
    e32[64] = 0;
    for (int i = 0; i < 16; i++) memcpy(dog16 + 4 * i, "\xf0\x9f\x90\x95", 4); /* U+1F415 */
    dog16[64] = 0;
    poslab_config cfg;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_config_default(&cfg);
    CHECK(poslab_config_set(&cfg, "a", w64, msg, sizeof msg) == POSLAB_OK, "a 64-byte word is allowed");
    CHECK(poslab_config_set(&cfg, "a", e32, msg, sizeof msg) == POSLAB_OK, "32 x e-acute (64 bytes) is allowed");
    CHECK(poslab_config_set(&cfg, "b", dog16, msg, sizeof msg) == POSLAB_OK, "16 emoji (64 bytes) are allowed");
    CHECK(poslab_run(lab, &cfg, msg, sizeof msg) == POSLAB_OK, "64-byte words run: %s", msg);
    strcat(e32, "x");
    CHECK(poslab_config_set(&cfg, "a", e32, msg, sizeof msg) == POSLAB_ERR_INPUT &&
              strstr(msg, "is 65 bytes long"), "65 bytes are refused: %s", msg);
    e32[63] = 0; /* cut inside the last e-acute */
    CHECK(poslab_config_set(&cfg, "a", e32, msg, sizeof msg) == POSLAB_ERR_INPUT && strstr(msg, "not valid UTF-8"),
          "a cut multi-byte character is refused: %s", msg);
    CHECK(poslab_config_set(&cfg, "a", "\xed\xa0\x80", msg, sizeof msg) == POSLAB_ERR_INPUT,
          "a UTF-16 surrogate encoded in UTF-8 is refused");
    CHECK(poslab_config_set(&cfg, "a", "\xc0\xaf", msg, sizeof msg) == POSLAB_ERR_INPUT, "an overlong form is refused");
    CHECK(poslab_config_set(&cfg, "a", "\xf4\x90\x80\x80", msg, sizeof msg) == POSLAB_ERR_INPUT,
          "a code point past U+10FFFF is refused");
}

/* ---- offsets, ALiBi and heads: docs/experiment.md's figures ------------- */

static const char SHIFT_SENTENCE[] = "the cat chased the mouse";

/* Every word of A has a partner and allclose with it is `want`. */
static int every_pair(const poslab_result *r, int want) {
    for (int i = 0; i < r->pair_count; i++)
        if (r->pairs[i].index_b < 0 || r->pairs[i].allclose != want) return 0;
    return 1;
}

static void test_alibi_reversal(poslab_lab *lab) {
    /* ALiBi's bias sees only |i - j|, and reversing a sentence keeps every
       distance between two words: nothing tells the reversal apart */
    const char *reversal[] = {"scheme", "alibi", NULL};
    const poslab_result *r = run(lab, reversal);
    if (r) CHECK(every_pair(r, 1) && r->mean.allclose, "alibi, dog bites man / man bites dog: every word and the "
                                                       "mean allclose (reversal keeps distances)");
    /* swapping cat and mouse is no reversal: some distances change */
    const char *cat[] = {"scheme", "alibi", "dim", "16", "a", "the cat chased the mouse",
                         "b", "the mouse chased the cat", NULL};
    r = run(lab, cat);
    if (r) CHECK(!r->mean.allclose, "alibi, the cat chased the mouse / the mouse chased the cat, d 16: the means differ");
}

/* The same sentence in A and B, B five positions on: schemes that see
 * only distances cannot tell, those that add a vector per position can.
 * RoPE's scores, which depend on j - i alone, agree entry by entry up to
 * rounding; none's and ALiBi's are the same arithmetic on the same
 * numbers, so exactly equal. */
static void test_shift(poslab_lab *lab) {
    const struct { const char *scheme; int relative; } schemes[] = {
        {"none", 1}, {"rope", 1}, {"alibi", 1}, {"random", 0}, {"sinusoidal", 0}};
    const char *heads[] = {"1", "4"}, *causal[] = {"false", "true"};
    for (int k = 0; k < 5; k++)
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 2; c++) {
                const char *shift[] = {"scheme", schemes[k].scheme, "a", SHIFT_SENTENCE, "b", SHIFT_SENTENCE,
                                       "dim", "16", "offset-b", "5", "heads", heads[h], "causal", causal[c], NULL};
                const poslab_result *r = run(lab, shift);
                if (!r) continue;
                CHECK(every_pair(r, schemes[k].relative), "shift test, %s, %s heads, causal %s: every word %s",
                      schemes[k].scheme, heads[h], causal[c], schemes[k].relative ? "True" : "False");
                if (!schemes[k].relative) continue;
                int agree = 1;
                double worst = 0;
                for (int e = 0; e < r->heads * r->len_a * r->len_a; e++) {
                    double x = r->scores_a[e], y = r->scores_b[e];
                    if (isinf(x) || isinf(y)) { agree &= x == y; continue; } /* masked in both */
                    worst = fmax(worst, fabs(x - y));
                    agree &= k == 1 ? near(x, y) : x == y;
                }
                CHECK(agree, "shift test, %s, %s heads, causal %s: A's and B's scores agree entry by entry "
                      "(largest difference %.3g)", schemes[k].scheme, heads[h], causal[c], worst);
            }
}

/* One head is exactly the module: with --heads 1 the JSON is byte for byte
 * that of a run without it, also from a lab that ran more heads before. */
/* The transformer (docs/experiment.md): with no positions and no mask,
 * "man" and the mean stay the same vector through every block (depth,
 * LayerNorm, MLPs and residuals keep the equivariance); the causal mask
 * alone breaks it; ALiBi, blind to a reversal, keeps it. */
static void test_transformer(poslab_lab *lab) {
    const char *none[] = {"model", "transformer", "layers", "4", "heads", "2", "dim", "16", "scheme", "none", NULL};
    const poslab_result *r = run(lab, none);
    if (r) {
        CHECK(r->layer_count == 4, "4 blocks give 4 layers, got %d", r->layer_count);
        int kept = every_pair(r, 1) && r->mean.allclose;
        for (int l = 0; l < r->layer_count; l++)
            for (int i = 0; i < r->pair_count; i++) kept &= r->layer_pairs[l * r->pair_count + i].allclose;
        CHECK(kept, "transformer, no positions, no mask: every word True after every block");
    }
    const char *masked[] = {"model", "transformer", "layers", "4", "heads", "2", "dim", "16", "scheme", "none",
                            "causal", "true", NULL};
    r = run(lab, masked);
    if (r) CHECK(!r->pairs[2].allclose && r->pairs[2].max_abs_diff > 1e-6,
                 "transformer, no positions, causal mask: man is False (max|diff| %g)", r->pairs[2].max_abs_diff);
    const char *alibi[] = {"model", "transformer", "layers", "4", "heads", "2", "dim", "16", "scheme", "alibi", NULL};
    r = run(lab, alibi);
    if (r) CHECK(every_pair(r, 1), "transformer, alibi, no mask: every word True (a reversal keeps distances)");
    /* the head model has no layers, and ignores the transformer's options */
    const char *head[] = {"layers", "7", "weight-std", "3", NULL};
    r = run(lab, head);
    if (r) CHECK(r->layer_count == 0 && fabs(r->pairs[2].max_abs_diff - 12.536657700122994) < 1e-12,
                 "the head model: no layers, and layers/weight-std change nothing");
}

static void test_one_head_is_the_module(void) {
    const char *schemes[] = {"none", "random", "sinusoidal", "rope", "alibi"};
    for (int k = 0; k < 5; k++) {
        for (int c = 0; c < 2; c++) {
            const char *causal = c ? "true" : "false";
            const char *module[] = {"scheme", schemes[k], "causal", causal, "sweep", "1e-3:10:4", NULL};
            const char *three[] = {"scheme", schemes[k], "causal", causal, "sweep", "1e-3:10:4", "heads", "3", NULL};
            const char *one[] = {"scheme", schemes[k], "causal", causal, "sweep", "1e-3:10:4", "heads", "1", NULL};
            poslab_lab *fresh = poslab_create(), *reused = poslab_create();
            const char *want = run(fresh, module) ? poslab_json(fresh, POSLAB_JSON_FULL) : NULL;
            const char *got = run(reused, three) && run(reused, one) ? poslab_json(reused, POSLAB_JSON_FULL) : NULL;
            CHECK(want && got && !strcmp(want, got), "%s, causal %s: --heads 1 after --heads 3 prints the JSON of a "
                  "run without --heads", schemes[k], causal);
            poslab_destroy(fresh);
            poslab_destroy(reused);
        }
    }
}

/* A run in steps (poslab_run_begin/_step): one bounded step per sweep point
 * and per transformer block of each sentence, no half result on show, and a
 * run dropped part way leaves nothing behind: the next run, on the draws it
 * kept, prints what a fresh lab prints. */
static int set_all(poslab_config *cfg, const char *const *options) {
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_config_default(cfg);
    for (int i = 0; options[i]; i += 2)
        if (poslab_config_set(cfg, options[i], options[i + 1], msg, sizeof msg) != POSLAB_OK) return 0;
    return 1;
}

static char *fresh_json(const poslab_config *cfg) {
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_lab *fresh = poslab_create();
    char *out = NULL;
    if (fresh && poslab_run(fresh, cfg, msg, sizeof msg) == POSLAB_OK) {
        const char *json = poslab_json(fresh, POSLAB_JSON_FULL);
        if (json && (out = malloc(strlen(json) + 1))) strcpy(out, json);
    }
    poslab_destroy(fresh);
    return out;
}

/* New words whose draws are the lab's (as many distinct words, sentences
 * as long: a word retyped, a word copied over another, B shuffled) are only
 * placed on the draws the lab holds, not drawn again: each run prints what
 * a fresh lab prints, for both drawn models, every scheme, with sweeps; and
 * words that change the draws (another distinct word, another length or
 * offset) are drawn afresh. */
static void test_new_words_same_draws(void) {
    const char *schemes[] = {"none", "random", "sinusoidal", "rope", "alibi"};
    const char *sentences[][2] = {
        {"a b c d e", "e d c b a"},
        {"x b c d e", "e d c b x"},  /* a word retyped: the same draws, the same numbers */
        {"x b c d e", "b x e c d"},  /* B shuffled: the same draws, other numbers */
        {"x x c d e", "e d c b x"},  /* a word copied over another: still five distinct words */
        {"x y c d e", "e d c b x"},  /* six distinct words: drawn afresh */
        {"x y c d", "d c y x"},      /* shorter */
        {"p q c d", "d c q p"},
    };
    const int count = (int)(sizeof sentences / sizeof *sentences);
    char msg[POSLAB_MESSAGE_BYTES];
    for (int model = 0; model < 2; model++) {
        for (int k = 0; k < 5; k++) {
            poslab_lab *lab = poslab_create();
            int same = 1;
            for (int i = 0; i < count; i++) {
                const char *head[] = {"scheme", schemes[k], "heads", "2", "dim", "8", "sweep", "1e-3:100:6",
                                      "a", sentences[i][0], "b", sentences[i][1],
                                      "offset-b", i == count - 1 ? "3" : "0", NULL};
                const char *deep[] = {"model", "transformer", "layers", "2", "scheme", schemes[k], "heads", "2", "dim",
                                      "8", "sweep", "1e-3:100:3", "a", sentences[i][0], "b",
                                      sentences[i][1], "offset-b", i == count - 1 ? "3" : "0", NULL};
                poslab_config cfg;
                CHECK(set_all(&cfg, model ? deep : head), "config parses");
                char *want = fresh_json(&cfg);
                const int ran = poslab_run(lab, &cfg, msg, sizeof msg) == POSLAB_OK;
                const char *got = ran ? poslab_json(lab, POSLAB_JSON_FULL) : NULL;
                if (!(want && got && !strcmp(want, got))) {
                    same = 0;
                    fprintf(stderr, "  %s, %s: \"%s\" / \"%s\" after the sentences before\n", model ? "transformer" : "head",
                            schemes[k], sentences[i][0], sentences[i][1]);
                }
                free(want);
            }
            CHECK(same, "%s, %s: new words after others print what a fresh lab prints", model ? "transformer" : "head",
                  schemes[k]);
            poslab_destroy(lab);
        }
    }
}

/* Whether point t of a sweep (arrays laid out as a result's: a row of
 * w->sweep_count points for the mean, then one per pair) has w's bits. */
static int same_point(const double *scales, const double *cosine, const unsigned char *close, const poslab_result *w,
                      int t) {
    const size_t rows = 1 + (size_t)w->pair_count, count = (size_t)w->sweep_count;
    int same = !memcmp(&scales[t], &w->sweep_scales[t], sizeof(double));
    for (size_t row = 0; row < rows; row++) {
        size_t at = row * count + (size_t)t;
        same &= !memcmp(&cosine[at], &w->sweep_cosine[at], sizeof(double)) && close[at] == w->sweep_allclose[at];
    }
    return same;
}

/* Labs that share a sweep (poslab_share_sweep) compute, between them, the
 * very points one lab computes: gathered by t % shares they equal the
 * whole sweep to the bit, for every scheme (none: each share has every
 * point), the transformer too, and a lab set back to 0 of 1 sweeps whole. */
static void test_shared_sweep(void) {
    char msg[POSLAB_MESSAGE_BYTES];
    const char *schemes[] = {"none", "random", "sinusoidal", "rope", "alibi"};
    poslab_lab *whole = poslab_create(), *part[3] = {poslab_create(), poslab_create(), poslab_create()};
    CHECK(poslab_share_sweep(whole, 2, 2) == POSLAB_ERR_INPUT && poslab_share_sweep(whole, -1, 2) == POSLAB_ERR_INPUT &&
          poslab_share_sweep(whole, 0, 0) == POSLAB_ERR_INPUT && poslab_share_sweep(NULL, 0, 1) == POSLAB_ERR_INPUT,
          "shares outside 0 <= share < shares are refused");
    for (int k = 0; k < 6; k++) {
        const char *head[] = {"scheme", k < 5 ? schemes[k] : "rope", "heads", "2", "causal", k == 4 ? "true" : "false",
                              "sweep", "1e-9:1e3:121", NULL};
        const char *deep[] = {"model", "transformer", "layers", "2", "heads", "2", "dim", "16", "scheme", "rope",
                              "sweep", "1e-3:10:7", NULL};
        poslab_config cfg;
        CHECK(set_all(&cfg, k < 5 ? head : deep), "config %d parses", k);
        const int shares = k == 3 ? 3 : 2, count = cfg.sweep_count;
        CHECK(poslab_run(whole, &cfg, msg, sizeof msg) == POSLAB_OK, "whole: %s", msg);
        const poslab_result *w = poslab_result_of(whole);
        const poslab_result *r[3];
        for (int p = 0; p < shares; p++) {
            CHECK(poslab_share_sweep(part[p], p, shares) == POSLAB_OK, "share %d of %d", p, shares);
            CHECK(poslab_run(part[p], &cfg, msg, sizeof msg) == POSLAB_OK, "share %d: %s", p, msg);
            r[p] = poslab_result_of(part[p]);
        }
        int same = 1;
        for (int t = 0; t < count; t++) {
            const poslab_result *from = r[t % shares];
            same &= same_point(from->sweep_scales, from->sweep_cosine, from->sweep_allclose, w, t);
        }
        CHECK(same, "config %d: %d shares' points equal one lab's sweep to the bit", k, shares);
        CHECK(!strcmp(poslab_json(part[0], POSLAB_JSON_NO_SWEEP), poslab_json(whole, POSLAB_JSON_NO_SWEEP)),
              "config %d: a share's verdicts are the whole run's", k);
    }
    /* back to 0 of 1: the lab's next sweep is whole again */
    poslab_config cfg;
    const char *rope[] = {"scheme", "rope", "sweep", "1e-2:100:9", NULL};
    CHECK(set_all(&cfg, rope), "rope parses");
    CHECK(poslab_share_sweep(part[1], 0, 1) == POSLAB_OK, "0 of 1");
    char *want = fresh_json(&cfg);
    CHECK(poslab_run(part[1], &cfg, msg, sizeof msg) == POSLAB_OK, "run: %s", msg);
    const char *got = poslab_json(part[1], POSLAB_JSON_FULL);
    CHECK(want && got && !strcmp(want, got), "a lab set back to 0 of 1 sweeps every point");
    free(want);
    poslab_destroy(whole);
    for (int p = 0; p < 3; p++) poslab_destroy(part[p]);
}

/* A sweep in two passes (poslab_sweep_pass): its every 10th point, then the
 * rest, by one lab or shared by two, gathers into the whole sweep to the
 * bit; its coarse points are a 13-point sweep's over the same range; and a
 * lab set back to every point sweeps whole. */
enum { PASS_COUNT = 121, PASS_STRIDE = 10, PASS_ROWS = 1 + POSLAB_MAX_TOKENS };
typedef struct {
    double scales[PASS_COUNT], cosine[PASS_ROWS * PASS_COUNT];
    unsigned char close[PASS_ROWS * PASS_COUNT];
} sweep_copy;

static void copy_sweep(sweep_copy *to, const poslab_result *r) {
    memcpy(to->scales, r->sweep_scales, sizeof to->scales);
    memcpy(to->cosine, r->sweep_cosine, (1 + (size_t)r->pair_count) * PASS_COUNT * sizeof(double));
    memcpy(to->close, r->sweep_allclose, (1 + (size_t)r->pair_count) * PASS_COUNT);
}

static void test_sweep_passes(void) {
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_lab *whole = poslab_create(), *part[2] = {poslab_create(), poslab_create()};
    CHECK(poslab_sweep_pass(whole, 3, 10) == POSLAB_ERR_INPUT && poslab_sweep_pass(whole, POSLAB_PASS_COARSE, 1) ==
          POSLAB_ERR_INPUT && poslab_sweep_pass(whole, -1, 10) == POSLAB_ERR_INPUT &&
          poslab_sweep_pass(NULL, POSLAB_PASS_ALL, 0) == POSLAB_ERR_INPUT, "unknown passes and strides under 2 are refused");
    static sweep_copy coarse[2], rest[2];
    const char *schemes[] = {"random", "rope", "alibi"};
    for (int k = 0; k < 4; k++) {
        const char *head[] = {"scheme", k < 3 ? schemes[k] : "rope", "heads", "2", "sweep", "1e-9:1e3:121", NULL};
        const char *deep[] = {"model", "transformer", "layers", "2", "heads", "2", "dim", "16", "scheme", "sinusoidal",
                              "sweep", "1e-9:1e3:121", NULL};
        poslab_config cfg;
        CHECK(set_all(&cfg, k < 3 ? head : deep), "config %d parses", k);
        CHECK(poslab_run(whole, &cfg, msg, sizeof msg) == POSLAB_OK, "whole: %s", msg);
        const poslab_result *w = poslab_result_of(whole);
        const size_t rows = 1 + (size_t)w->pair_count;
        for (int shares = 1; shares <= 2; shares++) {
            for (int p = 0; p < shares; p++) {
                CHECK(poslab_share_sweep(part[p], p, shares) == POSLAB_OK, "share %d of %d", p, shares);
                CHECK(poslab_sweep_pass(part[p], POSLAB_PASS_COARSE, PASS_STRIDE) == POSLAB_OK, "coarse pass");
                CHECK(poslab_run(part[p], &cfg, msg, sizeof msg) == POSLAB_OK, "coarse: %s", msg);
                copy_sweep(&coarse[p], poslab_result_of(part[p]));
                CHECK(poslab_sweep_pass(part[p], POSLAB_PASS_REST, PASS_STRIDE) == POSLAB_OK, "rest pass");
                CHECK(poslab_run(part[p], &cfg, msg, sizeof msg) == POSLAB_OK, "rest: %s", msg);
                copy_sweep(&rest[p], poslab_result_of(part[p]));
            }
            int same = 1;
            for (int t = 0; t < PASS_COUNT; t++) {
                /* the point's place among its pass's points, and so its share */
                const int on = t % PASS_STRIDE == 0, place = on ? t / PASS_STRIDE : t - t / PASS_STRIDE - 1;
                const sweep_copy *from = on ? &coarse[place % shares] : &rest[place % shares];
                same &= same_point(from->scales, from->cosine, from->close, w, t);
            }
            CHECK(same, "config %d, %d share(s): the two passes' points equal one lab's sweep to the bit", k, shares);
        }
        /* the coarse pass is a 13-point sweep over the same range */
        CHECK(poslab_config_set(&cfg, "sweep", "1e-9:1e3:13", msg, sizeof msg) == POSLAB_OK, "13 points: %s", msg);
        CHECK(poslab_run(whole, &cfg, msg, sizeof msg) == POSLAB_OK, "13 points: %s", msg);
        w = poslab_result_of(whole);
        int same = 1;
        for (int c = 0; c < 13; c++) {
            const int t = c * PASS_STRIDE;
            same &= !memcmp(&coarse[0].scales[t], &w->sweep_scales[c], sizeof(double));
            for (size_t row = 0; row < rows; row++)
                same &= !memcmp(&coarse[0].cosine[row * PASS_COUNT + t], &w->sweep_cosine[row * 13 + c], sizeof(double));
        }
        CHECK(same, "config %d: the coarse pass is the 13-point sweep to the bit", k);
    }
    /* in steps (poslab_run_step's calls), the points a pass leaves out take
       none: two a point (one per sentence), then one per sentence for the
       run at the scale */
    const char *steps_of[] = {"scheme", "random", "sweep", "1e-9:1e3:121", NULL};
    poslab_config cfg;
    CHECK(set_all(&cfg, steps_of), "random parses");
    const int passes[] = {POSLAB_PASS_COARSE, POSLAB_PASS_REST}, want_steps[] = {13 * 2 + 2, 108 * 2 + 2};
    CHECK(poslab_share_sweep(part[0], 0, 1) == POSLAB_OK, "every share");
    for (int p = 0; p < 2; p++) {
        CHECK(poslab_sweep_pass(part[0], passes[p], PASS_STRIDE) == POSLAB_OK, "pass %d", passes[p]);
        CHECK(poslab_run_begin(part[0], &cfg, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
        int steps = 1;
        while (poslab_run_step(part[0], msg, sizeof msg) == POSLAB_RUNNING) steps++;
        CHECK(steps == want_steps[p], "pass %d in %d steps (%d wanted)", passes[p], steps, want_steps[p]);
    }
    /* back to every point */
    const char *rope[] = {"scheme", "rope", "sweep", "1e-2:100:25", NULL};
    CHECK(set_all(&cfg, rope), "rope parses");
    CHECK(poslab_share_sweep(part[1], 0, 1) == POSLAB_OK && poslab_sweep_pass(part[1], POSLAB_PASS_ALL, 0) == POSLAB_OK,
          "every point again");
    char *want = fresh_json(&cfg);
    CHECK(poslab_run(part[1], &cfg, msg, sizeof msg) == POSLAB_OK, "run: %s", msg);
    const char *got = poslab_json(part[1], POSLAB_JSON_FULL);
    CHECK(want && got && !strcmp(want, got), "a lab set back to every point sweeps whole");
    free(want);
    poslab_destroy(whole);
    for (int p = 0; p < 2; p++) poslab_destroy(part[p]);
}

static void test_steps(void) {
    char msg[POSLAB_MESSAGE_BYTES];
    const char *deep[] = {"model", "transformer", "layers", "3", "heads", "2", "dim", "16", "scheme", "rope",
                          "scale", "5", "sweep", "1e-3:10:4", NULL};
    const char *deep_small[] = {"model", "transformer", "layers", "3", "heads", "2", "dim", "16", "scheme", "rope",
                                "scale", "0.3", NULL};
    const char *head[] = {"scheme", "alibi", "heads", "2", "sweep", "1e-2:100:5", NULL};
    poslab_config big, small, one;
    CHECK(set_all(&big, deep) && set_all(&small, deep_small) && set_all(&one, head), "step configs parse");
    poslab_lab *lab = poslab_create();

    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE && strstr(msg, "poslab_run_begin"),
          "a step before any begin: POSLAB_ERR_STATE naming poslab_run_begin (got \"%s\")", msg);

    /* 4 sweep points, each a pass of 3 blocks for each sentence, then the
       run's: 5 x 2 x 3 = 30 steps. A point in one step would hold a worker
       computing the chart for a whole pass before it read a newer run. */
    int steps = 0;
    poslab_status st = poslab_run_begin(lab, &big, msg, sizeof msg);
    CHECK(st == POSLAB_OK, "begin: %s", msg);
    int hidden = 1;
    while (st == POSLAB_OK || st == POSLAB_RUNNING) {
        st = poslab_run_step(lab, msg, sizeof msg);
        steps++;
        if (st == POSLAB_RUNNING) hidden &= poslab_result_of(lab) == NULL;
        if (st != POSLAB_RUNNING) break;
    }
    CHECK(st == POSLAB_OK && steps == 30, "a 4-point sweep and 3 blocks: 30 steps, the last POSLAB_OK "
          "(got %d steps, status %d: %s)", steps, st, msg);
    CHECK(hidden, "no result is shown while steps are left");
    char *want = fresh_json(&big);
    const char *got = poslab_json(lab, POSLAB_JSON_FULL);
    CHECK(want && got && !strcmp(want, got), "a run in steps prints what poslab_run on a fresh lab prints");
    free(want);
    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE, "a step after the last: POSLAB_ERR_STATE");

    /* dropped inside a sweep point's sentence B (step 5), or inside the
       run's sentence A (step 26), then another magnitude on the same draws */
    for (int drop = 5; drop <= 26; drop += 21) {
        CHECK(poslab_run_begin(lab, &big, msg, sizeof msg) == POSLAB_OK, "begin again: %s", msg);
        for (int i = 0; i < drop; i++) poslab_run_step(lab, msg, sizeof msg);
        st = poslab_run_begin(lab, &small, msg, sizeof msg);
        while (st == POSLAB_OK || st == POSLAB_RUNNING) {
            st = poslab_run_step(lab, msg, sizeof msg);
            if (st != POSLAB_RUNNING) break;
        }
        want = fresh_json(&small);
        got = st == POSLAB_OK ? poslab_json(lab, POSLAB_JSON_FULL) : NULL;
        CHECK(want && got && !strcmp(want, got), "a run begun over one dropped after %d steps prints what a fresh "
              "lab prints", drop);
        free(want);
    }

    /* dropped inside sentence B, then the head model's sweep */
    CHECK(poslab_run_begin(lab, &small, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    for (int i = 0; i < 4; i++) poslab_run_step(lab, msg, sizeof msg);
    st = poslab_run_begin(lab, &one, msg, sizeof msg);
    steps = 0;
    while (st == POSLAB_OK || st == POSLAB_RUNNING) {
        st = poslab_run_step(lab, msg, sizeof msg);
        steps++;
        if (st != POSLAB_RUNNING) break;
    }
    CHECK(st == POSLAB_OK && steps == (5 + 1) * 2, "the head model: a step per sentence of each sweep point and of "
          "the run (got %d)", steps);
    want = fresh_json(&one);
    got = st == POSLAB_OK ? poslab_json(lab, POSLAB_JSON_FULL) : NULL;
    CHECK(want && got && !strcmp(want, got), "the head model after a dropped transformer run prints a fresh lab's");
    free(want);

    /* a threshold, or a begin that fails, drops the run in steps */
    double scale;
    CHECK(poslab_run_begin(lab, &small, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    poslab_run_step(lab, msg, sizeof msg);
    CHECK(poslab_threshold(lab, &small, -1, 1e-3, 10, 1e-3, &scale, msg, sizeof msg) == POSLAB_OK, "threshold: %s", msg);
    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE, "a threshold ends the run in steps");
    CHECK(poslab_run_begin(lab, &small, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    poslab_config bad = small;
    bad.heads = 3;
    CHECK(poslab_run_begin(lab, &bad, msg, sizeof msg) == POSLAB_ERR_INPUT, "heads 3 at d 16 is refused");
    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE, "a refused begin ends the run before it");
    CHECK(!strcmp(poslab_status_text(POSLAB_RUNNING), "running: steps are left"), "POSLAB_RUNNING has words");
    poslab_destroy(lab);
}

/* ---- the threshold in steps --------------------------------------------- */

/* allclose of pair i (-1: the mean) in a whole run of cfg at scale s. */
static int run_close(poslab_lab *lab, const poslab_config *cfg, int i, double s, int *runs) {
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_config c = *cfg;
    c.scale = s;
    c.scale_given = 1;
    (*runs)++;
    if (poslab_run(lab, &c, msg, sizeof msg) != POSLAB_OK) {
        CHECK(0, "run at %.17g: %s", s, msg);
        return 0;
    }
    const poslab_result *r = poslab_result_of(lab);
    return i < 0 ? r->mean.allclose : r->pairs[i].allclose;
}

/* The search as poslab.h words it, written out again here with each
 * verdict from a run of its own: the walk up 8 points a decade, then
 * bisection of that step on log(scale). *runs: the scales it probed. */
static double threshold_by_runs(poslab_lab *lab, const poslab_config *c, int i, double lo, double hi, double tol,
                                int *runs) {
    *runs = 0;
    if (!run_close(lab, c, i, lo, runs)) return 0;
    const double step = pow(10.0, 1.0 / 8);
    double below = lo, above;
    for (;;) {
        const double next = below * step > below ? below * step : below + 0x1p-1074;
        above = next < hi ? next : hi;
        if (!run_close(lab, c, i, above, runs)) break;
        if (above >= hi) return hi;
        below = above;
    }
    while (above / below > 1 + tol) {
        const double mid = sqrt(below * above);
        if (mid <= below || mid >= above) break;
        if (run_close(lab, c, i, mid, runs)) below = mid;
        else above = mid;
    }
    return below;
}

/* poslab_threshold_begin and its steps to the end: the status, *steps. */
static poslab_status threshold_in_steps(poslab_lab *lab, const poslab_config *c, int i, double lo, double hi,
                                        double tol, double *scale, int *steps) {
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_status st = poslab_threshold_begin(lab, c, i, lo, hi, tol, msg, sizeof msg);
    for (*steps = 0; st == POSLAB_OK || st == POSLAB_RUNNING;) {
        st = poslab_threshold_step(lab, scale, msg, sizeof msg);
        ++*steps;
        if (st != POSLAB_RUNNING) break;
    }
    if (st != POSLAB_OK) CHECK(0, "threshold in steps: %s", msg);
    return st;
}

/* For each pair and the mean of cfg and each range: the search in steps
 * gives poslab_threshold's double to the bit and the documented search's
 * (by whole runs), in 2 x `passes` steps a probe and one to end; and a
 * search in between leaves the last run's result as it was. Returns the
 * most scales one search probed. */
static int check_thresholds(poslab_lab *lab, const poslab_config *cfg, int passes, const char *what,
                             const poslab_checkpoint *ck) {
    static const double ranges[][3] = {{1e-12, 1e3, 1e-3}, {1e-9, 1e6, 1e-7}, {0.5, 4, 1e-2}};
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_lab *ref = poslab_create();
    if (ck) poslab_use_checkpoint(ref, ck, msg, sizeof msg);
    int most = 0;
    CHECK(poslab_run(lab, cfg, msg, sizeof msg) == POSLAB_OK, "%s: run: %s", what, msg);
    const poslab_result *r = poslab_result_of(lab);
    const int pairs = r ? r->pair_count : 0;
    char *shown = NULL;
    const char *json = poslab_json(lab, POSLAB_JSON_FULL);
    if (json && (shown = malloc(strlen(json) + 1))) strcpy(shown, json);
    int paired[POSLAB_MAX_TOKENS];
    for (int i = 0; i < pairs; i++) paired[i] = r->pairs[i].index_b >= 0;
    for (int i = -1; i < pairs; i++) {
        if (i >= 0 && !paired[i]) continue;
        for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
            const double lo = ranges[k][0], hi = ranges[k][1], tol = ranges[k][2];
            double whole = -1, stepped = -2;
            int steps = 0, runs = 0;
            CHECK(poslab_threshold(lab, cfg, i, lo, hi, tol, &whole, msg, sizeof msg) == POSLAB_OK, "%s: %s", what, msg);
            threshold_in_steps(lab, cfg, i, lo, hi, tol, &stepped, &steps);
            const double by_runs = threshold_by_runs(ref, cfg, i, lo, hi, tol, &runs);
            CHECK(!memcmp(&stepped, &whole, sizeof whole) && !memcmp(&stepped, &by_runs, sizeof whole),
                  "%s pair %d, %g to %g: in steps %a, poslab_threshold %a, by runs %a", what, i, lo, hi, stepped, whole,
                  by_runs);
            CHECK(steps == runs * 2 * passes + 1, "%s pair %d: %d probes of %d steps each and one to end, got %d steps",
                  what, i, runs, 2 * passes, steps);
            if (runs > most) most = runs;
        }
    }
    json = poslab_json(lab, POSLAB_JSON_FULL);
    CHECK(shown && json && !strcmp(shown, json), "%s: the run's result stays as it was through the searches", what);
    free(shown);
    poslab_destroy(ref);
    return most;
}

static void test_threshold_steps(const char *checkpoint_path) {
    char msg[POSLAB_MESSAGE_BYTES];
    const char *head[] = {NULL};
    const char *head_sin[] = {"scheme", "sinusoidal", "dim", "16", "heads", "2", "a", "the cat chased the mouse",
                              "b", "the mouse chased the cat", NULL};
    const char *head_rope[] = {"scheme", "rope", "dim", "8", "causal", "true", NULL};
    const char *head_alibi[] = {"scheme", "alibi", "heads", "2", "a", "alice paid bob", "b", "bob paid alice", NULL};
    const char *deep_rope[] = {"model", "transformer", "layers", "3", "heads", "2", "dim", "16", "scheme", "rope", NULL};
    const char *deep_random[] = {"model", "transformer", "layers", "2", "dim", "8", "scheme", "random", NULL};
    const struct { const char *const *options; int passes; const char *what; } drawn[] = {
        {head, 1, "head"}, {head_sin, 1, "head sinusoidal"}, {head_rope, 1, "head rope causal"},
        {head_alibi, 1, "head alibi"}, {deep_rope, 3, "transformer rope"}, {deep_random, 2, "transformer random"},
    };
    poslab_lab *lab = poslab_create();
    double scale;
    CHECK(poslab_threshold_step(lab, &scale, msg, sizeof msg) == POSLAB_ERR_STATE && strstr(msg, "poslab_threshold_begin"),
          "a step before any begin: POSLAB_ERR_STATE naming poslab_threshold_begin (got \"%s\")", msg);
    poslab_config c;
    for (size_t k = 0; k < sizeof drawn / sizeof *drawn; k++) {
        CHECK(set_all(&c, drawn[k].options), "%s parses", drawn[k].what);
        const int most = check_thresholds(lab, &c, drawn[k].passes, drawn[k].what, NULL);
        CHECK(most >= 20, "%s: a search that walks and bisects (at most %d probes)", drawn[k].what, most);
    }

    /* from the smallest subnormal, where the grid's step rounds back to
       lo (both searches once walked there for ever): up the subnormals to
       where allclose fails, and a range where it never does */
    static const double tiny[][3] = {{0x1p-1074, 1e6, 1e-3}, {0x1p-1074, 0x1p-1060, 1e-3}};
    CHECK(set_all(&c, head), "parses");
    for (size_t k = 0; k < sizeof tiny / sizeof *tiny; k++) {
        poslab_lab *ref = poslab_create();
        double whole = -1, stepped = -2;
        int steps = 0, runs = 0;
        CHECK(poslab_threshold(lab, &c, -1, tiny[k][0], tiny[k][1], tiny[k][2], &whole, msg, sizeof msg) == POSLAB_OK,
              "threshold from %a: %s", tiny[k][0], msg);
        threshold_in_steps(lab, &c, -1, tiny[k][0], tiny[k][1], tiny[k][2], &stepped, &steps);
        const double by_runs = threshold_by_runs(ref, &c, -1, tiny[k][0], tiny[k][1], tiny[k][2], &runs);
        CHECK(!memcmp(&stepped, &whole, sizeof whole) && !memcmp(&stepped, &by_runs, sizeof whole),
              "from %a to %a: in steps %a, poslab_threshold %a, by runs %a", tiny[k][0], tiny[k][1], stepped, whole,
              by_runs);
        CHECK(k == 0 ? runs > 2000 && whole > 0x1p-1022 && whole < 1 : whole == tiny[k][1],
              "from %a to %a: %a after %d probes", tiny[k][0], tiny[k][1], whole, runs);
        poslab_destroy(ref);
    }

    /* a search is ended by a run begun, a whole threshold or a refused
       begin, and ends a run in steps; a run's steps refuse a search */
    CHECK(set_all(&c, deep_rope), "parses");
    double want = -1, got = -2;
    int steps;
    poslab_threshold(lab, &c, -1, 1e-12, 1e3, 1e-3, &want, msg, sizeof msg);
    CHECK(poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    for (int i = 0; i < 4; i++) poslab_threshold_step(lab, &got, msg, sizeof msg);
    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE, "a run's step during a search: POSLAB_ERR_STATE");
    poslab_status st;
    while ((st = poslab_threshold_step(lab, &got, msg, sizeof msg)) == POSLAB_RUNNING) {}
    CHECK(st == POSLAB_OK && !memcmp(&got, &want, sizeof got), "the search goes on past a refused run step: %a, %a",
          got, want);
    CHECK(poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    poslab_threshold_step(lab, &got, msg, sizeof msg);
    CHECK(poslab_run_begin(lab, &c, msg, sizeof msg) == POSLAB_OK, "run begin: %s", msg);
    CHECK(poslab_threshold_step(lab, &got, msg, sizeof msg) == POSLAB_ERR_STATE, "a run begun ends the search");
    CHECK(poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    CHECK(poslab_run_step(lab, msg, sizeof msg) == POSLAB_ERR_STATE, "a search begun ends the run in steps");
    poslab_threshold(lab, &c, 0, 1e-12, 1e3, 1e-3, &got, msg, sizeof msg);
    CHECK(poslab_threshold_step(lab, &got, msg, sizeof msg) == POSLAB_ERR_STATE, "a whole threshold ends the search");
    CHECK(poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    CHECK(poslab_threshold_begin(lab, &c, 99, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_ERR_INPUT &&
              strstr(msg, "pair: 99"), "a begin with a pair that does not exist is refused (\"%s\")", msg);
    CHECK(poslab_threshold_step(lab, &got, msg, sizeof msg) == POSLAB_ERR_STATE, "a refused begin ends the search");
    CHECK(poslab_threshold_begin(lab, &c, -1, 0, 1e3, 1e-3, msg, sizeof msg) == POSLAB_ERR_INPUT &&
              strstr(msg, "threshold: range 0 to 1000"), "a range from 0 is refused as poslab_threshold refuses it");
    /* dropped inside a probe, then a run prints what a fresh lab prints */
    CHECK(poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK, "begin: %s", msg);
    for (int i = 0; i < 5; i++) poslab_threshold_step(lab, &got, msg, sizeof msg);
    CHECK(poslab_run(lab, &c, msg, sizeof msg) == POSLAB_OK, "run: %s", msg);
    char *fresh = fresh_json(&c);
    const char *json = poslab_json(lab, POSLAB_JSON_FULL);
    CHECK(fresh && json && !strcmp(fresh, json), "a run after a dropped search prints what a fresh lab prints");
    free(fresh);
    threshold_in_steps(lab, &c, -1, 1e-12, 1e3, 1e-3, &got, &steps);
    CHECK(!memcmp(&got, &want, sizeof got), "a search after a dropped one: %a, want %a", got, want);

    /* a checkpoint (one of the models trained here): a third of a block of
       one sentence a step */
    poslab_checkpoint *ck = NULL;
    if (cli_load_checkpoint(checkpoint_path, 1, &ck, msg, sizeof msg)) {
        CHECK(0, "checkpoint %s: %s", checkpoint_path, msg);
    } else {
        CHECK(poslab_use_checkpoint(lab, ck, msg, sizeof msg) == POSLAB_OK, "use: %s", msg);
        const char *trained[] = {"model", "checkpoint", NULL};
        const char *no_mask[] = {"model", "checkpoint", "causal", "false", NULL};
        const char *neither[] = {"model", "checkpoint", "causal", "false", "scheme", "none", NULL};
        const char *longer[] = {"model", "checkpoint", "a", "the dog bites the man", "b", "the man bites the dog", NULL};
        const char *const *configs[] = {trained, no_mask, neither, longer};
        const char *names[] = {"checkpoint", "checkpoint, no mask", "checkpoint, no positions or mask",
                               "checkpoint, longer sentences"};
        CHECK(poslab_run(lab, set_all(&c, trained) ? &c : NULL, msg, sizeof msg) == POSLAB_OK, "run: %s", msg);
        const int blocks = poslab_result_of(lab) ? poslab_result_of(lab)->layer_count : 0;
        CHECK(blocks >= 2, "the checkpoint has blocks (%d)", blocks);
        for (int k = 0; k < 4; k++) {
            CHECK(set_all(&c, configs[k]), "%s parses", names[k]);
            const int most = check_thresholds(lab, &c, CHECKPOINT_BLOCK_STEPS * blocks, names[k], ck);
            /* as trained, the mask tells the sentences apart at every scale: one probe */
            CHECK(k == 0 ? most == 1 : most >= 20, "%s: at most %d probes in a search", names[k], most);
        }
        /* a second checkpoint in use ends a search on the first */
        CHECK(set_all(&c, trained) && poslab_threshold_begin(lab, &c, -1, 1e-12, 1e3, 1e-3, msg, sizeof msg) == POSLAB_OK,
              "begin: %s", msg);
        poslab_use_checkpoint(lab, ck, msg, sizeof msg);
        CHECK(poslab_threshold_step(lab, &got, msg, sizeof msg) == POSLAB_ERR_STATE, "a checkpoint put in use ends the search");
        poslab_use_checkpoint(lab, NULL, msg, sizeof msg);
        poslab_checkpoint_free(ck);
    }
    poslab_destroy(lab);
}

/* ALiBi's scores are the unbiased ones minus s m_h |i - j| (whatever the
 * offsets), with NumPy's get_slopes from the fixtures; at scale 0 they are
 * scheme none's exactly. */
static void test_alibi_bias(poslab_lab *lab, const jvalue *slopes) {
    const struct { const char *heads, *dim; } shapes[] = {{"1", "6"}, {"3", "6"}, {"5", "10"}, {"8", "8"}};
    enum { N = 5, MAX = POSLAB_MAX_HEADS * N * N };
    if (!slopes || slopes->count != POSLAB_MAX_HEADS) return; /* test_tables says so */
    for (int k = 0; k < 4; k++) {
        for (int c = 0; c < 2; c++) {
            const char *causal = c ? "true" : "false";
            const char *options[] = {"scheme", "none", "scale", "0.75", "heads", shapes[k].heads, "dim",
                                     shapes[k].dim, "causal", causal, "a", "the cat saw the dog",
                                     "b", "the dog saw the cat", "offset-a", "7", "offset-b", "300", NULL};
            double plain[MAX], at_zero[MAX];
            const poslab_result *r = run(lab, options);
            if (!r) return;
            const int heads = r->heads, count = heads * N * N;
            memcpy(plain, r->scores_b, count * sizeof(double));
            options[1] = "alibi", options[3] = "0";
            if (!(r = run(lab, options))) return;
            memcpy(at_zero, r->scores_b, count * sizeof(double));
            CHECK(!memcmp(plain, at_zero, count * sizeof(double)), "alibi at scale 0 has scheme none's scores "
                  "(%d heads, causal %s)", heads, causal);
            options[3] = "0.75";
            if (!(r = run(lab, options))) return;
            const jvalue *m = &slopes->items[heads - 1];
            CHECK(m->count == heads, "the fixtures hold %d slopes for %d heads", m->count, heads);
            int ok = 1;
            for (int h = 0; h < heads && m->count == heads; h++)
                for (int i = 0; i < N; i++)
                    for (int j = 0; j < N; j++) {
                        int e = (h * N + i) * N + j;
                        double want = -0.75 * m->items[h].number * abs(i - j), x = at_zero[e], y = r->scores_b[e];
                        if (c && j > i) { ok &= isinf(x) && x < 0 && y == x; continue; }
                        int close = fabs((y - x) - want) <= 4 * DBL_EPSILON * (fabs(x) + fabs(want));
                        if (!close)
                            printf("  head %d [%d][%d]: %.17g - %.17g, want %.17g\n", h, i, j, y, x, want);
                        ok &= close;
                    }
            CHECK(ok, "alibi, %d heads, causal %s: scores at 0.75 minus scores at 0 are -0.75 m_h |i - j|", heads,
                  causal);
        }
    }
}

/* poslab_alibi_slope and poslab_sinusoidal_table (lab.alibiSlope and
 * lab.sinusoidal in the wrapper) against NumPy's. */
static void test_tables(const jvalue *tables) {
    const jvalue *slopes = json_get(tables, "alibi_slopes"), *sinusoidal = json_get(tables, "sinusoidal");
    CHECK(slopes && slopes->count == POSLAB_MAX_HEADS, "the fixtures hold slopes for 1 to 8 heads");
    for (int k = 0; slopes && k < slopes->count; k++)
        for (int h = 0; h < slopes->items[k].count; h++) {
            double want = slopes->items[k].items[h].number, got = poslab_alibi_slope(h, k + 1);
            CHECK(got == want, "slope of head %d of %d: %.17g, NumPy's get_slopes gives %.17g", h, k + 1, got, want);
        }
    CHECK(isnan(poslab_alibi_slope(-1, 4)) && isnan(poslab_alibi_slope(4, 4)) && isnan(poslab_alibi_slope(0, 0)) &&
              isnan(poslab_alibi_slope(0, 9)), "no slope outside 0 <= head < heads <= 8");
    for (int t = 0; sinusoidal && t < sinusoidal->count; t++) {
        const jvalue *s = &sinusoidal->items[t], *rows = json_get(s, "rows");
        int first = (int)json_get(s, "first")->number, count = (int)json_get(s, "count")->number,
            dim = (int)json_get(s, "dim")->number;
        double *out = malloc((size_t)count * dim * sizeof *out);
        if (!out) continue;
        CHECK(poslab_sinusoidal_table(first, count, dim, out) == POSLAB_OK, "sinusoidal rows %d..%d", first,
              first + count - 1);
        for (int p = 0; p < count; p++)
            for (int j = 0; j < dim; j++) {
                double want = rows->items[p].items[j].number, got = out[p * dim + j];
                CHECK(near(got, want), "PE[%d, %d] at dim %d: %.17g, NumPy %.17g", first + p, j, dim, got, want);
            }
        free(out);
    }
    double row[POSLAB_MAX_DIM];
    const int last = POSLAB_MAX_OFFSET + POSLAB_MAX_TOKENS - 1; /* the furthest a word can stand */
    CHECK(poslab_sinusoidal_table(last, 1, 4, row) == POSLAB_OK, "position %d has a row", last);
    CHECK(poslab_sinusoidal_table(last + 1, 1, 4, row) == POSLAB_ERR_INPUT, "position %d has none", last + 1);
    CHECK(poslab_sinusoidal_table(0, 1, 0, row) == POSLAB_ERR_INPUT &&
              poslab_sinusoidal_table(0, 1, POSLAB_MAX_DIM + 1, row) == POSLAB_ERR_INPUT &&
              poslab_sinusoidal_table(-1, 1, 4, row) == POSLAB_ERR_INPUT &&
              poslab_sinusoidal_table(0, 0, 4, row) == POSLAB_ERR_INPUT,
          "dim 0 and 513, a negative first row and no rows are refused");
    /* first + count must not wrap around past INT_MAX into an allowed range */
    CHECK(poslab_sinusoidal_table(INT_MAX, 1, 4, row) == POSLAB_ERR_INPUT &&
              poslab_sinusoidal_table(INT_MAX - 1, 2, 4, row) == POSLAB_ERR_INPUT &&
              poslab_sinusoidal_table(1, INT_MAX, 4, row) == POSLAB_ERR_INPUT,
          "rows past INT_MAX are refused");
}

/* ---- the option table -------------------------------------------------- */

static int choice_count_of(const poslab_option *o) {
    int k = 0;
    while (o->value(k)) k++;
    return k;
}

/* x as the table's words write a limit: %g without "+" or leading zeros
 * in the exponent ("1e6", not "1e+06"). */
static void limit_text(char *out, size_t size, double x) {
    char g[32], *e;
    snprintf(g, sizeof g, "%g", x);
    e = strchr(g, 'e');
    if (!e) {
        snprintf(out, size, "%s", g);
        return;
    }
    char *digits = e + 1 + (e[1] == '+' || e[1] == '-');
    while (*digits == '0' && digits[1]) digits++;
    snprintf(out, size, "%.*se%s%s", (int)(e - g), g, e[1] == '-' ? "-" : "", digits);
}

/* The words a NUMBER row's limits call for: "from 0 to 1e6", ">= 0", or
 * "above 0, up to 10" when the least allowed number is the least double
 * above 0. */
static void number_words(char *out, size_t size, double min, double max) {
    char lo[32], hi[32];
    limit_text(lo, sizeof lo, min);
    limit_text(hi, sizeof hi, max);
    if (min > 0 && min == nextafter(0, 1)) {
        if (isinf(max)) snprintf(out, size, "a finite number above 0");
        else snprintf(out, size, "a finite number above 0, up to %s", hi);
    } else if (isinf(max)) {
        snprintf(out, size, "a finite number >= %s", lo);
    } else {
        snprintf(out, size, "a finite number from %s to %s", lo, hi);
    }
}

/* The table's text agrees with its numbers, and its JSON is the shape the
 * page reads. */
static void test_option_table(void) {
    const poslab_option *o;
    char want[256], msg[POSLAB_MESSAGE_BYTES];
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        if (o->kind == POSLAB_KIND_INTEGER) {
            snprintf(want, sizeof want, "an integer from %.0f to %.0f", o->min, o->max);
            CHECK(!strncmp(o->allowed, want, strlen(want)) &&
                      (!o->allowed[strlen(want)] || o->allowed[strlen(want)] == ' '),
                  "%s: allowed \"%s\", its range says \"%s\"", o->name, o->allowed, want);
        }
        if (o->kind == POSLAB_KIND_NUMBER) {
            number_words(want, sizeof want, o->min, o->max);
            CHECK(!strcmp(o->allowed, want), "%s: allowed \"%s\", its limits say \"%s\"", o->name, o->allowed, want);
        }
        if (o->kind == POSLAB_KIND_SWEEP) {
            char hi[32];
            limit_text(hi, sizeof hi, POSLAB_MAX_SCALE);
            snprintf(want, sizeof want, "LO:HI:COUNT with 0 < LO <= HI <= %s and COUNT an integer from %.0f to %.0f", hi,
                     o->min, o->max);
            CHECK(!strcmp(o->allowed, want), "%s: allowed \"%s\", its limits say \"%s\"", o->name, o->allowed, want);
        }
        if (o->kind == POSLAB_KIND_CHOICE) { /* every word is described in --help; each model has an example */
            const char *word, *example;
            char help[256];
            for (int k = 0; (word = poslab_choice_word(o, k, help, sizeof help, &example)); k++) {
                CHECK(!strcmp(word, o->value(k)), "%s: word %d is %s", o->name, k, o->value(k));
                CHECK(strlen(help) > 10, "%s: %s has a description for --help: \"%s\"", o->name, word, help);
                if (!strcmp(o->name, "model")) {
                    char model[64];
                    snprintf(model, sizeof model, "--model %s ", word);
                    CHECK(example && !strncmp(example, model, strlen(model)), "model %s: example \"%s\"", word,
                          example ? example : "(none)");
                }
            }
            CHECK(!poslab_choice_word(o, choice_count_of(o), help, sizeof help, NULL), "%s: no word past the last",
                  o->name);
        } else {
            CHECK(!poslab_choice_word(o, 0, NULL, 0, NULL), "%s: not a choice, no words", o->name);
        }
        if (o->kind == POSLAB_KIND_CHOICE) { /* a new word must reach messages and usage */
            char bar[256] = "";
            want[0] = 0;
            for (int k = 0; o->value(k); k++) {
                strcat(want, k ? ", " : "");
                strcat(want, o->value(k));
                strcat(bar, k ? "|" : "");
                strcat(bar, o->value(k));
            }
            CHECK(!strcmp(o->allowed, want), "%s: allowed \"%s\", its words are \"%s\"", o->name, o->allowed, want);
            CHECK(!strcmp(o->metavar, bar), "%s: metavar \"%s\", its words are \"%s\"", o->name, o->metavar, bar);
        }
        /* a bad value's message ends with the row's allowed text */
        poslab_config cfg;
        poslab_config_default(&cfg);
        const char *bad = o->kind == POSLAB_KIND_TEXT ? " " : o->kind == POSLAB_KIND_NAME ? "" : "nonsense";
        CHECK(poslab_config_set(&cfg, o->name, bad, msg, sizeof msg) == POSLAB_ERR_INPUT, "%s: %s is refused",
              o->name, bad);
        size_t lm = strlen(msg), la = strlen(o->allowed);
        CHECK(lm > la && !strcmp(msg + lm - la, o->allowed), "%s: message \"%s\"", o->name, msg);
        CHECK(poslab_config_set(&cfg, o->json, bad, msg, sizeof msg) == POSLAB_ERR_INPUT, "%s: JSON key %s is taken",
              o->name, o->json);
    }
    poslab_config cfg;
    poslab_config_default(&cfg);
    CHECK(cfg.a.count == 3 && cfg.dim == 6 && cfg.seed == 2 && cfg.scheme == POSLAB_SCHEME_RANDOM && !cfg.scale_given &&
              !cfg.causal && cfg.rtol == 1e-5 && cfg.atol == 1e-8 && cfg.sweep_count == 0,
          "the defaults come from the table");
    CHECK(poslab_config_check(&cfg, msg, sizeof msg) == POSLAB_OK, "the defaults pass the check: %s", msg);
    CHECK(poslab_config_scale(&cfg) == 0.5, "random's default scale is 0.5");
    cfg.scheme = POSLAB_SCHEME_ROPE;
    CHECK(poslab_config_scale(&cfg) == 1, "rope's default scale is 1");

    /* hand-filled configs get the parser's words */
    const struct { const char *want; int which; } hand[] = {
        {"dim: 0 is out of range; allowed: an integer from 1 to 512", 0},
#ifdef POSLAB_CHECKPOINT
        {"scheme: 9 is not a scheme; allowed: none, random, sinusoidal, rope, alibi, learned", 1},
#else
        {"scheme: 9 is not a scheme; allowed: none, random, sinusoidal, rope, alibi", 1},
#endif
        {"a: 0 words given; allowed: 1 to 64 words", 2},
        {"causal: 2 is not a switch value; allowed: true, false, 1 or 0", 3},
        {"rtol: -1 is out of range; allowed: a finite number >= 0", 4},
        {"sweep: 0:1:5 is not a valid sweep (LO is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer "
         "from 1 to 1001", 5},
        {"scale: nan is not a finite number; allowed: a finite number from 0 to 1e6", 6},
        {"b: word 1 is not valid UTF-8 (byte 0xff at byte 0 of the text); allowed: UTF-8 text", 7},
        {"offset-b: 1025 is out of range; allowed: an integer from 0 to 1024", 8},
        {"heads: \"5\" does not divide dim 6; allowed: an integer from 1 to 8 that divides dim (1, 2, 3, 6)", 9},
        {"heads: 0 is out of range; allowed: an integer from 1 to 8 that divides dim", 10},
        {"rtol: inf is not a finite number; allowed: a finite number >= 0", 11},
        {"weight-std: 0 is out of range; allowed: a finite number above 0, up to 10", 12},
        /* a hand-filled sweep is said with every digit, so that LO just above HI is seen to be */
        {"sweep: 1.0000001999999999:1.0000001000000001:3 is not a valid sweep (LO is above HI); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer "
         "from 1 to 1001", 13},
        {"sweep: 1:2:2000 is not a valid sweep (COUNT is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer "
         "from 1 to 1001", 14},
        {"sweep: nan:1:3 is not a valid sweep (LO is not a finite number); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer "
         "from 1 to 1001", 15},
    };
    for (size_t t = 0; t < sizeof hand / sizeof hand[0]; t++) {
        poslab_config_default(&cfg);
        switch (hand[t].which) {
        case 0: cfg.dim = 0; break;
        case 1: cfg.scheme = (poslab_scheme)9; break;
        case 2: cfg.a.count = 0; break;
        case 3: cfg.causal = 2; break;
        case 4: cfg.rtol = -1; break;
        case 5: cfg.sweep_count = 5; cfg.sweep_lo = 0; cfg.sweep_hi = 1; break;
        case 6: cfg.scale = NAN; cfg.scale_given = 1; break;
        case 7: cfg.b.text[0] = (char)0xff; break;
        case 8: cfg.offset_b = 1025; break;
        case 9: cfg.heads = 5; break;
        case 10: cfg.heads = 0; break;
        case 11: cfg.rtol = INFINITY; break;
        case 12: cfg.weight_std = 0; break;
        case 13: cfg.sweep_count = 3; cfg.sweep_lo = 1.0000002; cfg.sweep_hi = 1.0000001; break;
        case 14: cfg.sweep_count = 2000; cfg.sweep_lo = 1; cfg.sweep_hi = 2; break;
        case 15: cfg.sweep_count = 3; cfg.sweep_lo = NAN; cfg.sweep_hi = 1; break;
        }
        msg[0] = 0;
        CHECK(poslab_config_check(&cfg, msg, sizeof msg) == POSLAB_ERR_INPUT && !strcmp(msg, hand[t].want),
              "hand-filled config %d: got \"%s\", want \"%s\"", hand[t].which, msg, hand[t].want);
    }

    const char *text = poslab_options_json();
    jvalue table;
    CHECK(text && !json_parse(text, &table), "poslab_options_json is valid JSON");
    if (!text) return;
    CHECK(text == poslab_options_json(), "poslab_options_json is built once");
    const jvalue *options = json_get(&table, "options"), *schemes = json_get(&table, "schemes");
    const jvalue *limits = json_get(&table, "limits");
    CHECK(limits && json_get(limits, "max_scale")->number == POSLAB_MAX_SCALE &&
              json_get(limits, "max_token_bytes")->number == POSLAB_MAX_TOKEN_BYTES, "limits");
#ifdef POSLAB_CHECKPOINT
    const int scheme_rows = 6; /* and learned, a checkpoint's own table */
#else
    const int scheme_rows = 5;
#endif
    CHECK(schemes && schemes->count == scheme_rows && !strcmp(json_get(&schemes->items[3], "name")->string, "rope") &&
              json_get(&schemes->items[3], "default_scale")->number == 1 &&
              !strcmp(json_get(&schemes->items[4], "name")->string, "alibi") &&
              json_get(&schemes->items[4], "default_scale")->number == 1, "schemes");
    int rows = 0;
    while (poslab_option_at(rows)) rows++;
    CHECK(options && options->count == rows, "one JSON row per option");
    for (int i = 0; options && i < options->count; i++) {
        const jvalue *row = &options->items[i];
        o = poslab_option_at(i);
        CHECK(!strcmp(json_get(row, "name")->string, o->name) && !strcmp(json_get(row, "allowed")->string, o->allowed),
              "JSON row %d is %s", i, o->name);
    }
    const jvalue *rtol = &options->items[7], *scale = &options->items[5];
    CHECK(json_get(rtol, "default")->number == 1e-5 && json_get(rtol, "max")->type == J_NULL,
          "rtol: default 1e-05, no upper bound");
    CHECK(json_get(scale, "default")->type == J_NULL, "scale: default null (the scheme's)");
    json_free(&table);
}

/* ---- fixtures ----------------------------------------------------------- */

/* Runs one fixture case and writes {"name": ..., "result": the core's JSON}. */
static void test_fixture_case(poslab_lab *lab, const jvalue *c, FILE *results, int first) {
    const char *name = json_get(c, "name")->string;
    const jvalue *options = json_get(c, "options");
    poslab_config cfg;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_config_default(&cfg);
    for (int i = 0; i < options->count; i++) {
        if (poslab_config_set(&cfg, options->keys[i], options->items[i].string, msg, sizeof msg) != POSLAB_OK) {
            CHECK(0, "case %s: option rejected: %s", name, msg);
            return;
        }
    }
    if (poslab_run(lab, &cfg, msg, sizeof msg) != POSLAB_OK) { CHECK(0, "case %s: %s", name, msg); return; }
    const char *text = poslab_json(lab, POSLAB_JSON_FULL);
    jvalue got;
    if (!text || json_parse(text, &got)) { CHECK(0, "case %s: the core printed invalid JSON", name); return; }
    json_free(&got);
    CHECK(!strpbrk(name, "\"\\"), "case name %s needs no JSON escapes", name);
    fprintf(results, "%s\n{\"name\": \"%s\", \"result\": %s}", first ? "" : ",", name, text);
}

/* The text a run tokenizes: the words joined by single spaces, whatever
 * spaces came between them; the longest sentence fills the room given. */
static void test_sentence_join(void) {
    poslab_config cfg;
    char msg[POSLAB_MESSAGE_BYTES], out[sizeof cfg.a.text];
    poslab_config_default(&cfg);
    CHECK(poslab_config_set(&cfg, "a", "  dog \t bites\n\nman  ", msg, sizeof msg) == POSLAB_OK, "%s", msg);
    CHECK(poslab_sentence_join(&cfg.a, out) == 13 && !strcmp(out, "dog bites man"), "joined: \"%s\"", out);
    /* a hand-filled sentence may name one word many times: 64 words of 64 bytes */
    poslab_sentence s = {.count = POSLAB_MAX_TOKENS};
    memset(s.text, 'x', POSLAB_MAX_TOKEN_BYTES);
    size_t len = poslab_sentence_join(&s, out);
    CHECK(len == sizeof out - 1 && strlen(out) == len && out[POSLAB_MAX_TOKEN_BYTES] == ' ' && out[len - 1] == 'x',
          "64 words of %d bytes join to %zu bytes", POSLAB_MAX_TOKEN_BYTES, len);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: test_core FIXTURES.json RESULTS.json CHECKPOINT_FOLDER\n"); return 2; }
    char *text = read_file(argv[1]);
    jvalue fixtures;
    if (!text || json_parse(text, &fixtures)) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
    poslab_lab *lab = poslab_create();

    test_numpy_random_header_values();
    test_numpy_random_fixtures(json_get(&fixtures, "rng"));
    test_module_results(lab);
    test_sweep_matches_runs(lab);
    test_threshold(lab);
    test_extremes(lab);
    test_option_table();
    test_sentence_join();
    test_alibi_reversal(lab);
    test_shift(lab);
    test_transformer(lab);
    test_one_head_is_the_module();
    test_new_words_same_draws();
    test_steps();
    test_shared_sweep();
    test_sweep_passes();
    test_threshold_steps(argv[3]);
    const jvalue *tables = json_get(&fixtures, "tables");
    CHECK(tables != NULL, "the fixtures hold NumPy's tables");
    if (tables) {
        test_tables(tables);
        test_alibi_bias(lab, json_get(tables, "alibi_slopes"));
    }
    const jvalue *cases = json_get(&fixtures, "cases");
    int ncases = cases ? cases->count : 0;
    FILE *results = fopen(argv[2], "w");
    if (!results) { fprintf(stderr, "cannot write %s\n", argv[2]); return 2; }
    fprintf(results, "{\"build\": \"core\", \"cases\": [");
    for (int i = 0; i < ncases; i++) test_fixture_case(lab, &cases->items[i], results, i == 0);
    fprintf(results, "\n]}\n");
    CHECK(fclose(results) == 0, "writing %s", argv[2]);
    CHECK(ncases >= 20, "expected at least 20 fixture cases, found %d", ncases);

    poslab_destroy(lab);
    json_free(&fixtures);
    free(text);
    printf("test_core: %d fixture cases written to %s for tests/compare.py\n", ncases, argv[2]);
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
