//! The Squeak worker (optional): workers/squeak/toll_worker.st, filed in by
//! Debian's Squeak VM (`squeak-vm`) into the one Squeak image Debian ships,
//! Scratch's (`scratch`), run headless. The image is derived once (see
//! [`image`]) and cached with the worker by VM, image and source.
//!
//! The worker spawns and rings Squeak processes; it does not transfer.

mod image;

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_in_path, output_line, Toolchain};
use crate::error::PeerError;
use image::DEFAULT_IMAGE;
use std::path::{Path, PathBuf};

pub(super) const INSTALL: &str = "apt-get install squeak-vm scratch";
const WORKER: &str = include_str!("../../../../workers/squeak/toll_worker.st");
/// Where Debian's `squeak-vm` puts the VM, under a directory named by its version.
const VM_DIRS: &str = "/usr/lib/squeak";

fn missing(tool: String) -> PeerError {
    PeerError::MissingToolchain {
        peer: "squeak",
        tool,
        install: INSTALL,
    }
}

/// `$TOLL_SQUEAK_VM`, else `squeakvm` on PATH, else the newest
/// /usr/lib/squeak/VERSION/squeakvm (Debian's `squeak` on PATH is a script
/// that looks for images of its own).
fn find_vm() -> Result<PathBuf, PeerError> {
    if let Ok(name) = std::env::var("TOLL_SQUEAK_VM") {
        return find_in_path(&name).ok_or_else(|| missing(format!("`{name}`")));
    }
    if let Some(vm) = find_in_path("squeakvm") {
        return Ok(vm);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(VM_DIRS)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|d| d.path().join("squeakvm"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
        .pop()
        .ok_or_else(|| missing("the Squeak VM (`squeakvm`)".into()))
}

/// `$TOLL_SQUEAK_IMAGE`, else Scratch's.
fn find_image() -> Result<PathBuf, PeerError> {
    let image = std::env::var_os("TOLL_SQUEAK_IMAGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| DEFAULT_IMAGE.into());
    if image.is_file() {
        Ok(image)
    } else {
        Err(missing(format!("a Squeak image ({})", image.display())))
    }
}

/// The VM's version: the name of its directory when Debian's, else the
/// first line it prints for `-version`.
fn vm_version(vm: &Path) -> String {
    let dir = vm
        .parent()
        .filter(|d| d.parent() == Some(Path::new(VM_DIRS)))
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let version = dir.unwrap_or_else(|| output_line(vm, &["-version"]));
    format!("squeakvm {version}")
}

/// The VM and the image (checked to be there, not read).
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    let program = find_vm()?;
    let image = find_image()?;
    let name = image
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Toolchain {
        version: format!("{}, {name}", vm_version(&program)),
        program,
    })
}

pub(super) fn prepare(vm: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let image = find_image()?;
    let meta = std::fs::metadata(&image)
        .map_err(|e| PeerError::io(format!("reading {}", image.display()), e))?;
    let stamp = format!(
        "{} {} {:?}",
        image.display(),
        meta.len(),
        meta.modified().ok()
    );
    let dir = keyed_dir("squeak", &[WORKER, &vm.version, &stamp]);
    let derived = dir.join("toll.image");
    let _built = build_lock(&dir)?;
    if !derived.is_file() {
        note("deriving a Squeak image that files in the worker from Scratch's (first use; cached after)");
        let bytes = std::fs::read(&image)
            .map_err(|e| PeerError::io(format!("reading {}", image.display()), e))?;
        let out = image::derive(&bytes).map_err(|detail| PeerError::BuildFailed {
            peer: "squeak",
            detail: format!("{}: {detail}", image.display()),
        })?;
        write_sources(&dir, &[("toll_worker.st", WORKER)])?;
        let tmp = dir.join(format!("toll.image.{}", std::process::id()));
        std::fs::write(&tmp, out)
            .map_err(|e| PeerError::io(format!("writing {}", tmp.display()), e))?;
        std::fs::rename(&tmp, &derived)
            .map_err(|e| PeerError::io(format!("installing {}", derived.display()), e))?;
    }
    Ok(Launch {
        program: vm.program,
        args: vec![
            "-vm-display-null".into(),
            "-vm-sound-null".into(),
            derived.into(),
            dir.join("toll_worker.st").into(),
        ],
        toolchain: ("squeakvm".into(), vm.version),
        env: Vec::new(),
    })
}
