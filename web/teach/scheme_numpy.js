// scheme_numpy.js - the teaching table's NumPy lines (schemes.js): what
// Copy as NumPy writes for each scheme. Apart from schemes.js so that
// they load with Copy as NumPy, not with the page at open (whose budget is
// tests/sizes.json's); tests/node/schemes.test.mjs fails when a core scheme
// has no entry here either.
//
// An entry:
//   imports   before `import numpy as np`
//   define    functions defined up front
//   settings  after the settings and positions (pa, pb)
//   input     an absolute scheme's: add the signal once X1 and X2 exist;
//             another's: a comment saying where its work is done
//   inside    a relative scheme's: what it does inside attention, as a
//             comment's words
//   head      a relative scheme's lines around one head's scores:
//             ({q, k, h}) => {before, after} (h: the head's index, as
//             Python text); the scores are `scores`, the positions `p`
export const SCHEME_NUMPY = {
  none: {
    input: ['# no positional information: X1 and X2 hold the same rows in another order'],
  },
  random: {
    input: [
      "# the module's stand-in positional signal: one random row per position",
      'table = np.random.randn(max(offset_a + len(X1), offset_b + len(X2)), d)',
      'X1 = X1 + scale * table[pa]',
      'X2 = X2 + scale * table[pb]',
    ],
  },
  sinusoidal: {
    define: [
      'def sinusoidal(p, d):  # Vaswani et al. 2017, section 3.5, at positions p',
      '    j = np.arange(d)[None, :]',
      '    angle = p[:, None] / np.power(10000.0, 2 * (j // 2) / d)',
      '    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))',
      '',
    ],
    input: [
      '# sinusoidal encoding times the scale',
      'X1 = X1 + scale * sinusoidal(pa, d)',
      'X2 = X2 + scale * sinusoidal(pb, d)',
    ],
  },
  rope: {
    define: [
      'def rope(M, p):  # Su et al. 2021: rotate column pairs by the angle of position p',
      '    M = M.copy()',
      '    w = M.shape[1]',
      '    for i in range(w // 2):',
      '        theta = (scale * p) * np.power(10000.0, -2 * i / w)',
      '        a, b = M[:, 2 * i].copy(), M[:, 2 * i + 1].copy()',
      '        M[:, 2 * i] = a * np.cos(theta) - b * np.sin(theta)',
      '        M[:, 2 * i + 1] = a * np.sin(theta) + b * np.cos(theta)',
      '    return M',
      '',
    ],
    inside: 'rotates Q and K',
    head: ({ q, k }) => ({ before: [`${q}, ${k} = rope(${q}, p), rope(${k}, p)`], after: [] }),
  },
  alibi: {
    imports: ['import math'],
    define: [
      'def get_slopes(n):  # Press et al. 2022, their reference code: one slope per head',
      '    def get_slopes_power_of_2(n):',
      '        start = 2 ** (-2 ** -(math.log2(n) - 3))',
      '        ratio = start',
      '        return [start * ratio ** i for i in range(n)]',
      '    if math.log2(n).is_integer():',
      '        return get_slopes_power_of_2(n)',
      '    closest_power_of_2 = 2 ** math.floor(math.log2(n))',
      '    return (get_slopes_power_of_2(closest_power_of_2)',
      '            + get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2])',
      '',
    ],
    settings: ['slopes = get_slopes(heads)'],
    inside: 'lowers the scores by distance',
    head: ({ h }) => ({
      before: [],
      after: [`scores = scores - scale * slopes[${h}] * np.abs(p[:, None] - p[None, :])  # further apart, lower score`],
  }),
  },
};
