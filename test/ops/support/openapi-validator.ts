import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// Ajv 6 is what node_modules holds (through eslint); the document's response schemas use
// only keywords it knows (type arrays, const, enum, format, $ref), so it validates them.
import Ajv from 'ajv';

const DOCUMENT_PATH = resolve(import.meta.dirname, '../../../docs/ops-api.openapi.json');

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

export const opsDocument = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenApiDocument;

const ajv = new Ajv({ allErrors: true, validateSchema: false, unknownFormats: 'ignore' });
ajv.addSchema(opsDocument as object, 'ops');

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Validates a real answer against the document: the path template and method must be
 * documented, the status must be a documented response, and the JSON body must match it.
 * Returns the problems (empty when it matches).
 */
export function validateAnswer(
  template: string,
  method: string,
  status: number,
  body: unknown,
): string[] {
  const operation = opsDocument.paths[template]?.[method];
  if (!operation) return [`${method.toUpperCase()} ${template} is not in the document`];
  if (!operation.responses[String(status)]) {
    return [`${method.toUpperCase()} ${template} does not document status ${status}`];
  }
  const ref = `ops#/paths/${pointer(template)}/${method}/responses/${status}/content/${pointer('application/json')}/schema`;
  const validate = ajv.compile({ $ref: ref });
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.dataPath} ${e.message ?? ''}`);
}
