//! What an AI chat completion request must hold before Arka forwards it: the rules of
//! `POST /api/v1/ai/chat/completions`, over the shape the edge read.

use super::validation::FieldErrors;

pub const MAX_MODEL_CHARS: usize = 64;
pub const MAX_MESSAGES: usize = 1000;
pub const ROLES: [&str; 5] = ["system", "developer", "user", "assistant", "tool"];

/// A message's `content` as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Absent,
    Null,
    Text(String),
    /// An array of content parts (text, images), passed on as they are.
    Parts,
    /// Anything else (a number, an object, a boolean).
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Option<String>,
    pub content: Content,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatRequest {
    pub model: Option<String>,
    pub messages: Option<Vec<Message>>,
}

/// Control characters other than tab and line breaks, which no model name or text needs.
fn has_control(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

pub fn validate(req: &ChatRequest) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    match req.model.as_deref().map(str::trim) {
        None | Some("") => errors.add("model", "The model field is required."),
        Some(model) if model.chars().count() > MAX_MODEL_CHARS => {
            errors.add("model", format!("The model must not be greater than {MAX_MODEL_CHARS} characters."))
        }
        Some(model) if has_control(model) || model.contains(['\t', '\n', '\r']) => {
            errors.add("model", "The model must not contain control characters.")
        }
        Some(_) => {}
    }
    match &req.messages {
        None => errors.add("messages", "The messages field is required."),
        Some(messages) if messages.is_empty() => {
            errors.add("messages", "The messages field must have at least one message.")
        }
        Some(messages) if messages.len() > MAX_MESSAGES => errors
            .add("messages", format!("The messages field must not have more than {MAX_MESSAGES} messages.")),
        Some(messages) => {
            for (i, message) in messages.iter().enumerate() {
                check_message(&mut errors, i, message);
            }
        }
    }
    errors.into_result()
}

fn check_message(errors: &mut FieldErrors, i: usize, message: &Message) {
    let role_key = format!("messages.{i}.role");
    let role = message.role.as_deref().map(str::trim).filter(|r| !r.is_empty());
    match role {
        None => errors.add(role_key, format!("The messages.{i}.role field is required.")),
        Some(role) if !ROLES.contains(&role) => {
            errors.add(role_key, format!("The messages.{i}.role must be one of {}.", ROLES.join(", ")))
        }
        Some(_) => {}
    }
    let content_key = format!("messages.{i}.content");
    match &message.content {
        Content::Absent => errors.add(content_key, format!("The messages.{i}.content field is required.")),
        // An assistant turn that only called tools has no text.
        Content::Null if role == Some("assistant") => {}
        Content::Null | Content::Other => errors.add(
            content_key,
            format!("The messages.{i}.content must be a string or an array of content parts."),
        ),
        Content::Text(text) if has_control(text) => {
            errors.add(content_key, format!("The messages.{i}.content must not contain control characters."))
        }
        Content::Text(_) | Content::Parts => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Message {
        Message { role: Some("user".into()), content: Content::Text(text.into()) }
    }

    fn request(model: Option<&str>, messages: Option<Vec<Message>>) -> ChatRequest {
        ChatRequest { model: model.map(str::to_string), messages }
    }

    fn keys(req: &ChatRequest) -> Vec<String> {
        match validate(req) {
            Ok(()) => Vec::new(),
            Err(e) => e.into_map().into_keys().collect(),
        }
    }

    #[test]
    fn a_model_and_one_message_are_enough() {
        assert_eq!(
            keys(&request(Some("llama3.1:8b"), Some(vec![user("Përshëndetje!\nSi je?")]))),
            Vec::<String>::new()
        );
        let tools = Message { role: Some("assistant".into()), content: Content::Null };
        assert_eq!(keys(&request(Some("m"), Some(vec![user("a"), tools]))), Vec::<String>::new());
        let parts = Message { role: Some("user".into()), content: Content::Parts };
        assert_eq!(keys(&request(Some("m"), Some(vec![parts]))), Vec::<String>::new());
    }

    #[test]
    fn what_is_rejected_and_where() {
        let long = "m".repeat(65);
        let max = "m".repeat(64);
        let no_role = Message { role: None, content: Content::Text("a".into()) };
        let odd_role = Message { role: Some("boss".into()), content: Content::Text("a".into()) };
        let no_content = Message { role: Some("user".into()), content: Content::Absent };
        let null_user = Message { role: Some("user".into()), content: Content::Null };
        let number = Message { role: Some("user".into()), content: Content::Other };
        type Row<'a> = (Option<&'a str>, Option<Vec<Message>>, Vec<&'a str>);
        // | model          | messages                 | rejected               |
        let table: Vec<Row> = vec![
            (None, Some(vec![user("a")]), vec!["model"]),
            (Some("  "), Some(vec![user("a")]), vec!["model"]),
            (Some(&long), Some(vec![user("a")]), vec!["model"]),
            (Some(&max), Some(vec![user("a")]), vec![]),
            (Some("gpt\u{0}"), Some(vec![user("a")]), vec!["model"]),
            (Some("m"), None, vec!["messages"]),
            (Some("m"), Some(vec![]), vec!["messages"]),
            (None, None, vec!["messages", "model"]),
            (Some("m"), Some(vec![user("a"), no_role]), vec!["messages.1.role"]),
            (Some("m"), Some(vec![odd_role]), vec!["messages.0.role"]),
            (Some("m"), Some(vec![no_content]), vec!["messages.0.content"]),
            (Some("m"), Some(vec![null_user]), vec!["messages.0.content"]),
            (Some("m"), Some(vec![number]), vec!["messages.0.content"]),
            (Some("m"), Some(vec![user("a\u{0}b")]), vec!["messages.0.content"]),
        ];
        for (model, messages, expected) in table {
            assert_eq!(keys(&request(model, messages.clone())), expected, "{model:?} {messages:?}");
        }
        let many = vec![user("a"); MAX_MESSAGES + 1];
        assert_eq!(keys(&request(Some("m"), Some(many))), ["messages"]);
    }
}
