//! bench/bench_map_hashmap.rs: the Map benchmark on Rust's
//! `std::collections::HashMap` (default hasher), for reference beside xffi's
//! and tvm-ffi's Maps: the same keys, sizes and probe order as
//! bench_map_keys.h describes (repeated here in Rust), the same op names, and
//! the same JSON lines as bench/bench_harness.c prints, so that
//! bench/bench_map_vs_tvm.py can put its rows in one table.
//!
//! The map borrows its keys (`&str` from one `Vec<String>`, or `i64`), as
//! xffi's and tvm-ffi's maps take a reference to a key object: no key is
//! copied or allocated per insert. Figures per op: ns (median of 7 timed
//! rounds), heap allocations (a counting global allocator) and instructions
//! (this program re-run under `valgrind --tool=callgrind`, collecting only
//! inside `bench_map_hashmap_measured`).
//!
//! Built and run by the driver; alone:
//!   rustc --edition 2021 -C opt-level=3 -o /tmp/bench_map_hashmap bench/bench_map_hashmap.rs
//!   /tmp/bench_map_hashmap [--no-callgrind] [--quick] [--only SUBSTR]
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hash::Hash;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

struct CountingAllocator;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call forwards to the system allocator with the caller's own
// arguments; counting has no effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: ptr was allocated by this allocator with layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: ptr was allocated by this allocator with layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const SIZES: [u64; 3] = [10, 1000, 1_000_000];
const STEPS: [u64; 3] = [7, 619, 618_033];
const SIZE_NAMES: [&str; 3] = ["10", "1,000", "1,000,000"];
const ROUNDS: usize = 7;
const CALLGRIND_ITERATIONS: u64 = 20_000;

fn int_key(mut i: u64) -> i64 {
    i ^= i >> 33;
    i = i.wrapping_mul(0xff51_afd7_ed55_8ccd);
    i ^= i >> 33;
    i as i64
}

enum Work {
    Lookup,
    Insert,
}

/// One op: its keys, the map, and where the walk through the keys is.
struct MapCase<K: Hash + Eq + Copy> {
    keys: Vec<K>,
    size: u64,
    step: u64,
    pos: u64,
    map: HashMap<K, i64>,
    work: Work,
}

pub trait Run {
    fn run(&mut self, iterations: u64);
}

impl<K: Hash + Eq + Copy> Run for MapCase<K> {
    fn run(&mut self, iterations: u64) {
        match self.work {
            Work::Lookup => {
                let (mut pos, size, step) = (self.pos, self.size, self.step);
                let mut acc = 0i64;
                for _ in 0..iterations {
                    acc += *self.map.get(&self.keys[pos as usize]).expect("key present");
                    pos += step;
                    if pos >= size {
                        pos -= size;
                    }
                }
                self.pos = pos;
                std::hint::black_box(acc);
            }
            Work::Insert => {
                for _ in 0..iterations {
                    if self.pos == self.size {
                        // full: free it, start again from empty
                        self.map = HashMap::new();
                        self.pos = 0;
                    }
                    self.map.insert(self.keys[self.pos as usize], self.pos as i64);
                    self.pos += 1;
                }
            }
        }
    }
}

/// The only code callgrind counts (`--toggle-collect`).
#[no_mangle]
#[inline(never)]
pub fn bench_map_hashmap_measured(case: &mut dyn Run, iterations: u64) {
    case.run(iterations);
}

struct Options {
    callgrind: bool,
    quick: bool,
    only: Option<String>,
    child: Option<(String, u64)>,
}

fn round_up(n: u64, multiple: u64) -> u64 {
    if n <= multiple {
        multiple
    } else {
        n.div_ceil(multiple) * multiple
    }
}

fn calibrate(case: &mut dyn Run, target_ns: u64, multiple: u64) -> u64 {
    let mut iterations = 1u64;
    loop {
        let start = Instant::now();
        case.run(iterations);
        let elapsed = start.elapsed().as_nanos() as u64;
        if elapsed >= target_ns / 4 || iterations >= 1 << 34 {
            let per = elapsed as f64 / iterations as f64;
            let want = if per > 0.0 { (target_ns as f64 / per) as u64 } else { iterations * 4 };
            return round_up(want.max(1), multiple);
        }
        iterations *= 4;
    }
}

fn callgrind_instructions(op: &str, iterations: u64) -> Option<f64> {
    let out = std::env::temp_dir().join(format!("bench_map_hashmap_cg.{}", std::process::id()));
    let exe = std::env::current_exe().ok()?;
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg("--toggle-collect=bench_map_hashmap_measured")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["--child", op, &iterations.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    let line = text?.lines().find(|l| l.starts_with("totals:") || l.starts_with("summary:"))?.to_string();
    let total: f64 = line.split(':').nth(1)?.trim().split(' ').next()?.parse().ok()?;
    Some(total / iterations as f64)
}

struct Row {
    op: String,
    ns: f64,
    instructions: Option<f64>,
    allocations: f64,
}

fn measure(options: &Options, rows: &mut Vec<Row>, op: &str, case: &mut dyn Run, multiple: u64) {
    if let Some((child_op, iterations)) = &options.child {
        if child_op == op {
            case.run(16); // warm up, as the C harness does
            bench_map_hashmap_measured(case, *iterations);
            std::process::exit(0);
        }
        return;
    }
    let target = if options.quick { 2_000_000 } else { 20_000_000 };
    let iterations = calibrate(case, target, multiple);
    let mut samples = [0f64; ROUNDS];
    let mut allocations = 0f64;
    for (round, sample) in samples.iter_mut().enumerate() {
        let a0 = ALLOCATIONS.load(Ordering::Relaxed);
        let start = Instant::now();
        case.run(iterations);
        *sample = start.elapsed().as_nanos() as f64 / iterations as f64;
        if round == 0 {
            allocations = (ALLOCATIONS.load(Ordering::Relaxed) - a0) as f64 / iterations as f64;
        }
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let instructions =
        if options.callgrind { callgrind_instructions(op, round_up(CALLGRIND_ITERATIONS, multiple)) } else { None };
    rows.push(Row { op: op.to_string(), ns: samples[ROUNDS / 2], instructions, allocations });
}

fn selected(options: &Options, op: &str) -> bool {
    match (&options.child, &options.only) {
        (Some((child_op, _)), _) => child_op == op,
        (None, Some(only)) => op.contains(only.as_str()),
        (None, None) => true,
    }
}

fn measure_keys<K: Hash + Eq + Copy + 'static>(
    options: &Options,
    rows: &mut Vec<Row>,
    size_index: usize,
    kind: &str,
    keys: Vec<K>,
) {
    let (size, step) = (SIZES[size_index], STEPS[size_index]);
    let lookup_op = format!("Map lookup, {} {} keys", SIZE_NAMES[size_index], kind);
    let insert_op = format!("Map insert, {} {} keys", SIZE_NAMES[size_index], kind);
    if selected(options, &lookup_op) {
        let map: HashMap<K, i64> = keys.iter().enumerate().map(|(i, k)| (*k, i as i64)).collect();
        let mut case = MapCase { keys: keys.clone(), size, step, pos: 0, map, work: Work::Lookup };
        measure(options, rows, &lookup_op, &mut case, size);
    }
    if selected(options, &insert_op) {
        let mut case = MapCase { keys, size, step, pos: 0, map: HashMap::new(), work: Work::Insert };
        measure(options, rows, &insert_op, &mut case, size);
    }
}

fn parse_options() -> Options {
    let mut options = Options { callgrind: true, quick: false, only: None, child: None };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-callgrind" => options.callgrind = false,
            "--quick" => options.quick = true,
            "--only" => options.only = args.next(),
            "--child" => {
                let op = args.next().expect("--child OP ITERATIONS");
                let n = args.next().and_then(|n| n.parse().ok()).expect("--child OP ITERATIONS");
                options.child = Some((op, n));
            }
            _ => {
                eprintln!("usage: bench_map_hashmap [--no-callgrind] [--quick] [--only SUBSTRING]");
                std::process::exit(2);
            }
        }
    }
    if options.callgrind
        && options.child.is_none()
        && !Command::new("valgrind").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
    {
        eprintln!("valgrind not found: instruction counts are left out");
        options.callgrind = false;
    }
    options
}

fn main() {
    let options = parse_options();
    let mut rows = Vec::new();
    for size_index in 0..SIZES.len() {
        let size = SIZES[size_index];
        let any_selected = |kind: &str| {
            ["lookup", "insert"]
                .iter()
                .any(|w| selected(&options, &format!("Map {w}, {} {kind} keys", SIZE_NAMES[size_index])))
        };
        if any_selected("string") {
            // Leaked for the program's life: the maps borrow them.
            let texts: &'static [String] = Vec::leak((0..size).map(|i| format!("key-{i:012}")).collect());
            let keys: Vec<&'static str> = texts.iter().map(|s| s.as_str()).collect();
            measure_keys(&options, &mut rows, size_index, "string", keys);
        }
        if any_selected("int") {
            measure_keys(&options, &mut rows, size_index, "int", (0..size).map(int_key).collect());
        }
    }
    if let Some((op, _)) = &options.child {
        eprintln!("bench_map_hashmap: no op named {op}");
        std::process::exit(1);
    }
    println!("{:<40} {:<10} {:>10} {:>12} {:>8}", "op", "impl", "ns/op", "instr/op", "mallocs");
    for r in &rows {
        let instructions = r.instructions.map_or("-".to_string(), |i| format!("{i:.1}"));
        println!("{:<40} {:<10} {:>10.2} {:>12} {:>8.2}", r.op, "rust", r.ns, instructions, r.allocations);
    }
    println!();
    for r in &rows {
        let instructions = r.instructions.map_or("null".to_string(), |i| format!("{i:.1}"));
        println!(
            "{{\"op\":\"{}\",\"impl\":\"rust HashMap\",\"ns\":{:.3},\"instructions\":{},\"mallocs\":{:.3}}}",
            r.op, r.ns, instructions, r.allocations
        );
    }
}
