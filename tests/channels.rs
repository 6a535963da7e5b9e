//! Channels (issue 24) end to end against the real binary and local servers that follow
//! each published protocol (tests/common/channels.rs): a reminder on ntfy with Taken /
//! Snooze / Skip buttons, pressed the way the ntfy app does, recorded, and replaced by its
//! last word under the same sequence id; a test's answer in the channel's own words; bad
//! input that changes nothing; Gotify's message; signed webhooks that the
//! `standardwebhooks` package from PyPI verifies, and a 410 that disables one; a Telegram
//! chat linked with /start, a press on its button, and the message edited.

mod common;

use std::process::Command;
use std::time::Duration;

use common::channels::Doubles;
use common::{Server, advance, call, get_json, medication, post, remind_in};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A server on a known port (its take links name it), with a test clock, allowed to reach
/// the doubles on 127.0.0.1.
fn server(configure: impl FnOnce(&mut Command)) -> (Server, tempfile::TempDir) {
    let temp = tempfile::tempdir().unwrap();
    let server = server_in(&temp.path().join("data"), common::free_port(), configure);
    (server, temp)
}

fn server_in(data_dir: &std::path::Path, port: u16, configure: impl FnOnce(&mut Command)) -> Server {
    let mut command = common::pillbox(data_dir);
    command.args(["serve", "--bind", &format!("127.0.0.1:{port}")]);
    command.env("PILLBOX_CHANNELS_ALLOW_NETWORKS", "127.0.0.1");
    command.env("PILLBOX_CHANNELS_TIMEOUT_SECONDS", "2");
    command.env("PILLBOX_SIGNUPS", "open");
    common::with_test_clock(&mut command);
    configure(&mut command);
    Server::start_command(data_dir, command).expect("server starts")
}

async fn account(server: &Server) -> String {
    common::register(server, "kim@example.com").await
}

async fn add_channel(server: &Server, token: &str, body: Value) -> Value {
    let (status, created) = post(server, "/api/channels", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["data"].clone()
}

/// The one-time code of a new Telegram channel's `https://t.me/<bot>?start=<code>` link.
fn link_code(channel: &Value) -> String {
    channel["link_url"]
        .as_str()
        .unwrap()
        .rsplit('=')
        .next()
        .unwrap()
        .to_owned()
}

/// Adds a Telegram channel once the bot has introduced itself (getMe, shortly after the
/// start: until then the server answers telegram_not_configured).
async fn telegram_channel(server: &Server, token: &str, body: Value) -> Value {
    for _ in 0..50 {
        let (status, answer) = post(server, "/api/channels", Some(token), body.clone()).await;
        if status == StatusCode::CREATED {
            return answer["data"].clone();
        }
        assert_eq!(answer["code"], "telegram_not_configured", "{answer}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the Telegram bot never introduced itself");
}

async fn choose(server: &Server, token: &str, methods: &[&str]) {
    let (status, body) = call(
        server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(token),
        Some(json!({ "default_delivery_methods": methods })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn aspirin(server: &Server, token: &str) -> i64 {
    medication(
        server,
        token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await
}

async fn reminder(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(server, "/api/notifications?limit=100", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no reminder {id}: {body}"))
}

#[tokio::test]
async fn an_ntfy_reminder_is_taken_from_its_button_and_replaced_by_what_happened() {
    let doubles = Doubles::start().await;
    doubles.require_token("tk_kimsphone");
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let channel = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "name": "Kim's phone", "config": {
            "server_url": format!("{}/ntfy", doubles.base), "topic": "kim-pills", "token": "tk_kimsphone" } }),
    )
    .await;
    let method = channel["method"].as_str().unwrap().to_owned();
    assert_eq!(channel["secret_set"], true);
    // The token is never answered.
    let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
    assert!(!listed.to_string().contains("tk_kimsphone"), "{listed}");
    choose(&server, &token, &[&method]).await;

    let med = aspirin(&server, &token).await;
    let id = remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    let arrived = doubles.wait_for("/ntfy/", 1).await;
    let message = arrived[0].json();
    assert_eq!(arrived[0].header("authorization"), Some("Bearer tk_kimsphone"));
    assert_eq!(message["topic"], "kim-pills");
    assert_eq!(message["title"], "Time for Aspirin");
    assert_eq!(message["priority"], 3);
    let labels: Vec<&str> = message["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Taken", "Snooze 10 min", "Skip", "Open Pillbox"]);
    let sequence = message["sequence_id"].as_str().unwrap().to_owned();
    assert!(
        message["click"]
            .as_str()
            .unwrap()
            .contains("/notifications/take/")
    );
    assert_eq!(reminder(&server, &token, id).await["status"], "sent");

    // The history says where it went.
    let rows = common::deliveries(&server, &token).await;
    let row = rows
        .iter()
        .find(|r| r["channel"] == method.as_str())
        .expect("a channel row");
    assert_eq!(row["result_code"], "channel_sent");
    assert_eq!(row["channel_kind"], "ntfy");
    assert_eq!(row["channel_name"], "Kim's phone");

    // Pressing Taken on the phone posts the take link, as the ntfy app does.
    let (status, answer) = doubles.ntfy_press(&message, "Taken").await;
    assert_eq!(status, 201, "{answer}");
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(history["data"][0]["status"], "taken", "{history}");
    assert_eq!(history["data"][0]["medication_name"], "Aspirin");

    // The notification is replaced (same sequence id) by what happened.
    let arrived = doubles.wait_for("/ntfy/", 2).await;
    let last = arrived[1].json();
    assert_eq!(last["sequence_id"], sequence.as_str());
    assert!(
        last["message"].as_str().unwrap().starts_with("✓ Taken at "),
        "{last}"
    );
    // Kim set no name: the message, on a topic anyone may read, does not carry her address.
    assert!(!last.to_string().contains("kim@example.com"), "{last}");
    assert!(
        last["actions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["action"] != "http"),
        "{last}"
    );
    let shown = doubles.ntfy_shown();
    assert_eq!(shown.len(), 1, "one notification stays: {shown:?}");
}

#[tokio::test]
async fn a_channel_test_answers_in_the_channels_own_words() {
    let doubles = Doubles::start().await;
    doubles.require_token("tk_right");
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let channel = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "t1", "token": "tk_wrong" } }),
    )
    .await;
    let id = channel["id"].as_i64().unwrap();
    let (status, answer) = post(
        &server,
        &format!("/api/channels/{id}/test"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert_eq!(answer["code"], "delivery_failed");
    assert_eq!(
        answer["data"]["detail"],
        "ntfy answered 401: the access token was refused"
    );
    // The history shows the failed test.
    let rows = common::deliveries(&server, &token).await;
    assert_eq!(rows[0]["result_code"], "channel_failed", "{rows:?}");
    assert_eq!(rows[0]["kind"], "test");

    let (status, saved) = call(
        &server,
        Method::PUT,
        &format!("/api/channels/{id}"),
        Some(&token),
        Some(json!({ "config": { "token": "tk_right" } })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(
        saved["data"]["config"]["topic"], "t1",
        "a change keeps what it leaves out"
    );
    let (status, answer) = post(
        &server,
        &format!("/api/channels/{id}/test"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["data"]["ok"], true);
    let test = doubles.wait_for("/ntfy/", 1).await[0].json();
    assert_eq!(test["title"], "Pillbox test notification");

    // A server that never answers fails within the timeout.
    doubles.stall_ntfy(Duration::from_secs(30));
    let started = std::time::Instant::now();
    let (status, answer) = post(
        &server,
        &format!("/api/channels/{id}/test"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert!(
        answer["data"]["detail"]
            .as_str()
            .unwrap()
            .contains("no answer within 2 s"),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn bad_channel_input_is_refused_with_the_field_and_saves_nothing() {
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let refused = |body: Value, code: &'static str, field: Option<&'static str>| {
        let (server, token) = (&server, token.clone());
        async move {
            let (status, answer) = post(server, "/api/channels", Some(&token), body.clone()).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body} → {answer}");
            assert_eq!(answer["code"], code, "{answer}");
            if let Some(field) = field {
                assert_eq!(answer["params"]["field"], field, "{answer}");
            }
        }
    };
    refused(json!({ "kind": "sms" }), "channel_invalid", Some("kind")).await;
    refused(
        json!({ "kind": "ntfy", "config": { "server_url": "https://ntfy.sh" } }),
        "channel_invalid",
        Some("topic"),
    )
    .await;
    refused(
        json!({ "kind": "ntfy", "config": { "server_url": "ftp://ntfy.sh", "topic": "a" } }),
        "channel_invalid",
        Some("server_url"),
    )
    .await;
    refused(
        json!({ "kind": "ntfy", "config": { "server_url": "https://ntfy.sh", "topic": "a", "token": "tk_a\nX-Evil: 1" } }),
        "channel_invalid",
        Some("token"),
    )
    .await;
    refused(
        json!({ "kind": "gotify", "config": { "server_url": "https://gotify.example" } }),
        "channel_invalid",
        Some("token"),
    )
    .await;
    refused(
        json!({ "kind": "webhook", "config": { "url": "http://10.1.2.3/hook" } }),
        "channel_address_not_allowed",
        Some("url"),
    )
    .await;
    refused(
        json!({ "kind": "webhook", "config": { "url": "http://169.254.169.254/latest" } }),
        "channel_address_not_allowed",
        Some("url"),
    )
    .await;
    refused(
        json!({ "kind": "webhook", "config": { "url": "https://example.com/h", "events": ["dose.eaten"] } }),
        "channel_invalid",
        Some("events"),
    )
    .await;
    refused(json!({ "kind": "telegram" }), "telegram_not_configured", None).await;
    let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
    assert_eq!(listed["data"], json!([]), "nothing was saved");

    // A channel id that is not one's own cannot be chosen, changed or tested.
    let other = common::register(&server, "sam@example.com").await;
    let theirs = add_channel(
        &server,
        &other,
        json!({ "kind": "webhook", "config": { "url": "https://example.com/h" } }),
    )
    .await;
    let id = theirs["id"].as_i64().unwrap();
    for (method, path) in [
        (Method::PUT, format!("/api/channels/{id}")),
        (Method::DELETE, format!("/api/channels/{id}")),
        (Method::POST, format!("/api/channels/{id}/test")),
    ] {
        let (status, answer) = call(&server, method, &path, Some(&token), Some(json!({}))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
        assert_eq!(answer["code"], "channel_not_found");
    }
    let (status, answer) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(json!({ "default_delivery_methods": [format!("channel:{id}")] })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["code"], "delivery_method_unknown");
}

/// Verifies a webhook delivery with the `standardwebhooks` package from PyPI.
fn verified_by_standardwebhooks(secret: &str, arrived: &common::channels::Arrived) -> Value {
    let headers: serde_json::Map<String, Value> = ["webhook-id", "webhook-timestamp", "webhook-signature"]
        .iter()
        .map(|h| ((*h).to_owned(), json!(arrived.header(h).unwrap_or_default())))
        .collect();
    let script = "import json,sys\nfrom standardwebhooks.webhooks import Webhook\n\
                  d=json.load(sys.stdin)\n\
                  print(json.dumps(Webhook(d['secret']).verify(d['body'].encode(), d['headers'])))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({ "secret": secret, "body": String::from_utf8(arrived.body.clone()).unwrap(), "headers": headers });
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "standardwebhooks refused it: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test]
async fn webhooks_are_signed_as_standard_webhooks_and_a_410_disables_one() {
    let doubles = Doubles::start().await;
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let hook = add_channel(
        &server,
        &token,
        json!({ "kind": "webhook", "name": "n8n", "config": { "url": format!("{}/hook", doubles.base), "events": ["dose.logged"] } }),
    )
    .await;
    let secret = hook["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{hook}");
    let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
    assert!(!listed.to_string().contains(&secret), "the secret is shown once");

    let med = aspirin(&server, &token).await;
    let (status, logged) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert!(status.is_success(), "{logged}");
    let arrived = doubles.wait_for("/hook", 1).await;
    let event = verified_by_standardwebhooks(&secret, &arrived[0]);
    assert_eq!(event["type"], "dose.logged");
    assert_eq!(event["data"]["medication"], "Aspirin");
    assert_eq!(event["data"]["status"], "taken");

    // Gone for good: the channel is disabled and says why.
    doubles.webhook_answers(410);
    let (status, _) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert!(status.is_success());
    doubles.wait_for("/hook", 2).await;
    let id = hook["id"].as_i64().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
        let c = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone();
        if c["state"] == "disabled" {
            assert_eq!(c["state_reason"], "gone");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not disabled: {c}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn gotify_gets_a_markdown_message_that_opens_the_take_page() {
    let doubles = Doubles::start().await;
    doubles.require_token("AppToken.1");
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let channel = add_channel(
        &server,
        &token,
        json!({ "kind": "gotify", "config": { "server_url": format!("{}/gotify", doubles.base), "token": "AppToken.1" } }),
    )
    .await;
    choose(&server, &token, &[channel["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    let arrived = doubles.wait_for("/gotify/message", 1).await;
    assert_eq!(arrived[0].header("x-gotify-key"), Some("AppToken.1"));
    let m = arrived[0].json();
    assert_eq!(m["title"], "Time for Aspirin");
    let click = m["extras"]["client::notification"]["click"]["url"]
        .as_str()
        .unwrap();
    assert!(click.contains("/notifications/take/"), "{m}");
    assert_eq!(m["extras"]["client::display"]["contentType"], "text/markdown");
    assert!(
        m["message"]
            .as_str()
            .unwrap()
            .contains(&format!("[Taken]({click})")),
        "{m}"
    );
}

#[tokio::test]
async fn a_telegram_chat_links_with_start_takes_a_dose_from_its_button_and_sees_it_edited() {
    let doubles = Doubles::start().await;
    let api = format!("{}/tg", doubles.base);
    let (server, _temp) = server(|c| {
        c.env("PILLBOX_TELEGRAM_BOT_TOKEN", "123:test");
        c.env("PILLBOX_TELEGRAM_API_URL", &api);
    });
    let token = account(&server).await;
    let (status, _) = call(
        &server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": "Kim", "lastName": "Berg" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let channel = telegram_channel(&server, &token, json!({ "kind": "telegram", "name": "Kim" })).await;
    assert_eq!(channel["state"], "pending");
    let link = channel["link_url"].as_str().unwrap();
    let code = link
        .strip_prefix("https://t.me/pillbox_test_bot?start=")
        .expect(link);
    doubles.telegram_says(4242, &format!("/start {code}"));
    let replies = doubles.wait_for("/tg/sendMessage", 1).await;
    assert!(
        replies[0].json()["text"].as_str().unwrap().starts_with("Linked"),
        "{:?}",
        replies[0].json()
    );
    let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
    assert_eq!(listed["data"][0]["state"], "active");

    choose(&server, &token, &[channel["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    let sent = doubles.wait_for("/tg/sendMessage", 2).await;
    let reminder = sent[1].json();
    assert_eq!(reminder["chat_id"], 4242);
    assert!(
        reminder["text"].as_str().unwrap().starts_with("Time for Aspirin"),
        "{reminder}"
    );
    let buttons = reminder["reply_markup"]["inline_keyboard"][0]
        .as_array()
        .unwrap()
        .clone();
    let labels: Vec<&str> = buttons.iter().map(|b| b["text"].as_str().unwrap()).collect();
    assert_eq!(labels, ["Taken", "Snooze 10 min", "Skip"]);
    let taken = buttons[0]["callback_data"].as_str().unwrap();
    assert!(taken.len() <= 64);

    // The double numbers messages from 101: the "Linked" reply, then the reminder.
    doubles.telegram_presses(4242, 102, taken);
    let answered = doubles.wait_for("/tg/answerCallbackQuery", 1).await;
    let pressed = answered[0].json();
    assert!(
        pressed["text"].as_str().unwrap().starts_with("✓ Taken at "),
        "{pressed}"
    );
    let edits = doubles.wait_for("/tg/editMessageText", 1).await;
    let edit = edits[0].json();
    assert_eq!(edit["message_id"], 102, "the reminder's own message is edited");
    assert!(edit["text"].as_str().unwrap().contains("✓ Taken at "), "{edit}");
    assert!(edit["text"].as_str().unwrap().ends_with(" by Kim Berg"), "{edit}");
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(history["data"][0]["status"], "taken", "{history}");

    // /stop unlinks the chat.
    doubles.telegram_says(4242, "/stop");
    doubles.wait_for("/tg/sendMessage", 3).await;
    let (_, listed) = get_json(&server, "/api/channels", Some(&token)).await;
    assert_eq!(listed["data"][0]["state"], "disabled");
    assert_eq!(listed["data"][0]["state_reason"], "telegram_stopped");
}

#[tokio::test]
async fn the_telegram_bot_answers_in_the_persons_language_and_else_in_telegrams() {
    let doubles = Doubles::start().await;
    let api = format!("{}/tg", doubles.base);
    let (server, _temp) = server(|c| {
        c.env("PILLBOX_TELEGRAM_BOT_TOKEN", "123:test");
        c.env("PILLBOX_TELEGRAM_API_URL", &api);
    });
    // A chat nobody linked, whose Telegram is in French: the bot cannot know the person.
    doubles.telegram_says_in(31, "/start", "fr");
    let replies = doubles.wait_for("/tg/sendMessage", 1).await;
    assert_eq!(
        replies[0].json()["text"],
        "Ouvrez le lien de Pillbox (Paramètres → Notifications → Canaux) pour recevoir les rappels ici."
    );

    // Lena reads Pillbox in German; her Telegram is in English: the bot speaks German to her.
    let token = account(&server).await;
    common::save_settings(&server, &token, json!({ "language": "de" })).await;
    let channel = telegram_channel(&server, &token, json!({ "kind": "telegram" })).await;
    let code = link_code(&channel);
    doubles.telegram_says_in(32, &format!("/start {code}"), "en");
    let replies = doubles.wait_for("/tg/sendMessage", 2).await;
    assert_eq!(
        replies[1].json()["text"],
        "Verknüpft: Pillbox-Erinnerungen kommen in diesem Chat an. Senden Sie /stop, um sie zu beenden."
    );
    choose(&server, &token, &[channel["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    let sent = doubles.wait_for("/tg/sendMessage", 3).await;
    let reminder = sent[2].json();
    let taken = reminder["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();
    doubles.telegram_presses(32, 103, &taken);
    let answered = doubles.wait_for("/tg/answerCallbackQuery", 1).await;
    let pressed = answered[0].json();
    assert!(
        pressed["text"].as_str().unwrap().starts_with("✓ Genommen um "),
        "{pressed}"
    );
    // The same button again: the dose is logged already, and she is told so in German.
    doubles.telegram_presses(32, 103, &taken);
    let answered = doubles.wait_for("/tg/answerCallbackQuery", 2).await;
    assert_eq!(
        answered[1].json()["text"],
        "Diese Einnahme war schon eingetragen."
    );

    doubles.telegram_says_in(32, "/stop", "en");
    let replies = doubles.wait_for("/tg/sendMessage", 4).await;
    assert!(
        replies[3].json()["text"]
            .as_str()
            .unwrap()
            .starts_with("Getrennt:"),
        "{:?}",
        replies[3].json()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taken_on_ntfy_is_withdrawn_from_push_and_replaced_on_telegram() {
    let doubles = Doubles::start().await;
    let push = common::push::PushService::start().await;
    let api = format!("{}/tg", doubles.base);
    let prefix = push.prefix();
    let (server, _temp) = server(|c| {
        c.env("PILLBOX_TELEGRAM_BOT_TOKEN", "123:test");
        c.env("PILLBOX_TELEGRAM_API_URL", &api);
        c.env("PILLBOX_PUSH_ALLOW_ENDPOINTS", &prefix);
    });
    let token = account(&server).await;
    common::register_device(&server, &token, &push, "phone").await;
    let ntfy = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "kim" } }),
    )
    .await;
    let telegram = telegram_channel(&server, &token, json!({ "kind": "telegram" })).await;
    let code = link_code(&telegram);
    doubles.telegram_says(77, &format!("/start {code}"));
    doubles.wait_for("/tg/sendMessage", 1).await;
    choose(
        &server,
        &token,
        &[
            "push",
            ntfy["method"].as_str().unwrap(),
            telegram["method"].as_str().unwrap(),
        ],
    )
    .await;

    let med = aspirin(&server, &token).await;
    remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    push.wait_for("phone", 1, Duration::from_secs(10)).await;
    let message = doubles.wait_for("/ntfy/", 1).await[0].json();
    let on_telegram = doubles.wait_for("/tg/sendMessage", 2).await[1].json();
    assert!(on_telegram["reply_markup"].is_object(), "{on_telegram}");

    let (status, answer) = doubles.ntfy_press(&message, "Taken").await;
    assert_eq!(status, 201, "{answer}");
    // The phone's notification is withdrawn; Telegram's message says what happened.
    let withdrawn = push.wait_for("phone", 2, Duration::from_secs(10)).await;
    assert_eq!(withdrawn.payload["kind"], "withdraw", "{:?}", withdrawn.payload);
    assert_eq!(withdrawn.payload["outcome"], "taken");
    let edit = doubles.wait_for("/tg/editMessageText", 1).await[0].json();
    assert_eq!(edit["message_id"], 102);
    assert!(edit["text"].as_str().unwrap().contains("✓ Taken at "), "{edit}");
    assert!(edit.get("reply_markup").is_none(), "no buttons left: {edit}");
    let last = doubles.wait_for("/ntfy/", 2).await[1].json();
    assert_eq!(last["sequence_id"], message["sequence_id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_test_prints_each_channels_answer() {
    let doubles = Doubles::start().await;
    doubles.webhook_answers(500);
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "name": "Phone", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "kim" } }),
    )
    .await;
    add_channel(
        &server,
        &token,
        json!({ "kind": "webhook", "name": "Hub", "config": { "url": format!("{}/hook", doubles.base) } }),
    )
    .await;
    add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "name": "Old", "enabled": false, "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "old" } }),
    )
    .await;
    let data = server.data_dir.clone();
    let run = move |channel: &'static str| {
        let mut command = common::pillbox(&data);
        command
            .args(["send-test", "--email", "kim@example.com", "--channel", channel])
            .env("PILLBOX_CHANNELS_ALLOW_NETWORKS", "127.0.0.1")
            .env("PILLBOX_CHANNELS_TIMEOUT_SECONDS", "2");
        command.output().unwrap()
    };
    let all = tokio::task::spawn_blocking({
        let run = run.clone();
        move || run("all")
    })
    .await
    .unwrap();
    let out = String::from_utf8_lossy(&all.stdout);
    assert!(all.status.success(), "one channel took it: {out}");
    assert!(
        out.contains("channel:1 (ntfy \"Phone\"): sent: ntfy took the test message"),
        "{out}"
    );
    assert!(
        out.contains("channel:2 (webhook \"Hub\"): failed: the webhook answered 500"),
        "{out}"
    );
    // A channel that cannot be used says why, in the words a reminder's delivery uses.
    assert!(
        out.lines()
            .any(|line| line.starts_with("channel:3") && line.contains("Old: the channel is switched off")),
        "{out}"
    );
    let unknown = tokio::task::spawn_blocking(move || run("9")).await.unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("has no channel 9"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_no_channel_takes_goes_by_email_instead() {
    let doubles = Doubles::start().await;
    doubles.require_token("tk_right");
    let smtp = common::SmtpSink::start();
    let (server, _temp) = server(|c| smtp.configure(c));
    let token = common::verified_account(&server, "kim@example.com").await;
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(json!({ "email_notifications_enabled": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The token is wrong: ntfy refuses every attempt.
    let ntfy = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "kim", "token": "tk_old" } }),
    )
    .await;
    choose(&server, &token, &[ntfy["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    let id = remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    let mail = smtp.wait_for("kim@example.com", 1);
    assert_eq!(mail.subject, "Time for Aspirin");
    let rows = common::deliveries(&server, &token).await;
    let failed = rows
        .iter()
        .find(|r| r["result_code"] == "channel_failed")
        .expect("the channel's failure");
    assert_eq!(failed["error"], "ntfy answered 401: the access token was refused");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let rows = common::deliveries(&server, &token).await;
        if let Some(mailed) = rows.iter().find(|r| r["channel"] == "email") {
            assert_eq!(mailed["fallback"], true, "{mailed}");
            assert_eq!(mailed["result"], "sent");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no e-mail in the history: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(reminder(&server, &token, id).await["status"], "sent");
}

/// Kim, reminded of Aspirin on her ntfy only, whose server answers the first publish 429
/// with `Retry-After: retry_after`: one refused attempt made.
async fn reminded_on_ntfy_that_asks_to_wait(
    retry_after: u64,
) -> (Doubles, Server, tempfile::TempDir, String, i64, i64) {
    let doubles = Doubles::start().await;
    doubles.ntfy_refuses_next(429, Some(retry_after));
    let (server, temp) = server(|_| {});
    let token = account(&server).await;
    let ntfy = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "kim" } }),
    )
    .await;
    choose(&server, &token, &[ntfy["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    let id = remind_in(&server, &token, med, 60).await;
    advance(&server, 120).await;
    assert_eq!(doubles.ntfy_attempts(), 1);
    (doubles, server, temp, token, med, id)
}

/// A reminder only ntfy could still deliver (it asked to wait) and whose dose is logged
/// meanwhile: the waiting message is not sent, and the reminder ends as one that was not
/// needed instead of staying "scheduled" in the list for good.
#[tokio::test]
async fn a_reminder_waiting_for_its_channel_ends_when_the_dose_is_logged_first() {
    let (doubles, server, _temp, token, med, id) = reminded_on_ntfy_that_asks_to_wait(600).await;
    assert_eq!(reminder(&server, &token, id).await["status"], "scheduled");

    let (status, body) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        Some(&token),
        json!({ "dosage_id": id }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut done = reminder(&server, &token, id).await;
    while done["status"] == "scheduled" {
        assert!(std::time::Instant::now() < deadline, "still scheduled: {done}");
        advance(&server, 1).await;
        done = reminder(&server, &token, id).await;
    }
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(done["failure_reason"], "The dose was already logged");
    // Past ntfy's Retry-After: nothing more goes out.
    advance(&server, 700).await;
    assert_eq!(doubles.ntfy_attempts(), 1);
    assert!(doubles.arrived("/ntfy/").is_empty());
}

#[tokio::test]
async fn too_many_requests_waits_for_retry_after() {
    let (doubles, server, _temp, token, _, id) = reminded_on_ntfy_that_asks_to_wait(120).await;
    let rows = common::deliveries(&server, &token).await;
    assert_eq!(rows[0]["result_code"], "channel_failed", "{rows:?}");
    assert_eq!(rows[0]["result_params"]["retrying"], true);
    assert_eq!(
        reminder(&server, &token, id).await["status"],
        "scheduled",
        "held while ntfy may still take it"
    );
    // Not before the server's Retry-After…
    advance(&server, 60).await;
    assert_eq!(doubles.ntfy_attempts(), 1);
    // …and then it goes out.
    advance(&server, 70).await;
    doubles.wait_for("/ntfy/", 1).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while reminder(&server, &token, id).await["status"] != "sent" {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Olga (owner) and Anna (her carer for Tom, role record, with her own ntfy chosen for her
/// notifications), both in UTC: Olga's token, Tom's id and Anna's user id.
async fn carer_of_tom_on_ntfy(server: &Server, doubles: &Doubles) -> (String, i64, i64) {
    let owner = common::register(server, "olga@example.com").await;
    let carer = common::register(server, "anna@example.com").await;
    for token in [&owner, &carer] {
        common::save_settings(server, token, json!({ "timezone": "UTC", "timeFormat": "24h" })).await;
    }
    let (_, me) = get_json(server, "/api/auth/me", Some(&carer)).await;
    let carer_id = me["data"]["id"].as_i64().unwrap();
    let (status, tom) = post(server, "/api/people", Some(&owner), json!({ "name": "Tom" })).await;
    assert_eq!(status, StatusCode::CREATED, "{tom}");
    let tom = tom["data"]["id"].as_i64().unwrap();
    let (status, invited) = post(
        server,
        &format!("/api/people/{tom}/carers"),
        Some(&owner),
        json!({ "email": "anna@example.com", "role": "record" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{invited}");
    let invite = invited["data"]["invite_url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let (status, accepted) = post(
        server,
        &format!("/api/invitations/{invite}/accept"),
        Some(&carer),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    // Anna's own ntfy, chosen for her notifications.
    let ntfy = add_channel(
        server,
        &carer,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "anna" } }),
    )
    .await;
    choose(server, &carer, &[ntfy["method"].as_str().unwrap()]).await;
    (owner, tom, carer_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_carers_alert_goes_to_the_carers_own_channel_as_urgent_and_the_owners_webhook_hears_of_it() {
    let doubles = Doubles::start().await;
    let (server, _temp) = server(|_| {});
    let (owner, tom, carer_id) = carer_of_tom_on_ntfy(&server, &doubles).await;
    // Olga's webhook listens for alerts.
    add_channel(
        &server,
        &owner,
        json!({ "kind": "webhook", "config": { "url": format!("{}/hook", doubles.base), "events": ["escalation.sent"] } }),
    )
    .await;

    let now = advance(&server, 0).await;
    let time = (now + chrono::Duration::minutes(20)).format("%H:%M").to_string();
    medication(
        &server,
        &owner,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": [time], "grace_minutes": 120 },
                "escalation": { "after_minutes": 30, "carers": [carer_id] } }),
    )
    .await;
    advance(&server, 20 * 60).await;
    advance(&server, 31 * 60).await;
    let alert = doubles.wait_for("/ntfy/", 1).await[0].json();
    assert_eq!(alert["topic"], "anna");
    assert_eq!(alert["title"], "Tom has not taken Amoxicillin");
    assert_eq!(alert["priority"], 5, "a carer's alert is urgent");
    let labels: Vec<&str> = alert["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["Taken", "Skip", "Open Pillbox"],
        "no snooze of someone else's reminder"
    );
    let hook = doubles.wait_for("/hook", 1).await[0].json();
    assert_eq!(hook["type"], "escalation.sent");
    assert_eq!(hook["data"]["person"], "Tom");

    // Anna gives it from her phone: recorded as given by her, and her alert says so.
    let (status, answer) = doubles.ntfy_press(&alert, "Taken").await;
    assert_eq!(status, 201, "{answer}");
    let (_, history) = get_json(
        &server,
        &format!("/api/medications/history?person_id={tom}"),
        Some(&owner),
    )
    .await;
    assert_eq!(history["data"][0]["status"], "taken", "{history}");
    let last = doubles.wait_for("/ntfy/", 2).await[1].json();
    assert_eq!(last["sequence_id"], alert["sequence_id"]);
    assert!(
        last["message"].as_str().unwrap().starts_with("✓ Taken at "),
        "{last}"
    );
}

/// Anna alerted on her ntfy while the server's clock ran ahead: when NTP sets it back, the
/// dose is not late after all, and her alert is replaced by one that says it no longer holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_carers_channel_alert_sent_while_the_clock_was_ahead_is_replaced_when_it_goes_back() {
    let doubles = Doubles::start().await;
    let (server, _temp) = server(|c| common::with_clock_start(c, "2026-03-02T06:00:00Z"));
    let (owner, tom, carer_id) = carer_of_tom_on_ntfy(&server, &doubles).await;
    add_channel(
        &server,
        &owner,
        json!({ "kind": "webhook", "config": { "url": format!("{}/hook", doubles.base), "events": ["escalation.sent"] } }),
    )
    .await;
    medication(
        &server,
        &owner,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": ["08:00"], "grace_minutes": 30 },
                "escalation": { "after_minutes": 45, "carers": [carer_id] } }),
    )
    .await;
    // At 06:00 the clock is set to 09:00: the dose looks missed and Anna is alerted.
    common::jump_clock(&server, 3 * 3600).await;
    let alert = doubles.wait_for("/ntfy/", 1).await[0].json();
    assert_eq!(alert["title"], "Tom has not taken Amoxicillin");
    // Set back to 06:30: the same message now says why it no longer holds.
    common::jump_clock(&server, -(2 * 3600 + 1800)).await;
    let last = doubles.wait_for("/ntfy/", 2).await[1].json();
    assert_eq!(last["sequence_id"], alert["sequence_id"]);
    assert_eq!(
        last["message"], "Alert withdrawn: the server's clock was corrected and this dose is not overdue yet",
        "{last}"
    );
    // Olga's webhook, told of the alert, hears it was withdrawn.
    let hooks: Vec<Value> = doubles
        .wait_for("/hook", 2)
        .await
        .iter()
        .map(|m| m.json())
        .collect();
    assert_eq!(hooks[0]["type"], "escalation.sent");
    assert_eq!(hooks[1]["type"], "escalation.withdrawn", "{hooks:#?}");
    assert_eq!(hooks[1]["data"]["reason"], "clock_corrected");
    assert_eq!(
        hooks[1]["data"]["escalation_id"],
        hooks[0]["data"]["escalation_id"]
    );
    assert_eq!(
        hooks[1]["data"]["title"],
        "Tom: the alert about a dose was withdrawn"
    );

    // The dose is then missed for real (08:30) and Anna is alerted again at 08:45, as a new
    // message. When she gives it, that message is the one that says so, not the withdrawn one
    // (whose Take button would stay on her phone).
    advance(&server, 2 * 3600 + 16 * 60).await;
    // Her withdrawn alert now says the dose was missed, and the new alert comes apart from it.
    let messages: Vec<Value> = doubles
        .wait_for("/ntfy/", 4)
        .await
        .iter()
        .map(|m| m.json())
        .collect();
    let missed = messages.iter().find(|m| {
        m["sequence_id"] == alert["sequence_id"] && m["message"].as_str().unwrap().starts_with("Missed")
    });
    assert!(missed.is_some(), "{messages:#?}");
    let again = messages
        .iter()
        .skip(2)
        .find(|m| m["sequence_id"] != alert["sequence_id"])
        .expect("a second alert");
    assert_eq!(again["title"], "Tom has not taken Amoxicillin");
    let (status, answer) = doubles.ntfy_press(again, "Taken").await;
    assert_eq!(status, 201, "{answer}");
    let handled = doubles.wait_for("/ntfy/", 5).await[4].json();
    assert_eq!(handled["sequence_id"], again["sequence_id"], "{handled}");
    assert!(
        handled["message"].as_str().unwrap().starts_with("✓ Taken at "),
        "{handled}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_send_sends_again_under_the_same_sequence_id() {
    let doubles = Doubles::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let port = common::free_port();
    let server = server_in(&data, port, |_| {});
    let token = account(&server).await;
    let ntfy = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "config": { "server_url": format!("{}/ntfy", doubles.base), "topic": "kim" } }),
    )
    .await;
    choose(&server, &token, &[ntfy["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    let id = remind_in(&server, &token, med, 60).await;
    // ntfy takes its time: the kill lands while the publish is in flight.
    doubles.stall_ntfy(Duration::from_secs(3));
    let clock = server.url("/api/test/clock");
    let _pass = tokio::spawn(async move {
        let _ = common::client()
            .post(clock)
            .json(&json!({ "advance_seconds": 120 }))
            .send()
            .await;
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while doubles.ntfy_hits() == 0 {
        assert!(std::time::Instant::now() < deadline, "no publish started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Command::new("kill")
        .args(["-KILL", &server.pid().to_string()])
        .status()
        .unwrap();
    drop(server);
    doubles.stall_ntfy(Duration::ZERO);

    let server = server_in(&data, port, |_| {});
    // The new run's clock catches up with the test's (it starts from the real time again).
    advance(&server, 120).await;
    // The publish cut off is sent again, under the same sequence id: had the first one
    // reached ntfy after all, the phone would show it once.
    let arrived = doubles.wait_for("/ntfy/", 1).await;
    assert_eq!(doubles.ntfy_hits(), 2, "the cut-off publish and its resend");
    assert_eq!(arrived.len(), 1);
    assert_eq!(
        arrived[0].json()["sequence_id"],
        format!("pillbox{}r{id}", ntfy["id"])
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while reminder(&server, &token, id).await["status"] != "sent" {
        assert!(std::time::Instant::now() < deadline, "{}", server.log());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_medication_reached_only_by_channels_that_cannot_carry_it_says_so() {
    let (server, _temp) = server(|_| {});
    let token = account(&server).await;
    let ntfy = add_channel(
        &server,
        &token,
        json!({ "kind": "ntfy", "enabled": false, "config": { "server_url": "https://ntfy.example", "topic": "kim" } }),
    )
    .await;
    choose(&server, &token, &[ntfy["method"].as_str().unwrap()]).await;
    let med = aspirin(&server, &token).await;
    assert_eq!(warning(&server, &token, med).await, "channel_unavailable");
    let id = ntfy["id"].as_i64().unwrap();
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/channels/{id}"),
        Some(&token),
        Some(json!({ "enabled": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        warning(&server, &token, med).await,
        Value::Null,
        "an active ntfy channel reaches the person"
    );
}

async fn warning(server: &Server, token: &str, med: i64) -> Value {
    let (_, body) = get_json(server, &format!("/api/medications/{med}"), Some(token)).await;
    body["data"]["delivery_warning"].clone()
}
