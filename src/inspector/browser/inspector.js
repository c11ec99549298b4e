// The inspector page's script, its second part (the first is lists.js, joined before it into one module by
// script.ts): the conversations, the detail pane and the routes, the events, and the live stream that feeds them.

// ---- conversations -------------------------------------------------------------------------------------------
function leadItem(item) {
  const li = document.createElement('li');
  const path = item.space + '/' + encodeLead(item.lead_id);
  li.setAttribute('data-route', '#/conversations/' + path);
  li.setAttribute('data-lead', item.lead_id);
  li.tabIndex = 0;
  if (view.key === 'l' + path) li.setAttribute('aria-selected', 'true');
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
  const open = view.leadPath !== null && leads.some((lead) => typeof lead === 'string' && encodeLead(lead) === view.leadPath);
  if (open) later('detail', 300, () => loadDetail(view.url, true));
}

// ---- the detail pane and the routes -------------------------------------------------------------------------
/** The row or lead a selection key names: `r12` a request, `c3` a callback, `llive/lead_1` a conversation (its path). */
function elementOf(key) {
  if (key.charAt(0) === 'r') return rowsBody.querySelector('tr[data-id="' + key.slice(1) + '"]');
  if (key.charAt(0) === 'c') return $('callback-rows').querySelector('tr[data-id="' + key.slice(1) + '"]');
  return Array.prototype.find.call($('leads').children, (li) => 'l' + li.getAttribute('data-route').split('/').slice(2).join('/') === key) || null;
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
    return { url: '/view/' + tab + '/' + parts[1], key: (tab === 'requests' ? 'r' : 'c') + parts[1], leadPath: null };
  }
  if (tab !== 'conversations' || (parts[1] !== 'live' && parts[1] !== 'test') || parts.length !== 3 || parts[2] === '') return null;
  // A segment as encodeLead writes it (a lead written otherwise in the address bar is written so): a digest as is.
  let path;
  try {
    path = /^%h[0-9a-f]{64}$/.test(parts[2]) ? parts[2] : encodeLead(decodeLead(parts[2]));
  } catch {
    return null;
  }
  return { url: '/view/conversations/' + parts[1] + '/' + path, key: 'l' + parts[1] + '/' + path, leadPath: path };
}

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  const tab = parts[0] === 'conversations' || (parts[0] === 'callbacks' && kind === 'provider') ? parts[0] : 'requests';
  if (tab !== view.tab || !view.routed) showTab(tab);
  view.routed = true;
  const target = routeTarget(tab, parts);
  view.leadPath = target ? target.leadPath : null;
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
