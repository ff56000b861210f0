/* poslab: the command-line face of the core, for course authors' scripts
 * and autograders. Options and output are fixed by docs/interfaces.md.
 *
 * Which --name takes a value, the list of options in error lines and the
 * whole of --help (options, defaults, each choice's words, the examples)
 * come from the core's option table (poslab_option_at), so a new option
 * needs nothing here. */
#include <stdio.h>
#include <string.h>

#include "cli_checkpoint.h"
#include "poslab.h"

/* CMake reads it from package.json, the project's one version number. */
#ifndef POSLAB_VERSION
#error "POSLAB_VERSION is set by CMakeLists.txt"
#endif

/* Flags of the CLI alone, after the table's options in usage and lists.
 * The first three are switches like the table's; the last two act at once. */
static const struct {
    const char *name;
    const char *help;
} cli_flags[] = {
    {"json", "print JSON instead of text (docs/cli.md)"},
    {"full", "with --json: also the outputs and attention weights"},
    {"tokenize", "print the token ids and pieces of --a with --checkpoint's tokenizer (id, a tab, the piece a "
                 "line; with --json, as JSON), then exit"},
    {"help", "print this text and exit"},
    {"version", "print the version and exit"},
};
enum { CLI_FLAGS = sizeof cli_flags / sizeof cli_flags[0], FLAG_JSON = 0, FLAG_FULL, FLAG_TOKENIZE, FLAG_HELP,
       FLAG_VERSION };

static const char description[] =
    "Runs self-attention over sentences A and B with NumPy's draws, with or\n"
    "without positional information, and compares each word's output in A with\n"
    "the same word's output in B as np.allclose does, with the largest\n"
    "difference and the cosine distance. The defaults are the course module's\n"
    "experiment.\n";

static const char exit_statuses[] =
    "exit status:\n"
    "  0  done\n"
    "  1  out of memory, a checkpoint's file could not be read, or the output\n"
    "     could not be written\n"
    "  2  bad input: one line on stderr names the option, the value given and\n"
    "     what is allowed\n";

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

/* `text` word by word from column `col`, continued at column `indent`. */
static void wrap_words(const char *text, int col, int indent) {
    char words[512];
    snprintf(words, sizeof words, "%s", text);
    for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) wrap(w, &col, indent);
    putchar('\n');
}

/* "  --name METAVAR" padded to column 24, or on a line of its own when long. */
static void option_head(const char *item) {
    if (strlen(item) > 21) printf("  %s\n%24s", item, "");
    else printf("  %-22s", item);
}

static void usage(void) {
    char item[160], words[512];
    int col = 13;
    const poslab_option *o;
    fputs("usage: poslab", stdout);
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        if (o->metavar) snprintf(item, sizeof item, "[--%s %s]", o->name, o->metavar);
        else snprintf(item, sizeof item, "[--%s]", o->name);
        wrap(item, &col, 14);
    }
    for (int k = 0; k < CLI_FLAGS; k++) {
        snprintf(item, sizeof item, "[--%s]", cli_flags[k].name);
        wrap(item, &col, 14);
    }
    printf("\n\n%s\noptions:\n", description);
    const poslab_option *first_switch = NULL;
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        if (o->metavar) snprintf(item, sizeof item, "--%s %s", o->name, o->metavar);
        else snprintf(item, sizeof item, "--%s[=true|false]", o->name);
        if (o->kind == POSLAB_KIND_SWITCH && !first_switch) first_switch = o;
        option_head(item);
        if (o->default_text) snprintf(words, sizeof words, "%s (default: %s)", o->help, o->default_text);
        else snprintf(words, sizeof words, "%s", o->help);
        wrap_words(words, 24, 24);
        /* a choice's words, each with what it means, in a column */
        const char *word;
        char help[256];
        int width = 0;
        for (int k = 0; (word = poslab_choice_word(o, k, NULL, 0, NULL)); k++)
            if ((int)strlen(word) > width) width = (int)strlen(word);
        for (int k = 0; (word = poslab_choice_word(o, k, help, sizeof help, NULL)); k++) {
            printf("%26s%-*s", "", width + 1, word); /* wrap() adds the second space */
            wrap_words(help, 27 + width, 28 + width);
        }
    }
    for (int k = 0; k < CLI_FLAGS; k++) {
        snprintf(item, sizeof item, "--%s%s", cli_flags[k].name, k < FLAG_HELP ? "[=true|false]" : "");
        option_head(item);
        wrap_words(cli_flags[k].help, 24, 24);
    }
    if (first_switch) {
        snprintf(words, sizeof words,
                 "A switch is on as a bare --%s or --%s=true, and off as --%s=false (1 and 0 work too). "
                 "An option with a value takes it as --name VALUE or --name=VALUE.",
                 first_switch->name, first_switch->name, first_switch->name);
        putchar('\n');
        wrap_words(words, 0, 0);
    }
    printf("\n%s\nexamples, one per model:\n", exit_statuses);
    for (int i = 0; (o = poslab_option_at(i)); i++) {
        const char *word, *example;
        for (int k = 0; (word = poslab_choice_word(o, k, NULL, 0, &example)); k++)
            if (example) printf("  poslab %s\n", example);
    }
}

/* `s` as an error line can show it: printable ASCII as is, other bytes as
   \xHH, cut with "..." after `max` bytes. */
static void shown(char *out, size_t cap, const char *s, size_t max) {
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == max) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f) out[o++] = (char)c;
        else o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    out[o] = 0;
}

static int invalid(const char *line) {
    fprintf(stderr, "poslab: %s\n", line);
    return 2;
}

/* "--a, --b, ..., --json, --full, --help, --version": every name the CLI takes. */
static void option_list(char *out, size_t size) {
    const poslab_option *o;
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; (o = poslab_option_at(i)) && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "--%s, ", o->name);
    for (int k = 0; k < CLI_FLAGS && at < size; k++)
        at += (size_t)snprintf(out + at, size - at, k + 1 < CLI_FLAGS ? "--%s, " : "--%s", cli_flags[k].name);
}

/* The table's row for --name, or NULL. */
static const poslab_option *option_named(const char *name) {
    const poslab_option *o;
    for (int i = 0; (o = poslab_option_at(i)); i++)
        if (!strcmp(name, o->name)) return o;
    return NULL;
}

static int flag_named(const char *name) {
    for (int k = 0; k < CLI_FLAGS; k++)
        if (!strcmp(name, cli_flags[k].name)) return k;
    return -1;
}

/* Whether arg is one of the CLI's options, --name or --name=VALUE. */
static int names_option(const char *arg) {
    if (strncmp(arg, "--", 2)) return !strcmp(arg, "-h");
    char name[32];
    size_t len = strcspn(arg + 2, "=");
    if (len >= sizeof name) return 0;
    memcpy(name, arg + 2, len);
    name[len] = 0;
    return flag_named(name) >= 0 || option_named(name) != NULL;
}

/* A switch's value as the core's SWITCH rows read it: 1, 0, or -1 if the
 * text is neither. */
static int switch_value(const char *v) {
    if (!strcmp(v, "true") || !strcmp(v, "1")) return 1;
    if (!strcmp(v, "false") || !strcmp(v, "0")) return 0;
    return -1;
}

/* 0 once what was printed is out, else 1 with the line a run gives */
static int written(void) {
    if (fflush(stdout) != EOF && !ferror(stdout)) return 0;
    fputs("poslab: could not write the output\n", stderr);
    return 1;
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
    return written();
}

int main(int argc, char **argv) {
    poslab_config cfg;
    char message[POSLAB_MESSAGE_BYTES];
    int flags[CLI_FLAGS] = {0};
    const poslab_option *given[64];
    int given_count = 0;
    poslab_config_default(&cfg);

    /* --help and --version act wherever they stand, as options may come in
       any order: an error before them would hide the help asked for. (No
       value can be "--help": an option's name is refused as a value below.) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return written();
        }
        if (!strcmp(argv[i], "--version")) {
            puts("poslab " POSLAB_VERSION);
            return written();
        }
    }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char text[160];
        if (strncmp(arg, "--", 2) || !arg[2]) {
            shown(text, sizeof text, arg, 40);
            snprintf(message, sizeof message,
                     "unexpected argument \"%s\"; allowed: options such as --a TEXT (see --help)", text);
            return invalid(message);
        }
        /* --name VALUE or --name=VALUE; a switch is a bare --name or --name=true|false */
        char name[32];
        const char *value;
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        int cut = len >= sizeof name;
        if (cut) len = sizeof name - 1;
        memcpy(name, arg + 2, len);
        name[len] = 0;
        int flag = cut ? -1 : flag_named(name);
        if (flag >= 0) { /* --help and --version, given alone, acted above */
            if (flag >= FLAG_HELP) {
                snprintf(message, sizeof message, "--%s takes no value; allowed: --%s alone", name, name);
                return invalid(message);
            }
            flags[flag] = switch_value(eq ? eq + 1 : "true");
            if (flags[flag] < 0) {
                shown(text, sizeof text, eq + 1, 40);
                snprintf(message, sizeof message,
                         "--%s: \"%s\" is not a switch value; allowed: true, false, 1 or 0", name, text);
                return invalid(message);
            }
            continue;
        }
        const poslab_option *o = cut ? NULL : option_named(name);
        if (!o) {
            char list[320];
            option_list(list, sizeof list);
            char given_name[64];
            snprintf(given_name, sizeof given_name, "%.*s", (int)(eq ? eq - arg - 2 : 63), arg + 2);
            shown(text, sizeof text, given_name, 30);
            snprintf(message, sizeof message, "--%s is not an option; allowed: %s", text, list);
            return invalid(message);
        }
        if (o->kind == POSLAB_KIND_SWITCH) {
            value = eq ? eq + 1 : "true";
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc && !names_option(argv[i + 1])) {
            value = argv[++i];
        } else if (i + 1 < argc) {
            /* "--a --dim 8" meant no sentence: the next option is not --a's
               value, which --a=--dim would give */
            shown(text, sizeof text, argv[i + 1], 40);
            snprintf(message, sizeof message,
                     "--%s needs a value, and \"%.60s\" is an option; allowed: %s, or --%s=%.60s to mean that text",
                     name, text, o->allowed, name, text);
            return invalid(message);
        } else {
            snprintf(message, sizeof message, "--%s needs a value; allowed: %s", name, o->allowed);
            return invalid(message);
        }
        char detail[POSLAB_MESSAGE_BYTES];
        if (poslab_config_set(&cfg, name, value, detail, sizeof detail) != POSLAB_OK) {
            fprintf(stderr, "poslab: --%s\n", detail);
            return 2;
        }
        /* each option once (given again, its last value counts): the table
           has fewer rows than `given`, so none goes unchecked below however
           many times options are repeated */
        int again = 0;
        for (int k = 0; k < given_count; k++) again |= given[k] == o;
        if (!again && given_count < (int)(sizeof given / sizeof given[0])) given[given_count++] = o;
    }

    const int json = flags[FLAG_JSON], full = flags[FLAG_FULL];
    if (flags[FLAG_TOKENIZE]) {
        /* it reads --a, --checkpoint and --prefix-space; another option would
           change nothing, which an autograder's typo should not learn quietly */
        for (int k = 0; k < given_count; k++) {
            const char *n = given[k]->name;
            if (strcmp(n, "a") && strcmp(n, "checkpoint") && strcmp(n, "prefix-space")) {
                snprintf(message, sizeof message,
                         "--%s: not read by --tokenize; allowed: --a, --checkpoint, --prefix-space, --json", n);
                return invalid(message);
            }
        }
        if (full) return invalid("--full: not read by --tokenize; allowed: --a, --checkpoint, --prefix-space, --json");
        if (!cfg.checkpoint[0])
            return invalid("--tokenize needs --checkpoint; allowed: --checkpoint PATH, a folder with vocab.json and "
                           "merges.txt");
        char joined[sizeof cfg.a.text]; /* the text a run tokenizes */
        poslab_sentence_join(&cfg.a, joined);
        return tokenize(cfg.checkpoint, joined, cfg.prefix_space, json);
    }
    /* an option the model does not read is a mistake, not a no-op */
    for (int k = 0; k < given_count; k++) {
        if (poslab_option_for(given[k], cfg.model)) continue;
        if (cfg.model == POSLAB_MODEL_CHECKPOINT)
            snprintf(message, sizeof message,
                     "--%s: set by the checkpoint with --model checkpoint; allowed: leave --%s out", given[k]->name,
                     given[k]->name);
        else
            snprintf(message, sizeof message,
                     "--%s: only for --model checkpoint and --tokenize; allowed: add --model checkpoint",
                     given[k]->name);
        return invalid(message);
    }
    poslab_checkpoint *ck = NULL;
    if (cfg.model == POSLAB_MODEL_CHECKPOINT) {
        if (!cfg.checkpoint[0])
            return invalid("--model checkpoint needs --checkpoint; allowed: --checkpoint PATH, a checkpoint folder or "
                           "its .safetensors file");
        int rc = cli_load_checkpoint(cfg.checkpoint, 1, &ck, message, sizeof message);
        if (rc) {
            fprintf(stderr, "poslab: %s\n", message);
            return rc;
        }
    }

    poslab_lab *lab = poslab_create();
    if (!lab) {
        poslab_checkpoint_free(ck);
        fputs("poslab: out of memory\n", stderr);
        return 1;
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
    if (!out) {
        fputs("poslab: out of memory\n", stderr);
        rc = 1;
    } else if (fputs(out, stdout) == EOF || fflush(stdout) == EOF) {
        fputs("poslab: could not write the output\n", stderr);
        rc = 1;
    }
    poslab_destroy(lab);
    poslab_checkpoint_free(ck);
    return rc;
}
