// The tournament report: hand-written SVG plots and a paged list of matches.
// Every string from the data goes in with textContent or as an attribute value, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#0e7490", "#a21caf", "#b45309", "#15803d", "#1d4ed8", "#b91c1c",
    "#4d7c0f", "#7c3aed", "#be185d", "#0369a1", "#a16207", "#334155"];
  var names = data.names, rows = data.rows, ranked = data.ranked;
  var P = names.length, N = data.matches;

  function $(id) { return document.getElementById(id); }
  function el(tag, parent, text, className) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (parent) parent.appendChild(node);
    return node;
  }
  function svg(tag, attrs, parent, text) {
    var node = document.createElementNS(NS, tag);
    for (var key in attrs) node.setAttribute(key, String(attrs[key]));
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (parent) parent.appendChild(node);
    return node;
  }
  function tip(node, text) { svg("title", {}, node, text); return node; }
  function plot(section, width, height) {
    var root = svg("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img",
      "aria-label": document.querySelector("#" + section + " h2").textContent });
    document.querySelector("#" + section + " .plot").appendChild(root);
    return root;
  }
  function colour(i) { return PALETTE[i % PALETTE.length]; }
  function short(name, n) { return name.length > n ? name.slice(0, n - 1) + "…" : name; }
  function pct(x) { return (100 * x).toFixed(1) + " %"; }
  function pct0(x) { return Math.round(100 * x) + " %"; }
  function plural(n, noun) { return n + " " + noun + (n === 1 ? "" : /(s|ch)$/.test(noun) ? "es" : "s"); }
  function scale(d0, d1, r0, r1) {
    var span = d1 - d0 || 1;
    return function (v) { return r0 + (v - d0) / span * (r1 - r0); };
  }
  function nothing(section, text) {
    el("p", document.querySelector("#" + section + " .plot"), text, "note");
  }
  // share 0 red, 0.5 white, 1 blue
  function diverging(x) {
    var a = x < 0.5 ? [185, 28, 28] : [29, 78, 216], t = Math.min(1, Math.abs(x - 0.5) * 2);
    return "rgb(" + a.map(function (c) { return Math.round(255 + (c - 255) * t); }).join(",") + ")";
  }
  function shade(x) { return "rgba(14,116,144," + (0.06 + 0.94 * Math.min(1, x)).toFixed(3) + ")"; }
  function xAxis(root, x, y, ticks, format) {
    ticks.forEach(function (t) {
      svg("line", { x1: x(t), x2: x(t), y1: y[0], y2: y[1], class: "axis" }, root);
      svg("text", { x: x(t), y: y[1] + 12, "text-anchor": "middle", class: "dim" }, root, format(t));
    });
  }
  function niceTicks(lo, hi, count) {
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / count || 1)));
    [1, 2, 5, 10].some(function (m) { if ((hi - lo) / (step * m) <= count) { step *= m; return true; } return false; });
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(+t.toFixed(10));
    return out;
  }

  // -- header ----------------------------------------------------------------------------
  var head = "tournament " + (data.tournament || "?");
  $("title").textContent = data.title || "Go Fish " + head;
  var facts = [plural(N, "match") + (data.games ? " of " + data.games : ""),
    data.complete === true ? "complete" : data.live ? "in progress" : data.complete === false ? "incomplete" : null,
    data.seats ? data.seats + " seats" : null,
    data.duplicate === true ? "duplicate deals" : data.duplicate === false ? "a fresh deal per match" : null,
    data.seed !== undefined && data.seed !== null ? "seed " + data.seed : null,
    data.runs.length === 1 ? "run " + data.runs[0].run : plural(data.runs.length, "run") + " merged"];
  if (data.title) facts.unshift(head);  // the heading is the title: the id still shows
  if (data.skipped) facts.push(plural(data.skipped, "malformed line") + " skipped");
  if (data.repeated) facts.push(plural(data.repeated, "repeated line") + " counted once");
  if (data.without) facts.push("without " + data.without.name + ": " + plural(data.without.droppedMatches, "match") + " dropped");
  $("summary").textContent = facts.filter(function (f) { return f; }).join(" · ");
  $("made").textContent = "Written " + data.written + " by gofish-arena. Outcomes: " +
    Object.keys(data.outcomes).map(function (k) { return k + " " + data.outcomes[k]; }).join(", ");
  if (data.live) {
    $("live").hidden = false;
    $("live-note").textContent = "the run is going on; this page is rewritten every few seconds";
    var key = "gofish-report-reload";
    try { $("reload").checked = sessionStorage.getItem(key) !== "0"; } catch (e) { /* file:// without storage */ }
    $("reload").addEventListener("change", function () {
      try { sessionStorage.setItem(key, $("reload").checked ? "1" : "0"); } catch (e) { /* as above */ }
    });
    setTimeout(function () { if ($("reload").checked) location.reload(); }, 10000);
  }

  // -- standings table ----------------------------------------------------------------------
  // The board's order: the ranked with their places, then apart the provisional (too few deals
  // to place) and those with no match. What the numbers promise is said under the table.
  (function () {
    var table = $("standings-table"), tr = el("tr", el("thead", table));
    var look = data.look || {}, live = look.look && look.look.kind === "live";
    var lucky = rows.some(function (r) { return r.luckAdjusted; });
    var heads = ["#", "participant", "matches", "wins", live ? "win share (its interval at every look)" : "win share (95 % over deals)"]
      .concat(lucky ? ["luck-adjusted (95 %)"] : [])
      .concat(["rating ±"], live ? [] : ["LOS"], ["books", "place", "timeouts", "invalid asks", "crashes"]);
    heads.forEach(function (h, i) { el("th", tr, h, i === 1 ? "name" : ""); });
    var faultsFrom = heads.length - 3, body = el("tbody", table), section = "ranked";
    var apart = {
      provisional: "provisional: fewer than " + (look.provisionalBelowDeals || 5) + " deals, not placed; the rating is the posterior",
      unplayed: "no match yet: listed apart, never ranked"
    };
    ranked.forEach(function (i, place) {
      var r = rows[i], fit = r.rating, standing = fit && fit.standing ? fit.standing : "unplayed";
      if (standing !== section) {
        section = standing;
        var head = el("tr", body, null, "apart");
        el("td", head, apart[standing] || standing).colSpan = heads.length;
      }
      var cells = el("tr", body), rated = fit && typeof fit.elo === "number";
      el("td", cells, standing === "ranked" ? fit.place : standing === "provisional" ? "prov." : "–");
      var name = el("td", cells, null, "name");
      el("span", name, null, "swatch").style.background = colour(place);
      el("span", name, names[i]);
      // Raw and luck-adjusted side by side (docs/luck.md); "–" for lines without it.
      var luck = r.luckAdjusted, luck95 = luck && luck.winShare95;
      function within(share, interval) {  // "62.5 % (48–75)": the share, then its interval
        return pct(share) + (interval ? " (" + Math.round(100 * interval[0]) + "–" + Math.round(100 * interval[1]) + ")" : "");
      }
      [r.matches, +r.wins.toFixed(2), within(r.winShare, r.interval)]
        .concat(lucky ? [luck ? within(luck.winShare, luck95) : "–"] : [])
        .concat([rated ? (fit.elo >= 0 ? "+" : "") + fit.elo.toFixed(0) + " ± " + fit.plusMinus.toFixed(0) : "no match"],
          live ? [] : [rated && typeof fit.losBelow === "number" ? pct(fit.losBelow) : ""],
          [r.meanBooks.toFixed(2), r.meanPlace.toFixed(2), r.faults.timeouts, r.faults.invalidAsks, r.faults.crashes])
        .forEach(function (v, c) { el("td", cells, v, c + 2 >= faultsFrom && v ? "bad" : ""); });
    });
    var planned = live ? " (confidence sequences planned to " + look.look.plannedMatches.toFixed(0) + " matches a participant)" : "";
    $("standings-note").textContent = (live
      ? "While the run plays, the ± and the places hold at every look" + planned + ": reloading the page cannot make a false claim appear. They are wider than the final table's. "
      : "Rating: Elo-like points against the field's mean, ± its 95 % interval counting each deal as one unit, for this one look (a finished run). ") +
      "Ordered by one Plackett–Luce fit over every match; a # such as 2–3 means the data cannot tell that participant from those placed 2 to 3" +
      (live ? "." : ", and the places hold together: 95 % for the whole table at once (Holm), so \u201cthese cannot be told apart\u201d is what the data allow. LOS: the likelihood of being stronger than the next.") +
      " Provisional: fewer than " + (look.provisionalBelowDeals || 5) + " deals, not placed; its rating is the posterior with a prior of " +
      (look.prior || "one virtual win and one virtual loss") + ". A participant with no match is listed apart, never ranked.";
  })();

  if (data.look && data.look.look && data.look.look.kind === "live") {
    document.querySelector("#winshare h2").textContent = "Win share, interval valid at every look";
    document.querySelector("#winshare .note").textContent = "Dot: wins / matches (a shared first place splits the win). Bar: its confidence sequence, which holds at every reload of this page. Dashed: one win in every seats-at-the-table matches.";
  }

  // -- win share with its interval ----------------------------------------------------------
  (function () {
    if (!N) return nothing("winshare", "No match yet.");
    var left = 130, width = 500, top = 8, line = 24, height = top + P * line + 24;
    var root = plot("winshare", width, height), x = scale(0, 1, left, width - 16);
    xAxis(root, x, [top, top + P * line], [0, 0.25, 0.5, 0.75, 1], pct0);
    if (data.seats) {
      svg("line", { x1: x(1 / data.seats), x2: x(1 / data.seats), y1: top, y2: top + P * line,
        stroke: "#6b7280", "stroke-dasharray": "4 3" }, root);
    }
    ranked.forEach(function (i, place) {
      var r = rows[i], y = top + place * line + line / 2, g = svg("g", { class: "row" }, root);
      tip(g, names[i] + ": " + pct(r.winShare) + " (" + pct(r.interval[0]) + " – " + pct(r.interval[1]) +
        ") over " + plural(r.matches, "match") + ", " + plural(r.deals, "deal"));
      svg("text", { x: left - 8, y: y + 4, "text-anchor": "end" }, g, short(names[i], 20));
      svg("line", { x1: x(r.interval[0]), x2: x(r.interval[1]), y1: y, y2: y, stroke: colour(place), "stroke-width": 4,
        "stroke-linecap": "round", opacity: 0.45, class: "interval" }, g);
      svg("circle", { cx: x(r.winShare), cy: y, r: 4.5, fill: colour(place), class: "share" }, g);
    });
  })();

  // -- rating path ----------------------------------------------------------------------------
  (function () {
    var path = data.ratingPath, xs = path.matches;
    if (!N) return nothing("rating", "No match yet.");
    var left = 34, width = 560, legend = 120, top = 10, inner = Math.max(220, Math.min(P, 30) * 14), height = top + inner + 26;
    var lo = Infinity, hi = -Infinity;
    ranked.forEach(function (i) {
      path.mu[i].forEach(function (mu, k) {
        if (mu === null) return;
        lo = Math.min(lo, mu - path.sigma[i][k]); hi = Math.max(hi, mu + path.sigma[i][k]);
      });
    });
    var root = plot("rating", width, height), x = scale(0, xs[xs.length - 1], left, width - legend - 10),
      y = scale(lo, hi, top + inner, top);
    niceTicks(lo, hi, 6).forEach(function (t) {
      svg("line", { x1: left, x2: width - legend - 10, y1: y(t), y2: y(t), class: "axis" }, root);
      svg("text", { x: left - 4, y: y(t) + 4, "text-anchor": "end", class: "dim" }, root, t);
    });
    niceTicks(0, xs[xs.length - 1], 6).forEach(function (t) {
      svg("text", { x: x(t), y: top + inner + 16, "text-anchor": "middle", class: "dim" }, root, t);
    });
    ranked.slice().reverse().forEach(function (i) {
      var place = ranked.indexOf(i), upper = [], lower = [], line = [];
      path.mu[i].forEach(function (mu, k) {
        if (mu === null) return;
        var s = path.sigma[i][k], px = x(xs[k]).toFixed(1);
        upper.push(px + "," + y(mu + s).toFixed(1));
        lower.unshift(px + "," + y(mu - s).toFixed(1));
        line.push(px + "," + y(mu).toFixed(1));
      });
      var g = svg("g", { class: "series" }, root);
      tip(g, names[i] + ": μ " + rows[i].live.mu.toFixed(2) + " ± " + rows[i].live.sigma.toFixed(2));
      svg("polygon", { points: upper.concat(lower).join(" "), fill: colour(place), opacity: 0.12, class: "band" }, g);
      svg("polyline", { points: line.join(" "), fill: "none", stroke: colour(place), "stroke-width": 1.6, class: "mu" }, g);
    });
    ranked.slice(0, 30).forEach(function (i, place) {
      var ly = top + place * 14 + 8;
      svg("rect", { x: width - legend, y: ly - 8, width: 10, height: 10, fill: colour(place) }, root);
      svg("text", { x: width - legend + 14, y: ly + 1 }, root, short(names[i], 16));
    });
    svg("text", { x: (left + width - legend) / 2, y: height - 1, "text-anchor": "middle", class: "dim" }, root, "matches");
  })();

  // -- pairwise heatmap ---------------------------------------------------------------------------
  (function () {
    if (P < 2 || !N) return nothing("pairwise", "No pair has met yet.");
    if (!data.pairwise) return nothing("pairwise", P + " participants: too many for a heatmap (the figures are in standings.json).");
    var cell = Math.max(10, Math.min(40, Math.floor(520 / P))), left = 160, top = 18;
    var root = plot("pairwise", left + P * cell + 10, top + P * cell + 10);
    ranked.forEach(function (i, row) {
      svg("text", { x: left - 6, y: top + row * cell + cell / 2 + 4, "text-anchor": "end" }, root, (row + 1) + " " + short(names[i], 18));
      svg("text", { x: left + row * cell + cell / 2, y: top - 5, "text-anchor": "middle", class: "dim" }, root, row + 1);
      ranked.forEach(function (j, col) {
        var value = data.pairwise[i][j], g = svg("g", {}, root);
        svg("rect", { x: left + col * cell, y: top + row * cell, width: cell - 1, height: cell - 1, class: "cell",
          fill: value ? diverging(value[0]) : "#eeeae2" }, g);
        if (!value) return;
        tip(g, names[i] + " ahead of " + names[j] + ": " + pct(value[0]) + " of " + plural(value[1], "common match"));
        if (cell >= 28) svg("text", { x: left + col * cell + cell / 2, y: top + row * cell + cell / 2 + 4, "text-anchor": "middle" }, g, Math.round(100 * value[0]));
      });
    });
  })();

  // -- faults by kind ---------------------------------------------------------------------------------
  (function () {
    var kinds = data.faultKinds, totals = data.faults.map(function (f) { return f.reduce(function (a, b) { return a + b; }, 0); });
    var most = Math.max.apply(null, [0].concat(totals));
    if (!most) return nothing("faults", "No faults in " + plural(N, "match") + ".");
    var left = 130, width = 500, line = 22, top = 22, height = top + P * line + 8;
    var root = plot("faults", width, height), x = scale(0, most, left, width - 60);
    kinds.forEach(function (kind, k) {
      svg("rect", { x: 4 + k * 84, y: 2, width: 10, height: 10, fill: colour(k + 5) }, root);
      svg("text", { x: 4 + k * 84 + 14, y: 11 }, root, short(kind, 12));
    });
    ranked.forEach(function (i, place) {
      var y = top + place * line, at = 0;
      svg("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, root, short(names[i], 20));
      data.faults[i].forEach(function (count, k) {
        if (!count) return;
        var bar = svg("rect", { x: x(at), y: y + 3, width: Math.max(1, x(at + count) - x(at)), height: line - 6,
          fill: colour(k + 5), class: "fault-bar" }, root);
        tip(bar, names[i] + ": " + count + " " + kinds[k]);
        at += count;
      });
      if (totals[i]) svg("text", { x: x(at) + 4, y: y + 13, class: "dim" }, root, totals[i]);
    });
  })();

  // -- reply times ------------------------------------------------------------------------------------
  (function () {
    var timed = ranked.filter(function (i) { return rows[i].replyTimes; });
    if (!timed.length) {
      $("replies-table").hidden = true;
      return el("p", $("replies"), "No reply time recorded" + (N ? " (results lines from before reply times)." : " yet."), "note");
    }
    function seconds(s) { return s < 0.001 ? (s * 1e6).toFixed(0) + " µs" : s < 10 ? (s * 1000).toFixed(1) + " ms" : s.toFixed(1) + " s"; }
    var table = $("replies-table"), tr = el("tr", el("thead", table));
    ["participant", "replies", "median", "slowest", "of the limit", ""].forEach(function (h, i) { el("th", tr, h, i === 0 ? "name" : ""); });
    var body = el("tbody", table);
    timed.forEach(function (i) {
      var t = rows[i].replyTimes, cells = el("tr", body, null, "reply-times");
      el("td", cells, names[i], "name");
      el("td", cells, t.replies);
      el("td", cells, seconds(t.median), "median");
      el("td", cells, seconds(t.slowest), "slowest");
      el("td", cells, pct0(t.limitShare), "share" + (t.limitShare >= 0.8 ? " bad" : ""));
      var bar = svg("svg", { width: 120, height: 10, class: "limit-bar" }, el("td", cells));
      svg("rect", { x: 0, y: 1, width: 100, height: 8, fill: "#eeeae2" }, bar);
      svg("rect", { x: 0, y: 1, width: Math.max(1, Math.min(120, 100 * t.limitShare)), height: 8,
        fill: t.limitShare >= 0.8 ? "#b91c1c" : "#0e7490" }, bar);
      svg("line", { x1: 100, x2: 100, y1: 0, y2: 10, stroke: "#1d2330" }, bar);
    });
  })();

  // -- books per match ----------------------------------------------------------------------------------
  (function () {
    if (!N) return nothing("books", "No match yet.");
    var most = data.books[0] ? data.books[0].length : 0, left = 130, cell = Math.max(14, Math.min(30, Math.floor(300 / most))),
      top = 16, line = 20, root = plot("books", left + most * cell + 70, top + P * line + 18);
    for (var b = 0; b < most; b++) svg("text", { x: left + b * cell + cell / 2, y: top - 4, "text-anchor": "middle", class: "dim" }, root, b);
    ranked.forEach(function (i, place) {
      var y = top + place * line, counts = data.books[i], total = rows[i].matches || 1;
      svg("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, root, short(names[i], 20));
      counts.forEach(function (count, b) {
        var rect = svg("rect", { x: left + b * cell, y: y + 1, width: cell - 1, height: line - 2, class: "cell",
          fill: count ? shade(count / total * 3) : "#f3f1ec" }, root);
        tip(rect, names[i] + ": " + plural(b, "book") + " in " + plural(count, "match") + " (" + pct(count / total) + ")");
      });
      svg("text", { x: left + most * cell + 6, y: y + 13, class: "dim" }, root, "mean " + rows[i].meanBooks.toFixed(1));
    });
    svg("text", { x: left, y: top + P * line + 14, class: "dim" }, root, "books laid in a match →");
  })();

  // -- seat advantage ---------------------------------------------------------------------------------------
  (function () {
    var seats = data.seatWins;
    if (!N || !seats.length) return nothing("seats", "No match yet.");
    var left = 44, width = 500, top = 10, inner = 180, height = top + inner + 30, band = (width - left - 10) / seats.length;
    var root = plot("seats", width, height), top1 = Math.min(1, Math.max.apply(null, seats.map(function (s) { return s.interval[1]; })) + 0.05);
    var y = scale(0, top1, top + inner, top);
    niceTicks(0, top1, 5).forEach(function (t) {
      svg("line", { x1: left, x2: width - 10, y1: y(t), y2: y(t), class: "axis" }, root);
      svg("text", { x: left - 4, y: y(t) + 4, "text-anchor": "end", class: "dim" }, root, Math.round(t * 100) + "%");
    });
    seats.forEach(function (s, k) {
      var cx = left + k * band + band / 2, g = svg("g", {}, root);
      tip(g, "seat " + k + ": " + pct(s.share) + " of " + plural(s.matches, "match") + " (" + pct(s.interval[0]) + " – " + pct(s.interval[1]) + ")");
      svg("rect", { x: cx - band * 0.3, y: y(s.share), width: band * 0.6, height: y(0) - y(s.share), fill: colour(k), opacity: 0.75, class: "seat-bar" }, g);
      svg("line", { x1: cx, x2: cx, y1: y(s.interval[0]), y2: y(s.interval[1]), stroke: "#1d2330", "stroke-width": 1.5 }, g);
      svg("text", { x: cx, y: top + inner + 16, "text-anchor": "middle" }, g, "seat " + k + " · " + pct(s.share));
    });
    svg("line", { x1: left, x2: width - 10, y1: y(1 / seats.length), y2: y(1 / seats.length), stroke: "#6b7280", "stroke-dasharray": "4 3" }, root);
  })();

  // -- the sequential test ------------------------------------------------------------------------------------
  (function () {
    var t = data.sprt;
    if (!t) return;
    $("sprt").hidden = false;
    var points = t.history.length ? t.history : [[t.groups || 0, t.llr]];
    var lo = Math.min(t.lower, 0), hi = Math.max(t.upper, 0);
    points.forEach(function (p) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); });
    // `right`: room for the bounds' labels ("upper -2.94"), which must not be cut at the edge.
    var left = 44, right = 110, width = 600, top = 10, inner = 200, height = top + inner + 30, last = points[points.length - 1][0] || 1;
    var root = plot("sprt", width, height), x = scale(0, last, left, width - right), y = scale(lo, hi, top + inner, top);
    niceTicks(lo, hi, 6).forEach(function (v) {
      svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: "axis" }, root);
      svg("text", { x: left - 4, y: y(v) + 4, "text-anchor": "end", class: "dim" }, root, v);
    });
    [["upper", t.upper, "#15803d"], ["lower", t.lower, "#b91c1c"]].forEach(function (b) {
      svg("line", { x1: left, x2: width - right, y1: y(b[1]), y2: y(b[1]), stroke: b[2], "stroke-dasharray": "5 3", class: "bound" }, root);
      svg("text", { x: width - right + 4, y: y(b[1]) + 4, fill: b[2], class: "bound-label" }, root, b[0] + " " + b[1].toFixed(2));
    });
    svg("polyline", { points: points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }).join(" "),
      fill: "none", stroke: "#1d4ed8", "stroke-width": 1.8, class: "llr" }, root);
    svg("text", { x: (left + width - right) / 2, y: height - 4, "text-anchor": "middle", class: "dim" }, root, "deal groups");
    $("sprt-note").textContent = "LLR " + t.llr.toFixed(3) + " after " + (t.groups !== null ? plural(t.groups, "group") : "?") +
      (t.matches !== null ? " (" + plural(t.matches, "match") + ")" : "") + "; decision: " + (t.decision || "none yet");
  })();

  // -- the schedule -----------------------------------------------------------------------------------------------
  (function () {
    if (!N) return nothing("schedule", "No match yet.");
    var counts = data.seatCounts, k = counts[0] ? counts[0].length : 0, played = rows.map(function (r) { return r.matches; });
    var most = Math.max.apply(null, played), left = 130, barW = 200, cell = 34, top = 16, line = 20;
    var root = plot("schedule", left + barW + 20 + Math.max(k * cell, 50) + 10, top + P * line + 6);
    svg("text", { x: left, y: top - 4, class: "dim" }, root, "matches played");
    svg("text", { x: left + barW + 20, y: top - 4, class: "dim" }, root, "by seat");
    var all = [].concat.apply([], counts), lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    ranked.forEach(function (i, place) {
      var y = top + place * line;
      svg("text", { x: left - 8, y: y + 13, "text-anchor": "end" }, root, short(names[i], 20));
      tip(svg("rect", { x: left, y: y + 2, width: Math.max(1, barW * played[i] / most), height: line - 4, fill: colour(place), opacity: 0.7, class: "played-bar" }, root),
        names[i] + ": " + plural(played[i], "match"));
      counts[i].forEach(function (c, seat) {
        var rect = svg("rect", { x: left + barW + 20 + seat * cell, y: y + 1, width: cell - 1, height: line - 2, class: "cell",
          fill: shade(hi > lo ? 0.2 + 0.8 * (c - lo) / (hi - lo) : 0.5) }, root);
        tip(rect, names[i] + " in seat " + seat + ": " + plural(c, "match"));
      });
    });
    $("schedule-note").textContent = "Matches per participant: " + Math.min.apply(null, played) + " to " + most +
      "; per participant and seat: " + lo + " to " + hi + (hi - lo <= 1 && Math.min.apply(null, played) >= most - 1 ? " (as even as it can be)" : "") + ".";
  })();

  // -- the matches -----------------------------------------------------------------------------------------------------
  (function () {
    var list = data.list, count = list.game.length, starts = new Array(count), at = 0, PAGE = 50;
    for (var m = 0; m < count; m++) { starts[m] = at; at += list.size[m]; }
    var pages = new Set(data.pages || []), picked = new Set(), shown = [], page = 0;
    ranked.forEach(function (i) { el("option", $("who"), names[i]).value = String(i); });
    function file(m, suffix) {
      var part = list.file[m];
      if (!part) return null;
      var stem = part.charAt(0) === "/" ? part.slice(1) : data.runs[list.run[m]].stamp + part;
      return data.folder + encodeURIComponent(stem + suffix);
    }
    function filter() {
      var who = $("who").value === "" ? -1 : +$("who").value, faulty = $("faulty").checked, game = parseInt($("game").value, 10);
      var judged = $("adjudicated").checked, outcomes = list.adjudicated || [];
      shown = [];
      for (var m = 0; m < count; m++) {
        var s = starts[m], z = list.size[m], keep = true;
        if (!isNaN(game) && list.game[m] !== game) continue;
        if (who >= 0) { keep = false; for (var a = 0; a < z; a++) if (list.seated[s + a] === who) keep = true; }
        if (keep && faulty) { keep = false; for (var b = 0; b < z; b++) if (list.faults[s + b]) keep = true; }
        if (keep && judged && !outcomes[m]) keep = false;
        if (keep) shown.push(m);
      }
      page = 0;
      draw();
    }
    function quote(text) { return /^[A-Za-z0-9_.\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'"; }
    function showPicked() {
      var games = Array.from(picked).sort(function (a, b) { return a - b; });
      $("picked").textContent = games.length ? "arena report " + quote(data.folderArg) + games.map(function (g) { return " --view " + g; }).join("") : "";
    }
    function draw() {
      var table = $("match-table");
      table.textContent = "";
      var tr = el("tr", el("thead", table));
      ["game"].concat(data.runs.length > 1 ? ["run"] : []).concat(["seating: books", "faults", "ended by", "replay", "pick"])
        .forEach(function (h, i) { el("th", tr, h, i === 1 ? "name" : ""); });
      var body = el("tbody", table), pagesCount = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.max(0, Math.min(page, pagesCount - 1));
      shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (m) {
        var row = el("tr", body, null, "match"), s = starts[m], z = list.size[m], best = -1, faults = 0;
        for (var a = 0; a < z; a++) { best = Math.max(best, list.scores[s + a]); faults += list.faults[s + a]; }
        el("td", row, list.game[m]);
        if (data.runs.length > 1) el("td", row, data.runs[list.run[m]].run, "name");
        var seating = el("td", row, null, "seating");
        for (var c = 0; c < z; c++) {
          if (c) seating.appendChild(document.createTextNode(" · "));
          var who = el(list.scores[s + c] === best ? "strong" : "span", seating, names[list.seated[s + c]] + " " + list.scores[s + c]);
          if (list.faults[s + c]) { who.className = "bad"; who.title = plural(list.faults[s + c], "fault"); }
        }
        el("td", row, faults || "", faults ? "bad" : "");
        // A match a limit ended (stalled, turn-limit) was adjudicated on the books so far.
        var ended = (list.adjudicated || [])[m];
        el("td", row, ended ? ended + " (adjudicated)" : "", ended ? "adjudicated" : "");
        var links = el("td", row), json = file(m, ".json");
        if (json && pages.has(m)) {
          var a2 = el("a", links, "view"); a2.setAttribute("href", file(m, ".html")); a2.className = "view";
          links.appendChild(document.createTextNode(" "));
        }
        if (json) { var a1 = el("a", links, "json"); a1.setAttribute("href", json); }
        var box = el("input", el("td", row));
        box.type = "checkbox";
        box.checked = picked.has(list.game[m]);
        box.addEventListener("change", function () {
          if (box.checked) picked.add(list.game[m]); else picked.delete(list.game[m]);
          showPicked();
        });
      });
      $("page").textContent = shown.length ? "page " + (page + 1) + " of " + pagesCount + " (" + plural(shown.length, "match") + ")" : "no match";
    }
    $("who").addEventListener("change", filter);
    $("faulty").addEventListener("change", filter);
    $("adjudicated").addEventListener("change", filter);
    $("game").addEventListener("input", filter);
    $("prev").addEventListener("click", function () { page -= 1; draw(); });
    $("next").addEventListener("click", function () { page += 1; draw(); });
    filter();
  })();

  document.body.dataset.ready = "1";
})();
