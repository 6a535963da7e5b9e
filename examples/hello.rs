//! The reference for `benchmarks/medications.py`: axum's hello world on this crate's axum
//! and tokio, with the runtime `pillbox serve` uses, so the ratio measures our request path
//! and nothing else.
//!
//!     cargo build --release --example hello && target/release/examples/hello 127.0.0.1:3999

use axum::Router;
use axum::routing::get;

fn main() -> std::io::Result<()> {
    let bind = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3999".to_owned());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async move {
            let app = Router::new().route("/", get(|| async { "Hello, World!" }));
            let listener = tokio::net::TcpListener::bind(&bind).await?;
            axum::serve(listener, app).await
        })
}
