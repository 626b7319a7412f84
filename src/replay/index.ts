/**
 * Running received webhook events through the workers again (`paysync replay`). Sending the
 * relay's events to the merchant's endpoints again is another thing: redelivery (src/relay,
 * `paysync endpoints redeliver`).
 */
export {
  countReplaySelection,
  replayInboxEvents,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayResult,
  type ReplaySelection,
} from './replay-inbox-events.ts';
