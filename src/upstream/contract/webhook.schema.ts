import { z } from 'zod';
import { webhookId } from './common.schema.ts';

/**
 * Fields of the webhook record are not shown beyond `id`. `url`, `events`, `description` and
 * `secret` (a Standard Webhooks `whsec_…` key, handed back on creation) are our reading.
 */
export const webhook = z
  .looseObject({
    id: webhookId,
    url: z.string().nullish(),
    events: z.array(z.string()).nullish(),
    description: z.string().nullish(),
    secret: z.string().nullish(),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof webhook>;

export const createWebhookBody = z
  .looseObject({
    url: z.url(),
    events: z.array(z.string()).optional(),
    description: z.string().optional(),
  })
  .meta({ id: 'WebhookCreationRequest' });
export type CreateWebhookBody = z.input<typeof createWebhookBody>;

export const updateWebhookBody = z
  .looseObject({
    url: z.url().optional(),
    events: z.array(z.string()).optional(),
    description: z.string().optional(),
  })
  .meta({ id: 'WebhookUpdateRequest' });
export type UpdateWebhookBody = z.input<typeof updateWebhookBody>;
