//! tests/bench/map_hashmap.rs: Rust's std::collections::HashMap (default
//! hasher) on the keys and probe order of bench_map_vs_tvm.cc, for the same
//! table rows. Standalone, no crates:
//!   rustc -O --edition 2021 tests/bench/map_hashmap.rs -o build/map_hashmap && build/map_hashmap [--quick]
use std::collections::HashMap;
use std::time::Instant;

fn key_names(n: i64) -> Vec<String> {
    (0..n).map(|i| format!("key-{:011}", i * 7919 % 100_000_000_000)).collect()
}

fn probe_order(n: i64, count: i64) -> Vec<usize> {
    let mut state: u64 = 0x9e3779b97f4a7c15;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().nth(1).as_deref() == Some("--quick");
    let rounds = if quick { 3 } else { 7 };
    let mut sink: i64 = 0;
    println!("| operation | entries | Rust HashMap ns/op |\n|---|---|---|");
    for &(n, builds, lookups) in &[(10i64, 200_000i64, 4_000_000i64), (1000, 2000, 4_000_000), (1_000_000, 2, 4_000_000)] {
        let builds = if quick { (builds / 10).max(1) } else { builds };
        let lookups = if quick { lookups / 10 } else { lookups };
        let keys = key_names(n);
        let mut ins = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            for _ in 0..builds {
                let mut m: HashMap<String, i64> = HashMap::new();
                for (i, k) in keys.iter().enumerate() {
                    m.insert(k.clone(), i as i64);
                }
                sink += m.len() as i64;
            }
            ins.push(t0.elapsed().as_nanos() as f64 / (builds * n) as f64);
        }
        let mut m: HashMap<String, i64> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.clone(), i as i64);
        }
        let order = probe_order(n, lookups);
        let mut look = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            for &i in &order {
                sink += m[keys[i].as_str()];
            }
            look.push(t0.elapsed().as_nanos() as f64 / order.len() as f64);
        }
        println!("| insert (per entry, building the map; clones the String) | {} | {:.1} |", n, median(ins));
        println!("| lookup hit | {} | {:.1} |", n, median(look));
    }
    if sink == 42 {
        println!("sink");
    }
}
