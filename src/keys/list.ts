import type { Principal } from '../auth/principal';
import { decodeCursor, toPage } from '../lib/pagination';
import type { Services } from '../services';
import { presentKeySummary } from './present';
import { listActiveKeys } from './queries';
import type { ListKeysInput } from './schema';

/** GET /api/v1/keys: the tenant's active keys, newest first, without secrets. */
export async function listKeys(svc: Services, principal: Principal, input: ListKeysInput) {
  const rows = await listActiveKeys(svc.db, principal.tenantId, input.limit + 1, decodeCursor(input.cursor));
  return toPage(rows, input.limit, presentKeySummary);
}
