// The inspector page's script (`cai mock … --ui`): plain JavaScript, standard DOM only, inlined into the page and
// allowed by its hash (script.ts; scripts/build.mjs inlines this file into the bundle). It reads the inspector's JSON
// and server-sent events on its own origin only. Rows are built with textContent, the characters a page would act on
// shown as escapes (the page's `data-visible` pattern, src/output/markup.ts); the detail pane gets fragments the
// server escaped. The list holds MAX_ROWS rows; older ones come page by page from the server, which filters.
(function () {
  'use strict';
  var MAX_ROWS = 1000;
  var PAGE = 100;
  var $ = function (id) { return document.getElementById(id); };
  var kind = $('app').getAttribute('data-kind');
  var rowsBody = $('rows');
  var detail = $('detail');
  var filters = { verdict: $('f-verdict'), type: $('f-type'), lead: $('f-lead'), q: $('f-q') };
  var list = { newest: 0, oldest: null, more: false, matched: 0, loading: false, queue: [], generation: 0, loadedOnce: false };
  var calls = { newest: 0, oldest: null, more: false, loaded: false, total: 0 };
  var view = { tab: 'requests', key: null, url: null, lead: null };
  var timers = {};

  function later(name, ms, task) {
    clearTimeout(timers[name]);
    timers[name] = setTimeout(task, ms);
  }
  function getJson(url) {
    return fetch(url, { headers: { accept: 'application/json' } }).then(function (response) {
      if (!response.ok) throw new Error('the inspector answered ' + response.status + ' to ' + url);
      return response.json();
    });
  }

  var unsafe = new RegExp($('app').getAttribute('data-visible'), 'g');
  function visible(text) {
    return String(text).replace(unsafe, function (char) { return '\\u' + ('000' + char.charCodeAt(0).toString(16)).slice(-4); });
  }
  function cell(tr, text, className, title) {
    var td = document.createElement('td');
    td.textContent = visible(text);
    if (className) td.className = className;
    if (title) td.title = visible(title);
    tr.appendChild(td);
  }
  function tone(status) { return status === undefined ? 'tone-fail' : status < 300 ? 'tone-ok' : status < 500 ? 'tone-warn' : 'tone-fail'; }
  function time(iso) { return iso && iso.length >= 23 ? iso.slice(11, 23) : (iso || ''); }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  // ---- the requests list -------------------------------------------------------------------------------------
  function filterParams() {
    var params = new URLSearchParams();
    Object.keys(filters).forEach(function (name) {
      var value = filters[name].value.trim();
      if (value) params.set(name, value);
    });
    return params;
  }
  function requestRow(item) {
    var tr = document.createElement('tr');
    tr.setAttribute('data-id', String(item.id));
    tr.setAttribute('data-verdict', item.verdict);
    tr.tabIndex = 0;
    var type = item.interface === 'A' ? 'contact job' : (item.event || '-');
    cell(tr, time(item.received_at), 'mono', item.received_at);
    cell(tr, String(item.status), 'status ' + tone(item.status));
    cell(tr, item.verdict, 'v-' + item.verdict);
    cell(tr, type, null, item.reason ? item.reason + ': ' + (item.message || '') : type);
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
    var last = rowsBody.rows[rowsBody.rows.length - 1];
    list.oldest = last ? Number(last.getAttribute('data-id')) : null;
  }
  /** A page of rows into `body`: after the rows shown (older ones), or in their place; `state` learns the newest id. */
  function fill(body, page, rowOf, older, state) {
    var fragment = document.createDocumentFragment();
    page.items.forEach(function (item) { fragment.appendChild(rowOf(item)); });
    if (older) body.appendChild(fragment);
    else {
      body.replaceChildren(fragment);
      state.newest = page.next - 1;
    }
    state.more = page.more;
  }
  /** The first page of requests (the filters changed, or the stream reconnected), or the page before `before`. */
  function loadRequests(before) {
    var older = typeof before === 'number';
    if (older && list.loading) return;
    var generation = older ? list.generation : ++list.generation;
    var params = filterParams();
    params.set('limit', String(PAGE));
    if (older) params.set('before', String(before));
    list.loading = true;
    return getJson('/api/requests?' + params.toString()).then(function (page) {
      if (generation !== list.generation) return;
      fill(rowsBody, page, requestRow, older, list);
      if (!older) list.loadedOnce = true;
      list.matched = page.matched;
      trim();
      showCounts(page);
    }).catch(report).then(function () {
      if (generation !== list.generation) return;
      list.loading = false;
      var queued = older ? [] : list.queue.splice(0);
      queued.forEach(onRequests);
    });
  }
  function loadOlder() { if (list.oldest !== null) loadRequests(list.oldest); }

  /** Rows newer than the newest shown, newest on top (oldest first in 'items'). */
  function prepend(items) {
    var added = 0;
    items.forEach(function (item) {
      if (item.id <= list.newest) return;
      var tr = requestRow(item);
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
    if (filterParams().toString()) {
      later('newer', 150, loadNewer);
      showCounts(batch);
    } else {
      prepend(batch.items);
      showCounts(batch);
    }
    noteActivity(batch.items.map(function (item) { return item.lead_id; }));
  }
  function loadNewer() {
    var params = filterParams();
    params.set('after', String(list.newest));
    params.set('limit', '500');
    var generation = list.generation;
    getJson('/api/requests?' + params.toString()).then(function (page) {
      if (generation !== list.generation) return;
      if (page.more) return loadRequests();
      prepend(page.items.slice().reverse());
      list.newest = Math.max(list.newest, page.next - 1);
      list.matched = page.matched;
      showCounts(page);
    }).catch(report);
  }

  // ---- the callbacks list (provider mock) ---------------------------------------------------------------------
  function callbackRow(item) {
    var tr = document.createElement('tr');
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
    var body = $('callback-rows');
    $('callbacks-shown').textContent = 'showing ' + body.rows.length + ' of ' + calls.total;
    $('callbacks-empty').hidden = body.rows.length > 0;
    $('older-callbacks').hidden = !calls.more;
  }
  function loadCallbacks(before) {
    var url = '/api/callbacks?limit=' + PAGE + (before ? '&before=' + before : '');
    return getJson(url).then(function (page) {
      var body = $('callback-rows');
      fill(body, page, callbackRow, Boolean(before), calls);
      calls.loaded = true;
      calls.total = page.matched;
      var last = body.rows[body.rows.length - 1];
      calls.oldest = last ? Number(last.getAttribute('data-id')) : null;
      showCallbackCounts();
    }).catch(report);
  }
  function onCallbacks(batch) {
    noteActivity(batch.items.map(function (item) { return item.lead_id; }));
    if (!calls.loaded) return;
    var body = $('callback-rows');
    batch.items.forEach(function (item) {
      if (item.id <= calls.newest) return;
      var tr = callbackRow(item);
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

  // ---- conversations ------------------------------------------------------------------------------------------
  function loadConversations() {
    return getJson('/api/conversations?limit=500').then(function (page) {
      var ul = $('leads');
      var fragment = document.createDocumentFragment();
      page.items.forEach(function (item) {
        var li = document.createElement('li');
        var key = 'l' + item.space + '/' + item.lead_id;
        li.setAttribute('data-route', '#/conversations/' + encodeURIComponent(item.space) + '/' + encodeURIComponent(item.lead_id));
        li.setAttribute('data-lead', item.lead_id);
        li.tabIndex = 0;
        if (view.key === key) li.setAttribute('aria-selected', 'true');
        var name = document.createElement('code');
        name.textContent = visible(item.lead_id);
        var facts = document.createElement('span');
        facts.className = 'muted';
        var parts = [item.space, plural(item.messages, 'message', 'messages')];
        if (item.ending) parts.push(item.ending);
        if (item.rejected) parts.push(item.rejected + ' refused');
        parts.push('last ' + time(item.last_at));
        facts.textContent = visible(' ' + parts.join(' · '));
        li.appendChild(name);
        li.appendChild(facts);
        fragment.appendChild(li);
      });
      ul.replaceChildren(fragment);
      $('leads-shown').textContent = page.total > page.items.length ? 'the ' + page.items.length + ' most recent of ' + page.total : plural(page.total, 'lead', 'leads');
      $('leads-empty').hidden = page.items.length > 0;
    }).catch(report);
  }
  /** New events for some leads: refresh the conversations list and an open conversation of one of them. */
  function noteActivity(leads) {
    if (view.tab === 'conversations') later('leads', 400, loadConversations);
    if (view.lead !== null && leads.indexOf(view.lead) !== -1) later('detail', 300, function () { loadDetail(view.url, view.key, true); });
  }

  // ---- the detail pane and the routes ------------------------------------------------------------------------
  function select(key) {
    Array.prototype.forEach.call(document.querySelectorAll('[aria-selected="true"]'), function (element) { element.removeAttribute('aria-selected'); });
    view.key = key;
    if (!key) return;
    var element = null;
    if (key.charAt(0) === 'r') element = rowsBody.querySelector('tr[data-id="' + key.slice(1) + '"]');
    if (key.charAt(0) === 'c') element = $('callback-rows').querySelector('tr[data-id="' + key.slice(1) + '"]');
    if (key.charAt(0) === 'l') {
      Array.prototype.forEach.call($('leads').children, function (li) {
        if ('l' + li.getAttribute('data-route').split('/').slice(2).map(decodeURIComponent).join('/') === key) element = li;
      });
    }
    if (element) element.setAttribute('aria-selected', 'true');
  }
  function loadDetail(url, key, keepScroll) {
    var scroll = detail.scrollTop;
    return fetch(url, { headers: { accept: 'text/html' } }).then(function (response) {
      return response.text().then(function (text) {
        if (view.url !== url) return;
        if (!response.ok) {
          var p = document.createElement('p');
          p.className = 'notice';
          p.textContent = response.status === 404 ? 'Not kept any more: the inspector keeps the newest requests only.' : 'The inspector answered ' + response.status + '.';
          detail.replaceChildren(p);
          return;
        }
        var template = document.createElement('template');
        template.innerHTML = text;
        detail.replaceChildren(template.content);
        detail.scrollTop = keepScroll ? scroll : 0;
      });
    }).catch(report);
  }
  function showTab(tab) {
    view.tab = tab;
    ['requests', 'conversations', 'callbacks'].forEach(function (name) {
      var section = $('tab-' + name);
      if (section) section.hidden = name !== tab;
    });
    Array.prototype.forEach.call(document.querySelectorAll('.tabs a'), function (a) {
      if (a.getAttribute('data-tab') === tab) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    });
    if (tab === 'conversations') loadConversations();
    if (tab === 'callbacks' && !calls.loaded) loadCallbacks();
  }
  function route() {
    var parts = location.hash.replace(/^#\/?/, '').split('/');
    var tab = parts[0] === 'conversations' || (parts[0] === 'callbacks' && kind === 'provider') ? parts[0] : 'requests';
    if (tab !== view.tab || !view.routed) showTab(tab);
    view.routed = true;
    var url = null;
    var key = null;
    view.lead = null;
    if ((tab === 'requests' || tab === 'callbacks') && /^[0-9]+$/.test(parts[1] || '')) {
      url = '/view/' + tab + '/' + parts[1];
      key = (tab === 'requests' ? 'r' : 'c') + parts[1];
    } else if (tab === 'conversations' && (parts[1] === 'live' || parts[1] === 'test') && parts.length === 3 && parts[2] !== '') {
      var lead;
      try { lead = decodeURIComponent(parts[2]); } catch (error) { lead = null; }
      if (lead !== null) {
        url = '/view/conversations/' + parts[1] + '/' + encodeURIComponent(lead);
        key = 'l' + parts[1] + '/' + lead;
        view.lead = lead;
      }
    }
    select(key);
    view.url = url;
    if (url) loadDetail(url, key, false);
  }
  function setLive(text, state) { $('live').textContent = text; $('live').className = state; }
  function report(error) { setLive(String(error && error.message ? error.message : error), 'off'); }

  // ---- events ------------------------------------------------------------------------------------------------
  function go(element) {
    var row = element.closest('tr[data-id]');
    if (row && row.parentElement === rowsBody) location.hash = '#/requests/' + row.getAttribute('data-id');
    else if (row) location.hash = '#/callbacks/' + row.getAttribute('data-id');
    var li = element.closest('li[data-route]');
    if (li) location.hash = li.getAttribute('data-route');
  }
  [rowsBody, $('callback-rows'), $('leads')].forEach(function (container) {
    container.addEventListener('click', function (event) { if (event.target instanceof Element) go(event.target); });
    container.addEventListener('keydown', function (event) { if (event.key === 'Enter' && event.target instanceof Element) go(event.target); });
  });

  var changed = function () { later('filter', 0, loadRequests); };
  filters.verdict.addEventListener('change', changed);
  filters.type.addEventListener('change', changed);
  [filters.lead, filters.q].forEach(function (input) { input.addEventListener('input', function () { later('filter', 250, loadRequests); }); });
  $('filters').addEventListener('submit', function (event) { event.preventDefault(); loadRequests(); });
  $('f-clear').addEventListener('click', function () {
    Object.keys(filters).forEach(function (name) { filters[name].value = ''; });
    loadRequests();
  });
  $('older').addEventListener('click', loadOlder);
  $('older-callbacks').addEventListener('click', function () { if (calls.oldest !== null) loadCallbacks(calls.oldest); });
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; }) && list.more) loadOlder();
    }, { root: $('tab-requests') }).observe($('older'));
  }

  detail.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button.copy') : null;
    if (!button) return;
    var pre = document.getElementById(button.getAttribute('data-copy'));
    if (!pre) return;
    copyText(button, pre, 'selected: press Ctrl-C');
  });

  /* copyText(button, pre, selectedLabel): src/output/html/copy-script.ts, put here when the page is made */

  window.addEventListener('hashchange', route);

  // ---- the live stream ---------------------------------------------------------------------------------------
  function connect() {
    var source = new EventSource('/api/stream');
    source.addEventListener('open', function () {
      setLive('live', 'on');
      loadRequests();
      if (calls.loaded) loadCallbacks();
      if (view.tab === 'conversations') loadConversations();
    });
    source.addEventListener('error', function () {
      setLive('reconnecting…', 'off');
      if (!list.loadedOnce) loadRequests();
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
    });
    source.addEventListener('requests', function (event) { onRequests(JSON.parse(event.data)); });
    source.addEventListener('callbacks', function (event) { onCallbacks(JSON.parse(event.data)); });
    source.addEventListener('reset', function () {
      loadRequests();
      if (calls.loaded) loadCallbacks();
    });
  }

  route();
  connect();
})();

