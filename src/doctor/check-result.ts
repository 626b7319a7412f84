/** The outcome of one doctor check: one line for the operator, with a fix when it failed. */
export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  /** What was found, in a few words. */
  readonly detail: string;
  /** What to do about it; present when `ok` is false. */
  readonly hint?: string;
}

export function passed(name: string, detail: string): CheckResult {
  return { name, ok: true, detail };
}

export function failed(name: string, detail: string, hint: string): CheckResult {
  return { name, ok: false, detail, hint };
}

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
