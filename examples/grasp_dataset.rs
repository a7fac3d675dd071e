//! A grasp data set to try `planar-hold gate` on at scale: N random fingertip grasps of a
//! sphere (radius = half_size = 1; each fingertip a uniform point, its inward normal tilted
//! by up to 0.2 rad-ish at random, μ = 0.5), as grasp rows in Parquet (or grasp lines in
//! JSON Lines for a `.jsonl` name), written a row group at a time (memory bounded by it).
//!
//! `cargo run --release --example grasp_dataset -- N FILE [contacts] [pyramid] [friction] [seed]`
//! (defaults: 4 contacts, 8 edges, "inner", seed 2026). Columns: `id` (int64, 1..=N),
//! `half_size`, `pyramid`, `friction` (utf8; left out for "inner", the default) and
//! `contacts`: list<struct<points: list<fixed_size_list<float64, 3>>, normal:
//! fixed_size_list<float64, 3>, mu: float64>>, the form docs/grasp.md describes.
use std::io::{BufWriter, Write};
use std::sync::Arc;

use arrow_array::builder::{
    FixedSizeListBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use planar_hold::details::sample::Rng;

/// Rows per row group (and per chunk of JSON text).
const GROUP: usize = 65_536;

/// Uniform in [0, 1) in float64: the library's SplitMix64, 53 bits.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A uniform random unit vector (by rejection from the cube).
fn unit3(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = [0, 1, 2].map(|_| 2.0 * unit(rng) - 1.0);
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if l > 0.1 && l <= 1.0 {
            return v.map(|x| x / l);
        }
    }
}

/// One fingertip: a point of the unit sphere and its inward normal, tilted at random (the
/// sampling of examples/grasp_rates.rs and scripts/grasp_peers.py).
fn fingertip(rng: &mut Rng) -> ([f64; 3], [f64; 3]) {
    let p = unit3(rng);
    let t = unit3(rng);
    let n: [f64; 3] = std::array::from_fn(|a| -p[a] + 0.2 * t[a]);
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (p, n.map(|x| x / l))
}

fn contact_fields() -> Fields {
    let xyz = DataType::FixedSizeList(Arc::new(Field::new_list_field(DataType::Float64, true)), 3);
    Fields::from(vec![
        Field::new(
            "points",
            DataType::List(Arc::new(Field::new_list_field(xyz.clone(), true))),
            true,
        ),
        Field::new("normal", xyz, true),
        Field::new("mu", DataType::Float64, true),
    ])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: grasp_dataset N FILE [contacts] [pyramid] [friction] [seed]";
    let (Some(n), Some(path)) = (
        args.first().and_then(|a| a.parse::<usize>().ok()),
        args.get(1),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let number =
        |i: usize, default: usize| args.get(i).map_or(default, |a| a.parse().expect(usage));
    let (contacts, pyramid) = (number(2, 4), number(3, 8));
    let friction = args.get(4).map_or("inner", String::as_str);
    let seed = number(5, 2026) as u64;
    let mut rng = Rng::new(seed);
    let file = std::fs::File::create(path).expect("the output file");
    if path.ends_with(".jsonl") {
        let mut out = BufWriter::new(file);
        for id in 1..=n {
            let cs: Vec<String> = (0..contacts)
                .map(|_| {
                    let (p, nrm) = fingertip(&mut rng);
                    format!(
                        "{{\"points\":[[{},{},{}]],\"normal\":[{},{},{}],\"mu\":0.5}}",
                        p[0], p[1], p[2], nrm[0], nrm[1], nrm[2]
                    )
                })
                .collect();
            let friction = if friction == "inner" {
                String::new()
            } else {
                format!(",\"friction\":\"{friction}\"")
            };
            writeln!(
                out,
                "{{\"id\":{id},\"dim\":3,\"grasp\":true,\"half_size\":1.0,\"pyramid\":{pyramid}{friction},\"contacts\":[{}]}}",
                cs.join(",")
            )
            .expect("written");
        }
        out.flush().expect("written");
        return;
    }
    let xyz = || FixedSizeListBuilder::new(Float64Builder::new(), 3);
    let mut fields = vec![
        Field::new("id", DataType::Int64, true),
        Field::new("half_size", DataType::Float64, true),
        Field::new("pyramid", DataType::Int64, true),
    ];
    if friction != "inner" {
        fields.push(Field::new("friction", DataType::Utf8, true));
    }
    let contacts_type = DataType::List(Arc::new(Field::new_list_field(
        DataType::Struct(contact_fields()),
        true,
    )));
    fields.push(Field::new("contacts", contacts_type, true));
    let schema = Arc::new(Schema::new(fields));
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(GROUP))
        .build();
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).expect("a writer");
    let mut start = 0;
    while start < n {
        let rows = GROUP.min(n - start);
        let mut ids = Int64Builder::with_capacity(rows);
        let mut half = Float64Builder::with_capacity(rows);
        let mut k = Int64Builder::with_capacity(rows);
        let mut model = StringBuilder::new();
        let contact = StructBuilder::new(
            contact_fields(),
            vec![
                Box::new(
                    ListBuilder::new(xyz()).with_field(Arc::new(Field::new_list_field(
                        DataType::FixedSizeList(
                            Arc::new(Field::new_list_field(DataType::Float64, true)),
                            3,
                        ),
                        true,
                    ))),
                ),
                Box::new(xyz()),
                Box::new(Float64Builder::new()),
            ],
        );
        let mut list = ListBuilder::new(contact);
        for i in 0..rows {
            ids.append_value((start + i + 1) as i64);
            half.append_value(1.0);
            k.append_value(pyramid as i64);
            model.append_value(friction);
            let s = list.values();
            for _ in 0..contacts {
                let (p, nrm) = fingertip(&mut rng);
                let points = s
                    .field_builder::<ListBuilder<FixedSizeListBuilder<Float64Builder>>>(0)
                    .expect("points");
                points.values().values().append_slice(&p);
                points.values().append(true);
                points.append(true);
                let normal = s
                    .field_builder::<FixedSizeListBuilder<Float64Builder>>(1)
                    .expect("normal");
                normal.values().append_slice(&nrm);
                normal.append(true);
                s.field_builder::<Float64Builder>(2)
                    .expect("mu")
                    .append_value(0.5);
                s.append(true);
            }
            list.append(true);
        }
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(ids.finish()),
            Arc::new(half.finish()),
            Arc::new(k.finish()),
        ];
        if friction != "inner" {
            columns.push(Arc::new(model.finish()));
        }
        columns.push(Arc::new(list.finish()));
        let batch = RecordBatch::try_new(schema.clone(), columns).expect("a record batch");
        writer.write(&batch).expect("written");
        start += rows;
    }
    writer.close().expect("written");
}
