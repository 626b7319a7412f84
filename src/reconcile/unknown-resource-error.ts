import type { ResourceKind } from '../resources/index.ts';

/**
 * The service does not know a resource a webhook named: a 404, or a transfer that no
 * reference lookup or window search could find. Retried a few times (the service may lag
 * behind its own webhooks), then recorded as `unknown_upstream_resource`.
 */
export class UnknownResourceError extends Error {
  override readonly name = 'UnknownResourceError';
  readonly code = 'unknown_upstream_resource' as const;
  constructor(
    readonly kind: ResourceKind,
    readonly handle: string,
    detail: string,
  ) {
    super(`${kind.replace('_', ' ')} ${handle}: ${detail}`);
  }
}
