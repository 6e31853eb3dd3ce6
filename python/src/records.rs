//! Teehistorian records as Python values: one `dict` per record (the JSON
//! line of `teehistorian dump --format jsonl`), or a [`RecordBatch`] of
//! many records in columns.

use crate::convert;
use pyo3::exceptions::PyIndexError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMemoryView, PyString, PyTuple};
use std::collections::BTreeMap;
use teeoracle::teehistorian::json::RecordLine;
use teeoracle::teehistorian::{ExKind, Input, Message, Record};

/// How many record kinds there are: the base messages, every extension,
/// and `unknown_ex`.
pub fn kind_count() -> usize {
    11 + ExKind::ALL.len() + 1
}

/// `KINDS`: the record kinds by index (a batch's `kind` column).
pub fn kinds(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, (0..kind_count()).map(Message::kind_name_of))
}

/// The record's line as a dict: built here for the common records (the
/// ones `RecordLine::write_common` writes by hand, same keys, same
/// order), through serde for the rest.
pub fn record_dict<'py>(py: Python<'py>, rec: &Record<'_>) -> PyResult<Bound<'py, PyAny>> {
    if rec.noncanonical {
        return slow(py, rec);
    }
    let d = PyDict::new(py);
    d.set_item(intern!(py, "offset"), rec.offset)?;
    d.set_item(intern!(py, "tick"), rec.tick)?;
    let kind = intern!(py, "kind");
    let cid = intern!(py, "cid");
    match &rec.msg {
        Message::PlayerDiff { cid: c, dx, dy } => {
            d.set_item(kind, intern!(py, "player_diff"))?;
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "dx"), *dx)?;
            d.set_item(intern!(py, "dy"), *dy)?;
        }
        Message::PlayerNew { cid: c, x, y } => {
            d.set_item(kind, intern!(py, "player_new"))?;
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "x"), *x)?;
            d.set_item(intern!(py, "y"), *y)?;
        }
        Message::PlayerOld { cid: c } => {
            d.set_item(kind, intern!(py, "player_old"))?;
            d.set_item(cid, *c)?;
        }
        Message::Join { cid: c } => {
            d.set_item(kind, intern!(py, "join"))?;
            d.set_item(cid, *c)?;
        }
        Message::TickSkip { dt } => {
            d.set_item(kind, intern!(py, "tick_skip"))?;
            d.set_item(intern!(py, "dt"), *dt)?;
        }
        Message::Finish => d.set_item(kind, intern!(py, "finish"))?,
        Message::InputDiff { cid: c, dinput } => {
            d.set_item(kind, intern!(py, "input_diff"))?;
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "dinput"), input_list(py, dinput)?)?;
        }
        Message::InputNew { cid: c, input } => {
            d.set_item(kind, intern!(py, "input_new"))?;
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "input"), input_list(py, input)?)?;
        }
        _ => return slow(py, rec),
    }
    Ok(d.into_any())
}

fn input_list<'py>(py: Python<'py>, input: &Input) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, input.iter())
}

/// The record's line through serde, as the command line writes it.
pub fn slow<'py>(py: Python<'py>, rec: &Record<'_>) -> PyResult<Bound<'py, PyAny>> {
    convert::serialize(py, &RecordLine::new(rec))
}

/// Columns of one batch, as native-endian bytes.
#[derive(Default)]
pub struct Columns {
    pub len: usize,
    offset: Vec<u8>,
    tick: Vec<u8>,
    kind: Vec<u8>,
    cid: Vec<u8>,
    x: Vec<u8>,
    y: Vec<u8>,
    dx: Vec<u8>,
    dy: Vec<u8>,
    dt: Vec<u8>,
    input: Vec<u8>,
    /// Records kept whole (other kinds, non-canonical ints): their index
    /// in the batch and their JSON line, as serde writes it.
    pub extra: Vec<(usize, serde_json::Value)>,
}

/// The kinds held in columns (the rest are in `extra`).
fn in_columns(rec: &Record<'_>) -> bool {
    !rec.noncanonical
        && matches!(
            rec.msg,
            Message::PlayerDiff { .. }
                | Message::PlayerNew { .. }
                | Message::PlayerOld { .. }
                | Message::Join { .. }
                | Message::TickSkip { .. }
                | Message::Finish
                | Message::InputDiff { .. }
                | Message::InputNew { .. }
        )
}

impl Columns {
    /// Room for `n` records.
    pub fn with_capacity(n: usize) -> Self {
        Columns {
            offset: Vec::with_capacity(n * 8),
            tick: Vec::with_capacity(n * 4),
            kind: Vec::with_capacity(n),
            cid: Vec::with_capacity(n * 4),
            x: Vec::with_capacity(n * 4),
            y: Vec::with_capacity(n * 4),
            dx: Vec::with_capacity(n * 4),
            dy: Vec::with_capacity(n * 4),
            dt: Vec::with_capacity(n * 4),
            input: Vec::with_capacity(n * 40),
            ..Columns::default()
        }
    }

    /// Appends `rec`. Fails only if a rare record cannot be put in JSON.
    pub fn push(&mut self, rec: &Record<'_>) -> Result<(), serde_json::Error> {
        let (mut cid, mut x, mut y, mut dx, mut dy, mut dt) = (0, 0, 0, 0, 0, 0);
        let mut input: &Input = &[0; 10];
        match &rec.msg {
            Message::PlayerDiff { cid: c, dx: a, dy: b } => (cid, dx, dy) = (*c, *a, *b),
            Message::PlayerNew { cid: c, x: a, y: b } => (cid, x, y) = (*c, *a, *b),
            Message::PlayerOld { cid: c } | Message::Join { cid: c } => cid = *c,
            Message::TickSkip { dt: t } => dt = *t,
            Message::InputDiff { cid: c, dinput: i } | Message::InputNew { cid: c, input: i } => {
                cid = *c;
                input = i;
            }
            Message::NetMessage { cid: c, .. } | Message::Drop { cid: c, .. } => cid = *c,
            Message::ConsoleCommand(c) => cid = c.cid,
            _ => {
                if let Some(c) = rec.msg.cids()[0] {
                    cid = c;
                }
            }
        }
        if !in_columns(rec) {
            self.extra
                .push((self.len, serde_json::to_value(RecordLine::new(rec))?));
        }
        self.offset.extend_from_slice(&rec.offset.to_ne_bytes());
        self.tick.extend_from_slice(&rec.tick.to_ne_bytes());
        // At most 256 kinds: the kind table is 11 + 21 + 1 long.
        self.kind.push(rec.msg.kind_index().min(255) as u8);
        self.cid.extend_from_slice(&cid.to_ne_bytes());
        self.x.extend_from_slice(&x.to_ne_bytes());
        self.y.extend_from_slice(&y.to_ne_bytes());
        self.dx.extend_from_slice(&dx.to_ne_bytes());
        self.dy.extend_from_slice(&dy.to_ne_bytes());
        self.dt.extend_from_slice(&dt.to_ne_bytes());
        for v in input {
            self.input.extend_from_slice(&v.to_ne_bytes());
        }
        self.len += 1;
        Ok(())
    }
}

fn i32_at(col: &[u8], i: usize) -> i32 {
    let mut b = [0; 4];
    b.copy_from_slice(&col[i * 4..i * 4 + 4]);
    i32::from_ne_bytes(b)
}

/// Records of a teehistorian file in columns: `len(batch)` records, the
/// *i*-th record's fields at index *i* of each column.
///
/// Columns are `memoryview`s of native-endian ints (a new copy on each
/// access; `numpy.frombuffer` takes them as they are): ``offset`` (int64),
/// ``tick`` (int32), ``kind`` (uint8, an index into ``KINDS``), ``cid``
/// (int32: the record's client id, 0 for records without one), ``x``,
/// ``y`` (``player_new``), ``dx``, ``dy`` (``player_diff``), ``dt``
/// (``tick_skip``), and ``input`` (int32, 10 per record: ``input_new``'s
/// ``input``, ``input_diff``'s ``dinput``). A field a record's kind does
/// not have is 0. Records of other kinds (messages, drops, console
/// commands, extensions) and records with non-canonical ints are also in
/// ``extra`` whole. ``record(i)`` and iteration give each record as the
/// same dict ``Teehistorian`` yields.
#[pyclass(module = "teeoracle._teeoracle", frozen)]
pub struct RecordBatch {
    cols: Columns,
}

impl RecordBatch {
    pub fn new(cols: Columns) -> Self {
        RecordBatch { cols }
    }

    fn view<'py>(py: Python<'py>, bytes: &[u8], format: &str) -> PyResult<Bound<'py, PyAny>> {
        let b = PyBytes::new(py, bytes);
        PyMemoryView::from(&b)?.call_method1(intern!(py, "cast"), (format,))
    }

    fn dict_at<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let c = &self.cols;
        if let Ok(at) = c.extra.binary_search_by_key(&i, |(j, _)| *j) {
            return convert::to_py(py, &c.extra[at].1);
        }
        let d = PyDict::new(py);
        let mut off = [0; 8];
        off.copy_from_slice(&c.offset[i * 8..i * 8 + 8]);
        d.set_item(intern!(py, "offset"), u64::from_ne_bytes(off))?;
        d.set_item(intern!(py, "tick"), i32_at(&c.tick, i))?;
        let kind = c.kind[i] as usize;
        d.set_item(intern!(py, "kind"), Message::kind_name_of(kind))?;
        let cid = intern!(py, "cid");
        let input = || PyList::new(py, (0..10).map(|k| i32_at(&c.input, i * 10 + k)));
        match Message::kind_name_of(kind) {
            "player_diff" => {
                d.set_item(cid, i32_at(&c.cid, i))?;
                d.set_item(intern!(py, "dx"), i32_at(&c.dx, i))?;
                d.set_item(intern!(py, "dy"), i32_at(&c.dy, i))?;
            }
            "player_new" => {
                d.set_item(cid, i32_at(&c.cid, i))?;
                d.set_item(intern!(py, "x"), i32_at(&c.x, i))?;
                d.set_item(intern!(py, "y"), i32_at(&c.y, i))?;
            }
            "player_old" | "join" => d.set_item(cid, i32_at(&c.cid, i))?,
            "tick_skip" => d.set_item(intern!(py, "dt"), i32_at(&c.dt, i))?,
            "input_diff" => {
                d.set_item(cid, i32_at(&c.cid, i))?;
                d.set_item(intern!(py, "dinput"), input()?)?;
            }
            "input_new" => {
                d.set_item(cid, i32_at(&c.cid, i))?;
                d.set_item(intern!(py, "input"), input()?)?;
            }
            _ => {}
        }
        Ok(d.into_any())
    }
}

#[pymethods]
impl RecordBatch {
    fn __len__(&self) -> usize {
        self.cols.len
    }

    /// The *i*-th record as a dict (negative *i* counts from the end).
    fn record<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyAny>> {
        let n = self.cols.len as isize;
        let at = if i < 0 { i + n } else { i };
        if at < 0 || at >= n {
            return Err(PyIndexError::new_err("record index out of range"));
        }
        self.dict_at(py, at as usize)
    }

    fn __getitem__<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyAny>> {
        self.record(py, i)
    }

    /// Every record as a dict, in order (a list).
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for i in 0..self.cols.len {
            list.append(self.dict_at(py, i)?)?;
        }
        Ok(list)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.records(py)?.try_iter().map(Bound::into_any)
    }

    /// The records not (only) in columns: {index in the batch: dict}.
    #[getter]
    fn extra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (i, v) in &self.cols.extra {
            d.set_item(i, convert::to_py(py, v)?)?;
        }
        Ok(d)
    }

    /// How many records of each kind: {kind: count}, kinds in ``KINDS``
    /// order.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut n: BTreeMap<u8, u64> = BTreeMap::new();
        for &k in &self.cols.kind {
            *n.entry(k).or_default() += 1;
        }
        let d = PyDict::new(py);
        for (k, v) in n {
            d.set_item(
                PyString::new(py, Message::kind_name_of(k as usize)),
                v,
            )?;
        }
        Ok(d)
    }

    #[getter]
    fn offset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.offset, "q")
    }
    #[getter]
    fn tick<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.tick, "i")
    }
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.kind, "B")
    }
    #[getter]
    fn cid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.cid, "i")
    }
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.x, "i")
    }
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.y, "i")
    }
    #[getter]
    fn dx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.dx, "i")
    }
    #[getter]
    fn dy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.dy, "i")
    }
    #[getter]
    fn dt<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.dt, "i")
    }
    #[getter]
    fn input<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.input, "i")
    }

    fn __repr__(&self) -> String {
        format!(
            "<RecordBatch of {} records, {} outside the columns>",
            self.cols.len,
            self.cols.extra.len()
        )
    }
}
