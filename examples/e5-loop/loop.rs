//! E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
//! default 10^8, E5's), the result printed so nothing can be skipped.
//! A second argument of 6/3 runs E5's variant, *6 and /3 instead; each loop
//! has its constants written in, as E5's had, so the compiler sees them.

fn loop42(n: i64) -> i64 {
    let mut acc: i64 = 0;
    for i in 0..n {
        acc = (acc + i) % 1_000_003;
        acc *= 4;
        acc /= 2;
    }
    acc
}

fn loop63(n: i64) -> i64 {
    let mut acc: i64 = 0;
    for i in 0..n {
        acc = (acc + i) % 1_000_003;
        acc *= 6;
        acc /= 3;
    }
    acc
}

fn main() {
    let n: i64 = match std::env::args().nth(1) {
        Some(a) => a.parse().expect("loop: n must be a whole number"),
        None => 100_000_000,
    };
    let acc = match std::env::args().nth(2).as_deref().unwrap_or("4/2") {
        "4/2" => loop42(n),
        "6/3" => loop63(n),
        other => {
            eprintln!("loop: the variant is 4/2 (E5's loop) or 6/3, not {other}");
            std::process::exit(2);
        }
    };
    println!("{acc}");
}
