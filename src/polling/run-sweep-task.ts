import type { Queues } from '../queues/index.ts';
import { reasonOf } from '../error-reason.ts';
import type { RunHandle } from '../runs/index.ts';
import { discoverPaymentRefunds, type PaymentRefundProbe } from './discover-payment-refunds.ts';
import { discoverRefunds, type RefundDiscovery } from './discover-refunds.ts';
import { SWEEP_KINDS, type SweepKind } from './list-streams.ts';
import {
  runSweep,
  type StreamSweepReport,
  type SweepDependencies,
  type SweepRequest,
} from './run-sweep.ts';

/**
 * The parts of a sweep: the two lists walked by creation time, the refund list, and the probe
 * for payment refunds (which have no list).
 */
export type SweepPart = SweepKind | 'refunds' | 'payment-refunds';

export const SWEEP_PARTS: readonly SweepPart[] = [...SWEEP_KINDS, 'refunds', 'payment-refunds'];

export interface SweepTaskDependencies extends SweepDependencies {
  /** Refunds and payment refunds found are synced by id through the sync queue. */
  readonly queues: Queues;
}

export interface SweepTaskRequest extends Omit<SweepRequest, 'kinds'> {
  /** Only these parts. @defaultValue every part ({@link SWEEP_PARTS}) */
  readonly parts?: readonly SweepPart[];
  /**
   * Payment-refund status requests one sweep may spend (`PAYSYNC_PAYMENT_REFUND_PROBES`);
   * 0 turns the probe off. @defaultValue 50
   */
  readonly paymentRefundProbes?: number;
}

export interface SweepTaskReport {
  /** One report per list walked. */
  readonly lists: readonly StreamSweepReport[];
  /** What `GET /refunds` held; absent when the part did not run or failed (the run says why). */
  readonly refunds?: RefundDiscovery;
  /** What the payment-refund probe found; absent when it did not run or failed. */
  readonly paymentRefunds?: PaymentRefundProbe;
}

function isSweepKind(part: SweepPart): part is SweepKind {
  return (SWEEP_KINDS as readonly string[]).includes(part);
}

/**
 * The sweep task, as the daemon's `sweep` tick and `paysync sweep` both run it: walk the payment
 * intent and transfer lists and apply what webhooks missed ({@link runSweep}); then read the
 * refund list and queue a sync of each refund no webhook announced; then ask about the
 * payment-refund ids in the gaps of those paysync knows. A refund list or probe that fails cuts
 * the run short with its reason and the rest still runs; a list sweep that meets an error no
 * retry gets past throws, as {@link runSweep} does.
 */
export async function runSweepTask(
  deps: SweepTaskDependencies,
  request: SweepTaskRequest,
  run: RunHandle,
): Promise<SweepTaskReport> {
  const { parts = SWEEP_PARTS, paymentRefundProbes, ...sweep } = request;
  const kinds = parts.filter(isSweepKind);
  const lists = kinds.length > 0 ? await runSweep(deps, { ...sweep, kinds }, run) : [];
  let refunds: RefundDiscovery | undefined;
  if (parts.includes('refunds')) {
    try {
      refunds = await discoverRefunds(deps);
      run.count({ itemsSeen: refunds.listed });
      if (refunds.unreadable) run.cutShort('GET /refunds held no list of refunds');
    } catch (error) {
      run.cutShort(`refund list: ${reasonOf(error)}`);
    }
  }
  let paymentRefunds: PaymentRefundProbe | undefined;
  if (parts.includes('payment-refunds')) {
    try {
      paymentRefunds = await discoverPaymentRefunds(
        deps,
        paymentRefundProbes === undefined ? {} : { budget: paymentRefundProbes },
      );
      run.count({ itemsSeen: paymentRefunds.found });
      if (paymentRefunds.stoppedBy) {
        run.cutShort(`payment-refund probe: ${paymentRefunds.stoppedBy}`);
      }
    } catch (error) {
      run.cutShort(`payment-refund probe: ${reasonOf(error)}`);
    }
  }
  return {
    lists,
    ...(refunds ? { refunds } : {}),
    ...(paymentRefunds ? { paymentRefunds } : {}),
  };
}
