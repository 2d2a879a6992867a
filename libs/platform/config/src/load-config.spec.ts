import { ConfigurationError, loadConfig } from './load-config';

describe('loadConfig: the admin port', () => {
  it('is unset unless given, and read as a port when given', () => {
    expect(loadConfig({}).adminPort).toBeUndefined();
    expect(loadConfig({ GUIDEPOST_ADMIN_PORT: '9090' }).adminPort).toBe(9090);
  });

  it('refuses a port that is not one, or the HTTP port itself', () => {
    expect(() => loadConfig({ GUIDEPOST_ADMIN_PORT: '70000' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ GUIDEPOST_PORT: '9090', GUIDEPOST_ADMIN_PORT: '9090' })).toThrow('GUIDEPOST_ADMIN_PORT: must differ from GUIDEPOST_PORT');
    expect(() => loadConfig({ GUIDEPOST_ADMIN_PORT: '8080' })).toThrow('GUIDEPOST_ADMIN_PORT: must differ from GUIDEPOST_PORT');
  });
});
