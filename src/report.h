/* report.h - the result as the CLI's JSON and as text. */
#ifndef POSLAB_REPORT_H
#define POSLAB_REPORT_H

#include <stddef.h>

#include "poslab.h"

/* A growable string; after an allocation failure it stays failed. A
 * `fixed` one writes into cap bytes it does not own and fails instead of
 * growing. */
typedef struct {
    char *data;
    size_t len, cap;
    int failed;
    int fixed;
} strbuf;

void strbuf_free(strbuf *b);

/* Both return b->data, or NULL if memory ran out. */
const char *report_json(strbuf *b, const poslab_result *r, int flags); /* POSLAB_JSON_* */
const char *report_text(strbuf *b, const poslab_result *r);

#endif
