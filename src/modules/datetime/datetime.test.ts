import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};

describe('datetime edge cases', () => {
  it('parse: auto-detects RFC 2822, HTTP and SQL', async () => {
    const parse = action('parse');
    expect((await parse({ text: 'Tue, 01 Nov 2016 13:23:12 +0630' })).iso).toBe('2016-11-01T06:53:12Z');
    expect((await parse({ text: 'Sun, 06 Nov 1994 08:49:37 GMT' })).iso).toBe('1994-11-06T08:49:37Z');
    expect((await parse({ text: '2017-05-15 09:24:15', zone: 'Asia/Tokyo' })).iso).toBe('2017-05-15T09:24:15+09:00');
    expect((await parse({ text: '1700000000123', format: 'unix_ms' })).unix).toBe(1700000000.123);
    expect((await parse({ text: 'March 5, 2024', pattern: 'MMMM d, yyyy' })).iso).toBe('2024-03-05T00:00:00Z');
    expect((await parse({ text: '5 mars 2024', pattern: 'd MMMM yyyy', locale: 'fr' })).iso).toBe('2024-03-05T00:00:00Z');
  });

  it('parse: bad text, zone and locale are input errors', async () => {
    const parse = action('parse');
    await expect(parse({ text: 'yesterday-ish' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(parse({ text: '2024-02-30' })).rejects.toThrow(/day/);
    await expect(parse({ text: '2024-01-01', zone: 'Mars/Olympus' })).rejects.toThrow(/unknown time zone/);
    await expect(parse({ text: 'abc', format: 'unix' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(parse({ text: '2024-01-01', pattern: 'yyyy-MM-dd', locale: '!!' })).rejects.toThrow(/locale/);
  });

  it('add across a DST change keeps wall-clock time for days but not for hours', async () => {
    const add = action('add');
    const day = await add({ datetime: '2024-03-09T12:00:00', duration: { days: 1 }, zone: 'America/New_York' });
    const hours = await add({ datetime: '2024-03-09T12:00:00', duration: { hours: 24 }, zone: 'America/New_York' });
    expect(day.iso).toBe('2024-03-10T12:00:00-04:00');
    expect(hours.iso).toBe('2024-03-10T13:00:00-04:00');
    await expect(add({ datetime: '2024-01-01', duration: 'one day' })).rejects.toThrow(/ISO 8601 duration/);
  });

  it('diff can be negative and uses several units', async () => {
    const d = await action('diff')({ start: '2024-03-10', end: '2024-03-01', units: ['weeks', 'days'] });
    expect(d.values).toEqual({ weeks: -1, days: -2 });
    expect(d.milliseconds).toBe(-9 * 86_400_000);
    const zero = await action('diff')({ start: '2024-03-10', end: '2024-03-10' });
    expect(zero.values).toEqual({ days: 0 });
  });

  it('business days handle reversed ranges, custom weekends and limits', async () => {
    const bd = action('business_days');
    expect(await bd({ start: '2024-12-31', end: '2024-12-20', holidays: ['2024-12-25', '2024-12-26'] })).toEqual({
      business_days: -6,
      calendar_days: -12,
      weekend_days: -4,
      holidays: -2,
    });
    // Friday-Saturday weekend: 2024-03-01 is a Friday.
    expect((await bd({ start: '2024-03-01', end: '2024-03-07', weekend: [5, 6] })).business_days).toBe(5);
    await expect(bd({ start: '2024-01-01', end: '2024-01-02', weekend: [1, 2, 3, 4, 5, 6, 7] })).rejects.toBeInstanceOf(ActionInputError);
    await expect(bd({ start: '1800-01-01', end: '2024-01-02' })).rejects.toThrow(/100 years/);
    expect(await action('add_business_days')({ date: '2024-03-01', days: 0 })).toEqual({ date: '2024-03-01', weekday: 'Friday' });
  });

  it('is_valid never throws for bad text, only for a bad zone', async () => {
    expect(await action('is_valid')({ text: '' })).toMatchObject({ valid: false });
    await expect(action('is_valid')({ text: '2024-01-01', zone: 'Nowhere/City' })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('now returns the current time in the zone', async () => {
    const now = await action('now')({ zone: 'Asia/Kolkata' });
    expect(Math.abs(now.unix_ms - Date.now())).toBeLessThan(5000);
    expect(now.offset_minutes).toBe(330);
    expect(now.iso).toMatch(/\+05:30$/);
  });

  it('format presets', async () => {
    const fmt = action('format');
    expect(await fmt({ datetime: '2024-03-10T12:00:00Z', preset: 'sql' })).toEqual({ text: '2024-03-10 12:00:00.000' });
    expect(await fmt({ datetime: '2024-03-10T12:00:00Z', preset: 'iso_date', zone: 'Pacific/Auckland' })).toEqual({ text: '2024-03-11' });
    expect(await fmt({ datetime: '2024-03-10T12:00:00Z', preset: 'unix' })).toEqual({ text: '1710072000' });
  });
});
