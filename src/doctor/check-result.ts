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
