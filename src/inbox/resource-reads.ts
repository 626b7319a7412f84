/**
 * A public entry of its own (issue 39, declared in .dependency-cruiser.cjs): the inbox events
 * that name one resource, for `paysync show`, without the intake, retention and backlog code
 * that index.ts loads.
 */
export { inboxEventsAbout, type InboxEventSummary } from './inbox-queries.ts';
