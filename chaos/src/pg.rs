//! A PostgreSQL cluster of the HQ section's own (Debian's server binaries, `initdb` in a
//! temporary folder, on a free loopback port), so it can be restarted under load without
//! touching anyone else's: the binaries `.ci/postgres` found (`ARKA_TEST_PG_CTL`), run as the
//! user it runs them as when root (`ARKA_TEST_PG_USER`). Stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Error;

pub struct Cluster {
    /// `postgres://arka@127.0.0.1:PORT/postgres`: the HQ's database is the cluster's own.
    pub url: String,
    pg_ctl: PathBuf,
    user: Option<String>,
    data: PathBuf,
    options: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

fn free_port() -> Result<u16, Error> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Cluster {
    pub fn start() -> Result<Cluster, Error> {
        let pg_ctl: PathBuf = std::env::var("ARKA_TEST_PG_CTL")
            .map_err(|_| {
                Error::Setup(
                    "the HQ section needs PostgreSQL: set -euo pipefail; source .ci/postgres (ARKA_TEST_PG_CTL)"
                        .to_string(),
                )
            })?
            .into();
        let user = std::env::var("ARKA_TEST_PG_USER").ok().filter(|u| !u.is_empty());
        let dir = tempfile::Builder::new().prefix("arka-chaos-pg-").tempdir()?;
        if let Some(user) = &user {
            Command::new("chown").arg(user).arg(dir.path()).status()?;
        }
        let port = free_port()?;
        let data = dir.path().join("data");
        let cluster = Cluster {
            url: format!("postgres://arka@127.0.0.1:{port}/postgres"),
            options: format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
                dir.path().display()
            ),
            log: dir.path().join("log"),
            pg_ctl,
            user,
            data,
            _dir: dir,
        };
        let initdb = cluster.pg_ctl.with_file_name("initdb");
        let data = cluster.data.to_string_lossy().to_string();
        cluster.run(&initdb, &["-D", &data, "-U", "arka", "--auth=trust", "-E", "UTF8"])?;
        cluster.pg_ctl_do("start")?;
        Ok(cluster)
    }

    fn run(&self, program: &Path, args: &[&str]) -> Result<(), Error> {
        let mut command = match &self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        };
        let out = command.args(args).output()?;
        if !out.status.success() {
            return Err(Error::Setup(format!(
                "{}: {}",
                program.display(),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(())
    }

    fn pg_ctl_do(&self, action: &str) -> Result<(), Error> {
        let (data, log) = (self.data.to_string_lossy().to_string(), self.log.to_string_lossy().to_string());
        let mut args = vec!["-D", data.as_str(), "-l", log.as_str(), "-w", "-m", "fast"];
        if action != "stop" {
            args.extend(["-o", self.options.as_str()]);
        }
        args.push(action);
        self.run(&self.pg_ctl, &args)
    }

    /// `pg_ctl restart -m fast`: every connection cut, the server back.
    pub fn restart(&self) -> Result<(), Error> {
        self.pg_ctl_do("restart")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data.to_string_lossy().to_string();
        let mut command = match &self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&self.pg_ctl);
                c
            }
            None => Command::new(&self.pg_ctl),
        };
        let _ = command.args(["-D", &data, "-m", "immediate", "-w", "stop"]).output();
    }
}
