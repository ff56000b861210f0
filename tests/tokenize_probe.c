/* tokenize_probe - the core's tokenizer from the command line, for the
 * tests and the benchmark under Node (tests/node/tokenizer.test.mjs,
 * tests/bench/tokenizer.mjs).
 *
 *   tokenize_probe VOCAB MERGES [--long-piece N] < lines
 *       each line "P HEX": P 1 to put a space before the text, HEX its bytes;
 *       writes one line each: the ids as a JSON array, or {"error": msg}
 *   tokenize_probe VOCAB MERGES --pieces
 *       one line per id below the largest + 1: the piece's bytes in hex
 *   tokenize_probe VOCAB MERGES --file TEXT [REPEATS]
 *       {"bytes", "tokens", "seconds" (the fastest of REPEATS), "ids"}
 *   tokenize_probe --classes
 *       the Unicode table: {"version", "starts", "classes"}
 *
 * A tokenizer that does not load: its message on stderr, exit 2. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tokenizer.h"
#include "unicode_tables.h"

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *more = realloc(buf, cap *= 2);
            if (!more) free(buf);
            buf = more;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static void print_json_string(const char *s) {
    putchar('"');
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u == '"' || *u == '\\') printf("\\%c", *u);
        else if (*u < 0x20) printf("\\u%04x", *u);
        else putchar(*u);
    }
    putchar('"');
}

static void print_ids(const int *ids, int n) {
    putchar('[');
    for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", ids[i]);
    putchar(']');
}

static int hex_digit(int c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int classes(void) {
    printf("{\"version\":\"%s\",\"starts\":[", unicode_version);
    for (int i = 0; i < unicode_run_count; i++) printf(i ? ",%u" : "%u", (unsigned)unicode_run_start[i]);
    printf("],\"classes\":[");
    for (int i = 0; i < unicode_run_count; i++) printf(i ? ",%d" : "%d", unicode_run_class[i]);
    printf("]}\n");
    return 0;
}

static int lines(tokenizer *t) {
    size_t cap = 1 << 12;
    char *line = malloc(cap), *text = malloc(cap);
    int *ids = malloc(cap * sizeof *ids);
    char msg[POSLAB_MESSAGE_BYTES];
    size_t n = 0;
    int c;
    while (line && text && ids && (c = getchar()) != EOF) {
        if (c != '\n') {
            if (n + 1 == cap) {
                cap *= 2;
                line = realloc(line, cap), text = realloc(text, cap), ids = realloc(ids, cap * sizeof *ids);
                if (!line || !text || !ids) break;
            }
            line[n++] = (char)c;
            continue;
        }
        line[n] = 0;
        size_t len = 0;
        for (size_t i = 2; i + 1 < n; i += 2) text[len++] = (char)(hex_digit(line[i]) << 4 | hex_digit(line[i + 1]));
        int count;
        /* room for one id per byte and the prefix's, and one more to show
           that max_ids is not what stops it */
        if (tokenizer_encode(t, text, len, line[0] == '1', ids, (int)len + 2, &count, msg, sizeof msg) == POSLAB_OK) {
            print_ids(ids, count);
        } else {
            printf("{\"error\":");
            print_json_string(msg);
            putchar('}');
        }
        putchar('\n');
        n = 0;
    }
    int ok = line && text && ids;
    free(line);
    free(text);
    free(ids);
    return ok ? 0 : 1;
}

static int pieces(const tokenizer *t) {
    for (int id = 0; id < tokenizer_id_limit(t); id++) {
        size_t len;
        const unsigned char *p = (const unsigned char *)tokenizer_piece(t, id, &len);
        if (!p) fputs("-", stdout);
        for (size_t i = 0; p && i < len; i++) printf("%02x", p[i]);
        putchar('\n');
    }
    return 0;
}

static int file(const tokenizer *t, const char *path, int repeats) {
    size_t len;
    char *text = slurp(path, &len);
    int *ids = text ? malloc((len + 1) * sizeof *ids) : NULL;
    if (!ids) {
        fprintf(stderr, "tokenize_probe: cannot read %s\n", path);
        free(text);
        return 2;
    }
    char msg[POSLAB_MESSAGE_BYTES];
    int count = 0;
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double start = now();
        if (tokenizer_encode(t, text, len, 0, ids, (int)len + 1, &count, msg, sizeof msg) != POSLAB_OK) {
            fprintf(stderr, "tokenize_probe: %s: %s\n", path, msg);
            return 1;
        }
        double s = now() - start;
        if (s < best) best = s;
    }
    printf("{\"bytes\":%zu,\"tokens\":%d,\"seconds\":%.9g,\"ids\":", len, count, best);
    print_ids(ids, count);
    printf("}\n");
    free(ids);
    free(text);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--classes")) return classes();
    if (argc < 3) {
        fprintf(stderr, "usage: tokenize_probe VOCAB MERGES [--long-piece N | --pieces | --file TEXT [REPEATS]]\n"
                        "       tokenize_probe --classes\n");
        return 2;
    }
    size_t vocab_len, merges_len;
    char *vocab = slurp(argv[1], &vocab_len), *merges = slurp(argv[2], &merges_len);
    if (!vocab || !merges) {
        fprintf(stderr, "tokenize_probe: cannot read %s\n", vocab ? argv[2] : argv[1]);
        return 2;
    }
    tokenizer *t;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_status st = tokenizer_load(&t, vocab, vocab_len, merges, merges_len, msg, sizeof msg);
    free(vocab);
    free(merges);
    if (st != POSLAB_OK) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    int rc;
    if (argc >= 4 && !strcmp(argv[3], "--pieces")) {
        rc = pieces(t);
    } else if (argc >= 5 && !strcmp(argv[3], "--file")) {
        rc = file(t, argv[4], argc >= 6 ? atoi(argv[5]) : 1);
    } else {
        if (argc >= 5 && !strcmp(argv[3], "--long-piece")) tokenizer_set_long_piece(t, strtoull(argv[4], NULL, 10));
        rc = lines(t);
    }
    tokenizer_free(t);
    return rc;
}
