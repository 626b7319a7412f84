import { EventEmitter } from 'node:events';

/**
 * Wakes this process's relay deliverer when a commit has added deliveries (emitted events,
 * a redelivery, an endpoint enabled); without it the deliverer's next poll finds them.
 */
export const relaySignal = new EventEmitter();
relaySignal.setMaxListeners(0);

/** Call after the commit that added deliveries. */
export function notifyRelay(): void {
  relaySignal.emit('deliveries');
}
