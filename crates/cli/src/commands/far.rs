//! `--remote`, `--remote-cmd`, `--remote-addr` and `--link`, shared by the
//! families whose far end can run elsewhere (transfer, rpc).

use crate::usage::usage;
use toll_families::far::Far;
use toll_families::link::LinkSpec;

/// `--remote`, `--remote-cmd`, `--remote-addr` and `--link`: where the far
/// end runs (transfer's peer, rpc's servers); None: here.
pub fn parse(
    remote: Option<&str>,
    remote_cmd: Option<&str>,
    remote_addr: Option<&str>,
    link: Option<&str>,
) -> anyhow::Result<Option<Far>> {
    let addr = remote_addr
        .map(|a| {
            a.trim().parse::<std::net::IpAddr>().map_err(|_| {
                usage(format!(
                    "--remote-addr `{a}` is not an IP address: give this machine's address as the far host reaches it, e.g. 10.0.0.5"
                ))
            })
        })
        .transpose()?;
    if let Some(host) = remote {
        if host.trim().is_empty() || host.starts_with('-') || host.contains(char::is_whitespace) {
            return Err(usage(format!(
                "--remote `{host}` is not a host name: give one ssh can reach, or use --remote-cmd for any other launcher"
            )));
        }
        if !on_path("ssh") {
            anyhow::bail!("--remote runs ssh, which was not found: install it (apt-get install openssh-client), or start the agent another way with --remote-cmd");
        }
        let launcher = toll_peers::agent::ssh_launcher(host);
        return Ok(Some(Far::Agent { launcher, addr }));
    }
    if let Some(cmd) = remote_cmd {
        if cmd.trim().is_empty() {
            return Err(usage(
                "--remote-cmd is empty: give a command that runs `toll agent` on the far host",
            ));
        }
        return Ok(Some(Far::Agent {
            launcher: cmd.to_string(),
            addr,
        }));
    }
    if addr.is_some() {
        return Err(usage(
            "--remote-addr applies to --remote or --remote-cmd: add one",
        ));
    }
    match link.map(str::parse::<LinkSpec>).transpose() {
        Err(e) => Err(usage(e)),
        Ok(None | Some(LinkSpec::Loopback)) => Ok(None),
        Ok(Some(spec)) => Ok(Some(Far::Link(spec))),
    }
}

/// Whether `program` is an executable on PATH.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| {
            std::fs::metadata(d.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}
