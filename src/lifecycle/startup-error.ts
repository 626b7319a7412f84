/** The daemon refuses to start: one line saying why and what to do. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  readonly code = 'startup_refused' as const;
}
