/**
 * Whether this process traces, and how it exports, read from the standard `OTEL_*` variables
 * alone (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Tracing is off unless an OTLP endpoint is set; the SDK itself reads the rest (service name,
 * resource attributes, sampler, batch sizes, headers, timeout, compression).
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  readonly protocol: OtlpProtocol;
}

/** A tracing setting paysync cannot honour; its message names the variable and the fix. */
export class TracingSettingsError extends Error {
  override readonly name = 'TracingSettingsError';
}

type Env = Readonly<Record<string, string | undefined>>;

function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * The settings when tracing is on, `undefined` when it is off: no endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_SDK_DISABLED=true`
 * or `OTEL_TRACES_EXPORTER=none`. Throws {@link TracingSettingsError} for an exporter or a
 * protocol paysync does not ship (only OTLP over HTTP, protobuf or JSON).
 */
export function tracingSettings(env: Env): TracingSettings | undefined {
  if (setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporter = setting(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return undefined;
  if (
    setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') === undefined &&
    setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') === undefined
  ) {
    return undefined;
  }
  if (exporter !== undefined && exporter !== 'otlp') {
    throw new TracingSettingsError(
      `OTEL_TRACES_EXPORTER=${exporter} is not supported; set it to otlp (or none), or unset it`,
    );
  }
  const protocol =
    setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    setting(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new TracingSettingsError(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; use http/protobuf (the default) or http/json`,
    );
  }
  return { protocol };
}
