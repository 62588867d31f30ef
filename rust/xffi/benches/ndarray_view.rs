//! A zero-copy ndarray view of a tensor against a copy, in one run: the
//! view of a 10^6-element tensor costs no allocation and O(1) time (the same
//! as for 10^3 elements, and for strided tensors), a copy O(n). Not part of
//! the test command.
//!
//! Rows (ns per operation, the median of 15 rounds interleaved, and heap
//! allocations per operation, counted by this program's global allocator):
//! - `copy: as_slice().to_vec()`: the baseline, a copy of the elements;
//! - `copy: as_array().to_owned()`: ndarray's copy of the view;
//! - `as_array`: the zero-copy view (compact, 1000 x 1000 float32);
//! - `as_array, transposed`: a column-major tensor's view;
//! - `as_array, negative strides`: a tensor over an array flipped on both axes;
//! - `UniqueTensor::as_mut_array`: the mutable view;
//! - `as_array, 10^3 elements`: the view of a small tensor, for O(1).
//!
//! Run: `cargo bench -p xffi --features ndarray --bench ndarray_view`.
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ndarray::{Array2, Axis};
use xffi::{Tensor, UniqueTensor};

/// The system allocator, counting allocations.
struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to System unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ROUNDS: usize = 15;

/// A row: its name, the iterations per round, and the operation (which
/// returns something to keep, so it is not optimized away).
type Row<'a> = (&'static str, u32, Box<dyn FnMut() -> usize + 'a>);
const SIDE: usize = 1000; // 10^6 elements

/// Runs `f` `iterations` times; (ns per call, allocations per call).
fn measure(iterations: u32, f: &mut dyn FnMut() -> usize) -> (f64, f64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(f());
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(iterations);
    let allocations = (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / f64::from(iterations);
    (ns, allocations)
}

fn main() {
    let values = || (0..SIDE * SIDE).map(|i| i as f32).collect::<Vec<f32>>();
    let compact = Tensor::from_vec(values(), &[SIDE as i64, SIDE as i64]).unwrap();
    let transposed =
        Tensor::from_array(Array2::from_shape_vec((SIDE, SIDE), values()).unwrap().reversed_axes()).unwrap();
    let mut flipped = Array2::from_shape_vec((SIDE, SIDE), values()).unwrap();
    flipped.invert_axis(Axis(0));
    flipped.invert_axis(Axis(1));
    let flipped = Tensor::from_array(flipped).unwrap();
    let mut unique = UniqueTensor::from_vec(values(), &[SIDE as i64, SIDE as i64]).unwrap();
    let small = Tensor::from_vec((0..1000).map(|i| i as f32).collect(), &[10, 100]).unwrap();
    assert_eq!(transposed.strides(), &[1, SIDE as i64]);
    assert_eq!(flipped.strides(), &[-(SIDE as i64), -1]);

    let mut rows: Vec<Row<'_>> = vec![
        ("copy: as_slice().to_vec()", 20, Box::new(|| compact.as_slice::<f32>().unwrap().to_vec().len())),
        ("copy: as_array().to_owned()", 20, Box::new(|| compact.as_array::<f32>().unwrap().to_owned().len())),
        ("as_array", 200_000, Box::new(|| compact.as_array::<f32>().unwrap().len())),
        ("as_array, transposed", 200_000, Box::new(|| transposed.as_array::<f32>().unwrap().len())),
        ("as_array, negative strides", 200_000, Box::new(|| flipped.as_array::<f32>().unwrap().len())),
        ("UniqueTensor::as_mut_array", 200_000, Box::new(move || unique.as_mut_array::<f32>().unwrap().len())),
        ("as_array, 10^3 elements", 200_000, Box::new(|| small.as_array::<f32>().unwrap().len())),
    ];
    let mut times = vec![Vec::new(); rows.len()];
    let mut allocations = vec![0.0; rows.len()];
    for _ in 0..ROUNDS {
        for (i, (_, iterations, f)) in rows.iter_mut().enumerate() {
            let (ns, a) = measure(*iterations, f.as_mut());
            times[i].push(ns);
            allocations[i] = a;
        }
    }
    println!("ndarray views of a 10^6-element float32 tensor against copies, median of {ROUNDS} rounds");
    println!("{:<30} {:>14} {:>12} {:>10}", "operation", "ns", "x copy", "allocs/op");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (i, (name, _, _)) in rows.iter().enumerate() {
        let x = medians[i] / medians[0];
        println!("{name:<30} {:>14.1} {x:>12.6} {:>10.2}", medians[i], allocations[i]);
        println!(
            "{{\"op\":\"ndarray_view\",\"impl\":\"{name}\",\"ns\":{:.1},\"mallocs\":{:.2}}}",
            medians[i], allocations[i]
        );
    }
}
