import type { Machine } from './machine.ts';

/** A KYB declaration is `declared` until deleted; a new PUT declares it again. */
export const kybMachine: Machine<'kyb'> = {
  kind: 'kyb',
  transitions: { declared: ['deleted'], deleted: ['declared'] },
  prepare(context, item, to) {
    item.resource.deletedAt = to === 'deleted' ? context.clock.iso() : null;
  },
};
