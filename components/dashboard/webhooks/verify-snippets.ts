/**
 * Receiver code that verifies a delivery's Standard Webhooks signature (docs/webhooks.md "Two
 * signatures"): `webhook-signature` holds `v1,` + base64 HMAC-SHA256 of
 * `${webhook-id}.${webhook-timestamp}.${rawBody}`, keyed with the bytes after `whsec_` (base64)
 * for a `whsec_` secret, else the secret's own bytes. The secret is read from the environment;
 * the real one is written in only right after the user created or rotated it.
 * tests/dashboard/verify-snippets.test.ts runs both snippets against signed deliveries.
 */

export type SnippetLanguage = 'node' | 'python';

/** The secret as the snippet's comment names it: in full when just shown, else by its masked form. */
function secretComment(secret: { value?: string; masked?: string }): string {
  return secret.value
    ? 'shown once: keep it in your secret store'
    : `your signing secret${secret.masked ? ` (ends in ${secret.masked.replace(/^…/, '')})` : ''}`;
}

export function nodeSnippet(secret: { value?: string; masked?: string } = {}): string {
  const source = secret.value ? JSON.stringify(secret.value) : 'process.env.WEBHOOK_SECRET';
  return `import { createHmac, timingSafeEqual } from 'node:crypto';

const secret = ${source}; // ${secretComment(secret)}
const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);

/** rawBody: the request body exactly as received (Buffer or string, never re-serialised JSON). */
export function verifyWebhook(rawBody, headers) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (!id || !timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\`).update(rawBody).digest();
  return String(headers['webhook-signature'] ?? '').split(' ').some((signature) => {
    const [version, value = ''] = signature.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
`;
}

export function pythonSnippet(secret: { value?: string; masked?: string } = {}): string {
  const source = secret.value ? JSON.stringify(secret.value) : 'os.environ["WEBHOOK_SECRET"]';
  return `import base64, hashlib, hmac, os, time

secret = ${source}  # ${secretComment(secret)}
encoded = secret[6:] + "=" * (-len(secret[6:]) % 4)  # also the older unpadded base64url whsec_ secrets
key = base64.b64decode(encoded, altchars=b"-_") if secret.startswith("whsec_") else secret.encode()

def verify_webhook(raw_body: bytes, headers) -> bool:
    """raw_body: the request body exactly as received; headers: the request headers."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    if not msg_id or not timestamp or abs(time.time() - int(timestamp)) > 300:
        return False
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(expected, signature[3:])
        for signature in headers.get("webhook-signature", "").split(" ")
        if signature.startswith("v1,")
    )
`;
}
