/**
 * Charts with few values: a line needs two points to be seen, so a series with one or a few
 * values draws its points large enough to see (joined when there are several); bars are held to
 * a width that still reads as a bar when the chart has one or two of them.
 */

/** At most this many values: the series is sparse and its points are drawn large. */
export const SPARSE_POINTS = 3;

/** The widest a bar gets (px): one day's bar on the first day of a cycle stays a bar, not a block. */
export const MAX_BAR_SIZE = 48;

/** How many of `values` carry a number (null and undefined are gaps). */
export function countValues(values: readonly (number | null | undefined)[]): number {
  return values.filter((v) => typeof v === 'number' && Number.isFinite(v)).length;
}

/** The dots of a line with `values` numbers: large and outlined when sparse, small otherwise. */
export function lineDot(values: number): { r: number; strokeWidth: number } {
  return values <= SPARSE_POINTS ? { r: 5, strokeWidth: 2 } : { r: 2, strokeWidth: 1 };
}
