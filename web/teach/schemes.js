// schemes.js - the page's teaching table: one entry per scheme of the
// core's table (lab.options.schemes, which also holds each default
// magnitude), saying what the page calls it, how it describes it in a line
// and what kind of signal it is; its NumPy lines, which load only with Copy
// as NumPy, are its entry in scheme_numpy.js. The scheme choices and the
// labels everywhere on the page read it from here;
// tests/node/schemes.test.mjs fails when a core scheme has no entry in
// either.
//
// An entry:
//   label     the scheme's name on the page
//   hint      one line under its choice ("none" has no choice)
//   kind      'absolute' (added to the word vectors: says where a word
//             stands) or 'relative' (works inside attention: says how far
//             apart two words are); none for "none"
//   sees      a relative scheme's view, in a student's words
//   seesOrder false for a relative scheme blind to which word comes first
//             (it cannot tell a sentence from its reversal)
//   models    the core models it applies to (lab.options' `model` words);
//             left out: every model. The page hides the choice elsewhere.
export const SCHEMES = {
  none: {
    label: 'No positional information', // the positions switch: no choice of its own, no hint
  },
  random: {
    label: 'Random stand-in',
    hint: 'a fixed random vector added per position (a classroom stand-in)',
    kind: 'absolute',
  },
  sinusoidal: {
    label: 'Sinusoidal',
    hint: 'sine and cosine waves of many lengths added to each word (Vaswani et al.)',
    kind: 'absolute',
  },
  rope: {
    label: 'RoPE',
    hint: 'queries and keys rotated by an angle that grows with position',
    kind: 'relative',
    sees: 'only how far apart two words stand and which one comes first',
  },
  alibi: {
    label: 'ALiBi',
    hint: 'attention to a word turned down the further away it stands (Press et al.)',
    kind: 'relative',
    sees: 'only how far apart two words stand, not which one comes first',
    seesOrder: false,
  },
};

// Whether a scheme applies to a model (lab.options' `model` word).
export const appliesTo = (name, model) => SCHEMES[name]?.models?.includes(model) ?? true;

// The schemes a student picks among for `model`, in the core's order:
// every scheme of `coreSchemes` (lab.options.schemes) but "none", which is
// the positions switch.
export const choosable = (coreSchemes, model) =>
  coreSchemes.map((s) => s.name).filter((name) => name !== 'none' && appliesTo(name, model));

// What the page calls each scheme ("none" left out: it is the switch), for
// the tests (the page reads SCHEMES, so that this is not in its bytes).
export const SCHEME_LABELS = Object.fromEntries(
  Object.entries(SCHEMES).filter(([name]) => name !== 'none').map(([name, e]) => [name, e.label]));
