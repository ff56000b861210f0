// schemes.js - what the page calls each positional scheme. The schemes
// themselves, and their default magnitudes, are the core's (lab.options).
export const SCHEME_LABELS = {
  random: 'Random stand-in',
  sinusoidal: 'Sinusoidal',
  rope: 'RoPE',
  alibi: 'ALiBi',
};
