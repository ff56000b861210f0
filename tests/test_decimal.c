/* decimal.c against glibc: decimal_g against snprintf("%.*g") at every
 * precision, decimal_parse against strtod (bits and end), and
 * decimal_snprintf against snprintf on the core's own format strings.
 *
 * usage: test_decimal [COUNT]   (random cases of each kind; default 50000,
 *                               about 3 s; tens of millions pass as well)
 * Fixed seeds, so a failure repeats; each mismatch prints the input, ours
 * and glibc's, and the run exits 1. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

static long checks, failures;

static uint64_t rng_state;
static uint64_t next_u64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int below(int n) { return (int)(next_u64() % (uint64_t)n); }

static double of_bits(uint64_t b) {
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
static uint64_t bits_of(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static void report(const char *what, const char *input, const char *ours, const char *glibc) {
    if (++failures <= 20) printf("not ok: %s of %s: ours %s, glibc %s\n", what, input, ours, glibc);
}

/* ---- double -> text ----------------------------------------------------- */

static void check_g(double x, int precision) {
    char ours[DECIMAL_G_BYTES], want[64];
    int n = decimal_g(ours, x, precision);
    int m = snprintf(want, sizeof want, "%.*g", precision, x);
    checks++;
    if (n != m || strcmp(ours, want)) {
        char input[64];
        snprintf(input, sizeof input, "%a at %%.%dg", x, precision);
        report("decimal_g", input, ours, want);
    }
}

/* The JSON writer's rule: 16 digits if they read back, else 17. */
static void check_json_rule(double x) {
    char ours[DECIMAL_G_BYTES], want[64];
    decimal_g(ours, x, 16);
    if (decimal_parse(ours, NULL) != x) decimal_g(ours, x, 17);
    snprintf(want, sizeof want, "%.16g", x);
    if (strtod(want, NULL) != x) snprintf(want, sizeof want, "%.17g", x);
    checks++;
    if (strcmp(ours, want)) {
        char input[64];
        snprintf(input, sizeof input, "%a (JSON rule)", x);
        report("decimal_g", input, ours, want);
    }
}

static void check_g_all(double x) {
    for (int p = 0; p <= DECIMAL_MAX_PRECISION; p++) check_g(x, p);
    check_json_rule(x);
}

static void test_format(long count) {
    static const double hard[] = {
        0.0, 1.0, 0.5, 2.5, 1.5, 0.25, 0.125, 1024.125, 1024.375, 9.5, 99.5, 999.5, 0.05, 0.15, 0.35,
        9.9999995, 9.999999, 99999.95, 999999.5, 9999995, 1e-5, 1e-4, 9.9999e-5, 9.99995e-5, 0.0001,
        0.00009999995, 99999.5, 999999, 1e6, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 123456789012345678.0,
        0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, M_PI, M_E, 5e-324, 1e-323, 2.2250738585072014e-308,
        2.2250738585072009e-308, DBL_MAX, DBL_MIN, DBL_EPSILON, 4503599627370496.5, 9007199254740993.0,
        12.536657700122994, 0.9416, 1e-300, 1e300, 1e-310, 65536, 4294967296.0, 0.000123456789,
        1e-8, 1e-9, 8.5, 0.45, 0.55, 7.0e-5, 1e100, 5e-5, 5e-6, 1.0000000000000002, 0.9999999999999999,
    };
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
        check_g_all(hard[i]);
        check_g_all(-hard[i]);
        check_g_all(nextafter(hard[i], 0));
        check_g_all(nextafter(hard[i], INFINITY));
    }
    check_g_all(INFINITY);
    check_g_all(-INFINITY);
    check_g_all(NAN);
    check_g_all(-NAN);
    for (int k = -1074; k <= 1023; k++) check_g_all(ldexp(1, k)); /* every power of 2 */
    for (int k = -323; k <= 308; k++) { /* powers of 10 and their neighbours, where %g switches form */
        char s[16];
        snprintf(s, sizeof s, "1e%d", k);
        double x = strtod(s, NULL);
        check_g_all(x);
        check_g_all(nextafter(x, 0));
        check_g_all(nextafter(x, INFINITY));
    }
    for (int p = 1; p <= DECIMAL_MAX_PRECISION; p++) { /* 9.99..95 at precision p rounds up to 10 */
        for (int k = -8; k <= 20; k++) {
            char s[64];
            snprintf(s, sizeof s, "%.*f5e%d", p - 1, 10 - pow(10, 1 - p), k);
            double x = strtod(s, NULL);
            check_g(x, p);
            check_g(nextafter(x, 0), p);
            check_g(nextafter(x, INFINITY), p);
        }
    }

    rng_state = 1;
    for (long i = 0; i < count; i++) {
        /* any bit pattern: every exponent, subnormals, zeros, inf and NaN */
        double x = of_bits(next_u64());
        check_g(x, 16);
        check_g(x, 17);
        check_g(x, 6);
        check_g(x, 4);
        check_g(x, 1 + below(DECIMAL_MAX_PRECISION));
        check_json_rule(x);
        /* a short binary fraction: exact ties at many precisions */
        double y = ldexp((double)(next_u64() >> below(64)), below(80) - 60);
        check_g(y, 1 + below(DECIMAL_MAX_PRECISION));
        check_g(y, 6);
        /* a few ulps from a short decimal: near ties */
        char s[48];
        snprintf(s, sizeof s, "%de%d", below(100000), below(640) - 330);
        double z = strtod(s, NULL);
        for (int k = below(4); k > 0; k--) z = nextafter(z, below(2) ? 0 : INFINITY);
        check_g(z, 1 + below(DECIMAL_MAX_PRECISION));
        check_json_rule(z);
    }
}

/* ---- text -> double ----------------------------------------------------- */

static void check_parse(const char *s) {
    const char *end;
    char *want_end;
    double x = decimal_parse(s, &end);
    double want = strtod(s, &want_end);
    checks++;
    if (bits_of(x) != bits_of(want) || end != want_end) {
        char ours[64], glibc[64];
        snprintf(ours, sizeof ours, "%a (end +%d)", x, (int)(end - s));
        snprintf(glibc, sizeof glibc, "%a (end +%d)", want, (int)(want_end - s));
        report("decimal_parse", strlen(s) < 200 ? s : "(a long string)", ours, glibc);
    }
}

/* A random string of decimal_parse's grammar. */
static void random_decimal(char *s, int long_mantissa) {
    char *o = s;
    if (below(3) == 0) *o++ = below(2) ? '-' : '+';
    int digits = long_mantissa ? 1 + below(900) : below(4) ? 1 + below(20) : 20 + below(20);
    int point = below(3) ? below(digits + 1) : -1;
    int zeros = below(4) == 0 ? below(30) : 0; /* leading zeros */
    for (int i = 0; i < zeros; i++) *o++ = '0';
    for (int i = 0; i < digits; i++) {
        if (i == point) *o++ = '.';
        /* runs of 0 and 9 make near-ties */
        *o++ = below(4) == 0 ? (below(2) ? '0' : '9') : (char)('0' + below(10));
    }
    if (point == digits) *o++ = '.';
    if (below(4)) {
        *o++ = below(2) ? 'e' : 'E';
        int r = below(20);
        int e = r == 0 ? below(100000) - 50000 : r < 4 ? below(60) - 340 + (below(2) ? 0 : 640) : below(700) - 350;
        o += sprintf(o, below(5) ? "%d" : "%+d", e);
    }
    *o = 0;
}

static void test_parse(long count) {
    static const char *const hard[] = {
        "0", "-0", "+0", "0.0", "-0.0e5", "0e999999999999", "1", "-1", ".5", "5.", "-.5e1", "+5.E-1",
        "9007199254740993", "9007199254740992.5", "9007199254740993.0000000000000001", "1e23", "8.5e22",
        "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
        "2.225073858507201136057409796709131975934819546351645648e-308", "4.9406564584124654e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324",
        "2.470328229206232720882538180e-324", "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
        "1e-324", "3e-324", "5e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308", "179769313486231580793728971405301e276", "1e309", "-1e309", "1e99999999999999999999",
        "1e-99999999999999999999", "123456789012345678", "1024.125", "1e-300", "0.1", "0.3",
        "1e6", "1000000.0000000001", "100000000000000000000000000000000000000000e-30", "1e",
        "1e+", "1e-", "1ex", ".", "-", "+", "", "-.", ".e1", "e1", "1 ", "1.5x",
        "00000000000000000000000000000000001", "0.000000000000000000000000000000000000000001e42",
    };
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) check_parse(hard[i]);
    /* what strtod reads beyond the grammar is no number, or stops early */
    static const struct { const char *s; int end; } beyond[] = {
        {" 1", 0}, {"inf", 0}, {"-nan", 0}, {"0x10", 1}, {"1.5p3", 3}, {"\t2", 0}};
    for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
        const char *end;
        double x = decimal_parse(beyond[i].s, &end);
        char want[64];
        snprintf(want, sizeof want, "%.*s", beyond[i].end, beyond[i].s);
        checks++;
        if (end - beyond[i].s != beyond[i].end || bits_of(x) != bits_of(strtod(want, NULL)))
            report("decimal_parse", beyond[i].s, "another value or end", "(the grammar's prefix)");
    }

    static char s[4096];
    rng_state = 2;
    for (long i = 0; i < count; i++) {
        random_decimal(s, i % 100 == 0);
        check_parse(s);
        /* printf's own output of a random double */
        double x = of_bits(next_u64());
        if (isfinite(x)) {
            snprintf(s, sizeof s, "%.*g", 1 + below(DECIMAL_MAX_PRECISION), x);
            check_parse(s);
        }
        /* exactly halfway between two doubles, and just off it either way:
         * a long double holds the midpoint exactly and %Le prints it exactly
         * (up to 767 digits: a quarter as many cases, for time) */
        if (i % 4) continue;
        double lo = fabs(of_bits(next_u64()));
        if (!(lo < DBL_MAX)) continue;
        if (i % 8) lo = ldexp(lo, -1074 - ilogb(lo) + below(60)); /* often subnormal */
        long double mid = ((long double)lo + (long double)nextafter(lo, INFINITY)) / 2;
        snprintf(s, sizeof s, "%.*Le", 780, mid);
        char *e = strchr(s, 'e');
        check_parse(s);
        int cut = 1 + below(40);                    /* fewer digits: below the tie */
        memmove(s + cut, e, strlen(e) + 1);
        check_parse(s);
        snprintf(s, sizeof s, "%.*Le", 780, mid);   /* one more digit: above it */
        memmove(e + 1, e, strlen(e) + 1);
        *e = '1';
        check_parse(s);
    }
}

/* ---- the printf subset -------------------------------------------------- */

static void check_format(size_t size, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check_format(size_t size, const char *fmt, ...) {
    char ours[512], want[512];
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    memset(ours, 'X', sizeof ours);
    memset(want, 'X', sizeof want);
    int n = decimal_vsnprintf(size ? ours : NULL, size, fmt, ap);
    int m = vsnprintf(size ? want : NULL, size, fmt, aq);
    va_end(aq);
    va_end(ap);
    checks++;
    if (n != m || memcmp(ours, want, sizeof ours)) {
        char input[128];
        snprintf(input, sizeof input, "\"%s\" into %zu bytes", fmt, size);
        report("decimal_snprintf", input, n == m ? ours : "(another length)", want);
    }
}

static void test_printf(long count) {
    static const double values[] = {0.5, -0.5, 1e-5, 12.536657700122994, 1024.125, 1e6, 0, -0.0,
                                    INFINITY, -INFINITY, NAN, -NAN, 5e-324, 1e300, 123456789012345678.0};
    static const int ints[] = {0, 1, -1, 7, 42, 512, -513, 2147483647, -2147483647 - 1};
    for (size_t size = 0; size < 80; size += 1 + size / 8) {
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            double x = values[i];
            check_format(size, "scale: %g is out of range; allowed: a finite number from 0 to 1e6", x);
            check_format(size, "%s positions at scale %.6g", "sinusoidal", x);
            check_format(size, ", %s, rtol %g, atol %g\n\n", "no mask", x, -x);
            check_format(size, "%-12.4g %11.4g%s", x, x / 3, " *");
            check_format(size, " %11.4g%s", x, "  ");
            check_format(size, "threshold: range %g to %g with tolerance %g; allowed", x, x * 7, 1 / x);
            check_format(size, "max|diff| %.4g   cosine distance %.4g\n", x, x);
            check_format(size, "%08g|%-8g|%08.3g", x, x, x);
        }
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            int k = ints[i];
            check_format(size, ",\"dim\":%d,\"seed\":%u,\"scheme\":\"%s\",\"scale\":", k, (unsigned)k, "rope");
            check_format(size, "%s: word %d is not valid UTF-8 (byte 0x%02x at byte %zu of the text)", "a", k,
                         (unsigned)k & 0xff, (size_t)k * 3);
            check_format(size, "\\u%04x|\\x%02x|%x|%zu|%5d|%-5d|%05d|%%", (unsigned)k & 0x7f, (unsigned)k & 0xff,
                         (unsigned)k, (size_t)(unsigned)k, k, k, k);
            check_format(size, "%-12s %11s  |%.3s|%5s|%-5s|", "scale", "mean", "abcdef", "w01", "wörd");
        }
    }
    rng_state = 3;
    for (long i = 0; i < count / 20; i++) { /* random widths and precisions (no '*' in the subset) */
        char fmt[64];
        int w = below(30), p = below(18);
        double x = of_bits(next_u64());
        snprintf(fmt, sizeof fmt, "%%%d.%dg|%%-%d.%dg|%%.%dg|%%0%dg", w, p, w, p, p, w);
        check_format(100, fmt, x, x, x, x);
        snprintf(fmt, sizeof fmt, "%%%dd|%%-%du|%%0%dx|%%%ds", w, w, w, w);
        check_format(100, fmt, (int)next_u64(), (unsigned)next_u64(), (unsigned)next_u64(), "word");
    }
}

int main(int argc, char **argv) {
    long count = argc > 1 ? atol(argv[1]) : 50000;
    test_format(count);
    test_parse(count);
    test_printf(count);
    printf("%s: %ld checks against glibc (%ld random cases of each kind), %ld failures\n",
           failures ? "not ok" : "ok", checks, count, failures);
    return failures != 0;
}
