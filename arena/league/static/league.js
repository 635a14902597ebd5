"use strict";
const board = document.getElementById("board");
const apart = document.getElementById("provisional");
const count = document.getElementById("matches");
const pausedBanner = document.getElementById("paused");
const phaseLine = document.getElementById("phase");
let last = -1;
function cell(row, text, numeric) {
  const td = document.createElement("td");
  td.textContent = text;
  if (numeric) td.className = "n";
  row.appendChild(td);
  return td;
}
function share(bot) {
  if (bot.standing === "paused") return "paused";
  if (bot.standing === "unplayed") return "no match yet";
  const [low, high] = bot.winShareInterval;
  return bot.winShare.toFixed(2) + " (" + low.toFixed(2) + "–" + high.toFixed(2) + ")";
}
function rows(table, bots, provisional) {
  const body = document.createElement("tbody");
  for (const bot of bots) {
    const row = document.createElement("tr");
    if (!provisional) cell(row, bot.place);
    const link = document.createElement("a");
    link.href = "/bots/" + encodeURIComponent(bot.name);
    link.textContent = bot.name;
    const named = cell(row, "");
    named.appendChild(link);
    named.appendChild(document.createTextNode(" v" + bot.version));
    cell(row, bot.owner || "house");
    if (provisional) {
      cell(row, String(bot.matches), true);
      cell(row, share(bot));
    } else {
      cell(row, bot.rating.toFixed(0), true);
      cell(row, "±" + bot.interval.toFixed(0), true);
      cell(row, String(bot.matches), true);
    }
    body.appendChild(row);
  }
  table.replaceChild(body, table.tBodies[0]);
  table.hidden = bots.length === 0;
}
async function poll() {
  try {
    const response = await fetch("/api/leaderboard", {cache: "no-store"});
    const data = await response.json();
    pausedBanner.hidden = !data.paused;
    phaseLine.textContent = data.phaseText;
    if (data.matches !== last) {
      last = data.matches;
      count.textContent = String(data.matches);
      rows(board, data.bots.filter(b => !b.provisional), false);
      rows(apart, data.bots.filter(b => b.provisional), true);
    }
  } catch (error) { /* the server restarts: try again */ }
  setTimeout(poll, 1000);
}
poll();
