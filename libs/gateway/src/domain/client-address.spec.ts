import { clientAddressOf } from './client-address';

describe('clientAddressOf', () => {
  const peer = '10.0.0.5';

  it('takes the peer address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: '203.0.113.7' }, 0)).toBe(peer);
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: undefined }, 0)).toBe(peer);
  });

  it('takes the address the trusted proxies appended, counted from the right, never what the client wrote', () => {
    // The client wrote 192.0.2.1; the ingress appended the address it saw, 203.0.113.7.
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: '192.0.2.1, 203.0.113.7' }, 1)).toBe('203.0.113.7');
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: ['192.0.2.1', '203.0.113.7, 10.0.0.9'] }, 2)).toBe('203.0.113.7');
  });

  it('keeps the nearest trusted address when the header is shorter than the hops or holds no address', () => {
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: undefined }, 1)).toBe(peer);
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: '203.0.113.7' }, 3)).toBe('203.0.113.7');
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: 'unknown, 203.0.113.7' }, 2)).toBe('203.0.113.7');
    expect(clientAddressOf({ peerAddress: peer, forwardedFor: 'not an address' }, 1)).toBe(peer);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(clientAddressOf({ peerAddress: '2001:db8:a:b:1:2:3:4', forwardedFor: undefined }, 0)).toBe('2001:db8:a:b::/64');
    expect(clientAddressOf({ peerAddress: '2001:db8:a:b::ffff', forwardedFor: undefined }, 0)).toBe('2001:db8:a:b::/64');
    expect(clientAddressOf({ peerAddress: '2001:DB8::1', forwardedFor: undefined }, 0)).toBe('2001:db8:0:0::/64');
    expect(clientAddressOf({ peerAddress: 'fe80::1%eth0', forwardedFor: undefined }, 0)).toBe('fe80:0:0:0::/64');
    expect(clientAddressOf({ peerAddress: '::1', forwardedFor: undefined }, 0)).toBe('0:0:0:0::/64');
    expect(clientAddressOf({ peerAddress: '::ffff:203.0.113.7', forwardedFor: undefined }, 0)).toBe('203.0.113.7');
  });

  it('counts peers whose address is gone as one', () => {
    expect(clientAddressOf({ peerAddress: undefined, forwardedFor: undefined }, 0)).toBe('unknown');
  });
});
