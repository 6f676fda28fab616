// Sort a table by the clicked column: numbers numerically (n/a last), text alphabetically; a second
// click on the same header reverses the order.
(function () {
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
  function sortBy(table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children);
    var col = headers.indexOf(th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    headers.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return { row: r, k: key(r.cells[col] ? r.cells[col].textContent : ""), i: i };
    });
    rows.sort(function (a, b) {
      var c = compare(a.k, b.k);
      if (a.k !== null && b.k !== null && dir === "descending") { c = -c; }
      return c !== 0 ? c : a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });
}());
