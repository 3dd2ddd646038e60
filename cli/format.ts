// Human-readable numbers and tables for CLI output.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${UNITS[unit]}`;
}

export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

/** Left-aligned columns sized to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Parses 4M, 64K, 1G, 1048576 into bytes. */
export function parseSize(text: string): number {
  const match = /^(\d+)([KMGT]i?B?)?$/i.exec(text.trim());
  if (!match) return Number.NaN;
  const power = { K: 1, M: 2, G: 3, T: 4 }[(match[2]?.[0] ?? '').toUpperCase() as 'K' | 'M' | 'G' | 'T'] ?? 0;
  return Number(match[1]) * 1024 ** power;
}
