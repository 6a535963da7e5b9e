//! Answer bodies that carry a message for the person beside (or instead of) the data.

use serde::Serialize;
use utoipa::ToSchema;

/// `{"success": true, "message": …}`.
#[derive(Serialize, ToSchema)]
pub struct Message {
    /// Always true.
    pub success: bool,
    /// What happened, in English, for a person.
    pub message: String,
}

pub fn message(text: impl Into<String>) -> axum::Json<Message> {
    axum::Json(Message {
        success: true,
        message: text.into(),
    })
}

/// `{"success": true, "message": …, "data": …}`.
#[derive(Serialize, ToSchema)]
pub struct MessageData<T> {
    /// Always true.
    pub success: bool,
    /// What happened, in English, for a person.
    pub message: String,
    pub data: T,
}

pub fn message_data<T: Serialize>(text: impl Into<String>, data: T) -> axum::Json<MessageData<T>> {
    axum::Json(MessageData {
        success: true,
        message: text.into(),
        data,
    })
}
