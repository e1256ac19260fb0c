/* atlas site behaviour: component call graphs (cytoscape, bundled) and the symbol browser. Data files register
   themselves on window.atlasData and are loaded by <script> tags on demand, which works from file:// too. */
(function () {
  "use strict";
  var loading = {};

  function here(rel) { return new URL(rel, document.baseURI).href; }

  function loadScript(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src; s.async = true;
        s.onload = resolve;
        s.onerror = function () { reject(new Error("cannot load " + src)); };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }

  function loadData(src, key) {
    return loadScript(src).then(function () {
      var data = (window.atlasData || {})[key];
      if (!data) throw new Error(src + " does not hold " + key);
      return data;
    });
  }

  function text(tag, cls, content) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (content !== undefined) el.textContent = content;
    return el;
  }

  /* ---- component graphs ---- */
  var KIND_COLOURS = { "class": "#7e57c2", "method": "#3f51b5", "function": "#00897b", "op": "#f4511e",
    "cpp_function": "#6d4c41", "cuda_kernel": "#e53935", "triton_kernel": "#fb8c00", "external": "#9e9e9e" };

  function graphStyle() {
    var style = [
      { selector: "node", style: { "label": "data(label)", "font-size": 9, "width": 14, "height": 14,
        "background-color": "#5c6bc0", "color": "#777", "text-valign": "bottom", "text-margin-y": 2,
        "min-zoomed-font-size": 8 } },
      { selector: "node[outside = 1]", style: { "shape": "diamond", "background-opacity": 0.6 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#ffb300" } },
      { selector: "edge", style: { "width": 1, "line-color": "#b0b7c3", "curve-style": "straight",
        "target-arrow-shape": "triangle", "target-arrow-color": "#b0b7c3", "arrow-scale": 0.6, "opacity": 0.7 } },
      /* large graphs start with arrowless haystack edges and no labels (about half the first-frame cost);
         zooming in brings arrows and labels back */
      { selector: "edge.atlas-fast", style: { "curve-style": "haystack", "haystack-radius": 0 } },
      { selector: "node.atlas-fast", style: { "label": "" } },
      { selector: "edge[confidence < 0.6]", style: { "line-style": "dashed" } }
    ];
    Object.keys(KIND_COLOURS).forEach(function (kind) {
      style.splice(1, 0, { selector: "node[kind = '" + kind + "']", style: { "background-color": KIND_COLOURS[kind] } });
    });
    return style;
  }

  /* cy.fit() measures every label (hundreds of ms for 500 nodes); node centres are enough to frame the graph */
  function fitPositions(cy) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    cy.nodes().forEach(function (n) {
      var p = n.position();
      x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
    });
    if (x0 === Infinity) return;
    var w = cy.width(), h = cy.height(), pad = 40;
    var zoom = Math.min((w - 2 * pad) / Math.max(x1 - x0, 1), (h - 2 * pad) / Math.max(y1 - y0, 1), 2);
    zoom = Math.max(zoom, cy.minZoom());
    cy.viewport({ zoom: zoom, pan: { x: w / 2 - zoom * (x0 + x1) / 2, y: h / 2 - zoom * (y0 + y1) / 2 } });
  }

  /* data rows: nodes [id, label, kind, path, line, x, y, page]; edges [source, target, provenance, confidence] */
  function nodeElement(data, browser, i, outside) {
    var r = data.nodes[i], path = data.paths[r[3]];
    // a symbol without a page of its own opens at its line in the source view (browse/<engine>.html -> code.html)
    var code = path ? browser.replace(/browse\/([^\/.]+)\.html$/, "code.html#$1/") + path + ":L" + r[4] : "";
    var url = r[7] || code || (browser + "#file=" + encodeURIComponent(path) + "&sym=" + encodeURIComponent(r[0]));
    return { group: "nodes", data: { id: r[0], label: r[1], kind: data.kinds[r[2]], url: url, path: path,
      line: r[4], outside: outside ? 1 : 0 }, position: { x: r[5] || 0, y: r[6] || 0 } };
  }

  function edgeElement(source, target, provenance, confidence) {
    return { group: "edges", data: { id: source + "->" + target, source: source, target: target,
      provenance: provenance || "", confidence: confidence === undefined ? 1 : confidence } };
  }

  function initGraph(box, t0) {
    var status = box.querySelector(".atlas-graph-status");
    var canvas = box.querySelector(".atlas-graph-canvas");
    var root = box.getAttribute("data-root");
    var marks = { library: Math.round(performance.now() - t0) };
    loadData(here(box.getAttribute("data-src")), box.getAttribute("data-key")).then(function (data) {
      marks.data = Math.round(performance.now() - t0);
      var browser = box.getAttribute("data-browser"), elements = [];
      for (var i = 0; i < data.num_shown; i++) elements.push(nodeElement(data, browser, i, false));
      data.edges.forEach(function (e) {
        elements.push(edgeElement(data.nodes[e[0]][0], data.nodes[e[1]][0], data.provenances[e[2]], e[3]));
      });
      var cy = window.cytoscape({
        container: canvas, elements: [], /* adding after construction is about twice as fast */
        minZoom: 0.05, maxZoom: 4, wheelSensitivity: 0.3, textureOnViewport: true, hideEdgesOnViewport: true,
        style: graphStyle()
      });
      if (data.num_shown > 200) {
        elements.forEach(function (e) { e.classes = "atlas-fast"; });
        cy.on("zoom", function () {
          var detail = cy.zoom() >= 0.9;
          if (detail !== cy.scratch("detail")) {
            cy.scratch("detail", detail);
            cy.elements()[detail ? "removeClass" : "addClass"]("atlas-fast");
          }
        });
      }
      cy.add(elements);
      fitPositions(cy);
      marks.built = Math.round(performance.now() - t0);
      var indexOf = {};
      data.nodes.forEach(function (r, i) { indexOf[r[0]] = i; });
      function expand(node) {
        var more = data.expand[String(indexOf[node.id()])];
        if (!more) { status.textContent = node.data("label") + ": no callers or callees outside the view"; return; }
        var p = node.position(), added = 0;
        function place(list, dir) {
          list.forEach(function (j, i) {
            var other = data.nodes[j][0];
            if (cy.getElementById(other).empty()) {
              var n = nodeElement(data, browser, j, true);
              n.position = { x: p.x + dir * 90, y: p.y + (i - list.length / 2) * 22 };
              cy.add(n); added++;
            }
            var e = dir < 0 ? [other, node.id()] : [node.id(), other];
            if (cy.getElementById(e[0] + "->" + e[1]).empty()) cy.add(edgeElement(e[0], e[1]));
          });
        }
        place(more[0], -1); place(more[1], 1);
        status.textContent = node.data("label") + ": " + more[0].length + " callers, " +
          more[1].length + " callees outside the component (" + added + " added)";
      }
      cy.on("tap", "node", function (evt) {
        var url = evt.target.data("url");
        if (url) window.location.href = here(root + url);
      });
      cy.on("cxttap taphold", "node", function (evt) { expand(evt.target); });
      cy.on("mouseover", "node", function (evt) {
        var d = evt.target.data();
        canvas.title = d.id + (d.path ? "  (" + d.path + ":" + d.line + ")" : "");
      });
      box.querySelector("[data-action=fit]").onclick = function () { fitPositions(cy); };
      box.querySelector("[data-action=reset]").onclick = function () {
        cy.remove("node[outside = 1]"); fitPositions(cy);
      };
      cy.ready(function () {
        requestAnimationFrame(function () {
          var ms = Math.round(performance.now());
          box.setAttribute("data-graph-ms", String(ms - Math.round(t0)));
          marks.frame = ms - Math.round(t0);
          box.setAttribute("data-marks", JSON.stringify(marks));
          box.setAttribute("data-ready-ms", String(ms));
          window.atlasGraphs = (window.atlasGraphs || []).concat([cy]);
          status.textContent = data.num_shown + " nodes, " + data.edges.length + " edges; interactive in " +
            (ms - Math.round(t0)) + " ms (" + ms + " ms after navigation start)";
        });
      });
    }).catch(function (err) { status.textContent = String(err); });
  }

  /* ---- symbol browser ---- */
  function parseHash() {
    var out = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var i = part.indexOf("=");
      if (i > 0) out[decodeURIComponent(part.slice(0, i))] = decodeURIComponent(part.slice(i + 1));
    });
    return out;
  }

  function shardOf(name) {
    var s = name.slice(0, 2).toLowerCase().replace(/[^a-z0-9]/g, "_");
    while (s.length < 2) s += "_";
    return s;
  }

  function initBrowser(box) {
    var engine = box.getAttribute("data-engine"), root = box.getAttribute("data-root");
    var base = box.getAttribute("data-base");
    var list = box.querySelector(".atlas-browser-files"), pane = box.querySelector(".atlas-browser-symbols");
    var find = box.querySelector(".atlas-browser-find");
    var dataRoot = root + "assets/atlas/data/" + engine + "/";
    loadData(here(dataRoot + "files.js"), engine + "/files").then(function (index) {
      var files = index.files;
      function showFile(number, symbolId) {
        var entry = files[number];
        loadData(here(root + entry[2]), engine + "/file/" + entry[0]).then(function (data) {
          pane.textContent = "";
          var head = text("h2", "", entry[0]);
          var up = document.createElement("a");
          up.href = base + entry[0]; up.textContent = " upstream"; head.appendChild(up);
          pane.appendChild(head);
          var table = text("table", "atlas-browser-table");
          data.symbols.forEach(function (s) {
            var tr = document.createElement("tr");
            tr.id = "sym-" + s.id;
            var name = text("td"), link;
            link = document.createElement("a");
            link.href = s.page ? here(root + s.page) : here(root + "code.html") + "#" + engine + "/" + entry[0] + ":L" + s.start;
            link.appendChild(text("code", "", s.id.slice(s.id.lastIndexOf(".") + 1)));
            name.appendChild(link);
            var lines = document.createElement("a");
            lines.href = base + entry[0] + "#L" + s.start + (s.end > s.start ? "-L" + s.end : "");
            lines.textContent = "L" + s.start + "-L" + s.end;
            var where = text("td"); where.appendChild(lines);
            tr.appendChild(name); tr.appendChild(text("td", "", s.kind)); tr.appendChild(where);
            tr.appendChild(text("td", "atlas-sig", s.signature));
            if (s.id === symbolId) tr.className = "atlas-hit";
            table.appendChild(tr);
          });
          pane.appendChild(table);
          var hit = symbolId && document.getElementById("sym-" + symbolId);
          if (hit) hit.scrollIntoView({ block: "center" });
        }).catch(function (err) { pane.textContent = String(err); });
      }
      var byPath = {};
      files.forEach(function (f, i) {
        byPath[f[0]] = i;
        var li = text("li"), a = document.createElement("a");
        a.href = "#file=" + encodeURIComponent(f[0]);
        a.textContent = f[0] + " (" + f[1] + ")";
        li.appendChild(a); list.appendChild(li);
      });
      function route() {
        var h = parseHash();
        if (h.file !== undefined && byPath[h.file] !== undefined) showFile(byPath[h.file], h.sym);
      }
      window.addEventListener("hashchange", route);
      route();
      find.addEventListener("input", function () {
        var q = find.value.trim();
        if (q.length < 2) return;
        var shard = shardOf(q);
        loadData(here(dataRoot + "names/" + shard + ".js"), engine + "/names/" + shard).then(function (data) {
          var lower = q.toLowerCase(), hits = data.names.filter(function (r) {
            return r[0].toLowerCase().indexOf(lower) === 0;
          }).slice(0, 100);
          pane.textContent = "";
          pane.appendChild(text("h2", "", hits.length + (hits.length === 100 ? "+" : "") + " symbols named " + q + "*"));
          var ul = text("ul");
          hits.forEach(function (r) {
            var li = text("li"), a = document.createElement("a");
            a.href = "#file=" + encodeURIComponent(files[r[2]][0]) + "&sym=" + encodeURIComponent(r[1]);
            a.textContent = r[1];
            li.appendChild(a); ul.appendChild(li);
          });
          pane.appendChild(ul);
        }).catch(function () { pane.textContent = "no symbol starts with " + q; });
      });
    }).catch(function (err) { pane.textContent = String(err); });
  }

  /* the pin-set switch (atlas.render.pinswitch): the same page at the other pins, else that set's diff page */
  function pinSwitch() {
    var config = document.getElementById("__config"), header = document.querySelector(".md-header__inner");
    if (!config || !header) { return; }
    var root = new URL(JSON.parse(config.textContent).base.replace(/\/?$/, "/"), location.href);
    loadData(root.href + "assets/atlas/pinsets.js", "pinsets").then(function (data) {
      if (data.sets.length < 2) { return; }
      var page = decodeURI(location.pathname).slice(decodeURI(root.pathname).length) || "index.html";
      var select = document.createElement("select");
      select.className = "atlas-pinset"; select.setAttribute("aria-label", "pin set");
      data.sets.forEach(function (set) {
        var option = document.createElement("option");
        option.value = set.name; option.textContent = set.name + ": " + set.refs;
        option.selected = set.name === data.current; select.appendChild(option);
      });
      select.addEventListener("change", function () {
        var set = data.sets.filter(function (s) { return s.name === select.value; })[0];
        var target = set.pages.indexOf(page) >= 0 ? page + location.hash : "diff.html";
        location.href = new URL(set.root + target, root).href;
      });
      header.insertBefore(select, header.querySelector(".md-search") || null);
    }).catch(function () { /* a site of one pin set has no switch */ });
  }

  function start() {
    pinSwitch();
    var graphs = document.querySelectorAll(".atlas-graph");
    if (graphs.length) {
      var root = graphs[0].getAttribute("data-root"), t0 = performance.now();
      loadScript(here(root + "assets/atlas/cytoscape.min.js")).then(function () {
        graphs.forEach(function (box) { initGraph(box, t0); });
      });
    }
    document.querySelectorAll(".atlas-browser").forEach(initBrowser);
    var charts = document.querySelector(".atlas-charts");  // trace and experiment charts: their own script
    if (charts) { loadScript(here((charts.getAttribute("data-root") || "") + "assets/atlas/atlas-charts.js")); }
    var code = document.querySelector(".atlas-codeview");  // the source view: its own script, loaded on that page only
    if (code) { loadScript(here((code.getAttribute("data-root") || "") + "assets/atlas/atlas-code.js")); }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
