"""The parsed C++/CUDA files of one tree, indexed for name lookup: definitions by name, the include graph, the
build units (the files compiled and linked into one extension), type aliases, `using` directives and base classes,
and the macros and aliases a body's names expand to. atlas.parse.kernels.lookup decides what a name can mean."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace

from atlas.parse.kernels.cpp import CppFile, CppFunction, CppMacro
from atlas.parse.kernels.refs import Ref

SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx")  # compiled on their own; the other C++ files only when included


@dataclass(frozen=True, slots=True)
class Definition:
    path: str
    function: CppFunction

    @property
    def id(self) -> str:
        prefix = "cuda" if self.function.is_kernel else "cpp"
        return f"{prefix}:{self.path}::{self.function.qualname}"


class CppIndex:
    """Definitions by name, the include graph and the build units of one tree's C++ files."""

    def __init__(self, files: list[CppFile]) -> None:
        self.files = {f.path: f for f in files}
        self.by_name: dict[str, list[Definition]] = {}
        self.macros: dict[str, list[tuple[str, CppMacro]]] = {}
        self.bases: dict[str, set[str]] = {}  # class name (last part) -> the names of the classes it derives from
        self.derived: dict[str, set[str]] = {}  # the reverse
        self.classes: set[str] = (
            set()
        )  # the names (last parts) of the classes the tree defines: methods, bases, members
        self.virtuals: set[str] = set()  # "Class::method" declared `virtual`
        self.fields: dict[str, dict[str, set[str]]] = {}  # class name (last part) -> member -> its types
        for f in files:
            for function in f.functions:
                self.by_name.setdefault(function.name, []).append(Definition(f.path, function))
                if function.is_method:
                    self.classes.add(function.class_name)
            for macro in f.macros:
                self.macros.setdefault(macro.name, []).append((f.path, macro))
            for cls, names in f.bases:
                name = cls.rsplit("::", 1)[-1]
                self.classes.add(name)
                for base in names:
                    self.bases.setdefault(name, set()).add(base.rsplit("::", 1)[-1])
                    self.derived.setdefault(base.rsplit("::", 1)[-1], set()).add(name)
            self.virtuals.update(f.virtuals)
            for cls, member, type_name in f.fields:
                self.classes.add(cls.rsplit("::", 1)[-1])
                self.fields.setdefault(cls.rsplit("::", 1)[-1], {}).setdefault(member, set()).add(type_name)
        self._by_suffix: dict[str, list[str]] = {}
        for path in self.files:
            parts = path.split("/")
            for i in range(len(parts)):
                self._by_suffix.setdefault("/".join(parts[i:]), []).append(path)
        self._closure: dict[str, frozenset[str]] = {}
        self._units: dict[str, frozenset[str]] = {}  # unit -> the files compiled into it
        self._file_units: dict[str, list[str]] = {}
        self._linked: dict[str, frozenset[str]] = {}
        self._usings: dict[str, tuple[str, ...]] = {}
        self._aliases: dict[str, dict[str, str]] = {}
        self.link_units({})

    def find_file(self, name: str, near: str = "") -> str | None:
        """The tree's file an include (or a JIT file list entry) names: relative to `near`'s folder first."""
        if near:
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(near), name))
            if joined in self.files:
                return joined
        candidates = self._by_suffix.get(name.lstrip("./"), [])
        if len(candidates) > 1 and near:
            candidates = sorted(candidates, key=lambda p: -len(posixpath.commonprefix([p, near])))
        return candidates[0] if candidates else None

    def closure(self, path: str) -> frozenset[str]:
        """The file and every file it includes, transitively (only files of the tree)."""
        if path in self._closure:
            return self._closure[path]
        seen, todo = {path}, [path]
        while todo:
            current = todo.pop()
            for include in self.files[current].includes if current in self.files else ():
                found = self.find_file(include, current)
                if found and found not in seen:
                    seen.add(found)
                    todo.append(found)
        self._closure[path] = frozenset(seen)
        return self._closure[path]

    def link_units(self, roots: dict[str, list[str]]) -> None:
        """Set the build units: unit name -> the files it compiles (a CMake extension's sources, a JIT module's
        files). A source file no unit lists is compiled with the other unlisted sources of its folder (as a
        `cpp_extension.load(sources=[...])` of one folder); a header belongs to every unit compiling a file that
        includes it."""
        roots = {unit: [p for p in paths if p in self.files] for unit, paths in roots.items()}
        listed = {p for paths in roots.values() for p in paths}
        for path in sorted(self.files):
            if path.endswith(SOURCE_SUFFIXES) and path not in listed:
                roots.setdefault(f"folder:{posixpath.dirname(path)}", []).append(path)
        self._units = {u: frozenset().union(*(self.closure(p) for p in paths)) for u, paths in roots.items() if paths}
        self._file_units = {}
        for unit in sorted(self._units):
            for path in self._units[unit]:
                self._file_units.setdefault(path, []).append(unit)
        self._linked = {}

    def linked_files(self, path: str) -> frozenset[str]:
        """The files compiled into an extension with `path` (in any of its units): where a function it declares
        but does not see defined can be linked from. Just its includes when no unit compiles it."""
        if path not in self._linked:
            units = self._file_units.get(path)
            linked = frozenset().union(*(self._units[u] for u in units)) if units else self.closure(path)
            self._linked[path] = linked
        return self._linked[path]

    def usings(self, path: str) -> tuple[str, ...]:
        """The `using` directives and declarations of the files `path` includes (atlas.parse.kernels.cpp.CppFile)."""
        if path not in self._usings:
            self._usings[path] = tuple(u for p in sorted(self.closure(path)) for u in self.files[p].usings)
        return self._usings[path]

    def aliases(self, path: str) -> dict[str, str]:
        """The type aliases of the files `path` includes, alias -> type; the file's own win."""
        if path not in self._aliases:
            others = sorted(self.closure(path) - {path})
            found = {a: t for p in others for a, t in self.files[p].aliases}
            found.update(self.files[path].aliases if path in self.files else ())
            self._aliases[path] = found
        return self._aliases[path]

    def ancestors(self, cls: str) -> set[str]:
        """The names of `cls` (a class name, last part) and of every class it derives from, transitively."""
        return _reach(cls, self.bases)

    def descendants(self, cls: str) -> set[str]:
        """The names of `cls` and of every class deriving from it, transitively."""
        return _reach(cls, self.derived)

    def expand(self, path: str, caller: CppFunction, depth: int = 4) -> tuple[list[Ref], bool]:
        """The caller's refs with each use of a macro or alias it sees replaced by what it stands for (nested up to
        `depth`; the names it stands for keep the line of the use), and whether one of those expansions launches.
        A macro is seen when its file is included; an alias (a class or namespace member) also only inside its
        scope, the innermost first, and not when a variable of the caller has its name."""
        out, launches, seen = [], False, set()
        todo = [(ref, depth, ref.line) for ref in reversed(caller.refs)]  # in order: an edge keeps its first site
        visible = self.closure(path)
        while todo:
            ref, left, line = todo.pop()
            out.append(ref if ref.line == line else replace(ref, line=line))
            macros = self.macros.get(ref.name)
            if not macros or left == 0 or ref.name in seen or ref.receiver:
                continue
            local = [
                (len(m.scope), p == path, m)
                for p, m in macros
                if p in visible
                and (m.scope.endswith(ref.qualifier) if ref.qualifier else caller.scope.startswith(m.scope))
                and (not m.scope or not ref.is_variable)
            ]
            if not local:
                continue
            seen.add(ref.name)
            macro = max(local, key=lambda found: found[:2])[2]
            launches |= macro.has_launch
            todo.extend((inner, left - 1, line) for inner in reversed(macro.refs))
        return out, launches

    def lookup_qualified(self, qualname: str, paths: frozenset[str] | None = None) -> list[Definition]:
        """Definitions whose qualified name ends with `qualname` (whole `::` parts), within `paths` if given."""
        name = qualname.rsplit("::", 1)[-1]
        found = []
        for d in self.by_name.get(name, []):
            full = d.function.qualname
            if (full == qualname or full.endswith("::" + qualname)) and (paths is None or d.path in paths):
                found.append(d)
        return found


def _reach(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
