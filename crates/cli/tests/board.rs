//! `toll board` and `toll push` as a team uses them: a board over a store
//! holding real runs of every family, its pages read over HTTP and rendered
//! in headless Chromium, runs pushed with a token; and every refusal — no
//! token, a wrong one, a body over the limit, JSON that is not a toll run —
//! as a status and one line, with nothing written. The same on SQLite and
//! on the real PostgreSQL the store's tests start.

/// Atlases pushed and laid side by side (issue 50).
#[path = "board/atlas.rs"]
mod atlas;
/// What bounds the board (issue 34): timeouts, a share of connections per
/// address, a run pushed again, a push's reply.
#[path = "board/bounds.rs"]
mod bounds;
mod common;
/// The board's memory stays flat (issue 47): a run of a million samples
/// pushed and read by several clients at once; exports bounded.
#[path = "board/flat.rs"]
mod flat;
#[path = "../../store/tests/pg/mod.rs"]
mod pg;
/// What the board refuses, and how (issue 47): a push over the limit
/// before its body is read, every 400 one line; a bearer token in any
/// case; a pushed run's summaries made from its samples.
#[path = "board/refusals.rs"]
mod refusals;
/// A pushed sweep's page: its knee, its steps and its picture (issue 51).
#[path = "board/sweep.rs"]
mod sweep;
/// The trend draws runs measured alike and names what differs (issue 48).
#[path = "board/trend.rs"]
mod trend;

use common::{assert_one_line_error, stderr, stdout, Scratch, QUICK};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn toll(db: &str, args: &[&str]) -> Output {
    toll_env(db, args, &[])
}

fn toll_env(db: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toll"));
    c.arg("--db").arg(db).args(args);
    c.env(
        "TOLL_CACHE_DIR",
        std::env::temp_dir().join("toll-e2e-cache"),
    )
    .env_remove("TOLL_DB")
    .env_remove("TOLL_TOKEN");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run toll")
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}", stderr(o));
    stdout(o)
}

/// A running `toll board`, stopped when dropped.
struct Board {
    child: Child,
    /// `http://127.0.0.1:PORT` (no trailing slash).
    url: String,
    addr: String,
}

impl Board {
    fn start(db: &str, extra: &[&str]) -> Board {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(db)
            .args(["board", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start toll board");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_end_matches('/').to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "board said: {line}");
        let addr = url.trim_start_matches("http://").to_string();
        Board { child, url, addr }
    }

    /// One request; (status, body).
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, String) {
        let (status, _, mut answer) = self.send(method, path, headers, body);
        let mut raw = Vec::new();
        let _ = answer.read_to_end(&mut raw);
        (status, String::from_utf8_lossy(&raw).into_owned())
    }

    /// One request; its status, its head (lower case), and its body to
    /// read (the chunked transfer coding taken off).
    fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, String, Box<dyn Read + Send>) {
        send_to(&self.addr, method, path, headers, body)
    }

    fn get(&self, path: &str) -> (u16, String) {
        self.request("GET", path, &[], b"")
    }
}

/// One request to the board at `addr` ([`Board::send`]).
fn send_to(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Box<dyn Read + Send>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    // A server may answer (413) before it has read the whole body.
    let _ = s.write_all(body);
    answer(s)
}

/// The answer on `s`: its status, its head (lower case), and its body to
/// read (the chunked transfer coding taken off).
fn answer(s: TcpStream) -> (u16, String, Box<dyn Read + Send>) {
    let mut r = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let _ = r.read_line(&mut line);
        if line.trim().is_empty() {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head}"));
    let body: Box<dyn Read + Send> = if head.contains("transfer-encoding: chunked") {
        Box::new(Chunked {
            inner: r,
            left: 0,
            done: false,
        })
    } else {
        Box::new(r)
    };
    (status, head, body)
}

/// A body in the chunked transfer coding, read as its bytes; one that
/// ends before its last chunk is an error, not a short body.
struct Chunked<R> {
    inner: R,
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let broken = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut line = String::new();
            self.inner.read_line(&mut line)?;
            let size = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| broken(format!("the answer broke off: {line:?} is no chunk size")))?;
            if size == 0 {
                self.done = true;
                while {
                    line.clear();
                    self.inner.read_line(&mut line)? > 0 && !line.trim().is_empty()
                } {}
                return Ok(0);
            }
            self.left = size;
        }
        let want = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(broken("the answer broke off mid-chunk".into()));
        }
        self.left -= n;
        if self.left == 0 {
            let mut crlf = [0u8; 2];
            self.inner.read_exact(&mut crlf)?;
        }
        Ok(n)
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Real runs of every family, small: transfer (three times: a trend, a
/// pair to compare, and a newest run over the pipe only, which must not
/// hide the unix socket's figures), spawn, ring, exec, file; the http run
/// is made against the board itself.
fn fill(db: &str, s: &Scratch) {
    for via in ["pipe,unix", "pipe,unix", "pipe"] {
        let mut a = vec![
            "transfer",
            "--peer",
            "rust",
            "--via",
            via,
            "--sizes",
            "0,1000,4000",
        ];
        a.extend_from_slice(QUICK);
        ok(&toll(db, &a), "transfer");
    }
    ok(
        &toll(
            db,
            &[
                "spawn",
                "--runtime",
                "rust",
                "-n",
                "10,200",
                "--trials",
                "2",
            ],
        ),
        "spawn",
    );
    ok(
        &toll(
            db,
            &[
                "ring",
                "--runtime",
                "rust",
                "-n",
                "3,20",
                "-m",
                "15",
                "--trials",
                "2",
            ],
        ),
        "ring",
    );
    ok(
        &toll(db, &["exec", "-N", "--runs", "5", "--warmup", "1", "true"]),
        "exec",
    );
    let file = s.0.join("data.bin");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    ok(
        &toll(
            db,
            &[
                "file",
                "--file",
                file.to_str().unwrap(),
                "--runtime",
                "rust",
                "--method",
                "pread",
                "--pattern",
                "random",
                "--cache",
                "warm",
                "--trials",
                "1",
                "--reads",
                "100",
            ],
        ),
        "file",
    );
}

/// A quick real run (`toll exec` of `true`, three times) as `toll export`
/// writes it, measured into a store of its own in `s`.
fn exec_export(s: &Scratch) -> Value {
    let db = s.0.join("here.db");
    let db = db.to_str().unwrap();
    ok(
        &toll(db, &["exec", "-N", "--runs", "3", "--warmup", "0", "true"]),
        "exec",
    );
    serde_json::from_str(&ok(&toll(db, &["export", "last"]), "export")).unwrap()
}

/// The new token's text.
fn token(db: &str, name: &str) -> String {
    let t = ok(&toll(db, &["board", "token", "add", name]), "token add");
    let t = t.trim().to_string();
    assert!(t.starts_with("toll_"), "{t}");
    t
}

fn runs(b: &Board) -> Vec<Value> {
    let (status, body) = b.get("/api/runs");
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// Every page of a board over real runs of every family, then the write
/// rules, on `db` (a SQLite file or a PostgreSQL URL).
fn board_end_to_end(db: &str, s: &Scratch) {
    fill(db, s);
    // More exec runs than transfer runs: the chooser still starts at transfer.
    for _ in 0..3 {
        ok(
            &toll(db, &["exec", "-N", "--runs", "3", "--warmup", "0", "true"]),
            "exec",
        );
    }
    let board = Board::start(db, &["--max-body", "64Ki"]);
    ok(
        &toll(
            db,
            &[
                "http",
                "-n",
                "200",
                "-c",
                "2",
                &format!("{}/runs", board.url),
            ],
        ),
        "http against the board",
    );
    // The board reads the list of runs again after a second (its own
    // writes show at once; another process's within that).
    std::thread::sleep(Duration::from_millis(1100));
    let all = runs(&board);
    let families: Vec<&str> = all.iter().map(|r| r["family"].as_str().unwrap()).collect();
    for f in ["transfer", "spawn", "ring", "exec", "file", "http"] {
        assert!(families.contains(&f), "{f} missing from {families:?}");
    }

    // Pages: every run's page has its models table and, where it fits a
    // line, a plot.
    for r in &all {
        let id = r["id"].as_i64().unwrap();
        let (status, page) = board.get(&format!("/runs/{id}"));
        assert_eq!(status, 200, "run {id}");
        assert!(page.contains("<table"), "run {id} has no table");
        if ["transfer", "spawn", "ring"].contains(&r["family"].as_str().unwrap()) {
            assert!(page.contains("<svg"), "run {id} has no plot");
        }
    }
    let (status, machines) = board.get("/machines?family=transfer");
    assert_eq!(status, 200);
    assert!(
        machines.contains("rust/pipe") && machines.contains("α "),
        "{machines}"
    );
    // One machine, said in the singular.
    assert!(machines.contains(">1 machine ·"), "{machines}");
    let (_, listed) = board.get("/runs");
    // Times read as a person writes them, kept on one line.
    assert!(listed.contains("<td class=\"when\">20"), "{listed}");
    assert!(!listed.contains("Z</td>"), "{listed}");
    let (_, sorted) = board.get("/machines?family=transfer&sort=rust%2Fpipe&desc=1");
    assert!(sorted.contains("class=\"sorted\""));
    // Newest first: the newest transfer run measured the pipe only.
    let transfers: Vec<i64> = all
        .iter()
        .filter(|r| r["family"] == "transfer")
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(transfers.len(), 3);
    // The unix socket's figures stay, from the newest run that has them.
    let unix = row_of(&machines, ">rust/unix<");
    assert!(
        unix.contains("α ") && unix.contains(&format!("href=\"/runs/{}\"", transfers[1])),
        "rust/unix from run {}: {unix}",
        transfers[1]
    );
    assert!(
        unix.contains("/trend?family=transfer&amp;series=rust%2Funix"),
        "{unix}"
    );
    let pipe = row_of(&machines, ">rust/pipe<");
    assert!(
        pipe.contains(&format!("href=\"/runs/{}\"", transfers[0])),
        "{pipe}"
    );
    // With more exec runs than transfer runs, the chooser starts at transfer.
    let (_, first) = board.get("/machines");
    assert!(
        first.contains("<option selected>transfer</option>") && first.contains(">rust/unix<"),
        "{first}"
    );

    // A series' trend: one mark per run for α and one for β, each with its
    // interval in the table below.
    let (status, trend) = board.get("/trend?family=transfer&series=rust%2Fpipe");
    assert_eq!(status, 200, "{trend}");
    assert_trend(&trend, &transfers, 2);
    let (_, unix_trend) = board.get("/trend?family=transfer&series=rust%2Funix");
    assert_trend(&unix_trend, &transfers[1..], 2);
    // The median at one size: one mark per run.
    let (status, at) = board.get("/trend?family=transfer&series=rust%2Fpipe&at=1000");
    assert_eq!(status, 200, "{at}");
    assert!(at.contains("median at n = 1000"), "{at}");
    assert_trend(&at, &transfers, 1);
    // Without a family: the first family with runs, and its first series.
    let (status, default) = board.get("/trend");
    assert_eq!(status, 200);
    assert!(
        default.contains("<option value=\"transfer\" selected>"),
        "{default}"
    );
    assert!(default.contains("<svg"), "{default}");
    let (status, e) = board.get("/trend?family=transfer&at=big");
    assert_eq!(status, 400);
    assert!(e.contains("at=big is not a size"), "{e}");
    let (status, e) = board.get("/trend?family=transfer&series=nope%2Fnone");
    assert_eq!(status, 404);
    assert!(e.contains("nope/none"), "{e}");
    let (_, listed) = board.get("/runs?family=transfer");
    assert!(
        listed.contains("/trend?family=transfer&amp;host="),
        "runs link their trend"
    );

    // Compare: an HTML table, not terminal text.
    let (status, cmp) = board.get(&format!("/compare?a={}&b={}", transfers[1], transfers[0]));
    assert_eq!(status, 200, "{cmp}");
    assert!(
        cmp.contains("<table class=\"compare\"")
            && !cmp.contains("<pre")
            && cmp.contains("rust/pipe"),
        "{cmp}"
    );
    let pipe_rows = cmp
        .split("<tbody>")
        .find(|g| g.contains("<th colspan=\"8\">rust/pipe</th>"))
        .expect("rust/pipe's rows");
    for n in ["0", "1000", "4000", "α", "β"] {
        assert!(
            pipe_rows.contains(&format!("<td class=\"num\">{n}</td>")),
            "{n}: {pipe_rows}"
        );
    }
    assert!(cmp.contains("Only in A: rust/unix"), "{cmp}");
    let (status, seeds) = board.get("/seeds");
    assert_eq!(status, 200);
    assert!(
        seeds.contains("E1")
            && seeds.contains("22.2 µs")
            && seeds.contains(&format!("run {}", transfers[0]))
    );
    let (status, filtered) = board.get("/runs?family=ring");
    assert_eq!(status, 200);
    assert!(filtered.contains("1 of "), "one ring run: {filtered}");
    let (status, bad) = board.get("/runs?since=yesterday");
    assert_eq!(status, 400);
    assert!(bad.contains("YYYY-MM-DD"));
    assert_eq!(board.get("/runs/999999").0, 404);
    let (status, json) = board.get(&format!("/api/runs/{}", transfers[0]));
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["family"], "transfer");
    assert!(v["schema_version"].as_i64().is_some());

    // Writes: the token, the limit, the schema.
    let good = token(db, "ci-runner");
    let mut export = v.clone();
    let body = export.to_string();
    let auth = format!("Bearer {good}");
    let json_h = ("Content-Type", "application/json");
    let (status, e) = board.request("POST", "/api/runs", &[json_h], body.as_bytes());
    assert_eq!(status, 401, "no token: {e}");
    assert!(e.contains("no token"));
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[json_h, ("Authorization", "Bearer toll_nope")],
        body.as_bytes(),
    );
    assert_eq!(status, 401, "wrong token: {e}");
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[json_h, ("Authorization", &auth)],
        b"{not json",
    );
    assert_eq!(status, 400);
    assert!(e.contains("not JSON"), "{e}");
    let mut wrong = v.clone();
    wrong["series"] = "none".into();
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[json_h, ("Authorization", &auth)],
        wrong.to_string().as_bytes(),
    );
    assert_eq!(status, 400);
    assert!(
        e.contains("not a valid toll run") && e.contains("series"),
        "{e}"
    );
    let big = vec![b' '; 100 * 1024];
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[json_h, ("Authorization", &auth)],
        &big,
    );
    assert_eq!(status, 413, "{e}");
    assert_eq!(runs(&board).len(), all.len(), "nothing refused was stored");

    // A hostname that is a script is text on every page.
    export["env"]["hostname"] = "<script>alert(1)</script>".into();
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[json_h, ("Authorization", &auth)],
        export.to_string().as_bytes(),
    );
    assert_eq!(status, 201, "{e}");
    let id = serde_json::from_str::<Value>(&e).unwrap()["id"]
        .as_i64()
        .unwrap();
    for path in [
        "/machines?family=transfer".to_string(),
        "/runs".into(),
        format!("/runs/{id}"),
        "/trend?family=transfer&series=rust%2Fpipe".into(),
    ] {
        let (_, page) = board.get(&path);
        assert!(!page.contains("<script>alert"), "{path} runs the script");
        assert!(
            page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path} lacks the host as text"
        );
    }
    let (_, page) = board.get(&format!("/runs/{id}"));
    assert!(page.contains("pushed by ci-runner"), "{page}");
    // The trend now has two machines, each with its own marker (a circle
    // and a square, besides the background's rectangle): a mark per run
    // and figure, and each machine's in the legend.
    let (_, trend) = board.get("/trend?family=transfer&series=rust%2Fpipe");
    let svg = trend.split_once("<figure").unwrap().1;
    let svg = svg.split_once("</svg>").unwrap().0;
    let (circles, squares) = (
        svg.matches("<circle").count(),
        svg.matches("<rect").count() - 1,
    );
    assert!(circles > 1 && squares > 1, "{svg}");
    assert_eq!(circles + squares, 2 * (transfers.len() + 1) + 2, "{svg}");

    // `toll push`, with TOLL_TOKEN; then the token removed. The board is
    // over this very store, so the run is there already (issue 34): it is
    // answered with its number, not stored again.
    let before = runs(&board).len();
    let o = toll_env(
        db,
        &["push", "last", "--to", &board.url],
        &[("TOLL_TOKEN", &good)],
    );
    let out = ok(&o, "push");
    assert!(
        out.trim().starts_with(&format!("{}/runs/", board.url)),
        "{out}"
    );
    assert!(
        stderr(&o).contains("on the board already"),
        "{}",
        stderr(&o)
    );
    assert_eq!(runs(&board).len(), before);
    ok(
        &toll(db, &["board", "token", "rm", "ci-runner"]),
        "token rm",
    );
    let o = toll_env(
        db,
        &["push", "last", "--to", &board.url],
        &[("TOLL_TOKEN", &good)],
    );
    assert_one_line_error(&o, "refused the token");
    assert_eq!(runs(&board).len(), before, "a refused push writes nothing");
}

/// The table row of `page` that holds `needle`.
fn row_of<'a>(page: &'a str, needle: &str) -> &'a str {
    page.split("<tr")
        .find(|r| r.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle}: {page}"))
}

/// A trend page over `runs` (newest first), drawing `panels` figures per
/// run: its picture has one mark per run and figure (each a circle: one
/// machine, plus the legend's), its table a row per run with an interval
/// per figure.
fn assert_trend(page: &str, runs: &[i64], panels: usize) {
    let svg = page
        .split_once("<figure class=\"trend\">")
        .and_then(|(_, f)| f.split_once("</svg>"))
        .map(|(svg, _)| svg)
        .unwrap_or_else(|| panic!("no trend picture: {page}"));
    let marks = runs.len() * panels;
    assert_eq!(svg.matches("<circle").count(), marks + 1, "marks: {svg}");
    assert!(
        svg.matches("<polyline").count() >= marks,
        "an interval per mark"
    );
    assert!(page.contains(&format!("{} runs · {marks} marks", runs.len())));
    let table = page
        .split_once("<table class=\"trend\">")
        .and_then(|(_, t)| t.split_once("</table>"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("no trend table: {page}"));
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), runs.len(), "{table}");
    for (row, id) in rows.iter().zip(runs) {
        assert!(
            row.contains(&format!("/runs/{id}\"")),
            "newest first: {row}"
        );
        assert_eq!(
            row.matches('[').count(),
            panels,
            "an interval per figure: {row}"
        );
    }
}

/// Chromium on the PATH, which the build found (`cfg(toll_chromium)`).
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .expect(
            "built with chromium (cfg toll_chromium) but none on the PATH now: \
             apt-get install chromium, or rebuild (touch crates/store/build.rs) to ignore this test",
        )
}

/// Chromium headless as root can run it: no sandbox, no GPU, nothing
/// fetched in the background, a fresh profile. Returns its stdout.
fn headless(browser: &PathBuf, s: &Scratch, extra: &[&str], url: &str) -> String {
    headless_at(browser, s, "1400,1000", extra, url)
}

/// [`headless`] in a window of `size` (`WIDTH,HEIGHT`).
fn headless_at(browser: &PathBuf, s: &Scratch, size: &str, extra: &[&str], url: &str) -> String {
    let profile = s.0.join(format!("profile-{}", fastrand_name(url)));
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(o.status.success(), "chromium failed: {}", stderr(&o));
    stdout(&o)
}

fn fastrand_name(url: &str) -> String {
    url.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(char::from)
        .collect()
}

#[test]
fn a_board_over_sqlite_serves_every_family_and_takes_pushes_with_a_token() {
    let s = Scratch::new("board-sqlite");
    let db = s.db();
    board_end_to_end(db.to_str().unwrap(), &s);
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn a_board_over_postgres_serves_every_family_and_takes_pushes_with_a_token() {
    let s = Scratch::new("board-pg");
    let url = pg::fresh_db("board_e2e");
    board_end_to_end(&url, &s);
}

#[test]
#[cfg_attr(
    not(toll_chromium),
    ignore = "needs chromium to render the pages: apt-get install chromium"
)]
fn every_page_renders_in_chromium_with_its_tables_and_plots() {
    let browser = chromium();
    let s = Scratch::new("board-chromium");
    let db = s.db();
    let db = db.to_str().unwrap();
    fill(db, &s);
    let board = Board::start(db, &[]);
    let transfers: Vec<i64> = runs(&board)
        .iter()
        .filter(|r| r["family"] == "transfer")
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    // The newest (over the pipe only) and the one before (pipe and unix).
    let (transfer, older) = (transfers[0], transfers[1]);
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("board-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, path, needs) in [
        (
            "machines",
            "/machines".to_string(),
            &["<table", "rust/pipe"][..],
        ),
        ("runs", "/runs".into(), &["<table", "transfer", "ring"][..]),
        (
            "run",
            format!("/runs/{transfer}"),
            &["<table", "<svg", "rust/pipe"][..],
        ),
        (
            "compare",
            format!("/compare?a={older}&b={transfer}"),
            &["<table class=\"compare\"", "rust/pipe", "Only in A"][..],
        ),
        (
            "trend",
            "/trend?family=transfer&series=rust%2Fpipe".into(),
            &[
                "<figure class=\"trend\"",
                "<svg",
                "<circle",
                "<table class=\"trend\"",
            ][..],
        ),
        ("seeds", "/seeds".into(), &["E1", "E5", "<ul"][..]),
    ] {
        let url = format!("{}{path}", board.url);
        let dom = headless(&browser, &s, &["--dump-dom"], &url);
        for n in needs {
            assert!(dom.contains(n), "{name}: `{n}` not in the rendered page");
        }
        if name == "compare" || name == "run" {
            assert!(!dom.contains("<pre"), "{name}: terminal text in a box");
        }
        let shot = shots.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&shot);
        // At 1280 px, the width the pages are laid out for; tall enough
        // for the trend's picture and its table.
        headless_at(
            &browser,
            &s,
            "1280,1500",
            &[&format!("--screenshot={}", shot.display())],
            &url,
        );
        let png = std::fs::read(&shot).expect("a screenshot");
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{name}: an empty screenshot"
        );
    }
}

#[test]
fn board_and_push_mistakes_are_one_line_and_write_nothing() {
    let s = Scratch::new("board-bad");
    let db = s.db();
    let dbs = db.to_str().unwrap();
    let o = toll(dbs, &["board", "--listen", "nowhere"]);
    assert_one_line_error(&o, "--listen `nowhere`");
    assert_eq!(o.status.code(), Some(2));
    for size in ["lots", "5Gi", "1000"] {
        let o = toll(dbs, &["board", "--max-body", size]);
        assert_one_line_error(
            &o,
            &format!("--max-body `{size}` is not one size from 1Ki to 4Gi"),
        );
    }
    assert!(!db.exists(), "a refused command creates nothing");

    // A port in use.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = toll(dbs, &["board", "--listen", &addr]);
    assert_one_line_error(&o, "is in use");

    // A database that is not toll's.
    let not_toll = s.0.join("notes.db");
    std::fs::write(&not_toll, b"not a database at all, just words").unwrap();
    let o = toll(
        not_toll.to_str().unwrap(),
        &["board", "--listen", "127.0.0.1:0"],
    );
    assert_one_line_error(&o, "not a toll database");
    assert_eq!(
        std::fs::read(&not_toll).unwrap(),
        b"not a database at all, just words"
    );

    // Pushing: no token, a board that is down, a URL that is not one.
    let mut a = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1000",
    ];
    a.extend_from_slice(QUICK);
    ok(&toll(dbs, &a), "transfer");
    let o = toll(dbs, &["push", "last", "--to", "http://127.0.0.1:9"]);
    assert_one_line_error(&o, "no token");
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let o = toll_env(
        dbs,
        &[
            "push",
            "last",
            "--to",
            &format!("http://127.0.0.1:{closed}"),
        ],
        &[("TOLL_TOKEN", "toll_x")],
    );
    assert_one_line_error(&o, "not reachable");
    let o = toll_env(
        dbs,
        &["push", "last", "--to", "ftp://example"],
        &[("TOLL_TOKEN", "toll_x")],
    );
    assert_one_line_error(&o, "not a board URL");
    // Token names are unique; removing one that is not there says so.
    token(dbs, "a");
    assert_one_line_error(
        &toll(dbs, &["board", "token", "add", "a"]),
        "exists already",
    );
    assert_one_line_error(
        &toll(dbs, &["board", "token", "rm", "b"]),
        "no token named `b`",
    );
    let listed = ok(&toll(dbs, &["board", "token", "list"]), "list");
    assert!(
        listed.starts_with("a\t") && !listed.contains("toll_"),
        "names only: {listed}"
    );
}
