// An example Go Fish bot in Rust with the standard library only (no crates, so it builds
// offline): copy it and make it yours.
//
//     rustc -O -o most_held participants/examples/most_held.rs
//     participants/examples/most_held
//
// In a config:  command = ["participants/examples/most_held"]
// (with Cargo, put this file in src/main.rs, `cargo build --release`, and enter
// target/release/NAME: never `cargo run`, which the sandbox cannot build.)
//
// It remembers who asked for what (a seat that asks for a rank holds it; a seat that hands a
// rank over or says go fish has none of it), asks a seat known to hold one of its ranks, and
// otherwise asks for the rank it holds most of, from the seat with the most cards. No
// randomness, so it is deterministic. The protocol is in docs/protocol.md.
//
// Two things every Rust bot must get right:
// - read line by line (`lines()`), never `read_to_string`: the arena waits for each reply
//   before it sends the next line, so the end of input comes only after the match;
// - flush after every reply: stdout into a pipe is not flushed at each line (a `BufWriter`
//   never is), and a reply held in a buffer is a timeout.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, BufRead, Write};

// ---- a minimal JSON reader: enough for the arena's messages ----------------------------

enum Json {
    Null,
    #[allow(dead_code)] // (this bot reads no flag: settings.deck.knights is one)
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(members) => members.get(key).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }
    fn int(&self) -> Option<i64> {
        match self {
            Json::Num(n) => Some(*n as i64),
            _ => None,
        }
    }
    fn list(&self) -> &[Json] {
        match self {
            Json::Arr(items) => items,
            _ => &[],
        }
    }
    fn text(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn parse(text: &'a str) -> Option<Json> {
        let mut reader = Reader { bytes: text.as_bytes(), at: 0 };
        reader.value()
    }
    fn space(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.bytes.get(self.at).copied()
    }
    fn eat(&mut self, byte: u8) -> bool {
        let here = self.peek() == Some(byte);
        if here {
            self.at += 1;
        }
        here
    }
    fn value(&mut self) -> Option<Json> {
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut members = BTreeMap::new();
                while !self.eat(b'}') {
                    let key = match self.value()? {
                        Json::Str(key) => key,
                        _ => return None,
                    };
                    if !self.eat(b':') {
                        return None;
                    }
                    members.insert(key, self.value()?);
                    self.eat(b',');
                }
                Some(Json::Obj(members))
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat(b']') {
                    items.push(self.value()?);
                    self.eat(b',');
                }
                Some(Json::Arr(items))
            }
            b'"' => {
                self.at += 1;
                let mut out = Vec::new();
                while let Some(&byte) = self.bytes.get(self.at) {
                    self.at += 1;
                    match byte {
                        b'"' => return String::from_utf8(out).ok().map(Json::Str),
                        b'\\' => {
                            let escaped = *self.bytes.get(self.at)?;
                            self.at += 1;
                            match escaped {
                                b'n' => out.push(b'\n'),
                                b't' => out.push(b'\t'),
                                b'r' => out.push(b'\r'),
                                b'b' => out.push(8),
                                b'f' => out.push(12),
                                b'u' => {
                                    // Names and card glyphs only: a placeholder will do.
                                    self.at += 4;
                                    out.push(b'?');
                                }
                                other => out.push(other), // \" \\ \/
                            }
                        }
                        other => out.push(other),
                    }
                }
                None
            }
            b't' | b'f' | b'n' => {
                for (word, value) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.bytes[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        return Some(value);
                    }
                }
                None
            }
            _ => {
                let start = self.at;
                while self.at < self.bytes.len()
                    && matches!(self.bytes[self.at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.at += 1;
                }
                std::str::from_utf8(&self.bytes[start..self.at]).ok()?.parse().ok().map(Json::Num)
            }
        }
    }
}

// ---- the bot ---------------------------------------------------------------------------

#[derive(Default)]
struct MostHeld {
    seat: i64,
    hand: Vec<(i64, i64)>,               // (card id, rank), the whole hand as last sent
    holds: HashMap<i64, HashSet<i64>>, // seat -> ranks it is known to hold
}

impl MostHeld {
    /// The reply to one message, as a line of JSON.
    fn reply(&mut self, message: &Json) -> String {
        if let Json::Arr(cards) = message.get("hand") {
            // Every message with a hand carries all of it.
            self.hand = cards
                .iter()
                .filter_map(|card| Some((card.get("id").int()?, card.get("rank").int()?)))
                .collect();
        }
        match message.get("type").text() {
            "init" => {
                *self = MostHeld::default(); // a new match: forget the last one
                self.seat = message.get("seat").int().unwrap_or(0);
            }
            "hand-update" => {
                let rank = message.get("card").get("rank").int().unwrap_or(-1);
                if let Some(asker) = message.get("askingPlayer").int() {
                    self.holds.entry(asker).or_default().insert(rank);
                }
                if let Some(asked) = message.get("playerAsked").int() {
                    self.holds.entry(asked).or_default().remove(&rank);
                }
            }
            "ask" => return self.ask(message.get("opponentsHandSizes").list()),
            // The pond is face down: any index is as good as another.
            "go-fish" | "pick-up" => return "0".to_string(),
            _ => {}
        }
        "null".to_string() // informational and unknown messages still need a reply
    }

    fn ask(&self, sizes: &[Json]) -> String {
        let mut mine: BTreeMap<i64, usize> = BTreeMap::new();
        for &(_, rank) in &self.hand {
            *mine.entry(rank).or_default() += 1;
        }
        let others: Vec<(i64, i64)> = sizes
            .iter()
            .enumerate()
            .filter_map(|(seat, size)| Some((seat as i64, size.int()?)))
            .filter(|&(seat, _)| seat != self.seat)
            .collect();
        let holding: Vec<(i64, i64)> = others.iter().copied().filter(|&(_, n)| n > 0).collect();
        let holding = if holding.is_empty() { others } else { holding };
        for &(seat, _) in &holding {
            if let Some(known) = self.holds.get(&seat) {
                if let Some(&rank) = mine.keys().find(|rank| known.contains(rank)) {
                    return self.ask_for(seat, rank);
                }
            }
        }
        // The lowest of the ranks held most, from the seat with the most cards (the first).
        let most = mine.values().copied().max().unwrap_or(0);
        let rank = mine.iter().find(|&(_, &n)| n == most).map_or(0, |(&rank, _)| rank);
        let top = holding.iter().map(|&(_, n)| n).max().unwrap_or(0);
        let seat = holding.iter().find(|&&(_, n)| n == top).map_or(0, |&(seat, _)| seat);
        self.ask_for(seat, rank)
    }

    fn ask_for(&self, seat: i64, rank: i64) -> String {
        // Asking uses a card id from our hand, never the rank itself.
        let id = self.hand.iter().find(|&&(_, r)| r == rank).map_or(-1, |&(id, _)| id);
        format!("{{\"player\": {seat}, \"cardId\": {id}}}")
    }
}

fn main() {
    let mut bot = MostHeld::default();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let Some(message) = Reader::parse(&line) else {
            eprintln!("not JSON: {line}"); // stderr is the log; stdout is for replies only
            writeln!(out, "null").ok();
            out.flush().ok();
            continue;
        };
        let reply = bot.reply(&message);
        writeln!(out, "{reply}").ok();
        out.flush().ok(); // one line per message, flushed
        if message.get("type").text() == "match-end" {
            break;
        }
    }
}
