/* exp_wasm.h - e^x for the softmax in WebAssembly: musl's exp(), the one
 * the module links, with its common case written out where it is used.
 *
 * A sweep at 16 words, d 64, 8 heads makes half a million calls to exp();
 * in WebAssembly each call paid for itself as much again in the call, its
 * frame and the caller's registers saved around it. This is the same
 * computation, operation for operation, as musl's exp.c (Arm's
 * optimized-routines exp, MIT licence, Copyright (c) 2018 Arm Limited) on
 * the same table (__exp_data, musl's own, linked once), so it returns
 * exactly exp(x): WebAssembly has no fused multiply-add for the compiler to
 * contract into, and every step is written as musl writes it. Inputs
 * outside its common case (|x| < 2^-54, |x| >= 512, not finite) go to
 * exp() itself. tests/node/kernel_bits.test.mjs holds both cores to the
 * bits that exp() gave.
 *
 * Native builds call the C library's exp() (glibc's may use FMA and so
 * round differently): only __wasm__ builds use this. */
#ifndef POSLAB_EXP_WASM_H
#define POSLAB_EXP_WASM_H

#include <math.h>
#include <stdint.h>

#if defined(__wasm__)

/* musl's src/math/exp_data.h (EXP_TABLE_BITS 7, EXP_POLY_ORDER 5) */
extern const struct exp_data {
    double invln2N;
    double shift;
    double negln2hiN;
    double negln2loN;
    double poly[4];
    double exp2_shift;
    double exp2_poly[5];
    uint64_t tab[2 * (1 << 7)];
} __exp_data;

static inline uint64_t exp_bits(double x) {
    union { double f; uint64_t i; } u = {x};
    return u.i;
}

static inline double exp_double(uint64_t i) {
    union { uint64_t i; double f; } u = {i};
    return u.f;
}

static inline double softmax_exp(double x) {
    const uint32_t abstop = (uint32_t)(exp_bits(x) >> 52) & 0x7ff;
    /* top12(0x1p-54) = 0x3c9, top12(512) = 0x408: the common case */
    if (abstop - 0x3c9u >= 0x408u - 0x3c9u) return exp(x);
    const double z = __exp_data.invln2N * x;
    double kd = z + __exp_data.shift;
    const uint64_t ki = exp_bits(kd);
    kd -= __exp_data.shift;
    const double r = x + kd * __exp_data.negln2hiN + kd * __exp_data.negln2loN;
    const uint64_t idx = 2 * (ki % (1 << 7)), top = ki << (52 - 7);
    const double tail = exp_double(__exp_data.tab[idx]);
    const uint64_t sbits = __exp_data.tab[idx + 1] + top;
    const double r2 = r * r;
    const double tmp = tail + r + r2 * (__exp_data.poly[0] + r * __exp_data.poly[1]) +
                       r2 * r2 * (__exp_data.poly[2] + r * __exp_data.poly[3]);
    const double scale = exp_double(sbits);
    return scale + scale * tmp;
}

#else
#define softmax_exp exp
#endif

#endif
