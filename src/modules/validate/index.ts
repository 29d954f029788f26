import {
  electronicFormatIBAN,
  extractBIC,
  extractIBAN,
  friendlyFormatIBAN,
  isSEPACountry,
  validateBIC,
  validateIBAN,
  ValidationErrorsBIC,
  ValidationErrorsIBAN,
} from 'ibantools';
import ipaddr from 'ipaddr.js';
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import validator from 'validator';
import { type ActionDefinition, type ModuleDefinition } from '../types';

const reasonSchema = { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the value is invalid (null when valid).' };

// ---------- email ----------

const email: ActionDefinition = {
  name: 'email',
  description:
    'Validates the syntax of an email address (RFC 5322 as used in practice: length limits, a domain with a TLD, no IP domains unless allowed) and splits it into local part and domain. It does not check that the mailbox exists.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: {
      email: { type: 'string', maxLength: 1000, description: 'Address to check, e.g. "ann@example.com".' },
      allow_display_name: { type: 'boolean', default: false, description: 'Accept "Ann <ann@example.com>".' },
      allow_ip_domain: { type: 'boolean', default: false, description: 'Accept ann@[192.168.0.1].' },
      allow_utf8_local_part: { type: 'boolean', default: true },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'reason', 'local', 'domain', 'normalized'],
    properties: {
      valid: { type: 'boolean' },
      reason: reasonSchema,
      local: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      domain: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Lowercased domain.' },
      normalized: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: 'Trimmed address with the domain lowercased (display name removed).',
      },
    },
  },
  examples: [
    {
      input: { email: ' Ann.Lee+news@Example.COM ' },
      output: { valid: true, reason: null, local: 'Ann.Lee+news', domain: 'example.com', normalized: 'Ann.Lee+news@example.com' },
    },
    {
      input: { email: 'ann@localhost' },
      output: {
        valid: false,
        reason: 'the domain needs a top-level domain such as .com',
        local: 'ann',
        domain: 'localhost',
        normalized: null,
      },
    },
  ],
  run({
    email: raw,
    allow_display_name = false,
    allow_ip_domain = false,
    allow_utf8_local_part = true,
  }: {
    email: string;
    allow_display_name?: boolean;
    allow_ip_domain?: boolean;
    allow_utf8_local_part?: boolean;
  }) {
    let value = raw.trim();
    if (allow_display_name) {
      const m = /<([^<>]+)>\s*$/.exec(value);
      if (m) value = m[1]!.trim();
    }
    const at = value.lastIndexOf('@');
    const local = at > 0 ? value.slice(0, at) : null;
    const domain = at >= 0 && at < value.length - 1 ? value.slice(at + 1).toLowerCase() : null;
    const valid = validator.isEmail(value, { allow_ip_domain, allow_utf8_local_part, require_tld: true });
    let reason: string | null = null;
    if (!valid) {
      if (at < 0) reason = 'missing @';
      else if (!local) reason = 'missing the part before @';
      else if (!domain) reason = 'missing the domain after @';
      else if (local.length > 64) reason = 'the part before @ is longer than 64 characters';
      else if (value.length > 254) reason = 'longer than 254 characters';
      else if (!domain.startsWith('[') && !domain.includes('.')) reason = 'the domain needs a top-level domain such as .com';
      else if (/\s/.test(value)) reason = 'contains whitespace';
      else reason = 'not a valid email address';
    }
    return { valid, reason, local, domain, normalized: valid ? `${local}@${domain}` : null };
  },
};

// ---------- url ----------

const url: ActionDefinition = {
  name: 'url',
  description:
    'Validates a URL (allowed protocols, a real host name with a TLD, optional port) and returns its parts: protocol, host, port, path, query parameters and fragment. Use before fetching or storing a user-supplied link.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', maxLength: 8192 },
      protocols: {
        type: 'array',
        maxItems: 10,
        items: { type: 'string', pattern: '^[a-z][a-z0-9+.-]*$' },
        default: ['http', 'https'],
        description: 'Accepted schemes.',
      },
      require_protocol: { type: 'boolean', default: true, description: 'Reject "example.com/x" without a scheme.' },
      require_tld: { type: 'boolean', default: true, description: 'Reject hosts like "localhost" or "intranet".' },
      allow_ip: { type: 'boolean', default: true, description: 'Accept IP-address hosts.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'reason'],
    properties: {
      valid: { type: 'boolean' },
      reason: reasonSchema,
      normalized: { type: 'string', description: 'WHATWG-serialised URL (lowercased host, default port removed).' },
      protocol: { type: 'string' },
      hostname: { type: 'string' },
      port: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      path: { type: 'string' },
      query: { type: 'object', additionalProperties: { type: 'string' } },
      fragment: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  },
  examples: [
    {
      input: { url: 'HTTPS://Example.com:443/a/b?q=1&lang=en#top' },
      output: {
        valid: true,
        reason: null,
        normalized: 'https://example.com/a/b?q=1&lang=en#top',
        protocol: 'https',
        hostname: 'example.com',
        port: null,
        path: '/a/b',
        query: { q: '1', lang: 'en' },
        fragment: 'top',
      },
    },
    { input: { url: 'ftp://files.example.com/x' }, output: { valid: false, reason: 'protocol not allowed (allowed: http, https)' } },
  ],
  run({
    url: raw,
    protocols = ['http', 'https'],
    require_protocol = true,
    require_tld = true,
    allow_ip = true,
  }: {
    url: string;
    protocols?: string[];
    require_protocol?: boolean;
    require_tld?: boolean;
    allow_ip?: boolean;
  }) {
    const value = raw.trim();
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
    if (scheme && !protocols.includes(scheme)) return { valid: false, reason: `protocol not allowed (allowed: ${protocols.join(', ')})` };
    const ok = validator.isURL(value, { protocols, require_protocol, require_tld, require_host: true, allow_underscores: true });
    if (!ok) return { valid: false, reason: !scheme && require_protocol ? 'missing protocol (e.g. https://)' : 'not a valid URL' };
    let u: URL;
    try {
      u = new URL(scheme ? value : `${protocols[0] ?? 'https'}://${value}`);
    } catch {
      return { valid: false, reason: 'not a valid URL' };
    }
    if (!allow_ip && (ipaddr.isValid(u.hostname) || u.hostname.startsWith('[')))
      return { valid: false, reason: 'IP-address hosts are not allowed' };
    const query: Record<string, string> = {};
    for (const [k, v] of u.searchParams) if (!(k in query)) query[k] = v;
    return {
      valid: true,
      reason: null,
      normalized: u.href,
      protocol: u.protocol.replace(/:$/, ''),
      hostname: u.hostname,
      port: u.port ? Number(u.port) : null,
      path: u.pathname,
      query,
      fragment: u.hash ? decodeURIComponent(u.hash.slice(1)) : null,
    };
  },
};

// ---------- phone ----------

const phone: ActionDefinition = {
  name: 'phone',
  description:
    "Validates and normalises a phone number with Google's libphonenumber metadata: E.164 form (+14155552671), international and national formats, country, calling code and line type (mobile, fixed_line, toll_free…). Numbers without a + need default_country.",
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['phone'],
    properties: {
      phone: {
        type: 'string',
        maxLength: 100,
        description: 'Phone number in any common format, e.g. "+44 20 7946 0958" or "(415) 555-2671".',
      },
      default_country: {
        type: 'string',
        pattern: '^[A-Za-z]{2}$',
        description: 'ISO 3166-1 alpha-2 country for numbers written without +, e.g. "US".',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'possible', 'reason', 'e164', 'international', 'national', 'country', 'calling_code', 'type', 'uri'],
    properties: {
      valid: { type: 'boolean', description: 'A number that can be assigned in its country (length and prefix match).' },
      possible: { type: 'boolean', description: 'Length is plausible for the country.' },
      reason: reasonSchema,
      e164: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      international: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      national: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      country: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'ISO 3166-1 alpha-2.' },
      calling_code: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      type: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        enum: [
          'mobile',
          'fixed_line',
          'fixed_line_or_mobile',
          'toll_free',
          'premium_rate',
          'shared_cost',
          'voip',
          'personal_number',
          'pager',
          'uan',
          'voicemail',
          null,
        ],
      },
      uri: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'tel: URI.' },
    },
  },
  examples: [
    {
      input: { phone: '(415) 555-2671', default_country: 'US' },
      output: {
        valid: true,
        possible: true,
        reason: null,
        e164: '+14155552671',
        international: '+1 415 555 2671',
        national: '(415) 555-2671',
        country: 'US',
        calling_code: '1',
        type: 'fixed_line_or_mobile',
        uri: 'tel:+14155552671',
      },
    },
    {
      input: { phone: '+33 6 12 34 56 78' },
      output: {
        valid: true,
        possible: true,
        reason: null,
        e164: '+33612345678',
        international: '+33 6 12 34 56 78',
        national: '06 12 34 56 78',
        country: 'FR',
        calling_code: '33',
        type: 'mobile',
        uri: 'tel:+33612345678',
      },
    },
    {
      input: { phone: '555-0100' },
      output: {
        valid: false,
        possible: false,
        reason: 'cannot parse the number: add the +country code or a default_country',
        e164: null,
        international: null,
        national: null,
        country: null,
        calling_code: null,
        type: null,
        uri: null,
      },
    },
  ],
  run({ phone: raw, default_country }: { phone: string; default_country?: string }) {
    const empty = { e164: null, international: null, national: null, country: null, calling_code: null, type: null, uri: null };
    const cc = default_country?.toUpperCase();
    if (cc && !isSupportedCountry(cc))
      return { valid: false, possible: false, reason: `unknown default_country "${default_country}"`, ...empty };
    const n = parsePhoneNumberFromString(raw, cc as CountryCode | undefined);
    if (!n)
      return { valid: false, possible: false, reason: 'cannot parse the number: add the +country code or a default_country', ...empty };
    const valid = n.isValid();
    const possible = n.isPossible();
    const type = n.getType();
    return {
      valid,
      possible,
      reason: valid ? null : possible ? 'no such number range in this country' : 'wrong length for this country',
      e164: n.number,
      international: n.formatInternational(),
      national: n.formatNational(),
      country: n.country ?? null,
      calling_code: n.countryCallingCode,
      type: type ? type.toLowerCase() : null,
      uri: n.getURI(),
    };
  },
};

// ---------- iban / bic ----------

const IBAN_ERRORS: Record<number, string> = {
  [ValidationErrorsIBAN.NoIBANProvided]: 'no IBAN given',
  [ValidationErrorsIBAN.NoIBANCountry]: 'unknown country code',
  [ValidationErrorsIBAN.WrongBBANLength]: 'wrong length for the country',
  [ValidationErrorsIBAN.WrongBBANFormat]: 'wrong account number format for the country',
  [ValidationErrorsIBAN.ChecksumNotNumber]: 'check digits are not a number',
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'check digits do not match (typo?)',
  [ValidationErrorsIBAN.WrongAccountBankBranchChecksum]: 'national bank/branch/account checksum does not match',
  [ValidationErrorsIBAN.QRIBANNotAllowed]: 'QR-IBAN not allowed',
};

const iban: ActionDefinition = {
  name: 'iban',
  description:
    'Validates an International Bank Account Number (country format, length, mod-97 check digits and national checksums where defined) and returns the electronic and printed forms, country, BBAN, bank and branch identifiers, and whether the country is in SEPA.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['iban'],
    properties: {
      iban: { type: 'string', maxLength: 100, description: 'IBAN with or without spaces, e.g. "DE89 3704 0044 0532 0130 00".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [
      'valid',
      'errors',
      'electronic',
      'formatted',
      'country',
      'bban',
      'bank_identifier',
      'branch_identifier',
      'account_number',
      'sepa',
    ],
    properties: {
      valid: { type: 'boolean' },
      errors: { type: 'array', items: { type: 'string' } },
      electronic: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Uppercase, no spaces.' },
      formatted: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Groups of four for printing.' },
      country: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      bban: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      bank_identifier: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      branch_identifier: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      account_number: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      sepa: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
    },
  },
  examples: [
    {
      input: { iban: 'de89 3704 0044 0532 0130 00' },
      output: {
        valid: true,
        errors: [],
        electronic: 'DE89370400440532013000',
        formatted: 'DE89 3704 0044 0532 0130 00',
        country: 'DE',
        bban: '370400440532013000',
        bank_identifier: '37040044',
        branch_identifier: null,
        account_number: '0532013000',
        sepa: true,
      },
    },
    {
      input: { iban: 'GB82 WEST 1234 5698 7654 33' },
      output: {
        valid: false,
        errors: ['check digits do not match (typo?)'],
        electronic: 'GB82WEST12345698765433',
        formatted: 'GB82 WEST 1234 5698 7654 33',
        country: 'GB',
        bban: null,
        bank_identifier: null,
        branch_identifier: null,
        account_number: null,
        sepa: true,
      },
    },
  ],
  run({ iban: raw }: { iban: string }) {
    const electronic = electronicFormatIBAN(raw) ?? '';
    const check = validateIBAN(electronic);
    const country = /^[A-Z]{2}/.test(electronic) ? electronic.slice(0, 2) : null;
    const known = country !== null && !check.errorCodes.includes(ValidationErrorsIBAN.NoIBANCountry);
    const parts = check.valid ? extractIBAN(electronic) : undefined;
    return {
      valid: check.valid,
      errors: [...new Set(check.errorCodes.map((c) => IBAN_ERRORS[c] ?? `error ${c}`))],
      electronic: electronic || null,
      formatted: electronic ? friendlyFormatIBAN(electronic) : null,
      country: known ? country : null,
      bban: parts?.bban ?? null,
      bank_identifier: parts?.bankIdentifier ?? null,
      branch_identifier: parts?.branchIdentifier ?? null,
      account_number: parts?.accountNumber ?? null,
      sepa: known ? isSEPACountry(country) : null,
    };
  },
};

const BIC_ERRORS: Record<number, string> = {
  [ValidationErrorsBIC.NoBICProvided]: 'no BIC given',
  [ValidationErrorsBIC.NoBICCountry]: 'unknown country code',
  [ValidationErrorsBIC.WrongBICFormat]: 'wrong format (8 or 11 characters: bank, country, location, optional branch)',
};

const bic: ActionDefinition = {
  name: 'bic',
  description:
    'Validates a BIC / SWIFT code (8 or 11 characters) and splits it into bank code, country, location and branch, flagging test BICs.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['bic'],
    properties: { bic: { type: 'string', maxLength: 20, description: 'BIC such as "DEUTDEFF" or "NEDSZAJJXXX".' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'errors', 'bank_code', 'country', 'location_code', 'branch_code', 'test'],
    properties: {
      valid: { type: 'boolean' },
      errors: { type: 'array', items: { type: 'string' } },
      bank_code: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      country: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      location_code: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      branch_code: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'null for 8-character BICs (primary office).' },
      test: { type: 'boolean', description: 'A test BIC (location code ending in 0).' },
    },
  },
  examples: [
    {
      input: { bic: 'deutdeff500' },
      output: { valid: true, errors: [], bank_code: 'DEUT', country: 'DE', location_code: 'FF', branch_code: '500', test: false },
    },
    {
      input: { bic: 'DEUTXXFF' },
      output: {
        valid: false,
        errors: ['unknown country code'],
        bank_code: null,
        country: null,
        location_code: null,
        branch_code: null,
        test: false,
      },
    },
  ],
  run({ bic: raw }: { bic: string }) {
    const value = raw.replace(/\s+/g, '').toUpperCase();
    const check = validateBIC(value);
    const errors = check.errorCodes.map((c) => BIC_ERRORS[c] ?? `error ${c}`);
    if (!check.valid) return { valid: false, errors, bank_code: null, country: null, location_code: null, branch_code: null, test: false };
    const p = extractBIC(value);
    return {
      valid: true,
      errors,
      bank_code: p.bankCode ?? null,
      country: p.countryCode ?? null,
      location_code: p.locationCode ?? null,
      branch_code: p.branchCode ?? null,
      test: p.testBIC,
    };
  },
};

// ---------- credit card ----------

const PROVIDERS = ['visa', 'mastercard', 'amex', 'discover', 'dinersclub', 'jcb', 'unionpay'] as const;

const creditCard: ActionDefinition = {
  name: 'credit_card',
  description:
    'Checks a payment card number: Luhn checksum, length and prefix for the known brands (Visa, Mastercard, American Express, Discover, Diners Club, JCB, UnionPay). Returns the brand and last four digits; never echoes the full number. Does not check that the card exists.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['number'],
    properties: { number: { type: 'string', maxLength: 40, description: 'Card number; spaces and dashes are ignored.' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'luhn_valid', 'brand', 'last4', 'length'],
    properties: {
      valid: { type: 'boolean', description: "Passes Luhn and matches a known brand's prefix and length." },
      luhn_valid: { type: 'boolean' },
      brand: { anyOf: [{ type: 'string' }, { type: 'null' }], enum: [...PROVIDERS, null] },
      last4: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      length: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    { input: { number: '4111 1111 1111 1111' }, output: { valid: true, luhn_valid: true, brand: 'visa', last4: '1111', length: 16 } },
    { input: { number: '3782-822463-10005' }, output: { valid: true, luhn_valid: true, brand: 'amex', last4: '0005', length: 15 } },
    { input: { number: '4111 1111 1111 1112' }, output: { valid: false, luhn_valid: false, brand: null, last4: '1112', length: 16 } },
  ],
  run({ number }: { number: string }) {
    const digits = number.replace(/[\s-]+/g, '');
    if (!/^\d+$/.test(digits)) return { valid: false, luhn_valid: false, brand: null, last4: null, length: digits.length };
    const luhn_valid = validator.isLuhnNumber(digits);
    const brand = PROVIDERS.find((p) => validator.isCreditCard(digits, { provider: p })) ?? null;
    return { valid: brand !== null || validator.isCreditCard(digits), luhn_valid, brand, last4: digits.slice(-4), length: digits.length };
  },
};

// ---------- uuid ----------

const uuid: ActionDefinition = {
  name: 'uuid',
  description:
    'Checks whether a string is a UUID (RFC 9562, versions 1-8, nil and max) and reports its version and variant. Optionally requires a specific version.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['uuid'],
    properties: {
      uuid: { type: 'string', maxLength: 100 },
      version: { type: 'integer', minimum: 1, maximum: 8, description: 'Require this version.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'version', 'variant', 'normalized'],
    properties: {
      valid: { type: 'boolean' },
      version: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'UUID version (0 for nil, 15 for max).' },
      variant: { anyOf: [{ type: 'string' }, { type: 'null' }], enum: ['rfc9562', 'ncs', 'microsoft', 'future', null] },
      normalized: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Lowercase canonical form.' },
    },
  },
  examples: [
    {
      input: { uuid: '0190A8B2-7C4D-7E3F-9A1B-2C3D4E5F6A7B' },
      output: { valid: true, version: 7, variant: 'rfc9562', normalized: '0190a8b2-7c4d-7e3f-9a1b-2c3d4e5f6a7b' },
    },
    {
      input: { uuid: '550e8400-e29b-41d4-a716-446655440000', version: 7 },
      output: { valid: false, version: 4, variant: 'rfc9562', normalized: '550e8400-e29b-41d4-a716-446655440000' },
    },
  ],
  run({ uuid: raw, version }: { uuid: string; version?: number }) {
    const value = raw
      .trim()
      .replace(/^\{(.*)\}$/, '$1')
      .replace(/^urn:uuid:/i, '');
    if (!validator.isUUID(value, 'all') && !validator.isUUID(value, 'loose'))
      return { valid: false, version: null, variant: null, normalized: null };
    const normalized = value.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(normalized))
      return { valid: false, version: null, variant: null, normalized: null };
    const v = Number.parseInt(normalized[14]!, 16);
    const n = Number.parseInt(normalized[19]!, 16);
    const variant = n < 8 ? 'ncs' : n < 12 ? 'rfc9562' : n < 14 ? 'microsoft' : 'future';
    const special = normalized === '00000000-0000-0000-0000-000000000000' || normalized === 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    const standard = special || (v >= 1 && v <= 8 && variant === 'rfc9562');
    return { valid: standard && (version === undefined || v === version), version: v, variant: special ? null : variant, normalized };
  },
};

// ---------- ip ----------

const ip: ActionDefinition = {
  name: 'ip',
  description:
    'Validates an IPv4 or IPv6 address (or CIDR range) and classifies it: private, loopback, link-local, multicast, reserved, unicast (public)… Use to check user input or decide whether an address is internal.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['ip'],
    properties: {
      ip: { type: 'string', maxLength: 100, description: 'Address such as "192.168.1.10", "2001:db8::1" or a CIDR "10.0.0.0/8".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'version', 'normalized', 'range', 'public', 'prefix_length'],
    properties: {
      valid: { type: 'boolean' },
      version: { anyOf: [{ type: 'integer' }, { type: 'null' }], enum: [4, 6, null] },
      normalized: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Canonical form (IPv6 compressed).' },
      range: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description:
          'ipaddr.js range: unicast, private, loopback, linkLocal, multicast, carrierGradeNat, reserved, uniqueLocal, ipv4Mapped…',
      },
      public: { anyOf: [{ type: 'boolean' }, { type: 'null' }], description: 'Globally routable unicast.' },
      prefix_length: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'For CIDR input.' },
    },
  },
  examples: [
    {
      input: { ip: '192.168.1.10' },
      output: { valid: true, version: 4, normalized: '192.168.1.10', range: 'private', public: false, prefix_length: null },
    },
    {
      input: { ip: '2001:4860:4860:0:0:0:0:8888' },
      output: { valid: true, version: 6, normalized: '2001:4860:4860::8888', range: 'unicast', public: true, prefix_length: null },
    },
    {
      input: { ip: '10.0.0.0/8' },
      output: { valid: true, version: 4, normalized: '10.0.0.0', range: 'private', public: false, prefix_length: 8 },
    },
    {
      input: { ip: '256.1.1.1' },
      output: { valid: false, version: null, normalized: null, range: null, public: null, prefix_length: null },
    },
  ],
  run({ ip: raw }: { ip: string }) {
    const value = raw.trim();
    const invalid = { valid: false, version: null, normalized: null, range: null, public: null, prefix_length: null };
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    let prefix: number | null = null;
    try {
      if (value.includes('/')) {
        const [a, p] = ipaddr.parseCIDR(value);
        addr = a;
        prefix = p;
      } else {
        if (!ipaddr.isValid(value) || (value.includes('.') && !value.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(value)))
          return invalid;
        addr = ipaddr.parse(value);
      }
    } catch {
      return invalid;
    }
    const range = addr.range();
    return {
      valid: true,
      version: addr.kind() === 'ipv4' ? 4 : 6,
      normalized: addr.toString(),
      range,
      public: range === 'unicast',
      prefix_length: prefix,
    };
  },
};

// ---------- postal code ----------

const POSTAL_LOCALES = [...validator.isPostalCodeLocales].sort();

const postalCode: ActionDefinition = {
  name: 'postal_code',
  description: `Checks that a postal / ZIP code has the right format for a country (${POSTAL_LOCALES.length} countries, e.g. US 12345 or 12345-6789, GB "SW1A 1AA", DE 5 digits). Format only: it does not check that the code exists.`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'country'],
    properties: {
      code: { type: 'string', maxLength: 20 },
      country: { type: 'string', enum: POSTAL_LOCALES, description: 'ISO 3166-1 alpha-2 country code (uppercase).' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'country'],
    properties: { valid: { type: 'boolean' }, country: { type: 'string' } },
  },
  examples: [
    { input: { code: '94103-1234', country: 'US' }, output: { valid: true, country: 'US' } },
    { input: { code: 'SW1A 1AA', country: 'GB' }, output: { valid: true, country: 'GB' } },
    { input: { code: '1234', country: 'DE' }, output: { valid: false, country: 'DE' } },
  ],
  run({ code, country }: { code: string; country: string }) {
    return { valid: validator.isPostalCode(code.trim(), country as validator.PostalCodeLocale), country };
  },
};

const mod: ModuleDefinition = {
  name: 'validate',
  version: '1.0.0',
  title: 'Data validation',
  description:
    'Validate and normalise everyday identifiers: email addresses, URLs, phone numbers (libphonenumber: E.164, country, line type), IBANs and BIC/SWIFT codes (ibantools), payment card numbers (Luhn + brand), UUIDs, IP addresses with range classification, and postal codes for 60+ countries.',
  category: 'validation',
  tags: [
    'validate',
    'validation',
    'email',
    'url',
    'phone',
    'e164',
    'iban',
    'bic',
    'swift',
    'credit card',
    'luhn',
    'uuid',
    'ip',
    'postal code',
    'zip',
  ],
  actions: [email, url, phone, iban, bic, creditCard, uuid, ip, postalCode],
};

export default mod;
