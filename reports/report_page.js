// report.html's own script (inlined by reports/campaign_report.cc, no
// network): explores each timeline and draws each run's plots.
//  - Timelines (div.timeline holding a Graphviz SVG): the mouse wheel zooms
//    about the pointer, a drag pans, a double click or "fit" shows the whole
//    picture, "1:1" shows it at print size; hovering a mark shows what it is;
//    clicking an event (an SVG node of class "e<id>") scrolls to its row in
//    the section's event table (tr#<section>-e<id>) and flashes it.
//  - Plots (div.plots naming a JSON data block): operations per second by
//    outcome, acquire latency, polls per second, over simulated time, with
//    the run's faults shaded; zooming one zooms the others.
(function () {
  'use strict';

  var XLINK = 'http://www.w3.org/1999/xlink';

  function setupTimeline(box) {
    var svg = box.querySelector('svg');
    var port = box.querySelector('.viewport');
    var tip = box.querySelector('.tip');
    if (!svg || !port) return;
    var vb = svg.getAttribute('viewBox').split(/[\s,]+/).map(Number);
    var full = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
    // Graphviz's <title> elements name the nodes ("n12"): the tooltip reads
    // the marks' own titles (xlink:title) instead.
    Array.prototype.forEach.call(svg.querySelectorAll('title'), function (t) { t.parentNode.removeChild(t); });
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMinYMin meet');
    var printScale = 0.75;  // SVG points per screen pixel at print size (1 pt = 1.33 px)
    port.style.height = Math.max(160, Math.min(window.innerHeight * 0.8, full.h / printScale + 4)) + 'px';
    var view = { x: full.x, y: full.y, s: 1 };  // s: SVG points per pixel

    function fitScale() { return Math.max(full.w / port.clientWidth, full.h / port.clientHeight); }
    function apply() {
      svg.setAttribute('viewBox', [view.x, view.y, port.clientWidth * view.s, port.clientHeight * view.s].join(' '));
      box.setAttribute('data-zoom', (printScale / view.s).toFixed(3));
    }
    function fit() { view.x = full.x; view.y = full.y; view.s = fitScale(); apply(); }
    function printSize() { view.s = printScale; apply(); }
    function zoomAt(px, py, factor) {
      var s = Math.min(Math.max(view.s / factor, 0.05), fitScale() * 1.5);
      view.x += px * (view.s - s);
      view.y += py * (view.s - s);
      view.s = s;
      apply();
    }
    // Whole picture when its text stays readable, else print size from the top left.
    if (fitScale() <= 1.1) fit(); else printSize();

    port.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var r = port.getBoundingClientRect();
      zoomAt(ev.clientX - r.left, ev.clientY - r.top, ev.deltaY < 0 ? 1.25 : 0.8);
    }, { passive: false });
    var drag = null;
    port.addEventListener('mousedown', function (ev) {
      drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
      port.classList.add('dragging');
      ev.preventDefault();
    });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      view.x = drag.vx - dx * view.s;
      view.y = drag.vy - dy * view.s;
      apply();
    });
    window.addEventListener('mouseup', function () {
      port.classList.remove('dragging');
      setTimeout(function () { drag = null; }, 0);
    });
    port.addEventListener('dblclick', function (ev) { ev.preventDefault(); fit(); });
    Array.prototype.forEach.call(box.querySelectorAll('button[data-act]'), function (b) {
      b.addEventListener('click', function () {
        var act = b.getAttribute('data-act');
        if (act === 'in') zoomAt(port.clientWidth / 2, port.clientHeight / 2, 1.5);
        else if (act === 'out') zoomAt(port.clientWidth / 2, port.clientHeight / 2, 1 / 1.5);
        else if (act === 'fit') fit();
        else printSize();
      });
    });

    function markOf(target) {
      for (var n = target; n && n !== svg; n = n.parentNode) {
        if (n.nodeName === 'a' && (n.getAttributeNS(XLINK, 'title') || n.getAttribute('xlink:title'))) {
          return n.getAttributeNS(XLINK, 'title') || n.getAttribute('xlink:title');
        }
      }
      return null;
    }
    function eventOf(target) {
      for (var n = target; n && n !== svg; n = n.parentNode) {
        var cls = n.getAttribute && n.getAttribute('class');
        var m = cls && /(^| )e(\d+)( |$)/.exec(cls);
        if (m) return m[2];
      }
      return null;
    }
    function rowOf(id) { return document.getElementById(box.getAttribute('data-section') + '-e' + id); }
    port.addEventListener('mousemove', function (ev) {
      if (drag && drag.moved) { tip.style.display = 'none'; return; }
      var text = markOf(ev.target);
      var id = eventOf(ev.target);
      if (!text && !id) { tip.style.display = 'none'; return; }
      tip.textContent = (text || ('#' + id)) + (id && rowOf(id) ? '  (click: its row)' : '');
      var r = box.getBoundingClientRect();
      tip.style.left = (ev.clientX - r.left + 14) + 'px';
      tip.style.top = (ev.clientY - r.top + 14) + 'px';
      tip.style.display = 'block';
    });
    port.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    port.addEventListener('click', function (ev) {
      if (drag && drag.moved) return;
      var id = eventOf(ev.target);
      var row = id && rowOf(id);
      if (!row) return;
      row.scrollIntoView({ block: 'center' });
      row.classList.remove('flash');
      void row.offsetWidth;  // restart the animation
      row.classList.add('flash');
    });
  }

  var faultColours = { crash: 'rgba(97,97,97,0.30)', redis_restart: 'rgba(183,28,28,0.22)',
                       failover: 'rgba(183,28,28,0.22)' };
  function setupPlots(box) {
    var block = document.getElementById(box.getAttribute('data-plot'));
    if (!block || typeof Dygraph === 'undefined') return;
    var data = JSON.parse(block.textContent);
    var shade = function (canvas, area, g) {
      data.faults.forEach(function (f) {
        var l = g.toDomXCoord(f[0]), r = g.toDomXCoord(f[1]);
        if (r - l < 2) { l -= 1; r = l + 2; }
        canvas.fillStyle = faultColours[f[3]] || 'rgba(255,152,0,0.28)';
        canvas.fillRect(l, area.y, r - l, area.h);
      });
    };
    var charts = [];
    var syncing = false;
    function sync(me) {
      return function (minX, maxX) {
        if (syncing) return;
        syncing = true;
        charts.forEach(function (c) { if (c !== me.chart) c.updateOptions({ dateWindow: [minX, maxX] }); });
        syncing = false;
      };
    }
    function chart(name, title, labels, columns, extra) {
      var div = box.querySelector('[data-chart="' + name + '"]');
      var labelsDiv = box.querySelector('[data-labels="' + name + '"]');
      if (!div) return;
      var rows = data.t.map(function (t, i) { return [t].concat(columns.map(function (c) { return c[i]; })); });
      var me = {};
      var options = {
        title: title, titleHeight: 22, labels: ['time (s)'].concat(labels), underlayCallback: shade,
        legend: 'always', labelsDiv: labelsDiv, labelsSeparateLines: false, xlabel: 'simulated time (s)',
        zoomCallback: sync(me), drawPoints: false, strokeWidth: 1.5, animatedZooms: false
      };
      for (var k in extra) options[k] = extra[k];
      me.chart = new Dygraph(div, rows, options);
      charts.push(me.chart);
    }
    var per = function (col) { return col.map(function (n) { return n / data.bucket_s; }); };
    chart('ops', 'operations per second, by outcome',
          ['acquired', 'gave up', 'unknown', 'unlocked', 'unlock refused'],
          [per(data.acquired), per(data.gave_up), per(data.unknown), per(data.unlocked), per(data.unlock_refused)],
          { colors: ['#2e7d32', '#9e9e9e', '#ef6c00', '#1a5fb4', '#d50000'], ylabel: 'per second' });
    chart('latency', 'acquire latency, invoke to ok', ['median ms', 'max ms'],
          [data.latency_p50_ms, data.latency_max_ms],
          { colors: ['#1a5fb4', '#d50000'], ylabel: 'ms', logscale: true, connectSeparatedPoints: false });
    chart('polls', 'polls per second', ['polls/s'], [per(data.polls)],
          { colors: ['#424242'], ylabel: 'per second', fillGraph: true });
  }

  // With "#selftest" in the address, the page exercises itself and says how
  // it went in <body data-selftest>: a wheel turn on the first timeline
  // (its zoom before and after), and how many plots were drawn (a canvas
  // each). The test suite reads it from headless Chromium's DOM.
  function selfTest() {
    var box = document.querySelector('div.timeline');
    var result = 'timelines ' + document.querySelectorAll('div.timeline svg').length;
    if (box) {
      var port = box.querySelector('.viewport');
      var r = port.getBoundingClientRect();
      var before = box.getAttribute('data-zoom');
      port.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: r.left + 50, clientY: r.top + 50,
                                                   bubbles: true, cancelable: true }));
      result += '; zoom ' + before + ' -> ' + box.getAttribute('data-zoom');
    }
    result += '; plots ' + document.querySelectorAll('div.plots .chart canvas').length / 2;
    document.body.setAttribute('data-selftest', result);
  }

  document.addEventListener('DOMContentLoaded', function () {
    Array.prototype.forEach.call(document.querySelectorAll('div.timeline'), setupTimeline);
    Array.prototype.forEach.call(document.querySelectorAll('div.plots'), setupPlots);
    if (window.location.hash === '#selftest') selfTest();
    // The timelines' heights are set only now: scroll to the section the
    // address names again, where it is after them.
    var target = window.location.hash.length > 1 && document.getElementById(window.location.hash.slice(1));
    if (target) target.scrollIntoView();
    document.body.setAttribute('data-ready', '1');
  });
})();
