/** A short reason from any thrown value, never a stack trace. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.split('\n')[0] ?? '';
    if (typeof code === 'string' && code !== '' && !message.includes(code)) {
      return message === '' ? code : `${code}: ${message}`;
    }
    if (message !== '') return message;
    // AggregateError (e.g. connection refused on both IPv4 and IPv6) keeps its reasons inside.
    const inner = (error as { errors?: unknown[] }).errors?.[0];
    return inner ? reasonOf(inner) : error.name;
  }
  return String(error);
}
