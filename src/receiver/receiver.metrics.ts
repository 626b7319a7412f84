// The webhook counters live in src/metrics, where the ops dashboard reads them too.
export { signatureFailures, webhookOutcomes } from '../metrics/index.ts';
