/* bench_core.c - times the native core in-process through the public API.
 *
 *   bench_core --mode full|slider|sweep [--a TEXT] [--b TEXT] [--dim N]
 *              [--seed N] [--scheme S] [--scale X] [--sweep LO:HI:COUNT]
 *              [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]
 *
 * Modes (tests/bench/run.mjs explains them in the table):
 *   full    the whole experiment from scratch: draws, projections, the run at
 *           the scale and the sweep. Successive repetitions alternate the
 *           seed between SEED and SEED+1 so that no repetition reuses the
 *           cached draws and products of the previous one.
 *   slider  a slider step: the same words, d, seed and scheme as the run
 *           before, only the scale changes (alternating SCALE and
 *           1.001*SCALE), no sweep: the core reuses its projections.
 *   sweep   the sweep alone on cached projections: the same config, sweep
 *           included, run again and again (each run is COUNT sweep points
 *           plus the run at the scale).
 *
 * Each repetition is timed twice: poslab_run alone ("run") and poslab_run
 * followed by poslab_json ("total": what the CLI does before printing, and
 * what the WebAssembly wrapper hands to JSON.parse). Prints one JSON object:
 * {"mode":..., "run_ms":[...], "total_ms":[...]}. Exits 1 on any error.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "poslab.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what, const char *message) {
    fprintf(stderr, "bench_core: %s: %s\n", what, message);
    exit(1);
}

static void set(poslab_config *cfg, const char *key, const char *value) {
    char message[POSLAB_MESSAGE_BYTES];
    if (poslab_config_set(cfg, key, value, message, sizeof message) != POSLAB_OK) die(key, message);
}

static void print_list(const char *name, const double *x, int n) {
    printf("\"%s\":[", name);
    for (int i = 0; i < n; i++) printf("%s%.6f", i ? "," : "", x[i]);
    printf("]");
}

int main(int argc, char **argv) {
    poslab_config cfg;
    poslab_config_default(&cfg);
    const char *mode = "full";
    int warmup = 2, min_reps = 5, max_reps = 1000;
    double budget_s = 2.0;

    for (int i = 1; i + 1 < argc; i += 2) {
        const char *key = argv[i], *value = argv[i + 1];
        if (strncmp(key, "--", 2)) die(key, "expected --option VALUE pairs");
        key += 2;
        if (!strcmp(key, "mode")) mode = value;
        else if (!strcmp(key, "warmup")) warmup = atoi(value);
        else if (!strcmp(key, "min-reps")) min_reps = atoi(value);
        else if (!strcmp(key, "max-reps")) max_reps = atoi(value);
        else if (!strcmp(key, "budget")) budget_s = atof(value);
        else set(&cfg, key, value);
    }
    if (argc % 2 == 0) die(argv[argc - 1], "an option without a value");
    int full = !strcmp(mode, "full"), slider = !strcmp(mode, "slider"), sweep = !strcmp(mode, "sweep");
    if (!full && !slider && !sweep) die("mode", "allowed: full, slider, sweep");
    if (slider) cfg.sweep_count = 0;
    if (sweep && cfg.sweep_count == 0) die("sweep", "mode sweep needs --sweep LO:HI:COUNT");

    poslab_lab *lab = poslab_create();
    if (!lab) die("poslab_create", "out of memory");
    char message[POSLAB_MESSAGE_BYTES];
    const uint32_t seed = cfg.seed;
    const double scale = poslab_config_scale(&cfg);
    cfg.scale = scale;
    cfg.scale_given = 1;

    /* prime the cache for the slider and sweep modes */
    if (poslab_run(lab, &cfg, message, sizeof message) != POSLAB_OK) die("poslab_run", message);

    double *run_ms = malloc((size_t)max_reps * sizeof *run_ms);
    double *total_ms = malloc((size_t)max_reps * sizeof *total_ms);
    if (!run_ms || !total_ms) die("malloc", "out of memory");
    int reps = 0;
    double started = now_ms();
    for (int i = 0; reps < max_reps; i++) {
        if (i >= warmup && reps >= min_reps && now_ms() - started >= budget_s * 1e3) break;
        if (full) cfg.seed = seed + (uint32_t)((i + 1) & 1); /* never the cached seed */
        if (slider) cfg.scale = (i & 1) ? scale : scale * 1.001;
        double t0 = now_ms();
        if (poslab_run(lab, &cfg, message, sizeof message) != POSLAB_OK) die("poslab_run", message);
        double t1 = now_ms();
        if (!poslab_json(lab, 0)) die("poslab_json", "no JSON");
        double t2 = now_ms();
        if (i < warmup) {
            started = now_ms();
            continue;
        }
        run_ms[reps] = t1 - t0;
        total_ms[reps] = t2 - t0;
        reps++;
    }
    printf("{\"mode\":\"%s\",", mode);
    print_list("run_ms", run_ms, reps);
    printf(",");
    print_list("total_ms", total_ms, reps);
    printf("}\n");
    free(run_ms);
    free(total_ms);
    poslab_destroy(lab);
    return 0;
}
