//! The server's cost grows linearly (edit → diagnostics, semantic tokens, document
//! symbols, inlay hints, formatting, memory): one struct of N fields and of 4N fields (the shape
//! that was quadratic), requests sent over stdio, the server's CPU time and peak memory
//! read from `/proc`; 4N may cost at most 5× N in time and memory.

mod common;

use std::time::Duration;

use common::{pos, Client};
use serde_json::json;

const N: usize = 2000;

fn schema(fields: usize) -> String {
    let body: String = (0..fields)
        .map(|i| {
            // Two variable-size fields at any N: every later offset is symbolic. (Their
            // number must not grow with N: each field's offset names every variable
            // field before it, so with one in 1,000 the hints' text alone grew 5.5× for
            // 4× the fields.)
            let ty = if i == 0 || i == fields / 2 { "str" } else { "u32" };
            format!("    f{i}: {ty},\n")
        })
        .collect();
    format!("struct Big {{\n{body}}}\n")
}

/// Peak resident memory of the server in kB.
fn vm_hwm(c: &Client) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", c.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// CPU time the server has used so far, all threads (`/proc/PID/task/*/schedstat`, in
/// ns). Timing the server's CPU rather than the wall clock keeps the ratios meaningful
/// while other builds load the machine (wall time under load varied by more than the 5×
/// this test allows).
fn cpu_time(c: &Client) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{}/task", c.child.id())).unwrap();
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

struct Costs {
    /// Least server CPU time of five, per request kind.
    times: Vec<(&'static str, Duration)>,
    hwm_kb: u64,
}

fn measure(fields: usize) -> Costs {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"diagnostics": {"delayMs": 0}}}),
    );
    c.notify("initialized", json!({}));
    let uri = "file:///tmp/wirelens-scaling/big.sdp";
    let text = schema(fields);
    let lines = fields as u32 + 3;
    let doc = json!({"uri": uri});
    let mut times = Vec::new();
    let mut best = |name: &'static str, mut f: Box<dyn FnMut(&mut Client) + '_>, c: &mut Client| {
        let mut fastest = Duration::MAX;
        for _ in 0..5 {
            let t = cpu_time(c);
            f(c);
            fastest = fastest.min(cpu_time(c).saturating_sub(t));
        }
        times.push((name, fastest));
    };
    let mut version = 1;
    c.open(uri, "sdp", &text);
    c.diagnostics(uri);
    best(
        "edit → diagnostics",
        Box::new(|c: &mut Client| {
            version += 1;
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": {"start": pos(1, 4), "end": pos(1, 6)}, "text": "g0"}]}),
            );
            while c.diagnostics(uri)["version"] != version {}
        }),
        &mut c,
    );
    best(
        "semantic tokens",
        Box::new(|c: &mut Client| {
            let t = c.request("textDocument/semanticTokens/full", json!({"textDocument": doc}));
            assert!(t["data"].as_array().unwrap().len() >= fields * 5);
        }),
        &mut c,
    );
    best(
        "document symbols",
        Box::new(|c: &mut Client| {
            let s = c.request("textDocument/documentSymbol", json!({"textDocument": doc}));
            assert_eq!(s[0]["children"].as_array().unwrap().len(), fields);
        }),
        &mut c,
    );
    best(
        "inlay hints",
        Box::new(|c: &mut Client| {
            let h = c.request(
                "textDocument/inlayHint",
                json!({"textDocument": doc, "range": {"start": pos(0, 0), "end": pos(lines, 0)}}),
            );
            assert_eq!(h.as_array().unwrap().len(), fields);
        }),
        &mut c,
    );
    best(
        "formatting",
        Box::new(|c: &mut Client| {
            let e = c.request(
                "textDocument/formatting",
                json!({"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": true}}),
            );
            assert!(e.is_array());
        }),
        &mut c,
    );
    Costs {
        times,
        hwm_kb: vm_hwm(&c),
    }
}

#[test]
fn diagnostics_tokens_symbols_hints_and_formatting_grow_linearly() {
    let small = measure(N);
    let large = measure(4 * N);
    let mut report = Vec::new();
    let mut worst = Vec::new();
    for ((name, a), (_, b)) in small.times.iter().zip(&large.times) {
        // Below a few milliseconds the ratio measures noise, not growth.
        let ratio = b.as_secs_f64() / a.as_secs_f64().max(0.005);
        report.push(format!("{name}: {a:?} → {b:?} ({ratio:.1}×)"));
        worst.push((ratio, *name));
    }
    let mem = large.hwm_kb as f64 / small.hwm_kb as f64;
    report.push(format!("VmHWM: {} kB → {} kB ({mem:.1}×)", small.hwm_kb, large.hwm_kb));
    eprintln!("N = {N} vs 4N:\n{}", report.join("\n"));
    for (ratio, name) in worst {
        assert!(ratio <= 5.0, "{name} grew {ratio:.1}× for 4× the fields: {report:?}");
    }
    assert!(mem <= 5.0, "{report:?}");
}
