import { tracingSettings } from './tracing-settings.ts';
import type { Tracing, TracingDiagnostics } from './tracing-types.ts';

export type { Tracing, TracingDiagnostics } from './tracing-types.ts';

/**
 * Starts the OpenTelemetry SDK when the `OTEL_*` variables ask for it (see
 * {@link tracingSettings}) and returns its handle; otherwise returns `undefined` without
 * loading any of the SDK (the spans paysync opens through `@opentelemetry/api` stay no-ops).
 * Throws TracingSettingsError for a setting it cannot honour.
 */
export async function startTracing(
  env: Readonly<Record<string, string | undefined>>,
  diagnostics: TracingDiagnostics,
): Promise<Tracing | undefined> {
  const settings = tracingSettings(env);
  if (!settings) return undefined;
  const { startSdk } = await import('./sdk.ts');
  return startSdk(settings, diagnostics);
}
