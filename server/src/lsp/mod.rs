//! `wirelens lsp`: the language server, over stdio.

mod backend;
mod convert;
mod documents;
mod generation;
mod handlers;
mod settings;
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
        Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    Ok(())
}
