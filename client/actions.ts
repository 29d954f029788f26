/**
 * The server actions the sign-in, recovery and account forms call (app/_lib/actions.ts), as the
 * forms receive them from their pages: their shapes only, so no server code reaches the browser.
 */
export interface ActionResult<T = undefined> {
  ok: boolean;
  message: string;
  data?: T;
}

export type SignUpAction = (input: { email: string; password: string }) => Promise<ActionResult<{ confirm: boolean }>>;
export type ResendConfirmationAction = (input: { email: string }) => Promise<ActionResult>;
export type RequestPasswordResetAction = (input: { email: string }) => Promise<ActionResult>;
export type UpdatePasswordWithRecoveryAction = (input: { accessToken: string; password: string }) => Promise<ActionResult>;

export interface AccountActions {
  changePassword(input: { currentPassword: string; newPassword: string }): Promise<ActionResult>;
  createTenant(input: { agentName: string }): Promise<ActionResult<{ tenantId: string; apiKey?: string }>>;
  linkTenant(input: { apiKey: string }): Promise<ActionResult<{ tenantId: string }>>;
}
