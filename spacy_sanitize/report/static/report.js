// The review report: documents are rendered from the embedded JSON, one page at a time, so
// a report of thousands of documents opens fast. Every text goes in through textContent
// (never innerHTML): the data cannot inject markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var original = data.original;
  var docs = data.docs;
  var pageSize = data.page_size;
  var page = 0;
  var shown = docs;
  var tip = document.getElementById("tip");
  var list = document.getElementById("docs");
  var pager = document.getElementById("pager-info");
  var typeFilter = document.getElementById("f-type");
  var decisionFilter = document.getElementById("f-decision");
  var keptOnly = document.getElementById("f-kept");

  // A why is packed as its shared template and its leaves (numbers, replacement) in order.
  function unpack(template, leaves) {
    var i = 0;
    function fill(value) {
      if (value === "\u0000") return leaves[i++];
      if (Array.isArray(value)) return value.map(fill);
      if (value && typeof value === "object") {
        var out = {};
        Object.keys(value).forEach(function (key) { out[key] = fill(value[key]); });
        return out;
      }
      return value;
    }
    return fill(template);
  }

  // mark: original [start, end, out_start, out_end, label, why template, leaves];
  // sanitized-only [out_start, out_end, label, why template, leaves]
  function field(mark, name) {
    var base = original ? 0 : 2;
    if (name === "out") return [mark[2 - base], mark[3 - base]];
    if (name === "label") return mark[4 - base];
    if (name === "why") {
      if (!mark.why) mark.why = unpack(data.whys[mark[5 - base]], mark[6 - base]);
      return mark.why;
    }
    return [mark[0], mark[1]];
  }

  function matches(mark) {
    var why = field(mark, "why");
    var type = typeFilter.value;
    var decision = keptOnly.checked ? "kept" : decisionFilter.value;
    return (!type || field(mark, "label") === type) && (!decision || why.decision === decision);
  }

  function filtering() {
    return typeFilter.value || decisionFilter.value || keptOnly.checked;
  }

  function fmt(x) {
    return typeof x === "number" ? x.toFixed(2) : String(x);
  }

  function explain(label, why) {
    var lines = [label + " \u2014 " + why.decision.replace("_", " "), why.summary];
    if (why.detectors && why.detectors.length) lines.push("detector: " + why.detectors.join(", "));
    Object.keys(why.indicators || {}).forEach(function (key) {
      var v = why.indicators[key];
      var text = key + ": risk " + (v.risk === null || v.risk === undefined ? "none" : fmt(v.risk));
      if (v.threshold !== undefined) text += (v.risk !== null && v.risk >= v.threshold ? " \u2265 " : " < ") + "threshold " + fmt(v.threshold);
      if (v.reason) text += " (" + v.reason + ": counts as MASK)";
      if (v.vote !== undefined) text += " \u2192 " + (v.vote ? "MASK" : "keep");
      if (v.error) text += " [" + v.error + "]";
      lines.push(text);
    });
    if (why.vote) {
      var vote = why.vote;
      var rule = vote.rule + (vote.k !== undefined ? " (k=" + vote.k + ")" : "") + (vote.mean !== undefined ? " (mean " + fmt(vote.mean) + " vs " + fmt(vote.mean_threshold) + ")" : "");
      lines.push("vote (" + vote.decider + "): rule " + rule + ", " + vote.n_mask + " of " + vote.n + " MASK \u2192 " + (vote.decision ? "mask" : "keep"));
    }
    if (why.policy) lines.push("policy: " + why.policy);
    lines.push("replacement: " + (why.replacement === null ? "none (left in clear)" : why.replacement));
    return lines.join("\n");
  }

  function markElement(text, mark) {
    var label = field(mark, "label");
    var why = field(mark, "why");
    var el = document.createElement("mark");
    el.className = "pii t-" + label + " d-" + why.decision + (matches(mark) ? "" : " off");
    el.tabIndex = 0;
    el.dataset.label = label;
    el.dataset.decision = why.decision;
    el.setAttribute("aria-label", explain(label, why));
    el.textContent = text;
    return el;
  }

  // The text of [start, end) with the marks inside it; side "t" uses the original offsets.
  function fill(cell, text, start, end, marks, side) {
    var cursor = start;
    var lastOut = -1;
    marks.forEach(function (mark) {
      var range = side === "t" ? field(mark, "in") : field(mark, "out");
      var a = Math.max(range[0], start), b = Math.min(range[1], end);
      if (b <= a || a < cursor) return; // outside this paragraph, or a region already shown
      if (side === "s" && range[0] === lastOut) return; // one replacement for merged spans
      lastOut = range[0];
      cell.appendChild(document.createTextNode(text.slice(cursor, a)));
      cell.appendChild(markElement(text.slice(a, b), mark));
      cursor = b;
    });
    cell.appendChild(document.createTextNode(text.slice(cursor, end)));
  }

  function renderDoc(doc) {
    var box = document.createElement("section");
    box.className = "doc";
    box.dataset.id = doc.id;
    var title = document.createElement("h3");
    title.textContent = doc.id;
    var counts = document.createElement("small");
    var kept = doc.m.filter(function (m) { return field(m, "why").decision === "kept"; }).length;
    counts.textContent = doc.m.length + " span(s), " + kept + " kept in clear";
    title.appendChild(counts);
    box.appendChild(title);
    var rows = document.createElement("div");
    rows.className = "rows" + (original ? "" : " single");
    var sides = original ? ["t", "s"] : ["s"];
    sides.forEach(function (side) {
      var head = document.createElement("div");
      head.className = "head";
      head.textContent = side === "t" ? "original (personal data)" : "sanitized";
      rows.appendChild(head);
    });
    var inMarks = original ? doc.m.slice().sort(function (x, y) { return x[0] - y[0]; }) : null;
    doc.p.forEach(function (p) {
      sides.forEach(function (side) {
        var cell = document.createElement("div");
        cell.className = "para " + (side === "t" ? "orig" : "san");
        if (side === "t") fill(cell, doc.t, p[0], p[1], inMarks, "t");
        else fill(cell, doc.s, original ? p[2] : p[0], original ? p[3] : p[1], doc.m, "s");
        rows.appendChild(cell);
      });
    });
    box.appendChild(rows);
    return box;
  }

  function render() {
    shown = filtering() ? docs.filter(function (doc) { return doc.m.some(matches); }) : docs;
    var pages = Math.max(1, Math.ceil(shown.length / pageSize));
    page = Math.min(page, pages - 1);
    list.textContent = "";
    shown.slice(page * pageSize, (page + 1) * pageSize).forEach(function (doc) { list.appendChild(renderDoc(doc)); });
    document.getElementById("empty").style.display = shown.length ? "none" : "block";
    pager.textContent = "page " + (page + 1) + " of " + pages + " \u2014 " + shown.length + " of " + docs.length + " document(s)";
  }

  function showTip(event) {
    var el = event.target;
    if (!el.classList || !el.classList.contains("pii") || el.classList.contains("off")) return;
    tip.textContent = el.getAttribute("aria-label");
    var box = el.getBoundingClientRect();
    tip.style.left = Math.max(4, box.left + window.scrollX) + "px";
    tip.style.top = box.bottom + window.scrollY + 4 + "px";
    tip.style.display = "block";
  }

  function hideTip() { tip.style.display = "none"; }

  list.addEventListener("mouseover", showTip);
  list.addEventListener("focusin", showTip);
  list.addEventListener("mouseout", hideTip);
  list.addEventListener("focusout", hideTip);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hideTip(); });
  [typeFilter, decisionFilter, keptOnly].forEach(function (el) {
    el.addEventListener("change", function () { page = 0; render(); });
  });
  document.getElementById("prev").addEventListener("click", function () { if (page > 0) { page -= 1; render(); } });
  document.getElementById("next").addEventListener("click", function () {
    if ((page + 1) * pageSize < shown.length) { page += 1; render(); }
  });
  render();
})();
