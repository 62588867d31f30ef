//! JSON writing throughput: xffi's JSON graph writer against serde_json, in
//! one run (issue 17's performance section). Not part of the test command.
//!
//! The value: a 100,000-node graph of nested containers with sharing (an
//! Array of records, each an Array [id, name, Map {"shared": one List shared
//! by all, "list": a List of its own}]). Rows, each in MB/s of JSON written:
//! - `xffi to_json_string`: ToJSONGraphString's text writer (xffi_to_json_text),
//!   straight from the value;
//! - `xffi to_json + json_stringify`: the graph value (xffi_to_json), then the text;
//! - `xffi json.Stringify(graph)`: the writer alone, on the graph value built once;
//! - `serde_json graph structs`: serde_json writing derive(Serialize) structs
//!   holding the same graph (checked to be the same text, byte for byte);
//! - `serde_json native structs`: serde_json writing the records as plain
//!   derive(Serialize) structs, Vecs and HashMaps (its own shape, no node table);
//! - `xffi Serialize -> serde_json` (with `--features serde`): the graph through
//!   xffi's serde impl.
//!
//! Reading the same text back, for reference (MB/s of JSON read):
//! - `xffi from_json_str`: FromJSONGraphString's text reader (xffi_from_json_text);
//! - `xffi json_parse + from_json`: xffi_json_parse then xffi_from_json;
//! - `serde_json -> graph structs`: serde_json reading the derive(Deserialize) graph structs;
//! - `serde_json -> xffi Deserialize` (with `--features serde`).
//!
//! Run: `cargo bench -p xffi --bench json_write` (add `--features serde` for the
//! xffi serde rows). Each row: the median of 15 rounds, rounds of all rows interleaved.
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use xffi::{Any, Array, List, Map, from_json, from_json_str, json_parse, json_stringify, to_json, to_json_string};

const RECORDS: i64 = 16_666; // six nodes each: about 100,000 in all
const ROUNDS: usize = 15;

fn build_value() -> Any {
    let shared: List<Any> = List::from_vec((0..4).map(|i| Any::from(i * 1000)).collect()).unwrap();
    let records: Array<Any> = (0..RECORDS)
        .map(|i| {
            let own: List<Any> = List::from_vec(vec![Any::from(i), Any::from(i as f64 + 0.5)]).unwrap();
            let attrs: Map<Any, Any> =
                [(Any::from("shared"), Any::from(&shared)), (Any::from("list"), Any::from(own))].into_iter().collect();
            let fields: Array<Any> =
                vec![Any::from(i), Any::from(format!("record number {i}")), Any::from(attrs)].into_iter().collect();
            Any::from(fields)
        })
        .collect();
    Any::from(records)
}

/// The graph format as plain Rust structs (what a Rust program writing the
/// same JSON with serde would declare).
#[derive(Serialize, Deserialize)]
struct Graph {
    root_index: i64,
    nodes: Vec<Node>,
}

#[derive(Serialize, Deserialize)]
struct Node {
    #[serde(rename = "type")]
    ty: std::string::String,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Data>,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Data {
    Int(i64),
    Float(f64),
    Text(std::string::String),
    Refs(Vec<i64>),
}

fn graph_structs(graph: &Any) -> Graph {
    let m: Map<Any, Any> = graph.get().unwrap();
    let root_index = m.get(&Any::from("root_index")).unwrap().unwrap().get::<i64>().unwrap();
    let nodes: Array<Any> = m.get(&Any::from("nodes")).unwrap().unwrap().get().unwrap();
    let nodes = nodes
        .iter()
        .map(|n| {
            let n: Map<Any, Any> = n.unwrap().get().unwrap();
            let ty = n.get(&Any::from("type")).unwrap().unwrap().get::<std::string::String>().unwrap();
            let data = n.get(&Any::from("data")).unwrap().map(|d| match d.kind_name() {
                "int" => Data::Int(d.get().unwrap()),
                "float" => Data::Float(d.get().unwrap()),
                "ffi.Array" => Data::Refs(d.get::<Array<i64>>().unwrap().iter().map(|x| x.unwrap()).collect()),
                _ => Data::Text(d.get().unwrap()),
            });
            Node { ty, data }
        })
        .collect();
    Graph { root_index, nodes }
}

/// The records as plain Rust data, serde's own shape.
#[derive(Serialize)]
struct Record {
    id: i64,
    name: std::string::String,
    attrs: HashMap<&'static str, Vec<f64>>,
}

fn native_structs() -> Vec<Record> {
    let shared: Vec<f64> = (0..4).map(|i| f64::from(i * 1000)).collect();
    (0..RECORDS)
        .map(|i| Record {
            id: i,
            name: format!("record number {i}"),
            attrs: [("shared", shared.clone()), ("list", vec![i as f64, i as f64 + 0.5])].into_iter().collect(),
        })
        .collect()
}

type Row<'a> = (&'static str, Box<dyn Fn() -> usize + 'a>);

fn main() {
    let value = build_value();
    let graph = to_json(&value, &Any::none()).unwrap();
    let graph_text = json_stringify(&graph, 0).unwrap();
    let structs = graph_structs(&graph);
    assert_eq!(serde_json::to_string(&structs).unwrap(), graph_text, "the graph structs write the same text");
    assert_eq!(to_json_string(&value, &Any::none()).unwrap(), graph_text, "the text writer writes the same text");
    let native = native_structs();
    let node_count = structs.nodes.len();

    let mut rows: Vec<Row<'_>> = vec![
        ("xffi to_json_string", Box::new(|| to_json_string(black_box(&value), &Any::none()).unwrap().len())),
        (
            "xffi to_json + json_stringify",
            Box::new(|| json_stringify(&to_json(black_box(&value), &Any::none()).unwrap(), 0).unwrap().len()),
        ),
        ("xffi json.Stringify(graph)", Box::new(|| json_stringify(black_box(&graph), 0).unwrap().len())),
        ("serde_json graph structs", Box::new(|| serde_json::to_string(black_box(&structs)).unwrap().len())),
        ("serde_json native structs", Box::new(|| serde_json::to_string(black_box(&native)).unwrap().len())),
    ];
    #[cfg(feature = "serde")]
    rows.push(("xffi Serialize -> serde_json", Box::new(|| serde_json::to_string(black_box(&value)).unwrap().len())));
    let text = graph_text.as_str();
    rows.push((
        "read: xffi from_json_str",
        Box::new(|| {
            let v = from_json_str(black_box(text)).unwrap();
            black_box(v);
            text.len()
        }),
    ));
    rows.push((
        "read: xffi json_parse + from_json",
        Box::new(|| {
            let v = from_json(&json_parse(black_box(text)).unwrap()).unwrap();
            black_box(v);
            text.len()
        }),
    ));
    rows.push((
        "read: serde_json -> graph structs",
        Box::new(|| {
            let g: Graph = serde_json::from_str(black_box(text)).unwrap();
            black_box(g.nodes.len());
            text.len()
        }),
    ));
    #[cfg(feature = "serde")]
    rows.push((
        "read: serde_json -> xffi Deserialize",
        Box::new(|| {
            let v: Any = serde_json::from_str(black_box(text)).unwrap();
            black_box(v);
            text.len()
        }),
    ));

    let mut times: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    let mut sizes = vec![0usize; rows.len()];
    for _ in 0..ROUNDS {
        for (i, (_, run)) in rows.iter_mut().enumerate() {
            let start = Instant::now();
            sizes[i] = black_box(run());
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    println!("JSON writing (and reading), {node_count} graph nodes, median of {ROUNDS} rounds");
    println!("{:<38} {:>10} {:>10} {:>10}", "writer", "bytes", "ms", "MB/s");
    for (i, (name, _)) in rows.iter().enumerate() {
        let t = &mut times[i];
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        let mbps = sizes[i] as f64 / median / 1e6;
        println!("{name:<38} {:>10} {:>10.2} {mbps:>10.1}", sizes[i], median * 1e3);
        println!(
            "{{\"op\":\"json_write\",\"impl\":\"{name}\",\"bytes\":{},\"ms\":{:.3},\"mb_per_s\":{mbps:.1}}}",
            sizes[i],
            median * 1e3
        );
    }
}
