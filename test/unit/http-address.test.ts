/** A host and a port as text (src/http/address.ts): IPv6 in brackets, so the port reads apart from the address. */
import { describe, expect, it } from 'vitest';
import { hostPort, originOf, urlHost } from '../../src/http/address.js';

describe('a host and a port as text', () => {
  it.each([
    ['127.0.0.1', 8787, '127.0.0.1', '127.0.0.1:8787'],
    ['localhost', 0, 'localhost', 'localhost:0'],
    ['::1', 8787, '[::1]', '[::1]:8787'],
  ])('%s port %d: %s, %s', (host, port, inUrl, withPort) => {
    expect(urlHost(host)).toBe(inUrl);
    expect(hostPort(host, port)).toBe(withPort);
  });
});

describe('a URL as its origin', () => {
  it('keeps scheme, host and port, drops the rest; a text that is not a URL stays as given', () => {
    expect(originOf('https://user:pass@platform.example:8443/cai/events?x=1')).toBe('https://platform.example:8443');
    expect(originOf('http://[::1]:8080/')).toBe('http://[::1]:8080');
    expect(originOf('not a url')).toBe('not a url');
  });
});
