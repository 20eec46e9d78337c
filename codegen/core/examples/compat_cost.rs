//! The cost of comparing a schema with its baseline (`compat::compare`), which the
//! language server runs after an edit when a baseline exists:
//! `cargo run --release -p wirelens-core --example compat_cost -- OLD NEW [all|none]`
//! (both field modes by default; one for an instruction count under callgrind).
use wirelens_core::*;

fn main() {
    let mut args = std::env::args().skip(1);
    let (old, new) = match (args.next(), args.next()) {
        (Some(o), Some(n)) => (o, n),
        _ => {
            eprintln!("usage: compat_cost OLD NEW");
            std::process::exit(2);
        }
    };
    let load = |p: &str| {
        let text = std::fs::read_to_string(p).expect("readable schema");
        let d = Dialect::from_path(std::path::Path::new(p)).expect(".sdp or .ffi");
        analyze(d, &text, None, OrderChoice::default())
    };
    let only = args.next();
    let (a, b) = (load(&old), load(&new));
    // `Fields::All` is what `wirelens diff` runs, `Fields::None` what the editor runs per publish.
    let modes = [("all", compat::Fields::All), ("none", compat::Fields::None)];
    for (label, fields) in modes
        .into_iter()
        .filter(|(l, _)| only.as_deref().is_none_or(|o| o == *l))
    {
        let mut times = Vec::new();
        let mut breaks = 0;
        for _ in 0..20 {
            let t = std::time::Instant::now();
            let r = compat::compare_with(&a, &b, fields);
            times.push(t.elapsed());
            breaks = r.breaks.len();
        }
        times.sort();
        println!(
            "compare (fields: {label}): min {:?} median {:?} ({breaks} breaks)",
            times[0],
            times[times.len() / 2]
        );
    }
}
