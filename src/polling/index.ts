/**
 * Polling the service for what webhooks did not say: the janitor re-polls non-terminal items
 * on an escalating schedule and flags the ones stuck past their SLA.
 */
export { pollPlanOf, runJanitor, type JanitorCounts, type JanitorDependencies } from './janitor.ts';
export { formatAge, stuckRules } from './stuck-items.ts';
