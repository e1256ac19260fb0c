/* atlas source view: one page (code.html) shows any file of either pinned tree. The hash names it
   (#vllm/vllm/v1/core/sched/scheduler.py:L120); the file's data (its text, definitions, call sites with their
   targets, callers, contracts, runtime marks) is one compressed script loaded on demand and inflated with the
   browser's DecompressionStream, which works from file:// too. Highlighting: Prism (bundled). */
(function () {
  "use strict";
  var box = document.querySelector(".atlas-codeview");
  if (!box) { return; }
  var rootRel = box.getAttribute("data-root") || "";
  var engines = (box.getAttribute("data-engines") || "").split(",").filter(Boolean);
  var head = box.querySelector(".atlas-code-head"), body = box.querySelector(".atlas-code-body");
  var panel = box.querySelector(".atlas-code-panel");
  var loading = {}, current = null;

  function here(rel) { return new URL(rel, document.baseURI).href; }
  function loadScript(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src; s.onload = resolve;
        s.onerror = function () { delete loading[src]; reject(new Error("cannot load " + src)); };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }
  function inflate(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  function data(src, key) {
    return loadScript(here(src)).then(function () {
      var d = (window.atlasData || {})[key];
      if (!d) { throw new Error("no data " + key + " in " + src); }
      return d.z ? inflate(d.z) : d;
    });
  }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function hashOf(engine, path, line) { return "#" + engine + "/" + path + (line ? ":L" + line : ""); }
  function parseHash() {
    var m = /^([a-z0-9_-]+)\/(.+?)(?::L(\d+))?$/.exec(decodeURIComponent(location.hash.slice(1)));
    return m ? { engine: m[1], path: m[2], line: +(m[3] || 0) } : null;
  }
  function prism() {
    window.Prism = window.Prism || {}; window.Prism.manual = true;
    return loadScript(here(rootRel + "assets/atlas/prism-atlas.js"));
  }

  /* Prism's token tree -> per line, a list of [text, classes] (a token spanning lines is cut at each newline) */
  function flatten(tokens, cls, out) {
    tokens.forEach(function (t) {
      if (typeof t === "string") { out.push([t, cls]); return; }
      var c = cls.concat(["token", t.type], t.alias ? [].concat(t.alias) : []);
      if (typeof t.content === "string") { out.push([t.content, c]); } else {
        flatten(Array.isArray(t.content) ? t.content : [t.content], c, out);
      }
    });
  }
  function lines(text, lang) {
    var grammar = window.Prism && window.Prism.languages[lang];
    var segs = [];
    flatten(grammar ? window.Prism.tokenize(text, grammar) : [text], [], segs);
    var out = [[]];
    segs.forEach(function (seg) {
      seg[0].split("\n").forEach(function (part, i) {
        if (i) { out.push([]); }
        if (part) { out[out.length - 1].push([part, seg[1]]); }
      });
    });
    return out;
  }
  var QUIET = /\b(string|comment|triple-quoted-string|char)\b/;
  /* a segment's HTML, with the names of this line's call sites (or its definition) linked; inside a string or a
     comment only a definition's name, once (a torch op is defined by its name in a string: `ops.def("name(...)")`) */
  function segmentHtml(seg, links) {
    var text = seg[0], cls = seg[1].join(" "), html = "";
    var quiet = QUIET.test(cls), re = links && (quiet ? (links.used[links.defName] ? null : links.defRe) : links.re);
    if (re) {
      var last = 0, m;
      re.lastIndex = 0;
      while ((m = re.exec(text))) {
        html += esc(text.slice(last, m.index)) + links.make(m[0]);
        last = m.index + m[0].length;
      }
      html += esc(text.slice(last));
    } else { html = esc(text); }
    return cls ? '<span class="' + cls + '">' + html + "</span>" : html;
  }
  function wordRe(names) {
    return new RegExp("\\b(" + names.map(function (n) { return n.replace(/[^\w]/g, "\\$&"); }).join("|") + ")\\b", "g");
  }

  function render(d, engine, t0) {
    var byLine = {};  // line -> {calls: {name: [def, row]}, def: index}
    function at(line) { return byLine[line] || (byLine[line] = { calls: {}, def: -1 }); }
    d.defs.forEach(function (def, i) { var n = def[6] || def[0]; if (at(n).def < 0) { at(n).def = i; } });  // its name's line
    Object.keys(d.refs || {}).forEach(function (line) { at(+line).refs = d.refs[line]; });
    Object.keys(d.callees).forEach(function (i) {
      d.callees[i].forEach(function (row, j) { if (row[0]) { at(row[0]).calls[row[1]] = [+i, j]; } });
    });
    var notes = {};
    d.notes.forEach(function (n) { (notes[n[0]] = notes[n[0]] || []).push(n); });
    var hooks = {};
    d.hooks.forEach(function (h) { hooks[h[0]] = h; });
    var rows = [], prefix = engine + "/" + d.path;
    lines(d.text, d.lang).forEach(function (segs, k) {
      var n = k + 1, info = byLine[n], links = null;
      if (info) {
        var names = Object.keys(info.calls), def = info.def >= 0 ? d.defs[info.def] : null;
        if (def && names.indexOf(def[2]) < 0) { names.push(def[2]); }
        var bases = {};  // other identifiers the index resolved (imports, a class's bases), linked to their definitions
        (info.refs || []).forEach(function (b) { if (names.indexOf(b[0]) < 0) { names.push(b[0]); bases[b[0]] = b[1]; } });
        if (names.length) {
          links = { re: wordRe(names), used: {}, defName: def ? def[2] : "", defRe: def ? wordRe([def[2]]) : null,
            make: function (name) {
            links.used[name] = 1;
            if (def && name === def[2] && !info.calls[name]) {
              return '<a class="atlas-def" data-def="' + info.def + '" href="' + hashOf(engine, d.path, n) + '">' + esc(name) + "</a>";
            }
            if (bases[name] !== undefined) {
              var base = d.targets[bases[name]];
              if (!base[1]) { return '<span class="atlas-ref" title="' + esc(base[0]) + '">' + esc(name) + "</span>"; }
              return '<a class="atlas-ref" href="' + hashOf(engine, base[1], base[2]) + '" title="' + esc(base[0]) + '">' + esc(name) + "</a>";
            }
            return links.callLink(name, esc(name));
          } };
          links.callLink = function (name, label) {  // a call site: straight to a single target's line, else a panel
            var ref = info.calls[name], row = d.callees[ref[0]][ref[1]], seen = row[2].some(function (t) { return t[3] > 0; });
            var first = d.targets[row[2][0][0]], single = row[2].length === 1 && first[1];
            var href = single ? hashOf(engine, first[1], first[2]) : hashOf(engine, d.path, n);
            return '<a class="atlas-call' + (seen ? " atlas-rt" : "") + (row[2].length > 1 ? " atlas-fan" : "") +
              (single ? "" : " atlas-open") + '" data-call="' + ref[0] + ":" + ref[1] + '" href="' + href + '" title="' +
              esc(row[2].length > 1 ? row[2].length + " possible targets" : first[0]) + '">' + label + "</a>";
          };
        }
      }
      var html = segs.map(function (s) { return segmentHtml(s, links); }).join(""), extra = "";
      if (links) {  // calls whose name is not written on the line (an alias, a decorator, a dispatch): a mark at its end
        Object.keys(info.calls).forEach(function (name) {
          if (!links.used[name]) { extra += ' <span class="atlas-extra">' + links.callLink(name, "&rarr;&nbsp;" + esc(name)) + "</span>"; }
        });
      }
      if (hooks[n]) { extra += ' <span class="atlas-hook" title="probe hook, ' + esc(hooks[n][4]) + '">hook fired ' + hooks[n][2] + "&times;</span>"; }
      rows.push('<tr class="atlas-line' + (notes[n] ? " atlas-noted" : "") + '" id="L' + n + '"><td class="atlas-ln"><a href="' +
        hashOf(engine, d.path, n) + '">' + n + '</a></td><td class="atlas-code"><code>' +
        html + extra + "</code></td></tr>");
      (notes[n] || []).forEach(function (note) {
        rows.push('<tr class="atlas-note-row"><td></td><td><div class="atlas-note"><a href="' + esc(here(rootRel + note[5])) +
          '">' + esc(note[2]) + "</a>: " + esc(note[3]) + (note[4] ? '<div class="atlas-contract">' + esc(note[4]) + "</div>" : "") +
          (note[6] ? '<div class="atlas-claims">claims: ' + esc(note[6]) + "</div>" : "") +
          "</div></td></tr>");
      });
    });
    head.innerHTML = '<span class="atlas-code-path">' + esc(prefix) + '</span> <span class="atlas-src-lines">' + esc(d.pin) +
      '</span> <a class="atlas-permalink" href="' + esc(d.permalink) + '">upstream @ ' + esc(d.pin) + "</a>";
    body.innerHTML = '<table class="atlas-code-table"><tbody>' + rows.join("") + "</tbody></table>";
    body.setAttribute("data-lines", String(rows.length));
    current = { data: d, engine: engine };
    box.setAttribute("data-file", prefix);
    box.setAttribute("data-ready-ms", String(Math.round(performance.now() - t0)));
    box.setAttribute("data-nav-ms", String(Math.round(performance.now())));  // since the navigation began
  }

  function targetHtml(d, engine, t, extra) {
    var row = d.targets[t[0]], label = esc(row[0]);
    var inner = row[1] ? '<a href="' + hashOf(engine, row[1], row[2]) + '"><code>' + label + "</code></a>" : "<code>" + label + "</code>";
    var below = (row[4] || []).map(function (j) {
      var r = d.targets[j];
      return "<li>&rarr; " + (r[1] ? '<a href="' + hashOf(engine, r[1], r[2]) + '"><code>' + esc(r[0]) + "</code></a>" : "<code>" + esc(r[0]) + "</code>") + "</li>";
    }).join("");
    return "<li>" + inner + ' <span class="atlas-prov">' + esc(t[1]) + " " + Number(t[2]).toFixed(2) + "</span>" +
      (t[3] ? ' <span class="atlas-rt-mark" title="seen at runtime in the committed traces">runtime &times;' + t[3] + "</span>" : "") +
      (extra || "") + (below ? "<ul>" + below + "</ul>" : "") + "</li>";
  }
  function callRowHtml(d, engine, row) {
    var targets = row[2];
    if (targets.length === 1) {
      return '<li><span class="atlas-line-no">L' + row[0] + "</span> <ul class='atlas-inline'>" + targetHtml(d, engine, targets[0]) + "</ul></li>";
    }
    var provs = {}; targets.forEach(function (t) { provs[t[1]] = 1; });
    var best = Math.max.apply(null, targets.map(function (t) { return t[2]; }));
    return '<li><span class="atlas-line-no">L' + row[0] + "</span> <details class='atlas-fanout'><summary><code>" + esc(row[1]) +
      "</code> &rarr; " + targets.length + " targets <span class='atlas-prov'>" + esc(Object.keys(provs).sort().join("/")) + " " +
      best.toFixed(2) + "</span></summary><ul>" + targets.map(function (t) { return targetHtml(d, engine, t); }).join("") + "</ul></details></li>";
  }
  function showDef(i) {
    var d = current.data, engine = current.engine, def = d.defs[i], sym = d.targets[def[3]];
    var callers = d.callers[i] || { n: 0, rows: [] }, callees = d.callees[i] || [];
    var html = '<button class="atlas-panel-close" title="close">&times;</button><h3><code>' + esc(def[2]) + "</code></h3><p><code>" +
      esc(sym[0]) + "</code> &middot; " + esc(def[4]) + " &middot; L" + def[0] + "-" + def[1] + ' &middot; <a href="' +
      esc(d.permalink + "#L" + def[0] + "-L" + def[1]) + '">upstream</a></p>' + (def[5] ? "<p><code>" + esc(def[5]) + "</code></p>" : "");
    html += "<h4>Calls, in source order (" + callees.length + " sites)</h4><ul class='atlas-calls'>" +
      callees.map(function (row) { return callRowHtml(d, engine, row); }).join("") + "</ul>";
    html += "<h4>Callers (" + callers.n + (callers.n > callers.rows.length ? ", first " + callers.rows.length + " shown" : "") +
      ")</h4><ul class='atlas-callers'>" + callers.rows.map(function (r) {
        var caller = d.targets[r[0]];
        return "<li><a href='" + hashOf(engine, r[1] || caller[1], r[2] || caller[2]) + "'><code>" + esc(caller[0]) + "</code></a> " +
          "<span class='atlas-line-no'>" + esc(r[1]) + ":" + r[2] + "</span> <span class='atlas-prov'>" + esc(r[3]) + " " +
          Number(r[4]).toFixed(2) + "</span>" + (r[5] ? " <span class='atlas-rt-mark'>runtime &times;" + r[5] + "</span>" : "") + "</li>";
      }).join("") + "</ul>";
    openPanel(html);
  }
  function showCall(ref) {
    var d = current.data, parts = ref.split(":"), row = d.callees[parts[0]][+parts[1]];
    openPanel('<button class="atlas-panel-close" title="close">&times;</button><h3>Call at L' + row[0] + "</h3><ul class='atlas-calls'>" +
      callRowHtml(d, current.engine, row).replace("<details class='atlas-fanout'>", "<details class='atlas-fanout' open>") + "</ul>");
  }
  function openPanel(html) {
    panel.innerHTML = html; panel.hidden = false;
    panel.querySelector(".atlas-panel-close").onclick = function () { panel.hidden = true; };
  }

  function showIndex(engine, message) {
    var list = engines.map(function (e) { return '<option' + (e === engine ? " selected" : "") + ">" + esc(e) + "</option>"; }).join("");
    head.innerHTML = '<select class="atlas-code-engine">' + list + '</select> <input class="atlas-code-find md-input" type="search" placeholder="filter files by path">';
    var find = head.querySelector("input"), select = head.querySelector("select");
    function draw() {
      var e = select.value;
      data(rootRel + "assets/atlas/code/" + e + "/files.js", e + "/code").then(function (index) {
        var q = find.value.toLowerCase(), hits = index.files.filter(function (f) { return f[0].toLowerCase().indexOf(q) >= 0; });
        body.innerHTML = (message ? "<p class='atlas-code-missing'>" + esc(message) + "</p>" : "") + "<p>" + hits.length + " of " + index.files.length + " files of " + esc(e) + " " + esc(index.pin) + "</p><ul class='atlas-code-files'>" +
          hits.slice(0, 300).map(function (f) { return "<li><a href='" + hashOf(e, f[0]) + "'>" + esc(f[0]) + "</a> <span class='atlas-line-no'>" + f[2] + " lines</span></li>"; }).join("") + "</ul>";
      });
    }
    find.addEventListener("input", draw); select.addEventListener("change", draw);
    draw();
  }

  function route() {
    var t0 = performance.now(), where = parseHash();
    if (!where || engines.indexOf(where.engine) < 0) {  // no file named: the file list (#vllm/ picks the engine)
      var named = /^([a-z0-9_-]+)\/$/.exec(location.hash.slice(1));
      showIndex(named && engines.indexOf(named[1]) >= 0 ? named[1] : engines[0]);
      return;
    }
    var key = where.engine + "/" + where.path;
    var ready = current && box.getAttribute("data-file") === key ? Promise.resolve() :
      data(rootRel + "assets/atlas/code/" + where.engine + "/files.js", where.engine + "/code").then(function (index) {
        var entry = index.files.filter(function (f) { return f[0] === where.path; })[0];
        if (!entry) {  // e.g. a file gone at the other pin set: list the files, saying so
          var gone = new Error(where.path + " is not among the indexed files of " + where.engine + " " + index.pin);
          gone.listed = true;
          showIndex(where.engine, gone.message);
          throw gone;
        }
        return Promise.all([prism(), data(rootRel + "assets/atlas/code/" + where.engine + "/" + entry[1], where.engine + "/code/" + where.path)]);
      }).then(function (got) { render(got[1], where.engine, t0); });
    ready.then(function () {
      var old = body.querySelector(".atlas-target");
      if (old) { old.classList.remove("atlas-target"); }
      if (where.line) {
        var row = document.getElementById("L" + where.line);
        if (row) { row.classList.add("atlas-target"); row.scrollIntoView({ block: "center" }); }
        var def = current.data.defs.findIndex(function (x) { return x[0] === where.line; });
        if (def >= 0) { showDef(def); }
      }
    }).catch(function (err) {
      if (err.listed) { return; }
      var note = document.createElement("p");
      note.className = "atlas-code-missing"; note.textContent = err.message || String(err);
      body.insertBefore(note, body.firstChild);
    });
  }

  body.addEventListener("click", function (evt) {
    var a = evt.target.closest("a.atlas-def, a.atlas-open");
    if (!a) { return; }
    evt.preventDefault();
    if (a.classList.contains("atlas-def")) { showDef(+a.getAttribute("data-def")); } else { showCall(a.getAttribute("data-call")); }
  });
  window.addEventListener("hashchange", route);
  route();
})();
