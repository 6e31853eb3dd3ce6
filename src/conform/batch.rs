//! The batch protocol of an adapter (`CMD batch`, `# conform` in
//! [`crate::schema`]): one [`BatchRequest`] a line on its stdin, one
//! [`BatchResponse`] a line on its stdout, in order. The harness
//! ([`super::Process`]) writes the requests and reads the responses;
//! teeoracle's own adapter (`conform adapter batch`) answers them with
//! [`respond`]. Both sides use these types, so they speak one shape.

use super::{Case, Input, Rejection, Unit, encode, expect};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One case as a request: `{"id": 7, "op": "decode", "unit": "varint",
/// "input_hex": "8001"}` or `{"id": 8, "op": "encode", "unit": "varint",
/// "input": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchRequest {
    /// Its number, which the response repeats.
    pub id: u64,
    /// What to do.
    #[serde(flatten)]
    pub task: BatchTask,
}

/// What a [`BatchRequest`] asks, by its `op`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum BatchTask {
    /// Bytes (as hex) to the unit's JSON.
    Decode {
        /// The unit.
        unit: Unit,
        /// The input bytes, hex.
        input_hex: String,
    },
    /// The unit's JSON to bytes.
    Encode {
        /// The unit.
        unit: Unit,
        /// The input JSON.
        input: Value,
    },
}

impl BatchRequest {
    /// The request for `case`, numbered `id`.
    pub fn of(id: u64, case: &Case) -> BatchRequest {
        let unit = case.unit;
        let task = match &case.input {
            Input::Bytes(b) => BatchTask::Decode {
                unit,
                input_hex: hex::encode(b),
            },
            Input::Json(v) => BatchTask::Encode {
                unit,
                input: v.value(),
            },
        };
        BatchRequest { id, task }
    }
}

/// The answer to one request: `{"id": 7, "ok": true, "output": {...}}`,
/// `{"id": 8, "ok": true, "output_hex": "8001"}` or `{"id": 9, "ok":
/// false, "error": "why"}`. Read leniently, as the contract says: `ok`
/// may be left out of a rejection.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchResponse {
    /// The request's id (`null` for a line that was not a request).
    pub id: Option<u64>,
    /// It is an answer (else a rejection).
    #[serde(default)]
    pub ok: bool,
    /// A decode's JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// An encode's bytes, hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_hex: Option<String>,
    /// Why the input was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl BatchResponse {
    /// A decode's answer.
    pub fn decoded(id: u64, output: Value) -> BatchResponse {
        BatchResponse {
            id: Some(id),
            ok: true,
            output: Some(output),
            ..BatchResponse::default()
        }
    }

    /// An encode's answer.
    pub fn encoded(id: u64, bytes: &[u8]) -> BatchResponse {
        BatchResponse {
            id: Some(id),
            ok: true,
            output_hex: Some(hex::encode(bytes)),
            ..BatchResponse::default()
        }
    }

    /// A rejection.
    pub fn rejected(id: Option<u64>, why: String) -> BatchResponse {
        BatchResponse {
            id,
            error: Some(why),
            ..BatchResponse::default()
        }
    }
}

/// teeoracle's response to one request line: what the reference adapter
/// (`conform adapter batch`) prints. A line that is not a request is
/// rejected, with its id when it has one.
pub fn respond(line: &str) -> BatchResponse {
    let request: BatchRequest = match serde_json::from_str(line) {
        Ok(r) => r,
        Err(_) => {
            let id = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v["id"].as_u64());
            return BatchResponse::rejected(id, format!("not a request: {line}"));
        }
    };
    let id = request.id;
    let answer = match request.task {
        BatchTask::Decode { unit, input_hex } => hex::decode(input_hex)
            .map_err(|_| Rejection("no input_hex".into()))
            .and_then(|input| expect(unit, &input))
            .map(|v| BatchResponse::decoded(id, v)),
        BatchTask::Encode { unit, input } => {
            encode(unit, &input).map(|b| BatchResponse::encoded(id, &b))
        }
    };
    answer.unwrap_or_else(|Rejection(why)| BatchResponse::rejected(Some(id), why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses_have_the_contracts_shape() {
        let case = Case::decode("varint/t".into(), Unit::Varint, vec![0x80, 0x01], "t");
        let request = serde_json::to_string(&BatchRequest::of(7, &case)).unwrap();
        assert_eq!(
            request,
            r#"{"id":7,"op":"decode","unit":"varint","input_hex":"8001"}"#
        );
        let back: BatchRequest = serde_json::from_str(&request).unwrap();
        assert_eq!(back, BatchRequest::of(7, &case));
        let response = serde_json::to_string(&respond(&request)).unwrap();
        assert_eq!(response, r#"{"id":7,"ok":true,"output":{"ints":[64]}}"#);
        let encode = r#"{"id":8,"op":"encode","unit":"varint","input":{"ints":[64]}}"#;
        let response = serde_json::to_string(&respond(encode)).unwrap();
        assert_eq!(response, r#"{"id":8,"ok":true,"output_hex":"8001"}"#);
        let cut = r#"{"id":9,"op":"decode","unit":"varint","input_hex":"80"}"#;
        let response = respond(cut);
        assert!(!response.ok && response.error.is_some(), "{response:?}");
        let response = serde_json::to_string(&respond(r#"{"id":3,"op":"what"}"#)).unwrap();
        assert_eq!(
            response,
            r#"{"id":3,"ok":false,"error":"not a request: {\"id\":3,\"op\":\"what\"}"}"#
        );
        // A rejection may leave `ok` out.
        let lenient: BatchResponse = serde_json::from_str(r#"{"id":9,"error":"no"}"#).unwrap();
        assert_eq!(lenient, BatchResponse::rejected(Some(9), "no".into()));
    }
}
