//! A real OpenID provider for the tests: `oidc-provider` (OpenID Certified) from npm, started
//! from tests/oidc/provider.mjs (`npm ci --prefix tests/oidc` installs it; tests/run-all.sh
//! does). Its development login form takes any login name, which names the account.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};

pub struct Provider {
    pub issuer: String,
    port: u16,
    redirect: String,
    child: Child,
    /// How it misbehaves, if it does: the environment variable of provider.mjs that says so,
    /// and its value.
    misbehaviour: Option<(&'static str, String)>,
}

impl Provider {
    /// Starts the provider, which knows the client `pillbox` (secret `pillbox-test-secret`)
    /// returning to `redirect`, and `another-app` (secret `another-app-secret`, returning to
    /// the same address). It signs with a key of its own, `key-1`.
    pub fn start(redirect: &str) -> Provider {
        Provider::start_with(redirect, None)
    }

    /// A provider whose token endpoint answers ID tokens for `audience` instead of the
    /// client that asks, signed with its own key (tests/oidc/provider.mjs).
    pub fn start_with_audience(redirect: &str, audience: &str) -> Provider {
        Provider::start_with(redirect, Some(("OIDC_ID_TOKEN_AUDIENCE", audience.to_owned())))
    }

    /// A provider whose token endpoint answers ID tokens spoilt `how`: `expired` (its `exp`
    /// past), `unsigned` (`alg: none`, no signature) or `issuer` (another issuer's `iss`),
    /// each otherwise as the provider made it (tests/oidc/provider.mjs).
    pub fn start_tampered(redirect: &str, how: &str) -> Provider {
        Provider::start_with(redirect, Some(("OIDC_ID_TOKEN_TAMPER", how.to_owned())))
    }

    fn start_with(redirect: &str, misbehaviour: Option<(&'static str, String)>) -> Provider {
        let port = super::free_port();
        Provider {
            issuer: format!("http://127.0.0.1:{port}"),
            port,
            redirect: redirect.to_owned(),
            child: spawn(port, redirect, "key-1", misbehaviour.as_ref()),
            misbehaviour,
        }
    }

    /// Stops the provider and starts it again at the same address with a new signing key
    /// named `kid`: its published keys (JWKS) no longer hold the old one.
    pub fn rotate_key(&mut self, kid: &str) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn(self.port, &self.redirect, kid, self.misbehaviour.as_ref());
    }
}

fn spawn(port: u16, redirect: &str, kid: &str, misbehaviour: Option<&(&'static str, String)>) -> Child {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oidc");
    assert!(
        dir.join("node_modules/oidc-provider").is_dir(),
        "oidc-provider is not installed: run `npm ci --prefix tests/oidc` (tests/run-all.sh does)"
    );
    let mut command = Command::new("node");
    if let Some((name, value)) = misbehaviour {
        command.env(name, value);
    }
    let child = command
        .arg(dir.join("provider.mjs"))
        .args([&port.to_string(), redirect, kid])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "oidc-provider did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A browser's part of a sign-in, without a browser: follows redirects by hand, keeps the
/// provider's cookies, and fills the provider's login (with `login`) and consent forms.
pub struct Browser {
    http: reqwest::Client,
    cookies: Vec<String>,
}

impl Default for Browser {
    fn default() -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: Vec::new(),
        }
    }
}

impl Browser {
    fn keep_cookies(&mut self, answer: &reqwest::Response) {
        for value in answer.headers().get_all(SET_COOKIE) {
            let pair = value.to_str().unwrap().split(';').next().unwrap().to_owned();
            let name = pair.split('=').next().unwrap().to_owned();
            self.cookies.retain(|c| !c.starts_with(&format!("{name}=")));
            self.cookies.push(pair);
        }
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> reqwest::Response {
        let request = if self.cookies.is_empty() {
            request
        } else {
            request.header(COOKIE, self.cookies.join("; "))
        };
        let answer = request.send().await.unwrap();
        self.keep_cookies(&answer);
        answer
    }

    /// Opens `url` and goes where it leads, signing in at the provider as `login`, until an
    /// address outside the provider (`issuer`): that address (the app's), or the last page's
    /// status and text when the way ends elsewhere.
    pub async fn sign_in(
        &mut self,
        url: &str,
        issuer: &str,
        login: &str,
    ) -> Result<String, (StatusCode, String)> {
        let mut next = url.to_owned();
        let mut request = self.http.get(&next);
        for _ in 0..20 {
            let answer = self.send(request).await;
            let status = answer.status();
            if status.is_redirection() {
                let location = answer.headers()[LOCATION].to_str().unwrap().to_owned();
                next = reqwest::Url::parse(&next)
                    .unwrap()
                    .join(&location)
                    .unwrap()
                    .to_string();
                if !next.starts_with(issuer) && !next.contains("/api/auth/oidc/") {
                    return Ok(next);
                }
                request = self.http.get(&next);
                continue;
            }
            let page = answer.text().await.unwrap();
            if status != StatusCode::OK {
                return Err((status, page));
            }
            // The development interactions: a login form, then a consent form.
            let action = page
                .split("action=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .ok_or_else(|| (status, page.clone()))?
                .to_owned();
            let target = reqwest::Url::parse(&next)
                .unwrap()
                .join(&action)
                .unwrap()
                .to_string();
            // Its hidden `prompt` says which: login (with any login and password) or consent.
            let prompt = if page.contains("name=\"prompt\" value=\"login\"") {
                "login"
            } else {
                "consent"
            };
            let form: Vec<(&str, &str)> = if prompt == "login" {
                vec![("prompt", "login"), ("login", login), ("password", "anything")]
            } else {
                vec![("prompt", "consent")]
            };
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(form)
                .finish();
            request = self
                .http
                .post(&target)
                .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(body);
            next = target;
        }
        panic!("too many steps signing in at the provider")
    }
}
