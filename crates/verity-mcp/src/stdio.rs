//! The stdio transport with a line filter in front of the protocol: every
//! line that is not a JSON-RPC message gets its JSON-RPC error on stdout
//! (`-32700` for invalid UTF-8, non-JSON or truncated JSON, `-32600` for JSON
//! that is not a message), and the session goes on. Without it the SDK drops
//! such lines, or the session, and the client waits for an answer that never
//! comes.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadHalf, SimplexStream,
    WriteHalf,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Longest line read, in bytes (longer ones are answered `-32700` and skipped).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Pipe buffer between the filter and the SDK.
const PIPE_BYTES: usize = 256 * 1024;

/// What the SDK reads and writes, and the tasks that move lines between it
/// and the real streams (await `done` after the session ends, so every
/// answer is flushed).
pub(crate) struct Filtered {
    pub(crate) read: ReadHalf<SimplexStream>,
    pub(crate) write: WriteHalf<SimplexStream>,
    pub(crate) done: JoinHandle<()>,
}

/// The JSON-RPC error answering one bad line, or `None` when the line is a
/// message to hand to the SDK (blank lines are ignored: `Some(None)`).
fn judge(line: &[u8]) -> Option<Option<Value>> {
    let error = |id: Value, code: i32, message: String| {
        Some(Some(json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message},
        })))
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return error(
            Value::Null,
            -32700,
            "Parse error: the line is not valid UTF-8".into(),
        );
    };
    if text.trim().is_empty() {
        return Some(None);
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, -32700, format!("Parse error: {e}")),
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(_) => None,
        Err(e) => {
            let id = match value.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            error(
                id,
                -32600,
                format!("Invalid Request: not a JSON-RPC 2.0 message MCP defines ({e})"),
            )
        }
    }
}

fn encode(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec());
    out.push(b'\n');
    out
}

/// Filter `input` into the SDK and merge the SDK's output with the error
/// answers into `output`, one whole line at a time.
pub(crate) fn filtered<R, W>(input: R, output: W) -> Filtered
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_read, mut feed) = tokio::io::simplex(PIPE_BYTES);
    let (drain, sdk_write) = tokio::io::simplex(PIPE_BYTES);
    let (errors, mut error_rx) = mpsc::channel::<Vec<u8>>(64);

    let reader = tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            let mut too_long = false;
            // Read one line, never holding more than MAX_LINE_BYTES of it.
            let ended = loop {
                let buf = match input.fill_buf().await {
                    Ok(b) => b,
                    Err(e) => {
                        tracing::debug!("stdin closed: {e}");
                        break true;
                    }
                };
                if buf.is_empty() {
                    break true;
                }
                let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                    Some(p) => (&buf[..=p], true),
                    None => (buf, false),
                };
                let n = chunk.len();
                if line.len() + n <= MAX_LINE_BYTES {
                    line.extend_from_slice(chunk);
                } else {
                    too_long = true;
                }
                input.consume(n);
                if found {
                    break false;
                }
            };
            if too_long {
                let e = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                    "message": format!("Parse error: line longer than {MAX_LINE_BYTES} bytes")}});
                let _ = errors.send(encode(&e)).await;
            } else if !line.is_empty() {
                let body = line.strip_suffix(b"\n").unwrap_or(&line);
                let body = body.strip_suffix(b"\r").unwrap_or(body);
                match judge(body) {
                    None => {
                        let mut msg = body.to_vec();
                        msg.push(b'\n');
                        if feed.write_all(&msg).await.is_err() {
                            break;
                        }
                    }
                    Some(None) => {}
                    Some(Some(e)) => {
                        if errors.send(encode(&e)).await.is_err() {
                            break;
                        }
                    }
                }
            }
            if ended {
                break;
            }
        }
        // End of input: the SDK sees it and ends the session.
        let _ = feed.shutdown().await;
    });

    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut sdk = BufReader::new(drain);
        let mut line = Vec::new();
        let mut sdk_open = true;
        let mut errors_open = true;
        while sdk_open || errors_open {
            tokio::select! {
                read = sdk.read_until(b'\n', &mut line), if sdk_open => {
                    match read {
                        Ok(0) | Err(_) => sdk_open = false,
                        Ok(_) => {
                            if output.write_all(&line).await.is_err() {
                                break;
                            }
                            line.clear();
                            let _ = output.flush().await;
                        }
                    }
                }
                e = error_rx.recv(), if errors_open => match e {
                    Some(bytes) => {
                        if output.write_all(&bytes).await.is_err() {
                            break;
                        }
                        let _ = output.flush().await;
                    }
                    None => errors_open = false,
                },
            }
        }
        let _ = output.flush().await;
    });

    let done = tokio::spawn(async move {
        let _ = reader.await;
        let _ = writer.await;
    });
    Filtered {
        read: sdk_read,
        write: sdk_write,
        done,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_judged() {
        let code = |l: &[u8]| match judge(l) {
            Some(Some(v)) => v["error"]["code"].as_i64().unwrap_or(0),
            Some(None) => 1,
            None => 0,
        };
        assert_eq!(code(b"not json"), -32700);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"meth"#), -32700);
        assert_eq!(code(b"\xff\xfe{}"), -32700);
        assert_eq!(code(br#"{"hello":1}"#), -32600);
        assert_eq!(code(b"   "), 1);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), 0);
        let v = judge(br#"{"id":7,"x":1}"#).flatten().unwrap_or_default();
        assert_eq!(v["id"], 7);
    }
}
