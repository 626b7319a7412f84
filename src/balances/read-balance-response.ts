/**
 * The balance response's fields are not shown in the interface document, so paysync reads it
 * tolerantly: the simulator's list shape, an object keyed by account type, and a `data` or
 * `accounts` list with snake_case or nested amounts. Anything else, any amount that is not an
 * integer in minor units (or is one too large to hold exactly), or an answer in which no account
 * can be read (an empty list, an unknown envelope, a map keyed by currency) is "not understood":
 * no numbers are taken from it, and nothing in it is ever read as a zero balance.
 */

export const SERVICE_ACCOUNT_TYPES = [
  'collection',
  'transfer',
  'transfer-irt',
  'cross-border',
] as const;
export type BalanceAccountType = (typeof SERVICE_ACCOUNT_TYPES)[number];

export interface ReadBalance {
  readonly accountType: BalanceAccountType;
  readonly currency: string;
  /** Minor units. */
  readonly amount: number;
}

export type BalanceReading =
  | {
      readonly ok: true;
      /** The instant the response says it is for, when it says one. */
      readonly asOf: string | undefined;
      readonly balances: readonly ReadBalance[];
      /** Account types in the response that paysync does not know (kept in the raw body). */
      readonly unknownAccounts: readonly string[];
    }
  | { readonly ok: false; readonly problem: string };

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `transfer_irt`, `TransferIrt`, `transferIRT` → `transfer-irt`. */
function normaliseAccountType(value: string): string {
  return value
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

function knownAccountType(value: string): BalanceAccountType | undefined {
  const normal = normaliseAccountType(value);
  return (SERVICE_ACCOUNT_TYPES as readonly string[]).includes(normal)
    ? (normal as BalanceAccountType)
    : undefined;
}

/** An amount is an integer beyond 2^53 − 1: a double cannot hold it exactly, so it is refused. */
const TOO_LARGE = 'too large';

/**
 * An integer number, or a string of an integer; never a fraction (its unit would be a guess),
 * and never an integer beyond `Number.MAX_SAFE_INTEGER` (it would be rounded).
 */
function minorUnits(value: unknown): number | typeof TOO_LARGE | undefined {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    return Number.isInteger(value) ? TOO_LARGE : undefined;
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    const parsed = Number(value.trim());
    return Number.isSafeInteger(parsed) ? parsed : TOO_LARGE;
  }
  if (isRecord(value)) return minorUnits(value.amount ?? value.value);
  return undefined;
}

const AMOUNT_KEYS = ['amount', 'balance', 'available', 'availableBalance', 'available_balance'];
const ACCOUNT_KEYS = ['accountType', 'account_type', 'type', 'account'];
const CURRENCY_KEYS = ['currency', 'currencyCode', 'currency_code'];

function firstKey(entry: Json, keys: readonly string[]): unknown {
  for (const key of keys) if (entry[key] !== undefined) return entry[key];
  return undefined;
}

function currencyOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : undefined;
}

interface Collected {
  balances: ReadBalance[];
  unknown: Set<string>;
  problems: string[];
}

function collectEntry(entry: unknown, into: Collected, accountHint?: string): void {
  if (!isRecord(entry)) {
    into.problems.push('a balance entry is not an object');
    return;
  }
  const accountRaw = accountHint ?? firstKey(entry, ACCOUNT_KEYS);
  if (typeof accountRaw !== 'string') {
    into.problems.push('a balance entry has no account type');
    return;
  }
  const accountType = knownAccountType(accountRaw);
  if (!accountType) {
    into.unknown.add(accountRaw);
    return;
  }
  const currency = currencyOf(firstKey(entry, CURRENCY_KEYS));
  const amount = minorUnits(firstKey(entry, AMOUNT_KEYS));
  if (currency === undefined) {
    into.problems.push(`the ${accountType} balance has no ISO 4217 currency`);
    return;
  }
  if (amount === undefined) {
    into.problems.push(`the ${accountType} ${currency} balance is not an integer in minor units`);
    return;
  }
  if (amount === TOO_LARGE) {
    into.problems.push(
      `the ${accountType} ${currency} balance is an integer too large to hold exactly (beyond 2^53 − 1 minor units); paysync will not round it`,
    );
    return;
  }
  into.balances.push({ accountType, currency, amount });
}

/** `{ transfer: { XOF: 100 } }`, `{ transfer: [{currency, amount}] }` or `{ transfer: {currency, amount} }`. */
function collectKeyed(keyed: Json, into: Collected): void {
  for (const [key, value] of Object.entries(keyed)) {
    if (Array.isArray(value)) {
      for (const entry of value) collectEntry(entry, into, key);
    } else if (isRecord(value) && firstKey(value, CURRENCY_KEYS) !== undefined) {
      collectEntry(value, into, key);
    } else if (isRecord(value)) {
      for (const [currency, amount] of Object.entries(value)) {
        collectEntry({ currency, amount }, into, key);
      }
    }
  }
}

function dateOf(body: Json): string | undefined {
  const raw = body.date ?? body.asOf ?? body.as_of ?? body.timestamp;
  if (typeof raw !== 'string') return undefined;
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function readBalanceResponse(body: unknown): BalanceReading {
  if (!isRecord(body)) return { ok: false, problem: 'the response is not a JSON object' };
  const into: Collected = { balances: [], unknown: new Set(), problems: [] };
  const list = body.balances ?? body.data ?? body.accounts ?? body.items;
  if (Array.isArray(list)) {
    for (const entry of list) collectEntry(entry, into);
  } else if (isRecord(list)) {
    collectKeyed(list, into);
  } else if (Object.keys(body).some((key) => knownAccountType(key))) {
    collectKeyed(
      Object.fromEntries(Object.entries(body).filter(([key]) => knownAccountType(key))),
      into,
    );
  } else if (firstKey(body, ACCOUNT_KEYS) !== undefined) {
    collectEntry(body, into);
  } else {
    return {
      ok: false,
      problem:
        'no list of balances was found (looked for balances, data, accounts, items, or account-type keys)',
    };
  }
  if (into.problems.length > 0) return { ok: false, problem: into.problems[0]! };
  // An answer with no readable account is not "every account holds 0": it is not understood.
  if (into.balances.length === 0 && into.unknown.size > 0) {
    return {
      ok: false,
      problem: `no balance it can read: the response names no account type paysync knows (found ${[...into.unknown].join(', ')}; known: ${SERVICE_ACCOUNT_TYPES.join(', ')})`,
    };
  }
  if (into.balances.length === 0) {
    return {
      ok: false,
      problem: 'the response lists no balance (an empty answer is not read as zero balances)',
    };
  }
  return {
    ok: true,
    asOf: dateOf(body),
    balances: into.balances,
    unknownAccounts: [...into.unknown],
  };
}
