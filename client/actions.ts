/**
 * The server actions the sign-in, recovery and account forms call (app/_lib/actions.ts), as the
 * forms receive them from their pages: their shapes only, so no server code reaches the browser.
 */
export interface ActionResult<T = undefined> {
  ok: boolean;
  message: string;
  data?: T;
}

export type SignUpAction = (input: {
  email: string;
  password: string;
  callbackUrl?: string;
}) => Promise<ActionResult<{ confirm: boolean }>>;
export type ResendConfirmationAction = (input: { email: string }) => Promise<ActionResult>;
export type RequestPasswordResetAction = (input: { email: string }) => Promise<ActionResult>;
export type UpdatePasswordWithRecoveryAction = (input: { accessToken: string; password: string }) => Promise<ActionResult>;

export interface AccountActions {
  changePassword(input: { currentPassword: string; newPassword: string }): Promise<ActionResult>;
  createTenant(input: { agentName: string }): Promise<ActionResult<{ tenantId: string; apiKey?: string }>>;
  linkTenant(input: { apiKey: string }): Promise<ActionResult<{ tenantId: string }>>;
}

/** A passkey as the account page lists it. */
export interface PasskeyView {
  id: string;
  name: string;
  device_type: string;
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

export interface PasskeyActions {
  listPasskeys(): Promise<ActionResult<PasskeyView[]>>;
  passkeyRegistrationOptions(): Promise<ActionResult<{ challengeId: string; options: unknown }>>;
  addPasskey(input: { challengeId: string; response: unknown; name: string }): Promise<ActionResult<PasskeyView>>;
  removePasskey(input: { id: string }): Promise<ActionResult>;
}

export type PasskeySignInOptionsAction = () => Promise<ActionResult<{ challengeId: string; options: unknown }>>;
