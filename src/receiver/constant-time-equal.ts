import { timingSafeEqual } from 'node:crypto';

/**
 * Compares a received signature with the expected one without leaking, through timing, how
 * many leading bytes matched. `timingSafeEqual` throws on unequal lengths, so lengths are
 * compared first: an HMAC's length is public, so returning early on it reveals nothing.
 */
export function constantTimeEqual(received: Uint8Array, expected: Uint8Array): boolean {
  return received.length === expected.length && timingSafeEqual(received, expected);
}
