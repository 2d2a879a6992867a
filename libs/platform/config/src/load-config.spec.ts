import { resolve } from 'node:path';
import { ConfigurationError, loadConfig } from './load-config';

describe('loadConfig: HTTPS settings', () => {
  it('takes a certificate and its key together, and links say https', () => {
    const config = loadConfig({ GUIDEPOST_TLS_CERT_FILE: 'tls/cert.pem', GUIDEPOST_TLS_KEY_FILE: 'tls/key.pem', GUIDEPOST_PORT: '8443' });

    expect(config.tls).toEqual({ certFile: resolve('tls/cert.pem'), keyFile: resolve('tls/key.pem'), reloadIntervalMs: 10_000 });
    expect(config.defaultPublicUrl).toBe('https://127.0.0.1:8443');
  });

  it('serves plain HTTP without them', () => {
    const config = loadConfig({});

    expect(config.tls).toBeUndefined();
    expect(config.defaultPublicUrl).toBe('http://127.0.0.1:8080');
  });

  it('keeps an explicit public URL as given', () => {
    const config = loadConfig({
      GUIDEPOST_TLS_CERT_FILE: 'c.pem',
      GUIDEPOST_TLS_KEY_FILE: 'k.pem',
      GUIDEPOST_PUBLIC_URL: 'https://api.example.com',
    });

    expect(config.defaultPublicUrl).toBe('https://api.example.com');
  });

  it.each([
    [{ GUIDEPOST_TLS_CERT_FILE: 'c.pem' }, 'GUIDEPOST_TLS_KEY_FILE: is required with GUIDEPOST_TLS_CERT_FILE'],
    [{ GUIDEPOST_TLS_KEY_FILE: 'k.pem' }, 'GUIDEPOST_TLS_CERT_FILE: is required with GUIDEPOST_TLS_KEY_FILE'],
  ])('refuses one without the other: %j', (env, problem) => {
    expect(() => loadConfig(env)).toThrow(expect.objectContaining({ problems: [problem] }) as ConfigurationError);
  });
});

describe('loadConfig: the admin port', () => {
  it('is unset unless given, and read as a port when given', () => {
    expect(loadConfig({}).adminPort).toBeUndefined();
    expect(loadConfig({ GUIDEPOST_ADMIN_PORT: '9090' }).adminPort).toBe(9090);
  });

  it('refuses a port that is not one, or the HTTP port itself', () => {
    expect(() => loadConfig({ GUIDEPOST_ADMIN_PORT: '70000' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ GUIDEPOST_PORT: '9090', GUIDEPOST_ADMIN_PORT: '9090' })).toThrow(
      'GUIDEPOST_ADMIN_PORT: must differ from GUIDEPOST_PORT',
    );
    expect(() => loadConfig({ GUIDEPOST_ADMIN_PORT: '8080' })).toThrow('GUIDEPOST_ADMIN_PORT: must differ from GUIDEPOST_PORT');
  });
});

describe('loadConfig: the trusted proxies', () => {
  it('trusts loopback only by default', () => {
    const { trustedProxies } = loadConfig({});

    expect(trustedProxies.entries).toEqual(['127.0.0.1', '::1']);
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.1'].map((address) => trustedProxies.trusts(address))).toEqual([true, true, true]);
    expect(['127.0.0.2', '10.0.0.1', undefined].map((address) => trustedProxies.trusts(address))).toEqual([false, false, false]);
  });

  it('takes addresses and CIDR blocks of both families, spaces around the commas allowed', () => {
    const { trustedProxies } = loadConfig({ GUIDEPOST_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8 ,192.0.2.7' });

    expect(['10.20.30.40', '::ffff:10.1.1.1', 'fd12::1', '192.0.2.7'].every((address) => trustedProxies.trusts(address))).toBe(true);
    expect(['11.0.0.1', 'fe80::1', '192.0.2.8', '127.0.0.1'].some((address) => trustedProxies.trusts(address))).toBe(false);
  });

  it.each([
    ['10.0.0.0/33', 'GUIDEPOST_TRUSTED_PROXIES: "10.0.0.0/33": the prefix length must be 0 to 32'],
    ['::/129', 'GUIDEPOST_TRUSTED_PROXIES: "::/129": the prefix length must be 0 to 128'],
    ['10.0.0.1,300.0.0.1', 'GUIDEPOST_TRUSTED_PROXIES: "300.0.0.1" is neither an IP address nor a CIDR block'],
    ['10.0.0.0/8/8', 'GUIDEPOST_TRUSTED_PROXIES: "10.0.0.0/8/8" is neither an IP address nor a CIDR block'],
  ])('refuses %j, naming the entry', (list, problem) => {
    expect(() => loadConfig({ GUIDEPOST_TRUSTED_PROXIES: list })).toThrow(
      expect.objectContaining({ problems: [problem] }) as ConfigurationError,
    );
  });

  it('refuses what is no list of addresses at all', () => {
    expect(() => loadConfig({ GUIDEPOST_TRUSTED_PROXIES: 'proxy.internal' })).toThrow('GUIDEPOST_TRUSTED_PROXIES: must match pattern');
  });
});
