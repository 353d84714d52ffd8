//! The figures people quote for the atlas's crossings, each with the words
//! its source uses and the source itself, drawn on the atlas's page as
//! hollow diamonds beside this machine's dots. Only a figure whose source
//! can be named is here, and only where it names the same crossing as an
//! atlas row (docs/guide/sys.md's table has the rest, with their ranges).

/// Where quoted figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The short name the quotes table uses.
    pub name: &'static str,
    /// What it is, where to find it, and what it measured on.
    pub cite: &'static str,
}

pub const DEAN_NORVIG: Source = Source {
    name: "Dean/Norvig 2012",
    cite: "\"Latency Comparison Numbers (~2012)\": J. Dean's figures (LADIS 2009 keynote, \"Designs, Lessons and Advice from Building Large Distributed Systems\") and P. Norvig's (\"Teach Yourself Programming in Ten Years\"), as J. Bonér's gist \"Latency Numbers Every Programmer Should Know\" (gist.github.com/jboner/2841832) lists them",
};

pub const NAPKIN_MATH: Source = Source {
    name: "napkin-math",
    cite: "S. Eskildsen, github.com/sirupsen/napkin-math, README's \"Numbers\" table (commit 02ac5c9): measured by its program on a 2017 MacBook and rounded \"to make them more memorable\"",
};

pub const PAGE_FAULT: Source = Source {
    name: "ddumbying",
    cite: "ddumbying.vercel.app, \"Page fault latency measurement\": rdtsc around the first touch of a fresh anonymous page, 11th-generation Core i7, Linux 6.6 (a median of ~1.0 µs)",
};

pub const CORE_TO_CORE: Source = Source {
    name: "core-to-core-latency",
    cite: "github.com/nviennot/core-to-core-latency, README: a compare-and-swap ping-pong between two pinned threads, the median over every pair; 17 ns within a Zen 3 chiplet on a Ryzen 9 5950X (85 ns across)",
};

pub const LMBENCH: Source = Source {
    name: "lmbench 1996",
    cite: "L. McVoy and C. Staelin, \"lmbench: Portable tools for performance analysis\", USENIX 1996: the \"Linux i686\" row (an Intel Pentium Pro under Linux) of the tables \"Signal times\", \"Pipe latency\" and \"Process creation time\", from lmbench's results database (doc/lat_signal.tbl, lat_pipe.tbl, lat_allproc.tbl in lmbench3)",
};

/// One quoted figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quote {
    /// The atlas row it names, by its crossing.
    pub crossing: &'static str,
    /// The figure, ns.
    pub ns: f64,
    /// What the source calls it.
    pub said: &'static str,
    pub source: Source,
}

/// Every quote, at most one per crossing.
pub const QUOTES: &[Quote] = &[
    Quote {
        crossing: "load from L1d",
        ns: 0.5,
        said: "L1 cache reference",
        source: DEAN_NORVIG,
    },
    Quote {
        crossing: "load from L2",
        ns: 7.0,
        said: "L2 cache reference",
        source: DEAN_NORVIG,
    },
    Quote {
        crossing: "load from memory",
        ns: 100.0,
        said: "Main memory reference",
        source: DEAN_NORVIG,
    },
    Quote {
        crossing: "syscall (getppid)",
        ns: 500.0,
        said: "System Call",
        source: NAPKIN_MATH,
    },
    Quote {
        crossing: "minor page fault (per page, β)",
        ns: 1000.0,
        said: "first touch of a fresh anonymous page",
        source: PAGE_FAULT,
    },
    Quote {
        crossing: "signal to this thread (raise)",
        ns: 14_000.0,
        said: "sig handler: a signal sent to itself and caught",
        source: LMBENCH,
    },
    Quote {
        crossing: "wake-up round trip, pipe between processes, one core",
        ns: 31_000.0,
        said: "Pipe latency: a word passed to another process and back",
        source: LMBENCH,
    },
    Quote {
        crossing: "start-up of a program that does nothing (c), by fork+exec",
        ns: 5_000_000.0,
        said: "fork, exec & exit of a hello-world program",
        source: LMBENCH,
    },
    Quote {
        crossing: "cache line handoff, core to core (one way)",
        ns: 17.0,
        said: "core-to-core latency within a chiplet",
        source: CORE_TO_CORE,
    },
    Quote {
        crossing: "tcp round trip (α, empty message)",
        ns: 10_000.0,
        said: "TCP Echo (TCP overhead) (64 bytes)",
        source: NAPKIN_MATH,
    },
    Quote {
        crossing: "4 KiB pread at random, cold",
        ns: 150_000.0,
        said: "Read 4K randomly from SSD",
        source: DEAN_NORVIG,
    },
];

/// The quote for a crossing, if any source names it.
pub fn for_crossing(crossing: &str) -> Option<&'static Quote> {
    QUOTES.iter().find(|q| q.crossing == crossing)
}

/// Every source a quote comes from, once, in the order first quoted.
pub fn sources() -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    for q in QUOTES {
        if !out.contains(&q.source) {
            out.push(q.source);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_crossing_is_quoted_once_and_every_source_is_named() {
        for (i, q) in QUOTES.iter().enumerate() {
            assert!(
                QUOTES[i + 1..].iter().all(|o| o.crossing != q.crossing),
                "{} quoted twice",
                q.crossing
            );
            assert!(q.ns > 0.0 && !q.said.is_empty() && !q.source.cite.is_empty());
        }
        assert_eq!(sources().len(), 5);
        assert_eq!(for_crossing("load from memory").unwrap().ns, 100.0);
        assert!(for_crossing("no such crossing").is_none());
    }
}
