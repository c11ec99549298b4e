// The inspector page's script (`cai mock … --ui`): plain JavaScript, standard DOM only, inlined into the page as a
// module (its own scope, strict) and allowed by its hash (script.ts; scripts/build.mjs inlines this file into the
// bundle). It reads the inspector's JSON and server-sent events on its own origin only. Rows are built with
// textContent, the characters a page would act on shown as escapes (the page's `data-visible` pattern,
// src/output/markup.ts); the detail pane gets fragments the server escaped. The list holds MAX_ROWS rows; older ones
// come page by page from the server, which filters. Small functions in sections: helpers, the requests list, the
// callbacks list, the conversations, the detail pane and the routes, the events, the live stream.
const MAX_ROWS = 1000;
const PAGE = 100;
const $ = (id) => document.getElementById(id);
const kind = $('app').getAttribute('data-kind');
const rowsBody = $('rows');
const detail = $('detail');
const filters = { verdict: $('f-verdict'), type: $('f-type'), lead: $('f-lead'), q: $('f-q') };
const list = { newest: 0, oldest: null, more: false, matched: 0, loading: false, queue: [], generation: 0, loadedOnce: false };
const calls = { newest: 0, oldest: null, more: false, loaded: false, total: 0 };
const view = { tab: 'requests', key: null, url: null, lead: null, routed: false };
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

function tone(status) {
  return status === undefined ? 'tone-fail' : status < 300 ? 'tone-ok' : status < 500 ? 'tone-warn' : 'tone-fail';
}

function time(iso) {
  return iso && iso.length >= 23 ? iso.slice(11, 23) : iso || '';
}

function plural(n, one, many) {
  return n + ' ' + (n === 1 ? one : many);
}

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
  cell(tr, String(item.status), 'status ' + tone(item.status));
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

/** Rows newer than the newest shown, newest on top (oldest first in 'items'). */
function prepend(items) {
  let added = 0;
  items.forEach((item) => {
    if (item.id <= list.newest) return;
    const tr = requestRow(item);
    tr.className = 'fresh';
    rowsBody.insertBefore(tr, rowsBody.firstChild);
    list.newest = item.id;
    added++;
  });
  list.matched += added;
  trim();
}

/** A batch from the live stream: shown at once without filters; with filters, the server picks the matching ones. */
function onRequests(batch) {
  if (list.loading) {
    list.queue.push(batch);
    return;
  }
  if (filterParams().toString()) later('newer', 150, loadNewer);
  else prepend(batch.items);
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
      prepend(page.items.slice().reverse());
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
  cell(tr, item.status === undefined ? 'ERR' : String(item.status), 'status ' + tone(item.status));
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
  batch.items.forEach((item) => {
    if (item.id <= calls.newest) return;
    const tr = callbackRow(item);
    tr.className = 'fresh';
    body.insertBefore(tr, body.firstChild);
    calls.newest = item.id;
    calls.total++;
  });
  while (body.rows.length > MAX_ROWS) {
    body.deleteRow(-1);
    calls.more = true;
  }
  showCallbackCounts();
}

// ---- conversations -------------------------------------------------------------------------------------------
function leadItem(item) {
  const li = document.createElement('li');
  li.setAttribute('data-route', '#/conversations/' + encodeURIComponent(item.space) + '/' + encodeURIComponent(item.lead_id));
  li.setAttribute('data-lead', item.lead_id);
  li.tabIndex = 0;
  if (view.key === 'l' + item.space + '/' + item.lead_id) li.setAttribute('aria-selected', 'true');
  const name = document.createElement('code');
  name.textContent = visible(item.lead_id);
  const facts = document.createElement('span');
  facts.className = 'muted';
  const parts = [item.space, plural(item.messages, 'message', 'messages')];
  if (item.ending) parts.push(item.ending);
  if (item.rejected) parts.push(item.rejected + ' refused');
  parts.push('last ' + time(item.last_at));
  facts.textContent = visible(' ' + parts.join(' · '));
  li.appendChild(name);
  li.appendChild(facts);
  return li;
}

function loadConversations() {
  return getJson('/api/conversations?limit=500')
    .then((page) => {
      const fragment = document.createDocumentFragment();
      page.items.forEach((item) => fragment.appendChild(leadItem(item)));
      $('leads').replaceChildren(fragment);
      $('leads-shown').textContent = page.total > page.items.length ? 'the ' + page.items.length + ' most recent of ' + page.total : plural(page.total, 'lead', 'leads');
      $('leads-empty').hidden = page.items.length > 0;
    })
    .catch(report);
}

/** New events for some leads: refresh the conversations list and an open conversation of one of them. */
function noteActivity(leads) {
  if (view.tab === 'conversations') later('leads', 400, loadConversations);
  if (view.lead !== null && leads.indexOf(view.lead) !== -1) later('detail', 300, () => loadDetail(view.url, true));
}

// ---- the detail pane and the routes -------------------------------------------------------------------------
/** The row or lead a selection key names: `r12` a request, `c3` a callback, `llive/lead_1` a conversation. */
function elementOf(key) {
  if (key.charAt(0) === 'r') return rowsBody.querySelector('tr[data-id="' + key.slice(1) + '"]');
  if (key.charAt(0) === 'c') return $('callback-rows').querySelector('tr[data-id="' + key.slice(1) + '"]');
  return Array.prototype.find.call($('leads').children, (li) => 'l' + li.getAttribute('data-route').split('/').slice(2).map(decodeURIComponent).join('/') === key) || null;
}

function select(key) {
  document.querySelectorAll('[aria-selected="true"]').forEach((element) => element.removeAttribute('aria-selected'));
  view.key = key;
  const element = key ? elementOf(key) : null;
  if (element) element.setAttribute('aria-selected', 'true');
}

function notice(text) {
  const p = document.createElement('p');
  p.className = 'notice';
  p.textContent = text;
  detail.replaceChildren(p);
}

function loadDetail(url, keepScroll) {
  const scroll = detail.scrollTop;
  return fetch(url, { headers: { accept: 'text/html' } })
    .then((response) =>
      response.text().then((text) => {
        if (view.url !== url) return;
        if (!response.ok) {
          notice(response.status === 404 ? 'Not kept any more: the inspector keeps the newest requests only.' : 'The inspector answered ' + response.status + '.');
          return;
        }
        const template = document.createElement('template');
        template.innerHTML = text;
        detail.replaceChildren(template.content);
        detail.scrollTop = keepScroll ? scroll : 0;
      }),
    )
    .catch(report);
}

function showTab(tab) {
  view.tab = tab;
  ['requests', 'conversations', 'callbacks'].forEach((name) => {
    const section = $('tab-' + name);
    if (section) section.hidden = name !== tab;
  });
  document.querySelectorAll('.tabs a').forEach((a) => {
    if (a.getAttribute('data-tab') === tab) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  if (tab === 'conversations') loadConversations();
  if (tab === 'callbacks' && !calls.loaded) loadCallbacks();
}

/** What the route after the tab names: a request or callback by its id, or a conversation by space and lead. */
function routeTarget(tab, parts) {
  if ((tab === 'requests' || tab === 'callbacks') && /^[0-9]+$/.test(parts[1] || '')) {
    return { url: '/view/' + tab + '/' + parts[1], key: (tab === 'requests' ? 'r' : 'c') + parts[1], lead: null };
  }
  if (tab !== 'conversations' || (parts[1] !== 'live' && parts[1] !== 'test') || parts.length !== 3 || parts[2] === '') return null;
  let lead;
  try {
    lead = decodeURIComponent(parts[2]);
  } catch {
    return null;
  }
  return { url: '/view/conversations/' + parts[1] + '/' + encodeURIComponent(lead), key: 'l' + parts[1] + '/' + lead, lead };
}

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  const tab = parts[0] === 'conversations' || (parts[0] === 'callbacks' && kind === 'provider') ? parts[0] : 'requests';
  if (tab !== view.tab || !view.routed) showTab(tab);
  view.routed = true;
  const target = routeTarget(tab, parts);
  view.lead = target ? target.lead : null;
  select(target ? target.key : null);
  view.url = target ? target.url : null;
  if (target) loadDetail(target.url, false);
}

// ---- events --------------------------------------------------------------------------------------------------
function go(element) {
  const row = element.closest('tr[data-id]');
  if (row && row.parentElement === rowsBody) location.hash = '#/requests/' + row.getAttribute('data-id');
  else if (row) location.hash = '#/callbacks/' + row.getAttribute('data-id');
  const li = element.closest('li[data-route]');
  if (li) location.hash = li.getAttribute('data-route');
}

function listenToLists() {
  [rowsBody, $('callback-rows'), $('leads')].forEach((container) => {
    container.addEventListener('click', (event) => {
      if (event.target instanceof Element) go(event.target);
    });
    container.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target instanceof Element) go(event.target);
    });
  });
  $('older').addEventListener('click', loadOlder);
  $('older-callbacks').addEventListener('click', () => {
    if (calls.oldest !== null) loadCallbacks(calls.oldest);
  });
  if (typeof IntersectionObserver === 'function') {
    const onSight = (entries) => {
      if (entries.some((entry) => entry.isIntersecting) && list.more) loadOlder();
    };
    new IntersectionObserver(onSight, { root: $('tab-requests') }).observe($('older'));
  }
}

function listenToFilters() {
  const changed = () => later('filter', 0, loadRequests);
  filters.verdict.addEventListener('change', changed);
  filters.type.addEventListener('change', changed);
  [filters.lead, filters.q].forEach((input) => input.addEventListener('input', () => later('filter', 250, loadRequests)));
  $('filters').addEventListener('submit', (event) => {
    event.preventDefault();
    loadRequests();
  });
  $('f-clear').addEventListener('click', () => {
    Object.keys(filters).forEach((name) => {
      filters[name].value = '';
    });
    loadRequests();
  });
}

function listenToCopyButtons() {
  detail.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button.copy') : null;
    const pre = button ? document.getElementById(button.getAttribute('data-copy')) : null;
    if (pre) copyText(button, pre, 'selected: press Ctrl-C');
  });
}

/* copyText(button, pre, selectedLabel): src/output/html/copy-script.ts, put here when the page is made */

// ---- the live stream -----------------------------------------------------------------------------------------
function reload() {
  loadRequests();
  if (calls.loaded) loadCallbacks();
}

function connect() {
  const source = new EventSource('/api/stream');
  source.addEventListener('open', () => {
    setLive('live', 'on');
    reload();
    if (view.tab === 'conversations') loadConversations();
  });
  source.addEventListener('error', () => {
    setLive('reconnecting…', 'off');
    if (!list.loadedOnce) loadRequests();
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener('requests', (event) => onRequests(JSON.parse(event.data)));
  source.addEventListener('callbacks', (event) => onCallbacks(JSON.parse(event.data)));
  source.addEventListener('reset', reload);
}

listenToLists();
listenToFilters();
listenToCopyButtons();
window.addEventListener('hashchange', route);
route();
connect();
