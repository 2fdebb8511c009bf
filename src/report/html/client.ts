/**
 * The report's only script, inlined and allowed by its sha256 in the Content-Security-Policy. Plain
 * ES2020 kept as a string so its bytes (and so its hash) never depend on how leakscope was built. It reads
 * its data from the JSON block, never uses eval or innerHTML, and touches the DOM through textContent,
 * attributes and node moves only.
 */
export const CLIENT_JS = `
(function () {
  'use strict';
  var dataEl = document.getElementById('leakscope-data');
  var data = dataEl ? JSON.parse(dataEl.textContent || '{}') : {};
  var rows = data.rows || [];
  var body = document.getElementById('groups-body');
  var trs = body ? Array.prototype.slice.call(body.rows) : [];
  var filter = document.getElementById('filter');
  var kind = document.getElementById('filter-kind');
  var shown = document.getElementById('shown');

  function fmt(n) { return String(n).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }
  function rowOf(tr) { return rows[Number(tr.getAttribute('data-i'))] || { c: 0, k: '', f: '', w: -1, l: '', t: '' }; }

  function applyFilter() {
    var words = (filter ? filter.value : '').toLowerCase().split(/\\s+/).filter(Boolean);
    var k = kind ? kind.value : '';
    var n = 0;
    trs.forEach(function (tr) {
      var r = rowOf(tr);
      var ok = (!k || r.k === k) && words.every(function (w) { return r.t.indexOf(w) !== -1; });
      tr.hidden = !ok;
      if (ok) n++;
    });
    if (shown) shown.textContent = n === trs.length ? fmt(n) + ' groups' : fmt(n) + ' of ' + fmt(trs.length) + ' groups';
  }
  if (filter) filter.addEventListener('input', applyFilter);
  if (kind) kind.addEventListener('change', applyFilter);

  var ths = document.querySelectorAll('table.groups th');
  function sortBy(key, dir) {
    var k = key === 's' ? 'c' : key;
    var sorted = trs.slice().sort(function (a, b) {
      var x = rowOf(a)[k], y = rowOf(b)[k], c;
      if (typeof x === 'number') c = x - y; else c = x < y ? -1 : x > y ? 1 : 0;
      if (c === 0) c = Number(a.getAttribute('data-i')) - Number(b.getAttribute('data-i'));
      else c = dir === 'ascending' ? c : -c;
      return c;
    });
    sorted.forEach(function (tr) { body.appendChild(tr); });
    Array.prototype.forEach.call(ths, function (th) {
      var b = th.querySelector('button');
      if (b && b.getAttribute('data-sort') === key) th.setAttribute('aria-sort', dir); else th.removeAttribute('aria-sort');
    });
  }
  Array.prototype.forEach.call(ths, function (th) {
    var b = th.querySelector('button');
    if (!b || !body) return;
    b.addEventListener('click', function () {
      var key = b.getAttribute('data-sort');
      var cur = th.getAttribute('aria-sort');
      var numeric = th.classList.contains('num');
      var dir = cur ? (cur === 'ascending' ? 'descending' : 'ascending') : (numeric ? 'descending' : 'ascending');
      sortBy(key, dir);
    });
  });

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === 'DETAILS') el.open = true;
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();

  function allDetails() { return Array.prototype.slice.call(document.querySelectorAll('details')); }
  var expand = document.getElementById('expand-all');
  var collapse = document.getElementById('collapse-all');
  if (expand) expand.addEventListener('click', function () { allDetails().forEach(function (d) { d.open = true; }); });
  if (collapse) collapse.addEventListener('click', function () { allDetails().forEach(function (d) { d.open = false; }); });

  var closed = [];
  window.addEventListener('beforeprint', function () {
    closed = allDetails().filter(function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    closed.forEach(function (d) { d.open = false; });
    closed = [];
  });
  document.documentElement.setAttribute('data-js', 'ready');
})();
`.trim();
