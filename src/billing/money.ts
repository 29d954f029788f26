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

/**
 * The largest amount the platform holds or bills exactly: a JavaScript safe integer of
 * micro-dollars, 9,007,199,254.740991 USD. Every stored price and every invoice amount (each line,
 * the subtotal, the total) must fit; a cycle whose charges would not is refused for that tenant
 * (src/billing/close.ts, `assertBillable`) instead of being rounded or wrapped.
 */
export const MAX_USD_MICRO = Number.MAX_SAFE_INTEGER;

/**
 * Caps on the prices an operator may set as per-tenant terms (PUT /api/v1/admin/tenants/{id}/plan),
 * chosen so that an invoice stays exact (below MAX_USD_MICRO) for any count a real tenant runs:
 * - overage unit price at most 1,000 USD per execution (the built-in plans charge 0.001): 1,000 USD
 *   is 10^9 micro-dollars, so even at that price about 9 million executions past the quota in one
 *   cycle (9 billion USD) are billed exactly; at 0.001 USD, 9 trillion.
 * - monthly fee at most 10,000,000 USD (10^13 micro-dollars): proration multiplies it by at most
 *   2 × 31 days, and a cycle's fee lines (one per set of terms) add up to a few times it at most,
 *   all far below MAX_USD_MICRO, leaving the rest of the range to overage.
 */
export const MAX_OVERAGE_UNIT_MICRO_USD = 1_000 * MICRO_PER_USD;
export const MAX_MONTHLY_FEE_MICRO_USD = 10_000_000 * MICRO_PER_USD;

/** Whether an amount of micro-dollars is held exactly (an integer from 0 up to MAX_USD_MICRO). */
export function isExactAmount(micro: number | bigint): boolean {
  return typeof micro === 'bigint' ? micro >= 0n && micro <= BigInt(MAX_USD_MICRO) : Number.isSafeInteger(micro) && micro >= 0;
}

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
