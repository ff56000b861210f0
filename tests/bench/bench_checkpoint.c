/* The native side of tests/bench/checkpoint.sh: loads a checkpoint from disk
 * through the CLI's reader (fread in chunks into the core's one allocation)
 * and times one run of both sentences at each length given.
 *
 *   bench_checkpoint DIR REPS "SENTENCE A" "SENTENCE B" [A B ...]
 *
 * The machine these run on is shared and often oversubscribed, so every
 * time is the process's CPU time (what the work cost), with the wall-clock
 * time of loading beside it.
 * Prints one JSON object: load seconds, the peak
 * resident memory (getrusage), and per pair of sentences their tokens and
 * the best of REPS run times (poslab_run: both sentences through every
 * block, the comparisons, and the next-token scores over the vocabulary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli_checkpoint.h"
#include "poslab.h"

static double clock_of(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }

int main(int argc, char **argv) {
    if (argc < 5 || argc % 2 == 0) {
        fprintf(stderr, "usage: bench_checkpoint DIR REPS A B [A B ...]\n");
        return 2;
    }
    char message[POSLAB_MESSAGE_BYTES];
    poslab_checkpoint *ck;
    double t0 = now(), w0 = clock_of(CLOCK_MONOTONIC);
    int rc = cli_load_checkpoint(argv[1], 1, &ck, message, sizeof message);
    double load = now() - t0, wall = clock_of(CLOCK_MONOTONIC) - w0;
    if (rc) {
        fprintf(stderr, "bench_checkpoint: %s\n", message);
        return rc;
    }
    struct rusage after_load;
    getrusage(RUSAGE_SELF, &after_load);
    poslab_lab *lab = poslab_create();
    if (!lab || poslab_use_checkpoint(lab, ck, message, sizeof message) != POSLAB_OK) return 1;
    const int reps = atoi(argv[2]);
    printf("{\"load_seconds\":%.6f,\"load_wall_seconds\":%.6f,\"rss_after_load\":%ld,\"runs\":[", load, wall,
           after_load.ru_maxrss * 1024L);
    for (int k = 3; k + 1 < argc; k += 2) {
        poslab_config cfg;
        poslab_config_default(&cfg);
        if (poslab_config_set(&cfg, "model", "checkpoint", message, sizeof message) ||
            poslab_config_set(&cfg, "a", argv[k], message, sizeof message) ||
            poslab_config_set(&cfg, "b", argv[k + 1], message, sizeof message)) {
            fprintf(stderr, "bench_checkpoint: %s\n", message);
            return 2;
        }
        double best = 1e300;
        for (int r = 0; r < reps; r++) {
            /* a different checkpoint each time: the run cannot keep its tokens */
            poslab_use_checkpoint(lab, ck, message, sizeof message);
            double t = now();
            if (poslab_run(lab, &cfg, message, sizeof message) != POSLAB_OK) {
                fprintf(stderr, "bench_checkpoint: %s\n", message);
                return 2;
            }
            t = now() - t;
            if (t < best) best = t;
        }
        const poslab_result *res = poslab_result_of(lab);
        printf("%s{\"tokens_a\":%d,\"tokens_b\":%d,\"seconds\":%.6f,\"mean_cosine_similarity\":%.17g}",
               k > 3 ? "," : "", res->len_a, res->len_b, best, res->mean_cosine_similarity);
    }
    struct rusage end;
    getrusage(RUSAGE_SELF, &end);
    printf("],\"peak_rss\":%ld}\n", end.ru_maxrss * 1024L);
    poslab_destroy(lab);
    poslab_checkpoint_free(ck);
    return 0;
}
