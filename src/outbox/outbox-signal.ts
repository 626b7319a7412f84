import { EventEmitter } from 'node:events';

/**
 * In-process wake-up of the dispatcher after a commit. Only a hint: the dispatcher also polls,
 * so a row added by another process (or without a notify) waits at most one poll interval.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);
