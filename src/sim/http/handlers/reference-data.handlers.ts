import { BANK_CODES, COUNTRIES, PROVIDERS } from '../../reference-data.ts';
import type { OperationHandlers } from './handler-types.ts';

export const referenceDataHandlers: OperationHandlers<
  'listCountries' | 'listProviders' | 'getBankCodes'
> = {
  listCountries({ query }) {
    const method = query.method;
    return {
      body: COUNTRIES.filter((country) => method === undefined || country.methods.includes(method)),
    };
  },

  listProviders({ query }) {
    const names = query.names;
    return {
      body: PROVIDERS.filter(
        (provider) =>
          (query.method === undefined || provider.method === query.method) &&
          (query.country === undefined || provider.country === query.country) &&
          (query.status === undefined || provider.status === query.status) &&
          (names === undefined || names.includes(provider.name)),
      ),
    };
  },

  getBankCodes() {
    return { body: BANK_CODES };
  },
};
