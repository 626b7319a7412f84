import {
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../../src/sim/index.ts';

export interface SimResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A started simulator plus a tiny fetch helper that sends its credentials. */
export interface TestSim {
  sim: RunningSimulator;
  /** Calls the API with ApiKey + MerchantId + Environment unless `headers` replaces them. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<SimResponse>;
  credentialHeaders(environment?: 'sandbox' | 'live'): Record<string, string>;
}

export async function startTestSim(options: SimulatorOptions = {}): Promise<TestSim> {
  const sim = await startSimulator({
    apiKey: 'sk_test_key',
    merchantId: 'mch_test',
    seed: 42,
    freezeClock: true,
    ...options,
  });
  const credentialHeaders = (environment: 'sandbox' | 'live' = 'sandbox') => ({
    ApiKey: sim.credentials.apiKey,
    MerchantId: sim.credentials.merchantId,
    Environment: environment,
  });
  return {
    sim,
    credentialHeaders,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? credentialHeaders()) };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${sim.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
    },
  };
}

/** A delegated IRT transfer body to a given recipient number. */
export function irtBody(msisdn: string, reference: string, srcAmount = 10_000) {
  return {
    reference,
    srcCountry: 'FR',
    srcCurrency: 'XOF',
    srcAmount,
    destinationCurrency: 'XOF',
    destination: { type: 'mobile_money', country: 'SN', msisdn, provider: 'orange_money' },
    recipientKyc: { firstName: 'Awa', lastName: 'Diop', contactPhone: msisdn },
  };
}
