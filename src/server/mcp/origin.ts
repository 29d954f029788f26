/**
 * DNS-rebinding protection for /api/mcp (MCP transports spec, "Security Warning"): a request
 * that carries an `Origin` header comes from a browser, and is served only when that origin is
 * the service's own. Requests without `Origin` (agents, scripts, server-to-server) pass.
 *
 * "Own" means either exactly the origin of PUBLIC_BASE_URL, or same-origin with the request's
 * `Host` when that host is a loopback name (a browser really on http://localhost:PORT). A
 * non-loopback Host is not trusted on its own: after a DNS rebinding the attacker's page sends
 * `Origin: http://evil.example` and `Host: evil.example` — same-origin with each other — so
 * comparing Origin with Host alone would let exactly the attack through.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, publicBaseUrl: string): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.origin === safeOrigin(publicBaseUrl)) return true;
  return host !== undefined && parsed.host === host.toLowerCase() && isLoopback(parsed.hostname);
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}
