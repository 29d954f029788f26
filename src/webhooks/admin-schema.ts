import { z } from 'zod';
import { listParams, pageSchema } from '../lib/pagination';
import { deliveryView, webhookView } from './schema';

/** The tenant a cross-tenant row belongs to. */
const ownerFields = {
  tenant_id: z.string(),
  agent_name: z.string(),
  owner_email: z.string(),
};

export const adminPageInput = z.strictObject({ ...listParams });

export const adminDisabledWebhookList = pageSchema(webhookView.extend(ownerFields).meta({ id: 'AdminDisabledWebhook' }));

export const adminFailedDelivery = deliveryView
  .extend({
    subscription_id: z.string(),
    url: z.string().nullable().describe("The subscription's receiver (null for a `poll` subscription)"),
    ...ownerFields,
  })
  .meta({ id: 'AdminFailedDelivery' });

export const adminFailedDeliveryList = pageSchema(adminFailedDelivery);
