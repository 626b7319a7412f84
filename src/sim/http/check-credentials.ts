import type { OperationDefinition } from '../../upstream/contract/index.ts';
import { SimError } from '../engine/sim-error.ts';
import type { Mode } from '../engine/sim-resources.ts';
import type { ResolvedSimulatorOptions } from '../sim-options.ts';

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const WRONG = 'The merchant id and/or the API key are wrong';

/**
 * Enforces the credential headers the operation lists (all three, MerchantId only, or none;
 * all three everywhere with `strictCredentials`). Returns the request's mode: the
 * `Environment` header, or undefined when the operation does not demand it and none was sent.
 */
export function checkCredentials(
  operation: Pick<OperationDefinition, 'credentials' | 'errors'>,
  headers: Headers,
  options: Pick<
    ResolvedSimulatorOptions,
    'apiKey' | 'merchantId' | 'strictCredentials' | 'liveModeGranted'
  >,
): Mode | undefined {
  const demanded = options.strictCredentials ? 'all' : operation.credentials;
  const environment = header(headers, 'Environment');
  if (demanded !== 'none' && header(headers, 'MerchantId') !== options.merchantId) {
    throw new SimError('unauthorized', WRONG);
  }
  if (demanded === 'all') {
    if (header(headers, 'ApiKey') !== options.apiKey) throw new SimError('unauthorized', WRONG);
    if (environment !== 'live' && environment !== 'sandbox') {
      throw new SimError('unauthorized', 'The Environment header must be live or sandbox');
    }
  }
  const mode = environment === 'live' || environment === 'sandbox' ? environment : undefined;
  if (mode === 'live' && !options.liveModeGranted) {
    if (operation.errors.includes('forbidden'))
      throw new SimError('forbidden', 'Live mode is not granted to this merchant');
    throw new SimError('internal', 'Live mode is not granted to this merchant', [
      'live_mode_not_granted',
    ]);
  }
  return mode;
}
