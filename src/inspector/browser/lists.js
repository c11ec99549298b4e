// The inspector page's script (`cai mock … --ui`): plain JavaScript, standard DOM only, inlined into the page as a
// module (its own scope, strict) and allowed by its hash (script.ts; scripts/build.mjs inlines this file into the
// bundle). It reads the inspector's JSON and server-sent events on its own origin only. Rows are built with
// textContent, the characters a page would act on shown as escapes (the page's `data-visible` pattern,
// src/output/markup.ts); the detail pane gets fragments the server escaped. The list holds MAX_ROWS rows; older ones
// come page by page from the server, which filters. Small functions in sections, over two files joined into the one
// module (script.ts): here the state, the helpers and the two lists; inspector.js the conversations, the detail pane
// and the routes, the events and the live stream.
const MAX_ROWS = 1000;
const PAGE = 100;
const $ = (id) => document.getElementById(id);
const kind = $('app').getAttribute('data-kind');
const rowsBody = $('rows');
const detail = $('detail');
const filters = { verdict: $('f-verdict'), type: $('f-type'), lead: $('f-lead'), q: $('f-q') };
const list = { newest: 0, oldest: null, more: false, matched: 0, loading: false, queue: [], generation: 0, loadedOnce: false };
const calls = { newest: 0, oldest: null, more: false, loaded: false, total: 0 };
const view = { tab: 'requests', key: null, url: null, leadPath: null, routed: false };
const timers = {};
const unsafe = new RegExp($('app').getAttribute('data-visible'), 'g');

// ---- helpers -------------------------------------------------------------------------------------------------
function later(name, ms, task) {
  clearTimeout(timers[name]);
  timers[name] = setTimeout(task, ms);
}

function getJson(url) {
  return fetch(url, { headers: { accept: 'application/json' } }).then((response) => {
    if (!response.ok) throw new Error('the inspector answered ' + response.status + ' to ' + url);
    return response.json();
  });
}

function visible(text) {
  return String(text).replace(unsafe, (char) => '\\u' + ('000' + char.charCodeAt(0).toString(16)).slice(-4));
}

function cell(tr, text, className, title) {
  const td = document.createElement('td');
  td.textContent = visible(text);
  if (className) td.className = className;
  if (title) td.title = visible(title);
  tr.appendChild(td);
}

/* encodeLead, decodeLead (lead-path.ts), time, tone (views.ts), plural (src/text.ts): put here when the page is made */

function setLive(text, state) {
  $('live').textContent = text;
  $('live').className = state;
}

function report(error) {
  setLive(String(error && error.message ? error.message : error), 'off');
}

/** A page of rows into `body`: after the rows shown (older ones), or in their place; `state` learns the newest id. */
function fill(body, page, rowOf, older, state) {
  const fragment = document.createDocumentFragment();
  page.items.forEach((item) => fragment.appendChild(rowOf(item)));
  if (older) body.appendChild(fragment);
  else {
    body.replaceChildren(fragment);
    state.newest = page.next - 1;
  }
  state.more = page.more;
}

// ---- the requests list ---------------------------------------------------------------------------------------
function filterParams() {
  const params = new URLSearchParams();
  Object.keys(filters).forEach((name) => {
    const value = filters[name].value.trim();
    if (value) params.set(name, value);
  });
  return params;
}

function requestRow(item) {
  const tr = document.createElement('tr');
  tr.setAttribute('data-id', String(item.id));
  tr.setAttribute('data-verdict', item.verdict);
  tr.tabIndex = 0;
  cell(tr, time(item.received_at), 'mono', item.received_at);
  cell(tr, String(item.status), 'status tone-' + tone(item.status));
  cell(tr, item.verdict, 'v-' + item.verdict);
  cell(tr, item.document, null, item.reason ? item.reason + ': ' + (item.message || '') : item.document);
  cell(tr, item.event_id || '', 'mono', item.event_id);
  cell(tr, item.lead_id || '', 'mono', item.lead_id);
  cell(tr, item.space || '', null);
  if (view.key === 'r' + item.id) tr.setAttribute('aria-selected', 'true');
  return tr;
}

function showCounts(meta) {
  if (meta) $('kept').textContent = plural(meta.kept, 'request', 'requests') + ' kept' + (meta.evicted ? ', ' + meta.evicted + ' older dropped' : '');
  $('shown').textContent = 'showing ' + rowsBody.rows.length + ' of ' + list.matched + (filterParams().toString() ? ' matching' : '');
  $('empty').hidden = rowsBody.rows.length > 0;
  $('older').hidden = !list.more;
}

function trim() {
  while (rowsBody.rows.length > MAX_ROWS) {
    rowsBody.deleteRow(-1);
    list.more = true;
  }
  const last = rowsBody.rows[rowsBody.rows.length - 1];
  list.oldest = last ? Number(last.getAttribute('data-id')) : null;
}

/** The first page of requests (the filters changed, or the stream reconnected), or the page before `before`. */
function loadRequests(before) {
  const older = typeof before === 'number';
  if (older && list.loading) return undefined;
  const generation = older ? list.generation : ++list.generation;
  const params = filterParams();
  params.set('limit', String(PAGE));
  if (older) params.set('before', String(before));
  list.loading = true;
  return getJson('/api/requests?' + params.toString())
    .then((page) => {
      if (generation !== list.generation) return;
      fill(rowsBody, page, requestRow, older, list);
      if (!older) list.loadedOnce = true;
      list.matched = page.matched;
      trim();
      showCounts(page);
    })
    .catch(report)
    .then(() => {
      if (generation !== list.generation) return;
      list.loading = false;
      const queued = older ? [] : list.queue.splice(0);
      queued.forEach(onRequests);
    });
}

function loadOlder() {
  if (list.oldest !== null) loadRequests(list.oldest);
}

/** Rows newer than the newest shown into `body`, newest on top (oldest first in 'items'); how many were added. */
function prepend(body, items, rowOf, state) {
  let added = 0;
  items.forEach((item) => {
    if (item.id <= state.newest) return;
    const tr = rowOf(item);
    tr.className = 'fresh';
    body.insertBefore(tr, body.firstChild);
    state.newest = item.id;
    added++;
  });
  return added;
}

function prependRequests(items) {
  list.matched += prepend(rowsBody, items, requestRow, list);
  trim();
}

/** A batch from the live stream: shown at once without filters; with filters, the server picks the matching ones. */
function onRequests(batch) {
  if (list.loading) {
    list.queue.push(batch);
    return;
  }
  if (filterParams().toString()) later('newer', 150, loadNewer);
  else prependRequests(batch.items);
  showCounts(batch);
  noteActivity(batch.items.map((item) => item.lead_id));
}

function loadNewer() {
  const params = filterParams();
  params.set('after', String(list.newest));
  params.set('limit', '500');
  const generation = list.generation;
  getJson('/api/requests?' + params.toString())
    .then((page) => {
      if (generation !== list.generation) return undefined;
      if (page.more) return loadRequests();
      prependRequests(page.items.slice().reverse());
      list.newest = Math.max(list.newest, page.next - 1);
      list.matched = page.matched;
      showCounts(page);
      return undefined;
    })
    .catch(report);
}

// ---- the callbacks list (provider mock) ----------------------------------------------------------------------
function callbackRow(item) {
  const tr = document.createElement('tr');
  tr.setAttribute('data-id', String(item.id));
  tr.tabIndex = 0;
  cell(tr, time(item.sent_at), 'mono', item.sent_at);
  cell(tr, item.status === undefined ? 'ERR' : String(item.status), 'status tone-' + tone(item.status));
  cell(tr, item.outcome, 'v-' + item.outcome);
  cell(tr, item.event, null, item.event);
  cell(tr, item.event_id, 'mono', item.event_id);
  cell(tr, item.lead_id, 'mono', item.lead_id);
  cell(tr, String(item.attempts) + (item.retries ? ' (' + item.retries + ' retried)' : ''), null, item.error || '');
  if (view.key === 'c' + item.id) tr.setAttribute('aria-selected', 'true');
  return tr;
}

function showCallbackCounts() {
  const body = $('callback-rows');
  $('callbacks-shown').textContent = 'showing ' + body.rows.length + ' of ' + calls.total;
  $('callbacks-empty').hidden = body.rows.length > 0;
  $('older-callbacks').hidden = !calls.more;
}

function loadCallbacks(before) {
  const url = '/api/callbacks?limit=' + PAGE + (before ? '&before=' + before : '');
  return getJson(url)
    .then((page) => {
      const body = $('callback-rows');
      fill(body, page, callbackRow, Boolean(before), calls);
      calls.loaded = true;
      calls.total = page.matched;
      const last = body.rows[body.rows.length - 1];
      calls.oldest = last ? Number(last.getAttribute('data-id')) : null;
      showCallbackCounts();
    })
    .catch(report);
}

function onCallbacks(batch) {
  noteActivity(batch.items.map((item) => item.lead_id));
  if (!calls.loaded) return;
  const body = $('callback-rows');
  calls.total += prepend(body, batch.items, callbackRow, calls);
  while (body.rows.length > MAX_ROWS) {
    body.deleteRow(-1);
    calls.more = true;
  }
  showCallbackCounts();
}
