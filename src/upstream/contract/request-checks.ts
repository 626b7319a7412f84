import { z } from 'zod';

/** Who stands behind a check on a request: the interface document, or paysync's own choice. */
export type CheckSource = 'document' | 'paysync';

/**
 * One field of a request body or query, with where each of its checks comes from. The client
 * enforces only what the document shows; the simulator enforces everything (issue 7, C9).
 */
export interface RequestField<S extends z.ZodType = z.ZodType> {
  /**
   * The full check of a value that is present: the document's rules plus paysync's choices.
   * The simulator applies it, and it gives the field its TypeScript type.
   */
  readonly schema: S;
  /**
   * What the document shows about the value, which is all the client checks: `'all'` when it
   * shows everything `schema` checks, `'nothing'` when the document does not show the field
   * (the client sends any value), or the weaker schema the document does show (then `why`
   * says what paysync's reading adds).
   */
  readonly shown: 'all' | 'nothing' | z.ZodType;
  /**
   * Who says the field must be sent; omitted when nobody does. The client refuses a missing
   * field only when this is `document`.
   */
  readonly required?: CheckSource;
  /**
   * Where the document shows it, or paysync's reading and why; published in the OpenAPI
   * document for the checks the client does not make.
   */
  readonly why: string;
}

export type RequestFields = Readonly<Record<string, RequestField>>;

type Typed<S extends z.ZodType> = z.ZodType<z.output<S>, z.input<S>>;

/** The client's view: the field's type, required only when the document requires it. */
type DocumentedShape<F extends RequestFields> = {
  [K in keyof F]: F[K]['required'] extends 'document'
    ? Typed<F[K]['schema']>
    : z.ZodOptional<Typed<F[K]['schema']>>;
};

/** The simulator's view: the full checks, required when anybody requires it. */
type SimulatorShape<F extends RequestFields> = {
  [K in keyof F]: F[K]['required'] extends CheckSource
    ? F[K]['schema']
    : z.ZodOptional<F[K]['schema']>;
};

export interface RequestChecks<F extends RequestFields, Loose extends boolean> {
  /**
   * The checks the interface document shows. The client validates against it (and refuses
   * before sending); the OpenAPI document publishes it, with paysync's choices described.
   */
  readonly documented: Loose extends true
    ? z.ZodObject<DocumentedShape<F>, z.core.$loose>
    : z.ZodObject<DocumentedShape<F>, z.core.$strip>;
  /** The document's checks plus paysync's choices: what the simulator validates. */
  readonly simulator: Loose extends true
    ? z.ZodObject<SimulatorShape<F>, z.core.$loose>
    : z.ZodObject<SimulatorShape<F>, z.core.$strip>;
  /** The declaration itself, for tests and documentation. */
  readonly fields: F;
}

/**
 * An unchecked field keeps paysync's reading of its type for TypeScript callers and for the
 * OpenAPI document, but accepts any value at run time.
 */
function unchecked(field: RequestField): z.ZodType {
  // An empty registry inlines schemas that carry an OpenAPI component id.
  const { $schema: _draft, ...reading } = z.toJSONSchema(field.schema, {
    io: 'input',
    unrepresentable: 'any',
    metadata: z.registry(),
  });
  return z.custom<unknown>().meta({
    ...reading,
    description: `Not shown by the interface document. paysync's reading: ${field.why}. The client sends any value; the simulator checks it.`,
  });
}

function sentence(text: string | undefined): string {
  if (text === undefined || text === '') return '';
  return /[.!?]$/.test(text) ? `${text} ` : `${text}. `;
}

function documentedField(field: RequestField): z.ZodType {
  const value =
    field.shown === 'all'
      ? field.schema
      : field.shown === 'nothing'
        ? unchecked(field)
        : field.shown.meta({
            description: `The document shows less than paysync's reading: ${field.why}. The client checks what the document shows; the simulator checks all.`,
          });
  if (field.required === 'document') return value;
  if (field.required === undefined) return value.optional();
  const description = `${sentence(value.meta()?.description as string | undefined)}Required by paysync's reading only: the client sends a request without it, the simulator refuses it.`;
  return value.optional().meta({ description });
}

function simulatorField(field: RequestField): z.ZodType {
  return field.required === undefined ? field.schema.optional() : field.schema;
}

/**
 * Object.fromEntries loses the per-key types, so the builders below cast their result to the
 * shapes declared above (DocumentedShape, SimulatorShape), which say what these functions make.
 */
function mapFields(fields: RequestFields, build: (field: RequestField) => z.ZodType) {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, build(field)]));
}

/**
 * A request body (an open JSON object) declared field by field, from which the client's
 * checks, the simulator's checks and the OpenAPI schema are derived. `id` names the OpenAPI
 * component of the documented view.
 */
export function requestBody<const F extends RequestFields>(
  id: string,
  fields: F,
): RequestChecks<F, true> {
  return {
    documented: z.looseObject(mapFields(fields, documentedField)).meta({ id }),
    simulator: z.looseObject(mapFields(fields, simulatorField)),
    fields,
  } as unknown as RequestChecks<F, true>;
}

/** A query declared field by field, as {@link requestBody}. Unknown parameters are dropped. */
export function requestQuery<const F extends RequestFields>(fields: F): RequestChecks<F, false> {
  return {
    documented: z.object(mapFields(fields, documentedField)),
    simulator: z.object(mapFields(fields, simulatorField)),
    fields,
  } as unknown as RequestChecks<F, false>;
}

/** Shorthand for a field whose every check the document shows. */
export function shownField<S extends z.ZodType>(
  schema: S,
  why: string,
  required?: 'document',
): RequestField<S> {
  return required ? { schema, shown: 'all', required, why } : { schema, shown: 'all', why };
}
