// Address allow-lists: CIDR ranges (IPv4 or IPv6) checked against a caller's
// address with node:net's BlockList. An IPv4 address that arrives mapped into
// IPv6 (::ffff:10.0.0.1) is matched as the IPv4 address it is.
import { BlockList, isIP } from 'node:net';
import { StripeError } from '../errors.js';

export interface AllowList {
  readonly cidrs: readonly string[];
  allows(address: string | undefined): boolean;
}

function parseCidr(text: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [network = '', prefixText] = text.split('/');
  const version = isIP(network);
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (
    version === 0 ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > bits ||
    (prefixText !== undefined && !/^\d+$/.test(prefixText))
  )
    throw new StripeError(
      'AUTH_CAPS_INVALID',
      `${JSON.stringify(text)} is not an address range: expected CIDR such as 10.0.0.0/8, 127.0.0.1 or fd00::/8`,
    );
  return { network, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The address a gRPC peer string ("127.0.0.1:5000", "::1:5000") or socket names, without its port. */
export function addressOfPeer(peer: string): string | undefined {
  // grpc-js appends ":port" without brackets, even to IPv6 addresses ("::1:5000").
  const withPort = /^\[?(.*?)\]?:(\d+)$/.exec(peer);
  if (withPort && isIP(withPort[1] as string)) return withPort[1];
  return isIP(peer) ? peer : undefined;
}

function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? (mapped[1] as string) : address;
}

/** An allow-list; an empty one allows every address. */
export function allowListOf(cidrs: readonly string[]): AllowList {
  const list = new BlockList();
  for (const text of cidrs) {
    const { network, prefix, family } = parseCidr(text.trim());
    list.addSubnet(network, prefix, family);
  }
  return {
    cidrs: [...cidrs],
    allows(address) {
      if (cidrs.length === 0) return true;
      if (address === undefined) return false;
      const plain = unmapped(address);
      const version = isIP(plain);
      return version !== 0 && list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
