// Broken: answers every line, into a BufWriter it never flushes (Rust's advice for speed):
// its replies wait in the buffer until 8 KiB of them fill it.
use std::io::{self, BufRead, Write};

fn main() {
    let mut out = io::BufWriter::new(io::stdout());
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        writeln!(out, "null").ok();
        if line.contains("\"match-end\"") {
            break;
        }
    }
}
