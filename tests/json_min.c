/* A recursive-descent JSON reader; see json_min.h. */
#include "json_min.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *p; } reader;

static void skip(reader *r) {
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t') r->p++;
}

static int value(reader *r, jvalue *out, int depth);

/* \uXXXX escapes are decoded to UTF-8 (surrogate pairs included). */
static int string(reader *r, char **out) {
    size_t cap = 16, len = 0;
    char *s = malloc(cap);
    if (!s || *r->p != '"') { free(s); return -1; }
    r->p++;
    while (*r->p != '"') {
        if (!*r->p) { free(s); return -1; }
        unsigned cp = (unsigned char)*r->p++;
        char enc[4];
        int n = 1;
        if (cp == '\\') {
            char e = *r->p++;
            switch (e) {
            case 'n': cp = '\n'; break;
            case 't': cp = '\t'; break;
            case 'r': cp = '\r'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case '"': case '\\': case '/': cp = (unsigned char)e; break;
            case 'u': {
                if (sscanf(r->p, "%4x", &cp) != 1) { free(s); return -1; }
                r->p += 4;
                if (cp >= 0xd800 && cp < 0xdc00 && r->p[0] == '\\' && r->p[1] == 'u') {
                    unsigned lo;
                    if (sscanf(r->p + 2, "%4x", &lo) != 1) { free(s); return -1; }
                    r->p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                break;
            }
            default: free(s); return -1;
            }
            if (cp < 0x80) enc[0] = (char)cp;
            else if (cp < 0x800) { enc[0] = (char)(0xc0 | cp >> 6); enc[1] = (char)(0x80 | (cp & 63)); n = 2; }
            else if (cp < 0x10000) {
                enc[0] = (char)(0xe0 | cp >> 12); enc[1] = (char)(0x80 | (cp >> 6 & 63));
                enc[2] = (char)(0x80 | (cp & 63)); n = 3;
            } else {
                enc[0] = (char)(0xf0 | cp >> 18); enc[1] = (char)(0x80 | (cp >> 12 & 63));
                enc[2] = (char)(0x80 | (cp >> 6 & 63)); enc[3] = (char)(0x80 | (cp & 63)); n = 4;
            }
        } else enc[0] = (char)cp;
        if (len + (size_t)n + 1 > cap) {
            cap *= 2;
            char *g = realloc(s, cap);
            if (!g) { free(s); return -1; }
            s = g;
        }
        memcpy(s + len, enc, (size_t)n);
        len += (size_t)n;
    }
    r->p++;
    s[len] = 0;
    *out = s;
    return 0;
}

static int push(jvalue *v, int *cap) {
    if (v->count == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        jvalue *items = realloc(v->items, (size_t)*cap * sizeof *items);
        if (!items) return -1;
        v->items = items;
        if (v->type == J_OBJECT) {
            char **keys = realloc(v->keys, (size_t)*cap * sizeof *keys);
            if (!keys) return -1;
            v->keys = keys;
        }
    }
    return 0;
}

static int value(reader *r, jvalue *out, int depth) {
    memset(out, 0, sizeof *out);
    if (depth > 64) return -1;
    skip(r);
    char c = *r->p;
    if (c == '{' || c == '[') {
        int cap = 0;
        char close = c == '{' ? '}' : ']';
        out->type = c == '{' ? J_OBJECT : J_ARRAY;
        r->p++;
        skip(r);
        if (*r->p == close) { r->p++; return 0; }
        for (;;) {
            if (push(out, &cap)) return -1;
            if (out->type == J_OBJECT) {
                skip(r);
                if (string(r, &out->keys[out->count])) return -1;
                skip(r);
                if (*r->p++ != ':') { free(out->keys[out->count]); return -1; }
            }
            if (value(r, &out->items[out->count], depth + 1)) {
                if (out->type == J_OBJECT) free(out->keys[out->count]);
                return -1;
            }
            out->count++;
            skip(r);
            if (*r->p == ',') { r->p++; continue; }
            if (*r->p == close) { r->p++; return 0; }
            return -1;
        }
    }
    if (c == '"') { out->type = J_STRING; return string(r, &out->string); }
    if (!strncmp(r->p, "true", 4)) { out->type = J_BOOL; out->number = 1; r->p += 4; return 0; }
    if (!strncmp(r->p, "false", 5)) { out->type = J_BOOL; r->p += 5; return 0; }
    if (!strncmp(r->p, "null", 4)) { out->type = J_NULL; r->p += 4; return 0; }
    char *end;
    out->type = J_NUMBER;
    out->number = strtod(r->p, &end);
    if (end == r->p) return -1;
    r->p = end;
    return 0;
}

int json_parse(const char *text, jvalue *out) {
    reader r = {text};
    if (value(&r, out, 0)) { json_free(out); return -1; }
    skip(&r);
    if (*r.p) { json_free(out); return -1; }
    return 0;
}

void json_free(jvalue *v) {
    for (int i = 0; i < v->count; i++) {
        json_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof *v);
}

const jvalue *json_get(const jvalue *o, const char *key) {
    if (!o || o->type != J_OBJECT) return NULL;
    for (int i = 0; i < o->count; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}

char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); s = NULL; }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}
