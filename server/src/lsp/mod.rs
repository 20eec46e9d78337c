//! `wirelens lsp`: the language server, over stdio.

mod backend;
mod commands;
mod convert;
mod documents;
mod generation;
mod handlers;
mod inspect;
mod semantic_tokens;
mod settings;
mod snippets;
mod transport;
mod workspace_index;

use tower_lsp_server::{LspService, Server};

/// Memory settings for a long-running server (the short-lived CLI keeps the defaults).
/// mimalloc asks the kernel for transparent huge pages on its arenas; with an analysis
/// built per keystroke and freed a keystroke later, that held ~50 MB more resident memory
/// than the live data on the 5,000-struct schema (docs/benchmarks/history.md, "Server
/// memory"). `MIMALLOC_ALLOW_THP=0` would do the same but is read only at process start, so
/// the process opts out of THP itself (prctl; applies to every later page fault). Freed
/// pages are returned to the kernel after [`PURGE_DELAY_MS`]: at once (0) cost a `madvise`
/// per free and a page fault per page when the next keystroke's analysis touched it again,
/// about a third of the server's time per edit (docs/benchmarks/history.md,
/// "Issue 15 item 4"); `MIMALLOC_PURGE_DELAY` set by the user wins. tree-sitter's C
/// allocations go to mimalloc too (they went to glibc's malloc). The option numbers are
/// `mi_option_t` of the mimalloc that `libmimalloc-sys` 0.1.49 vendors and builds (v3,
/// `c_src/mimalloc/v3/include/mimalloc.h`; the same in its v2 header); its Rust bindings do
/// not export these two. Check them when that crate is upgraded.
fn tune_allocator() {
    use libmimalloc_sys::{mi_free, mi_malloc, mi_realloc, mi_zalloc};
    use std::os::raw::{c_int, c_long, c_void};
    // `mi_option_arena_eager_commit`, `mi_option_purge_delay`.
    const ARENA_EAGER_COMMIT: c_int = 4;
    const PURGE_DELAY: c_int = 15;
    extern "C" {
        // In `libmimalloc-sys` only behind its `extended` feature (which pulls in a
        // further crate for this one function).
        fn mi_option_set(option: c_int, value: c_long);
    }
    // tree-sitter requires non-null results (its own default aborts when out of
    // memory, and so do these).
    extern "C" fn ts_malloc(size: usize) -> *mut c_void {
        // SAFETY: plain allocation.
        non_null(unsafe { mi_malloc(size) }, size)
    }
    extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
        // An overflowing size is out of memory, as for calloc.
        let Some(size) = count.checked_mul(size) else {
            std::process::abort();
        };
        // SAFETY: plain allocation, zeroed.
        non_null(unsafe { mi_zalloc(size) }, size)
    }
    extern "C" fn ts_realloc(p: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: tree-sitter passes only pointers these functions returned.
        non_null(unsafe { mi_realloc(p, size) }, size)
    }
    extern "C" fn ts_free(p: *mut c_void) {
        // SAFETY: tree-sitter passes only pointers these functions returned.
        unsafe { mi_free(p) }
    }
    fn non_null(p: *mut c_void, size: usize) -> *mut c_void {
        if p.is_null() && size != 0 {
            std::process::abort();
        }
        p
    }
    // SAFETY: mimalloc documents `mi_option_set` as callable at any time (the options
    // are read when memory is next reserved or purged).
    unsafe {
        mi_option_set(ARENA_EAGER_COMMIT, 0);
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
    // SAFETY: called first thing in `run`, before the server creates any tree-sitter
    // object, and never again; the four functions are one allocator (mimalloc's) and
    // return memory aligned as malloc's.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: ts_malloc,
            calloc: ts_calloc,
            realloc: ts_realloc,
            free: ts_free,
        }));
    }
    // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` only sets a flag of this process;
    // a failure leaves the default.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(
            libc::PR_SET_THP_DISABLE,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

/// See [`tune_allocator`]: long enough that the memory one keystroke's analysis frees
/// is reused by the next one's, short enough that an idle server gives it back.
const PURGE_DELAY_MS: std::os::raw::c_long = 1000;

/// Messages handled at once. tower-lsp-server's default, 4, makes every further message
/// wait for a free place: on opening a big schema VS Code asks for symbols (twice),
/// semantic tokens, lenses and folding at once, and the inlay hints of the visible lines,
/// or the next keystroke's `didChange`, would queue behind them.
const CONCURRENCY: usize = 64;

pub fn run() -> Result<(), String> {
    tune_allocator();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let (service, socket) = LspService::build(backend::Backend::new)
            .custom_method(inspect::INSPECT, backend::Backend::inspect)
            .finish();
        // The client's bytes reach the server only through the sanitizing transport.
        transport::serve(tokio::io::stdin(), tokio::io::stdout(), |input, output| {
            Server::new(input, output, socket)
                .concurrency_level(CONCURRENCY)
                .serve(snippets::Snippets::new(service))
        })
        .await;
    });
    // Do not wait for the thread blocked reading stdin (after `exit` it may never end).
    runtime.shutdown_background();
    Ok(())
}
