/* poslab: the command-line face of the core, for course authors' scripts
 * and autograders. Options and output are fixed by interfaces.md. */
#include <stdio.h>
#include <string.h>

#include "poslab.h"

static const char usage[] =
    "usage: poslab [--a TEXT] [--b TEXT] [--dim N] [--seed N]\n"
    "              [--scheme none|random|sinusoidal|rope] [--scale X] [--causal]\n"
    "              [--rtol X] [--atol X] [--sweep LO:HI:COUNT] [--json] [--full]\n"
    "\n"
    "Runs one self-attention head over sentences A and B with NumPy's draws and\n"
    "compares each word's output in A with the same word's output in B as\n"
    "np.allclose does. Defaults: \"dog bites man\" / \"man bites dog\", d 6, seed 2,\n"
    "random positions at scale 0.5 (sinusoidal and rope: 1), no mask, rtol 1e-05,\n"
    "atol 1e-08. Exit status: 0 done, 2 invalid input (one line on stderr).\n";

static int invalid(const char *line) {
    fprintf(stderr, "poslab: %s\n", line);
    return 2;
}

int main(int argc, char **argv) {
    poslab_config cfg;
    char message[POSLAB_MESSAGE_BYTES];
    int json = 0, full = 0;
    poslab_config_default(&cfg);

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(arg, "--json")) { json = 1; continue; }
        if (!strcmp(arg, "--full")) { full = 1; continue; }
        if (!strcmp(arg, "--causal")) { cfg.causal = 1; continue; }
        if (strncmp(arg, "--", 2) || !arg[2]) {
            snprintf(message, sizeof message,
                     "unexpected argument \"%.40s\"; allowed: options such as --a TEXT (see --help)", arg);
            return invalid(message);
        }
        /* --name VALUE or --name=VALUE */
        char name[32];
        const char *value;
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, arg + 2, len);
        name[len] = 0;
        static const char *const valued[] = {"a", "b", "dim", "seed", "scheme", "scale", "rtol", "atol", "sweep"};
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) known |= !strcmp(name, valued[k]);
        if (!known) {
            snprintf(message, sizeof message,
                     "--%s is not an option; allowed: --a, --b, --dim, --seed, --scheme, --scale, --causal, "
                     "--rtol, --atol, --sweep, --json, --full, --help", name);
            return invalid(message);
        }
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else {
            snprintf(message, sizeof message, "--%s needs a value; see --help for what it takes", name);
            return invalid(message);
        }
        char detail[POSLAB_MESSAGE_BYTES];
        if (poslab_config_set(&cfg, name, value, detail, sizeof detail) != POSLAB_OK) {
            fprintf(stderr, "poslab: --%s\n", detail);
            return 2;
        }
    }

    poslab_lab *lab = poslab_create();
    if (!lab) return invalid("out of memory");
    poslab_status st = poslab_run(lab, &cfg, message, sizeof message);
    if (st != POSLAB_OK) {
        poslab_destroy(lab);
        fprintf(stderr, "poslab: %s\n", message);
        return st == POSLAB_ERR_NOMEM ? 1 : 2;
    }
    const char *out = json ? poslab_json(lab, full ? POSLAB_JSON_FULL : 0) : poslab_text(lab);
    int rc = 0;
    if (!out) rc = invalid("out of memory");
    else if (fputs(out, stdout) == EOF || fflush(stdout) == EOF) rc = 1;
    poslab_destroy(lab);
    return rc;
}
