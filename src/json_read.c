/* A strict JSON reader; see json_read.h. */
#include "json_read.h"

#include <string.h>

#include "decimal.h"

void json_begin(json_cursor *c, const char *s, size_t len) {
    memset(c, 0, sizeof *c);
    c->s = s;
    c->len = len;
}

int json_fail(json_cursor *c, const char *why) {
    if (!c->error) {
        c->error = why;
        c->error_at = c->at;
    }
    return 0;
}

static void spaces(json_cursor *c) {
    while (c->at < c->len) {
        char ch = c->s[c->at];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') break;
        c->at++;
    }
}

/* The next character after spaces, or 0 at the end (or after an error). */
static char next(json_cursor *c) {
    if (c->error) return 0;
    spaces(c);
    return c->at < c->len ? c->s[c->at] : 0;
}

json_type json_peek(json_cursor *c) {
    switch (next(c)) {
    case '{': return JSON_OBJECT;
    case '[': return JSON_ARRAY;
    case '"': return JSON_STRING;
    case 't': return JSON_TRUE;
    case 'f': return JSON_FALSE;
    case 'n': return JSON_NULL;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': return JSON_NUMBER;
    default: return JSON_NONE;
    }
}

static int expect(json_cursor *c, char ch, const char *why) {
    if (next(c) != ch) return json_fail(c, why);
    c->at++;
    return 1;
}

static int open_nested(json_cursor *c, char ch, const char *why) {
    if (!expect(c, ch, why)) return 0;
    if (++c->depth > JSON_MAX_DEPTH) return json_fail(c, "nested deeper than 64 levels");
    return 1;
}

/* Containers: after begin, the first call to next must not see a comma;
 * the cursor marks that with the byte before it being the bracket. */
int json_object_begin(json_cursor *c) { return open_nested(c, '{', "expected an object"); }
int json_array_begin(json_cursor *c) { return open_nested(c, '[', "expected an array"); }

static int close_or_comma(json_cursor *c, char close, int first) {
    char ch = next(c);
    if (!ch && c->error) return 0;
    if (ch == close) {
        c->at++;
        c->depth--;
        return 0;
    }
    if (!first && !expect(c, ',', close == '}' ? "expected ',' or '}'" : "expected ',' or ']'")) return 0;
    return 1;
}

/* Whether the cursor stands right after the container's opening bracket
 * (spaces aside): the first member comes without a comma. */
static int just_opened(const json_cursor *c, char open) {
    size_t at = c->at;
    while (at > 0) {
        char ch = c->s[at - 1];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') at--;
        else return ch == open;
    }
    return 0;
}

int json_object_next(json_cursor *c, char *key, size_t cap, size_t *key_len) {
    int first = just_opened(c, '{');
    if (!close_or_comma(c, '}', first)) return 0;
    if (json_peek(c) != JSON_STRING) return json_fail(c, "expected a key in quotes");
    size_t len = 0;
    /* a key too long for key is read in full, cut, and reported by its length */
    if (!json_string(c, key, cap, &len) && c->error) return 0;
    if (key_len) *key_len = len;
    return expect(c, ':', "expected ':' after a key");
}

int json_array_next(json_cursor *c) {
    int first = just_opened(c, '[');
    return close_or_comma(c, ']', first);
}

static int hex4(json_cursor *c, unsigned *out) {
    if (c->len - c->at < 4) return json_fail(c, "a \\u escape needs four hex digits");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char ch = c->s[c->at++];
        v <<= 4;
        if (ch >= '0' && ch <= '9') v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f') v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F') v |= (unsigned)(ch - 'A' + 10);
        else return json_fail(c, "a \\u escape needs four hex digits");
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at s, 0 if none (strict). */
static int utf8_length(const unsigned char *s, size_t left) {
    unsigned ch = s[0];
    if (ch < 0x80) return 1;
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (ch >= 0xc2 && ch <= 0xdf) n = 2;
    else if (ch >= 0xe0 && ch <= 0xef) n = 3, lo = ch == 0xe0 ? 0xa0 : 0x80, hi = ch == 0xed ? 0x9f : 0xbf;
    else if (ch >= 0xf0 && ch <= 0xf4) n = 4, lo = ch == 0xf0 ? 0x90 : 0x80, hi = ch == 0xf4 ? 0x8f : 0xbf;
    else return 0;
    if ((size_t)n > left || s[1] < lo || s[1] > hi) return 0;
    for (int k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf) return 0;
    return n;
}

/* Appends a code point as UTF-8 to out while it fits; counts it in *len. */
static void put_code(char *out, size_t cap, size_t *len, unsigned cp) {
    unsigned char b[4];
    int n;
    if (cp < 0x80) b[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800) b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 63)), n = 2;
    else if (cp < 0x10000)
        b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | (cp >> 6 & 63)),
        b[2] = (unsigned char)(0x80 | (cp & 63)), n = 3;
    else
        b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | (cp >> 12 & 63)),
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 63)), b[3] = (unsigned char)(0x80 | (cp & 63)), n = 4;
    for (int k = 0; k < n; k++) {
        if (out && *len + 1 < cap) out[*len] = (char)b[k];
        (*len)++;
    }
}

int json_string(json_cursor *c, char *out, size_t cap, size_t *len_out) {
    if (json_peek(c) != JSON_STRING) return json_fail(c, "expected a string");
    c->at++;
    size_t len = 0;
    for (;;) {
        if (c->at >= c->len) return json_fail(c, "a string is not closed");
        unsigned char ch = (unsigned char)c->s[c->at];
        if (ch == '"') { c->at++; break; }
        if (ch < 0x20) return json_fail(c, "a control character inside a string");
        if (ch == '\\') {
            if (++c->at >= c->len) return json_fail(c, "a string is not closed");
            char e = c->s[c->at++];
            unsigned cp;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (!hex4(c, &cp)) return 0;
                if (cp >= 0xdc00 && cp <= 0xdfff) return json_fail(c, "an unpaired surrogate escape");
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (c->len - c->at < 2 || c->s[c->at] != '\\' || c->s[c->at + 1] != 'u')
                        return json_fail(c, "an unpaired surrogate escape");
                    c->at += 2;
                    if (!hex4(c, &lo)) return 0;
                    if (lo < 0xdc00 || lo > 0xdfff) return json_fail(c, "an unpaired surrogate escape");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                break;
            default: return json_fail(c, "an unknown escape in a string");
            }
            put_code(out, cap, &len, cp);
            continue;
        }
        int n = utf8_length((const unsigned char *)c->s + c->at, c->len - c->at);
        if (!n) return json_fail(c, "a string that is not UTF-8");
        for (int k = 0; k < n; k++) {
            if (out && len + 1 < cap) out[len] = c->s[c->at + k];
            len++;
        }
        c->at += (size_t)n;
    }
    if (out && cap) out[len < cap ? len : cap - 1] = 0;
    if (len_out) *len_out = len;
    return !out || len < cap;
}

/* The extent of a number by JSON's grammar; 0 if it breaks it. */
static size_t number_extent(json_cursor *c, int *integer) {
    size_t at = c->at;
    const char *s = c->s;
    *integer = 1;
    if (at < c->len && s[at] == '-') at++, *integer = 0;
    if (at >= c->len) return 0;
    if (s[at] == '0') at++;
    else if (s[at] >= '1' && s[at] <= '9') while (at < c->len && s[at] >= '0' && s[at] <= '9') at++;
    else return 0;
    if (at < c->len && s[at] == '.') {
        *integer = 0;
        if (++at >= c->len || s[at] < '0' || s[at] > '9') return 0;
        while (at < c->len && s[at] >= '0' && s[at] <= '9') at++;
    }
    if (at < c->len && (s[at] == 'e' || s[at] == 'E')) {
        *integer = 0;
        at++;
        if (at < c->len && (s[at] == '+' || s[at] == '-')) at++;
        if (at >= c->len || s[at] < '0' || s[at] > '9') return 0;
        while (at < c->len && s[at] >= '0' && s[at] <= '9') at++;
    }
    return at - c->at;
}

int json_number(json_cursor *c, double *out) {
    if (json_peek(c) != JSON_NUMBER) return json_fail(c, "expected a number");
    int integer;
    size_t n = number_extent(c, &integer);
    if (!n) return json_fail(c, "a malformed number");
    char buf[64];
    if (n >= sizeof buf) return json_fail(c, "a number with too many digits");
    memcpy(buf, c->s + c->at, n);
    buf[n] = 0;
    const char *end;
    double x = decimal_parse(buf, &end);
    if (end != buf + n) return json_fail(c, "a malformed number");
    c->at += n;
    *out = x;
    return 1;
}

int json_uint64(json_cursor *c, uint64_t *out) {
    if (json_peek(c) != JSON_NUMBER) return json_fail(c, "expected a whole number");
    int integer;
    size_t n = number_extent(c, &integer);
    if (!n) return json_fail(c, "a malformed number");
    if (!integer || c->s[c->at] == '-') return json_fail(c, "expected a whole number");
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned dgt = (unsigned)(c->s[c->at + k] - '0');
        if (x > (UINT64_MAX - dgt) / 10) return json_fail(c, "a whole number past 2^64");
        x = x * 10 + dgt;
    }
    c->at += n;
    *out = x;
    return 1;
}

static int literal(json_cursor *c, const char *word) {
    size_t n = strlen(word);
    if (c->len - c->at < n || memcmp(c->s + c->at, word, n)) return json_fail(c, "an unknown word");
    c->at += n;
    return 1;
}

int json_bool(json_cursor *c, int *out) {
    switch (json_peek(c)) {
    case JSON_TRUE: *out = 1; return literal(c, "true");
    case JSON_FALSE: *out = 0; return literal(c, "false");
    default: return json_fail(c, "expected true or false");
    }
}

int json_skip(json_cursor *c) {
    double x;
    switch (json_peek(c)) {
    case JSON_OBJECT:
        if (!json_object_begin(c)) return 0;
        while (json_object_next(c, NULL, 0, NULL))
            if (!json_skip(c)) return 0;
        return !c->error;
    case JSON_ARRAY:
        if (!json_array_begin(c)) return 0;
        while (json_array_next(c))
            if (!json_skip(c)) return 0;
        return !c->error;
    case JSON_STRING: return json_string(c, NULL, 0, NULL) || !c->error;
    case JSON_NUMBER: return json_number(c, &x);
    case JSON_TRUE: return literal(c, "true");
    case JSON_FALSE: return literal(c, "false");
    case JSON_NULL: return literal(c, "null");
    default: return json_fail(c, c->at >= c->len ? "the text ends where a value should be" : "expected a value");
    }
}

int json_end(json_cursor *c) {
    if (c->error) return 0;
    spaces(c);
    if (c->at != c->len) return json_fail(c, "text after the end of the value");
    return 1;
}
