import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from '../../src/output/curl.js';

describe('shellQuote', () => {
  it('leaves a word of safe characters alone and single-quotes anything else', () => {
    expect(shellQuote('https://example.test/cai/events')).toBe('https://example.test/cai/events');
    expect(shellQuote('@/tmp/body.json')).toBe('@/tmp/body.json');
    expect(shellQuote('X-CAI-Provider: acme')).toBe("'X-CAI-Provider: acme'");
    expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(shellQuote('')).toBe("''");
  });
});

describe('curlCommand', () => {
  const request = {
    url: 'https://platform.test/cai/events',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-CAI-Provider', 'acme'],
    ] as const,
    data: { file: '/tmp/a b.json' },
  };

  it('puts one argument a line for a person to read', () => {
    expect(curlCommand(request)).toBe(
      [
        'curl -sS -i -X POST https://platform.test/cai/events',
        "  -H 'Content-Type: application/json'",
        "  -H 'X-CAI-Provider: acme'",
        "  --data-binary '@/tmp/a b.json'",
      ].join(' \\\n'),
    );
  });

  it('writes one line for a script, with shell words as given and options before the body', () => {
    const line = curlCommand(
      {
        ...request,
        headers: [...request.headers, { shell: '"X-CAI-Timestamp: $ts"' }],
        options: [['--interface', '10.0.0.2']],
        data: { text: `{"a":"it's"}` },
      },
      'one-line',
    );
    expect(line).toBe(
      `curl -sS -i -X POST https://platform.test/cai/events -H 'Content-Type: application/json' -H 'X-CAI-Provider: acme' -H "X-CAI-Timestamp: $ts" --interface 10.0.0.2 --data-binary '{"a":"it'\\''s"}'`,
    );
  });
});
