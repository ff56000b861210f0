// format.js - how numbers are written on the page. No DOM here.

// Like C's printf("%.4g"), the CLI's format, so the page and the command line
// print the same text: 12.54, 0.9416, 3.235e-05, 1.11e-16, 0. Rounds the
// exact binary value half to even, as glibc (and the core's decimal.c) do:
// 1.0625 is 1.062, 2.5 at one digit is 2. (NaN is 'nan' and -0 is '0'.)
export function sig(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return '0';
  const [kept, exp] = roundedDigits(Math.abs(x), digits);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= digits) {
    const m = kept.length > 1 ? `${kept[0]}.${kept.slice(1)}`.replace(/\.?0+$/, '') : kept;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  // %f with digits - 1 - exp decimals: the same digits, the point moved
  if (exp >= 0 && kept.length === exp + 1) return sign + kept; // no decimals
  const fixed = exp >= 0 ? `${kept.slice(0, exp + 1)}.${kept.slice(exp + 1)}` : `0.${'0'.repeat(-exp - 1)}${kept}`;
  return sign + fixed.replace(/\.?0+$/, '');
}

// x > 0 to `digits` significant digits: [the digits as text, the decimal
// exponent]. toExponential rounds the exact value correctly but sends an
// exact tie up; C sends it to the even digit, so a tie whose last kept digit
// is even is cut instead (which never changes the exponent).
function roundedDigits(x, digits) {
  const [up, upExp] = x.toExponential(digits - 1).split('e');
  const [longer, exp] = x.toExponential(digits).split('e'); // one digit more
  const more = longer.replace('.', '');
  if (more.endsWith('5') && '02468'.includes(more[digits - 1]) && isExactly(x, more, Number(exp))) {
    return [more.slice(0, digits), Number(exp)];
  }
  return [up.replace('.', ''), Number(upExp)];
}

// Whether x > 0 is exactly d.ddd x 10^exp, given the digits "dddd": x is
// m x 2^k with integers m, k; both sides become integers in BigInt.
function isExactly(x, digitText, exp) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const field = Number(bits >> 52n);
  const fraction = bits & 0xfffffffffffffn;
  let left = field === 0 ? fraction : fraction | 0x10000000000000n; // subnormal or normal
  const k = (field === 0 ? 1 : field) - 1075;
  let right = BigInt(digitText);
  const p = exp - (digitText.length - 1); // x == right x 10^p ?
  if (k >= 0) left <<= BigInt(k); else right <<= BigInt(-k);
  if (p >= 0) right *= 10n ** BigInt(p); else left *= 10n ** BigInt(-p);
  return left === right;
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

// 1e-9 -> "10⁻⁹", 1 -> "1", 10 -> "10"; for axis ticks at whole decades.
export function powerOfTen(exp) {
  if (exp === 0) return '1';
  if (exp === 1) return '10';
  return `10${String(exp).replace(/./g, (c) => SUPERSCRIPT[c])}`;
}

// A limit as the number fields take it: 1000000 -> "1e6", 1000 -> "1e3".
export const exponentText = (x) => x.toExponential().replace('e+', 'e');

// The whole-decade exponent of x, or null when x is not a power of ten.
export function decadeOf(x) {
  if (!(x > 0)) return null;
  const e = Math.round(Math.log10(x));
  return Math.abs(Math.log10(x) - e) < 1e-9 ? e : null;
}

// Below this a cosine distance or difference is floating-point rounding of
// equal vectors, not a real difference.
export const ROUNDING_LEVEL = 1e-12;

// A whole number with its thousands grouped: 124,439,808, as
// toLocaleString('en') writes it. That call's first use loads the
// browser's number formatting: 18 ms on the page's thread in Chromium (36
// under 2x throttling), in the render that first shows an opened GPT-2.
export const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
