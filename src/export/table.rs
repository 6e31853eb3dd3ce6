//! One table written as a stream: rows go into Arrow builders, and every
//! [`ROWS`] rows, and at the end of every input file, they leave as one
//! Arrow record batch: a row group of the table's Parquet file, or handed
//! to a [`Sink`] (the Python package's Arrow streams). A table never holds
//! more than one row group's rows, so memory stays bounded whatever the
//! archive's size.

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most rows in one row group: a part of a file's rows. A file with
/// fewer rows is one row group of its own.
pub const ROWS: usize = 65_536;

/// A column: its name, type, and whether it may be null.
pub type Column = (&'static str, Type, bool);

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// 64-bit float.
    F64,
    /// Boolean.
    Bool,
    /// UTF-8 text.
    Str,
}

/// One value of a row; `None` is null.
#[derive(Clone, Copy, Debug)]
pub enum V<'a> {
    /// An `I32` value.
    I32(Option<i32>),
    /// An `I64` value.
    I64(Option<i64>),
    /// An `F64` value.
    F64(Option<f64>),
    /// A `Bool` value.
    Bool(Option<bool>),
    /// A `Str` value.
    Str(Option<&'a str>),
}

enum Builder {
    I32(Int32Builder),
    I64(Int64Builder),
    F64(Float64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
}

impl Builder {
    fn new(t: Type) -> Builder {
        match t {
            Type::I32 => Builder::I32(Int32Builder::new()),
            Type::I64 => Builder::I64(Int64Builder::new()),
            Type::F64 => Builder::F64(Float64Builder::new()),
            Type::Bool => Builder::Bool(BooleanBuilder::new()),
            Type::Str => Builder::Str(StringBuilder::new()),
        }
    }

    /// Appends `v`; a value of another type than the column's is a bug of
    /// the table's definition, stored as null rather than a panic.
    fn push(&mut self, v: V<'_>) {
        match (self, v) {
            (Builder::I32(b), V::I32(x)) => b.append_option(x),
            (Builder::I64(b), V::I64(x)) => b.append_option(x),
            (Builder::F64(b), V::F64(x)) => b.append_option(x),
            (Builder::Bool(b), V::Bool(x)) => b.append_option(x),
            (Builder::Str(b), V::Str(x)) => b.append_option(x),
            (b, _) => {
                debug_assert!(false, "a value of the wrong type for its column");
                b.push_null();
            }
        }
    }

    fn push_null(&mut self) {
        match self {
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::F64(b) => b.append_null(),
            Builder::Bool(b) => b.append_null(),
            Builder::Str(b) => b.append_null(),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Builder::I32(b) => b.len(),
            Builder::I64(b) => b.len(),
            Builder::F64(b) => b.len(),
            Builder::Bool(b) => b.len(),
            Builder::Str(b) => b.len(),
        }
    }
}

/// Where a table's record batches go instead of a Parquet file: called
/// with the table's name and each finished row group, in order. An error
/// it returns stops the export (e.g. a reader that went away).
pub type Sink = Arc<dyn Fn(&'static str, RecordBatch) -> io::Result<()> + Send + Sync>;

/// The Arrow schema of a table of `columns`, as its Parquet file has it.
pub fn schema(columns: &[Column]) -> Schema {
    let fields: Vec<Field> = columns
        .iter()
        .map(|&(n, t, nullable)| {
            let dt = match t {
                Type::I32 => DataType::Int32,
                Type::I64 => DataType::Int64,
                Type::F64 => DataType::Float64,
                Type::Bool => DataType::Boolean,
                Type::Str => DataType::Utf8,
            };
            Field::new(n, dt, nullable)
        })
        .collect();
    Schema::new(fields)
}

/// The key-value metadata every table carries (its Parquet file's footer):
/// `teeoracle.table` (its name) and `teeoracle.schema_version`.
pub fn metadata(name: &str, schema_version: u32) -> Vec<(String, String)> {
    vec![
        ("teeoracle.table".into(), name.to_string()),
        (
            "teeoracle.schema_version".into(),
            schema_version.to_string(),
        ),
    ]
}

/// Where the row groups go.
enum Out {
    /// `DIR/NAME.parquet`, written to `partial` until it is finished
    /// (the writer boxed: it is large).
    Parquet {
        writer: Option<Box<ArrowWriter<File>>>,
        partial: PathBuf,
        done: PathBuf,
    },
    Sink(Sink),
}

/// A table being written to `DIR/NAME.parquet`, or to a [`Sink`].
pub struct Table {
    name: &'static str,
    schema: SchemaRef,
    builders: Vec<Builder>,
    out: Out,
    rows: u64,
}

impl Table {
    /// Starts the table `name` with `columns` (name, type, nullable) in
    /// `dir`, written to a hidden `.NAME.parquet.partial` until
    /// [`Table::finish`] renames it.
    pub fn create(
        dir: &Path,
        name: &'static str,
        columns: &[Column],
        schema_version: u32,
    ) -> io::Result<Table> {
        let schema = Arc::new(schema(columns));
        let done = dir.join(format!("{name}.parquet"));
        let partial = dir.join(format!(".{name}.parquet.partial"));
        let file = File::create(&partial)?;
        let metadata = metadata(name, schema_version)
            .into_iter()
            .map(|(k, v)| KeyValue::new(k, v))
            .collect();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROWS))
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_key_value_metadata(Some(metadata))
            .build();
        let writer =
            ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(io::Error::other)?;
        let out = Out::Parquet {
            writer: Some(Box::new(writer)),
            partial,
            done,
        };
        Ok(Table::new(name, columns, schema, out))
    }

    /// Starts the table `name` with `columns`, its row groups handed to
    /// `sink` as they are complete.
    pub fn to_sink(name: &'static str, columns: &[Column], sink: Sink) -> Table {
        Table::new(name, columns, Arc::new(schema(columns)), Out::Sink(sink))
    }

    fn new(name: &'static str, columns: &[Column], schema: SchemaRef, out: Out) -> Table {
        Table {
            name,
            builders: columns.iter().map(|&(_, t, _)| Builder::new(t)).collect(),
            schema,
            out,
            rows: 0,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends one row (one value per column, in order; missing values are
    /// null); a full row group is written out.
    pub fn push(&mut self, row: &[V<'_>]) -> io::Result<()> {
        debug_assert_eq!(row.len(), self.builders.len(), "table {}", self.name);
        for (i, b) in self.builders.iter_mut().enumerate() {
            match row.get(i) {
                Some(v) => b.push(*v),
                None => b.push_null(),
            }
        }
        self.rows += 1;
        if self.pending() >= ROWS {
            self.end_part()?;
        }
        Ok(())
    }

    fn pending(&self) -> usize {
        self.builders.first().map_or(0, Builder::len)
    }

    /// Writes the rows not yet written as a row group of their own (the
    /// end of an input file, or a full part).
    pub fn end_part(&mut self) -> io::Result<()> {
        if self.pending() == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(io::Error::other)?;
        match &mut self.out {
            Out::Parquet { writer: None, .. } => {
                Err(io::Error::other("the table is already finished"))
            }
            Out::Parquet {
                writer: Some(writer),
                ..
            } => {
                writer.write(&batch).map_err(io::Error::other)?;
                writer.flush().map_err(io::Error::other)
            }
            Out::Sink(sink) => sink(self.name, batch),
        }
    }

    /// Writes what is left and the file's footer, and gives the file its
    /// name (a table handed to a sink has no file: its name is given).
    pub fn finish(mut self) -> io::Result<PathBuf> {
        self.end_part()?;
        match self.out {
            Out::Parquet {
                writer,
                partial,
                done,
            } => {
                if let Some(writer) = writer {
                    writer.close().map_err(io::Error::other)?;
                }
                std::fs::rename(&partial, &done)?;
                Ok(done)
            }
            Out::Sink(_) => Ok(PathBuf::from(self.name)),
        }
    }
}
