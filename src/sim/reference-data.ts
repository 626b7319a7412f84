/**
 * The simulator's reference data. The interface document does not show the fields of country
 * and provider records; these are the simulator's choice.
 */
export interface SimCountry {
  code: string;
  name: string;
  currency: string;
  methods: string[];
}

export interface SimProvider {
  name: string;
  displayName: string;
  country: string;
  method: string;
  currency: string;
  status: 'enabled' | 'disabled';
}

export interface SimBank {
  bankName: string;
  bankCode: string;
  country: string;
}

export const COUNTRIES: readonly SimCountry[] = [
  {
    code: 'SN',
    name: 'Senegal',
    currency: 'XOF',
    methods: ['mobile_money', 'credit_card', 'bank_transfer'],
  },
  {
    code: 'CI',
    name: "Côte d'Ivoire",
    currency: 'XOF',
    methods: ['mobile_money', 'credit_card', 'bank_transfer'],
  },
  { code: 'BJ', name: 'Benin', currency: 'XOF', methods: ['mobile_money', 'credit_card'] },
  { code: 'ML', name: 'Mali', currency: 'XOF', methods: ['mobile_money'] },
  { code: 'BF', name: 'Burkina Faso', currency: 'XOF', methods: ['mobile_money'] },
  { code: 'TG', name: 'Togo', currency: 'XOF', methods: ['mobile_money'] },
  { code: 'CM', name: 'Cameroon', currency: 'XAF', methods: ['mobile_money', 'bank_transfer'] },
  { code: 'GN', name: 'Guinea', currency: 'GNF', methods: ['mobile_money'] },
  {
    code: 'FR',
    name: 'France',
    currency: 'EUR',
    methods: ['credit_card', 'bank_transfer', 'instant_payment'],
  },
];

function provider(
  name: string,
  displayName: string,
  country: string,
  method = 'mobile_money',
  status: 'enabled' | 'disabled' = 'enabled',
): SimProvider {
  const currency = COUNTRIES.find((c) => c.code === country)?.currency ?? 'XOF';
  return { name, displayName, country, method, currency, status };
}

export const PROVIDERS: readonly SimProvider[] = [
  provider('orange_money', 'Orange Money', 'SN'),
  provider('wave', 'Wave', 'SN'),
  provider('free_money', 'Free Money', 'SN'),
  provider('emoney', 'E-Money', 'SN', 'mobile_money', 'disabled'),
  provider('orange_money', 'Orange Money', 'CI'),
  provider('mtn', 'MTN Mobile Money', 'CI'),
  provider('moov', 'Moov Money', 'CI'),
  provider('wave', 'Wave', 'CI'),
  provider('mtn', 'MTN Mobile Money', 'BJ'),
  provider('moov', 'Moov Money', 'BJ'),
  provider('orange_money', 'Orange Money', 'ML'),
  provider('moov', 'Moov Money', 'ML'),
  provider('orange_money', 'Orange Money', 'BF'),
  provider('moov', 'Moov Money', 'BF'),
  provider('tmoney', 'T-Money', 'TG'),
  provider('moov', 'Moov Money', 'TG'),
  provider('mtn', 'MTN Mobile Money', 'CM'),
  provider('orange_money', 'Orange Money', 'CM'),
  provider('orange_money', 'Orange Money', 'GN'),
  provider('sepa', 'SEPA transfer', 'FR', 'bank_transfer'),
  provider('card', 'Card', 'FR', 'credit_card'),
  provider('airtime_sn', 'Airtime', 'SN', 'airtime'),
  provider('cash_sn', 'Cash pick-up', 'SN', 'cash'),
];

export const BANK_CODES: Readonly<Record<string, readonly SimBank[]>> = {
  SN: [
    { bankName: 'Banque de Dakar', bankCode: 'SN010', country: 'SN' },
    { bankName: 'Crédit du Sénégal', bankCode: 'SN039', country: 'SN' },
  ],
  CI: [
    { bankName: "Banque Atlantique Côte d'Ivoire", bankCode: 'CI034', country: 'CI' },
    { bankName: 'Société Ivoirienne de Banque', bankCode: 'CI008', country: 'CI' },
  ],
  CM: [{ bankName: 'Afriland First Bank', bankCode: 'CM100', country: 'CM' }],
};

/** True when `name` is an enabled provider for `country` and `method` (mobile_money if absent). */
export function isKnownProvider(name: string, country: string, method = 'mobile_money'): boolean {
  return PROVIDERS.some(
    (p) =>
      p.name === name && p.country === country && p.method === method && p.status === 'enabled',
  );
}

/** The merchant the simulator plays: its country and currency are inherited by submerchants. */
export const MERCHANT_PROFILE = {
  country: 'SN',
  currency: 'XOF',
  name: 'Sandbox Merchant',
} as const;
