/* atlas charts: trace timelines, latency histograms, request lifecycles and the experiments' figures, drawn with
   uPlot (bundled from npm, no CDN). Each .atlas-charts box names a data file that registers itself on
   window.atlasData (atlas.render.runtime, atlas.render.experiments); the tables beside the charts hold the same data. */
(function () {
  "use strict";
  var MISSING = -1;
  var COLOURS = ["#3f51b5", "#ef6c00", "#2e7d32", "#8e24aa", "#c62828", "#00838f", "#6d4c41"];

  function here(rel) { return new URL(rel, document.baseURI).href; }
  var loading = {};
  function loadScript(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src; s.onload = resolve;
        s.onerror = function () { reject(new Error("cannot load " + src)); };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }
  function loadStyle(href) {
    if (document.querySelector('link[href="' + href + '"]')) return;
    var l = document.createElement("link"); l.rel = "stylesheet"; l.href = href; document.head.appendChild(l);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function width(box) { return Math.max(280, Math.min(box.clientWidth || 600, 1100)); }
  function val(v) { return v === MISSING || v === null || v === undefined ? null : v; }
  function col(list) { return list.map(val); }
  function ms(us) { return us === null ? null : us / 1000; }
  function fmt(v) { return v === null || v === undefined ? "-" : (Math.round(v * 1000) / 1000).toString(); }

  function chart(box, title, xLabel, yLabel, series, data, extra) {
    var stepped = extra && extra.stepped ? window.uPlot.paths.stepped({ align: 1 }) : null;
    var opts = {
      title: title, width: width(box), height: 220,
      scales: { x: { time: false } },
      axes: [{ label: xLabel }, { label: yLabel }],
      series: [{ label: xLabel, value: function (u, v) { return fmt(v); } }].concat(series.map(function (s, i) {
        return Object.assign({ stroke: COLOURS[i % COLOURS.length], width: 1.5,
          value: function (u, v) { return fmt(v); } }, stepped ? { paths: stepped } : {}, s);
      })),
      cursor: { sync: { key: (extra && extra.sync) || null } },
      legend: { live: true }
    };
    if (extra && extra.hooks) opts.hooks = extra.hooks;
    if (extra && extra.right) {  /* series named in extra.right.series go on a second scale, on the right */
      opts.scales[extra.right.scale] = {};
      opts.axes.push({ scale: extra.right.scale, side: 1, label: extra.right.label, grid: { show: false } });
      extra.right.series.forEach(function (i) { opts.series[i].scale = extra.right.scale; });
    }
    var u = new window.uPlot(opts, data, box);
    box.atlasPlot = u;
    return u;
  }

  /* ---- a trace's step timeline ---- */
  function stepAt(d, row) {
    var st = d.steps, s = d.series;
    var graph = st.graph[row] >= 0 ? s.graphs[st.graph[row]] : "-";
    return "step " + st.step[row] + ": " + (s.modes[st.mode[row]] || "-") + ", " + st.batch[row] + " requests, " +
      st.prefill_tokens[row] + " prefill + " + st.decode_tokens[row] + " decode tokens, running " +
      fmt(val(st.running[row])) + ", waiting " + fmt(val(st.waiting[row])) + ", graph " + graph +
      (val(st.bucket[row]) !== null ? " (batch of " + st.bucket[row] + ")" : "") + ", execute " +
      fmt(ms(val(st.exec_us[row]))) + " ms" + (val(st.gpu_us[row]) !== null ? ", GPU " + fmt(ms(st.gpu_us[row])) +
      " ms" : "") + ", KV used " + fmt(val(st.kv_used[row])) + " / free " + fmt(val(st.kv_free[row])) +
      (st.preempted[row] ? ", " + st.preempted[row] + " preempted" : "");
  }

  function requestsAt(s, row) {
    var out = [], r = s.schedules;
    for (var i = 0; i < r.request.length; i++) {
      if (r.row[i] <= row && row < r.row[i] + r.count[i]) out.push(r.request[i]);
    }
    return out;
  }

  function expand(runs, request) {
    var out = [];
    for (var i = 0; i < runs.request.length; i++) {
      if (runs.request[i] !== request) continue;
      for (var k = 0; k < runs.count[i]; k++) out.push([runs.row[i] + k, runs.value[i], runs.kind[i]]);
    }
    return out;
  }

  /* the same reading as `atlas explain --request` (atlas.runtime.explain.lifecycle) */
  function lifecycle(s, request) {
    var st = s.steps, rq = s.requests, src = s.sources, events = [];
    function add(t, order, event, step, where, detail) { events.push([t, order, event, step, where, detail]); }
    if (rq.arrival_us[request] !== MISSING) {
      add(rq.arrival_us[request], 0, "arrival", null, src.arrival, rq.prompt_tokens[request] + " prompt tokens");
    }
    var first = rq.first_row[request];
    if (first !== MISSING && rq.prefix_hit[request] > 0) {
      add(st.t_us[first], 1, "prefix hit", st.step[first], src.prefix, rq.prefix_hit[request] + " tokens found");
    }
    var blocks = {};
    expand(s.blocks, request).forEach(function (b) { blocks[b[0]] = b[1]; });
    var computed = Math.max(rq.prefix_hit[request], 0), held = s.kv_unit === "tokens" ? computed : 0, out = 0;
    var curve = { t: [], computed: [], held: [], committed: [], emitted: [] };
    var preempted = {};
    expand(s.preemptions, request).forEach(function (p) { preempted[p[0]] = true; });
    var emits = {};
    expand(s.emits, request).forEach(function (e) { emits[e[0]] = e[1]; });
    expand(s.schedules, request).forEach(function (r) {
      var row = r[0];
      held += s.kv_unit === "tokens" ? r[1] : (blocks[row] || 0);
      computed += r[1];
      var committed = s.block_size ? Math.ceil(computed / s.block_size) : null;
      add(st.t_us[row], 2, "schedule", st.step[row], src.plan, r[1] + (r[2] ? " prefill" : " decode") + " token(s)");
      if (preempted[row]) { computed = 0; held = 0; add(st.t_us[row], 3, "preempt", st.step[row], src.preempt, ""); }
      if (emits[row]) {
        out += emits[row];
        add(st.commit_us[row], 4, "tokens", st.step[row], src.commit, emits[row] + " token(s)");
      }
      curve.t.push(st.t_us[row] / 1000); curve.computed.push(computed);
      curve.held.push(s.block_size || s.kv_unit === "tokens" ? held : null);
      curve.committed.push(committed); curve.emitted.push(out);
    });
    if (rq.first_token_us[request] !== MISSING) add(rq.first_token_us[request], 5, "first token", null, src.commit, "");
    if (rq.finish_us[request] !== MISSING) {
      add(rq.finish_us[request], 6, "finish", null, src.commit, rq.output_tokens[request] + " output tokens");
    }
    events.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    return { events: events, curve: curve };
  }

  function showLifecycle(box, d, request) {
    var s = d.series, view = box.querySelector(".atlas-lifecycle");
    view.innerHTML = "";
    var life = lifecycle(s, request);
    view.appendChild(el("h4", "", "Request " + s.requests.id[request]));
    var plot = el("div", "atlas-chart"); view.appendChild(plot);
    var unit = s.kv_unit === "tokens" ? "token slots" : "KV blocks";
    chart(plot, "Its life: tokens computed and emitted, " + unit + " held and committed", "time (ms)",
      "tokens", [
        { label: "tokens computed" }, { label: "tokens emitted" }, { label: unit + " held" },
        { label: unit + " committed" }
      ], [life.curve.t, life.curve.computed, life.curve.emitted, life.curve.held, life.curve.committed],
      { right: { scale: "kv", label: unit, series: [3, 4] } });
    var table = el("table", "atlas-life-table"), head = el("tr");
    ["t (ms)", "event", "step", "detail", "source"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(head);
    life.events.forEach(function (e) {
      var tr = el("tr");
      tr.appendChild(el("td", "", fmt(e[0] / 1000))); tr.appendChild(el("td", "", e[2]));
      tr.appendChild(el("td", "", e[3] === null ? "" : String(e[3]))); tr.appendChild(el("td", "", e[5]));
      var td = el("td");
      if (e[4]) { var a = el("a", "", e[4].where); a.href = e[4].url || "#"; td.appendChild(a); }
      tr.appendChild(td); table.appendChild(tr);
    });
    view.appendChild(table);
  }

  function showRequests(box, d, row) {
    var list = box.querySelector(".atlas-step-requests");
    list.innerHTML = "";
    var ids = requestsAt(d.series, row);
    list.appendChild(el("span", "", "Requests scheduled at step " + d.steps.step[row] + " (pick one): "));
    ids.slice(0, 64).forEach(function (i) {
      var b = el("button", "atlas-request", d.series.requests.id[i]);
      b.type = "button";
      b.addEventListener("click", function () { showLifecycle(box, d, i); });
      list.appendChild(b);
    });
    if (ids.length > 64) list.appendChild(el("span", "", " and " + (ids.length - 64) + " more"));
  }

  function timeline(box, target, kind, d) {
    var st = d.steps, s = d.series, t = st.t_us.map(function (v) { return v / 1000; });
    var sync = "atlas-" + box.getAttribute("data-key");
    var hooks = {
      setCursor: [function (u) {
        if (u.cursor.idx !== null && u.cursor.idx !== undefined) {
          box.querySelector(".atlas-readout").textContent = stepAt(d, u.cursor.idx);
        }
      }],
      ready: [function (u) {
        u.over.addEventListener("click", function () {
          if (u.cursor.idx !== null && u.cursor.idx !== undefined) showRequests(box, d, u.cursor.idx);
        });
      }]
    };
    if (kind === "tokens") {
      var both = st.prefill_tokens.map(function (p, i) { return p + st.decode_tokens[i]; });
      var eager = st.graph.map(function (g, i) {
        var name = g >= 0 ? s.graphs[g] : "";
        return name === "NONE" || name === "EAGER" ? both[i] : null;
      });
      var series = [
        { label: "prefill + decode tokens", fill: "rgba(239,108,0,0.25)", stroke: COLOURS[1] },
        { label: "decode tokens", fill: "rgba(63,81,181,0.3)", stroke: COLOURS[0] }
      ];
      var data = [t, both, st.decode_tokens.slice()];
      if (eager.some(function (v) { return v !== null; }) && s.graphs.some(function (g) { return g !== "NONE" && g !== "EAGER"; })) {
        series.push({ label: "eager step (no graph)", stroke: COLOURS[4], width: 0, points: { show: true, size: 5 } });
        data.push(eager);
      }
      chart(target, "Tokens scheduled per step (batch composition)", "time (ms)", "tokens", series, data,
        { sync: sync, hooks: hooks, stepped: true });
    } else if (kind === "requests") {
      var marks = st.preempted.map(function (p, i) { return p > 0 ? st.batch[i] : null; });
      chart(target, "Requests per step", "time (ms)", "requests", [
        { label: "scheduled (batch)" }, { label: "running" }, { label: "waiting" },
        { label: "preempted / retracted", stroke: COLOURS[4], width: 0, points: { show: true, size: 7 } }
      ], [t, st.batch, col(st.running), col(st.waiting), marks], { sync: sync, hooks: hooks, stepped: true });
    } else if (kind === "kv") {
      var unit = s.kv_unit === "tokens" ? "token slots" : "blocks";
      chart(target, "KV cache per step (" + unit + ")", "time (ms)", unit, [
        { label: "held by requests" }, { label: "committed tokens fill" }, { label: "prefix-cached" },
        { label: "free" }
      ], [t, col(st.kv_used), col(st.kv_committed), col(st.kv_cached), col(st.kv_free)],
        { sync: sync, hooks: hooks, stepped: true });
    }
  }

  function histogram(target, h, title, xLabel) {
    var bars = window.uPlot.paths.bars({ size: [0.95, Infinity], align: 1 });
    var xs = h.edges.slice(0, -1);
    if (!xs.length) { target.appendChild(el("p", "", title + ": no values in this trace.")); return; }
    chart(target, title, xLabel, "requests or gaps", [
      { label: "count", fill: "rgba(63,81,181,0.45)", paths: bars, points: { show: false } }
    ], [xs, h.counts]);
  }

  function drawTrace(box, d) {
    box.querySelectorAll(".atlas-chart").forEach(function (target) {
      var kind = target.getAttribute("data-chart");
      if (kind === "ttft") histogram(target, d.ttft, "TTFT per request (" + d.num_ttft + " requests)", "TTFT (ms)");
      else if (kind === "itl") histogram(target, d.itl, "Inter-token latency (" + d.num_itl + " values)", d.itl_label);
      else if (d.series) {
        d.steps = d.series.steps;
        timeline(box, target, kind, d);
      }
    });
  }

  /* ---- the experiments' figures: A100 (article) beside H200 absent / on, one chart per metric ---- */
  function drawFigures(box, d) {
    var target = box.querySelector(".atlas-chart");
    var n = d.categories.length, xs = [], article = [], absent = [], on = [];
    for (var i = 0; i < n; i++) {
      [-0.27, 0, 0.27].forEach(function (dx, k) {
        xs.push(i + dx);
        article.push(k === 0 ? d.article[i] : null); absent.push(k === 1 ? d.absent[i] : null);
        on.push(k === 2 ? d.on[i] : null);
      });
    }
    var bars = window.uPlot.paths.bars({ size: [0.9, Infinity], align: 0 });
    var opts = {
      title: d.title, width: width(box), height: 240, scales: { x: { time: false, range: [-0.6, n - 0.4] } },
      axes: [{ label: d.x_label, values: function (u, splits) {
        return splits.map(function (v) { return Math.abs(v - Math.round(v)) < 1e-9 ? (d.categories[Math.round(v)] || "") : ""; });
      }, incrs: [1], space: 10, size: 74 }, { label: d.unit }],
      series: [{ label: "figure", value: function (u, v) { return v === null ? "-" : d.categories[Math.round(v)] || ""; } },
        { label: "A100 (article)", fill: "rgba(158,158,158,0.7)", stroke: "#757575", paths: bars, points: { show: false } },
        { label: "H200 absent", fill: "rgba(63,81,181,0.6)", stroke: COLOURS[0], paths: bars, points: { show: false } },
        { label: "H200 on", fill: "rgba(239,108,0,0.6)", stroke: COLOURS[1], paths: bars, points: { show: false } }],
      hooks: { draw: [function (u) {
        var ctx = u.ctx; ctx.save(); ctx.strokeStyle = "#212121"; ctx.lineWidth = 1.5;
        d.intervals.forEach(function (iv) {  /* [category, 1 absent | 2 on, low, high] */
          var x = u.valToPos(iv[0] + (iv[1] === 1 ? 0 : 0.27), "x", true);
          var y0 = u.valToPos(iv[2], "y", true), y1 = u.valToPos(iv[3], "y", true);
          ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1);
          ctx.moveTo(x - 4, y0); ctx.lineTo(x + 4, y0); ctx.moveTo(x - 4, y1); ctx.lineTo(x + 4, y1); ctx.stroke();
        });
        ctx.restore();
      }] }
    };
    target.atlasPlot = new window.uPlot(opts, [xs, article, absent, on], target);
  }

  function start() {
    var boxes = document.querySelectorAll(".atlas-charts");
    if (!boxes.length) return;
    var root = boxes[0].getAttribute("data-root") || "";
    loadStyle(here(root + "assets/atlas/uplot.min.css"));
    loadScript(here(root + "assets/atlas/uplot.min.js")).then(function () {
      boxes.forEach(function (box) {
        var key = box.getAttribute("data-key");
        loadScript(here(box.getAttribute("data-src"))).then(function () {
          var d = (window.atlasData || {})[key];
          if (!d) throw new Error(key + " is missing");
          if (box.classList.contains("atlas-figures")) drawFigures(box, d[box.getAttribute("data-metric")]);
          else drawTrace(box, d);
          box.setAttribute("data-drawn", "1");
        }).catch(function (err) { box.appendChild(el("p", "atlas-chart-error", String(err))); });
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
