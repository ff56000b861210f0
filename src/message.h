/* message.h - the one-line error messages of the public calls. */
#ifndef POSLAB_MESSAGE_H
#define POSLAB_MESSAGE_H

#include <stddef.h>

#include "poslab.h"

/* Writes the printf-formatted line (decimal_vsnprintf's conversions) to
 * message (if any) and returns status, so that a check reads
 * `return fail(message, size, POSLAB_ERR_INPUT, ...)`. */
poslab_status fail(char *message, size_t size, poslab_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
