//! The derived image: Scratch's Squeak image with one method rewritten so
//! that, started, it files in the Smalltalk file its document argument
//! names instead of opening Scratch.
//!
//! Scratch.image (Debian's `scratch`, a Squeak 2.8-era image, format 6502)
//! was saved in the middle of `f startup`, so the first thing it runs when
//! the VM resumes it is `ScratchFrameMorph>>startup`, which ignores a `.st`
//! document and opens Scratch's user interface. The image has no way in for
//! other code (no start-up script, no command-line evaluation), so toll
//! rewrites that method's first bytecodes, once, into
//!
//! ```smalltalk
//! (FileStream readOnlyFileNamed: (Smalltalk getSystemAttribute: 2)) fileIn
//! ```
//!
//! (attribute 2 is the first argument after the image), pointing five of
//! its literal slots at objects the image already has: the `FileStream` and
//! `Smalltalk` globals' associations and three selectors.

use std::collections::HashMap;

/// Where Debian's `scratch` puts the image this rewrites.
pub(super) const DEFAULT_IMAGE: &str = "/usr/share/scratch/Scratch.image";
/// The only image format read: 32-bit objects, no closures (Squeak 2.x–3.x).
const FORMAT: u32 = 6502;
/// The bytecodes written (Squeak's blue-book set): push the values of
/// literals 0 and 1 (FileStream, Smalltalk); push 2; send literal 2 (one
/// argument), literal 3 (one), literal 4 (none); pop; return self.
const CODE: [u8; 8] = [0x40, 0x41, 0x77, 0xE2, 0xE3, 0xD4, 0x87, 0x78];

/// Where a Squeak image does not look as expected.
pub(super) type Bad = String;

/// An image's objects, indexed by oop.
struct Image<'a> {
    bytes: &'a [u8],
    /// oop → (format, class oop, offset of the base header, bytes from it).
    objects: HashMap<u32, (u32, u32, usize, usize)>,
}

impl<'a> Image<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Image<'a>, Bad> {
        let word = |at: usize| -> Result<u32, Bad> {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| format!("the image ends inside the word at byte {at}"))
        };
        let version = word(0)?;
        if version != FORMAT {
            return Err(format!(
                "image format {version}, not {FORMAT} (a 32-bit little-endian Squeak 2.x–3.x image)"
            ));
        }
        let header = word(4)? as usize;
        let size = word(8)? as usize;
        let base = word(12)?;
        let end = header + size;
        if end > bytes.len() {
            return Err("the image is shorter than its header says".into());
        }
        let mut objects = HashMap::new();
        let mut compact: Vec<(u32, u32)> = Vec::new();
        let mut at = header;
        while at < end {
            let first = word(at)?;
            let kind = first & 3;
            if kind == 2 {
                // A free chunk: its size is the rest of the word.
                at += (first & !3).max(4) as usize;
                continue;
            }
            let oop_at = at
                + match kind {
                    0 => 8,
                    1 => 4,
                    _ => 0,
                };
            let base_header = word(oop_at)?;
            let (len, class) = match kind {
                0 => ((first & !3) as usize, word(at + 4)? & !3),
                1 => ((base_header & 0xFC) as usize, first & !3),
                _ => ((base_header & 0xFC) as usize, 0),
            };
            let oop = (oop_at - header) as u32 + base;
            if kind == 3 {
                compact.push((oop, (base_header >> 12) & 0x1F));
            }
            objects.insert(oop, ((base_header >> 8) & 0xF, class, oop_at, len));
            at = oop_at + len.max(4);
        }
        let mut image = Image { bytes, objects };
        let specials = word(16)?;
        let classes = image.field(specials, 28)?;
        for (oop, index) in compact {
            let class = image.field(classes, index as usize - 1)?;
            if let Some(o) = image.objects.get_mut(&oop) {
                o.1 = class;
            }
        }
        Ok(image)
    }

    fn object(&self, oop: u32) -> Result<(u32, u32, usize, usize), Bad> {
        self.objects
            .get(&oop)
            .copied()
            .ok_or_else(|| format!("no object at {oop:#x}"))
    }

    fn class(&self, oop: u32) -> Option<u32> {
        self.objects.get(&oop).map(|o| o.1)
    }

    /// Where field `i` of `oop` is, as a byte offset.
    fn field_at(&self, oop: u32, i: usize) -> Result<usize, Bad> {
        let (_, _, at, len) = self.object(oop)?;
        if 4 + 4 * i + 4 > len {
            return Err(format!("object {oop:#x} has no field {i}"));
        }
        Ok(at + 4 + 4 * i)
    }

    fn field(&self, oop: u32, i: usize) -> Result<u32, Bad> {
        let at = self.field_at(oop, i)?;
        let b = &self.bytes[at..at + 4];
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn fields(&self, oop: u32) -> usize {
        self.objects
            .get(&oop)
            .map_or(0, |o| o.3.saturating_sub(4) / 4)
    }

    /// The bytes of a byte object (a String, a Symbol).
    fn text(&self, oop: u32) -> Option<&'a [u8]> {
        let &(format, _, at, len) = self.objects.get(&oop)?;
        (8..12)
            .contains(&format)
            .then(|| &self.bytes[at + 4..at + len - (format & 3) as usize])
    }

    /// Every Symbol, by its text.
    fn symbols(&self) -> Result<HashMap<&'a [u8], u32>, Bad> {
        // Special object 20 is the selector #doesNotUnderstand:.
        let specials = self.word_at(16);
        let symbol = self
            .class(self.field(specials, 20)?)
            .ok_or("no class Symbol")?;
        Ok(self
            .objects
            .iter()
            .filter(|(_, o)| o.1 == symbol)
            .filter_map(|(&oop, _)| Some((self.text(oop)?, oop)))
            .collect())
    }

    fn word_at(&self, at: usize) -> u32 {
        let b = &self.bytes[at..at + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// `bytes` with `ScratchFrameMorph>>startup` rewritten to file in the
/// document argument.
pub(super) fn derive(bytes: &[u8]) -> Result<Vec<u8>, Bad> {
    let image = Image::parse(bytes)?;
    let symbols = image.symbols()?;
    let symbol = |name: &str| {
        symbols
            .get(name.as_bytes())
            .copied()
            .ok_or_else(|| format!("the image has no symbol #{name}"))
    };
    let class_name = symbol("ScratchFrameMorph")?;
    // A class's name is its field 6 (superclass, methodDict, format,
    // instanceVariables, organization, subclasses, name, …).
    let class = image
        .objects
        .iter()
        .filter(|(_, o)| matches!(o.0, 1 | 3))
        .map(|(&oop, _)| oop)
        .find(|&oop| image.fields(oop) > 6 && image.field(oop, 6) == Ok(class_name))
        .ok_or("the image has no class ScratchFrameMorph (not Scratch's image?)")?;
    let method = method_named(&image, class, symbol("startup")?)?;
    let header = image.field(method, 0)?;
    let literals = ((header >> 10) & 0xFF) as usize;
    let (_, _, at, len) = image.object(method)?;
    let code_at = at + 4 + 4 * (1 + literals);
    if literals < 5 || code_at + CODE.len() > at + len {
        return Err("ScratchFrameMorph>>startup is too small to rewrite".into());
    }
    // The Association of the global `Smalltalk`, from the method's own
    // literals; that of `FileStream` is the Association of that class
    // whose key is #FileStream.
    let smalltalk = symbol("Smalltalk")?;
    let smalltalk_assoc = (1..=literals)
        .map(|i| image.field(method, i))
        .filter_map(Result::ok)
        .find(|&l| l & 1 == 0 && image.fields(l) == 2 && image.field(l, 0) == Ok(smalltalk))
        .ok_or("ScratchFrameMorph>>startup does not name Smalltalk")?;
    let association = image.class(smalltalk_assoc).ok_or("no class Association")?;
    let file_stream = symbol("FileStream")?;
    let file_stream_assoc = image
        .objects
        .iter()
        .filter(|(_, o)| o.1 == association)
        .map(|(&oop, _)| oop)
        .find(|&oop| image.field(oop, 0) == Ok(file_stream))
        .ok_or("the image has no global FileStream")?;
    let new_literals = [
        file_stream_assoc,
        smalltalk_assoc,
        symbol("getSystemAttribute:")?,
        symbol("readOnlyFileNamed:")?,
        symbol("fileIn")?,
    ];
    let mut out = bytes.to_vec();
    for (i, oop) in new_literals.into_iter().enumerate() {
        let at = image.field_at(method, 1 + i)?;
        out[at..at + 4].copy_from_slice(&oop.to_le_bytes());
    }
    out[code_at..code_at + CODE.len()].copy_from_slice(&CODE);
    Ok(out)
}

/// The CompiledMethod of `class` for `selector`.
fn method_named(image: &Image, class: u32, selector: u32) -> Result<u32, Bad> {
    // A MethodDictionary: tally, the Array of methods, then the selectors.
    let dict = image.field(class, 1)?;
    let methods = image.field(dict, 1)?;
    (2..image.fields(dict))
        .find(|&i| image.field(dict, i) == Ok(selector))
        .map(|i| image.field(methods, i - 2))
        .unwrap_or_else(|| Err("ScratchFrameMorph has no method startup".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_6502_image() {
        assert!(derive(b"").unwrap_err().contains("ends inside"));
        let mut closure = vec![0u8; 64];
        closure[..4].copy_from_slice(&6504u32.to_le_bytes());
        assert!(derive(&closure).unwrap_err().contains("image format 6504"));
        let mut short = vec![0u8; 64];
        short[..4].copy_from_slice(&FORMAT.to_le_bytes());
        short[4..8].copy_from_slice(&64u32.to_le_bytes());
        short[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert!(derive(&short).unwrap_err().contains("shorter"));
    }

    /// On a machine with Debian's scratch: the rewrite touches the one
    /// method's first literals and bytecodes only.
    #[test]
    #[cfg_attr(
        not(toll_scratch_image),
        ignore = "needs Scratch's image: apt-get install scratch"
    )]
    fn rewrites_scratchs_startup_when_the_image_is_there() {
        let image = DEFAULT_IMAGE;
        let bytes = std::fs::read(image).unwrap_or_else(|e| {
            panic!(
                "built with Scratch's image (cfg toll_scratch_image) but reading {image}: {e}; \
                 rebuild (touch crates/store/build.rs) to ignore this test"
            )
        });
        let out = derive(&bytes).unwrap();
        assert_eq!(out.len(), bytes.len());
        let changed = bytes.iter().zip(&out).filter(|(a, b)| a != b).count();
        assert!((1..=28).contains(&changed), "{changed} bytes changed");
        assert!(out.windows(CODE.len()).any(|w| w == CODE));
    }
}
