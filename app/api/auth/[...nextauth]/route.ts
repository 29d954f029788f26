import NextAuth from 'next-auth';
import { authOptions } from '@/app/_lib/auth-options';

// The options read the configuration server.ts hands to Next, so they are built per request.
type Handler = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => Promise<Response>;
const handler: Handler = (req, ctx) => NextAuth(req as never, ctx as never, authOptions()) as Promise<Response>;

export { handler as GET, handler as POST };
