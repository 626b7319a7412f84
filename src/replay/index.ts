/** Running received webhook events through the workers again (`paysync replay`). */
export {
  countReplaySelection,
  replayInboxEvents,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayResult,
  type ReplaySelection,
} from './replay-inbox-events.ts';
