// SPDX-License-Identifier: GPL-2.0-only
/* biobench dashboard: a small single-page app over biobenchd's JSON API.
 *
 * Routes (in the URL fragment):
 *   #/                      jobs list (?state=done, ?host=NAME filter),
 *                           live
 *   #/hosts                 the fleet: the daemons sharing the store
 *   #/job/ID                one job: runs, comparison, latency, counters,
 *                           spec, host and device; live while it runs
 *   #/history               the workloads (job names) with finished jobs
 *   #/history?name=N        one workload's results over time and kernels
 *   #/compare?base=ID[,ID...]&with=ID[,ID...][&with=...][&level=run]
 *                           jobs against jobs, variant by variant, the job
 *                           (or boot) as the unit; a side is one job or
 *                           several (from a job page's "Compare with…" or
 *                           History's ticks)
 *
 * Every text that comes from the API is put in the page with textContent
 * (the el() helper), never as HTML.  Charts: Chart.js from Debian's
 * libjs-chart.js, served by the daemon under /javascript/. */
'use strict';

(function () {
  const POLL_MS = 1500;
  const STATES = ['queued', 'running', 'rebooting', 'done', 'failed', 'cancelled', 'interrupted'];
  const ACTIVE = new Set(['queued', 'running', 'rebooting']);
  /* a daemon's heartbeat comes every third of its lease (60 s by
   * default: every 20 s); not seen for longer than this, it is stale */
  const STALE_S = 120;
  /* a host name as the fleet spells them (bb_host_name_check) */
  const HOST_RE = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  const VARIANT_COLORS = ['#2563eb', '#ea580c', '#16a34a', '#9333ea',
                          '#0891b2', '#db2777', '#65a30d', '#78716c'];
  const VERDICT_COLORS = {
    faster: '#15803d', slower: '#b91c1c', no_change: '#475569',
    inconclusive: '#b45309',
  };
  const VERDICT_TEXT = {
    faster: 'faster', slower: 'slower', no_change: 'no change',
    inconclusive: 'inconclusive', disagree: 'hosts disagree', mixed: 'mixed',
  };

  /* ---- DOM helpers -------------------------------------------------- */

  /* el('a', {href: '#/', class: 'x'}, 'text', child...): children are
   * nodes or strings (text nodes); null/undefined/false are skipped. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k.startsWith('on') && typeof v === 'function')
        e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function setText(node, text) {
    const t = text === null || text === undefined ? '' : String(text);
    if (node.textContent !== t) node.textContent = t;
  }

  /* ---- formatting --------------------------------------------------- */

  function num(v) {
    return typeof v === 'number' && Number.isFinite(v);
  }

  function fmtSig(v) {
    const a = Math.abs(v);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    if (a === 0) return '0';
    return v.toPrecision(3);
  }

  /* IOPS and counts by biobench's one rule (bb_fmt_iops in the CLI): an
   * integer below 1000, then 80.4K, 100.9K, 8.90M, 1.23G. */
  function si(v) {
    if (!num(v)) return '—';
    const a = Math.abs(v);
    if (a < 999.5) return v.toFixed(0);
    if (a < 999950) return (v / 1e3).toFixed(1) + 'K';
    if (a < 999995000) return (v / 1e6).toFixed(2) + 'M';
    return (v / 1e9).toFixed(2) + 'G';
  }

  /* nanoseconds -> "43.3 µs" */
  function fmtNs(v) {
    if (!num(v)) return '—';
    const a = Math.abs(v);
    if (a >= 1e9) return fmtSig(v / 1e9) + ' s';
    if (a >= 1e6) return fmtSig(v / 1e6) + ' ms';
    if (a >= 1e3) return fmtSig(v / 1e3) + ' µs';
    return fmtSig(v) + ' ns';
  }

  function fmtBytes(v) {
    if (!num(v)) return '—';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return fmtSig(v) + ' ' + units[i];
  }

  /* Axis ticks: 9000000 -> "9M", 2500 -> "2.5K" (no padding zeros; the
   * suffixes of si()). */
  function siTick(v) {
    if (!num(v)) return '';
    const a = Math.abs(v);
    for (const [d, s] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']])
      if (a >= d) return parseFloat((v / d).toPrecision(3)) + s;
    return String(parseFloat(v.toPrecision(3)));
  }

  function tickMetric(v, unit) {
    if (unit === 'ns' || unit === 'ns/IO') return fmtNs(v);
    return siTick(v) + (unit === 'B/s' ? 'B/s' : '');
  }

  /* A value of the job's metric, in its unit. */
  function fmtMetric(v, unit) {
    if (!num(v)) return '—';
    if (unit === 'ns') return fmtNs(v);
    if (unit === 'ns/IO') return fmtNs(v) + '/IO';
    if (unit === 'B/s') return fmtBytes(v) + '/s';
    return si(v) + ' ' + (unit || '');
  }

  function fmtInt(v) {
    return num(v) ? Math.round(v).toLocaleString('en-US') : '—';
  }

  function fmtPct(frac, digits) {
    if (!num(frac)) return '—';
    const p = frac * 100;
    return (p > 0 ? '+' : '') + p.toFixed(digits === undefined ? 1 : digits) + '%';
  }

  function fmtP(p) {
    if (!num(p)) return '—';
    return p < 0.001 ? '< 0.001' : p.toFixed(3);
  }

  function fmtDuration(s) {
    if (!num(s)) return '—';
    if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.round((s % 3600) / 60) + ' min';
  }

  function parseTime(iso) {
    const t = iso ? Date.parse(iso) : NaN;
    return Number.isFinite(t) ? t : null;
  }

  function fmtAge(iso) {
    const t = parseTime(iso);
    if (t === null) return '—';
    const s = Math.max(0, (Date.now() - t) / 1000);
    if (s < 5) return 'just now';
    if (s < 60) return Math.floor(s) + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    if (s < 86400) return Math.floor(s / 3600) + ' h ago';
    return Math.floor(s / 86400) + ' d ago';
  }

  /* "2026-11-30 04:59" in local time */
  function fmtDate(iso, seconds) {
    const t = parseTime(iso);
    if (t === null) return '—';
    const d = new Date(t);
    const p = (n) => String(n).padStart(2, '0');
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) +
      ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) +
      (seconds ? ':' + p(d.getSeconds()) : '');
  }

  function timeEl(iso, text) {
    return el('time', { datetime: iso || null, title: iso || null }, text);
  }

  function verdictBadge(v) {
    if (!v) return el('span', { class: 'muted' }, '—');
    return el('span', { class: 'badge verdict verdict-' + v.replace(/[^a-z_]/g, '') },
      VERDICT_TEXT[v] || v);
  }

  function stateBadge(s) {
    return el('span', { class: 'badge state state-' + String(s).replace(/[^a-z_]/g, '') }, s);
  }

  function variantColor(i) {
    return VARIANT_COLORS[i % VARIANT_COLORS.length];
  }

  function alpha(hex, a) {
    const n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  function median(xs) {
    const v = xs.filter(num).sort((a, b) => a - b);
    if (!v.length) return null;
    const m = v.length >> 1;
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  /* ---- API ---------------------------------------------------------- */

  class ApiError extends Error {
    constructor(status, code, message, field) {
      super(message);
      this.status = status;
      this.code = code;
      this.field = field;
    }
  }

  function token() {
    try { return localStorage.getItem('biobench.token') || ''; } catch (e) { return ''; }
  }

  async function api(path) {
    const headers = { Accept: 'application/json' };
    const t = token();
    if (t) headers.Authorization = 'Bearer ' + t;
    let r;
    try {
      r = await fetch(path, { headers, cache: 'no-store' });
    } catch (e) {
      throw new ApiError(0, 'unreachable', 'cannot reach biobenchd (' + e.message + ')');
    }
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) {
      const e = (body && body.error) || {};
      throw new ApiError(r.status, e.code || 'http_' + r.status,
        e.message || r.status + ' ' + r.statusText, e.field || null);
    }
    if (body === null) throw new ApiError(r.status, 'bad_json', path + ': the answer is not JSON');
    return body;
  }

  /* ---- views and their lifetime ------------------------------------ */

  /* A view owns its timers and charts; a route change stops them. */
  class View {
    constructor(root) {
      this.root = root;
      this.alive = true;
      this.timer = null;
      this.charts = [];
    }
    /* Run fn now and again POLL_MS after each run ends, while alive and
     * fn does not return false. */
    poll(fn) {
      const tick = async () => {
        if (!this.alive) return;
        let again = true;
        try {
          again = (await fn()) !== false;
          banner(null);
        } catch (e) {
          if (!this.alive) return;
          if (e instanceof ApiError && e.status === 401) { tokenForm(this.root, e); return; }
          banner('Live update failed: ' + e.message + ' (retrying)');
        }
        if (this.alive && again) this.timer = setTimeout(tick, POLL_MS);
      };
      return tick();
    }
    chart(canvas, config) {
      const c = new window.Chart(canvas, config);
      this.charts.push(c);
      return c;
    }
    stop() {
      this.alive = false;
      clearTimeout(this.timer);
      for (const c of this.charts) c.destroy();
      this.charts = [];
    }
  }

  let current = null;

  function banner(msg) {
    const b = document.getElementById('banner');
    if (!msg) { b.hidden = true; setText(b, ''); return; }
    setText(b, msg);
    b.hidden = false;
  }

  function route() {
    if (current) current.stop();
    banner(null);
    const hash = location.hash.replace(/^#/, '') || '/';
    const q = hash.indexOf('?');
    const path = q < 0 ? hash : hash.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
    const root = document.getElementById('view');
    root.replaceChildren();
    const view = current = new View(root);
    let m;
    let nav = '';
    if (path === '/' || path === '/jobs') {
      nav = 'jobs';
      jobsView(view, params);
    } else if ((m = /^\/job\/([^/]*)$/.exec(path))) {
      nav = 'jobs';
      jobView(view, decodeURIComponent(m[1]));
    } else if (path === '/hosts') {
      nav = 'hosts';
      hostsView(view);
    } else if (path === '/history') {
      nav = 'history';
      historyView(view, params);
    } else if (path === '/compare') {
      nav = 'history';
      compareView(view, params);
    } else {
      errorPage(view, 'Page not found',
        'There is no dashboard page "' + path + '".', null);
    }
    for (const a of document.querySelectorAll('nav [data-nav]')) {
      if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }

  function setTitle(t) {
    document.title = t ? t + ' · biobench' : 'biobench';
  }

  function errorPage(view, title, message, err) {
    setTitle(title);
    const box = el('section', { class: 'error-page', role: 'alert', 'data-testid': 'error-page' },
      el('h1', null, title),
      el('p', { class: 'error-message', 'data-testid': 'error-message' }, message),
      err && err.status ? el('p', { class: 'muted' },
        'HTTP ' + err.status + (err.code ? ' · ' + err.code : '')) : null,
      el('p', null, el('a', { href: '#/', class: 'button' }, '← All jobs')));
    view.root.replaceChildren(box);
  }

  function tokenForm(root, err) {
    setTitle('Token needed');
    const input = el('input', { type: 'password', id: 'token', autocomplete: 'off', size: 40 });
    const form = el('form', { class: 'card token-form' },
      el('h1', null, 'This daemon needs a bearer token'),
      el('p', null, err.message),
      el('p', { class: 'muted' },
        'The token is kept in this browser (localStorage) and sent with every API request.'),
      el('label', { for: 'token' }, 'Token '), input, ' ',
      el('button', { type: 'submit' }, 'Save'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      try { localStorage.setItem('biobench.token', input.value.trim()); } catch (e) { /* ignore */ }
      route();
    });
    root.replaceChildren(form);
  }

  function apiFailure(view, what, e) {
    if (e instanceof ApiError && e.status === 401) return tokenForm(view.root, e);
    errorPage(view, 'Cannot load ' + what, e.message, e);
  }

  /* ---- jobs list ---------------------------------------------------- */

  function progressBar(done, planned, label) {
    const pct = planned > 0 ? Math.min(100, (100 * done) / planned) : 0;
    const bar = el('div', {
      class: 'bar', role: 'progressbar', 'aria-valuemin': 0,
      'aria-valuemax': planned || 0, 'aria-valuenow': done || 0,
      'aria-label': label || 'runs done',
    }, el('div', { class: 'bar-fill', style: 'width:' + pct.toFixed(1) + '%' }));
    return bar;
  }

  function updateBar(bar, done, planned) {
    const pct = planned > 0 ? Math.min(100, (100 * done) / planned) : 0;
    bar.setAttribute('aria-valuenow', done || 0);
    bar.setAttribute('aria-valuemax', planned || 0);
    bar.firstChild.style.width = pct.toFixed(1) + '%';
  }

  /* The host of a job in the list: the daemon that claimed it, else the
   * one it is addressed to (queued), else any. */
  function jobHost(j) {
    if (j.group) return 'group';
    return j.claimed_by || j.for_host || 'any';
  }

  function jobsHash(state, host) {
    const q = new URLSearchParams();
    if (state) q.set('state', state);
    if (host) q.set('host', host);
    const t = q.toString();
    return t ? '#/?' + t : '#/';
  }

  function jobsView(view, params) {
    const state = STATES.includes(params.get('state')) ? params.get('state') : '';
    const host = HOST_RE.test(params.get('host') || '') ? params.get('host') : '';
    let limit = 100;
    setTitle(host ? 'Jobs of ' + host : 'Jobs');
    const select = el('select', { id: 'state-filter', 'data-testid': 'state-filter' },
      el('option', { value: '' }, 'all states'),
      STATES.map((s) => el('option', { value: s, selected: s === state }, s)));
    select.addEventListener('change', () => {
      location.hash = jobsHash(select.value, host);
    });
    /* the registered hosts (and the one asked for, registered or not) */
    const hostSelect = el('select', { id: 'host-filter', 'data-testid': 'host-filter' },
      el('option', { value: '' }, 'all hosts'),
      host ? el('option', { value: host, selected: true }, host) : null);
    hostSelect.addEventListener('change', () => {
      location.hash = jobsHash(state, hostSelect.value);
    });
    api('/api/v1/hosts').then((d) => {
      for (const h of d.hosts || [])
        if (h.name !== host) hostSelect.append(el('option', { value: h.name }, h.name));
    }).catch(() => { /* the list shows API errors; the filter keeps "all" */ });
    const count = el('span', { class: 'muted', 'aria-live': 'polite' });
    const tbody = el('tbody', { 'data-testid': 'jobs-body' },
      el('tr', null, el('td', { colspan: 9, class: 'muted' }, 'Loading…')));
    const more = el('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more');
    more.addEventListener('click', () => { limit = Math.min(500, limit + 100); refresh(); });
    view.root.append(
      el('div', { class: 'page-head' },
        el('h1', null, 'Jobs'),
        el('div', { class: 'tools' },
          el('label', { for: 'state-filter' }, 'State '), select,
          el('label', { for: 'host-filter' }, 'Host '), hostSelect, count)),
      el('div', { class: 'card flush' },
        el('table', { class: 'jobs', 'data-testid': 'jobs-table' },
          el('caption', { class: 'sr-only' }, 'Jobs, newest first; updated live'),
          el('thead', null, el('tr', null,
            el('th', { scope: 'col', class: 'num' }, 'ID'),
            el('th', { scope: 'col' }, 'Name'),
            el('th', { scope: 'col' }, 'Target'),
            el('th', { scope: 'col' }, 'State'),
            el('th', { scope: 'col' }, 'Host'),
            el('th', { scope: 'col', class: 'progress-col' }, 'Progress'),
            el('th', { scope: 'col', class: 'num' }, 'Change'),
            el('th', { scope: 'col' }, 'Verdict'),
            el('th', { scope: 'col' }, 'Created'))),
          tbody)),
      el('p', { class: 'center' }, more));

    const rows = new Map();   /* job id -> {tr, cells} */

    function makeRow(j) {
      const link = el('a', { href: '#/job/' + j.id });
      const nameLink = el('a', { href: '#/job/' + j.id });
      /* a group's parent: a badge; a child: its host and group */
      const groupMark = j.group ? el('span', { class: 'badge group-badge', 'data-testid': 'job-group' }, 'group')
        : num(j.group_id) ? el('span', { class: 'muted group-of', 'data-testid': 'job-group-of' },
          '@' + (j.for_host || '?') + ', ', el('a', { href: '#/job/' + j.group_id }, 'group ' + j.group_id))
          : null;
      const r = {
        tr: el('tr', { 'data-job-id': j.id, 'data-testid': 'job-row' }),
        id: el('td', { class: 'num' }, link),
        link, nameLink,
        name: el('td', { class: 'name' }, nameLink, groupMark ? ' ' : null, groupMark),
        target: el('td', { class: 'mono' }),
        state: el('td', { 'data-testid': 'job-state' }),
        host: el('td', { class: 'mono', 'data-testid': 'job-host' }),
        progress: el('td', { class: 'progress-col', 'data-testid': 'job-progress' }),
        change: el('td', { class: 'num nowrap', 'data-testid': 'job-change' }),
        verdict: el('td', { 'data-testid': 'job-verdict' }),
        age: el('td', { class: 'nowrap' }),
        key: {},
      };
      r.bar = progressBar(0, 0, 'runs done of job ' + j.id);
      r.ptext = el('span', { class: 'ptext' });
      r.progress.append(r.bar, r.ptext);
      r.tr.append(r.id, r.name, r.target, r.state, r.host, r.progress, r.change, r.verdict, r.age);
      return r;
    }

    function fillRow(r, j) {
      setText(r.link, '#' + j.id);
      setText(r.nameLink, j.name || '(unnamed)');
      r.nameLink.classList.toggle('muted', !j.name);
      setText(r.target, j.target);
      setText(r.host, jobHost(j));
      r.host.classList.toggle('muted', !j.claimed_by && !j.for_host);
      r.host.title = j.group ? 'a group: one job per host, each run there' : j.claimed_by ? 'claimed by ' + j.claimed_by +
        (j.for_host ? ' (addressed to ' + j.for_host + ')' : '')
        : j.for_host ? 'addressed to ' + j.for_host : 'any host may run it';
      if (r.key.state !== j.state) { r.state.replaceChildren(stateBadge(j.state)); r.key.state = j.state; }
      const verdictKey = j.verdict || (j.error ? 'error:' + j.error : '');
      if (r.key.verdict !== verdictKey) {
        r.verdict.replaceChildren(j.error && !j.verdict
          ? el('span', { class: 'error-text', title: j.error }, 'error')
          : verdictBadge(j.verdict));
        r.key.verdict = verdictKey;
      }
      /* the change of the first variant against the baseline: the
       * estimate the verdict is about (as `biobench jobs`) */
      const cs = (j.compare && j.compare.comparisons) || [];
      const c0 = cs.find((c) => num(c.change));
      setText(r.change, c0 ? fmtPct(c0.change, 2) + (cs.length > 1 ? ' +' + (cs.length - 1) : '') : '—');
      r.change.title = c0 ? c0.variant + ' vs ' + c0.baseline + ': ' + ciLabel(c0) + ' ' +
        fmtPct(c0.ci_lo) + ' .. ' + fmtPct(c0.ci_hi) : '';
      updateBar(r.bar, j.runs_done, j.runs_planned);
      r.bar.classList.toggle('live', j.state === 'running');
      let t = j.runs_done + ' / ' + j.runs_planned;
      if (j.progress && j.state === 'running' && num(j.progress.eta_s))
        t += ' · ETA ' + fmtDuration(j.progress.eta_s);
      setText(r.ptext, t);
      setText(r.age, fmtAge(j.created));
      r.age.title = j.created || '';
    }

    async function refresh() {
      const q = '/api/v1/jobs?limit=' + limit + (state ? '&state=' + state : '') +
        (host ? '&host=' + encodeURIComponent(host) : '');
      const d = await api(q);
      if (!view.alive) return false;
      const seen = new Set();
      const order = [];
      for (const j of d.jobs) {
        let r = rows.get(j.id);
        if (!r) { r = makeRow(j); rows.set(j.id, r); }
        fillRow(r, j);
        seen.add(j.id);
        order.push(r.tr);
      }
      for (const [id, r] of rows) if (!seen.has(id)) { r.tr.remove(); rows.delete(id); }
      if (!d.jobs.length) {
        tbody.replaceChildren(el('tr', null, el('td', { colspan: 9, class: 'empty' },
          state || host ? 'No ' + (state ? state + ' ' : '') + 'jobs' + (host ? ' of ' + host : '') + '.' :
            'No jobs yet. Submit one with: biobench submit examples/nop-bio-cache.json')));
      } else {
        /* keep the DOM order equal to the answer's (newest first) */
        const have = Array.from(tbody.children);
        if (have.length !== order.length || have.some((tr, i) => tr !== order[i]))
          tbody.replaceChildren(...order);
      }
      /* a group's parent runs through its jobs: not counted twice */
      const running = d.jobs.filter((j) => j.state === 'running' && !j.group).length;
      setText(count, d.jobs.length + (d.next_cursor !== null ? '+' : '') + ' jobs' +
        (running ? ' · ' + running + ' running' : ''));
      more.hidden = d.next_cursor === null || limit >= 500;
      return true;
    }

    view.poll(async () => {
      try {
        return await refresh();
      } catch (e) {
        if (rows.size) throw e;   /* keep the table, show the banner */
        apiFailure(view, 'the jobs', e);
        return false;
      }
    });
  }

  /* ---- hosts: the fleet ---------------------------------------------- */

  /* "nvme0n1 (Samsung ..., 1.0 TB)" for each registered device */
  function hostDevices(h) {
    const devs = (h.devices && h.devices.devices) || [];
    if (!devs.length) return '—';
    return devs.map((d) => (d.name || '?') +
      (d.model || num(d.size_bytes) ? ' (' + [d.model, num(d.size_bytes) ? fmtBytes(d.size_bytes) : null]
        .filter(Boolean).join(', ') + ')' : '')).join(', ');
  }

  /* The jobs a host runs (running_jobs; an older daemon's running_job). */
  function runningLinks(h) {
    const ids = Array.isArray(h.running_jobs) ? h.running_jobs : num(h.running_job) ? [h.running_job] : [];
    if (!ids.length) return [el('span', { class: 'muted' }, 'idle')];
    return ids.flatMap((id, i) => [i ? ', ' : null, el('a', { href: '#/job/' + id }, '#' + id)]).filter(Boolean);
  }

  function hostsView(view) {
    setTitle('Hosts');
    const count = el('span', { class: 'muted', 'aria-live': 'polite' });
    const tbody = el('tbody', { 'data-testid': 'hosts-body' },
      el('tr', null, el('td', { colspan: 7, class: 'muted' }, 'Loading…')));
    view.root.append(
      el('div', { class: 'page-head' }, el('h1', null, 'Hosts'), el('div', { class: 'tools' }, count)),
      el('p', { class: 'note' }, 'The daemons sharing this store, each under its host name: ' +
        'a job addressed to one (its "host") runs there, any other on the first free one. ' +
        'A host not seen for ' + STALE_S / 60 + ' min is stale: its daemon stopped or cannot reach the store.'),
      el('div', { class: 'card flush' },
        el('table', { class: 'jobs hosts', 'data-testid': 'hosts-table' },
          el('caption', { class: 'sr-only' }, 'Hosts by name; updated live'),
          el('thead', null, el('tr', null,
            el('th', { scope: 'col' }, 'Name'),
            el('th', { scope: 'col' }, 'Last seen'),
            el('th', { scope: 'col' }, 'Kernel'),
            el('th', { scope: 'col' }, 'CPU'),
            el('th', { scope: 'col' }, 'Devices'),
            el('th', { scope: 'col' }, 'Running'),
            el('th', { scope: 'col' }, 'Version'))),
          tbody)));

    function row(h) {
      const info = h.host || {};
      const stale = !num(h.seen_s_ago) || h.seen_s_ago > STALE_S;
      const seen = parseTime(h.last_seen) !== null ? fmtAge(h.last_seen) : '—';
      const cpu = [info.cpu_model, num(info.cpus) ? info.cpus + ' CPUs' : null].filter(Boolean).join(' · ');
      return el('tr', { 'data-host': h.name, 'data-testid': 'host-row', class: stale ? 'stale' : null },
        el('th', { scope: 'row', class: 'mono' },
          el('a', { href: jobsHash('', h.name), title: 'the jobs of ' + h.name }, h.name)),
        el('td', { class: 'nowrap', 'data-testid': 'host-seen' }, timeEl(h.last_seen, seen),
          stale ? el('span', { class: 'badge stale-badge', 'data-testid': 'host-stale' }, 'stale') : null),
        el('td', { class: 'mono' }, h.kernel || '—'),
        el('td', null, cpu || '—'),
        el('td', { class: 'devices' }, hostDevices(h)),
        el('td', { 'data-testid': 'host-running' }, ...runningLinks(h)),
        el('td', { class: 'mono' }, h.version || '—'));
    }

    view.poll(async () => {
      let d;
      try {
        d = await api('/api/v1/hosts');
      } catch (e) {
        if (tbody.querySelector('[data-testid="host-row"]')) throw e;
        apiFailure(view, 'the hosts', e);
        return false;
      }
      if (!view.alive) return false;
      const hosts = d.hosts || [];
      tbody.replaceChildren(...(hosts.length ? hosts.map(row)
        : [el('tr', null, el('td', { colspan: 7, class: 'empty' }, 'No daemon registered.'))]));
      const stale = hosts.filter((h) => !num(h.seen_s_ago) || h.seen_s_ago > STALE_S).length;
      setText(count, hosts.length + ' hosts' + (stale ? ' · ' + stale + ' stale' : ''));
      return true;
    });
  }

  /* ---- job page ----------------------------------------------------- */

  function section(title, opts, ...children) {
    return el('section', Object.assign({ class: 'card' }, opts || {}),
      title ? el('h2', null, title) : null, ...children);
  }

  function kvList(obj, keys) {
    const dl = el('dl', { class: 'kv' });
    const list = keys || Object.keys(obj || {});
    for (const k of list) {
      if (!obj || !(k in obj)) continue;
      let v = obj[k];
      if (v === null || v === undefined || v === '') v = '—';
      else if (k === 'memory_bytes' || k === 'size_bytes') v = fmtBytes(v);
      else if (typeof v === 'object') v = JSON.stringify(v);
      dl.append(el('dt', null, k), el('dd', null, String(v)));
    }
    if (!dl.children.length) return el('p', { class: 'muted' }, 'Not recorded.');
    return dl;
  }

  /* The device card: what the target is, the disk under it and its queue
   * limits, in words (the job document's flat "device"; an older
   * daemon's nested one is read too). */
  function deviceView(dev) {
    if (!dev) return [el('p', { class: 'muted' }, 'Not recorded.')];
    if (dev.kind === 'nop')
      return [el('p', { 'data-testid': 'device-text' }, 'No device: the nop target sends io_uring NOPs through the bio model.')];
    const d = !('disk' in dev) && dev.device && typeof dev.device === 'object'
      ? Object.assign({}, dev.device, { kind: dev.kind, path: dev.path, disk: dev.device.name, disk_path: dev.device.path })
      : dev;
    const yesNo = (v, yes, no) => (v === true ? yes : v === false ? no : '—');
    const rows = [
      ['Target', (d.kind || '?') + ' ' + (d.path || '')],
      ['Disk', d.disk ? d.disk + (d.disk_path ? ' (' + d.disk_path + ')' : '') : 'none (e.g. tmpfs)'],
    ];
    if (d.disk) {
      rows.push(['Size', fmtBytes(d.size_bytes)],
        ['Rotational', yesNo(d.rotational, 'yes', 'no')],
        ['Scheduler', d.scheduler || '—'],
        ['Polling', yesNo(d.io_poll, 'poll queues', 'no poll queues')],
        ['Model', d.model || '—'], ['Serial', d.serial || '—'], ['Firmware', d.firmware || '—']);
      if (d.backing_file) rows.push(['Backing file', d.backing_file]);
      if (d.nvme) rows.push(['NVMe', [d.nvme.controller, d.nvme.nsid !== undefined ? 'nsid ' + d.nvme.nsid : null,
        d.nvme.lba_size ? 'LBA ' + d.nvme.lba_size + ' B' : null, d.nvme.char_path].filter(Boolean).join(' · ')]);
    }
    const dl = el('dl', { class: 'kv', 'data-testid': 'device-kv' });
    for (const [k, v] of rows) dl.append(el('dt', null, k), el('dd', null, String(v)));
    const out = [dl];
    if (d.limits && Object.keys(d.limits).length) {
      const bytes = new Set(['logical_block_size', 'physical_block_size', 'max_segment_size']);
      out.push(el('details', { class: 'limits' }, el('summary', null, 'Queue limits'),
        table(['Limit', 'Value'], Object.entries(d.limits).map(([k, v]) =>
          [k, v === null ? '—' : bytes.has(k) ? fmtInt(v) + ' B' : fmtInt(v)]), { numeric: true })));
    }
    return out;
  }

  function noChart(holder) {
    holder.replaceChildren(el('p', { class: 'muted' },
      'Charts need Chart.js: install Debian\'s libjs-chart.js on the daemon\'s host.'));
  }

  /* The variants of a job in spec order. */
  function variantNames(job, runs) {
    const names = job.spec && job.spec.variants ? Object.keys(job.spec.variants) : [];
    for (const r of runs || []) if (!names.includes(r.variant)) names.push(r.variant);
    return names;
  }

  function jobView(view, idText) {
    setTitle('Job ' + idText);
    view.root.append(el('p', { class: 'muted' }, 'Loading job ' + idText + '…'));
    let job = null;
    let parts = null;

    async function load() {
      let j;
      try {
        j = await api('/api/v1/jobs/' + encodeURIComponent(idText));
      } catch (e) {
        if (job) throw e;   /* a live update failed: banner, retry */
        if (e instanceof ApiError && (e.status === 404 || e.status === 400)) {
          errorPage(view, e.status === 404 ? 'Job not found' : 'Bad job id',
            e.message, e);
        } else {
          apiFailure(view, 'job ' + idText, e);
        }
        return false;
      }
      const runs = await api('/api/v1/jobs/' + j.id + '/runs');
      /* the comparison exists once a round is measured (409 before) */
      const cmp = j.compare || j.group ? await api('/api/v1/jobs/' + j.id + '/compare') : null;
      if (!view.alive) return false;
      job = j;
      if (!parts) parts = buildJob(view, j);
      renderJob(view, parts, j, runs.runs || [], cmp);
      return ACTIVE.has(j.state);
    }
    view.poll(load);
  }

  function buildJob(view, j) {
    setTitle('Job ' + j.id + (j.name ? ' · ' + j.name : ''));
    view.root.replaceChildren();
    const p = {};
    p.title = el('h1', { 'data-testid': 'job-title' });
    p.badges = el('div', { class: 'badges' });
    p.meta = el('p', { class: 'meta' });
    p.fleet = el('p', { class: 'meta', 'data-testid': 'job-fleet' });
    p.links = el('p', { class: 'links' });
    p.progress = section('Progress', { 'data-testid': 'job-progress-card', 'aria-live': 'polite' });
    p.bar = progressBar(0, 0, 'runs done');
    p.progressText = el('p', { class: 'ptext-big', 'data-testid': 'progress-text' });
    p.progress.append(p.bar, p.progressText);
    p.error = el('div', { class: 'error-box', role: 'alert', hidden: true });
    p.verdict = section('Verdict', { 'data-testid': 'verdict-card' });
    p.verdictBody = el('div');
    p.verdict.append(p.verdictBody);
    p.runsChartHolder = el('div', { class: 'chart-box tall' });
    p.runsNote = el('p', { class: 'note' });
    p.ciChartHolder = el('div', { class: 'chart-box' });
    p.ciNote = el('p', { class: 'note' });
    p.latChartHolder = el('div', { class: 'chart-box' });
    p.latTable = el('div', { class: 'table-wrap' });
    p.summaryTable = el('div', { class: 'table-wrap' });
    p.counters = el('div', { class: 'table-wrap' });
    p.runsTable = el('div', { class: 'table-wrap' });
    p.spec = el('pre', { class: 'json', 'data-testid': 'job-spec' });
    p.host = el('div');
    p.device = el('div');
    p.knobs = el('div');
    p.knobsCard = section('Sysfs knobs', { hidden: true }, p.knobs);
    /* a group's parent: its jobs and their comparisons side by side
     * instead of one job's verdict and charts */
    p.group = section('Hosts of this group', { 'data-testid': 'group-card', hidden: !j.group });
    p.groupBody = el('div');
    p.group.append(p.groupBody);
    p.single = el('div', { hidden: !!j.group });
    view.root.append(
      el('div', { class: 'page-head' },
        el('div', null, el('p', { class: 'crumbs' }, el('a', { href: '#/' }, 'Jobs'), ' / ', 'job ' + j.id),
          p.title, p.meta, p.fleet),
        p.badges),
      p.links,
      p.error,
      p.progress,
      p.group,
      p.single);
    p.single.append(
      p.verdict,
      el('div', { class: 'grid-2' },
        section('Per-run metric, in run order', { class: 'card span-2' },
          p.runsChartHolder, p.runsNote),
        section('Change with its confidence interval', null, p.ciChartHolder, p.ciNote),
        section('Per variant', null, p.summaryTable),
        section('Latency percentiles (median over measured runs)', null,
          p.latChartHolder, p.latTable),
        section('Cache and split counters', null, p.counters)),
      el('details', { class: 'card' }, el('summary', null, el('h2', { class: 'inline' }, 'Runs')), p.runsTable));
    view.root.append(
      el('div', { class: 'grid-3' },
        section('Job spec', null, p.spec),
        section('Host', null, p.host),
        section('Device', null, p.device)),
      p.knobsCard);
    p.links.after(compareWithForm(j));
    return p;
  }

  function renderJob(view, p, j, runs, cmpDoc) {
    const groupDoc = cmpDoc && cmpDoc.group ? cmpDoc : null;
    const cmp = groupDoc ? null : cmpDoc ? cmpDoc.compare : j.compare;
    const names = variantNames(j, runs);
    const unit = (cmp && cmp.unit) || unitOf(j.spec && j.spec.metric);
    const metric = (cmp && cmp.metric) || (j.spec && j.spec.metric) || 'iops';

    setText(p.title, j.name ? j.name : 'Job ' + j.id);
    p.badges.replaceChildren(...[stateBadge(j.state), j.verdict ? verdictBadge(j.verdict) : null].filter(Boolean));
    const dur = parseTime(j.finished) !== null && parseTime(j.started) !== null
      ? fmtDuration((parseTime(j.finished) - parseTime(j.started)) / 1000) : null;
    setText(p.meta, ['job ' + j.id, 'target ' + j.target, 'metric ' + metric,
      j.spec && j.spec.order ? 'order ' + j.spec.order : null,
      'created ' + fmtDate(j.created, true),
      j.finished ? 'finished ' + fmtDate(j.finished, true) : null,
      dur ? 'took ' + dur : null].filter(Boolean).join(' · '));
    /* the fleet: where it may run, who took it, until when */
    p.fleet.replaceChildren(...(j.group
      /* a group's parent is never claimed: its hosts run its jobs */
      ? ['group on ', el('span', { class: 'mono', 'data-testid': 'job-group-hosts' },
        (j.children || []).map((k) => k.host || '?').join(', '))]
      : ['for host ', el('span', { class: 'mono', 'data-testid': 'job-for-host' }, j.for_host || 'any'),
        ' · claimed by ', el('span', { class: 'mono', 'data-testid': 'job-claimed-by' }, j.claimed_by || 'none')]),
      ...(j.lease_until && ACTIVE.has(j.state)
        ? [' · lease until ', el('span', { 'data-testid': 'job-lease' }, timeEl(j.lease_until, fmtDate(j.lease_until, true)))]
        : []),
      /* a cancel asked of another daemon: its runner stops it at its
       * next heartbeat */
      ...(j.cancel_requested && ACTIVE.has(j.state)
        ? [' · ', el('span', { 'data-testid': 'job-cancelling', class: 'error-text' },
          'cancel requested via ' + (j.cancel_requested_by || '?') + ' ' + fmtAge(j.cancel_requested))]
        : []),
      /* one host's job of a group */
      ...(num(j.group_id)
        ? [' · ', el('a', { href: '#/job/' + j.group_id, 'data-testid': 'job-group-link' }, 'group ' + j.group_id)]
        : []));
    if (!p.links.children.length) {
      p.links.append(
        el('a', { href: '#/history?name=' + encodeURIComponent(j.name || '') }, 'History of this workload'),
        ' · API: ',
        el('a', { href: '/api/v1/jobs/' + j.id }, 'job'), ' · ',
        el('a', { href: '/api/v1/jobs/' + j.id + '/runs' }, 'runs'), ' · ',
        el('a', { href: '/api/v1/jobs/' + j.id + '/compare' }, 'compare'));
    }

    /* error */
    p.error.hidden = !j.error;
    setText(p.error, j.error ? 'The job ' + j.state + ': ' + j.error : '');

    /* progress */
    const active = ACTIVE.has(j.state);
    p.progress.hidden = !active;
    if (active) {
      updateBar(p.bar, j.runs_done, j.runs_planned);
      p.bar.classList.toggle('live', j.state === 'running');
      const g = j.progress || {};
      const bits = [j.runs_done + ' of ' + j.runs_planned + ' runs done'];
      if (j.state === 'queued') bits.push('queued: waiting for the device');
      /* a boot job between two boots: "rebooting into B (boot 3 of 8)" */
      if (j.state === 'rebooting') bits.push(j.boot && j.boot.text ? j.boot.text : 'rebooting');
      if (j.state === 'running' && g.boot) bits.push(g.boot);
      if (j.state === 'running' && num(g.run)) {
        bits.push('running run ' + g.run + (g.variant ? ' (variant ' + g.variant + (g.warmup ? ', warm-up' : '') + ')' : ''));
        if (num(g.elapsed_s)) bits.push('elapsed ' + fmtDuration(g.elapsed_s));
        if (num(g.eta_s)) bits.push('ETA ' + fmtDuration(g.eta_s));
        if (g.last_run && num(g.last_run.iops))
          bits.push('last finished: run ' + g.last_run.run + ' (variant ' + g.last_run.variant +
            (g.last_run.warmup ? ', warm-up' : '') + ') ' + si(g.last_run.iops) + ' IO/s');
      }
      setText(p.progressText, bits.join(' · '));
    }

    if (j.group) {
      renderGroup(p, j, groupDoc);
      renderSpecHost(p, j);
      return;
    }

    /* verdict */
    renderVerdict(p, j, cmpDoc, cmp, runs);

    /* charts and tables */
    renderRunsChart(view, p, runs, names, metric, unit);
    renderCiChart(view, p, cmp);
    renderSummary(p, cmp, runs, names, unit, j.spec || {});
    renderLatency(view, p, runs, names);
    renderCounters(p, cmp, names, j.spec || {});
    renderRunsTable(p, runs, unit);
    renderSpecHost(p, j);
  }

  function renderSpecHost(p, j) {
    const spec = JSON.stringify(j.spec, null, 2);
    setText(p.spec, spec);
    p.host.replaceChildren(kvList(j.host, ['hostname', 'kernel', 'kernel_version', 'machine',
      'cpu_model', 'microcode', 'cpus', 'memory_bytes', 'governor', 'boot_id']));
    if (j.host && j.host.cmdline)
      p.host.append(el('details', { class: 'cmdline' }, el('summary', null, 'kernel command line'),
        el('code', null, j.host.cmdline)));
    p.device.replaceChildren(...deviceView(j.device));
    if (j.knobs && j.knobs.length) {
      p.knobsCard.hidden = false;
      p.knobs.replaceChildren(table(['Target', 'Knob', 'Original', 'Applied', 'State'],
        j.knobs.map((k) => [k.target, k.knob, k.original, k.applied, k.state])));
    }
  }

  /* A group's parent: its jobs (one per host), then each comparison's
   * rows side by side with the combined line (GroupCompare). */
  function renderGroup(p, j, g) {
    const kids = j.children || [];
    const jobLink = (id) => el('a', { href: '#/job/' + id }, '#' + id);
    const body = [el('div', { class: 'table-wrap', 'data-testid': 'group-children' },
      table(['Host', 'Job', 'State', 'Runs', 'Verdict'], kids.map((k) => [
        k.host || '—', jobLink(k.id), stateBadge(k.state), k.runs_done + ' / ' + k.runs_planned,
        verdictBadge(k.verdict)])))];
    const rows = (g && g.rows) || [];
    const combined = (g && g.combined) || [];
    const ci = (c) => (num(c.ci_lo) && num(c.ci_hi) ? ciLabel(c) + ' ' + fmtPct(c.ci_lo) + ' .. ' + fmtPct(c.ci_hi) : '—');
    const tbody = el('tbody');
    const hostRow = (r) => el('tr', { 'data-testid': 'group-row', 'data-host': r.host || '' },
      el('td', { class: 'mono' }, r.host || '—'), el('td', null, jobLink(r.job_id)),
      el('td', { class: 'num' }, num(r.n) ? String(r.n) : '—'),
      el('td', { class: 'num' }, num(r.change) ? fmtPct(r.change) : '—'),
      el('td', { class: 'nowrap' }, ci(r)),
      el('td', { class: 'num' }, num(r.p_value) ? fmtP(r.p_value) : '—'),
      el('td', null, r.error ? el('span', { class: 'error-text', title: r.error }, 'error')
        : r.variant ? verdictBadge(r.verdict) : el('span', { class: 'muted' }, 'no comparison yet (' + r.state + ')')));
    for (const c of combined) {
      tbody.append(el('tr', { class: 'group-head' }, el('th', { colspan: 7, scope: 'colgroup' },
        c.variant + ' vs ' + c.baseline)));
      for (const r of rows) if (r.variant === c.variant && r.baseline === c.baseline) tbody.append(hostRow(r));
      const pl = c.pooled;
      tbody.append(el('tr', { class: 'combined', 'data-testid': 'group-combined' },
        el('td', null, 'combined'), el('td', { class: 'muted' }, c.hosts + ' host' + (c.hosts === 1 ? '' : 's')),
        el('td', null, ''),
        el('td', { class: 'num' }, pl ? fmtPct(pl.change) : '—'),
        el('td', { class: 'nowrap' }, pl ? ci(pl) : '—'),
        el('td', null, ''),
        el('td', null, verdictBadge(c.verdict), c.disagree
          ? [' ', el('span', { class: 'badge disagree-badge', 'data-testid': 'group-disagree' }, 'hosts disagree')] : null)));
    }
    /* a host's job without a comparison yet */
    for (const r of rows) if (!r.variant) tbody.append(hostRow(r));
    if (g) {
      body.push(el('h3', null, 'Per-host comparison'),
        el('div', { class: 'table-wrap' }, el('table', { class: 'data group', 'data-testid': 'group-compare' },
          el('thead', null, el('tr', null, ['Host', 'Job', 'n', 'Change', 'Interval', 'p', 'Verdict']
            .map((h) => el('th', { scope: 'col' }, h)))), tbody)));
      for (const c of combined) {
        const pl = c.pooled;
        const bits = [c.variant + ' vs ' + c.baseline + ' over ' + c.hosts + ' host' + (c.hosts === 1 ? '' : 's')];
        if (c.min && c.max && c.hosts > 1)
          bits.push('range ' + fmtPct(c.min.change) + ' (' + c.min.host + ') .. ' + fmtPct(c.max.change) + ' (' + c.max.host + ')');
        if (num(c.spread_sd)) bits.push('spread SD ' + fmtPct(c.spread_sd).replace(/^\+/, ''));
        if (pl) bits.push('pooled ' + fmtPct(pl.change) + ' (' + ci(pl) + ')' +
          (num(pl.i2) ? ', I² ' + (100 * pl.i2).toFixed(0) + '%' : '') + (num(pl.q) ? ', Q ' + pl.q.toFixed(2) : ''));
        if (c.disagree && c.disagreeing && c.disagreeing.length)
          bits.push('hosts disagree: ' + c.disagreeing.map((d) => d.host + ' ' + (VERDICT_TEXT[d.verdict] || d.verdict)).join(', '));
        body.push(el('p', { class: 'note', 'data-testid': 'group-combined-text' }, bits.join(' · ') + '. ' + (c.text || '')));
      }
      if (g.warnings && g.warnings.length)
        body.push(el('ul', { class: 'warnings', 'aria-label': 'Warnings' }, g.warnings.map((w) => el('li', null, w))));
    }
    p.groupBody.replaceChildren(...body);
  }

  /* The label of a comparison's CI with its real coverage ("87.5% CI",
   * "95% sequential CI"); comparisons stored before the labels existed
   * get it from ci_level (never rounded up). */
  function ciLabel(c) {
    if (c && c.ci_label) return c.ci_label;
    const v = c && num(c.ci_level) ? c.ci_level : c && num(c.confidence) ? c.confidence : 0.95;
    return String(Math.floor(v * 1000 + 1e-7) / 10) + '% CI';
  }

  /* "95% needs 6 pairs" when the interval cannot reach the asked level. */
  function coverageNote(c) {
    if (!c || !c.too_few || !num(c.n_for_confidence)) return null;
    if (c.method === 'units')
      return 'an interval needs 2 ' + ((c.units && c.units.kind) || 'job') + 's on a side';
    return String(parseFloat((100 * (c.confidence || 0.95)).toFixed(1))) + '% needs ' + c.n_for_confidence +
      (c.method === 'unpaired' ? ' runs per variant' : ' pairs');
  }

  const NOISE_LABEL = { boot: 'between boots', round: 'between rounds (drift, cancelled by pairing)',
    run: 'between runs', second: 'within a run (per-second)' };

  /* "between rounds 2.1% · between runs 0.8% (dominant) · ...: add runs, not seconds" */
  /* What the job measures (the kernel, or biobench's userspace model of
   * the bio path) and where each variant's bio puts ran. */
  function scopeText(cmp) {
    if (!cmp || !cmp.scope || !cmp.scope.note) return null;
    const ctx = Object.entries(cmp.variants || {})
      .filter(([, v]) => v && v.put_context)
      .map(([n, v]) => n + ' ' + v.put_context);
    return 'Scope: ' + cmp.scope.note + (ctx.length ? '. Bio puts in: ' + ctx.join(', ') : '') + '.';
  }

  function noiseText(noise) {
    if (!noise || !noise.levels) return null;
    const bits = [];
    for (const k of ['boot', 'round', 'run', 'second']) {
      const l = noise.levels[k];
      if (!l || !l.measured || !num(l.sd)) continue;
      bits.push(NOISE_LABEL[k] + ' ' + (100 * Math.expm1(l.sd)).toFixed(2) + '%' + (noise.dominant === k ? ' (dominant)' : ''));
    }
    if (!bits.length) return null;
    return 'Noise (SD): ' + bits.join(' · ') + (noise.advice ? ': ' + noise.advice : '');
  }

  function noiseFloorText(nf) {
    if (!nf || !num(nf.log_sd)) return null;
    return 'Host noise floor: A/A job #' + (nf.job_id ?? '?') + ' on this host and target: pairs spread ' +
      (100 * Math.expm1(nf.log_sd)).toFixed(2) + '% (SD, ' + nf.pairs + ' pairs)';
  }

  function unitOf(metric) {
    return { iops: 'IO/s', bw: 'B/s', cpu_per_io: 'ns/IO' }[metric] || (metric ? 'ns' : 'IO/s');
  }

  function renderVerdict(p, j, cmpDoc, cmp, runs) {
    const body = [];
    const comps = (cmp && cmp.comparisons) || [];
    const measured = runs.filter((r) => !r.warmup && !r.discarded && r.state === 'done').length;
    if (!comps.length) {
      body.push(el('p', { class: 'muted' }, ACTIVE.has(j.state)
        ? 'No comparison yet: it comes ' + (j.spec && j.spec.order === 'blocked'
          ? 'when the job ends (blocked order: each variant\'s runs in one block)'
          : 'once two rounds of runs are measured') + ' (' + measured +
          ' measured run' + (measured === 1 ? '' : 's') + ' finished so far).'
        : 'This job has no comparison.'));
    }
    for (const c of comps) {
      if (c.error) {
        body.push(el('p', { class: 'verdict-line' }, (c.variant || '?') + ' vs ' + (c.baseline || '?') + ': ' + c.error));
        continue;
      }
      const v = c.verdict || 'inconclusive';
      body.push(el('div', { class: 'verdict-line verdict-border-' + v.replace(/[^a-z_]/g, '') },
        el('p', { class: 'verdict-text', 'data-testid': 'verdict-text' }, c.text || ''),
        el('p', { class: 'verdict-facts' },
          verdictBadge(v), ' ',
          el('span', null, 'change ' + fmtPct(c.change)),
          el('span', { 'data-testid': 'ci-label' }, ciLabel(c) + ' ' + fmtPct(c.ci_lo) + ' .. ' + fmtPct(c.ci_hi)),
          coverageNote(c) ? el('span', { class: 'warn' }, coverageNote(c)) : null,
          el('span', null, 'p = ' + fmtP(c.p_value)),
          c.family > 1 ? el('span', null, (c.multiple === 'bh' ? 'BH' : 'Holm') + ' p = ' + fmtP(c.p_adjusted) + ' of ' + c.family) : null,
          num(c.tost_p) ? el('span', null, 'TOST p = ' + fmtP(c.tost_p)) : null,
          el('span', null, 'n = ' + (c.n ?? '—') + (c.method ? ' (' + c.method + ')' : '')),
          c.ci_method ? el('span', null, c.ci_method) : null,
          num(c.min_effect) ? el('span', null, 'min effect ±' + (c.min_effect * 100).toFixed(1) + '%') : null,
          c.more_needed ? el('span', null, c.more_needed + ' more repetitions needed' + (c.more_capped ? ' (capped by max_repeat)' : '')) : null),
        c.precision ? el('p', { class: 'note', 'data-testid': 'precision' }, c.precision) : null));
    }
    if (cmp && cmp.order && cmp.order.text)
      body.push(el('p', { class: 'note', 'data-testid': 'order' }, 'Order: ' + cmp.order.text + '.'));
    const sc = scopeText(cmp);
    if (sc) body.push(el('p', { class: 'note', 'data-testid': 'scope' }, sc));
    const nt = noiseText(cmp && cmp.noise);
    if (nt) body.push(el('p', { class: 'note', 'data-testid': 'noise' }, nt));
    const nf = noiseFloorText(j.noise_floor);
    if (nf) body.push(el('p', { class: 'note', 'data-testid': 'noise-floor' }, nf));
    const dist = disturbedRuns(runs);
    if (dist.length)
      body.push(el('div', { class: 'warn-box', role: 'note', 'data-testid': 'disturbed-warning' },
        el('p', null, dist.length + ' measured run' + (dist.length === 1 ? ' was' : 's were') +
          ' disturbed (other load on the benchmark CPUs, or the process stalled)' +
          (cmp && cmp.rounds_excluded ? '; ' + cmp.rounds_excluded + ' round(s) left out of the statistics' : '') +
          ': marked × on the per-run chart.'),
        el('ul', null, dist.slice(0, 8).map((r) => el('li', null, 'run ' + (r.seq + 1) + ' (' + r.variant +
          ', round ' + (r.round + 1 - (j.spec && j.spec.warmup ? j.spec.warmup : 0)) + '): ' +
          (r.result.quiescence.reason || 'disturbed')))),
        dist.length > 8 ? el('p', { class: 'muted' }, (dist.length - 8) + ' more') : null));
    const redone = runs.filter((r) => r.discarded);
    if (redone.length)
      body.push(el('div', { class: 'warn-box', role: 'note', 'data-testid': 'discarded-warning' },
        el('p', null, redone.length + ' run' + (redone.length === 1 ? '' : 's') +
          ' of an interrupted boot, kept but left out of the statistics (the boot was redone): ' +
          redone[0].discarded)));
    const warnings = (cmpDoc && cmpDoc.warnings) || [];
    if (warnings.length)
      body.push(el('ul', { class: 'warnings', 'aria-label': 'Warnings' },
        warnings.map((w) => el('li', null, w))));
    p.verdictBody.replaceChildren(...body);
  }

  /* The measured runs the quiescence gate or the stall check marked. */
  function disturbedRuns(runs) {
    return runs.filter((r) => !r.warmup && r.result && r.result.quiescence && r.result.quiescence.disturbed);
  }

  function renderRunsChart(view, p, runs, names, metric, unit) {
    const done = runs.filter((r) => r.state === 'done' && num(r.metric));
    const failed = runs.filter((r) => r.state === 'failed').length;
    const cancelled = runs.filter((r) => r.state === 'cancelled').length;
    const warm = runs.filter((r) => r.warmup).length;
    const redone = runs.filter((r) => r.discarded).length;
    const dist = new Set(disturbedRuns(runs).map((r) => r.seq));
    setText(p.runsNote, runs.length
      ? runs.length + ' runs in execution order (x), each a point coloured by variant; ' +
        (warm ? 'hollow triangles are warm-up runs (not in the comparison); ' : '') +
        (redone ? 'hollow circles are runs of an interrupted boot that was redone (' + redone + ', not in the comparison); ' : '') +
        (dist.size ? 'a × marks a disturbed run (' + dist.size + ': other load on its CPUs, or the process stalled; why in its tooltip); ' : '') +
        'the grey line joins the runs in the order they ran' +
        (failed ? '; ' + failed + ' failed run(s) not drawn' : '') +
        (cancelled ? '; ' + cancelled + ' cancelled run(s) not drawn' : '') + '.'
      : 'No run has finished yet.');
    if (!window.Chart) return noChart(p.runsChartHolder);
    const datasets = [{
      type: 'line', label: 'run order', data: done.map((r) => ({ x: r.seq + 1, y: r.metric })),
      borderColor: '#cbd5e1', borderWidth: 1.5, pointRadius: 0, pointHoverRadius: 0,
      fill: false, tension: 0, order: 10,
    }];
    names.forEach((name, i) => {
      const color = variantColor(i);
      const rs = done.filter((r) => r.variant === name);
      const why = (r) => (dist.has(r.seq) ? r.result.quiescence.reason || 'disturbed' : null);
      datasets.push({
        type: 'scatter', label: 'variant ' + name,
        data: rs.map((r) => ({ x: r.seq + 1, y: r.metric, warmup: r.warmup, round: r.round, disturbed: why(r) })),
        backgroundColor: rs.map((r) => (r.warmup || r.discarded ? '#ffffff' : color)),
        borderColor: color, borderWidth: 2,
        pointBorderWidth: rs.map((r) => (dist.has(r.seq) ? 3 : 2)),
        pointStyle: rs.map((r) => (r.warmup ? 'triangle' : dist.has(r.seq) ? 'crossRot' : 'circle')),
        pointRadius: rs.map((r) => (r.warmup ? 7 : dist.has(r.seq) ? 8 : 5)), pointHoverRadius: 9, order: 1,
      });
    });
    const label = metric + (unit ? ' (' + unit + ')' : '');
    if (!p.runsChart) {
      const canvas = el('canvas', { role: 'img', 'aria-label': 'Per-run ' + metric + ' by run order, coloured by variant', 'data-testid': 'runs-chart' });
      p.runsChartHolder.replaceChildren(canvas);
      p.runsChart = view.chart(canvas, {
        data: { datasets },
        options: {
          maintainAspectRatio: false,
          scales: {
            x: { type: 'linear', title: { display: true, text: 'run # (execution order)' },
              ticks: { stepSize: 1, precision: 0 } },
            y: { title: { display: true, text: label },
              ticks: { callback: (v) => tickMetric(v, unit) } },
          },
          plugins: {
            legend: { labels: { usePointStyle: true, pointStyle: 'circle' } },
            tooltip: {
              callbacks: {
                label: (c) => {
                  if (c.dataset.type === 'line') return null;
                  const d = c.raw;
                  return c.dataset.label + ', run ' + d.x + (d.warmup ? ' (warm-up)' : ', round ' + (d.round + 1)) +
                    ': ' + fmtMetric(d.y, unit) + (d.disturbed ? ' — disturbed: ' + d.disturbed : '');
                },
              },
            },
          },
        },
      });
    } else {
      p.runsChart.data.datasets = datasets;
      p.runsChart.update('none');
    }
  }

  function renderCiChart(view, p, cmp) {
    const comps = ((cmp && cmp.comparisons) || []).filter((c) => num(c.change));
    if (!comps.length) {
      setText(p.ciNote, '');
      if (p.ciChart) { p.ciChart.destroy(); p.ciChart = null; }
      p.ciChartHolder.replaceChildren(el('p', { class: 'muted' }, 'No comparison yet.'));
      return;
    }
    const c0 = comps[0];
    setText(p.ciNote, 'Bar: the ' + ciLabel(c0) +
      ' (its real coverage) of the relative change of ' + c0.metric +
      (coverageNote(c0) ? ' (' + coverageNote(c0) + ')' : '') +
      (c0.higher_is_better ? ' (higher is better)' : ' (lower is better)') +
      '; diamond: the estimate. Colour: the verdict.');
    if (!window.Chart) return noChart(p.ciChartHolder);
    const labels = comps.map((c) => c.variant + ' vs ' + c.baseline);
    const colors = comps.map((c) => VERDICT_COLORS[c.verdict] || '#475569');
    const datasets = [
      {
        type: 'bar', label: 'confidence interval', indexAxis: 'y',
        data: comps.map((c) => [100 * (num(c.ci_lo) ? c.ci_lo : c.change), 100 * (num(c.ci_hi) ? c.ci_hi : c.change)]),
        backgroundColor: colors.map((c) => alpha(c, 0.3)), borderColor: colors, borderWidth: 1.5,
        borderSkipped: false, barPercentage: 0.5, categoryPercentage: 0.8, order: 2,
      },
      {
        type: 'line', label: 'change', indexAxis: 'y', showLine: false,
        data: comps.map((c, i) => ({ x: 100 * c.change, y: labels[i] })),
        pointStyle: 'rectRot', pointRadius: 8, pointHoverRadius: 9,
        backgroundColor: colors, borderColor: '#0f172a', borderWidth: 1, order: 1,
      },
    ];
    /* a relative change is above -100% */
    let lo = Math.min(0, ...comps.map((c) => 100 * (num(c.ci_lo) ? c.ci_lo : c.change)));
    const hi = Math.max(0, ...comps.map((c) => 100 * (num(c.ci_hi) ? c.ci_hi : c.change)));
    /* round bounds to a tick step: -11.3 .. 28.1 -> -20 .. 30 */
    const span = Math.max(2, hi - lo);
    const step = [1, 2, 5, 10, 20, 25, 50, 100].find((s) => span / s <= 8) || 100;
    const xmin = Math.max(-100, Math.floor((lo - span * 0.05) / step) * step);
    const xmax = Math.ceil((hi + span * 0.05) / step) * step;
    const height = Math.max(140, 70 * comps.length + 70);
    p.ciChartHolder.style.height = height + 'px';
    if (!p.ciChart) {
      const canvas = el('canvas', { role: 'img', 'aria-label': 'Change with confidence interval: ' + comps.map((c) => c.text).join('; '), 'data-testid': 'ci-chart' });
      p.ciChartHolder.replaceChildren(canvas);
      p.ciChart = view.chart(canvas, {
        data: { labels, datasets },
        options: {
          indexAxis: 'y', maintainAspectRatio: false,
          scales: {
            x: {
              type: 'linear', min: xmin, max: xmax,
              title: { display: true, text: 'change vs baseline (%)' },
              ticks: { stepSize: step, callback: (v) => (v > 0 ? '+' : '') + v + '%' },
              grid: { color: (ctx) => (ctx.tick && ctx.tick.value === 0 ? '#0f172a' : '#e2e8f0'),
                lineWidth: (ctx) => (ctx.tick && ctx.tick.value === 0 ? 1.5 : 1) },
            },
            y: { type: 'category', labels },
          },
          plugins: {
            legend: { display: false },
            tooltip: {
              callbacks: {
                label: (ctx) => {
                  const c = comps[ctx.dataIndex];
                  return ctx.dataset.type === 'bar'
                    ? ciLabel(c) + ' ' + fmtPct(c.ci_lo) + ' .. ' + fmtPct(c.ci_hi)
                    : 'change ' + fmtPct(c.change) + ' (' + (VERDICT_TEXT[c.verdict] || c.verdict) + ')';
                },
              },
            },
          },
        },
      });
    } else {
      p.ciChart.data.labels = labels;
      p.ciChart.data.datasets = datasets;
      p.ciChart.options.scales.y.labels = labels;
      p.ciChart.options.scales.x.min = xmin;
      p.ciChart.options.scales.x.max = xmax;
      p.ciChart.options.scales.x.ticks.stepSize = step;
      p.ciChart.update('none');
    }
  }

  function table(head, rows, opts) {
    const o = opts || {};
    return el('table', { class: 'data' + (o.class ? ' ' + o.class : '') },
      o.caption ? el('caption', null, o.caption) : null,
      el('thead', null, el('tr', null, head.map((h, i) =>
        el('th', { scope: 'col', class: i && o.numeric ? 'num' : null }, h)))),
      el('tbody', null, rows.map((r) => el('tr', { class: r.className || null },
        r.map((c, i) => (i === 0
          ? el('th', { scope: 'row' }, c)
          : el('td', { class: [o.numeric ? 'num' : '', (o.nowrap || []).includes(i) ? 'nowrap' : '']
            .join(' ').trim() || null }, c)))))));
  }

  function stats(values) {
    const v = values.filter(num);
    if (!v.length) return null;
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (v.length - 1)) : 0;
    return { n: v.length, median: median(v), mean, sd, min: Math.min(...v), max: Math.max(...v) };
  }

  /* The engine model a variant ran with: its own "model", else the
   * workload's, else its t/io_uring line's, else the job's line's, else
   * the default (the bio model). */
  function variantModel(spec, name) {
    const v = (spec.variants || {})[name] || {};
    const line = (t) => ((t && t.options) || {}).model;
    return v.model || (spec.workload || {}).model || line(v.tiou) ||
      line(spec.tiou) || 'bio';
  }

  /* Per variant: its model, the measured runs' n, median, CV, min and max
   * (the comparison's values once there is one, the finished runs before
   * that), and the change against the baseline: the comparison's
   * Hodges-Lehmann estimate, the one figure its CI and verdict are about
   * (the same as `biobench compare` prints), never the ratio of the
   * medians beside it. */
  function renderSummary(p, cmp, runs, names, unit, spec) {
    const variants = spec.variants || {};
    const vars = (cmp && cmp.variants) || {};
    const comps = (cmp && cmp.comparisons) || [];
    const rows = [];
    let fromRuns = false;
    names.forEach((name) => {
      const v = vars[name];
      let values = v && v.values && v.values.length ? v.values : null;
      if (!values) {
        values = runs.filter((r) => r.variant === name && !r.warmup && r.state === 'done' && num(r.metric))
          .map((r) => r.metric);
        fromRuns = fromRuns || values.length > 0;
      }
      const s = stats(values);
      if (!s) return;
      const c = comps.find((x) => x.variant === name);
      rows.push([
        el('span', { class: 'swatch-label' }, el('span', { class: 'swatch', style: 'background:' + variantColor(names.indexOf(name)) }), name),
        el('span', { 'data-testid': 'variant-model' }, variantModel(spec, name)),
        String(s.n), fmtMetric(v && num(v.median) ? v.median : s.median, unit),
        s.mean ? (100 * s.sd / s.mean).toFixed(1) + '%' : '—',
        fmtMetric(s.min, unit), fmtMetric(s.max, unit),
        name === names[0] ? 'baseline' : c && num(c.change) ? fmtPct(c.change, 2) : '—',
      ]);
    });
    if (!rows.length) {
      p.summaryTable.replaceChildren(el('p', { class: 'muted' }, 'No measured run has finished yet.'));
      return;
    }
    p.summaryTable.replaceChildren(table(['Variant', 'Model', 'n', 'Median', 'CV', 'Min', 'Max', 'Change vs ' + names[0]],
      rows, { numeric: true }), overridesList(variants, names),
      el('p', { class: 'note', 'data-testid': 'summary-note' },
        (fromRuns ? 'From the measured runs finished so far (the comparison comes once enough rounds are measured). ' : '') +
        'Change: the Hodges–Lehmann estimate of the change against ' + names[0] +
        ', the figure the confidence interval and the verdict are about (as biobench compare prints it); ' +
        'it is not the ratio of the two medians, which can differ.'));
  }

  /* What each variant changes, e.g. "B: inject_ns=1500". */
  function overridesList(variants, names) {
    const ul = el('ul', { class: 'overrides' });
    names.forEach((n, i) => {
      const o = variants[n] || {};
      const keys = Object.keys(o);
      ul.append(el('li', null,
        el('span', { class: 'swatch', style: 'background:' + variantColor(i) }),
        el('strong', null, n), ': ',
        keys.length ? keys.map((k) => k + '=' + (k === 'tiou' && o[k] && o[k].line ? o[k].line :
          typeof o[k] === 'object' ? JSON.stringify(o[k]) : String(o[k]))).join(', ')
          : 'the workload as is'));
    });
    return ul;
  }

  function renderLatency(view, p, runs, names) {
    const keys = [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p99_9', 'p99.9']];
    const per = names.map((name) => {
      const rs = runs.filter((r) => r.variant === name && !r.warmup && r.state === 'done' &&
        r.result && r.result.latency_ns);
      return { name, n: rs.length, q: keys.map(([k]) => median(rs.map((r) => r.result.latency_ns[k]))) };
    }).filter((v) => v.n);
    if (!per.length) {
      if (p.latChart) { p.latChart.destroy(); p.latChart = null; }
      p.latChartHolder.replaceChildren(el('p', { class: 'muted' }, 'No measured run yet.'));
      p.latTable.replaceChildren();
      return;
    }
    p.latTable.replaceChildren(table(['Variant', 'runs'].concat(keys.map((k) => k[1])),
      per.map((v) => [v.name, String(v.n)].concat(v.q.map(fmtNs))), { numeric: true }));
    if (!window.Chart) return noChart(p.latChartHolder);
    const all = per.flatMap((v) => v.q).filter((x) => num(x) && x > 0);
    const log = all.length && Math.max(...all) / Math.min(...all) > 20;
    const datasets = per.map((v) => {
      const color = variantColor(names.indexOf(v.name));
      return { label: 'variant ' + v.name, data: v.q.map((x) => (num(x) ? x / 1000 : null)),
        backgroundColor: alpha(color, 0.75), borderColor: color, borderWidth: 1 };
    });
    const labels = keys.map((k) => k[1]);
    if (!p.latChart) {
      const canvas = el('canvas', { role: 'img', 'aria-label': 'Latency percentiles per variant, microseconds', 'data-testid': 'latency-chart' });
      p.latChartHolder.replaceChildren(canvas);
      p.latChart = view.chart(canvas, {
        type: 'bar',
        data: { labels, datasets },
        options: {
          maintainAspectRatio: false,
          scales: {
            y: { type: log ? 'logarithmic' : 'linear', beginAtZero: !log,
              title: { display: true, text: 'latency (µs)' } },
          },
          plugins: {
            legend: { labels: { usePointStyle: true } },
            tooltip: { callbacks: { label: (c) => c.dataset.label + ': ' + fmtNs(c.raw * 1000) } },
          },
        },
      });
    } else {
      p.latChart.data.datasets = datasets;
      p.latChart.options.scales.y.type = log ? 'logarithmic' : 'linear';
      p.latChart.update('none');
    }
  }

  /* {a: 1, split_bioset: {a: 2}} -> [['a', 1], ['split_bioset.a', 2]] */
  function flatten(o, prefix, out) {
    for (const [k, v] of Object.entries(o || {})) {
      if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, prefix + k + '.', out);
      else out.push([prefix + k, v]);
    }
    return out;
  }

  function renderCounters(p, cmp, names, spec) {
    const vars = (cmp && cmp.variants) || {};
    const present = names.filter((n) => vars[n]);
    /* the bio model's counters mean nothing for a variant without it */
    const noModel = new Set(present.filter((n) => variantModel(spec, n) === 'none'));
    if (!present.length) {
      p.counters.replaceChildren(el('p', { class: 'muted' }, 'No counters yet.'));
      return;
    }
    const groups = [['bio_cache', 'bio cache'], ['split', 'split']];
    const out = [];
    let hidden = 0;
    for (const [key, title] of groups) {
      const rowsByName = new Map();
      for (const n of present) {
        for (const [k, v] of flatten(vars[n][key], '', [])) {
          if (!rowsByName.has(k)) rowsByName.set(k, {});
          rowsByName.get(k)[n] = v;
        }
      }
      const rows = [];
      for (const [k, vals] of rowsByName) {
        if (present.every((n) => !vals[n])) { hidden++; continue; }
        rows.push([k].concat(present.map((n) => (noModel.has(n) ? 'n/a' : fmtInt(vals[n])))));
      }
      if (rows.length)
        out.push(table([title].concat(present.map((n) => 'variant ' + n)), rows,
          { numeric: true, class: 'counters' }));
    }
    if (!out.length) out.push(el('p', { class: 'muted' }, 'Every counter is zero.'));
    out.push(el('p', { class: 'note' }, 'Sums over the measured runs of each variant' +
      (hidden ? '; ' + hidden + ' counters that are zero for every variant are not shown' : '') +
      (noModel.size ? '; n/a: the variant ran with model none (no bio model, so no bio counters)' : '') + '.'));
    p.counters.replaceChildren(...out);
  }

  function renderRunsTable(p, runs, unit) {
    if (!runs.length) {
      p.runsTable.replaceChildren(el('p', { class: 'muted' }, 'No run has finished yet.'));
      return;
    }
    p.runsTable.replaceChildren(table(
      ['Run', 'Round', 'Variant', 'Kind', 'State', 'Metric', 'IOPS', 'p50', 'p99', 'CPU/IO', 'Started'],
      runs.map((r) => [String(r.seq + 1), String(r.round + 1), r.variant, r.warmup ? 'warm-up' : 'measured',
        r.state + (r.error && r.error !== r.state ? ': ' + r.error : '') +
          (!r.warmup && r.result && r.result.quiescence && r.result.quiescence.disturbed
            ? ' (disturbed: ' + (r.result.quiescence.reason || '?') + ')' : ''),
        fmtMetric(r.metric, unit),
        num(r.iops) ? si(r.iops) : '—', fmtNs(r.lat_p50_ns), fmtNs(r.lat_p99_ns),
        fmtNs(r.cpu_per_io_ns), fmtDate(r.started, true)]),
      { numeric: false, class: 'runs' }));
  }

  /* ---- history ------------------------------------------------------ */

  function historyView(view, params) {
    if (!params.has('name')) return workloadsView(view);
    const name = params.get('name');
    const target = params.get('target') || '';
    setTitle('History · ' + (name || '(unnamed)'));
    view.root.append(el('p', { class: 'muted' }, 'Loading…'));
    (async () => {
      let d;
      try {
        d = await api('/api/v1/history?limit=200&name=' + encodeURIComponent(name) +
          (target ? '&target=' + encodeURIComponent(target) : ''));
      } catch (e) {
        return apiFailure(view, 'the history', e);
      }
      if (!view.alive) return;
      renderHistory(view, d, name, target);
    })();
  }

  function renderHistory(view, d, name, target) {
    const jobs = (d.jobs || []).slice().reverse();   /* oldest first */
    const head = el('div', { class: 'page-head' },
      el('div', null,
        el('p', { class: 'crumbs' }, el('a', { href: '#/history' }, 'History'), ' / ', 'workload'),
        el('h1', { 'data-testid': 'history-title' }, name || '(unnamed jobs)'),
        el('p', { class: 'meta' }, jobs.length + ' finished job' + (jobs.length === 1 ? '' : 's') +
          (target ? ' on target ' + target : '') + ', oldest first')));
    view.root.replaceChildren(head);
    if (!jobs.length) {
      view.root.append(el('div', { class: 'card' }, el('p', { class: 'empty' },
        'No finished job with this name yet.')));
      return;
    }
    const kernels = new Set(jobs.map((j) => (j.host && j.host.kernel) || '?'));
    const labels = jobs.map((j) => ['#' + j.id + ' ' + fmtDate(j.finished || j.created),
      (j.host && j.host.kernel) || 'kernel ?']);
    /* one series per comparison pair, e.g. "B vs A" */
    const pairs = [];
    for (const j of jobs)
      for (const c of (j.compare && j.compare.comparisons) || []) {
        const k = c.variant + ' vs ' + c.baseline;
        if (!pairs.includes(k)) pairs.push(k);
      }
    const find = (j, pair) => ((j.compare && j.compare.comparisons) || [])
      .find((c) => c.variant + ' vs ' + c.baseline === pair) || null;
    const unit = (jobs.find((j) => j.compare && j.compare.unit) || { compare: {} }).compare.unit || '';
    const metric = (jobs.find((j) => j.compare && j.compare.metric) || { compare: {} }).compare.metric || '';

    const changeHolder = el('div', { class: 'chart-box tall' });
    const medianHolder = el('div', { class: 'chart-box' });
    view.root.append(
      el('div', { class: 'grid-2' },
        section('Change with confidence interval, per job', { class: 'card span-2' }, changeHolder,
          el('p', { class: 'note' }, 'Each column is one finished job (date and kernel below it): the bar is the confidence interval of the change, the diamond the estimate, the colour the verdict; the axis fits the data (the dark line is 0%). ' +
            kernels.size + ' kernel version' + (kernels.size === 1 ? '' : 's') + ' so far.')),
        section('Medians per job', { class: 'card span-2' }, medianHolder)));

    if (window.Chart && pairs.length) {
      const datasets = [];
      pairs.forEach((pair, pi) => {
        const cs = jobs.map((j) => find(j, pair));
        const colors = cs.map((c) => (c ? VERDICT_COLORS[c.verdict] || '#475569' : '#475569'));
        datasets.push({
          type: 'bar', label: pair + ' CI',
          data: cs.map((c) => (c && num(c.change) ? [100 * (num(c.ci_lo) ? c.ci_lo : c.change), 100 * (num(c.ci_hi) ? c.ci_hi : c.change)] : null)),
          backgroundColor: colors.map((c) => alpha(c, 0.3)), borderColor: colors, borderWidth: 1.5,
          borderSkipped: false, barPercentage: 0.5, order: 2,
        });
        datasets.push({
          type: 'line', label: pair + ' change', showLine: pairs.length === 1, borderColor: '#94a3b8',
          borderWidth: 1, borderDash: [4, 4],
          data: cs.map((c) => (c && num(c.change) ? 100 * c.change : null)),
          pointStyle: ['rectRot', 'circle', 'triangle', 'rect'][pi % 4], pointRadius: 7,
          pointBackgroundColor: colors, pointBorderColor: '#0f172a', order: 1,
        });
      });
      const canvas = el('canvas', { role: 'img', 'aria-label': 'Change per job over time', 'data-testid': 'history-chart' });
      changeHolder.append(canvas);
      view.chart(canvas, {
        data: { labels, datasets },
        options: {
          maintainAspectRatio: false,
          scales: {
            y: { beginAtZero: false, grace: '15%', title: { display: true, text: 'change vs baseline (%)' },
              ticks: { callback: (v) => (v > 0 ? '+' : '') + v + '%' },
              grid: { color: (ctx) => (ctx.tick && ctx.tick.value === 0 ? '#0f172a' : '#e2e8f0') } },
          },
          plugins: {
            legend: { labels: { usePointStyle: true } },
            tooltip: {
              callbacks: {
                label: (ctx) => {
                  const pair = pairs[Math.floor(ctx.datasetIndex / 2)];
                  const c = find(jobs[ctx.dataIndex], pair);
                  return c ? c.text || pair + ' ' + fmtPct(c.change) : pair;
                },
              },
            },
          },
        },
      });
      const md = [];
      const seen = new Set();
      pairs.forEach((pair) => {
        const cs = jobs.map((j) => find(j, pair));
        const any = cs.find(Boolean);
        if (!any) return;
        if (!seen.has(any.baseline)) {
          seen.add(any.baseline);
          md.push({ label: 'variant ' + any.baseline, data: cs.map((c) => (c && num(c.baseline_median) ? c.baseline_median : null)) });
        }
        if (!seen.has(any.variant)) {
          seen.add(any.variant);
          md.push({ label: 'variant ' + any.variant, data: cs.map((c) => (c && num(c.variant_median) ? c.variant_median : null)) });
        }
      });
      md.forEach((ds, i) => Object.assign(ds, {
        type: 'line', borderColor: variantColor(i), backgroundColor: variantColor(i),
        pointRadius: 4, borderWidth: 2, spanGaps: true,
      }));
      const canvas2 = el('canvas', { role: 'img', 'aria-label': 'Median ' + metric + ' per variant and job', 'data-testid': 'history-medians' });
      medianHolder.append(canvas2);
      view.chart(canvas2, {
        data: { labels, datasets: md },
        options: {
          maintainAspectRatio: false,
          scales: { x: { offset: true }, y: { title: { display: true, text: 'median ' + metric + (unit ? ' (' + unit + ')' : '') },
            ticks: { callback: (v) => tickMetric(v, unit) } } },
          plugins: { legend: { labels: { usePointStyle: true } },
            tooltip: { callbacks: { label: (c) => c.dataset.label + ': ' + fmtMetric(c.raw, unit) } } },
        },
      });
    } else if (!window.Chart) {
      noChart(changeHolder);
      noChart(medianHolder);
    } else {
      changeHolder.replaceChildren(el('p', { class: 'muted' }, 'These jobs have no comparison.'));
      medianHolder.replaceChildren();
    }

    const rows = [];
    for (const j of jobs.slice().reverse()) {
      const cs = (j.compare && j.compare.comparisons) || [{}];
      for (const c of cs) {
        rows.push([
          el('a', { href: '#/job/' + j.id }, '#' + j.id),
          timeEl(j.finished, fmtDate(j.finished)),
          (j.host && j.host.hostname) || '—',
          (j.host && j.host.kernel) || '—',
          j.target,
          (j.device && (j.device.model || j.device.disk || j.device.kind)) || '—',
          verdictBadge(c.verdict || j.verdict),
          num(c.change) ? fmtPct(c.change) : '—',
          num(c.ci_lo) ? ciLabel(c) + ' ' + fmtPct(c.ci_lo) + ' .. ' + fmtPct(c.ci_hi) : '—',
          fmtP(c.p_value) + (c.family > 1 ? ' (' + (c.multiple === 'bh' ? 'BH' : 'Holm') + ' ' + fmtP(c.p_adjusted) + ')' : ''),
          j.noise_floor && num(j.noise_floor.log_sd) ? '±' + (100 * Math.expm1(j.noise_floor.log_sd)).toFixed(2) + '%' : '—',
          c.text || '',
        ]);
      }
    }
    const t = table(['Job', 'Finished', 'Host', 'Kernel', 'Target', 'Device', 'Verdict', 'Change', 'CI (coverage)', 'p', 'Host noise', 'Summary'],
      rows, { class: 'history', nowrap: [1, 3, 7, 8] });
    t.setAttribute('data-testid', 'history-table');
    view.root.append(compareTicker(jobs));
    view.root.append(section('Jobs, newest first', { class: 'card flush' }, el('div', { class: 'table-wrap' }, t)));
  }

  function workloadsView(view) {
    setTitle('History');
    view.root.append(el('p', { class: 'muted' }, 'Loading…'));
    (async () => {
      let d;
      try {
        d = await api('/api/v1/jobs?state=done&limit=500');
      } catch (e) {
        return apiFailure(view, 'the workloads', e);
      }
      if (!view.alive) return;
      const groups = new Map();
      for (const j of d.jobs) {
        const g = groups.get(j.name) || { name: j.name, jobs: [], targets: new Set() };
        g.jobs.push(j);
        g.targets.add(j.target);
        groups.set(j.name, g);
      }
      const list = Array.from(groups.values());
      view.root.replaceChildren(
        el('div', { class: 'page-head' }, el('div', null,
          el('h1', null, 'History'),
          el('p', { class: 'meta' }, 'A workload is a job name: the same job run again (another day, another kernel) is compared side by side.'))));
      if (!list.length) {
        view.root.append(el('div', { class: 'card' }, el('p', { class: 'empty' }, 'No finished job yet.')));
        return;
      }
      const t = table(['Workload', 'Finished jobs', 'Targets', 'Latest', 'Latest verdict'],
        list.map((g) => [
          el('a', { href: '#/history?name=' + encodeURIComponent(g.name) }, g.name || '(unnamed)'),
          String(g.jobs.length),
          Array.from(g.targets).join(', '),
          timeEl(g.jobs[0].finished, fmtDate(g.jobs[0].finished) + ' (' + fmtAge(g.jobs[0].finished) + ')'),
          verdictBadge(g.jobs[0].verdict),
        ]), { class: 'workloads', nowrap: [3] });
      t.setAttribute('data-testid', 'workloads-table');
      view.root.append(el('div', { class: 'card flush' }, t));
      if (d.next_cursor !== null)
        view.root.append(el('p', { class: 'note' }, 'From the newest 500 finished jobs.'));
    })();
  }

  /* ---- compare jobs ------------------------------------------------ */

  /* "#/compare?base=3,5&with=4,6": the sides, each a list of job ids */
  function compareHash(base, others, level) {
    const q = new URLSearchParams();
    q.set('base', [].concat(base).join(','));
    for (const o of others) q.append('with', [].concat(o).join(','));
    if (level === 'run') q.set('level', 'run');
    return '#/compare?' + q.toString().replace(/%2C/g, ',');
  }

  /* "#4" or "#4, #6, #8" */
  const sideLabel = (ids) => (ids || []).map((id) => '#' + id).join(', ');

  /* The job page's "Compare with…": the other side's jobs typed (one, or
   * several that replicate it), or picked from the finished jobs of the
   * same name; this job is the base. */
  function compareWithForm(j) {
    const input = el('input', { type: 'text', id: 'compare-with', size: 14, list: 'compare-with-list',
      placeholder: 'job id(s), e.g. 4 or 4, 6, 8', autocomplete: 'off', 'data-testid': 'compare-with-input' });
    const list = el('datalist', { id: 'compare-with-list' });
    const msg = el('span', { class: 'warn', 'aria-live': 'polite' });
    const form = el('form', { class: 'compare-with', 'data-testid': 'compare-with-form' },
      el('label', { for: 'compare-with' }, 'Compare with… '), input, list, ' ',
      el('button', { type: 'submit', 'data-testid': 'compare-with-button' }, 'Compare'), ' ', msg,
      el('span', { class: 'muted' }, ' the other side: one job, or several that replicate it (the job is the unit: one job a side gives no verdict, History compares several a side)'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const ids = input.value.split(/[\s,]+/).filter(Boolean);
      if (!ids.length || ids.some((x) => !/^[1-9][0-9]{0,18}$/.test(x))) {
        setText(msg, 'job ids, e.g. 4 or 4, 6, 8');
        return;
      }
      location.hash = compareHash([j.id], [ids]);
    });
    api('/api/v1/history?limit=50&name=' + encodeURIComponent(j.name || '')).then((d) => {
      for (const o of d.jobs || [])
        if (o.id !== j.id)
          list.append(el('option', { value: String(o.id) },
            '#' + o.id + ' ' + fmtDate(o.finished) + ' ' + ((o.host && o.host.kernel) || '')));
    }).catch(() => { /* the list is a help only */ });
    return form;
  }

  /* History: tick the jobs of each side (e.g. the base kernel's and the
   * patched kernel's runs of one workload) to compare them. */
  function compareTicker(jobs) {
    const button = el('button', { type: 'button', disabled: true, 'data-testid': 'compare-ticked' },
      'Compare the ticked sides');
    const msg = el('span', { class: 'muted', 'aria-live': 'polite' });
    const box = (j, side) => el('input', { type: 'checkbox', id: 'tick-' + side + '-' + j.id, value: String(j.id),
      'data-testid': 'compare-tick-' + side, 'aria-label': '#' + j.id + ' on the ' + side + ' side' });
    const bases = jobs.map((j) => box(j, 'base'));
    const others = jobs.map((j) => box(j, 'other'));
    const ticked = (bs) => bs.filter((b) => b.checked).map((b) => Number(b.value)).sort((a, b) => a - b);
    const update = () => {
      const a = ticked(bases), b = ticked(others);
      const both = a.filter((x) => b.includes(x));
      button.disabled = !a.length || !b.length || both.length > 0;
      setText(msg, both.length ? ' #' + both.join(', #') + ' is on both sides' :
        a.length && b.length && (a.length < 2 || b.length < 2) ?
          ' one job a side gives no verdict: tick two or more a side for one' : '');
    };
    bases.concat(others).forEach((b) => b.addEventListener('change', update));
    button.addEventListener('click', () => {
      const a = ticked(bases), b = ticked(others);
      if (a.length && b.length) location.hash = compareHash(a, [b]);
    });
    return section('Compare jobs', { 'data-testid': 'compare-ticker' },
      el('div', { class: 'table-wrap' }, table(['Base', 'Other', 'Job'], jobs.map((j, i) => [bases[i], others[i],
        el('label', { for: 'tick-other-' + j.id }, '#' + j.id + ' · ' + fmtDate(j.finished) + ' · ' +
          ((j.host && j.host.kernel) || 'kernel ?') + ' · ' + (VERDICT_TEXT[j.verdict] || j.verdict || '—'))]),
      { numeric: false })),
      el('p', { class: 'note' }, button, msg, ' Tick the jobs of each side: each variant of the other side is compared with the same-named variant of the base side, the job (or boot) as the unit, so that the verdict rests on how much jobs differ, not on the runs within one.'));
  }

  function compareView(view, params) {
    const base = params.get('base');
    const others = params.getAll('with');
    setTitle('Compare jobs');
    if (!base || !others.length)
      return errorPage(view, 'Nothing to compare', 'A comparison needs a base side and one or more others ' +
        '(base=ID[,ID...]&with=ID[,ID...]): tick the jobs of each side in History, or use "Compare with…" on a job page.', null);
    const q = new URLSearchParams();
    q.set('base', base);
    for (const o of others) q.append('with', o);
    for (const k of ['variant', 'allow_different_workload', 'level']) if (params.get(k)) q.set(k, params.get(k));
    view.root.append(el('p', { class: 'muted' }, 'Comparing…'));
    (async () => {
      let d;
      try {
        d = await api('/api/v1/compare?' + q.toString());
      } catch (e) {
        if (!view.alive) return;
        if (e instanceof ApiError && e.code === 'different_workload') return refusedPage(view, e, q);
        if (e instanceof ApiError && [400, 404, 409].includes(e.status))
          return errorPage(view, 'Cannot compare these jobs', e.message, e);
        return apiFailure(view, 'the comparison', e);
      }
      if (view.alive) renderCompare(view, d, q);
    })();
  }

  /* A workload that differs: the API's message, and the way to compare
   * anyway. */
  function refusedPage(view, e, q) {
    const anyway = new URLSearchParams(q);
    anyway.set('allow_different_workload', '1');
    setTitle('The workloads differ');
    view.root.replaceChildren(el('section', { class: 'error-page', role: 'alert', 'data-testid': 'error-page' },
      el('h1', null, 'The workloads differ'),
      el('p', { class: 'error-message', 'data-testid': 'error-message' }, e.message),
      el('p', null, el('a', { href: '#/compare?' + anyway.toString(), class: 'button', 'data-testid': 'compare-anyway' },
        'Compare anyway'), ' ', el('a', { href: '#/history', class: 'button' }, '← History'))));
  }

  function renderCompare(view, d, q) {
    const jobs = d.jobs || [];
    const unit = d.unit || '';
    const comps = d.comparisons || [];
    const sides = d.sides || [];
    const baseIds = d.base_jobs || [];
    const otherIds = sides.slice(1).map(sideLabel);
    const runLevel = d.level === 'run';
    const other = new URLSearchParams(q);
    if (runLevel) other.delete('level');
    else other.set('level', 'run');
    setTitle('Compare ' + sideLabel(baseIds) + ' with ' + otherIds.join('; '));
    view.root.replaceChildren(
      el('div', { class: 'page-head' },
        el('div', null,
          el('p', { class: 'crumbs' }, el('a', { href: '#/history' }, 'History'), ' / ', 'compare'),
          el('h1', { 'data-testid': 'compare-title' }, 'Job' + (baseIds.length > 1 ? 's ' : ' ') +
            sideLabel(baseIds) + ' against ' + otherIds.join('; ')),
          el('p', { class: 'meta' }, ['metric ' + d.metric + (unit ? ' (' + unit + ', ' +
            (d.higher_is_better ? 'higher' : 'lower') + ' is better)' : ''),
          runLevel ? 'run level (asked for): every run an independent sample' : 'the job (or boot) as the unit',
          'confidence ' + (100 * d.confidence).toFixed(1) + '%', 'no change = TOST within ±' +
            fmtSig(100 * d.min_effect) + '%', 'Holm over ' + d.family + ' comparison' + (d.family === 1 ? '' : 's'),
          d.variant ? 'variant ' + d.variant + ' only' : null].filter(Boolean).join(' · '))),
        el('div', { class: 'badges' }, d.verdict ? verdictBadge(d.verdict) : null)),
      el('p', { class: 'links' }, 'Jobs: ', jobs.flatMap((j, i) => [i ? ' · ' : '',
        el('a', { href: '#/job/' + j.id }, '#' + j.id + (j.name ? ' ' + j.name : '') + (j.side ? '' : ' (base)'))]),
      ' · API: ', el('a', { href: '/api/v1/compare?' + q.toString() }, 'compare'), ' · ',
      el('a', { href: '#/compare?' + other.toString().replace(/%2C/g, ','), 'data-testid': 'compare-level-link' },
        runLevel ? 'compare by job (the default)' : 'compare the runs instead (assumes jobs do not differ)')));

    /* the verdict of each side x variant */
    const lines = comps.map((c) => {
      const what = sideLabel(c.jobs) + ' ' + c.variant + ' vs ' + sideLabel(c.base_jobs) + ' ' + (c.baseline || c.variant);
      if (c.error)
        return el('p', { class: 'verdict-line' }, what + ': ' + c.error);
      const v = c.verdict || 'inconclusive';
      const u = c.units;
      return el('div', { class: 'verdict-line verdict-border-' + v.replace(/[^a-z_]/g, '') },
        el('p', { class: 'verdict-what', 'data-testid': 'compare-verdict-what' }, what),
        el('p', { class: 'verdict-text', 'data-testid': 'compare-verdict-text' }, c.text || ''),
        el('p', { class: 'verdict-facts' }, verdictBadge(v), ' ',
          el('span', { 'data-testid': 'compare-by' }, u ? 'compared by ' + u.kind + ': ' + u.base + ' + ' + u.other + ' ' +
            u.kind + 's (' + u.runs_base + ' + ' + u.runs_other + ' runs)' :
            'compared by run: ' + (c.a ? c.a.n : '?') + ' + ' + (c.b ? c.b.n : '?') + ' runs, assumed independent'),
          el('span', null, 'change ' + fmtPct(c.change) + (u ? ' (the units\u2019 levels)' : ' (Hodges–Lehmann of the logs)')),
          el('span', null, 'ratio of medians ' + fmtPct(c.change_median)),
          num(c.ci_lo) ? el('span', { 'data-testid': 'compare-ci-label' }, ciLabel(c) + ' ' + fmtPct(c.ci_lo) + ' .. ' + fmtPct(c.ci_hi)) :
            el('span', { 'data-testid': 'compare-ci-label', class: 'warn' }, 'no CI: one ' + (u ? u.kind : 'unit') + ' a side'),
          coverageNote(c) ? el('span', { class: 'warn' }, coverageNote(c)) : null,
          el('span', null, 'p = ' + fmtP(c.p_value)),
          c.family > 1 ? el('span', null, 'Holm p = ' + fmtP(c.p_adjusted) + ' of ' + c.family) : null,
          num(c.tost_p) ? el('span', null, 'TOST p = ' + fmtP(c.tost_p)) : null,
          u && num(u.between_sd) ? el('span', null, 'between-' + u.kind + ' spread ' + fmtSig(100 * u.between_sd) + '%') : null,
          el('span', null, 'run-to-run spread ' + fmtSig(100 * (c.base_spread || 0)) + '% / ' +
            fmtSig(100 * (c.spread || 0)) + '%'),
          c.boots ? el('span', null, 'boots ' + c.boots.base + ' / ' + c.boots.other) : null),
        c.precision ? el('p', { class: 'note', 'data-testid': 'compare-precision' }, c.precision) : null,
        c.assumes ? el('p', { class: 'warn', 'data-testid': 'compare-assumes' }, 'Assumes ' + c.assumes + '.') : null);
    });
    const st = d.statistics || {};
    const warnings = d.warnings || [];
    view.root.append(section('Verdict', { 'data-testid': 'compare-verdict-card' }, ...lines,
      el('p', { class: 'note' }, 'Unit: ' + (st.unit || '') + '. Each unit: ' + (st.samples || '') + '. Change: ' +
        (st.change || '') + '; CI: ' + (st.ci || '') + '; p: ' + (st.p_value || '') + '.'),
      warnings.length ? el('ul', { class: 'warnings', 'aria-label': 'Warnings' }, warnings.map((w) => el('li', null, w))) : null));

    /* boots and each side's noise floor */
    view.root.append(section('Boots and noise floor', { 'data-testid': 'compare-boots-card' },
      el('p', { 'data-testid': 'compare-boots' }, (d.boots && d.boots.statement) || ''),
      el('div', { class: 'table-wrap' }, table(['Job', 'Variant', 'Runs', 'Median', 'Run-to-run spread', 'Boots',
        'Disturbed', 'Failed', 'Warm-ups', 'Host A/A noise floor'],
      jobs.flatMap((j) => Object.entries(j.variants || {}).map(([name, v]) => [
        el('a', { href: '#/job/' + j.id }, '#' + j.id + (j.role === 'base' ? ' (base)' : '')), name,
        String(v.n), fmtMetric(v.median, unit), num(v.spread) ? '±' + fmtSig(100 * v.spread) + '%' : '—',
        String(v.boots), v.disturbed + (v.excluded ? ' (' + v.excluded + ' left out)' : ''), String(v.failed),
        String(v.warmups),
        j.noise_floor && num(j.noise_floor.log_sd) ? '±' + (100 * Math.expm1(j.noise_floor.log_sd)).toFixed(2) +
          '% (A/A job #' + j.noise_floor.job_id + ')' : '—'])), { numeric: false })),
      el('p', { class: 'note' }, 'Run-to-run spread: the SD of the log metric of a job\'s runs of that variant, the noise a difference between jobs has to stand out of.')));

    /* charts: the change with its CI, and each variant's runs per job */
    const grid = el('div', { class: 'grid-2' });
    view.root.append(grid);
    const ci = { ciChartHolder: el('div', { class: 'chart-box' }), ciNote: el('p', { class: 'note' }) };
    grid.append(section('Change with its confidence interval', { class: 'card span-2' }, ci.ciChartHolder, ci.ciNote));
    renderCiChart(view, ci, { comparisons: comps.filter((c) => !c.error).map((c) => Object.assign({}, c, {
      variant: sideLabel(c.jobs) + ' ' + c.variant, baseline: sideLabel(c.base_jobs) + ' ' + c.baseline })) });
    const names = [];
    for (const c of comps) if (!names.includes(c.variant)) names.push(c.variant);
    for (const name of names) {
      const holder = el('div', { class: 'chart-box' });
      grid.append(section('Variant ' + name + ': each job\'s runs', null, holder,
        el('p', { class: 'note' }, 'x: the job\'s measured runs in order; dashed: its median.')));
      renderCompareRuns(view, holder, jobs, name, d.metric, unit);
    }

    /* what differs */
    view.root.append(compareDiff(d));
  }

  function renderCompareRuns(view, holder, jobs, name, metric, unit) {
    if (!window.Chart) return noChart(holder);
    const datasets = [];
    jobs.forEach((j, i) => {
      const v = (j.variants || {})[name];
      if (!v || !v.values || !v.values.length) return;
      const color = variantColor(i);
      const label = '#' + j.id + (j.role === 'base' ? ' (base)' : '');
      datasets.push({ type: 'scatter', label, data: v.values.map((y, k) => ({ x: k + 1, y })),
        backgroundColor: color, borderColor: color, pointRadius: 4, order: 1 });
      if (num(v.median))
        datasets.push({ type: 'line', label: label + ' median', data: [{ x: 1, y: v.median }, { x: v.values.length, y: v.median }],
          borderColor: color, borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0, order: 2 });
    });
    const canvas = el('canvas', { role: 'img', 'aria-label': 'Runs of variant ' + name + ' per job',
      'data-testid': 'compare-runs-chart', 'data-variant': name });
    holder.replaceChildren(canvas);
    view.chart(canvas, {
      data: { datasets },
      options: {
        maintainAspectRatio: false,
        scales: {
          x: { type: 'linear', title: { display: true, text: 'measured run of the job' }, ticks: { stepSize: 1, precision: 0 } },
          y: { title: { display: true, text: metric + (unit ? ' (' + unit + ')' : '') }, ticks: { callback: (x) => tickMetric(x, unit) } },
        },
        plugins: {
          legend: { labels: { usePointStyle: true } },
          tooltip: { callbacks: { label: (c) => c.dataset.label + ': ' + fmtMetric(c.raw.y, unit) } },
        },
      },
    });
  }

  /* The table of what differs between the jobs, differing rows
   * highlighted; equal job and config rows behind a toggle. */
  function compareDiff(d) {
    const jobs = d.jobs || [];
    const rows = d.diff || [];
    const extra = (r) => !r.differs && (r.section === 'job' || r.section === 'config');
    const nextra = rows.filter(extra).length;
    const ndiff = rows.filter((r) => r.differs).length;
    const tbl = el('table', { class: 'data diff', 'data-testid': 'compare-diff' },
      el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'What'),
        jobs.map((j) => el('th', { scope: 'col' }, '#' + j.id + (j.role === 'base' ? ' (base)' : ''))))),
      el('tbody', null, rows.map((r) => el('tr', {
        class: ['diff-row', r.differs ? 'differs' : '', extra(r) ? 'equal-extra' : ''].filter(Boolean).join(' '),
        'data-key': r.key, 'data-variant': r.variant || null, 'data-differs': r.differs ? '1' : '0',
      },
      el('th', { scope: 'row' }, r.key + (r.variant ? ' [' + r.variant + ']' : ''),
        r.workload && r.differs ? el('span', { class: 'warn' }, ' (workload)') : null),
      (r.values || []).map((v) => el('td', { class: 'mono' }, v === null || v === undefined ? '—' : v))))));
    const toggle = el('button', { type: 'button', class: 'secondary', 'data-testid': 'compare-diff-toggle' },
      'Show the ' + nextra + ' equal job and config rows');
    toggle.addEventListener('click', () => {
      const all = tbl.classList.toggle('show-all');
      setText(toggle, (all ? 'Hide' : 'Show') + ' the ' + nextra + ' equal job and config rows');
    });
    return section('What differs between the jobs', { 'data-testid': 'compare-diff-card' },
      el('p', { class: 'note' }, ndiff + ' of ' + rows.length + ' rows differ (highlighted): job settings, each run\'s boot, kernel and version, the host, the target\'s device, the queue settings read at the start of every run, and each variant\'s effective configuration.'),
      el('div', { class: 'table-wrap' }, tbl), nextra ? el('p', null, toggle) : null);
  }

  /* ---- header: the daemon's host ----------------------------------- */

  async function hostInfo() {
    try {
      const h = await api('/api/v1/host');
      const box = document.getElementById('hostinfo');
      box.replaceChildren(
        el('span', { title: 'host' }, h.hostname || '?'),
        el('span', { title: 'kernel' }, h.kernel || '?'),
        el('span', { title: 'daemon version' }, 'biobenchd ' + ((h.daemon && h.daemon.version) || '?')));
    } catch (e) {
      /* the views show API errors; the header stays empty */
    }
  }

  function start() {
    if (window.Chart) {
      window.Chart.defaults.animation = false;
      window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
      window.Chart.defaults.color = '#334155';
    }
    window.addEventListener('hashchange', route);
    route();
    hostInfo();
  }

  /* Chart.js may still be loading (the chart.umd.js fallback). */
  if (window.Chart || document.readyState === 'complete') start();
  else window.addEventListener('load', start, { once: true });
})();
