//! Each person's own profile and a forgotten password, in a real browser (issue 42): the owner
//! opens their profile from their name, gives their operator code (what their sales and
//! cancellations carry) and is refused a password change with a wrong current one beside the
//! field; then, having forgotten the password, sets a new one with the code `arka users
//! reset-password` prints on the box, and is signed in with it. In Albanian, axe-clean.

use crate::common::browser::Browser;
use crate::common::people::{OWNER_EMAIL, OWNER_PASSWORD, owner_from_the_box};
use crate::common::{TestServer, arka_ok, printed_value};
use crate::owner_browser::keys;
use fantoccini::key::Key;

#[test]
fn the_owner_edits_their_profile_and_sets_a_forgotten_password_with_the_boxs_code() {
    let server = TestServer::start();
    owner_from_the_box(&server);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&server.base_url()).await.unwrap();
        page.type_into("#signin-email", OWNER_EMAIL).await;
        page.type_into("#signin-password", &format!("{OWNER_PASSWORD}{}", keys(Key::Enter))).await;
        page.text_when("#who", |t| t == "Ana Hoxha · Pronar").await;

        // The owner's name opens their profile: the operator code the wizard did not ask for.
        page.click("#who").await;
        page.find("#profile-form").await;
        assert_eq!(page.find("#profile-email").await.text().await.unwrap(), OWNER_EMAIL);
        page.axe("profile").await;
        page.type_into("#profile-operator", &format!("ab12{}", keys(Key::Enter))).await;
        let said = page.text_when("#profile-operator-error", |t| !t.is_empty()).await;
        assert_eq!(said, "Kodi i operatorit duhet të duket si ab123cd456.");
        page.type_into("#profile-operator", &format!("op777op777{}", keys(Key::Enter))).await;
        page.text_when("#status", |t| t == "Profili u ruajt.").await;
        let me = page.api_data("/api/v1/users/me").await;
        assert_eq!(me["user"]["operatorCode"], "op777op777", "the API has it");

        // A password change needs the current one: a wrong one is said beside it.
        page.type_into("#profile-current", "not-the-password").await;
        page.type_into("#profile-new", &format!("Kafe-e-re-2025{}", keys(Key::Enter))).await;
        let said = page.text_when("#profile-current-error", |t| !t.is_empty()).await;
        assert_eq!(said, "Fjalëkalimi i tanishëm është i gabuar.");
        page.axe("profile refused").await;

        // Forgotten: the box prints a code, and the page sets a new password with it.
        page.click("#signout").await;
        page.click("#signin-forgot").await;
        page.find("#reset-form").await;
        page.axe("reset password").await;
        let data = server.data_dir();
        let printed =
            arka_ok(&["users", "reset-password", OWNER_EMAIL, "--data-dir", data.to_str().unwrap()]);
        let code = printed_value(&printed, &format!("one-time code for {OWNER_EMAIL}:"));
        let code = code.split_whitespace().next().unwrap().to_string();
        page.type_into("#reset-email", OWNER_EMAIL).await;
        page.type_into("#reset-code", &code).await;
        page.type_into("#reset-password", &format!("password12{}", keys(Key::Enter))).await;
        let said = page.text_when("#reset-password-error", |t| !t.is_empty()).await;
        assert!(said.starts_with("Ky fjalëkalim është nga më të zakonshmit"), "{said}");
        page.type_into("#reset-password", &format!("Kafe-e-re-2025{}", keys(Key::Enter))).await;
        page.text_when("#who", |t| t == "Ana Hoxha · Pronar").await;
        page.stop().await;
    });
}
