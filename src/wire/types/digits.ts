/** Decimal digits written straight into a buffer for the text encoders (callers have ensured room). */

const D2 = new Uint8Array(200); // "00".."99"
for (let i = 0; i < 100; i++) {
  D2[2 * i] = 48 + ((i / 10) | 0);
  D2[2 * i + 1] = 48 + (i % 10);
}

export function put2(b: Buffer, p: number, n: number): number {
  b[p] = D2[2 * n];
  b[p + 1] = D2[2 * n + 1];
  return p + 2;
}

/** Non-negative integer < 2^53, at least `minDigits` digits. */
export function putUint(b: Buffer, p: number, n: number, minDigits = 1): number {
  let len = 1;
  if (n < 2147483648) {
    // int32 fast path: |0 division instead of float floor
    for (let t = n; t >= 10; t = (t / 10) | 0) len++;
    if (len < minDigits) len = minDigits;
    let q = p + len;
    while (q > p) {
      const t = (n / 10) | 0;
      b[--q] = 48 + n - t * 10;
      n = t;
    }
    return p + len;
  }
  for (let t = n; t >= 10; t = Math.floor(t / 10)) len++;
  if (len < minDigits) len = minDigits;
  let q = p + len;
  while (q > p) {
    const r = n % 10;
    b[--q] = 48 + r;
    n = (n - r) / 10;
  }
  return p + len;
}
