// mqprobe console. Every figure comes from the HTTP API, read with the
// caller's bearer token (kept in this tab's sessionStorage only) or client
// certificate. Text from the API is only ever set as text, never as HTML.

const TOKEN_KEY = 'mqprobe.token';
const OPERATIONS = ['PRODUCE', 'CONSUME', 'DEPTH', 'CONNECTION_TEST', 'TEST', 'REDRIVE'];
const COMMAND_ROUTES = {
  PRODUCE: '/messages/produce', CONSUME: '/messages/consume', DEPTH: '/queue/depth',
  CONNECTION_TEST: '/connections/test', TEST: '/tests', REDRIVE: '/messages/redrive',
};
// The thresholds the console judges queues by (DEPTH's thresholds).
const QUEUE_THRESHOLDS = { maxDepthShare: 0.8, maxOldestMessageAgeSeconds: 300 };
const STATUS_MARKS = { COMPLETED: '✓', FAILED: '✗', REJECTED: '⊘', IN_PROGRESS: '⟳' };

const main = document.getElementById('main');

// ---- DOM helpers -------------------------------------------------------

// h builds an element: attrs sets attributes (on* keys add listeners),
// children are nodes or strings (as text).
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

function announce(text) {
  const region = document.getElementById('announce');
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 50);
}

function statusBadge(status) {
  return h('span', { class: `status ${status}` }, `${STATUS_MARKS[status] || '•'} ${status}`);
}

function table(caption, headers, rows, { numeric = [] } = {}) {
  const t = h('table', {}, h('caption', {}, caption));
  t.append(h('thead', {}, h('tr', {}, headers.map((name, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : undefined }, name)))));
  const body = h('tbody');
  if (rows.length === 0) {
    body.append(h('tr', {}, h('td', { colspan: headers.length, class: 'empty' }, 'None.')));
  }
  for (const row of rows) {
    body.append(h('tr', {}, row.map((cell, i) => h('td', { class: numeric.includes(i) ? 'num' : undefined }, cell))));
  }
  t.append(body);
  return t;
}

function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function jsonBlock(value, label) {
  return h('pre', { class: 'json', tabindex: 0, 'aria-label': label }, JSON.stringify(value, null, 2));
}

function problemBox(reply, what) {
  const d = reply.data && typeof reply.data === 'object' ? reply.data : {};
  const box = h('div', { class: 'problem', role: 'alert' },
    h('strong', {}, `${what}: HTTP ${reply.status}${d.title ? ` ${d.title}` : ''}`),
    d.detail ? h('p', {}, d.detail) : null);
  if (Array.isArray(d.errors) && d.errors.length) {
    box.append(h('ul', {}, d.errors.map((e) => h('li', {}, `${e.path || '(body)'}: ${e.message} (rule ${e.rule})`))));
  }
  if (!d.detail && typeof reply.data === 'string') box.append(h('p', {}, reply.data));
  return box;
}

function fmtNumber(n, digits = 3) {
  if (n === undefined || n === null) return '–';
  if (Math.abs(n) >= 1000 || Number.isInteger(n)) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(digits)).toString();
}

function fmtTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function fmtDuration(seconds) {
  const s = Math.floor(seconds);
  const parts = [[Math.floor(s / 86400), 'd'], [Math.floor(s / 3600) % 24, 'h'], [Math.floor(s / 60) % 60, 'm'], [s % 60, 's']];
  const shown = parts.filter(([v], i) => v > 0 || i === 3);
  return shown.map(([v, u]) => `${v}${u}`).join(' ');
}

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function recordLink(op, key, text = key) {
  return h('a', { href: `/ui/record?${new URLSearchParams({ op, key })}` }, text);
}

// ---- API ---------------------------------------------------------------

class SignInNeeded extends Error {}

// api calls the daemon's API with the caller's token; a 401 replaces the
// page with the sign-in form and throws SignInNeeded.
async function api(path, { method = 'GET', body, headers = {} } = {}) {
  const sent = { ...headers };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent['Content-Type'] = 'application/json';
  const resp = await fetch(path, { method, headers: sent, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
  if (resp.status === 401) {
    showSignIn(Boolean(token));
    throw new SignInNeeded();
  }
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  return { status: resp.status, ok: resp.ok, headers: resp.headers, data };
}

let stopped = false;

// poll runs fn now and then every ms until the page needs a sign-in or
// fn returns false.
function poll(fn, ms) {
  const tick = async () => {
    if (stopped) return;
    let again = true;
    try {
      again = (await fn()) !== false;
    } catch (err) {
      if (err instanceof SignInNeeded) return;
      console.error(err);
    }
    if (again && !stopped) setTimeout(tick, ms);
  };
  tick();
}

// refresher runs fn now, again after the delay (ms) it returns (false:
// not on its own), and soon after each kick(): a stream event says the
// figures changed. Runs never overlap; kicks during one coalesce.
function refresher(fn) {
  let timer = null, running = false, again = false;
  const run = async () => {
    if (stopped) return;
    if (running) { again = true; return; }
    clearTimeout(timer);
    running = true;
    let next = false;
    try {
      next = await fn();
    } catch (err) {
      if (err instanceof SignInNeeded) return;
      console.error(err);
      next = 5000;
    } finally {
      running = false;
    }
    if (again) { again = false; run(); return; }
    if (next !== false && !stopped) timer = setTimeout(run, next);
  };
  run();
  return { kick: () => { clearTimeout(timer); timer = setTimeout(run, 200); } };
}

// streamResults follows GET /results/stream (query: its filters), calling
// onEvent with each new result event and onState with 'live',
// 'reconnecting' or 'unavailable'. It reads the stream with fetch, so that
// the token travels in the Authorization header — a browser's EventSource
// cannot send one, and a token never belongs in a URL — and reconnects,
// backing off, when the stream ends.
// streams ends the page's streams when it is left: a browser may keep a
// left page, and its connection, alive for going back.
const streams = new AbortController();
window.addEventListener('pagehide', () => streams.abort());
window.addEventListener('pageshow', (ev) => { if (ev.persisted) location.reload(); });

function streamResults(query, onEvent, onState = () => {}) {
  let backoff = 1000;
  const connect = async () => {
    if (stopped) return;
    const headers = { Accept: 'text/event-stream' };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const resp = await fetch(`/results/stream?${query}`, { headers, cache: 'no-store', signal: streams.signal });
      if (resp.status === 401) {
        showSignIn(Boolean(token));
        return;
      }
      if (resp.status === 404) { // no in-process results (aws mode)
        onState('unavailable');
        return;
      }
      if (!resp.ok) throw new Error(`GET /results/stream: HTTP ${resp.status}`);
      onState('live');
      backoff = 1000;
      const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped) break;
        buf += value;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let kind = 'message', data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) kind = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (kind === 'result' && data) onEvent(JSON.parse(data));
        }
      }
    } catch (err) {
      console.error(err);
    }
    if (stopped || streams.signal.aborted) return;
    onState('reconnecting');
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 30000);
  };
  connect();
}

function liveBadge() {
  const el = h('p', { id: 'live-status', class: 'hint', role: 'status' }, 'Connecting to the live stream…');
  el.set = (state) => {
    el.dataset.state = state;
    el.textContent = { live: '● Live: updates arrive as results are published.', reconnecting: '○ Reconnecting to the live stream…',
      unavailable: 'No live stream here (results are not kept in this process): reload for news.' }[state];
  };
  return el;
}

function showSignIn(rejected) {
  stopped = true;
  const input = h('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off', required: true, 'aria-describedby': 'token-hint' });
  // POST, so that a submission the script does not catch never puts the
  // token in a URL.
  const form = h('form', { class: 'panel', id: 'signin', method: 'post' },
    h('h1', {}, 'Sign in'),
    rejected ? h('p', { class: 'problem', role: 'alert' }, 'The daemon refused that token.') : null,
    h('div', { class: 'field' },
      h('label', { for: 'token' }, 'Bearer token'),
      input,
      h('p', { class: 'hint', id: 'token-hint' },
        'This daemon asks for a bearer token (http.authToken, or a tenant token of http.tokens). ' +
        'It is kept in this browser tab only and sent to this daemon’s API with each request.')),
    h('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    location.reload();
  });
  main.replaceChildren(form);
  input.focus();
}

// ---- page frame --------------------------------------------------------

function page(title, ...content) {
  document.title = `${title} · mqprobe console`;
  main.replaceChildren(h('h1', {}, title), ...content.filter((c) => c !== null && c !== undefined && c !== false));
}

// section returns a panel whose body render replaces only when its data
// changed, so that polling leaves keyboard focus and open details alone.
function section(id, heading) {
  const body = h('div');
  const el = h('section', { class: 'panel', id, 'aria-labelledby': `${id}-h` }, h('h2', { id: `${id}-h` }, heading), body);
  el.update = (data, render) => {
    const sig = JSON.stringify(data);
    if (el.dataset.sig === sig) return;
    el.dataset.sig = sig;
    body.replaceChildren();
    append(body, [render(data)]);
  };
  return el;
}

// ---- charts ------------------------------------------------------------

// niceTicks returns about count round tick values from 0 to at least max.
function niceTicks(max, count = 5) {
  if (!(max > 0)) max = 1;
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((v) => v >= raw);
  const ticks = [];
  for (let v = 0; v < max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

const DASHES = ['', '7 4', '2 3'];
const MARKERS = ['circle', 'square', 'triangle'];

function marker(kind, x, y, cls) {
  if (kind === 'circle') return s('circle', { cx: x, cy: y, r: 3, class: cls });
  if (kind === 'square') return s('rect', { x: x - 3, y: y - 3, width: 6, height: 6, class: cls });
  return s('path', { d: `M${x},${y - 4} L${x + 4},${y + 3} L${x - 4},${y + 3} Z`, class: cls });
}

// lineChart draws lines of [x, y] points with labelled axes; each line
// has its own dash pattern and marker shape besides its colour.
function lineChart({ id, title, xLabel, yLabel, yUnit, lines }) {
  const W = 600, H = 280, m = { l: 64, r: 16, t: 34, b: 46 };
  const pw = W - m.l - m.r, ph = H - m.t - m.b;
  const pts = lines.flatMap((l) => l.points);
  const xMin = pts.length ? Math.floor(Math.min(...pts.map((p) => p[0]))) : 0;
  const xMaxRaw = pts.length ? Math.max(...pts.map((p) => p[0])) : 1;
  const xMax = xMaxRaw > xMin ? xMaxRaw : xMin + 1;
  const yTicks = niceTicks(Math.max(0, ...pts.map((p) => p[1])));
  const yMax = yTicks[yTicks.length - 1];
  const X = (x) => m.l + ((x - xMin) / (xMax - xMin)) * pw;
  const Y = (y) => m.t + ph - (y / yMax) * ph;
  const titleId = `${id}-title`, descId = `${id}-desc`;
  const count = lines.length ? lines[0].points.length : 0;
  const last = lines.map((l) => l.points.length ? `${l.name} ${fmtNumber(l.points[l.points.length - 1][1])} ${yUnit}` : `${l.name}: no data`);
  const svg = s('svg', { id, class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${titleId} ${descId}`, 'data-points': count },
    s('title', { id: titleId }, title),
    s('desc', { id: descId }, `${count} points over ${fmtNumber(xMax - xMin)} s; latest: ${last.join(', ')}. The table beside the chart lists the numbers.`));
  for (const t of yTicks) {
    svg.append(s('line', { class: 'grid-line', x1: m.l, x2: m.l + pw, y1: Y(t), y2: Y(t) }),
      s('text', { x: m.l - 6, y: Y(t) + 4, 'text-anchor': 'end' }, fmtNumber(t)));
  }
  const xTicks = niceTicks(xMax - xMin).map((t) => t + xMin).filter((t) => t <= xMax + 1e-9);
  for (const t of xTicks) {
    svg.append(s('line', { class: 'axis', x1: X(t), x2: X(t), y1: m.t + ph, y2: m.t + ph + 5 }),
      s('text', { x: X(t), y: m.t + ph + 18, 'text-anchor': 'middle' }, fmtNumber(t)));
  }
  svg.append(s('line', { class: 'axis', x1: m.l, x2: m.l, y1: m.t, y2: m.t + ph }),
    s('line', { class: 'axis', x1: m.l, x2: m.l + pw, y1: m.t + ph, y2: m.t + ph }),
    s('text', { x: m.l + pw / 2, y: H - 6, 'text-anchor': 'middle' }, xLabel),
    s('text', { x: 14, y: m.t + ph / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${m.t + ph / 2})` }, `${yLabel} (${yUnit})`));
  lines.forEach((l, i) => {
    const cls = `series-${i}`;
    if (l.points.length) {
      svg.append(s('polyline', { class: cls, points: l.points.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' '), 'stroke-dasharray': DASHES[i] || undefined }));
    }
    const every = Math.max(1, Math.ceil(l.points.length / 40));
    l.points.forEach((p, j) => { if (j % every === 0 || j === l.points.length - 1) svg.append(marker(MARKERS[i], X(p[0]), Y(p[1]), cls)); });
    const lx = m.l + 8 + i * 150;
    svg.append(s('line', { class: cls, x1: lx, x2: lx + 28, y1: 16, y2: 16, 'stroke-width': 2, 'stroke-dasharray': DASHES[i] || undefined }),
      marker(MARKERS[i], lx + 14, 16, cls), s('text', { x: lx + 34, y: 20 }, l.name));
  });
  return svg;
}

// barChart draws one bar per labelled count, with labelled axes.
function barChart({ id, title, xLabel, yLabel, bars }) {
  const W = 600, H = 280, m = { l: 64, r: 16, t: 16, b: 62 };
  const pw = W - m.l - m.r, ph = H - m.t - m.b;
  const yTicks = niceTicks(Math.max(0, ...bars.map((b) => b.value)));
  const yMax = yTicks[yTicks.length - 1];
  const Y = (y) => m.t + ph - (y / yMax) * ph;
  const slot = pw / Math.max(1, bars.length);
  const titleId = `${id}-title`, descId = `${id}-desc`;
  const total = bars.reduce((n, b) => n + b.value, 0);
  const svg = s('svg', { id, class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${titleId} ${descId}`, 'data-bars': bars.length },
    s('title', { id: titleId }, title),
    s('desc', { id: descId }, `${bars.length} buckets holding ${total} round trips. The table beside the chart lists the numbers.`));
  for (const t of yTicks) {
    svg.append(s('line', { class: 'grid-line', x1: m.l, x2: m.l + pw, y1: Y(t), y2: Y(t) }),
      s('text', { x: m.l - 6, y: Y(t) + 4, 'text-anchor': 'end' }, fmtNumber(t)));
  }
  bars.forEach((b, i) => {
    const x = m.l + i * slot;
    const bar = s('rect', { class: 'bar', x: x + slot * 0.12, width: slot * 0.76, y: Y(b.value), height: Math.max(0, m.t + ph - Y(b.value)) });
    bar.append(s('title', {}, `${b.label}: ${b.value}`));
    svg.append(bar, s('text', { x: x + slot / 2, y: m.t + ph + 14, 'text-anchor': 'end', transform: `rotate(-40 ${x + slot / 2} ${m.t + ph + 14})` }, b.label));
  });
  svg.append(s('line', { class: 'axis', x1: m.l, x2: m.l, y1: m.t, y2: m.t + ph }),
    s('line', { class: 'axis', x1: m.l, x2: m.l + pw, y1: m.t + ph, y2: m.t + ph }),
    s('text', { x: m.l + pw / 2, y: H - 4, 'text-anchor': 'middle' }, xLabel),
    s('text', { x: 14, y: m.t + ph / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${m.t + ph / 2})` }, yLabel));
  return svg;
}

function chartRow(chart, numbers) {
  return h('div', { class: 'chart-row' }, h('figure', { class: 'chart-figure' }, chart), h('div', { class: 'numbers' }, numbers));
}

// ---- Overview ----------------------------------------------------------

function overview() {
  const about = section('about', 'Daemon');
  const targets = section('targets', 'Queue managers and profiles');
  const running = section('in-flight', 'Commands in flight');
  const outcomes = section('last-hour', 'Outcomes of the last hour');
  const queues = section('queues', 'Queues');
  const live = liveBadge();
  page('Overview', live, h('div', { class: 'grid' }, about, outcomes), queues, running, targets);
  // Queue depths change without result events (other applications put and
  // get): they are read every 5 s, and at once after an event.
  const queueView = refresher(async () => {
    const reply = await api(`/queues?${new URLSearchParams(QUEUE_THRESHOLDS)}`);
    queues.update(reply.data, () => !reply.ok ? problemBox(reply, 'GET /queues') : queueTable(reply.data));
    return reply.ok ? 5000 : false;
  });
  // The rest changes with the commands: read again as their result events
  // stream in; every 2 s while commands run (their progress), else every
  // 30 s (uptime).
  const statusView = refresher(async () => {
    const reply = await api('/status');
    if (!reply.ok) {
      about.update(reply, () => problemBox(reply, 'GET /status'));
      return false;
    }
    const st = reply.data;
    about.update({ ...st, inFlight: undefined, load: undefined, lastHour: undefined, uptimeSeconds: Math.floor(st.uptimeSeconds / 60) }, () => facts([
      ['Mode', st.mode], ['Version', st.version], ['Instance', st.instance], ['Up for', fmtDuration(st.uptimeSeconds)],
      ['MQ backend', st.backends?.mq], ['Idempotency store', st.backends?.idempotencyStore],
      ['Command bus', st.backends?.bus], ['Results', st.backends?.results],
    ]));
    outcomes.update(st.lastHour, (counts) => {
      const rows = Object.entries(counts || {}).sort(([a], [b]) => a.localeCompare(b));
      return table('Commands of your tenant that ended in the last hour, by outcome', ['Outcome', 'Commands'], rows.map(([k, v]) => [k, fmtNumber(v)]), { numeric: [1] });
    });
    // A TEST counts round trips, not messages done and committed: its
    // figures come from its live statistics.
    const tests = {};
    await Promise.all((st.inFlight?.commands || []).filter((c) => c.operationType === 'TEST').slice(0, 10).map(async (c) => {
      const r = await api(`/tests/${encodeURIComponent(c.idempotencyKey)}?after=${Number.MAX_SAFE_INTEGER}`);
      if (r.ok) tests[c.idempotencyKey] = { plan: r.data.plan, st: r.data.result || {} };
    }));
    running.update({ f: st.inFlight, tests }, ({ f }) => {
      const rows = (f?.commands || []).map((c) => {
        const t = tests[c.idempotencyKey];
        if (c.operationType === 'TEST') {
          const elapsed = isoSeconds(t?.st.elapsed), total = t?.plan?.durationSeconds;
          return [h('a', { href: `/ui/probes/${encodeURIComponent(c.idempotencyKey)}` }, 'TEST'), recordLink(c.operationType, c.idempotencyKey), String(c.attempt), fmtTime(c.startedAt),
            t ? h('span', {}, total && !Number.isNaN(elapsed) ? [h('progress', { max: total, value: Math.min(elapsed, total), 'aria-label': `${c.idempotencyKey} elapsed of its duration` }), ` ${fmtDuration(elapsed)} of ${fmtDuration(total)}, `] : null,
              `${fmtNumber(t.st.sent)} sent, ${fmtNumber(t.st.received)} back, ${fmtNumber(t.st.lost)} lost`) : 'running elsewhere',
            'not applicable (round trips)', t ? `${fmtNumber(t.st.throughputPerSec)} round trips/s` : '–'];
        }
        return [c.operationType, recordLink(c.operationType, c.idempotencyKey), String(c.attempt), fmtTime(c.startedAt),
          c.total ? h('span', {}, h('progress', { max: c.total, value: c.done, 'aria-label': `${c.idempotencyKey} progress` }), ` ${fmtNumber(c.done)} of ${fmtNumber(c.total)}`) : fmtNumber(c.done),
          fmtNumber(c.committed), c.ratePerSec ? `${fmtNumber(c.ratePerSec)}/s` : '–'];
      });
      const t = table(`${f?.count || 0} of your commands executing on this instance`, ['Operation', 'Key', 'Attempt', 'Started', 'Done', 'Committed', 'Rate'], rows, { numeric: [2, 5, 6] });
      return f?.omitted ? [t, h('p', { class: 'hint' }, `${f.omitted} more not listed.`)] : t;
    });
    targets.update(st.targets, (tg) => [
      table('Embedded queue managers', ['Queue manager', 'Queues'], (tg?.queueManagers || []).map((q) => [q.name, q.queues.join(', ')])),
      table('Target profiles (targetRef) you may use', ['Profile', 'Queue manager', 'Queue'], (tg?.profiles || []).map((p) => [p.name, p.queueManager, p.queue])),
    ]);
    return st.inFlight?.count ? 2000 : (live.dataset.state === 'live' ? 30000 : 2000);
  });
  streamResults('', () => { statusView.kick(); queueView.kick(); }, (state) => {
    live.set(state);
    if (state !== 'live') statusView.kick();
  });
}

// ---- Queues ------------------------------------------------------------

function queueHref(q) {
  const path = `/ui/queues/${encodeURIComponent(q.queueManager)}/${encodeURIComponent(q.queue)}`;
  return q.targetRef ? `${path}?${new URLSearchParams({ targetRef: q.targetRef })}` : path;
}

function verdictBadge(verdict) {
  if (!verdict) return '–';
  const marks = { healthy: '✓', warning: '!', critical: '✗', unknown: '?' };
  return h('span', { class: `verdict ${verdict}` }, `${marks[verdict] || '•'} ${verdict}`);
}

function fmtAge(seconds) {
  if (seconds === undefined || seconds === null) return '–';
  return seconds < 60 ? `${fmtNumber(seconds)} s` : fmtDuration(seconds);
}

// depthText is "current of max (share)".
function depthText(hl) {
  if (hl.currentDepth === undefined) return '–';
  const share = hl.depthShare !== undefined ? ` (${fmtNumber(hl.depthShare * 100, 2)}%)` : '';
  return `${fmtNumber(hl.currentDepth)} of ${fmtNumber(hl.maxDepth)}${share}`;
}

function queueTable(data) {
  const rows = (data.queues || []).map((q) => {
    const hl = q.health || {};
    return [q.queueManager, h('a', { href: queueHref(q) }, q.queue), q.targetRef || '–',
      q.error ? h('span', { class: 'problem-text' }, `${q.error.code}: ${q.error.message}`) : depthText(hl),
      q.error ? '–' : (hl.oldestMessageAgeSeconds !== undefined ? fmtAge(hl.oldestMessageAgeSeconds) : h('span', { title: hl.missing?.oldestMessageAgeSeconds || '' }, 'unknown')),
      q.error ? '–' : verdictBadge(hl.verdict)];
  });
  return [
    table(`The queues you may name, judged at depth over ${QUEUE_THRESHOLDS.maxDepthShare * 100}% of the maximum or the oldest message over ${QUEUE_THRESHOLDS.maxOldestMessageAgeSeconds} s`,
      ['Queue manager', 'Queue', 'Profile', 'Depth', 'Oldest message', 'Verdict'], rows, { numeric: [3, 4] }),
    data.truncated ? h('p', { class: 'hint' }, 'More queues are known than one reply lists.') : null,
  ];
}

function fromBase64(b64) {
  const bin = atob(b64 || '');
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

// hexDump lays bytes out 16 a line: offset, hex, printable ASCII.
function hexDump(bytes) {
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.slice(i, i + 16);
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const text = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${text}`);
  }
  return lines.join('\n');
}

function messageDetails(m) {
  const bytes = fromBase64(m.payloadBase64);
  const cut = m.payloadTruncated ? ` (the first ${fmtNumber(bytes.length)} of ${fmtNumber(m.sizeBytes)} bytes)` : '';
  const dlh = m.deadLetterHeader;
  return h('div', { class: 'message' },
    dlh ? [h('h4', {}, 'Dead-letter header (MQDLH)'), facts([
      ['Reason', `${dlh.reasonName} (${dlh.reason})`], ['Original queue', dlh.originalQueue], ['Original queue manager', dlh.originalQueueManager],
      ['Put application', `${dlh.putApplName} (type ${dlh.putApplType})`], ['Dead-lettered at', fmtTime(dlh.deadLetteredAt)],
      ['Format of the data', dlh.format || '(none)'], ['CCSID', String(dlh.ccsid)], ['Encoding', String(dlh.encoding)]])] : null,
    h('h4', {}, 'Message descriptor (MQMD)'),
    facts([['MsgId', m.msgId], ['CorrelId', m.correlId], ['Put time', fmtTime(m.putTime)], ['Format', m.format || '(none)'],
      ['Persistence', m.persistence], ['Priority', String(m.priority)], ['Backout count', String(m.backoutCount)],
      ['Expiry', m.expirySeconds !== undefined ? `${fmtNumber(m.expirySeconds)} s left` : 'unlimited'],
      ['Reply-to queue', m.replyToQ], ['Reply-to queue manager', m.replyToQMgr], ['Size', `${fmtNumber(m.sizeBytes)} bytes`]]),
    h('h4', {}, 'Properties'),
    m.properties ? table('Message properties', ['Name', 'Value'], Object.keys(m.properties).sort().map((k) => [k, JSON.stringify(m.properties[k])]))
      : h('p', { class: 'empty' }, 'None.'),
    h('h4', {}, `Payload${cut}`),
    h('details', { open: true }, h('summary', {}, 'As text (UTF-8)'), h('pre', { class: 'payload text', tabindex: 0 }, new TextDecoder('utf-8').decode(bytes))),
    h('details', {}, h('summary', {}, 'As hex'), h('pre', { class: 'payload hex', tabindex: 0 }, hexDump(bytes))));
}

function queuePage(qm, queue) {
  const q = new URLSearchParams(location.search);
  const targetRef = q.get('targetRef') || '';
  const base = `/queues/${encodeURIComponent(qm)}/${encodeURIComponent(queue)}`;
  const withRef = (extra = {}) => new URLSearchParams({ ...(targetRef ? { targetRef } : {}), ...extra });
  const health = section('queue-health', 'Health');
  const browser = section('messages', 'Messages');
  const redrive = section('redrive', 'Redrive dead-lettered messages');
  redrive.hidden = true;
  page(`Queue ${queue} on ${qm}`, targetRef ? h('p', {}, `Reached through target profile ${targetRef}.`) : null, health, browser, redrive);
  let redriveShown = false;
  poll(async () => {
    const reply = await api(`${base}?${withRef(QUEUE_THRESHOLDS)}`);
    if (!reply.ok) {
      health.update(reply, () => problemBox(reply, `GET ${base}`));
      return reply.status >= 500;
    }
    const hl = reply.data.health;
    health.update(hl, () => [
      h('p', {}, 'Verdict: ', verdictBadge(hl.verdict)),
      facts([['Type', hl.queueType], ['Base queue', hl.baseQueue], ['Transmission queue', hl.transmissionQueue],
        ['Depth', depthText(hl)], ['Oldest message', fmtAge(hl.oldestMessageAgeSeconds)], ['Uncommitted', fmtNumber(hl.uncommittedMessages)],
        ['Open for input', fmtNumber(hl.openInputCount)], ['Open for output', fmtNumber(hl.openOutputCount)],
        ['Last put', hl.lastPutAt ? fmtTime(hl.lastPutAt) : undefined], ['Last get', hl.lastGetAt ? fmtTime(hl.lastGetAt) : undefined],
        ['Queue time', hl.queueTime ? `${fmtNumber(hl.queueTime.shortMs)} ms short, ${fmtNumber(hl.queueTime.longMs)} ms long` : undefined]]),
      hl.findings?.length ? table('Findings', ['Figure', 'Value', 'Threshold', 'Verdict'],
        hl.findings.map((f) => [f.figure, fmtNumber(f.value), fmtNumber(f.threshold), verdictBadge(f.verdict)]), { numeric: [1, 2] }) : null,
      hl.missing ? h('details', {}, h('summary', {}, 'Figures missing, and why'),
        h('ul', {}, Object.entries(hl.missing).map(([k, v]) => h('li', {}, `${k}: ${v}`)))) : null,
    ]);
    return true;
  }, 5000);
  const browse = async () => {
    const reply = await api(`${base}/messages?${withRef({ limit: 20, payloadBytes: 1024 })}`);
    if (!reply.ok) {
      browser.update(reply, () => problemBox(reply, `GET ${base}/messages`));
      return;
    }
    const b = reply.data;
    browser.update(b, () => [
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', id: 'browse-again', onclick: () => { browse().catch(ignoreSignIn); } }, 'Browse again')),
      table(`The first ${b.messages.length} ${b.messages.length === 1 ? 'message' : 'messages'}, browsed (none removed)${b.more ? '; more follow' : ''}`,
        ['#', 'Put time', 'Format', 'Size (bytes)', 'Dead-letter reason', 'Original queue'],
        b.messages.map((m) => [String(m.position), fmtTime(m.putTime), m.format || '(none)', fmtNumber(m.sizeBytes),
          m.deadLetterHeader?.reasonName || '–', m.deadLetterHeader?.originalQueue || '–']), { numeric: [0, 3] }),
      b.messages.map((m) => h('details', { class: 'message-details' },
        h('summary', {}, `Message ${m.position}: text, hex, properties, MQMD${m.deadLetterHeader ? ', dead-letter header' : ''}`), messageDetails(m))),
    ]);
    if (!redriveShown && b.messages.some((m) => m.deadLetterHeader)) {
      redriveShown = true;
      redrive.hidden = false;
      redrive.update('form', () => redriveForm(qm, queue, targetRef, browse));
    }
  };
  browse().catch(ignoreSignIn);
}

function ignoreSignIn(err) {
  if (!(err instanceof SignInNeeded)) throw err;
}

// redriveForm posts REDRIVE for this dead-letter queue: a dry run first,
// whose list says what would move, then the move itself.
function redriveForm(qm, queue, targetRef, refresh) {
  const target = targetRef ? { targetRef, queue } : { target: { queueManager: qm, queue } };
  const dest = h('input', { type: 'text', id: 'rd-destination', maxlength: 48, autocomplete: 'off' });
  const orig = h('input', { type: 'text', id: 'rd-original', maxlength: 48, autocomplete: 'off', placeholder: 'e.g. DEV.QUEUE.*' });
  const max = h('input', { type: 'number', id: 'rd-max', min: 1, max: 1000000, step: 1 });
  const dry = h('button', { type: 'button', id: 'rd-dry-run' }, 'Dry run');
  const move = h('button', { type: 'button', id: 'rd-move', class: 'danger', disabled: true }, 'Move these messages');
  const outcome = h('div', { id: 'rd-outcome', 'aria-live': 'polite' });
  let planned = null;
  const body = (dryRun) => {
    const filter = {};
    if (orig.value.trim()) filter.originalQueues = [orig.value.trim()];
    if (max.value) filter.maxMessages = Number(max.value);
    return { ...target, dryRun, ...(dest.value.trim() ? { destination: dest.value.trim() } : {}), ...(Object.keys(filter).length ? { filter } : {}) };
  };
  const post = async (dryRun) => {
    const key = newKey();
    const r = await api('/messages/redrive', { method: 'POST', body: body(dryRun), headers: { 'Idempotency-Key': key } });
    const res = r.data?.result || {};
    const counts = facts([['Status', statusBadge(r.data?.status || 'FAILED')], [dryRun ? 'Would move' : 'Moved', fmtNumber(res.moved)],
      ['Skipped', res.skipped ? `${fmtNumber(res.skipped)} (${Object.entries(res.skippedBy || {}).map(([k, v]) => `${k} ${v}`).join(', ')})` : undefined],
      ['By reason', Object.entries(res.byReason || {}).map(([k, v]) => `${k} ${v}`).join(', ') || '–'],
      ['By destination', Object.entries(res.byDestination || {}).map(([k, v]) => `${k} ${v}`).join(', ') || '–']]);
    if (!r.ok) {
      outcome.replaceChildren(r.data?.error ? h('p', { class: 'problem', role: 'alert' }, `${r.data.error.code}: ${r.data.error.message}`) : problemBox(r, 'REDRIVE'));
      return;
    }
    if (dryRun) {
      planned = JSON.stringify(body(false));
      move.disabled = !(res.moved > 0);
      outcome.replaceChildren(h('h3', {}, 'Dry run: nothing moved yet'), counts,
        table('Messages that would move', ['MsgId', 'Reason', 'Original queue', 'Destination', 'Size (bytes)'],
          (res.messages || []).map((m) => [m.msgId, m.reasonName, m.originalQueue, m.destination, fmtNumber(m.payloadBytes)]), { numeric: [4] }),
        recordLink('REDRIVE', key, 'Open the dry run’s record'));
      return;
    }
    planned = null;
    move.disabled = true;
    outcome.replaceChildren(h('h3', {}, 'Moved'), counts, recordLink('REDRIVE', key, 'Open the move’s record'));
    announce(`Redrive moved ${res.moved} messages`);
    refresh().catch(ignoreSignIn);
  };
  // Changing the form asks for a new dry run before a move.
  for (const el of [dest, orig, max]) el.addEventListener('input', () => { planned = null; move.disabled = true; });
  dry.addEventListener('click', () => { post(true).catch(ignoreSignIn); });
  move.addEventListener('click', () => {
    if (planned !== JSON.stringify(body(false))) return;
    post(false).catch(ignoreSignIn);
  });
  return h('form', { class: 'redrive-form', onsubmit: (ev) => ev.preventDefault() },
    h('p', {}, 'REDRIVE moves the messages of this dead-letter queue back to the queue each was for (or to a destination you name), header stripped, exactly once. Run a dry run first: it lists what would move; then move.'),
    field('rd-destination', 'Destination (optional)', dest, 'Leave empty to send each message to its original queue.'),
    field('rd-original', 'Only messages for this original queue (optional)', orig, 'A pattern with * and ? wildcards.'),
    field('rd-max', 'At most this many messages (optional)', max),
    h('div', { class: 'actions' }, dry, move),
    outcome);
}

// ---- Probes ------------------------------------------------------------

function probes() {
  const list = section('tests', 'TEST runs');
  const live = liveBadge();
  page('Probes',
    h('p', {}, 'Every TEST whose record has not expired, running or finished, newest first. ',
      h('a', { href: '/ui/send?op=TEST' }, 'Start a TEST'), '.'),
    live, list);
  // A TEST's progress and outcome events say when to read the list again;
  // a run started elsewhere shows with its first progress event, or within
  // 10 s.
  const view = refresher(async () => {
    const reply = await api('/idempotency?operationType=TEST&limit=100');
    if (!reply.ok) {
      list.update(reply, () => problemBox(reply, 'GET /idempotency'));
      return false;
    }
    const records = [...reply.data.records].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    list.update(records, () => table('TEST runs', ['Test', 'Status', 'Started', 'Sent', 'Received', 'Lost', 'Duplicated', 'p99 (ms)'],
      records.map((r) => {
        const st = r.response?.result || {};
        return [h('a', { href: `/ui/probes/${encodeURIComponent(r.idempotencyKey)}` }, r.idempotencyKey), statusBadge(r.status), fmtTime(r.createdAt),
          fmtNumber(st.sent), fmtNumber(st.received), fmtNumber(st.lost), fmtNumber(st.duplicated), fmtNumber(st.latencyMs?.p99)];
      }), { numeric: [3, 4, 5, 6, 7] }));
    return live.dataset.state === 'live' ? 10000 : 2000;
  });
  streamResults('operationType=TEST', () => view.kick(), live.set);
}

// isoSeconds reads an ISO 8601 duration of days, hours, minutes and
// seconds (PT1M2.5S) as seconds; NaN when it is none.
function isoSeconds(iso) {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?$/.exec(iso || '');
  if (!m) return NaN;
  return (Number(m[1] || 0) * 86400) + (Number(m[2] || 0) * 3600) + (Number(m[3] || 0) * 60) + Number(m[4] || 0);
}

// planFacts describes what a TEST was asked to do and how far it is.
function planFacts(plan, st, record) {
  const elapsed = isoSeconds(st.elapsed);
  const rate = plan ? (plan.rateLimitPerSec ? `${fmtNumber(plan.rateLimitPerSec)} messages/s` : 'as fast as it goes') : undefined;
  const length = plan ? (plan.durationSeconds ? `${fmtDuration(plan.durationSeconds)}` : `${fmtNumber(plan.count)} messages`) : undefined;
  const progress = plan?.durationSeconds && !Number.isNaN(elapsed)
    ? h('span', {}, h('progress', { id: 'test-progress', max: plan.durationSeconds, value: Math.min(elapsed, plan.durationSeconds), 'aria-label': 'Elapsed of the duration' }),
      ` ${fmtDuration(elapsed)} of ${fmtDuration(plan.durationSeconds)}`)
    : (Number.isNaN(elapsed) ? undefined : fmtDuration(elapsed));
  return facts([['Target', plan?.target || record?.target || undefined], ['Reply queue', plan?.replyQueue], ['Rate', rate],
    [plan?.durationSeconds ? 'Duration' : 'Length', length], ['Message size', plan?.messageSizeBytes ? `${fmtNumber(plan.messageSizeBytes)} bytes` : undefined],
    ['Elapsed', progress], ['Started', record?.createdAt ? fmtTime(record.createdAt) : undefined]]);
}

// HOPS are a request/reply round trip's parts, as result.hops names them.
const HOPS = [['outboundMs', 'Outbound'], ['responderMs', 'Responder'], ['returnMs', 'Return'], ['roundTripMs', 'Round trip']];

// hopsFacts shows a request/reply run's round trips split at the
// responder's stamps, or nothing for a loop run.
function hopsFacts(st) {
  const hops = st.hops;
  if (!hops) return st.mode === 'requestReply' ? h('p', { class: 'hint' }, 'No reply carried the responder\'s stamps (mqprobe.reqGetAt, mqprobe.rspPutAt): only round trips are known.') : null;
  return h('div', { id: 'hops' },
    table(`Hops of ${fmtNumber(hops.probes)} stamped round trips (ms)`, ['Hop', 'p50', 'p95', 'p99', 'Mean'],
      HOPS.map(([key, name]) => [name, ...['p50', 'p95', 'p99', 'mean'].map((k) => fmtNumber(hops[key]?.[k]))]), { numeric: [1, 2, 3, 4] }),
    h('p', { class: 'hint' }, 'Outbound and return compare this host\'s clock with the responder\'s, so they are only as right as the two clocks agree; ',
      'responder time and the round trip each read one clock. ',
      hops.clockAdjusted ? `${fmtNumber(hops.clockAdjusted)} probes had clocks that disagreed by more than the round trip: their outbound hop was held within it.` : ''));
}

function probe(id) {
  const summary = section('test-summary', 'Run');
  const latency = section('latency', 'Round-trip latency over time');
  const rate = section('rate', 'Achieved rate over time');
  const histogram = section('histogram', 'Round-trip latency histogram');
  const hopChart = section('hops-over-time', 'Request/reply hops over time');
  hopChart.hidden = true;
  const stop = h('button', { type: 'button', id: 'stop-test', class: 'danger', hidden: true }, 'Stop this TEST');
  const points = [];
  let after = 0;
  let plan = null;
  stop.addEventListener('click', async () => {
    stop.disabled = true;
    const reply = await api(`/tests/${encodeURIComponent(id)}/stop`, { method: 'POST' });
    announce(reply.ok ? 'Stopping: the run drains what is in flight, then ends.' : `Stop refused: HTTP ${reply.status}`);
    if (!reply.ok) summary.append(problemBox(reply, 'Stop'));
  });
  const charts = h('div', { id: 'charts' }, latency, hopChart, rate, histogram);
  charts.hidden = true;
  page(`Probe ${id}`, h('div', { class: 'actions' }, stop, recordLink('TEST', id, 'Open its idempotency record')), summary, charts);
  let record = null;
  poll(async () => {
    if (record === null) {
      const r = await api(`/idempotency/TEST/${encodeURIComponent(id)}`);
      record = r.ok ? r.data : false; // false: none to read (another tenant's, or expired)
    }
    const reply = await api(`/tests/${encodeURIComponent(id)}?after=${after}`);
    if (reply.status === 404) {
      // One clear answer, and no empty charts.
      page(`Probe ${id}`, h('div', { class: 'problem', role: 'alert', id: 'no-such-test' },
        h('strong', {}, `No TEST “${id}” here.`),
        h('p', {}, 'Its record may have expired, it may belong to another tenant, or the id is mistyped. ',
          h('a', { href: '/ui/probes' }, 'The TEST runs you can see'), ' · ', h('a', { href: '/ui/send?op=TEST' }, 'Start a TEST'))));
      return false;
    }
    if (!reply.ok) {
      summary.update(reply, () => problemBox(reply, `GET /tests/${id}`));
      return true;
    }
    charts.hidden = false;
    const t = reply.data;
    for (const p of t.series || []) points.push(p);
    if (points.length) after = points[points.length - 1].n;
    const st = t.result || {};
    const running = t.status === 'IN_PROGRESS';
    stop.hidden = !running;
    if (t.plan) plan = t.plan;
    summary.update({ status: t.status, st: { ...st, latencyHistogram: undefined }, error: t.error, plan, record }, () => [
      h('p', {}, 'Status: ', statusBadge(t.status), st.stopped ? ' (stopped early)' : ''),
      planFacts(plan, st, record),
      !plan && !running ? h('p', { class: 'hint' }, 'The rate and duration asked for are shown while the run is live on this instance.') : null,
      t.error ? h('p', { class: 'problem' }, `${t.error.code}: ${t.error.message}`) : null,
      table('Counts and latency so far', ['Sent', 'Received', 'Lost', 'Duplicated', 'Out of order', 'In flight', 'Throughput (/s)'],
        [[st.sent, st.received, st.lost, st.duplicated, st.outOfOrder, st.inFlight, st.throughputPerSec].map((v) => fmtNumber(v))], { numeric: [0, 1, 2, 3, 4, 5, 6] }),
      table('Round trip over the whole run (ms)', ['p50', 'p90', 'p99', 'p99.9', 'max'],
        [['p50', 'p90', 'p99', 'p999', 'max'].map((k) => fmtNumber(st.latencyMs?.[k]))], { numeric: [0, 1, 2, 3, 4] }),
      hopsFacts(st),
    ]);
    const withLatency = points.filter((p) => p.p50Ms !== undefined);
    const recent = points.slice(-30).reverse();
    latency.update(points.length, () => points.length === 0
      ? h('p', { class: 'empty' }, running ? 'Waiting for the first points…' : 'The series is kept while a run is live on this instance; this page did not watch it run.')
      : chartRow(lineChart({
        id: 'latency-chart', title: 'Round trip p50 and p99 per interval', xLabel: 'Time since the first put (s)', yLabel: 'Round trip', yUnit: 'ms',
        lines: [{ name: 'p50', points: withLatency.map((p) => [p.elapsedMs / 1000, p.p50Ms]) }, { name: 'p99', points: withLatency.map((p) => [p.elapsedMs / 1000, p.p99Ms]) }],
      }), table('Latest points (newest first)', ['Time (s)', 'p50 (ms)', 'p99 (ms)'], recent.map((p) => [fmtNumber(p.elapsedMs / 1000), fmtNumber(p.p50Ms), fmtNumber(p.p99Ms)]), { numeric: [0, 1, 2] })));
    rate.update(points.length, () => points.length === 0 ? h('p', { class: 'empty' }, 'No points yet.')
      : chartRow(lineChart({
        id: 'rate-chart', title: 'Round trips completed per second', xLabel: 'Time since the first put (s)', yLabel: 'Rate', yUnit: 'round trips/s',
        lines: [{ name: 'received/s', points: points.map((p) => [p.elapsedMs / 1000, p.ratePerSec]) }],
      }), table('Latest points (newest first)', ['Time (s)', 'Rate (/s)', 'Sent', 'Received', 'Lost'],
        recent.map((p) => [fmtNumber(p.elapsedMs / 1000), fmtNumber(p.ratePerSec), fmtNumber(p.sent), fmtNumber(p.received), fmtNumber(p.lost)]), { numeric: [0, 1, 2, 3, 4] })));
    const withHops = points.filter((p) => p.hopsMs);
    hopChart.hidden = withHops.length === 0;
    hopChart.update(withHops.length, () => withHops.length === 0 ? null
      : chartRow(lineChart({
        id: 'hops-chart', title: 'Mean hop per interval', xLabel: 'Time since the first put (s)', yLabel: 'Hop', yUnit: 'ms',
        lines: HOPS.slice(0, 3).map(([key, name]) => ({ name, points: withHops.map((p) => [p.elapsedMs / 1000, p.hopsMs[key]]) })),
      }), table('Latest points (newest first)', ['Time (s)', ...HOPS.slice(0, 3).map(([, name]) => `${name} (ms)`)],
        withHops.slice(-30).reverse().map((p) => [fmtNumber(p.elapsedMs / 1000), ...HOPS.slice(0, 3).map(([key]) => fmtNumber(p.hopsMs[key]))]), { numeric: [0, 1, 2, 3] })));
    const buckets = st.latencyHistogram || [];
    histogram.update(buckets, () => buckets.length === 0 ? h('p', { class: 'empty' }, 'No round trip yet.')
      : chartRow(barChart({
        id: 'histogram-chart', title: 'Round trips per latency bucket', xLabel: 'Round trip, at most (ms)', yLabel: 'Round trips',
        bars: buckets.map((b) => ({ label: `≤${fmtNumber(b.upToMs)}`, value: b.count })),
      }), table('Round trips per bucket', ['At most (ms)', 'Round trips'], buckets.map((b) => [fmtNumber(b.upToMs), fmtNumber(b.count)]), { numeric: [0, 1] })));
    return running;
  }, 1000);
}

// ---- Results -----------------------------------------------------------

// localInput turns an RFC 3339 time into a datetime-local value (local
// time) and back.
function toLocalInput(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
}

function field(id, label, control, hint) {
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

function select(id, name, options, value) {
  return h('select', { id, name }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}

// targetAndTimeFields are a filter form's target and time-range fields,
// filled from the query q; their ids begin with prefix.
function targetAndTimeFields(prefix, q) {
  return [
    field(`${prefix}-target`, 'Target', h('input', { type: 'text', id: `${prefix}-target`, name: 'target', value: q.get('target') || '', placeholder: 'QM1 or QM1:DEV.QUEUE.1', list: 'known-targets' })),
    knownTargets(),
    field(`${prefix}-since`, 'Since (local time)', h('input', { type: 'datetime-local', id: `${prefix}-since`, step: 1, value: q.get('since') ? toLocalInput(q.get('since')) : '' })),
    field(`${prefix}-until`, 'Until (local time)', h('input', { type: 'datetime-local', id: `${prefix}-until`, step: 1, value: q.get('until') ? toLocalInput(q.get('until')) : '' })),
  ];
}

// knownTargets is a datalist of the queue managers and queues the caller
// may use (GET /status: the embedded queue managers and the profiles), for
// the target fields; the field takes any text all the same.
function knownTargets() {
  const list = h('datalist', { id: 'known-targets' });
  api('/status').then((reply) => {
    if (!reply.ok) return;
    const tg = reply.data.targets || {};
    const pairs = [...(tg.queueManagers || []).flatMap((m) => m.queues.map((queue) => [m.name, queue])),
      ...(tg.profiles || []).map((p) => [p.queueManager, p.queue])];
    const values = new Set(pairs.flatMap(([qm, queue]) => [qm, `${qm}:${queue}`]));
    list.append(...[...values].sort().map((v) => h('option', { value: v })));
  }).catch(ignoreSignIn);
  return list;
}

// submitTimesAsUTC makes form submit its fields as the page's query, the
// time range (entered in local time) as UTC RFC 3339, which the API takes.
function submitTimesAsUTC(form, prefix) {
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v !== '') params.set(k, v);
    for (const name of ['since', 'until']) {
      const v = form.querySelector(`#${prefix}-${name}`).value;
      if (v) params.set(name, new Date(v).toISOString());
    }
    location.search = params.toString();
  });
}

function results() {
  const q = new URLSearchParams(location.search);
  const form = h('form', { class: 'panel filters', method: 'get', action: '/ui/results', role: 'search', 'aria-label': 'Filter results' },
    field('f-operationType', 'Operation', select('f-operationType', 'operationType', [['', 'any'], ...OPERATIONS.concat('STOP_TEST').map((o) => [o, o])], q.get('operationType') || '')),
    field('f-status', 'Status', select('f-status', 'status', [['', 'any'], ...Object.keys(STATUS_MARKS).map((o) => [o, o])], q.get('status') || '')),
    field('f-key', 'Idempotency key', h('input', { type: 'text', id: 'f-key', name: 'idempotencyKey', value: q.get('idempotencyKey') || '' })),
    ...targetAndTimeFields('f', q),
    field('f-limit', 'At most', h('input', { type: 'number', id: 'f-limit', name: 'limit', min: 1, max: 1000, value: q.get('limit') || 100 })),
    h('button', { type: 'submit', id: 'filter' }, 'Filter'));
  submitTimesAsUTC(form, 'f');
  const list = section('results', 'Result events');
  const live = liveBadge();
  page('Results', h('p', {}, 'The recent result events of your tenant kept by this instance (embedded mode), newest first.'), form, live, list);
  (async () => {
    const apiQuery = new URLSearchParams();
    for (const k of ['operationType', 'status', 'idempotencyKey', 'target', 'since', 'until', 'limit']) if (q.get(k)) apiQuery.set(k, q.get(k));
    try {
      const reply = await api(`/results?${apiQuery}`);
      if (!reply.ok) {
        list.update(reply, () => problemBox(reply, 'GET /results'));
        return;
      }
      let events = reply.data.results;
      const render = () => {
        const commands = foldEvents(events);
        list.update(events, () => [
          table(`${commands.length} ${commands.length === 1 ? 'command' : 'commands'} from ${events.length} ${events.length === 1 ? 'event' : 'events'}${reply.data.truncated ? ' (more matched than one reply carries)' : ''}`,
            ['Time', 'Operation', 'Key', 'Status', 'Target', 'Duration (ms)', 'Summary', 'Event'],
            commands.map(({ main: e, progress }) => {
              const { result: payload, ...data } = e.data;
              return [h('span', { class: 'time' }, fmtTime(e.time)), data.operationType, recordLink(data.operationType, data.idempotencyKey),
                h('span', {}, statusBadge(data.status), data.replay ? ' (replay)' : ''),
                data.target || '–', fmtNumber(data.durationMs), h('span', { class: 'summary' }, resultSummary(e.data)),
                h('div', {},
                  h('details', {}, h('summary', {}, 'Show event'), jsonBlock({ ...e, data }, 'Result event without its payload'),
                    payload === null || payload === undefined ? h('p', { class: 'empty' }, 'No payload.')
                      : h('details', {}, h('summary', {}, 'Show payload (data.result)'), jsonBlock(payload, 'Result payload'))),
                  progress.length ? h('details', { class: 'progress-events' }, h('summary', {}, `${progress.length} progress ${progress.length === 1 ? 'event' : 'events'}`),
                    table('Progress events, newest first', ['Time', 'So far'], progress.map((p) => [h('span', { class: 'time' }, fmtTime(p.time)), resultSummary(p.data)]))) : null)];
            }), { numeric: [5] }),
        ]);
      };
      render();
      // New events stream in, unless the page asked for those until a time.
      if (q.get('until')) {
        live.remove();
        return;
      }
      const streamQuery = new URLSearchParams();
      for (const k of ['operationType', 'status', 'idempotencyKey', 'target']) if (q.get(k)) streamQuery.set(k, q.get(k));
      const limit = Number(q.get('limit') || 100);
      streamResults(streamQuery, (e) => {
        events = [e, ...events].slice(0, limit);
        render();
      }, live.set);
    } catch (err) {
      if (!(err instanceof SignInNeeded)) throw err;
    }
  })();
}

// foldEvents groups events (newest first) by command: each command's
// newest outcome event, else its newest progress event, with its progress
// events beside it.
function foldEvents(events) {
  const byCommand = new Map();
  for (const e of events) {
    const id = `${e.data.tenant || ''}\u0000${e.data.operationType}\u0000${e.data.idempotencyKey}`;
    if (!byCommand.has(id)) byCommand.set(id, { main: null, progress: [] });
    const c = byCommand.get(id);
    if (e.type === 'mqprobe.command.progress') c.progress.push(e);
    else if (!c.main) c.main = e;
  }
  return [...byCommand.values()].map((c) => ({ main: c.main || c.progress[0], progress: c.main ? c.progress : c.progress.slice(1) }));
}

// resultSummary is one line of what a command did, by operation.
function resultSummary(data) {
  const r = data.result;
  if (data.error) return `${data.error.code}: ${data.error.message}`;
  if (!r || typeof r !== 'object') return '–';
  switch (data.operationType) {
    case 'PRODUCE':
      return `${fmtNumber(r.enqueued)} enqueued in ${fmtNumber(r.transactions)} ${r.transactions === 1 ? 'transaction' : 'transactions'}, ${fmtNumber(r.ratePerSec)}/s`;
    case 'CONSUME':
      return r.browsed ? `${fmtNumber(r.browsed)} browsed` : `${fmtNumber(r.received)} received${r.truncated ? ' (list truncated)' : ''}`;
    case 'DEPTH':
      return [r.currentDepth !== undefined ? `depth ${fmtNumber(r.currentDepth)} of ${fmtNumber(r.maxDepth)}` : `${r.queueType} queue`,
        r.oldestMessageAgeSeconds !== undefined ? `oldest ${fmtAge(r.oldestMessageAgeSeconds)}` : null, r.verdict ? `verdict ${r.verdict}` : null].filter(Boolean).join(', ');
    case 'CONNECTION_TEST':
      return `${r.queueManager}, command level ${r.commandLevel}, ${r.platform}, connected in ${fmtNumber(r.connectMs)} ms`;
    case 'TEST':
      return `${fmtNumber(r.sent)} sent, ${fmtNumber(r.received)} back, ${fmtNumber(r.lost)} lost${r.latencyMs?.p99 !== undefined ? `, p99 ${fmtNumber(r.latencyMs.p99)} ms` : ''}${r.stopped ? ', stopped early' : ''}`;
    case 'REDRIVE':
      return `${fmtNumber(r.moved)} ${r.dryRun ? 'would move (dry run)' : 'moved'}${r.skipped ? `, ${fmtNumber(r.skipped)} skipped` : ''}`;
    case 'STOP_TEST':
      return r.stopped ? `stopped ${r.testId}` : `${r.testId} was not running here`;
  }
  return '–';
}

// ---- Record ------------------------------------------------------------

function record() {
  const q = new URLSearchParams(location.search);
  const op = q.get('op') || 'PRODUCE', key = q.get('key') || '';
  const form = h('form', { class: 'panel filters', method: 'get', action: '/ui/record', 'aria-label': 'Find a record' },
    field('r-op', 'Operation', select('r-op', 'op', OPERATIONS.map((o) => [o, o]), op)),
    field('r-key', 'Idempotency key', h('input', { type: 'text', id: 'r-key', name: 'key', value: key, required: true, maxlength: 255 })),
    h('button', { type: 'submit' }, 'Open'));
  const view = section('record', 'Idempotency record');
  if (!key) {
    recordList(form);
    return;
  }
  page('Record', form, view);
  const path = `/idempotency/${encodeURIComponent(op)}/${encodeURIComponent(key)}`;
  const outcome = h('div', { id: 'evict-outcome' });
  const show = async () => {
    const reply = await api(path);
    if (!reply.ok) {
      view.update(reply, () => problemBox(reply, `GET ${path}`));
      return;
    }
    const r = reply.data;
    view.update(r, () => [
      facts([['Operation', r.operationType], ['Key', r.idempotencyKey], ['Status', statusBadge(r.status)], ['Attempt', String(r.attempt)],
        ['Created', fmtTime(r.createdAt)], ['Updated', fmtTime(r.updatedAt)], ['Expires', fmtTime(r.expiresAt)],
        ['Lease holder', r.leaseHolder], ['Lease expires', r.leaseExpiresAt ? fmtTime(r.leaseExpiresAt) : undefined],
        ['Target', r.target], ['Duration', r.durationMs ? `${r.durationMs} ms` : undefined], ['Trace', r.traceId],
        ['Error', r.errorMessage], ['HTTP status', r.httpStatus ? String(r.httpStatus) : undefined], ['Request hash', r.requestHash]]),
      r.progress !== undefined ? [h('h3', {}, 'Checkpoint'), jsonBlock(r.progress, 'Checkpoint')] : null,
      r.response !== undefined ? h('details', {}, h('summary', {}, 'Show the recorded response'), jsonBlock(r.response, 'Recorded response')) : null,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'danger', id: 'evict', onclick: () => confirmEvict(false) }, 'Evict…'),
        r.operationType === 'TEST' ? h('a', { href: `/ui/probes/${encodeURIComponent(r.idempotencyKey)}` }, 'Open the probe') : null,
        h('a', { href: `/ui/results?${new URLSearchParams({ idempotencyKey: r.idempotencyKey })}` }, 'Its result events')),
      outcome,
    ]);
  };
  const confirmEvict = (force) => {
    const yes = h('button', { type: 'button', class: 'danger', id: 'confirm-evict' }, force ? 'Evict anyway' : 'Evict');
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    no.addEventListener('click', () => outcome.replaceChildren());
    yes.addEventListener('click', async () => {
      const reply = await api(`${path}${force ? '?force=true' : ''}`, { method: 'DELETE' });
      if (reply.status === 204) {
        outcome.replaceChildren(h('p', { class: 'notice', role: 'status' }, 'Evicted: the next command with this key executes afresh.'));
        return;
      }
      outcome.replaceChildren(problemBox(reply, 'Evict'));
      if (reply.status === 409) outcome.append(h('button', { type: 'button', class: 'danger', onclick: () => confirmEvict(true) }, 'Evict anyway…'));
    });
    outcome.replaceChildren(h('div', { class: 'notice', role: 'group', 'aria-label': 'Confirm eviction' },
      h('p', {}, force ? 'Forcing the eviction may run the command a second time, or repeat committed messages.'
        : 'Evicting forgets the record: the next command with this key executes again.'), h('div', { class: 'actions' }, yes, no)));
    yes.focus();
  };
  show().catch((err) => { if (!(err instanceof SignInNeeded)) throw err; });
}

// recordList lists the tenant's records a page at a time, filtered as the
// query says (GET /idempotency).
function recordList(lookup) {
  const q = new URLSearchParams(location.search);
  const filters = h('form', { class: 'panel filters', method: 'get', action: '/ui/record', role: 'search', 'aria-label': 'Filter records' },
    field('l-operationType', 'Operation', select('l-operationType', 'operationType', [['', 'any'], ...OPERATIONS.concat('STOP_TEST').map((o) => [o, o])], q.get('operationType') || '')),
    field('l-status', 'Status', select('l-status', 'status', [['', 'any'], ['IN_PROGRESS', 'IN_PROGRESS'], ['COMPLETED', 'COMPLETED'], ['FAILED', 'FAILED']], q.get('status') || '')),
    field('l-olderThan', 'Not updated for', h('input', { type: 'text', id: 'l-olderThan', name: 'olderThan', value: q.get('olderThan') || '', placeholder: 'PT10M', pattern: 'P.*' }),
      'An ISO 8601 duration: with IN_PROGRESS, commands whose holder stopped.'),
    ...targetAndTimeFields('l', q),
    field('l-limit', 'Per page', h('input', { type: 'number', id: 'l-limit', name: 'limit', min: 1, max: 1000, value: q.get('limit') || 50 })),
    h('button', { type: 'submit', id: 'filter-records' }, 'Filter'));
  submitTimesAsUTC(filters, 'l');
  const list = section('records', 'Records');
  page('Record', h('p', {}, 'Every unexpired idempotency record of your tenant, a page at a time. Open one by its key to see its lease, checkpoint and response, or to evict it.'),
    filters, list, h('details', { class: 'panel' }, h('summary', {}, 'Open a record by operation and key'), lookup));
  const apiQuery = new URLSearchParams();
  for (const k of ['operationType', 'status', 'olderThan', 'target', 'since', 'until', 'limit', 'cursor']) if (q.get(k)) apiQuery.set(k, q.get(k));
  if (!apiQuery.has('limit')) apiQuery.set('limit', '50');
  (async () => {
    const reply = await api(`/idempotency?${apiQuery}`);
    if (!reply.ok) {
      list.update(reply, () => problemBox(reply, 'GET /idempotency'));
      return;
    }
    const records = [...reply.data.records].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const next = reply.data.nextCursor;
    list.update(reply.data, () => [
      table(`${records.length} ${records.length === 1 ? 'record' : 'records'} on this page, latest update first`,
        ['Operation', 'Key', 'Status', 'Attempt', 'Updated', 'Expires', 'Target', 'Summary'],
        records.map((r) => [r.operationType, recordLink(r.operationType, r.idempotencyKey), statusBadge(r.status), String(r.attempt),
          h('span', { class: 'time' }, fmtTime(r.updatedAt)), h('span', { class: 'time' }, fmtTime(r.expiresAt)),
          r.target ? h('a', { href: `/ui/record?${new URLSearchParams({ target: r.target })}`, title: `The records of ${r.target}` }, r.target) : '–',
          h('span', { class: 'summary' }, r.response ? resultSummary({ operationType: r.operationType, result: r.response.result, error: r.response.error })
            : (r.errorMessage || '–'))]), { numeric: [3] }),
      next ? h('div', { class: 'actions' }, h('a', { id: 'next-records', href: `/ui/record?${new URLSearchParams([...apiQuery.entries()].filter(([k]) => k !== 'cursor').concat([['cursor', next]]))}` }, 'Next page')) : null,
    ]);
  })().catch(ignoreSignIn);
}

// ---- Send --------------------------------------------------------------

// resolve follows a schema's $ref into the document's components, the
// referring schema's own keywords winning.
function resolve(doc, schema) {
  let out = schema || {};
  const seen = new Set();
  while (out.$ref && !seen.has(out.$ref)) {
    seen.add(out.$ref);
    const { $ref, ...own } = out;
    out = { ...doc.components.schemas[$ref.replace('#/components/schemas/', '')], ...own };
  }
  return out;
}

function baseType(type) {
  return Array.isArray(type) ? type.find((t) => t !== 'null') : type;
}

// FIELD_ORDER puts what every command names first; the rest follow by name.
const FIELD_ORDER = ['target', 'targetRef', 'queueManager', 'queue', 'replyQueue', 'durationSeconds', 'count', 'maxMessages', 'waitSeconds', 'batch', 'channel', 'connName'];
function byFieldOrder([a], [b]) {
  const ia = FIELD_ORDER.indexOf(a), ib = FIELD_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

const DATALISTS = { queueManager: 'dl-queue-managers', queue: 'dl-queues', targetRef: 'dl-profiles' };

// schemaFields adds a control for each property of schema to container;
// objects become fieldsets (optional ones folded in a details).
function schemaFields(doc, schema, path, required, container) {
  const sc = resolve(doc, schema);
  const req = new Set(sc.required || []);
  for (const [name, raw] of Object.entries(sc.properties || {}).sort(byFieldOrder)) {
    if (path.length === 0 && (name === 'operationType' || name === 'idempotencyKey')) continue; // the route and the header say these
    const p = resolve(doc, raw);
    const fieldPath = [...path, name];
    const isRequired = required && req.has(name);
    if (baseType(p.type) === 'object' && p.properties) {
      const group = h('fieldset', { id: `g-${fieldPath.join('-')}` }, h('legend', {}, p.title || name), p.description ? h('p', { class: 'hint' }, p.description) : null);
      schemaFields(doc, p, fieldPath, isRequired, group);
      container.append(isRequired || name === 'target' ? group : h('details', {}, h('summary', {}, `${p.title || name} (optional)`), group));
    } else {
      container.append(schemaControl(p, fieldPath, isRequired));
    }
  }
}

function schemaControl(p, path, required) {
  const id = `f-${path.join('-')}`;
  const type = baseType(p.type);
  const name = path[path.length - 1];
  const hints = [];
  if (p.description) hints.push(p.description);
  if (p.minimum !== undefined || p.maximum !== undefined) hints.push(`From ${fmtNumber(p.minimum ?? -Infinity)} to ${fmtNumber(p.maximum ?? Infinity)}.`);
  if (p.default !== undefined && p.default !== null && typeof p.default !== 'object') hints.push(`Default ${p.default}.`);
  let control;
  const data = { 'data-path': path.join('.'), 'data-type': p.enum ? 'string' : type, 'data-default': p.default === undefined ? undefined : JSON.stringify(p.default) };
  if (p.enum) {
    control = h('select', { id, required, ...data }, required || p.default !== undefined ? null : h('option', { value: '' }, '(none)'),
      p.enum.map((v) => h('option', { value: v, selected: v === p.default }, v)));
  } else if (type === 'boolean') {
    control = h('input', { type: 'checkbox', id, checked: p.default === true, ...data });
    return h('div', { class: 'field check' }, control, h('label', { for: id }, p.title || name), hints.length ? h('span', { class: 'hint' }, hints.join(' ')) : null);
  } else if (type === 'integer' || type === 'number') {
    control = h('input', { type: 'number', id, required, min: p.minimum, max: p.maximum, step: type === 'integer' ? 1 : 'any', value: typeof p.default === 'number' ? p.default : undefined, ...data });
  } else if (type === 'string') {
    control = h('input', { type: 'text', id, required, minlength: p.minLength, maxlength: p.maxLength, value: typeof p.default === 'string' ? p.default : undefined, list: DATALISTS[name], autocomplete: 'off', ...data });
  } else {
    control = h('textarea', { id, rows: 3, 'data-json': true, placeholder: 'JSON, e.g. {"name": "value"}', ...data });
    hints.push('A JSON value.');
  }
  return field(id, `${p.title || name}${required ? ' (required)' : ''}`, control, hints.join(' ') || undefined);
}

// collect builds the command body from the form: empty fields and fields
// left at their schema default are left out (the daemon applies defaults).
function collect(form) {
  const body = {};
  for (const el of form.querySelectorAll('[data-path]')) {
    let value;
    if (el.type === 'checkbox') value = el.checked;
    else if (el.value.trim() === '') continue;
    else if (el.dataset.json !== undefined) {
      try { value = JSON.parse(el.value); } catch { throw new Error(`${el.dataset.path}: not valid JSON`); }
    } else if (el.dataset.type === 'integer' || el.dataset.type === 'number') value = Number(el.value);
    else value = el.value;
    if (el.dataset.default !== undefined ? JSON.stringify(value) === el.dataset.default : value === false) continue;
    const parts = el.dataset.path.split('.');
    let at = body;
    for (const part of parts.slice(0, -1)) at = at[part] ??= {};
    at[parts[parts.length - 1]] = value;
  }
  return body;
}

// choice replaces the text control input with a select of values (the
// same id and data attributes, so the form collects it the same way).
function choice(input, values, none) {
  const sel = h('select', { id: input.id, 'aria-describedby': input.getAttribute('aria-describedby') },
    h('option', { value: '' }, none), values.map((v) => h('option', { value: v }, v)));
  for (const [k, v] of Object.entries(input.dataset)) sel.dataset[k] = v;
  input.replaceWith(sel);
  return sel;
}

// offerChoices turns the queue manager, queue and profile fields into
// choices of what GET /status says the caller may use: the embedded queue
// managers and their queues, the target profiles.
function offerChoices(form, tg) {
  const qms = tg.queueManagers || [];
  const qmInput = form.querySelector('#f-target-queueManager');
  const queueInput = form.querySelector('#f-target-queue');
  if (qms.length && qmInput && queueInput) {
    const qm = choice(qmInput, qms.map((x) => x.name), '(choose a queue manager)');
    const allQueues = [...new Set(qms.flatMap((x) => x.queues))];
    const queue = choice(queueInput, allQueues, '(choose a queue)');
    qm.addEventListener('change', () => {
      const queues = qms.find((x) => x.name === qm.value)?.queues || allQueues;
      const keep = queue.value;
      queue.replaceChildren(h('option', { value: '' }, '(choose a queue)'), ...queues.map((v) => h('option', { value: v, selected: v === keep }, v)));
    });
  }
  const refInput = form.querySelector('#f-targetRef');
  if ((tg.profiles || []).length && refInput) {
    const ref = choice(refInput, tg.profiles.map((p) => p.name), '(none: name an inline target)');
    const queueOfRef = form.querySelector('#f-queue');
    ref.addEventListener('change', () => {
      const p = tg.profiles.find((x) => x.name === ref.value);
      if (queueOfRef) queueOfRef.placeholder = p ? `${p.queue} (the profile's)` : '';
    });
  }
}

// hideUnreachable removes the inline target's connection fields, which the
// embedded backend refuses: it connects nowhere.
function hideUnreachable(form) {
  const gone = [];
  for (const [sel, name] of [['#f-target-channel', 'channel'], ['#f-target-connName', 'connName'], ['#f-target-ccdtUrl', 'ccdtUrl'], ['#g-target-ssl', 'ssl']]) {
    const el = form.querySelector(sel);
    if (!el) continue;
    const wrapper = el.tagName === 'FIELDSET' ? (el.parentElement.tagName === 'DETAILS' ? el.parentElement : el) : el.closest('.field');
    wrapper.remove();
    gone.push(name);
  }
  const target = form.querySelector('#g-target');
  if (gone.length && target) {
    target.append(h('p', { class: 'hint', id: 'embedded-note' }, `No ${gone.join(', ')} here: the embedded MQ backend runs its queue managers in this process and connects nowhere (they need mq.backend ibmmq).`));
  }
}

async function send() {
  const q = new URLSearchParams(location.search);
  const op = OPERATIONS.includes(q.get('op')) ? q.get('op') : 'PRODUCE';
  const [docReply, statusReply] = await Promise.all([api('/openapi.json'), api('/status')]);
  if (!docReply.ok) {
    page('Send', problemBox(docReply, 'GET /openapi.json'));
    return;
  }
  const doc = docReply.data;
  const route = COMMAND_ROUTES[op];
  const schema = resolve(doc, doc.paths[route].post.requestBody.content['application/json'].schema);
  const tg = statusReply.ok ? statusReply.data.targets : {};
  const lists = [
    h('datalist', { id: 'dl-queue-managers' }, [...new Set([...(tg.queueManagers || []).map((x) => x.name), ...(tg.profiles || []).map((x) => x.queueManager)])].map((v) => h('option', { value: v }))),
    h('datalist', { id: 'dl-queues' }, [...new Set([...(tg.queueManagers || []).flatMap((x) => x.queues), ...(tg.profiles || []).map((x) => x.queue)])].map((v) => h('option', { value: v }))),
    h('datalist', { id: 'dl-profiles' }, (tg.profiles || []).map((x) => h('option', { value: x.name }))),
  ];
  const choose = h('nav', { 'aria-label': 'Operation to send', class: 'actions' }, 'Operation:',
    OPERATIONS.map((o) => h('a', { href: `/ui/send?op=${o}`, 'aria-current': o === op ? 'page' : undefined }, o === op ? h('strong', {}, o) : o)));
  const keyInput = h('input', { type: 'text', id: 'idempotency-key', required: true, maxlength: 255, value: newKey(), autocomplete: 'off' });
  const form = h('form', { class: 'panel', id: 'send-form', novalidate: false },
    h('p', {}, schema.description || '', ' Fields come from the command’s JSON Schema: ranges and defaults as it states them; name either an inline target or a targetRef profile.'),
    h('div', { class: 'actions' },
      field('idempotency-key', 'Idempotency-Key (header)', keyInput, 'Sending again with the same key replays the recorded result instead of executing twice.'),
      h('button', { type: 'button', class: 'secondary', onclick: () => { keyInput.value = newKey(); keyInput.focus(); } }, 'New key')));
  schemaFields(doc, schema, [], true, form);
  offerChoices(form, tg);
  if (statusReply.ok && statusReply.data.backends?.mq === 'embedded') hideUnreachable(form);
  form.append(h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'send-button' }, `Send ${op}`)));
  const reply = section('reply', 'Reply');
  reply.hidden = true;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!form.reportValidity()) return;
    let body;
    try { body = collect(form); } catch (err) {
      reply.hidden = false;
      reply.update(String(err), () => h('p', { class: 'problem', role: 'alert' }, err.message));
      return;
    }
    const key = keyInput.value;
    reply.hidden = false;
    reply.update({ sending: key }, () => h('p', {}, `Sending ${op} with key ${key}…`));
    const r = await api(route, { method: 'POST', body, headers: { 'Idempotency-Key': key } });
    const links = h('div', { class: 'actions' },
      op === 'TEST' && r.status < 300 ? h('a', { href: `/ui/probes/${encodeURIComponent(r.data?.testId || key)}`, id: 'watch-probe' }, 'Watch the probe') : null,
      recordLink(op, key, 'Open its record'),
      h('a', { href: `/ui/results?${new URLSearchParams({ idempotencyKey: key })}`, id: 'see-results' }, 'See its result events'));
    reply.update({ status: r.status, data: r.data, key }, () => [
      r.ok ? h('p', { role: 'status' }, `HTTP ${r.status}${r.headers.get('Idempotent-Replay') ? ' (replayed from the record)' : ''}: `,
        statusBadge(r.data?.status || 'IN_PROGRESS')) : problemBox(r, `${op} refused`),
      links, jsonBlock(r.data, 'Reply body'),
    ]);
    announce(`${op} answered HTTP ${r.status}`);
  });
  page(`Send ${op}`, choose, ...lists, form, reply);
}

// ---- start -------------------------------------------------------------

const PAGES = [
  [/^\/$/, 'overview', overview],
  [/^\/ui\/probes\/?$/, 'probes', probes],
  [/^\/ui\/probes\/(.+)$/, 'probes', (m) => probe(decodeURIComponent(m[1]))],
  [/^\/ui\/results\/?$/, 'results', results],
  [/^\/ui\/record\/?$/, 'record', record],
  [/^\/ui\/queues\/?$/, 'overview', overview],
  [/^\/ui\/queues\/([^/]+)\/([^/]+)$/, 'overview', (m) => queuePage(decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/ui\/send\/?$/, 'send', () => send().catch((err) => { if (!(err instanceof SignInNeeded)) throw err; })],
];

function start() {
  const forget = document.getElementById('forget-token');
  forget.hidden = !sessionStorage.getItem(TOKEN_KEY);
  forget.addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); location.assign('/'); });
  for (const [re, name, render] of PAGES) {
    const m = location.pathname.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('nav a[data-page]')) {
      if (a.dataset.page === name) a.setAttribute('aria-current', 'page');
    }
    render(m);
    return;
  }
  page('Not found', h('p', {}, 'No console page here. ', h('a', { href: '/' }, 'Overview')));
}

start();
