import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Environment } from '../config/index.ts';
import type { EndpointRefusal } from './endpoint-error.ts';

/**
 * Which URLs paysync delivers to (docs/relay.md, "Safety"): `https` in `live` unless
 * `PAYSYNC_RELAY_ALLOW_HTTP=true`; and in `live`, never a loopback, link-local, private or
 * otherwise internal address (an SSRF guard), unless its host, address or range is listed in
 * `PAYSYNC_RELAY_ALLOWED_HOSTS`. The address is checked when it is resolved for each delivery,
 * so a name that later resolves inside is refused then.
 */

export interface EndpointUrlRules {
  readonly environment: Environment;
  /** @defaultValue false */
  readonly allowHttp: boolean;
  /** Hosts, addresses or CIDR ranges allowed although internal. */
  readonly allowedHosts: readonly string[];
}

/** Why `url` cannot be an endpoint, as a refusal the doors word; undefined when it can. */
export function endpointUrlProblem(
  url: string,
  rules: EndpointUrlRules,
): EndpointRefusal | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { code: 'endpoint_url_invalid', url };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { code: 'endpoint_url_scheme', protocol: parsed.protocol };
  }
  if (parsed.username || parsed.password) return { code: 'endpoint_url_credentials' };
  if (parsed.hash) return { code: 'endpoint_url_fragment' };
  if (parsed.protocol === 'http:' && rules.environment === 'live' && !rules.allowHttp) {
    return { code: 'endpoint_url_not_https', host: parsed.hostname };
  }
  const address = refusedHostAddress(parsed.hostname, rules);
  return address === undefined
    ? undefined
    : { code: 'endpoint_url_internal', host: parsed.hostname, address };
}

// Ranges that are not the public internet (RFC 6890 and friends). No IPv4-mapped range
// (::ffff:0:0/96) here: Node's BlockList matches every plain IPv4 address against it, which
// refused every public IPv4 address in live. A mapped address is judged as the IPv4 address it
// carries instead (ipv4Inside).
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

function allowList(rules: EndpointUrlRules): { hosts: Set<string>; ranges: BlockList } {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const entry of rules.allowedHosts) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    if (family && prefix !== undefined) {
      ranges.addSubnet(address!, Number(prefix), family === 6 ? 'ipv6' : 'ipv4');
    } else if (family) {
      ranges.addAddress(address!, family === 6 ? 'ipv6' : 'ipv4');
    } else {
      hosts.add(entry.toLowerCase());
    }
  }
  return { hosts, ranges };
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address carries (`::ffff:127.0.0.1`, `::ffff:7f00:1`,
 * `0:0:0:0:0:ffff:7f00:1` alike: the URL parser writes each in its one canonical form), so that
 * it is judged by the IPv4 ranges; undefined for any other address.
 */
function mappedIpv4(address: string): string | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname;
  } catch {
    return undefined;
  }
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (!match) return undefined;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True when `rules` refuse delivering to the address (an internal one in live, not allowed). */
function refusedAddress(address: string, rules: EndpointUrlRules): boolean {
  if (rules.environment !== 'live') return false;
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = family === 6 ? mappedIpv4(address) : undefined;
  const checked = mapped ?? address;
  const type = family === 6 && mapped === undefined ? 'ipv6' : 'ipv4';
  if (!INTERNAL.check(checked, type)) return false;
  const allowed = allowList(rules).ranges;
  return !(
    allowed.check(checked, type) ||
    (mapped !== undefined && allowed.check(address, 'ipv6'))
  );
}

/** Why an address may not be delivered to under `rules`; undefined when it may. */
export function addressProblem(address: string, rules: EndpointUrlRules): string | undefined {
  return refusedAddress(address, rules)
    ? `points at an internal address (${address}); paysync does not deliver inside the network in live unless PAYSYNC_RELAY_ALLOWED_HOSTS lists it`
    : undefined;
}

/** The refused address a URL's host is (an address literal, or localhost), or undefined. */
function refusedHostAddress(hostname: string, rules: EndpointUrlRules): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (rules.environment !== 'live') return undefined;
  if (allowList(rules).hosts.has(host)) return undefined;
  const address = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : host;
  return refusedAddress(address, rules) ? address : undefined;
}

/** Why a URL's host may not be delivered to (an address literal or an allowed name). */
export function hostProblem(hostname: string, rules: EndpointUrlRules): string | undefined {
  const address = refusedHostAddress(hostname, rules);
  return address === undefined ? undefined : addressProblem(address, rules);
}

/**
 * A `lookup` for `http.request` that refuses an internal address at connection time (a name
 * that resolves inside, or is rebound to resolve inside after it was added), with the error
 * code `EADDRNOTALLOWED`. Allowed names skip the check.
 */
export function guardedLookup(rules: EndpointUrlRules): LookupFunction {
  const { hosts } = allowList(rules);
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as LookupAddress[];
      if (!hosts.has(hostname.toLowerCase())) {
        for (const entry of list) {
          const problem = addressProblem(entry.address, rules);
          if (problem) {
            const refused = Object.assign(new Error(`${hostname} ${problem}`), {
              code: 'EADDRNOTALLOWED',
            });
            callback(refused, '', 0);
            return;
          }
        }
      }
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
