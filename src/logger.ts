import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs. Secrets are redacted wherever they might appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        'headers["x-api-key"]',
        'headers.authorization',
        'headers.cookie',
        'headers["x-admin-token"]',
        '*.api_key',
        '*.secret',
        '*.password',
      ],
      censor: '[redacted]',
    },
  });
}
