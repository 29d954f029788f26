'use client';

import { z } from 'zod';

// The pages' Content-Security-Policy allows no eval (proxy.ts). Zod would probe for it with a
// `new Function` the first time it parses an object: the probe's error is caught, but the browser
// still reports a CSP violation. Without the probe zod parses the same, without its compiled fast path.
z.config({ jitless: true });

/** Rendered once by the root layout so that this module runs in the browser before any form parses. */
export function StrictCsp() {
  return null;
}
