//! `wirelens lsp`: the language server, over stdio.

mod backend;
mod convert;
mod documents;
mod generation;
mod handlers;
mod settings;
mod transport;
mod workspace_index;

use tower_lsp_server::{LspService, Server};

pub fn run() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let (service, socket) = LspService::new(backend::Backend::new);
        // The client's bytes reach the server only through the sanitizing transport.
        transport::serve(tokio::io::stdin(), tokio::io::stdout(), |input, output| {
            Server::new(input, output, socket).serve(service)
        })
        .await;
    });
    // Do not wait for the thread blocked reading stdin (after `exit` it may never end).
    runtime.shutdown_background();
    Ok(())
}
