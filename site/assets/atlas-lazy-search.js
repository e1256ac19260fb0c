/* The search index, loaded when search is used, not with every page: opened from file://, mkdocs-material loads
   search/search_index.js (the whole site's index, about 1 MB) with a script it appends to <head> at start-up. This
   polyfill (loaded before the theme's bundle) holds that one script back until the reader reaches for search: a
   click or focus on the search box, or its keyboard shortcuts. The theme shows "Initializing search" meanwhile. */
(function () {
  "use strict";
  if (location.protocol !== "file:") { return; }  // served: the theme fetches the JSON index with its worker
  var append = Node.prototype.appendChild, held = null, released = false;
  function release() {
    if (released) { return; }
    released = true;
    if (held) { append.call(held[0], held[1]); held = null; }
  }
  Node.prototype.appendChild = function (child) {
    if (!released && child && child.tagName === "SCRIPT" && /\/search\/search_index\.js(\?|$)/.test(child.src || "")) {
      held = [this, child];
      return child;
    }
    return append.call(this, child);
  };
  function onSearch(event) {
    var t = event.target;
    if (t && t.closest && t.closest(".md-search, label[for='__search']")) { release(); }
  }
  document.addEventListener("focusin", onSearch, true);
  document.addEventListener("pointerdown", onSearch, true);
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" || event.key === "s" || event.key === "f") { release(); }
  }, true);
  window.atlasLoadSearch = release;
})();
