// The replay viewer. Every string from the replay goes in with textContent, never innerHTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = data.steps;
  var players = data.players;
  var seats = players.length;
  var PLAY_MS = 700;

  function $(id) { return document.getElementById(id); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function seatClass(seat) { return "s" + (seat % 8); }
  function place(n) { return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : n + "th"; }
  function cardLabel(id) {
    var c = data.cards[id];
    return data.rankNames[c[0]] + data.suits.charAt(c[1] % 4);
  }

  // The table after every step: card moves applied in order (arrays are never mutated, so a
  // state may share the arrays of seats that did not change).
  var states = [];
  (function () {
    var hands = [], books = [];
    for (var s = 0; s < seats; s++) { hands.push([]); books.push([]); }
    steps.forEach(function (step) {
      hands = hands.slice(); books = books.slice();
      step.moves.forEach(function (move) {
        var ids = move[0], source = move[1], target = move[2], from = move[3], to = move[4];
        if (source === "hand") {
          var gone = {};
          ids.forEach(function (id) { gone[id] = true; });
          hands[from] = hands[from].filter(function (id) { return !gone[id]; });
        }
        if (target === "hand") hands[to] = hands[to].concat(ids);
        if (target === "book") books[to] = books[to].concat([data.cards[ids[0]][0]]);
      });
      states.push({ hands: hands, books: books, pond: step.pond });
    });
  })();

  var view = "all";     // "all" or a seat number
  var visible = [];     // indices of the steps the current view shows
  var pos = 0;          // index into `visible`
  var timer = null;
  var logItems = [];

  function lineOf(step) { return view === "all" ? step.line : step.seen[view]; }

  // The coach's marks (`arena replay html --review K`): shown in the reviewed seat's view and in
  // the view of all seats, never in another seat's (a suggested ask tells a card of the hand).
  var marks = {};
  if (data.review) data.review.marks.forEach(function (mark) { marks[mark.at] = mark; });
  function markOf(step) {
    if (!data.review || (view !== "all" && view !== data.review.seat)) return null;
    return step.kind === "ask" || step.kind === "invalid-ask" ? marks[step.at] || null : null;
  }
  function signed(value, digits) { return (value >= 0 ? "+" : "") + value.toFixed(digits); }

  function lineNodes(parent, segments) {
    segments.forEach(function (segment) {
      if (segment !== null && typeof segment === "object") {
        var player = players[segment.seat];
        parent.appendChild(el("span", "who " + seatClass(segment.seat), player ? player.name : "seat " + segment.seat));
      } else {
        parent.appendChild(document.createTextNode(String(segment)));
      }
    });
  }

  function forkText() {
    // A replaced seat bears its new player's name: "seat 1 now hard", never "X (X replaced)".
    var who = data.fork.replaced.map(function (r) {
      return "seat " + r.seat + ": " + r.by + " for " + r.was;  // its whole command
    });
    return "forked here from " + data.fork.source + ": live from message " + data.fork.at +
      (who.length ? " (" + who.join(", ") + ")" : "");
  }

  function setView(value) {
    var current = visible.length ? visible[pos] : 0;
    view = value === "all" ? "all" : Number(value);
    visible = [];
    steps.forEach(function (step, index) { if (lineOf(step)) visible.push(index); });
    var log = $("log");
    log.replaceChildren();
    logItems = [];
    var forkMarked = !data.fork;
    visible.forEach(function (index, at) {
      var step = steps[index];
      if (!forkMarked && step.at >= data.fork.at && step.kind !== "end") {
        forkMarked = true;
        log.appendChild(el("li", "fork-mark", forkText()));
      }
      var item = el("li", step.kind + (step.fault ? " fault" : "") + (markOf(step) ? " coached" : ""));
      item.value = step.at;
      lineNodes(item, lineOf(step));
      item.addEventListener("click", function () { go(at); });
      log.appendChild(item);
      logItems.push(item);
    });
    pos = 0;
    while (pos + 1 < visible.length && visible[pos + 1] <= current) pos++;
    $("slider").max = String(Math.max(visible.length - 1, 0));
    show();
  }

  function renderSeats(state, step) {
    var box = $("seats");
    box.replaceChildren();
    for (var s = 0; s < seats; s++) {
      var panel = el("div", "seat " + seatClass(s) + (step.seat === s ? " acting" : ""));
      panel.dataset.seat = String(s);
      var head = el("h3");
      head.appendChild(el("span", "name", players[s].name));
      var hand = state.hands[s];
      head.appendChild(el("span", "meta", hand.length + " cards · " + state.books[s].length + " books"));
      panel.appendChild(head);
      var cards = el("div", "hand");
      if (view === "all" || view === s) {
        var groups = {};
        var order = [];
        hand.forEach(function (id) {
          var rank = data.cards[id][0];
          if (!groups[rank]) { groups[rank] = []; order.push(rank); }
          groups[rank].push(id);
        });
        order.sort(function (a, b) { return a - b; });
        order.forEach(function (rank) {
          var stack = el("span", "stack");
          stack.appendChild(el("span", "rank", data.rankNames[rank]));
          groups[rank].forEach(function (id) {
            var suit = data.cards[id][1];
            stack.appendChild(el("span", "card" + (suit === 1 || suit === 2 ? " red" : ""), cardLabel(id)));
          });
          if (groups[rank].length > 1) stack.appendChild(el("span", "count", "×" + groups[rank].length));
          cards.appendChild(stack);
        });
        if (!hand.length) cards.appendChild(el("span", "backs", "no cards"));
      } else {
        cards.appendChild(el("span", "backs", hand.length ? "🂠 × " + hand.length + " (hidden)" : "no cards"));
      }
      panel.appendChild(cards);
      box.appendChild(panel);
    }
  }

  function renderBooks(state) {
    var owners = {};
    state.books.forEach(function (ranks, seat) {
      ranks.forEach(function (rank) { (owners[rank] = owners[rank] || []).push(seat); });
    });
    var strip = $("books");
    strip.replaceChildren();
    data.ranks.forEach(function (rank) {
      var who = owners[rank] || [];
      var cell = el("div", "cell" + (who.length ? " lit " + seatClass(who[0]) : ""));
      cell.dataset.rank = String(rank);
      cell.title = data.rankPlurals[rank] + (who.length ? ": " + who.map(function (s) { return players[s].name; }).join(", ") : "");
      cell.appendChild(el("span", "", data.rankNames[rank]));
      if (who.length > 1) {
        var bars = el("span", "bars");
        who.forEach(function (s) { bars.appendChild(el("span", "bar " + seatClass(s))); });
        cell.appendChild(bars);
      }
      strip.appendChild(cell);
    });
  }

  function renderPlacings(atEnd) {
    var box = $("placings");
    box.hidden = !atEnd;
    var list = $("placing-list");
    list.replaceChildren();
    var scores = data.result.scores || [], ranks = data.result.ranks || [];
    // A match stopped before its end has no places: its books so far, in seat order.
    var unfinished = data.result.outcome === "interrupted";
    box.querySelector("h2").textContent = unfinished ? "Books so far (stopped: no places)" : "Final placings";
    var order = players.map(function (p) { return p.seat; });
    if (!unfinished) order.sort(function (a, b) { return (ranks[a] - ranks[b]) || (a - b); });
    order.forEach(function (s) {
      var item = el("li", "placing");
      item.dataset.seat = String(s);
      if (!unfinished) item.appendChild(el("span", "place", place(ranks[s]) + " "));
      item.appendChild(el("span", "who " + seatClass(s), players[s].name));
      item.appendChild(el("span", "score", " — " + scores[s] + (scores[s] === 1 ? " book" : " books")));
      list.appendChild(item);
    });
    list.appendChild(el("li", "outcome", "outcome: " + data.result.outcome));
  }

  // Notes written while answering the messages up to this step since the step before it in
  // this view; in a seat's view, only that seat's.
  function renderNotes() {
    var box = $("notes"), list = $("note-list");
    list.replaceChildren();
    var upto = steps[visible[pos]].at;
    var after = pos > 0 ? steps[visible[pos - 1]].at : -1;
    (data.notes || []).forEach(function (note) {
      if (note.at <= after || note.at > upto) return;
      if (view !== "all" && note.seat !== view) return;
      var item = el("li", "note");
      item.appendChild(el("span", "who " + seatClass(note.seat), players[note.seat] ? players[note.seat].name : "seat " + note.seat));
      item.appendChild(document.createTextNode(" at message " + note.at + ":"));
      item.appendChild(el("pre", "", note.text));
      list.appendChild(item);
    });
    box.hidden = !list.childElementCount;
  }

  function renderCoach(step) {
    var box = $("coach"), mark = markOf(step);
    var verdict = data.review && pos === visible.length - 1 ? data.review.verdict : null;
    box.replaceChildren();
    box.hidden = !mark && !verdict;
    if (box.hidden) return;
    box.appendChild(el("strong", "", "Coach (" + data.review.level + "): "));
    if (mark) box.appendChild(document.createTextNode(
      "instead of " + mark.made + ", " + data.review.level + " would ask " + mark.suggested + ": " +
      signed(mark.win[0] * 100, 1) + "% win chance ± " + (mark.win[1] * 100).toFixed(1) + "%, " +
      signed(mark.books[0], 2) + " books ± " + mark.books[1].toFixed(2) + " (95%)"));
    if (verdict) box.appendChild(el("p", "verdict", verdict));  // at the last step
  }

  function show() {
    if (!visible.length) return;
    var index = visible[pos];
    var step = steps[index], state = states[index];
    renderNotes();
    renderCoach(step);
    var now = $("now");
    now.replaceChildren();
    now.className = step.fault ? "fault" : "";
    lineNodes(now, lineOf(step));
    renderSeats(state, step);
    $("pond").textContent = "Pond: " + state.pond + (state.pond === 1 ? " card" : " cards");
    renderBooks(state);
    renderPlacings(pos === visible.length - 1);
    $("slider").value = String(pos);
    // A step is named by its transcript index everywhere (`arena replay show`, `review`, `fork
    // --at`, this log): the address too (`#step=92`), and a link to it opens the page there.
    if (window.history && history.replaceState) history.replaceState(null, "", "#step=" + step.at);
    $("position").textContent = "step " + step.at + " · " + (pos + 1) + " of " + visible.length;
    logItems.forEach(function (item, at) {
      item.classList.toggle("current", at === pos);
      item.hidden = at > pos;  // no spoilers: the log shows what has happened so far
    });
    // Scroll the log box only (scrollIntoView would scroll the page as well).
    var current = logItems[pos], log = $("log");
    if (current) {
      var top = current.offsetTop, bottom = top + current.offsetHeight;
      if (top < log.scrollTop) log.scrollTop = top;
      else if (bottom > log.scrollTop + log.clientHeight) log.scrollTop = bottom - log.clientHeight;
    }
  }

  function go(target) {
    pos = Math.max(0, Math.min(visible.length - 1, target));
    show();
    if (pos === visible.length - 1) pause();
  }
  function pause() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    $("play").textContent = "▶ play";
    $("play").setAttribute("aria-label", "Play");
  }
  function toggle() {
    if (timer !== null) { pause(); return; }
    if (pos === visible.length - 1) go(0);
    timer = setInterval(function () { go(pos + 1); }, PLAY_MS);
    $("play").textContent = "⏸ pause";
    $("play").setAttribute("aria-label", "Pause");
  }

  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(pos - 1); });
  $("next").addEventListener("click", function () { go(pos + 1); });
  $("last").addEventListener("click", function () { go(visible.length - 1); });
  $("play").addEventListener("click", toggle);
  $("slider").addEventListener("input", function () { go(Number($("slider").value)); });
  $("view").addEventListener("change", function () { pause(); setView($("view").value); });
  document.addEventListener("keydown", function (event) {
    var tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
    var keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in keys) go(pos + keys[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(visible.length - 1);
    else if (event.key === " " && tag !== "BUTTON") toggle();
    else return;
    event.preventDefault();
  });

  var select = $("view");
  select.appendChild(el("option", "", "all seats")).value = "all";
  players.forEach(function (p) {
    select.appendChild(el("option", "", "seat " + p.seat + ": " + p.name)).value = String(p.seat);
  });
  var summary = $("summary");
  summary.appendChild(document.createTextNode("seed " + data.seed + " · " + data.rules + " · "));
  players.forEach(function (p, i) {
    if (i) summary.appendChild(document.createTextNode(" vs "));
    summary.appendChild(el("span", "who " + seatClass(p.seat), p.name));
  });
  summary.appendChild(document.createTextNode(" · " + data.result.outcome));
  if (data.fork) summary.appendChild(el("span", "fork", " · " + forkText()));
  // The position that shows transcript index `at`: its first step, or the last one before it
  // (a message that made no step of this view: an informational one, another seat's).
  function positionOf(at) {
    var found = 0;
    for (var p = 0; p < visible.length; p++) {
      var here = steps[visible[p]].at;
      if (here === at) return p;
      if (here < at) found = p;
    }
    return found;
  }
  function linkedStep() {
    var found = /^#step=([0-9]{1,9})$/.exec(window.location.hash);
    return found ? positionOf(Number(found[1])) : null;
  }
  var linked = linkedStep();  // read before the first step shown rewrites the address
  setView("all");
  if (linked !== null) go(linked);
  window.addEventListener("hashchange", function () {
    var wanted = linkedStep();
    if (wanted !== null && wanted !== pos) go(wanted);
  });
  document.body.dataset.ready = "1";
})();
