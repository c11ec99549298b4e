import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { validateDocument } from '../../src/spec/validate.js';

describe('cai sample', () => {
  it('prints one pretty, valid job', async () => {
    const result = await runCli([
      'sample',
      'job',
      '--callback-url',
      'https://p.example/events',
      '--branch-code',
      'BR-9',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('\n  "lead_id"');
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ callback_url: 'https://p.example/events', branch_code: 'BR-9' });
    expect(validateDocument(doc, { kind: 'job', strict: true })).toMatchObject({ valid: true, warnings: [] });
  });

  it('prints --count documents as NDJSON with fresh ids', async () => {
    const result = await runCli(['sample', 'event', 'conversation.message', '--count', '5', '--lead-id', 'lead_1']);
    const docs = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(docs).toHaveLength(5);
    expect(new Set(docs.map((d) => d.event_id)).size).toBe(5);
    expect(docs.every((d) => d.lead_id === 'lead_1')).toBe(true);
  });

  it('applies --set (JSON or text) and --unset', async () => {
    const result = await runCli([
      'sample',
      'event',
      'job.closed',
      '--set',
      'attempts=7',
      '--set',
      'notes=called twice',
      '--unset',
      'occurred_at',
      '--compact',
    ]);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ attempts: 7, notes: 'called twice' });
    expect(doc).not.toHaveProperty('occurred_at');
    expect(result.stderr.split('\n')).toEqual([
      'note: occurred_at: job.closed events usually carry occurred_at; the spec does not require it ("not shown", §2.4)',
      'note: notes: not a field of spec v1.0 (accepted: §9.2 receivers ignore unknown fields)',
      '',
    ]);
  });

  it('reports an override that makes the document invalid, and prints it anyway', async () => {
    const result = await runCli(['sample', 'event', 'job.closed', '--set', 'outcome=booked']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { outcome: string }).outcome).toBe('booked');
    expect(result.stderr).toBe(
      'warning: your overrides make the document invalid (1 error); printed anyway:\n' +
        'warning:   outcome: not one of the allowed values (expected one of: no_answer, not_interested, wrong_number, callback_later, opted_out, got "booked")\n',
    );
  });

  it('refuses it with --strict: exit 1, nothing on stdout', async () => {
    const result = await runCli(['sample', 'event', 'job.closed', '--set', 'attempts=-2', '--strict']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: your overrides make the document invalid: attempts: must be 0 or more (expected >= 0, got -2)\nhint: change the --set/--unset values, or drop --strict to print it anyway\n',
    });
  });

  it.each([
    [['event', 'appointment.booked', '--branch-code', ''], 'branch_code', '--branch-code value'],
    [['event', 'conversation.message', '--provider-job-id', ''], 'provider_job_id', '--provider-job-id value'],
    [['job', '--branch-code', '', '--set', 'attempts=1'], 'branch_code', '--set/--unset, --branch-code values'],
  ])('checks the field flags as it checks --set: %j', async (argv, field, flags) => {
    const strict = await runCli(['sample', ...argv, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe('');
    expect(strict.stderr).toMatch(
      new RegExp(
        `^error: your overrides make the document invalid: ${field}: .*\nhint: change the ${flags.replace('/', '\\/')}, or drop --strict to print it anyway\n$`,
      ),
    );
    const loose = await runCli(['sample', ...argv, '--compact']);
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain(`"${field}":""`);
    expect(loose.stderr).toMatch(/^warning: your overrides make the document invalid \(1 error\); printed anyway:\n/);
  });

  it("an event's --lead-id '' is valid: a lead the platform does not recognise (§6.3)", async () => {
    const result = await runCli(['sample', 'event', 'job.closed', '--lead-id', '', '--strict', '--compact']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"lead_id":""');
  });

  it('a field flag with a valid value prints no warning', async () => {
    const result = await runCli(['sample', 'event', 'appointment.booked', '--lead-id', 'lead_123', '--strict']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it.each([
    [['sample', 'job', '--set', 'city.name=x'], 'error: city is not an object, so city.name cannot be set'],
    [['sample', 'job', '--set', 'nonsense'], 'error: --set nonsense: expected path=value'],
    [
      ['sample', 'job', '--set', 'notes=a', '--set', 'attempts=1', '--set', 'notes=b'],
      'error: --set notes is given twice; only one value can be sent',
    ],
    [['sample', 'job', '--set', 'notes=a', '--unset', 'notes'], 'error: notes is given to both --set and --unset'],
    [
      ['sample', 'job', '--count', '0'],
      "error: option '--count <n>' argument '0' is invalid. expected a whole number of 1 or more.",
    ],
    [
      ['sample', 'event', 'appointment.attended'],
      "error: command-argument value 'appointment.attended' is invalid for argument 'type'. expected one of: conversation.message, appointment.booked, appointment.rescheduled, appointment.cancelled, job.closed.",
    ],
  ])('exits 2 on bad usage: %j', async (argv, error) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(error);
    expect(result.stderr.split('\n')[1]).toMatch(/^hint: /);
  });
});

describe('cai schema', () => {
  it('prints the JSON Schema 2020-12 of a kind, an event type, or all', async () => {
    const job = JSON.parse((await runCli(['schema', 'job'])).stdout) as Record<string, unknown>;
    expect(job).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'ContactJob',
      type: 'object',
    });
    expect(job.required).toEqual(['lead_id', 'event_id', 'branch_code', 'contact', 'callback_url']);
    const booked = JSON.parse((await runCli(['schema', 'appointment.booked'])).stdout) as {
      properties: Record<string, { pattern?: string }>;
    };
    expect(booked.properties.scheduled_at?.pattern).toMatch(/^\^/);
    const all = JSON.parse((await runCli(['schema'])).stdout) as { $defs: Record<string, unknown> };
    expect(Object.keys(all.$defs)).toEqual([
      'ContactJob',
      'JobAck',
      'DuplicateAck',
      'Event',
      'ConversationMessageEvent',
      'AppointmentBookedEvent',
      'AppointmentRescheduledEvent',
      'AppointmentCancelledEvent',
      'JobClosedEvent',
    ]);
  });

  it('prints the OpenAPI 3.1 document', async () => {
    const result = await runCli(['schema', '--format', 'openapi']);
    expect((JSON.parse(result.stdout) as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('refuses --format openapi for one kind, and unknown targets', async () => {
    expect(await runCli(['schema', 'job', '--format', 'openapi'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --format openapi describes both interfaces whole, not job alone\nhint: drop 'job', or use --format json-schema for one document kind\n",
    });
    expect((await runCli(['schema', 'lead'])).code).toBe(2);
  });
});
