// The formatter moved to src/money so alerts (a domain component) can share it with the CLI.
export { currencyExponent, formatAmount, formatMinorAndHuman } from '../../money/index.ts';
