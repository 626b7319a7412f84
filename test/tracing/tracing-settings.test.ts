import { describe, expect, it } from 'vitest';
import { startTracing, tracingSettings, TracingSettingsError } from '../../src/tracing/index.ts';

const ENDPOINT = 'http://127.0.0.1:4318';

describe('tracing settings, from the OTEL_* variables alone', () => {
  it('are off without an endpoint, with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(
      tracingSettings({ OTEL_SERVICE_NAME: 'paysync', OTEL_TRACES_SAMPLER: 'always_on' }),
    ).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('are on with either endpoint, over http/protobuf unless http/json is asked for', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toEqual({
      protocol: 'http/protobuf',
    });
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }),
    ).toEqual({ protocol: 'http/protobuf' });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({ protocol: 'http/json' });
  });

  it('refuse, in one line naming the variable and the fix, what paysync does not ship', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(TracingSettingsError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; use http/protobuf (the default) or http/json',
    );
    expect(refusal({ OTEL_TRACES_EXPORTER: 'zipkin' })).toBe(
      'OTEL_TRACES_EXPORTER=zipkin is not supported; set it to otlp (or none), or unset it',
    );
  });

  it('startTracing without an endpoint starts nothing', async () => {
    const warnings: string[] = [];
    const tracing = await startTracing({}, { warn: (_fields, message) => warnings.push(message) });
    expect(tracing).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});
