import type { Machine } from './machine.ts';

const OPEN = ['live', 'sandbox', 'testing', 'suspended'] as const;

/**
 * Submerchants start in the mode they were created in (`sandbox` or `live`) and only move
 * through the control surface: between live, sandbox, testing and suspended, and to archived,
 * which is final. `isActive` is false while suspended or archived.
 */
export const submerchantMachine: Machine<'submerchant'> = {
  kind: 'submerchant',
  transitions: Object.fromEntries([
    ...OPEN.map((status) => [status, [...OPEN.filter((other) => other !== status), 'archived']]),
    ['archived', []],
  ]),
  prepare(_context, item, to) {
    item.resource.isActive = to !== 'suspended' && to !== 'archived';
  },
};
