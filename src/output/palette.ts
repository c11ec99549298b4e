/**
 * The colours commands use. chalk is loaded only when a stream will really be coloured (a TTY with colour on):
 * piped and CI runs never pay its import cost, which matters for `cai sign` start-up.
 */
type Paint = (text: string) => string;

const PAINTS = ['red', 'green', 'yellow', 'blue', 'cyan', 'magenta', 'gray', 'dim', 'bold', 'underline'] as const;

export type Palette = Record<(typeof PAINTS)[number], Paint>;

function paletteOf(paint: (name: (typeof PAINTS)[number]) => Paint): Palette {
  return Object.fromEntries(PAINTS.map((name) => [name, paint(name)])) as Palette;
}

export const plainPalette: Palette = paletteOf(() => (text) => text);

export async function loadPalette(level: 0 | 1 | 2 | 3): Promise<Palette> {
  if (level === 0) return plainPalette;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level });
  return paletteOf((name) => (text) => chalk[name](text));
}
