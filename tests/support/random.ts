// Deterministic pseudo-random bytes (xorshift32), so a failing test is reproducible.
export function randomBytes(len: number, seed: number): Uint8Array {
  let x = seed | 1;
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x;
  }
  return out;
}
