import { randomInt } from 'node:crypto';
import { canonicalPathOf, readPath } from './canonical-path';

/** What undici (and so the gateway's proxy) makes of a path: the WHATWG URL parser's reading. */
function urlParserPathOf(path: string): string {
  return new URL(path, 'http://service.internal').pathname;
}

describe('readPath', () => {
  it.each([
    ['/', []],
    ['/v2/accounts/acme/flows', ['v2', 'accounts', 'acme', 'flows']],
    ['/v2/accounts/acme/users/a%2Fb%5Cc/profile', ['v2', 'accounts', 'acme', 'users', 'a/b\\c', 'profile']],
    ['/v2/accounts/acme/users/%2e%2e%2e/profile', ['v2', 'accounts', 'acme', 'users', '...', 'profile']],
    ['/v2/accounts/acme/users/caf%C3%A9;v=1/profile', ['v2', 'accounts', 'acme', 'users', 'café;v=1', 'profile']],
  ])('reads %s into its decoded segments', (path, segments) => {
    expect(readPath(path)).toEqual({ segments });
  });

  it.each([
    ['/v2/accounts/a/segments/x\\..\\..\\..\\b\\segments', "path: holds a backslash ('\\'); percent-encode it"],
    ['/v2/accounts/a/flows#/../b', "path: holds '#'; percent-encode it"],
    ['/v2/accounts/a/flows/caf\u00e9', 'path: holds a character outside printable ASCII; percent-encode it'],
    ['/v2/accounts/a/flows/a b', 'path: holds a character outside printable ASCII; percent-encode it'],
    ['/v2/accounts/a/../b/flows', "path: segment 4 is a dot segment ('.' or '..', in any spelling)"],
    ['/v2/accounts/a/%2E%2e/b/flows', "path: segment 4 is a dot segment ('.' or '..', in any spelling)"],
    ['/v2/accounts/a/.%2E/b/flows', "path: segment 4 is a dot segment ('.' or '..', in any spelling)"],
    ['/v2/./accounts', "path: segment 2 is a dot segment ('.' or '..', in any spelling)"],
    ['/v2/accounts/a/flows/%c0%ae%c0%ae', 'path: segment 5 holds a percent escape that is not UTF-8'],
    ['/v2/accounts/a/flows/%ed%a0%80', 'path: segment 5 holds a percent escape that is not UTF-8'],
    ['/v2/accounts/a/flows/%zz', 'path: segment 5 holds a percent escape that is not UTF-8'],
    ['/v2//accounts', "path: segment 2 is empty (a doubled '/' or a '/' at the end)"],
    ['/v2/accounts/', "path: segment 3 is empty (a doubled '/' or a '/' at the end)"],
    ['//evil.example/v2', "path: segment 1 is empty (a doubled '/' or a '/' at the end)"],
    ['http://evil.example/v2', "path: must begin with '/'"],
    ['*', "path: must begin with '/'"],
  ])('refuses %s', (path, problem) => {
    expect(readPath(path)).toEqual({ problem });
  });
});

describe('canonicalPathOf', () => {
  it('spells every segment in one way that the URL parser of the proxy leaves as it is', () => {
    const segments = ['v2', 'accounts', 'acme', 'users', 'a/b\\c?d#e%f ..;=é😀', 'profile'];
    const path = canonicalPathOf(segments);
    expect(path).toBe('/v2/accounts/acme/users/a%2Fb%5Cc%3Fd%23e%25f%20..%3B%3D%C3%A9%F0%9F%98%80/profile');
    expect(urlParserPathOf(path)).toBe(path);
    expect(readPath(path)).toEqual({ segments });
  });

  it('agrees with the URL parser on every path it accepts, whatever the spelling (generated paths)', () => {
    const alphabet = [
      'a',
      'B',
      '.',
      '..',
      '/',
      '\\',
      '%',
      '%2e',
      '%2E',
      '%2f',
      '%5C',
      '%5c',
      '%00',
      '%C0%AE',
      '%e2%82%ac',
      ';',
      '#',
      '?',
      '~',
      '|',
      ' ',
      'é',
    ];
    let accepted = 0;
    for (let sample = 0; sample < 20_000; sample += 1) {
      const parts = Array.from({ length: randomInt(1, 10) }, () => alphabet[randomInt(alphabet.length)]);
      const path = `/${parts.join('')}`;
      const reading = readPath(path);
      if (reading.problem !== undefined) continue;
      accepted += 1;
      const canonical = canonicalPathOf(reading.segments);
      expect({ path, parsed: urlParserPathOf(canonical) }).toEqual({ path, parsed: canonical });
      expect({ path, again: readPath(canonical) }).toEqual({ path, again: reading });
    }
    expect(accepted).toBeGreaterThan(1_000);
  });
});
