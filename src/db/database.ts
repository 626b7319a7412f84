import type { WebhookInboxTable } from '../inbox/inbox.table.ts';
import type { ServiceStateTable } from '../service-state/service-state.table.ts';

/**
 * Every table paysync owns. Each component declares its own table types beside its code;
 * add a line here (and keep the list sorted by component) when a migration adds a table.
 */
export interface Database {
  webhook_inbox: WebhookInboxTable;
  service_state: ServiceStateTable;
}
