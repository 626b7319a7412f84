import {
  raiseAlert,
  resolveAlertsByKey,
  type AlertDependencies,
  type RaiseAlertInput,
} from './raise-alert.ts';

/**
 * The relay's endpoint alerts (docs/alerts.md, docs/relay.md "Alerts"). The relay's
 * deliverer tells its health listener; the daemon gives it {@link relayEndpointAlerts}. One
 * live alert of each kind per endpoint; both resolve when a delivery to the endpoint succeeds
 * again (after it is enabled, for a disabled one).
 */

/** What the deliverer says about an endpoint (the relay's `EndpointHealthFacts`). */
export interface RelayEndpointFacts {
  /** `ep_…` */
  readonly endpointId: string;
  /** Scheme, host and path only. */
  readonly url: string;
  readonly failingSince: string | null;
  readonly reason: string;
}

export function relayEndpointFailingAlert(facts: RelayEndpointFacts): RaiseAlertInput {
  return {
    kind: 'relay_endpoint_failing',
    dedupeKey: `relay_endpoint_failing:${facts.endpointId}`,
    subject: facts.endpointId,
    title: `Relay endpoint ${facts.endpointId} is failing: ${facts.reason}`,
    body: [
      `Every delivery to ${facts.url} has failed since ${facts.failingSince ?? 'recently'}: ${facts.reason}.`,
      'Its events wait and are retried on the schedule (docs/relay.md); none is lost while the endpoint is enabled.',
      `See \`paysync endpoints show ${facts.endpointId}\` for the last answers; fix the receiving side, or disable the endpoint.`,
    ].join('\n'),
    detail: { endpoint: facts.endpointId, url: facts.url, failingSince: facts.failingSince },
    resolvesWhen: 'when a delivery to it succeeds',
  };
}

export function relayEndpointDisabledAlert(facts: RelayEndpointFacts): RaiseAlertInput {
  return {
    kind: 'relay_endpoint_disabled',
    dedupeKey: `relay_endpoint_disabled:${facts.endpointId}`,
    subject: facts.endpointId,
    title: `Relay endpoint ${facts.endpointId} is disabled: ${facts.reason}`,
    body: [
      `paysync stopped delivering to ${facts.url}: ${facts.reason}.`,
      'Its pending events wait, and new events are not queued for it until it is enabled again.',
      `When the receiving side is fixed: \`paysync endpoints enable ${facts.endpointId}\` (the waiting events go out in order), and \`paysync endpoints redeliver\` for what it missed.`,
    ].join('\n'),
    detail: { endpoint: facts.endpointId, url: facts.url, failingSince: facts.failingSince },
    resolvesWhen: 'when the endpoint is enabled again and a delivery succeeds',
  };
}

/** The listener the relay deliverer tells, raising and resolving the two kinds. */
export function relayEndpointAlerts(deps: AlertDependencies) {
  return {
    failing: (facts: RelayEndpointFacts) => raiseAlert(deps, relayEndpointFailingAlert(facts)),
    disabled: (facts: RelayEndpointFacts) => raiseAlert(deps, relayEndpointDisabledAlert(facts)),
    recovered: async (facts: RelayEndpointFacts) => {
      await resolveAlertsByKey(deps, `relay_endpoint_failing:${facts.endpointId}`);
      await resolveAlertsByKey(deps, `relay_endpoint_disabled:${facts.endpointId}`);
    },
  };
}
