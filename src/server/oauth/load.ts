/** The authorization server's module (src/server/oauth/provider.ts, with oidc-provider), loaded on first use. */
export const loadProvider = () => import('./provider');
