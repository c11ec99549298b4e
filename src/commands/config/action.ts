/**
 * `cai config show` and `cai config init`, their actions. Loaded when the
 * command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import type { loadProfile } from '../../config/load.js';
import { errnoCode, usageError } from '../../errors.js';
import { safeText } from '../../output/safe-text.js';

/** `--config` and `--env`, the program's options that choose the profile. */
export type GlobalConfigFlags = Parameters<typeof loadProfile>[0];

export async function runConfigShow(flags: GlobalConfigFlags, { io, output }: CommandContext): Promise<number> {
  const { chooseEnvironment, loadProfile } = await import('../../config/load.js');
  const { describeEnvironment, describeLocation } = await import('./describe.js');
  const { looseModeWarning } = await import('../../config/secret-refs.js');
  const profile = loadProfile(flags, io.env, io.cwd);
  if (!profile.loaded) {
    const { describeConfigSearch } = await import('../../config/locate.js');
    throw usageError(
      'missing_config',
      `no cai.config.json in ${describeConfigSearch(io.cwd)}`,
      "create one with 'cai config init', or name one with --config FILE or CAI_CONFIG",
    );
  }
  const { loaded } = profile;
  const names = Object.keys(loaded.config.environments);
  // Several environments and none chosen: show them all, and say that none applies.
  const chosen = profile.chosen
    ? [profile.chosen]
    : names.map((name) => chooseEnvironment(loaded, { name, origin: 'flag' })).filter((c) => c !== undefined);
  const described = chosen.map((c) => {
    const description = describeEnvironment(c, io.env);
    return profile.chosen ? description : { ...description, chosenBy: undefined };
  });
  const file = describeLocation(loaded);
  for (const environment of described) {
    for (const setting of environment.settings) {
      for (const status of setting.secrets ?? []) {
        const warning = looseModeWarning(status);
        if (warning) output.warn(warning);
      }
    }
  }
  if (output.json) {
    output.printJson({
      config: { path: loaded.location.path, origin: loaded.location.origin },
      chosen: profile.chosen?.name ?? null,
      environments: described,
    });
    return 0;
  }
  output.resultWrapped(`config file: ${file}`, '  ');
  if (!profile.chosen)
    output.resultWrapped(
      `environment: none chosen (${names.join(', ')} defined; pass --env NAME or set CAI_ENV, or add default_env); no defaults are applied`,
      '  ',
    );
  for (const environment of described) {
    output.result('');
    output.result(
      environment.chosenBy
        ? `environment ${environment.name} (chosen by ${environment.chosenBy})`
        : `environment ${environment.name}`,
    );
    const rows = environment.settings.map((s) => [
      s.field,
      s.value !== undefined ? safeText(s.value) : output.color.dim('(not set)'),
      s.value === undefined ? '' : safeText(s.source),
    ]);
    output.result(await output.table(['setting', 'value', 'from'], rows));
  }
  if (profile.chosen) {
    const { CONFIG_DEFAULT_RULES } = await import('../common/config-defaults-table.js');
    output.result('');
    output.result('defaults it gives each command (flags override them):');
    const groupOf = (rule: (typeof CONFIG_DEFAULT_RULES)[number]) =>
      `${rule.command}${rule.when ? ` --interface ${rule.when.interface}` : ''}`;
    for (const group of [...new Set(CONFIG_DEFAULT_RULES.map(groupOf))]) {
      const text = CONFIG_DEFAULT_RULES.filter((rule) => groupOf(rule) === group).map(
        (rule) => `${rule.option}${rule.field.startsWith('secrets.') ? '-env/-file' : ''} ← ${rule.field}`,
      );
      // On a terminal, the list wraps under itself; piped, each command stays on one line.
      output.resultWrapped(`  ${group.padEnd(29)} ${text.join(', ')}`, ' '.repeat(32));
    }
  }
  return 0;
}

export async function runConfigInit(flags: GlobalConfigFlags, { io, output }: CommandContext): Promise<number> {
  const { writeFile, mkdir } = await import('node:fs/promises');
  const { resolve, dirname } = await import('node:path');
  const { starterConfig } = await import('../../config/init.js');
  const { configSchemaUrl } = await import('../../config/json-schema.js');
  const { versionInfo } = await import('../../version.js');
  const { CONFIG_FILE_NAME } = await import('../../config/locate.js');
  const path = resolve(io.cwd, flags.config ?? CONFIG_FILE_NAME);
  try {
    await mkdir(dirname(path), { recursive: true });
    // 'wx': fails when the file exists, so an existing profile is never overwritten, not even in a race.
    await writeFile(path, JSON.stringify(starterConfig(configSchemaUrl(versionInfo().version)), null, 2) + '\n', {
      flag: 'wx',
    });
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') {
      throw usageError(
        'config_exists',
        `${path} already exists; it is left unchanged`,
        "edit it, or see what it resolves to with 'cai config show'",
      );
    }
    throw usageError('unwritable_config', `cannot write ${path}`, 'check that the directory is writable', error);
  }
  if (output.json) {
    output.printJson({ written: path });
    return 0;
  }
  output.result(`wrote ${path}`);
  output.info(
    "next: replace the placeholder values, export the secrets it names (or create its secret files, chmod 600), then run 'cai config show' and 'cai doctor'",
  );
  return 0;
}
