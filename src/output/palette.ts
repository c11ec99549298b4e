/**
 * The colours commands use. chalk is loaded only when a stream will really be coloured (a TTY with colour on):
 * piped and CI runs never pay its import cost, which matters for `cai sign` start-up.
 */
type Paint = (text: string) => string;

export interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  cyan: Paint;
  magenta: Paint;
  gray: Paint;
  dim: Paint;
  bold: Paint;
  underline: Paint;
}

const identity: Paint = (text) => text;

export const plainPalette: Palette = {
  red: identity,
  green: identity,
  yellow: identity,
  blue: identity,
  cyan: identity,
  magenta: identity,
  gray: identity,
  dim: identity,
  bold: identity,
  underline: identity,
};

export async function loadPalette(level: 0 | 1 | 2 | 3): Promise<Palette> {
  if (level === 0) return plainPalette;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level });
  return {
    red: (t) => chalk.red(t),
    green: (t) => chalk.green(t),
    yellow: (t) => chalk.yellow(t),
    blue: (t) => chalk.blue(t),
    cyan: (t) => chalk.cyan(t),
    magenta: (t) => chalk.magenta(t),
    gray: (t) => chalk.gray(t),
    dim: (t) => chalk.dim(t),
    bold: (t) => chalk.bold(t),
    underline: (t) => chalk.underline(t),
  };
}
