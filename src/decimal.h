/* decimal.h - numbers to decimal text and back, as glibc's printf and
 * strtod write and read them, without the C library's printf or strtod.
 *
 * In WebAssembly, musl's strtod and printf("%g") bring 128-bit long double
 * arithmetic in software: over a third of the module. These conversions are
 * exact instead (decimal.c says how), so the native and the WebAssembly
 * builds print the same bytes from one source, and tests/test_decimal.c
 * checks them against glibc bit for bit. Internal to the core: not part of
 * poslab.h. */
#ifndef POSLAB_DECIMAL_H
#define POSLAB_DECIMAL_H

#include <stdarg.h>
#include <stddef.h>

enum {
    DECIMAL_MAX_PRECISION = 17, /* significant digits: enough for any double */
    DECIMAL_G_BYTES = 32        /* room for any decimal_g text, NUL included */
};

/* Writes x as printf's "%.{precision}g" does (precision 0 counts as 1, at
 * most DECIMAL_MAX_PRECISION), including "inf", "-nan" and "-0"; returns
 * the length. Rounds the exact binary value half to even, as glibc does. */
int decimal_g(char out[DECIMAL_G_BYTES], double x, int precision);

/* Reads [+-]digits[.digits][(e|E)[+-]digits], with digits on at least one
 * side of the point, as strtod does: correctly rounded (half to even),
 * subnormals included, +-HUGE_VAL past the largest double. *end (if end is
 * not NULL) gets the first byte after the number, or s if there is none. */
double decimal_parse(const char *s, const char **end);

/* vsnprintf for the conversions the core's messages and reports use:
 * %d, %u, %x, %zu, %s, %g and %%, with the flags - and 0, a field width and
 * a precision (%g's significant digits, up to 17, or %s's bytes); the same
 * output, truncation and return value as vsnprintf. Anything else (such as
 * a '*' width or %f) is copied to the output as written. */
int decimal_vsnprintf(char *out, size_t size, const char *fmt, va_list ap);
int decimal_snprintf(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
