import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * An in-memory OAuthClientProvider, as an MCP client application keeps one. With a
 * `clientMetadataUrl` the SDK takes the Client ID Metadata Document path, without one it
 * registers (DCR). `authorizationUrl` is where the SDK sent the user.
 */
export class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly clientName = 'Vitest MCP client',
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier');
    return this.verifier;
  }
}

/** A cookie jar good enough for one browser-like flow against one origin. */
export class Jar {
  cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * What a person does in the browser with an authorization URL of the built-in server: the
 * consent page's requests (sign in, then grant `scopes`, all offered by default, or abort), then
 * the redirects back to the client's redirect URI, which is fetched (a loopback listener gets it).
 */
export async function consentInBrowser(
  authorizationUrl: string,
  signer: { email: string; password: string },
  choice: { scopes?: string[] } | 'abort' = {},
): Promise<URL> {
  const jar = new Jar();
  const url = new URL(authorizationUrl);
  const redirectUri = url.searchParams.get('redirect_uri')!;
  let res = await fetch(url, { redirect: 'manual' });
  jar.take(res);
  const page = new URL(res.headers.get('location')!, url);
  const uid = page.pathname.split('/').pop()!;
  const api = new URL(`/oauth/interaction/${uid}`, url).href;
  const post = (path: string, body: unknown) =>
    fetch(`${api}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  let details = (await (await fetch(api)).json()) as { step: string; scopes: string[] };
  if (details.step === 'login') details = (await (await post('login', signer)).json()) as typeof details;
  const decided = choice === 'abort' ? await post('abort', {}) : await post('consent', { scopes: choice.scopes ?? details.scopes });
  let next = new URL(((await decided.json()) as { redirect_to: string }).redirect_to);
  for (let hops = 0; hops < 5; hops++) {
    res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    next = new URL(res.headers.get('location')!, next);
    if (next.href.startsWith(redirectUri)) {
      await fetch(next);
      return next;
    }
  }
  throw new Error('no redirect back to the client');
}
