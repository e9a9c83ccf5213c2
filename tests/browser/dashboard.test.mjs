// SPDX-License-Identifier: GPL-2.0-only
// The biobench dashboard in a real chromium (playwright-core), against the
// daemon and jobs that run.sh prepared.  Prints "ok - ..." / "FAIL - ..."
// per check and a tally; exit 0 pass, 1 fail, 77 chromium cannot start.
//
// Environment (set by run.sh): BB_URL, BB_ART (screenshots), BB_NODE_DIR
// (where playwright-core is installed), BB_CHROMIUM, BB_JOB_CACHE,
// BB_JOB_SLOW1, BB_JOB_SLOW2 (same name: the history), BB_JOB_HTML (a name
// full of markup), BB_JOB_RUNNING, BB_JOB_GHOST (queued for ghost-1, a
// host registered an hour ago: stale), BB_HOST_SELF (the daemon's host
// name), BB_JOB_GROUP (a group on this daemon and the stale ghost-2: its
// parent) and BB_JOB_CHILD (the group's job on this daemon, done).
import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';

const env = (k) => {
  const v = process.env[k];
  if (!v) { console.error(`dashboard.test: ${k} is not set (run it with run.sh)`); process.exit(2); }
  return v;
};
const BASE = env('BB_URL');
const ART = env('BB_ART');
const NODE_DIR = process.env.BB_NODE_DIR || path.dirname(new URL(import.meta.url).pathname);
const CHROMIUM = process.env.BB_CHROMIUM || '/usr/bin/chromium';
const JOB = {
  cache: env('BB_JOB_CACHE'), slow1: env('BB_JOB_SLOW1'), slow2: env('BB_JOB_SLOW2'),
  html: env('BB_JOB_HTML'), running: env('BB_JOB_RUNNING'),
  file: env('BB_JOB_FILE'), disturbed: env('BB_JOB_DISTURBED'),
  ghost: env('BB_JOB_GHOST'), group: env('BB_JOB_GROUP'), child: env('BB_JOB_CHILD'),
};
const HOST_SELF = env('BB_HOST_SELF');

const require = createRequire(path.join(NODE_DIR, 'package.json'));
const { chromium } = require('playwright-core');

let passed = 0;
let failed = 0;
function ok(cond, what, detail) {
  if (cond) { passed++; console.log(`ok   - ${what}`); }
  else { failed++; console.log(`FAIL - ${what}${detail ? ': ' + detail : ''}`); }
  return cond;
}

async function api(p) {
  const r = await fetch(BASE + p);
  return { status: r.status, body: await r.json() };
}

fs.mkdirSync(ART, { recursive: true });

let browser;
try {
  browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
} catch (e) {
  console.log(`skip: chromium (${CHROMIUM}) cannot be started: ${e.message.split('\n')[0]}`);
  process.exit(77);
}

const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
page.setDefaultTimeout(15000);

// Everything the page logs or requests, with the page it was on.
let where = 'start';
const consoleErrors = [];
const failedRequests = [];
const foreign = [];
const requested = [];
page.on('console', (m) => {
  if (m.type() === 'error' || m.type() === 'warning')
    consoleErrors.push({ where, type: m.type(), text: m.text(), url: m.location().url || '' });
});
page.on('pageerror', (e) => consoleErrors.push({ where, type: 'pageerror', text: e.message, url: '' }));
page.on('requestfailed', (r) => failedRequests.push({ where, url: r.url(), why: r.failure() && r.failure().errorText }));
page.on('request', (r) => {
  const u = new URL(r.url());
  requested.push(u.pathname);
  if (!['http:', 'https:'].includes(u.protocol)) return;   // data: and blob: stay local
  if (u.hostname !== '127.0.0.1' && u.hostname !== 'localhost' && u.hostname !== '[::1]')
    foreign.push(r.url());
});
page.on('response', (r) => {
  // the only error statuses the dashboard may meet: a bad job id
  if (r.status() >= 400) {
    const u = new URL(r.url());
    if (!/^\/api\/v1\/jobs\/(999999|abc)$/.test(u.pathname))
      failedRequests.push({ where, url: r.url(), why: 'HTTP ' + r.status() });
  }
});

async function go(hash, label) {
  where = label;
  await page.goto(BASE + '/' + hash);
}

async function shot(name) {
  const file = path.join(ART, name + '.png');
  await page.screenshot({ path: file, fullPage: true });
  console.log(`  screenshot ${file}`);
}

// Pixels drawn on a canvas (alpha > 0): Chart.js leaves the rest transparent.
async function drawnPixels(selector) {
  return page.$eval(selector, (c) => {
    const ctx = c.getContext('2d');
    if (!c.width || !c.height) return 0;
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n;
  });
}

async function chartDrawn(selector, what) {
  try {
    await page.waitForSelector(selector, { state: 'visible' });
    await page.waitForTimeout(300);
    const n = await drawnPixels(selector);
    ok(n > 2000, `${what}: canvas has content`, `${n} drawn pixels`);
  } catch (e) {
    ok(false, `${what}: canvas has content`, e.message.split('\n')[0]);
  }
}

async function check(what, fn) {
  try {
    const r = await fn();
    if (r === undefined) return;
    ok(r === true, what, typeof r === 'string' ? r : undefined);
  } catch (e) {
    ok(false, what, e.message.split('\n')[0]);
  }
}

const text = (sel) => page.$eval(sel, (e) => e.textContent.trim());

// ---- jobs list ---------------------------------------------------------
await go('#/', 'list');
await check('list: shows every job', async () => {
  for (const id of Object.values(JOB))
    await page.waitForSelector(`tr[data-job-id="${id}"]`);
  return true;
});
await check('list: finished jobs show state done and a verdict', async () => {
  const bad = [];
  for (const id of [JOB.cache, JOB.slow1, JOB.slow2, JOB.html]) {
    const st = await text(`tr[data-job-id="${id}"] [data-testid=job-state]`);
    const v = await text(`tr[data-job-id="${id}"] [data-testid=job-verdict]`);
    const want = (await api(`/api/v1/jobs/${id}`)).body.verdict;
    if (st !== 'done' || !want || v !== want.replace('_', ' ')) bad.push(`#${id}: ${st}/${v} (API: ${want})`);
  }
  return bad.length ? bad.join(', ') : true;
});
await check('list: each finished job shows its change, the API\'s first comparison', async () => {
  const bad = [];
  for (const id of [JOB.cache, JOB.slow1, JOB.slow2]) {
    const got = await text(`tr[data-job-id="${id}"] [data-testid=job-change]`);
    const list = (await api('/api/v1/jobs?limit=100')).body.jobs;
    const c = list.find((j) => String(j.id) === String(id)).compare.comparisons[0];
    const want = (c.change > 0 ? '+' : '') + (100 * c.change).toFixed(2) + '%';
    if (got !== want) bad.push(`#${id}: "${got}", API ${want}`);
  }
  return bad.length ? bad.join(', ') : true;
});
await check('list: the injected slowdown reads "slower", coloured', async () => {
  const cls = await page.$eval(`tr[data-job-id="${JOB.slow1}"] [data-testid=job-verdict] .badge`, (e) => e.className);
  const color = await page.$eval(`tr[data-job-id="${JOB.slow1}"] [data-testid=job-verdict] .badge`,
    (e) => getComputedStyle(e).backgroundColor);
  return (cls.includes('verdict-slower') && color !== 'rgba(0, 0, 0, 0)') || `${cls} ${color}`;
});
await check('list: the running job shows state running and a progress bar', async () => {
  const st = await text(`tr[data-job-id="${JOB.running}"] [data-testid=job-state]`);
  const bar = await page.$(`tr[data-job-id="${JOB.running}"] [role=progressbar]`);
  return (st === 'running' && bar !== null) || `state ${st}`;
});
await check('list: markup in a job name is shown as text', async () => {
  const r = await page.$eval(`tr[data-job-id="${JOB.html}"] td.name`, (td) => ({
    text: td.textContent, imgs: td.querySelectorAll('img, b').length,
  }));
  return (r.text === '<img src="/escape-probe.png" alt="x"><b>bold</b>' && r.imgs === 0) || JSON.stringify(r);
});
await check('list: the running job\'s progress changes live', async () => {
  const sel = `tr[data-job-id="${JOB.running}"] [data-testid=job-progress]`;
  const first = await text(sel);
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline) {
    await page.waitForTimeout(500);
    const now = await text(sel);
    if (now !== first) return true;
  }
  return `still "${first}" after 8 s`;
});
await shot('list');

await check('list: the state filter shows only done jobs', async () => {
  where = 'list-done';
  await page.selectOption('[data-testid=state-filter]', 'done');
  await page.waitForFunction(() => location.hash === '#/?state=done');
  await page.waitForFunction((id) => !document.querySelector(`tr[data-job-id="${id}"]`), JOB.running);
  // the list re-renders when the filter changes: a snapshot taken while
  // its rows are replaced sees none, so wait for the filtered rows (and
  // report what was shown if they never come)
  const done = (sel) => {
    const s = [...document.querySelectorAll(sel)].map((t) => t.textContent.trim());
    return s.length >= 4 && s.every((x) => x === 'done');
  };
  try {
    await page.waitForFunction(done, '[data-testid=job-state]', { timeout: 5000 });
  } catch (e) { /* fall through: the states below say what was shown */ }
  const states = await page.$$eval('[data-testid=job-state]', (tds) => tds.map((t) => t.textContent.trim()));
  return (states.length >= 4 && states.every((s) => s === 'done')) || `states [${states.join(',')}]`;
});
await shot('list-done');

// ---- the fleet: the Host column, the host filter, the hosts page ----------
await go('#/', 'list-hosts');
await check('list: the Host column shows the claimer, else the addressee', async () => {
  await page.waitForSelector(`tr[data-job-id="${JOB.ghost}"] [data-testid=job-host]`);
  const bad = [];
  const list = (await api('/api/v1/jobs?limit=100')).body.jobs;
  for (const id of [JOB.cache, JOB.running, JOB.ghost]) {
    const j = list.find((x) => String(x.id) === String(id));
    const got = await text(`tr[data-job-id="${id}"] [data-testid=job-host]`);
    const want = id === JOB.ghost ? 'ghost-1' : HOST_SELF;
    if (got !== want || got !== (j.claimed_by || j.for_host || 'any')) bad.push(`#${id}: "${got}", want ${want}`);
  }
  return bad.length ? bad.join(', ') : true;
});
await check('list: the host filter lists the hosts and shows only ghost-1\'s job', async () => {
  where = 'list-host-filter';
  await page.waitForSelector('[data-testid=host-filter] option[value="ghost-1"]', { state: 'attached' });
  await page.selectOption('[data-testid=host-filter]', 'ghost-1');
  await page.waitForFunction(() => location.hash === '#/?host=ghost-1');
  await page.waitForFunction((id) => !document.querySelector(`tr[data-job-id="${id}"]`), JOB.cache);
  await page.waitForSelector(`tr[data-job-id="${JOB.ghost}"]`);
  const ids = await page.$$eval('[data-testid=job-row]', (trs) => trs.map((t) => t.dataset.jobId));
  const want = (await api('/api/v1/jobs?host=ghost-1')).body.jobs.map((j) => String(j.id));
  return (JSON.stringify(ids) === JSON.stringify(want) && ids.length === 1 && ids[0] === String(JOB.ghost)) ||
    `page ${ids}, API ${want}`;
});
await check('list: host and state filters combine (running on this daemon: the long job)', async () => {
  await page.selectOption('[data-testid=host-filter]', HOST_SELF);
  await page.waitForFunction((h) => location.hash === '#/?host=' + h, HOST_SELF);
  await page.selectOption('[data-testid=state-filter]', 'running');
  await page.waitForFunction((h) => location.hash === '#/?state=running&host=' + h, HOST_SELF);
  await page.waitForFunction((id) => !document.querySelector(`tr[data-job-id="${id}"]`), JOB.cache);
  const ids = await page.$$eval('[data-testid=job-row]', (trs) => trs.map((t) => t.dataset.jobId));
  return (ids.length === 1 && ids[0] === String(JOB.running)) || `rows ${ids}`;
});
await shot('list-host');

await go('#/hosts', 'hosts');
const hostsDoc = (await api('/api/v1/hosts')).body;
await check('hosts: one row per registered daemon, by name', async () => {
  await page.waitForSelector('[data-testid=host-row]');
  const names = await page.$$eval('[data-testid=host-row]', (trs) => trs.map((t) => t.dataset.host));
  const want = hostsDoc.hosts.map((h) => h.name);
  return (JSON.stringify(names) === JSON.stringify(want) && names.includes('ghost-1') && names.includes(HOST_SELF)) ||
    `page ${names}, API ${want}`;
});
await check('hosts: this daemon is fresh, with its kernel, CPU and running job linked', async () => {
  const me = hostsDoc.hosts.find((h) => h.name === HOST_SELF);
  // the registry's running job is the heartbeat's (every second here)
  await page.waitForFunction((sel) => document.querySelector(sel),
    `tr[data-host="${HOST_SELF}"] [data-testid=host-running] a[href="#/job/${JOB.running}"]`, { timeout: 5000 })
    .catch(() => null);
  const r = await page.$eval(`tr[data-host="${HOST_SELF}"]`, (tr) => ({
    cells: Array.from(tr.children).map((c) => c.textContent.trim()),
    stale: !!tr.querySelector('[data-testid=host-stale]'),
    run: (tr.querySelector('[data-testid=host-running] a') || {}).hash || null,
  }));
  return (!r.stale && r.cells[2] === me.kernel && me.kernel && r.cells[3].includes(me.host.cpu_model || '') &&
    /(just now|s ago)$/.test(r.cells[1]) && r.run === `#/job/${JOB.running}`) || JSON.stringify(r);
});
await check('hosts: the running cell links each of running_jobs', async () => {
  const me = (await api('/api/v1/hosts')).body.hosts.find((h) => h.name === HOST_SELF);
  const links = await page.$$eval(`tr[data-host="${HOST_SELF}"] [data-testid=host-running] a`, (as) => as.map((a) => a.hash));
  return (me.running_jobs.length >= 1 && JSON.stringify(links) === JSON.stringify(me.running_jobs.map((id) => '#/job/' + id))) ||
    `page ${links}, API ${me.running_jobs}`;
});
await check('hosts: ghost-1, seen an hour ago, is marked stale, with its devices', async () => {
  const r = await page.$eval('tr[data-host="ghost-1"]', (tr) => ({
    cells: Array.from(tr.children).map((c) => c.textContent.trim()),
    stale: !!tr.querySelector('[data-testid=host-stale]'), cls: tr.className,
    bg: getComputedStyle(tr.querySelector('td')).backgroundColor,
  }));
  return (r.stale && r.cls.includes('stale') && r.bg !== 'rgba(0, 0, 0, 0)' && /^1 h ago/.test(r.cells[1]) &&
    r.cells[2] === '6.1.0-ghost' && r.cells[4].includes('nvme9n1 (Ghost SSD)') && r.cells[5] === 'idle') ||
    JSON.stringify(r);
});
await shot('hosts');
await check('hosts: a host\'s name leads to its jobs', async () => {
  where = 'hosts-link';
  await page.click('tr[data-host="ghost-1"] th a');
  await page.waitForFunction(() => location.hash === '#/?host=ghost-1');
  await page.waitForSelector(`tr[data-job-id="${JOB.ghost}"]`);
  return true;
});

await go(`#/job/${JOB.ghost}`, 'job-ghost');
await check('job: a queued addressed job shows its host, no claimer', async () => {
  await page.waitForSelector('[data-testid=job-fleet] [data-testid=job-for-host]');
  const f = await text('[data-testid=job-for-host]');
  const c = await text('[data-testid=job-claimed-by]');
  return (f === 'ghost-1' && c === 'none') || `for ${f}, claimed by ${c}`;
});

// ---- a group: one job on several hosts ----------------------------------
await go('#/', 'list-group');
await check('list: a group\'s parent has a "group" badge, its job "@host, group N"', async () => {
  await page.waitForSelector(`tr[data-job-id="${JOB.group}"] [data-testid=job-group]`);
  const badge = await text(`tr[data-job-id="${JOB.group}"] [data-testid=job-group]`);
  const mark = await text(`tr[data-job-id="${JOB.child}"] [data-testid=job-group-of]`);
  const href = await page.$eval(`tr[data-job-id="${JOB.child}"] [data-testid=job-group-of] a`, (a) => a.hash);
  return (badge === 'group' && mark === `@${HOST_SELF}, group ${JOB.group}` && href === `#/job/${JOB.group}`) ||
    `badge "${badge}", mark "${mark}" -> ${href}`;
});
await go(`#/job/${JOB.group}`, 'job-group');
const groupDoc = (await api(`/api/v1/jobs/${JOB.group}`)).body;
const groupCmp = (await api(`/api/v1/jobs/${JOB.group}/compare`)).body;
await check('group: the parent\'s page lists its jobs, one per host, linked', async () => {
  await page.waitForSelector('[data-testid=group-children] tbody tr');
  const rows = await page.$$eval('[data-testid=group-children] tbody tr', (trs) => trs.map((tr) => ({
    host: tr.children[0].textContent.trim(), job: tr.querySelector('a').hash, state: tr.children[2].textContent.trim(),
  })));
  const want = groupDoc.children.map((k) => ({ host: k.host, job: '#/job/' + k.id, state: k.state }));
  const hosts = await text('[data-testid=job-group-hosts]');
  return (groupDoc.children.length === 2 && JSON.stringify(rows) === JSON.stringify(want) &&
    hosts === groupDoc.children.map((k) => k.host).join(', ')) ||
    `page ${JSON.stringify(rows)} on "${hosts}", API ${JSON.stringify(want)}`;
});
await check('group: per-host rows and the combined line with the pooled change', async () => {
  await page.waitForSelector('[data-testid=group-compare] [data-testid=group-combined]');
  const mine = groupCmp.rows.find((r) => r.host === HOST_SELF && r.variant === 'B');
  const comb = groupCmp.combined.find((c) => c.variant === 'B');
  const row = await page.$eval(`[data-testid=group-row][data-host="${HOST_SELF}"]`,
    (tr) => Array.from(tr.children).map((c) => c.textContent.trim()));
  const pooled = await page.$eval('[data-testid=group-combined]',
    (tr) => Array.from(tr.children).map((c) => c.textContent.trim()));
  const ghost = await text('[data-testid=group-row][data-host="ghost-2"]');
  const note = await text('[data-testid=group-combined-text]');
  const disagree = await page.$$('[data-testid=group-disagree]');
  const pct = (v) => (v > 0 ? '+' : '') + (100 * v).toFixed(1) + '%';
  return (mine && comb && comb.pooled && row[3] === pct(mine.change) && row[1] === '#' + mine.job_id &&
    pooled[3] === pct(comb.pooled.change) && pooled[4].includes(pct(comb.pooled.ci_lo)) &&
    ghost.includes('no comparison yet') && note.includes('pooled ' + pct(comb.pooled.change)) &&
    disagree.length === (comb.disagree ? 1 : 0)) ||
    `row ${row}, combined ${pooled}, ghost "${ghost}", note "${note}", API ${JSON.stringify(groupCmp.combined)}`;
});
await check('group: the single-job verdict and charts are not shown', async () =>
  (await page.$eval('[data-testid=verdict-card]', (e) => e.offsetParent === null)) || 'verdict card visible');
await shot('job-group');
await go(`#/job/${JOB.child}`, 'job-child');
await check('group: a host\'s job links to its group', async () => {
  await page.waitForSelector('[data-testid=job-group-link]');
  const href = await page.$eval('[data-testid=job-group-link]', (a) => a.hash);
  return href === `#/job/${JOB.group}` || href;
});

await go(`#/job/${JOB.running}`, 'job-running-fleet');
await check('job: a running job shows its claimer and lease', async () => {
  await page.waitForSelector('[data-testid=job-lease]');
  const doc = (await api(`/api/v1/jobs/${JOB.running}`)).body;
  const t = await text('[data-testid=job-fleet]');
  const c = await text('[data-testid=job-claimed-by]');
  return (c === HOST_SELF && doc.claimed_by === HOST_SELF && doc.lease_until && /lease until \d{4}-/.test(t)) || t;
});

// ---- a model A/B: says it switches the model, not the kernel --------------
await go(`#/job/${JOB.cache}`, 'job');
await check('job: a bio_cache A/B says it switches the userspace model, not the kernel', async () => {
  await page.waitForSelector('[data-testid=scope]');
  const t = await text('[data-testid=scope]');
  return (/userspace model of the bio path, not the kernel/.test(t) && /Bio puts in: A hardirq, B hardirq/.test(t)) || t;
});

// ---- a finished job ------------------------------------------------------
await go(`#/job/${JOB.slow1}`, 'job');
const cmp = (await api(`/api/v1/jobs/${JOB.slow1}/compare`)).body;
const jobDoc = (await api(`/api/v1/jobs/${JOB.slow1}`)).body;
await check('job: the verdict text from the API', async () => {
  await page.waitForSelector('[data-testid=verdict-text]');
  const t = await text('[data-testid=verdict-text]');
  const want = cmp.compare.comparisons[0].text;
  return (t === want && /slower/.test(t)) || `page "${t}", API "${want}"`;
});
await check('job: the CI is labelled with its real coverage (the API\'s ci_label)', async () => {
  const t = await text('[data-testid=ci-label]');
  const want = cmp.compare.comparisons[0].ci_label;
  return (want && /% (sequential )?CI$/.test(want) && t.startsWith(want + ' ')) || `page "${t}", API "${want}"`;
});
await check('job: the scope says what the job measures (the API\'s scope.note)', async () => {
  const t = await text('[data-testid=scope]');
  const want = cmp.compare.scope && cmp.compare.scope.note;
  return (want && t.includes(want) && /workload differs/.test(want)) || `page "${t}", API "${want}"`;
});
await chartDrawn('[data-testid=runs-chart]', 'job: per-run chart');
await chartDrawn('[data-testid=ci-chart]', 'job: change/CI chart');
await chartDrawn('[data-testid=latency-chart]', 'job: latency chart');
await check('job: title, spec, host and device metadata', async () => {
  const title = await text('[data-testid=job-title]');
  const spec = await text('[data-testid=job-spec]');
  const body = await page.textContent('main');
  const bad = [];
  if (title !== jobDoc.name) bad.push(`title "${title}"`);
  if (!spec.includes('"inject_ns": 1500')) bad.push('spec without inject_ns');
  if (jobDoc.host && !body.includes(jobDoc.host.kernel)) bad.push('no kernel');
  if (jobDoc.device && !body.includes(jobDoc.device.kind)) bad.push('no device kind');
  return bad.length ? bad.join(', ') : true;
});
await check('job: latency percentiles and counters per variant', async () => {
  const body = await page.textContent('main');
  const bad = [];
  for (const k of ['p50', 'p99.9', 'alloc_hit', 'checks']) if (!body.includes(k)) bad.push(k);
  return bad.length ? 'missing ' + bad.join(', ') : true;
});
await check('job: Chart.js came from the daemon\'s /javascript/', async () =>
  requested.some((p) => p.startsWith('/javascript/chart.js/')) || 'not requested');
await shot(`job-${JOB.slow1}`);

await go(`#/job/${JOB.cache}`, 'job-cache');
await chartDrawn('[data-testid=runs-chart]', 'job (cache off vs all): per-run chart');
await shot(`job-${JOB.cache}`);

await check('job: one change figure, the verdict\'s (Hodges-Lehmann), in the per-variant table too', async () => {
  const want = (await api(`/api/v1/jobs/${JOB.cache}/compare`)).body.compare.comparisons[0].change;
  const fmt = (v) => (v > 0 ? '+' : '') + (100 * v).toFixed(2) + '%';
  const row = await page.$$eval('.card table.data tbody tr', (trs) => trs.map((tr) => tr.textContent));
  const note = await text('[data-testid=summary-note]');
  return (row.some((t) => t.startsWith('B') && t.endsWith(fmt(want))) && /Hodges–Lehmann/.test(note) &&
    /not the ratio of the two medians/.test(note)) || `rows ${row.join(' | ')}; note "${note}"`;
});

// ---- a file job: the device card in words ---------------------------------
await go(`#/job/${JOB.file}`, 'job-file');
await check('file job: the device card names the disk, in words, not JSON', async () => {
  await page.waitForSelector('[data-testid=device-kv]');
  const doc = (await api(`/api/v1/jobs/${JOB.file}`)).body;
  const t = await text('[data-testid=device-kv]');
  const card = await page.$eval('[data-testid=device-kv]', (dl) => dl.parentElement.textContent);
  const bad = [];
  if (!doc.device || !doc.device.disk) bad.push('the API has no flat device.disk: ' + JSON.stringify(doc.device));
  else if (!t.includes(doc.device.disk)) bad.push(`no disk ${doc.device.disk}`);
  if (!t.includes('file ')) bad.push('no "file" target');
  if (/[{}]|\\\//.test(card)) bad.push('raw JSON in the card: ' + card.slice(0, 200));
  if (!card.includes('Queue limits')) bad.push('no queue limits');
  return bad.length ? bad.join('; ') : true;
});
await shot(`job-${JOB.file}`);

// ---- a disturbed job: the warning, and the marked points -----------------
await go(`#/job/${JOB.disturbed}`, 'job-disturbed');
await check('disturbed job: the page repeats the warning, naming the culprit', async () => {
  await page.waitForSelector('[data-testid=disturbed-warning]');
  const t = await text('[data-testid=disturbed-warning]');
  // the culprit named is the biggest consumer of the CPU at the time:
  // the busy loop, or whatever else a loaded host runs there
  return (/measured runs? (was|were) disturbed/.test(t) && /run \d+ \([AB], round \d\): CPU \d+ \d+ % busy/.test(t)) || t;
});
await check('disturbed job: its points are marked on the per-run chart', async () => {
  await page.waitForSelector('[data-testid=runs-chart]');
  const r = await page.$eval('[data-testid=runs-chart]', (c) => {
    const ch = window.Chart.getChart(c);
    return ch.data.datasets.flatMap((d) => (Array.isArray(d.pointStyle) ? d.pointStyle : [])).filter((s) => s === 'crossRot').length;
  });
  const note = await text('.card.span-2 .note');
  return (r >= 1 && /× marks a disturbed run/.test(note)) || `${r} marked; note "${note}"`;
});
await shot(`job-${JOB.disturbed}`);

// ---- the running job -----------------------------------------------------
await go(`#/job/${JOB.running}`, 'job-running');
await check('running job: progress changes on the page', async () => {
  await page.waitForSelector('[data-testid=progress-text]');
  await page.waitForFunction(() => document.querySelector('[data-testid=progress-text]').textContent.length > 0);
  const bar = '[data-testid=job-progress-card] [role=progressbar]';
  const first = await page.$eval(bar, (b) => b.getAttribute('aria-valuenow'));
  const firstText = await text('[data-testid=progress-text]');
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    await page.waitForTimeout(500);
    const now = await page.$eval(bar, (b) => b.getAttribute('aria-valuenow'));
    if (now !== first && Number(now) > Number(first)) {
      console.log(`  runs done ${first} -> ${now}; "${firstText}" -> "${await text('[data-testid=progress-text]')}"`);
      return true;
    }
  }
  return `runs done still ${first} after 10 s`;
});
await chartDrawn('[data-testid=runs-chart]', 'running job: per-run chart grows');
await check('running job (blocked: no comparison yet): the measured runs are shown, not "No measured run yet"', async () => {
  const card = async () => page.$eval('[data-testid=summary-note]', (n) => n.closest('section').textContent).catch(() => '');
  const deadline = Date.now() + 10000;
  let t = '';
  while (Date.now() < deadline) {
    t = await card();
    if (/From the measured runs finished so far/.test(t)) break;
    await page.waitForTimeout(500);
  }
  const v = await text('[data-testid=verdict-card]');
  return (/From the measured runs finished so far/.test(t) && !/No measured run/.test(t) &&
    /measured runs? finished so far/.test(v)) || `summary "${t.slice(0, 200)}"; verdict "${v.slice(0, 200)}"`;
});
await shot('job-running');

// ---- bad job ids -----------------------------------------------------------
for (const [id, title, msg] of [['999999', 'Job not found', 'no job 999999'], ['abc', 'Bad job id', "'abc'"]]) {
  await go(`#/job/${id}`, 'bad-' + id);
  await check(`bad id ${id}: an error page with the API's message`, async () => {
    await page.waitForSelector('[data-testid=error-page]');
    const h = await text('[data-testid=error-page] h1');
    const m = await text('[data-testid=error-message]');
    return (h === title && m.includes(msg)) || `"${h}" / "${m}"`;
  });
  await shot(`job-${id}`);
}

// ---- history ---------------------------------------------------------------
await go('#/history', 'history');
await check('history: the workloads are listed', async () => {
  await page.waitForSelector('[data-testid=workloads-table]');
  const t = await text('[data-testid=workloads-table]');
  return (t.includes('inject 1500ns in B') && t.includes('nop cache off vs all')) || t.slice(0, 200);
});
await shot('history');
await check('history: a workload links to its page', async () => {
  await page.click('[data-testid=workloads-table] a:text-is("inject 1500ns in B")');
  await page.waitForSelector('[data-testid=history-table]');
  return true;
});
where = 'history-workload';
await check('history: both jobs of the workload, with kernel and change', async () => {
  const rows = await page.$$eval('[data-testid=history-table] tbody tr', (trs) => trs.map((tr) => tr.textContent));
  const kernel = jobDoc.host ? jobDoc.host.kernel : '';
  const bad = [];
  for (const id of [JOB.slow1, JOB.slow2]) {
    const r = rows.find((t) => t.startsWith('#' + id));
    if (!r) bad.push(`no row for #${id}`);
    else if (!r.includes(kernel) || !r.includes('slower') || !/%/.test(r) || !/% (sequential )?CI /.test(r))
      bad.push(`row #${id}: ${r}`);
  }
  return bad.length ? bad.join('; ') : true;
});
await chartDrawn('[data-testid=history-chart]', 'history: change/CI chart');
await chartDrawn('[data-testid=history-medians]', 'history: medians chart');
await shot('history-workload');

// ---- compare jobs ----------------------------------------------------------
// From History: tick the workload's two jobs, one a side.
where = 'compare-ticked';
{
  const lo = Math.min(Number(JOB.slow1), Number(JOB.slow2));
  const hi = Math.max(Number(JOB.slow1), Number(JOB.slow2));
  await check('history: ticking a job on each side opens their comparison', async () => {
    await page.check(`[data-testid=compare-ticker] input[data-testid=compare-tick-base][value="${lo}"]`);
    const disabled = await page.$eval('[data-testid=compare-ticked]', (b) => b.disabled);
    if (!disabled) return 'the button is enabled with one side ticked';
    await page.check(`[data-testid=compare-ticker] input[data-testid=compare-tick-other][value="${lo}"]`);
    const both = await page.$eval('[data-testid=compare-ticked]', (b) => b.disabled);
    const note = await text('[data-testid=compare-ticker]');
    if (!both || !note.includes('on both sides')) return 'a job on both sides is not refused: ' + note.slice(0, 200);
    await page.uncheck(`[data-testid=compare-ticker] input[data-testid=compare-tick-other][value="${lo}"]`);
    await page.check(`[data-testid=compare-ticker] input[data-testid=compare-tick-other][value="${hi}"]`);
    const one = await text('[data-testid=compare-ticker]');
    if (!one.includes('one job a side gives no verdict')) return 'no note on one job a side: ' + one.slice(0, 200);
    await page.click('[data-testid=compare-ticked]');
    await page.waitForFunction((want) => location.hash === want, `#/compare?base=${lo}&with=${hi}`);
    await page.waitForSelector('[data-testid=compare-verdict-text]');
    return true;
  });
  const doc = (await api(`/api/v1/compare?base=${lo}&with=${hi}`)).body;
  await check('compare: one job a side is no verdict, and the page says why, as the API does', async () => {
    const texts = await page.$$eval('[data-testid=compare-verdict-text]', (ps) => ps.map((p) => p.textContent));
    const want = doc.comparisons.filter((c) => !c.error).map((c) => c.text);
    const what = await page.$$eval('[data-testid=compare-verdict-what]', (ps) => ps.map((p) => p.textContent));
    const by = await page.$$eval('[data-testid=compare-by]', (ps) => ps.map((p) => p.textContent));
    if (JSON.stringify(what) !== JSON.stringify([`#${hi} A vs #${lo} A`, `#${hi} B vs #${lo} B`]))
      return `labels ${JSON.stringify(what)}`;
    if (!by.every((t) => t.startsWith('compared by job: 1 + 1 jobs'))) return `compared by ${JSON.stringify(by)}`;
    return (texts.length === 2 && JSON.stringify(texts) === JSON.stringify(want) &&
      texts.every((t) => t.startsWith('inconclusive: one job per side') && t.includes('more jobs each side needed'))) ||
      `page ${JSON.stringify(texts)}, API ${JSON.stringify(want)}`;
  });
  await check('compare: no CI with one job a side', async () => {
    const t = await text('[data-testid=compare-ci-label]');
    return t.startsWith('no CI: one job a side') || `page "${t}"`;
  });
  await check('compare: the boots statement and each side\'s noise floor', async () => {
    const b = await text('[data-testid=compare-boots]');
    const body = await text('[data-testid=compare-boots-card]');
    return (b === doc.boots.statement && /the job is the unit/.test(b) && body.includes('±')) || b;
  });
  await chartDrawn('[data-testid=compare-runs-chart][data-variant=B]', 'compare: runs of B per job');
  await shot('compare-history');
  // the runs instead, asked for: a verdict the page says what it assumes of
  const run = (await api(`/api/v1/compare?base=${lo}&with=${hi}&level=run`)).body;
  await check('compare: "compare the runs instead" shows the run-level verdict and its assumption', async () => {
    await page.click('[data-testid=compare-level-link]');
    await page.waitForFunction((want) => location.hash === want, `#/compare?base=${lo}&with=${hi}&level=run`);
    await page.waitForSelector('[data-testid=compare-assumes]');
    const texts = await page.$$eval('[data-testid=compare-verdict-text]', (ps) => ps.map((p) => p.textContent));
    const want = run.comparisons.filter((c) => !c.error).map((c) => c.text);
    const a = await text('[data-testid=compare-assumes]');
    const t = await text('[data-testid=compare-ci-label]');
    return (JSON.stringify(texts) === JSON.stringify(want) && a.includes('no job-to-job or boot-to-boot variance') &&
      t.startsWith(run.comparisons[0].ci_label + ' ')) || `page ${JSON.stringify(texts)} "${a}" "${t}"`;
  });
  await chartDrawn('[data-testid=ci-chart]', 'compare (run level): change/CI chart');
  await shot('compare-runs');
}

// From a job page: "Compare with…" another job; what differs is highlighted.
await go(`#/job/${JOB.cache}`, 'compare-with');
await check('job: "Compare with…" opens the comparison with that job', async () => {
  await page.fill('[data-testid=compare-with-input]', String(JOB.slow1));
  await page.click('[data-testid=compare-with-button]');
  await page.waitForFunction((want) => location.hash === want, `#/compare?base=${JOB.cache}&with=${JOB.slow1}`);
  await page.waitForSelector('[data-testid=compare-diff]');
  return true;
});
await check('compare: the highlighted diff rows name what changed (inject_ns in B)', async () => {
  const row = await page.$eval('[data-testid=compare-diff] tr[data-key="config.inject_ns"][data-variant="B"]', (tr) => ({
    cls: tr.className, bg: getComputedStyle(tr).backgroundColor,
    cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent),
  }));
  const same = await page.$eval('[data-testid=compare-diff] tr[data-key="config.bs"]', (tr) => ({
    cls: tr.className, shown: getComputedStyle(tr).display !== 'none',
  }));
  return (row.cls.includes('differs') && row.bg !== 'rgba(0, 0, 0, 0)' &&
    JSON.stringify(row.cells) === '["0","1500"]' && !same.cls.includes('differs') && !same.shown) ||
    JSON.stringify({ row, same });
});
await check('compare: the equal config rows show on request', async () => {
  await page.click('[data-testid=compare-diff-toggle]');
  return page.$eval('[data-testid=compare-diff] tr[data-key="config.bs"]', (tr) => getComputedStyle(tr).display !== 'none');
});
await chartDrawn('[data-testid=compare-runs-chart][data-variant=A]', 'compare (job page): runs of A per job');
await shot('compare-job');

// ---- what the pages did ----------------------------------------------------
const expected404 = (e) => e.type === 'error' && /^bad-/.test(e.where) &&
  /Failed to load resource: the server responded with a status of (404|400)/.test(e.text) &&
  /\/api\/v1\/jobs\/(999999|abc)$/.test(e.url);
const unexpected = consoleErrors.filter((e) => !expected404(e));
ok(unexpected.length === 0, 'no console errors or warnings',
  unexpected.map((e) => `[${e.where}] ${e.type}: ${e.text} ${e.url}`).join(' | '));
ok(failedRequests.length === 0, 'no failed requests',
  failedRequests.map((r) => `[${r.where}] ${r.url} (${r.why})`).join(' | '));
ok(foreign.length === 0, 'nothing requested from another host', foreign.join(' '));
ok(!requested.includes('/escape-probe.png'), 'no markup from the API was rendered');

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
