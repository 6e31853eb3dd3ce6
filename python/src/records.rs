//! Teehistorian records as Python values: one `dict` per record (the JSON
//! line of `teehistorian dump --format jsonl`), or a [`RecordBatch`] of
//! many records in columns.

use crate::convert;
use pyo3::exceptions::PyIndexError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
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

/// The common records' dicts, one per kind, with their keys in the line's
/// order and `kind` set: a record's dict is a copy with the values
/// replaced (a copy of a small dict is one allocation; building it key by
/// key grows it twice).
struct Templates {
    by_kind: Vec<Option<Py<PyDict>>>,
}

static TEMPLATES: PyOnceLock<Templates> = PyOnceLock::new();

/// The keys after `offset`, `tick`, `kind` of each common kind.
const COMMON: [(&str, &[&str]); 8] = [
    ("player_diff", &["cid", "dx", "dy"]),
    ("finish", &[]),
    ("tick_skip", &["dt"]),
    ("player_new", &["cid", "x", "y"]),
    ("player_old", &["cid"]),
    ("input_diff", &["cid", "dinput"]),
    ("input_new", &["cid", "input"]),
    ("join", &["cid"]),
];

fn templates(py: Python<'_>) -> PyResult<&Templates> {
    TEMPLATES.get_or_try_init(py, || {
        let mut by_kind: Vec<Option<Py<PyDict>>> = (0..kind_count()).map(|_| None).collect();
        for (index, slot) in by_kind.iter_mut().enumerate() {
            let name = Message::kind_name_of(index);
            let Some((_, keys)) = COMMON.iter().find(|(k, _)| *k == name) else {
                continue;
            };
            let d = PyDict::new(py);
            d.set_item(intern!(py, "offset"), 0)?;
            d.set_item(intern!(py, "tick"), 0)?;
            d.set_item(intern!(py, "kind"), PyString::intern(py, name))?;
            for key in *keys {
                d.set_item(PyString::intern(py, key), 0)?;
            }
            *slot = Some(d.unbind());
        }
        Ok(Templates { by_kind })
    })
}

/// The record's line as a dict: built here for the common records (the
/// ones `RecordLine::write_common` writes by hand, same keys, same
/// order), through serde for the rest.
pub fn record_dict<'py>(py: Python<'py>, rec: &Record<'_>) -> PyResult<Bound<'py, PyAny>> {
    if rec.noncanonical {
        return slow(py, rec);
    }
    let template = templates(py)?
        .by_kind
        .get(rec.msg.kind_index())
        .and_then(Option::as_ref);
    let Some(template) = template else {
        return slow(py, rec);
    };
    let d = template.bind(py).copy()?;
    d.set_item(intern!(py, "offset"), rec.offset)?;
    d.set_item(intern!(py, "tick"), rec.tick)?;
    let cid = intern!(py, "cid");
    match &rec.msg {
        Message::PlayerDiff { cid: c, dx, dy } => {
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "dx"), *dx)?;
            d.set_item(intern!(py, "dy"), *dy)?;
        }
        Message::PlayerNew { cid: c, x, y } => {
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "x"), *x)?;
            d.set_item(intern!(py, "y"), *y)?;
        }
        Message::PlayerOld { cid: c } | Message::Join { cid: c } => d.set_item(cid, *c)?,
        Message::TickSkip { dt } => d.set_item(intern!(py, "dt"), *dt)?,
        Message::InputDiff { cid: c, dinput } => {
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "dinput"), input_list(py, dinput)?)?;
        }
        Message::InputNew { cid: c, input } => {
            d.set_item(cid, *c)?;
            d.set_item(intern!(py, "input"), input_list(py, input)?)?;
        }
        _ => {}
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

/// One record of a batch. `a` and `b` are `player_new`'s x and y,
/// `player_diff`'s dx and dy, `tick_skip`'s dt (in `a`); `input_at` is
/// where an input record's ten ints start in [`Columns::input`].
#[derive(Clone, Copy, Default)]
struct Row {
    offset: u64,
    tick: i32,
    cid: i32,
    a: i32,
    b: i32,
    input_at: u32,
    kind: u8,
}

// The kind indices of `Message::kind_index` (tests compare with KINDS).
const PLAYER_DIFF: u8 = 0;
const TICK_SKIP: u8 = 2;
const PLAYER_NEW: u8 = 3;
const INPUT_DIFF: u8 = 5;
const INPUT_NEW: u8 = 6;

/// The records of one batch, a row each (written once per record, the
/// columns are made from them when asked for), and the ints of its input
/// records.
#[derive(Default)]
pub struct Columns {
    pub len: usize,
    rows: Vec<Row>,
    input: Vec<i32>,
    /// Records kept whole (other kinds, non-canonical ints): their index
    /// in the batch and their JSON line, as serde writes it.
    pub extra: Vec<(usize, serde_json::Value)>,
}

impl Columns {
    /// Room for `n` records.
    pub fn with_capacity(n: usize) -> Self {
        Columns {
            rows: Vec::with_capacity(n),
            input: Vec::with_capacity(n * 5),
            ..Columns::default()
        }
    }

    /// Appends `rec`. Fails only if a rare record cannot be put in JSON.
    #[inline]
    pub fn push(&mut self, rec: &Record<'_>) -> Result<(), serde_json::Error> {
        let mut row = Row {
            offset: rec.offset,
            tick: rec.tick,
            // At most 256 kinds: the kind table is 11 + 21 + 1 long.
            kind: rec.msg.kind_index().min(255) as u8,
            ..Row::default()
        };
        let mut whole = rec.noncanonical;
        match &rec.msg {
            Message::PlayerDiff { cid, dx, dy } => (row.cid, row.a, row.b) = (*cid, *dx, *dy),
            Message::PlayerNew { cid, x, y } => (row.cid, row.a, row.b) = (*cid, *x, *y),
            Message::PlayerOld { cid } | Message::Join { cid } => row.cid = *cid,
            Message::TickSkip { dt } => row.a = *dt,
            Message::Finish => {}
            Message::InputDiff { cid, dinput: i } | Message::InputNew { cid, input: i } => {
                row.cid = *cid;
                // A batch holds at most u32::MAX / 10 input records.
                row.input_at = u32::try_from(self.input.len()).unwrap_or(u32::MAX);
                self.input.extend_from_slice(i);
            }
            other => {
                whole = true;
                if let Some(c) = other.cids()[0] {
                    row.cid = c;
                }
            }
        }
        if whole {
            self.extra
                .push((self.len, serde_json::to_value(RecordLine::new(rec))?));
        }
        self.rows.push(row);
        self.len += 1;
        Ok(())
    }

    /// The ten ints of row `r`, an input record.
    fn input_of(&self, r: &Row) -> &[i32] {
        let at = r.input_at as usize;
        self.input.get(at..at + 10).unwrap_or(&[])
    }

    /// A column: `f` of every row.
    fn column<T>(&self, f: impl Fn(&Row) -> T) -> Vec<T> {
        self.rows.iter().map(f).collect()
    }

    /// The input column: ten ints per record, zeros for other kinds.
    fn input_column(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(self.len * 10);
        for r in &self.rows {
            match r.kind {
                INPUT_DIFF | INPUT_NEW => out.extend_from_slice(self.input_of(r)),
                _ => out.extend_from_slice(&[0; 10]),
            }
        }
        out
    }
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

    fn view<'py, T: bytemuck::NoUninit>(
        py: Python<'py>,
        column: &[T],
        format: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let b = PyBytes::new(py, bytemuck::cast_slice(column));
        PyMemoryView::from(&b)?.call_method1(intern!(py, "cast"), (format,))
    }

    fn dict_at<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let c = &self.cols;
        if let Ok(at) = c.extra.binary_search_by_key(&i, |(j, _)| *j) {
            return convert::to_py(py, &c.extra[at].1);
        }
        let r = &c.rows[i];
        let d = PyDict::new(py);
        d.set_item(intern!(py, "offset"), r.offset)?;
        d.set_item(intern!(py, "tick"), r.tick)?;
        let kind = r.kind as usize;
        d.set_item(intern!(py, "kind"), Message::kind_name_of(kind))?;
        let cid = intern!(py, "cid");
        match Message::kind_name_of(kind) {
            "player_diff" => {
                d.set_item(cid, r.cid)?;
                d.set_item(intern!(py, "dx"), r.a)?;
                d.set_item(intern!(py, "dy"), r.b)?;
            }
            "player_new" => {
                d.set_item(cid, r.cid)?;
                d.set_item(intern!(py, "x"), r.a)?;
                d.set_item(intern!(py, "y"), r.b)?;
            }
            "player_old" | "join" => d.set_item(cid, r.cid)?,
            "tick_skip" => d.set_item(intern!(py, "dt"), r.a)?,
            "input_diff" => {
                d.set_item(cid, r.cid)?;
                d.set_item(intern!(py, "dinput"), PyList::new(py, c.input_of(r))?)?;
            }
            "input_new" => {
                d.set_item(cid, r.cid)?;
                d.set_item(intern!(py, "input"), PyList::new(py, c.input_of(r))?)?;
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
        for r in &self.cols.rows {
            *n.entry(r.kind).or_default() += 1;
        }
        let d = PyDict::new(py);
        for (k, v) in n {
            d.set_item(PyString::new(py, Message::kind_name_of(k as usize)), v)?;
        }
        Ok(d)
    }

    #[getter]
    fn offset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.column(|r| r.offset as i64), "q")
    }
    #[getter]
    fn tick<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.column(|r| r.tick), "i")
    }
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.column(|r| r.kind), "B")
    }
    #[getter]
    fn cid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.column(|r| r.cid), "i")
    }
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = |r: &Row| if r.kind == PLAYER_NEW { r.a } else { 0 };
        Self::view(py, &self.cols.column(f), "i")
    }
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = |r: &Row| if r.kind == PLAYER_NEW { r.b } else { 0 };
        Self::view(py, &self.cols.column(f), "i")
    }
    #[getter]
    fn dx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = |r: &Row| if r.kind == PLAYER_DIFF { r.a } else { 0 };
        Self::view(py, &self.cols.column(f), "i")
    }
    #[getter]
    fn dy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = |r: &Row| if r.kind == PLAYER_DIFF { r.b } else { 0 };
        Self::view(py, &self.cols.column(f), "i")
    }
    #[getter]
    fn dt<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = |r: &Row| if r.kind == TICK_SKIP { r.a } else { 0 };
        Self::view(py, &self.cols.column(f), "i")
    }
    #[getter]
    fn input<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(py, &self.cols.input_column(), "i")
    }

    fn __repr__(&self) -> String {
        format!(
            "<RecordBatch of {} records, {} outside the columns>",
            self.cols.len,
            self.cols.extra.len()
        )
    }
}
