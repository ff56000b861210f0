/* json_min.h - a small JSON reader for the tests: enough to load the NumPy
 * fixtures and to read back what the core prints. Not part of the core. */
#ifndef POSLAB_JSON_MIN_H
#define POSLAB_JSON_MIN_H

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jvalue {
    jtype type;
    double number;        /* J_NUMBER; J_BOOL as 0/1 */
    char *string;         /* J_STRING */
    int count;            /* J_ARRAY, J_OBJECT */
    char **keys;          /* J_OBJECT */
    struct jvalue *items; /* J_ARRAY, J_OBJECT: count values */
} jvalue;

/* Parses text; returns 0 and fills *out, or -1 on malformed input. */
int json_parse(const char *text, jvalue *out);
void json_free(jvalue *v);
/* Member `key` of an object, or NULL. */
const jvalue *json_get(const jvalue *object, const char *key);
/* Reads a whole file; NULL on failure. The caller frees. */
char *read_file(const char *path);

#endif
