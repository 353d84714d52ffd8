"""Import circles between the files of one Rust crate.

A file uses another when its code (comments and strings stripped) names an
item of the other through `crate::`, `super::`, `self::`, a child module's
name, or an alias brought in by `use`; `pub use` re-exports are followed to
the file that defines the item. Two files that use each other are a circle;
longer loops are reported as cycle groups (strongly connected components).
It reads text, not the compiler's resolution, so it can miss or misplace an
arrow; `scripts/check-house --edges` shows every arrow it saw.
"""
import os
import re
import sys
from collections import defaultdict


def analyse(root, strict=False):
    """(edges, pairs, cycle groups) of the crate whose src/ is `root`."""
    STRICT = strict
    via = set()
    via = set()


    def strip(src):
        src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
        out = []
        for line in src.split("\n"):
            # drop string literals (roughly) then line comments
            line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
            i = line.find("//")
            if i >= 0:
                line = line[:i]
            out.append(line)
        return "\n".join(out)


    # ---- module tree: module path (tuple) -> file
    mods = {}  # path tuple -> file
    files = {}  # file -> path tuple


    def add(path, f):
        mods[path] = f
        files[f] = path
        src = strip(open(f).read())
        base = os.path.dirname(f)
        own_dir = base if os.path.basename(f) in ("mod.rs", "lib.rs") else os.path.join(
            base, os.path.basename(f)[:-3])
        for m in re.finditer(r'(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', open(f).read()):
            p, name = m.group(1), m.group(2)
            if p:
                # #[path] is relative to the directory of the declaring file
                cand = os.path.join(base if os.path.basename(f) in ("mod.rs", "lib.rs") else base, p)
                if not os.path.exists(cand):
                    cand = os.path.join(own_dir, p)
            else:
                cand = os.path.join(own_dir, name + ".rs")
                if not os.path.exists(cand):
                    cand = os.path.join(own_dir, name, "mod.rs")
            if os.path.exists(cand):
                add(path + (name,), cand)


    add((), os.path.join(root, "lib.rs") if os.path.exists(os.path.join(root, "lib.rs")) else os.path.join(root, "main.rs"))

    srcs = {f: strip(open(f).read()) for f in files}

    # items defined at top level of each file (roughly: any `pub`/plain item)
    defs = {}
    for f, s in srcs.items():
        defs[f] = set(re.findall(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+fn|async\s+fn|unsafe\s+fn|fn|struct|enum|trait|type|const|static|mod|union)\s+(\w+)",
            s, flags=re.M))


    def parse_tree(s, i):
        """Parse a use tree at s[i:]; return (list of segment lists, end)."""
        paths = []
        prefix = []
        while True:
            m = re.compile(r"\s*(\w+|\*|\{)").match(s, i)
            if not m:
                return [prefix] if prefix else [], i
            tok = m.group(1)
            i = m.end()
            if tok == "{":
                while True:
                    sub, i = parse_tree(s, i)
                    for p in sub:
                        paths.append(prefix + p)
                    m2 = re.compile(r"\s*([,}])").match(s, i)
                    if not m2:
                        return paths, i
                    i = m2.end()
                    if m2.group(1) == "}":
                        return paths, i
                    if re.compile(r"\s*\}").match(s, i):
                        i = re.compile(r"\s*\}").match(s, i).end()
                        return paths, i
            prefix = prefix + [tok]
            m = re.compile(r"\s*::").match(s, i)
            if m:
                i = m.end()
                continue
            m = re.compile(r"\s+as\s+(\w+)").match(s, i)
            if m:
                prefix = prefix + ["as:" + m.group(1)]
                i = m.end()
            return paths + [prefix], i


    def absolute(modpath, segs):
        segs = [x for x in segs if not x.startswith("as:")]
        cur = list(modpath)
        if segs and segs[0] == "crate":
            cur = []
            segs = segs[1:]
        elif segs and segs[0] in ("super", "self"):
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    cur = cur[:-1]
                segs = segs[1:]
        else:
            return None
        return cur + segs


    def reexports(path):
        """name -> absolute path, and list of glob source module paths."""
        f = mods[path]
        s = srcs[f]
        named, globs = {}, []
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+", s):
            for segs in parse_tree(s, m.end())[0]:
                alias = None
                if segs and segs[-1].startswith("as:"):
                    alias = segs[-1][3:]
                clean = [x for x in segs if not x.startswith("as:")]
                if clean and clean[0] not in ("crate", "super", "self"):
                    clean = ["self"] + clean
                ab = absolute(path, clean)
                if ab is None:
                    continue
                if ab[-1] == "*":
                    globs.append(tuple(ab[:-1]))
                else:
                    named[alias or ab[-1]] = ab
        return named, globs


    def resolve(ab, depth=0):
        """Absolute segment list -> defining file (or None)."""
        if ab is None or depth > 10:
            return None
        ab = [x for x in ab if x not in ("*", "self")]
        # longest module prefix
        k = len(ab)
        while k > 0 and tuple(ab[:k]) not in mods:
            k -= 1
        mod = tuple(ab[:k])
        rest = ab[k:]
        if not rest:
            return mods.get(mod)
        f = mods[mod]
        name = rest[0]
        if name in defs[f] and name not in reexports(mod)[0]:
            return f
        named, globs = reexports(mod)
        if name in named:
            if STRICT:
                via.add(f)
            return resolve(named[name] + rest[1:], depth + 1)
        for g in globs:
            r = resolve(list(g) + rest, depth + 1)
            if r:
                return r
        return f


    edges = defaultdict(set)  # (a, b) -> examples
    for f, s in srcs.items():
        mp = files[f]
        # a #[path] child such as fit_tests.rs is a `tests` module: its
        # `super::` is the parent file; treat `use super::*` there as a use.
        aliases = {}
        for m in re.finditer(r"\b(crate|super|self)\s*::", s):
            # skip `pub(crate)` / `pub(super)` visibility
            if re.search(r"pub\s*\(\s*(in\s+)?$", s[max(0, m.start() - 12):m.start()]):
                continue
            tree, _ = parse_tree(s, m.start())
            # inside an inline `mod tests`, super:: means this same file
            line_start = s.rfind("\n", 0, m.start())
            inline = False
            before = s[:m.start()]
            depth_mod = [mm for mm in re.finditer(r"\bmod\s+\w+\s*\{", before)]
            if depth_mod:
                inline = True  # conservative: inline test modules sit at the end
            for segs in tree:
                base = mp + ("tests",) if inline and segs[0] == "super" else mp
                ab = absolute(base, segs)
                via.clear()
                t = resolve(ab)
                for v in via:
                    if v != f:
                        edges[(f, v)].add("(via) " + "::".join(x for x in segs if not x.startswith("as:")))
                if segs[-1].startswith("as:"):
                    aliases[segs[-1][3:]] = ab
                elif ab and tuple(ab) in mods:
                    aliases[ab[-1]] = ab
                if t and t != f:
                    edges[(f, t)].add("::".join(x for x in segs if not x.startswith("as:")))
        # paths relative to this module: a child module named without `self::`
        # (`use line::Line;`, `choice::choose(…)`)
        for child in [p[-1] for p in mods if len(p) == len(mp) + 1 and p[:len(mp)] == mp]:
            for m in re.finditer(r"(?<![\w:])" + child + r"\s*::", s):
                tree, _ = parse_tree(s, m.start())
                for segs in tree:
                    t = resolve(list(mp) + [x for x in segs if not x.startswith("as:")])
                    if t and t != f:
                        edges[(f, t)].add("::".join(x for x in segs if not x.startswith("as:")))
        for name, ab in aliases.items():
            for m in re.finditer(r"(?<![\w:])" + re.escape(name) + r"\s*::\s*(\w+)", s):
                t = resolve(ab + [m.group(1)])
                if t and t != f:
                    edges[(f, t)].add(name + "::" + m.group(1))


    pairs = sorted({tuple(sorted((a, b))) for (a, b) in edges if (b, a) in edges})
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]


    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)


    sys.setrecursionlimit(10000)
    for v in list(files):
        if v not in index:
            strong(v)

    return edges, pairs, sccs
