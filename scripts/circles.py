#!/usr/bin/env python3
"""Lists the edges between the files and folders of a Rust crate and reports the cycles.

Usage: circles.py [--edges] [--children] [SRC ...]   (default SRC: src)
       circles.py --self-test                         (its own checks on a made-up crate)

An edge is a path written `crate::…`, `super::…` or `self::…` (and, in the crate's binary,
`<lib name>::…`, the library by name), in a `use` or anywhere in code, resolved to the file
that defines the item it names: re-exports (`pub use`, and a module's private `use`, which
its children see) are followed, so `super::Scene` reached through `mod.rs`'s
`pub use types::Scene` is an edge to `types.rs`. A path that ends at a module is an edge to
that module's file. `--children` adds what the brief leaves out: a module's bare paths into
its own child modules (`plane::panel(…)` in `draw/mod.rs`), so a `mod.rs` that calls a child
which uses an item defined in that `mod.rs` shows as a cycle too.

Folder level: the crate's rooms, its root's child folders: each file deeper down stands for
its room (`src/cli/bench.rs` and `src/general/solver/dd.rs` for `src/cli` and `src/general`;
`src/draw/spatial.rs` beside `src/draw/spatial/` for `src/draw`); a file at the root
(`src/lib.rs`, `src/gpu.rs`, `src/main.rs`, the binary's root) stands for itself. An edge
between two files of different rooms is an edge between the rooms. Unit-test modules
(`#[cfg(test)] mod …`) are left out: tests may reach anywhere.

Prints the edge count, then every cycle (strongly connected set of two or more) at file
level and at folder level, each with the edges that close it (the path written and its line);
`--edges` lists every edge. Exit status 1 when there is a cycle, 0 when none, 2 on bad use.
"""
import os
import re
import signal
import sys
from collections import defaultdict

KEYWORDS_ITEM = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}
STARTS = {"crate", "super", "self"}


# --- lexing ---------------------------------------------------------------------------------

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<raw_string>b?r(?P<hashes>\#*)")
  | (?P<string>b?")
  | (?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])')
  | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>r\#[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_.]*)
  | (?P<path_sep>::)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def tokens(text):
    """(kind, text, line) for every token outside comments and literals (literals as one
    `lit` token)."""
    out = []
    i, line, n = 0, 1, len(text)
    while i < n:
        m = TOKEN.match(text, i)
        kind = "raw_string" if m.group("raw_string") is not None else m.lastgroup
        start = i
        if kind == "block_comment":
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            i = j
        elif kind == "raw_string":
            end = '"' + m.group("hashes")
            j = text.find(end, m.end())
            i = n if j < 0 else j + len(end)
            out.append(("lit", "", line))
        elif kind == "string":
            j = m.end()
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append(("lit", "", line))
        else:
            i = m.end()
            if kind == "char" or kind == "number":
                out.append(("lit", "", line))
            elif kind in ("ident", "path_sep", "punct"):
                word = m.group(0)
                out.append(("ident" if kind == "ident" else "p", word.removeprefix("r#"), line))
        line += text.count("\n", start, i)
    return out


def without_test_modules(toks):
    """The tokens without `#[cfg(test)] mod x { … }` and `#[cfg(test)] mod x;`: unit tests
    may reach anywhere in the crate, and are not part of its layout."""
    attr = ["#", "[", "cfg", "(", "test", ")", "]"]
    out, k = [], 0
    while k < len(toks):
        words = [t[1] for t in toks[k:k + 7]]
        if words == attr and k + 8 < len(toks) and toks[k + 7][1] == "mod":
            j = k + 9
            if j < len(toks) and toks[j][1] == "{":
                depth, j = 1, j + 1
                while j < len(toks) and depth:
                    depth += {"{": 1, "}": -1}.get(toks[j][1], 0)
                    j += 1
                k = j
                continue
            if j < len(toks) and toks[j][1] == ";":
                k = j + 1
                continue
        out.append(toks[k])
        k += 1
    return out


# --- one file's modules, items, bindings and paths -------------------------------------------

class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names from the crate root
        self.file = file
        self.children = {}  # name -> module path (file or inline modules)
        self.items = set()  # names defined here
        self.bindings = {}  # name -> (absolute path tuple) from `use`
        self.globs = []  # absolute module paths of `use …::*`


def parse_use_tree(toks, k):
    """Parses the use tree at toks[k:]; returns (list of (segments, alias or '*'), next k)."""
    out = []

    def tree(k, prefix):
        segs = list(prefix)
        if toks[k][1] == "::":
            k += 1
        while True:
            kind, word, _ = toks[k]
            if word == "{":
                k += 1
                while toks[k][1] != "}":
                    k = tree(k, segs)
                    if toks[k][1] == ",":
                        k += 1
                return k + 1
            if word == "*":
                out.append((segs, "*"))
                return k + 1
            if kind != "ident":
                return k
            segs.append(word)
            k += 1
            if toks[k][1] == "::":
                k += 1
                continue
            alias = segs[-1]
            if toks[k][1] == "as":
                alias = toks[k + 1][1]
                k += 2
            if alias == "self":  # `use a::b::{self}`
                segs.pop()
                alias = segs[-1] if segs else alias
            out.append((segs, alias))
            return k

    k = tree(k, [])
    return out, k


def scan(file, modpath, modules, lib_alias):
    """Reads one file as module `modpath`: fills `modules`; returns (file-module children
    declared with `mod x;`, raw paths [(module path of the site, segments, line, in_use)])."""
    text = open(file, encoding="utf-8").read()
    toks = without_test_modules(tokens(text)) + [("eof", "", 0)] * 4
    root = modules.setdefault(modpath, Module(modpath, file))
    root.file = file
    stack = []  # brace stack: module path when the brace opened an inline module, else None
    declared, paths = [], []

    def current():
        for entry in reversed(stack):
            if entry is not None:
                return entry
        return modpath

    def at_module_level():
        return not stack or stack[-1] is not None

    k = 0
    while toks[k][0] != "eof":
        kind, word, line = toks[k]
        prev = toks[k - 1][1] if k else ""
        if word == "{":
            stack.append(None)
        elif word == "}":
            if stack:
                stack.pop()
        elif kind == "ident" and word == "mod" and toks[k + 1][0] == "ident":
            name = toks[k + 1][1]
            mod = modules[current()]
            child = current() + (name,)
            mod.children[name] = child
            mod.items.add(name)
            if toks[k + 2][1] == "{":
                modules.setdefault(child, Module(child, file)).file = file
                stack.append(child)
                k += 3
                continue
            declared.append(name)
            k += 2
            continue
        elif kind == "ident" and word == "use" and prev != "$":
            tree, k2 = parse_use_tree(toks, k + 1)
            here = current()
            for segs, alias in tree:
                if not segs:
                    continue
                paths.append((here, segs, line, True))
                if at_module_level():
                    mod = modules[here]
                    if alias == "*":
                        mod.globs.append((here, tuple(segs)))
                    else:
                        mod.bindings[alias] = (here, tuple(segs))
            k = k2
            continue
        elif kind == "ident" and at_module_level() and (
            (word in KEYWORDS_ITEM and toks[k + 1][0] == "ident")
            or (word == "macro_rules" and toks[k + 1][1] == "!")
        ):
            name = toks[k + 2][1] if word == "macro_rules" else toks[k + 1][1]
            if name != "fn":  # `const fn name`: the `fn` will name it
                modules[current()].items.add(name)
        elif (
            kind == "ident"
            and (word in STARTS or word == lib_alias)
            and toks[k + 1][1] == "::"
            and prev not in ("::", "$", "in")
        ):
            segs, j = [word], k + 1
            while toks[j][1] == "::" and toks[j + 1][0] == "ident":
                segs.append(toks[j + 1][1])
                j += 2
            paths.append((current(), segs, line, False))
            k = j
            continue
        elif kind == "ident" and toks[k + 1][1] == "::" and prev not in ("::", "$", ".", "in"):
            # A bare path: into a child module when the first segment names one (kept for
            # --children; resolved once every module is known).
            segs, j = [word], k + 1
            while toks[j][1] == "::" and toks[j + 1][0] == "ident":
                segs.append(toks[j + 1][1])
                j += 2
            paths.append((current(), segs, line, None))
            k = j
            continue
        k += 1
    return declared, paths


# --- resolution -----------------------------------------------------------------------------

def absolute(modules, here, segs, lib_alias, lib_root):
    """The path from a crate root for `segs` written in module `here`, or None when it
    leaves the crate (std, other crates)."""
    segs = list(segs)
    if segs[0] == "crate":
        return here[:1] if here and here[0] == "<bin>" else (), segs[1:]
    if segs[0] == lib_alias:
        return lib_root, segs[1:]
    if segs[0] == "self":
        return here, segs[1:]
    if segs[0] != "super":  # a bare path: into a child module of `here`, or out of the crate
        return (here, segs) if segs[0] in modules[here].children else None
    base = here
    while segs and segs[0] == "super":
        base, segs = base[:-1], segs[1:]
    return base, segs


def resolve(modules, start, base, segs, depth=0):
    """The module whose file defines `segs` (relative to module `base`), following `use`
    bindings (`start(site, path)` makes a binding's path absolute); None when it leaves the
    crate."""
    mod = base
    segs = list(segs)
    while segs and depth < 32:
        m = modules.get(mod)
        if m is None:
            return None
        name = segs[0]
        if name in m.children:
            mod, segs = m.children[name], segs[1:]
            continue
        if name in m.items:
            return mod
        if name in m.bindings:
            site, target = m.bindings[name]
            ab = start(site, target)
            if ab is None:
                return None
            return resolve(modules, start, ab[0], list(ab[1]) + segs[1:], depth + 1)
        for site, target in m.globs:
            ab = start(site, target)
            if ab is None:
                continue
            inner = resolve(modules, start, ab[0], ab[1], depth + 1)
            if inner is not None and inner in modules and (
                name in modules[inner].items
                or name in modules[inner].bindings
                or name in modules[inner].children
            ):
                return resolve(modules, start, inner, segs, depth + 1)
        return mod  # not found: the module itself
    return mod



def crate_files(src, lib_alias):
    """Every module of the crate(s) under `src` (lib.rs and main.rs roots) and every path."""
    modules, sites = {}, []
    roots = []
    if os.path.exists(os.path.join(src, "lib.rs")):
        roots.append(((), os.path.join(src, "lib.rs")))
    if os.path.exists(os.path.join(src, "main.rs")):
        roots.append((("<bin>",), os.path.join(src, "main.rs")))
    todo = list(roots)
    while todo:
        modpath, file = todo.pop()
        declared, paths = scan(file, modpath, modules, lib_alias)
        sites.extend((file, *p) for p in paths)
        base = os.path.dirname(file)
        stem = os.path.splitext(os.path.basename(file))[0]
        if stem not in ("lib", "main", "mod"):
            base = os.path.join(base, stem)
        for name in declared:
            for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
                if os.path.exists(cand):
                    todo.append((modpath + (name,), cand))
                    break
    return modules, sites


def sccs(nodes, edges):
    """Strongly connected sets of two or more nodes (Tarjan), each sorted, in order."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_cycle(comp, edges):
    """One shortest cycle through the first node of `comp`, inside `comp` (breadth first)."""
    start, inside = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(edges.get(v, ())):
            if w == start:
                cycle = [v]
                while prev[cycle[-1]] is not None:
                    cycle.append(prev[cycle[-1]])
                return list(reversed(cycle)) + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def lib_name(src):
    """The library's name as the binary writes it (Cargo.toml's [lib] or [package] name)."""
    toml = os.path.join(os.path.dirname(os.path.abspath(src)), "Cargo.toml")
    if not os.path.exists(toml):
        return None
    section, names = None, {}
    for line in open(toml, encoding="utf-8"):
        s = line.strip()
        if s.startswith("["):
            section = s
        m = re.match(r'name\s*=\s*"([^"]+)"', s)
        if m and section in ("[lib]", "[package]"):
            names[section] = m.group(1)
    name = names.get("[lib]") or names.get("[package]")
    return name.replace("-", "_") if name else None


def report(src, show_edges, children):
    alias = lib_name(src)
    modules, sites = crate_files(src, alias)
    def start(here, segs):
        return absolute(modules, here, segs, alias, ())

    rel = lambda f: os.path.relpath(f)  # noqa: E731
    edges = defaultdict(lambda: defaultdict(list))  # file -> file -> [(path text, line)]
    for file, here, segs, line, in_use in sites:
        bare = segs[0] not in STARTS and segs[0] != alias
        if bare and not children:
            continue
        ab = start(here, segs)
        if ab is None:
            continue
        target = resolve(modules, start, ab[0], ab[1])
        if target is None or target not in modules:
            continue
        dest = modules[target].file
        if dest != file:
            edges[rel(file)][rel(dest)].append(("::".join(segs), line))

    files = sorted({rel(m.file) for m in modules.values()})
    graph = {a: set(b) for a, b in edges.items()}
    n_edges = sum(len(b) for b in graph.values())
    print(f"{src}: {len(files)} files, {n_edges} file edges"
          + (" (with bare paths into child modules)" if children else ""))
    if show_edges:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"  {a} -> {b}  {describe(edges[a][b])}")

    found = 0
    comps = sccs(files, graph)
    print(f"file cycles: {len(comps)}")
    for comp in comps:
        found += 1
        print("  " + " ⇄ ".join(comp) if len(comp) == 2 else "  {" + ", ".join(comp) + "}")
        if len(comp) > 2:
            print("    e.g. " + " -> ".join(shortest_cycle(comp, graph)))
        for a in comp:
            for b in comp:
                if b in edges.get(a, {}):
                    print(f"    {a} -> {b}  {describe(edges[a][b])}")

    bin_root = rel(os.path.join(src, "main.rs"))

    root = rel(src)

    def folder(f):
        # A file at the crate's root (lib.rs, gpu.rs, simd.rs, ...) stands for itself: the
        # root is where the rooms meet, not a room. A file deeper down stands for the room
        # it is in, the crate root's child folder (`src/general/solver/dd.rs` for
        # `src/general`): a room's subfolders are its own business, their files' cycles
        # are reported at file level.
        if f == bin_root or os.path.dirname(f) == root:
            return f
        # `x.rs` beside the folder `x/` of its child modules is that folder's module file.
        stem = os.path.splitext(f)[0]
        d = stem if os.path.isdir(stem) else os.path.dirname(f)
        while os.path.dirname(d) != root:
            d = os.path.dirname(d)
        return d

    fedges = defaultdict(lambda: defaultdict(list))
    for a in edges:
        for b, why in edges[a].items():
            if folder(a) != folder(b):
                fedges[folder(a)][folder(b)].append((a, b, why))
    folders = sorted({folder(f) for f in files})
    fgraph = {a: set(b) for a, b in fedges.items()}
    comps = sccs(folders, fgraph)
    print(f"folder cycles: {len(comps)}")
    for comp in comps:
        found += 1
        print("  " + " ⇄ ".join(comp) if len(comp) == 2 else "  {" + ", ".join(comp) + "}")
        if len(comp) > 2:
            print("    e.g. " + " -> ".join(shortest_cycle(comp, fgraph)))
        mutual = [f"{a} ⇄ {b}" for a in comp for b in comp if a < b
                  and b in fgraph.get(a, ()) and a in fgraph.get(b, ())]
        if len(comp) > 2 and mutual:
            print("    both ways: " + ", ".join(mutual))
        for a in comp:
            for b in comp:
                if b not in fedges.get(a, {}):
                    continue
                print(f"    {a} -> {b}")
                for fa, fb, why in fedges[a][b]:
                    print(f"      {fa} -> {fb}  {describe(why)}")
    return found


def describe(why):
    """The paths behind an edge: the first three, with their lines, and how many more."""
    shown = ", ".join(f"{p} (l.{line})" for p, line in why[:3])
    return shown + (f" (+{len(why) - 3} more)" if len(why) > 3 else "")


SELF_TEST = {
    # A sibling circle through `super::`, one routed through a re-export of `mod.rs`.
    "src/lib.rs": "pub mod a;\npub mod b;\npub use a::Thing;\npub struct Error;\n",
    "src/a/mod.rs": "mod one;\nmod two;\npub use one::Thing;\npub use two::helper;\n",
    "src/a/one.rs": "use super::helper; // via mod.rs: two.rs\npub struct Thing;\n",
    "src/a/two.rs": "pub fn helper() { let _ = super::one::Thing; }\n",
    # No circle: b uses the crate root's items and a's, nothing uses b; comments, strings and
    # a test module's `super::*` are no edges.
    "src/b.rs": (
        "use crate::{Error, Thing};\n/* crate::a::two */ const S: &str = \"super::x\";\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"
    ),
}


def self_test():
    """Writes SELF_TEST into a temporary folder and checks what the script finds there."""
    import contextlib
    import io
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        here = os.getcwd()
        os.chdir(root)
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                found = report("src", True, False)
        finally:
            os.chdir(here)
    text = out.getvalue()
    expect = [
        "src/a/one.rs -> src/a/two.rs  super::helper (l.1)",
        "src/a/two.rs -> src/a/one.rs  super::one::Thing (l.1)",
        "src/b.rs -> src/lib.rs  crate::Error (l.1)",
        "src/b.rs -> src/a/one.rs  crate::Thing (l.1)",
        "file cycles: 1\n  src/a/one.rs ⇄ src/a/two.rs",
        "folder cycles: 0",
    ]
    missing = [e for e in expect if e not in text]
    unwanted = [u for u in ("src/b.rs -> src/a/two.rs", "src/b.rs -> src/b.rs") if u in text]
    if missing or unwanted or found != 1:
        print(text)
        for e in missing:
            print(f"self-test: missing: {e}")
        for u in unwanted:
            print(f"self-test: unwanted: {u}")
        return 1
    print("self-test: ok")
    return 0


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: stop quietly
    if argv == ["--self-test"]:
        return self_test()
    show_edges = "--edges" in argv
    children = "--children" in argv
    srcs = [a for a in argv if not a.startswith("--")]
    if any(a.startswith("--") and a not in ("--edges", "--children") for a in argv):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    found = 0
    for src in srcs or ["src"]:
        if not os.path.isdir(src):
            print(f"circles.py: no folder {src}", file=sys.stderr)
            return 2
        found += report(src, show_edges, children)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
