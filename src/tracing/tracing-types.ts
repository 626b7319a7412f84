/** What a process keeps of a started tracer: flush and stop it last, after the components. */
export interface Tracing {
  /** Sends the spans still buffered and stops exporting; never throws. */
  shutdown(): Promise<void>;
}

/** Where the SDK's own complaints go (an unreachable collector, a bad sampler argument). */
export interface TracingDiagnostics {
  warn(fields: Record<string, unknown>, message: string): void;
}
