//! Pictures made of pictures: SVG documents drawn apart (each by its own
//! plotters backend, in its own coordinates) and put together as one, each
//! nested at its offset — an `<svg>` inside an `<svg>` takes `x` and `y`.
//! A nested part keeps its own element, so a test can find each panel.

use super::canvas::PlotError;

/// A number attribute of an SVG document's root element.
fn root_attr(svg: &str, name: &str) -> Option<u32> {
    let root = &svg[svg.find("<svg")?..];
    let root = &root[..root.find('>')?];
    let at = root.find(&format!(" {name}=\""))? + name.len() + 3;
    root[at..].split('"').next()?.parse().ok()
}

/// `part` as an element nested at `(x, y)`, with `attrs` (` class="…"`)
/// on its root.
fn nested(part: &str, (x, y): (u32, u32), attrs: &str) -> String {
    let at = part.find("<svg").expect("an SVG document");
    let mut out = String::with_capacity(part.len() + 40);
    out.push_str(&part[..at]);
    out.push_str("<svg");
    out.push_str(attrs);
    if x > 0 {
        out.push_str(&format!(" x=\"{x}\""));
    }
    out.push_str(&format!(" y=\"{y}\""));
    out.push_str(&part[at + 4..]);
    out.push('\n');
    out
}

/// SVG documents one above the other, as one document.
pub(super) fn stack(parts: &[String]) -> Result<String, PlotError> {
    let plain: Vec<(&str, &str)> = parts.iter().map(|p| (p.as_str(), "")).collect();
    stack_marked(&plain)
}

/// The same, each `(part, class)`'s root marked `class="{class}"` where
/// the class is not empty, so a reader (or a test) finds each part.
pub(super) fn stack_marked(parts: &[(&str, &str)]) -> Result<String, PlotError> {
    let size = |s: &str| {
        root_attr(s, "width")
            .zip(root_attr(s, "height"))
            .ok_or_else(|| PlotError("a picture without its size".into()))
    };
    let sizes = parts
        .iter()
        .map(|(p, _)| size(p))
        .collect::<Result<Vec<_>, _>>()?;
    let width = sizes.iter().map(|s| s.0).max().unwrap_or(0);
    let height: u32 = sizes.iter().map(|s| s.1).sum();
    let mut out = format!(
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    );
    let mut y = 0;
    for ((p, class), (_, h)) in parts.iter().zip(&sizes) {
        let attrs = match *class {
            "" => String::new(),
            c => format!(" class=\"{c}\""),
        };
        out.push_str(&nested(p, (0, y), &attrs));
        y += h;
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// `base` with each of `parts` nested in it at its offset, after what
/// `base` draws, each root marked `class="{class}"`.
pub(super) fn nest(
    base: &str,
    parts: &[((u32, u32), String)],
    class: &str,
) -> Result<String, PlotError> {
    let end = base
        .rfind("</svg>")
        .ok_or_else(|| PlotError("a picture without its end".into()))?;
    let mut out = base[..end].to_string();
    for (at, p) in parts {
        out.push_str(&nested(p, *at, &format!(" class=\"{class}\"")));
    }
    out.push_str(&base[end..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_stack_one_under_the_other() {
        let a = "<svg width=\"1000\" height=\"200\" viewBox=\"0 0 1000 200\" xmlns=\"http://www.w3.org/2000/svg\"><circle/></svg>".to_string();
        let b =
            "<svg width=\"900\" height=\"300\" xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>"
                .to_string();
        assert_eq!(root_attr(&a, "height"), Some(200));
        assert_eq!(root_attr(&b, "width"), Some(900));
        let s = stack(&[a, b]).unwrap();
        assert!(s.starts_with("<svg width=\"1000\" height=\"500\""), "{s}");
        assert!(s.contains("<svg y=\"0\" width=\"1000\""), "{s}");
        assert!(s.contains("<svg y=\"200\" width=\"900\""), "{s}");
        assert_eq!(s.matches("<svg").count(), 3);
        assert_eq!(s.matches("</svg>").count(), 3);
    }

    #[test]
    fn parts_nest_inside_a_picture_at_their_offsets() {
        let base = "<svg width=\"100\" height=\"100\"><rect/></svg>\n";
        let part = "<svg width=\"40\" height=\"30\"><circle/></svg>".to_string();
        let s = nest(base, &[((10, 20), part.clone()), ((0, 50), part)], "panel").unwrap();
        assert!(
            s.starts_with("<svg width=\"100\" height=\"100\"><rect/>"),
            "{s}"
        );
        assert!(
            s.contains("<svg class=\"panel\" x=\"10\" y=\"20\" width=\"40\""),
            "{s}"
        );
        assert!(
            s.contains("<svg class=\"panel\" y=\"50\" width=\"40\""),
            "{s}"
        );
        assert!(
            s.ends_with("</svg>\n") && s.matches("</svg>").count() == 3,
            "{s}"
        );
    }
}
