import { defaultFrom } from '../../upstream/contract/index.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SimItem } from '../engine/sim-store.ts';
import { createPaymentIntent } from '../factories/create-payment-intent.ts';
import { createPaymentLink } from '../factories/create-payment-link.ts';
import { createTransfer } from '../factories/create-transfer.ts';
import type { z } from 'zod';
import type { seedInput } from './control-inputs.ts';

type SeedRequest = z.output<typeof seedInput>;

const DAY_MS = 24 * 3_600_000;

/** A sandbox number: random digits, or one ending in a failing suffix. */
function number(engine: SimEngine, prefix: string, failing: boolean, failSuffix: string): string {
  const digits = String(engine.random.int(100_000, 999_999));
  if (failing) return `${prefix}${digits}${failSuffix}`;
  // Avoid the sandbox outcome suffixes (99xx, 000x) by ending in 1..8 twice.
  return `${prefix}${digits}${engine.random.int(1, 8)}${engine.random.int(1, 8)}${engine.random.int(10, 88)}`;
}

function createOne(engine: SimEngine, request: SeedRequest, index: number): SimItem {
  const failing = engine.random.chance(request.failureRate);
  const amount = engine.random.int(1, 500) * 100;
  const { mode } = request;
  if (request.kind === 'transfer') {
    return createTransfer(engine, mode, {
      amount,
      currency: 'XOF',
      reference: `seed-tr-${index}-${engine.random.token(6)}`,
      description: 'seeded transfer',
      destination: {
        type: 'mobile_money',
        country: 'SN',
        number: number(engine, '+22177', failing, '9901'),
        provider: 'orange_money',
        recipientName: `Recipient ${index}`,
      },
    });
  }
  if (request.kind === 'payment_intent') {
    return createPaymentIntent(engine, mode, {
      amount,
      currency: 'XOF',
      purchaseReference: `seed-pu-${index}-${engine.random.token(6)}`,
      customerReference: `seed-cu-${index % 97}`,
      payerNumber: number(engine, '+22176', failing, '0002'),
    });
  }
  return createPaymentLink(engine, mode, 'payment', {
    amount,
    currency: 'XOF',
    purchaseReference: `seed-pl-${index}-${engine.random.token(6)}`,
  });
}

/**
 * Creates `count` items with `createdAt` spread over the window (each created with the clock
 * pinned to its own time, so their scheduled transitions fall due from there), then runs what
 * is due. Items whose timers are already past come out settled, with a coherent history.
 */
export function seedItems(engine: SimEngine, request: SeedRequest): SimItem[] {
  const nowMs = engine.clock.nowMs();
  const toMs = request.to === undefined ? nowMs : Date.parse(request.to);
  const fromMs =
    request.from === undefined
      ? Math.max(defaultFrom(new Date(nowMs)).getTime(), toMs - DAY_MS)
      : Date.parse(request.from);
  const span = Math.max(0, toMs - fromMs);
  const items: SimItem[] = [];
  for (let index = 0; index < request.count; index += 1) {
    const atMs = Math.min(nowMs, fromMs + Math.floor(engine.random.next() * (span + 1)));
    items.push(engine.clock.pinned(atMs, () => createOne(engine, request, index)));
  }
  engine.runDue();
  if (request.settle) {
    for (const item of items) {
      if (item.kind !== 'payment_link') engine.settle(item, item.plan.final);
    }
  }
  return items;
}
