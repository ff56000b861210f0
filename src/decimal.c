/* Exact decimal conversions of doubles, and the printf subset built on them.
 *
 * A finite double is M x 2^e with integers M < 2^53 and -1074 <= e <= 971,
 * so its decimal expansion is finite: M x 2^e, or M x 5^-e / 10^-e when
 * e < 0, at most 767 significant digits. Both directions hold such numbers
 * whole in a small bignum and decide every rounding on exact digits, which
 * is what glibc does; no floating-point step can blur a tie. The base is
 * 10^9, so a limb is nine decimal digits and printing needs no division.
 */
#include "decimal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- a bignum in base 10^9 -------------------------------------------- */

enum { BASE = 1000000000, LIMBS = 160 };

/* 160 limbs are 1440 digits. decimal_g's numbers have at most 767;
 * decimal_parse's stay below 10^1142 (801 digits at 10^-324, over
 * 10^1124 x 2^54, the extreme). */
typedef struct {
    int n;                /* limbs in use; 0 for zero */
    uint32_t limb[LIMBS]; /* least significant first, each below BASE */
} big;

static const uint32_t pow10_small[10] = {1,      10,      100,      1000,      10000,
                                         100000, 1000000, 10000000, 100000000, 1000000000};

/* a = a * m + add */
static void big_mul_add(big *a, uint32_t m, uint32_t add) {
    uint64_t carry = add;
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->limb[i] * m + carry;
        a->limb[i] = (uint32_t)(t % BASE);
        carry = t / BASE;
    }
    for (; carry; carry /= BASE) a->limb[a->n++] = (uint32_t)(carry % BASE);
}

static void big_set(big *a, uint64_t x) {
    a->n = 0;
    for (; x; x /= BASE) a->limb[a->n++] = (uint32_t)(x % BASE);
}

/* a *= base^k, in the largest steps that fit a 32-bit multiplier */
static void big_mul_pow(big *a, uint32_t base, int64_t k) {
    uint32_t step = base;
    int per = 1;
    while ((uint64_t)step * base <= UINT32_MAX) step *= base, per++;
    for (; k >= per; k -= per) big_mul_add(a, step, 0);
    uint32_t rest = 1;
    for (; k > 0; k--) rest *= base;
    if (rest > 1) big_mul_add(a, rest, 0);
}

static int big_cmp(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->limb[i] != b->limb[i]) return a->limb[i] < b->limb[i] ? -1 : 1;
    return 0;
}

/* a -= b, for a >= b */
static void big_sub(big *a, const big *b) {
    uint32_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        uint32_t t = (i < b->n ? b->limb[i] : 0) + borrow;
        borrow = a->limb[i] < t;
        a->limb[i] = borrow ? a->limb[i] + BASE - t : a->limb[i] - t;
    }
    while (a->n && !a->limb[a->n - 1]) a->n--;
}

/* floor(num / den) for a quotient below 2^32; num becomes the remainder.
 * The quotient is estimated from three leading limbs of each (to about
 * 1e-15, so within one of the truth) and then corrected exactly. */
static uint32_t big_divide(big *num, const big *den) {
    if (big_cmp(num, den) < 0) return 0;
    double lead[2]; /* a = lead x BASE^low, nearly */
    int low[2];
    for (int k = 0; k < 2; k++) {
        const big *a = k ? den : num;
        low[k] = a->n > 3 ? a->n - 3 : 0;
        lead[k] = 0;
        for (int i = a->n - 1; i >= low[k]; i--) lead[k] = lead[k] * BASE + a->limb[i];
    }
    double ratio = lead[0] / lead[1];
    for (int i = low[1]; i < low[0]; i++) ratio *= BASE;
    uint32_t q = ratio < 1 ? 1 : ratio > UINT32_MAX ? UINT32_MAX : (uint32_t)ratio;
    big product = *den;
    big_mul_add(&product, q, 0);
    while (big_cmp(&product, num) > 0) big_sub(&product, den), q--;
    big_sub(num, &product);
    while (big_cmp(num, den) >= 0) big_sub(num, den), q++;
    return q;
}

/* Decimal digit `pos` of a (0: the units), and whether any below it is not 0 */
static int big_digit(const big *a, int pos) { return (int)(a->limb[pos / 9] / pow10_small[pos % 9] % 10); }

static int big_nonzero_below(const big *a, int pos) {
    if (a->limb[pos / 9] % pow10_small[pos % 9]) return 1;
    for (int i = pos / 9 - 1; i >= 0; i--)
        if (a->limb[i]) return 1;
    return 0;
}

/* ---- double -> text ----------------------------------------------------- */

/* The first `precision` significant digits of |x| (finite, not 0) as
 * '0'..'9', rounded half to even on the exact value; returns the decimal
 * exponent of the first digit. */
static int round_digits(char *digits, double x, int precision) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    uint64_t m = bits & (((uint64_t)1 << 52) - 1);
    int e = biased ? biased - 1075 : -1074;
    if (biased) m |= (uint64_t)1 << 52;
    while (!(m & 1)) m >>= 1, e++; /* fewer factors of 5 to multiply in */

    /* |x| = n x 10^scale with n an integer */
    big n;
    int scale = 0;
    big_set(&n, m);
    if (e >= 0) big_mul_pow(&n, 2, e);
    else big_mul_pow(&n, 5, -e), scale = e;

    int top = 9 * (n.n - 1) - 1; /* position of the leading digit */
    for (uint32_t t = n.limb[n.n - 1]; t; t /= 10) top++;
    for (int i = 0; i < precision; i++) digits[i] = (char)('0' + (top - i >= 0 ? big_digit(&n, top - i) : 0));

    int cut = top - precision; /* the first digit dropped */
    if (cut >= 0) {
        int next = big_digit(&n, cut);
        int odd = (digits[precision - 1] - '0') & 1;
        if (next > 5 || (next == 5 && (odd || big_nonzero_below(&n, cut)))) {
            int i = precision - 1;
            for (; i >= 0 && digits[i] == '9'; i--) digits[i] = '0';
            if (i >= 0) digits[i]++;
            else digits[0] = '1', top++; /* 99.96 -> 100.0 */
        }
    }
    return top + scale;
}

int decimal_g(char out[DECIMAL_G_BYTES], double x, int precision) {
    char digits[DECIMAL_MAX_PRECISION];
    char *o = out;
    if (signbit(x)) *o++ = '-';
    if (!isfinite(x)) {
        memcpy(o, isnan(x) ? "nan" : "inf", 4);
        return (int)(o - out) + 3;
    }
    if (precision < 1) precision = 1;
    if (precision > DECIMAL_MAX_PRECISION) precision = DECIMAL_MAX_PRECISION;
    int exp10 = 0;
    if (x == 0) memset(digits, '0', (size_t)precision);
    else exp10 = round_digits(digits, x, precision);
    int kept = precision; /* %g drops trailing zeros */
    while (kept > 1 && digits[kept - 1] == '0') kept--;

    if (exp10 < -4 || exp10 >= precision) { /* d.ddde+XX */
        *o++ = digits[0];
        if (kept > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)kept - 1);
            o += kept - 1;
        }
        int a = exp10 < 0 ? -exp10 : exp10;
        *o++ = 'e';
        *o++ = exp10 < 0 ? '-' : '+';
        if (a >= 100) *o++ = (char)('0' + a / 100);
        *o++ = (char)('0' + a / 10 % 10);
        *o++ = (char)('0' + a % 10);
    } else if (exp10 >= 0) { /* ddd.ddd: the integer part is never cut */
        memcpy(o, digits, (size_t)exp10 + 1);
        o += exp10 + 1;
        if (kept > exp10 + 1) {
            *o++ = '.';
            memcpy(o, digits + exp10 + 1, (size_t)(kept - exp10 - 1));
            o += kept - exp10 - 1;
        }
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = exp10 + 1; i < 0; i++) *o++ = '0';
        memcpy(o, digits, (size_t)kept);
        o += kept;
    }
    *o = 0;
    return (int)(o - out);
}

/* ---- text -> double ----------------------------------------------------- */

/* Digits kept of a longer mantissa. A tie between two doubles has at most
 * 767 significant digits, so after 800 a nonzero tail only needs to be
 * known to exist: it is kept as one more digit 1. */
enum { KEEP = 800 };

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static double with_sign(double x, int negative) { return negative ? -x : x; }

double decimal_parse(const char *s, const char **end) {
    const char *p = s;
    int negative = *p == '-';
    if (*p == '+' || *p == '-') p++;

    /* the value is D x 10^exp10, D the integer of kept[0..n) */
    char kept[KEEP + 1];
    int n = 0, any = 0, tail = 0;
    int64_t exp10 = 0;
    for (; is_digit(*p); p++, any = 1) {
        if (n == 0 && *p == '0') continue;
        if (n < KEEP) kept[n++] = *p;
        else exp10++, tail |= *p != '0';
    }
    if (*p == '.') {
        for (p++; is_digit(*p); p++, any = 1) {
            if (n == 0 && *p == '0') exp10--;
            else if (n < KEEP) kept[n++] = *p, exp10--;
            else tail |= *p != '0';
        }
    }
    if (!any) {
        if (end) *end = s;
        return 0;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        int minus = *q == '-';
        if (*q == '+' || *q == '-') q++;
        if (is_digit(*q)) {
            int64_t x = 0;
            for (; is_digit(*q); q++)
                if (x < 1000000000000000) x = 10 * x + (*q - '0'); /* far past any double */
            exp10 += minus ? -x : x;
            p = q;
        }
    }
    if (end) *end = p;
    if (tail) kept[n++] = '1', exp10--;
    else
        while (n > 0 && kept[n - 1] == '0') n--, exp10++; /* 0.50000 is 5 x 10^-1 */
    if (n == 0) return with_sign(0, negative);

    /* 10^lead <= value < 10^(lead + 1); the smallest double is 4.9e-324 */
    int64_t lead = exp10 + n - 1;
    if (lead >= 309) return with_sign(HUGE_VAL, negative);
    if (lead < -324) return with_sign(0, negative);

    /* Clinger's fast path: D and 10^|exp10| are exact doubles, so one
     * correctly rounded multiplication or division gives the answer */
    uint64_t d = 0;
    for (int i = 0; i < n && i < 19; i++) d = 10 * d + (uint64_t)(kept[i] - '0');
    if (n <= 19 && d <= (uint64_t)1 << 53 && exp10 >= -22 && exp10 <= 22) {
        double p10 = 1;
        for (int i = 0; i < (exp10 < 0 ? -exp10 : exp10); i++) p10 *= 10;
        return with_sign(exp10 < 0 ? (double)d / p10 : (double)d * p10, negative);
    }

    /* value = num / den exactly */
    big num, den;
    big_set(&num, 0);
    for (int i = 0; i < n;) {
        uint32_t chunk = 0, scale = 1;
        for (int k = 0; k < 9 && i < n; k++, i++) chunk = 10 * chunk + (uint32_t)(kept[i] - '0'), scale *= 10;
        big_mul_add(&num, scale, chunk);
    }
    big_set(&den, 1);
    if (exp10 >= 0) big_mul_pow(&num, 10, exp10);
    else big_mul_pow(&den, 10, -exp10);

    /* Scale by 2^shift so that 2^53 <= num / den < 2^54, starting below
     * (value < 10^(lead + 1)) and doubling up. */
    int shift = 51 - (int)floor((double)(lead + 1) * 3.321928094887362);
    if (shift > 0) big_mul_pow(&num, 2, shift);
    else big_mul_pow(&den, 2, -shift);
    big high = den, top; /* den x 2^27, den x 2^53 */
    big_mul_pow(&high, 2, 27);
    top = high;
    big_mul_pow(&top, 2, 26);
    while (big_cmp(&num, &top) < 0) big_mul_add(&num, 2, 0), shift++;

    /* q = floor(num / den), 54 bits, in two halves of 27 */
    uint64_t q = (uint64_t)big_divide(&num, &high) << 27;
    q |= big_divide(&num, &den);
    int inexact = num.n != 0;

    /* Round q x 2^-shift to the 53 bits of a double, or fewer below 2^-1022:
     * m x 2^e with e >= -1074 */
    int drop = shift - 1074 > 1 ? shift - 1074 : 1;
    if (drop > 54) return with_sign(0, negative); /* below 2^-1075: half the smallest */
    uint64_t m = q >> drop, rest = q & (((uint64_t)1 << drop) - 1), half = (uint64_t)1 << (drop - 1);
    if (rest > half || (rest == half && (inexact || (m & 1)))) m++;
    int e = drop - shift;
    if (m >> 53) m >>= 1, e++;
    uint64_t bits = m; /* subnormal: biased exponent 0, e == -1074 */
    if (m >> 52) {
        if (e + 1075 >= 2047) return with_sign(HUGE_VAL, negative);
        bits = (uint64_t)(e + 1075) << 52 | (m & (((uint64_t)1 << 52) - 1));
    }
    double x;
    memcpy(&x, &bits, sizeof x);
    return with_sign(x, negative);
}

/* ---- the printf subset -------------------------------------------------- */

/* out[0..size-1) receives what fits; *len counts everything, as vsnprintf */
static void emit(char *out, size_t size, size_t *len, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++, (*len)++)
        if (*len + 1 < size) out[*len] = s[i];
}

static void emit_fill(char *out, size_t size, size_t *len, char c, size_t n) {
    for (size_t i = 0; i < n; i++) emit(out, size, len, &c, 1);
}

/* x in base 10 or 16 (lower case) */
static size_t unsigned_text(char *buf, uint64_t x, unsigned radix) {
    char reversed[24];
    size_t n = 0;
    do reversed[n++] = "0123456789abcdef"[x % radix];
    while (x /= radix);
    for (size_t i = 0; i < n; i++) buf[i] = reversed[n - 1 - i];
    return n;
}

int decimal_vsnprintf(char *out, size_t size, const char *fmt, va_list ap) {
    size_t len = 0;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            emit(out, size, &len, f, 1);
            continue;
        }
        const char *spec = f++;
        int left = 0, zero = 0, precision = -1, is_size = 0;
        size_t width = 0;
        for (; *f == '-' || *f == '0'; f++) *f == '-' ? (left = 1) : (zero = 1);
        for (; is_digit(*f); f++) width = 10 * width + (size_t)(*f - '0');
        if (*f == '.')
            for (precision = 0, f++; is_digit(*f); f++) precision = 10 * precision + (*f - '0');
        if (*f == 'z') is_size = 1, f++;

        char buf[DECIMAL_G_BYTES];
        const char *text = buf;
        size_t n = 0;
        int number = 1; /* the 0 flag pads it after the sign ("inf" is not one) */
        switch (*f) {
        case 'd': {
            int x = va_arg(ap, int);
            if (x < 0) buf[n++] = '-';
            n += unsigned_text(buf + n, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, 10);
            break;
        }
        case 'u':
        case 'x': {
            uint64_t x = is_size ? va_arg(ap, size_t) : va_arg(ap, unsigned);
            n = unsigned_text(buf, x, *f == 'x' ? 16 : 10);
            break;
        }
        case 'g': {
            double x = va_arg(ap, double);
            n = (size_t)decimal_g(buf, x, precision < 0 ? 6 : precision);
            number = isfinite(x);
            break;
        }
        case 's':
            text = va_arg(ap, const char *);
            while (text[n] && (precision < 0 || n < (size_t)precision)) n++;
            number = 0;
            break;
        case '%': text = "%", n = 1, number = 0; break;
        default: /* outside the subset: shows up in the output as written */
            if (!*f) f--;
            text = spec, n = (size_t)(f - spec + 1);
            width = 0;
        }

        size_t pad = width > n ? width - n : 0;
        if (left) {
            emit(out, size, &len, text, n);
            emit_fill(out, size, &len, ' ', pad);
        } else if (zero && number) { /* -0012 */
            size_t sign = text[0] == '-';
            emit(out, size, &len, text, sign);
            emit_fill(out, size, &len, '0', pad);
            emit(out, size, &len, text + sign, n - sign);
        } else {
            emit_fill(out, size, &len, ' ', pad);
            emit(out, size, &len, text, n);
        }
    }
    if (size) out[len < size ? len : size - 1] = 0;
    return (int)len;
}

int decimal_snprintf(char *out, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = decimal_vsnprintf(out, size, fmt, ap);
    va_end(ap);
    return n;
}
