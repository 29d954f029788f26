/** What the browser sees of the dashboard session (`useSession`, page props): no token, no key. */
export interface DashboardSessionView {
  kind: 'password' | 'api_key';
  email: string | null;
  tenantId: string | null;
  admin: boolean;
  /** Set when the session can no longer be refreshed: the user must sign in again. */
  error: 'refresh_failed' | null;
}
