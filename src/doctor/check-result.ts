/** The outcome of one doctor check: one line for the operator, with a fix when it failed. */
export interface CheckResult {
  readonly name: string;
  /** False only when the check failed; a warning is still ok (doctor exits 0). */
  readonly ok: boolean;
  /** Nothing is wrong yet, but nothing proves it right either (no scheduled run yet, say). */
  readonly warning?: boolean;
  /** What was found, in a few words. */
  readonly detail: string;
  /** What to do about it; present when `ok` is false, and on some warnings. */
  readonly hint?: string;
}

/** A check's outcome in one word, for `doctor --json` and the mark on its line. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export function checkStatus(result: CheckResult): CheckStatus {
  if (!result.ok) return 'fail';
  return result.warning ? 'warn' : 'ok';
}

export function passed(name: string, detail: string): CheckResult {
  return { name, ok: true, detail };
}

export function warned(name: string, detail: string, hint?: string): CheckResult {
  return hint === undefined
    ? { name, ok: true, warning: true, detail }
    : { name, ok: true, warning: true, detail, hint };
}

export function failed(name: string, detail: string, hint: string): CheckResult {
  return { name, ok: false, detail, hint };
}
