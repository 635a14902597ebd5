// Broken: reads its whole input before answering (read_to_string), so it waits for ever for
// the first message's end of input.
use std::io::{self, Read};

fn main() {
    let mut all = String::new();
    io::stdin().read_to_string(&mut all).ok();
    for _ in all.lines() {
        println!("null");
    }
}
