import { resolve } from 'node:path';
import { ConfigurationError, loadConfig } from './load-config';

describe('loadConfig: HTTPS settings', () => {
  it('takes a certificate and its key together, and links say https', () => {
    const config = loadConfig({ GUIDEPOST_TLS_CERT_FILE: 'tls/cert.pem', GUIDEPOST_TLS_KEY_FILE: 'tls/key.pem', GUIDEPOST_PORT: '8443' });

    expect(config.tls).toEqual({ certFile: resolve('tls/cert.pem'), keyFile: resolve('tls/key.pem'), reloadIntervalMs: 10_000 });
    expect(config.publicUrl).toBe('https://127.0.0.1:8443');
  });

  it('serves plain HTTP without them', () => {
    const config = loadConfig({});

    expect(config.tls).toBeUndefined();
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('keeps an explicit public URL as given', () => {
    const config = loadConfig({
      GUIDEPOST_TLS_CERT_FILE: 'c.pem',
      GUIDEPOST_TLS_KEY_FILE: 'k.pem',
      GUIDEPOST_PUBLIC_URL: 'https://api.example.com',
    });

    expect(config.publicUrl).toBe('https://api.example.com');
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
