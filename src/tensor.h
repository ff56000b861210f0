/* tensor.h - weights as a model keeps them, and the linear layer over
 * them (tensor.c). Internal to the core. */
#ifndef POSLAB_TENSOR_H
#define POSLAB_TENSOR_H

/* An element type of weights, as the kernels that read it: a model keeps
 * its weights as doubles (the drawn models) or floats (checkpoints, as
 * loaded, so that nothing is copied), and every kernel computes in double
 * from them. A build links only the kernels of the types it makes tensors
 * of (the main WebAssembly module has no floats). */
typedef struct {
    /* out (n x m) = x (n x k) @ w (k x m, rows ldw apart), x and out
       row-major: each out[i][j] sums p = 0..k-1 in order from 0. */
    void (*product)(double *out, const double *x, const void *w, long ldw, int n, int k, int m);
    /* out (count) = base + s * t, elementwise (out may be base). */
    void (*add_scaled)(double *out, const double *base, double s, const void *t, int count);
    /* out (count) *= t, elementwise. */
    void (*multiply)(double *out, const void *t, int count);
} element_type;
extern const element_type elements_f64, elements_f32;

/* A tensor of weights where its model keeps them. A matrix's rows are ld
 * elements apart, so a column slice of a wider matrix (q, k or v of GPT-2's
 * fused c_attn) is the same data moved on by its first column. data NULL:
 * absent (no bias, no LayerNorm gain or shift). */
typedef struct {
    const void *data;
    const element_type *type;
    int ld;
} tensor;

static inline tensor tensor_f64(const double *data, int ld) { return (tensor){data, &elements_f64, ld}; }
static inline tensor tensor_f32(const float *data, int ld) { return (tensor){data, &elements_f32, ld}; }
/* columns first.. of t (or, for a vector, elements first..) */
static inline tensor tensor_from(tensor t, long first) {
    if (t.data) t.data = (const char *)t.data + first * (t.type == &elements_f32 ? sizeof(float) : sizeof(double));
    return t;
}

/* out (n x m) = x (n x k) @ w (k x m) + b (m), b absent or a vector: each
 * out[i][j] sums p = 0..k-1 in order from 0 and then adds b[j], as NumPy's
 * `x @ W + b` (up to the order BLAS sums in). */
void linear(double *out, const double *x, tensor w, tensor b, int n, int k, int m);
/* out (count) += t, elementwise; nothing when t is absent. */
void add_vector(double *out, tensor t, int count);

#endif
