import type { ContractBreak } from './fault-settings.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The resource a break is applied to: the body, its first element, or its first balance. */
function target(body: unknown): Json | undefined {
  if (Array.isArray(body)) return body.find(isRecord);
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.balances)) return body.balances.find(isRecord);
  return body;
}

/**
 * Breaks the interface document's contract in `body` (in place) the way `kind` says, and
 * returns the name of the field it broke, or undefined when the body has nothing to break.
 */
export function breakContract(body: unknown, kind: ContractBreak): string | undefined {
  const resource = target(body);
  if (!resource) return undefined;
  switch (kind) {
    case 'bad_status':
      if (!('status' in resource)) return undefined;
      resource.status = 'teleported';
      return 'status';
    case 'negative_amount':
      if (typeof resource.amount !== 'number') return undefined;
      resource.amount = -Math.abs(resource.amount || 1);
      return 'amount';
    case 'float_amount':
      if (typeof resource.amount !== 'number') return undefined;
      resource.amount = resource.amount + 0.5;
      return 'amount';
    case 'missing_id_prefix':
      if (typeof resource.id !== 'string' || !/^[a-z]+_/.test(resource.id)) return undefined;
      resource.id = resource.id.replace(/^[a-z]+_/, '');
      return 'id';
    case 'missing_field': {
      const field = ['createdAt', 'currency', 'status', 'view'].find((name) => name in resource);
      if (field === undefined) return undefined;
      delete resource[field];
      return field;
    }
  }
}
