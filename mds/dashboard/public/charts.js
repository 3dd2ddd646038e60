// The dashboard's charts (uPlot, vendored; a global from vendor/uPlot.iife.min.js):
// throughput, IOPS and PG states over the MDS's sample history.
/* global uPlot */

const COLORS = {
  read: '#2f7fd1',
  write: '#d1702f',
  recovery: '#8a4fd1',
  clean: '#2e9e4f',
  scrubbing: '#6fbf73',
  degraded: '#e0a100',
  undersized: '#d33a2c',
  recovering: '#8a4fd1',
  backfilling: '#2f7fd1',
  remapped: '#5bc0de',
};
const FALLBACK = ['#777', '#b5651d', '#17becf', '#bcbd22', '#e377c2'];

export function formatBytes(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function formatCount(n) {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(n >= 10 ? 1 : 2).replace(/\.?0+$/, '') || '0';
}

function width(el) {
  return Math.max(300, el.clientWidth - 4);
}

function line(label, color, fmt) {
  return { label, stroke: color, width: 2, value: (_u, v) => (v == null ? '-' : fmt(v)) };
}

/** One uPlot chart whose series may change (PG states come and go): rebuilt when they do. */
class Chart {
  constructor(el, seriesOf, fmt) {
    this.el = el;
    this.seriesOf = seriesOf;
    this.fmt = fmt;
    this.plot = null;
    this.keys = '';
  }

  draw(history) {
    const { names, columns } = this.seriesOf(history);
    const keys = names.join(',');
    const data = [history.map((p) => p.atMs / 1000), ...columns];
    if (this.plot && keys === this.keys) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.keys = keys;
    const series = [
      {},
      ...names.map((name, i) => line(name, COLORS[name] ?? FALLBACK[i % FALLBACK.length], this.fmt)),
    ];
    this.plot = new uPlot(
      {
        width: width(this.el),
        height: 200,
        series,
        axes: [{}, { values: (_u, ticks) => ticks.map(this.fmt), size: 90 }],
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        legend: { live: true },
      },
      data,
      this.el,
    );
  }

  resize() {
    this.plot?.setSize({ width: width(this.el), height: 200 });
  }
}

export function makeCharts(els) {
  const charts = [
    new Chart(
      els.throughput,
      (h) => ({
        names: ['read', 'write', 'recovery'],
        columns: [
          h.map((p) => p.readBytesPerSec),
          h.map((p) => p.writeBytesPerSec),
          h.map((p) => p.recoveryBytesPerSec),
        ],
      }),
      (v) => `${formatBytes(v)}/s`,
    ),
    new Chart(
      els.iops,
      (h) => ({
        names: ['read', 'write'],
        columns: [h.map((p) => p.readOpsPerSec), h.map((p) => p.writeOpsPerSec)],
      }),
      formatCount,
    ),
    new Chart(
      els.pgs,
      (h) => {
        const names = [...new Set(h.flatMap((p) => Object.keys(p.pgs)))].sort();
        return { names, columns: names.map((n) => h.map((p) => p.pgs[n] ?? 0)) };
      },
      formatCount,
    ),
  ];
  window.addEventListener('resize', () => {
    for (const chart of charts) chart.resize();
  });
  return {
    draw(history) {
      for (const chart of charts) chart.draw(history);
    },
  };
}
