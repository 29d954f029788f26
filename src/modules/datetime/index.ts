import { DateTime, Duration, type DurationLikeObject, type DurationUnit } from 'luxon';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';

// ---------------------------------------------------------------------------------------------
// Shared parsing helpers
// ---------------------------------------------------------------------------------------------

const FORMATS = ['auto', 'iso', 'rfc2822', 'http', 'sql', 'unix', 'unix_ms'] as const;
type Format = (typeof FORMATS)[number];

interface ParseOptions {
  zone?: string;
  format?: Format;
  pattern?: string;
  locale?: string;
}

/** Validates an IANA zone ("Europe/Paris"), "UTC", or a fixed offset ("UTC+3"). */
function checkZone(zone: string | undefined, field = 'zone'): string {
  const z = zone ?? 'UTC';
  if (!DateTime.now().setZone(z).isValid)
    throw new ActionInputError(`${field}: unknown time zone "${z}" (use an IANA name such as "Europe/Paris", "UTC", or "UTC+3").`);
  return z;
}

/** Validates a BCP 47 locale tag (Intl throws RangeError for malformed ones). */
function checkLocale(locale: string | undefined): string {
  const l = locale ?? 'en-US';
  try {
    return new Intl.Locale(l).toString();
  } catch {
    throw new ActionInputError(`locale: "${l}" is not a valid BCP 47 locale tag (e.g. "en-US", "fr").`);
  }
}

function invalid(dt: DateTime, text: string, field: string): never {
  throw new ActionInputError(
    `${field}: cannot parse "${text.slice(0, 100)}"${dt.invalidExplanation ? ` (${dt.invalidExplanation})` : ''}.`,
  );
}

/**
 * Parses a date/time string. Strings without an offset are read in `zone`; the result is
 * expressed in `zone` as well (a string with its own offset is converted to `zone`).
 */
function parseDateTime(text: string, options: ParseOptions = {}, field = 'datetime'): DateTime {
  const zone = checkZone(options.zone);
  const trimmed = text.trim();
  const opts = { zone, locale: checkLocale(options.locale) };
  let dt: DateTime;
  if (options.pattern) {
    dt = DateTime.fromFormat(trimmed, options.pattern, opts);
  } else {
    switch (options.format ?? 'auto') {
      case 'iso':
        dt = DateTime.fromISO(trimmed, opts);
        break;
      case 'rfc2822':
        dt = DateTime.fromRFC2822(trimmed, opts);
        break;
      case 'http':
        dt = DateTime.fromHTTP(trimmed, opts);
        break;
      case 'sql':
        dt = DateTime.fromSQL(trimmed, opts);
        break;
      case 'unix':
      case 'unix_ms': {
        if (!/^-?\d+(\.\d+)?$/.test(trimmed))
          throw new ActionInputError(
            `${field}: "${trimmed.slice(0, 100)}" is not a number of ${options.format === 'unix' ? 'seconds' : 'milliseconds'}.`,
          );
        const n = Number(trimmed);
        dt = options.format === 'unix' ? DateTime.fromSeconds(n, opts) : DateTime.fromMillis(n, opts);
        break;
      }
      default:
        dt = DateTime.fromISO(trimmed, opts);
        for (const parse of [DateTime.fromRFC2822, DateTime.fromHTTP, DateTime.fromSQL]) {
          if (dt.isValid) break;
          const next = parse(trimmed, opts);
          if (next.isValid) dt = next;
        }
    }
  }
  if (!dt.isValid) invalid(dt, trimmed, field);
  return dt;
}

const iso = (dt: DateTime) => dt.toISO({ suppressMilliseconds: true })!;

function describeInstant(dt: DateTime) {
  return { iso: iso(dt), unix: dt.toSeconds(), unix_ms: dt.toMillis(), zone: dt.zoneName ?? 'UTC', offset_minutes: dt.offset };
}

const instantSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['iso', 'unix', 'unix_ms', 'zone', 'offset_minutes'],
  properties: {
    iso: { type: 'string', description: 'ISO 8601 in the zone (Z for UTC).' },
    unix: { type: 'number', description: 'Seconds since 1970-01-01T00:00:00Z.' },
    unix_ms: { type: 'integer', description: 'Milliseconds since the epoch.' },
    zone: { type: 'string' },
    offset_minutes: { type: 'integer', description: 'Offset from UTC in minutes.' },
  },
};

const datetimeField = (
  description = 'A date/time: ISO 8601 ("2024-03-10", "2024-03-10T14:30:00+01:00"), RFC 2822, HTTP or SQL format.',
) => ({
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description,
});
const zoneField = (
  description = 'IANA time zone for values without an offset and for the result (e.g. "Europe/Paris"); "UTC" by default.',
) => ({
  type: 'string',
  maxLength: 64,
  default: 'UTC',
  description,
});
const localeField = {
  type: 'string',
  maxLength: 35,
  default: 'en-US',
  description: 'BCP 47 locale for names of months and days, e.g. "en-US", "fr", "de-DE".',
};

const DURATION_UNITS = ['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;

const durationField: JsonSchema = {
  description: 'Either an ISO 8601 duration ("P1DT2H", "PT90M") or an object such as {"days": 3, "hours": 4}.',
  anyOf: [
    { type: 'string', minLength: 2, maxLength: 64 },
    {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: Object.fromEntries(DURATION_UNITS.map((u) => [u, { type: 'number', minimum: -1e9, maximum: 1e9 }])),
    },
  ],
};

function toDuration(value: string | DurationLikeObject): Duration {
  const d = typeof value === 'string' ? Duration.fromISO(value.trim()) : Duration.fromObject(value);
  if (!d.isValid) throw new ActionInputError(`duration: "${String(value).slice(0, 64)}" is not a valid ISO 8601 duration (e.g. "P1DT2H").`);
  return d;
}

// ---------------------------------------------------------------------------------------------
// Business days
// ---------------------------------------------------------------------------------------------

const dateOnly = (text: string, field: string) => parseDateTime(text, { zone: 'UTC' }, field).startOf('day');

function businessCalendar(holidays: string[] | undefined, weekend: number[] | undefined) {
  const weekendDays = new Set(weekend ?? [6, 7]);
  if (weekendDays.size >= 7) throw new ActionInputError('weekend cannot contain every day of the week.');
  const holidaySet = new Set((holidays ?? []).map((h) => dateOnly(h, 'holidays').toISODate()!));
  return {
    weekendDays,
    holidaySet,
    isBusinessDay: (d: DateTime) => !weekendDays.has(d.weekday) && !holidaySet.has(d.toISODate()!),
  };
}

const businessInputs = {
  holidays: {
    type: 'array',
    maxItems: 1000,
    items: { type: 'string', maxLength: 40 },
    default: [],
    description: 'Dates that are not business days (ISO "2024-12-25").',
  },
  weekend: {
    type: 'array',
    maxItems: 6,
    uniqueItems: true,
    items: { type: 'integer', minimum: 1, maximum: 7 },
    default: [6, 7],
    description: 'ISO weekdays off (1 = Monday … 7 = Sunday). Default Saturday and Sunday.',
  },
};

// ---------------------------------------------------------------------------------------------
// The module
// ---------------------------------------------------------------------------------------------

const PRESETS = {
  date_short: DateTime.DATE_SHORT,
  date_med: DateTime.DATE_MED,
  date_full: DateTime.DATE_FULL,
  date_huge: DateTime.DATE_HUGE,
  time_simple: DateTime.TIME_SIMPLE,
  time_24: DateTime.TIME_24_SIMPLE,
  datetime_short: DateTime.DATETIME_SHORT,
  datetime_med: DateTime.DATETIME_MED,
  datetime_full: DateTime.DATETIME_FULL,
} as const;

/** ICU still lists some zones under their pre-rename IANA names; show the current names. */
const MODERN_ZONE_NAMES: Record<string, string> = {
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Europe/Kiev': 'Europe/Kyiv',
  'America/Godthab': 'America/Nuuk',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Louisville': 'America/Kentucky/Louisville',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Truk': 'Pacific/Chuuk',
  'Pacific/Ponape': 'Pacific/Pohnpei',
};

let zoneList: string[] | undefined;
function allZones(): string[] {
  zoneList ??= Intl.supportedValuesOf('timeZone')
    .map((z) => {
      const modern = MODERN_ZONE_NAMES[z];
      return modern && DateTime.now().setZone(modern).isValid ? modern : z;
    })
    .sort();
  return zoneList;
}

const UNITS_OF_TIME = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second'] as const;
type UnitOfTime = (typeof UNITS_OF_TIME)[number];

function shift(sign: 1 | -1) {
  return (input: { datetime: string; duration: string | DurationLikeObject; zone?: string }) => {
    const dt = parseDateTime(input.datetime, { zone: input.zone });
    const d = toDuration(input.duration);
    const result = sign === 1 ? dt.plus(d) : dt.minus(d);
    if (!result.isValid) throw new ActionInputError('The result is out of the supported date range.');
    return describeInstant(result);
  };
}

const shiftInput = (verb: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['datetime', 'duration'],
  properties: {
    datetime: datetimeField(`The date/time to ${verb}.`),
    duration: durationField,
    zone: zoneField(
      'Time zone the calendar arithmetic happens in (matters across DST changes: +1 day keeps the wall-clock time); "UTC" by default.',
    ),
  },
});

const datetime: ModuleDefinition = {
  name: 'datetime',
  version: '1.0.0',
  title: 'Date and time',
  description:
    'Parse, format, shift and compare dates and times with time zones (luxon): ISO 8601, RFC 2822, HTTP, SQL, Unix and custom formats, durations, differences, time-zone conversion, business days, calendar info and relative times ("in 3 days").',
  category: 'time',
  tags: ['date', 'time', 'datetime', 'timezone', 'iso8601', 'unix timestamp', 'duration', 'business days', 'calendar', 'luxon'],
  actions: [
    {
      name: 'parse',
      description:
        'Parse a date/time string (ISO 8601, RFC 2822, HTTP, SQL, Unix seconds/milliseconds, or a custom pattern like "dd/MM/yyyy HH:mm") into ISO 8601 and Unix time in a chosen time zone.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 100, description: 'The date/time text.' },
          format: {
            type: 'string',
            enum: FORMATS,
            default: 'auto',
            description: 'Input format; auto tries ISO, RFC 2822, HTTP and SQL. Ignored when `pattern` is set.',
          },
          pattern: { type: 'string', maxLength: 100, description: 'Custom luxon pattern, e.g. "dd/MM/yyyy", "MMMM d, yyyy h:mm a".' },
          zone: zoneField('Zone assumed when the text has no offset, and zone of the result; "UTC" by default.'),
          locale: localeField,
        },
      },
      outputSchema: instantSchema,
      examples: [
        {
          input: { text: '2024-03-10T14:30:00+02:00' },
          output: { iso: '2024-03-10T12:30:00Z', unix: 1710073800, unix_ms: 1710073800000, zone: 'UTC', offset_minutes: 0 },
        },
        {
          input: { text: '15/03/2024 09:00', pattern: 'dd/MM/yyyy HH:mm', zone: 'Europe/Paris' },
          output: { iso: '2024-03-15T09:00:00+01:00', unix: 1710489600, unix_ms: 1710489600000, zone: 'Europe/Paris', offset_minutes: 60 },
        },
        {
          input: { text: '1700000000', format: 'unix' },
          output: { iso: '2023-11-14T22:13:20Z', unix: 1700000000, unix_ms: 1700000000000, zone: 'UTC', offset_minutes: 0 },
        },
      ],
      run(input: { text: string; format?: Format; pattern?: string; zone?: string; locale?: string }) {
        return describeInstant(parseDateTime(input.text, input, 'text'));
      },
    },
    {
      name: 'format',
      description:
        'Format a date/time for people or machines: a luxon pattern ("yyyy-MM-dd", "cccc d LLLL yyyy, HH:mm") or a preset (iso, iso_date, rfc2822, http, sql, date_full, datetime_med…), in any time zone and locale.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime'],
        properties: {
          datetime: datetimeField(),
          pattern: {
            type: 'string',
            maxLength: 200,
            description: 'luxon format tokens; text in single quotes is literal. Takes precedence over preset.',
          },
          preset: {
            type: 'string',
            enum: ['iso', 'iso_date', 'iso_time', 'rfc2822', 'http', 'sql', 'unix', ...Object.keys(PRESETS)],
            default: 'iso',
            description: 'A named format (the date_*/time_*/datetime_* ones follow the locale).',
          },
          zone: zoneField('Zone to show the time in (and to read values without an offset); "UTC" by default.'),
          locale: localeField,
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } },
      examples: [
        {
          input: { datetime: '2024-03-10T12:00:00Z', pattern: "cccc d LLLL yyyy 'at' HH:mm", zone: 'Asia/Tokyo' },
          output: { text: 'Sunday 10 March 2024 at 21:00' },
        },
        { input: { datetime: '2024-03-10T12:00:00Z', preset: 'date_full', locale: 'fr' }, output: { text: '10 mars 2024' } },
        { input: { datetime: '2024-03-10T12:00:00Z', preset: 'http' }, output: { text: 'Sun, 10 Mar 2024 12:00:00 GMT' } },
      ],
      run(input: { datetime: string; pattern?: string; preset?: string; zone?: string; locale?: string }) {
        const dt = parseDateTime(input.datetime, { zone: input.zone }).setLocale(checkLocale(input.locale));
        if (input.pattern) return { text: dt.toFormat(input.pattern) };
        const preset = input.preset ?? 'iso';
        switch (preset) {
          case 'iso':
            return { text: iso(dt) };
          case 'iso_date':
            return { text: dt.toISODate()! };
          case 'iso_time':
            return { text: dt.toISOTime({ suppressMilliseconds: true })! };
          case 'rfc2822':
            return { text: dt.toRFC2822()! };
          case 'http':
            return { text: dt.toHTTP()! };
          case 'sql':
            return { text: dt.toSQL({ includeOffset: false })! };
          case 'unix':
            return { text: String(dt.toSeconds()) };
          default:
            return { text: dt.toLocaleString(PRESETS[preset as keyof typeof PRESETS]) };
        }
      },
    },
    {
      name: 'add',
      description:
        'Add a duration (e.g. {"days": 30} or "P1M") to a date/time, with calendar-aware months and DST-aware days in the given time zone.',
      inputSchema: shiftInput('add to'),
      outputSchema: instantSchema,
      examples: [
        {
          input: { datetime: '2024-01-31', duration: { months: 1 } },
          output: { iso: '2024-02-29T00:00:00Z', unix: 1709164800, unix_ms: 1709164800000, zone: 'UTC', offset_minutes: 0 },
        },
        {
          input: { datetime: '2024-03-09T12:00:00', duration: 'P1D', zone: 'America/New_York' },
          output: {
            iso: '2024-03-10T12:00:00-04:00',
            unix: 1710086400,
            unix_ms: 1710086400000,
            zone: 'America/New_York',
            offset_minutes: -240,
          },
        },
      ],
      run: shift(1),
    },
    {
      name: 'subtract',
      description: 'Subtract a duration (e.g. {"hours": 36} or "P2W") from a date/time, calendar- and DST-aware in the given time zone.',
      inputSchema: shiftInput('subtract from'),
      outputSchema: instantSchema,
      examples: [
        {
          input: { datetime: '2024-03-01T10:00:00Z', duration: { days: 1, hours: 12 } },
          output: { iso: '2024-02-28T22:00:00Z', unix: 1709157600, unix_ms: 1709157600000, zone: 'UTC', offset_minutes: 0 },
        },
      ],
      run: shift(-1),
    },
    {
      name: 'diff',
      description:
        'Difference between two date/times (end − start) broken down into the requested units (e.g. months + days + hours), plus an ISO 8601 duration, a readable text and the exact milliseconds.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['start', 'end'],
        properties: {
          start: datetimeField('The earlier date/time.'),
          end: datetimeField('The later date/time (a negative result if it is earlier).'),
          units: {
            type: 'array',
            minItems: 1,
            maxItems: 9,
            uniqueItems: true,
            items: { type: 'string', enum: DURATION_UNITS },
            default: ['days'],
            description: 'Units of the breakdown; the smallest one carries the fraction.',
          },
          zone: zoneField('Zone for values without an offset and for calendar units (days, months); "UTC" by default.'),
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['values', 'iso_duration', 'text', 'milliseconds'],
        properties: {
          values: { type: 'object', additionalProperties: { type: 'number' }, description: 'One entry per requested unit.' },
          iso_duration: { type: 'string' },
          text: { type: 'string', description: 'e.g. "2 months, 9 days, 12 hours".' },
          milliseconds: { type: 'number' },
        },
      },
      examples: [
        {
          input: { start: '2024-01-01T00:00:00Z', end: '2024-03-10T12:00:00Z', units: ['months', 'days', 'hours'] },
          output: {
            values: { months: 2, days: 9, hours: 12 },
            iso_duration: 'P2M9DT12H',
            text: '2 months, 9 days, 12 hours',
            milliseconds: 6004800000,
          },
        },
        {
          input: { start: '2024-01-01', end: '2024-01-02T06:00:00Z' },
          output: { values: { days: 1.25 }, iso_duration: 'P1.25D', text: '1.25 days', milliseconds: 108000000 },
        },
      ],
      run(input: { start: string; end: string; units?: DurationUnit[]; zone?: string }) {
        const start = parseDateTime(input.start, { zone: input.zone }, 'start');
        const end = parseDateTime(input.end, { zone: input.zone }, 'end');
        const units = input.units ?? ['days'];
        const d = end.diff(start, units);
        const values = d.toObject() as Record<string, number>;
        const out: Record<string, number> = {};
        for (const u of units) out[u] = Number((values[u] ?? 0).toPrecision(15)) + 0;
        return {
          values: out,
          iso_duration: d.toISO() ?? '',
          text: Duration.fromObject(out).toHuman({ listStyle: 'narrow' }) || '0',
          milliseconds: end.toMillis() - start.toMillis(),
        };
      },
    },
    {
      name: 'convert_timezone',
      description:
        'Express a date/time in another time zone (e.g. "what time is 9:00 in New York in Tokyo"), with the offset, zone abbreviation and whether daylight saving time applies.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime', 'to_zone'],
        properties: {
          datetime: datetimeField(),
          from_zone: zoneField('Zone of a datetime without an offset; "UTC" by default.'),
          to_zone: { type: 'string', maxLength: 64, description: 'Target IANA zone, e.g. "Asia/Tokyo".' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['iso', 'zone', 'offset', 'offset_minutes', 'abbreviation', 'is_dst'],
        properties: {
          iso: { type: 'string' },
          zone: { type: 'string' },
          offset: { type: 'string', description: 'e.g. "+09:00".' },
          offset_minutes: { type: 'integer' },
          abbreviation: { type: 'string', description: 'Short zone name in English, e.g. "EST" or "GMT+9".' },
          is_dst: { type: 'boolean' },
        },
      },
      examples: [
        {
          input: { datetime: '2024-07-01T09:00:00', from_zone: 'America/New_York', to_zone: 'Asia/Tokyo' },
          output: {
            iso: '2024-07-01T22:00:00+09:00',
            zone: 'Asia/Tokyo',
            offset: '+09:00',
            offset_minutes: 540,
            abbreviation: 'GMT+9',
            is_dst: false,
          },
        },
        {
          input: { datetime: '2024-07-01T12:00:00Z', to_zone: 'Europe/London' },
          output: {
            iso: '2024-07-01T13:00:00+01:00',
            zone: 'Europe/London',
            offset: '+01:00',
            offset_minutes: 60,
            abbreviation: 'GMT+1',
            is_dst: true,
          },
        },
      ],
      run(input: { datetime: string; from_zone?: string; to_zone: string }) {
        const dt = parseDateTime(input.datetime, { zone: input.from_zone }).setZone(checkZone(input.to_zone, 'to_zone'));
        return {
          iso: iso(dt),
          zone: dt.zoneName ?? input.to_zone,
          offset: dt.toFormat('ZZ'),
          offset_minutes: dt.offset,
          abbreviation: dt.offsetNameShort ?? dt.toFormat('ZZ'),
          is_dst: dt.isInDST,
        };
      },
    },
    {
      name: 'now',
      description:
        'The current date and time in a time zone, as ISO 8601 and Unix time. Use it as the reference for other date calculations.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: { zone: zoneField('IANA time zone of the result; "UTC" by default.') },
      },
      outputSchema: instantSchema,
      examples: [
        {
          input: {},
          output: { iso: '2024-03-10T12:00:00.123Z', unix: 1710072000.123, unix_ms: 1710072000123, zone: 'UTC', offset_minutes: 0 },
        },
        {
          input: { zone: 'Europe/Berlin' },
          output: {
            iso: '2024-03-10T13:00:00.123+01:00',
            unix: 1710072000.123,
            unix_ms: 1710072000123,
            zone: 'Europe/Berlin',
            offset_minutes: 60,
          },
        },
      ],
      run(input: { zone?: string }) {
        return describeInstant(DateTime.now().setZone(checkZone(input.zone)));
      },
    },
    {
      name: 'business_days',
      description:
        'Count business days between two dates (both included), skipping weekends and the given holidays; also returns calendar, weekend and holiday day counts.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['start', 'end'],
        properties: {
          start: datetimeField('First date (ISO "2024-03-01"); only the date part counts.'),
          end: datetimeField('Last date, included. If before start, the counts are negative.'),
          ...businessInputs,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['business_days', 'calendar_days', 'weekend_days', 'holidays'],
        properties: {
          business_days: { type: 'integer' },
          calendar_days: { type: 'integer' },
          weekend_days: { type: 'integer' },
          holidays: { type: 'integer', description: 'Holidays that fell on a working weekday.' },
        },
      },
      examples: [
        {
          input: { start: '2024-12-20', end: '2024-12-31', holidays: ['2024-12-25', '2024-12-26'] },
          output: { business_days: 6, calendar_days: 12, weekend_days: 4, holidays: 2 },
        },
      ],
      run(input: { start: string; end: string; holidays?: string[]; weekend?: number[] }) {
        let start = dateOnly(input.start, 'start');
        let end = dateOnly(input.end, 'end');
        const sign = end < start ? -1 : 1;
        if (sign < 0) [start, end] = [end, start];
        const days = Math.round(end.diff(start, 'days').days) + 1;
        if (days > 100 * 366) throw new ActionInputError('The range is longer than 100 years.');
        const cal = businessCalendar(input.holidays, input.weekend);
        let business = 0;
        let weekend = 0;
        let holidays = 0;
        for (let i = 0, d = start; i < days; i++, d = d.plus({ days: 1 })) {
          if (cal.weekendDays.has(d.weekday)) weekend++;
          else if (cal.holidaySet.has(d.toISODate()!)) holidays++;
          else business++;
        }
        return { business_days: sign * business, calendar_days: sign * days, weekend_days: sign * weekend, holidays: sign * holidays };
      },
    },
    {
      name: 'add_business_days',
      description:
        'Move a date forward (or backward, with a negative count) by a number of business days, skipping weekends and holidays, e.g. for due dates and SLAs.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['date', 'days'],
        properties: {
          date: datetimeField('Start date (ISO "2024-03-01").'),
          days: { type: 'integer', minimum: -10000, maximum: 10000, description: 'Business days to add (negative to go back).' },
          ...businessInputs,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['date', 'weekday'],
        properties: { date: { type: 'string', description: 'ISO date.' }, weekday: { type: 'string' } },
      },
      examples: [
        {
          input: { date: '2024-12-20', days: 5, holidays: ['2024-12-25', '2024-12-26'] },
          output: { date: '2024-12-31', weekday: 'Tuesday' },
        },
        { input: { date: '2024-03-04', days: -1 }, output: { date: '2024-03-01', weekday: 'Friday' } },
      ],
      run(input: { date: string; days: number; holidays?: string[]; weekend?: number[] }) {
        const cal = businessCalendar(input.holidays, input.weekend);
        const step = input.days < 0 ? -1 : 1;
        let d = dateOnly(input.date, 'date');
        for (let left = Math.abs(input.days); left > 0;) {
          d = d.plus({ days: step });
          if (cal.isBusinessDay(d)) left--;
        }
        return { date: d.toISODate()!, weekday: d.setLocale('en-US').toFormat('cccc') };
      },
    },
    {
      name: 'is_valid',
      description:
        'Check whether a string is a valid date/time (in an expected format or pattern) without failing; returns the reason when it is not, e.g. "2024-02-30" has no such day.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', maxLength: 100, description: 'The text to check.' },
          format: { type: 'string', enum: FORMATS, default: 'auto', description: 'Expected format (ignored when `pattern` is set).' },
          pattern: { type: 'string', maxLength: 100, description: 'Expected luxon pattern, e.g. "yyyy-MM-dd".' },
          zone: zoneField(),
          locale: localeField,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['valid', 'iso', 'reason'],
        properties: {
          valid: { type: 'boolean' },
          iso: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          reason: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
      },
      examples: [
        { input: { text: '2024-02-29' }, output: { valid: true, iso: '2024-02-29T00:00:00Z', reason: null } },
        {
          input: { text: '2023-02-29' },
          output: {
            valid: false,
            iso: null,
            reason: 'text: cannot parse "2023-02-29" (you specified 29 (of type number) as a day, which is invalid).',
          },
        },
        {
          input: { text: '03/15/2024', pattern: 'dd/MM/yyyy' },
          output: {
            valid: false,
            iso: null,
            reason: 'text: cannot parse "03/15/2024" (you specified 15 (of type number) as a month, which is invalid).',
          },
        },
      ],
      run(input: { text: string; format?: Format; pattern?: string; zone?: string; locale?: string }) {
        checkZone(input.zone);
        try {
          return { valid: true, iso: iso(parseDateTime(input.text, input, 'text')), reason: null };
        } catch (err) {
          if (err instanceof ActionInputError) return { valid: false, iso: null, reason: err.message };
          throw err;
        }
      },
    },
    {
      name: 'start_of',
      description:
        'The start of the year, quarter, month, ISO week (Monday), day, hour, minute or second containing a date/time, in a time zone (e.g. midnight today in Paris).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime', 'unit'],
        properties: {
          datetime: datetimeField(),
          unit: { type: 'string', enum: UNITS_OF_TIME, description: 'The period.' },
          zone: zoneField(),
        },
      },
      outputSchema: instantSchema,
      examples: [
        {
          input: { datetime: '2024-05-15T13:45:00Z', unit: 'month', zone: 'Europe/Paris' },
          output: { iso: '2024-05-01T00:00:00+02:00', unix: 1714514400, unix_ms: 1714514400000, zone: 'Europe/Paris', offset_minutes: 120 },
        },
      ],
      run(input: { datetime: string; unit: UnitOfTime; zone?: string }) {
        return describeInstant(parseDateTime(input.datetime, { zone: input.zone }).startOf(input.unit));
      },
    },
    {
      name: 'end_of',
      description:
        'The last millisecond of the year, quarter, month, ISO week (Sunday), day, hour, minute or second containing a date/time, in a time zone (e.g. the end of this month).',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime', 'unit'],
        properties: {
          datetime: datetimeField(),
          unit: { type: 'string', enum: UNITS_OF_TIME, description: 'The period.' },
          zone: zoneField(),
        },
      },
      outputSchema: instantSchema,
      examples: [
        {
          input: { datetime: '2024-02-10', unit: 'month' },
          output: { iso: '2024-02-29T23:59:59.999Z', unix: 1709251199.999, unix_ms: 1709251199999, zone: 'UTC', offset_minutes: 0 },
        },
      ],
      run(input: { datetime: string; unit: UnitOfTime; zone?: string }) {
        return describeInstant(parseDateTime(input.datetime, { zone: input.zone }).endOf(input.unit));
      },
    },
    {
      name: 'info',
      description:
        'Calendar facts about a date: weekday, ISO week number, quarter, day of the year, days in the month and year, leap year, weekend, and daylight saving time in a zone.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime'],
        properties: { datetime: datetimeField(), zone: zoneField() },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [
          'date',
          'weekday',
          'weekday_name',
          'iso_week',
          'iso_week_year',
          'quarter',
          'day_of_year',
          'days_in_month',
          'days_in_year',
          'is_leap_year',
          'is_weekend',
          'is_dst',
          'offset_minutes',
        ],
        properties: {
          date: { type: 'string' },
          weekday: { type: 'integer', description: '1 = Monday … 7 = Sunday.' },
          weekday_name: { type: 'string' },
          iso_week: { type: 'integer' },
          iso_week_year: { type: 'integer' },
          quarter: { type: 'integer' },
          day_of_year: { type: 'integer' },
          days_in_month: { type: 'integer' },
          days_in_year: { type: 'integer' },
          is_leap_year: { type: 'boolean' },
          is_weekend: { type: 'boolean', description: 'Saturday or Sunday.' },
          is_dst: { type: 'boolean' },
          offset_minutes: { type: 'integer' },
        },
      },
      examples: [
        {
          input: { datetime: '2024-12-30' },
          output: {
            date: '2024-12-30',
            weekday: 1,
            weekday_name: 'Monday',
            iso_week: 1,
            iso_week_year: 2025,
            quarter: 4,
            day_of_year: 365,
            days_in_month: 31,
            days_in_year: 366,
            is_leap_year: true,
            is_weekend: false,
            is_dst: false,
            offset_minutes: 0,
          },
        },
      ],
      run(input: { datetime: string; zone?: string }) {
        const dt = parseDateTime(input.datetime, { zone: input.zone }).setLocale('en-US');
        return {
          date: dt.toISODate()!,
          weekday: dt.weekday,
          weekday_name: dt.toFormat('cccc'),
          iso_week: dt.weekNumber,
          iso_week_year: dt.weekYear,
          quarter: dt.quarter,
          day_of_year: dt.ordinal,
          days_in_month: dt.daysInMonth!,
          days_in_year: dt.daysInYear,
          is_leap_year: dt.isInLeapYear,
          is_weekend: dt.weekday >= 6,
          is_dst: dt.isInDST,
          offset_minutes: dt.offset,
        };
      },
    },
    {
      name: 'relative',
      description:
        'Describe a date/time relative to a base time in words, e.g. "in 3 days", "2 hours ago", "hier" (localised). Get the base from `now` for "relative to now".',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['datetime', 'base'],
        properties: {
          datetime: datetimeField('The date/time to describe.'),
          base: datetimeField('The reference time (e.g. the output of now).'),
          unit: {
            type: 'string',
            enum: ['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'],
            description: 'Force a unit; by default the largest that fits.',
          },
          style: { type: 'string', enum: ['long', 'short', 'narrow'], default: 'long', description: 'Length of the unit words.' },
          calendar: {
            type: 'boolean',
            default: false,
            description: 'Calendar wording ("tomorrow", "last year") based on calendar days instead of elapsed time.',
          },
          zone: zoneField(),
          locale: localeField,
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } },
      examples: [
        { input: { datetime: '2024-03-10T12:00:00Z', base: '2024-03-07T09:00:00Z' }, output: { text: 'in 3 days' } },
        { input: { datetime: '2024-03-10T09:00:00Z', base: '2024-03-10T12:00:00Z', locale: 'de' }, output: { text: 'vor 3 Stunden' } },
        { input: { datetime: '2024-03-09T09:00:00Z', base: '2024-03-10T12:00:00Z', calendar: true }, output: { text: 'yesterday' } },
      ],
      run(input: {
        datetime: string;
        base: string;
        unit?: DurationUnit;
        style?: 'long' | 'short' | 'narrow';
        calendar?: boolean;
        zone?: string;
        locale?: string;
      }) {
        const dt = parseDateTime(input.datetime, { zone: input.zone }).setLocale(checkLocale(input.locale));
        const base = parseDateTime(input.base, { zone: input.zone }, 'base');
        const text = input.calendar
          ? dt.toRelativeCalendar({ base, unit: input.unit as 'days' | undefined })
          : dt.toRelative({ base, unit: input.unit as 'days' | undefined, style: input.style ?? 'long' });
        if (text === null) throw new ActionInputError('Cannot describe this date relative to the base.');
        return { text };
      },
    },
    {
      name: 'list_timezones',
      description:
        'List the IANA time-zone names this server knows, optionally filtered by a case-insensitive substring (e.g. "america", "berlin"); use to find a valid zone name.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: { filter: { type: 'string', maxLength: 64, default: '', description: 'Substring to match, case-insensitive.' } },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['zones', 'count'],
        properties: { zones: { type: 'array', items: { type: 'string' } }, count: { type: 'integer' } },
      },
      examples: [{ input: { filter: 'kolkata' }, output: { zones: ['Asia/Kolkata'], count: 1 } }],
      run(input: { filter?: string }) {
        const needle = (input.filter ?? '').toLowerCase().replace(/\s+/g, '_');
        const zones = allZones().filter((z) => z.toLowerCase().includes(needle));
        return { zones, count: zones.length };
      },
    },
  ],
};

export default datetime;
