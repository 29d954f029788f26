import { createHash, createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { v4 as uuidv4, v5 as uuidv5, v7 as uuidv7, validate as uuidValidate, version as uuidVersion } from 'uuid';
import { ActionInputError, type ModuleDefinition } from '../types';

const scryptAsync = promisify(scrypt) as (
  password: string | Buffer,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const MAX_TEXT = 1_048_576;
const HASH_ALGORITHMS = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha3-256', 'sha3-512'] as const;
const HMAC_ALGORITHMS = ['sha1', 'sha256', 'sha384', 'sha512'] as const;
const OUTPUT_ENCODINGS = ['hex', 'base64', 'base64url'] as const;
type Encoding = (typeof OUTPUT_ENCODINGS)[number];
type InputEncoding = 'utf8' | 'base64' | 'hex';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Decodes text in the given encoding, refusing malformed base64/hex (Buffer.from silently skips bad characters). */
function decodeInput(value: string, encoding: InputEncoding, field: string): Buffer {
  if (encoding === 'utf8') return Buffer.from(value, 'utf8');
  if (encoding === 'hex') {
    if (!HEX.test(value)) throw new ActionInputError(`${field} is not valid hex (an even number of 0-9a-f characters).`);
    return Buffer.from(value, 'hex');
  }
  return decodeBase64(value, field);
}

function decodeBase64(value: string, field: string, urlSafe?: boolean): Buffer {
  const compact = value.replace(/\s+/g, '');
  const ok =
    urlSafe === true ? BASE64URL.test(compact) : urlSafe === false ? BASE64.test(compact) : BASE64.test(compact) || BASE64URL.test(compact);
  if (!ok || compact.replace(/=+$/, '').length % 4 === 1) throw new ActionInputError(`${field} is not valid base64.`);
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

const encodingInput = (description: string) => ({ type: 'string', enum: ['utf8', 'base64', 'hex'], default: 'utf8', description });
const outputEncoding = {
  type: 'string',
  enum: OUTPUT_ENCODINGS,
  default: 'hex',
  description: 'Encoding of the digest: hex (lower-case), base64 or base64url (no padding).',
};

const TOKEN_ALPHABETS: Record<string, string> = {
  alphanumeric: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  alphanumeric_lower: 'abcdefghijklmnopqrstuvwxyz0123456789',
  hex: '0123456789abcdef',
  numeric: '0123456789',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  unambiguous: 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789',
};

const UUID_NAMESPACES: Record<string, string> = { dns: uuidv5.DNS, url: uuidv5.URL };

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

const crypto: ModuleDefinition = {
  name: 'crypto',
  version: '1.0.0',
  title: 'Crypto',
  description:
    'Hashes (MD5, SHA-1, SHA-2, SHA-3), HMAC signatures and their verification, UUID v4/v5/v7, secure random bytes and tokens, base64 encoding, constant-time comparison and scrypt password hashes.',
  category: 'security',
  tags: ['hash', 'sha256', 'md5', 'hmac', 'uuid', 'random', 'token', 'base64', 'password', 'scrypt', 'signature'],
  actions: [
    {
      name: 'hash',
      description:
        'Compute a cryptographic digest (md5, sha1, sha256, sha512, sha3…) of a text or of base64/hex-encoded bytes. Use for checksums, cache keys and integrity checks.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', maxLength: MAX_TEXT, description: 'The data to hash (UTF-8 text unless input_encoding says otherwise).' },
          algorithm: { type: 'string', enum: HASH_ALGORITHMS, default: 'sha256', description: 'Digest algorithm.' },
          encoding: outputEncoding,
          input_encoding: encodingInput('How `text` is encoded: utf8 (plain text), base64 or hex bytes.'),
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['hash', 'algorithm', 'encoding'],
        properties: { hash: { type: 'string' }, algorithm: { type: 'string' }, encoding: { type: 'string' } },
      },
      examples: [
        {
          input: { text: 'hello', algorithm: 'sha256' },
          output: { hash: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824', algorithm: 'sha256', encoding: 'hex' },
        },
        {
          input: { text: 'hello', algorithm: 'md5', encoding: 'base64' },
          output: { hash: 'XUFAKrxLKna5cZ2REBfFkg==', algorithm: 'md5', encoding: 'base64' },
        },
      ],
      inline: true,
      run(input: { text: string; algorithm?: string; encoding?: Encoding; input_encoding?: InputEncoding }) {
        const algorithm = input.algorithm ?? 'sha256';
        const encoding = input.encoding ?? 'hex';
        const data = decodeInput(input.text, input.input_encoding ?? 'utf8', 'text');
        return { hash: createHash(algorithm).update(data).digest(encoding), algorithm, encoding };
      },
    },
    {
      name: 'hmac',
      description:
        'Compute an HMAC signature of a message with a secret key (e.g. to sign a webhook payload or an API request). Returns the signature in hex or base64.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['message', 'key'],
        properties: {
          message: {
            type: 'string',
            maxLength: MAX_TEXT,
            description: 'The message to sign (UTF-8 unless message_encoding says otherwise).',
          },
          key: { type: 'string', minLength: 1, maxLength: 4096, description: 'The secret key (UTF-8 unless key_encoding says otherwise).' },
          algorithm: { type: 'string', enum: HMAC_ALGORITHMS, default: 'sha256', description: 'Hash function of the HMAC.' },
          encoding: outputEncoding,
          message_encoding: encodingInput('How `message` is encoded.'),
          key_encoding: encodingInput('How `key` is encoded (e.g. base64 for a binary secret).'),
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['signature', 'algorithm', 'encoding'],
        properties: { signature: { type: 'string' }, algorithm: { type: 'string' }, encoding: { type: 'string' } },
      },
      examples: [
        {
          input: { message: 'The quick brown fox jumps over the lazy dog', key: 'key' },
          output: { signature: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8', algorithm: 'sha256', encoding: 'hex' },
        },
      ],
      inline: true,
      run(input: {
        message: string;
        key: string;
        algorithm?: string;
        encoding?: Encoding;
        message_encoding?: InputEncoding;
        key_encoding?: InputEncoding;
      }) {
        const algorithm = input.algorithm ?? 'sha256';
        const encoding = input.encoding ?? 'hex';
        const key = decodeInput(input.key, input.key_encoding ?? 'utf8', 'key');
        const message = decodeInput(input.message, input.message_encoding ?? 'utf8', 'message');
        return { signature: createHmac(algorithm, key).update(message).digest(encoding), algorithm, encoding };
      },
    },
    {
      name: 'hmac_verify',
      description:
        'Check an HMAC signature against a message and secret in constant time (e.g. verify a webhook signature header). An optional prefix such as "sha256=" on the signature is ignored.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['message', 'key', 'signature'],
        properties: {
          message: { type: 'string', maxLength: MAX_TEXT, description: 'The signed message (UTF-8).' },
          key: { type: 'string', minLength: 1, maxLength: 4096, description: 'The secret key.' },
          signature: {
            type: 'string',
            maxLength: 1024,
            description: 'The signature to check, hex or base64 (an "algo=" prefix is allowed).',
          },
          algorithm: { type: 'string', enum: HMAC_ALGORITHMS, default: 'sha256', description: 'Hash function of the HMAC.' },
          encoding: { type: 'string', enum: OUTPUT_ENCODINGS, default: 'hex', description: 'Encoding of `signature`.' },
          key_encoding: encodingInput('How `key` is encoded.'),
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['valid', 'expected'],
        properties: {
          valid: { type: 'boolean', description: 'True when the signature matches.' },
          expected: { type: 'string', description: 'The signature computed from message and key, in the same encoding.' },
        },
      },
      examples: [
        {
          input: {
            message: 'The quick brown fox jumps over the lazy dog',
            key: 'key',
            signature: 'sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
          },
          output: { valid: true, expected: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8' },
        },
        {
          input: { message: 'tampered', key: 'key', signature: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8' },
          output: { valid: false, expected: '6adb5237757a109f2d4058eef348a39659c04310488cf83feebd2560934ec9be' },
        },
      ],
      inline: true,
      run(input: {
        message: string;
        key: string;
        signature: string;
        algorithm?: string;
        encoding?: Encoding;
        key_encoding?: InputEncoding;
      }) {
        const algorithm = input.algorithm ?? 'sha256';
        const encoding = input.encoding ?? 'hex';
        const key = decodeInput(input.key, input.key_encoding ?? 'utf8', 'key');
        const expected = createHmac(algorithm, key).update(input.message, 'utf8').digest();
        let given = input.signature.trim().replace(/^[a-z0-9-]+=/i, '');
        if (encoding === 'hex') given = given.toLowerCase();
        const expectedText = expected.toString(encoding);
        const a = createHash('sha256').update(given).digest();
        const b = createHash('sha256').update(expectedText).digest();
        return { valid: timingSafeEqual(a, b), expected: expectedText };
      },
    },
    {
      name: 'uuid',
      description: 'Generate random UUIDs: version 4 (random) or version 7 (time-ordered, sorts by creation time; good for database keys).',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: {
          version: { type: 'integer', enum: [4, 7], default: 4, description: 'UUID version: 4 (random) or 7 (Unix-time ordered).' },
          count: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'How many UUIDs to generate.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['uuids', 'version'],
        properties: {
          uuids: { type: 'array', items: { type: 'string', format: 'uuid' } },
          version: { type: 'integer' },
        },
      },
      examples: [
        { input: {}, output: { uuids: ['3b241101-e2bb-4255-8caf-4136c566a962'], version: 4 } },
        {
          input: { version: 7, count: 2 },
          output: { uuids: ['0192b1a2-6e51-7c3a-9f3e-5d7c2a1b4e60', '0192b1a2-6e51-7c3b-8a41-0f6d2e9c7b13'], version: 7 },
        },
      ],
      inline: true,
      run(input: { version?: 4 | 7; count?: number }) {
        const version = input.version ?? 4;
        const generate = version === 7 ? uuidv7 : uuidv4;
        return { uuids: Array.from({ length: input.count ?? 1 }, () => generate()), version };
      },
    },
    {
      name: 'uuid_from_name',
      description:
        'Derive a deterministic name-based UUID (version 5, SHA-1) from a name and a namespace: the same name always gives the same UUID. Namespace "dns", "url" or any UUID.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: {
            type: 'string',
            maxLength: 10_000,
            description: 'The name to derive from (e.g. a domain, URL or any stable identifier).',
          },
          namespace: { type: 'string', maxLength: 36, default: 'url', description: '"dns", "url", or a UUID to use as the namespace.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['uuid', 'namespace'],
        properties: { uuid: { type: 'string', format: 'uuid' }, namespace: { type: 'string', format: 'uuid' } },
      },
      examples: [
        {
          input: { name: 'example.com', namespace: 'dns' },
          output: { uuid: 'cfbff0d1-9375-5685-968c-48ce8b15ae17', namespace: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' },
        },
      ],
      inline: true,
      run(input: { name: string; namespace?: string }) {
        const ns = input.namespace ?? 'url';
        const namespace = UUID_NAMESPACES[ns.toLowerCase()] ?? ns.toLowerCase();
        if (!uuidValidate(namespace)) throw new ActionInputError('namespace must be "dns", "url" or a UUID.');
        return { uuid: uuidv5(input.name, namespace), namespace };
      },
    },
    {
      name: 'uuid_inspect',
      description:
        'Check whether a string is a valid UUID and report its version and variant; for version 7 (and 1) UUIDs, also the embedded creation time.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['uuid'],
        properties: { uuid: { type: 'string', maxLength: 100, description: 'The string to inspect.' } },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['valid', 'version', 'variant', 'timestamp'],
        properties: {
          valid: { type: 'boolean' },
          version: {
            anyOf: [{ type: 'integer' }, { type: 'null' }],
            description: 'UUID version (1-8), null when invalid; 0 for the nil UUID, 15 for the max UUID.',
          },
          variant: { anyOf: [{ type: 'string' }, { type: 'null' }], enum: ['rfc9562', 'ncs', 'microsoft', 'future', null] },
          timestamp: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'ISO 8601 creation time for v1/v6/v7 UUIDs.' },
        },
      },
      examples: [
        {
          input: { uuid: '01890a5d-ac96-774b-bcce-b302099a8057' },
          output: { valid: true, version: 7, variant: 'rfc9562', timestamp: '2023-06-30T03:34:18.518Z' },
        },
        { input: { uuid: 'not-a-uuid' }, output: { valid: false, version: null, variant: null, timestamp: null } },
      ],
      inline: true,
      run(input: { uuid: string }) {
        const uuid = input.uuid.trim().toLowerCase();
        if (!uuidValidate(uuid)) return { valid: false, version: null, variant: null, timestamp: null };
        const version = uuidVersion(uuid);
        const hex = uuid.replace(/-/g, '');
        const v = parseInt(hex[16]!, 16);
        const variant = version === 0 || version === 15 ? null : v < 8 ? 'ncs' : v < 12 ? 'rfc9562' : v < 14 ? 'microsoft' : 'future';
        let timestamp: string | null = null;
        if (version === 7) timestamp = new Date(parseInt(hex.slice(0, 12), 16)).toISOString();
        else if (version === 1 || version === 6) {
          const ticks =
            version === 1
              ? BigInt(`0x${hex.slice(13, 16)}${hex.slice(8, 12)}${hex.slice(0, 8)}`)
              : BigInt(`0x${hex.slice(0, 12)}${hex.slice(13, 16)}`);
          const ms = Number((ticks - 122192928000000000n) / 10000n);
          timestamp = new Date(ms).toISOString();
        }
        return { valid: true, version, variant, timestamp };
      },
    },
    {
      name: 'random_bytes',
      description: 'Generate cryptographically secure random bytes, returned as hex, base64 or base64url (e.g. for keys, salts, nonces).',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: {
          length: { type: 'integer', minimum: 1, maximum: 4096, default: 32, description: 'Number of random bytes.' },
          encoding: { type: 'string', enum: OUTPUT_ENCODINGS, default: 'hex', description: 'Output encoding.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['value', 'length', 'encoding'],
        properties: { value: { type: 'string' }, length: { type: 'integer' }, encoding: { type: 'string' } },
      },
      examples: [{ input: { length: 8 }, output: { value: '9f2c4e1ab07d3e55', length: 8, encoding: 'hex' } }],
      inline: true,
      run(input: { length?: number; encoding?: Encoding }) {
        const length = input.length ?? 32;
        const encoding = input.encoding ?? 'hex';
        return { value: randomBytes(length).toString(encoding), length, encoding };
      },
    },
    {
      name: 'random_token',
      description:
        'Generate a secure random string of a given length from a character set (alphanumeric, hex, numeric, base64url, unambiguous, or custom), e.g. for API keys, passwords, invite or verification codes. Unbiased.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: {
          length: { type: 'integer', minimum: 1, maximum: 1024, default: 32, description: 'Number of characters.' },
          alphabet: {
            type: 'string',
            enum: Object.keys(TOKEN_ALPHABETS),
            default: 'alphanumeric',
            description: 'Character set (ignored when `characters` is given).',
          },
          characters: { type: 'string', minLength: 2, maxLength: 256, description: 'A custom character set (distinct characters).' },
          prefix: { type: 'string', maxLength: 32, default: '', description: 'Text put before the random part (e.g. "sk_").' },
          count: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'How many tokens.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['tokens', 'entropy_bits'],
        properties: {
          tokens: { type: 'array', items: { type: 'string' } },
          entropy_bits: { type: 'number', description: 'Entropy of the random part of each token.' },
        },
      },
      examples: [
        { input: { length: 12 }, output: { tokens: ['q3ZbR8xK1mWp'], entropy_bits: 71.45 } },
        { input: { length: 6, alphabet: 'numeric', count: 2 }, output: { tokens: ['402913', '775180'], entropy_bits: 19.93 } },
      ],
      run(input: { length?: number; alphabet?: string; characters?: string; prefix?: string; count?: number }) {
        const chars = [...new Set(Array.from(input.characters ?? TOKEN_ALPHABETS[input.alphabet ?? 'alphanumeric']!))];
        if (chars.length < 2) throw new ActionInputError('characters must contain at least 2 distinct characters.');
        const length = input.length ?? 32;
        const make = () => (input.prefix ?? '') + Array.from({ length }, () => chars[randomInt(chars.length)]).join('');
        return {
          tokens: Array.from({ length: input.count ?? 1 }, make),
          entropy_bits: Math.round(length * Math.log2(chars.length) * 100) / 100,
        };
      },
    },
    {
      name: 'base64_encode',
      description:
        'Encode UTF-8 text (or hex bytes) as base64; url_safe gives the URL- and filename-safe alphabet (- and _) without padding, as used in JWTs.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', maxLength: MAX_TEXT, description: 'The text to encode.' },
          url_safe: { type: 'boolean', default: false, description: 'Use base64url (RFC 4648 §5) without padding.' },
          input_encoding: { type: 'string', enum: ['utf8', 'hex'], default: 'utf8', description: 'How `text` is encoded.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['base64', 'bytes'],
        properties: { base64: { type: 'string' }, bytes: { type: 'integer', description: 'Number of bytes encoded.' } },
      },
      examples: [
        { input: { text: 'Hello, world!' }, output: { base64: 'SGVsbG8sIHdvcmxkIQ==', bytes: 13 } },
        { input: { text: 'ÿ€?>', url_safe: true }, output: { base64: 'w7_igqw_Pg', bytes: 7 } },
      ],
      inline: true,
      run(input: { text: string; url_safe?: boolean; input_encoding?: 'utf8' | 'hex' }) {
        const data = decodeInput(input.text, input.input_encoding ?? 'utf8', 'text');
        return { base64: data.toString(input.url_safe ? 'base64url' : 'base64'), bytes: data.length };
      },
    },
    {
      name: 'base64_decode',
      description:
        'Decode base64 or base64url (padding optional, whitespace ignored) to UTF-8 text, or to hex when the bytes are binary. Fails on characters outside the base64 alphabets.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['base64'],
        properties: {
          base64: { type: 'string', maxLength: 1_400_000, description: 'The base64 or base64url string.' },
          output_encoding: { type: 'string', enum: ['utf8', 'hex'], default: 'utf8', description: 'utf8 text or hex bytes.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'bytes', 'valid_utf8'],
        properties: {
          text: { type: 'string', description: 'The decoded data (invalid UTF-8 sequences become U+FFFD in utf8 mode).' },
          bytes: { type: 'integer' },
          valid_utf8: { type: 'boolean', description: 'Whether the bytes are valid UTF-8.' },
        },
      },
      examples: [
        { input: { base64: 'SGVsbG8sIHdvcmxkIQ==' }, output: { text: 'Hello, world!', bytes: 13, valid_utf8: true } },
        { input: { base64: 'w7_igqw_Pg' }, output: { text: 'ÿ€?>', bytes: 7, valid_utf8: true } },
        { input: { base64: '3q2+7w==', output_encoding: 'hex' }, output: { text: 'deadbeef', bytes: 4, valid_utf8: false } },
      ],
      inline: true,
      run(input: { base64: string; output_encoding?: 'utf8' | 'hex' }) {
        const data = decodeBase64(input.base64, 'base64');
        let validUtf8 = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(data);
        } catch {
          validUtf8 = false;
        }
        return { text: data.toString(input.output_encoding === 'hex' ? 'hex' : 'utf8'), bytes: data.length, valid_utf8: validUtf8 };
      },
    },
    {
      name: 'compare',
      description:
        'Compare two secrets (tokens, signatures, API keys) for equality in constant time, so the comparison leaks neither content nor length through timing.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['a', 'b'],
        properties: {
          a: { type: 'string', maxLength: 65_536, description: 'First value.' },
          b: { type: 'string', maxLength: 65_536, description: 'Second value.' },
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['equal'], properties: { equal: { type: 'boolean' } } },
      examples: [
        { input: { a: 'sk_live_abc123', b: 'sk_live_abc123' }, output: { equal: true } },
        { input: { a: 'sk_live_abc123', b: 'sk_live_abc124' }, output: { equal: false } },
      ],
      inline: true,
      run(input: { a: string; b: string }) {
        const a = createHash('sha256').update(input.a, 'utf8').digest();
        const b = createHash('sha256').update(input.b, 'utf8').digest();
        return { equal: timingSafeEqual(a, b) && input.a === input.b };
      },
    },
    {
      name: 'password_hash',
      description:
        'Hash a password with scrypt and a random salt for storage. Returns a self-describing string ($scrypt$…) to check later with password_verify.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['password'],
        properties: { password: { type: 'string', minLength: 1, maxLength: 1024, description: 'The password to hash.' } },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['hash', 'algorithm'],
        properties: { hash: { type: 'string', pattern: '^\\$scrypt\\$' }, algorithm: { type: 'string', const: 'scrypt' } },
      },
      examples: [
        {
          input: { password: 'correct horse battery staple' },
          output: { hash: '$scrypt$ln=14,r=8,p=1$R2mVbq1V7eC0b2lDkKQ1Ng$V0a4m1Vb0Yy7q2cQ3wJ3J7d1mX0bq4x2K6l3n9W0c1E', algorithm: 'scrypt' },
        },
      ],
      async run(input: { password: string }) {
        const salt = randomBytes(16);
        const key = await scryptAsync(input.password.normalize('NFKC'), salt, SCRYPT.keylen, {
          N: SCRYPT.N,
          r: SCRYPT.r,
          p: SCRYPT.p,
          maxmem: 64 * 1024 * 1024,
        });
        return {
          hash: `$scrypt$ln=${Math.log2(SCRYPT.N)},r=${SCRYPT.r},p=${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`,
          algorithm: 'scrypt',
        };
      },
    },
    {
      name: 'password_verify',
      description: 'Check a password against a hash produced by password_hash ($scrypt$ln=…,r=…,p=…$salt$key), in constant time.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['password', 'hash'],
        properties: {
          password: { type: 'string', maxLength: 1024, description: 'The password to check.' },
          hash: { type: 'string', maxLength: 512, description: 'The stored hash from password_hash.' },
        },
      },
      outputSchema: { type: 'object', additionalProperties: false, required: ['valid'], properties: { valid: { type: 'boolean' } } },
      examples: [
        {
          input: {
            password: 'correct horse battery staple',
            hash: '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$bHXojks4sm1uMH4CDw9EcLZ_muyLxbYYc9xGzvNAnuQ',
          },
          output: { valid: true },
        },
        {
          input: { password: 'wrong', hash: '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$bHXojks4sm1uMH4CDw9EcLZ_muyLxbYYc9xGzvNAnuQ' },
          output: { valid: false },
        },
      ],
      async run(input: { password: string; hash: string }) {
        const m = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(input.hash.trim());
        if (!m) throw new ActionInputError('hash is not a $scrypt$ hash produced by password_hash.');
        const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
        if (ln < 1 || ln > 20 || r < 1 || r > 32 || p < 1 || p > 16) throw new ActionInputError('hash has out-of-range scrypt parameters.');
        const salt = Buffer.from(m[4]!, 'base64url');
        const expected = Buffer.from(m[5]!, 'base64url');
        if (expected.length < 16 || expected.length > 64) throw new ActionInputError('hash has an invalid key length.');
        const N = 2 ** ln;
        if (128 * N * r > 256 * 1024 * 1024) throw new ActionInputError('hash asks for more than 256 MiB of scrypt memory.');
        const key = await scryptAsync(input.password.normalize('NFKC'), salt, expected.length, { N, r, p, maxmem: 300 * 1024 * 1024 });
        return { valid: timingSafeEqual(key, expected) };
      },
    },
  ],
};

export default crypto;
