import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimControl, type SimControl } from './control/sim-control.ts';
import { createSimApp } from './http/sim-app.ts';
import { resolveSimulatorOptions, type SimulatorOptions } from './sim-options.ts';
import { SimRuntime } from './sim-runtime.ts';

/** A running simulator. */
export interface RunningSimulator {
  /** Base URL of the service API, e.g. `http://127.0.0.1:43117` (no trailing slash). */
  readonly url: string;
  /** The credentials it accepts. */
  readonly credentials: { readonly apiKey: string; readonly merchantId: string };
  /** The fixed webhook secret, when one was configured. */
  readonly webhookSecret: string | undefined;
  /** The seed in use (pass it back to reproduce a run). */
  readonly seed: number;
  readonly control: SimControl;
  /** Closes the server and stops transitions and webhook deliveries. */
  stop(): Promise<void>;
}

/** Starts the sandbox simulator of the payment service. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const resolved = resolveSimulatorOptions(options);
  const runtime = new SimRuntime(resolved);
  const control = createSimControl(runtime);
  const app = createSimApp(runtime, control);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(resolved.port, resolved.host, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  const url = `http://${host}:${port}`;
  runtime.engine.baseUrl = url;
  runtime.start();
  resolved.logger.info(
    { url, merchantId: resolved.merchantId, seed: resolved.seed },
    'simulator listening',
  );
  let stopped: Promise<void> | undefined;
  return {
    url,
    credentials: { apiKey: resolved.apiKey, merchantId: resolved.merchantId },
    webhookSecret: resolved.webhookSecret,
    seed: resolved.seed,
    control,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        runtime.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
