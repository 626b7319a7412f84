import { SimError } from '../../engine/sim-error.ts';
import type { Mode } from '../../engine/sim-resources.ts';
import type { StoredWebhook } from '../../engine/sim-store.ts';
import type { SimRuntime } from '../../sim-runtime.ts';
import type { OperationHandlers } from './handler-types.ts';

function findWebhook(runtime: SimRuntime, mode: Mode | undefined, id: string): StoredWebhook {
  const stored = runtime.engine.store.webhooks.get(id);
  if (!stored || (mode !== undefined && stored.resource.mode !== mode))
    throw SimError.notFound('Webhook', id);
  return stored;
}

/** Webhooks belong to the mode they were registered in and receive that mode's events. */
export const webhookHandlers: OperationHandlers<
  'createWebhook' | 'listWebhooks' | 'getWebhook' | 'updateWebhook' | 'deleteWebhook'
> = {
  createWebhook({ runtime, mode = 'sandbox', body }) {
    const stored = runtime.registerWebhook(mode, body);
    // The signing secret is shown once, on creation.
    return { body: { ...stored.resource, secret: stored.secret } };
  },

  listWebhooks({ runtime, mode }) {
    const all = [...runtime.engine.store.webhooks.values()];
    return {
      body: all
        .filter((stored) => mode === undefined || stored.resource.mode === mode)
        .map((s) => s.resource),
    };
  },

  getWebhook({ runtime, mode, params }) {
    return { body: findWebhook(runtime, mode, params.id).resource };
  },

  updateWebhook({ runtime, mode, params, body }) {
    const { resource } = findWebhook(runtime, mode, params.id);
    if (body.url !== undefined) resource.url = body.url;
    if (body.events !== undefined) resource.events = body.events;
    if (body.description !== undefined) resource.description = body.description;
    if (typeof body.enabled === 'boolean') resource.enabled = body.enabled;
    resource.updatedAt = runtime.engine.clock.iso();
    return { body: resource };
  },

  deleteWebhook({ runtime, mode, params }) {
    findWebhook(runtime, mode, params.id);
    runtime.engine.store.webhooks.delete(params.id);
    return { noBody: true };
  },
};
