import type { RequestHandler, Response } from 'express';
import {
  webhookBackpressure,
  webhookInFlight,
  webhookOutcomes,
  type TenantMetrics,
} from '../metrics/index.ts';
import type { BacklogGate } from './backlog-gate.ts';
import { sendError } from './webhook-errors.ts';

/** Seconds a sender is asked to wait when the backlog is full: it drains in minutes. */
export const BACKLOG_RETRY_AFTER_S = 30;
/** Seconds a sender is asked to wait when too many requests are in flight: a passing burst. */
export const IN_FLIGHT_RETRY_AFTER_S = 5;

export interface IntakeLimitSettings {
  /** The webhook path: only POSTs to it are limited (health, metrics and ops stay reachable). */
  readonly path: string;
  /** The counted backlog; without it only the in-flight limit applies. */
  readonly gate?: BacklogGate;
  /** Webhook requests handled at once, at most (`PAYSYNC_RECEIVER_MAX_IN_FLIGHT`). */
  readonly maxInFlight: number;
  /** The tenant's metrics handle, through which the series counted here are moved. */
  readonly metrics: TenantMetrics;
}

function refuse(
  metrics: TenantMetrics,
  response: Response,
  code: 'backlog_full' | 'too_many_in_flight',
  retryAfterS: number,
  message: string,
): void {
  metrics.inc(webhookBackpressure, { reason: code });
  metrics.inc(webhookOutcomes, { outcome: code });
  response.setHeader('Retry-After', String(retryAfterS));
  // The body is never read: closing the connection spares reading it only to throw it away.
  response.setHeader('Connection', 'close');
  sendError(response, 503, code, message);
}

/**
 * The receiver's first check on a webhook, before anything reads its body: 503 with
 * `Retry-After` when the open inbox backlog is full (the workers are behind; the sender's
 * retries bring the events back once it drains) or when `maxInFlight` requests are already
 * being handled. Nothing is stored, so nothing is lost: the sender keeps the event.
 */
export function intakeLimits(settings: IntakeLimitSettings): RequestHandler {
  let inFlight = 0;
  const { gate, metrics } = settings;
  // Express routes match without regard to case or a trailing slash; so does this.
  const limited = settings.path.toLowerCase().replace(/\/+$/, '');
  return (request, response, next) => {
    const path = request.path.toLowerCase().replace(/\/+$/, '');
    if (request.method !== 'POST' || path !== limited) return next();
    if (gate?.isFull()) {
      return refuse(
        metrics,
        response,
        'backlog_full',
        BACKLOG_RETRY_AFTER_S,
        `${gate.backlog} events wait to be processed; retry later`,
      );
    }
    if (inFlight >= settings.maxInFlight) {
      return refuse(
        metrics,
        response,
        'too_many_in_flight',
        IN_FLIGHT_RETRY_AFTER_S,
        `${inFlight} webhooks are being handled; retry later`,
      );
    }
    inFlight += 1;
    metrics.set(webhookInFlight, {}, inFlight);
    // `close` comes once per response, sent or cut off.
    response.once('close', () => {
      inFlight -= 1;
      metrics.set(webhookInFlight, {}, inFlight);
    });
    next();
  };
}
