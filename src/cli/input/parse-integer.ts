import { InvalidArgumentError } from 'commander';

/** A commander option parser for a whole number in [min, max], naming the flag when it fails. */
export function integerOption(flag: string, min: number, max: number): (value: string) => number {
  return (value: string): number => {
    const parsed = Number(value);
    if (
      !/^\s*-?\d+\s*$/.test(value) ||
      !Number.isSafeInteger(parsed) ||
      parsed < min ||
      parsed > max
    ) {
      throw new InvalidArgumentError(`${flag} must be a whole number from ${min} to ${max}`);
    }
    return parsed;
  };
}
