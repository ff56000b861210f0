/* poslab: the command-line face of the core, for course authors' scripts
 * and autograders. Options and output are fixed by docs/interfaces.md.
 *
 * Which --name takes a value, the list of options in error lines and the
 * usage text all come from the core's option table (poslab_option_at), so
 * a new option needs nothing here. */
#include <stdio.h>
#include <string.h>

#include "cli_checkpoint.h"
#include "poslab.h"

/* Flags of the CLI alone, after the table's options in usage and lists. */
static const char *const cli_flags[] = {"json", "full", "tokenize"};

static const char description[] =
    "Runs self-attention (one head, or several side by side) over sentences A and\n"
    "B with NumPy's draws and compares each word's output in A with the same\n"
    "word's output in B as np.allclose does. Defaults: \"dog bites man\" /\n"
    "\"man bites dog\", d 6, seed 2, one head, both sentences from position 0,\n"
    "random positions at scale 0.5 (sinusoidal, rope and alibi: 1), no mask,\n"
    "rtol 1e-05, atol 1e-08. Exit status: 0 done, 2 invalid input (one line on\n"
    "stderr).\n";

/* Prints `item` after `*col` columns, wrapping greedily at 80 columns to a
 * line indented by `indent` spaces; at column `indent` it needs no space. */
static void wrap(const char *item, int *col, int indent) {
    int len = (int)strlen(item);
    if (*col != indent && *col + 1 + len > 80) {
        printf("\n%*s", indent, "");
        *col = indent;
    } else if (*col != indent) {
        putchar(' ');
        (*col)++;
    }
    fputs(item, stdout);
    *col += len;
}

static void usage(void) {
    char item[160];
    int col = 13;
    const poslab_option *o;
    fputs("usage: poslab", stdout);
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        if (o->metavar) snprintf(item, sizeof item, "[--%s %s]", o->name, o->metavar);
        else snprintf(item, sizeof item, "[--%s]", o->name);
        wrap(item, &col, 14);
    }
    for (size_t k = 0; k < sizeof cli_flags / sizeof cli_flags[0]; k++) {
        snprintf(item, sizeof item, "[--%s]", cli_flags[k]);
        wrap(item, &col, 14);
    }
    printf("\n\n%s\noptions:\n", description);
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        snprintf(item, sizeof item, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        if (strlen(item) > 21) printf("  %s\n%24s", item, ""); /* help on the next line */
        else printf("  %-22s", item);
        col = 24;
        /* the help line, then its default, word by word */
        char words[400];
        if (o->default_text) snprintf(words, sizeof words, "%s (default: %s)", o->help, o->default_text);
        else snprintf(words, sizeof words, "%s", o->help);
        for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) wrap(w, &col, 24);
        putchar('\n');
    }
    fputs("  --json                JSON instead of text (docs/interfaces.md)\n"
          "  --full                with --json: also the outputs and attention weights\n"
          "  --tokenize            print the token ids and pieces of --a with --checkpoint's\n"
          "                        tokenizer (id, a tab, the piece a line), then exit\n"
          "  --help                this text\n", stdout);
}

static int invalid(const char *line) {
    fprintf(stderr, "poslab: %s\n", line);
    return 2;
}

/* "--a, --b, ..., --json, --full, --help": every name the CLI takes. */
static void option_list(char *out, size_t size) {
    const poslab_option *o;
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; (o = poslab_option_at(i)) && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "--%s, ", o->name);
    for (size_t k = 0; k < sizeof cli_flags / sizeof cli_flags[0] && at < size; k++)
        at += (size_t)snprintf(out + at, size - at, "--%s, ", cli_flags[k]);
    if (at < size) snprintf(out + at, size - at, "--help");
}

/* The table's row for --name, or NULL. */
static const poslab_option *option_named(const char *name) {
    const poslab_option *o;
    for (int i = 0; (o = poslab_option_at(i)); i++)
        if (!strcmp(name, o->name)) return o;
    return NULL;
}

/* --tokenize: the ids and pieces of text, as lines or as JSON. */
static int tokenize(const char *path, const char *text, int prefix_space, int json) {
    char message[POSLAB_MESSAGE_BYTES];
    poslab_checkpoint *ck;
    int rc = cli_load_checkpoint(path, 0, &ck, message, sizeof message);
    if (rc) {
        fprintf(stderr, "poslab: %s\n", message);
        return rc;
    }
    const char *out = poslab_checkpoint_tokens_json(ck, text, strlen(text), prefix_space, message, sizeof message);
    if (!out) {
        fprintf(stderr, "poslab: --a: %s\n", message);
        poslab_checkpoint_free(ck);
        return 2;
    }
    if (json) {
        fputs(out, stdout);
    } else {
        int ids[POSLAB_MAX_TOKENS * 64], count = 0;
        poslab_checkpoint_tokenize(ck, text, strlen(text), prefix_space, ids, (int)(sizeof ids / sizeof ids[0]),
                                   &count, message, sizeof message);
        for (int k = 0; k < count; k++) { /* the piece's own bytes */
            size_t len;
            const char *piece = poslab_checkpoint_piece(ck, ids[k], &len);
            printf("%d\t", ids[k]);
            fwrite(piece, 1, len, stdout);
            putchar('\n');
        }
    }
    poslab_checkpoint_free(ck);
    return fflush(stdout) == EOF ? 1 : 0;
}

int main(int argc, char **argv) {
    poslab_config cfg;
    char message[POSLAB_MESSAGE_BYTES];
    int json = 0, full = 0, tokens = 0;
    const char *text_a = "dog bites man"; /* --a as given, for --tokenize */
    const poslab_option *given[64];
    int given_count = 0;
    poslab_config_default(&cfg);

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage();
            return 0;
        }
        if (!strcmp(arg, "--json")) { json = 1; continue; }
        if (!strcmp(arg, "--full")) { full = 1; continue; }
        if (!strcmp(arg, "--tokenize")) { tokens = 1; continue; }
        if (strncmp(arg, "--", 2) || !arg[2]) {
            snprintf(message, sizeof message,
                     "unexpected argument \"%.40s\"; allowed: options such as --a TEXT (see --help)", arg);
            return invalid(message);
        }
        /* --name VALUE or --name=VALUE; a switch is a bare --name */
        char name[32];
        const char *value;
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, arg + 2, len);
        name[len] = 0;
        const poslab_option *o = option_named(name);
        if (o && o->kind == POSLAB_KIND_SWITCH && !eq) {
            value = "true";
        } else if (o && o->kind == POSLAB_KIND_SWITCH) {
            value = eq + 1; /* --name=true|false */
        } else if (!o) {
            char list[256];
            option_list(list, sizeof list);
            snprintf(message, sizeof message, "--%s is not an option; allowed: %s", name, list);
            return invalid(message);
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            snprintf(message, sizeof message, "--%s needs a value; see --help for what it takes", name);
            return invalid(message);
        }
        char detail[POSLAB_MESSAGE_BYTES];
        if (poslab_config_set(&cfg, name, value, detail, sizeof detail) != POSLAB_OK) {
            fprintf(stderr, "poslab: --%s\n", detail);
            return 2;
        }
        if (!strcmp(name, "a")) text_a = value;
        if (given_count < (int)(sizeof given / sizeof given[0])) given[given_count++] = o;
    }

    if (tokens) {
        if (!cfg.checkpoint[0]) return invalid("--tokenize needs --checkpoint PATH (a folder with vocab.json and merges.txt)");
        return tokenize(cfg.checkpoint, text_a, cfg.prefix_space, json);
    }
    /* an option the model does not read is a mistake, not a no-op */
    for (int k = 0; k < given_count; k++) {
        if (poslab_option_for(given[k], cfg.model)) continue;
        if (cfg.model == POSLAB_MODEL_CHECKPOINT)
            snprintf(message, sizeof message,
                     "--%s: set by the checkpoint with --model checkpoint; allowed: leave --%s out", given[k]->name,
                     given[k]->name);
        else
            snprintf(message, sizeof message, "--%s: only for --model checkpoint; allowed: add --model checkpoint",
                     given[k]->name);
        return invalid(message);
    }
    poslab_checkpoint *ck = NULL;
    if (cfg.model == POSLAB_MODEL_CHECKPOINT) {
        if (!cfg.checkpoint[0]) return invalid("--model checkpoint needs --checkpoint PATH (a checkpoint folder)");
        int rc = cli_load_checkpoint(cfg.checkpoint, 1, &ck, message, sizeof message);
        if (rc) {
            fprintf(stderr, "poslab: %s\n", message);
            return rc;
        }
    }

    poslab_lab *lab = poslab_create();
    if (!lab) {
        poslab_checkpoint_free(ck);
        return invalid("out of memory");
    }
    poslab_status st = poslab_use_checkpoint(lab, ck, message, sizeof message);
    if (st == POSLAB_OK) st = poslab_run(lab, &cfg, message, sizeof message);
    if (st != POSLAB_OK) {
        poslab_destroy(lab);
        poslab_checkpoint_free(ck);
        /* an input error names its option first, as the parser's do */
        fprintf(stderr, "poslab: %s%s\n", st == POSLAB_ERR_INPUT ? "--" : "", message);
        return st == POSLAB_ERR_NOMEM ? 1 : 2;
    }
    const char *out = json ? poslab_json(lab, full ? POSLAB_JSON_FULL : 0) : poslab_text(lab);
    int rc = 0;
    if (!out) rc = invalid("out of memory");
    else if (fputs(out, stdout) == EOF || fflush(stdout) == EOF) rc = 1;
    poslab_destroy(lab);
    poslab_checkpoint_free(ck);
    return rc;
}
