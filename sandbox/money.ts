/**
 * Money as integers of minor units (bigint), never floating point. Amounts travel as decimal strings.
 * Fiat amounts have 2 decimal places; crypto balances 8 (stablecoins are shown with 2); FX rates are held with 8.
 */

export const FIAT_SCALE = 2;
export const RATE_SCALE = 8;

/** "12.5" → 1250n at scale 2. The input has been validated against the spec's amount pattern. */
export function toMinor(amount: string, scale: number = FIAT_SCALE): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', frac = ''] = (negative ? amount.slice(1) : amount).split('.');
  if (frac.length > scale) throw new RangeError(`${amount} has more than ${scale} decimal places`);
  const value = BigInt(whole) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, '0') || '0');
  return negative ? -value : value;
}

/** 1250n at scale 2 → "12.50". */
export function formatMinor(minor: bigint, scale: number = FIAT_SCALE): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const unit = 10n ** BigInt(scale);
  const whole = abs / unit;
  const frac = (abs % unit).toString().padStart(scale, '0');
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${frac}` : ''}`;
}

/** Integer division rounding half away from zero (half-up for the positive amounts money uses). */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (ad * 2n);
  return negative ? -q : q;
}

/** source (scale 2) × rate (scale 8), rounded half-up to scale 2. */
export function convert(sourceMinor: bigint, rate: bigint): bigint {
  return divRoundHalfUp(sourceMinor * rate, 10n ** BigInt(RATE_SCALE));
}

/** A rate of scale 8 as a string with at least 4 and at most 8 decimal places: 92000000n → "0.9200". */
export function formatRate(rate: bigint): string {
  let s = formatMinor(rate, RATE_SCALE);
  while (s.endsWith('0') && s.length - s.indexOf('.') - 1 > 4) s = s.slice(0, -1);
  return s;
}
