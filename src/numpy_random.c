/* NumPy's legacy RandomState generator; see numpy_random.h. */
#include "numpy_random.h"

#include "scalar_loop.h"

#include <math.h>

enum { N = 624, M = 397 };
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU

void numpy_random_seed(numpy_random *r, uint32_t seed) {
    r->mt[0] = seed;
    for (int i = 1; i < N; i++) {
        r->mt[i] = 1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    }
    r->index = N; /* the first draw regenerates the whole block */
    r->has_gauss = 0;
    r->gauss = 0.0;
}

/* The next block of 624 words: mt[i] from mt[i], mt[i + 1] and mt[i + 397],
   indices modulo 624, written as three loops so that none needs a modulo,
   which dominated the draws' time. Only the longer loop is vectorised in
   WebAssembly: the shorter one's vector copy costs bytes and gains nothing. */
static uint32_t twist(uint32_t upper, uint32_t lower, uint32_t far) {
    uint32_t y = (upper & UPPER_MASK) | (lower & LOWER_MASK);
    return far ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
}

static void regenerate(numpy_random *r) {
    uint32_t *mt = r->mt;
    int i = 0;
    SCALAR_LOOP
    for (; i < N - M; i++) mt[i] = twist(mt[i], mt[i + 1], mt[i + M]);
    for (; i < N - 1; i++) mt[i] = twist(mt[i], mt[i + 1], mt[i + M - N]);
    mt[N - 1] = twist(mt[N - 1], mt[0], mt[M - 1]);
    r->index = 0;
}

/* Out of line: inlined twice into numpy_random_double it costs the module
   far more bytes than the call costs time. */
__attribute__((noinline)) uint32_t numpy_random_uint32(numpy_random *r) {
    if (r->index >= N) regenerate(r);
    uint32_t y = r->mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

double numpy_random_double(numpy_random *r) {
    /* 27 high bits of one draw and 26 of the next make a 53-bit mantissa. */
    uint32_t a = numpy_random_uint32(r) >> 5;
    uint32_t b = numpy_random_uint32(r) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

double numpy_random_randn(numpy_random *r) {
    if (r->has_gauss) {
        r->has_gauss = 0;
        return r->gauss;
    }
    double x1, x2, r2;
    do { /* a point uniform in the unit disc, origin excluded */
        x1 = 2.0 * numpy_random_double(r) - 1.0;
        x2 = 2.0 * numpy_random_double(r) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    r->gauss = f * x1; /* NumPy returns the x2 half first and caches x1's */
    r->has_gauss = 1;
    return f * x2;
}

void numpy_random_fill_randn(numpy_random *r, double *out, int n) {
    for (int i = 0; i < n; i++) out[i] = numpy_random_randn(r);
}

void numpy_random_skip_randn(numpy_random *r, int n) {
    for (int i = 0; i < n; i++) (void)numpy_random_randn(r);
}
