#!/usr/bin/env node
// The seed's random participant, standalone: Node.js and no packages.
//
//     node participants/random_bot.js
//
// Asks a random other seat for the rank of a random card of its hand and takes a random pond
// card. Its generator (mulberry32) is seeded from a hash of its seat and the ids of its starting
// hand, so the same match plays the same way every run.
"use strict";
const readline = require("readline");

// FNV-1a over the text: a 32-bit seed that every run of the same match computes identically.
function hashSeed(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let seat = 0;
let hand = [];
let random = mulberry32(0);
const below = (n) => Math.floor(random() * n);

function reply(message) {
  if (message === null || typeof message !== "object") return null;
  if (Array.isArray(message.hand)) hand = message.hand;
  switch (message.type) {
    case "init":
      seat = message.seat;
      random = mulberry32(hashSeed(String(seat)));
      return null;
    case "starting-hand": {
      const ids = hand.map((card) => card.id).sort((a, b) => a - b);
      random = mulberry32(hashSeed(`${seat}:${ids.join(",")}`));
      return null;
    }
    case "ask": {
      const card = hand[below(hand.length)];
      const others = message.opponentsHandSizes.map((_, s) => s).filter((s) => s !== seat);
      return { player: others[below(others.length)], cardId: card.id };
    }
    case "go-fish":
      return below(message.pond.length);
    case "pick-up":
      return below(message.pond);
    default:
      return null; // hand-update, *-result, match-end and unknown types: any reply will do
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let message = null;
  try {
    message = JSON.parse(line);
  } catch (error) {
    console.error(`not JSON: ${line.slice(0, 80)}`);
  }
  // One line per message; stdout is a pipe, so Node writes it out without buffering it.
  process.stdout.write(JSON.stringify(reply(message)) + "\n");
  if (message && message.type === "match-end") {
    lines.close();
    process.exit(0);
  }
});
