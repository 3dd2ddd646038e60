// The stripefs dashboard: one event stream from the MDS (GET /api/dashboard/events)
// carries every sample; this page only draws them. Text from the cluster (job
// ids, host names) is set as text, never as markup.
import { formatBytes, formatCount, makeCharts } from './charts.js';

/** Samples the charts keep in the browser (the MDS keeps its own history and sends it on connect). */
const HISTORY_MAX = 3600;

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const rate = (bytesPerSec) => `${formatBytes(bytesPerSec)}/s`;
const percent = (used, total) => (total > 0 ? Math.round((100 * used) / total) : 0);
const ago = (ms) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};

function allOsts(s) {
  return s.racks.flatMap((r) => r.hosts.flatMap((h) => h.osts));
}

function ostState(o) {
  if (!o.up) return 'down';
  if (!o.in) return 'out';
  if (o.slow) return 'slow';
  return 'up';
}

function renderHeader(s) {
  const health = $('health');
  const down = allOsts(s).some((o) => !o.up);
  health.textContent = s.health.ok ? 'HEALTH_OK' : 'HEALTH_WARN';
  health.dataset.ok = String(s.health.ok);
  health.dataset.down = String(down);
  $('epoch').textContent = `map epoch ${s.epoch}`;
  let used = 0;
  let total = 0;
  for (const o of allOsts(s)) {
    used += o.usedBytes;
    total += o.totalBytes;
  }
  const cap = $('capacity');
  cap.textContent = `${formatBytes(used)} of ${formatBytes(total)} used (${percent(used, total)}%)`;
  cap.dataset.usedBytes = String(used);
  cap.dataset.totalBytes = String(total);
  $('updated').textContent = `sampled ${new Date(s.atMs).toLocaleTimeString()}`;
  const problems = s.health.problems.map((p) => el('li', { text: p }));
  $('problems').replaceChildren(
    ...(problems.length ? problems : [el('li', { class: 'ok', text: 'all clean' })]),
  );
}

function ostBox(o) {
  const pct = percent(o.usedBytes, o.totalBytes);
  const bar = el('div', { class: pct >= 90 ? 'full' : pct >= 75 ? 'high' : '' });
  bar.style.width = `${pct}%`;
  const state = ostState(o);
  return el(
    'div',
    {
      class: 'ost',
      'data-ost-id': o.id,
      'data-state': state,
      'data-up': o.up,
      'data-in': o.in,
      'data-used-bytes': o.usedBytes,
      'data-total-bytes': o.totalBytes,
      title: o.slow ? `slow: ${o.slowReason}` : state,
    },
    el('div', {}, el('span', { class: 'name', text: o.name }), ` ${state}`),
    el('div', { class: 'bar' }, bar),
    el('div', { text: `${formatBytes(o.usedBytes)} / ${formatBytes(o.totalBytes)} (${pct}%)` }),
    el('div', {
      class: 'muted',
      text: `r ${rate(o.rates.readBytesPerSec)} w ${rate(o.rates.writeBytesPerSec)}`,
    }),
  );
}

function renderTree(s) {
  const racks = s.racks.map((r) =>
    el(
      'div',
      { class: 'rack', 'data-rack': r.name },
      el('h3', { text: `${r.name}${r.datacenter ? ` (${r.datacenter})` : ''}` }),
      el(
        'div',
        { class: 'hosts' },
        ...r.hosts.map((h) =>
          el(
            'div',
            { class: 'host', 'data-host': h.name, 'data-state': h.state },
            el('h4', { text: h.name }),
            ...h.osts.map(ostBox),
          ),
        ),
      ),
    ),
  );
  $('tree').replaceChildren(...racks);
}

function table(id, header, rows) {
  $(id).replaceChildren(
    el(
      'thead',
      {},
      el('tr', {}, ...header.map((h, i) => el('th', { class: i === 0 ? 'text' : '', text: h }))),
    ),
    el('tbody', {}, ...rows),
  );
}

function renderOsts(s) {
  const rows = [];
  for (const r of s.racks)
    for (const h of r.hosts)
      for (const o of h.osts) {
        const state = ostState(o);
        rows.push(
          el(
            'tr',
            { 'data-ost-id': o.id },
            el('td', { text: o.name }),
            el('td', { class: 'text', text: h.name }),
            el('td', { class: `text ${state === 'down' ? 'down' : ''}`, text: state }),
            el('td', { text: formatBytes(o.usedBytes) }),
            el('td', { text: formatBytes(o.totalBytes) }),
            el('td', { text: `${percent(o.usedBytes, o.totalBytes)}%` }),
            el('td', { text: o.weight.toFixed(3) }),
            el('td', { text: rate(o.rates.readBytesPerSec) }),
            el('td', { text: rate(o.rates.writeBytesPerSec) }),
            el('td', { text: formatCount(o.rates.readOpsPerSec) }),
            el('td', { text: formatCount(o.rates.writeOpsPerSec) }),
          ),
        );
      }
  table(
    'osts',
    ['<OST', '<host', '<state', 'used', 'size', 'use', 'weight', 'read', 'write', 'read IOPS', 'write IOPS'],
    rows,
  );
}

function renderRates(s) {
  const t = s.throughput;
  $('throughput-now').textContent = `read ${rate(t.readBytesPerSec)}, write ${rate(t.writeBytesPerSec)}`;
  $('iops-now').textContent =
    `read ${formatCount(t.readOpsPerSec)}/s, write ${formatCount(t.writeOpsPerSec)}/s`;
  const states = Object.entries(s.pgs.byState).filter(([, n]) => n > 0);
  $('pg-now').textContent = `${s.pgs.total} PGs: ${states.map(([k, n]) => `${n} ${k}`).join(', ')}`;
}

function renderRecovery(s) {
  const r = s.recovery;
  const throttle = r.throttle.maxBytesPerSec > 0 ? `${rate(r.throttle.maxBytesPerSec)}` : 'unthrottled';
  const rows = [
    ['throttle', `${throttle}, ${r.throttle.maxActivePgs} PGs at once${r.throttle.paused ? ', paused' : ''}`],
    ['repairs queued', String(r.repairsQueued)],
    ['copied since start', formatBytes(r.totals.bytesCopied)],
  ];
  const body = [];
  if (r.busy) {
    const fraction = r.fractionDone ?? 0;
    const bar = el('div');
    bar.style.width = `${Math.round(fraction * 100)}%`;
    const eta = r.etaSeconds === null ? 'unknown' : `${Math.ceil(r.etaSeconds)} s`;
    body.push(
      el(
        'div',
        {
          'data-testid': 'recovery-progress',
          'data-bytes-left': r.bytesLeft,
          'data-copied-bytes': r.copiedBytes,
          'data-active-pgs': r.activePgs,
          'data-eta-seconds': r.etaSeconds ?? '',
        },
        el('div', { class: 'progress' }, bar),
        el('div', {
          text: `${Math.round(fraction * 100)}%: ${formatBytes(r.copiedBytes)} copied, ${formatBytes(r.bytesLeft)} left at ${rate(r.rateBytesPerSec)}, ETA ${eta}; ${r.activePgs} PGs active, ${r.pendingPgs} waiting`,
        }),
      ),
    );
  } else
    body.push(
      el('p', { class: 'muted', 'data-testid': 'recovery-idle', text: 'nothing to recover or move' }),
    );
  body.push(el('dl', {}, ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])));
  if (r.active.length > 0)
    body.push(
      el(
        'ul',
        {},
        ...r.active.map((a) =>
          el('li', { text: `${a.kind} pool ${a.pool} PG ${a.pg} -> ost${a.targetOst} (${a.mode})` }),
        ),
      ),
    );
  $('recovery-body').replaceChildren(...body);
}

function renderSlowAndScrub(s) {
  const slow = s.slowOsts.map((o) => el('li', { text: `ost${o.ostId}: ${o.reason}` }));
  $('slow').replaceChildren(...(slow.length ? slow : [el('li', { class: 'muted', text: 'none' })]));
  const scrub = s.scrub;
  const parts = [];
  for (const t of scrub?.running ?? [])
    parts.push(
      el('p', {
        text: `running #${t.id}: ${t.pgsFinished}/${t.pgsTotal} PGs, ${t.errorsFound} errors found, ${t.errorsFixed} fixed`,
      }),
    );
  const last = scrub?.last;
  if (last)
    parts.push(
      el('p', {
        'data-testid': 'scrub-last',
        text: `last #${last.id} (${last.scope}): ${last.pgsTotal} PGs, ${last.objectsScanned} objects, ${formatBytes(last.bytesScanned)}, ${last.errorsFound} errors found, ${last.errorsFixed} fixed${last.finishedMs ? `, ${ago(last.finishedMs)}` : ''}`,
      }),
    );
  if (parts.length === 0) parts.push(el('p', { class: 'muted', text: 'no scrub since the MDS started' }));
  $('scrub').replaceChildren(...parts);
}

function renderJobs(s) {
  $('jobs-count').textContent =
    `${s.jobs.tracked} tracked${s.jobs.dropped ? `, ${s.jobs.dropped} dropped` : ''}`;
  table(
    'jobs',
    [
      'job',
      'clients',
      'read',
      'write',
      'read IOPS',
      'write IOPS',
      'MDS ops/s',
      'read total',
      'written total',
      'MDS ops',
    ],
    s.jobs.top.map((j) =>
      el(
        'tr',
        {
          'data-job-id': j.jobId,
          'data-read-bytes': j.data.readBytes,
          'data-write-bytes': j.data.writeBytes,
        },
        el('td', { text: j.jobId }),
        el('td', { text: String(j.sessions) }),
        el('td', { text: rate(j.rates.readBytesPerSec) }),
        el('td', { text: rate(j.rates.writeBytesPerSec) }),
        el('td', { text: formatCount(j.rates.readOpsPerSec) }),
        el('td', { text: formatCount(j.rates.writeOpsPerSec) }),
        el('td', { text: formatCount(j.rates.mdsOpsPerSec) }),
        el('td', { text: formatBytes(j.data.readBytes) }),
        el('td', { text: formatBytes(j.data.writeBytes) }),
        el('td', { text: String(j.mds.ops) }),
      ),
    ),
  );
}

function renderClients(s) {
  const c = s.clients;
  $('clients-count').textContent =
    `${c.connected} connected, ${c.tracked} known${c.dropped ? `, ${c.dropped} dropped` : ''}`;
  table(
    'clients',
    ['<client', '<address', '<jobs', '<state', 'last seen', 'read', 'write', 'MDS ops/s', 'MDS ops', 'bytes'],
    c.top.map((x) =>
      el(
        'tr',
        { 'data-session': x.session, 'data-connected': x.connected },
        el('td', { text: x.name || x.session }),
        el('td', { class: 'text', text: x.address }),
        el('td', { class: 'text', text: x.jobIds.join(', ') }),
        el('td', { class: 'text', text: x.connected ? 'connected' : 'gone' }),
        el('td', { text: ago(x.lastSeenMs) }),
        el('td', { text: rate(x.rates.readBytesPerSec) }),
        el('td', { text: rate(x.rates.writeBytesPerSec) }),
        el('td', { text: formatCount(x.rates.mdsOpsPerSec) }),
        el('td', { text: String(x.mds.ops) }),
        el('td', { text: formatBytes(x.data.readBytes + x.data.writeBytes) }),
      ),
    ),
  );
}

function render(s) {
  if (!s) return;
  renderHeader(s);
  renderTree(s);
  renderRates(s);
  renderRecovery(s);
  renderOsts(s);
  renderSlowAndScrub(s);
  renderJobs(s);
  renderClients(s);
  document.body.dataset.sampledAtMs = String(s.atMs);
}

function connect() {
  const charts = makeCharts({
    throughput: $('chart-throughput'),
    iops: $('chart-iops'),
    pgs: $('chart-pgs'),
  });
  let history = [];
  const connection = $('connection');
  const events = new EventSource('/api/dashboard/events');
  events.addEventListener('hello', (e) => {
    const data = JSON.parse(e.data);
    history = data.history;
    connection.textContent = `live, every ${data.sampleMs} ms`;
    connection.dataset.state = 'live';
    render(data.snapshot);
    charts.draw(history);
  });
  events.addEventListener('sample', (e) => {
    const data = JSON.parse(e.data);
    history.push(data.point);
    if (history.length > HISTORY_MAX) history.shift();
    render(data.snapshot);
    charts.draw(history);
  });
  events.addEventListener('error', () => {
    connection.textContent = 'reconnecting to the MDS…';
    connection.dataset.state = 'reconnecting';
  });
}

/**
 * The MDS's admin API needs an admin identity. `stripefs dashboard` prints this page's URL with a
 * read-only token after '#': it is traded for a cookie (HttpOnly, this origin only) at once, taken
 * out of the address bar, and renewed at half its life while the page is open.
 */
async function renew(headers = {}) {
  const res = await fetch('/api/auth/token', { method: 'POST', headers, credentials: 'same-origin' }).catch(
    () => undefined,
  );
  if (!res) return 'unreachable';
  if (res.status === 400) return 'no-auth'; // an MDS without auth needs no token
  if (!res.ok) return 'refused';
  const { expiresMs } = await res.json();
  setTimeout(() => void renew(), Math.max(10_000, (expiresMs - Date.now()) / 2));
  return 'ok';
}

async function signIn() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) history.replaceState(null, '', location.pathname + location.search);
  const state = await renew(match ? { authorization: `Bearer ${decodeURIComponent(match[1])}` } : {});
  if (state === 'refused') {
    const connection = $('connection');
    connection.textContent = 'not signed in: run `stripefs dashboard` and open the address it prints';
    connection.dataset.state = 'refused';
  }
  return state;
}

signIn().then((state) => {
  if (state !== 'refused') connect();
});
