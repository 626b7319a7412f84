import type { Response } from 'express';

/** Every error code the webhook route answers with; documented in docs/receiver.md. */
export type WebhookErrorCode =
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'batch_too_large'
  | 'empty_body'
  | 'invalid_json'
  | 'inbox_unavailable'
  | 'shutting_down'
  | 'backlog_full'
  | 'too_many_in_flight'
  | 'bad_request';

/** Answers `{ error, message }`; the one shape every refusal of the receiver has. */
export function sendError(response: Response, status: number, error: string, message: string) {
  response.status(status).json({ error, message });
}

/** body-parser's error types, mapped to our codes (it sets `type` and `status` on its errors). */
export function bodyReadError(error: unknown): {
  status: number;
  code: WebhookErrorCode;
  message: string;
} {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.large') {
    const limit = (error as { limit?: number }).limit;
    return { status: 413, code: 'payload_too_large', message: `body over ${limit ?? 'the'} bytes` };
  }
  if (type === 'encoding.unsupported') {
    return {
      status: 415,
      code: 'unsupported_media_type',
      message: 'compressed bodies are not accepted; send Content-Encoding: identity',
    };
  }
  return { status: 400, code: 'bad_request', message: 'the body could not be read' };
}
