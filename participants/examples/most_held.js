#!/usr/bin/env node
// An example Go Fish bot in plain Node.js (no packages): copy it and make it yours.
//
//     node participants/examples/most_held.js
//
// In a config:  command = ["node", "participants/examples/most_held.js"]
//
// It remembers who asked for what (a seat that asks for a rank holds it; a seat that hands a
// rank over or says go fish has none of it), asks a seat known to hold one of its ranks, and
// otherwise asks for the rank it holds most of, from the seat with the most cards. No
// randomness, so it is deterministic. The protocol is in docs/protocol.md.
"use strict";
const readline = require("readline");

let seat = 0;
let hand = [];
let holds = new Map(); // seat -> Set of ranks it is known to hold

function known(s) {
  if (!holds.has(s)) holds.set(s, new Set());
  return holds.get(s);
}

// Asking uses a card id from our hand, never the rank itself.
function askFor(player, rank) {
  return { player, cardId: hand.find((card) => card.rank === rank).id };
}

function ask(sizes) {
  const mine = new Map();
  for (const card of hand) mine.set(card.rank, (mine.get(card.rank) || 0) + 1);
  const others = sizes.map((_, s) => s).filter((s) => s !== seat && sizes[s] !== null);
  const withCards = others.filter((s) => sizes[s] > 0);
  const holding = withCards.length > 0 ? withCards : others;
  for (const s of holding) {
    const ranks = [...known(s)].filter((r) => mine.has(r)).sort((a, b) => a - b);
    if (ranks.length > 0) return askFor(s, ranks[0]);
  }
  let rank = null;
  for (const [r, count] of [...mine].sort((a, b) => a[0] - b[0])) {
    if (rank === null || count > mine.get(rank)) rank = r; // the lowest of the most held
  }
  const target = holding.reduce((best, s) => (sizes[s] > sizes[best] ? s : best));
  return askFor(target, rank);
}

function reply(message) {
  if (Array.isArray(message.hand)) hand = message.hand; // always the whole hand
  switch (message.type) {
    case "init":
      seat = message.seat;
      holds = new Map(); // a new match: forget the last one
      return null;
    case "hand-update":
      known(message.askingPlayer).add(message.card.rank);
      known(message.playerAsked).delete(message.card.rank);
      return null;
    case "ask":
      return ask(message.opponentsHandSizes);
    case "go-fish":
    case "pick-up":
      return 0; // the pond is face down: any index is as good as another
    default:
      return null; // informational and unknown messages still need a reply
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  process.stdout.write(JSON.stringify(reply(message)) + "\n"); // one line per message
  if (message.type === "match-end") {
    lines.close();
    process.exit(0);
  }
});
