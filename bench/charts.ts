// Small dependency-free SVG line charts of bench results: throughput against
// stripe count, and throughput against request size with and without readahead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResult } from './types.js';

interface Series {
  name: string;
  points: { x: number; y: number }[];
}

const WIDTH = 560;
const HEIGHT = 320;
const MARGIN = 48;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];

export function lineChart(
  title: string,
  xLabel: string,
  yLabel: string,
  series: Series[],
  logX = false,
): string {
  const xs = series.flatMap((s) => s.points.map((p) => (logX ? Math.log2(p.x) : p.x)));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const yMax = Math.max(...ys, 1e-9) * 1.1;
  const sx = (x: number) =>
    MARGIN + (((logX ? Math.log2(x) : x) - xMin) / Math.max(xMax - xMin, 1e-9)) * (WIDTH - 2 * MARGIN);
  const sy = (y: number) => HEIGHT - MARGIN - (y / yMax) * (HEIGHT - 2 * MARGIN);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${title}</text>`,
    `<line x1="${MARGIN}" y1="${HEIGHT - MARGIN}" x2="${WIDTH - MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<line x1="${MARGIN}" y1="${MARGIN}" x2="${MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<text x="${WIDTH / 2}" y="${HEIGHT - 10}" text-anchor="middle">${xLabel}</text>`,
    `<text x="14" y="${HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 14 ${HEIGHT / 2})">${yLabel}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    parts.push(`<text x="${MARGIN - 6}" y="${sy(y) + 4}" text-anchor="end">${y.toFixed(2)}</text>`);
  }
  series.forEach((s, index) => {
    const color = COLORS[index % COLORS.length];
    const points = s.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`);
    for (const p of s.points) {
      parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" fill="${color}"/>`);
      parts.push(
        `<text x="${sx(p.x).toFixed(1)}" y="${HEIGHT - MARGIN + 16}" text-anchor="middle">${p.x}</text>`,
      );
    }
    parts.push(
      `<text x="${WIDTH - MARGIN}" y="${MARGIN + 16 * index}" text-anchor="end" fill="${color}">${s.name}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Series from ids like `client.read.raid0.c4` (x = 4) or `client.read64k.readahead.s65536`. */
function seriesFrom(results: BenchResult[], pattern: RegExp, name: string): Series {
  const points = results
    .map((r) => ({ match: pattern.exec(r.id), y: r.value }))
    .filter((p): p is { match: RegExpExecArray; y: number } => p.match !== null)
    .map((p) => ({ x: Number(p.match[1]), y: p.y }))
    .sort((a, b) => a.x - b.x);
  return { name, points };
}

export function renderCharts(results: BenchResult[], dir: string): string[] {
  const written: string[] = [];
  const byCount = [
    seriesFrom(results, /^client\.seq-read\.raid0\.c(\d+)$/, 'read'),
    seriesFrom(results, /^client\.seq-write\.raid0\.c(\d+)$/, 'write'),
  ].filter((s) => s.points.length > 1);
  if (byCount.length > 0) {
    writeFileSync(
      join(dir, 'stripe-count.svg'),
      lineChart('raid0 throughput against stripe count', 'stripe count', 'GB/s', byCount),
    );
    written.push('stripe-count.svg');
  }
  const bySize = [
    seriesFrom(results, /^client\.read-size\.readahead\.(\d+)$/, 'with readahead'),
    seriesFrom(results, /^client\.read-size\.no-readahead\.(\d+)$/, 'without readahead'),
  ].filter((s) => s.points.length > 1);
  if (bySize.length > 0) {
    writeFileSync(
      join(dir, 'request-size.svg'),
      lineChart(
        'sequential read throughput against request size',
        'request size (bytes)',
        'GB/s',
        bySize,
        true,
      ),
    );
    written.push('request-size.svg');
  }
  return written;
}
