import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const COMMANDS = [
  'sign', 'verify', 'validate', 'schema', 'send-job', 'send-event', 'replay', 'doctor', 'report',
  'sample', 'sample job', 'sample event', 'sample ack', 'sample duplicate-ack',
  'mock', 'mock platform', 'mock provider',
  'conformance', 'conformance run', 'conformance list',
  'config', 'config show', 'config init', 'completion',
];

describe('every command\'s --help ends with examples', () => {
  it.each(COMMANDS)('cai %s --help', async (command) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    const examples = result.stdout.slice(result.stdout.lastIndexOf('Examples:'));
    expect(examples).toMatch(/^Examples:\n(  \$ (\w+=\S+ )*cai .+\n(      .+\n)*)+/);
  });
});
