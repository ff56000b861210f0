// schemes.js - the page's one teaching table: one entry per scheme of the
// core's table (lab.options.schemes, which also holds each default
// magnitude), saying what the page calls it, how it describes it in a line,
// and the NumPy lines Copy as NumPy writes for it. The scheme choices, the
// labels everywhere on the page and the NumPy script read it from here;
// tests/node/schemes.test.mjs fails when a core scheme has no entry.
//
// An entry:
//   label     the scheme's name on the page
//   hint      one line under its choice
//   kind      'absolute' (added to the word vectors: says where a word
//             stands) or 'relative' (works inside attention: says how far
//             apart two words are); none for "none"
//   sees      a relative scheme's view, in a student's words
//   seesOrder false for a relative scheme blind to which word comes first
//             (it cannot tell a sentence from its reversal)
//   models    the core models it applies to (lab.options' `model` words);
//             left out: every model. The page hides the choice elsewhere.
//   numpy     the script's lines:
//     imports   before `import numpy as np`
//     define    functions defined up front
//     settings  after the settings and positions (pa, pb)
//     input     an absolute scheme's: add the signal once X1 and X2 exist;
//               another's: a comment saying where its work is done
//     inside    a relative scheme's: what it does inside attention, as a
//               comment's words
//     head      a relative scheme's lines around one head's scores:
//               ({q, k, h}) => {before, after} (h: the head's index, as
//               Python text); the scores are `scores`, the positions `p`
export const SCHEMES = {
  none: {
    label: 'No positional information',
    hint: 'nothing added: attention sees only which words there are',
    numpy: {
      input: ['# no positional information: X1 and X2 hold the same rows in another order'],
    },
  },
  random: {
    label: 'Random stand-in',
    hint: 'a fixed random vector added per position (the course notebook’s toy)',
    kind: 'absolute',
    numpy: {
      input: [
        "# the module's stand-in positional signal: one random row per position",
        'table = np.random.randn(max(offset_a + len(X1), offset_b + len(X2)), d)',
        'X1 = X1 + scale * table[pa]',
        'X2 = X2 + scale * table[pb]',
      ],
    },
  },
  sinusoidal: {
    label: 'Sinusoidal',
    hint: 'sine and cosine waves of many lengths added to each word (Vaswani et al.)',
    kind: 'absolute',
    numpy: {
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
  },
  rope: {
    label: 'RoPE',
    hint: 'queries and keys rotated by an angle that grows with position',
    kind: 'relative',
    sees: 'only how far apart two words stand and which one comes first',
    numpy: {
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
  },
  alibi: {
    label: 'ALiBi',
    hint: 'attention to a word turned down the further away it stands (Press et al.)',
    kind: 'relative',
    sees: 'only how far apart two words stand, not which one comes first',
    seesOrder: false,
    numpy: {
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
  },
};

// The entry of a scheme; a name the table lacks is an error here rather
// than an undefined label further on.
export function scheme(name) {
  const entry = SCHEMES[name];
  if (!entry) throw new Error(`no teaching entry for the scheme "${name}" (web/teach/schemes.js)`);
  return entry;
}

// Whether a scheme applies to a model (lab.options' `model` word).
export const appliesTo = (name, model) => !scheme(name).models || scheme(name).models.includes(model);

// The schemes a student picks among for `model`, in the core's order:
// every scheme of `coreSchemes` (lab.options.schemes) but "none", which is
// the positions switch.
export const choosable = (coreSchemes, model) =>
  coreSchemes.map((s) => s.name).filter((name) => name !== 'none' && appliesTo(name, model));

// What the page calls each scheme ("none" left out: it is the switch).
export const SCHEME_LABELS = Object.fromEntries(
  Object.entries(SCHEMES).filter(([name]) => name !== 'none').map(([name, e]) => [name, e.label]));
