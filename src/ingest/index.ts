/** Reading webhook events: which resource they name, and handing that on to a sync. */
export { classifyEvent, kindOfEventType, type EventClassification } from './classify-event.ts';
export { classifyAtIntake } from './classify-at-intake.ts';
export { ingestEvent, type IngestDependencies, type IngestResult } from './ingest-event.ts';
export { unclassifiedEventsTotal } from './ingest-metrics.ts';
