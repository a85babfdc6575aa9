/* search.js: the site's search box (docs/manual.md, "Search").
 *
 * The page holds a hidden <div class="ld-search" data-root="../">: this
 * script shows it, so that a page read without JavaScript has no box
 * that does nothing.  The index, search-index.js at the site's root
 * (src/site/searchindex.c writes it), is a script that defines
 * LD_SEARCH: it is loaded with a <script src> on the box's first focus,
 * which works from file:// where nothing can be fetched.
 *
 * A query is cut into terms as the index was (tokens() follows
 * search_tokens() in src/render/searchtext.c); each term matches every
 * indexed term it begins (a binary search in the sorted list); a
 * section is found when every term of the query matches one of its
 * terms. */
(function () {
  'use strict';
  var box = document.querySelector('.ld-search');
  if (!box) return;
  var input = box.querySelector('input');
  var list = box.querySelector('.ld-search-results');
  var root = box.getAttribute('data-root') || '';
  var MAX_TERM = 40; /* SEARCH_TERM_MAX */
  var SHOWN = 20;
  var index = null; /* LD_SEARCH, unpacked */
  var active = -1;
  box.hidden = false;

  function isDigit(c) { return c >= 48 && c <= 57; }
  function wordCp(c) {
    if (c < 0x80) return isDigit(c) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    if (c < 0xC0 || c === 0xD7 || c === 0xF7) return false;
    if ((c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F)) return false;
    return c < 0xE000;
  }
  function utf8Len(c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }
  function tokens(s) {
    var out = [], t = '', n = 0, cps = [];
    for (var ch of s) cps.push(ch.codePointAt(0));
    var dig = function (i) { return i < cps.length && isDigit(cps[i]); };
    for (var i = 0; i < cps.length; i++) {
      var c = cps[i];
      if (wordCp(c)) {
        var k = utf8Len(c);
        if (n + k <= MAX_TERM) {
          t += String.fromCodePoint(c >= 65 && c <= 90 ? c + 32 : c);
          n += k;
        }
        continue;
      }
      if (n && (c === 46 || c === 44) && isDigit(t.charCodeAt(t.length - 1)) && dig(i + 1)) {
        if (c === 46) {
          if (n < MAX_TERM) { t += '.'; n++; }
          continue;
        }
        if (dig(i + 2) && dig(i + 3) && !dig(i + 4)) continue;
      }
      if (n) out.push(t);
      t = ''; n = 0;
    }
    if (n) out.push(t);
    return out;
  }

  /* The index, inverted: for each term the sections that hold it. */
  function unpack(raw) {
    var terms = raw.terms ? raw.terms.split(' ') : [];
    var post = new Array(terms.length);
    var secs = raw.sections;
    for (var s = 0; s < secs.length; s++) {
      var d = secs[s][3], id = 0;
      if (!d) continue;
      var parts = d.split(',');
      for (var j = 0; j < parts.length; j++) {
        id += parseInt(parts[j], 36);
        (post[id] || (post[id] = [])).push(s);
      }
    }
    return { terms: terms, post: post, reports: raw.reports, sections: secs,
             hits: new Uint16Array(secs.length), score: new Float64Array(secs.length) };
  }

  function lowerBound(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /* How many of the query's terms begin a term of text. */
  function matched(text, qs) {
    var ts = tokens(text), n = 0;
    for (var i = 0; i < qs.length; i++)
      for (var j = 0; j < ts.length; j++)
        if (ts[j].lastIndexOf(qs[i], 0) === 0) { n++; break; }
    return n;
  }

  /* The sections that hold every term of q, best first. */
  function search(q) {
    var ix = index, qs = tokens(q);
    if (!qs.length) return [];
    var hits = ix.hits, score = ix.score;
    hits.fill(0);
    score.fill(0);
    for (var k = 0; k < qs.length; k++) {
      var from = lowerBound(ix.terms, qs[k]);
      for (var i = from; i < ix.terms.length && ix.terms[i].lastIndexOf(qs[k], 0) === 0; i++) {
        var p = ix.post[i];
        if (!p) continue;
        var w = ix.terms[i].length === qs[k].length ? 2 : 1;
        for (var j = 0; j < p.length; j++) {
          var s = p[j];
          if (hits[s] === k) { hits[s] = k + 1; score[s] += w; }
          else if (hits[s] === k + 1 && w === 2) score[s] += 1;
        }
      }
    }
    var found = [];
    for (var s2 = 0; s2 < hits.length; s2++) if (hits[s2] === qs.length) found.push(s2);
    /* a match in the heading, or the report's title, ranks first */
    for (var f = 0; f < found.length && f < 2000; f++) {
      var sec = ix.sections[found[f]];
      var head = sec[2] || ix.reports[sec[0]][1];
      score[found[f]] += 4 * matched(head, qs);
    }
    found.sort(function (a, b) { return score[b] - score[a] || a - b; });
    return { qs: qs, found: found };
  }

  /* The value of section sec that the query names best: the first with
   * the most query terms beginning its expression's or its text's. */
  function valueOf(sec, qs) {
    var v = sec[4], best = '', most = 0;
    for (var i = 0; i + 1 < v.length; i += 2) {
      var n = matched(v[i] + ' ' + v[i + 1], qs);
      if (n > most) { most = n; best = v[i] + ' = ' + v[i + 1]; }
    }
    return best;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function setActive(i) {
    var items = list.children;
    if (active >= 0 && items[active]) items[active].removeAttribute('aria-selected');
    active = i;
    if (i >= 0 && items[i] && items[i].getAttribute('role') === 'option') {
      items[i].setAttribute('aria-selected', 'true');
      input.setAttribute('aria-activedescendant', items[i].id);
      items[i].scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  }

  function show() {
    var q = input.value;
    list.textContent = '';
    active = -1;
    input.removeAttribute('aria-activedescendant');
    if (!index || !q.trim()) { close(); return; }
    var r = search(q), found = r.found || [];
    for (var i = 0; i < found.length && i < SHOWN; i++) {
      var sec = index.sections[found[i]];
      var rep = index.reports[sec[0]];
      var href = root + rep[0] + '/index.html' + (sec[1] ? '#' + encodeURIComponent(sec[1]) : '');
      var li = el('li', 'ld-search-hit');
      li.id = 'ld-search-hit-' + i;
      li.setAttribute('role', 'option');
      var a = el('a');
      a.href = href;
      a.tabIndex = -1;
      a.appendChild(el('span', 'ld-search-report', rep[1]));
      if (sec[2]) a.appendChild(el('span', 'ld-search-section', sec[2]));
      var v = valueOf(sec, r.qs);
      if (v) a.appendChild(el('span', 'ld-search-value', v));
      li.appendChild(a);
      list.appendChild(li);
    }
    var more = found.length - SHOWN;
    var note = found.length === 0 ? 'Nothing found'
      : more > 0 ? more + ' more: add a word' : '';
    if (note) {
      var n = el('li', 'ld-search-note', note);
      n.setAttribute('role', 'presentation');
      list.appendChild(n);
    }
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  }

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }

  function load() {
    if (index || load.started) return;
    load.started = true;
    var s = document.createElement('script');
    s.src = root + 'search-index.js';
    s.charset = 'utf-8';
    s.onload = function () {
      if (window.LD_SEARCH) index = unpack(window.LD_SEARCH);
      box.setAttribute('data-ready', '');
      show();
    };
    s.onerror = function () {
      box.setAttribute('data-ready', '');
      list.textContent = '';
      var n = el('li', 'ld-search-note', 'The search index (search-index.js) did not load');
      list.appendChild(n);
      list.hidden = false;
    };
    document.head.appendChild(s);
  }

  input.addEventListener('focus', load);
  input.addEventListener('input', function () { load(); show(); });
  input.addEventListener('keydown', function (e) {
    var n = list.hidden ? 0 : list.querySelectorAll('[role=option]').length;
    if (e.key === 'ArrowDown' && n) {
      setActive(active + 1 < n ? active + 1 : 0);
      e.preventDefault();
    } else if (e.key === 'ArrowUp' && n) {
      setActive(active > 0 ? active - 1 : n - 1);
      e.preventDefault();
    } else if (e.key === 'Enter' && n) {
      var a = list.children[active >= 0 ? active : 0].querySelector('a');
      close();
      a.click();
      e.preventDefault();
    } else if (e.key === 'Escape') {
      if (!list.hidden) close(); else input.value = '';
    }
  });
  document.addEventListener('click', function (e) {
    if (!box.contains(e.target)) close();
  });
  list.addEventListener('click', function (e) {
    if (e.target.closest('a')) close();
  });

  /* for tests and benchmarks: the query's results without the DOM */
  window.ldSearch = function (q) {
    var r = index ? search(q) : { found: [] };
    return (r.found || []).map(function (s) {
      var sec = index.sections[s];
      return { report: index.reports[sec[0]][0], id: sec[1], heading: sec[2] };
    });
  };
})();
