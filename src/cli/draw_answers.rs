//! `planar-hold draw --answers FILE... -o PICTURE.svg`: one picture of a data set of grasps
//! (`planar_hold::details::draw::dataset`) from the answers `gate` wrote, JSON Lines or Parquet: each
//! file a series (named by its friction model and k where every row shares them, else by
//! the file), a `"coulomb"` file two (its inner and outer pyramids' q1). Rows answered with
//! an error are counted, not drawn; answers whose q1 is only an upper bound (`margin_checked`
//! false: a threshold's search that stopped once it decided, or a bound that did not close)
//! are drawn at that bound, and the series' name says how many there are.

use std::fs::File;
use std::path::Path;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use planar_hold::details::draw::dataset::{Closure, DataSet, Series};
use planar_hold::io::arrow::Columns;
use serde::Deserialize;
use serde_json::Value;

use super::pipeline::{self, Format};
use super::{exit, Failure};

/// The fields of a grasp answer the picture reads (any others are skipped).
#[derive(Deserialize)]
struct Answer {
    id: Option<Value>,
    force_closure: Option<Value>,
    q1: Option<f64>,
    q1_upper: Option<f64>,
    margin_checked: Option<bool>,
    friction: Option<String>,
    pyramid: Option<u64>,
    error: Option<Value>,
}

/// The columns read from a Parquet file of answers.
const FIELDS: [&str; 8] = [
    "id",
    "force_closure",
    "q1",
    "q1_upper",
    "margin_checked",
    "friction",
    "pyramid",
    "error",
];

/// One file's answers, as read.
#[derive(Default)]
struct AnswerFile {
    ids: Vec<String>,
    q1: Vec<f64>,
    q1_upper: Vec<Option<f64>>,
    closure: Vec<Closure>,
    /// Answers whose q1 is an upper bound only (`margin_checked` false).
    bounds: usize,
    /// Every row's friction model and k, while they agree.
    model: Option<Option<(String, u64)>>,
    refused: usize,
}

impl AnswerFile {
    /// Answer `a` of line or row (`place`) `number`.
    fn add(&mut self, place: &str, number: u64, a: Answer) -> Result<(), String> {
        if a.error.is_some() {
            self.refused += 1;
            return Ok(());
        }
        let (Some(q1), Some(fc)) = (a.q1, a.force_closure) else {
            return Err(format!(
                "{place} {number}: not a grasp answer (no q1 or force_closure): draw --answers \
                 reads what `gate` writes for grasps"
            ));
        };
        self.closure.push(match fc {
            Value::Bool(true) => Closure::Yes,
            Value::Bool(false) => Closure::No,
            Value::String(s) if s == "true" => Closure::Yes,
            Value::String(s) if s == "false" => Closure::No,
            _ => Closure::Uncertain,
        });
        self.ids
            .push(a.id.map_or_else(|| format!("{place} {number}"), |v| v.to_string()));
        self.q1.push(q1);
        self.q1_upper.push(a.q1_upper);
        self.bounds += usize::from(a.margin_checked == Some(false));
        let model = a.friction.zip(a.pyramid);
        self.model = match self.model.take() {
            None => Some(model),
            Some(m) if m == model => Some(m),
            Some(_) => Some(None),
        };
        Ok(())
    }

    /// The file's series: one, or a "coulomb" file's two.
    fn series(self, path: &str) -> Vec<Series> {
        let name = Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());

        let model = self.model.flatten();
        let coulomb = matches!(&model, Some((f, _)) if f == "coulomb")
            && self.q1_upper.iter().all(Option::is_some);
        match model {
            Some((_, k)) if coulomb => {
                let n = self.q1.len();
                vec![
                    Series {
                        name: format!("inner pyramids, k = {k}"),
                        ids: self.ids.clone(),
                        q1: self.q1,
                        closure: self.closure,
                        upper_bounds: self.bounds,
                    },
                    Series {
                        name: format!("outer pyramids, k = {k}"),
                        ids: self.ids,
                        q1: self.q1_upper.into_iter().flatten().collect(),
                        closure: vec![Closure::Unknown; n],
                        upper_bounds: 0,
                    },
                ]
            }
            Some((friction, k)) => vec![Series {
                name: format!("{friction}, k = {k}"),
                ids: self.ids,
                q1: self.q1,
                closure: self.closure,
                upper_bounds: self.bounds,
            }],
            None => vec![Series {
                name,
                ids: self.ids,
                q1: self.q1,
                closure: self.closure,
                upper_bounds: self.bounds,
            }],
        }
    }
}

fn read_json(path: &str) -> Result<AnswerFile, String> {
    let mut lines = pipeline::line_reader(path, pipeline::CHUNK_ROWS).map_err(|f| f.message)?;
    let mut file = AnswerFile::default();
    while let Some(chunk) = lines.next_chunk().map_err(|e| e.to_string())? {
        for (k, l) in chunk.lines.iter().enumerate() {
            let answer: Answer = serde_json::from_slice(chunk.text(k))
                .map_err(|e| format!("line {}: {e}", l.number))?;
            file.add("line", l.number, answer)?;
        }
    }
    Ok(file)
}

fn read_parquet(path: &str) -> Result<AnswerFile, String> {
    let fail = |e: parquet::errors::ParquetError| e.to_string();
    let open = File::open(path).map_err(|e| e.to_string())?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(open).map_err(fail)?;
    let schema = builder.parquet_schema();
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| FIELDS.contains(&f.name().as_str()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(schema, roots);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(65_536)
        .build()
        .map_err(fail)?;
    let mut file = AnswerFile::default();
    let mut row = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| e.to_string())?;
        let columns = Columns::of(&batch, Vec::new())?;
        for i in 0..batch.num_rows() {
            row += 1;
            let answer =
                Answer::deserialize(columns.row(i)).map_err(|e| format!("row {row}: {e}"))?;
            file.add("row", row, answer)?;
        }
    }
    Ok(file)
}

pub(super) fn run(paths: &[String], output: &str) -> Result<(), Failure> {
    let mut data = DataSet {
        source: paths.join(", "),
        ..DataSet::default()
    };
    for path in paths {
        let file = match Format::of(path, None) {
            Format::Json => read_json(path),
            Format::Parquet => read_parquet(path),
        }
        .map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO))?;
        data.refused += file.refused;
        data.series.extend(file.series(path));
    }
    if data.series.iter().all(|s| s.q1.is_empty()) {
        return Err(Failure::new(
            "draw --answers: no grasp answered in the files",
            exit::IO,
        ));
    }
    // Two files of one model and k are told apart by their names.
    let names: Vec<String> = data.series.iter().map(|s| s.name.clone()).collect();
    for (k, s) in data.series.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == names[k]).count() > 1 {
            s.name = format!("{} ({})", s.name, k + 1);
        }
    }
    let text = planar_hold::details::draw::dataset::svg_text(&data);
    std::fs::write(output, text)
        .map_err(|e| Failure::new(format!("cannot write {output}: {e}"), exit::IO))
}
