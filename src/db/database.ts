import type { WebhookInboxTable } from '../inbox/inbox.table.ts';

/** Every table paysync owns. Each component declares its own table type beside its code. */
export interface Database {
  webhook_inbox: WebhookInboxTable;
}
