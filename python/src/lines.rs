//! Lazy readers: a file's lines (the JSON lines its command prints)
//! produced by a worker thread as they are asked for.
//!
//! A [`Pass`] over a file is a worker thread running a [`Producer`] (e.g.
//! the demo player, [`teeoracle::demo::json::for_each_event`]) that sends
//! each line, as JSON text, in small batches through a bounded channel;
//! the Python side turns each into a dict (`json.loads`, whose C parser
//! builds the dicts of a snapshot's items faster than building them one by
//! one from Rust) when it is reached. Memory holds a few batches whatever
//! the file's length, decoding runs without the GIL, and the consumer's
//! thread waits for a batch with the GIL released and looks at signals
//! between batches (Ctrl-C stops it at once). A pass whose iterator is
//! dropped stops its worker at its next batch.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

/// Lines in one batch a worker sends.
const BATCH: usize = 64;
/// Batches a worker may be ahead of its consumer.
const AHEAD: usize = 4;

/// What stopped a producer early.
pub enum Stop {
    /// The consumer has gone.
    Gone,
    /// A line could not be made JSON (a bug, not the input's).
    Failed(String),
}

/// A file's lines: sends each through `Out`, gives its end line's text.
pub type Producer = Arc<dyn Fn(&mut Out) -> Result<String, Stop> + Send + Sync>;

/// JSON text of `value`.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, Stop> {
    serde_json::to_string(value).map_err(|e| Stop::Failed(e.to_string()))
}

/// What a worker sends.
enum Sent {
    Lines(Vec<String>),
    /// The end line: the file was read to its end.
    End(String),
    Failed(String),
}

/// The worker's end of a pass.
pub struct Out {
    tx: SyncSender<Sent>,
    kind: Option<&'static str>,
    batch: Vec<String>,
}

impl Out {
    /// Whether the pass wants lines of `kind`.
    pub fn wants(&self, kind: &str) -> bool {
        self.kind.is_none_or(|k| k == kind)
    }

    /// Sends `line`; `big` lines (a snapshot of thousands of items) end
    /// their batch.
    pub fn send(&mut self, line: String, big: bool) -> Result<(), Stop> {
        self.batch.push(line);
        if self.batch.len() == BATCH || big {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Stop> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        self.tx.send(Sent::Lines(full)).map_err(|_| Stop::Gone)
    }
}

/// One pass over a file's lines, those of `kind` only if given.
pub struct Pass {
    produce: Producer,
    kind: Option<&'static str>,
    /// Started at the first line asked for.
    rx: Option<Receiver<Sent>>,
    ready: VecDeque<String>,
    /// `json.loads`, once the pass has started.
    loads: Option<Py<PyAny>>,
    pub done: bool,
    /// The end line, shared by every pass over the file.
    end: Arc<Mutex<Option<String>>>,
}

impl Pass {
    pub fn new(
        produce: Producer,
        kind: Option<&'static str>,
        end: Arc<Mutex<Option<String>>>,
    ) -> Pass {
        Pass {
            produce,
            kind,
            rx: None,
            ready: VecDeque::new(),
            loads: None,
            done: false,
            end,
        }
    }

    fn start(&self) -> Receiver<Sent> {
        let (tx, rx) = sync_channel(AHEAD);
        let produce = self.produce.clone();
        let kind = self.kind;
        std::thread::spawn(move || {
            let mut out = Out {
                tx: tx.clone(),
                kind,
                batch: Vec::with_capacity(BATCH),
            };
            let last = match produce(&mut out).and_then(|end| out.flush().map(|()| end)) {
                Ok(end) => Sent::End(end),
                Err(Stop::Failed(e)) => Sent::Failed(e),
                Err(Stop::Gone) => return,
            };
            let _ = tx.send(last);
        });
        rx
    }

    /// The next line as a dict, or `None` at the end.
    pub fn next<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            if let Some(line) = self.ready.pop_front() {
                return loads(py, &mut self.loads)?.call1((line,)).map(Some);
            }
            if self.done {
                return Ok(None);
            }
            // Ctrl-C between batches, before waiting for the next one.
            py.check_signals()?;
            let rx = match self.rx.take() {
                Some(rx) => rx,
                None => self.start(),
            };
            let (rx, sent) = py.detach(move || {
                let sent = rx.recv();
                (rx, sent)
            });
            match sent {
                Ok(Sent::Lines(batch)) => {
                    self.ready.extend(batch);
                    self.rx = Some(rx);
                }
                Ok(Sent::End(end)) => {
                    self.finish();
                    *self.end.lock().unwrap_or_else(|p| p.into_inner()) = Some(end);
                }
                Ok(Sent::Failed(e)) => {
                    self.finish();
                    return Err(PyValueError::new_err(format!("a line as JSON: {e}")));
                }
                Err(_) => {
                    self.finish();
                    return Err(PyValueError::new_err("the reader's worker stopped"));
                }
            }
        }
    }

    /// Ends the pass: its worker stops at its next batch.
    pub fn finish(&mut self) {
        self.done = true;
        self.rx = None;
        self.ready.clear();
    }
}

/// `json.loads`, looked up once per pass.
fn loads<'py>(py: Python<'py>, cached: &mut Option<Py<PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    if let Some(f) = cached {
        return Ok(f.bind(py).clone());
    }
    let f = py.import("json")?.getattr("loads")?;
    *cached = Some(f.clone().unbind());
    Ok(f)
}

/// The end line as a dict, once a pass has reached it.
pub fn end<'py>(
    py: Python<'py>,
    end: &Mutex<Option<String>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let text = end.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut cached = None;
    text.map(|t| loads(py, &mut cached)?.call1((t,)))
        .transpose()
}

/// One kind of a file's lines, a pass of its own over the file.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Lines {
    // Only reached through `&mut self`.
    pass: Mutex<Pass>,
}

impl Lines {
    pub fn new(pass: Pass) -> Lines {
        Lines {
            pass: Mutex::new(pass),
        }
    }
}

#[pymethods]
impl Lines {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let pass = match self.pass.get_mut() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        };
        pass.next(py)
    }
}
