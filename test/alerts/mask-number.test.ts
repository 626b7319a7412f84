import { describe, expect, it } from 'vitest';
import { maskNumber, maskNumberFields, maskNumbersInText } from '../../src/alerts/index.ts';

describe('masking numbers in alerts', () => {
  it.each([
    ['+221771234512', '+22177•••••12'],
    ['+221 77 123 45 12', '+22177•••••12'],
    ['221771234512', '22177•••••12'],
    ['0771234512', '07712•••12'],
    ['77123451', '77••••51'],
    ['1234', '••••'],
  ])('%s → %s', (number, masked) => {
    expect(maskNumber(number)).toBe(masked);
    expect(masked.replace(/\D/g, '').length).toBeLessThan(number.replace(/\D/g, '').length);
  });

  it('masks numbers inside free text but leaves ids, amounts and times alone', () => {
    expect(
      maskNumbersInText(
        'tr_12345678 of 1,250,000 XOF to +221771234512 (or 221 77 123 45 12) at 2030-01-10T10:00:00.000Z',
      ),
    ).toBe(
      'tr_12345678 of 1,250,000 XOF to +22177•••••12 (or 22177•••••12) at 2030-01-10T10:00:00.000Z',
    );
  });

  it('masks number fields at any depth of a record, by their key, and nothing else', () => {
    expect(
      maskNumberFields({
        id: 'tr_1',
        amount: 1234567890,
        destination: { number: '+221771234512', country: 'SN', recipientName: 'Awa' },
        payments: [{ phoneNumber: '221771234512', msisdn: null }],
      }),
    ).toEqual({
      id: 'tr_1',
      amount: 1234567890,
      destination: { number: '+22177•••••12', country: 'SN', recipientName: 'Awa' },
      payments: [{ phoneNumber: '22177•••••12', msisdn: null }],
    });
  });
});
