/* positions.h - the position schemes as one table (docs/experiment.md,
 * "Positional schemes"): how each scheme enters a model and its math.
 * Models ask the table how a scheme enters and never compare the scheme
 * itself, so a new scheme is a row here and its math in positions.c.
 * Internal to the core. */
#ifndef POSLAB_POSITIONS_H
#define POSLAB_POSITIONS_H

#include "poslab.h"

typedef enum {
    POSITIONS_NOT,     /* no positional information: nothing depends on the scale */
    POSITIONS_ADDED,   /* s P added to the word vectors before the first block */
    POSITIONS_ROTATED, /* queries and keys rotated by angles s * position * frequency */
    POSITIONS_BIAS,    /* s times a bias added to each head's scores */
} positions_entry;

typedef enum {       /* where an added scheme's table P comes from */
    TABLE_NONE,      /* no table */
    TABLE_DRAWN,     /* randn rows drawn after the weights (the drawn models) */
    TABLE_FORMULA,   /* the row's `formula` */
    TABLE_MODEL,     /* the model's own (a checkpoint's wpe) */
} positions_table;

typedef struct {
    positions_entry enters;
    positions_table table;
    /* TABLE_FORMULA: pe (n x d) = rows first .. first+n-1 of the table. */
    void (*formula)(double *pe, int first, int n, int d);
    /* POSITIONS_ROTATED: the angles for rows at positions first ..
       first+n-1 of a head `width` columns wide (n x width/2 each, shared by
       every head and by Q and K), and one head turned in place by them:
       x at the head's first column, rows ld apart. */
    void (*angles)(double *cosines, double *sines, int n, int width, int first, double s);
    void (*rotate)(double *x, int n, int width, int ld, const double *cosines, const double *sines);
    /* POSITIONS_BIAS: head `head`'s scores (n x n) += s times its bias,
       on every entry the mask leaves. */
    void (*bias)(double *scores, int n, double s, int head, int heads, int causal);
    /* The degree in s of a head's scores where they are a polynomial in s
       whose coefficients a sweep can form once (lab.h's s0, s1, s2): 2 for
       an added table, 1 for a bias; 0 where they are not one. */
    int score_degree;
} position_scheme;

/* The row of a scheme. */
const position_scheme *position_scheme_of(poslab_scheme scheme);

/* The kernels the rows point at, each reading like its formula. */

/* pe (n x d): rows first .. first+n-1 of the sinusoidal encoding,
 * PE[p, j] = sin or cos of p / 10000^(2 floor(j/2) / d). */
void sinusoidal_encoding(double *pe, int first, int n, int d);
/* RoPE's angles: row r, pair i gets theta = s * position * 10000^(-2i/width). */
void rope_angles(double *cosines, double *sines, int n, int width, int first, double s);
/* RoPE's rotation: column pair (2i, 2i+1) of row r turns by theta[r][i];
 * an odd last column stays. */
void rope_rotate(double *x, int n, int width, int ld, const double *cosines, const double *sines);
/* ALiBi: scores[i][j] -= s * m_head * |i - j| for every entry the mask
 * leaves (two words' distance does not depend on where the sentence
 * starts); m_head is poslab_alibi_slope's. */
void alibi_bias(double *scores, int n, double s, int head, int heads, int causal);

#endif
