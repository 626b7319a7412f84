import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { endpointUrlProblem, guardedLookup, type EndpointUrlRules } from '../../src/relay/index.ts';

const LIVE: EndpointUrlRules = { environment: 'live', allowHttp: false, allowedHosts: [] };

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '[2606:4700:4700::1111]',
  '[2001:4860:4860::8888]',
];
const INTERNAL = [
  '127.0.0.1',
  '10.0.0.1',
  '192.168.1.10',
  '169.254.169.254',
  '[::1]',
  '[fd00::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:a9fe:a9fe]',
];

/** What guardedLookup answers for `host` (an address literal: no DNS server is asked). */
function lookUp(host: string, rules: EndpointUrlRules): Promise<string> {
  return new Promise((resolve) => {
    guardedLookup(rules)(host, { all: true }, (error, addresses) => {
      if (error) resolve(`refused: ${error.message}`);
      else resolve((addresses as unknown as LookupAddress[]).map((a) => a.address).join(','));
    });
  });
}

describe("the relay's address guard in live", () => {
  it.each(PUBLIC)('accepts the public address %s as an endpoint', (host) => {
    expect(endpointUrlProblem(`https://${host}/hook`, LIVE)).toBeUndefined();
  });

  it.each(INTERNAL)('refuses the internal address %s as an endpoint', (host) => {
    expect(endpointUrlProblem(`https://${host}/hook`, LIVE)).toMatchObject({
      code: 'endpoint_url_internal',
    });
  });

  it.each(PUBLIC.map((h) => h.replace(/^\[|\]$/g, '')))(
    'connects to the public address %s at delivery time',
    async (host) => {
      expect(await lookUp(host, LIVE)).toBe(host);
    },
  );

  it.each(INTERNAL.map((h) => h.replace(/^\[|\]$/g, '')))(
    'refuses the internal address %s at delivery time (the DNS rebinding guard)',
    async (host) => {
      expect(await lookUp(host, LIVE)).toMatch(/^refused: .*internal address/);
    },
  );

  it('allows a mapped internal address when its IPv4 range is listed', () => {
    const rules = { ...LIVE, allowedHosts: ['10.0.0.0/8'] };
    expect(endpointUrlProblem('https://[::ffff:10.0.0.1]/hook', rules)).toBeUndefined();
    expect(endpointUrlProblem('https://[::ffff:127.0.0.1]/hook', rules)).toEqual({
      code: 'endpoint_url_internal',
      host: '[::ffff:7f00:1]',
      address: '::ffff:7f00:1',
    });
  });
});
