/**
 * The conformance page's script (plain JavaScript, inlined and allowed by its hash): verdict filters, search,
 * expand/collapse, copy buttons, `#check-…` links, and failures opened for printing. It touches only the DOM the
 * renderer wrote; it reads no data from elsewhere and sends nothing anywhere. Filtering sets `hidden` on the
 * rows that change, and the rows sit in chunks the browser skips while they are off screen (content-visibility),
 * so ten thousand checks stay fast.
 */
import { COPY_TEXT_FUNCTION } from '../../output/html/copy-script.js';

export const CONFORMANCE_SCRIPT = `(function () {
  'use strict';
  var checks = Array.prototype.slice.call(document.querySelectorAll('#checks details.check'));
  var chunks = Array.prototype.slice.call(document.querySelectorAll('#checks > .chunk'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[name="verdict"]'));
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  var none = document.getElementById('none');
  var toolbar = document.getElementById('toolbar');
  var texts = null;
  var failing = function (check) { var v = check.getAttribute('data-v'); return v === 'failed' || v === 'warning'; };
  toolbar.hidden = false;

  function searchText(check) {
    var parts = [check.querySelector('summary').textContent];
    var ea = check.querySelector('.ea');
    if (ea) parts.push(ea.textContent);
    var facts = check.querySelector('.detail > p.muted');
    if (facts) parts.push(facts.textContent);
    return parts.join(' ').toLowerCase();
  }

  function apply() {
    var allowed = {};
    boxes.forEach(function (box) { if (box.checked) allowed[box.value] = true; });
    var query = search.value.trim().toLowerCase();
    if (query && texts === null) texts = checks.map(searchText);
    var count = 0;
    var index = 0;
    chunks.forEach(function (chunk) {
      var inChunk = 0;
      for (var row = chunk.firstElementChild; row; row = row.nextElementSibling, index++) {
        var visible = allowed[row.getAttribute('data-v')] === true && (!query || texts[index].indexOf(query) !== -1);
        if (row.hidden === visible) row.hidden = !visible;
        if (visible) inChunk++;
      }
      // An off-screen chunk is not laid out: its placeholder height follows the rows it shows.
      if (chunk.hidden !== (inChunk === 0)) chunk.hidden = inChunk === 0;
      chunk.style.containIntrinsicSize = 'auto ' + inChunk * 31 + 'px';
      count += inChunk;
    });
    shown.textContent = 'showing ' + count + ' of ' + checks.length;
    none.hidden = count > 0;
  }

  var timer = null;
  boxes.forEach(function (box) { box.addEventListener('change', apply); });
  search.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(apply, checks.length > 2000 ? 150 : 40);
  });
  document.getElementById('expand').addEventListener('click', function () {
    checks.forEach(function (check) { if (!check.hidden && failing(check)) check.open = true; });
  });
  document.getElementById('collapse').addEventListener('click', function () {
    checks.forEach(function (check) { if (check.open) check.open = false; });
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-only]'), function (card) {
    card.addEventListener('click', function () {
      var only = card.getAttribute('data-only');
      boxes.forEach(function (box) { box.checked = only === 'all' || box.value === only; });
      apply();
      toolbar.scrollIntoView({ block: 'start' });
    });
  });

  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button.copy') : null;
    if (!button) return;
    copyText(button, button.parentElement.querySelector('pre'), 'selected');
  });

  ${COPY_TEXT_FUNCTION}

  function openFromHash() {
    if (!location.hash) return;
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === 'DETAILS') {
      target.hidden = false;
      target.parentElement.hidden = false;
      target.open = true;
      target.scrollIntoView({ block: 'start' });
    }
  }
  window.addEventListener('hashchange', openFromHash);

  var openedForPrint = [];
  window.addEventListener('beforeprint', function () {
    openedForPrint = checks.filter(function (check) { return !check.open && failing(check); });
    openedForPrint.forEach(function (check) { check.open = true; });
  });
  window.addEventListener('afterprint', function () {
    openedForPrint.forEach(function (check) { check.open = false; });
    openedForPrint = [];
  });

  apply();
  openFromHash();
})();
`;
