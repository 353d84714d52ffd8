"""scripts/lib/circles.py on small made-up crates: a circle is found, a
leaf layout is not one, and comments, strings and `pub(super)` are not
imports."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from circles import analyse  # noqa: E402


def crate(tmp_path, files):
    src = tmp_path / "src"
    for name, text in files.items():
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(src)


def names(root, pairs):
    return [tuple(os.path.relpath(f, root) for f in p) for p in pairs]


def test_two_files_that_use_each_other_are_a_circle(tmp_path):
    root = crate(tmp_path, {
        "lib.rs": "mod a;\nmod b;\n",
        "a.rs": "use crate::b::B;\npub struct A;\n",
        "b.rs": "use crate::a::A;\npub struct B;\n",
    })
    _, pairs, _ = analyse(root)
    assert names(root, pairs) == [("a.rs", "b.rs")]


def test_a_leaf_both_use_is_no_circle(tmp_path):
    root = crate(tmp_path, {
        "lib.rs": "mod fit;\n",
        "fit/mod.rs": "mod line;\nmod choice;\nuse line::Line;\npub fn f() { choice::choose(); }\n",
        "fit/line.rs": "pub struct Line;\n",
        "fit/choice.rs": "use super::line::Line;\npub fn choose() {}\n",
    })
    edges, pairs, groups = analyse(root)
    assert pairs == [] and groups == []
    # the arrows it saw: the orchestrator uses both leaves, choice uses line
    seen = {tuple(os.path.relpath(f, root) for f in e) for e in edges}
    assert seen == {
        ("fit/mod.rs", "fit/line.rs"),
        ("fit/mod.rs", "fit/choice.rs"),
        ("fit/choice.rs", "fit/line.rs"),
    }


def test_a_leaf_that_reaches_back_to_its_orchestrator_is_a_circle(tmp_path):
    root = crate(tmp_path, {
        "lib.rs": "mod http;\n",
        "http/mod.rs": "mod tls;\npub enum HttpError {}\npub fn run() { tls::setup(); }\n",
        "http/tls.rs": "use super::HttpError;\npub fn setup() {}\n",
    })
    _, pairs, _ = analyse(root)
    assert names(root, pairs) == [("http/mod.rs", "http/tls.rs")]


def test_comments_strings_and_visibility_are_not_imports(tmp_path):
    root = crate(tmp_path, {
        "lib.rs": "mod a;\nmod b;\n",
        "a.rs": "use crate::b::B;\npub struct A;\n",
        "b.rs": (
            "// uses crate::a::A in a comment only\n"
            "pub(crate) struct B;\n"
            'pub const S: &str = "crate::a::A";\n'
        ),
    })
    _, pairs, _ = analyse(root)
    assert pairs == []


def test_three_files_in_a_loop_are_one_cycle_group(tmp_path):
    root = crate(tmp_path, {
        "lib.rs": "mod a;\nmod b;\nmod c;\n",
        "a.rs": "use crate::b::B;\npub struct A;\n",
        "b.rs": "use crate::c::C;\npub struct B;\n",
        "c.rs": "use crate::a::A;\npub struct C;\n",
    })
    _, pairs, groups = analyse(root)
    assert pairs == []
    assert [sorted(os.path.relpath(f, root) for f in g) for g in groups] == [["a.rs", "b.rs", "c.rs"]]
