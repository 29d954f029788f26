import type { Metadata } from 'next';
import { ConsentFlow } from '@/components/oauth/consent-flow';

export const metadata: Metadata = { title: 'Authorize an application', robots: { index: false } };

/**
 * The OAuth authorization server's interaction page: an MCP client or a native app (`amp login
 * --browser`) sent the user here to sign in and decide which scopes it gets. Everything happens through the JSON endpoints
 * under /oauth/interaction/<uid>; the page itself holds no secret.
 */
export default async function ConsentPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return <ConsentFlow uid={uid} />;
}
