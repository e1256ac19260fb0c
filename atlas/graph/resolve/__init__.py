"""Call resolution: an abstract interpreter over the flat statements of every scope (atlas.parse.python.ir).

Values (atlas.graph.resolve.values) are what an expression may be: functions, bound methods, classes, instances,
modules, names outside the tree, containers, ... Cells (cells) hold the values written to variables (per binding
version: flow-sensitive within a scope), attributes, container slots and returns. The solver (solver) runs every
statement, then again those whose reads changed, until nothing changes; each statement kind's work lives in a module
of its own: statements, expressions, names, classes, calls, builtins, summaries (higher-order calls), dispatch
(by-name calls and their rules, rules), heap (reads and writes in context)."""

from atlas.graph.resolve.solver import Resolution, Solver

__all__ = ["Resolution", "Solver"]
