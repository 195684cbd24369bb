//! The floor plan holds: every folder of `src/` imports only the folders below it, and no files
//! or folders import each other in a circle. The graph is read from the source text (`use
//! crate::` lines, inline `crate::` paths, including those inside macros, and `super::` paths),
//! leaving out test-only modules; a test below proves the check fails on a back-edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, top first. A folder may import its own files and any folder of a lower layer;
/// folders of one layer (policy, identify) may not import each other.
const LAYERS: &[&[&str]] = &[
    &["app"],
    &["report"],
    &["store"],
    &["engine"],
    &["scenario"],
    &["multi"],
    &["policy", "identify"],
    &["model"],
    &["util"],
];

/// A module path: `["engine", "slot_loop"]` for `src/engine/slot_loop.rs`; `[]` for the root.
type Module = Vec<String>;

/// Every module file under `root` with its text, test-only modules left out.
fn read_tree(root: &Path) -> BTreeMap<Module, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<Module, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                let mut module: Module = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                if module == ["main"] {
                    // The binary is its own crate: it sees only the library's public face.
                    continue;
                }
                if module == ["lib"] {
                    module.clear();
                }
                out.insert(module, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    without_tests(files)
}

/// Leaves out modules declared `#[cfg(test)] mod name;` (and everything below them), and the
/// inline `#[cfg(test)] mod name { ... }` blocks of the others.
fn without_tests(files: BTreeMap<Module, String>) -> BTreeMap<Module, String> {
    let mut test_only: Vec<Module> = Vec::new();
    for (module, text) in &files {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let line = line.trim();
            let declared = line
                .strip_prefix("mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .and_then(|rest| rest.strip_suffix(';'));
            if let Some(name) = declared
                && i > 0
                && lines[i - 1].trim() == "#[cfg(test)]"
            {
                let mut child = module.clone();
                child.push(name.to_string());
                test_only.push(child);
            }
        }
    }
    files
        .into_iter()
        .filter(|(m, _)| !test_only.iter().any(|t| m.starts_with(t)))
        .map(|(m, text)| (m, strip_inline_tests(&text)))
        .collect()
}

/// The text without `#[cfg(test)] mod x { ... }` blocks and without comments.
fn strip_inline_tests(text: &str) -> String {
    let mut out = String::new();
    let mut skip_depth: Option<i64> = None;
    let mut pending_cfg = false;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        if let Some(depth) = skip_depth.as_mut() {
            *depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            if *depth <= 0 {
                skip_depth = None;
            }
            continue;
        }
        if code.trim() == "#[cfg(test)]" {
            pending_cfg = true;
            continue;
        }
        if pending_cfg && code.trim_start().starts_with("mod ") && code.contains('{') {
            let depth = code.matches('{').count() as i64 - code.matches('}').count() as i64;
            skip_depth = (depth > 0).then_some(depth);
            pending_cfg = false;
            continue;
        }
        pending_cfg = false;
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The module paths a text names: `crate::a::b` (in `use` lines, with one level of braces
/// expanded, and inline) and `super::a` relative to `module`.
fn references(module: &[String], text: &str) -> Vec<Module> {
    let mut out = Vec::new();
    let mut push = |path: &str, base: Module| {
        let mut m = base;
        for seg in path.split("::").map(str::trim) {
            if seg.is_empty() || seg == "self" || seg == "*" {
                continue;
            }
            m.push(seg.to_string());
        }
        out.push(m);
    };
    // `use crate::a::{b, c::d};` and `use super::x::{...};`, possibly over several lines.
    let flat: String = text.replace('\n', " ");
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        let mut rest = flat.as_str();
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let head = &rest[..end];
            if rest[end..].starts_with('{') {
                let close = rest[end..].find('}').map_or(rest.len(), |c| end + c);
                for item in rest[end + 1..close].split(',') {
                    push(&format!("{head}{}", item.trim()), base.clone());
                }
            } else {
                push(head, base.clone());
            }
        }
    }
    out
}

/// The longest prefix of `path` that is a module file.
fn resolve<'a>(path: &[String], files: &'a BTreeMap<Module, String>) -> Option<&'a Module> {
    (1..=path.len())
        .rev()
        .find_map(|n| files.get_key_value(&path[..n]).map(|(k, _)| k))
}

/// File-level edges (a file importing its own parent module is the `foo.rs` + `foo/` style,
/// not an edge) and top-level edges.
fn graph(files: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, text) in files {
        for r in references(module, text) {
            if let Some(target) = resolve(&r, files)
                && target != module
                && !(target.len() < module.len() && module.starts_with(target))
            {
                edges
                    .entry(module.clone())
                    .or_default()
                    .insert(target.clone());
            }
        }
    }
    edges
}

/// Strongly connected sets of more than one node (Tarjan).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on: BTreeSet<Module>,
        out: Vec<Vec<Module>>,
    }
    fn go(s: &mut State<'_>, v: &Module) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                go(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(&w);
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    let nodes: BTreeSet<Module> = edges
        .iter()
        .flat_map(|(k, v)| std::iter::once(k.clone()).chain(v.iter().cloned()))
        .collect();
    for v in &nodes {
        if !s.index.contains_key(v) {
            go(&mut s, v);
        }
    }
    s.out
}

/// Every violation of the floor plan, as readable lines.
fn violations(files: &BTreeMap<Module, String>) -> Vec<String> {
    let name = |m: &Module| {
        if m.is_empty() {
            "lib".to_string()
        } else {
            m.join("/")
        }
    };
    let layer = |top: &str| LAYERS.iter().position(|l| l.contains(&top));
    let edges = graph(files);
    let mut out = Vec::new();
    for c in circles(&edges) {
        let names: Vec<String> = c.iter().map(&name).collect();
        out.push(format!("file circle: {}", names.join(" , ")));
    }
    let mut top: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, tos) in &edges {
        for to in tos {
            let (Some(f), Some(t)) = (from.first(), to.first()) else {
                continue;
            };
            if f == t {
                continue;
            }
            top.entry(vec![f.clone()])
                .or_default()
                .insert(vec![t.clone()]);
            match (layer(f), layer(t)) {
                (Some(lf), Some(lt)) if lt <= lf => out.push(format!(
                    "{} imports {} ({} may import only the layers below it)",
                    name(from),
                    name(to),
                    f
                )),
                (None, _) | (_, None) => out.push(format!(
                    "{} imports {}: every top-level module must be placed in a layer",
                    name(from),
                    name(to)
                )),
                _ => {}
            }
        }
    }
    for c in circles(&top) {
        let names: Vec<String> = c.iter().map(&name).collect();
        out.push(format!("folder circle: {}", names.join(" , ")));
    }
    out
}

#[test]
fn folders_import_only_the_layers_below_and_nothing_forms_a_circle() {
    let files = read_tree(Path::new("src"));
    assert!(files.len() > 100, "read {} files", files.len());
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "the floor plan is broken:\n{}",
        found.join("\n")
    );
}

/// The check itself fails on a back-edge, a file circle and a module outside every layer.
#[test]
fn the_check_fails_on_a_back_edge() {
    let file = |path: &str, text: &str| {
        (
            path.split('/').map(String::from).collect::<Module>(),
            text.to_string(),
        )
    };
    let clean: BTreeMap<Module, String> = [
        file(
            "engine/slot_loop",
            "use crate::model::channel::Environment;",
        ),
        file("model/channel", "use crate::util::rng::SimRng;"),
        file("util/rng", ""),
    ]
    .into_iter()
    .collect();
    assert!(violations(&clean).is_empty(), "{:?}", violations(&clean));
    // A macro hides the path in its body: still an edge.
    let mut back = clean.clone();
    back.insert(
        vec!["model".into(), "channel".into()],
        "macro_rules! m { () => { crate::engine::slot_loop::episode() } }".into(),
    );
    let found = violations(&back);
    assert!(
        found.iter().any(|v| v.contains("model may import only")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v.starts_with("file circle")),
        "{found:?}"
    );
    let mut stray = clean.clone();
    stray.insert(vec!["misc".into()], "use crate::util::rng::SimRng;".into());
    assert!(
        violations(&stray)
            .iter()
            .any(|v| v.contains("must be placed in a layer")),
    );
    // Sibling files through `super::`, and test modules left out.
    let mut siblings = clean.clone();
    siblings.insert(vec!["util".into(), "a".into()], "use super::b::X;".into());
    siblings.insert(
        vec!["util".into(), "b".into()],
        "use super::a::Y;\n#[cfg(test)]\nmod tests {\n    use crate::app::Z;\n}\n".into(),
    );
    let found = violations(&siblings);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("util/a") && found[0].contains("util/b"));
}

/// The README and the guide name no path of the machine they were measured on (the bench
/// wrote `/work/base-target/...` into it): commands read as a user pastes them.
#[test]
fn the_readme_names_no_development_machine_path() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("guide/src")).unwrap() {
        docs.push(e.unwrap().path());
    }
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for bad in ["/work/", "/root/", "/home/", "/tmp/"] {
            let hit = text.lines().find(|l| l.contains(bad));
            assert!(
                hit.is_none(),
                "{}: {bad}: {}",
                doc.display(),
                hit.unwrap_or_default()
            );
        }
    }
}
