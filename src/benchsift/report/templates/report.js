// Tables: every row of a table is in the page (a JSON script beside it, column by column: a column of
// repeated values as its distinct values "d" and one index "i" per row); the script sorts, filters and
// pages over all of them. Sort by the clicked column: numbers numerically (n/a last), text alphabetically;
// a second click reverses. Item ids link to the item view when the page has one.
(function () {
  var indexNode = document.getElementById("item-index");
  var index = indexNode ? JSON.parse(indexNode.textContent || "{}") : {};
  function key(text) {
    var t = text.trim().replace(/,/g, "").replace(/%$/, "");
    if (t === "" || t === "n/a" || t === "-") { return null; }
    var v = Number(t);
    return isNaN(v) ? text.trim().toLowerCase() : v;
  }
  function compare(a, b) {
    if (a === null && b === null) { return 0; }
    if (a === null) { return 1; }
    if (b === null) { return -1; }
    if (typeof a === typeof b) { return a < b ? -1 : a > b ? 1 : 0; }
    return typeof a === "number" ? -1 : 1;
  }
  function count(n) {  // 46856 -> "46,856", as the page's captions write counts
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function decodeTable(data) {
    var cols = data.cols.map(function (c) {
      if (Array.isArray(c)) { return c; }
      var d = c.d, idx = c.i, out = new Array(idx.length);
      for (var k = 0; k < idx.length; k++) { out[k] = d[idx[k]]; }
      return out;
    });
    var rows = new Array(data.n);
    for (var i = 0; i < data.n; i++) {
      var r = new Array(cols.length);
      for (var c = 0; c < cols.length; c++) { r[c] = cols[c][i]; }
      rows[i] = r;
    }
    return rows;
  }
  window.benchsiftDecodeTable = decodeTable;
  function setup(table) {
    var wrap = table.closest(".tablewrap");
    var dataNode = wrap ? wrap.querySelector("script.tdata") : null;
    var cells, links = {}, panel = null;
    if (dataNode) {
      var data = JSON.parse(dataNode.textContent);
      cells = data.rows || decodeTable(data);  // "rows": plain rows (benchmarks/bench_report_page.py)
      panel = data.panel === undefined ? null : data.panel;
      if (panel !== null) { (data.links || []).forEach(function (l) { links[l[0]] = l[1]; }); }
    } else {
      cells = Array.prototype.map.call(table.tBodies[0].rows, function (r) {
        return Array.prototype.map.call(r.cells, function (c) { return c.textContent; });
      });
    }
    var ctl = {
      table: table,
      rows: cells.map(function (r, i) { return { cells: r, i: i, text: null }; }),
      view: null,
      page: 0,
      size: dataNode ? 25 : Infinity,
      query: ""
    };
    ctl.view = ctl.rows.slice();
    var body = table.tBodies[0];
    var info = wrap ? wrap.querySelector(".tinfo") : null;
    function cell(r, c) {
      var v = r.cells[c];
      if (c in links) {
        // the view of this item in the panel the table was computed on (html.py, _item_key)
        var anchor = index[panel + "\u001f" + r.cells[links[c]] + "\u001f" + v];
        if (anchor) { return "<td><a class=\"itemlink\" href=\"#" + esc(anchor) + "\">" + esc(v) + "</a></td>"; }
      }
      return "<td>" + esc(v) + "</td>";
    }
    function render() {
      var n = ctl.view.length;
      var size = ctl.size === Infinity ? Math.max(n, 1) : ctl.size;
      var pages = Math.max(Math.ceil(n / size), 1);
      if (ctl.page >= pages) { ctl.page = pages - 1; }
      var start = ctl.page * size, end = Math.min(start + size, n);
      var html = [];
      for (var k = start; k < end; k++) {
        var r = ctl.view[k], row = [];
        for (var c = 0; c < r.cells.length; c++) { row.push(cell(r, c)); }
        html.push("<tr>" + row.join("") + "</tr>");
      }
      body.innerHTML = html.join("");
      if (info) {
        info.textContent = (n ? "rows " + count(start + 1) + "-" + count(end) + " of " + count(n) : "no rows") +
          (n !== ctl.rows.length ? " (filtered from " + count(ctl.rows.length) + ")" : "");
      }
    }
    function applyFilter() {
      var q = ctl.query;
      ctl.view = q ? ctl.rows.filter(function (r) {
        if (r.text === null) { r.text = r.cells.join("\u0001").toLowerCase(); }  // built on the first filter
        return r.text.indexOf(q) >= 0;
      }) : ctl.rows.slice();
    }
    function sortBy(th) {
      var headers = Array.prototype.slice.call(th.parentNode.children);
      var col = headers.indexOf(th);
      var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
      headers.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", dir);
      var keyed = ctl.rows.map(function (r) { return { r: r, k: key(r.cells[col] === undefined ? "" : String(r.cells[col])) }; });
      keyed.sort(function (a, b) {
        var c = compare(a.k, b.k);
        if (a.k !== null && b.k !== null && dir === "descending") { c = -c; }
        return c !== 0 ? c : a.r.i - b.r.i;
      });
      ctl.rows = keyed.map(function (x) { return x.r; });
      applyFilter();
      ctl.page = 0;
      render();
    }
    table.querySelectorAll("thead th").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(th); }
      });
    });
    if (wrap) {
      var filter = wrap.querySelector(".tfilter"), size = wrap.querySelector(".tsize");
      var prev = wrap.querySelector(".tprev"), next = wrap.querySelector(".tnext");
      if (filter) {
        filter.addEventListener("input", function () {
          ctl.query = filter.value.trim().toLowerCase(); applyFilter(); ctl.page = 0; render();
        });
      }
      if (size) {
        size.addEventListener("change", function () {
          ctl.size = size.value === "all" ? Infinity : Number(size.value); ctl.page = 0; render();
        });
      }
      if (prev) { prev.addEventListener("click", function () { if (ctl.page > 0) { ctl.page -= 1; render(); } }); }
      if (next) { next.addEventListener("click", function () { ctl.page += 1; render(); }); }
    }
    window.benchsiftTables = window.benchsiftTables || [];
    window.benchsiftTables.push(ctl);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) { setup(table); });
}());
