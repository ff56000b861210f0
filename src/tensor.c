/* Tensors' element types and the linear layer; see tensor.h. The
 * products are attention.c's; the elementwise kernels (biases, LayerNorm's
 * gain and shift, an added table) are here. */
#include "tensor.h"

#include "attention.h"

static void add_scaled_f64(double *out, const double *base, double s, const void *t, int count) {
    add_scaled(out, base, s, t, count);
}

static void add_scaled_f32(double *out, const double *base, double s, const void *t, int count) {
    const float *f = t;
    for (int i = 0; i < count; i++) out[i] = base[i] + s * (double)f[i];
}

static void multiply_f64(double *out, const void *t, int count) {
    const double *f = t;
    for (int i = 0; i < count; i++) out[i] *= f[i];
}

static void multiply_f32(double *out, const void *t, int count) {
    const float *f = t;
    for (int i = 0; i < count; i++) out[i] *= (double)f[i];
}

const element_type elements_f64 = {product_f64, add_scaled_f64, multiply_f64};
const element_type elements_f32 = {product_f32, add_scaled_f32, multiply_f32};

void linear(double *out, const double *x, tensor w, tensor b, int n, int k, int m) {
    w.type->product(out, x, w.data, w.ld, n, k, m);
    if (b.data)
        for (int i = 0; i < n; i++) add_vector(out + (long)i * m, b, m);
}

/* (1 * t is t exactly, so out + 1 * t is out + t) */
void add_vector(double *out, tensor t, int count) {
    if (t.data) t.type->add_scaled(out, out, 1.0, t.data, count); /* absent: adding 0 would turn -0 into +0 */
}
