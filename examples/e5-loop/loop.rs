//! E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
//! default 10^8, E5's), the result printed so nothing can be skipped.

fn main() {
    let n: i64 = match std::env::args().nth(1) {
        Some(a) => a.parse().expect("loop: n must be a whole number"),
        None => 100_000_000,
    };
    let mut acc: i64 = 0;
    for i in 0..n {
        acc = (acc + i) % 1_000_003;
        acc *= 4;
        acc /= 2;
    }
    println!("{acc}");
}
