"""The call resolver's tuning limits, in one place, each with why it is set where it is. Each bounds a cost the
real trees would otherwise make grow without a precision gain; what reaching each one costs is said with it. The
bottom layer of `atlas.graph.resolve`: it imports nothing."""

from __future__ import annotations

from typing import Final

MAX_ROUNDS: Final = 256
"""Rounds of the solver: only a guard against a flow that never settles. The declaring phase's passes each take
rounds of their own, and the default trees take 47 (SGLang v0.5.17) to 71 (vLLM v0.26.0) in all
(benchmarks/graph_rounds.py prints them), so the guard sits well above that; the build's stats say whether the
fixpoint was reached."""

MAX_VALUES: Final = 1024
"""Values of the tree's code (functions, classes, instances) one cell holds: a model registry's hundreds of classes
are real, so this is high; later values that do not fit are left out, in the fixed order of the writes."""

MAX_DATA_VALUES: Final = 64
"""Allocation sites of data (containers and their methods, library objects, constants) one cell holds. The copies
of one container a function makes per context (`<site>@<context>`) count as one, for they are as many as the
contexts a shared helper is given (an offloader's wrap_modules given each model's generator of layers), and each is
one context's own; copies per call site (`<site>#<call site>`) count apart. A cell that would hold data of more
sites is a hub every value flows through (a generic recursive helper, a copier over a dataclass's fields): more
values there add cost, multiplied by each container copied, and no precision."""

MAX_ARGUMENT_VALUES: Final = 48
"""Values an argument may carry into a parameter (Solver.cap): a wider one is a guess too wide to help, not passed
(calls through the parameter are past a bound). Values a call passed in an earlier round, while it was narrower,
stay: so what a parameter holds past this bound depends on the order values arrived in."""

MAX_CONTEXTS: Final = 256
"""Contexts (clones) of one function; calls past them share the function's own analysis (merged). A decorator's
applications are not counted against it (contexts.clone): they are as many as its `@`s in the tree."""

MAX_PROMISED: Final = 40
"""Classes an annotation may promise: when its cone holds more classes the program makes (`x: nn.Module`-like
internal bases), it names no one of them and promises an instance of the class itself, so calls through it reach
the base's methods only (vLLM v0.32.0's 56 attention backends and 75 quant methods are past it)."""

MAX_SUBCLASS_METHODS: Final = 40
"""Subclasses defining a method that a call on their base may reach: a name more of them define is too generic
to follow (`forward` of every module)."""

MAX_ATTRIBUTE_NAMES: Final = 8
"""Names a getattr/setattr may use: past them (a loop over a class's fields copying each) the name is unknown, as
following every name would join every field to every other."""

MAX_EXTERNAL_PARTS: Final = 6
"""Parts of a dotted name outside the tree: a longer one is some object of its library, so attribute chains through
values nothing here knows (`node.args.args...` on a torch.fx.Node) stop growing and rounds end."""

MAX_COPY_DEPTH: Final = 2
"""Nesting depth of a container a function returns that is still copied per call site (summaries)."""

MAX_COPY_SLOTS: Final = 8
"""Slots of a container a function returns that is still copied per call site: a returned tuple is small."""
