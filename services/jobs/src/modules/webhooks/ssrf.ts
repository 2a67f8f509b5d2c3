import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Where a delivery may go (docs/webhooks.md, "Addresses"): the address is
// checked when the connection is made, and the connection goes to the
// address that was checked (the socket's own lookup answers it), so a DNS
// name cannot pass the check with one address and connect to another.

/** Why an address is refused, by range; undefined when it is public. */
const RANGES: [reason: string, ranges: [string, number, 'ipv4' | 'ipv6'][]][] = [
  [
    'loopback',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  [
    'unspecified',
    [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  ],
  [
    'metadata',
    [
      ['169.254.169.254', 32, 'ipv4'],
      ['fd00:ec2::254', 128, 'ipv6'],
    ],
  ],
  [
    'link-local',
    [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['192.0.0.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
    ],
  ],
  ['unique-local', [['fc00::', 7, 'ipv6']]],
  [
    'multicast',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  [
    'reserved',
    [
      ['240.0.0.0', 4, 'ipv4'],
      ['64:ff9b::', 96, 'ipv6'],
      ['2001:db8::', 32, 'ipv6'],
    ],
  ],
];

const lists = RANGES.map(([reason, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return { reason, list };
});

/** The reason an address is not public (loopback, private, metadata, …), or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  const ip = mapped ?? address;
  const type = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  return lists.find(({ list }) => list.check(ip, type))?.reason;
}

/** A refusal to deliver: recorded in the delivery log with its reason, never sent. */
export class DeliveryRefused extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.name = 'DeliveryRefused';
    this.reason = reason;
  }
}

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** What a URL given at registration must be: an absolute http(s) URL, https unless allowed, no credentials. */
export function urlProblem(value: string, policy: Pick<AddressPolicy, 'allowHttp'>): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  return undefined;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request`: resolves the name, refuses it when any
 * address it resolves to is not public (unless allowed), and answers the
 * first checked address, the one the socket then connects to.
 */
export function checkedLookup(policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      if (list.length === 0) return callback(new DeliveryRefused(`${hostname} has no address`), []);
      if (!policy.allowPrivate) {
        for (const { address } of list) {
          const reason = nonPublicReason(address);
          if (reason) return callback(new DeliveryRefused(`address refused: ${reason}`), []);
        }
      }
      const chosen = list[0]!;
      if (options.all) callback(null, [chosen]);
      else callback(null, chosen.address, chosen.family);
    });
  };
}

/** A host given as an IP literal skips the lookup: checked here. Throws DeliveryRefused. */
export function checkLiteralHost(hostname: string, policy: AddressPolicy): void {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) === 0 || policy.allowPrivate) return;
  const reason = nonPublicReason(host);
  if (reason) throw new DeliveryRefused(`address refused: ${reason}`);
}
