import { z } from 'zod';
import { webhookId } from './common.schema.ts';
import { requestBody } from './request-checks.ts';

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

/**
 * Webhook creation body ("Fields of the webhook creation body: not shown"): the client checks
 * nothing in it. paysync's reading: where to deliver, which events, a description.
 */
export const createWebhookBody = requestBody('WebhookCreationRequest', {
  url: {
    schema: z.url(),
    shown: 'nothing',
    required: 'paysync',
    why: 'a URL: where to deliver events',
  },
  events: { schema: z.array(z.string()), shown: 'nothing', why: 'a list of event kinds' },
  description: { schema: z.string(), shown: 'nothing', why: 'a string' },
});
export type CreateWebhookBody = z.input<typeof createWebhookBody.documented>;

/** Webhook update body ("not shown"): the creation body's fields, none required. */
export const updateWebhookBody = requestBody('WebhookUpdateRequest', {
  url: { schema: z.url(), shown: 'nothing', why: 'a URL: where to deliver events' },
  events: { schema: z.array(z.string()), shown: 'nothing', why: 'a list of event kinds' },
  description: { schema: z.string(), shown: 'nothing', why: 'a string' },
});
export type UpdateWebhookBody = z.input<typeof updateWebhookBody.documented>;
