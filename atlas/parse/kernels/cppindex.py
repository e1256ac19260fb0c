"""Name resolution over every parsed C++/CUDA file of a tree: which definition a name used in a body means
(same class, same file, files it includes, then a name unique in the tree), and the macros and aliases it expands."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from atlas.parse.kernels.cpp import CppFile, CppFunction, CppMacro, Ref


@dataclass(frozen=True, slots=True)
class Definition:
    path: str
    function: CppFunction

    @property
    def id(self) -> str:
        prefix = "cuda" if self.function.is_kernel else "cpp"
        return f"{prefix}:{self.path}::{self.function.qualname}"


@dataclass(frozen=True, slots=True)
class Target:
    definition: Definition
    how: str  # "local" (same class/file/includes) or "global" (the only definition of that name in the tree)


class CppIndex:
    """Definitions by name and the include graph of one tree's C++ files."""

    def __init__(self, files: list[CppFile]) -> None:
        self.files = {f.path: f for f in files}
        self.by_name: dict[str, list[Definition]] = {}
        self.macros: dict[str, list[tuple[str, CppMacro]]] = {}
        for f in files:
            for function in f.functions:
                self.by_name.setdefault(function.name, []).append(Definition(f.path, function))
            for macro in f.macros:
                self.macros.setdefault(macro.name, []).append((f.path, macro))
        self._by_suffix: dict[str, list[str]] = {}
        for path in self.files:
            parts = path.split("/")
            for i in range(len(parts)):
                self._by_suffix.setdefault("/".join(parts[i:]), []).append(path)
        self._closure: dict[str, frozenset[str]] = {}

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

    def expand(self, path: str, refs: tuple[Ref, ...], depth: int = 4) -> tuple[list[Ref], bool]:
        """The refs with each macro or alias use replaced by what it stands for (nested up to `depth`), and
        whether one of those expansions launches."""
        out, launches, seen = [], False, set()
        todo = [(ref, depth) for ref in refs]
        visible = self.closure(path)
        while todo:
            ref, left = todo.pop()
            out.append(ref)
            macros = self.macros.get(ref.name)
            if not macros or left == 0 or ref.name in seen:
                continue
            local = [m for p, m in macros if p in visible] or [m for _, m in macros]
            seen.add(ref.name)
            for macro in local[:1]:
                launches |= macro.has_launch
                todo.extend((inner, left - 1) for inner in macro.refs)
        return out, launches

    def resolve(self, ref: Ref, path: str, scope: str) -> list[Target]:
        """The definitions `ref`, used in `path` inside class/namespace `scope` ("ns::Class::"), can mean."""
        candidates = self.by_name.get(ref.name)
        if not candidates:
            return []
        if ref.qualifier:
            qualified = [d for d in candidates if (d.function.qualname.endswith(ref.qualifier + ref.name))]
            candidates = qualified or candidates
        if scope:
            same_class = [d for d in candidates if d.path == path and d.function.qualname.startswith(scope)]
            if same_class:
                return [Target(d, "local") for d in same_class]
        same_file = [d for d in candidates if d.path == path]
        if same_file:
            return [Target(d, "local") for d in same_file]
        visible = self.closure(path)
        included = [d for d in candidates if d.path in visible]
        if included:
            return [Target(d, "local") for d in included]
        if len({d.id for d in candidates}) == 1:
            return [Target(candidates[0], "global")]
        return []

    def lookup_qualified(self, qualname: str, paths: frozenset[str] | None = None) -> list[Definition]:
        """Definitions whose qualified name ends with `qualname` (whole `::` parts), within `paths` if given."""
        name = qualname.rsplit("::", 1)[-1]
        found = []
        for d in self.by_name.get(name, []):
            full = d.function.qualname
            if (full == qualname or full.endswith("::" + qualname)) and (paths is None or d.path in paths):
                found.append(d)
        return found
