//! `toll board` (serve a results board, manage its write tokens) and
//! `toll push RUN --to URL` (send a stored run to one).

use super::db;
use crate::args::{BoardArgs, BoardCommand, PushArgs, TokenCommand};
use crate::usage::usage;
use std::path::Path;
use std::process::ExitCode;
use toll_report::export::{exporter, Format};

/// `toll board [token …]`.
pub fn run(args: BoardArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(BoardCommand::Token(t)) => token(t, db),
        None => serve(args, db),
    }
}

fn serve(args: BoardArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    if args.listen.parse::<std::net::SocketAddr>().is_err() {
        return Err(usage(format!(
            "--listen `{}` is not an address to listen on: give HOST:PORT, e.g. 127.0.0.1:8080",
            args.listen
        )));
    }
    let store = db::open(db)?;
    let db_name = toll_store::display_name(store.path());
    toll_board::serve(
        store,
        toll_board::Options {
            listen: args.listen,
            max_body: args.max_body,
            writes_per_minute: args.writes_per_minute.max(1),
            db_name,
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

fn token(cmd: TokenCommand, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open(db)?;
    match cmd {
        TokenCommand::Add { name } => {
            if name.trim().is_empty() || name.chars().any(char::is_control) {
                return Err(usage(
                    "a token's name must be visible text, e.g. `toll board token add ci-runner-1`",
                ));
            }
            let token = toll_board::new_token()
                .map_err(|e| anyhow::anyhow!("reading /dev/urandom for a token: {e}"))?;
            if !store.add_token(&name, &toll_board::sha256_hex(&token))? {
                return Err(usage(format!(
                    "a token named `{name}` exists already: remove it first (`toll board token rm {name}`) or pick another name"
                )));
            }
            crate::say!("{token}");
            crate::tell!(
                "toll board: token `{name}` made; it is shown only now (the board keeps its hash): push with TOLL_TOKEN=… toll push RUN --to URL"
            );
        }
        TokenCommand::Rm { name } => {
            if !store.remove_token(&name)? {
                return Err(anyhow::anyhow!(
                    "no token named `{name}`: `toll board token list` shows them"
                ));
            }
            crate::tell!(
                "toll board: token `{name}` removed; pushes with it are refused from now on"
            );
        }
        TokenCommand::List => {
            for (name, created) in store.tokens()? {
                crate::say!("{name}\t{created}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `toll push RUN --to URL`.
pub fn push(args: PushArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    db::check_run_ref(Some(&args.run))?;
    let token = args.token.unwrap_or_default();
    let store = db::open_for_reading(db)?;
    let id = db::run_id(&store, Some(&args.run))?;
    let run = store.load_run(id)?;
    let mut body = Vec::new();
    exporter(Format::Json).export(&run, &mut body)?;
    let pushed = toll_board::push(body, &args.to, &token)?;
    crate::say!("{}", pushed.url);
    if pushed.existing {
        crate::tell!(
            "toll push: run {id} was on the board already, as run {}: not stored again",
            pushed.id
        );
    } else {
        crate::tell!("toll push: run {id} is run {} on the board", pushed.id);
    }
    Ok(ExitCode::SUCCESS)
}
