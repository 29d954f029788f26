import { z } from 'zod';
import { PASSWORD_LENGTH } from '@/src/contract/limits';

/** The message of a text field longer than the API takes. */
export const atMostCharacters = (max: number) => `Use at most ${max} characters.`;

/** A new account password (sign-up, recovery, change), within the identity provider's limits. */
export const newPasswordField = z
  .string()
  .min(PASSWORD_LENGTH.min, `Use at least ${PASSWORD_LENGTH.min} characters.`)
  .max(PASSWORD_LENGTH.max, atMostCharacters(PASSWORD_LENGTH.max));

/** The hint under a new-password field. */
export const NEW_PASSWORD_HINT = `At least ${PASSWORD_LENGTH.min} characters.`;
