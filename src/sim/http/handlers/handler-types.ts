import type { z } from 'zod';
import type { OperationId, Operations } from '../../../upstream/contract/index.ts';
import type { Mode } from '../../engine/sim-resources.ts';
import type { SimRuntime } from '../../sim-runtime.ts';

type Parsed<T> = T extends z.ZodType ? z.output<T> : never;

export type ParamsOf<Id extends OperationId> = Operations[Id] extends { pathParams: infer P }
  ? Parsed<P>
  : Record<string, never>;
/** The schema the simulator validates `part` with: paysync's stricter one where there is one. */
type SimulatorSchema<
  Id extends OperationId,
  Part extends 'query' | 'body',
> = Operations[Id] extends {
  simulatorChecks: { [P in Part]: infer S };
}
  ? S
  : Operations[Id] extends { [P in Part]: infer S }
    ? S
    : undefined;

export type QueryOf<Id extends OperationId> =
  SimulatorSchema<Id, 'query'> extends z.ZodType
    ? Parsed<SimulatorSchema<Id, 'query'>>
    : Record<string, never>;
export type BodyOf<Id extends OperationId> =
  SimulatorSchema<Id, 'body'> extends z.ZodType ? Parsed<SimulatorSchema<Id, 'body'>> : undefined;

/** A request that passed credentials and the contract's validation. */
export interface OperationRequest<Id extends OperationId> {
  readonly runtime: SimRuntime;
  /**
   * The `Environment` header. Always set on operations that demand it; on the others it is
   * the header when sent, else undefined (reads then see both modes, writes use sandbox).
   */
  readonly mode: Mode | undefined;
  readonly params: ParamsOf<Id>;
  readonly query: QueryOf<Id>;
  readonly body: BodyOf<Id>;
  readonly requestId: string;
}

/** What a handler answers: a body (sent with the operation's success status) or an explicit status. */
export type OperationResult =
  { status?: number; body: unknown } | { status?: number; noBody: true };

export type OperationHandler<Id extends OperationId> = (
  request: OperationRequest<Id>,
) => OperationResult;

export type OperationHandlers<Ids extends OperationId> = {
  readonly [Id in Ids]: OperationHandler<Id>;
};

/** Reads see an item when its mode is the request's (or the request names no mode). */
export function visibleIn(mode: Mode | undefined, item: { mode: Mode }): boolean {
  return mode === undefined || item.mode === mode;
}
