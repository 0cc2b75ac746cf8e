//! Request building (to be written).

use crate::provider::{HttpRequest, ModelRequest};

/// Build the HTTP request for `request`.
pub fn build_request(request: &ModelRequest) -> HttpRequest {
    HttpRequest {
        path: String::new(),
        headers: Vec::new(),
        body: serde_json::json!({"model": request.model}),
    }
}
