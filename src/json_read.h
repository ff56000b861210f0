/* json_read.h - a small strict JSON reader for the checkpoint's files
 * (config.json, the safetensors header, model.safetensors.index.json).
 * Internal to the core.
 *
 * A cursor walks the text once; the caller reads the values it expects in
 * the order they come and skips the rest. Strict as RFC 8259: no comments,
 * trailing commas, leading zeros, bare control characters in strings or
 * unpaired surrogates; nesting deeper than JSON_MAX_DEPTH is refused, so a
 * hostile header cannot exhaust the stack. On the first error the cursor
 * keeps a short reason and every later call fails at once. */
#ifndef POSLAB_JSON_READ_H
#define POSLAB_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

enum { JSON_MAX_DEPTH = 64 };

typedef enum { JSON_NONE, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE, JSON_NULL } json_type;

typedef struct {
    const char *s;
    size_t len, at;
    int depth;
    const char *error;   /* NULL while all is well */
    size_t error_at;     /* byte offset of the error */
} json_cursor;

void json_begin(json_cursor *c, const char *s, size_t len);

/* The type of the value at the cursor (after spaces), without reading it. */
json_type json_peek(json_cursor *c);

/* Members of an object: call json_object_begin, then json_object_next
 * until it returns 0; each 1 has left the member's key in key (NUL-ended,
 * cut to cap - 1 bytes with *key_len its full length) and the cursor at
 * its value, which the caller must read or skip. */
int json_object_begin(json_cursor *c);
int json_object_next(json_cursor *c, char *key, size_t cap, size_t *key_len);

/* Elements of an array, the same way. */
int json_array_begin(json_cursor *c);
int json_array_next(json_cursor *c);

/* A string into out (NUL-ended, UTF-8; *len its full length); 0 if the
 * value is not a string or does not fit in cap - 1 bytes. */
int json_string(json_cursor *c, char *out, size_t cap, size_t *len);
/* A number; 0 if the value is not one. */
int json_number(json_cursor *c, double *out);
/* A number written as digits alone (no sign, point or exponent) that
 * fits in 64 bits. */
int json_uint64(json_cursor *c, uint64_t *out);
int json_bool(json_cursor *c, int *out);
int json_skip(json_cursor *c);
/* Only spaces left after the value read. */
int json_end(json_cursor *c);

/* Sets the cursor's error (the first one stays) and returns 0. */
int json_fail(json_cursor *c, const char *why);

#endif
