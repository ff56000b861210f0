// format.js - how numbers are written on the page. No DOM here.

// Like C's printf("%.4g"), the CLI's format, so the page and the command line
// print the same text: 12.54, 0.9416, 3.235e-05, 1.11e-16, 0.
export function sig(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return '0';
  const [mantissa, expText] = x.toExponential(digits - 1).split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= digits) {
    const m = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, digits - 1 - exp));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

// 1e-9 -> "10⁻⁹", 1 -> "1", 10 -> "10"; for axis ticks at whole decades.
export function powerOfTen(exp) {
  if (exp === 0) return '1';
  if (exp === 1) return '10';
  return `10${String(exp).replace(/./g, (c) => SUPERSCRIPT[c])}`;
}

// The whole-decade exponent of x, or null when x is not a power of ten.
export function decadeOf(x) {
  if (!(x > 0)) return null;
  const e = Math.round(Math.log10(x));
  return Math.abs(Math.log10(x) - e) < 1e-9 ? e : null;
}

// Below this a cosine distance or difference is floating-point rounding of
// equal vectors, not a real difference.
export const ROUNDING_LEVEL = 1e-12;
