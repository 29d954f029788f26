/**
 * Money on the wire. Inside, amounts are integer micro-dollars (1 USD = 1,000,000). On the wire
 * they are decimal strings in USD: amounts and totals with exactly two decimals (rounded half-up
 * to the cent, i.e. half away from zero), unit prices with as many decimals as they need and at
 * least two. This file imports nothing, so every layer may use it.
 */

export const MICRO_PER_USD = 1_000_000;
const MICRO = BigInt(MICRO_PER_USD);
const MICRO_PER_CENT = 10_000n;

function toBigInt(micro: number | bigint): bigint {
  if (typeof micro === 'bigint') return micro;
  if (!Number.isSafeInteger(micro)) throw new RangeError(`Not an integer amount of micro-dollars: ${micro}`);
  return BigInt(micro);
}

/** An amount, total or cost: `29250000` -> `"29.25"`, `5000` -> `"0.01"` (half-up), `-1` -> `"0.00"`. */
export function formatUsd(micro: number | bigint): string {
  const value = toBigInt(micro);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const cents = (abs + MICRO_PER_CENT / 2n) / MICRO_PER_CENT;
  const text = `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
  return negative && cents !== 0n ? `-${text}` : text;
}

/** A unit price, exact: `1000` -> `"0.001"`, `29000000` -> `"29.00"`, `1` -> `"0.000001"`. */
export function formatUnitUsd(micro: number | bigint): string {
  const value = toBigInt(micro);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  let fraction = (abs % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${abs / MICRO}.${fraction}`;
}

/** The largest amount accepted (fits a JavaScript safe integer of micro-dollars). */
export const MAX_USD_MICRO = Number.MAX_SAFE_INTEGER;

const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/;

export class MoneyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoneyFormatError';
  }
}

/**
 * A non-negative USD amount given as a decimal string (`"0.001"`, `"29"`, `"29.00"`) or a number
 * (`0.001`), to micro-dollars, exactly: at most 6 decimals, no sign, exponent or spaces. Throws
 * MoneyFormatError (its message is fit for a 400) otherwise; `tryParseUsd` returns null instead.
 */
export function parseUsd(value: string | number): number {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MoneyFormatError('must be a finite number of USD');
    if (value < 0) throw new MoneyFormatError('must not be negative');
    // The shortest decimal that reads back as this number (0.001 -> "0.001"); exponent forms are
    // only produced for very large or very small numbers, which are refused below.
    text = String(value);
  } else {
    text = value;
  }
  if (text.startsWith('-')) throw new MoneyFormatError('must not be negative');
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new MoneyFormatError(
      /^\d+\.\d{7,}$/.test(text) ? 'must have at most 6 decimals' : 'must be a decimal amount of USD such as "0.001" or "29.00"',
    );
  }
  const micro = BigInt(match[1]!) * MICRO + BigInt((match[2] ?? '').padEnd(6, '0'));
  if (micro > BigInt(MAX_USD_MICRO)) throw new MoneyFormatError('is too large');
  return Number(micro);
}

export function tryParseUsd(value: string | number): number | null {
  try {
    return parseUsd(value);
  } catch (error) {
    if (error instanceof MoneyFormatError) return null;
    throw error;
  }
}
