import { PAGE_HEADER, STATUS_PATH } from './status.js';

/**
 * The status page: plain HTML, CSS and a little script, served by the gateway as they are (no build
 * step; TypeScript compiles this module into dist/ like any other). Nothing is fetched from
 * elsewhere, and the gateway's Content-Security-Policy says so to the browser. The script reads
 * `GET /__gateway/status` every second and draws it: numbers as text, charts as CSS bars.
 */

export const PAGE_PATHS = { script: '/__gateway/status.js', style: '/__gateway/status.css' } as const;

export const STATUS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>propdata gateway</title>
<link rel="stylesheet" href="${PAGE_PATHS.style}">
<script type="module" src="${PAGE_PATHS.script}"></script>
</head>
<body>
<header>
  <h1>propdata gateway</h1>
  <p id="state" class="state">reading the status…</p>
</header>
<form id="login" class="login" hidden>
  <label for="admin-key">The gateway's admin key (<code>--admin-key</code>, or the one it printed at start)</label>
  <input id="admin-key" type="password" autocomplete="current-password" required>
  <button type="submit">Show the status</button>
</form>
<main>
  <section>
    <h2>The account's rate-limit windows</h2>
    <div id="windows" class="rows"></div>
  </section>
  <section>
    <h2>Store hit rate</h2>
    <div id="store" class="rows"></div>
  </section>
  <section class="wide">
    <h2>Spend per key <small>USD at list price</small></h2>
    <p class="legend"><i class="today"></i>today<i class="month"></i>this month (UTC)<i class="budget"></i>the key's month budget</p>
    <div id="spend" class="rows"></div>
    <p id="account" class="note"></p>
  </section>
  <section class="wide">
    <h2>Clients active now</h2>
    <table id="clients"><thead><tr><th>key</th><th>in flight</th><th>requests</th><th>items</th><th>from the store</th><th>last seen</th></tr></thead><tbody></tbody></table>
  </section>
  <section class="wide">
    <h2>Recent refusals</h2>
    <table id="refusals"><thead><tr><th>when</th><th>key</th><th>from</th><th>status</th><th>why</th></tr></thead><tbody></tbody></table>
  </section>
</main>
</body>
</html>
`;

export const STATUS_CSS = `:root { --ink: #1d2433; --muted: #667085; --line: #e4e7ec; --fill: #2e6bd8; --warm: #d9822b; --bad: #c4320a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f7f8fa; }
header { padding: 16px 28px; background: #fff; border-bottom: 1px solid var(--line); display: flex; align-items: baseline; gap: 24px; }
h1 { font-size: 20px; margin: 0; }
h2 { font-size: 15px; margin: 0 0 12px; }
h2 small { color: var(--muted); font-weight: normal; }
.state { margin: 0; color: var(--muted); }
.state.failed { color: var(--bad); }
.login { margin: 20px 28px; padding: 16px 18px; background: #fff; border: 1px solid var(--line); border-radius: 8px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.login[hidden] { display: none; }
.login input { font: inherit; padding: 4px 8px; min-width: 24em; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 18px; padding: 20px 28px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; }
section.wide { grid-column: 1 / -1; }
.rows { display: grid; gap: 10px; }
.row { display: grid; grid-template-columns: 140px 1fr 290px; align-items: center; gap: 12px; }
.label { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.figure { font-variant-numeric: tabular-nums; text-align: right; color: var(--muted); }
.figure b { color: var(--ink); }
.bar { position: relative; height: 14px; background: #eef1f6; border-radius: 7px; overflow: hidden; }
.bar .fill { position: absolute; inset: 0 auto 0 0; background: var(--fill); border-radius: 7px; transition: width 0.4s; }
.bar .fill.today { background: var(--warm); }
.bar .budget { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--bad); }
#windows .row { grid-template-columns: 120px 1fr 220px; }
.pair { display: grid; gap: 4px; }
.big { font-size: 28px; font-weight: 700; }
.note { color: var(--muted); margin: 12px 0 0; }
.legend { color: var(--muted); font-size: 13px; margin: 0 0 10px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin: 0 4px 0 10px; vertical-align: -1px; }
.legend i.today { background: var(--warm); } .legend i.month { background: var(--fill); } .legend i.budget { background: var(--bad); width: 3px; border-radius: 0; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { color: var(--muted); font-weight: 600; font-size: 13px; }
td.empty { color: var(--muted); }
`;

// A module: deferred, strict, and its names its own.
export const STATUS_JS = `
const byId = (id) => document.getElementById(id);
const usd = (n) => n.toFixed(2);
const time = (ms) => new Date(ms).toISOString().slice(11, 19) + ' UTC';
const PERIODS = { 1: 'second', 60: 'minute', 3600: 'hour', 86400: 'day' };
const per = (seconds) => 'per ' + (PERIODS[seconds] || seconds + ' s');
const span = (seconds) =>
  seconds < 120 ? seconds + ' s' : seconds < 7200 ? Math.round(seconds / 60) + ' min' : Math.floor(seconds / 3600) + ' h ' + Math.round((seconds % 3600) / 60) + ' min';
const make = (tag, className, text) => {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
};
const bar = (share, kind) => {
  const outer = make('div', 'bar');
  const fill = make('div', 'fill' + (kind ? ' ' + kind : ''));
  fill.style.width = Math.max(0, Math.min(100, share * 100)).toFixed(1) + '%';
  outer.append(fill);
  return outer;
};
const row = (label, chart, figure, data) => {
  const element = make('div', 'row');
  for (const [name, value] of Object.entries(data)) element.dataset[name] = value;
  element.append(make('div', 'label', label), chart, figure);
  return element;
};
const figure = (parts) => {
  const element = make('div', 'figure');
  for (const [className, text] of parts) element.append(className === 'b' ? make('b', null, text) : make('span', className, text));
  return element;
};

let last;
let fetchedAt = 0;

function windows(status) {
  const box = byId('windows');
  box.replaceChildren();
  if (status.windows.length === 0) box.append(make('p', 'note', 'No answer from the service yet: its windows are not known.'));
  const elapsed = Date.now() - fetchedAt;
  for (const w of status.windows) {
    const resetsIn = Math.max(0, Math.ceil((w.resetAt - status.now - elapsed) / 1000));
    const figures = figure([['used', String(w.used)], ['', ' of '], ['limit', String(w.limit)], ['resets', ' · resets in ' + span(resetsIn)]]);
    box.append(row(w.limit + ' ' + per(w.periodSeconds), bar(w.used / w.limit), figures, { window: String(w.periodSeconds) }));
  }
}

function spend(status) {
  const box = byId('spend');
  box.replaceChildren();
  // A tenth to spare, so that a budget's line stands inside its bar.
  const top = 1.1 * Math.max(0.01, ...status.spend.keys.map((k) => Math.max(k.month, k.budgetMonth ?? 0)));
  for (const k of status.spend.keys) {
    const chart = make('div', 'pair');
    const month = bar(k.month / top);
    if (k.budgetMonth !== null) {
      const line = make('div', 'budget');
      line.style.left = Math.min(100, (k.budgetMonth / top) * 100).toFixed(1) + '%';
      month.append(line);
    }
    chart.append(bar(k.today / top, 'today'), month);
    const budget = k.budgetMonth === null ? '' : ' of ' + usd(k.budgetMonth);
    const figures = figure([['today', usd(k.today)], ['', ' today · '], ['month', usd(k.month)], ['budget', budget], ['', ' this month']]);
    box.append(row(k.key, chart, figures, { key: k.key }));
  }
  if (status.spend.keys.length === 0) box.append(make('p', 'note', 'No keys yet: propdata keys add <name>.'));
  const cap = status.spend.maxCostMonth === null ? 'no month budget (--max-cost-month)' : 'budget ' + usd(status.spend.maxCostMonth) + ' USD';
  byId('account').textContent = 'The account this month: ' + usd(status.spend.accountMonth) + ' USD at list price, every job and gateway on the store; ' + cap + '.';
}

function store(status) {
  const box = byId('store');
  box.replaceChildren();
  const rate = status.store.hitRate;
  const text = rate === null ? 'no items yet' : (rate * 100).toFixed(1) + ' %';
  box.append(make('div', 'big', text), bar(rate ?? 0), make('p', 'note', status.store.fromStore + ' of ' + status.store.items + ' items answered from the store since ' + time(status.startedAt)));
  box.firstChild.id = 'hit-rate';
}

function table(id, rows, empty) {
  const body = byId(id).tBodies[0];
  body.replaceChildren();
  for (const cells of rows) {
    const tr = make('tr');
    for (const cell of cells) tr.append(make('td', null, cell));
    body.append(tr);
  }
  if (rows.length === 0) {
    const tr = make('tr');
    const td = make('td', 'empty', empty);
    td.colSpan = byId(id).tHead.rows[0].cells.length;
    tr.append(td);
    body.append(tr);
  }
}

function render(status) {
  windows(status);
  spend(status);
  store(status);
  table('clients', status.clients.map((c) => [c.key, String(c.inFlight), String(c.requests), String(c.items), String(c.fromStore), time(c.lastSeen)]), 'none in the last minute');
  table('refusals', status.refusals.map((r) => [time(r.at), r.key ?? '(no key)', r.address, String(r.status), r.reason]), 'none');
  const state = byId('state');
  state.className = 'state';
  state.textContent = status.clients.length + ' active · ' + status.slowedAddresses + ' addresses slowed for failed logins · as of ' + time(status.now);
}

// The admin key, for this tab only. A page opened as http://admin:KEY@host/ has it in its URL
// (document.URL: Chrome's location leaves it out), where fetch refuses it (a URL with credentials,
// even a relative one resolved against the page's), and where history cannot take it out: it is
// kept, and the page opened again without it.
const KEPT = 'propdata-admin-key';
const opened = new URL(document.URL);
if (opened.password) {
  sessionStorage.setItem(KEPT, decodeURIComponent(opened.password));
  opened.username = '';
  opened.password = '';
  location.replace(opened.href);
}
const adminKey = () => sessionStorage.getItem(KEPT);
const basic = (key) => 'Basic ' + btoa(Array.from(new TextEncoder().encode('admin:' + key), (byte) => String.fromCharCode(byte)).join(''));

function askForKey(message) {
  const state = byId('state');
  state.className = 'state failed';
  state.textContent = message;
  const form = byId('login');
  if (form.hidden) {
    form.hidden = false;
    byId('admin-key').focus();
  }
}

byId('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEPT, byId('admin-key').value);
  byId('admin-key').value = '';
  byId('login').hidden = true;
  refresh();
});

async function refresh() {
  if (opened.password) return;
  const key = adminKey();
  if (key === null) return askForKey('The status needs the admin key.');
  if (!byId('login').hidden) return;
  try {
    const headers = { authorization: basic(key), '${PAGE_HEADER}': '1' };
    const response = await fetch(new URL('${STATUS_PATH}', location.origin), { cache: 'no-store', headers });
    if (response.status === 401) {
      sessionStorage.removeItem(KEPT);
      return askForKey('That is not the admin key: try again.');
    }
    if (!response.ok) throw new Error('HTTP ' + response.status);
    last = await response.json();
    fetchedAt = Date.now();
    render(last);
    document.body.dataset.ready = 'true';
  } catch (error) {
    const state = byId('state');
    state.className = 'state failed';
    state.textContent = 'cannot read the status: ' + error.message;
  }
}

// Between two reads the countdowns keep moving.
setInterval(() => last && windows(last), 250);
setInterval(refresh, 1000);
refresh();
`;
