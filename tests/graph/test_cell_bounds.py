"""The resolver's bounds on what one cell holds (atlas.graph.resolve.cells): a registry of hundreds of classes keeps
every class (code values, up to MAX_VALUES), while a hub every container flows through holds at most
MAX_DATA_VALUES data values. Without the data bound SGLang v0.5.23's diffusion pipelines (a recursive sanitizer and
dataclass copies over ~150 fields) grew past 24 GiB in four rounds."""

from atlas.graph.resolve import Solver
from atlas.graph.resolve.cells import DATA
from atlas.graph.resolve.limits import MAX_DATA_VALUES, MAX_VALUES
from atlas.parse.python import extract, module_name


def solve(files: dict[str, str]) -> tuple[Solver, object]:
    facts = [extract(text.encode(), path, *module_name(path)) for path, text in files.items()]
    solver = Solver(facts)
    return solver, solver.solve()


def cells_of(solver: Solver):
    cells = solver.cells
    for group in (cells.variables, cells.attributes, cells.slots, cells.returns, cells.yields):
        yield from group.values()


def test_a_registry_of_many_classes_keeps_every_class():
    n = 200  # more than the data bound, fewer than the code bound
    assert MAX_DATA_VALUES < n < MAX_VALUES
    classes = "".join(f"class Model{i}:\n    def forward(self): pass\n" for i in range(n))
    registry = "REGISTRY = {" + ", ".join(f"'m{i}': Model{i}" for i in range(n)) + "}\n"
    text = classes + registry + "def load(name):\n    cls = REGISTRY[name]\n    model = cls()\n    model.forward()\n"
    _, out = solve({"models.py": text})
    called = {b for (a, b) in out.edges if a == "models.load"}
    assert {f"models.Model{i}.forward" for i in range(n)} <= called


def test_a_hub_every_container_flows_through_holds_a_bounded_number_of_them():
    n = 150
    makers = "".join(f"def make{i}():\n    return sanitize({{'k{i}': [{i}], 'v': ({i}, {i})}})\n" for i in range(n))
    text = (
        """
def sanitize(x):
    if isinstance(x, dict):
        return {k: sanitize(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [sanitize(v) for v in x]
    return x
class Session:
    def run(self): pass
def main():
    s = sanitize(Session())
    s.run()
"""
        + makers
    )
    solver, out = solve({"hub.py": text})
    assert solver.cells.num_full > 0  # the bound was reached: the case exercises it
    for cell in cells_of(solver):
        assert sum(1 for v in cell.union if v.kind in DATA) <= MAX_DATA_VALUES
        assert len(cell.union) <= MAX_DATA_VALUES + MAX_VALUES
    assert ("hub.main", "hub.Session.run") in out.edges  # a class's instance still passes through the hub


def test_getattr_setattr_over_many_names_is_a_copier_not_followed():
    """`for name in FIELDS: setattr(dst, name, getattr(src, name))` over a dataclass's many fields would give every
    attribute every other's values; over a few names each is followed (the loop runs once per name: the copied
    attribute is read back under its own name)."""

    def case(names: list[str]) -> set:
        fields = ", ".join(repr(f) for f in names)
        text = f"""
class Engine:
    def step(self): pass
class Source:
    def __init__(self):
        self.{names[0]} = Engine()
class Target:
    pass
def copy(src, dst):
    for name in ({fields},):
        setattr(dst, name, getattr(src, name))
def main():
    dst = Target()
    copy(Source(), dst)
    dst.{names[0]}.step()
"""
        return set(solve({"c.py": text})[1].edges)

    few = case(["engine", "runner"])
    many = case([f"f{i}" for i in range(30)])
    assert ("c.main", "c.Engine.step") in few
    assert ("c.main", "c.Engine.step") not in many


def test_the_copies_of_one_allocation_site_count_once_against_the_data_bound():
    """A helper analysed per function given (make_layers(n, lambda: Layer())) makes its containers once per context;
    a shared method every context's container flows through (an offloader's wrap_modules(generator)) must keep them
    all, or the layers of the models past the bound vanish from their model's forward."""
    n = MAX_DATA_VALUES + 40
    models = "".join(
        f"class Layer{i}:\n    def forward(self): pass\n"
        f"class Model{i}:\n"
        f"    def __init__(self):\n        self.layers = make_layers(lambda: Layer{i}())\n"
        f"    def forward(self):\n        for layer in self.layers:\n            layer.forward()\n"
        for i in range(n)
    )
    text = (
        """
class Offloader:
    def wrap_modules(self, modules):
        return list(modules)
OFFLOADER = Offloader()
def make_layers(layer_fn):
    return OFFLOADER.wrap_modules(layer_fn() for _ in range(3))
"""
        + models
        + "def main():\n"
        + "".join(f"    Model{i}().forward()\n" for i in range(n))
    )
    _, out = solve({"m.py": text})
    for i in range(n):
        assert (f"m.Model{i}.forward", f"m.Layer{i}.forward") in out.edges, i
